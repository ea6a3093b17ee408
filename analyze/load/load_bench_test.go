package load

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// flatFolder writes n sessions and n legacy agent-<id>.jsonl files in one
// folder, agent i carrying session i's id (the layout of CLIs before
// <sessionId>/subagents/).
func flatFolder(b testing.TB, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		row := fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":%q,"timestamp":"2026-05-07T09:00:00Z","message":{"role":"user","content":"hi"}}`+"\n", i, sid)
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(row), 0o644); err != nil {
			b.Fatal(err)
		}
		agent := fmt.Sprintf(`{"type":"user","uuid":"v%d","sessionId":%q,"isSidechain":true,"timestamp":"2026-05-07T09:00:01Z","message":{"role":"user","content":"work"}}`+"\n", i, sid)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("agent-a%08d.jsonl", i)), []byte(agent), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkLoadLegacyAgentsBeside (issue 12, item 12): a folder of n sessions
// with n legacy agent files beside them. Each session used to walk every
// agent file of the folder (O(n²): 20k + 20k took 74 s); the folder's agent
// files are now grouped by session id once. ns/op grows about 4x from 2k to
// 8k (reading 2n files dominates), not 16x.
func BenchmarkLoadLegacyAgentsBeside(b *testing.B) {
	for _, n := range []int{2000, 8000} {
		dir := flatFolder(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				res, err := Load([]string{dir}, Options{})
				if err != nil || len(res.Runs) != n {
					b.Fatalf("%v: %d runs, want %d", err, len(res.Runs), n)
				}
				for _, r := range res.Runs {
					if len(r.Agents) != 1 {
						b.Fatalf("run %s has %d agents, want its own one", r.Path, len(r.Agents))
					}
				}
			}
		})
	}
}
