package detect_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pmcheck/pmcheck/analyze"
	"github.com/pmcheck/pmcheck/analyze/detect"
	"github.com/pmcheck/pmcheck/analyze/detect/ship"
	"github.com/pmcheck/pmcheck/analyze/interpret"
	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
)

// commandValue is a Bash input's command in a fixture's JSON.
var commandValue = regexp.MustCompile(`"command":"(?:[^"\\]|\\.)*"`)

// withCommands copies the fixture folder name into a temporary folder,
// giving its shell calls, in file order, the commands given (cycled), and
// returns the copy: a real transcript the reader classifies.
func withCommands(t *testing.T, name string, commands []string) string {
	t.Helper()
	src := filepath.Join(fixtures, name)
	dst := filepath.Join(t.TempDir(), name)
	n := 0
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".jsonl") {
			data = commandValue.ReplaceAllFunc(data, func([]byte) []byte {
				v, _ := json.Marshal(commands[n%len(commands)])
				n++
				return append([]byte(`"command":`), v...)
			})
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("%s: no shell commands to replace", name)
	}
	return dst
}

// shellRoots are the fixtures, the corpus (with PMCHECK_CORPUS) and runs
// whose commands define and use git aliases (in the line, in the run, with
// -c), ship under deploy labels, span lines, fail to parse, and are
// computed at run time.
func shellRoots(t *testing.T) []string {
	roots := testcorpus.With(t, fixtures)
	for _, commands := range [][]string{
		{"git config alias.sp 'push origin'", "git sp", "gh pr edit 7 --add-label ship-it", "git -c alias.p=push p origin main"},
		{"git config --global alias.ci '!git commit -am wip && git push'", "cd repo && git ci", "git st", "git lfs push --all"},
		{"if then fi (", "git sp", "git status", "gh pr edit 7 --add-label deploy,ship-it"},
		{"cat <<'EOF' > notes.md\ngit push\nEOF\ngit sp", "git config alias.sp push", "bash -c 'git sp'", "git --version"},
		// Analyses holding parts of the line itself (a computed program's
		// text, a word of a line that does not parse).
		{"$CMD", "git $SUB", "deploy (", "eval \"$PUSH\""},
	} {
		roots = append(roots, withCommands(t, "detect-ship-after-kill", commands))
	}
	return roots
}

// loadRuns loads root; with shell, its reader classifies with labels,
// through a cache unless labels is empty (without one, every analysis the
// classifier returns is made from a view of the line read).
func loadRuns(t *testing.T, root string, shell bool, labels []string) []*model.Run {
	t.Helper()
	opts := analyze.Options{}
	if shell {
		var cache *detect.Classifications
		if labels == nil || len(labels) > 0 {
			cache = detect.NewClassifications()
		}
		opts.Shell = analyze.ClassifyWhileReading(labels, cache)
	}
	res, err := analyze.Load([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Runs
}

var labelSets = [][]string{nil, {"ship-it"}, {}}

// TestReadersClassificationsAreClassify is the differential test of the
// classifications made while reading: for every run of the fixtures, the
// corpus and runs made to define and use git aliases, read with each
// deploy-label setting and analysed with each, the facts and each
// transcript's ledger (interpret.LedgerOf, which replay counts) are those of the same
// run read without classifying; and every analysis the detectors
// would reuse (ship.Reuse) under the run's labels, with or without git
// aliases defined, is what ship.Classify gives the command with them. It
// fails if the aliases or the labels are ignored.
func TestReadersClassificationsAreClassify(t *testing.T) {
	aliases := map[string][]string{"sp": {"push origin"}, "st": {"push"}, "lfs": {"push"}, "ci": {"!git push"}, "p": {"commit"}}
	reused, refused := 0, 0
	for _, root := range shellRoots(t) {
		plain := loadRuns(t, root, false, nil)
		for _, read := range labelSets {
			runs := loadRuns(t, root, true, read)
			if len(runs) != len(plain) {
				t.Fatalf("%s: %d runs read classifying, %d without", root, len(runs), len(plain))
			}
			for i, run := range runs {
				for _, labels := range labelSets {
					opts := detect.Options{DeployLabels: labels}
					if got, want := detect.Analyze(run, opts), detect.Analyze(plain[i], opts); !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: read with labels %q, analysed with %q: facts differ from a read without classifying:\n got %+v\nwant %+v", run.Path, read, labels, got, want)
					}
					plainTs := transcriptsOf(plain[i])
					for j, tr := range transcriptsOf(run) {
						// The ledger replay's KILL line counts (interpret.LedgerOf).
						for _, al := range []map[string][]string{nil, aliases} {
							sopts := ship.Options{DeployLabels: labels, Aliases: al}
							if got, want := interpret.LedgerOf(tr, detect.ShellReader(sopts)), interpret.LedgerOf(plainTs[j], detect.ShellReader(sopts)); !reflect.DeepEqual(got, want) {
								t.Fatalf("%s: labels %q, aliases %v: ledger %+v, from a read without classifying %+v", tr.File, labels, al, got, want)
							}
						}
						for _, c := range tr.ToolCalls {
							a, made, ok := c.ShellClass()
							if c.Name() != "Bash" || !ok {
								continue
							}
							for _, al := range []map[string][]string{nil, aliases} {
								sopts := ship.Options{DeployLabels: labels, Aliases: al}
								if !ship.Reuse(a, made, sopts) {
									refused++
									continue
								}
								reused++
								if want := ship.Classify(c.Command(), sopts); !reflect.DeepEqual(a, want) {
									t.Fatalf("%s:%d: %q with labels %q and aliases %v: reused %+v, ship.Classify gives %+v", tr.File, c.At().Line, c.Command(), labels, al, a, want)
								}
							}
						}
					}
				}
			}
		}
	}
	if reused == 0 || refused == 0 {
		t.Fatalf("%d analyses reused, %d refused: the test checks nothing", reused, refused)
	}
}

// transcriptsOf are a run's transcripts.
func transcriptsOf(run *model.Run) []*model.Transcript {
	out := []*model.Transcript{run.Main}
	out = append(out, run.Agents...)
	for _, at := range run.Attempts {
		out = append(out, at.Transcript)
	}
	var kept []*model.Transcript
	for _, t := range out {
		if t != nil {
			kept = append(kept, t)
		}
	}
	return kept
}

// TestDetectorsReuseTheReadersClassifications: when the reader classified
// with the detectors' labels, the detectors classify no command of a run
// that defines no git alias, and in a run that does, only the lines that
// run git with a subcommand an alias could define; with other labels, or
// a read that did not classify, they classify the commands themselves.
func TestDetectorsReuseTheReadersClassifications(t *testing.T) {
	var mu sync.Mutex
	var classified []string
	defer detect.CountClassified(func(cmd string) {
		mu.Lock()
		classified = append(classified, cmd)
		mu.Unlock()
	})()
	withAliases, without := 0, 0
	for _, root := range shellRoots(t) {
		for _, run := range loadRuns(t, root, true, []string{"ship-it"}) {
			defines, stored := false, map[string]ship.Analysis{}
			for _, tr := range transcriptsOf(run) {
				for _, c := range tr.ToolCalls {
					if c.Name() == "Bash" {
						defines = defines || len(ship.ConfigAliases(c.Command())) > 0
						a, _, _ := c.ShellClass()
						stored[c.Command()] = a
					}
				}
			}
			classified = nil
			detect.Analyze(run, detect.Options{DeployLabels: []string{"ship-it"}})
			if !defines {
				without++
				if len(classified) > 0 {
					t.Fatalf("%s defines no git alias, yet the detectors classified %q", run.Path, classified)
				}
				continue
			}
			withAliases++
			for _, cmd := range classified {
				if !stored[cmd].GitNotBuiltin {
					t.Fatalf("%s: the detectors classified %q again, which no git alias can change", run.Path, cmd)
				}
			}
			if len(classified) == 0 {
				t.Fatalf("%s defines git aliases, and no command was classified with them", run.Path)
			}
			if len(stored) > 0 {
				classified = nil
				detect.Analyze(run, detect.Options{})
				if len(classified) == 0 {
					t.Fatalf("%s: analysed with other deploy labels than it was read with, no command was classified", run.Path)
				}
			}
		}
	}
	if withAliases == 0 || without == 0 {
		t.Fatalf("%d runs with git aliases, %d without: the test checks nothing", withAliases, without)
	}
	classified = nil
	for _, run := range loadRuns(t, fixtures, false, nil) {
		detect.Analyze(run, detect.Options{})
	}
	if len(classified) == 0 {
		t.Fatal("runs read without classifying had nothing classified by the detectors: the count sees nothing")
	}
}
