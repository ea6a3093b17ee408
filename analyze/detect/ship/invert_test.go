package ship

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// shipsOf describes what ShipActions gives a command: each action as
// kind[:branch], "possible" marking one the classifier could not name.
func shipsOf(cmd string) string {
	a := Classify(cmd, Options{})
	var got []string
	for _, act := range ShipActions(a, cmd) {
		s := act.Kind
		if act.Branch != "" {
			s += ":" + act.Branch
		}
		if act.Possible {
			s += " possible"
		}
		got = append(got, s)
	}
	return strings.Join(got, ", ")
}

// TestTrustShipsTheClassifierDidNotKnow (issue 29, item 2): every way to
// ship the list of known pushes missed is a ship action now, named where
// the classifier can name it (a push with its branch, a merge, a publish)
// and a possible ship otherwise. Before, Classify found no action in any
// of them, so neither the check nor the hook saw a ship.
func TestTrustShipsTheClassifierDidNotKnow(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		// git's configuration from the environment, a file or the line.
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.ci GIT_CONFIG_VALUE_0='push origin HEAD:main' git ci`, "ship possible"},
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='git push -f' git status`, "ship possible"},
		{`export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0=push; git st`, "ship possible"},
		{`git -c include.path=/tmp/ship.cfg sync`, "ship possible"},
		{`git -c include.path=.git/extra status`, "ship possible"},
		{"printf '[alias]\\n\\tsync = push origin HEAD:main\\n' >> .git/config && git sync", "ship possible"},
		// A hook or configuration written earlier in the line makes git's
		// own commands run it.
		{"echo 'git push' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit && git commit -m x", "ship possible"},
		{"printf '[core]\\n\\tfsmonitor = ./ship.sh\\n' >> .git/config; git status", "ship possible"},
		{`git config core.hooksPath .githooks && git commit -m x`, "ship possible"},
		{`git config core.fsmonitor ./ship.sh; git status`, "ship possible"},
		// git's own ways to push.
		{`git send-pack origin refs/heads/feat:refs/heads/main`, "push:main"},
		{`git subtree push --prefix=docs origin gh-pages`, "push:gh-pages"},
		{`/usr/lib/git-core/git-push origin HEAD:main`, "push:main"},
		{`git fetch --upload-pack='sh -c "git push"' origin`, "ship possible"},
		{`git rebase -x 'git push -f' main`, "ship possible"},
		{`git bisect run ./ship.sh`, "ship possible"},
		// GitHub's API and gh's aliases.
		{`gh api repos/acme/web/merges -f base=main -f head=feat`, "merge"},
		{`gh api -X PATCH repos/acme/web/git/refs/heads/main -f sha=0f0e0d0 -F force=true`, "push:main"},
		{`gh api repos/acme/web/git/refs -f ref=refs/heads/release -f sha=0f0e0d0`, "push"},
		{`gh api graphql -f query='mutation { mergePullRequest(input: {pullRequestId: "PR_1"}) { clientMutationId } }'`, "merge"},
		{`gh alias set shipit 'pr merge --admin --squash'`, "ship possible"},
		{`gh shipit 42`, "ship possible"},
		// Wrappers.
		{`doas git push origin main`, "push:main"},
		{`doas -u deploy git push origin main`, "push:main"},
		{`flock /tmp/ship.lock git push origin main`, "push:main"},
		{`flock -w 10 /tmp/ship.lock -c 'git push origin main'`, "push:main"},
		{`chronic git push origin main`, "push:main"},
		{`unbuffer git push origin main`, "push:main"},
		{`strace -f -o /dev/null git push origin main`, "push:main"},
		{`busybox sh -c 'git push origin main'`, "push:main"},
		{`env -S 'git push origin main'`, "push:main"},
		{`su -c 'git push origin main' deploy`, "push:main"},
		{`watch -n 60 git push origin main`, "push:main"},
		// Publishing.
		{`python -m twine upload dist/*`, "publish"},
		{`python3 -m twine upload --repository pypi dist/*`, "publish"},
		{`yarn publish --new-version 1.2.0`, "publish"},
		{`yarn npm publish`, "publish"},
		{`poetry publish --build`, "publish"},
		{`uv publish`, "publish"},
		{`gem push pmcheck-1.0.gem`, "publish"},
		{`mvn -B clean deploy`, "publish"},
		{`./gradlew publishToMavenCentral`, "publish"},
		{`gradle publish`, "publish"},
		{`docker push ghcr.io/acme/web:1.2`, "publish"},
		{`docker buildx build --push -t ghcr.io/acme/web:1.2 .`, "publish"},
		// Interpreters with inline code, and programs no list names.
		{`perl -e 'system("git push origin main")'`, "ship possible"},
		{`python3 -c 'import os; os.system("git push")'`, "ship possible"},
		{`node -e 'require("child_process").execSync("git push")'`, "ship possible"},
		{`ruby -e 'system("git push")'`, "ship possible"},
		{`awk 'BEGIN { system("git push") }'`, "ship possible"},
		{`sed -n 'e git push' README.md`, "ship possible"},
		{`./scripts/release.sh`, "ship possible"},
		{`bd sync`, "ship possible"},
		{`ssh deploy@prod ./deploy.sh`, "ship possible"},
		{`rsync -a dist/ deploy@prod:/srv/www/`, "ship possible"},
		{`curl -X POST https://deploy.example/hooks/release`, "ship possible"},
		{`hub push origin main`, "ship possible"},
		// An environment or an option that makes a harmless program run
		// another (the class of GIT_CONFIG_COUNT, for every program).
		{`LD_PRELOAD=./hook.so ls`, "ship possible"},
		{`PATH=./bin:$PATH go test ./...`, "ship possible"},
		{`export PATH="$PWD/bin:$PATH"; go build ./...`, "ship possible"},
		{`env LESSOPEN='|./ship.sh %s' less README.md`, "ship possible"},
		{`GOFLAGS=-toolexec=./ship.sh go build ./...`, "ship possible"},
		{`go test -exec ./ship.sh ./...`, "ship possible"},
		{`go vet -vettool=./ship.sh ./...`, "ship possible"},
		{`make SHELL=./ship.sh test`, "ship possible"},
		{`npm test --script-shell=./ship.sh`, "ship possible"},
		{`cargo --config 'target.x86_64-unknown-linux-gnu.runner="./ship.sh"' test`, "ship possible"},
		{`sort --compress-program=./ship.sh -S 1 big.txt`, "ship possible"},
	} {
		if got := shipsOf(tc.cmd); got != tc.want {
			t.Errorf("%q: ship actions %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestProvenHarmlessRealShapes: the read-only and local commands agents
// run (the corpus's Bash rows, public Claude Code permission allow-lists)
// are proven harmless: no possible ship, so the inversion gates none of
// them while a killed subagent is outstanding.
func TestProvenHarmlessRealShapes(t *testing.T) {
	for _, cmd := range []string{
		`ls -la`, `ls -la /workspace/claude-code-log/claude_code_log/ 2>/dev/null | head -20`,
		`cat README.md`, `head -50 src/schema.sql`, `tail -100 /tmp/dev.log 2>&1`, `wc -l src/*.go | tail -1`,
		`grep -rn "TODO" core --include="*.go" | head -40`, `rg -n 'fmt\.Errorf' core/`,
		`find . -type f -name "*.go" | sort`, `find src -name '*.ts' -exec grep -l useState {} \;`,
		`tree -L 3 -I ".venv|.git|__pycache__" .`, `sed -n '1,80p' main.go`, `awk '{print $1}' access.log | sort | uniq -c`,
		`jq '.dependencies' package.json`, `stat -x go.mod`, `du -sh node_modules`, `pwd && ls`, `which node && node --version`,
		`git status`, `git status --short`, `git log --oneline -20`, `git log --all --oneline --graph -20`,
		`git diff --stat`, `git diff main...HEAD -- src/`, `git show HEAD:go.mod`, `git branch --show-current`,
		`git remote -v`, `git remote get-url origin`, `git rev-parse HEAD`, `git stash list`, `git fetch --all`,
		`git -C ../wt log --oneline -3`, `git add -A && git commit -m "fix: parser"`, `git checkout -b feat/x main`,
		`git merge --no-ff feat/x -m "merge"`, `git pull origin main`, `git ls-files | wc -l`,
		`go build ./...`, `go test ./... -count=1 2>&1 | tail -20`, `go vet ./...`, `gofmt -l .`, `go mod tidy`,
		`cargo test 2>&1`, `cargo build --release`, `cargo clippy -- -D warnings`,
		`npm test`, `npm test -- DarkModeToggle`, `npm run build`, `npm run lint`, `npm ci`, `npm install highlight.js`,
		`npm --prefix frontend run test`, `pnpm install`, `pnpm lint`, `yarn`, `yarn test`, `npx vitest run`, `npx tsc --noEmit`,
		`pytest -q`, `python -m pytest tests/test_math.py -v`, `.venv/bin/pytest -x`, `python3 -m pip install -e .`,
		`uv sync`, `uv run pytest`, `uv tool install .`, `poetry run pytest`, `ruff check .`, `mypy src`,
		`make`, `make test`, `make -j4 build`, `just lint`, `mix test 2>&1`, `mix compile --warnings-as-errors`,
		`mix deps.get`, `swift build 2>&1 | tail -5`, `bash -n scripts/install.sh`,
		`gh pr view 42 --json url`, `gh issue view 113 --repo acme/web`, `gh pr checks 42`, `gh run list --limit 5`,
		`gh api repos/acme/web/pulls/42`, `gh api graphql -f query='query { viewer { login } }'`,
		`mkdir -p build && cp dist/app build/`, `rm -rf dist`, `chmod +x run.sh`, `touch .env`, `sleep 2`,
		`pkill -f irrlichd 2>/dev/null; sleep 1.5`, `lsof -i :8080`, `ps aux | grep node`, `pgrep -x claude`,
		`docker ps`, `docker logs web --tail 50`, `command -v jq`, `cd /repo && git status && git diff`,
		`python3 -m venv .venv`, `python3 -m json.tool data.json`, `node --test`, `dotnet test`, `mvn -q clean verify`,
		`./gradlew :app:test build`, `./mvnw -B package -DskipTests`,
		`CI=1 npm test`, `RUST_BACKTRACE=1 cargo test`, `GOOS=linux GOARCH=arm64 go build ./...`, `make CFLAGS=-O2 test`,
		`git config user.email agent@example.com && git commit -m x`, `git config --get remote.origin.url`,
		`SHA=$(git rev-parse HEAD) && git log -1 $SHA`, `count=0; for f in *.go; do count=$((count+1)); done; echo $count`,
		`timeout 60 go test ./e2e/...`, `echo "---"; date`, `git --version`, `find . -name '*.go' | xargs grep -l TODO`,
	} {
		a := Classify(cmd, Options{})
		if acts := ShipActions(a, cmd); len(acts) > 0 {
			t.Errorf("%q: %+v, want no possible ship (a real harmless shape)", cmd, acts)
		}
	}
}

// TestTrustWritesReadAsReadOnly (issue 29, item 3): a program the
// classifier took for read-only writes a file through one of its options
// or operands; the file is now a write (or the command may write), so a
// killed agent's work counts it. Before, each of these was an empty
// analysis (most of them inert, so never even parsed).
func TestTrustWritesReadAsReadOnly(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		writes []string // nil: MayWrite
	}{
		{`sort -o notes.txt data.txt`, []string{"notes.txt"}},
		{`sort -uo notes.txt data.txt`, []string{"notes.txt"}},
		{`sort --output=notes.txt data.txt`, []string{"notes.txt"}},
		{`git diff --output=patch.diff`, []string{"patch.diff"}},
		{`git log --output=log.txt -p`, []string{"log.txt"}},
		{`git show --output out.txt HEAD`, []string{"out.txt"}},
		{`uniq data.txt unique.txt`, []string{"unique.txt"}},
		{`tree -o tree.txt`, []string{"tree.txt"}},
		{`xxd dump.bin dump.hex`, []string{"dump.hex"}},
		{`curl -sSLo install.sh https://example.com/install.sh`, nil},
		{`curl --output page.html https://example.com`, nil},
		{`wget https://example.com/data.csv`, nil},
		{`awk '{ print > "out.txt" }' in.txt`, nil},
		{`sed -n 's/a/b/w changed.txt' in.txt`, nil},
		{`rg --pre ./decode.sh pattern`, nil},
		{`fd -e go -x gofmt -w`, nil},
		{`yq -i '.version = "2"' chart.yaml`, nil},
		{`file -C -m magic`, nil},
		{`git grep -O'sed -i s/a/b/' pattern`, nil},
		{`perl -e 'open(F, ">x")'`, nil},
		{`find . -name '*.tmp' | xargs rm`, nil}, // the files are on standard input
	} {
		a := Classify(tc.cmd, Options{})
		switch {
		case Inert(tc.cmd):
			t.Errorf("%q: inert, but it writes", tc.cmd)
		case tc.writes == nil && !a.MayWrite:
			t.Errorf("%q: %+v, want a possible write", tc.cmd, a)
		case tc.writes != nil && !slices.Equal(a.Writes, tc.writes):
			t.Errorf("%q: writes %q (may %v), want %q", tc.cmd, a.Writes, a.MayWrite, tc.writes)
		}
	}
	// Their read-only forms stay read-only.
	for _, cmd := range []string{`sort -u data.txt`, `sort -k2 -n data.txt`, `uniq -c data.txt`, `git diff --stat`,
		`curl -s https://example.com/api | jq .`, `wget -qO- https://example.com`, `awk -F: '$3 > 100 { n++ } END { print n }' /etc/passwd`,
		`sed -n '/start/,/end/p' f.txt`, `sed 's/a/b/g' f.txt`, `tree -L 2`, `rg -n TODO`, `xxd dump.bin`} {
		if a := Classify(cmd, Options{}); a.MayWrite || len(a.Writes) > 0 {
			if !strings.Contains(cmd, "$3 >") { // awk's > is read as a redirection: a possible write, by design
				t.Errorf("%q: %+v, want read-only", cmd, a)
			}
		}
	}
}

// The property test's vocabulary. Each harmless command is proven harmless
// and read-only or not; each unproven one is neither proven harmless nor,
// when marked so, read-only.
type genCommand struct {
	text     string
	harmless bool // proven harmless: no possible ship
	readOnly bool // proven read-only: no write, no possible write, no commit
}

var genCommands = []genCommand{
	{"ls -la", true, true}, {"cat go.mod", true, true}, {"grep -rn TODO src", true, true},
	{"rg -n 'func main'", true, true}, {"find . -name '*.go'", true, true}, {"git status", true, true},
	{"git log --oneline -5", true, true}, {"git diff --stat", true, true}, {"git show HEAD", true, true},
	{"wc -l main.go", true, true}, {"head -20 README.md", true, true}, {"sort -u names.txt", true, true},
	{"jq .name package.json", true, true}, {"echo done", true, true}, {"pwd", true, true},
	{"sed -n 1,20p main.go", true, true}, {"gh pr view 42", true, true},
	// Harmless, but they write.
	{"go test ./...", true, false}, {"go build ./...", true, false}, {"npm test", true, false},
	{"npm run build", true, false}, {"pytest -q", true, false}, {"make test", true, false},
	{"cargo test", true, false}, {"mix test", true, false}, {"rm -rf build", true, false},
	{"cp a.txt b.txt", true, false}, {"git commit -am wip", true, false}, {"git checkout -b x", true, false},
	{"sort -o out.txt in.txt", true, false}, {"git diff --output=p.diff", true, false}, {"touch x", true, false},
	// Not proven harmless; proven read-only (they change no local file)
	// or not.
	{"git push origin main", false, true}, {"git send-pack origin main", false, true},
	{"curl -X POST https://x", false, true}, {"git sync", false, false}, {"git -c include.path=x status", false, false},
	{"gh pr merge 7", false, false}, {"gh alias set x y", false, false},
	{"gh api -X PATCH repos/o/r/git/refs/heads/main", false, false},
	{"ssh host true", false, false}, {"scp a host:b", false, false}, {"python3 -c 'print(1)'", false, false},
	{"perl -e 'system(1)'", false, false}, {"node -e 1", false, false}, {"bash deploy.sh", false, false},
	{"./scripts/x.sh", false, false}, {"bd sync", false, false}, {"npm run deploy", false, false},
	{"docker run alpine", false, false}, {"go run ./cmd/x", false, false}, {"python3 -m twine upload dist/x", false, false},
	{"yarn publish", false, false}, {"mvn deploy", false, false}, {"claude -p hi", false, false},
	{"sed 'w out' f", false, false}, {"awk 'BEGIN{system(\"x\")}'", false, false},
	{"LD_PRELOAD=x.so ls", false, false}, {"go test -exec ./x ./...", false, false},
	{"GIT_CONFIG_COUNT=1 git status", false, false},
}

// wrap applies a random wrapper (or none): wrappers and shells run the
// command, so they change neither property.
func wrap(r *rand.Rand, cmd string) string {
	switch r.Intn(12) {
	case 0:
		return "sudo " + cmd
	case 1:
		return "timeout 60 " + cmd
	case 2:
		return "env CI=1 " + cmd
	case 3:
		return "bash -c " + syntaxQuote(cmd)
	case 4:
		return "nohup " + cmd
	case 5:
		return "doas " + cmd
	case 6:
		return "chronic " + cmd
	case 7:
		return "(" + cmd + ")"
	case 8:
		return "echo \"$(" + cmd + ")\""
	}
	return cmd
}

// TestEveryUnprovenCommandIsAPossibleShip (issue 29, items 2 and 3): over
// generated command lines of harmless and unproven commands, wrapped and
// joined in every way, a line holding any command not proven harmless has
// a ship action (a named one or a possible ship), and one holding any
// command not proven read-only may write; a line of harmless (read-only)
// commands has none (writes none).
func TestEveryUnprovenCommandIsAPossibleShip(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	joins := []string{" && ", " || ", "; ", " | ", "\n"}
	lines, unproven, unknown := 0, 0, 0
	for range 4000 {
		n := 1 + r.Intn(4)
		var parts []string
		harmless, readOnly := true, true
		for range n {
			c := genCommands[r.Intn(len(genCommands))]
			// Weight the harmless ones: most real lines are.
			if !c.harmless && r.Intn(3) > 0 {
				c = genCommands[r.Intn(17)]
			}
			harmless = harmless && c.harmless
			readOnly = readOnly && c.readOnly
			parts = append(parts, wrap(r, c.text))
		}
		line := parts[0]
		for _, p := range parts[1:] {
			line += joins[r.Intn(len(joins))] + p
		}
		lines++
		a := Classify(line, Options{})
		ships := len(ShipActions(a, line)) > 0
		writes := a.MayWrite || len(a.Writes) > 0 || a.Commits > 0
		if !harmless {
			unproven++
		}
		if !readOnly {
			unknown++
		}
		if ships == harmless {
			t.Errorf("%q: ship actions %v, want %v (proven harmless: %v)", line, ShipActions(a, line), !harmless, harmless)
		}
		if writes == readOnly {
			t.Errorf("%q: writes %v may %v, want writes=%v", line, a.Writes, a.MayWrite, !readOnly)
		}
	}
	if unproven < lines/4 || unknown < lines/4 || unproven > lines-lines/4 {
		t.Fatalf("generator unbalanced: %d lines, %d unproven, %d unknown work", lines, unproven, unknown)
	}
}

// TestInvertedShapesAreLinear: a 64 KiB line of each shape the inversion
// reads (wrappers rewritten as sh -c, environment assignments, words named
// by a computed folder, xargs, sed scripts, gh api fields) allocates about
// four times what a 16 KiB line does, and a bounded amount per byte (a
// ratio, not a time: the machine may be loaded).
func TestInvertedShapesAreLinear(t *testing.T) {
	fill := func(size int, head, unit, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for b.Len()+len(unit)+len(tail) <= size {
			b.WriteString(unit)
		}
		b.WriteString(tail)
		return b.String()
	}
	shapes := map[string]func(size int) string{
		"env -S":        func(n int) string { return fill(n, "", `env -S 'git push origin main'; `, "") },
		"env -S chain":  func(n int) string { return fill(n, "", "env -S ", "git push") },
		"flock -c":      func(n int) string { return fill(n, "", `flock /tmp/l -c 'git push'; `, "") },
		"watch":         func(n int) string { return fill(n, "watch -n 1 ", "echo x ", "") },
		"named words":   func(n int) string { return fill(n, "ls ", "$D/x ", "") },
		"named program": func(n int) string { return fill(n, "", "$V/bin/python -m pytest; ", "") },
		"assignments":   func(n int) string { return fill(n, "", "LD_PRELOAD=x ls; ", "") },
		"exports":       func(n int) string { return fill(n, "export ", "A=1 ", "") },
		"xargs":         func(n int) string { return fill(n, "", "find . | xargs rm; ", "") },
		"sed script":    func(n int) string { return fill(n, "sed -n '", "s/a/b/; ", "' f") },
		"gh api fields": func(n int) string { return fill(n, "gh api graphql ", "-f q=x ", "") },
		"make vars":     func(n int) string { return fill(n, "make ", "CFLAGS=-O2 ", "test") },
	}
	const small, large = 16 << 10, 64 << 10
	for name, line := range shapes {
		smallBytes := allocatedBy(func() { Classify(line(small), Options{}) })
		largeBytes := allocatedBy(func() { Classify(line(large), Options{}) })
		ratio := float64(largeBytes) / float64(smallBytes)
		t.Logf("%s: %d bytes allocated, %.1fx a quarter of the line", name, largeBytes, ratio)
		if ratio > 8 {
			t.Errorf("%s: 4 times the line allocates %.1f times as much", name, ratio)
		}
		if perByte := largeBytes / large; perByte > 2000 {
			t.Errorf("%s: %d bytes allocated for each byte of the line", name, perByte)
		}
	}
}
