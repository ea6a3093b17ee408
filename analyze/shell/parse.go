package shell

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// parsers keeps shell parsers between commands: a parser's buffers are
// reused by each Parse, and a fresh one per command cost more than many
// commands' parse.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// parsing, when a test sets it, is told each script handed to the parser.
var parsing func(src string)

// Parse parses one script with a pooled parser.
func Parse(src string) (*syntax.File, error) {
	if parsing != nil {
		parsing(src)
	}
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

// ErrTooDeep is the parse error of a line that may nest deeper than
// MaxNesting (nesting.go): it is not parsed.
var ErrTooDeep = errors.New("nested deeper than " + strconv.Itoa(MaxNesting) + " levels")

// ParseBounded parses one script with a pooled parser, unless it may nest
// deeper than MaxNesting: the parser's stack grows with the nesting. It
// returns the source the tree's positions index: src, or src with the
// delimiters of here-documents that never close appended (closeHeredocs).
func ParseBounded(src string) (*syntax.File, string, error) {
	if nestingBound(src, MaxNesting) > MaxNesting {
		return nil, src, ErrTooDeep
	}
	f, err := Parse(src)
	if err != nil {
		if closed, ok := closeHeredocs(src, err); ok {
			return closed.f, closed.src, nil
		}
	}
	return f, src, err
}

// maxUnclosedHeredocs bounds the here-documents closeHeredocs closes in one
// script (each costs a parse).
const maxUnclosedHeredocs = 4

type closedScript struct {
	f   *syntax.File
	src string
}

// closeHeredocs reads a script whose here-documents never close as bash
// does: a here-document ends at the end of the input (bash warns "delimited
// by end-of-file") and the commands of its line still run, so `cat << 'EOF'
// > merge.sh && \` followed by more `&& \` lines is those commands, not an
// unparseable line. The parser refuses it ("unclosed here-document"): the
// delimiter it names is appended on a line of its own and the script parsed
// again. Anything else the parser refuses stays refused.
func closeHeredocs(src string, err error) (closedScript, bool) {
	for range maxUnclosedHeredocs {
		var pe syntax.ParseError
		if !errors.As(err, &pe) {
			return closedScript{}, false
		}
		delim, ok := strings.CutPrefix(pe.Text, "unclosed here-document `")
		if !ok || !strings.HasSuffix(delim, "`") {
			return closedScript{}, false
		}
		delim = strings.TrimSuffix(delim, "`")
		if delim == "" || strings.ContainsAny(delim, "\n\r") {
			return closedScript{}, false
		}
		src += "\n" + delim + "\n"
		f, perr := Parse(src)
		if perr == nil {
			return closedScript{f, src}, true
		}
		err = perr
	}
	return closedScript{}, false
}
