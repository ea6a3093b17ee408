package rules

import (
	"cmp"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// EvalError is a rule that failed at evaluation time (an index out of range, a
// nil map access): the check must not pass silently over a rule it could not
// evaluate, so this is an error, not a skipped rule.
type EvalError struct {
	Rule  *Rule
	RunID string
	Kind  string
	At    model.Evidence
	Err   error
}

func (e *EvalError) Error() string {
	where := ""
	if !e.At.IsZero() {
		where = fmt.Sprintf(" at %s:%d", e.At.File, e.At.Line)
	}
	msg := oneLine(e.Err.Error())
	var fe *file.Error
	if errors.As(e.Err, &fe) {
		// expr's own text carries a multi-line source snippet; keep the message.
		msg = oneLine(fe.Message)
	}
	return fmt.Sprintf("%s: rule %q failed on the %s fact of run %q%s: %s; fix the rule's expression",
		e.Rule.Pos, e.Rule.ID, e.Kind, e.RunID, where, msg)
}

// Evaluate runs every rule of the pack over the facts of every run and returns
// the findings sorted by evidence (file, line), then rule id and fingerprint.
// Facts that hash to the same fingerprint under one rule (a watcher repeating
// QUIET at doubling thresholds, one command pushed twice) collapse into one
// finding: the first in fact order, with the others' locations added to its
// evidence.
func Evaluate(pack *Pack, runs []model.Facts) ([]Finding, error) {
	return EvaluateWith(pack, runs, EvalOptions{})
}

// EvalOptions tune Evaluate.
type EvalOptions struct {
	// Identity maps a run's path to the path its findings' fingerprints
	// hash (analyze.RunIdentity: relative to the repository, whatever the
	// working directory); nil hashes the path as the facts carry it.
	Identity func(runPath string) string
	// Legacy also computes each finding's LegacyFingerprint (the path as
	// the facts carry it), for baselines written before Identity existed.
	Legacy bool
}

// EvaluateWith is Evaluate with options.
func EvaluateWith(pack *Pack, runs []model.Facts, opts EvalOptions) ([]Finding, error) {
	var (
		out     []Finding
		machine vm.VM // reused: one VM per evaluation, not one per fact
		keep    keeper
		matched []int32 // positions of the facts that matched one compiled condition
	)
	for i := range runs {
		facts := &runs[i]
		for _, r := range pack.Rules {
			var index map[[16]byte]int32     // fingerprint -> position in out; made at the rule's first finding in the run
			var listed map[listedAt]struct{} // locations already in a merged finding; made at the first merge
			for _, c := range r.compiled {
				// The condition first, over every fact of the kind, then the
				// findings of the facts that matched: out grows once, to its
				// size, instead of by doubling (200,000 findings of one rule
				// made the doublings allocate 90 MB).
				matched = matched[:0]
				var failed *EvalError // the condition's first error, reported after the findings of the facts before it
				eachFact(facts, c.kind, func(fact any, pos int, at model.Evidence, _ time.Time) error {
					ok, err := machine.Run(c.where, fact)
					if err != nil {
						failed = &EvalError{Rule: r, RunID: facts.Run.ID, Kind: c.kind, At: at, Err: err}
						return failed
					}
					if b, _ := ok.(bool); b {
						matched = append(matched, int32(pos))
					}
					return nil
				})
				if len(matched) > 0 && index == nil {
					index = make(map[[16]byte]int32, len(matched))
				}
				out = slices.Grow(out, len(matched))
				var fp, legacy *fingerprinter
				if len(matched) > 0 {
					id := facts.Run.Path
					if opts.Identity != nil {
						id = opts.Identity(id)
					}
					fp = newFingerprinter(r.fingerprintID(), id, facts.Run.ID, c.kind)
					if opts.Legacy && id != facts.Run.Path {
						legacy = newFingerprinter(r.fingerprintID(), facts.Run.Path, facts.Run.ID, c.kind)
					}
				}
				for _, pos := range matched {
					fact, at, t := factAt(facts, c.kind, int(pos))
					sum := fp.sum(fact)
					if j, seen := index[sum]; seen {
						if at.IsZero() {
							continue
						}
						if listed == nil {
							// The first merge of the rule in this run: the
							// locations listed so far are the findings' own.
							listed = map[listedAt]struct{}{}
						}
						k := listedAt{j, at}
						if _, dup := listed[k]; dup {
							continue
						}
						listed[k] = struct{}{}
						if len(out[j].Evidence) == 1 {
							if out[j].Evidence[0] == at {
								continue
							}
							listed[listedAt{j, out[j].Evidence[0]}] = struct{}{}
						}
						if len(out[j].Evidence) < MaxEvidence {
							out[j].Evidence = append(out[j].Evidence, at)
						} else {
							out[j].EvidenceMore++
						}
						continue
					}
					msg, err := c.message.render(&machine, fact)
					if err != nil {
						return nil, &EvalError{Rule: r, RunID: facts.Run.ID, Kind: c.kind, At: at, Err: fmt.Errorf("message: %w", err)}
					}
					f := Finding{
						RuleID: r.ID, Severity: r.Severity, Message: msg,
						RunID: facts.Run.ID, RunKind: facts.Run.Kind, RunPath: facts.Run.Path,
						Evidence: keep.evidence(at), Time: t, Fingerprint: hex.EncodeToString(sum[:]),
						Fact: keep.ref(FactRef{Run: facts.Run.Path, RunID: facts.Run.ID, Kind: c.kind, Index: int(pos)}),
					}
					if f.Time.IsZero() {
						f.Time = at.Time
					}
					if legacy != nil {
						old := legacy.sum(fact)
						f.LegacyFingerprint = hex.EncodeToString(old[:])
					}
					index[sum] = int32(len(out))
					out = append(out, f)
				}
				if failed != nil {
					return nil, failed
				}
			}
		}
	}
	SortFindings(out)
	return out, nil
}

// MaxEvidence is the most locations a finding lists; the rest of the facts
// that collapsed into it are counted in EvidenceMore ("and N more"). The
// same command pushed 100,000 times is one finding, not a report that lists
// every push.
const MaxEvidence = 20

// listedAt is a location listed in (or counted into) the finding at
// position finding of Evaluate's output. A set of them makes merging the
// facts that share a fingerprint linear: it searched the finding's
// evidence once per fact (N pushes of one command: 1.8 s at 5.6 MB, 105 s
// at 45 MB).
type listedAt struct {
	finding int32
	at      model.Evidence
}

// keeper allocates what each finding keeps besides its strings (its
// evidence and fact reference) from shared chunks: one allocation per chunk
// instead of two per finding. Chunks start small and double up to
// keeperChunk: the findings keep their chunks, so a fixed large chunk per
// run would cost a fleet of 20,000 runs of one finding each ~500 MB.
type keeper struct {
	evs  []model.Evidence
	refs []FactRef
	next int // size of the next chunks
}

const keeperChunk = 256

// chunk is the size of the next chunk.
func (k *keeper) chunk() int {
	if k.next == 0 {
		k.next = 4
	}
	n := k.next
	k.next = min(k.next*2, keeperChunk)
	return n
}

// evidence is a list of at alone (empty when at is zero), with no spare
// capacity: adding a location copies it.
func (k *keeper) evidence(at model.Evidence) []model.Evidence {
	if at.IsZero() {
		return []model.Evidence{}
	}
	if len(k.evs) == 0 {
		k.evs = make([]model.Evidence, k.chunk())
	}
	e := k.evs[:1:1]
	e[0] = at
	k.evs = k.evs[1:]
	return e
}

func (k *keeper) ref(r FactRef) *FactRef {
	if len(k.refs) == 0 {
		k.refs = make([]FactRef, k.chunk())
	}
	p := &k.refs[0]
	*p = r
	k.refs = k.refs[1:]
	return p
}

// SortFindings orders findings deterministically: by primary evidence file and
// line, then rule id, run id, fingerprint and message.
func SortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		ae, be := primary(a), primary(b)
		return cmp.Or(
			strings.Compare(ae.File, be.File),
			cmp.Compare(ae.Line, be.Line),
			strings.Compare(a.RuleID, b.RuleID),
			strings.Compare(a.RunID, b.RunID),
			strings.Compare(a.RunPath, b.RunPath),
			strings.Compare(a.Fingerprint, b.Fingerprint),
			strings.Compare(a.Message, b.Message),
		)
	})
}

func primary(f Finding) model.Evidence {
	if len(f.Evidence) == 0 {
		return model.Evidence{}
	}
	return f.Evidence[0]
}

// eachFact calls fn for every fact of a kind, with its position, evidence and
// simulated time, until fn returns an error.
func eachFact(f *model.Facts, kind string, fn func(fact any, index int, at model.Evidence, t time.Time) error) error {
	for i := range factCount(f, kind) {
		fact, at, t := factAt(f, kind, i)
		if err := fn(fact, i, at, t); err != nil {
			return err
		}
	}
	return nil
}

// factCount is how many facts of a kind f has.
func factCount(f *model.Facts, kind string) int {
	switch kind {
	case model.FactRun:
		if f.Run.Kind == model.KindRange {
			return 0 // a range's facts are its commits
		}
		return 1
	case model.FactCommit:
		return len(f.Commits)
	case model.FactAttempt:
		return len(f.Attempts)
	case model.FactSubagent:
		return len(f.Subagents)
	case model.FactShip:
		return len(f.Ships)
	case model.FactWatchdog:
		return len(f.Watchdogs)
	}
	return 0
}

// factAt is the fact of a kind at position i, with its evidence and
// simulated time. Facts are handed over by pointer, and identities are built
// only for facts that match: a value in an interface is a copy, and with
// 200,000 attempts times every rule the copies and identity strings were
// most of what evaluation allocated.
func factAt(f *model.Facts, kind string, i int) (any, model.Evidence, time.Time) {
	switch kind {
	case model.FactRun:
		return &f.Run, f.Run.At, f.Run.Start
	case model.FactAttempt:
		x := &f.Attempts[i]
		return x, x.At, x.Time
	case model.FactSubagent:
		x := &f.Subagents[i]
		return x, x.At, x.Time
	case model.FactShip:
		x := &f.Ships[i]
		return x, x.At, x.Time
	case model.FactWatchdog:
		x := &f.Watchdogs[i]
		return x, x.At, x.Time
	case model.FactCommit:
		x := &f.Commits[i]
		return x, x.At, x.At.Time
	}
	return nil, model.Evidence{}, time.Time{}
}

// appendIdentity appends the part of the fingerprint that names a fact
// within its run. Identities use ids and names the files carry, never lines
// or times, so a fingerprint survives a transcript growing above the fact.
func appendIdentity(b []byte, fact any) []byte {
	switch x := fact.(type) {
	case *model.RunFact:
		return append(b, "run"...)
	case *model.AttemptFact:
		b = append(append(b, x.Key...), '\x1f')
		b = append(strconv.AppendInt(b, int64(x.Ordinal), 10), '\x1f')
		return append(b, x.AgentID...)
	case *model.SubagentFact:
		if x.ToolUseID != "" {
			return append(b, x.ToolUseID...)
		}
		return appendJoined(b, "agent", x.AgentID, x.Description)
	case *model.ShipFact:
		return appendJoined(b, x.Tool, x.Kind, x.Branch, x.Command)
	case *model.WatchdogFact:
		return appendJoined(b, x.Source, x.Kind, x.Agent, x.Predicted, x.Observed)
	case *model.CommitFact:
		return append(b, x.SHA...)
	}
	return b
}

// appendJoined appends parts separated by \x1f.
func appendJoined(b []byte, parts ...string) []byte {
	for i, p := range parts {
		if i > 0 {
			b = append(b, '\x1f')
		}
		b = append(b, p...)
	}
	return b
}

// Fingerprint is the stable identity of a finding: a hash of the rule id, the
// run's path (its main transcript or run directory, relative to the
// repository that holds it: EvalOptions.Identity) and id, the fact kind and the fact's identity within the run. It never includes
// line numbers, times, severities or messages, so re-levelling a rule or
// rewording its message keeps baselines valid. The path is what keeps a
// baseline entry from suppressing a finding of another file: several files
// may carry one session id (resumes, copies, a hostile pull request).
// Version 1 hashed the run id without the path; its entries match nothing
// now and are reported as stale.
func Fingerprint(ruleID, runPath, runID, kind, identity string) string {
	sum := newFingerprinter(ruleID, runPath, runID, kind).sumOf([]byte(identity))
	return hex.EncodeToString(sum[:])
}

// fingerprintSum is the Fingerprint of a fact, as bytes.
func fingerprintSum(ruleID, runPath, runID, kind string, fact any) [16]byte {
	return newFingerprinter(ruleID, runPath, runID, kind).sum(fact)
}

// fingerprinter hashes the fingerprints of the facts of one kind of one run
// under one rule: the parts before a fact's identity (most of what is
// hashed) are hashed once, and the hash's state after them is restored for
// each fact. The identity is appended to a reused buffer instead of built as
// a string, and a finding's fingerprint text is made only when the finding
// is new.
type fingerprinter struct {
	h      hash.Hash
	state  []byte // h's state after the parts before the identity
	buf    []byte // the identity
	summed []byte
}

func newFingerprinter(ruleID, runPath, runID, kind string) *fingerprinter {
	h := sha256.New()
	// The head sized at once: grown from nil it was copied four times, in
	// every run of a fleet.
	head := make([]byte, 0, len("pmcheck-finding-v2")+5+len(ruleID)+len(runPath)+len(runID)+len(kind))
	h.Write(fingerprintHead(head, ruleID, runPath, runID, kind))
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(err) // sha256's state always marshals
	}
	return &fingerprinter{h: h, state: state}
}

// sum is the fingerprint of fact.
func (f *fingerprinter) sum(fact any) [16]byte {
	f.buf = appendIdentity(f.buf[:0], fact)
	return f.sumOf(f.buf)
}

// sumOf is the fingerprint of a fact whose identity is identity.
func (f *fingerprinter) sumOf(identity []byte) [16]byte {
	if err := f.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(f.state); err != nil {
		panic(err) // a state sha256 marshalled itself
	}
	f.h.Write(identity)
	f.summed = f.h.Sum(f.summed[:0])
	return [16]byte(f.summed[:16])
}

// fingerprintHead appends the parts of a fingerprint before the fact's
// identity, each followed by \x1f.
func fingerprintHead(b []byte, ruleID, runPath, runID, kind string) []byte {
	b = append(b, "pmcheck-finding-v2"...)
	for _, p := range [...]string{ruleID, runPath, runID, kind} {
		b = append(b, '\x1f')
		b = append(b, p...)
	}
	return append(b, '\x1f')
}

// FailLevels are the values --fail-level accepts, from strictest to laxest.
var FailLevels = []string{SeverityNote, SeverityWarning, SeverityError, "none"}

// ValidFailLevel reports whether level is a --fail-level value.
func ValidFailLevel(level string) bool { return slices.Contains(FailLevels, level) }

// Failing counts the findings that fail a check at the given level: those not
// suppressed by a baseline whose severity is at or above the level. "none"
// never fails.
func Failing(findings []Finding, level string) int {
	threshold := severityRank(level)
	if threshold == 0 {
		return 0
	}
	n := 0
	for _, f := range findings {
		if !f.Suppressed && severityRank(f.Severity) >= threshold {
			n++
		}
	}
	return n
}
