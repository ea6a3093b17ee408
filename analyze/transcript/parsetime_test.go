package transcript

import (
	"fmt"
	"testing"
	"time"
)

// parseUTCCases are timestamps of every shape near the fast path's edges.
var parseUTCCases = []string{
	"2026-05-06T09:00:00.123Z", "2026-05-06T09:00:00Z", "2026-05-06T09:00:00.1Z", "2026-05-06T09:00:00.123456789Z",
	"2026-05-06T09:00:00.1234567891Z", "2026-05-06T09:00:00.Z", "2026-05-06T09:00:00,123Z", "2026-05-06T23:59:59.999Z",
	"2026-05-06T24:00:00Z", "2026-05-06T09:60:00Z", "2026-05-06T09:00:60Z", "2026-13-06T09:00:00Z", "2026-00-06T09:00:00Z",
	"2026-02-29T09:00:00Z", "2024-02-29T09:00:00Z", "2026-04-31T09:00:00Z", "2026-12-31T09:00:00Z", "2026-05-00T09:00:00Z",
	"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2026-05-06 09:00:00Z", "2026-05-06T09:00:00.123+02:00",
	"2026-05-06T09:00:00.12a Z", "2026-05-06T09:00:00.12aZ", "2026-5-06T09:00:00Z", "+026-05-06T09:00:00Z",
	"2026-05-06T09:00:00.123z", "2026-05-06T9:00:00.123Z", "-2026-05-06T09:00:00Z", "2026-05-06T09:00:00.-12Z", "",
}

// TestParseUTCIsParse: whatever the fast path accepts, time.Parse accepts
// and reads as the same instant; what it refuses goes to time.Parse.
func TestParseUTCIsParse(t *testing.T) {
	accepted := 0
	for _, s := range parseUTCCases {
		if checkParseUTC(t, s) {
			accepted++
		}
	}
	// Every day of four centuries and of the calendar's ends, at a time
	// that moves through the day.
	for _, span := range [][2]time.Time{
		{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(4, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(9996, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)},
	} {
		for d, i := span[0], 0; d.Before(span[1]); d, i = d.AddDate(0, 0, 1), i+1 {
			at := d.Add(time.Duration(i*7919) * time.Millisecond % (24 * time.Hour))
			if !checkParseUTC(t, at.Format("2006-01-02T15:04:05.000Z")) {
				t.Fatalf("%v: not taken by the fast path", at)
			}
		}
	}
	// The last days of every month, real or not, in years around the
	// leap-year rules' exceptions.
	for _, y := range []int{0, 1, 4, 100, 1600, 1700, 1900, 2000, 2024, 2026, 2100, 2400, 9999} {
		for m := 1; m <= 12; m++ {
			for d := 28; d <= 32; d++ {
				checkParseUTC(t, fmt.Sprintf("%04d-%02d-%02dT12:00:00Z", y, m, d))
			}
		}
	}
	if accepted < 8 {
		t.Fatalf("the fast path accepted only %d of the cases", accepted)
	}
}

func checkParseUTC(t *testing.T, s string) bool {
	t.Helper()
	got, ok := parseUTC(s)
	if !ok {
		return false
	}
	want, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("parseUTC(%q) accepted what time.Parse refuses (%v)", s, err)
	}
	if want = want.UTC(); got != want {
		t.Fatalf("parseUTC(%q) = %v, time.Parse: %v", s, got, want)
	}
	return true
}

func FuzzParseUTC(f *testing.F) {
	for _, s := range parseUTCCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkParseUTC(t, s)
		if parseTime(s) != parseTimeSlow(s) {
			t.Fatalf("parseTime(%q) differs from the layouts alone", s)
		}
	})
}

// parseTimeSlow is parseTime without the fast path.
func parseTimeSlow(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	return parseTimeLayouts(s)
}
