package ship

import (
	"reflect"
	"strings"
	"testing"
)

// TestShipActions is the ship-action table: real-world command lines as agents
// type them, with the actions each one runs. "" means no ship action; several
// actions are separated by spaces as kind[:branch].
func TestShipActions(t *testing.T) {
	cases := []struct {
		cmd  string
		want string
	}{
		// Pushes.
		{`git push`, "push"},
		{`git push origin feature/login`, "push:feature/login"},
		{`git push -u origin HEAD`, "push:HEAD"},
		{`git push origin fix-123:main`, "push:main"},
		{`git push origin HEAD:refs/heads/main`, "push:main"},
		{`git push --force-with-lease origin +wip:release`, "push:release"},
		{`git -C ../worktrees/feat push origin feat`, "push:feat"},
		{`git -C "/Users/me/code/my repo" push`, "push"},
		{`git -c core.sshCommand="ssh -i ~/.ssh/deploy" push origin main`, "push:main"},
		{`git --no-pager push --tags`, "push"},
		{`git add -A && git commit -m "fix: parser" && git push origin main`, "push:main"},
		{`npm test; git push`, "push"},
		{`make lint || git push --no-verify`, "push"},
		{`(cd ../wt && git push origin feat)`, "push:feat"},
		{`cd /repo && { git fetch && git rebase origin/main; } && git push -f`, "push"},
		{`bash -c "git push origin main"`, "push:main"},
		{`sh -c 'cd repo && git push'`, "push"},
		{`bash -lc "git -C /srv/app push origin HEAD:main"`, "push:main"},
		{`eval "git push origin $BRANCH"`, "push"},
		{`echo "$(git push 2>&1)"`, "push"},
		{`GIT_SSH_COMMAND='ssh -o StrictHostKeyChecking=no' git push origin main`, "push:main"},
		{`sudo -u deploy git push origin main`, "push:main"},
		{`timeout 60 git push origin main 2>&1 | tail -5`, "push:main"},
		{"bash <<'EOF'\ncd /repo\ngit push origin main\nEOF", "push:main"},
		{`git status && git push origin main --force-with-lease && gh pr merge 42 --squash`, "push:main merge"},
		// Merges.
		{`gh pr merge 42 --squash --delete-branch`, "merge"},
		{`gh pr merge --auto --merge`, "merge"},
		{`gh -R acme/web pr merge 7 --rebase`, "merge"},
		{`gh api -X PUT repos/acme/web/pulls/42/merge -f merge_method=squash`, "merge"},
		{`gh api --method PUT /repos/acme/web/pulls/42/merge`, "merge"},
		{`gh api repos/acme/web/pulls/42/merge -X PUT`, "merge"},
		{`gh api -XPUT repos/acme/web/pulls/42/merge`, "merge"},
		{`gh api -X POST repos/acme/web/merges -f base=main -f head=feat`, "merge"},
		// Deploys and releases.
		{`gh pr edit 42 --add-label auto-deploy`, "deploy"},
		{`gh pr edit 42 --add-label "needs-review,auto-deploy"`, "deploy"},
		{`gh pr edit 42 --add-label=deploy`, "deploy"},
		{`gh release create v1.4.0 --generate-notes`, "release"},
		{`gh release create v2.0.0 ./dist/*.tar.gz -t "v2.0.0" -n "Major"`, "release"},
		{`npm publish --access public`, "publish"},
		{`cargo publish`, "publish"},
		// Not ship actions.
		{`git commit -m "git push later"`, ""},
		{`echo git push`, ""},
		{`echo "now run: git push origin main"`, ""},
		{`printf '%s\n' "gh pr merge 42"`, ""},
		{`git log --oneline origin/main..HEAD`, ""},
		{`git push --dry-run origin main`, ""},
		{`git push -n`, ""},
		{`git status --porcelain`, ""},
		{`git merge origin/main`, ""},
		{`git commit -am "merge: resolve conflicts"`, ""},
		{`grep -rn "git push" .claude/hooks/`, ""},
		{`gh pr view 42 --json mergeable,mergeStateStatus`, ""},
		{`gh pr create --title "Fix" --body "Merges the fix; then git push"`, ""},
		{`gh pr edit 42 --add-label needs-review`, ""},
		{`gh pr edit 42 --remove-label auto-deploy`, ""},
		{`gh api repos/acme/web/pulls/42/merge`, ""},
		{`gh api -X GET repos/acme/web/pulls/42`, ""},
		{`gh release view v1.4.0`, ""},
		{`cat <<'EOF' > notes.md` + "\ngit push origin main\nEOF", ""},
		{`# git push origin main`, ""},
		{`npm run build && npm test`, ""},
		{`git config --get remote.origin.pushurl`, ""},
	}
	if len(cases) < 40 {
		t.Fatalf("the table needs at least 40 command lines, has %d", len(cases))
	}
	for _, tc := range cases {
		a := Classify(tc.cmd, Options{})
		var got []string
		for _, act := range a.Actions {
			s := act.Kind
			if act.Branch != "" {
				s += ":" + act.Branch
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("Classify(%q) = %q, want %q (parse error %q)", tc.cmd, g, tc.want, a.ParseError)
		}
	}
}

func TestDeployLabelsAreConfigurable(t *testing.T) {
	a := Classify(`gh pr edit 9 --add-label ship-it`, Options{DeployLabels: []string{"ship-it"}})
	if len(a.Actions) != 1 || a.Actions[0].Kind != KindDeploy || a.Actions[0].Target != "ship-it" {
		t.Fatalf("got %+v", a.Actions)
	}
	if a := Classify(`gh pr edit 9 --add-label auto-deploy`, Options{DeployLabels: []string{"ship-it"}}); len(a.Actions) != 0 {
		t.Fatalf("a label outside the configured list deployed: %+v", a.Actions)
	}
}

func TestWritesAndCommits(t *testing.T) {
	cases := []struct {
		cmd      string
		writes   []string
		mayWrite bool
		commits  int
	}{
		{`echo hi > notes.txt`, []string{"notes.txt"}, false, 0},
		{`cat a.txt >> b.txt 2>/dev/null`, []string{"b.txt"}, false, 0},
		{`go test ./... 2>&1 | tee test.log`, []string{"test.log"}, true, 0},
		{`sed -i 's/foo/bar/' main.go util.go`, []string{"main.go", "util.go"}, false, 0},
		{`cp src/a.go dst/b.go && mv old.txt new.txt`, []string{"dst/b.go", "new.txt"}, false, 0},
		{`touch a b && rm -f c`, []string{"a", "b", "c"}, false, 0},
		{`ls -la && git status && git diff`, nil, false, 0},
		{`grep -rn TODO . > /dev/null`, nil, false, 0},
		{`echo x > "$OUT"`, nil, true, 0},
		{`python3 gen.py`, nil, true, 0},
		{`git add -A && git commit -m "one" && git commit --amend --no-edit`, nil, false, 2},
		{`git commit -m "git push later"`, nil, false, 1},
		{`git checkout -- file.go`, nil, true, 0},
		{`echo 'unterminated`, nil, true, 0},
	}
	for _, tc := range cases {
		a := Classify(tc.cmd, Options{})
		if !reflect.DeepEqual(a.Writes, tc.writes) || a.MayWrite != tc.mayWrite || a.Commits != tc.commits {
			t.Errorf("Classify(%q) = writes %q may %v commits %d, want %q %v %d", tc.cmd, a.Writes, a.MayWrite, a.Commits, tc.writes, tc.mayWrite, tc.commits)
		}
	}
}

// TestUnparsableLineFailsTowardReporting: a command cut at the length cap is
// not valid shell, but a ship verb in it still counts.
func TestUnparsableLineFailsTowardReporting(t *testing.T) {
	a := Classify(`git push origin main && echo "done`, Options{})
	if a.ParseError == "" {
		t.Fatal("expected a parse error")
	}
	if len(a.Actions) != 1 || a.Actions[0].Kind != KindPush || a.Actions[0].Branch != "main" {
		t.Fatalf("got %+v", a.Actions)
	}
	if !a.MayWrite {
		t.Fatal("an unparsable command must mark the ledger partial")
	}
}

func FuzzClassifyNeverPanics(f *testing.F) {
	for _, s := range []string{`git push`, `bash -c "eval 'git push'"`, `gh api -X`, `sudo`, `timeout`, `$(`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { _ = Classify(s, Options{}) })
}

// TestTrustPossibleShipActions (issue 12, item 8): a command that could ship
// but hides how is a possible ship action, never none: a program or git
// subcommand computed at run time, a git alias, a git run by xargs with its
// subcommand on standard input, more than four nested bash -c levels, a line
// that does not parse. Commands that name no ship verb stay no action.
func TestTrustPossibleShipActions(t *testing.T) {
	deep := "git push origin main"
	for range 6 {
		deep = "bash -c " + syntaxQuote(deep)
	}
	for _, tc := range []struct {
		cmd      string
		kind     string
		possible bool
	}{
		{"$(echo git) push", KindPush, true},
		{"`echo git` push origin main", KindPush, true},
		{"G=git; $G push origin main", KindPush, true},
		{"x=push; git $x origin main", KindPush, true},
		{`git "$CMD" origin`, KindPush, true},
		{"echo push | xargs git", KindPush, true},
		{deep, KindPush, true},
		{"git push origin 'main", KindPush, false},      // unparsed, still read by the fallback
		{"gh pr merge 'unterminated", KindMerge, false}, // same
		{`bash -c "$(printf %s 'deploy it')"`, KindDeploy, true},
		{`bash -c "$(cat script.sh)"`, KindPush, true},         // a computed script: any command
		{"git -c alias.p=push p origin main", KindPush, false}, // resolved: a real push
		{"git -c alias.up='!git push' up", KindPush, false},
		{"$(echo ls) -la", KindPush, true},   // a computed program could be git push
		{"x=status; git $x", KindPush, true}, // the subcommand could be anything
		{"echo $HOME", "", false},
		{"ls -la", "", false},
	} {
		a := Classify(tc.cmd, Options{})
		switch {
		case tc.kind == "" && len(a.Actions) != 0:
			t.Errorf("%q: want no action, got %+v", tc.cmd, a.Actions)
		case tc.kind != "" && (len(a.Actions) == 0 || a.Actions[0].Kind != tc.kind || a.Actions[0].Possible != tc.possible):
			t.Errorf("%q: want a %s action (possible %v), got %+v", tc.cmd, tc.kind, tc.possible, a.Actions)
		}
		if tc.possible && !a.MayWrite {
			t.Errorf("%q: a command we cannot resolve may write", tc.cmd)
		}
	}
}

// TestComputedCommandNames (issue 12, item 8): a command whose program name
// is computed at run time could be any command, git push among them, so it
// is a possible ship action (of the kind its text names, else a push) even
// when no ship verb is visible: $A $B, "$CMD" push, ${X}, eval or bash -c of
// a computed string. A computed folder before a literal name
// ($VENV/bin/python) names its program, and a computed argument of a named
// program (echo $HOME) is only an argument.
func TestComputedCommandNames(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want string // "" no action, else kind (every one possible)
	}{
		{`$A $B`, KindPush},
		{`"$CMD" push`, KindPush},
		{`${X}`, KindPush},
		{`"${TOOL}" --version`, KindPush},
		{`$EDITOR file.txt`, KindPush}, // documented: any computed program name
		{`ls && $RUN release`, KindRelease},
		{`sudo "$BIN" origin main`, KindPush},
		{`./$SCRIPT`, KindPush},
		{`$(which git) status`, KindPush},
		{`eval "$CMD"`, KindPush},
		{`eval $(ssh-agent -s)`, KindPush},
		{`bash -c "$CMD"`, KindPush},
		{`xargs $TOOL < list.txt`, KindPush},
		// Not computed names.
		{`echo $HOME`, ""},
		{`echo "$(date)" > stamp.txt`, ""},
		{`cd "$REPO" && ls`, ""},
		{`$VENV/bin/python -m pytest`, ""},
		{`"$(go env GOPATH)/bin/golangci-lint" run`, ""},
		{`${CLAUDE_PLUGIN_ROOT}/scripts/pre-commit.sh`, ""},
		{`X=$(git rev-parse HEAD)`, ""},
		{`eval "git push origin $BRANCH"`, KindPush + " certain"},
		{`$HOME/bin/git push origin main`, KindPush + " certain"},
	} {
		a := Classify(tc.cmd, Options{})
		var got string
		if len(a.Actions) > 0 {
			got = a.Actions[0].Kind
			if !a.Actions[0].Possible {
				got += " certain"
			}
		}
		if len(a.Actions) > 1 || got != tc.want {
			t.Errorf("%q: got %q (%+v), want %q", tc.cmd, got, a.Actions, tc.want)
		}
		if tc.want != "" && !a.MayWrite {
			t.Errorf("%q: a computed command may write", tc.cmd)
		}
	}
}

// TestGitConfigAliases (issue 12, item 8): an alias defined with git config
// in the run (Options.Aliases, from ConfigAliases) or earlier in the same
// line makes a later `git NAME` run what it stands for, as a possible
// action; an alias cannot redefine a built-in, and an unknown subcommand
// with no alias in sight stays what it was (may write, no action).
func TestGitConfigAliases(t *testing.T) {
	defs := map[string]map[string][]string{
		`git config alias.p push`:                                        {"p": {"push"}},
		`git config --global alias.Ship 'push origin HEAD:main'`:         {"ship": {"push origin HEAD:main"}},
		`git config --file .git/config alias.up "!git push -f"`:          {"up": {"!git push -f"}},
		`git config set alias.p push && git config --add alias.p status`: {"p": {"push", "status"}},
		`sudo git -C repo config --local alias.st status`:                {"st": {"status"}},
		`git config --get alias.p`:                                       nil,
		`git config alias.p`:                                             nil,
		`echo git config alias.p push`:                                   nil,
		`git config user.name alias.p`:                                   nil,
	}
	for cmd, want := range defs {
		if got := ConfigAliases(cmd); !reflect.DeepEqual(got, want) {
			t.Errorf("ConfigAliases(%q) = %v, want %v", cmd, got, want)
		}
	}
	run := mergeAliases(ConfigAliases(`git config alias.p push`), ConfigAliases(`git config --global alias.pr '!gh pr merge --squash'`))
	for _, tc := range []struct {
		cmd     string
		aliases map[string][]string
		want    string // kind:branch of a possible action, "" none
	}{
		{`git p origin main`, run, "push:main"},
		{`git P origin feat`, run, "push:feat"},
		{`git pr 42`, run, "merge:"},
		{`git p origin main`, nil, ""},
		{`git config alias.p push && git p origin main`, nil, "push:main"},
		{`git config alias.status push && git status`, nil, ""}, // a built-in wins
		{`git q origin main`, run, ""},
	} {
		a := Classify(tc.cmd, Options{Aliases: tc.aliases})
		got := ""
		if len(a.Actions) > 0 {
			got = a.Actions[0].Kind + ":" + a.Actions[0].Branch
			if !a.Actions[0].Possible {
				t.Errorf("%q: an action through a config alias is possible, got %+v", tc.cmd, a.Actions)
			}
		}
		if got != tc.want {
			t.Errorf("%q with %v: got %q (%+v), want %q", tc.cmd, tc.aliases, got, a.Actions, tc.want)
		}
		if !a.MayWrite && tc.cmd != `git config alias.status push && git status` {
			t.Errorf("%q: an unknown git subcommand may write", tc.cmd)
		}
	}
}

// TestTagPushesAreShipsOnATag (issue 11 item 2, issue 12): pushes of tags
// name no branch; the action says it updates a tag.
func TestTagPushesAreShipsOnATag(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want []string // "refkind:branch-or-tag" per action
	}{
		{"git push --tags", []string{"tag:--tags"}},
		{"git push origin --tags", []string{"tag:--tags"}},
		{"git push origin v1.2.3", []string{"tag:v1.2.3"}},
		{"git push origin 2.0.0-rc1", []string{"tag:2.0.0-rc1"}},
		{"git push origin refs/tags/release-7", []string{"tag:release-7"}},
		{"git push origin HEAD:refs/tags/nightly", []string{"tag:nightly"}},
		{"git push origin tag v1", []string{"tag:v1"}},
		{"git push --follow-tags origin main", []string{"branch:main", "tag:--tags"}},
		{"git push origin main", []string{"branch:main"}},
		{"git push origin v1.2.x", []string{"branch:v1.2.x"}},
		{"git push origin release/1.2", []string{"branch:release/1.2"}},
		{"git push", []string{"branch:"}},
	} {
		var got []string
		for _, a := range Classify(tc.cmd, Options{}).Actions {
			name := a.Branch
			if a.RefKind == RefTag {
				name = a.Target
				if a.Branch != "" {
					t.Errorf("%q: a tag push names branch %q", tc.cmd, a.Branch)
				}
			}
			got = append(got, a.RefKind+":"+name)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q: got %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// syntaxQuote single-quotes s for a shell.
func syntaxQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
