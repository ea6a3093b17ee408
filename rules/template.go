package rules

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// A message template is literal text with {{ expression }} placeholders. Each
// placeholder is an expr expression compiled against the same typed fact as
// `where`, so messages and conditions share one vocabulary (the snake_case
// field names) and a misspelt field fails at load time, not at evaluation.
type msgTemplate struct {
	parts []templatePart
}

type templatePart struct {
	text    string      // literal text, when program is nil
	program *vm.Program // a placeholder
}

// placeholder is one {{ … }} found by splitTemplate.
type placeholder struct {
	src    string
	offset int // byte offset of the expression source within the template
}

// splitTemplate cuts src into literal text and placeholders. It returns the
// byte offset of the first unterminated or empty placeholder as an error.
func splitTemplate(src string) (texts []string, holes []placeholder, err *templateError) {
	rest, base := src, 0
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			texts = append(texts, rest)
			return texts, holes, nil
		}
		texts = append(texts, rest[:i])
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return nil, nil, &templateError{offset: base + i, msg: `"{{" has no closing "}}"`}
		}
		inner := rest[i+2 : i+2+j]
		if strings.TrimSpace(inner) == "" {
			return nil, nil, &templateError{offset: base + i, msg: "empty placeholder {{ }}; put a field name inside, e.g. {{ agent_id }}"}
		}
		holes = append(holes, placeholder{src: inner, offset: base + i + 2})
		base += i + 2 + j + 2
		rest = rest[i+2+j+2:]
	}
}

type templateError struct {
	offset int
	msg    string
}

// compileTemplate compiles every placeholder with compile.
func compileTemplate(src string, compile func(string) (*vm.Program, error)) (*msgTemplate, *templateError) {
	texts, holes, terr := splitTemplate(src)
	if terr != nil {
		return nil, terr
	}
	t := &msgTemplate{}
	for i, text := range texts {
		if text != "" {
			t.parts = append(t.parts, templatePart{text: text})
		}
		if i < len(holes) {
			p, err := compile(holes[i].src)
			if err != nil {
				off, msg := exprErrorOffset(holes[i].src, err)
				return nil, &templateError{offset: holes[i].offset + off, msg: msg}
			}
			t.parts = append(t.parts, templatePart{program: p})
		}
	}
	return t, nil
}

// render evaluates the placeholders against fact.
func (t *msgTemplate) render(machine *vm.VM, fact any) (string, error) {
	// The values first, then the message in one allocation of its exact
	// size: a message is kept per finding, and a builder's spare capacity
	// would be kept with it.
	var small [8]string
	vals := small[:0]
	size := 0
	for _, p := range t.parts {
		if p.program == nil {
			size += len(p.text)
			continue
		}
		v, err := machine.Run(p.program, fact)
		if err != nil {
			return "", err
		}
		s := formatValue(v)
		vals = append(vals, s)
		size += len(s)
	}
	var b strings.Builder
	b.Grow(size)
	for _, p := range t.parts {
		if p.program == nil {
			b.WriteString(p.text)
			continue
		}
		b.WriteString(vals[0])
		vals = vals[1:]
	}
	return b.String(), nil
}

// formatValue renders a placeholder's value for people: lists joined with
// ", ", whole numbers without a fraction, times in RFC 3339 UTC.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case time.Time:
		if x.IsZero() {
			return ""
		}
		return x.UTC().Format(time.RFC3339)
	case model.Evidence:
		if x.IsZero() {
			return ""
		}
		return x.File + ":" + strconv.Itoa(x.Line)
	case time.Duration:
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = formatValue(rv.Index(i).Interface())
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}
