package load

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/allocs"
)

// TestLinkingGrowsLinearly (issue 12, item 12; BenchmarkLinkAsyncAgents shows
// the time): loading a session of n background agents with n notifications
// allocates in proportion to n. Linking used to copy and sort every
// notification of the transcript for each call, n² bytes (20,000 agents
// took 17 s): from 500 to 2,000 agents the bytes allocated grew 11.1x on
// that code, 3.7x now.
func TestLinkingGrowsLinearly(t *testing.T) {
	measure := func(n int) uint64 {
		dir := writeAsyncSession(t, n)
		var res *Result
		b, _ := allocs.Measure(func() {
			var err error
			res, err = Load([]string{dir}, Options{Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
		})
		if len(res.Runs) != 1 || len(res.Runs[0].Subagents) != n || res.Runs[0].Subagents[n-1].Status != "completed" {
			t.Fatalf("n=%d: the agents are not linked", n)
		}
		return b
	}
	small, large := measure(500), measure(2000)
	t.Logf("bytes allocated: %d -> %d", small, large)
	if ratio := float64(large) / float64(small); ratio > 5 {
		t.Errorf("4x the agents allocated %.1fx the bytes (%d -> %d): linking is not linear", ratio, small, large)
	}
}

// TestLegacyAgentsBesideGrowLinearly (issue 12, item 12;
// BenchmarkLoadLegacyAgentsBeside shows the time): a folder of n sessions
// with n legacy agent-*.jsonl files beside them. Each session used to
// collect every agent file of the folder as a candidate (n² entries: 20,000
// + 20,000 took 74 s); the folder's agent files are grouped by session id
// once. From 1,000 to 4,000 sessions the bytes allocated grew 14.1x on that
// code, 4.0x now.
func TestLegacyAgentsBesideGrowLinearly(t *testing.T) {
	measure := func(n int) uint64 {
		dir := flatFolder(t, n)
		var res *Result
		b, _ := allocs.Measure(func() {
			var err error
			res, err = Load([]string{dir}, Options{Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
		})
		if len(res.Runs) != n {
			t.Fatalf("n=%d: %d runs", n, len(res.Runs))
		}
		for _, r := range res.Runs {
			if len(r.Agents) != 1 {
				t.Fatalf("run %s has %d agents, want its own one", r.Path, len(r.Agents))
			}
		}
		return b
	}
	small, large := measure(1000), measure(4000)
	t.Logf("bytes allocated: %d -> %d", small, large)
	if ratio := float64(large) / float64(small); ratio > 5 {
		t.Errorf("4x the files allocated %.1fx the bytes (%d -> %d): matching agents to sessions is not linear", ratio, small, large)
	}
}

// TestSharedUUIDCopiesAreAnalysedOnce (issue 12, the cost must-hold;
// BenchmarkLoadSharedUUIDs shows the time): n sessions that share their row
// uuids, each with a legacy agent file beside it (bench/hostile's
// shared-uuids-20k). Each looks like a resume copy of the others by its
// first uuid, but none holds more than another, so none is a copy; each
// run is handed on once (each copy used to be linked and analysed, then
// read, linked and analysed again), and from 500 to 2,000 sessions the
// bytes allocated grow with the sessions.
func TestSharedUUIDCopiesAreAnalysedOnce(t *testing.T) {
	measure := func(n int) uint64 {
		dir := t.TempDir()
		for i := range n {
			sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
			rows := fmt.Sprintf(`{"type":"user","uuid":"u1","sessionId":%q,"timestamp":"2026-05-07T09:00:00Z","message":{"role":"user","content":"hi"}}`+"\n", sid) +
				fmt.Sprintf(`{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":%q,"timestamp":"2026-05-07T09:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}`+"\n", sid)
			agent := fmt.Sprintf(`{"type":"user","uuid":"v%d","sessionId":%q,"isSidechain":true,"timestamp":"2026-05-07T09:00:01Z","message":{"role":"user","content":"work"}}`+"\n", i, sid)
			if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(rows), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("agent-a%08d.jsonl", i)), []byte(agent), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var b uint64
		for _, jobs := range []int{1, 2} {
			var calls atomic.Int64
			var copied []int
			b, _ = allocs.Measure(func() {
				var err error
				_, copied, err = Each([]string{dir}, Options{Jobs: jobs}, func(r *model.Run, _ int) int {
					calls.Add(1)
					if len(r.Agents) != 1 {
						t.Errorf("run %s has %d agents, want its own one", r.Path, len(r.Agents))
					}
					return r.Main.Copied
				})
				if err != nil {
					t.Fatal(err)
				}
			})
			if c := calls.Load(); c != int64(n) {
				t.Fatalf("n=%d, %d jobs: %d runs handed on, want %d (each once)", n, jobs, c, n)
			}
			// Identical files: none holds more than another, so none is
			// a copy (issue 29), and nothing is marked.
			if copied[0] != 0 || copied[n-1] != 0 {
				t.Fatalf("n=%d, %d jobs: copied rows of the first and last runs %d, %d; want 0, 0", n, jobs, copied[0], copied[n-1])
			}
		}
		return b
	}
	small, large := measure(500), measure(2000)
	t.Logf("bytes allocated: %d -> %d", small, large)
	if ratio := float64(large) / float64(small); ratio > 5 {
		t.Errorf("4x the sessions allocated %.1fx the bytes (%d -> %d)", ratio, small, large)
	}
}
