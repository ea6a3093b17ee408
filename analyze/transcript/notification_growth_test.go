package transcript

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// lineElementsBySearch is lineElements as it was before the close-tag
// index: each element searches the rest of the body for its close tag. It
// defines what the index must agree with.
func lineElementsBySearch(body, last string) map[string]string {
	kids := map[string]string{}
	for len(body) > 0 {
		body = strings.TrimLeft(body, " \t\r\n")
		name, ok := openTag(body)
		if !ok {
			body = afterLine(body)
			continue
		}
		rest := body[len(name)+2:]
		close := "</" + name + ">"
		var j int
		if name == last {
			j = strings.LastIndex(rest, close)
		} else {
			j = strings.Index(rest, close)
		}
		var value string
		if j < 0 {
			value = rest
			if k := strings.IndexByte(rest, '\n'); k >= 0 {
				value = rest[:k]
			}
			body = rest[len(value):]
		} else {
			value = rest[:j]
			body = afterLine(rest[j+len(close):])
		}
		if _, seen := kids[name]; !seen {
			kids[name] = value
		}
	}
	return kids
}

// TestLineElementsAgreesWithSearch: on random bodies of tags, close tags,
// broken tags, text and line breaks, the indexed reading gives the elements
// the search per element gives.
func TestLineElementsAgreesWithSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 13))
	pieces := []string{"<task-id>", "</task-id>", "<status>", "</status>", "<result>", "</result>", "<output>", "</output>",
		"<a>", "</a>", "<x-1_>", "</x-1_>", "</>", "<>", "</A>", "<", "</", ">", "\n", "\n", " ", "\t", "\r\n", "text", "a1", "</task-notification>",
		"<" + strings.Repeat("n", 62) + ">", "</" + strings.Repeat("n", 62) + ">", "<" + strings.Repeat("n", 63) + ">", "</" + strings.Repeat("n", 63) + ">"}
	for i := range 20000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		body := b.String()
		for _, last := range []string{"result", "output"} {
			if got, want := lineElements(body, last), lineElementsBySearch(body, last); !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d, last %s: body %q\nindexed %q\nsearched %q", i, last, body, got, want)
			}
		}
	}
}

// unclosedLines is a notification body of n lines that each open an
// element of their own name and never close it.
func unclosedLines(n int) string {
	var b strings.Builder
	b.WriteString("<task-notification>\n<task-id>a1</task-id>\n")
	for i := range n {
		fmt.Fprintf(&b, "<x%d> text of line %d\n", i, i)
	}
	b.WriteString("<status>completed</status>\n</task-notification>")
	return b.String()
}

// TestNotificationParsingGrowsLinearly (issue 29, item 13): a notification
// of many unclosed "<x>" lines is read with its close tags indexed once,
// not searched for to the end of the body once a line (2 MB took 12–14 s).
// Counted through notificationBytesIndexed: the bytes looked at for close
// tags, for n and 4n lines. The elements read are the same.
func TestNotificationParsingGrowsLinearly(t *testing.T) {
	searched := func(n int) int {
		total := 0
		notificationBytesIndexed = func(k int) { total += k }
		defer func() { notificationBytesIndexed = nil }()
		nf := ParseNotification(unclosedLines(n), model.Evidence{}, "")
		if nf.TaskID != "a1" || nf.Status != "completed" {
			t.Fatalf("%d lines: task %q status %q", n, nf.TaskID, nf.Status)
		}
		return total
	}
	small, large := searched(5000), searched(20000)
	t.Logf("bytes searched for close tags: %d for 5,000 lines, %d for 20,000 (%.1fx)", small, large, float64(large)/float64(small))
	if small == 0 || large > 5*small {
		t.Errorf("4x the unclosed lines: %d → %d bytes searched (%.1fx), want at most 5x", small, large, float64(large)/float64(small))
	}
}

// BenchmarkParseNotificationUnclosedLines: n and 4n unclosed lines.
func BenchmarkParseNotificationUnclosedLines(b *testing.B) {
	for _, n := range []int{10000, 40000} {
		text := unclosedLines(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				ParseNotification(text, model.Evidence{}, "")
			}
		})
	}
}
