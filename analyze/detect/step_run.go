package detect

import (
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// runFact is the run step: the run's own fact (Shipped is the ships step's).
func runFact(a *pass) {
	run := a.run
	f := model.RunFact{Kind: run.Kind, ID: run.ID, Path: run.Path, Attempts: len(run.Attempts), Segments: 1}
	f.At = model.Evidence{File: run.Path}
	if run.Main != nil && run.Kind == model.KindSession {
		f.At = model.Evidence{File: run.Main.File, Line: run.Main.FirstRowLine, Time: run.Main.FirstTime}
		f.Segments = interpret.ReadSegments(run.Main).Count
		f.Branch = run.Main.GitBranch
		f.Title = run.Main.Title
	}
	if run.Kind == model.KindWorkflow {
		f.Agents = model.AgentsOf(run.Attempts)
	} else {
		for _, sc := range run.Subagents {
			if !model.CopiedCall(sc) {
				f.Agents++
			}
		}
	}
	for _, t := range a.transcripts() {
		// Count the lines that were skipped, as scan and the report's
		// inputs do; a row read with replacement characters is not lost.
		f.Malformed += t.MalformedSkipped
		if !t.FirstTime.IsZero() && (f.Start.IsZero() || t.FirstTime.Before(f.Start)) {
			f.Start = t.FirstTime
		}
		if t.LastTime.After(f.End) {
			f.End = t.LastTime
		}
	}
	if run.Journal != nil {
		f.Malformed += run.Journal.MalformedCount
	}
	if a.opts.Git != nil {
		f.Branch = a.opts.Git.Name
	}
	a.res.run = &f
}

// transcripts are the run's files in a fixed order: main, agents, attempts.
func (a *analysis) transcripts() []*model.Transcript { return runTranscripts(a.run) }

// runTranscripts are run's files in a fixed order: main (of a session),
// agents, attempts.
func runTranscripts(run *model.Run) []*model.Transcript {
	var out []*model.Transcript
	seen := map[*model.Transcript]bool{}
	add := func(t *model.Transcript) {
		if t != nil && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if run.Kind == model.KindSession {
		add(run.Main)
	}
	for _, t := range run.Agents {
		add(t)
	}
	for _, at := range run.Attempts {
		add(at.Transcript)
	}
	return out
}
