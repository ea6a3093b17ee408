package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/collect"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

const (
	gqcCwd    = "/home/USER/projects/spotter-worktrees/spotter-gqc"
	gqcID     = "258c7280-ae70-4798-800f-63464d01a85d"
	fumID     = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
	marcoCwd  = "/home/marco/projects/spotter"
	shortID   = "55604662-cf2a-4331-851a-ec234028f8ca"
	heavyID   = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
	subID     = "491e126e-1e71-469c-ade2-fcc8af567c74"
	featureID = "f0000000-0000-4000-8000-00000000feat"
	siblingID = "f0000000-0000-4000-8000-0000000sibl"
	wfID      = "11110000-0000-4000-8000-000000000001"
	demoCwd   = "/home/example/workspace/demo-repo"
	demoDir   = "-home-example-workspace-demo-repo"
	incID     = "00000000-0000-4000-8000-000000000000"
	cleanID   = "00000000-0000-4000-8000-00000000c1ea"
)

// fakeGitHubToken is assembled at run time so no literal token sits in the repository.
var fakeGitHubToken = "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3z5A"

// fakeProjects lays corpus transcripts out as ~/.claude/projects would hold
// them: one folder per working directory, <sessionId>.jsonl with its
// <sessionId>/subagents/ beside it. Two derived sessions test the edges: a
// copy of a master session on another branch, and one in a sibling folder
// whose path starts like the repository's. The gqc session gets one extra
// row with a token, so redaction has something to do.
func fakeProjects(t *testing.T) string {
	corpus := testcorpus.Require(t)
	root := filepath.Join(t.TempDir(), "projects")
	spotter := filepath.Join(corpus, "marot__spotter/test/fixtures/transcripts")
	copyIn(t, filepath.Join(spotter, gqcID+".jsonl"), filepath.Join(root, "-home-USER-projects-spotter-worktrees-spotter-gqc", gqcID+".jsonl"))
	copyIn(t, filepath.Join(spotter, gqcID), filepath.Join(root, "-home-USER-projects-spotter-worktrees-spotter-gqc", gqcID))
	copyIn(t, filepath.Join(spotter, fumID+".jsonl"), filepath.Join(root, "-home-USER-projects-spotter-worktrees-spotter-fum", fumID+".jsonl"))
	copyIn(t, filepath.Join(spotter, fumID), filepath.Join(root, "-home-USER-projects-spotter-worktrees-spotter-fum", fumID))
	marco := filepath.Join(root, "-home-marco-projects-spotter")
	copyIn(t, filepath.Join(spotter, "short.jsonl"), filepath.Join(marco, shortID+".jsonl"))
	copyIn(t, filepath.Join(spotter, "tool_heavy.jsonl"), filepath.Join(marco, heavyID+".jsonl"))
	copyIn(t, filepath.Join(spotter, "subagent.jsonl"), filepath.Join(marco, subID+".jsonl"))
	short, err := os.ReadFile(filepath.Join(spotter, "short.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	feature := strings.ReplaceAll(strings.ReplaceAll(string(short), `"gitBranch":"master"`, `"gitBranch":"feature-x"`), shortID, featureID)
	writeFile(t, filepath.Join(marco, featureID+".jsonl"), []byte(feature))
	sibling := strings.ReplaceAll(strings.ReplaceAll(string(short), `"cwd":"`+marcoCwd+`"`, `"cwd":"`+marcoCwd+`2"`), shortID, siblingID)
	writeFile(t, filepath.Join(root, "-home-marco-projects-spotter2", siblingID+".jsonl"), []byte(sibling))
	wf := filepath.Join(corpus, "handgemacht-ai__claude-code-log/test/test_data/workflow_basic")
	copyIn(t, filepath.Join(wf, wfID+".jsonl"), filepath.Join(root, "-repo", wfID+".jsonl"))
	copyIn(t, filepath.Join(wf, wfID), filepath.Join(root, "-repo", wfID))

	demo := filepath.Join(corpus, "wan-huiyan__agent-traffic-control")
	copyIn(t, filepath.Join(demo, "incident.jsonl"), filepath.Join(root, demoDir, incID+".jsonl"))
	copyIn(t, filepath.Join(demo, "clean.jsonl"), filepath.Join(root, demoDir, cleanID+".jsonl"))

	appendSecretRow(t, filepath.Join(root, "-home-USER-projects-spotter-worktrees-spotter-gqc", gqcID+".jsonl"), gqcID, gqcCwd, "spotter-gqc")
	appendSecretRow(t, filepath.Join(root, demoDir, incID+".jsonl"), incID, demoCwd, "feature/example-branch")
	return root
}

// appendSecretRow adds a user row that carries a token to a transcript.
func appendSecretRow(t *testing.T, path, id, cwd, branch string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row, _ := json.Marshal(map[string]any{
		"type": "user", "uuid": "secret-row-1", "sessionId": id, "cwd": cwd, "gitBranch": branch,
		"timestamp": "2026-02-11T00:00:00.000Z",
		"message":   map[string]any{"role": "user", "content": "use GITHUB_TOKEN=" + fakeGitHubToken + " to push"},
	})
	if _, err := f.Write(append(row, '\n')); err != nil {
		t.Fatal(err)
	}
}

// copyIn copies a file or a tree to dst, creating dst's folder.
func copyIn(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	copyTree(t, src, dst)
}

// treeHashes maps every file under root to its SHA-256 and mode.
func treeHashes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		info, _ := d.Info()
		sum := sha256.Sum256(data)
		out[p] = hex.EncodeToString(sum[:]) + " " + info.Mode().String()
		return nil
	})
	return out
}

func runCollect(t *testing.T, args ...string) (*collect.Manifest, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(append([]string{"collect"}, args...), strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("collect %v: exit %d: %s%s", args, code, out.String(), errb.String())
	}
	var dir string
	for i, a := range args {
		if a == "--out" {
			dir = args[i+1]
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, collect.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var m collect.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return &m, out.String()
}

func manifestPaths(m *collect.Manifest) []string {
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Kind+" "+f.Path)
	}
	return out
}

// TestCollectPicksExactlyTheBranchSessions: the sessions of the chosen
// folder and branch, with their subagents, sidecars and Workflow runs, and
// nothing else — not the same folder on another branch, not a sibling
// folder with a common prefix, not another worktree.
func TestCollectPicksExactlyTheBranchSessions(t *testing.T) {
	root := fakeProjects(t)
	before := treeHashes(t, root)

	out := filepath.Join(t.TempDir(), "gqc")
	m, _ := runCollect(t, "--root", root, "--cwd", gqcCwd, "--branch", "spotter-gqc", "--out", out)
	want := []string{
		"session " + gqcID + ".jsonl",
		"subagent " + gqcID + "/subagents/agent-a881341.jsonl",
		"subagent " + gqcID + "/subagents/agent-acompact-fffbd0.jsonl",
	}
	if got := manifestPaths(m); !reflect.DeepEqual(got, want) {
		t.Errorf("gqc: collected\n%v\nwant\n%v", got, want)
	}

	out = filepath.Join(t.TempDir(), "master")
	m, _ = runCollect(t, "--root", root, "--cwd", marcoCwd, "--branch", "master", "--out", out)
	if want := []string{heavyID, subID, shortID}; !sameSet(m.Sessions, want) {
		t.Errorf("master: sessions %v, want %v (not %s on feature-x, not %s in a sibling folder)", m.Sessions, want, featureID, siblingID)
	}

	out = filepath.Join(t.TempDir(), "feature")
	m, _ = runCollect(t, "--root", root, "--cwd", marcoCwd, "--branch", "feature-x", "--out", out)
	if want := []string{featureID}; !sameSet(m.Sessions, want) {
		t.Errorf("feature-x: sessions %v, want %v", m.Sessions, want)
	}

	out = filepath.Join(t.TempDir(), "since")
	m, _ = runCollect(t, "--root", root, "--cwd", marcoCwd, "--branch", "master", "--since", "2026-02-10T22:00:00Z", "--out", out)
	if want := []string{heavyID, subID}; !sameSet(m.Sessions, want) {
		t.Errorf("--since: sessions %v, want %v (short.jsonl ended at 21:16)", m.Sessions, want)
	}

	out = filepath.Join(t.TempDir(), "wf")
	m, _ = runCollect(t, "--root", root, "--cwd", "/repo", "--all-branches", "--out", out)
	want = []string{"session " + wfID + ".jsonl"}
	for _, f := range []string{"agent-ag000001.jsonl", "agent-ag000001.meta.json", "agent-ag000002.jsonl", "agent-ag000002.meta.json", "agent-ag000003.jsonl", "agent-ag000003.meta.json", "journal.jsonl"} {
		kind := "workflow-agent"
		switch {
		case strings.HasSuffix(f, ".meta.json"):
			kind = "sidecar"
		case f == "journal.jsonl":
			kind = "workflow-journal"
		}
		want = append(want, kind+" "+wfID+"/subagents/workflows/wf_demo01/"+f)
	}
	if got := manifestPaths(m); !reflect.DeepEqual(got, want) {
		t.Errorf("workflow: collected\n%v\nwant\n%v", got, want)
	}

	var stdout, stderr bytes.Buffer
	if code := Run([]string{"collect", "--root", root, "--cwd", marcoCwd, "--branch", "nope", "--out", filepath.Join(t.TempDir(), "none")}, strings.NewReader(""), &stdout, &stderr); code != ExitUsage {
		t.Errorf("no matching session: exit %d, want %d", code, ExitUsage)
	}

	if after := treeHashes(t, root); !reflect.DeepEqual(before, after) {
		t.Error("collect modified its sources")
	}
}

// TestCollectTakesLegacyAgentsOfItsSession: legacy agent-*.jsonl files
// beside a session come with it when their rows carry its sessionId, and
// stay when they belong to another session of the folder.
func TestCollectTakesLegacyAgentsOfItsSession(t *testing.T) {
	root := fakeProjects(t)
	marco := filepath.Join(root, "-home-marco-projects-spotter")
	row := func(id string) []byte {
		b, _ := json.Marshal(map[string]any{"type": "user", "uuid": "u-" + id, "sessionId": id, "isSidechain": true,
			"timestamp": "2026-02-10T21:12:00.000Z", "message": map[string]any{"role": "user", "content": "sub task"}})
		return append(b, '\n')
	}
	writeFile(t, filepath.Join(marco, "agent-legacy01.jsonl"), row(shortID))
	writeFile(t, filepath.Join(marco, "agent-legacy02.jsonl"), row(featureID))
	out := filepath.Join(t.TempDir(), "out")
	m, _ := runCollect(t, "--root", root, "--cwd", marcoCwd, "--branch", "master", "--out", out)
	var legacy []string
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, "agent-") {
			legacy = append(legacy, f.Path+" "+f.Session)
		}
	}
	if want := []string{"agent-legacy01.jsonl " + shortID}; !reflect.DeepEqual(legacy, want) {
		t.Errorf("legacy agents collected: %v, want %v", legacy, want)
	}
}

func sameSet(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return reflect.DeepEqual(a, b)
}

// TestCollectRedactsAndCheckAgrees: the token row is redacted (the manifest
// counts it without the secret), and check gives the same verdict, findings
// and runs on the collected copy as on the originals.
func TestCollectRedactsAndCheckAgrees(t *testing.T) {
	root := fakeProjects(t)
	// Originals are checked as they lie (the project folder, or the chosen
	// session files where the folder holds sessions of other branches); the
	// copy as the collected folder.
	for _, c := range []struct {
		name, cwd string
		flags     []string
		originals []string
	}{
		{"gqc", gqcCwd, []string{"--branch", "spotter-gqc"}, []string{"-home-USER-projects-spotter-worktrees-spotter-gqc"}},
		{"incident", demoCwd, []string{"--branch", "feature/example-branch"}, []string{demoDir}},
		{"master", marcoCwd, []string{"--branch", "master"}, []string{filepath.Join("-home-marco-projects-spotter", shortID+".jsonl"), filepath.Join("-home-marco-projects-spotter", heavyID+".jsonl"), filepath.Join("-home-marco-projects-spotter", subID+".jsonl")}},
		{"workflow", "/repo", []string{"--all-branches"}, []string{"-repo"}},
	} {
		out := filepath.Join(t.TempDir(), c.name)
		m, stdout := runCollect(t, append([]string{"--root", root, "--cwd", c.cwd, "--out", out}, c.flags...)...)
		if secretIn := map[string]string{"gqc": gqcID, "incident": incID}[c.name]; secretIn != "" {
			if m.Redaction.Total["github-pat"] != 1 || m.Redaction.Total.Total() != 1 {
				t.Errorf("%s: redaction total %v, want the one token", c.name, m.Redaction.Total)
			}
			data, _ := os.ReadFile(filepath.Join(out, secretIn+".jsonl"))
			if bytes.Contains(data, []byte(fakeGitHubToken)) || !bytes.Contains(data, []byte("[REDACTED:github-pat]")) {
				t.Errorf("%s: the token was not replaced by its marker", c.name)
			}
			manifest, _ := os.ReadFile(filepath.Join(out, collect.ManifestName))
			if bytes.Contains(manifest, []byte(fakeGitHubToken)) || strings.Contains(stdout, fakeGitHubToken) {
				t.Error("the manifest or the summary carries the secret")
			}
		}
		var orig []string
		for _, s := range c.originals {
			orig = append(orig, filepath.Join(root, s))
		}
		a, b := checkVerdict(t, orig), checkVerdict(t, []string{out})
		t.Logf("%s: %s", c.name, a)
		if a != b {
			t.Errorf("%s: check on the collected copy differs from the originals:\n--- originals\n%s\n--- copy\n%s", c.name, a, b)
		}
	}
}

// checkVerdict runs check and returns what must not change: the exit code,
// the outcome, every finding's rule, severity, file (relative to its root)
// and line, and the runs with their counts.
func checkVerdict(t *testing.T, paths []string) string {
	t.Helper()
	js := filepath.Join(t.TempDir(), "r.json")
	var out, errb bytes.Buffer
	code := Run(append([]string{"check", "--fail-level", "note", "--format", "json=" + js, "--"}, paths...), strings.NewReader(""), &out, &errb)
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("check %v: exit %d, no report: %s", paths, code, errb.String())
	}
	var doc struct {
		Outcome  any `json:"outcome"`
		Findings []struct {
			RuleID   string `json:"rule_id"`
			Severity string `json:"severity"`
			Evidence []struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"evidence"`
		} `json:"findings"`
		Runs []struct {
			Kind     string `json:"kind"`
			Agents   int    `json:"agents"`
			Attempts int    `json:"attempts"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	o, _ := json.Marshal(doc.Outcome)
	b.WriteString("exit " + string(rune('0'+code)) + " outcome " + string(o) + "\n")
	for _, f := range doc.Findings {
		b.WriteString(f.RuleID + " " + f.Severity)
		for _, e := range f.Evidence {
			b.WriteString(" " + filepath.Base(e.File) + ":" + itoa(e.Line))
		}
		b.WriteString("\n")
	}
	for _, r := range doc.Runs {
		b.WriteString("run " + r.Kind + " " + itoa(r.Agents) + " agents " + itoa(r.Attempts) + " attempts\n")
	}
	return b.String()
}

func itoa(n int) string {
	j, _ := json.Marshal(n)
	return string(j)
}

// miniProjects is a ~/.claude/projects with one session of /r on branch
// main, built at test time (no corpus needed).
func miniProjects(t *testing.T) (root, id string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "projects")
	id = "a0000000-0000-4000-8000-000000000001"
	row, _ := json.Marshal(map[string]any{
		"type": "user", "uuid": "u1", "sessionId": id, "cwd": "/r", "gitBranch": "main",
		"timestamp": "2026-02-11T00:00:00.000Z", "message": map[string]any{"role": "user", "content": "hello"},
	})
	writeFile(t, filepath.Join(root, "-r", id+".jsonl"), append(row, '\n'))
	return root, id
}

// TestCollectRerunMatchingNothingAgreesWithDryRun (issue 29, item 17): a
// collection that matches no session says 0 and exits 2 with and without
// --dry-run, even where an earlier collection left a session in the
// output folder; that folder's manifest is left as it was.
func TestCollectRerunMatchingNothingAgreesWithDryRun(t *testing.T) {
	root, id := miniProjects(t)
	out := filepath.Join(t.TempDir(), "runs")
	m, printed := runCollect(t, "--root", root, "--cwd", "/r", "--branch", "main", "--out", out)
	if !sameSet(m.Sessions, []string{id}) || !strings.Contains(printed, "collected 1 session(s)") {
		t.Fatalf("first collection: sessions %v, printed %q", m.Sessions, printed)
	}
	before, err := os.ReadFile(filepath.Join(out, collect.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{false, true} {
		args := []string{"collect", "--root", root, "--cwd", "/r", "--branch", "nope", "--out", out}
		want := "collected 0 session(s)"
		if dry {
			args = append(args, "--dry-run")
			want = "would collect 0 session(s)"
		}
		var stdout, stderr bytes.Buffer
		if code := Run(args, strings.NewReader(""), &stdout, &stderr); code != ExitUsage {
			t.Errorf("dry-run %v: exit %d, want %d: %s", dry, code, ExitUsage, stdout.String())
		}
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("dry-run %v: printed %q, want %q", dry, stdout.String(), want)
		}
		if !strings.Contains(stderr.String(), "no sessions under") {
			t.Errorf("dry-run %v: stderr %q does not say no session matched", dry, stderr.String())
		}
		after, err := os.ReadFile(filepath.Join(out, collect.ManifestName))
		if err != nil || !bytes.Equal(before, after) {
			t.Errorf("dry-run %v: the manifest changed (%v)", dry, err)
		}
	}
}
