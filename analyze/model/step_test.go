package model

import (
	"testing"
	"time"
	"unsafe"
)

// A packed step must give back exactly the line and instant it was made of,
// across the whole range a timestamp can parse to, or write times would move.
func TestStepRoundTrip(t *testing.T) {
	times := []time.Time{
		{},
		time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 5, 6, 9, 0, 0, 999999999, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 1, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1600, 2, 29, 12, 0, 0, 500, time.UTC), // before UnixNano's range
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 23, 58, 59, 0, time.UTC), // 9999-12-31T23:59:59-23:59 in UTC
	}
	lines := []int{0, 1, 2, 1 << 31, MaxStepLine}
	for _, at := range times {
		for _, line := range lines {
			s := NewStep(line, at)
			if s.Line() != line {
				t.Errorf("NewStep(%d, %v).Line() = %d", line, at, s.Line())
			}
			if got := s.At(); got != at { // == also compares the location
				t.Errorf("NewStep(%d, %v).At() = %v", line, at, got)
			}
		}
	}
	if (Step{}).At() != (time.Time{}) || (Step{}).Line() != 0 {
		t.Errorf("zero Step = line %d at %v, want line 0 at the zero time", Step{}.Line(), Step{}.At())
	}
	if got := NewStep(MaxStepLine+5, times[1]).Line(); got != MaxStepLine {
		t.Errorf("line above MaxStepLine stored as %d, want %d", got, MaxStepLine)
	}
	if got := NewStep(-3, times[1]).Line(); got != 0 {
		t.Errorf("negative line stored as %d, want 0", got)
	}
	// A time in another zone comes back as the same instant in UTC.
	east := time.Date(2026, 5, 6, 11, 0, 0, 7, time.FixedZone("+02", 7200))
	if got := NewStep(4, east).At(); got != east.UTC() {
		t.Errorf("zoned time came back as %v, want %v", got, east.UTC())
	}
}

func TestStepIs16Bytes(t *testing.T) {
	if n := unsafe.Sizeof(Step{}); n != 16 {
		t.Errorf("Step is %d bytes, want 16 (one per timestamped row is kept)", n)
	}
}

func TestWriteTimeAtStaircase(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	tr := &Transcript{}
	tr.Steps.Append(3, t0)
	tr.Steps.Append(7, t0.Add(time.Second))
	tr.Steps.Append(8, t0.Add(time.Minute))
	for _, c := range []struct {
		line int
		want time.Time
	}{{1, t0}, {3, t0}, {6, t0}, {7, t0.Add(time.Second)}, {8, t0.Add(time.Minute)}, {1000, t0.Add(time.Minute)}} {
		if got := tr.WriteTimeAt(c.line); got != c.want {
			t.Errorf("WriteTimeAt(%d) = %v, want %v", c.line, got, c.want)
		}
	}
	if got := (&Transcript{}).WriteTimeAt(5); !got.IsZero() {
		t.Errorf("untimed WriteTimeAt = %v, want zero", got)
	}
}
