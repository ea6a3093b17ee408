package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// BaseIsStatic reports whether a dynamic word still names its program: a
// literal slash follows its last computed part ($VENV/bin/python,
// "$(go env GOPATH)/bin/tool"), so the name after it is as written.
func BaseIsStatic(w *syntax.Word) bool {
	slash := false // a literal slash since the last computed part
	var walk func(parts []syntax.WordPart)
	walk = func(parts []syntax.WordPart) {
		for _, part := range parts {
			switch p := part.(type) {
			case *syntax.Lit:
				slash = slash || strings.Contains(p.Value, "/")
			case *syntax.SglQuoted:
				var b strings.Builder
				partString(&b, p, false)
				slash = slash || strings.Contains(b.String(), "/")
			case *syntax.DblQuoted:
				walk(p.Parts)
			default:
				slash = false
			}
		}
	}
	walk(w.Parts)
	return slash
}

// WordString resolves a word to the string the shell would pass, when it is
// static (literals and quotes only). For a dynamic word it returns the static
// parts and false.
func WordString(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	static := true
	for _, part := range w.Parts {
		if !partString(&b, part, false) {
			static = false
		}
	}
	return b.String(), static
}

func partString(b *strings.Builder, part syntax.WordPart, quoted bool) bool {
	switch p := part.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(p.Value, quoted))
		return true
	case *syntax.SglQuoted:
		if p.Dollar {
			// $'…': bash decodes its escapes ($'\x67it' is git).
			s, _ := decodeEscapes(p.Value, escANSI)
			b.WriteString(s)
			return true
		}
		b.WriteString(p.Value)
		return true
	case *syntax.DblQuoted:
		ok := true
		for _, q := range p.Parts {
			if !partString(b, q, true) {
				ok = false
			}
		}
		return ok
	default:
		return false
	}
}

// unescape removes the backslashes the shell would remove: any escaped
// character outside quotes, only $ ` " \ and newline inside double quotes.
func unescape(s string, quoted bool) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			n := s[i+1]
			if !quoted || n == '$' || n == '`' || n == '"' || n == '\\' || n == '\n' {
				if n != '\n' {
					b.WriteByte(n)
				}
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
