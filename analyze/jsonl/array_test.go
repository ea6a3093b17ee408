package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type elem struct {
	n    int
	data string
	over bool
}

func readArray(t *testing.T, r io.Reader, cap int64) ([]elem, error) {
	t.Helper()
	a := NewArrayReader(r, cap)
	var out []elem
	for {
		l, err := a.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, elem{l.N, string(l.Data), l.OverCap})
	}
}

func TestArrayReaderElements(t *testing.T) {
	in := "\ufeff[\n  {\n    \"type\": \"system\",\n    \"s\": \"a ] } [ { \\\" \\\\\"\n  },\n  {\"type\":\"user\",\"x\":[1,{\"y\":\"]\"}]},\n  \"str\", 12, true\n  ,null]\n \n"
	want := []elem{
		{2, "{\n    \"type\": \"system\",\n    \"s\": \"a ] } [ { \\\" \\\\\"\n  }", false},
		{6, `{"type":"user","x":[1,{"y":"]"}]}`, false},
		{7, `"str"`, false},
		{7, `12`, false},
		{7, `true`, false},
		{8, `null`, false},
	}
	for name, r := range map[string]io.Reader{
		"whole":    strings.NewReader(in),
		"one byte": iotest.OneByteReader(strings.NewReader(in)),
		"half":     iotest.HalfReader(strings.NewReader(in)),
	} {
		got, err := readArray(t, r, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: got %d elements %+v, want %d", name, len(got), got, len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: element %d = %+v, want %+v", name, i, got[i], want[i])
			}
		}
	}
}

func TestArrayReaderEmpty(t *testing.T) {
	got, err := readArray(t, strings.NewReader(" [ ] "), 0)
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v", got, err)
	}
}

// A file cut off while it was written is an error naming where, never a
// shorter array.
func TestArrayReaderTruncated(t *testing.T) {
	for _, c := range []struct {
		in        string
		line, els int
	}{
		{"[\n  {\"type\":\"user\"},\n  {\"type\":\"assis", 3, 1},
		{"[\n  {\"type\":\"user\"},\n  {\"type\":\"assistant\"}\n", 4, 2},
		{"[\n  {\"type\":\"user\"},", 2, 1},
		{"[", 1, 0},
		{"[{\"a\":\"unterminated \\\"string", 1, 0},
	} {
		got, err := readArray(t, iotest.HalfReader(strings.NewReader(c.in)), 0)
		var ae *ArrayError
		if !errors.As(err, &ae) || !ae.Truncated {
			t.Fatalf("%q: got %v, %v; want a truncation error", c.in, got, err)
		}
		if ae.Line != c.line || ae.Elements != c.els || len(got) != c.els {
			t.Errorf("%q: error at line %d after %d elements (%d returned), want line %d after %d: %v", c.in, ae.Line, ae.Elements, len(got), c.line, c.els, err)
		}
		if !strings.Contains(err.Error(), "unterminated") {
			t.Errorf("%q: message %q does not say the array is unterminated", c.in, err)
		}
	}
}

func TestArrayReaderNotAnArray(t *testing.T) {
	for _, in := range []string{"", "  \n", "{\"type\":\"user\"}", "[{}] x", "[{} {}]", "[,{}]", "[{},]", "[{}]]", "\x00{", "[{}]\x00",
		// A byte order mark is one only as the file's first bytes.
		"\ufeff\ufeff[]", " \ufeff[]", "\n\ufeff[{}]"} {
		_, err := readArray(t, strings.NewReader(in), 0)
		var ae *ArrayError
		if !errors.As(err, &ae) {
			t.Errorf("%q: got %v, want an *ArrayError", in, err)
		}
	}
}

// An element over the cap is skipped, its length reported, with the
// elements around it intact.
func TestArrayReaderOverCap(t *testing.T) {
	big := `{"t":"` + strings.Repeat("x\\\"", 200) + `"}`
	in := "[{\"a\":1},\n" + big + ",\n{\"b\":2}]"
	got, err := readArray(t, iotest.OneByteReader(strings.NewReader(in)), 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []elem{{1, `{"a":1}`, false}, {2, "", true}, {3, `{"b":2}`, false}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	a := NewArrayReader(strings.NewReader(in), 100)
	a.Next()
	l, _ := a.Next()
	if l.Len != int64(len(big)) {
		t.Errorf("over-cap length %d, want %d", l.Len, len(big))
	}
}

// Large elements across many buffer fills come back whole.
func TestArrayReaderLarge(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("[")
	var want []string
	for i := range 50 {
		e := `{"i":"` + strings.Repeat(string(rune('a'+i%26)), 40000+i) + `"}`
		want = append(want, e)
		if i > 0 {
			sb.WriteString(",\n")
		}
		sb.WriteString(e)
	}
	sb.WriteString("]")
	got, err := readArray(t, strings.NewReader(sb.String()), 0)
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %d elements, %v", len(got), err)
	}
	for i := range want {
		if got[i].data != want[i] || got[i].n != i+1 {
			t.Fatalf("element %d differs (line %d)", i, got[i].n)
		}
	}
}

// objectLen is a Decode for tests: the length of the valid object data
// starts with.
func objectLen(data []byte) (int, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	var v map[string]any
	if d.Decode(&v) != nil {
		return 0, false
	}
	return int(d.InputOffset()), true
}

// With Decode, object elements come back decoded and whole, however the
// input is split, and the tries of a large element cost at most a few
// times its size (the buffer doubles before each try).
func TestArrayReaderDecode(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("[\n")
	var want []string
	for i := range 30 {
		e := "{\n    \"i\": \"" + strings.Repeat("x", 1<<(i%18)) + "\"\n  }"
		if i%7 == 3 {
			e = "{\"bad\": }" // not valid: found by its brackets, handed on undecoded
		}
		want = append(want, e)
		if i > 0 {
			sb.WriteString(",\n")
		}
		sb.WriteString("  " + e)
	}
	sb.WriteString("\n]\n")
	in := sb.String()
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(in) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(in)) },
	} {
		a := NewArrayReader(r(), 0)
		tried := 0
		a.Decode = func(data []byte) (int, bool) { tried += len(data); return objectLen(data) }
		line := 2
		for i := 0; ; i++ {
			l, err := a.Next()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("%s: %d elements, want %d", name, i, len(want))
				}
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if string(l.Data) != want[i] || l.N != line || l.Decoded != (i%7 != 3) {
				t.Fatalf("%s: element %d at line %d (decoded %v) = %.40q, want line %d", name, i, l.N, l.Decoded, l.Data, line)
			}
			line += strings.Count(want[i], "\n") + 1
		}
		if tried > 8*len(in)+30*arrayChunk {
			t.Errorf("%s: Decode was given %d bytes for an input of %d", name, tried, len(in))
		}
	}
}

// Whatever the input, the reader neither panics nor loops, and an input
// it reads to the end with every element decoded is a valid JSON array: a
// file it accepts is one encoding/json accepts, so no split of its own can
// hide or invent a message.
func FuzzArrayReader(f *testing.F) {
	for _, s := range []string{"[]", "[{}]", "[\n  {\"a\": \"]}\"},\n  {\"b\": [1, {\"c\": 2}]}\n]", "[{\"a\":1}] ", "[{\"a\":1},]", "[{\"a\"::1}]",
		"[{\"a\":\"\\\"\"}, {\"b\":2}]", "\ufeff[{}]", "[1, \"x\", {}]", "[{\"a\": 1} {\"b\": 2}]", "[{\"a\": 1}, {\"b\": 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		a := NewArrayReader(strings.NewReader(in), 1<<10)
		a.Decode = objectLen
		all := true
		for i := 0; ; i++ {
			if i > len(in)+1 {
				t.Fatalf("more elements than bytes: %q", in)
			}
			l, err := a.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return
			}
			if !l.Decoded {
				all = false
			}
		}
		if all && !json.Valid([]byte(strings.TrimPrefix(in, "\ufeff"))) {
			t.Fatalf("read to the end with every element decoded, but not valid JSON: %q", in)
		}
	})
}
