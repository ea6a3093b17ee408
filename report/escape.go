package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pmcheck/pmcheck/internal/swar"
)

// Messages and evidence come from transcripts, which anyone can write. Every
// renderer therefore makes control characters visible before they reach a
// terminal, an XML file or a GitHub log line, where they could recolour the
// screen, break the file, or smuggle in a workflow command.

// printable8 reports whether every byte of w is printable ASCII (0x20 to
// 0x7e).
func printable8(w uint64) bool { return swar.Control(w)|swar.AboveTilde(w) == 0 }

// visible replaces control characters (except tab and newline), DEL, C1
// controls, the non-characters U+FFFE/U+FFFF and invalid UTF-8 with readable
// escapes such as \x1b. Newlines are kept; callers decide what a line is.
func visible(s string) string {
	clean := true
	for i := 0; i < len(s); {
		// Printable ASCII needs no escape, eight bytes at a time where it
		// can; the rune decoder is for the rest (it was most of the cost of a
		// report of 200,000 findings).
		for i+8 <= len(s) && printable8(load64(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		if c := s[i]; c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case isBidiControl(r):
			// Dropped, not escaped: they only reorder how text is shown.
		case r == '\r':
			b.WriteString(`\r`)
		case needsEscape(r, size) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r, size):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r == '\t' || r == '\n':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0xfffe, r == 0xffff:
		return true
	case isBidiControl(r):
		return true
	}
	return false
}

// isBidiControl reports whether r is a bidirectional embedding, override or
// isolate control (U+202A-U+202E, U+2066-U+2069). They make text display in
// another order than it reads ("Trojan Source"), so a reviewer could see a
// harmless command or path where the bytes say otherwise; every human format
// drops them.
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// inertLines makes a rendered human-format report safe to print into a CI
// log, as a last pass over the whole output. The GitHub runner reads a line
// whose text, with leading whitespace trimmed, starts with "::" as a workflow
// command, and "##[" anywhere in a line as a legacy command (add-mask, group,
// set-output…). Each such sequence gets a backslash between its characters
// (":\:", "#\#["), which no runner reads as a command and a reader still
// recognises. Bidi controls are dropped. keepCommands leaves lines that start
// with "::" alone: the github format's annotations are the commands it means
// to print (their data is escaped by escapeData, and "##[" in it is still
// neutralised).
func inertLines(b []byte, keepCommands bool) []byte {
	if !needsInert(b) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 64)
	for len(b) > 0 {
		line := b
		next := []byte(nil)
		// The runner reads lines as .NET's ReadLine does: a lone CR ends
		// one too.
		if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
			line, next = b[:i+1], b[i+1:]
		}
		b = next
		line = dropBidi(line)
		// .NET's TrimStart trims every Unicode white space.
		trimmed := bytes.TrimLeftFunc(line, unicode.IsSpace)
		if bytes.HasPrefix(trimmed, []byte("::")) && !keepCommands {
			out.Write(line[:len(line)-len(trimmed)])
			out.WriteString(":\\:")
			line = trimmed[2:]
		}
		out.Write(bytes.ReplaceAll(line, []byte("##["), []byte("#\\#[")))
	}
	return out.Bytes()
}

// inertWriter applies inertLines to what passes through it, a line at a
// time (inertLines changes nothing across a line end, so the result is the
// same bytes), holding at most one unfinished line. Close writes that last
// line.
type inertWriter struct {
	w            io.Writer
	keepCommands bool
	partial      []byte
}

func (iw *inertWriter) Write(p []byte) (int, error) {
	n := len(p)
	end := bytes.LastIndexAny(p, "\r\n")
	if end < 0 {
		iw.partial = append(iw.partial, p...)
		return n, nil
	}
	var err error
	if len(iw.partial) > 0 {
		iw.partial = append(iw.partial, p[:end+1]...)
		err = iw.flushLines(iw.partial)
		iw.partial = iw.partial[:0]
	} else {
		err = iw.flushLines(p[:end+1])
	}
	iw.partial = append(iw.partial, p[end+1:]...)
	return n, err
}

func (iw *inertWriter) flushLines(b []byte) error {
	_, err := iw.w.Write(inertLines(b, iw.keepCommands))
	return err
}

// Close writes the unfinished last line, if any.
func (iw *inertWriter) Close() error {
	if len(iw.partial) == 0 {
		return nil
	}
	err := iw.flushLines(iw.partial)
	iw.partial = nil
	return err
}

// Inert is inertLines for renderings outside this package that quote
// transcript text (pmcheck explain's text).
func Inert(b []byte) []byte { return inertLines(b, false) }

// needsInert reports whether inertLines would change anything.
func needsInert(b []byte) bool {
	if bytes.Contains(b, []byte("##[")) || bytes.Contains(b, []byte("::")) {
		return true
	}
	// Bidi controls are three bytes, E2 80 AA..AE or E2 81 A6..A9.
	for i := 0; i+2 < len(b); i++ {
		if b[i] == 0xe2 && ((b[i+1] == 0x80 && b[i+2] >= 0xaa && b[i+2] <= 0xae) || (b[i+1] == 0x81 && b[i+2] >= 0xa6 && b[i+2] <= 0xa9)) {
			return true
		}
	}
	return false
}

// dropBidi removes bidi controls from valid UTF-8 runs of b.
func dropBidi(b []byte) []byte {
	if !bytes.Contains(b, []byte{0xe2}) {
		return b
	}
	out := b[:0:0]
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if size == 3 && isBidiControl(r) {
			i += size
			continue
		}
		out = append(out, b[i:i+size]...)
		i += size
	}
	return out
}

// noAutolink keeps GitHub's markdown from turning a bare URL or www. address
// in transcript text into a link: the colon of "://" becomes "&#58;" and the
// first "w" of "www." becomes "&#119;". The page shows the same characters;
// the autolink extension, which starts on a literal ":" after a scheme or a
// literal "www." at a word start, never sees its trigger.
func noAutolink(s string) string {
	if !strings.Contains(s, "://") && !strings.Contains(strings.ToLower(s), "www.") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "://"):
			b.WriteString("&#58;")
			continue
		case (s[i] == 'w' || s[i] == 'W') && len(s) >= i+4 && strings.EqualFold(s[i:i+4], "www."):
			fmt.Fprintf(&b, "&#%d;", s[i])
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// singleLine is visible with newlines shown as \n, for one-line contexts
// (table cells, attribute values, titles).
func singleLine(s string) string {
	s = visible(s)
	if strings.IndexByte(s, '\n') < 0 {
		return s // strings.ReplaceAll would count first, then return s
	}
	return strings.ReplaceAll(s, "\n", `\n`)
}

// indent prefixes every non-empty line of s after the first with prefix, so
// blank lines carry no trailing spaces.
func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = prefix + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// truncateRunes cuts s to at most n runes, ending with "…" when cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-1]) + "…"
}

// truncateBytes cuts s to at most n bytes on a rune boundary, ending with
// "…" when cut.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// uriPath percent-encodes a slash-separated relative path as a URI
// reference: unreserved characters and a few safe sub-delimiters stay, every
// other byte (space, colon, backslash, non-ASCII) becomes %XX. The colon is
// always encoded because "a:b" in a first segment would read as a scheme.
func uriPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || isUnreserved(c) || strings.IndexByte("!$&'()*+,;=@", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// firstParagraph is the help text up to the first blank line, on one line.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// plural returns "1 finding" / "2 findings".
// moreEvidence is the line that stands for the locations of a finding past
// the ones it lists (rules.MaxEvidence).
func moreEvidence(n int) string {
	if n == 1 {
		return "and 1 more location"
	}
	return fmt.Sprintf("and %d more locations", n)
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// staleBaselineSentence says how many baseline entries match nothing.
func staleBaselineSentence(n int) string {
	if n == 1 {
		return "1 baseline entry no longer matches any finding; remove it from the baseline file"
	}
	return fmt.Sprintf("%d baseline entries no longer match any finding; remove them from the baseline file", n)
}

// actionText is the part of a rule's help that says what to do, flattened to
// one line for annotations and JUnit properties: the paragraphs under a
// "What to do" heading when the help has one, else its first paragraph.
func actionText(help string) string {
	paras := strings.Split(strings.ReplaceAll(strings.TrimSpace(help), "\r\n", "\n"), "\n\n")
	for i, p := range paras {
		if !isWhatToDoHeading(p) {
			continue
		}
		var out []string
		for _, q := range paras[i+1:] {
			if isHeading(q) {
				break
			}
			out = append(out, strings.Join(strings.Fields(q), " "))
		}
		if len(out) > 0 {
			return strings.Join(out, " ")
		}
	}
	return firstParagraph(help)
}

func isWhatToDoHeading(p string) bool {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(p), "#*_: "))
	return t == "what to do" || t == "how to fix" || t == "fix"
}

// isHeading reports whether a paragraph is a markdown heading or a line that
// is bold and nothing else.
func isHeading(p string) bool {
	p = strings.TrimSpace(p)
	if strings.Contains(p, "\n") {
		return false
	}
	return strings.HasPrefix(p, "#") || (strings.HasPrefix(p, "**") && strings.HasSuffix(p, "**"))
}

// PlainHelp is a rule's markdown help as a terminal shows it: a heading
// line (`# What to do`, `**What to do**`) becomes its words and a colon,
// and bold markers around words are dropped. Lists, indentation and code
// spans stay: they read well as they are.
func PlainHelp(help string) string {
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		if isHeading(l) {
			t := strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "#*_"))
			if t != "" && !strings.HasSuffix(t, ":") && !strings.HasSuffix(t, ".") {
				t += ":"
			}
			lines[i] = t
			continue
		}
		if strings.Count(l, "**")%2 == 0 {
			lines[i] = strings.ReplaceAll(l, "**", "")
		}
	}
	return strings.Join(lines, "\n")
}
