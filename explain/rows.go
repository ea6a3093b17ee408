package explain

import (
	"slices"
	"strings"
	"sync"
)

// Rows keeps the excerpts of the rows of the files a check reads, while it
// reads them: File's functions are the readers' row hooks
// (analyze.Options.Rows). Explain then quotes the rows a finding cites from
// what was kept, and opens no file the check read: each file is read once
// on the walk from its rows to a finding and its explanation.
//
// Which rows a finding will cite is only known after the whole run is
// read, so every row's excerpt is kept: at most ExcerptRunes runes
// (escaped) per row, made as Excerpts makes it from the row's first
// excerptRead bytes, so memory grows with the rows and not with their
// length. A check that explains nothing sets no hook and pays nothing.
type Rows struct {
	mu    sync.Mutex
	files map[string][]*fileRows // by the name evidence carries
}

// fileRows are the excerpts of one reading of a file, in line order.
type fileRows struct {
	lines []int  // line numbers, ascending unless unsorted
	ends  []int  // where each excerpt ends in text
	text  []byte // the excerpts, one after another
	// unsorted says a line came after a later one (never, from a reader
	// that reads in order): lookups then scan.
	unsorted bool
}

// NewRows returns an empty keeper.
func NewRows() *Rows { return &Rows{files: map[string][]*fileRows{}} }

// File returns the function a reader of the file named file (as evidence
// names it) gives each line to, or nil for a file explain never quotes
// (not .jsonl: an execution file; see runFiles). Each reading of a file
// keeps its own rows; a file read twice (heads, then whole) is looked up in
// both.
func (k *Rows) File(file string) func(line int, data []byte) {
	if !strings.HasSuffix(file, ".jsonl") {
		return nil
	}
	fr := &fileRows{}
	k.mu.Lock()
	k.files[file] = append(k.files[file], fr)
	k.mu.Unlock()
	return fr.keep
}

// keep makes the excerpt of one line. A blank line is never a row and has
// none; nor has a row whose excerpt is empty (none is shown either way).
func (fr *fileRows) keep(line int, data []byte) {
	if len(data) == 0 {
		return
	}
	ex := Row(data[:min(len(data), excerptRead)])
	if ex == "" {
		return
	}
	if n := len(fr.lines); n > 0 && fr.lines[n-1] >= line {
		fr.unsorted = true
	}
	fr.lines = append(fr.lines, line)
	fr.text = append(fr.text, ex...)
	fr.ends = append(fr.ends, len(fr.text))
}

// excerpt is the kept excerpt of line.
func (fr *fileRows) excerpt(line int) (string, bool) {
	i, ok := 0, false
	if fr.unsorted {
		i = slices.Index(fr.lines, line)
		ok = i >= 0
	} else {
		i, ok = slices.BinarySearch(fr.lines, line)
	}
	if !ok {
		return "", false
	}
	start := 0
	if i > 0 {
		start = fr.ends[i-1]
	}
	return string(fr.text[start:fr.ends[i]]), true
}

// Excerpts returns the kept excerpts of the given rows, as the package's
// Excerpts returns them from the files; display maps the name a file was
// read by to the one the rows give (report.Document.DisplayPath).
func (k *Rows) Excerpts(locs []Loc, display func(string) string) map[Loc]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	byShown := map[string][]*fileRows{}
	for name, frs := range k.files {
		shown := display(name)
		byShown[shown] = append(byShown[shown], frs...)
	}
	out := map[Loc]string{}
	for _, l := range locs {
		for _, fr := range byShown[l.File] {
			if ex, ok := fr.excerpt(l.Line); ok {
				out[l] = ex
				break
			}
		}
	}
	return out
}
