// Package ship classifies one Bash command line the way pmcheck's detectors
// need it: which ship actions it runs (push, merge, deploy, release, publish),
// whether it is proven harmless (MayShip, harmless.go: a command that is not
// may ship in a way no list names), which files it obviously writes, whether
// it may have written others (unless proven read-only), and how many `git
// commit` invocations it contains; and which commands are inert (Inert),
// which a reader asks when it decides how much of a command's output to
// keep (shell.OutputOf).
//
// The command is read with analyze/shell (a real shell parser,
// mvdan.cc/sh/v3/syntax, its wrappers unwrapped), never matched with a
// regular expression: a ship verb inside a quoted argument
// (`git commit -m "git push later"`) or an argument of another program
// (`echo git push`) is not a ship action, while one in the second clause of a
// chain, in a subshell, in a command substitution, in a `bash -c` / `eval`
// string, in the script a shell reads from standard input (`echo git push |
// sh`, `bash <<EOF`), or run by `find -exec` or a shell alias of the line is
// (stdin.go).
package ship

import (
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/analyze/shell"
	"mvdan.cc/sh/v3/syntax"
)

// Ship action kinds.
const (
	KindPush    = "push"
	KindMerge   = "merge"
	KindDeploy  = "deploy"
	KindRelease = "release"
	KindPublish = "publish"
)

// DefaultDeployLabels are the pull-request labels whose addition triggers a
// deployment when no list is configured (the resume-gate incident ran
// `gh pr edit <n> --add-label auto-deploy`).
var DefaultDeployLabels = []string{"auto-deploy", "deploy"}

// Options configure the classifier.
type Options struct {
	// DeployLabels are labels whose `gh pr edit --add-label` counts as a deploy;
	// nil means DefaultDeployLabels.
	DeployLabels []string
	// Aliases are git aliases defined elsewhere in the run with `git config
	// alias.NAME VALUE` (ConfigAliases), by lower-case name, every value seen.
	// `git NAME …` then runs each value; what it ships is a possible action
	// (the definition may have been made in another repository, or later).
	Aliases map[string][]string
	// Truncated says the command is the head of a longer one: the
	// transcript's reader cut it at its length cap (model.CommandLimit), so
	// what followed is unseen (truncated.go).
	Truncated bool
}

// Action is one ship action found in a command line (the model's type, so
// that a transcript can keep its reader's classification).
type Action = model.ShellAction

// Ref kinds of a push.
const (
	RefBranch = "branch"
	RefTag    = "tag"
)

// Analysis is everything the classifier found in one command line (the
// model's type; see its fields).
type Analysis = model.ShellAnalysis

// maxDepth bounds `bash -c "bash -c '…'"` recursion.
const maxDepth = 4

// Classify analyses one command line.
func Classify(command string, opts Options) Analysis {
	if opts.Truncated {
		return classifyTruncated(command, opts)
	}
	if quiet(command) { // prefilter.go: certainly nothing to find
		return Analysis{}
	}
	return classify(command, opts)
}

// Inert reports whether Classify gives command the empty analysis whatever
// the options: any deploy labels, any git aliases of its run. Those are the
// prefilter's quiet lines (prefilter.go): quiet programs and built-in git
// subcommands with static arguments, which no label names and no alias can
// redefine. A reader that classified such a command need keep only that:
// no consumer of the command can find anything else in it.
func Inert(command string) bool { return quiet(command) }

// Reuse reports whether a, what Classify gave a command with
// Options{DeployLabels: labels} (no run aliases), is what it gives that
// command with opts: the same deploy labels in effect, and either no run
// aliases or a line that runs no git subcommand an alias could define (a
// run's aliases change nothing else). A reader classifies each command
// before the run's aliases are known (transcript.Options.Shell); the
// detectors reclassify only the lines this refuses.
func Reuse(a Analysis, labels []string, opts Options) bool {
	if labels == nil {
		labels = DefaultDeployLabels
	}
	want := opts.DeployLabels
	if want == nil {
		want = DefaultDeployLabels
	}
	return slices.Equal(labels, want) && (len(opts.Aliases) == 0 || !a.GitNotBuiltin)
}

// classify is Classify without the prefilter.
func classify(command string, opts Options) Analysis {
	c := classifier{opts: opts, printfBudget: maxPrintfBytes(command), gitEnv: strings.Contains(command, "GIT_")}
	if c.opts.DeployLabels == nil {
		c.opts.DeployLabels = DefaultDeployLabels
	}
	if strings.Contains(command, "alias.") {
		// An alias the line itself defines (git config alias.p push && git p).
		c.opts.Aliases = mergeAliases(opts.Aliases, ConfigAliases(command))
	}
	c.script(command, 0)
	return c.out
}

type classifier struct {
	opts Options
	out  Analysis
	// text is the source of the simple command being classified, shown for
	// a possible action whose words are computed at run time.
	text string
	// text is src[textFrom:textTo] of the script numbered textScript, or
	// its words joined when textScript is 0.
	textScript, textFrom, textTo int
	// src is the script being walked, srcScript its number (scripts
	// counts them) and verbs the index of its ship verbs, built when a
	// computed command first needs it (verbIndex).
	src                string
	srcScript, scripts int
	verbs              *verbIndex
	// expansions counts the git alias values run so far, aliasBytes their
	// bytes (see maxAliasExpansions, maxAliasBytes).
	expansions, aliasBytes int
	// written holds c.out.Writes once they are more than a few
	// (smallWrites), so that a line naming thousands of files records
	// each in constant time.
	written map[string]bool
	// pipes maps the statement right of a pipe to the one left of it,
	// whose output is its standard input (stdin.go).
	pipes map[*syntax.Stmt]*syntax.Stmt
	// aliases are the shell aliases the line has defined so far (alias
	// NAME=VALUE), computed those whose value is computed, and expanding
	// those being expanded: bash does not expand an alias in its own
	// value (stdin.go).
	aliases          AliasUnion
	computedAliases  map[string]bool
	expandingAliases map[string]bool
	// findExecs counts the find -exec commands being classified, in
	// whose words {} stands for each file found (stdin.go).
	findExecs int
	// gitEnv: the line names a GIT_ variable (GIT_CONFIG_COUNT,
	// GIT_SSH_COMMAND, GIT_EXEC_PATH…), so git's configuration and the
	// programs it runs are not what the line shows: no git subcommand is
	// proven harmless.
	gitEnv bool
	// envRisk: the line has set an environment variable that may make a
	// program proven harmless by its words run another (PATH, LD_PRELOAD,
	// LESSOPEN, GOFLAGS=-toolexec, …; assigned): no later command of the
	// line is proven harmless.
	envRisk bool
	// printfBudget is how many more bytes of printf output piped to a
	// shell the line may classify (stdin.go): each printf's output may be
	// four times its words, and a script it prints may print another.
	printfBudget int
}

// maxAliasExpansions bounds how many git alias values one line runs. Each
// use of an alias runs every value the run gave it, and a value may use
// another alias: without a bound, a 64 KiB line of a thousand definitions
// and five thousand uses made 5.4 million actions (6.5 s, over 500 MB).
// Past the bound, a use is one possible push of its text: what it runs is
// not followed, and a hidden push still does not read as no push.
const maxAliasExpansions = 64

// maxAliasBytes bounds the bytes of alias values one line runs: 64 values
// of 256 bytes. Each use parses its value again, and a run may give an
// alias a value as long as a command: a 446-byte line of 64 uses of a
// 55 KB `!` alias defined in another command parsed 3.5 MB (0.76 s), so
// a run of such lines cost its uses times the value's bytes. Past the
// bound, a use is one possible push of its text, as past
// maxAliasExpansions. Aliases people write are a few dozen bytes.
const maxAliasBytes = maxAliasExpansions * 256

// maxPrintfBytes bounds the printf output piped to shells that a line of
// command's length classifies: four times the line and a little more, as
// one printf at the top may print. Without it, a printf printing a printf
// four times its words, each printing another, parsed 256 times the line
// at the fourth level.
func maxPrintfBytes(command string) int { return 4*len(command) + 4096 }

// expand reports whether values may run on this line, and counts them
// when they may.
func (c *classifier) expand(values ...string) bool {
	n := 0
	for _, v := range values {
		n += len(v)
	}
	if c.expansions+len(values) > maxAliasExpansions || c.aliasBytes+n > maxAliasBytes {
		return false
	}
	c.expansions += len(values)
	c.aliasBytes += n
	return true
}

// script parses src and classifies every simple command in it.
func (c *classifier) script(src string, depth int) {
	outer, outerScript, outerVerbs := c.src, c.srcScript, c.verbs
	defer func() { c.src, c.srcScript, c.verbs = outer, outerScript, outerVerbs }()
	c.scripts++
	c.src, c.srcScript, c.verbs = src, c.scripts, nil
	if depth > maxDepth {
		// Nested deeper than we follow: what it runs is unknown, and a
		// hidden push must not read as no push.
		c.out.MayWrite, c.out.MayShip = true, true
		c.possible(src)
		return
	}
	f, parsed, err := shell.ParseBounded(src)
	c.src = parsed
	if err != nil {
		if c.out.ParseError == "" {
			c.out.ParseError = err.Error()
		}
		c.out.MayShip = true
		found := len(c.out.Actions)
		c.fallback(src, depth)
		if len(c.out.Actions) == found {
			c.possible(src)
		}
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			c.stmt(n, src, depth)
		case *syntax.BinaryCmd:
			// Walk visits a pipe before its sides: the right one's
			// standard input is known when its statement is classified.
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				if c.pipes == nil {
					c.pipes = map[*syntax.Stmt]*syntax.Stmt{}
				}
				c.pipes[n.Y] = n.X
			}
		}
		return true
	})
}

// shipVerbs map a word a command line may carry to the kind of ship action
// it suggests, in the order they are tried.
var shipVerbs = []struct{ word, kind string }{
	{"push", KindPush}, {"merge", KindMerge}, {"publish", KindPublish}, {"upload", KindPublish},
	{"release", KindRelease}, {"deploy", KindDeploy},
}

// shipVerb returns the kind of the first of shipVerbs that text names, in
// any case.
func shipVerb(text string) (string, bool) {
	lower := strings.ToLower(text)
	for _, v := range shipVerbs {
		if strings.Contains(lower, v.word) {
			return v.kind, true
		}
	}
	return "", false
}

// possible records a possible ship action for text the classifier could not
// resolve, when the text names a ship verb, and reports whether it did.
func (c *classifier) possible(text string) bool {
	kind, ok := shipVerb(text)
	if ok {
		c.addPossible(kind, text)
	}
	return ok
}

// computed records a command whose program name (or whole text) is computed
// at run time: it could be any command, a push among them, so it is a
// possible ship action of the kind its text names, else a possible push.
// It may write anything. When text is src[from:to] of the script being
// walked (script is its number; 0 for none), its kind is looked up in the
// index of that source's verbs (verbIndex), since the texts of nested
// statements hold one another.
func (c *classifier) computed(text string, script, from, to int) {
	c.out.MayWrite, c.out.MayShip = true, true
	var kind string
	var ok bool
	if script != 0 && script == c.srcScript {
		if c.verbs == nil {
			c.verbs = &verbIndex{src: c.src}
		}
		kind, ok = c.verbs.verb(from, to)
	} else {
		kind, ok = shipVerb(text)
	}
	if !ok {
		kind = KindPush
	}
	c.addPossible(kind, text)
}

func (c *classifier) addPossible(kind, command string) {
	c.out.MayShip = true
	c.out.Actions = append(c.out.Actions, possibleAction(kind, command))
}

// possibleAction is a possible ship action of kind, shown as the first 200
// bytes of command with its white space folded.
func possibleAction(kind, command string) Action {
	const maxShown = 200
	if len(command) > maxShown {
		command = strings.ToValidUTF8(command[:maxShown], "") + "…"
	}
	return Action{Kind: kind, Command: strings.Join(strings.Fields(command), " "), Possible: true}
}

// fallback classifies a line the parser rejected (often a command cut at the
// transcript's length cap): split on the usual separators and read each clause
// as plain words. It fails toward reporting: a ship verb still counts, and the
// ledger is marked partial.
func (c *classifier) fallback(src string, depth int) {
	c.out.MayWrite = true
	repl := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n", "(", "\n", ")", "\n", "`", "\n", "$(", "\n")
	for _, clause := range strings.Split(repl.Replace(src), "\n") {
		words := strings.Fields(clause)
		for i := range words {
			words[i] = strings.Trim(words[i], `"'`)
		}
		c.call(words, nil, nil, depth, true)
	}
}

// stmt classifies the redirections of a statement and, when it is a simple
// command, the command itself.
func (c *classifier) stmt(st *syntax.Stmt, src string, depth int) {
	in := c.redirects(st.Redirs)
	if d, ok := st.Cmd.(*syntax.DeclClause); ok {
		c.declared(d)
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if ok {
		for _, as := range call.Assigns {
			if as.Name != nil {
				// VAR=x cmd exports VAR to cmd; a bare VAR=x changes
				// programs only if VAR was exported already.
				c.assigned(as.Name.Value, len(call.Args) == 0)
			}
		}
	}
	if !ok || len(call.Args) == 0 {
		return
	}
	words, dynamic, named, static := callWords(call.Args)
	ctx := &stmtContext{heredoc: in.heredoc, hasHeredoc: in.hasHeredoc, heredocStatic: in.heredocStatic, stdinFile: in.stdinFile, named: named}
	if !ctx.hasHeredoc && !ctx.stdinFile {
		ctx.pipeFrom = c.pipes[st]
	}
	ctx.source(call, src)
	c.call(words, dynamic, ctx, depth, static)
}

// stdinOf is what a statement's redirections give its standard input.
type stdinOf struct {
	// heredoc is the text of a here-document or here-string (hasHeredoc),
	// its static parts when it expands something (heredocStatic false).
	heredoc                   string
	hasHeredoc, heredocStatic bool
	// stdinFile: standard input is redirected from a file (< file).
	stdinFile bool
}

// redirects reads a statement's redirections (a here-document or
// here-string, standard input from a file) and records the files they
// write.
func (c *classifier) redirects(redirs []*syntax.Redirect) (in stdinOf) {
	for _, r := range redirs {
		switch r.Op {
		case syntax.RdrIn:
			if stdinRedir(r) {
				// < file: standard input is a file we cannot see.
				in.stdinFile, in.hasHeredoc = true, false
			}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.AppClob, syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
			if r.Op == syntax.RdrInOut && stdinRedir(r) {
				in.stdinFile, in.hasHeredoc = true, false
			}
			c.redirectWrite(r.Word)
		case syntax.DplOut:
			// >&2, >&- and the like duplicate descriptors; `>& file` is bash's
			// spelling of &> file.
			target, static := shell.WordString(r.Word)
			if !static {
				c.out.MayWrite = true
			} else if target != "-" && !isDigits(target) && !isDevice(target) {
				c.addWrite(target)
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				in.heredoc, in.heredocStatic = shell.WordString(r.Hdoc)
				in.hasHeredoc, in.stdinFile = true, false
			}
		case syntax.WordHdoc:
			if r.Word != nil {
				in.heredoc, in.heredocStatic = shell.WordString(r.Word)
				in.hasHeredoc, in.stdinFile = true, false
			}
		}
	}
	return in
}

// redirectWrite records the file an output redirection writes: none for a
// device, a possible write for a computed target.
func (c *classifier) redirectWrite(w *syntax.Word) {
	target, static := shell.WordString(w)
	switch {
	case !static:
		c.out.MayWrite = true
	case isDevice(target):
	default:
		c.addWrite(target)
	}
}

// declared records the variables export NAME=VALUE (declare -x …) sets:
// the variable reaches every later command of the line; declare, local,
// readonly and typeset without -x set shell variables.
func (c *classifier) declared(d *syntax.DeclClause) {
	exported := d.Variant != nil && d.Variant.Value == "export"
	for _, as := range d.Args {
		if as.Name == nil && as.Value != nil {
			if flag, _ := shell.WordString(as.Value); strings.HasPrefix(flag, "-") && strings.Contains(flag, "x") {
				exported = true
			}
			continue
		}
		if as.Name != nil {
			c.assigned(as.Name.Value, !exported)
		}
	}
}

// callWords resolves a simple command's words: each word's string (its
// static parts when it is computed), whether it is computed, named[i] when
// word i is computed but its base name is not (nil when none is), and
// whether all are static.
func callWords(args []*syntax.Word) (words []string, dynamic, named []bool, static bool) {
	words = make([]string, 0, len(args))
	dynamic = make([]bool, 0, len(args))
	static = true
	for i, w := range args {
		s, ok := shell.WordString(w)
		if !ok {
			static = false
			if shell.BaseIsStatic(w) {
				if named == nil {
					named = make([]bool, len(args))
				}
				named[i] = true
			}
		}
		words = append(words, s)
		dynamic = append(dynamic, !ok)
	}
	return words, dynamic, named, static
}

// source records the command's source in src: its text, what follows its
// first word, and the source from the statement piped into it.
func (ctx *stmtContext) source(call *syntax.CallExpr, src string) {
	from, to := int(call.Pos().Offset()), int(call.End().Offset())
	if from < 0 || from > to || to > len(src) {
		return
	}
	ctx.text, ctx.from, ctx.to = src[from:to], from, to
	if rest := int(call.Args[0].End().Offset()); rest >= from && rest <= to {
		ctx.rest = src[rest:to]
	}
	if ctx.pipeFrom != nil {
		if p := int(ctx.pipeFrom.Pos().Offset()); p >= 0 && p <= from {
			ctx.pipeText, ctx.pipeTextFrom = src[p:to], p
		}
	}
}

// stmtContext carries what a simple command's statement adds to its words.
type stmtContext struct {
	// heredoc is the text of a here-document or here-string the command
	// reads (hasHeredoc), its static parts when it expands something
	// (heredocStatic false).
	heredoc                   string
	hasHeredoc, heredocStatic bool
	// stdinFile: standard input is redirected from a file (< file).
	stdinFile bool
	// pipeFrom is the statement piped into this one, when no redirection
	// replaces it; pipeText is the source from it to this command's end,
	// src[pipeTextFrom:to].
	pipeFrom     *syntax.Stmt
	pipeText     string
	pipeTextFrom int
	// rest is the source after the command's first word, what a shell
	// alias's value is followed by.
	rest string
	// text is the command's source, for a possible ship action when its
	// program is computed at run time.
	text string
	// named[i] is true when word i is computed but only before its last
	// static slash ($VENV/bin/python): the program's name is known.
	named []bool
	// text is src[from:to] of the script being walked.
	from, to int
}

// call classifies one simple command given as resolved words.
func (c *classifier) call(words []string, dynamic []bool, ctx *stmtContext, depth int, static bool) {
	if len(words) > 0 && (len(dynamic) == 0 || !dynamic[0]) && c.aliasUse(words, ctx, depth) {
		c.out.MayShip = true
		return
	}
	c.noteGitEnv(words)
	p, ok := c.unwrapCall(words, dynamic, ctx)
	if !ok {
		return
	}
	if p.dyn(0) {
		// The program's name is computed at run time ($(echo git) push,
		// $CMD, "${TOOL}"): it could be any command, git push among them.
		// (A computed folder before a static name, $VENV/bin/python, names
		// its program and is classified by that name below.)
		if ctx != nil && ctx.text != "" {
			c.computed(ctx.text, c.srcScript, ctx.from, ctx.to)
		} else {
			c.computed(strings.Join(p.orig, " "), 0, 0, 0)
		}
		return
	}
	name := p.gitDashed()
	c.setText(p.words, ctx)
	proven, done := c.program(name, p, ctx, depth, static)
	if done {
		return
	}
	c.afterCall(name, p, proven, static)
}

// noteGitEnv sets gitEnv when a word names a GIT_ variable: export
// GIT_CONFIG_COUNT=1 …, env $'GIT_…': git's configuration is not what the
// line shows.
func (c *classifier) noteGitEnv(words []string) {
	for _, w := range words {
		if strings.Contains(w, "GIT_") {
			c.gitEnv = true
		}
	}
}

// callee is a simple command once its wrappers are stripped: the words of
// the program it runs, whether each is computed at run time, the words as
// written, and whether xargs runs it (appending words from its standard
// input, which we cannot see).
type callee struct {
	words    []string
	dynamic  []bool
	orig     []string
	viaXargs bool
}

// dyn reports whether words[i] is computed at run time.
func (p *callee) dyn(i int) bool { return i < len(p.dynamic) && p.dynamic[i] }

// argDyn says which arguments may be computed: those computed, and all
// of them when xargs appends arguments from standard input (any of them
// may be an option, as a computed word may).
func (p *callee) argDyn() computed {
	if !p.viaXargs {
		return computed(p.dynamic[1:])
	}
	argDyn := make(computed, len(p.words))
	for i := range argDyn {
		argDyn[i] = true
	}
	return argDyn
}

// gitDashed rewrites /usr/lib/git-core/git-push as git push and returns
// the program's name.
func (p *callee) gitDashed() string {
	name := path.Base(p.words[0])
	if strings.HasPrefix(name, "git-") && len(name) > len("git-") {
		p.words = append([]string{"git", name[len("git-"):]}, p.words[1:]...)
		p.dynamic = append([]bool{false, p.dynamic[0]}, p.dynamic[1:]...)
		name = "git"
	}
	return name
}

// unwrapCall strips the wrappers of a simple command (shell.UnwrapDyn),
// notes the assignments of the wrappers' words (env NAME=VALUE cmd) and
// whether xargs runs the program; ok is false when it runs nothing.
func (c *classifier) unwrapCall(words []string, dynamic []bool, ctx *stmtContext) (callee, bool) {
	orig := words
	if len(dynamic) < len(words) {
		dynamic = append(dynamic, make([]bool, len(words)-len(dynamic))...)
	}
	// probe is dynamic with the words whose computed folder is followed by
	// a static name ($VENV/bin/python) taken as static: such a word names
	// its program, for unwrapping too ($VENV/bin/python -m pytest). Their
	// whole text is still computed, so as arguments they stay dynamic.
	probe := dynamic
	if ctx != nil && ctx.named != nil {
		probe = slices.Clone(dynamic)
		for i := range probe {
			if i < len(ctx.named) && ctx.named[i] {
				probe[i] = false
			}
		}
	}
	words, probe = shell.UnwrapDyn(words, probe)
	if len(words) == 0 {
		return callee{}, false
	}
	// off is where words start in orig, -1 when a wrapper was rewritten
	// (flock -c CMD is sh -c CMD).
	off := -1
	if len(orig) >= len(words) && &orig[len(orig)-len(words)] == &words[0] {
		off = len(orig) - len(words)
	}
	if off >= 0 && ctx != nil && ctx.named != nil {
		dynamic = append([]bool{probe[0]}, dynamic[off+1:]...)
	} else {
		dynamic = probe
	}
	stripped := orig
	if off >= 0 {
		stripped = orig[:off]
	}
	return callee{words: words, dynamic: dynamic, orig: orig, viaXargs: c.wrapperWords(stripped)}, true
}

// wrapperWords notes the assignments among the words a wrapper stripped
// (env NAME=VALUE cmd) and reports whether xargs is among them.
func (c *classifier) wrapperWords(stripped []string) (viaXargs bool) {
	for _, w := range stripped {
		if path.Base(w) == "xargs" {
			viaXargs = true
		}
		if n, _, ok := strings.Cut(w, "="); ok && shell.IsName(n) {
			c.assigned(n, false) // env NAME=VALUE cmd
		}
	}
	return viaXargs
}

// setText records the command's source (its words joined when there is
// none), shown for a possible action.
func (c *classifier) setText(words []string, ctx *stmtContext) {
	c.text, c.textScript = strings.Join(words, " "), 0
	if ctx != nil && ctx.text != "" {
		c.text, c.textScript, c.textFrom, c.textTo = ctx.text, c.srcScript, ctx.from, ctx.to
	}
}

// program classifies the program name runs: proven when the command itself
// is proven harmless (what it runs is classified on its own: bash -c,
// eval, find -exec); done when the command was classified whole (a shell
// reading its script from standard input).
func (c *classifier) program(name string, p callee, ctx *stmtContext, depth int, static bool) (proven, done bool) {
	args := p.words[1:]
	switch name {
	case "git":
		// A closure over the words' dynamic, not p.dyn: p stays on the stack.
		dynamic := p.dynamic
		c.git(p.words, args, func(i int) bool { return i < len(dynamic) && dynamic[i] }, p.viaXargs, depth) // marks MayShip itself
		return true, false
	case "gh":
		c.gh(p.words, args) // marks MayShip itself
		return true, false
	case "bash", "sh", "zsh", "dash", "ksh":
		return c.shellCall(args, p, ctx, depth)
	case "eval":
		found := len(c.out.Actions)
		c.script(strings.Join(args, " "), depth+1)
		if !static && len(c.out.Actions) == found {
			// eval "$CMD": eval parses what the expansion gives, so any
			// command may run.
			c.computed(c.text, c.textScript, c.textFrom, c.textTo)
		}
		return true, false
	case "alias":
		c.defineAliases(args, p.argDyn().at)
		return true, false
	case "find":
		argDyn := p.argDyn()
		c.findExec(args, argDyn.at, depth)
		c.writes(name, args, argDyn)
		return true, false
	}
	argDyn := p.argDyn()
	if kind, target, ok := publishes(name, args); ok {
		c.add(kind, "", target, p.words)
	}
	c.writes(name, args, argDyn)
	return provenHarmless(name, args, argDyn), false
}

// shellCall classifies a shell run as a program: bash -n (a syntax check,
// harmless), bash -c SCRIPT (the script classified), or a shell reading a
// script from standard input (stdinScript) or a file we cannot see.
func (c *classifier) shellCall(args []string, p callee, ctx *stmtContext, depth int) (proven, done bool) {
	if hasShortFlag(args, 'n') && !hasShortFlag(args, 'i') && !hasShortFlag(args, 's') {
		// bash -n script.sh reads the script and runs nothing (a
		// syntax check).
		return true, false
	}
	if i := indexOf(args, "-c"); i >= 0 || hasShortFlag(args, 'c') {
		if i < 0 {
			i = firstShortFlagWith(args, 'c')
		}
		switch {
		case i+1 < len(args) && p.dyn(i+2):
			// bash -c "$(…)", bash -c "$CMD": the script is computed at
			// run time, so its commands are.
			c.computed(c.text, c.textScript, c.textFrom, c.textTo)
		case i+1 < len(args):
			c.script(args[i+1], depth+1)
			return true, false
		default:
			c.out.MayWrite = true
		}
		return false, false
	}
	// (xargs gives the shell its standard input as arguments.)
	if ctx != nil && !p.viaXargs && readsScriptFromStdin(args) && c.stdinScript(ctx, depth) {
		return false, true
	}
	c.out.MayWrite = true // runs a script file we cannot see
	return false, false
}

// afterCall records what a classified command leaves: export's
// assignments, and MayShip and MayWrite where nothing proves otherwise.
func (c *classifier) afterCall(name string, p callee, proven, static bool) {
	if name == "export" {
		// (export reached as a command: through a wrapper or a computed
		// word; the parser reads a plain one as a declaration, stmt.)
		for _, a := range p.words[1:] {
			if !strings.HasPrefix(a, "-") {
				n, _, _ := strings.Cut(a, "=")
				c.assigned(n, false)
			}
		}
	}
	if !proven || c.envRisk {
		c.out.MayShip = true
	}
	if c.envRisk {
		c.out.MayWrite = true // nor proven read-only
	}
	if p.viaXargs && !readOnly[name] {
		// find … | xargs rm: the files are on standard input.
		c.out.MayWrite = true
	}
	if !static && name != "echo" && name != "printf" {
		// A dynamic word ($VAR, $(…)) may name a file we cannot resolve.
		c.out.MayWrite = true
	}
}

// publishes reports the publish a package manager's or container tool's
// command runs: npm/pnpm/yarn/bun publish, yarn npm publish, cargo
// publish, twine upload (also as python -m twine), poetry/uv/hatch/flit
// publish, gem push, mvn deploy, gradle publish…, docker/podman push and
// build --push.
func publishes(name string, args []string) (kind, target string, ok bool) {
	var pos []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
		}
	}
	first := func(w ...string) bool { return len(pos) > 0 && slices.Contains(w, pos[0]) }
	switch name {
	case "npm", "pnpm", "bun":
		ok = first("publish")
	case "yarn":
		ok = first("publish") || first("npm") && len(pos) > 1 && pos[1] == "publish"
	case "cargo", "poetry", "uv", "hatch", "flit", "pdm":
		ok = first("publish")
	case "twine":
		ok = first("upload")
	case "gem":
		ok = first("push")
	case "mvn", "mvnw":
		for _, p := range pos {
			ok = ok || p == "deploy" || strings.HasSuffix(p, ":deploy") || strings.HasPrefix(p, "deploy:")
		}
	case "gradle", "gradlew":
		for _, p := range pos {
			task := p[strings.LastIndexByte(p, ':')+1:]
			ok = ok || strings.HasPrefix(task, "publish")
		}
	case "docker", "podman":
		if first("push") {
			if len(pos) > 1 {
				target = pos[1]
			}
			return KindPublish, target, true
		}
		ok = (first("build") || first("buildx")) && slices.Contains(args, "--push")
	}
	return KindPublish, "", ok
}

// git classifies a git invocation: push (unless a dry run), commit; other
// subcommands only for the ledger. dyn reports whether words[i] is computed
// at run time; viaXargs that xargs appends arguments from standard input.
func (c *classifier) git(words, args []string, dyn func(int) bool, viaXargs bool, depth int) {
	sub, rest := gitSubcommand(args)
	subAt := len(args) - len(rest) // index in words of the subcommand
	if rest != nil && dyn(subAt) || rest == nil && viaXargs {
		// git $x …: the subcommand is computed at run time; … | xargs
		// git: it comes from standard input.
		c.out.MayWrite = true
		c.addPossible(KindPush, c.text)
		return
	}
	if value, ok := gitAlias(args, sub); ok {
		c.gitInlineAlias(words, rest, value, viaXargs, depth)
		return
	}
	if !gitBuiltins[sub] {
		// Whether or not the run defines it, an alias could: Reuse
		// reclassifies the line when the run has aliases.
		c.out.GitNotBuiltin = true
	}
	if values := c.opts.Aliases[strings.ToLower(sub)]; len(values) > 0 && !gitBuiltins[sub] {
		c.gitRunAlias(words, rest, values, viaXargs, depth)
		return
	}
	if sub != "" && !gitReadOnly[sub] && !gitLocal[sub] || c.gitEnv || gitRunsOther(sub, args, rest) {
		// An alias (in .git/config, GIT_CONFIG_COUNT, include.path), a
		// program git runs, a subcommand that writes to a remote: not
		// proven harmless.
		c.out.MayShip = true
	}
	if c.gitEnv || gitRunsOther(sub, args, rest) {
		c.out.MayWrite = true
	}
	c.gitEffects(words, sub, rest)
}

// gitInlineAlias runs what git -c alias.p=push p … stands for.
func (c *classifier) gitInlineAlias(words, rest []string, value string, viaXargs bool, depth int) {
	c.out.MayWrite, c.out.MayShip = true, true
	if !c.expand(value) {
		c.addPossible(KindPush, c.text)
		return
	}
	if depth >= maxDepth {
		c.possible(value)
		return
	}
	c.gitAliasValue(words, rest, value, viaXargs, depth)
}

// gitRunAlias runs git p …, where the run defined alias.p with git config:
// each value it was given; what ships is possible (the definition may
// belong to another repository, or come later).
func (c *classifier) gitRunAlias(words, rest, values []string, viaXargs bool, depth int) {
	c.out.MayWrite, c.out.MayShip = true, true
	if !c.expand(values...) {
		c.addPossible(KindPush, c.text)
		return
	}
	found := len(c.out.Actions)
	for _, value := range values {
		if depth >= maxDepth {
			c.possible(value)
			continue
		}
		c.gitAliasValue(words, rest, value, viaXargs, depth)
	}
	for i := found; i < len(c.out.Actions); i++ {
		c.out.Actions[i].Possible = true
	}
}

// gitAliasValue classifies an alias's value run with the rest of the
// line: a shell command (!…) or git with the value's words.
func (c *classifier) gitAliasValue(words, rest []string, value string, viaXargs bool, depth int) {
	if strings.HasPrefix(value, "!") {
		c.script(strings.TrimPrefix(value, "!")+" "+strings.Join(rest, " "), depth+1)
		return
	}
	expanded := append(append([]string{words[0]}, strings.Fields(value)...), rest...)
	c.git(expanded, expanded[1:], func(int) bool { return false }, viaXargs, depth+1)
}

// gitKeepsWorkTree are the git subcommands that change no tracked file in
// the work tree (and push nothing).
var gitKeepsWorkTree = setOf(`status rev-parse rev-list fetch remote ls-files
	blame describe shortlog grep add tag notes reflog cat-file for-each-ref
	ls-remote show-ref merge-base name-rev count-objects help version worktree branch
	ls-tree check-ignore check-attr var show-branch cherry verify-commit verify-tag fsck`)

// gitEffects records what a built-in git subcommand does: a push (by
// push, send-pack or subtree push), a commit, a file written, a
// configuration that makes later git commands run a program.
func (c *classifier) gitEffects(words []string, sub string, rest []string) {
	switch sub {
	case "push":
		c.gitPush(words, rest)
	case "send-pack":
		c.gitSendPack(words, rest)
	case "subtree":
		c.gitSubtree(words, rest)
	case "commit":
		c.out.Commits++
	case "config":
		// (It changes no tracked file.)
		if gitConfigSetsProgram(rest) {
			// git config core.hooksPath …, core.fsmonitor …: later git
			// commands of the line may run what it names.
			c.gitEnv = true
		}
	case "log", "diff", "show", "format-patch", "range-diff", "diff-tree", "diff-files", "diff-index", "whatchanged":
		c.diffOutput(rest)
		if sub == "format-patch" {
			c.out.MayWrite = true
		}
	default:
		if sub != "" && !gitKeepsWorkTree[sub] {
			// checkout, switch, restore, reset, merge, pull, rebase, stash,
			// apply, cherry-pick, revert, am, rm, mv, clean, …: work-tree
			// changes we do not enumerate.
			c.out.MayWrite = true
		}
	}
}

// gitPush records what git push pushes, unless it is a dry run. (The
// operands stay in the step that pushes them: a slice returned would be
// allocated on the heap.)
func (c *classifier) gitPush(words, rest []string) {
	positional := []string{}
	dry := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-n" || a == "--dry-run":
			dry = true
		case a == "-o" || a == "--push-option" || a == "--repo" || a == "--receive-pack" || a == "--exec":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			positional = append(positional, a)
		}
	}
	if dry {
		return
	}
	c.push(words, rest, positional)
}

// gitSendPack records git send-pack [<host>:]<directory> <ref>…: a push by
// its plumbing.
func (c *classifier) gitSendPack(words, rest []string) {
	positional := []string{}
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case a == "--receive-pack" || a == "--exec":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			positional = append(positional, a)
		}
	}
	if slices.Contains(rest, "--dry-run") {
		return
	}
	c.push(words, rest, positional)
}

// gitSubtree records git subtree push --prefix=dir <repository> <ref>;
// any subtree command may write.
func (c *classifier) gitSubtree(words, rest []string) {
	positional := []string{}
	for i := 0; i < len(rest); i++ {
		switch a := rest[i]; {
		case a == "-P" || a == "--prefix" || a == "-m" || a == "--message":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			positional = append(positional, a)
		}
	}
	if len(positional) > 0 && positional[0] == "push" {
		c.push(words, rest, positional[1:])
	}
	c.out.MayWrite = true
}

// diffOutput records the file a diff option --output=F writes.
func (c *classifier) diffOutput(rest []string) {
	for i, a := range rest {
		switch {
		case strings.HasPrefix(a, "--output="):
			c.addWrite(strings.TrimPrefix(a, "--output="))
		case a == "--output" && i+1 < len(rest):
			c.addWrite(rest[i+1])
		case a == "--output":
			c.out.MayWrite = true
		}
	}
}

// push records a push with what it updates: the branch of its first refspec,
// or a tag. --tags and `tag NAME` push tags; --follow-tags pushes the branch
// and the tags it reaches (two actions).
func (c *classifier) push(words, rest, positional []string) {
	tags, follow := false, false
	for _, a := range rest {
		switch a {
		case "--tags":
			tags = true
		case "--follow-tags":
			follow = true
		}
	}
	target := strings.Join(positional, " ")
	var specs []string
	if len(positional) > 1 {
		specs = positional[1:]
	}
	if len(specs) >= 2 && specs[0] == "tag" {
		// git push origin tag v1 pushes refs/tags/v1.
		c.addRef(KindPush, "", RefTag, specs[1], words)
		return
	}
	if len(specs) > 0 {
		ref, kind := pushRef(specs[0])
		if kind == RefTag {
			c.addRef(KindPush, "", RefTag, ref, words)
		} else {
			c.addRef(KindPush, ref, RefBranch, target, words)
		}
	} else if !tags {
		c.addRef(KindPush, "", RefBranch, target, words)
	}
	if tags || follow {
		c.addRef(KindPush, "", RefTag, "--tags", words)
	}
}

// pushRef reads the destination of a refspec: the ref it updates and whether
// that is a branch or a tag. refs/tags/… is a tag, and so is a version-like
// name (v1.2.3, 1.2.0-rc1), which is how releases are tagged; anything else
// is taken as a branch.
func pushRef(spec string) (string, string) {
	spec = strings.TrimPrefix(spec, "+")
	if i := strings.LastIndexByte(spec, ':'); i >= 0 {
		spec = spec[i+1:]
	}
	switch {
	case strings.HasPrefix(spec, "refs/tags/"):
		return strings.TrimPrefix(spec, "refs/tags/"), RefTag
	case strings.HasPrefix(spec, "refs/heads/"):
		return strings.TrimPrefix(spec, "refs/heads/"), RefBranch
	case versionLike(spec):
		return spec, RefTag
	}
	return spec, RefBranch
}

// versionLike reports whether a ref name reads as a release version: an
// optional "v", then digits with at least one dot (v1.2, 1.2.3, v2.0.0-rc1).
func versionLike(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	dots, digits := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] >= '0' && s[i] <= '9':
			digits++
		case s[i] == '.' && digits > 0:
			dots++
		case (s[i] == '-' || s[i] == '+') && dots > 0:
			return true
		default:
			return false
		}
	}
	return dots > 0 && digits > 0 && s[len(s)-1] != '.'
}

// gitAlias returns what `git -c alias.NAME=VALUE NAME` stands for.
func gitAlias(args []string, sub string) (string, bool) {
	if sub == "" {
		return "", false
	}
	for i := 0; i+1 < len(args); i++ {
		if args[i] != "-c" {
			continue
		}
		k, v, ok := strings.Cut(args[i+1], "=")
		if ok && strings.EqualFold(k, "alias."+sub) {
			return v, true
		}
	}
	return "", false
}

// gitBuiltins are git's own commands: git runs a built-in before an alias
// of the same name, so no alias can redefine them.
var gitBuiltins = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`add am apply archive bisect blame branch bundle cat-file checkout
		cherry-pick clean clone commit config count-objects describe diff fetch for-each-ref format-patch
		fsck gc grep help init log ls-files ls-remote merge merge-base mv name-rev notes pull push rebase
		reflog remote reset restore rev-list rev-parse revert rm shortlog show show-ref sparse-checkout
		stash status submodule switch tag version worktree`) {
		m[s] = true
	}
	return m
}()

// ConfigAliases returns the git aliases a command line defines with `git
// config [--global|--local|--system|--worktree|--file F|--add|set] alias.NAME
// VALUE`, by lower-case name. Pass the aliases of every command of a run as
// Options.Aliases, so that a later `git NAME` is classified as what it runs.
func ConfigAliases(command string) map[string][]string {
	if !strings.Contains(command, "alias.") {
		return nil
	}
	f, _, err := shell.ParseBounded(command)
	if err != nil {
		return nil
	}
	var out map[string][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, 0, len(call.Args))
		for _, w := range call.Args {
			s, _ := shell.WordString(w)
			words = append(words, s)
		}
		words = shell.Unwrap(words)
		if len(words) == 0 || path.Base(words[0]) != "git" {
			return true
		}
		sub, rest := gitSubcommand(words[1:])
		if sub != "config" {
			return true
		}
		var pos []string
		for i := 0; i < len(rest); i++ {
			switch a := rest[i]; {
			case a == "--file" || a == "-f" || a == "--blob" || a == "--type" || a == "--comment" || a == "--value":
				i++
			case strings.HasPrefix(a, "-"):
			default:
				pos = append(pos, a)
			}
		}
		if len(pos) > 0 && (pos[0] == "set" || pos[0] == "--add") {
			pos = pos[1:]
		}
		if len(pos) >= 2 && len(pos[0]) > len("alias.") && strings.EqualFold(pos[0][:len("alias.")], "alias.") {
			if out == nil {
				out = map[string][]string{}
			}
			name := strings.ToLower(pos[0][len("alias."):])
			out[name] = append(out[name], pos[1])
		}
		return true
	})
	return out
}

// mergeAliases returns the union of two alias sets, each name's values in
// order and without repeats.
func mergeAliases(a, b map[string][]string) map[string][]string {
	if len(b) == 0 {
		return a
	}
	var u AliasUnion
	u.Add(a)
	u.Add(b)
	return u.Map()
}

// AliasUnion gathers git alias definitions: each name's values in the order
// first given, without repeats. Repeats are found through a set, not by
// searching the values: a run may give one alias a hundred thousand values.
type AliasUnion struct {
	m    map[string][]string
	seen map[[2]string]bool
}

// Add adds definitions (name to values, as ConfigAliases returns them).
func (u *AliasUnion) Add(defs map[string][]string) {
	for name, values := range defs {
		for _, v := range values {
			u.add(name, v)
		}
	}
}

// add adds one definition.
func (u *AliasUnion) add(name, v string) {
	k := [2]string{name, v}
	if u.seen[k] {
		return
	}
	if u.m == nil {
		u.m, u.seen = map[string][]string{}, map[[2]string]bool{}
	}
	u.seen[k] = true
	u.m[name] = append(u.m[name], v)
}

// Map is the union so far, nil when nothing was added.
func (u *AliasUnion) Map() map[string][]string { return u.m }

// gitSubcommand skips git's global options (-C dir, -c k=v, --git-dir …).
func gitSubcommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--exec-path" || a == "--config-env":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, args[i+1:]
		}
	}
	return "", nil
}

// gh classifies a GitHub CLI invocation.
func (c *classifier) gh(words, args []string) {
	sub, rest := ghSubcommand(args)
	switch sub {
	case "pr merge":
		c.add(KindMerge, "", firstPositional(rest), words)
	case "pr edit":
		c.ghAddLabels(words, rest)
	case "release create":
		c.add(KindRelease, "", firstPositional(rest), words)
	case "api":
		c.ghAPI(words, rest)
	}
	if !ghHarmless(sub, rest) {
		// (gh pr merge --delete-branch checks out the default branch.)
		c.out.MayShip, c.out.MayWrite = true, true
	}
	switch sub {
	case "pr checkout", "repo clone", "run download", "release download":
		c.out.MayWrite = true
	}
}

// ghAddLabels records a deploy for each deploy label gh pr edit
// --add-label adds.
func (c *classifier) ghAddLabels(words, rest []string) {
	for i := 0; i < len(rest); i++ {
		var labels string
		switch {
		case rest[i] == "--add-label" && i+1 < len(rest):
			labels = rest[i+1]
			i++
		case strings.HasPrefix(rest[i], "--add-label="):
			labels = strings.TrimPrefix(rest[i], "--add-label=")
		default:
			continue
		}
		for _, l := range strings.Split(labels, ",") {
			if c.isDeployLabel(strings.TrimSpace(l)) {
				c.add(KindDeploy, "", strings.TrimSpace(l), words)
			}
		}
	}
}

// ghAPI records what a gh api call ships through the REST or GraphQL API:
// a pull request merged, a branch merged, a ref moved.
func (c *classifier) ghAPI(words, rest []string) {
	method, endpoint := ghAPIRequest(rest)
	ep := strings.TrimSuffix(strings.SplitN(endpoint, "?", 2)[0], "/")
	m := strings.ToUpper(method)
	switch {
	case m == "PUT" && strings.HasSuffix(ep, "/merge"):
		c.add(KindMerge, "", endpoint, words)
	case (m == "POST" || m == "" && ghAPIHasFields(rest)) && strings.HasSuffix(ep, "/merges"):
		c.add(KindMerge, "", endpoint, words)
	case m != "GET" && (m != "" || ghAPIHasFields(rest)) && strings.Contains(ep+"/", "/git/refs/"):
		// POST …/git/refs creates a ref, PATCH …/git/refs/heads/main
		// moves one, DELETE removes one: a push by the REST API.
		ref := ep[strings.Index(ep+"/", "/git/refs/")+len("/git/refs"):]
		ref = strings.TrimPrefix(ref, "/")
		switch {
		case strings.HasPrefix(ref, "tags/"):
			c.addRef(KindPush, "", RefTag, strings.TrimPrefix(ref, "tags/"), words)
		default:
			c.addRef(KindPush, strings.TrimPrefix(ref, "heads/"), RefBranch, endpoint, words)
		}
	case strings.Trim(ep, "/") == "graphql" && ghGraphQLMerges(rest):
		c.add(KindMerge, "", "graphql", words)
	}
}

// ghAPIRequest reads gh api's method (as given; empty when none is) and
// endpoint (its first operand).
func ghAPIRequest(rest []string) (method, endpoint string) {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-X" || a == "--method":
			if i+1 < len(rest) {
				method = rest[i+1]
				i++
			}
		case strings.HasPrefix(a, "--method="):
			method = strings.TrimPrefix(a, "--method=")
		case strings.HasPrefix(a, "-X") && len(a) > 2:
			method = a[2:]
		case ghAPIFieldOptions[a] || a == "--input" || ghAPIValuedOptions[a]:
			i++
		case strings.HasPrefix(a, "-"):
		case endpoint == "":
			endpoint = a
		}
	}
	return method, endpoint
}

// ghAPIHasFields reports whether gh api sends fields or a body (its method
// is then POST unless given).
func ghAPIHasFields(rest []string) bool {
	for _, a := range rest {
		switch a {
		case "-f", "-F", "--field", "--raw-field", "--input":
			return true
		}
	}
	return false
}

// ghGraphQLMerges reports whether a GraphQL call's fields name a mutation
// that merges a pull request (mergePullRequest, enablePullRequestAutoMerge,
// a merge queue's enqueuePullRequest).
func ghGraphQLMerges(rest []string) bool {
	for _, a := range rest {
		for _, m := range []string{"mergepullrequest", "enablepullrequestautomerge", "enqueuepullrequest", "mergebranch"} {
			if strings.Contains(strings.ToLower(a), m) {
				return true
			}
		}
	}
	return false
}

// ghSubcommand returns "pr merge", "api", "release create", … skipping the
// global -R/--repo option.
func ghSubcommand(args []string) (string, []string) {
	var parts []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-R" || a == "--repo":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			parts = append(parts, a)
			if len(parts) == 1 && a == "api" {
				return "api", args[i+1:]
			}
			if len(parts) == 2 {
				return parts[0] + " " + parts[1], args[i+1:]
			}
		}
	}
	return strings.Join(parts, " "), nil
}

func (c *classifier) isDeployLabel(l string) bool {
	for _, d := range c.opts.DeployLabels {
		if strings.EqualFold(d, l) {
			return true
		}
	}
	return false
}

func (c *classifier) add(kind, branch, target string, words []string) {
	c.out.MayShip = true
	c.out.Actions = append(c.out.Actions, Action{Kind: kind, Branch: branch, Target: target, Command: strings.Join(words, " ")})
}

func (c *classifier) addRef(kind, branch, refKind, target string, words []string) {
	c.out.MayShip = true
	c.out.Actions = append(c.out.Actions, Action{Kind: kind, Branch: branch, Target: target, RefKind: refKind, Command: strings.Join(words, " ")})
}

// smallWrites is how many writes are recorded before a set holds them.
const smallWrites = 16

// countWriteLookups, when a test sets it, is told how many recorded writes
// each addWrite looks at.
var countWriteLookups func(n int)

func (c *classifier) addWrite(p string) {
	if p == "" {
		return // `> ''` names no file: the shell fails to open it, nothing is written
	}
	if gitControlPath(p) {
		// A hook, .git/config or attributes written here: what git runs
		// later in the line is not what the line shows.
		c.gitEnv = true
	}
	if c.findExecs > 0 && strings.Contains(p, "{}") {
		// find -exec rm {} +: the files find finds, not a file named {}.
		c.out.MayWrite = true
		return
	}
	if c.written == nil && len(c.out.Writes) < smallWrites {
		// Few writes, the common case: a scan, and no set to allocate.
		if countWriteLookups != nil {
			countWriteLookups(len(c.out.Writes))
		}
		if slices.Contains(c.out.Writes, p) {
			return
		}
		c.out.Writes = append(c.out.Writes, p)
		return
	}
	if c.written == nil {
		c.written = make(map[string]bool, 2*len(c.out.Writes))
		for _, w := range c.out.Writes {
			c.written[w] = true
		}
	}
	if countWriteLookups != nil {
		countWriteLookups(1)
	}
	if c.written[p] {
		return
	}
	c.written[p] = true
	c.out.Writes = append(c.out.Writes, p)
}

// readOnly programs write no file unless redirected (redirections are
// handled separately), whatever their arguments; the programs writes
// checks option by option (sort -o, uniq IN OUT, tree -o, curl -o, awk's
// print > F) are not listed. Anything else may write.
var readOnly = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true, "egrep": true, "fgrep": true,
	"ag": true, "echo": true, "printf": true, "pwd": true, "cd": true, "pushd": true, "popd": true,
	"which": true, "type": true, "test": true, "[": true, "[[": true, "true": true, "false": true, "sleep": true,
	"date": true, "stat": true, "du": true, "df": true, "jq": true,
	"cut": true, "tr": true, "diff": true, "cmp": true, "basename": true,
	"dirname": true, "realpath": true, "readlink": true, "ps": true, "whoami": true, "uname": true, "id": true,
	"less": true, "more": true, "nl": true, "column": true, "comm": true, "md5sum": true, "sha256sum": true,
	"shasum": true, "hostname": true, "env": true, "printenv": true, "export": true, "set": true, "unset": true,
	"exit": true, "return": true, "read": true, "wait": true, "kill": true,
	"od": true, "hexdump": true, "locate": true,
	"alias": true, "local": true, "declare": true, "shift": true, "seq": true, "yes": true,
	"pgrep": true, "lsof": true, "nproc": true, "strings": true, "tac": true, "rev": true, "paste": true, "join": true,
	"fold": true, "base64": true, "sha1sum": true, "sha512sum": true, "cksum": true, "bat": true, ":": true,
}

// writes records what a non-git, non-gh program writes. dyn.at(i) reports
// whether args[i] is computed at run time: a program whose writes depend
// on its options may write anything then.
func (c *classifier) writes(name string, args []string, dyn computed) {
	anyDyn := false
	for i := range args {
		anyDyn = anyDyn || dyn.at(i)
	}
	switch name {
	case "tee", "touch", "rm", "truncate", "shred", "unlink":
		for _, a := range operands(args) {
			c.addWrite(a)
		}
	case "cp", "mv", "install", "ln", "rsync":
		c.copyWrites(name, args)
	case "sed", "perl":
		c.editWrites(name, args, anyDyn)
	case "mkdir", "rmdir":
		// Directories only; no file content changes.
	case "find":
		for _, a := range args {
			if findWrites[a] || strings.HasPrefix(a, "-fprint") {
				c.out.MayWrite = true
			}
		}
	case "sort":
		c.sortWrites(args, dyn)
	case "uniq":
		c.uniqWrites(args, dyn)
	case "tree":
		c.treeWrites(args, dyn)
	case "xxd":
		// xxd IN OUT writes OUT.
		if ops := operands(args); len(ops) >= 2 {
			c.addWrite(ops[1])
		} else if anyDyn {
			c.out.MayWrite = true
		}
	case "curl", "wget", "awk", "gawk", "mawk", "nawk":
		// curl prints to standard output unless told to write a file;
		// wget saves a file unless -O - (or --spider).
		if anyDyn || !readOnlyByArgs[name](args) {
			c.out.MayWrite = true
		}
	case "file", "rg", "fd", "yq", "history":
		for i, a := range args {
			if dyn.at(i) || optionWrites(name, a) {
				c.out.MayWrite = true
			}
		}
	default:
		if !readOnly[name] {
			c.out.MayWrite = true
		}
	}
}

// copyWrites records the destination of cp, mv, install, ln and rsync: its
// last operand, and files we cannot name in a directory destination.
func (c *classifier) copyWrites(name string, args []string) {
	ops := operands(args)
	if len(ops) >= 2 {
		c.addWrite(ops[len(ops)-1])
	} else {
		c.out.MayWrite = true
	}
	if name == "cp" || name == "rsync" || name == "mv" {
		// A directory destination receives files we cannot name.
		if len(ops) >= 2 && strings.HasSuffix(ops[len(ops)-1], "/") {
			c.out.MayWrite = true
		}
	}
}

// editWrites records what sed and perl write: the files they edit in
// place, and a possible write for what their script may do.
func (c *classifier) editWrites(name string, args []string, anyDyn bool) {
	inPlace := false
	for _, a := range args {
		if strings.HasPrefix(a, "-i") || a == "--in-place" || strings.HasPrefix(a, "--in-place=") ||
			name == "perl" && strings.HasPrefix(a, "-") && strings.Contains(a, "i") {
			inPlace = true
		}
	}
	if inPlace {
		ops := operands(args)
		if len(ops) >= 2 {
			for _, a := range ops[1:] {
				c.addWrite(a)
			}
		} else {
			c.out.MayWrite = true
		}
	}
	if name == "perl" || anyDyn || !sedReadOnly(args) {
		// s///w FILE, w FILE, e COMMAND: sed writes or runs more; a
		// perl program may write any file.
		c.out.MayWrite = true
	}
}

// findWrites are find's actions that delete, write a file or run a
// command (beside -fprint…).
var findWrites = setOf(`-delete -exec -execdir -ok -okdir -fls`)

// sortWrites records the file sort -o F, -oF, -uo F, --output=F and
// --output F write.
func (c *classifier) sortWrites(args []string, dyn computed) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case dyn.at(i):
			c.out.MayWrite = true
		case a == "--output" && i+1 < len(args):
			c.addWrite(args[i+1])
			i++
		case strings.HasPrefix(a, "--output="):
			c.addWrite(strings.TrimPrefix(a, "--output="))
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			if j := strings.IndexByte(a, 'o'); j > 0 {
				if j+1 < len(a) {
					c.addWrite(a[j+1:])
				} else if i+1 < len(args) {
					c.addWrite(args[i+1])
					i++
				} else {
					c.out.MayWrite = true
				}
			}
		}
	}
}

// uniqWrites records what uniq [IN [OUT]] writes: a second operand. -f, -s
// and -w take a value.
func (c *classifier) uniqWrites(args []string, dyn computed) {
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case dyn.at(i):
			c.out.MayWrite = true
		case a == "-f" || a == "-s" || a == "-w":
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) >= 2 && ops[1] != "-" {
		c.addWrite(ops[1])
	}
}

// treeWrites records what tree writes: -o F writes F; -R with -H writes a
// page in every folder.
func (c *classifier) treeWrites(args []string, dyn computed) {
	for i, a := range args {
		switch {
		case dyn.at(i) || a == "-R":
			c.out.MayWrite = true
		case a == "-o" && i+1 < len(args):
			c.addWrite(args[i+1])
		case a == "-o":
			c.out.MayWrite = true
		}
	}
}

// readOnlyByArgs say whether a program that writes a file only when its
// (static) arguments tell it to writes none.
var readOnlyByArgs = map[string]func(args []string) bool{
	"curl": curlReadOnly, "wget": wgetReadOnly,
	"awk": awkReadOnly, "gawk": awkReadOnly, "mawk": awkReadOnly, "nawk": awkReadOnly,
}

// optionWrites reports whether the argument a makes file, rg, fd, yq or
// history write or run more: file -C (--compile) compiles a magic file, rg
// --pre and fd -x run a command on each file, yq -i edits in place,
// history -w writes the history file.
func optionWrites(name, a string) bool {
	if a == "--compile" {
		return true
	}
	switch name {
	case "file":
		return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "C")
	case "rg":
		return strings.HasPrefix(a, "--pre")
	case "fd":
		return a == "-x" || a == "-X" || strings.HasPrefix(a, "--exec")
	case "yq":
		return a == "-i" || strings.HasPrefix(a, "--inplace")
	case "history":
		return a == "-w" || a == "-a"
	}
	return false
}

// curlReadOnly reports whether curl with static args writes no file: no
// -o, -O, -D, -c, -K (or a short cluster holding one), and none of the
// long options that name a file to write.
func curlReadOnly(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "--") {
			for _, o := range []string{"--output", "--remote-name", "--dump-header", "--cookie-jar", "--trace",
				"--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc", "--config", "--create-dirs", "--output-dir"} {
				if strings.HasPrefix(a, o) {
					return false
				}
			}
			continue
		}
		if len(a) > 1 && a[0] == '-' && strings.ContainsAny(a[1:], "oODcK") {
			return false
		}
	}
	return true
}

// wgetReadOnly reports whether wget prints what it fetches (-O -, -qO-,
// --output-document=-) or fetches nothing (--spider), and writes no log.
func wgetReadOnly(args []string) bool {
	stdout := false
	for i, a := range args {
		switch {
		case a == "--spider" || a == "--output-document=-" || a == "-O-" || a == "-qO-":
			stdout = true
		case (a == "-O" || a == "-qO" || a == "--output-document") && i+1 < len(args) && args[i+1] == "-":
			stdout = true
		case a == "-o" || a == "-a" || strings.HasPrefix(a, "--output-file") || strings.HasPrefix(a, "--append-output") ||
			strings.HasPrefix(a, "-P") || strings.HasPrefix(a, "--directory-prefix"):
			return false
		}
	}
	return stdout
}

// awkReadOnly reports whether an awk program, given inline, neither writes
// a file nor runs a command: no >, no |, no system, and no program file or
// in-place edit (-f, -i, -E, --include, --file).
func awkReadOnly(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-F" || a == "-v":
			i++
		case strings.HasPrefix(a, "-F") || strings.HasPrefix(a, "-v"):
		case a == "--":
		case strings.HasPrefix(a, "-"):
			return false // -f FILE, -i inplace, -E, --include and the rest
		default:
			return !strings.ContainsAny(a, ">|") && !strings.Contains(a, "system")
		}
	}
	return false
}

// sedReadOnly reports whether sed's scripts write no file and run no
// command: their commands, outside the regular expressions and
// replacements of s and y, are none of w, W and e, and no s has the w or
// e flag. A script read from a file (-f) is not shown.
func sedReadOnly(args []string) bool {
	var scripts []string
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
			}
			explicit = true
			i++
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
			explicit = true
		case a == "-f" || strings.HasPrefix(a, "--file") || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "fe") && !strings.HasPrefix(a, "-i"):
			return false
		case strings.HasPrefix(a, "-"):
		case !explicit:
			scripts = append(scripts, a)
			explicit = true
		}
	}
	for _, s := range scripts {
		if !sedScriptReadOnly(s) {
			return false
		}
	}
	return true
}

// sedScriptReadOnly reads one sed script: the commands between addresses,
// skipping the delimited parts of addresses, s and y.
func sedScriptReadOnly(s string) bool {
	for i := 0; i < len(s); {
		switch ch := s[i]; {
		case ch == '/' || ch == '\\' && i+1 < len(s):
			// An address /re/ or \cREc.
			if ch == '\\' {
				i++
			}
			if i = sedSkip(s, i); i < 0 {
				return false
			}
		case ch == 's' || ch == 'y':
			var ok bool
			if i, ok = sedReplace(s, i); !ok {
				return false
			}
		case ch == 'w' || ch == 'W' || ch == 'e':
			return false
		case ch == 'b' || ch == 't' || ch == 'T' || ch == ':':
			// A label: to the end of the command.
			i = sedUpTo(s, i, "\n;")
		case ch == 'a' || ch == 'i' || ch == 'c' || ch == 'r' || ch == 'R' || ch == '#':
			// Text, a file read or a comment: to the end of the line.
			i = sedUpTo(s, i, "\n")
		default:
			i++
		}
	}
	return true
}

// sedSkip returns the index after the text delimited by s[i] (a regular
// expression or a replacement), or -1.
func sedSkip(s string, i int) int {
	d := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case d:
			return j + 1
		}
	}
	return -1
}

// sedReplace reads the s or y command at s[i], its two delimited parts
// and its flags up to the end of the command, and returns where it ends;
// ok is false when it does not end or is an s with the w or e flag.
func sedReplace(s string, i int) (int, bool) {
	ch := s[i]
	if i+1 >= len(s) {
		return i, false
	}
	j := sedSkip(s, i+1)
	if j < 0 {
		return i, false
	}
	if j = sedSkip(s, j-1); j < 0 {
		return i, false
	}
	// Flags up to the end of the command.
	for j < len(s) && s[j] != ';' && s[j] != '\n' && s[j] != '}' {
		if ch == 's' && (s[j] == 'w' || s[j] == 'W' || s[j] == 'e') {
			return i, false
		}
		j++
	}
	return j, true
}

// sedUpTo returns the index in s of the first of stops from i on, or the
// end of s.
func sedUpTo(s string, i int, stops string) int {
	for i < len(s) && strings.IndexByte(stops, s[i]) < 0 {
		i++
	}
	return i
}

// operands are the non-option arguments (everything after "--" counts).
func operands(args []string) []string {
	var out []string
	dashdash := false
	for _, a := range args {
		if !dashdash && a == "--" {
			dashdash = true
			continue
		}
		if !dashdash && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

func firstPositional(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-R" || a == "--repo" || a == "-t" || a == "--title" || a == "-n" || a == "--notes" || a == "-b" || a == "--body" {
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

// hasShortFlag reports a combined short flag such as -lc or -ec.
func hasShortFlag(args []string, f byte) bool { return firstShortFlagWith(args, f) >= 0 }

func firstShortFlagWith(args []string, f byte) int {
	for i, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f) >= 0 {
			return i
		}
		if !strings.HasPrefix(a, "-") {
			return -1
		}
	}
	return -1
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isDevice(p string) bool {
	return p == "/dev/null" || p == "/dev/stderr" || p == "/dev/stdout" || p == "/dev/tty" || strings.HasPrefix(p, "/dev/fd/")
}

// verbIndex finds the ship verbs named in any slice of one source, as
// shipVerb finds them in the slice, without reading the slice. The texts
// of nested statements hold one another ($($($(… $CMD)))): reading each
// to find its verb was quadratic in the line.
type verbIndex struct {
	src   string
	built bool
	// boundary[i]: a rune of src, as lower-casing decodes it, starts at
	// byte i (or i is len(src)). A slice between boundaries lower-cases
	// to the lower-cased runes of src it spans.
	boundary []bool
	// starts[v] are the byte offsets where shipVerbs[v] starts in src
	// lower-cased, in order; minEnd[v][k] is the least end offset of the
	// matches from starts[v][k] on.
	starts, minEnd [][]int
}

// verb returns what shipVerb(src[from:to]) does.
func (x *verbIndex) verb(from, to int) (string, bool) {
	x.build()
	if from < 0 || to > len(x.src) || from > to || !x.boundary[from] || !x.boundary[to] {
		return shipVerb(x.src[from:to])
	}
	for v, starts := range x.starts {
		k, _ := slices.BinarySearch(starts, from)
		if k < len(starts) && x.minEnd[v][k] <= to {
			return shipVerbs[v].kind, true
		}
	}
	return "", false
}

func (x *verbIndex) build() {
	if x.built {
		return
	}
	x.built = true
	// Lower-case rune by rune as strings.ToLower does; an invalid byte is
	// one rune that is no letter. A verb is ASCII, and no byte of a
	// multi-byte rune is ASCII, so a match is a run of runes that each
	// lower-case to the verb's letters.
	var lower []rune
	var at []int // at[k]: byte offset of lower[k]
	x.boundary = make([]bool, len(x.src)+1)
	for i := 0; i < len(x.src); {
		r, size := utf8.DecodeRuneInString(x.src[i:])
		x.boundary[i] = true
		lower = append(lower, unicode.ToLower(r))
		at = append(at, i)
		i += size
	}
	x.boundary[len(x.src)] = true
	at = append(at, len(x.src))
	x.starts = make([][]int, len(shipVerbs))
	x.minEnd = make([][]int, len(shipVerbs))
	for v, verb := range shipVerbs {
		var starts, ends []int
	next:
		for k := 0; k+len(verb.word) <= len(lower); k++ {
			for j := 0; j < len(verb.word); j++ {
				if lower[k+j] != rune(verb.word[j]) {
					continue next
				}
			}
			starts = append(starts, at[k])
			ends = append(ends, at[k+len(verb.word)])
		}
		for k := len(ends) - 2; k >= 0; k-- {
			ends[k] = min(ends[k], ends[k+1])
		}
		x.starts[v], x.minEnd[v] = starts, ends
	}
}
