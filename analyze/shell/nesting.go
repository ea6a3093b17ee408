package shell

import "strings"

// The shell parser recurses once for each level a command line nests —
// subshells, command substitutions, blocks, if/while/case, arithmetic,
// [[ ]] tests, time/coproc prefixes, function bodies — with kilobytes of
// stack a level and no limit. A 64 KiB line of 60,000 `(` took 0.35 s
// and 426 MB of stack to parse; a hook command of 800 KB crashed the
// process with a stack overflow. Transcripts are untrusted, so a line is
// not parsed when nestingBound says it may nest deeper than MaxNesting:
// ParseBounded refuses it (ErrTooDeep), and the classifier reads it as a
// line the parser rejects.

// MaxNesting bounds the nesting a line may have and still be parsed.
// Real commands nest a handful of levels (a commit message in
// $(cat <<'EOF' …) inside a chain is three); 256 levels cost the parser
// about 1 MB of stack.
const MaxNesting = 256

// nestingBound returns an upper bound of how deeply the parser nests on
// src, or some value above limit once the bound passes it. It scans src
// once with a small lexer that knows what the parser reads as literal text
// (quotes, comments, here-document bodies, extended globs) and counts the
// openers and closers of everything else. Opening is counted generously
// (a keyword anywhere a command may start opens, whether or not the parser
// takes it as one); closing only where the parser certainly closes, or
// where it would stop at a syntax error if it did not (its depth is then
// no longer growing). So the count is never below the parser's depth
// (FuzzNestingBound).
func nestingBound(src string, limit int) int {
	if len(src) <= limit {
		// Every level takes at least one byte.
		return len(src)
	}
	return scanNesting(src, limit)
}

// scanNesting is nestingBound without the shortcut for short lines.
func scanNesting(src string, limit int) int {
	if strings.IndexByte(src, 0) >= 0 {
		// The parser skips NUL bytes, but not when it looks ahead (!\x00(
		// is no extended glob): no command holds one, so take the
		// bound every line has, a level a byte at most.
		return len(src)
	}
	s := nestScanner{src: asParsed(src), limit: limit}
	s.scan()
	return s.max
}

// frameKind is what a frame of the scanner's stack is inside.
type frameKind uint8

const (
	fRoot       frameKind = iota
	fParen                // ( $( <( >( : a subshell, substitution, array or a function's ()
	fBackquote            // `…`
	fBrace                // { …; }
	fIf                   // if … fi
	fLoop                 // while/until/for/select … done
	fCase                 // case … esac
	fTest                 // [[ … ]]
	fTestParen            // ( … ) inside [[ ]]
	fDquote               // "…" and $"…"
	fHeredoc              // the body of an unquoted here-document
	fParam                // ${…}
	fArith                // $(( … )) and (( … ))
	fArithBrack           // $[ … ]
	fArithParen           // ( … ) in arithmetic
	fIndex                // [ … ]: an array index, arithmetic
	fLet                  // let …, arithmetic to the end of the command
)

// mode is how a frame's content is read.
func (k frameKind) mode() byte {
	switch k {
	case fDquote, fHeredoc:
		return 'q'
	case fParam:
		return 'p'
	case fArith, fArithBrack, fArithParen, fIndex, fLet:
		return 'a'
	}
	return 's' // shell
}

type frame struct {
	kind frameKind
	// ops counts constructs that nest without a closer of their own
	// (time, coproc, f(), arithmetic and test operators, nested
	// backquotes): they end no later than their frame, and those of a
	// shell frame at the end of its statement.
	ops int
	// delim and dash describe a here-document body (fHeredoc).
	delim string
	dash  bool
	// open is where the frame's content starts.
	open int
	// subshell: a ( at a command's start, after which a command may end.
	subshell bool
	// The scanner's command state when the frame opened, restored when it
	// closes: a frame opened inside a word continues that word.
	inWord, mayStart, cmdStart, keepStart, redirTarget bool
}

type heredoc struct {
	delim          string
	quoted, dashed bool
}

type nestScanner struct {
	src   string
	i     int
	stack []frame
	ops   int // the sum of the frames' ops
	max   int
	limit int
	// mayStart: a keyword here may open a compound command (generous);
	// cmdStart: a closing keyword here closes one (strict).
	mayStart, cmdStart bool
	// keepStart: the next plain word (coproc's or function's name, time's
	// -p) leaves mayStart as it is.
	keepStart bool
	// redirTarget: the next word is a redirection's target.
	redirTarget bool
	pending     []heredoc
	backquotes  int // fBackquote frames on the stack
	// inWord: s.i continues a word a frame interrupted ($(…)x, "…"x).
	inWord bool
	// escapedNewline is where a backslash-newline ended, which starts no
	// here-document line.
	escapedNewline int
	// funcHeader: a function's header (f(), function f) ended here, and
	// its body may follow newlines; funcName: the next word names one.
	funcHeader, funcName bool
}

func (s *nestScanner) depth() int { return len(s.stack) - 1 + s.ops }

func (s *nestScanner) note() {
	if d := s.depth(); d > s.max {
		s.max = d
	}
}

func (s *nestScanner) push(k frameKind) {
	s.stack = append(s.stack, frame{kind: k, open: s.i, inWord: s.inWord, mayStart: s.mayStart,
		cmdStart: s.cmdStart, keepStart: s.keepStart, redirTarget: s.redirTarget})
	if k == fBackquote {
		s.backquotes++
	}
	s.inWord, s.keepStart, s.redirTarget = false, false, false
	s.mayStart, s.cmdStart = true, true
	s.note()
}

func (s *nestScanner) pop() frame {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.ops -= f.ops
	if f.kind == fBackquote {
		s.backquotes--
	}
	s.inWord, s.mayStart, s.cmdStart, s.keepStart, s.redirTarget = f.inWord, f.mayStart, f.cmdStart, f.keepStart, f.redirTarget
	return f
}

// popTo pops the frames above stack[k] and stack[k] itself.
func (s *nestScanner) popTo(k int) frame {
	for len(s.stack)-1 > k {
		s.pop()
	}
	return s.pop()
}

func (s *nestScanner) top() *frame { return &s.stack[len(s.stack)-1] }

func (s *nestScanner) op() {
	s.top().ops++
	s.ops++
	s.note()
}

func (s *nestScanner) startCommand() {
	s.mayStart, s.cmdStart, s.keepStart, s.redirTarget = true, true, false, false
}

func (s *nestScanner) inTest() bool {
	k := s.top().kind
	return k == fTest || k == fTestParen
}

// endStatement ends what a shell frame's statement nested without closers.
func (s *nestScanner) endStatement() {
	if t := s.top(); !s.inTest() {
		s.ops -= t.ops
		t.ops = 0
	}
	s.startCommand()
}

func (s *nestScanner) scan() {
	s.stack = append(s.stack, frame{kind: fRoot})
	s.startCommand()
	s.escapedNewline = -1
	for s.i < len(s.src) && s.max <= s.limit {
		switch s.top().kind.mode() {
		case 's':
			s.shell()
		case 'q':
			s.quoted()
		case 'p':
			s.param()
		default:
			s.arith()
		}
	}
}

// wordByte reports whether b continues a shell word.
func wordByte(b byte) bool {
	switch b {
	case ' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>':
		// The parser takes a carriage return for a space.
		return false
	}
	return true
}

func (s *nestScanner) at(j int) byte {
	if j < len(s.src) {
		return s.src[j]
	}
	return 0
}

// dollar opens the frame of a $ form at s.i ($( $(( ${ $[), in any mode,
// and reports whether there was one.
func (s *nestScanner) dollar() bool {
	switch s.at(s.i + 1) {
	case '(':
		if s.at(s.i+2) == '(' {
			s.i += 3
			s.push(fArith)
			return true
		}
		s.i += 2
		s.push(fParen)
		return true
	case '{':
		s.i += 2
		s.push(fParam)
		return true
	case '[':
		s.i += 2
		s.push(fArithBrack)
		return true
	}
	return false
}

// closingBackquote returns the index of the backquote frame a backquote
// at s.i closes, or -1 when it opens one. It closes the innermost
// substitution when only compound commands are open inside it (the
// parser closes it there too, or stops at a syntax error).
func (s *nestScanner) closingBackquote() int {
	for k := len(s.stack) - 1; k > 0; k-- {
		switch s.stack[k].kind {
		case fBackquote:
			return k
		case fIf, fLoop, fBrace, fCase, fTest, fTestParen:
			continue
		}
		return -1
	}
	return -1
}

// backquote handles a backquote at s.i in any mode.
func (s *nestScanner) backquote() {
	k := s.closingBackquote()
	s.i++
	if k >= 0 {
		s.popTo(k)
		return
	}
	s.push(fBackquote)
}

// escape skips a backslash and what it escapes; `\“ inside backquotes
// nests another substitution.
func (s *nestScanner) escape() {
	switch s.at(s.i + 1) {
	case '`':
		if s.backquotes > 0 {
			s.op()
		}
	case '\n':
		s.escapedNewline = s.i + 2
	}
	s.i = min(s.i+2, len(s.src))
}

// singleQuoted skips '…' from its opening quote.
func (s *nestScanner) singleQuoted() {
	j := strings.IndexByte(s.src[s.i+1:], '\'')
	if j < 0 {
		s.i = len(s.src)
		return
	}
	s.i += j + 2
}

// ansiQuoted skips $'…' from its $.
func (s *nestScanner) ansiQuoted() {
	for s.i += 2; s.i < len(s.src); s.i++ {
		switch s.src[s.i] {
		case '\\':
			s.i++
		case '\'':
			s.i++
			return
		}
	}
	s.i = len(s.src)
}

// shell reads from s.i in a shell frame: one operator, or one word.
func (s *nestScanner) shell() {
	c := s.src[s.i]
	if !wordByte(c) {
		s.inWord = false
	}
	if c != ' ' && c != '\t' && c != '\r' && c != '\n' && (c != '#' || s.inWord) {
		// (A comment may sit between a function's header and its body:
		// `f() # x` and the body on the next line; FuzzNestingBound.)
		s.funcHeader = false
	}
	switch c {
	case ' ', '\t', '\r':
		s.i++
	case '\n':
		s.i++
		if !s.funcHeader {
			// (A function's body may follow its header on another line.)
			s.endStatement()
		}
		s.heredocBodies()
	case ';':
		s.i++
		for s.i < len(s.src) && (s.src[s.i] == ';' || s.src[s.i] == '&' || s.src[s.i] == '|') {
			s.i++
		}
		s.endStatement()
	case '&':
		s.ampersand()
	case '|':
		s.pipe()
	case '(':
		s.openParen()
	case ')':
		s.i++
		s.closeParen()
	case '<', '>':
		s.redirect()
	case '#':
		if s.inWord {
			s.word()
			return
		}
		s.comment()
	case '`':
		if s.closingBackquote() >= 0 {
			s.backquote()
			return
		}
		s.word()
	default:
		s.word()
	}
}

// ampersand reads from s.i at a &: &&, &> or &>> (a redirection), or &
// ending a statement.
func (s *nestScanner) ampersand() {
	switch s.at(s.i + 1) {
	case '&':
		s.i += 2
		s.andOr()
	case '>':
		s.i += 2
		if s.at(s.i) == '>' {
			s.i++
		}
		s.redirTarget, s.cmdStart = true, false
	default:
		s.i++
		s.endStatement()
	}
}

// pipe reads from s.i at a |: ||, or | and |& starting a command.
func (s *nestScanner) pipe() {
	s.i++
	if s.at(s.i) == '|' {
		s.i++
		s.andOr()
		return
	}
	if s.at(s.i) == '&' {
		s.i++
	}
	s.startCommand()
}

// openParen reads from s.i at a (: a test's parenthesis, (( arithmetic,
// or a subshell.
func (s *nestScanner) openParen() {
	if s.inTest() {
		// (( in a test is two parentheses.
		s.i++
		s.push(fTestParen)
		s.mayStart, s.cmdStart = false, false
		return
	}
	if s.at(s.i+1) == '(' {
		s.i += 2
		s.push(fArith)
		s.top().subshell = true
		return
	}
	s.i++
	s.push(fParen)
	s.top().subshell = true
}

// andOr handles && and ||: in a test they nest (the parser recurses on
// the right), elsewhere they join commands.
func (s *nestScanner) andOr() {
	if s.inTest() {
		s.op()
		return
	}
	s.startCommand()
}

// heredocBodies reads the bodies of pending here-documents from s.i: a
// quoted one's is skipped; an unquoted one's is read as a frame, and the
// rest wait until it ends.
func (s *nestScanner) heredocBodies() {
	for len(s.pending) > 0 {
		h := s.pending[0]
		s.pending = s.pending[1:]
		if !h.quoted {
			s.push(fHeredoc)
			t := s.top()
			t.delim, t.dash = h.delim, h.dashed
			if !s.heredocEnd() {
				return
			}
			continue
		}
		for s.i < len(s.src) {
			line, next := s.line()
			s.i = next
			if delimLine(line, h.delim, h.dashed) {
				break
			}
		}
	}
}

// line returns the line at s.i and where the next one starts.
func (s *nestScanner) line() (string, int) {
	j := strings.IndexByte(s.src[s.i:], '\n')
	if j < 0 {
		return s.src[s.i:], len(s.src)
	}
	return s.src[s.i : s.i+j], s.i + j + 1
}

func delimLine(line, delim string, dashed bool) bool {
	if dashed {
		line = strings.TrimLeft(line, "\t")
	}
	return line == delim
}

// heredocEnd ends the here-document body at the top of the stack, and
// reads the pending ones after it, when the line at s.i is its delimiter.
func (s *nestScanner) heredocEnd() bool {
	t := s.top()
	line, next := s.line()
	if !delimLine(line, t.delim, t.dash) {
		return false
	}
	s.i = next
	s.pop()
	s.heredocBodies()
	return true
}

// comment skips a comment: to the end of the line, or to a backquote that
// may end the substitution it is in.
func (s *nestScanner) comment() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		if s.src[s.i] == '`' && s.backquotes > 0 {
			return
		}
		s.i++
	}
}

// closeParen handles ) in a shell frame.
func (s *nestScanner) closeParen() {
	for k := len(s.stack) - 1; k > 0; k-- {
		switch s.stack[k].kind {
		case fIf, fLoop, fBrace, fTest:
			// Open here, the parser stops at the ) with a syntax error,
			// or the keyword was only a word: either way it is over.
			continue
		case fParen, fTestParen:
			empty := true
			for j := s.i - 2; j >= s.stack[k].open; j-- {
				if c := s.src[j]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
					empty = false
					break
				}
			}
			f := s.popTo(k)
			if f.subshell {
				s.startCommand()
			}
			if f.kind == fParen && empty {
				// f(): a function whose body is parsed within it.
				s.op()
				s.funcHeader = true
			}
			return
		case fCase:
			// The end of a case pattern: a command follows.
			if k == len(s.stack)-1 {
				s.startCommand()
			}
			return
		}
		return
	}
}

// redirect reads a redirection operator at s.i.
func (s *nestScanner) redirect() {
	c := s.src[s.i]
	if s.at(s.i+1) == '(' {
		// <( and >(: a process substitution.
		s.i += 2
		s.push(fParen)
		return
	}
	if c == '<' && s.at(s.i+1) == '<' && s.at(s.i+2) != '<' {
		s.i += 2
		dashed := false
		if s.at(s.i) == '-' {
			dashed = true
			s.i++
		}
		s.heredocWord(dashed)
		return
	}
	s.i++
	for s.i < len(s.src) && strings.IndexByte("<>&|", s.src[s.i]) >= 0 {
		s.i++
	}
	if s.at(s.i) == '-' && s.src[s.i-1] == '&' {
		s.i++
	}
	s.redirTarget, s.cmdStart = true, false
}

// heredocWord reads a here-document's delimiter word after << or <<-.
func (s *nestScanner) heredocWord(dashed bool) {
	for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t' || s.src[s.i] == '\r') {
		s.i++
	}
	var b strings.Builder
	quoted := false
	for s.i < len(s.src) && wordByte(s.src[s.i]) {
		switch c := s.src[s.i]; c {
		case '\'':
			quoted = true
			j := strings.IndexByte(s.src[s.i+1:], '\'')
			if j < 0 {
				j = len(s.src) - s.i - 1
			}
			b.WriteString(s.src[s.i+1 : s.i+1+j])
			s.i += j + 2
		case '"':
			quoted = true
			for s.i++; s.i < len(s.src) && s.src[s.i] != '"'; s.i++ {
				if s.src[s.i] == '\\' && s.i+1 < len(s.src) {
					s.i++
				}
				b.WriteByte(s.src[s.i])
			}
			s.i++
		case '\\':
			quoted = true
			if s.i+1 < len(s.src) {
				b.WriteByte(s.src[s.i+1])
			}
			s.i += 2
		default:
			b.WriteByte(c)
			s.i++
		}
	}
	s.i = min(s.i, len(s.src))
	s.pending = append(s.pending, heredoc{delim: b.String(), quoted: quoted, dashed: dashed})
	s.cmdStart = false
}

// word reads a shell word from s.i up to its end or up to a frame it
// opens (the word goes on after the frame closes: s.inWord).
func (s *nestScanner) word() {
	start := s.i
	cont := s.inWord
	plain := !cont // only literal bytes: it may be a reserved word
	// interrupt ends the word's part before a frame opens inside it.
	interrupt := func() {
		if !cont {
			s.finishWord(start, false)
		}
		s.inWord = true
	}
	for s.i < len(s.src) {
		c := s.src[s.i]
		if c == '(' && s.i > start {
			switch s.src[s.i-1] {
			case '?', '*', '+', '@', '!':
				if s.at(s.i+1) != ')' {
					// An extended glob: the parser reads it as literal
					// text up to its matching parenthesis.
					s.extglob()
					plain = false
					continue
				}
			case '=':
				// An array value: a=( … ).
				interrupt()
				s.i++
				s.push(fParen)
				return
			}
		}
		if !wordByte(c) {
			break
		}
		switch c {
		case '\'':
			plain = false
			s.singleQuoted()
			continue
		case '"':
			interrupt()
			s.i++
			s.push(fDquote)
			return
		case '\\':
			plain = false
			s.escape()
			continue
		case '`':
			if s.closingBackquote() >= 0 {
				goto end
			}
			interrupt()
			s.backquote()
			return
		case '$':
			switch s.at(s.i + 1) {
			case '\'':
				plain = false
				s.ansiQuoted()
				continue
			case '"':
				interrupt()
				s.i += 2
				s.push(fDquote)
				return
			case '(', '{', '[':
				interrupt()
				s.dollar()
				return
			}
			plain = false
		case '[':
			if s.i > start && !cont && IsName(s.src[start:s.i]) {
				// name[: an index, read as arithmetic.
				interrupt()
				s.i++
				s.push(fIndex)
				return
			}
		}
		s.i++
	}
end:
	s.inWord = false
	if !cont {
		s.finishWord(start, plain)
	}
}

// extglob skips ?( *( +( @( !( … ) as the parser does: to the matching
// parenthesis, counting parentheses and nothing else.
func (s *nestScanner) extglob() {
	depth := 0
	for ; s.i < len(s.src); s.i++ {
		switch s.src[s.i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				s.i++
				return
			}
		}
	}
}

func IsName(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return w != ""
}

// closers are the reserved words that close a compound command, with the
// frame each closes.
var closers = map[string]frameKind{"fi": fIf, "done": fLoop, "esac": fCase, "}": fBrace}

// finishWord updates the command state after the word src[start:s.i], or
// its first part when a frame opens inside it. A plain word (literal bytes
// only) may be a reserved word.
func (s *nestScanner) finishWord(start int, plain bool) {
	w := s.src[start:s.i]
	if s.inTest() {
		switch {
		case plain && w == "]]":
			for k := len(s.stack) - 1; k > 0; k-- {
				if kind := s.stack[k].kind; kind == fTest {
					s.popTo(k)
					s.startCommand()
					return
				} else if kind != fTestParen {
					break
				}
			}
		case plain && w == "!":
			s.op()
		}
		return
	}
	if s.redirTarget {
		s.redirTarget = false
		return
	}
	if plain && s.mayStart {
		switch w {
		case "if":
			s.push(fIf)
			return
		case "while", "until":
			s.push(fLoop)
			return
		case "for", "select":
			// A name follows, not a command.
			s.push(fLoop)
			s.mayStart, s.cmdStart = false, false
			return
		case "case":
			s.push(fCase)
			s.mayStart, s.cmdStart = false, false
			return
		case "{":
			s.push(fBrace)
			return
		case "then", "do", "else", "elif", "!":
			s.startCommand()
			return
		case "time", "coproc", "function":
			// Each nests the command after it (and coproc's or the
			// function's name, or time's -p, may come first).
			s.op()
			s.startCommand()
			s.keepStart = true
			s.funcHeader, s.funcName = w == "function", w == "function"
			return
		case "let":
			s.push(fLet)
			return
		case "[[":
			s.push(fTest)
			s.mayStart, s.cmdStart = false, false
			return
		}
	}
	if want, ok := closers[w]; ok && plain && s.cmdStart && s.top().kind == want {
		s.pop()
		s.startCommand()
		return
	}
	if s.keepStart {
		s.keepStart = false
		s.cmdStart = s.mayStart
		if s.funcName {
			s.funcHeader, s.funcName = true, false
		}
		return
	}
	if assignment(w) {
		// Assignments may come before the command: a keyword after one
		// is taken as a word, which opening it anyway only overcounts;
		// but a closing keyword after one does not close.
		s.cmdStart = false
		return
	}
	s.mayStart, s.cmdStart = false, false
}

// assignment reports whether w may be an assignment (name=, name+=,
// name[…]=) or its start.
func assignment(w string) bool {
	i := 0
	for i < len(w) && (w[i] == '_' || w[i] >= 'a' && w[i] <= 'z' || w[i] >= 'A' && w[i] <= 'Z' || i > 0 && w[i] >= '0' && w[i] <= '9') {
		i++
	}
	return i > 0 && (i == len(w) || w[i] == '=' || w[i] == '+' || w[i] == '[')
}

// quoted reads from s.i in a double-quoted string or a here-document body.
func (s *nestScanner) quoted() {
	t := s.top()
	if t.kind == fHeredoc && s.i > 0 && s.src[s.i-1] == '\n' && s.i != s.escapedNewline && s.heredocEnd() {
		return
	}
	switch s.src[s.i] {
	case '\\':
		s.escape()
	case '"':
		s.i++
		if t.kind == fDquote {
			s.pop()
		}
	case '`':
		s.backquote()
	case '$':
		if !s.dollar() {
			s.i++
		}
	default:
		s.i++
	}
}

// arithOps are the bytes of arithmetic operators; each may nest (unary
// and right-associative operators recurse in the parser), so each counts.
const arithOps = "!~+-*/%<>=&|^?:,"

// param reads from s.i in ${…}.
func (s *nestScanner) param() {
	switch c := s.src[s.i]; {
	case c == '}':
		s.i++
		s.pop()
	case s.quoteOrExpansion(true):
	default:
		if c == '(' || c == '[' || strings.IndexByte(arithOps, c) >= 0 {
			// An index or a slice is arithmetic.
			s.op()
		}
		s.i++
	}
}

// arith reads from s.i in arithmetic.
func (s *nestScanner) arith() {
	t := s.top()
	c := s.src[s.i]
	if t.kind == fLet {
		switch c {
		case ';', '&', '|', '\n', ')':
			// The end of the let command.
			s.pop()
			s.shell()
			return
		}
	}
	switch c {
	case '(':
		s.i++
		s.push(fArithParen)
	case ')':
		s.i++
		switch {
		case t.kind == fArithParen:
			s.pop()
		case t.kind == fArith && s.at(s.i) == ')':
			s.i++
			if s.pop().subshell {
				s.startCommand()
			}
		}
	case '[':
		s.i++
		s.push(fIndex)
	case ']':
		s.i++
		if t.kind == fIndex || t.kind == fArithBrack {
			s.pop()
		}
	default:
		if s.quoteOrExpansion(false) {
			return
		}
		if strings.IndexByte(arithOps, c) >= 0 {
			s.op()
		}
		s.i++
	}
}

// quoteOrExpansion reads the escape, quote or expansion that starts at s.i
// in ${…} or arithmetic, and reports whether one does. $'…' is ANSI-C
// quoted in ${…} (ansi) but not in arithmetic, where the parser reads $
// and then a single-quoted string.
func (s *nestScanner) quoteOrExpansion(ansi bool) bool {
	switch s.src[s.i] {
	case '\\':
		s.escape()
	case '\'':
		s.singleQuoted()
	case '"':
		s.i++
		s.push(fDquote)
	case '`':
		s.backquote()
	case '$':
		switch {
		case ansi && s.at(s.i+1) == '\'':
			s.ansiQuoted()
		case !s.dollar():
			s.i++
		}
	default:
		return false
	}
	return true
}

// asParsed is src as the parser reads it: with a carriage return before
// a line feed dropped.
func asParsed(src string) string {
	if !strings.Contains(src, "\r\n") {
		return src
	}
	return strings.ReplaceAll(src, "\r\n", "\n")
}
