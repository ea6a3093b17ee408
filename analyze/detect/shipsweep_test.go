package detect

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

// shipOutstandingPairwise is the loop shipFacts ran before the sweep: every
// killed item against every ship action. Kept as the reference.
func shipOutstandingPairwise(r risk, acts []model.Evidence) ([]outstanding, []bool) {
	out := make([]outstanding, len(acts))
	shipped := make([]bool, r.len())
	for i, at := range acts {
		var f model.ShipFact
		f.OutstandingKilled = []string{}
		for j, k := range r.items {
			if !before(k.known, at, true) {
				continue
			}
			shipped[j] = true
			if rv := r.review(j); rv.timeless || (rv.reviewedAt != nil && before(*rv.reviewedAt, at, false)) {
				continue
			}
			f.OutstandingCount++
			if len(f.OutstandingKilled) < model.ListLimit {
				f.OutstandingKilled = append(f.OutstandingKilled, k.name)
			}
		}
		out[i] = outstanding{f.OutstandingCount, f.OutstandingKilled}
		if len(out[i].names) == 0 {
			out[i].names = nil
		}
	}
	return out, shipped
}

// randomShipInput builds killed items and ship actions over a few files
// whose rows carry the running maximum of their timestamps (zero before the
// first, or everywhere in a file without any), plus evidence with no file
// and, when wild, times that do not follow the lines.
func randomShipInput(r *rand.Rand, wild bool) (risk, []model.Evidence) {
	base := time.Date(2026, 5, 7, 9, 0, 0, 0, time.UTC)
	files := []string{"s.jsonl", "s/subagents/agent-a1.jsonl", "s/subagents/agent-a2.jsonl", ""}[:1+r.IntN(4)]
	const lines = 40
	clock := map[string][]time.Time{}
	for _, f := range files {
		ts := make([]time.Time, lines+1)
		zeroTo := r.IntN(lines + 2) // lines before it have no time; past the end: none
		if r.IntN(3) > 0 {
			zeroTo = 1 + r.IntN(3)
		}
		cur := base.Add(time.Duration(r.IntN(20)) * time.Second)
		for l := 1; l <= lines; l++ {
			if l < zeroTo {
				continue
			}
			if r.IntN(3) == 0 {
				cur = cur.Add(time.Duration(r.IntN(4)) * time.Second)
			}
			ts[l] = cur
		}
		clock[f] = ts
	}
	ev := func() model.Evidence {
		f := files[r.IntN(len(files))]
		l := 1 + r.IntN(lines)
		e := model.Evidence{File: f, Line: l, Time: clock[f][l]}
		if f == "" || wild && r.IntN(4) == 0 {
			e.Time = time.Time{}
			if r.IntN(3) > 0 {
				e.Time = base.Add(time.Duration(r.IntN(30)) * time.Second)
			}
		}
		return e
	}
	n := r.IntN(70)
	rk := risk{items: make([]*killedItem, n), rev: &reviewResult{}}
	for i := range rk.items {
		rk.items[i] = &killedItem{name: fmt.Sprintf("k%02d", i), known: ev()}
		rv := rk.rev.at(i, n)
		rv.timeless = r.IntN(8) == 0
		if r.IntN(2) == 0 {
			e := ev()
			rv.reviewedAt = &e
		}
	}
	acts := make([]model.Evidence, r.IntN(25))
	for i := range acts {
		acts[i] = ev()
	}
	return rk, acts
}

// TestOutstandingAtAgreesWithEveryPair: the sweep gives every ship action the
// same outstanding count and first names, and marks the same items shipped,
// as comparing every killed item with every action, on random runs: several
// files, actions and reviews in other files than the kill, times unknown in
// whole files or before a file's first timestamp, evidence without a file,
// timeless (trailer-reviewed) items, more items than a fact lists; and, with
// times that do not follow the lines, through the pairwise fallback.
func TestOutstandingAtAgreesWithEveryPair(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 2))
	truncated, crossFile, untimed := 0, 0, 0
	for iter := range 20000 {
		rk, acts := randomShipInput(r, iter%5 == 4)
		killed := rk.items
		got, gotShipped := outstandingAt(rk, acts)
		want, wantShipped := shipOutstandingPairwise(rk, acts)
		if len(acts) == 0 {
			wantShipped = nil // nothing can ship after a kill
		}
		if !reflect.DeepEqual(got, want) {
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("iteration %d, action %d %+v: got %+v, want %+v", iter, i, acts[i], got[i], want[i])
				}
			}
		}
		if len(killed) == 0 {
			wantShipped = nil
		}
		if !reflect.DeepEqual(gotShipped, wantShipped) {
			t.Fatalf("iteration %d: shipped %v, want %v (items %+v, actions %+v)", iter, gotShipped, wantShipped, killed, acts)
		}
		for i, o := range want {
			if o.count > model.ListLimit {
				truncated++
			}
			if acts[i].Time.IsZero() && o.count > 0 {
				untimed++
			}
			for _, k := range killed {
				if k.known.File != acts[i].File && before(k.known, acts[i], true) {
					crossFile++
					break
				}
			}
		}
	}
	if truncated == 0 || crossFile == 0 || untimed == 0 {
		t.Fatalf("the random runs miss a case: %d truncated lists, %d cross-file kills, %d untimed actions with items", truncated, crossFile, untimed)
	}
}

// killedThenPushed is k killed items, reviewed in another file for every
// third one, then m pushes, all in one main file with a timestamp per row.
func killedThenPushed(k, m int) (risk, []model.Evidence) {
	base := time.Date(2026, 5, 7, 9, 0, 0, 0, time.UTC)
	killed := risk{items: make([]*killedItem, k), rev: &reviewResult{}}
	for i := range killed.items {
		killed.items[i] = &killedItem{name: fmt.Sprint(i), known: model.Evidence{File: "s.jsonl", Line: i + 1, Time: base.Add(time.Duration(i) * time.Second)}}
		if i%3 == 0 {
			killed.rev.at(i, k).reviewedAt = &model.Evidence{File: "s/subagents/agent-r.jsonl", Line: i + 1, Time: base.Add(time.Duration(k+2*i) * time.Second)}
		}
	}
	acts := make([]model.Evidence, m)
	for i := range acts {
		acts[i] = model.Evidence{File: "s.jsonl", Line: k + 1 + i, Time: base.Add(time.Duration(k+i) * time.Second)}
	}
	return killed, acts
}

// BenchmarkOutstandingAt (issue 12, item 12): k killed items and m = k/10
// ship actions. Every action used to visit every item (k × m: bench/hostile's
// 40,329 killed × 4,032 pushes took 2 s); the sweep grows with (k + m) log k.
func BenchmarkOutstandingAt(b *testing.B) {
	for _, k := range []int{4000, 16000, 64000} {
		killed, acts := killedThenPushed(k, k/10)
		b.Run(fmt.Sprintf("k=%d,m=%d", k, k/10), func(b *testing.B) {
			for b.Loop() {
				out, _ := outstandingAt(killed, acts)
				if out[0].count == 0 {
					b.Fatal("nothing outstanding")
				}
			}
		})
	}
}
