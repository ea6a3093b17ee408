package ship

import (
	"path"
	"strings"

	"github.com/pmcheck/pmcheck/analyze/shell"
	"mvdan.cc/sh/v3/syntax"
)

// Commands a line runs without naming them as commands of its own: the
// script a shell reads from standard input (a here-document, or the
// output of echo, printf or cat piped to it), the command find -exec
// runs, and the value of a shell alias the line defined. Each is
// classified as what it runs, within the classifier's bounds (maxDepth
// levels, shell.MaxNesting, the alias budget).

// readsScriptFromStdin reports whether a shell given args (and no -c)
// reads its script from standard input: with -s, or with no operand
// naming a script file. Options are skipped with their values (-o
// pipefail, +O extglob, --rcfile FILE).
func readsScriptFromStdin(args []string) bool {
	stdin := false // -s
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			return stdin || i+1 == len(args)
		case a == "--rcfile" || a == "--init-file":
			i++
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if a[0] == '-' && strings.IndexByte(a, 's') > 0 {
				stdin = true
			}
			// Each o or O takes the next word (-o pipefail, -eo pipefail).
			i += strings.Count(a[1:], "o") + strings.Count(a[1:], "O")
		default:
			return stdin // an operand: the script's file, unless -s
		}
	}
	return true
}

// stdinRedir reports whether r redirects standard input.
func stdinRedir(r *syntax.Redirect) bool { return r.N == nil || r.N.Value == "0" }

// stdinScript classifies the script a shell reads from standard input,
// when the statement shows it: a here-document or here-string, or the
// command piped into the shell. It reports whether there was one.
func (c *classifier) stdinScript(ctx *stmtContext, depth int) bool {
	switch {
	case ctx.hasHeredoc:
		c.stdinText(ctx.heredoc, ctx.heredocStatic, depth, func() {
			c.computed(ctx.text+"\n"+ctx.heredoc, 0, 0, 0)
		})
		return true
	case ctx.pipeFrom != nil:
		shown := func() {
			if ctx.pipeText != "" {
				c.computed(ctx.pipeText, c.srcScript, ctx.pipeTextFrom, ctx.to)
			} else {
				c.computed(ctx.text, 0, 0, 0)
			}
		}
		text, static, ok := c.producerOutput(ctx.pipeFrom)
		if !ok {
			// curl … | sh, cat file | sh, { …; } | sh: the script is
			// computed at run time, so its commands are.
			shown()
			return true
		}
		c.stdinText(text, static, depth, shown)
		return true
	}
	return false
}

// stdinText classifies text as a shell's script. When parts of it are
// computed at run time (static false), text holds the static parts: what
// they show counts, as for eval, and when they show nothing the script
// is a computed command (computed records it).
func (c *classifier) stdinText(text string, static bool, depth int, computed func()) {
	found := len(c.out.Actions)
	c.script(text, depth+1)
	if !static {
		c.out.MayWrite = true
		if len(c.out.Actions) == found {
			computed()
		}
	}
}

// producerOutput returns what the command of st prints, when its words
// show it: echo's arguments, printf's format applied to its arguments,
// the here-document cat copies. static is false when some words are
// computed at run time (the text then holds their static parts); ok is
// false for any other command, a computed format, or a printf directive
// other than %s, %b and %%.
func (c *classifier) producerOutput(st *syntax.Stmt) (text string, static, ok bool) {
	call, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || len(call.Args) == 0 {
		return "", false, false
	}
	words := make([]string, len(call.Args))
	static = true
	size := 0
	for i, w := range call.Args {
		s, ok := shell.WordString(w)
		if !ok {
			if i <= 1 {
				// A computed program, or a computed echo flag or printf
				// format: what it prints is not in the line.
				return "", false, false
			}
			static = false
		}
		words[i] = s
		size += len(s)
	}
	switch path.Base(words[0]) {
	case "echo":
		return shell.EchoOutput(words[1:]), static, true
	case "printf":
		// A format reused for many arguments repeats its text: the output
		// is bounded by four times its words' bytes, and all printf
		// output on the line by printfBudget, so that the scripts a line
		// runs stay about as long as the line, however deep they nest (a
		// longer output is computed).
		text, ok := shell.PrintfOutput(words[1:], min(4*size+256, c.printfBudget))
		if ok {
			c.printfBudget -= len(text)
		}
		return text, static, ok
	case "cat":
		if len(words) > 2 || len(words) == 2 && words[1] != "-" {
			// Files or options (cat -n numbers lines): not shown.
			return "", false, false
		}
		heredoc, heredocStatic, has := "", false, false
		for _, r := range st.Redirs {
			switch {
			case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil && stdinRedir(r):
				heredoc, heredocStatic = shell.WordString(r.Hdoc)
				has = true
			case r.Op == syntax.WordHdoc && r.Word != nil && stdinRedir(r):
				heredoc, heredocStatic = shell.WordString(r.Word)
				has = true
			case (r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut) && stdinRedir(r):
				has = false
			}
		}
		if !has {
			return "", false, false
		}
		return heredoc, static && heredocStatic, true
	}
	return "", false, false
}

// findExec classifies the commands find runs: the words after each
// -exec, -execdir, -ok and -okdir up to its ; (or a + after {}). dyn
// reports whether args[i] is computed at run time.
func (c *classifier) findExec(args []string, dyn func(int) bool, depth int) {
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && args[j] != ";" && (args[j] != "+" || j == i+1 || args[j-1] != "{}") {
			j++
		}
		inner := args[i+1 : j]
		if depth >= maxDepth {
			// find -exec find -exec …: nested deeper than we follow.
			c.out.MayWrite = true
			c.possible(strings.Join(inner, " "))
		} else if len(inner) > 0 {
			computed := make([]bool, len(inner))
			static := true
			for k := range inner {
				computed[k] = dyn(i + 1 + k)
				static = static && !computed[k]
			}
			c.findExecs++
			c.call(inner, computed, nil, depth+1, static)
			c.findExecs--
		}
		i = j
	}
}

// defineAliases records the shell aliases `alias NAME=VALUE …` defines.
// dyn reports whether args[i] is computed at run time: its value is then
// computed too.
func (c *classifier) defineAliases(args []string, dyn func(int) bool) {
	for i, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" || strings.HasPrefix(a, "-") {
			continue // alias -p, alias NAME (prints it), alias =x
		}
		if dyn(i) {
			if c.computedAliases == nil {
				c.computedAliases = map[string]bool{}
			}
			c.computedAliases[name] = true
			continue
		}
		c.aliases.add(name, value)
	}
}

// aliasUse classifies a command whose first word is a shell alias the
// line defined before it, and reports whether it was one. Each value the
// alias was given runs with the rest of the command after it (as bash
// substitutes the text); what that ships is possible, since bash expands
// an alias only with expand_aliases set and on a line read after the
// definition. Either way the command may write. The values share the git
// aliases' budget (expand): past it, a use is one possible push.
func (c *classifier) aliasUse(words []string, ctx *stmtContext, depth int) bool {
	name := words[0]
	values := c.aliases.m[name]
	if len(values) == 0 && !c.computedAliases[name] || c.expandingAliases[name] {
		return false
	}
	text, script, from, to := strings.Join(words, " "), 0, 0, 0
	rest := " " + strings.Join(words[1:], " ")
	if ctx != nil && ctx.text != "" {
		text, script, from, to = ctx.text, c.srcScript, ctx.from, ctx.to
		rest = ctx.rest
	}
	c.out.MayWrite = true
	found := len(c.out.Actions)
	if c.computedAliases[name] {
		c.computed(text, script, from, to)
	}
	if c.expandingAliases == nil {
		c.expandingAliases = map[string]bool{}
	}
	c.expandingAliases[name] = true
	for _, v := range values {
		line := v + rest
		if !c.expand(line) {
			c.addPossible(KindPush, text)
			break
		}
		if depth >= maxDepth {
			c.possible(line)
			continue
		}
		c.script(line, depth+1)
	}
	delete(c.expandingAliases, name)
	for i := found; i < len(c.out.Actions); i++ {
		c.out.Actions[i].Possible = true
	}
	return true
}
