package transcript

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// sameAsSerial reads data serially and in parallel (several worker counts
// and chunk sizes, down to one line a chunk) and fails on any difference.
func sameAsSerial(t *testing.T, name string, data []byte, opts Options) {
	t.Helper()
	want, wantErr := Read(bytes.NewReader(data), name, opts)
	for _, workers := range []int{1, 2, 3} {
		for _, size := range []int{1, 64, 700, chunkBytes} {
			got, err := readParallel(bytes.NewReader(data), name, opts, workers, size)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("%s: workers %d, chunk %d: error %v, serial %v", name, workers, size, err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: workers %d, chunk %d: the parallel reader's model differs from the serial one:\nparallel: %+v\nserial:   %+v", name, workers, size, got, want)
			}
		}
	}
}

// TestParallelReadIsSerialRead: splitting a file into chunks decoded by
// several goroutines gives the model the serial reader gives, on every
// fixture transcript, the package's seed documents and (with
// PMCHECK_CORPUS) every real transcript.
func TestParallelReadIsSerialRead(t *testing.T) {
	for i, s := range transcriptSeeds() {
		sameAsSerial(t, "seed", s, Options{})
		if i%7 == 0 {
			sameAsSerial(t, "seed", s, Options{LineCap: 40})
		}
	}
	roots := realRoots(t)
	n := 0
	eachTranscript(t, roots, func(p string, data []byte) error {
		n++
		sameAsSerial(t, p, data, Options{})
		// With the options resume-copy detection uses: row hashes
		// asked for, and every row given as copied from an earlier
		// file (its own hashes).
		own, err := Read(bytes.NewReader(data), p, Options{RowHashes: true})
		if err != nil {
			return err
		}
		sameAsSerial(t, p, data, Options{RowHashes: true, Copied: []map[uint64]uint64{own.RowHashes}})
		// With the shell commands classified while reading.
		sameAsSerial(t, p, data, Options{Shell: shipShell([]string{"ship-it"})})
		return nil
	})
	if n == 0 {
		t.Fatal("no transcripts found")
	}
}

// TestParallelReadError: an I/O error ends the parallel read with the
// serial reader's error, and no goroutine is left blocked (the test would
// hang).
func TestParallelReadError(t *testing.T) {
	rows := strings.Repeat(`{"type":"user","message":{"content":"hi"}}`+"\n", 200)
	boom := errors.New("boom")
	r := func() io.Reader { return io.MultiReader(strings.NewReader(rows), iotest.ErrReader(boom)) }
	_, want := Read(r(), "f.jsonl", Options{})
	_, got := readParallel(r(), "f.jsonl", Options{}, 2, 64)
	if want == nil || got == nil || got.Error() != want.Error() {
		t.Fatalf("parallel error %v, serial %v", got, want)
	}
}

// FuzzParallelRead: whatever the bytes, the parallel reader builds the
// serial reader's model.
//
//	go test ./analyze/transcript -run '^$' -fuzz FuzzParallelRead
func FuzzParallelRead(f *testing.F) {
	for _, s := range transcriptSeeds() {
		f.Add(s, uint8(0), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, capSel, sizeSel uint8) {
		opts := Options{}
		if capSel%4 != 0 {
			opts.LineCap = int64(capSel) * 8
		}
		if sizeSel&0x80 != 0 {
			opts.Shell = shipShell(nil) // commands classified while decoding
		}
		want, _ := Read(bytes.NewReader(data), "f.jsonl", opts)
		var got any
		withDeadline(t, "readParallel", func() {
			got, _ = readParallel(bytes.NewReader(data), "f.jsonl", opts, 1+int(sizeSel%3), 1+int(sizeSel)*4)
		})
		if !reflect.DeepEqual(got, any(want)) {
			t.Fatalf("parallel read differs from the serial read:\nparallel: %+v\nserial:   %+v", got, want)
		}
	})
}
