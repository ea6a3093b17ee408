package rules

import (
	"strconv"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// BenchmarkEvaluateDefaults evaluates the default pack over a run with 10,000
// subagents, attempts and watchdog events, a third of which match a rule.
func BenchmarkEvaluateDefaults(b *testing.B) {
	pack, err := Defaults()
	if err != nil {
		b.Fatal(err)
	}
	f := model.Facts{Run: session("s1")}
	for i := range 10000 {
		s := killedSubagent()
		s.ToolUseID = "toolu_" + strconv.Itoa(i)
		s.OnShippedBranch = i%3 == 0
		f.Subagents = append(f.Subagents, s)
		a := killedAttempt()
		a.Ordinal = i + 1
		a.Paths = a.Paths[:i%3]
		f.Attempts = append(f.Attempts, a)
		f.Watchdogs = append(f.Watchdogs, model.WatchdogFact{Source: "watch", Kind: "QUIET", Agent: "a" + strconv.Itoa(i%100), SilenceSeconds: float64(300 * (i%4 + 1)), At: at("a.jsonl", i)})
	}
	facts := []model.Facts{f}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(pack, facts); err != nil {
			b.Fatal(err)
		}
	}
}
