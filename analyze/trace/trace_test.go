package trace

import (
	"io"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/gitsource"
	"github.com/pmcheck/pmcheck/analyze/model"
)

func TestScanRows(t *testing.T) {
	file := strings.Join([]string{
		`{"type":"user","toolUseResult":{"gitOperation":{"commit":{"sha":"ABCDEF1234","kind":"commit","branch":"b"}}}}`,
		`{"type":"user","toolUseResult":"Error: \"gitOperation\" in a string result"}`,
		`{"type":"user","toolUseResult":{"gitOperation":{"commit":{"sha":"not-hex"}}}}`,
		`{"type":"user","toolUseResult":{"gitOperation":{"pr":{"number":7,"url":"https://x/pull/7","action":"created"}}}}`,
		``,
		`{"type":"pr-link","prNumber":12,"prUrl":"https://x/pull/12","prRepository":"o/r"}`,
		`{"type":"pr-link","prNumber":"12x"}`,
		`not json "gitOperation"`,
	}, "\n") + "\n"
	var ev Evidence
	scanFile(&ev, "f.jsonl", func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil })
	if len(ev.Commits) != 1 || ev.Commits[0].ID != "abcdef1234" || ev.Commits[0].At.Line != 1 || ev.Commits[0].By != model.LinkGitOperation {
		t.Errorf("commits %+v", ev.Commits)
	}
	if len(ev.PRs) != 2 || ev.PRs[0].Number != 7 || ev.PRs[1].Number != 12 || ev.PRs[1].Repository != "o/r" || ev.PRs[1].At.Line != 6 {
		t.Errorf("pull requests %+v", ev.PRs)
	}
}

// A run reported an abbreviated id: it links the commit whose id starts
// with it (7 characters or more), and no other.
func TestFactsMatchAbbreviatedIDs(t *testing.T) {
	commits := []gitsource.Commit{{ID: "1234567890abcdef1234567890abcdef12345678"}, {ID: "1234567000000000000000000000000000000000"}}
	runs := []Evidence{
		{RunID: "r1", Commits: []CommitEvidence{{ID: "1234567890", By: model.LinkCommitLine}}},
		{RunID: "r2", Commits: []CommitEvidence{{ID: "123456", By: model.LinkCommitLine}}}, // too short
		{RunID: "r3", Commits: []CommitEvidence{{ID: "1234567", By: model.LinkGitOperation}}},
	}
	facts := Facts(commits, nil, runs, nil)
	if got := strings.Join(facts[0].Runs, ","); got != "r1,r3" && got != "r3,r1" {
		t.Errorf("first commit linked to %q, want r1 and r3", got)
	}
	if got := strings.Join(facts[1].Runs, ","); got != "r3" {
		t.Errorf("second commit linked to %q, want r3 (a 7-character prefix of both)", got)
	}
	if facts[0].AgentTrailer || !facts[0].ByAgent {
		t.Errorf("a link without a trailer: agent_trailer %v, by_agent %v", facts[0].AgentTrailer, facts[0].ByAgent)
	}
}
