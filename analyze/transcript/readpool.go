package transcript

import (
	"bufio"
	"io"
	"sync"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// pooledSize is the buffer jsonl.NewReader asks for with a line cap of at
// least 256 KiB; given a *bufio.Reader at least that large it uses it as is.
const pooledSize = 256 << 10

// readers keeps line buffers between files: a fleet scan opens thousands of
// small transcripts, and a fresh 256 KiB buffer for each (allocated and
// zeroed) cost a tenth of the scan.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, pooledSize) }}

// readPooled is Read with a pooled buffer. Nothing Read returns points into
// the buffer (the builder copies what it keeps), so it is reused afterwards.
func readPooled(r io.Reader, file string, opts Options) (*model.Transcript, error) {
	if opts.LineCap > 0 && opts.LineCap+1 < pooledSize {
		return Read(r, file, opts) // jsonl sizes its buffer to a small cap itself
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	return Read(br, file, opts)
}
