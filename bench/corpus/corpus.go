// Package corpus writes synthetic Claude Code transcripts for benchmarks:
// a fleet of sessions (`pmcheck fixtures write --scale N`), one large session with
// subagents, one huge transcript, and a Workflow run at two time scales.
// The shapes are modelled on ../shared/corpus (see docs/performance.md):
// the row-type mix by count, tool-output sizes by percentile, tool names, and
// how many sessions spawn subagents. Output is a pure function of the
// arguments: a seeded splitmix64 generator, a fixed epoch, no clock, no
// randomness from the runtime. Rows are streamed to disk, never held whole.
package corpus

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// epoch is the first timestamp of every generated corpus.
var epoch = time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)

// rng is splitmix64: tiny, fast and the same on every platform.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// logUniform returns a value between lo and hi, uniform in log space.
func (r *rng) logUniform(lo, hi float64) float64 {
	return dexp(dlog(lo) + float64(r.float()*(dlog(hi)-dlog(lo))))
}

// The corpus must be the same bytes on every machine. math.Exp, math.Log and
// math.Cos may run assembly (with or without FMA, by CPU) that differs in the
// last bit, and the compiler may fuse a*b+c on some architectures; a last-bit
// difference can move a size across an integer. dexp, dlog and dcos use only
// correctly rounded + - * / (with every product rounded by an explicit
// float64 conversion, which Go never fuses) and exact helpers (Floor, Ldexp,
// Frexp); math.Sqrt is correctly rounded everywhere.

const ln2 = 0.693147180559945309417232121458176568

// dexp is e**x: x = k*ln2 + r, |r| <= ln2/2, and a Taylor series for e**r.
func dexp(x float64) float64 {
	k := math.Floor(x/ln2 + 0.5)
	r := x - float64(k*ln2)
	sum, term := 1.0, 1.0
	for i := 1; i <= 24; i++ {
		term = float64(term*r) / float64(i)
		sum += term
	}
	return math.Ldexp(sum, int(k))
}

// dlog is the natural logarithm of x > 0: x = m * 2**e with m in
// [sqrt(1/2), sqrt(2)), and log(m) = 2 atanh((m-1)/(m+1)) as a series.
func dlog(x float64) float64 {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m, e = m*2, e-1
	}
	s := (m - 1) / (m + 1)
	s2 := float64(s * s)
	sum, term := s, s
	for i := 3; i <= 41; i += 2 {
		term = float64(term * s2)
		sum += term / float64(i)
	}
	return float64(2*sum) + float64(float64(e)*ln2)
}

// dcos is the cosine of x in [0, 2*pi), by a Taylor series on [-pi, pi].
func dcos(x float64) float64 {
	if x > math.Pi {
		x -= 2 * math.Pi
	}
	x2 := float64(x * x)
	sum, term := 1.0, 1.0
	for i := 1; i <= 30; i++ {
		term = -float64(term*x2) / float64((2*i-1)*(2*i))
		sum += term
	}
	return sum
}

// pick returns an index drawn with the given weights.
func (r *rng) pick(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := r.intn(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// toolOutputSize follows the corpus's tool_result content sizes:
// p50 ≈ 280 B, p75 ≈ 1.2 KB, p90 ≈ 4 KB, p99 ≈ 25 KB, max ≈ 80 KB.
func (r *rng) toolOutputSize() int {
	u := r.float()
	switch {
	case u < 0.5:
		return int(r.logUniform(30, 280))
	case u < 0.75:
		return int(r.logUniform(280, 1200))
	case u < 0.9:
		return int(r.logUniform(1200, 4200))
	case u < 0.99:
		return int(r.logUniform(4200, 25000))
	}
	return int(r.logUniform(25000, 80000))
}

// Tool names by their share of calls in the corpus.
var (
	toolNames   = []string{"Bash", "Read", "Edit", "Grep", "Glob", "Write", "TodoWrite", "WebFetch", "TaskOutput"}
	toolWeights = []int{40, 20, 11, 5, 4, 4, 3, 2, 1}
)

// text is a pool of JSON-escaped log and code text (with newlines, tabs,
// quotes and some non-ASCII) that rows take slices of. It is built on first
// use: the package is linked into pmcheck (fixtures write --scale), and
// building it when the package is initialised cost every pmcheck command
// about 7 ms before it started.
var text = sync.OnceValue(func() []byte {
	// The corpus has a \n escape every ~90 bytes, a \u escape every ~2 KB
	// and 0.7% of bytes outside ASCII (13% of lines hold one).
	words := []string{"func", "return", "err", "nil", "if", "for", "range", "ok", "PASS", "FAIL", "test", "main.go:42:",
		"package", "import", `\"fmt\"`, "build", "warning:", "src/lib.rs", "cargo", "npm", "=>", "{", "}", "<b>",
		"the", "value", "of", "line", "output", "error:", "expected", "got", "0x1f", "3.14", "ms", `C:\\path`, "[i]"}
	rare := []string{"—", "café", "✓", "…", "résumé", "─────", `\u001b[0m`, `\ud83d\ude80`}
	r := newRNG(7)
	var b []byte
	for len(b) < 1<<20 {
		n := 6 + r.intn(18)
		for i := 0; i < n; i++ {
			if r.intn(300) == 0 {
				b = append(b, rare[r.intn(len(rare))]...)
			} else {
				b = append(b, words[r.intn(len(words))]...)
			}
			b = append(b, ' ')
		}
		switch r.intn(4) {
		case 0:
			b = append(b, `\t`...)
		}
		b = append(b, `\n `...)
	}
	return b
})

// textSlice appends about n bytes of pool text, cut at spaces so no escape
// is split.
func (r *rng) textSlice(dst []byte, n int) []byte {
	text := text()
	for n > 0 {
		start := r.intn(len(text) - 4096)
		for text[start] != ' ' {
			start++
		}
		start++
		end := start + min(n, len(text)-start-64)
		for end < len(text) && text[end] != ' ' {
			end++
		}
		dst = append(dst, text[start:end]...)
		n -= end - start
	}
	return dst
}

// file is one transcript being written.
type file struct {
	w       *bufio.Writer
	f       *os.File
	r       *rng
	session string
	agentID string
	at      time.Duration // offset of the current row from the epoch
	step    func() time.Duration
	seq     int
	n       int64 // bytes written
	line    []byte
	buf     []byte
}

func create(path string, r *rng, session, agentID string) (*file, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &file{w: bufio.NewWriterSize(f, 1<<20), f: f, r: r, session: session, agentID: agentID}, nil
}

func (f *file) close() error {
	if err := f.w.Flush(); err != nil {
		f.f.Close()
		return err
	}
	return f.f.Close()
}

func (f *file) uuid() string {
	f.seq++
	h := f.r.next()
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(h), uint16(h>>32), (h>>48)&0xfff, f.seq&0xfff, f.seq)
}

// begin starts a row with the envelope Claude Code writes.
func (f *file) begin(typ string) {
	if f.step != nil {
		f.at += f.step()
	}
	l := f.line[:0]
	l = append(l, `{"parentUuid":"`...)
	l = append(l, f.uuid()...)
	l = append(l, `","isSidechain":`...)
	l = strconv.AppendBool(l, f.agentID != "")
	if f.agentID != "" {
		l = append(l, `,"agentId":"`...)
		l = append(l, f.agentID...)
		l = append(l, '"')
	}
	l = append(l, `,"userType":"external","cwd":"/work/repo","sessionId":"`...)
	l = append(l, f.session...)
	l = append(l, `","version":"2.1.143","gitBranch":"main","type":"`...)
	l = append(l, typ...)
	l = append(l, `","uuid":"`...)
	l = append(l, f.uuid()...)
	l = append(l, `","timestamp":"`...)
	l = epoch.Add(f.at).AppendFormat(l, "2006-01-02T15:04:05.000Z")
	l = append(l, '"')
	f.line = l
}

func (f *file) add(s string) { f.line = append(f.line, s...) }

// end closes the row and writes it.
func (f *file) end() {
	f.line = append(f.line, "}\n"...)
	f.w.Write(f.line)
	f.n += int64(len(f.line))
}

// row writes a complete non-conversation row (no uuid chain).
func (f *file) row(typ, rest string) {
	f.begin(typ)
	f.add(rest)
	f.end()
}

func (f *file) assistantText(kind string, n int) {
	f.begin("assistant")
	f.add(`,"requestId":"req_01","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{"type":"`)
	f.add(kind)
	if kind == "thinking" {
		f.add(`","thinking":"`)
	} else {
		f.add(`","text":"`)
	}
	f.line = f.r.textSlice(f.line, n)
	if kind == "thinking" {
		f.add(`","signature":"EqQBCkYIBxgCKkB`)
	}
	f.add(`"}],"stop_reason":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":812,"cache_read_input_tokens":20436,"output_tokens":96,"service_tier":"standard"}}`)
	f.end()
}

func (f *file) userText(n int) {
	f.begin("user")
	f.add(`,"message":{"role":"user","content":"`)
	f.line = f.r.textSlice(f.line, n)
	f.add(`"}`)
	f.end()
}

// toolUse writes an assistant tool_use row.
func (f *file) toolUse(id, name string) {
	f.begin("assistant")
	f.add(`,"requestId":"req_01","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{"type":"tool_use","id":"`)
	f.add(id)
	f.add(`","name":"`)
	f.add(name)
	f.add(`","input":{`)
	switch name {
	case "Bash":
		f.add(`"command":"go test ./... 2>&1 | tail -40","description":"Run the tests","timeout":120000`)
	case "Read", "Write", "Edit":
		f.add(`"file_path":"/work/repo/internal/store/store.go"`)
		if name != "Read" {
			f.add(`,"old_string":"`)
			f.line = f.r.textSlice(f.line, 200)
			f.add(`","new_string":"`)
			f.line = f.r.textSlice(f.line, 240)
			f.add(`"`)
		}
	case "Grep", "Glob":
		f.add(`"pattern":"func .*Store","path":"/work/repo"`)
	case "Agent":
		f.add(`"description":"Review the change","subagent_type":"general-purpose","prompt":"`)
		f.line = f.r.textSlice(f.line, 600)
		f.add(`"`)
	default:
		f.add(`"query":"`)
		f.line = f.r.textSlice(f.line, 80)
		f.add(`"`)
	}
	f.add(`}}],"stop_reason":"tool_use","usage":{"input_tokens":4,"cache_read_input_tokens":20436,"output_tokens":96}}`)
	f.end()
}

// toolResult writes the user row answering a call; Bash results repeat the
// output in toolUseResult.stdout as Claude Code does.
func (f *file) toolResult(id, name string, n int) {
	f.begin("user")
	f.add(`,"message":{"role":"user","content":[{"tool_use_id":"`)
	f.add(id)
	f.add(`","type":"tool_result","content":"`)
	start := len(f.line)
	f.line = f.r.textSlice(f.line, n)
	out := f.line[start:]
	f.add(`","is_error":false}]},"toolUseResult":`)
	if name == "Bash" {
		f.add(`{"stdout":"`)
		f.line = append(f.line, out...)
		f.add(`","stderr":"","interrupted":false,"isImage":false}`)
	} else {
		f.add(`{"type":"text","file":{"filePath":"/work/repo/internal/store/store.go","numLines":120}}`)
	}
	f.end()
}

func (f *file) progress(kind, toolUseID string, n int) {
	f.begin("progress")
	f.add(`,"data":{"type":"`)
	f.add(kind)
	f.add(`","output":"`)
	f.line = f.r.textSlice(f.line, n)
	f.add(`","elapsedTimeSeconds":3},"toolUseID":"`)
	f.add(toolUseID)
	f.add(`","parentToolUseID":"`)
	f.add(toolUseID)
	f.add(`"`)
	f.end()
}

// Row kinds drawn between tool calls, weighted by their share of rows in the
// corpus (tool calls and their progress rows are drawn by toolCycle).
var (
	kinds       = []string{"tool", "text", "thinking", "user", "attachment", "snapshot", "system", "permission", "queue", "title"}
	kindWeights = []int{14, 8, 3, 3, 2, 3, 2, 2, 1, 2}
)

// body writes rows until the file holds about size bytes.
func (f *file) body(size int64, callPrefix string) {
	calls := 0
	for f.n < size {
		switch kinds[f.r.pick(kindWeights)] {
		case "tool":
			calls++
			id := fmt.Sprintf("toolu_%s%06d", callPrefix, calls)
			name := toolNames[f.r.pick(toolWeights)]
			f.toolUse(id, name)
			for i := f.r.intn(4); i > 0; i-- {
				f.row("progress", `,"data":{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:`+name+`","command":"$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh"},"toolUseID":"`+id+`","parentToolUseID":"`+id+`"`)
			}
			if name == "Bash" {
				for i := f.r.intn(3); i > 0; i-- {
					f.progress("bash_progress", id, 200+f.r.intn(1500))
				}
			}
			f.toolResult(id, name, f.r.toolOutputSize())
		case "text":
			f.assistantText("text", 100+f.r.intn(1400))
		case "thinking":
			f.assistantText("thinking", 300+f.r.intn(2500))
		case "user":
			f.userText(50 + f.r.intn(900))
		case "attachment":
			f.begin("attachment")
			f.add(`,"attachment":{"type":"file","filename":"notes.md","content":"`)
			f.line = f.r.textSlice(f.line, 1000+f.r.intn(6000))
			f.add(`"}`)
			f.end()
		case "snapshot":
			f.row("file-history-snapshot", `,"messageId":"m1","snapshot":{"trackedFileBackups":{"internal/store/store.go":{"backupFileName":"b@v2","version":2}}},"isSnapshotUpdate":false`)
		case "system":
			f.row("system", `,"subtype":"informational","content":"Conversation compacted","level":"info","isMeta":false`)
		case "permission":
			f.row("permission-mode", `,"permissionMode":"acceptEdits"`)
		case "queue":
			f.begin("queue-operation")
			f.add(`,"operation":"enqueue","content":"also check the docs"`)
			f.end()
		case "title":
			f.row("ai-title", `,"aiTitle":"Fix the store tests"`)
		}
	}
}

// Session describes one generated session.
type Session struct {
	ID        string
	MainBytes int64
	// AgentBytes is the size of each subagent transcript.
	AgentBytes []int64
	// RowGap is the mean time between rows.
	RowGap time.Duration
}

// Write writes a session's main transcript and its subagents under dir.
func (s Session) Write(dir string, seed uint64) error {
	r := newRNG(seed)
	gap := s.RowGap
	if gap <= 0 {
		gap = 4 * time.Second
	}
	step := func() time.Duration { return time.Duration(r.intn(int(2*gap/time.Millisecond)+1)) * time.Millisecond }
	main, err := create(filepath.Join(dir, s.ID+".jsonl"), r, s.ID, "")
	if err != nil {
		return err
	}
	main.step = step
	main.userText(200)
	type spawned struct {
		id    string
		start time.Duration
	}
	var agents []spawned
	per := s.MainBytes / int64(len(s.AgentBytes)+1)
	for i := range s.AgentBytes {
		main.body(per*int64(i+1), fmt.Sprintf("m%d_", i))
		agentID := fmt.Sprintf("a%015x", r.next()>>4)
		call := agentCall(s.ID, i)
		main.toolUse(call, "Agent")
		agents = append(agents, spawned{agentID, main.at})
		for k := 0; k < 2; k++ {
			main.begin("progress")
			main.add(`,"data":{"type":"agent_progress","agentId":"` + agentID + `","prompt":"review","message":{"type":"assistant","message":{"content":[{"type":"text","text":"`)
			main.line = r.textSlice(main.line, 1500)
			main.add(`"}]}}},"toolUseID":"` + call + `","parentToolUseID":"` + call + `"`)
			main.end()
		}
		main.begin("user")
		main.add(`,"message":{"role":"user","content":[{"tool_use_id":"` + call + `","type":"tool_result","content":[{"type":"text","text":"`)
		main.line = r.textSlice(main.line, 800)
		main.add(`"},{"type":"text","text":"agentId: ` + agentID + ` (use SendMessage with to: '` + agentID + `' to continue this agent)\n<usage>total_tokens: 1200\ntool_uses: 3\nduration_ms: 45000</usage>"}]}]},"toolUseResult":{"status":"completed","agentId":"` + agentID + `","totalDurationMs":45000}`)
		main.end()
	}
	main.body(s.MainBytes, "m_")
	main.assistantText("text", 300)
	if err := main.close(); err != nil {
		return err
	}
	for i, a := range agents {
		f, err := create(filepath.Join(dir, s.ID, "subagents", "agent-"+a.id+".jsonl"), r, s.ID, a.id)
		if err != nil {
			return err
		}
		f.at = a.start
		f.step = step
		f.userText(600)
		f.body(s.AgentBytes[i], fmt.Sprintf("a%d_", i))
		f.assistantText("text", 500)
		if err := f.close(); err != nil {
			return err
		}
		meta := `{"agentType":"general-purpose","description":"Review the change","toolUseId":"` + agentCall(s.ID, i) + `"}`
		if err := os.WriteFile(filepath.Join(dir, s.ID, "subagents", "agent-"+a.id+".meta.json"), []byte(meta), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// agentCall is the tool-use id of a session's i-th Agent call (unique per
// session: sidecars are matched by it across a whole root).
func agentCall(session string, i int) string {
	return fmt.Sprintf("toolu_%s_agent%04d", session[:8], i)
}

// sessionID is a deterministic UUID-shaped id.
func sessionID(r *rng) string {
	a, b := r.next(), r.next()
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(a), uint16(a>>32), (a>>48)&0xfff, b&0xfff, b>>16&0xffffffffffff)
}

// FleetSession is session i of a fleet: sizes log-normal around the corpus
// median (main ≈ 40 KB, a few MB at the tail), one in five sessions with
// subagents (1–12, mostly 1–3).
func FleetSession(i int) Session {
	r := newRNG(uint64(i) + 1000)
	s := Session{ID: sessionID(r)}
	s.MainBytes = int64(math.Min(3e6, dexp(dlog(40e3)+float64(1.1*normal(r)))))
	if r.intn(5) == 0 {
		n := []int{1, 1, 1, 2, 2, 2, 3, 3, 4, 6, 6, 12}[r.intn(12)]
		for k := 0; k < n; k++ {
			s.AgentBytes = append(s.AgentBytes, int64(math.Min(1e6, dexp(dlog(45e3)+float64(0.9*normal(r))))))
		}
	}
	s.RowGap = time.Duration(1+r.intn(8)) * time.Second
	return s
}

// normal is a standard normal draw (Box-Muller).
func normal(r *rng) float64 {
	u1 := math.Max(r.float(), 1e-12)
	return float64(math.Sqrt(-2*dlog(u1)) * dcos(float64(2*math.Pi*r.float())))
}

// WriteFleet writes n sessions under dir, twenty to a project folder as in
// ~/.claude/projects.
func WriteFleet(dir string, n int) error {
	for i := 0; i < n; i++ {
		s := FleetSession(i)
		project := filepath.Join(dir, fmt.Sprintf("-work-project-%03d", i/20))
		if err := s.Write(project, uint64(i)); err != nil {
			return fmt.Errorf("session %d: %w", i, err)
		}
	}
	return nil
}

// LargeSession is the check target of issue 7: an 11 MB parent transcript
// and 35 MB of subagent transcripts (twelve agents).
func LargeSession() Session {
	s := Session{ID: "50000000-0000-4000-8000-000000000011", MainBytes: 11 << 20, RowGap: 3 * time.Second}
	for i := 0; i < 12; i++ {
		s.AgentBytes = append(s.AgentBytes, 35<<20/12)
	}
	return s
}

// ManyFilesSession is the check target of a session of many files: 47 MB
// in a 3 MiB parent and 64 subagent transcripts of 0.69 MiB, the shape of
// the real sessions whose agents each do a small task.
func ManyFilesSession() Session {
	s := Session{ID: "50000000-0000-4000-8000-000000000047", MainBytes: 3 << 20, RowGap: 3 * time.Second}
	for i := 0; i < 64; i++ {
		s.AgentBytes = append(s.AgentBytes, (47<<20-3<<20)/64)
	}
	return s
}

// HugeSession is a single transcript of size bytes (the memory target).
func HugeSession(size int64) Session {
	return Session{ID: "50000000-0000-4000-8000-000000000001", MainBytes: size, RowGap: 50 * time.Millisecond}
}

// WriteWorkflow writes a Workflow run whose agents' rows spread evenly over
// span: the parent transcript (Workflow call and its launch result), the
// journal, and one transcript per agent under
// <session>/subagents/workflows/<runId>/. The rows are the same for every
// span, so two spans compare the cost of time alone.
func WriteWorkflow(dir string, span time.Duration, agents, rowsPerAgent int) error {
	r := newRNG(42)
	session, runID := "60000000-0000-4000-8000-000000000006", "wf_bench0001"
	parent, err := create(filepath.Join(dir, session+".jsonl"), r, session, "")
	if err != nil {
		return err
	}
	parent.userText(200)
	parent.at = time.Second
	parent.toolUse("toolu_wf0001", "Workflow")
	parent.at = 2 * time.Second
	parent.begin("user")
	parent.add(`,"message":{"role":"user","content":[{"tool_use_id":"toolu_wf0001","type":"tool_result","content":"Workflow launched in background. Task ID: w0000001\nRun ID: ` + runID + `"}]},"toolUseResult":{"status":"async_launched","taskId":"w0000001","runId":"` + runID + `","summary":"bench"}`)
	parent.end()
	if err := parent.close(); err != nil {
		return err
	}
	run := filepath.Join(dir, session, "subagents", "workflows", runID)
	var journal []byte
	total := agents * rowsPerAgent
	for k := 0; k < agents; k++ {
		id := fmt.Sprintf("aw%014d", k+1)
		key := fmt.Sprintf("v2:%064x", uint64(k+1)*0x9e3779b97f4a7c15)
		journal = append(journal, `{"type":"started","key":"`+key+`","agentId":"`+id+`"}`+"\n"...)
		f, err := create(filepath.Join(run, "agent-"+id+".jsonl"), r, session, id)
		if err != nil {
			return err
		}
		// Agent k's rows are every agents-th instant of the span, so all
		// agents stay active until the end.
		for j := 0; j < rowsPerAgent; j++ {
			f.at = 3*time.Second + time.Duration(float64(span-4*time.Second)*float64(j*agents+k)/float64(total))
			switch j % 4 {
			case 0:
				f.toolUse(fmt.Sprintf("toolu_w%d_%d", k, j), "Bash")
			case 1:
				f.toolResult(fmt.Sprintf("toolu_w%d_%d", k, j-1), "Bash", 400)
			case 2:
				f.assistantText("text", 300)
			default:
				f.progress("bash_progress", fmt.Sprintf("toolu_w%d_%d", k, j), 200)
			}
		}
		if err := f.close(); err != nil {
			return err
		}
		journal = append(journal, `{"type":"result","key":"`+key+`","agentId":"`+id+`","result":{"ok":true}}`+"\n"...)
	}
	return os.WriteFile(filepath.Join(run, "journal.jsonl"), journal, 0o644)
}
