// Command hostile writes the hostile inputs of bench/hostile.sh: the shapes
// that once made pmcheck's time or memory grow faster than its input, each
// built from a fixture's rows and padded towards -size MiB.
//
//	go run ./bench/hostile -case NAME -size 100 -out DIR
//
// Run from the repository root (it reads fixtures/runs). Output is
// deterministic.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

var cases = map[string]func(out string, size int) error{
	"long-descriptions": longDescriptions,
	"killed-x-pushes":   killedPushes,
	"async-20k":         async20k,
	"killed-32k":        killed32k,
	"legacy-20k":        func(out string, size int) error { return legacy20k(out, false) },
	"shared-uuids-20k":  func(out string, size int) error { return legacy20k(out, true) },
	"orphans-40k":       orphans40k,
	"junk-20M":          junk20M,
	"started-200k":      started200k,
	"retries-200k":      retries200k,
	"huge-sidecar":      hugeSidecar,
	"agentid-tail-2MiB": agentIDTail,
	"findings-200k":     findings200k,
	"nested-shell":      nestedShell,
}

func main() {
	name := flag.String("case", "", "the hostile shape (-case list prints them)")
	out := flag.String("out", "", "directory to write into")
	size := flag.Int("size", 100, "target size in MiB")
	flag.Parse()
	if *name == "list" {
		for _, n := range []string{"long-descriptions", "killed-x-pushes", "async-20k", "killed-32k", "legacy-20k", "shared-uuids-20k", "orphans-40k", "junk-20M", "started-200k", "retries-200k", "huge-sidecar", "agentid-tail-2MiB", "findings-200k", "nested-shell"} {
			fmt.Println(n)
		}
		return
	}
	f, ok := cases[*name]
	if !ok || *out == "" {
		fmt.Fprintln(os.Stderr, "hostile: -case NAME (see -case list) and -out DIR are required")
		os.Exit(2)
	}
	if err := f(*out, *size<<20); err != nil {
		fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
		os.Exit(1)
	}
}

const fx = "fixtures/runs"

func lines(path string) [][]byte {
	data, err := os.ReadFile(filepath.Join(fx, path))
	if err != nil {
		panic(err)
	}
	return bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
}

func rep(l []byte, pairs ...string) []byte {
	for i := 0; i+1 < len(pairs); i += 2 {
		l = bytes.ReplaceAll(l, []byte(pairs[i]), []byte(pairs[i+1]))
	}
	return l
}

type writer struct {
	f *os.File
	*bufio.Writer
	n int
}

func create(path string) *writer {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		panic(err)
	}
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	return &writer{f: f, Writer: bufio.NewWriterSize(f, 1<<20)}
}

func (w *writer) line(l []byte) { w.Write(l); w.WriteByte('\n'); w.n += len(l) + 1 }
func (w *writer) close() error {
	if err := w.Flush(); err != nil {
		return err
	}
	return w.f.Close()
}

func uuid(n int) string { return fmt.Sprintf("00000001-0000-4000-8000-%012d", n) }

// shipSession: k killed subagents (an Agent call and its cut-off result,
// description desc) before m pushes, in the ship-after-kill fixture's session.
func shipSession(out string, k, m int, desc func(i int) string) error {
	src := lines("detect-ship-after-kill/40000000-0000-4000-8000-000000000014.jsonl")
	w := create(filepath.Join(out, "40000000-0000-4000-8000-000000000014.jsonl"))
	w.line(src[0])
	n := 100
	for i := range k {
		for _, j := range []int{3, 4} {
			n++
			w.line(rep(src[j], "toolu_kill14", fmt.Sprintf("toolu_kill%06d", i), "Harden the login flow", desc(i), uuid(j+1), uuid(n)))
		}
	}
	for i := range m {
		for _, j := range []int{5, 6} {
			n++
			w.line(rep(src[j], "toolu_push14b", fmt.Sprintf("toolu_push%06d", i), "feat/detect:main", fmt.Sprintf("feat/detect:release-%d", i), uuid(j+1), uuid(n)))
		}
	}
	return w.close()
}

// long descriptions joined into ship messages: 300 killed x 30 pushes, the
// descriptions fill the size.
func longDescriptions(out string, size int) error {
	long := strings.Repeat("d", size/600)
	return shipSession(out, 300, 30, func(i int) string { return fmt.Sprintf("%05d %s", i, long) })
}

// many killed x many pushes, short descriptions: about 2 KB per killed pair.
func killedPushes(out string, size int) error {
	k := size / 2600
	return shipSession(out, k, k/10, func(i int) string { return fmt.Sprintf("Harden the login flow %d", i) })
}

// killed32k: 32,000 killed subagents, no push, descriptions fill the size.
func killed32k(out string, size int) error {
	pad := strings.Repeat("p", max(0, size/64000-1300))
	return shipSession(out, 32000, 0, func(i int) string { return fmt.Sprintf("Harden %d %s", i, pad) })
}

// async20k: 20,000 background agents, each launched, notified and consumed.
func async20k(out string, size int) error {
	src := lines("detect-async-consumed-clean/40000000-0000-4000-8000-000000000003.jsonl")
	w := create(filepath.Join(out, "40000000-0000-4000-8000-000000000003.jsonl"))
	w.line(src[0])
	pad := strings.Repeat("q", max(0, size/40000-1500))
	n := 100
	for i := range 20000 {
		for j := 1; j <= 3; j++ {
			n++
			w.line(rep(src[j], "toolu_async03", fmt.Sprintf("toolu_as%06d", i), "a4000000000000031", fmt.Sprintf("a4%016d", i), "Write parser tests", fmt.Sprintf("Write parser tests %d %s", i, pad), uuid(j+1), uuid(n)))
		}
	}
	n++
	w.line(rep(src[4], uuid(4), uuid(n)))
	return w.close()
}

// legacy20k: 20,000 sessions and 20,000 legacy agent-*.jsonl in one folder;
// with shared, every session keeps the fixture's row uuids, so each looks like
// a resumed copy of all the others.
func legacy20k(out string, shared bool) error {
	main := lines("detect-sync-killed/40000000-0000-4000-8000-000000000001.jsonl")
	agent := lines("detect-sync-killed/40000000-0000-4000-8000-000000000001/subagents/agent-a4000000000000011.jsonl")
	for i := range 20000 {
		sid := fmt.Sprintf("40000000-0000-4000-8000-%012d", i+1)
		aid := fmt.Sprintf("a4%016d", i)
		u1, u2 := "00000001-0000-4000-8000-", "00000002-0000-4000-8000-"
		if !shared {
			u1, u2 = fmt.Sprintf("1%07d-0000-4000-8000-", i), fmt.Sprintf("2%07d-0000-4000-8000-", i)
		}
		w := create(filepath.Join(out, sid+".jsonl"))
		for _, l := range main {
			w.line(rep(l, "40000000-0000-4000-8000-000000000001", sid, "a4000000000000011", aid, "00000001-0000-4000-8000-", u1, "00000002-0000-4000-8000-", u2))
		}
		if err := w.close(); err != nil {
			return err
		}
		w = create(filepath.Join(out, "agent-"+aid+".jsonl"))
		for _, l := range agent {
			w.line(rep(l, "40000000-0000-4000-8000-000000000001", sid, "a4000000000000011", aid, "00000001-0000-4000-8000-", u1, "00000002-0000-4000-8000-", u2))
		}
		if err := w.close(); err != nil {
			return err
		}
	}
	return nil
}

func orphanRun(out string) (*writer, error) {
	const run = "replay-orphan-result"
	if err := copyTree(filepath.Join(fx, run), out); err != nil {
		return nil, err
	}
	j := "30000000-0000-4000-8000-000000000014/subagents/workflows/wf_orph0001/journal.jsonl"
	return create(filepath.Join(out, j)), nil
}

// orphans40k: 40,000 attempts that never return, then 40,000 results for
// agents that never started; the results fill the size.
func orphans40k(out string, size int) error {
	w, err := orphanRun(out)
	if err != nil {
		return err
	}
	pad := strings.Repeat("r", max(0, size/40000-250))
	for i := range 40000 {
		w.line(fmt.Appendf(nil, `{"type":"started","key":"v2:s%062d","agentId":"as%014d"}`, i, i))
	}
	for i := range 40000 {
		w.line(fmt.Appendf(nil, `{"type":"result","key":"v2:r%062d","agentId":"az%014d","result":"ok %s"}`, i, i, pad))
	}
	return w.close()
}

// started200k: 200,000 attempts that never return; an unknown field fills the size.
func started200k(out string, size int) error {
	w, err := orphanRun(out)
	if err != nil {
		return err
	}
	pad := strings.Repeat("s", max(0, size/200000-120))
	for i := range 200000 {
		w.line(fmt.Appendf(nil, `{"type":"started","key":"v2:s%062d","agentId":"as%014d","pad":"%s"}`, i, i, pad))
	}
	return w.close()
}

// retries200k: one key started 200,000 times (each attempt superseding the
// one before, none with a transcript); an unknown field fills the size.
func retries200k(out string, size int) error {
	w, err := orphanRun(out)
	if err != nil {
		return err
	}
	pad := strings.Repeat("s", max(0, size/200000-120))
	for i := range 200000 {
		w.line(fmt.Appendf(nil, `{"type":"started","key":"v2:s%062d","agentId":"as%014d","pad":"%s"}`, 0, i, pad))
	}
	return w.close()
}

// junk20M: a session followed by 20 M lines that are not JSON (and more to
// the size).
func junk20M(out string, size int) error {
	src := lines("detect-sync-killed/40000000-0000-4000-8000-000000000001.jsonl")
	w := create(filepath.Join(out, "padded.jsonl"))
	for _, l := range src {
		w.line(l)
	}
	n := max(20000000, size/2)
	for range n {
		w.WriteString("x\n")
	}
	return w.close()
}

// findings200k: one transcript of 200,000 sync Agent calls that never
// return, each a subagent-open-at-end finding (~140 MB): every report
// format renders 200,000 findings of one run.
func findings200k(out string, size int) error {
	src := lines("rule-subagent-open-at-end-bad/70000000-0000-4000-8000-000000000005.jsonl")
	w := create(filepath.Join(out, "70000000-0000-4000-8000-000000000005.jsonl"))
	w.line(src[0])
	for i := range 200000 {
		w.line(rep(src[1], "toolu_open05", fmt.Sprintf("toolu_op%06d", i), "00000001-0000-4000-8000-000000000002", uuid(i+100)))
	}
	return w.close()
}

// hugeSidecar: a subagent's .meta.json of the whole size (sparse).
func hugeSidecar(out string, size int) error {
	if err := copyTree(filepath.Join(fx, "session-sync-and-async"), out); err != nil {
		return err
	}
	return os.Truncate(filepath.Join(out, "10000000-0000-4000-8000-000000000001/subagents/agent-a1111111111111111.meta.json"), int64(size))
}

// agentIDTail: a 2 MiB "agentId:" line in a subagent's result.
func agentIDTail(out string, size int) error {
	if err := copyTree(filepath.Join(fx, "adv-resume-duplicates"), out); err != nil {
		return err
	}
	p := filepath.Join(out, "60000000-0000-4000-8000-000000000007.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	data = bytes.Replace(data, []byte("agentId: a6000000000000071"), []byte("agentId: "+strings.Repeat("b", 2<<20)), 1)
	return os.WriteFile(p, data, 0o644)
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		t := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(t, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(t, data, 0o644)
	})
}

// nestedShellShapes are Bash commands of about 64 KiB (the longest command a
// transcript keeps) that nest as deep as their bytes allow: the shell parser
// recursed once per level, with kilobytes of stack each. Some hide their
// closers from a naive count (quoted, in a comment, in a heredoc, a case
// pattern's), and one buries a push inside.
var nestedShellShapes = []string{
	strings.Repeat("(", 64000),
	strings.Repeat("$(", 32000),
	"echo $(( " + strings.Repeat("(", 63900) + "1 ))",
	strings.Repeat("{ ", 32000),
	strings.Repeat("if ", 21000),
	strings.Repeat(`( ")" `, 10600),
	strings.Repeat("( #)\n", 12800),
	strings.Repeat("( cat <<E\n)\nE\n", 4500),
	strings.Repeat("( case a in a) ", 4200),
	strings.Repeat("(", 30000) + " git push origin main " + strings.Repeat(")", 30000),
}

// nestedShell: sessions of 10 MiB each whose Bash calls are the
// nestedShellShapes in turn, each with a short result, towards size.
func nestedShell(out string, size int) error {
	calls := 0
	for s := 0; calls*66000 < size; s++ {
		sid := fmt.Sprintf("50000000-0000-4000-8000-%012d", s+1)
		w := create(filepath.Join(out, sid+".jsonl"))
		for w.n < 10<<20 && calls*66000 < size {
			cmd := nestedShellShapes[calls%len(nestedShellShapes)]
			cmd += strings.Repeat(" ", calls/len(nestedShellShapes)%8) // distinct commands: no cache serves them
			ts := fmt.Sprintf("2026-05-07T09:%02d:%02d.000Z", calls/60%60, calls%60)
			id := fmt.Sprintf("toolu_nest%08d", calls)
			use, err := json.Marshal(map[string]any{"type": "assistant", "uuid": uuid(2 * calls), "sessionId": sid, "timestamp": ts,
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}}})
			if err != nil {
				return err
			}
			res, err := json.Marshal(map[string]any{"type": "user", "uuid": uuid(2*calls + 1), "sessionId": sid, "timestamp": ts,
				"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "bash: syntax error", "is_error": true}}}})
			if err != nil {
				return err
			}
			w.line(use)
			w.line(res)
			calls++
		}
		if err := w.close(); err != nil {
			return err
		}
	}
	return nil
}
