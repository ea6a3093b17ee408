package ship

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/fuzzseed"
)

// aliasEveryWord defines a git alias named by every word of cmd (as git
// config would: lower case), each running a push and a shell push: if a
// run's aliases could change the line's analysis, these do.
func aliasEveryWord(cmd string) map[string][]string {
	out := map[string][]string{}
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t\n;|&()'\"`$<>{}", r) }) {
		out[strings.ToLower(w)] = []string{"push origin HEAD:main", "!git push"}
	}
	return out
}

// TestReuseIsClassify: an analysis made without a run's aliases and with
// some deploy labels is reused only where it is what Classify gives with
// the run's options: for every command literal of the package's tests
// (ships, writes, aliases defined in the line and by git config, -c
// aliases, computed names, unparsable lines), with every word defined as
// an alias, and under three label settings. Reuse must also accept the
// analysis when nothing differs, and refuse other labels.
func TestReuseIsClassify(t *testing.T) {
	commands := append(fuzzseed.Literals(".", nil), "git sp", "cd repo && git p origin main", "git --version", "git PUSH", "sudo git st")
	labelSets := [][]string{nil, {"ship-it"}, {}}
	reused, refused := 0, 0
	for _, cmd := range commands {
		for _, made := range labelSets {
			a := Classify(cmd, Options{DeployLabels: made})
			if !Reuse(a, made, Options{DeployLabels: made}) {
				t.Fatalf("%q: not reused with the options it was made with", cmd)
			}
			for _, labels := range labelSets {
				for _, aliases := range []map[string][]string{nil, aliasEveryWord(cmd)} {
					opts := Options{DeployLabels: labels, Aliases: aliases}
					if !Reuse(a, made, opts) {
						refused++
						continue
					}
					reused++
					if want := Classify(cmd, opts); !reflect.DeepEqual(a, want) {
						t.Fatalf("%q made with labels %q, reused with labels %q and aliases %v:\nreused %+v\nClassify %+v", cmd, made, labels, aliases, a, want)
					}
				}
			}
		}
	}
	if reused == 0 || refused == 0 {
		t.Fatalf("%d reused, %d refused: the test checks nothing", reused, refused)
	}
	if !Reuse(Analysis{}, nil, Options{DeployLabels: DefaultDeployLabels}) || Reuse(Analysis{}, nil, Options{DeployLabels: []string{}}) {
		t.Fatal("nil labels are the defaults, and an empty list is none")
	}
	for cmd, want := range map[string]bool{"git sp": true, "git push": false, "git -c alias.p=push p": false, "git -c alias.p=sp p": true, "ls": false, "git lfs push": true, "bash -c 'git st'": true, "git status && echo sp": false} {
		if got := Classify(cmd, Options{}).GitNotBuiltin; got != want {
			t.Errorf("%q: GitNotBuiltin %v, want %v", cmd, got, want)
		}
	}
}
