package ship

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// allocatedBy reports the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNestedComputedCommandsGrowLinearly: every command of
// $($($(… GIT PUSH))) has a computed program, so each is a possible ship
// action whose kind the verb its text names decides, and each one's text
// holds all the commands inside it. Lower-casing every text to find the
// verb was quadratic in the line (a 49 KB line: 0.75 s; with upper-case
// letters the copies made a 64 KiB line allocate 700 MB). The bytes
// allocated must grow with the line, not with its square.
func TestNestedComputedCommandsGrowLinearly(t *testing.T) {
	// Each level's command has arguments, so that its text grows with
	// the levels inside it; both depths are within maxNesting (a deeper
	// line is not parsed: nesting.go).
	line := func(levels int) string {
		return strings.Repeat("$(", levels) + "GIT PUSH" + strings.Repeat(" "+strings.Repeat("ARG ", 50)+")", levels)
	}
	const small, large = 30, 240
	var a Analysis
	smallBytes := allocatedBy(func() { a = Classify(line(small), Options{}) })
	// One possible push a level (GIT, in upper case, is no git).
	if len(a.Actions) != small || a.Actions[0].Kind != KindPush || !a.Actions[0].Possible {
		t.Fatalf("%d levels: %d actions, want %d possible pushes", small, len(a.Actions), small)
	}
	largeBytes := allocatedBy(func() { a = Classify(line(large), Options{}) })
	if len(a.Actions) != large {
		t.Fatalf("%d levels: %d actions, want %d", large, len(a.Actions), large)
	}
	// Linear growth makes the ratio 8; the quadratic scan made it over 40.
	ratio := float64(largeBytes) / float64(smallBytes)
	t.Logf("%d levels: %d bytes, %d levels: %d bytes (%.1fx)", small, smallBytes, large, largeBytes, ratio)
	if ratio > 16 {
		t.Errorf("%d levels allocate %d bytes, %d levels %d: %.1f times as much for %d times the line",
			small, smallBytes, large, largeBytes, ratio, large/small)
	}
}

// TestShipVerbInSlicesOfASource: the kind a statement's text names, found
// through its source's index, is what lower-casing the text finds, for
// every slice of sources with upper case, letters that lower-case to
// ASCII (İ, K), other non-ASCII letters and invalid UTF-8.
func TestShipVerbInSlicesOfASource(t *testing.T) {
	sources := []string{
		"git push origin main",
		"$(PUSH) && DEPLOY it; PubLİsh x; merge",
		"publİsh pUbLiSh upload\xffdeploy RELEASE",
		"ü\xe2\x80push\xc4\xb0ush pİsh pushİ",
		"deplo\xffy pu sh mer ge relea\u212ase",
		strings.Repeat("é", 3) + "Merge" + strings.Repeat("\xc4", 2) + "uploaD",
	}
	for _, src := range sources {
		idx := &verbIndex{src: src}
		for from := 0; from <= len(src); from++ {
			for to := from; to <= len(src); to++ {
				text := src[from:to]
				wantKind, wantOK := shipVerb(text)
				gotKind, gotOK := idx.verb(from, to)
				if gotKind != wantKind || gotOK != wantOK {
					t.Fatalf("%q[%d:%d] = %q: index gives %q %v, lower-casing %q %v", src, from, to, text, gotKind, gotOK, wantKind, wantOK)
				}
			}
		}
	}
}

// TestManyWritesGrowLinearly: each file a line writes was compared with
// every file recorded before it (touch f0 f1 … over a 48 KB line: 0.17 s,
// 8 times the files 60 times as long). Each write past the first few now
// looks at one entry; the order of first writes is kept and repeats are
// dropped.
func TestManyWritesGrowLinearly(t *testing.T) {
	line := func(files int) string {
		var b strings.Builder
		b.WriteString("touch")
		for i := range files {
			fmt.Fprintf(&b, " f%d", i)
		}
		b.WriteString(" f0 > f1 >> out")
		return b.String()
	}
	a := Classify(line(3), Options{})
	if got := strings.Join(a.Writes, " "); got != "f1 out f0 f2" {
		t.Errorf("writes %q, want %q", got, "f1 out f0 f2")
	}
	looked := 0
	countWriteLookups = func(n int) { looked += n }
	defer func() { countWriteLookups = nil }()
	for _, n := range []int{1000, 4000} {
		looked = 0
		a := Classify(line(n), Options{})
		if len(a.Writes) != n+1 {
			t.Fatalf("%d files: %d writes, want %d", n, len(a.Writes), n+1)
		}
		// One each, and a scan of the first few.
		if calls := n + 3; looked > 2*calls {
			t.Errorf("%d files: %d recorded writes looked at for %d writes: each write scans the others", n, looked, calls)
		}
	}
}
