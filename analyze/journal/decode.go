package journal

import "github.com/pmcheck/pmcheck/internal/jsonscan"

// A journal line is read for three fields, and the rest of it (an agent's
// prompt, a long result) only has to be valid JSON: encoding/json scanned
// each line twice (once to validate it, once to decode it) through its
// reflection, most of reading a journal of 200,000 lines. decodeFast
// validates a line once and takes the three fields on the way, for the
// lines whose shape it can decode exactly as encoding/json does; every
// other line goes to encoding/json (TestDecodeFastIsUnmarshal,
// FuzzDecodeFast). The grammar (what is valid JSON, the nesting limit),
// key matching and string decoding are internal/jsonscan's, shared with
// the transcript decoder; this file maps the keys to the fields.

// decodeFast decodes data, a trimmed line that starts with '{', into v as
// json.Unmarshal(data, v) does. valid is false when the line is not JSON
// (json.Unmarshal would return a syntax error). done is false when the
// line is JSON that decodeFast leaves to encoding/json: a field of ours
// whose value is neither a string nor null (encoding/json's type error and
// what it leaves in the field are its own).
func decodeFast(data []byte, v *line) (valid, done bool) {
	s := jsonscan.Scanner{Data: data}
	if s.Peek() != '{' || !s.Enter() {
		return false, false
	}
	done = true
	for first := true; ; first = false {
		key, end, ok := s.NextKey(first)
		if !ok {
			return false, false
		}
		if end {
			return s.End(), done
		}
		var field **string
		k := key.Match(lineNames)
		switch k {
		case 0:
			field = &v.Type
		case 1:
			field = &v.Key
		case 2:
			field = &v.AgentID
		}
		if field == nil || !done {
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
			if escaped || s.StrBad {
				// Escapes resolved, invalid UTF-8 replaced, as
				// encoding/json decodes a string.
				body = jsonscan.Unquote(body)
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

// lineNames are line's JSON field names, in the order of its vals.
var lineNames = jsonscan.NewNames("type", "key", "agentId")

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
