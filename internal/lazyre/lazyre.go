// Package lazyre holds regular expressions that are compiled the first time
// they are used rather than when the program starts.
//
// Every pmcheck process, a hook's included, used to compile twenty patterns
// before main ran, most of them for inputs it never sees (a usage-limit
// ending, a commit line, a config file). Start-up is single-threaded and
// its memory is first touched then, so it is paid on every run.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a pattern compiled on first use; call it for the *regexp.Regexp.
type Regexp func() *regexp.Regexp

// all is every pattern made by New, so a test can compile them all.
var (
	mu  sync.Mutex
	all []string
)

// New returns the pattern expr, compiled (and checked: a bad pattern panics,
// as regexp.MustCompile does) the first time it is called. Patterns are
// constants of the program; Patterns lets a test compile each one.
func New(expr string) Regexp {
	mu.Lock()
	all = append(all, expr)
	mu.Unlock()
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Patterns returns the source of every pattern made so far, in the order
// they were made.
func Patterns() []string {
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), all...)
}
