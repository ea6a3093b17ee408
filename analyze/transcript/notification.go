package transcript

import (
	"strings"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// notificationOpen starts every task-notification body.
const notificationOpen = "<task-notification>"

// IsNotification reports whether text is a task-notification body (leading
// whitespace allowed).
func IsNotification(text string) bool {
	return strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), notificationOpen)
}

// ParseNotification extracts the elements of a <task-notification>. The body is
// raw text, not XML: values are not escaped and <result> may itself contain
// tags, so each element is found by its own open tag, and <result> ends at the
// LAST </result>. Missing elements stay empty; a missing <status> leaves
// HasStatus false, which the detectors count as outstanding.
func ParseNotification(text string, at model.Evidence, source string) *model.Notification {
	n := &model.Notification{At: at, Source: source}
	n.TaskID = strings.TrimSpace(element(text, "task-id"))
	n.ToolUseID = strings.TrimSpace(element(text, "tool-use-id"))
	if s, ok := elementOK(text, "status"); ok {
		n.Status = strings.TrimSpace(s)
		n.HasStatus = n.Status != ""
	}
	n.Summary = strings.TrimSpace(element(text, "summary"))
	n.OutputFile = strings.TrimSpace(element(text, "output-file"))
	if i := strings.Index(text, "<result>"); i >= 0 {
		rest := text[i+len("<result>"):]
		if j := strings.LastIndex(rest, "</result>"); j >= 0 {
			rest = rest[:j]
		}
		n.Result = capString(strings.TrimSpace(rest), model.AgentResultLimit)
	}
	if f := element(text, "failures"); f != "" {
		for _, line := range strings.Split(f, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				n.Failures = append(n.Failures, line)
			}
		}
	}
	return n
}

func element(text, name string) string {
	s, _ := elementOK(text, name)
	return s
}

// elementOK returns the text between <name> and the next </name>.
func elementOK(text, name string) (string, bool) {
	open, close := "<"+name+">", "</"+name+">"
	i := strings.Index(text, open)
	if i < 0 {
		return "", false
	}
	rest := text[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		// Unterminated element: take the rest of the line.
		if k := strings.IndexByte(rest, '\n'); k >= 0 {
			return rest[:k], true
		}
		return rest, true
	}
	return rest[:j], true
}

// capString cuts s to at most n bytes without splitting a UTF-8 sequence. A
// cut string is copied, so the kept head does not pin the whole decoded text
// in memory (that would make memory grow with the size of tool outputs).
func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut > n-4 && !isRuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut])
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
