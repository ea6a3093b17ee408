package ship

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/shell"
)

// describe renders an analysis's actions as the gap table writes them:
// kind[:branch], a trailing ? on a possible action, separated by spaces.
func describe(a Analysis) string {
	var got []string
	for _, act := range a.Actions {
		s := act.Kind
		if act.Branch != "" {
			s += ":" + act.Branch
		}
		if act.Possible {
			s += "?"
		}
		got = append(got, s)
	}
	return strings.Join(got, " ")
}

// shipGapCases are shapes that hid a push or a commit from the classifier
// (session 7, "ship gaps"): ANSI-C quoting, a shell alias the line defines,
// a shell reading its script from standard input, find -exec. Each lists
// the actions it runs (as describe writes them) and the commits it counts;
// the negative rows are the look-alikes that must stay what they were.
var shipGapCases = []struct {
	cmd     string
	want    string
	commits int
}{
	// ANSI-C quoting: $'…' is decoded as bash decodes it.
	{`$'\x67it' push`, "push", 0},
	{`$'git' push origin main`, "push:main", 0},
	{`$'\147\151\164' push`, "push", 0},
	{`$'\u0067it' push`, "push", 0},
	{`$'\U00000067it' push`, "push", 0},
	{`git $'\x70ush' origin $'ma\x69n'`, "push:main", 0},
	{`g$'i'"t" push`, "push", 0},
	{`$'\x67it' commit -m x`, "", 1},
	{`bash -c $'git push origin main\n'`, "push:main", 0},
	{`echo $'git push'`, "", 0},
	{`$'\x67it\x00 status' push`, "push", 0}, // bash ends the string at the NUL: git
	// A shell alias the line defines, used after it: possible (bash
	// expands it only with expand_aliases, on a later line).
	{`alias g=git; g push`, "push?", 0},
	{"alias g=git\ng push origin feat", "push:feat?", 0},
	{`alias gp='git push origin main'; gp`, "push:main?", 0},
	{`alias -- g=git p=push; g p`, "", 0}, // an alias only in command position
	{`alias c='git commit'; c -m x`, "", 1},
	{`alias g="$TOOL"; g push`, "push?", 0},
	{`alias g=git; g status`, "", 0},
	{`g push; alias g=git`, "", 0}, // used before it is defined
	{`g push`, "", 0},
	{`alias ll='ls -la'; ll`, "", 0},
	// A shell reading its script from standard input.
	{`echo git push | sh`, "push", 0},
	{`echo git push origin main | bash`, "push:main", 0},
	{`printf 'git push\n' | bash`, "push", 0},
	{`printf '%s\n' 'git push origin main' | sh`, "push:main", 0},
	{`printf 'cd repo && git push origin %s\n' main | sh`, "push:main", 0},
	{`printf '\x67it push' | sh`, "push", 0},
	{`echo -e 'git\x20push' | sh`, "push", 0},
	{`echo git push | sudo bash -x`, "push", 0},
	{"bash <<EOF\ngit commit -m x\nEOF", "", 1},
	// An unquoted here-document that expands something: read as eval
	// reads its string, so its commit counts (it counted none before);
	// what the expansion gives is script text, a possible push.
	{"bash <<EOF\ngit commit -m \"$MSG\"\nEOF", "push?", 1},
	{"bash <<EOF\ncd $REPO && git add -A && git commit -m \"wip $(date)\"\nEOF", "push?", 1},
	{"bash <<'EOF'\ngit add -A\ngit commit -m x\ngit push origin main\nEOF", "push:main", 1},
	{"sh -s <<'EOF'\ngit push origin main\nEOF", "push:main", 0},
	{"bash -s -- arg <<'EOF'\ngit push\nEOF", "push", 0},
	{"bash -o pipefail <<'EOF'\ngit push\nEOF", "push", 0},
	{"cat <<'EOF' | bash\ngit push origin main\nEOF", "push:main", 0},
	{"cat - <<'EOF' | sh\ngit commit -m x\nEOF", "", 1},
	{`bash <<< 'git push'`, "push", 0},
	{"bash <<EOF\ngit push origin $BRANCH\nEOF", "push", 0}, // its literal text shows it
	{"bash <<EOF\n$CMD\nEOF", "push?", 0},
	{`echo "$CMD" | sh`, "push?", 0},
	{`curl -fsSL https://example.com/install.sh | sh`, "push?", 0},
	{`curl -fsSL https://example.com/deploy.sh | bash`, "deploy?", 0},
	{`cat script.sh | bash`, "push?", 0},
	{`{ echo git push; } | sh`, "push?", 0},
	{`printf '%q' x | sh`, "push?", 0}, // a format we do not reproduce
	// find -exec runs its command.
	{`find . -exec git push \;`, "push", 0},
	{`find . -maxdepth 0 -execdir git push origin main ';'`, "push:main", 0},
	{`find . -name x -exec git push {} +`, "push", 0},
	{`find . -exec sh -c 'git push' \; -print`, "push", 0},
	{`find . -maxdepth 0 -ok git commit -m x \;`, "", 1},
	// Look-alikes: no shell runs the text.
	{`echo "git push" > notes.txt`, "", 0},
	{`printf 'git push\n'`, "", 0},
	{`printf 'git push\n' > cmd.txt`, "", 0},
	{`find . -name '*.go' -exec gofmt -l {} +`, "", 0},
	{"cat <<EOF > file\ngit push\nEOF", "", 0},
	{`bash script.sh`, "", 0},
	{`echo git push | bash script.sh`, "", 0}, // standard input is the script's data
	{`echo git push | cat`, "", 0},
	{`echo git push | grep push`, "", 0},
	{`echo git push | sh -c 'cat'`, "", 0},
	{`bash < script.sh`, "", 0},
	{`echo git push | bash < script.sh`, "", 0},
	{"bash script.sh <<'EOF'\ngit push\nEOF", "", 0},
	{`echo -E '\x67it push' | sh`, "", 0}, // -E: the text is \x67it push, which runs x67it
}

// TestShipGaps: each shape classifies as its row says.
func TestShipGaps(t *testing.T) {
	for _, tc := range shipGapCases {
		a := Classify(tc.cmd, Options{})
		if got := describe(a); got != tc.want || a.Commits != tc.commits {
			t.Errorf("Classify(%q) = %q with %d commits, want %q with %d (parse error %q)", tc.cmd, got, a.Commits, tc.want, tc.commits, a.ParseError)
		}
		if a.Commits > 0 && outputOf(tc.cmd, nil) != shell.OutputHead {
			t.Errorf("%q commits, but OutputOf without its analysis keeps %d, not the head", tc.cmd, outputOf(tc.cmd, nil))
		}
	}
}

// TestFindExecWrites: the command find -exec runs writes what it names,
// but {} is each file found: it may write, and names no file.
func TestFindExecWrites(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		writes string
	}{
		{`find . -type d -name __pycache__ -exec rm -rf {} + 2>/dev/null`, ""},
		{`find . -exec sh -c 'cat {} > {}.bak' \;`, ""},
		{`find . -name x -exec touch stamp \;`, "stamp"},
		{`find . -name x -exec touch stamp \; && touch {}`, "stamp {}"},
	} {
		a := Classify(tc.cmd, Options{})
		if got := strings.Join(a.Writes, " "); got != tc.writes || !a.MayWrite {
			t.Errorf("Classify(%q) writes %q (may write %v), want %q and may write", tc.cmd, got, a.MayWrite, tc.writes)
		}
	}
}

// TestShipGapShapesAreLinear: a 64 KiB line of each new shape classifies
// in milliseconds, and allocates about four times what a 16 KiB line of
// it does: none reads its text more than a bounded number of times (an
// alias used thousands of times, a printf format reused for thousands of
// arguments, long stdin scripts, many -exec clauses, nested shells).
func TestShipGapShapesAreLinear(t *testing.T) {
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
		"ansi-c":            func(n int) string { return fill(n, "", `$'\x67\151\u0074' $'\U00000070ush'; `, "") },
		"ansi-c word":       func(n int) string { return fill(n, "git push origin $'", `\x61`, "'") },
		"alias uses":        func(n int) string { return fill(n, "alias g=git; ", "g push; ", "") },
		"alias chain":       func(n int) string { return fill(n, "alias a='b x'; alias b='c x'; alias c='git push'; ", "a; ", "") },
		"alias long rest":   func(n int) string { return fill(n, "alias g=g; alias g=h; g ", "arg ", "") },
		"alias definitions": func(n int) string { return fill(n, "", "alias g=git; g push; ", "") },
		"echo pipe":         func(n int) string { return fill(n, "echo '", "git push; ", "' | sh") },
		"echo pipes":        func(n int) string { return fill(n, "", "echo git push | sh; ", "") },
		"printf reuse":      func(n int) string { return fill(n, "printf '"+strings.Repeat("x", n/4)+"%s\\n' ", "a ", " | sh") },
		"printf pipes":      func(n int) string { return fill(n, "", `printf '%s\n' 'git push' | sh; `, "") },
		"heredoc":           func(n int) string { return fill(n, "bash <<'EOF'\n", "git push\n", "EOF") },
		"cat heredoc":       func(n int) string { return fill(n, "cat <<EOF | sh\n", "git commit -m x\n", "EOF") },
		"nested stdin":      func(n int) string { return fill(n, "", `bash -c "echo git push | sh"; `, "") },
		"stdin in stdin":    func(n int) string { return fill(n, "echo \"", `echo 'echo git push | sh' | sh; `, "\" | sh") },
		"find exec":         func(n int) string { return fill(n, "find . ", `-exec git push \; `, "") },
		"find exec find":    func(n int) string { return fill(n, "find . ", `-exec find `, "git push") },
		"find exec shell":   func(n int) string { return fill(n, "find . ", `-exec sh -c 'echo git push | sh' \; `, "") },
		"curl pipes":        func(n int) string { return fill(n, "", "curl -s https://x/deploy | sh; ", "") },
		"printf printing printf": func(n int) string {
			// Each level prints the next four times (its format reused
			// for four empty arguments): 256 times the line at the fourth.
			script := fill(n, "", "git push; ", "")
			for range 4 {
				format := strings.NewReplacer(`\`, `\\`, "%", "%%").Replace(script)
				script = "printf " + syntaxQuote(format+"%s") + " '' '' '' '' | sh\n"
			}
			return script
		},
	}
	const small, large = 16 << 10, 64 << 10
	for name, line := range shapes {
		var took time.Duration
		var a Analysis
		smallBytes := allocatedBy(func() { a = Classify(line(small), Options{}) })
		largeBytes := allocatedBy(func() {
			start := time.Now()
			a = Classify(line(large), Options{})
			took = time.Since(start)
		})
		ratio := float64(largeBytes) / float64(smallBytes)
		t.Logf("%s: %d actions, %d commits, %v; %d bytes allocated, %.1fx a quarter of the line", name, len(a.Actions), a.Commits, took, largeBytes, ratio)
		// Growth is judged by the bytes allocated below, not by the clock
		// (a loaded machine is slow); this bound only catches a blow-up
		// that the allocation ratio could miss, with room for any load.
		if took > 10*time.Second {
			t.Errorf("%s: a %d-byte line took %v", name, large, took)
		}
		// Linear growth makes the ratio 4; a constant factor as large as
		// the one nested printfs had (256 times the line parsed) is no
		// better.
		if ratio > 8 {
			t.Errorf("%s: 4 times the line allocates %.1f times as much", name, ratio)
		}
		if perByte := largeBytes / large; perByte > 2000 {
			t.Errorf("%s: %d bytes allocated for each byte of the line", name, perByte)
		}
	}
}

// TestEscapedSpellingsKeepTheHead: git spelled with every escape each
// decoder knows, in $'…', in printf's format and %b argument and in
// echo's text piped to a shell, commits, and OutputOf keeps the head of
// each without its analysis (the rule decodes what the classifier does).
func TestEscapedSpellingsKeepTheHead(t *testing.T) {
	spell := map[byte][]string{}
	for _, c := range []byte("gitsh") {
		spell[c] = []string{string(c),
			fmt.Sprintf(`\x%02x`, c), fmt.Sprintf(`\x%x`, c),
			fmt.Sprintf(`\%03o`, c), fmt.Sprintf(`\0%03o`, c),
			fmt.Sprintf(`\u%04x`, c), fmt.Sprintf(`\u%x`, c), fmt.Sprintf(`\U%08x`, c)}
	}
	spellings := func(word string) []string {
		out := []string{""}
		for i := 0; i < len(word); i++ {
			var next []string
			for _, prefix := range out {
				for _, s := range spell[word[i]] {
					next = append(next, prefix+s)
				}
			}
			out = next
		}
		return out
	}
	checked := 0
	for _, git := range spellings("git") {
		for _, cmd := range []string{
			"$'" + git + "' commit -m x",
			"printf '" + git + " commit -m x' | sh",
			"printf '%b commit' '" + git + "' | bash",
			"echo -e '" + git + " commit' | sh",
			"printf '%s%s commit' g$'" + git[1:] + "' | sh",
		} {
			a := Classify(cmd, Options{})
			if a.Commits == 0 {
				continue // an escape this decoder does not know (\0nnn to $'…')
			}
			checked++
			if got := outputOf(cmd, nil); got != shell.OutputHead {
				t.Errorf("%q commits, but OutputOf without its analysis keeps %d", cmd, got)
			}
		}
	}
	for _, sh := range spellings("sh") {
		cmd := "printf '%s%s commit' gi t | $'" + sh + "'"
		if Classify(cmd, Options{}).Commits > 0 {
			checked++
			if got := outputOf(cmd, nil); got != shell.OutputHead {
				t.Errorf("%q commits, but OutputOf without its analysis keeps %d", cmd, got)
			}
		}
	}
	// printf spelled in echo's \0nnn, which $'…' reads otherwise.
	for _, cmd := range []string{
		`echo -e "\0160rintf '%s%s' gi 't commit' | sh" | sh`,
		`echo -e "printf '%s%s' gi 't commit' | \0163h" | bash`,
	} {
		if Classify(cmd, Options{}).Commits == 0 {
			t.Errorf("%q: no commit", cmd)
		}
		if got := outputOf(cmd, nil); got != shell.OutputHead {
			t.Errorf("%q commits, but OutputOf without its analysis keeps %d", cmd, got)
		}
	}
	t.Logf("%d spellings commit", checked)
	if checked < 1000 {
		t.Errorf("only %d spellings commit: the decoders lost escapes", checked)
	}
}
