package journal

import (
	"encoding/binary"

	"github.com/pmcheck/pmcheck/internal/swar"
)

// A journal line is read for three fields, and the rest of it (an agent's
// prompt, a long result) only has to be valid JSON: encoding/json scanned
// each line twice (once to validate it, once to decode it) through its
// reflection, most of reading a journal of 200,000 lines. decodeFast
// validates a line once and takes the three fields on the way, for the
// lines whose shape it can decode exactly as encoding/json does; every
// other line goes to encoding/json (TestDecodeFastIsUnmarshal,
// FuzzDecodeFast).

// maxDepth is encoding/json's limit on nesting: a deeper line is not JSON.
const maxDepth = 10000

// decodeFast decodes data, a trimmed line that starts with '{', into v as
// json.Unmarshal(data, v) does. valid is false when the line is not JSON
// (json.Unmarshal would return a syntax error). done is false when the
// line is JSON that decodeFast leaves to encoding/json: a top-level key
// with an escape or a byte outside printable ASCII (encoding/json matches
// keys by Unicode case folding), or a field of ours whose value is a
// string with an escape or a non-ASCII byte, or neither a string nor null.
func decodeFast(data []byte, v *line) (valid, done bool) {
	s := scan{data: data}
	done = true
	s.space()
	if !s.byte('{') {
		return false, false
	}
	s.space()
	if s.byte('}') {
		s.space()
		return s.i == len(data), true
	}
	for {
		s.space()
		kStart := s.i
		plainKey, ok := s.str()
		if !ok {
			return false, false
		}
		key := data[kStart+1 : s.i-1]
		s.space()
		if !s.byte(':') {
			return false, false
		}
		s.space()
		var field **string
		k := 0
		if plainKey && done {
			field, k = v.field(key)
		} else {
			done = false
		}
		vStart := s.i
		if !s.value(1) {
			return false, false
		}
		if field != nil {
			val := data[vStart:s.i]
			switch {
			case val[0] == 'n': // null sets a pointer to nil
				*field = nil
			case val[0] == '"' && plainString(val):
				v.vals[k] = fieldString(k, val[1:len(val)-1])
				*field = &v.vals[k]
			default:
				done = false
			}
		}
		s.space()
		if s.byte(',') {
			continue
		}
		if !s.byte('}') {
			return false, false
		}
		s.space()
		return s.i == len(data), done
	}
}

// field is the field a plain ASCII key names, matched as encoding/json
// matches it: exactly, or else ASCII letters without regard to case.
// field is the field a key names, and the index of its string in v.vals.
func (v *line) field(key []byte) (**string, int) {
	switch {
	case equalFoldASCII(key, "type"):
		return &v.Type, 0
	case equalFoldASCII(key, "key"):
		return &v.Key, 1
	case equalFoldASCII(key, "agentid"):
		return &v.AgentID, 2
	}
	return nil, 0
}

// fieldString is the string of field k's value b: the types watch acts on
// are constants, the rest are copied.
func fieldString(k int, b []byte) string {
	if k == 0 {
		switch string(b) {
		case "started":
			return "started"
		case "result":
			return "result"
		case "failed":
			return "failed"
		}
	}
	return string(b)
}

func equalFoldASCII(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// plainString: a JSON string token whose contents are printable ASCII
// without escapes, so its value is its bytes.
func plainString(tok []byte) bool {
	for _, c := range tok[1 : len(tok)-1] {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	return true
}

// scan validates JSON as encoding/json's scanner does.
type scan struct {
	data []byte
	i    int
}

func (s *scan) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) byte(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// value scans one value at nesting depth (the containers it is in).
func (s *scan) value(depth int) bool {
	if s.i >= len(s.data) {
		return false
	}
	switch c := s.data[s.i]; {
	case c == '{':
		if depth+1 > maxDepth {
			return false
		}
		s.i++
		s.space()
		if s.byte('}') {
			return true
		}
		for {
			s.space()
			if _, ok := s.str(); !ok {
				return false
			}
			s.space()
			if !s.byte(':') {
				return false
			}
			s.space()
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.byte(',') {
				continue
			}
			return s.byte('}')
		}
	case c == '[':
		if depth+1 > maxDepth {
			return false
		}
		s.i++
		s.space()
		if s.byte(']') {
			return true
		}
		for {
			s.space()
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.byte(',') {
				continue
			}
			return s.byte(']')
		}
	case c == '"':
		_, ok := s.str()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return false
}

func (s *scan) literal(lit string) bool {
	if len(s.data)-s.i < len(lit) || string(s.data[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

func digit(c byte) bool { return '0' <= c && c <= '9' }

func (s *scan) number() bool {
	d := s.data
	s.byte('-')
	switch {
	case s.i < len(d) && d[s.i] == '0':
		s.i++
	case s.i < len(d) && '1' <= d[s.i] && d[s.i] <= '9':
		for s.i < len(d) && digit(d[s.i]) {
			s.i++
		}
	default:
		return false
	}
	if s.byte('.') {
		if s.i >= len(d) || !digit(d[s.i]) {
			return false
		}
		for s.i < len(d) && digit(d[s.i]) {
			s.i++
		}
	}
	if s.i < len(d) && (d[s.i] == 'e' || d[s.i] == 'E') {
		s.i++
		if s.i < len(d) && (d[s.i] == '+' || d[s.i] == '-') {
			s.i++
		}
		if s.i >= len(d) || !digit(d[s.i]) {
			return false
		}
		for s.i < len(d) && digit(d[s.i]) {
			s.i++
		}
	}
	return true
}

// str scans a string token; plain reports that it is printable ASCII
// without escapes.
func (s *scan) str() (plain, ok bool) {
	d := s.data
	if !s.byte('"') {
		return false, false
	}
	plain = true
	for s.i < len(d) {
		// Eight bytes at a time while they are plain (a journal line is
		// mostly a long prompt or result): printable ASCII, no quote, no
		// backslash.
		for s.i+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[s.i:])
			if notPlain(w) {
				break
			}
			s.i += 8
		}
		if s.i >= len(d) {
			break
		}
		c := d[s.i]
		switch {
		case c == '"':
			s.i++
			return plain, true
		case c < 0x20:
			return false, false
		case c == '\\':
			plain = false
			s.i++
			if s.i >= len(d) {
				return false, false
			}
			switch d[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				s.i++
				for range 4 {
					if s.i >= len(d) || !isHex(d[s.i]) {
						return false, false
					}
					s.i++
				}
			default:
				return false, false
			}
		default:
			if c > 0x7e {
				plain = false
			}
			s.i++
		}
	}
	return false, false
}

// notPlain reports whether a byte of w is a quote, a backslash, a control
// character (< 0x20) or outside printable ASCII (>= 0x7f).
func notPlain(w uint64) bool { return swar.Stops(w)|swar.AboveTilde(w) != 0 }

func isHex(c byte) bool { return digit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
