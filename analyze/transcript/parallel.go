package transcript

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pmcheck/pmcheck/analyze/jsonl"
	"github.com/pmcheck/pmcheck/analyze/model"
)

// One big file on every core. Decoding is most of the cost of reading a
// line, and it depends on nothing but the line, so a large transcript is
// cut at newlines into chunks that several goroutines decode at once; the
// builder then applies the decoded lines in file order, one goroutine, as
// the serial reader does. Everything that depends on earlier lines (the
// running maximum write time, duplicate uuids, calls and their results,
// the tail) is computed by the builder, so the model is the one the serial
// reader builds (TestParallelReadIsSerialRead, FuzzParallelRead).

const (
	// parallelMin is the file size from which ReadFile decodes in
	// parallel: below it the goroutines cost more than they save, and a
	// fleet of small files is already read in parallel one file per job.
	parallelMin = 4 << 20
	// chunkBytes is about how many bytes of lines one chunk holds (a
	// chunk is sent before a line would grow it past its buffer). The
	// chunks in flight (with their decoded rows and arenas) are most of
	// what reading holds besides the model and the uuid set: 256 KiB
	// decoded as fast as 512 did on a 1 GiB file and held 4-7 MiB less,
	// 128 KiB as fast again and about 2 MiB less.
	chunkBytes = 128 << 10
)

// lineMeta is a line of a chunk: the jsonl.Line without its data, and
// where its trimmed bytes sit in the chunk.
type lineMeta struct {
	l          jsonl.Line
	start, end int
}

// chunk is a run of consecutive lines, copied out of the line reader (whose
// buffer is reused), with their decodings. The decoded strings and block
// lists are views into data and arena, valid until the chunk is reused.
type chunk struct {
	data  []byte
	lines []lineMeta
	rows  []decoded
	arena arena
	// shell classifies the lines' Bash calls into shells (the builder's
	// Options.Shell; nil when it classifies none).
	shell  *shellReader
	shells []shellCall
	done   chan struct{} // closed once every line is decoded
}

// chunks keeps chunks between files: each grows to about chunkBytes of
// lines and as many rows once, not once per file.
var chunks = sync.Pool{New: func() any { return &chunk{data: make([]byte, 0, chunkBytes+chunkBytes/4)} }}

func (c *chunk) decode() {
	if cap(c.rows) < len(c.lines) {
		c.rows = make([]decoded, len(c.lines), 2*len(c.lines))
	}
	c.rows = c.rows[:len(c.lines)]
	for i := range c.lines {
		m := &c.lines[i]
		if !m.l.OverCap && m.end > m.start {
			// Each line's strings and blocks go to the arena after the
			// previous line's: they stay valid until the builder has
			// applied them.
			decodeLine(c.data[m.start:m.end], &c.rows[i], &c.arena, c.shell, &c.shells)
		}
	}
	close(c.done)
}

// recycle empties a chunk the builder has applied and returns it to the pool.
func (c *chunk) recycle(size int) {
	if poisonViews {
		poison(c.data)
		poison(c.arena.buf[:cap(c.arena.buf)])
	}
	c.lines = c.lines[:0]
	c.data = c.data[:0]
	if cap(c.data) > 4*size { // one long line: do not keep its buffer
		c.data = nil
	}
	c.arena.reset(4 * size)
	clear(c.rows) // drop the views
	if cap(c.rows) > 1<<16 {
		c.rows = nil
	}
	clear(c.shells)
	c.shells, c.shell = c.shells[:0], nil
	chunks.Put(c)
}

// readParallel is Read with decoding spread over workers goroutines and
// chunks of about size bytes.
func readParallel(r io.Reader, file string, opts Options, workers, size int) (*model.Transcript, error) {
	b := newBuilder(file)
	b.setOptions(opts)
	if _, err := applyParallel(b, r, file, opts, workers, size); err != nil {
		b.free()
		return nil, err
	}
	t := b.finish()
	b.free()
	return t, nil
}

// applyParallel applies every line of r to b, decoded by workers
// goroutines in chunks of about size bytes, and returns how many lines it
// read. The error is a read error or the builder giving up (b.gaveUp).
func applyParallel(b *builder, r io.Reader, file string, opts Options, workers, size int) (int, error) {
	lr := jsonl.NewReader(r, opts.LineCap)
	// At most 2*workers chunks are in flight, so memory does not grow with
	// the file: the reader waits for the builder.
	inflight := 2 * workers
	order := make(chan *chunk, inflight)
	work := make(chan *chunk, inflight)
	free := make(chan *chunk, inflight+1)
	for range inflight + 1 {
		free <- chunks.Get().(*chunk)
	}
	for range workers {
		go func() {
			for c := range work {
				c.decode()
			}
		}()
	}
	var readErr error
	// stop tells the line reader that the builder gave up (Options.GiveUp):
	// it sends no more chunks, and the ones in flight are drained unread.
	var stop atomic.Bool
	go func() {
		defer close(order)
		defer close(work)
		c := <-free
		send := func() {
			c.shell = b.shell
			c.done = make(chan struct{})
			order <- c
			work <- c
		}
		for !stop.Load() {
			l, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				readErr = fmt.Errorf("%s:%d: read error: %w", file, lr.LineCount()+1, err)
				break
			}
			data := bytes.TrimSpace(l.Data)
			if len(c.lines) > 0 && len(c.data)+len(data) > cap(c.data) {
				// Sent before the line would grow its buffer: a chunk
				// holds about size bytes, not twice that.
				send()
				c = <-free
			}
			start := len(c.data)
			c.data = append(c.data, data...)
			l.Data = nil
			c.lines = append(c.lines, lineMeta{l: l, start: start, end: len(c.data)})
			if len(c.data) >= size || len(c.lines) >= size/64 {
				send()
				c = <-free
			}
		}
		if len(c.lines) > 0 {
			send()
		} else {
			free <- c // every chunk goes back to the pool below
		}
	}()
	for c := range order {
		<-c.done
		for i := 0; i < len(c.lines) && b.gaveUp == nil; i++ {
			m := &c.lines[i]
			data := c.data[m.start:m.end]
			d := &c.rows[i]
			b.lineShells = c.shells[d.shellFrom:d.shellTo]
			b.apply(m.l, data, d)
		}
		b.lineShells = nil
		if b.gaveUp != nil {
			stop.Store(true)
		}
		c.recycle(size)
		c = chunks.Get().(*chunk)
		free <- c
	}
	for range inflight + 1 {
		chunks.Put(<-free)
	}
	if b.gaveUp != nil {
		return lr.LineCount(), b.gaveUp
	}
	if readErr != nil {
		return lr.LineCount(), readErr
	}
	return lr.LineCount(), nil
}

// parallelWorkers is how many goroutines decode one large file.
func parallelWorkers() int {
	return runtime.GOMAXPROCS(0)
}
