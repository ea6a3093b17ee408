package transcript

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// notificationOpen starts every task-notification body; agentNotificationOpen
// the older form CLI 2.0.64 to 2.0.7x wrote for background agents (with
// <agent-id> in place of <task-id>).
const (
	notificationOpen      = "<task-notification>"
	agentNotificationOpen = "<agent-notification>"
)

// IsNotification reports whether text is a task-notification body (or the
// older agent-notification; leading whitespace allowed).
func IsNotification(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	return strings.HasPrefix(t, notificationOpen) || strings.HasPrefix(t, agentNotificationOpen)
}

// ParseNotification extracts the elements of a <task-notification>. The body is
// raw text, not XML: values are not escaped, and <summary> (the parent's
// description) and <result> (the agent's own words) may hold tags of their
// own, so a tag found anywhere in the text proves nothing. Only the
// notification's direct children count: the runtime writes each on a line of
// its own, so a child is an element that opens a line of the body, and the
// rest of the line after its closing tag is not read. <result> runs to the
// LAST </result>, so nothing the agent wrote inside it is read as a sibling.
// When a child name repeats, the first wins. Missing elements stay empty; a
// missing <status> leaves HasStatus false, which the detectors count as
// outstanding.
func ParseNotification(text string, at model.Evidence, source string) *model.Notification {
	n := &model.Notification{At: at, Source: source}
	kids := children(text)
	n.TaskID = strings.TrimSpace(kids["task-id"])
	if n.TaskID == "" {
		n.TaskID = strings.TrimSpace(kids["agent-id"]) // <agent-notification>
	}
	n.ToolUseID = strings.TrimSpace(kids["tool-use-id"])
	if s, ok := kids["status"]; ok {
		n.Status = strings.TrimSpace(s)
		n.HasStatus = n.Status != ""
	}
	n.Summary = strings.TrimSpace(kids["summary"])
	n.OutputFile = strings.TrimSpace(kids["output-file"])
	if r, ok := kids["result"]; ok {
		n.Result = capString(strings.TrimSpace(r), model.AgentResultLimit)
	}
	if f := kids["failures"]; f != "" {
		for _, line := range strings.Split(f, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				n.Failures = append(n.Failures, line)
			}
		}
	}
	return n
}

// children returns the direct child elements of the first task-notification
// in text, by name (first occurrence wins). Values are raw (untrimmed) and
// share text's memory; callers cap what they keep.
func children(text string) map[string]string {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, open := range []string{notificationOpen, agentNotificationOpen} {
		if strings.HasPrefix(t, open) {
			return lineElements(t[len(open):], "result")
		}
	}
	if i := strings.Index(text, notificationOpen); i >= 0 {
		return lineElements(text[i+len(notificationOpen):], "result")
	}
	return map[string]string{}
}

// lineElements reads the elements that open a line of body, by name (first
// occurrence wins); the rest of a line after an element's close is not read.
// The element named last runs to the LAST close tag of its name, so tags in
// its free text are never read as siblings. Close tags are found in an index
// built in one pass over body, not by searching the rest of the body for
// each element: a body of many unclosed "<x>" lines searched to its end
// once a line (2 MB took 12–14 s, in check and in every hook call).
func lineElements(body, last string) map[string]string {
	kids := map[string]string{}
	var closes closeIndex
	off := 0 // body's offset in the text the index was built on
	whole := body
	for len(body) > 0 {
		trimmed := strings.TrimLeft(body, " \t\r\n")
		off += len(body) - len(trimmed)
		body = trimmed
		name, ok := openTag(body)
		if !ok {
			// Not a child: text after the body's close, or stray text.
			next := afterLine(body)
			off += len(body) - len(next)
			body = next
			continue
		}
		if closes.at == nil {
			closes = indexCloses(whole)
		}
		restOff := off + len(name) + 2
		rest := body[len(name)+2:]
		j := closes.find(name, restOff, name == last)
		var value string
		if j < 0 {
			// Unterminated element: take the rest of the line.
			value = rest
			if k := strings.IndexByte(rest, '\n'); k >= 0 {
				value = rest[:k]
			}
			body = rest[len(value):]
			off = restOff + len(value)
		} else {
			j -= restOff
			value = rest[:j]
			after := rest[j+len(name)+3:]
			next := afterLine(after)
			off = restOff + j + len(name) + 3 + len(after) - len(next)
			body = next
		}
		if _, seen := kids[name]; !seen {
			kids[name] = value
		}
	}
	return kids
}

// closeIndex holds where each close tag "</name>" of a text starts, by
// name, in order; next is, per name, the first position not yet passed.
type closeIndex struct {
	at   map[string][]int
	next map[string]int
}

// indexCloses finds every "</name>" of s whose name openTag would read.
// Close tags cannot overlap, and each byte is looked at a bounded number of
// times, so this is one pass.
func indexCloses(s string) closeIndex {
	if notificationBytesIndexed != nil {
		notificationBytesIndexed(len(s))
	}
	ix := closeIndex{at: map[string][]int{}, next: map[string]int{}}
	for i := 0; ; {
		k := strings.Index(s[i:], "</")
		if k < 0 {
			return ix
		}
		i += k
		j := i + 2
		for j < len(s) && j-i < 66 && isTagNameByte(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '>' && j > i+2 && j-i-2 < 63 {
			name := s[i+2 : j]
			ix.at[name] = append(ix.at[name], i)
			i = j + 1
			continue
		}
		i += 2
	}
}

// notificationBytesIndexed, when a test sets it, is told the length of each
// text whose close tags are indexed.
var notificationBytesIndexed func(n int)

// find returns the start of the first close tag of name at or after from
// (the last one when last is set), or -1. Calls for one name come with
// from increasing, so each position is passed over once.
func (ix *closeIndex) find(name string, from int, last bool) int {
	at := ix.at[name]
	if last {
		if len(at) > 0 && at[len(at)-1] >= from {
			return at[len(at)-1]
		}
		return -1
	}
	k := ix.next[name]
	for k < len(at) && at[k] < from {
		k++
	}
	ix.next[name] = k
	if k < len(at) {
		return at[k]
	}
	return -1
}

func isTagNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// openTag reads "<name>" at the start of s, with a name of lower-case
// letters, digits, '-' and '_'. The body's own close tag is not an open tag.
func openTag(s string) (string, bool) {
	if len(s) < 3 || s[0] != '<' {
		return "", false
	}
	for k := 1; k < len(s) && k < 64; k++ {
		c := s[k]
		switch {
		case c == '>':
			return s[1:k], k > 1
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return "", false
		}
	}
	return "", false
}

// afterLine returns what follows the first line break of s ("" when none).
func afterLine(s string) string {
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return s[k+1:]
	}
	return ""
}

// capString returns a copy of s cut to at most n bytes without splitting a
// UTF-8 sequence. It always copies: s may be a view into the line being
// read, and a cut string must not pin the whole decoded text in memory.
func capString(s string, n int) string { return strings.Clone(cutString(s, n)) }

// cutString is capString without the copy: the first n bytes of s at most,
// not cutting a character in two.
func cutString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut > n-4 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
