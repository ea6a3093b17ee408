package model

import (
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

func TestToolResultIs64Bytes(t *testing.T) {
	if n := unsafe.Sizeof(ToolResult{}); n > 64 {
		t.Errorf("ToolResult is %d bytes, want at most 64 (a transcript keeps one per retained call)", n)
	}
}

// A result gives back everything it was built with: each flag alone, the
// text and its length (past a uint32 too), the rare fields, and its
// evidence (in full when hand-built; from the staircase when read).
func TestToolResultKeepsItsContents(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	base := ResultInput{ToolUseID: "toolu_1", At: Evidence{File: "a.jsonl", Line: 4, Time: t0}, Text: "ok", TextLen: 2}
	ins := []ResultInput{base}
	for i := range 6 {
		in := base
		*[]*bool{&in.IsError, &in.HasPartialNotice, &in.StartsWithAPIErrorPrefix, &in.IsAsync, &in.Interrupted, &in.Copied}[i] = true
		ins = append(ins, in)
	}
	big := base
	big.TextLen = math.MaxUint32 + 7
	big.Extra = &ResultExtra{Status: "completed", PollTaskID: "b1"}
	ins = append(ins, big)
	for i, in := range ins {
		if got := NewToolResult(in).Input(); !reflect.DeepEqual(got, in) {
			t.Errorf("%d: got %+v, want %+v", i, got, in)
		}
	}
	shared := &ResultExtra{Status: "completed"}
	a := NewToolResult(ResultInput{At: Evidence{Line: 1}, Extra: shared})
	b := NewToolResult(ResultInput{At: Evidence{Line: 2}, Extra: shared})
	if a.At().Line != 1 || b.At().Line != 2 || shared.at != nil {
		t.Error("hand-built results that share an Extra share their evidence")
	}
	tr := &Transcript{File: "s.jsonl"}
	tr.Steps.Append(3, t0)
	tr.Steps.Append(9, t0.Add(time.Minute))
	for _, want := range []Evidence{
		{File: "s.jsonl", Line: 1, Time: t0},
		{File: "s.jsonl", Line: 9, Time: t0.Add(time.Minute)},
		{File: "s.jsonl", Line: math.MaxUint32 + 5, Time: t0.Add(time.Minute)},
	} {
		r := tr.NewToolResult(ResultInput{ToolUseID: "x", At: want})
		if got := r.At(); got != want || r.Line() != want.Line {
			t.Errorf("At() = %+v, want %+v", got, want)
		}
	}
}
