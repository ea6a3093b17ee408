package ship

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands a line runs without naming them as commands of its own: the
// script a shell reads from standard input (a here-document, or the
// output of echo, printf or cat piped to it), the command find -exec
// runs, and the value of a shell alias the line defined. Each is
// classified as what it runs, within the classifier's bounds (maxDepth
// levels, maxNesting, the alias budget).

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
		s, ok := wordString(w)
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
		return echoOutput(words[1:]), static, true
	case "printf":
		// A format reused for many arguments repeats its text: the output
		// is bounded by four times its words' bytes, and all printf
		// output on the line by printfBudget, so that the scripts a line
		// runs stay about as long as the line, however deep they nest (a
		// longer output is computed).
		text, ok := printfOutput(words[1:], min(4*size+256, c.printfBudget))
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
				heredoc, heredocStatic = wordString(r.Hdoc)
				has = true
			case r.Op == syntax.WordHdoc && r.Word != nil && stdinRedir(r):
				heredoc, heredocStatic = wordString(r.Word)
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

// echoOutput is what echo prints for args. Its escapes are decoded unless
// -E says not to: bash's echo decodes them only with -e, but zsh's and
// dash's always do, and reading them decoded fails toward reporting.
func echoOutput(args []string) string {
	newline, decode := true, true
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, f := range a[1:] {
			switch f {
			case 'n':
				newline = false
			case 'e':
				decode = true
			case 'E':
				decode = false
			}
		}
	}
	text := strings.Join(args[i:], " ")
	if decode {
		out, stop := decodeEscapes(text, escEcho)
		if stop {
			return out // \c: nothing more, not even the newline
		}
		text = out
	}
	if newline {
		text += "\n"
	}
	return text
}

// printfOutput is what printf prints for args: the format's escapes
// decoded, %s and %b replaced by arguments (%b's escapes decoded), %% by
// %, the format reused while arguments remain. ok is false for an option
// (-v), another directive, or an output longer than limit.
func printfOutput(args []string, limit int) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", false
	}
	format, args := args[0], args[1:]
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); {
			switch format[i] {
			case '\\':
				i, _ = escapeAt(&b, format, i, escFormat)
			case '%':
				if i+1 >= len(format) {
					return "", false
				}
				switch d := format[i+1]; d {
				case '%':
					b.WriteByte('%')
				case 's', 'b':
					arg := ""
					if len(args) > 0 {
						arg, args = args[0], args[1:]
						used++
					}
					if d == 's' {
						b.WriteString(arg)
						break
					}
					out, stop := decodeEscapes(arg, escEcho)
					b.WriteString(out)
					if stop {
						return b.String(), b.Len() <= limit
					}
				default:
					return "", false
				}
				i += 2
			default:
				b.WriteByte(format[i])
				i++
			}
			if b.Len() > limit {
				return "", false
			}
		}
		if used == 0 || len(args) == 0 {
			return b.String(), true
		}
	}
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
