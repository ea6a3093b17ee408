package transcript

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/harness"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// Events are reused once nothing holds them (newEvent, release): the tail,
// the API errors and the interrupts must still be the rows they were made
// from, whatever the order of user, assistant, blank, API-error and
// interrupt rows. The expected events are worked out here, row by row,
// without the builder.
func TestReusedEventsKeepTheirRows(t *testing.T) {
	type want struct {
		line       int
		role, text string
		apiError   string
	}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var lines []string
		var last, lastUser, lastAssistant, lastMeaningful, beforeLastUser *want
		var apiErrors, interrupts []want
		for i := range 300 + rng.IntN(300) {
			line := i + 1
			quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
			w := &want{line: line}
			meaningful := true
			switch k := rng.IntN(10); {
			case k < 3:
				w.role, w.text = "user", fmt.Sprintf("user row %d", line)
				lines = append(lines, fmt.Sprintf(`{"type":"user","uuid":"u%d","message":{"role":"user","content":%s}}`, line, quote(w.text)))
			case k < 6:
				w.role, w.text = "assistant", fmt.Sprintf("assistant row %d", line)
				lines = append(lines, fmt.Sprintf(`{"type":"assistant","uuid":"a%d","message":{"role":"assistant","content":[{"type":"text","text":%s}]}}`, line, quote(w.text)))
			case k < 7:
				w.role, meaningful = "assistant", false
				lines = append(lines, fmt.Sprintf(`{"type":"assistant","uuid":"a%d","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"}]}}`, line))
			case k < 8:
				w.role, w.text = "user", "  "
				meaningful = false
				lines = append(lines, fmt.Sprintf(`{"type":"user","uuid":"u%d","message":{"role":"user","content":"  "}}`, line))
			case k < 9:
				w.role, w.text, w.apiError = "assistant", fmt.Sprintf("limit %d", line), fmt.Sprintf("error_%d", line)
				lines = append(lines, fmt.Sprintf(`{"type":"assistant","uuid":"a%d","isApiErrorMessage":true,"error":%s,"message":{"role":"assistant","content":[{"type":"text","text":%s}]}}`, line, quote(w.apiError), quote(w.text)))
				apiErrors = append(apiErrors, *w)
			default:
				w.role, w.text = "user", harness.KillSentinelPrefix+fmt.Sprintf(" at %d]", line)
				lines = append(lines, fmt.Sprintf(`{"type":"user","uuid":"u%d","message":{"role":"user","content":%s}}`, line, quote(w.text)))
				interrupts = append(interrupts, *w)
			}
			if w.role == "user" {
				lastUser, beforeLastUser = w, lastMeaningful
			} else {
				lastAssistant = w
			}
			last = w
			if meaningful {
				lastMeaningful = w
			}
		}
		tr := read(t, lines...)
		check := func(name string, got *model.Event, w *want) {
			t.Helper()
			if w == nil {
				if got != nil {
					t.Errorf("seed %d: %s is line %d, want none", seed, name, got.Line)
				}
				return
			}
			if got == nil || got.Line != w.line || got.Role != w.role || got.Text != w.text || got.APIError != w.apiError {
				t.Fatalf("seed %d: %s = %+v, want line %d %s %q (api error %q)", seed, name, got, w.line, w.role, w.text, w.apiError)
			}
		}
		check("last event", tr.Tail.LastEvent, last)
		check("last user", tr.Tail.LastUser, lastUser)
		check("last assistant", tr.Tail.LastAssistant, lastAssistant)
		check("last meaningful", tr.Tail.LastMeaningful, lastMeaningful)
		check("meaningful before last user", tr.Tail.MeaningfulBeforeLastUser, beforeLastUser)
		if len(tr.APIErrors) != len(apiErrors) || len(tr.Interrupts) != len(interrupts) {
			t.Fatalf("seed %d: %d API errors and %d interrupts, want %d and %d", seed, len(tr.APIErrors), len(tr.Interrupts), len(apiErrors), len(interrupts))
		}
		for i := range apiErrors {
			check(fmt.Sprintf("API error %d", i), tr.APIErrors[i], &apiErrors[i])
		}
		for i := range interrupts {
			check(fmt.Sprintf("interrupt %d", i), tr.Interrupts[i], &interrupts[i])
		}
		if strings.Count(strings.Join(lines, ""), "uuid") != len(lines) {
			t.Fatal("every row has a uuid")
		}
	}
}
