package redact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Stream copies src to dst line by line, redacting each line; a line is never
// held longer than lineCap bytes and the file is never read whole. Bytes
// outside redacted strings, line endings included, are copied unchanged. A
// line longer than lineCap is an error: it cannot be scanned, so it is not
// copied either.
func (r *Redactor) Stream(dst io.Writer, src io.Reader, lineCap int) (Counts, error) {
	br := bufio.NewReaderSize(src, 256<<10)
	bw := bufio.NewWriterSize(dst, 256<<10)
	total := Counts{}
	var buf []byte
	var st keyState // a private key's body can run over lines (a pretty-printed file)
	for n := 1; ; n++ {
		buf = buf[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			buf = append(buf, chunk...)
			if len(buf) > lineCap {
				return total, fmt.Errorf("line %d is longer than %d bytes: it cannot be scanned for secrets (raise --line-cap, or pass --no-redact to copy as is)", n, lineCap)
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return total, err
		}
		if len(buf) > 0 {
			body, ending := splitEnding(buf)
			out, c := r.line(body, &st)
			total.Add(c)
			if _, werr := bw.Write(out); werr != nil {
				return total, werr
			}
			if _, werr := bw.Write(ending); werr != nil {
				return total, werr
			}
		}
		if err != nil { // io.EOF
			return total, bw.Flush()
		}
	}
}

func splitEnding(line []byte) (body, ending []byte) {
	i := len(line)
	if i > 0 && line[i-1] == '\n' {
		i--
		if i > 0 && line[i-1] == '\r' {
			i--
		}
	}
	return line[:i], line[i:]
}

// Line redacts one line. A JSON line has each string value scanned on its
// own (with its key as context) and only strings that held a secret are
// re-encoded; any other line is scanned as plain text.
func (r *Redactor) Line(line []byte) ([]byte, Counts) {
	var st keyState
	return r.line(line, &st)
}

// keyState follows a private key whose lines arrive one JSON string each
// (a Write or Edit's structuredPatch.lines, a pretty-printed file): after a
// string that opens a key block and does not close it, every string is
// part of the key until one closes it.
type keyState struct{ inKey bool }

var (
	keyBegin = regexp.MustCompile(`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)
	keyEnd   = regexp.MustCompile(`-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)
)

// keyBodyLine is a line of a key's body: base64, or a PEM header line.
// A diff line (structuredPatch.lines) keeps its '+', '-' or ' ' in front.
var keyBodyLine = regexp.MustCompile(`^[-+ ]?(?:[A-Za-z0-9+/]{8,}={0,2}|(?:Proc-Type|DEK-Info|Comment):.*)$`)

// keyLines redacts the body lines of a private key that spans strings: the
// text after an opening marker with no close (the key goes on in the next
// string), then each following string that reads as a key line, up to the
// closing marker. A string that is not a key line ends the key unredacted,
// so a marker quoted in prose costs at most the base64 that follows it.
func (st *keyState) keyLines(text string) (string, bool) {
	if st.inKey {
		if loc := keyEnd.FindStringIndex(text); loc != nil {
			st.inKey = false
			if strings.Trim(text[:loc[0]], " \t\r\n+-") == "" { // nothing, or a diff line's mark
				return text, false
			}
			return Marker("private-key") + text[loc[0]:], true
		}
		t := strings.TrimRight(text, " \t\r\n")
		switch {
		case strings.TrimSpace(t) == "":
			return text, false
		case keyBodyLine.MatchString(t):
			return Marker("private-key"), true
		}
		st.inKey = false
		return text, false
	}
	locs := keyBegin.FindAllStringIndex(text, -1)
	if len(locs) == 0 {
		return text, false
	}
	last := locs[len(locs)-1]
	if keyEnd.MatchString(text[last[1]:]) {
		return text, false // a whole block: the private-key rule has it
	}
	st.inKey = true
	rest := text[last[1]:]
	body := strings.TrimLeft(rest, " \t\r\n")
	if body == "" {
		return text, false
	}
	return text[:len(text)-len(body)] + Marker("private-key"), true
}

func (r *Redactor) line(line []byte, st *keyState) ([]byte, Counts) {
	trimmed := bytes.TrimLeft(line, " \t")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[' && trimmed[0] != '"') {
		s, c := r.String(string(line), "")
		if red, ok := st.keyLines(s); ok {
			if c == nil {
				c = Counts{}
			}
			c["private-key"]++
			return []byte(red), c
		}
		if len(c) == 0 {
			return line, nil
		}
		return []byte(s), c
	}
	// A line that starts with a quote is a line of a pretty-printed JSON
	// file ("key": "value",) or text: its strings are scanned as strings
	// (so \u escapes are decoded), and the bytes between them as text.
	fragment := trimmed[0] == '"'
	var out []byte
	var counts Counts
	add := func(c Counts) {
		if counts == nil {
			counts = Counts{}
		}
		counts.Add(c)
	}
	pos := 0
	key := ""
	gap := 0 // start of the bytes since the last string
	scanGap := func(end int) {
		if !fragment || end <= gap {
			return
		}
		g := string(line[gap:end])
		red, c := r.String(g, "")
		if len(c) > 0 {
			add(c)
			out = append(out, line[pos:gap]...)
			out = append(out, red...)
			pos = end
		}
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		end := stringEnd(line, i)
		if end < 0 {
			break // unterminated: leave the rest as is
		}
		scanGap(i)
		gap = end + 1
		raw := line[i : end+1]
		j := end + 1
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		isKey := j < len(line) && line[j] == ':'
		text := decode(raw)
		field := key
		if isKey {
			key = text
			field = "" // a key is scanned for what it is, not by its name
		}
		red, c := r.String(text, field)
		if !isKey {
			if kred, ok := st.keyLines(red); ok {
				red = kred
				if c == nil {
					c = Counts{}
				}
				c["private-key"]++
			}
		}
		if len(c) > 0 {
			add(c)
			out = append(out, line[pos:i]...)
			out = append(out, encode(red)...)
			pos = end + 1
		}
		i = end
	}
	scanGap(len(line))
	if !fragment {
		st.inKey = false // a JSON Lines row is whole: a key does not run into the next row
	}
	if counts == nil {
		return line, nil
	}
	out = append(out, line[pos:]...)
	return out, counts
}

// stringEnd returns the index of the quote that closes the JSON string
// opening at line[start], or -1.
func stringEnd(line []byte, start int) int {
	for k := start + 1; k < len(line); k++ {
		switch line[k] {
		case '\\':
			k++
		case '"':
			return k
		}
	}
	return -1
}

// decode returns the text of a JSON string literal (quotes included); a
// literal that does not decode is scanned as its raw bytes.
func decode(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return string(inner)
	}
	return s
}

// encode writes s as a JSON string literal without HTML escaping, the way
// the transcript writer does.
func encode(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
