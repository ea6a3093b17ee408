// Package entiretest builds git repositories for tests at test time: the
// commits of a pull request, and Entire checkpoints of both storage
// backends (the entire/checkpoints/v1 branch and one ref per checkpoint),
// written with git's plumbing so that no working tree is touched.
package entiretest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Repo is a throwaway repository.
type Repo struct {
	T   testing.TB
	Dir string
	n   int
}

// New initialises a repository with one commit on main.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{T: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	r.Git("config", "uploadpack.allowfilter", "true")
	r.Commit("initial", "README.md", "demo\n")
	return r
}

// Git runs git in the repository with a fixed identity and clock.
func (r *Repo) Git(args ...string) string { return r.GitIn(r.Dir, nil, "", args...) }

// GitIn runs git in dir with extra environment and standard input.
func (r *Repo) GitIn(dir string, env []string, stdin string, args ...string) string {
	r.T.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"GIT_AUTHOR_DATE=2026-05-06T09:00:00Z", "GIT_COMMITTER_DATE=2026-05-06T09:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	cmd.Env = append(cmd.Env, env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out))
}

// Commit writes a file and commits it on the current branch; returns the id.
func (r *Repo) Commit(msg, file, data string) string {
	r.T.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		r.T.Fatal(err)
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Blob stores data and returns its id.
func (r *Repo) Blob(data string) string {
	return r.GitIn(r.Dir, nil, data, "hash-object", "-w", "--stdin")
}

// Session is one session folder of a checkpoint.
type Session struct {
	ID         string
	Agent      string // "" writes none (older versions)
	Start      int    // checkpoint_transcript_start
	Transcript string
	// Split stores the transcript as full.jsonl, full.jsonl.001, … of
	// about this many bytes each (0: one file), cut at line ends.
	Split int
	Tasks []Task
}

// Task is a subagent's folder under tasks/.
type Task struct {
	ToolUseID, AgentID string
	Transcript         string // "" stores none
	Unavailable        string // transcript_unavailable_reason
}

// Files are a checkpoint folder's files, by path under the folder.
func Files(id string, sessions []Session) map[string]string {
	files := map[string]string{}
	var ids []string
	for i, s := range sessions {
		dir := fmt.Sprint(i)
		meta := fmt.Sprintf(`{"checkpoint_id":%q,"session_id":%q,"strategy":"manual-commit","created_at":"2026-05-06T09:00:00Z","checkpoints_count":1,"files_touched":[]`, id, s.ID)
		if s.Agent != "" {
			meta += fmt.Sprintf(`,"agent":%q`, s.Agent)
		}
		if s.Start > 0 {
			meta += fmt.Sprintf(`,"checkpoint_transcript_start":%d`, s.Start)
		}
		files[dir+"/metadata.json"] = meta + "}\n"
		for j, part := range split(s.Transcript, s.Split) {
			name := dir + "/full.jsonl"
			if j > 0 {
				name += fmt.Sprintf(".%03d", j)
			}
			files[name] = part
		}
		for _, t := range s.Tasks {
			td := dir + "/tasks/" + t.ToolUseID + "/"
			tj := fmt.Sprintf(`{"session_id":%q,"tool_use_id":%q,"agent_id":%q`, s.ID, t.ToolUseID, t.AgentID)
			if t.Unavailable != "" {
				tj += fmt.Sprintf(`,"transcript_unavailable_reason":%q`, t.Unavailable)
			}
			files[td+"task.json"] = tj + "}\n"
			if t.Transcript != "" {
				files[td+"agent-"+t.AgentID+".jsonl"] = t.Transcript
			}
		}
		ids = append(ids, s.ID)
	}
	files["metadata.json"] = fmt.Sprintf(`{"checkpoint_id":%q,"strategy":"manual-commit","sessions":%d,"session_ids":["%s"]}`+"\n", id, len(sessions), strings.Join(ids, `","`))
	return files
}

func split(s string, size int) []string {
	if size <= 0 || len(s) <= size {
		return []string{s}
	}
	var out []string
	for len(s) > size {
		i := strings.LastIndexByte(s[:size], '\n')
		if i < 0 {
			i = strings.IndexByte(s[size:], '\n') + size
			if i < size {
				break
			}
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// tree builds a tree of files (path → content) with a temporary index
// and returns its id; base, when set, is a tree to start from.
func (r *Repo) tree(base string, files map[string]string) string {
	r.T.Helper()
	r.n++
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(r.T.TempDir(), fmt.Sprintf("index%d", r.n))}
	if base != "" {
		r.GitIn(r.Dir, env, "", "read-tree", base)
	} else {
		r.GitIn(r.Dir, env, "", "read-tree", "--empty")
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var info strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&info, "100644 %s\t%s\n", r.Blob(files[p]), p)
	}
	r.GitIn(r.Dir, env, info.String(), "update-index", "--add", "--index-info")
	return r.GitIn(r.Dir, env, "", "write-tree")
}

// BranchCheckpoint adds a checkpoint to the entire/checkpoints/v1 branch
// (sharded <id[:2]>/<id[2:]>/).
func (r *Repo) BranchCheckpoint(id string, sessions []Session) {
	r.T.Helper()
	ref := "refs/heads/entire/checkpoints/v1"
	parent := ""
	base := ""
	if out, err := exec.Command("git", "-C", r.Dir, "rev-parse", "--verify", "--quiet", ref).Output(); err == nil {
		parent = strings.TrimSpace(string(out))
		base = parent + "^{tree}"
	}
	files := map[string]string{}
	for p, data := range Files(id, sessions) {
		files[id[:2]+"/"+id[2:]+"/"+p] = data
	}
	tree := r.tree(base, files)
	args := []string{"commit-tree", tree, "-m", "Checkpoint: " + id}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	r.Git("update-ref", ref, r.Git(args...))
}

// RefCheckpoint stores a checkpoint as its own ref,
// refs/entire/checkpoints/<id's last two characters>/<id>, whose tree is
// the checkpoint folder.
func (r *Repo) RefCheckpoint(id string, sessions []Session) {
	r.T.Helper()
	tree := r.tree("", Files(id, sessions))
	r.Git("update-ref", "refs/entire/checkpoints/"+id[len(id)-2:]+"/"+id, r.Git("commit-tree", tree, "-m", "Checkpoint: "+id))
}

// Transcript is a Claude Code session transcript of n Bash calls, the
// last printing commitLine ("[branch abc1234] subject") when given; rows
// are stamped one second apart from 09:00:00.
func Transcript(sessionID string, n int, commitLine string) string {
	var b strings.Builder
	row := func(i int, typ, uuid, parent, body string) {
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"type":%q,"uuid":%q,"timestamp":"2026-05-06T09:%02d:%02d.000Z","sessionId":%q,"version":"2.1.143","cwd":"/work/repo","gitBranch":"feat","userType":"external","message":%s}`+"\n",
			parent, typ, uuid, i/60, i%60, sessionID, body)
	}
	uuid := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
	row(0, "user", uuid(0), "null", `{"role":"user","content":"Do the work and commit."}`)
	for i := 1; i <= n; i++ {
		cmd, out := fmt.Sprintf("echo step %d", i), fmt.Sprintf("step %d", i)
		if i == n && commitLine != "" {
			cmd, out = "git commit -am work", commitLine+"\\n 1 file changed"
		}
		row(2*i-1, "assistant", uuid(2*i-1), fmt.Sprintf("%q", uuid(2*i-2)),
			fmt.Sprintf(`{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":%q}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`, i, i, cmd))
		row(2*i, "user", uuid(2*i), fmt.Sprintf("%q", uuid(2*i-1)),
			fmt.Sprintf(`{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"%s","is_error":false}]}`, i, out))
	}
	return b.String()
}

// Generate writes, through one `git fast-import`, a pull request of n
// commits on branch feat (from main), each naming its own checkpoint, and
// the entire/checkpoints/v1 branch holding the n checkpoints, each a
// session of rows Bash calls: a repository of thousands of checkpoints in
// seconds. It returns main's id (the range's base).
func (r *Repo) Generate(n, rows int) string {
	r.T.Helper()
	base := r.Git("rev-parse", "HEAD")
	// The stream goes to a file, not memory: a benchmark measures the
	// check's peak memory in this process.
	stream := filepath.Join(r.T.TempDir(), "fast-import")
	f, err := os.Create(stream)
	if err != nil {
		r.T.Fatal(err)
	}
	in := bufio.NewWriter(f)
	mark := 0
	ts := 1778058000
	commit := func(ref, msg, parent string, files map[string]string) {
		mark++
		fmt.Fprintf(in, "commit %s\nmark :%d\ncommitter Dev <dev@example.com> %d +0000\ndata %d\n%s\n", ref, mark, ts+mark, len(msg), msg)
		if parent != "" {
			fmt.Fprintf(in, "from %s\n", parent)
		}
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			fmt.Fprintf(in, "M 100644 inline %s\ndata %d\n%s\n", p, len(files[p]), files[p])
		}
		in.WriteString("\n")
	}
	cpParent := ""
	for i := range n {
		id := fmt.Sprintf("%012x", 0xa00000000000+i)
		sess := fmt.Sprintf("%08x-0000-4000-8000-%012d", i, i)
		parent := ""
		if i == 0 {
			parent = base
		}
		commit("refs/heads/feat", fmt.Sprintf("change %d\n\nEntire-Checkpoint: %s\n", i, id), parent, map[string]string{fmt.Sprintf("src/f%d.go", i): "package src\n"})
		files := map[string]string{}
		for p, data := range Files(id, []Session{{ID: sess, Agent: "Claude Code", Transcript: Transcript(sess, rows, "")}}) {
			files[id[:2]+"/"+id[2:]+"/"+p] = data
		}
		commit("refs/heads/entire/checkpoints/v1", "Checkpoint: "+id+"\n", cpParent, files)
		cpParent = ""
	}
	if err := in.Flush(); err != nil {
		r.T.Fatal(err)
	}
	f.Close()
	cmd := exec.Command("sh", "-c", `exec git -C "$1" fast-import --quiet < "$2"`, "sh", r.Dir, stream)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.T.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return base
}

// V2Checkpoint adds a checkpoint in the v2 layout: metadata (and no full
// transcript) on refs/entire/checkpoints/v2/main, the raw transcript as
// <shard>/<n>/raw_transcript on refs/entire/checkpoints/v2/full/current.
func (r *Repo) V2Checkpoint(id string, sessions []Session) {
	r.T.Helper()
	shard := id[:2] + "/" + id[2:] + "/"
	meta, full := map[string]string{}, map[string]string{}
	for p, data := range Files(id, sessions) {
		if dir, name, ok := strings.Cut(p, "/"); ok && name == "full.jsonl" {
			full[shard+dir+"/raw_transcript"] = data
			meta[shard+dir+"/transcript.jsonl"] = "{\"v\":1}\n"
			continue
		}
		meta[shard+p] = data
	}
	for ref, files := range map[string]map[string]string{"refs/entire/checkpoints/v2/main": meta, "refs/entire/checkpoints/v2/full/current": full} {
		parent, base := "", ""
		if out, err := exec.Command("git", "-C", r.Dir, "rev-parse", "--verify", "--quiet", ref).Output(); err == nil {
			parent = strings.TrimSpace(string(out))
			base = parent + "^{tree}"
		}
		args := []string{"commit-tree", r.tree(base, files), "-m", "Checkpoint: " + id}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		r.Git("update-ref", ref, r.Git(args...))
	}
}
