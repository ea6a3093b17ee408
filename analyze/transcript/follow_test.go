package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// sameAsFullRead compares the follower's snapshot with a fresh full read
// of the same bytes. ErrFullRead is only allowed where the bytes end in an
// unterminated line that a full read applies as a row (or over the cap, or
// where it gives up).
func sameAsFullRead(t *testing.T, name string, f *Follower, prefix []byte, opts Options) (fullReads int) {
	t.Helper()
	got, err := f.Snapshot()
	want, wantErr := Read(bytes.NewReader(prefix), name, opts)
	if errors.Is(err, ErrFullRead) {
		last := prefix[bytes.LastIndexByte(prefix, '\n')+1:]
		if wantErr == nil && want.Rows == rowsThrough(t, name, prefix[:len(prefix)-len(last)], opts) && int64(len(last)) <= f.lines.LineCap() {
			t.Fatalf("%s: %d bytes: the follower asked for a full read, but the unterminated line %.80q is not a row", name, len(prefix), last)
		}
		return 1
	}
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%s: %d bytes: follower error %v, full read %v", name, len(prefix), err, wantErr)
	}
	if err == nil && diffOf(got, want) != "" {
		t.Fatalf("%s: %d bytes: the follower's snapshot differs from a full read at %s:\nfollower:  %+v\nfull read: %+v", name, len(prefix), diffOf(got, want), got, want)
	}
	return 0
}

func rowsThrough(t *testing.T, name string, data []byte, opts Options) int {
	tr, err := Read(bytes.NewReader(data), name, opts)
	if err != nil {
		return -1
	}
	return tr.Rows
}

// followDifferential feeds data to followers row by row and in random
// pieces (ending mid-row as often as not) and compares every snapshot with
// a full read of the same prefix. Long files are compared at up to about
// maxChecks prefixes per pass (chosen by the same generator), so the test
// stays linear-ish; the follower is fed every byte regardless.
func followDifferential(t *testing.T, name string, data []byte, opts Options, seed int64) (checks, fullReads int) {
	t.Helper()
	const maxChecks = 50
	rows := bytes.SplitAfter(data, []byte("\n"))
	rng := rand.New(rand.NewSource(seed))
	every := max(1, len(rows)/maxChecks)

	// Row by row.
	f := NewFollower(name, opts)
	fed := 0
	for i, r := range rows {
		f.Write(r)
		fed += len(r)
		if i%every == 0 || i == len(rows)-1 {
			checks++
			fullReads += sameAsFullRead(t, name, f, data[:fed], opts)
		}
	}
	f.Close()

	// Random pieces: from one byte to a few rows, often ending mid-row.
	f = NewFollower(name, opts)
	pieces := 0
	for fed = 0; fed < len(data); {
		n := 1 + rng.Intn(64)
		switch rng.Intn(4) {
		case 0:
			n = 1 + rng.Intn(8192)
		case 1:
			n = 1 + rng.Intn(3)
		}
		n = min(n, len(data)-fed)
		f.Write(data[fed : fed+n])
		fed += n
		pieces++
		if rng.Intn(every) == 0 || fed == len(data) {
			checks++
			fullReads += sameAsFullRead(t, name, f, data[:fed], opts)
		}
	}
	f.Close()
	return checks, fullReads
}

// TestFollowerIsAFullReadOfEveryPrefix: on every fixture and (with
// PMCHECK_CORPUS) every corpus transcript, and the package's seed
// documents, a follower fed the file row by row and in random pieces gives
// at each compared prefix the transcript a fresh full read of that prefix
// gives, byte for byte of the model.
func TestFollowerIsAFullReadOfEveryPrefix(t *testing.T) {
	for i, s := range transcriptSeeds() {
		followDifferential(t, "seed", s, Options{}, int64(i))
		followDifferential(t, "seed", s, Options{LineCap: 40}, int64(i))
		followDifferential(t, "seed", s, Options{GiveUp: true}, int64(i))
	}
	files, checks, full := 0, 0, 0
	eachTranscript(t, realRoots(t), func(p string, data []byte) error {
		files++
		c, n := followDifferential(t, p, data, Options{}, int64(files))
		checks, full = checks+c, full+n
		if files%5 == 0 {
			// With the options a check reads with.
			followDifferential(t, p, data, Options{Shell: shipShell(nil), GiveUp: true}, int64(files))
		}
		return nil
	})
	if files == 0 || checks == 0 {
		t.Fatal("no transcripts found")
	}
	t.Logf("%d files, %d prefixes compared, %d answered with a full read", files, checks, full)
}

// TestFollowerFillIsAFullRead: a follower filled with a file's first
// bytes in parallel (cut anywhere, mid-row included) and then given the
// rest piece by piece gives at each step what a full read of the same
// bytes gives.
func TestFollowerFillIsAFullRead(t *testing.T) {
	old := fillParallelMin
	fillParallelMin = 1
	defer func() { fillParallelMin = old }()
	if parallelWorkers() < 2 {
		t.Skip("one core: Fill reads serially")
	}
	n := 0
	eachTranscript(t, realRoots(t), func(p string, data []byte) error {
		n++
		if n%3 != 0 || len(data) < 2000 {
			return nil
		}
		rng := rand.New(rand.NewSource(int64(n)))
		for _, cut := range []int{len(data), len(data) / 2, rng.Intn(len(data))} {
			f := NewFollower(p, Options{})
			if err := f.Fill(bytes.NewReader(data), int64(cut)); err != nil {
				t.Fatal(err)
			}
			sameAsFullRead(t, p, f, data[:cut], Options{})
			for fed := cut; fed < len(data); {
				k := min(len(data)-fed, 1+rng.Intn(20000))
				f.Write(data[fed : fed+k])
				fed += k
				sameAsFullRead(t, p, f, data[:fed], Options{})
			}
		}
		return nil
	})
}

// TestFollowerSnapshotDoesNotChangeTheBuilder: taking snapshots (even on
// a file whose first rows have no timestamp, whose results come before
// their calls, and which ends mid-row) changes nothing a later snapshot
// gives: snapshots every row give, at the end, what one snapshot gives.
func TestFollowerSnapshotDoesNotChangeTheBuilder(t *testing.T) {
	data := []byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"early"}]}}
{"type":"user","uuid":"u2","message":{"role":"user","content":"hello"}}
{"type":"assistant","uuid":"u3","timestamp":"2026-01-01T00:00:05Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_x","name":"Agent","input":{"description":"d","prompt":"p"}}]}}
{"type":"user","uuid":"u4","timestamp":"2026-01-01T00:00:09Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"done"}]}}
{"type":"queue-operation","operation":"enqueue","content":"x"}
not json
{"type":"user","uuid":"u5","timestamp":"2026-01-01T00:00:10Z","message":{"role":"user","content":"bye"}}
{"type":"user","uu`)
	every := NewFollower("f.jsonl", Options{})
	for _, b := range data {
		every.Write([]byte{b})
		every.Snapshot()
	}
	once := NewFollower("f.jsonl", Options{})
	once.Write(data)
	a, errA := every.Snapshot()
	b, errB := once.Snapshot()
	want, _ := Read(bytes.NewReader(data), "f.jsonl", Options{})
	if errA != nil || errB != nil || diffOf(a, b) != "" || diffOf(a, want) != "" {
		t.Fatalf("snapshots changed the builder (%v, %v) at %s / %s:\nevery byte: %+v\nonce:       %+v\nfull read:  %+v", errA, errB, diffOf(a, b), diffOf(a, want), a, b, want)
	}
	if a.Lines != 8 || a.MalformedSkipped != 2 {
		t.Fatalf("lines %d, skipped %d: the torn last line is not counted as a full read counts it", a.Lines, a.MalformedSkipped)
	}
}

// TestFollowerTornRowNeedsAFullRead: a row whose newline has not arrived
// is applied by a full read; the follower says so rather than leave it out.
func TestFollowerTornRowNeedsAFullRead(t *testing.T) {
	f := NewFollower("f.jsonl", Options{})
	f.Write([]byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}`))
	if _, err := f.Snapshot(); !errors.Is(err, ErrFullRead) {
		t.Fatalf("a complete row without its newline: %v, want ErrFullRead", err)
	}
	f.Write([]byte("\n"))
	got, err := f.Snapshot()
	if err != nil || got.Rows != 1 || f.Offset() != f.Size() {
		t.Fatalf("after the newline: %+v %v (offset %d of %d)", got, err, f.Offset(), f.Size())
	}
}

// firstDiff names the first field where a and b differ ("" when equal),
// so a failing comparison says where, not just that.
func firstDiff(a, b reflect.Value, path string, seen map[[2]uintptr]bool) string {
	if a.IsValid() != b.IsValid() {
		return path
	}
	if !a.IsValid() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.Type() == transcriptType && path != "" && !a.IsNil() && !b.IsNil() {
			// A call's or result's way back to its transcript, for its
			// evidence (file, write time of its line, shell analyses): a
			// snapshot's point at the follower's live transcript, whose
			// answers for the snapshot's lines are the snapshot's.
			return firstDiff(a.Elem().FieldByName("File"), b.Elem().FieldByName("File"), path+".File", seen)
		}
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path
			}
			return ""
		}
		k := [2]uintptr{a.Pointer(), b.Pointer()}
		if seen[k] {
			return ""
		}
		seen[k] = true
		return firstDiff(a.Elem(), b.Elem(), path, seen)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if strings.HasPrefix(a.Type().Field(i).Type.Name(), "block[") {
				// An allocator of calls or results: where the next one
				// goes, not what the transcript holds (a thawed
				// follower's starts anew; the values are compared
				// through the lists that hold them).
				continue
			}
			if d := firstDiff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return path + ".len"
		}
		for i := 0; i < a.Len(); i++ {
			if d := firstDiff(a.Index(i), b.Index(i), path+"["+strconv.Itoa(i)+"]", seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.Len() != b.Len() {
			return path + ".len"
		}
		for _, k := range a.MapKeys() {
			if d := firstDiff(a.MapIndex(k), b.MapIndex(k), path+"["+fmt.Sprint(k)+"]", seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.Interface:
		return firstDiff(a.Elem(), b.Elem(), path, seen)
	}
	if !reflect.DeepEqual(valueOf(a), valueOf(b)) {
		return path
	}
	return ""
}

// valueOf reads a basic value, exported or not.
func valueOf(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.String:
		return v.String()
	}
	return v.Kind().String()
}

var transcriptType = reflect.TypeOf((*model.Transcript)(nil))

func diffOf(a, b any) string {
	return firstDiff(reflect.ValueOf(a), reflect.ValueOf(b), "", map[[2]uintptr]bool{})
}

// TestFollowerSnapshotSharesItsCounts: the counts maps a snapshot gives
// are the follower's own, kept as rows are counted (not made anew at every
// snapshot): each snapshot's counts are what a full read of the bytes
// written so far counts, while no row was counted since the snapshot before
// gives the same maps, and a Write that counts a row changes them in place
// (as it may change what a snapshot shares).
func TestFollowerSnapshotSharesItsCounts(t *testing.T) {
	rows := []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"hello"}}` + "\n",
		`{"type":"assistant","uuid":"u2","timestamp":"2026-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}` + "\n",
		"not json\n",
		`{"type":"assistant","uuid":"u3","timestamp":"2026-01-01T00:00:03Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"x"}}]}}` + "\n",
		`{"type":"user","uuid":"u4","timestamp":"2026-01-01T00:00:04Z","message":{"role":"user","content":"bye"}}` + "\n",
		`{"type":"system","uuid":"u5","timestamp":"2026-01-01T00:00:05Z","content":"x"}` + "\n",
	}
	f := NewFollower("f.jsonl", Options{})
	var written []byte
	snap := func() *model.Transcript {
		t.Helper()
		got, err := f.Snapshot()
		want, wantErr := Read(bytes.NewReader(written), "f.jsonl", Options{})
		if err != nil || wantErr != nil || diffOf(got, want) != "" {
			t.Fatalf("%d bytes: snapshot differs from a full read (%v, %v) at %s", len(written), err, wantErr, diffOf(got, want))
		}
		return got
	}
	write := func(s string) {
		f.Write([]byte(s))
		written = append(written, s...)
	}
	same := func(a, b map[string]int) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	empty := snap()
	if len(empty.Types) != 0 || empty.Types == nil || len(empty.ToolCounts) != 0 {
		t.Fatalf("nothing written: types %v tools %v", empty.Types, empty.ToolCounts)
	}
	write(rows[0])
	write(rows[1])
	s1 := snap()
	write(rows[2]) // malformed: no row counted
	if s2 := snap(); !same(s1.Types, s2.Types) || !same(s1.ToolCounts, s2.ToolCounts) {
		t.Fatal("the counts maps are not the follower's own")
	}
	before := fmt.Sprint(s1.Types, s1.ToolCounts)
	for _, r := range rows[3:] {
		write(r)
		s := snap() // its counts are a full read's (snap), the earlier snapshot's changed with them
		if !same(s.Types, s1.Types) || fmt.Sprint(s.Types, s.ToolCounts) == before {
			t.Fatalf("after %q: types %v tools %v, before %s", r, s.Types, s.ToolCounts, before)
		}
		before = fmt.Sprint(s.Types, s.ToolCounts)
	}
	if got := fmt.Sprint(s1.Types, s1.ToolCounts); got != "map[assistant:2 system:1 user:2] map[Bash:1 Read:1]" {
		t.Fatalf("counts %s", got)
	}
}

// Whatever the bytes and wherever the pieces end, a follower's snapshot
// after each piece is what a full read of the bytes so far gives (or, for
// an unterminated last line that a full read applies, ErrFullRead); also
// after a first read through Fill, decoded in parallel.
func FuzzFollow(f *testing.F) {
	for _, s := range transcriptSeeds() {
		f.Add(s, uint8(0), uint64(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, capSel uint8, seed uint64) {
		opts := Options{}
		if capSel%4 != 0 {
			opts.LineCap = int64(capSel) * 8
		}
		rng := rand.New(rand.NewSource(int64(seed)))
		fl := NewFollower("f.jsonl", opts)
		defer func() { fl.Close() }()
		fed := 0
		if seed%3 == 0 && len(data) > 0 {
			// A first read through Fill, decoded in parallel as a watch's
			// first poll of a large file is (the size threshold lowered).
			old := fillParallelMin
			fillParallelMin = 1
			fed = rng.Intn(len(data) + 1)
			err := fl.Fill(bytes.NewReader(data), int64(fed))
			fillParallelMin = old
			if err != nil {
				t.Fatal(err)
			}
			sameAsFullRead(t, "f.jsonl", fl, data[:fed], opts)
		}
		thaw := seed%5 == 1 // frozen and thawed after every piece (the hook's state)
		for fed < len(data) {
			n := min(len(data)-fed, 1+rng.Intn(96))
			fl.Write(data[fed : fed+n])
			fed += n
			if thaw {
				fl = refrozen(t, "f.jsonl", fl, opts)
			}
			sameAsFullRead(t, "f.jsonl", fl, data[:fed], opts)
		}
	})
}
