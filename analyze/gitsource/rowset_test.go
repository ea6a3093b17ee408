package gitsource

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func joinParts(parts ...string) string {
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	r := &rowSet{w: w, uuids: map[[16]byte]struct{}{}}
	for _, p := range parts {
		r.beginPart()
		r.Write([]byte(p))
		r.endChunk()
	}
	w.Flush()
	return out.String()
}

func TestRowSetJoinsParts(t *testing.T) {
	const (
		mode = `{"type":"mode","mode":"normal"}` + "\n"
		a    = `{"uuid":"a"}` + "\n"
		b    = `{"uuid":"b"}` + "\n"
		c    = `{"uuid":"c"}` + "\n"
	)
	for name, tc := range map[string]struct {
		parts []string
		want  string
	}{
		// Whole copies: the last, line for line (its repeated mode rows kept).
		"copies": {[]string{mode + a + mode, mode + a + mode + b, mode + a + mode + b + mode + c}, mode + a + mode + b + mode + c},
		// Parts since the previous checkpoint: joined.
		"parts": {[]string{a + mode, b + mode, c}, a + mode + b + mode + c},
		// A part that repeats rows it does not start with: each uuid row once.
		"overlap": {[]string{a + b, mode + b + c}, a + b + mode + c},
		// A last part without its final line feed.
		"torn": {[]string{a, a + strings.TrimSuffix(b, "\n")}, a + b},
	} {
		if got := joinParts(tc.parts...); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, tc.want)
		}
	}
}
