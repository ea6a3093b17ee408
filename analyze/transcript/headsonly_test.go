package transcript

import (
	"bytes"
	"reflect"
	"testing"
)

// heads is what Options.HeadsOnly keeps of a transcript.
type heads struct {
	Lines, Rows, ClaudeCodeRows, MalformedCount, MalformedSkipped, OverCap, Duplicates int
	FirstRowLine, LastRowLine                                                          int
	UUIDs                                                                              []uint64
	FirstUUID                                                                          uint64
	FirstTime                                                                          string
	SessionID, Version, Cwd, GitBranch                                                 string
	Malformed                                                                          any
}

func headsOf(data []byte, opts Options) (heads, error) {
	t, err := Read(bytes.NewReader(data), "f", opts)
	if err != nil {
		return heads{}, err
	}
	return heads{t.Lines, t.Rows, t.ClaudeCodeRows, t.MalformedCount, t.MalformedSkipped, t.OverCap, t.Duplicates,
		t.FirstRowLine, t.LastRowLine, t.UUIDs, t.FirstUUID, t.FirstTime.String(),
		t.SessionID, t.Version, t.Cwd, t.GitBranch, t.Malformed}, nil
}

// TestHeadsOnlyIsTheWholeReadingsHeads: a reading for the heads only
// (Options.HeadsOnly, how the loader reads a likely resume copy before it
// is known to be one) gives the counts, uuids, first time and ids a whole
// reading gives, on every transcript of the fixtures and the corpus, the
// seeds, and with a small line cap; and it keeps no calls.
func TestHeadsOnlyIsTheWholeReadingsHeads(t *testing.T) {
	var inputs [][]byte
	inputs = append(inputs, transcriptSeeds()...)
	eachTranscript(t, realRoots(t), func(_ string, data []byte) error {
		inputs = append(inputs, data)
		return nil
	})
	calls := 0
	for i, data := range inputs {
		for _, opts := range []Options{{}, {LineCap: 200}} {
			want, err := headsOf(data, opts)
			if err != nil {
				t.Fatal(err)
			}
			ho := opts
			ho.HeadsOnly = true
			got, err := headsOf(data, ho)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("input %d (cap %d): heads differ:\n%+v\n%+v", i, opts.LineCap, got, want)
			}
			tr, _ := Read(bytes.NewReader(data), "f", ho)
			calls += len(tr.ToolCalls) + len(tr.Notifications)
		}
	}
	if len(inputs) < 50 || calls != 0 {
		t.Fatalf("%d inputs, %d calls kept by heads-only readings", len(inputs), calls)
	}
}
