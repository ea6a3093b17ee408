package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/fixtures/gen/fleet"
)

func runScan(t *testing.T, args ...string) (scanOutput, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(append([]string{"scan", "--json"}, args...), strings.NewReader(""), &out, &errb)
	var doc scanOutput
	if code != ExitUsage || out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("scan %v: %v\n%s\n%s", args, err, out.String(), errb.String())
		}
	}
	return doc, errb.String(), code
}

// TestScanJobsDoNotChangeTheOutput scans the fixtures with one reader and
// with eight: the listing is byte for byte the same, in input order.
func TestScanJobsDoNotChangeTheOutput(t *testing.T) {
	root := filepath.Join("..", "..", "fixtures", "runs")
	var outs []string
	for _, j := range []string{"1", "8"} {
		var out, errb bytes.Buffer
		code := Run([]string{"scan", "--json", "--jobs", j, root}, strings.NewReader(""), &out, &errb)
		if code != ExitOK && code != ExitUsage {
			t.Fatalf("jobs %s: exit %d: %s", j, code, errb.String())
		}
		outs = append(outs, out.String())
	}
	if outs[0] != outs[1] || len(outs[0]) < 1000 {
		t.Fatalf("--jobs 1 and --jobs 8 differ (or nothing was listed):\n%s\n---\n%s", outs[0], outs[1])
	}
}

// TestScanShardsPartitionTheFleet splits a generated fleet three ways: every
// run is in exactly one shard, and the shards together list what one scan does.
func TestScanShardsPartitionTheFleet(t *testing.T) {
	dir := t.TempDir()
	if err := fleet.WriteFleet(dir, 60); err != nil {
		t.Fatal(err)
	}
	full, _, code := runScan(t, dir)
	if code != ExitOK || len(full.Runs) != 60 {
		t.Fatalf("full scan: exit %d, %d runs", code, len(full.Runs))
	}
	var union []scanRun
	var totals int
	for _, sh := range []string{"1/3", "2/3", "3/3"} {
		doc, stderr, code := runScan(t, "--shard", sh, "--allow-empty", dir)
		if code != ExitOK {
			t.Fatalf("shard %s: exit %d: %s", sh, code, stderr)
		}
		if len(doc.Runs) == 60 {
			t.Fatalf("shard %s holds the whole fleet", sh)
		}
		union = append(union, doc.Runs...)
		totals += doc.Totals.Rows
		again, _, _ := runScan(t, "--shard", sh, "--allow-empty", dir)
		if !reflect.DeepEqual(doc, again) {
			t.Fatalf("shard %s is not stable between runs", sh)
		}
	}
	sort.Slice(union, func(i, j int) bool { return union[i].Path < union[j].Path })
	if !reflect.DeepEqual(union, full.Runs) || totals != full.Totals.Rows {
		t.Fatalf("shards do not add up to the full scan: %d runs vs %d", len(union), len(full.Runs))
	}
}

func TestScanRejectsBadShardAndJobs(t *testing.T) {
	for _, args := range [][]string{{"--shard", "0/2"}, {"--shard", "3/2"}, {"--shard", "1-2"}, {"--shard", "1/0"}, {"--jobs", "-1"}} {
		_, stderr, code := runScan(t, append(args, filepath.Join("..", "..", "fixtures", "runs"))...)
		if code != ExitUsage || !strings.Contains(stderr, "pmcheck: --") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with one line", args, code, stderr)
		}
	}
}

// TestProgressBarOnlyOnATerminal: a buffer is not a terminal, so nothing is
// drawn unless asked; asked, the bar goes to standard error only.
func TestProgressBarOnlyOnATerminal(t *testing.T) {
	root := filepath.Join("..", "..", "fixtures", "runs")
	for _, mode := range []string{"auto", "always"} {
		var out, errb bytes.Buffer
		Run([]string{"scan", "--progress", mode, root}, strings.NewReader(""), &out, &errb)
		drawn := strings.Contains(errb.String(), "files\r") || strings.Contains(errb.String(), "] ")
		if drawn != (mode == "always") {
			t.Errorf("--progress %s: bar drawn = %v; stderr %q", mode, drawn, errb.String())
		}
		if strings.Contains(out.String(), "\r") {
			t.Errorf("--progress %s: carriage return on standard output", mode)
		}
	}
}

// TestScanJSONEscapesDisplayControls (issue 29, item 11): a run whose file
// name carries a C1 control and a bidi override is listed by scan --json
// with both as \u escapes, as in the JSON report.
func TestScanJSONEscapesDisplayControls(t *testing.T) {
	src := filepath.Join("..", "..", explainFixture)
	dir := t.TempDir()
	copyTree(t, src, filepath.Join(dir, "r\u009b1m\u202egnp"))
	var out, errb bytes.Buffer
	if code := Run([]string{"scan", "--json", dir}, strings.NewReader(""), &out, &errb); code != ExitOK {
		t.Fatalf("scan: exit %d: %s", code, errb.String())
	}
	if strings.ContainsRune(out.String(), 0x9b) || strings.ContainsRune(out.String(), 0x202e) || !strings.Contains(out.String(), `r\u009b1m\u202egnp`) {
		t.Errorf("scan --json keeps raw controls:\n%s", out.String())
	}
}
