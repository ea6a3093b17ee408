package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// progressBar draws "[#####.....] 120/345 files" on standard error, redrawn
// in place. It is drawn only on a terminal (or when asked), so logs and
// pipes never hold carriage returns; it never touches standard output.
type progressBar struct {
	w    io.Writer
	on   bool
	last int // last width drawn, to redraw only when the bar moves
}

func newProgressBar(w io.Writer, mode string) *progressBar {
	on := mode == "always" || (mode != "never" && isTerminal(w))
	return &progressBar{w: w, on: on, last: -1}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const barWidth = 30

// update is analyze.Options.Progress.
func (p *progressBar) update(done, total int) {
	if !p.on || total == 0 {
		return
	}
	filled := done * barWidth / total
	if filled == p.last && done != total {
		return
	}
	p.last = filled
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d files", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), done, total)
}

// finish clears the bar's line.
func (p *progressBar) finish() {
	if p.on && p.last >= 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", barWidth+40))
	}
}
