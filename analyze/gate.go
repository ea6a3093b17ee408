package analyze

import (
	"errors"
	"fmt"
	"os"

	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/load"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// The resume gate's façade: the hooks (package hook) decide nothing of their
// own about a transcript. They ask ReadGate (or GateOf, for a run already
// loaded) what a ship action at the end of the transcript would find, and
// the answer is the reading check makes at a ship action's row: the same
// loader (subagent transcripts and sidecars included), the same notion of a
// killed, consumed or reviewed subagent, the same git aliases.

// GateOptions configure the gate's reading.
type GateOptions struct {
	// PublishTools are the non-Bash tools that publish (nil:
	// DefaultPublishTools()).
	PublishTools []string
	// DeployLabels are the labels whose `gh pr edit --add-label` deploys
	// (nil: the ship classifier's defaults).
	DeployLabels []string
}

// DefaultPublishTools is the publish-tool list used when none is configured.
func DefaultPublishTools() []string { return detect.DefaultPublishTools }

func (o GateOptions) detect() detect.Options {
	return detect.Options{PublishTools: o.PublishTools, DeployLabels: o.DeployLabels}
}

func (o GateOptions) publishTools() []string {
	if o.PublishTools == nil {
		return detect.DefaultPublishTools
	}
	return o.PublishTools
}

// GateState is the gate's reading of one session at the end of its
// transcript.
type GateState struct {
	m    GateMemo
	opts GateOptions
}

// GateMemo is all a GateState holds, for the hook's memo of an unchanged
// transcript (GateFromMemo gives the same answers).
type GateMemo struct {
	// Warn are the outstanding items (Warn).
	Warn []string `json:"warn,omitempty"`
	// MarkOnly are the newest mark's items the rows do not show (MarkOnly).
	MarkOnly []string `json:"mark_only,omitempty"`
	// MarkItems says the newest mark decodes and lists items (Disarm).
	MarkItems bool `json:"mark_items,omitempty"`
	// Aliases are the git aliases the session's commands define.
	Aliases map[string][]string `json:"aliases,omitempty"`
}

// Memo is what the state holds.
func (s *GateState) Memo() GateMemo { return s.m }

// GateFromMemo is the state a Memo was taken of.
func GateFromMemo(m GateMemo, opts GateOptions) *GateState { return &GateState{m: m, opts: opts} }

// ReadGate loads the session whose transcript is at path, as check loads a
// session transcript given on its command line (its subagents' transcripts
// and sidecars beside it), and reads the gate at the end of the transcript.
// A path that does not exist returns an error that wraps fs.ErrNotExist.
func ReadGate(path string, opts GateOptions) (*GateState, error) {
	run, err := loadGateRun(path)
	if err != nil {
		return nil, err
	}
	return GateOf(run, opts), nil
}

// loadGateRun loads the session run whose transcript is at path (nil when
// the file holds no rows a session is made of).
func loadGateRun(path string) (*Run, error) { return loadGateRunWith(path, nil) }

// loadGateRunWith is loadGateRun through followers (nil: none).
func loadGateRunWith(path string, follow *load.Followers) (*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	res, err := Load([]string{path}, Options{SessionOnly: true, Follow: follow})
	if err != nil {
		return nil, err
	}
	// An input error about another file (a Workflow run directory not
	// there yet) fails check's run, not the reading of this session: the
	// gate reads what the transcript says.
	for _, run := range res.Runs {
		if run.Kind == model.KindSession && run.Main != nil {
			return run, nil
		}
	}
	if len(res.Errors) > 0 {
		return nil, errors.New(res.Errors[0])
	}
	// No rows a session is made of: nothing can be outstanding.
	return nil, nil
}

// GateOf reads the gate of a loaded session run.
func GateOf(run *Run, opts GateOptions) *GateState {
	g := detect.GateOf(run, opts.detect())
	m := GateMemo{Warn: g.Outstanding, MarkOnly: g.MarkOnly, MarkItems: g.MarkItems, Aliases: g.Ship.Aliases}
	return &GateState{m: m, opts: opts}
}

// ShipKinds are the kinds of the ship actions one tool call runs (a Bash
// command through the ship classifier, with the session's git aliases and
// the deploy labels, a command it cannot prove harmless being a possible
// ship: ship.ShipActions; any other tool by the publish-tool list), each
// once; none when it is not a ship action.
func (s *GateState) ShipKinds(tool, command string) []string {
	return shipKinds(tool, command, ship.Options{DeployLabels: s.opts.DeployLabels, Aliases: s.m.Aliases}, s.opts)
}

// MayShip reports, before any transcript is read, whether a tool call can be
// a ship action: it is one with no aliases defined, or it runs a git
// command that is not built in (an alias the session may define).
func MayShip(tool, command string, opts GateOptions) bool {
	so := ship.Options{DeployLabels: opts.DeployLabels}
	if tool == "Bash" {
		a := ship.Classify(command, so)
		return len(ship.ShipActions(a, command)) > 0 || a.GitNotBuiltin
	}
	return len(shipKinds(tool, command, so, opts)) > 0
}

func shipKinds(tool, command string, so ship.Options, opts GateOptions) []string {
	var kinds []string
	switch {
	case tool == "Bash":
		for _, a := range ship.ShipActions(ship.Classify(command, so), command) {
			if !containsString(kinds, a.Kind) {
				kinds = append(kinds, a.Kind)
			}
		}
	case detect.IsPublishTool(tool, opts.publishTools()):
		kinds = []string{ship.KindPublish}
	}
	return kinds
}

// Warn names the killed subagents (and attempts) whose work is unreviewed
// at the end of the transcript: what the resume warning lists and its mark
// carries.
func (s *GateState) Warn() []string { return s.m.Warn }

// Ask names what a ship action asks about: Warn, plus MarkOnly.
func (s *GateState) Ask() []string {
	items := append([]string(nil), s.m.Warn...)
	for _, it := range s.m.MarkOnly {
		if !containsString(items, it) {
			items = append(items, it)
		}
	}
	return items
}

// MarkOnly are the items of a newest mark that decodes which the rows do
// not show at all (no subagent or attempt of the run has that name;
// detect.Gate.MarkOnly decides). A ship action asks about them too, which
// is the one way the hook asks where check does not
// (docs/architecture.md, deliberate differences).
func (s *GateState) MarkOnly() []string { return s.m.MarkOnly }

// Disarm reports whether the resume should write a mark listing nothing:
// nothing is outstanding, and the newest mark still lists items.
func (s *GateState) Disarm() bool { return len(s.m.Warn) == 0 && s.m.MarkItems }

// EncodeMark builds a segment mark listing items (interpret.EncodeMark).
func EncodeMark(items []string) string { return interpret.EncodeMark(items) }

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
