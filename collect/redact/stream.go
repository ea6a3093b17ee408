package redact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
			out, c := r.Line(body)
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
	trimmed := bytes.TrimLeft(line, " \t")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		s, c := r.String(string(line), "")
		if len(c) == 0 {
			return line, nil
		}
		return []byte(s), c
	}
	var out []byte
	var counts Counts
	pos := 0
	key := ""
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		end := stringEnd(line, i)
		if end < 0 {
			break // unterminated: leave the rest as is
		}
		raw := line[i : end+1]
		j := end + 1
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j < len(line) && line[j] == ':' {
			key = decode(raw)
			i = end
			continue
		}
		text := decode(raw)
		red, c := r.String(text, key)
		if len(c) > 0 {
			if counts == nil {
				counts = Counts{}
			}
			counts.Add(c)
			out = append(out, line[pos:i]...)
			out = append(out, encode(red)...)
			pos = end + 1
		}
		i = end
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
