package model

import (
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// A transcript keeps one result per retained call: a field added to
// ToolResult costs every one of them (the 1 GiB benchmark transcript keeps
// 83,077), so a larger struct fails here.
func TestToolResultIs40Bytes(t *testing.T) {
	if n := unsafe.Sizeof(ToolResult{}); n > 40 {
		t.Errorf("ToolResult is %d bytes, want at most 40 (a transcript keeps one per retained call)", n)
	}
	// Every agent, Workflow and failed result has an Extra: 160 bytes is
	// its allocation size class.
	if n := unsafe.Sizeof(ResultExtra{}); n > 160 {
		t.Errorf("ResultExtra is %d bytes, want at most 160", n)
	}
}

// A result gives back everything it was built with: each flag alone, the
// text and its length (at and past what the result holds inline, with every
// flag set), the rare fields, and its evidence (in full when hand-built; from
// the staircase when read).
func TestToolResultKeepsItsContents(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	base := ResultInput{ToolUseID: "toolu_1", At: Evidence{File: "a.jsonl", Line: 4, Time: t0}, Text: "ok", TextLen: 2}
	ins := []ResultInput{base}
	for i := range 6 {
		in := base
		*[]*bool{&in.IsError, &in.HasPartialNotice, &in.StartsWithAPIErrorPrefix, &in.IsAsync, &in.Interrupted, &in.Copied}[i] = true
		ins = append(ins, in)
	}
	for _, n := range []int{maxTextLen, maxTextLen + 1, math.MaxUint32 + 7} {
		big := base
		big.TextLen = n
		big.IsError, big.HasPartialNotice, big.StartsWithAPIErrorPrefix, big.IsAsync, big.Interrupted, big.Copied = true, true, true, true, true, true
		big.Extra = &ResultExtra{Status: "completed", PollTaskID: "b1"}
		ins = append(ins, big)
	}
	tr := &Transcript{File: "a.jsonl"}
	tr.Steps.Append(1, t0)
	call := tr.NewToolCall(CallInput{ID: "toolu_1", Name: "Bash", At: Evidence{File: "a.jsonl", Line: 3, Time: t0}})
	for i, in := range ins {
		if got := NewToolResult(in).Input(); !reflect.DeepEqual(got, in) {
			t.Errorf("%d: hand-built: got %+v, want %+v", i, got, in)
		}
		for _, c := range []*ToolCall{call, nil} {
			read := in // a reader hands over its Extra
			if in.Extra != nil {
				read.Extra = new(*in.Extra)
			}
			if got := tr.NewToolResult(read, c).Input(); !reflect.DeepEqual(got, in) {
				t.Errorf("%d (call %v): read: got %+v, want %+v", i, c != nil, got, in)
			}
		}
	}
	shared := &ResultExtra{Status: "completed"}
	a := NewToolResult(ResultInput{At: Evidence{Line: 1}, Extra: shared})
	b := NewToolResult(ResultInput{At: Evidence{Line: 2}, Extra: shared})
	if a.At().Line != 1 || b.At().Line != 2 || shared.rare != nil {
		t.Error("hand-built results that share an Extra share their evidence")
	}
	var none *ToolResult
	if none.ToolUseID() != "" || none.Status() != "" {
		t.Error("a nil result's id and rare fields are not empty")
	}
}

// A read result takes its id and its file from the call it answers, or keeps
// them itself when its transcript holds no such call, until SetCall links
// the call read after it; either way it reads the same.
func TestToolResultReadsThroughItsCall(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	tr := &Transcript{File: "s.jsonl"}
	tr.Steps.Append(3, t0)
	tr.Steps.Append(9, t0.Add(time.Minute))
	call := tr.NewToolCall(CallInput{ID: "toolu_9", Name: "Bash", At: Evidence{File: "s.jsonl", Line: 9, Time: t0.Add(time.Minute)}})
	for _, want := range []Evidence{
		{File: "s.jsonl", Line: 1, Time: t0},
		{File: "s.jsonl", Line: 9, Time: t0.Add(time.Minute)},
		{File: "s.jsonl", Line: math.MaxUint32 + 5, Time: t0.Add(time.Minute)},
	} {
		for _, c := range []*ToolCall{call, nil} {
			r := tr.NewToolResult(ResultInput{ToolUseID: "toolu_9", At: want}, c)
			if got := r.At(); got != want || r.Line() != want.Line || r.ToolUseID() != "toolu_9" {
				t.Errorf("call %v: At() = %+v, id %q; want %+v", c != nil, got, r.ToolUseID(), want)
			}
		}
	}
	at := Evidence{File: "s.jsonl", Line: 4, Time: t0}
	known := tr.NewToolResult(ResultInput{ToolUseID: "toolu_9", At: at, Text: "ok", TextLen: 2}, call)
	if known.Extra != nil {
		t.Errorf("a result of a known call keeps %+v beside it", *known.Extra)
	}
	early := tr.NewToolResult(ResultInput{ToolUseID: "toolu_9", At: at, Text: "ok", TextLen: 2}, nil)
	if x := early.rare(); x.toolUseID != "toolu_9" || x.t != tr {
		t.Fatal("a result without its call does not keep its id and file")
	}
	early.SetCall(call)
	if early.Extra != nil || early.ToolUseID() != "toolu_9" || early.At() != at {
		t.Errorf("after SetCall: Extra %v, id %q, at %+v", early.Extra, early.ToolUseID(), early.At())
	}
	withExtra := tr.NewToolResult(ResultInput{ToolUseID: "toolu_9", At: at, Extra: &ResultExtra{Status: "completed"}}, nil)
	withExtra.SetCall(call)
	if withExtra.Status() != "completed" || withExtra.Extra.rare != nil {
		t.Errorf("SetCall lost the rare fields or kept the id: %+v", *withExtra.Extra)
	}

	// Set keeps the call while the id is the call's, and the file otherwise.
	in := known.Input()
	in.Text, in.TextLen, in.IsError = "boom", 4, true
	known.Set(in)
	if known.Text != "boom" || !known.IsError() || known.At() != at || known.ToolUseID() != "toolu_9" || known.Extra != nil {
		t.Errorf("Set with the call's id: %+v", known.Input())
	}
	in.ToolUseID = "toolu_other"
	known.Set(in)
	if known.ToolUseID() != "toolu_other" || known.At() != at || call.ID() != "toolu_9" {
		t.Errorf("Set with another id: %+v (call id %q)", known.Input(), call.ID())
	}
}
