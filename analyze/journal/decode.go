package journal

import "github.com/pmcheck/pmcheck/internal/jsonscan"

// A journal line is read for three fields, and the rest of it (an agent's
// prompt, a long result) only has to be valid JSON: encoding/json scanned
// each line twice (once to validate it, once to decode it) through its
// reflection, most of reading a journal of 200,000 lines. decodeFast
// validates a line once and takes the three fields on the way, for the
// lines whose shape it can decode exactly as encoding/json does; every
// other line goes to encoding/json (TestDecodeFastIsUnmarshal,
// FuzzDecodeFast). The grammar (what is valid JSON, the nesting limit) is
// internal/jsonscan's, shared with the transcript decoder; this file maps
// the keys to the fields.

// decodeFast decodes data, a trimmed line that starts with '{', into v as
// json.Unmarshal(data, v) does. valid is false when the line is not JSON
// (json.Unmarshal would return a syntax error). done is false when the
// line is JSON that decodeFast leaves to encoding/json: a top-level key
// with an escape or a byte outside ASCII (encoding/json matches keys by
// Unicode case folding), or a field of ours whose value is a string with
// an escape or a non-ASCII byte, or neither a string nor null.
func decodeFast(data []byte, v *line) (valid, done bool) {
	s := jsonscan.Scanner{Data: data}
	if s.Peek() != '{' || !s.Enter() {
		return false, false
	}
	done = true
	for first := true; ; first = false {
		key, esc, end, ok := s.NextKey(first)
		if !ok {
			return false, false
		}
		if end {
			return s.End(), done
		}
		var field **string
		k := 0
		if !esc && done {
			field, k = v.field(key)
		} else {
			done = false
		}
		if field == nil {
			if !s.SkipValue() {
				return false, false
			}
			continue
		}
		switch s.Peek() {
		case 'n': // null sets a pointer to nil
			if !s.Literal("null") {
				return false, false
			}
			*field = nil
		case '"':
			body, escaped, ok := s.ScanString()
			if !ok {
				return false, false
			}
			if escaped || s.StrHigh {
				// Its value needs decoding: encoding/json's.
				done = false
				continue
			}
			v.vals[k] = fieldString(k, body)
			*field = &v.vals[k]
		default:
			done = false
			if !s.SkipValue() {
				return false, false
			}
		}
	}
}

// field is the field an ASCII key without escapes names, matched as
// encoding/json matches it (exactly, or else ASCII letters without regard
// to case), and the index of its string in v.vals.
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
