package explain

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Loc is one row: a file (as the report shows it, relative to the working
// directory) and a 1-based line.
type Loc struct {
	File string
	Line int
}

// ExcerptRunes caps an excerpt's length; excerptRead caps the bytes of a row
// that are read to make it (the rest of a long row is skipped, not kept).
const (
	ExcerptRunes = 100
	excerptRead  = 64 << 10
)

// Excerpts reads the given rows and returns a one-line excerpt of each. Each
// file is opened once and streamed up to its last wanted line; only the wanted
// lines are kept, each cut to excerptRead bytes, so a file of any size costs
// one pass and little memory. A row that cannot be read has no entry.
func Excerpts(locs []Loc) map[Loc]string {
	byFile := map[string][]int{}
	for _, l := range locs {
		if l.File != "" && l.Line > 0 {
			byFile[l.File] = append(byFile[l.File], l.Line)
		}
	}
	out := map[Loc]string{}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		lines := byFile[f]
		slices.Sort(lines)
		lines = slices.Compact(lines)
		for line, text := range readLines(f, lines) {
			out[Loc{f, line}] = text
		}
	}
	return out
}

// readLines streams file and returns the excerpts of the wanted lines
// (sorted, unique). Lines count every newline, like the readers do.
func readLines(file string, want []int) map[int]string {
	out := map[int]string{}
	fh, err := os.Open(filepath.FromSlash(file))
	if err != nil {
		return out
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		return out // a pipe would block, a device would be read forever
	}
	r := bufio.NewReaderSize(fh, 64<<10)
	line, next := 1, 0
	var cur []byte
	// An execution file's message starts on a line of its own "{" and
	// ends on one of the same indent and "}" (JSON.stringify's indented
	// array): its excerpt is made of the whole message.
	var element []byte // the closing line's indent and brace, while in one
	start := 0
	for next < len(want) {
		chunk, err := r.ReadSlice('\n')
		if (line == want[next] || element != nil) && len(cur) < excerptRead {
			cur = append(cur, chunk[:min(len(chunk), excerptRead-len(cur))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // the same line goes on
		}
		switch {
		case element != nil:
			if end := bytes.TrimRight(chunk, "\r\n"); bytes.Equal(end, element) || bytes.Equal(end, append(element, ',')) {
				out[start] = Row(bytes.TrimSuffix(bytes.TrimSpace(cur), []byte(",")))
				cur, element = cur[:0], nil
				for next < len(want) && want[next] <= line {
					next++
				}
			}
		case line == want[next] && bytes.Equal(bytes.TrimSpace(cur), []byte("{")) && err == nil:
			indent := cur[:len(cur)-len(bytes.TrimLeft(cur, " \t"))]
			element = append(append([]byte{}, indent...), '}')
			start = line
		case line == want[next]:
			out[line] = Row(cur)
			cur = cur[:0]
			next++
		}
		if err != nil {
			if err != io.EOF {
				return out
			}
			break
		}
		line++
	}
	return out
}

// linkFree reports whether no component of file (slash-separated, as
// reports show it) is a symbolic link and the file is a regular file: an
// excerpt of a saved report is read from the file the path names, never
// from where a link planted among the inputs points.
func linkFree(file string) bool {
	parts := strings.Split(file, "/")
	cur := ""
	for i, p := range parts {
		switch {
		case i == 0 && p == "":
			cur = "/"
			continue
		case p == "" || p == ".":
			continue
		case p == "..":
			cur = filepath.Join(cur, "..")
			continue
		}
		cur = filepath.Join(cur, p)
		st, err := os.Lstat(cur)
		if err != nil || st.Mode()&os.ModeSymlink != 0 || (i == len(parts)-1 && !st.Mode().IsRegular()) {
			return false
		}
	}
	return true
}

// Row makes a one-line excerpt of a transcript or journal row: who wrote it
// and the start of what it says (text, tool call, tool result), or the start
// of the raw line when it is not a JSON object (or was cut). Control and
// bidirectional-formatting characters are shown as escapes.
func Row(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	var r struct {
		Type      string          `json:"type"`
		Operation string          `json:"operation"`
		Content   json.RawMessage `json:"content"`
		Key       string          `json:"key"`
		AgentID   string          `json:"agentId"`
		Message   struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return clip("raw: " + string(raw))
	}
	var s string
	switch {
	case r.Message.Role != "":
		s = r.Message.Role + " " + blocks(r.Message.Content)
	case r.Type == "queue-operation":
		s = "queue " + r.Operation + " " + str(r.Content)
	case r.Key != "" || r.AgentID != "":
		s = "journal " + r.Type + " key " + r.Key
		if r.AgentID != "" {
			s += " agent " + r.AgentID
		}
	default:
		s = r.Type + " " + str(r.Content)
	}
	return clip(s)
}

// blocks summarises a message's content: a string, or the first text,
// tool_use or tool_result block.
func blocks(raw json.RawMessage) string {
	if s, ok := asString(raw); ok {
		return "text: " + s
	}
	var bs []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Name    string          `json:"name"`
		Content json.RawMessage `json:"content"`
		IsError bool            `json:"is_error"`
		Input   struct {
			Description string `json:"description"`
			Command     string `json:"command"`
			FilePath    string `json:"file_path"`
		} `json:"input"`
	}
	if json.Unmarshal(raw, &bs) != nil {
		return ""
	}
	for _, b := range bs {
		switch b.Type {
		case "text":
			return "text: " + b.Text
		case "tool_use":
			arg := cmpOr(b.Input.Description, b.Input.Command, b.Input.FilePath)
			return "tool_use " + b.Name + ": " + arg
		case "tool_result":
			what := "tool_result"
			if b.IsError {
				what += " (error)"
			}
			return what + ": " + str(b.Content)
		}
	}
	if len(bs) > 0 {
		return bs[0].Type
	}
	return ""
}

// str is a JSON string's value, or the first text of a block list.
func str(raw json.RawMessage) string {
	if s, ok := asString(raw); ok {
		return s
	}
	var bs []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &bs) == nil {
		for _, b := range bs {
			if b.Text != "" {
				return b.Text
			}
		}
	}
	return ""
}

func asString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func cmpOr(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// clip makes s one inert line of at most ExcerptRunes runes. Only the
// start of s is escaped: Inert turns each rune into one rune or more, so
// the first ExcerptRunes+1 runes of s's words decide the excerpt (a row's
// 64 KiB of text were escaped whole to keep 100 runes of it, for every row
// explain keeps).
func clip(s string) string {
	s = Inert(firstWords(s, ExcerptRunes+1))
	if utf8.RuneCountInString(s) <= ExcerptRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == ExcerptRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// firstWords is strings.Join(strings.Fields(s), " ") up to its first n
// runes.
func firstWords(s string, n int) string {
	var b strings.Builder
	runes, space := 0, false
	for i := 0; i < len(s) && runes < n; {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case space:
			b.WriteByte(' ')
			runes++
			space = false
			continue // the rune is written next time round, if there is room
		default:
			b.WriteString(s[i : i+size])
			runes++
		}
		i += size
	}
	return b.String()
}

// Inert shows control characters, invalid UTF-8 and the Unicode
// bidirectional-formatting characters (which can make a terminal or page
// display text in another order than it is stored) as escapes, so text
// from a transcript can only ever read as what it is.
func Inert(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		case IsBidi(r) || r == 0xfffe || r == 0xffff:
			b.WriteString(`\u`)
			b.WriteString(hex2(byte(r >> 8)))
			b.WriteString(hex2(byte(r)))
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// IsBidi reports whether r is a bidirectional formatting character (the
// embeddings, overrides and isolates, and the marks).
func IsBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
