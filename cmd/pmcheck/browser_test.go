package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/pmcheck/pmcheck/fixtures/gen"
	"github.com/pmcheck/pmcheck/internal/testcorpus"
	"github.com/pmcheck/pmcheck/report"
)

// findBrowser returns a Chromium or Chrome binary: PMCHECK_CHROME, else the
// first of the usual names on PATH. With none, the test skips, except under
// CI=true, where a missing browser fails: .ci/run installs Debian's chromium.
func findBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PMCHECK_CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium on PATH and CI=true: the browser test must run in CI (.ci/run installs the Debian package chromium)")
	}
	t.Skip("no Chromium or Chrome on PATH (apt-get install chromium, or set PMCHECK_CHROME); skipping the browser test outside CI")
	return ""
}

// pageState is what the page script reports of the DOM.
type pageState struct {
	Scripts  int `json:"scripts"`
	Handlers int `json:"handlers"`
	Images   int `json:"images"`
	Findings []struct {
		ID      string  `json:"id"`
		Visible bool    `json:"visible"`
		Href    string  `json:"href"`
		Target  bool    `json:"target"`
		TW      float64 `json:"tw"`
		TH      float64 `json:"th"`
	} `json:"findings"`
	Lanes []struct {
		ID    string   `json:"id"`
		Start string   `json:"start"`
		End   string   `json:"end"`
		T0    string   `json:"t0"`
		T1    string   `json:"t1"`
		X0    float64  `json:"x0"`
		W     float64  `json:"w"`
		Segs  string   `json:"segs"`
		X     *float64 `json:"x"`
		Width *float64 `json:"width"`
		Y     *float64 `json:"y"`
		SVG   int      `json:"svg"`
	} `json:"lanes"`
	Markers []struct {
		ID     string  `json:"id"`
		T      string  `json:"t"`
		T0     string  `json:"t0"`
		T1     string  `json:"t1"`
		X0     float64 `json:"x0"`
		W      float64 `json:"w"`
		Segs   string  `json:"segs"`
		CX     float64 `json:"cx"`
		Shown  bool    `json:"shown"`
		Beyond bool    `json:"beyond"`
	} `json:"markers"`
	FiltersShown bool `json:"filtersShown"`
	// DuplicateIDs are the element ids the page uses more than once.
	DuplicateIDs []string `json:"duplicateIds"`
	// Legend are the legend's entries; Drawn what the timelines draw, in
	// the legend's keys (report.markerKey and the bar classes).
	Legend []string `json:"legend"`
	Drawn  []string `json:"drawn"`
	// Chains counts the finding cards that list their deciding rows;
	// Excerpted those whose rows show an excerpt.
	Chains    int `json:"chains"`
	Excerpted int `json:"excerpted"`
}

const pageProbe = `(() => {
  const out = {scripts: document.scripts.length, handlers: 0, images: document.images.length, findings: [], lanes: [], markers: [], chains: 0, excerpted: 0,
    filtersShown: !!(document.querySelector('.filters') && document.querySelector('.filters').offsetParent)};
  document.querySelectorAll('*').forEach(el => { for (const a of el.attributes) if (a.name.startsWith('on')) out.handlers++; });
  for (const a of document.querySelectorAll('article.finding')) {
    const r = a.getBoundingClientRect();
    const link = a.querySelector('a.to-timeline');
    const f = {id: a.id, visible: r.width > 0 && r.height > 0, href: link ? link.getAttribute('href') : '', target: false, tw: 0, th: 0};
    if (link) {
      const t = document.getElementById(link.getAttribute('href').slice(1));
      if (t) { t.scrollIntoView(); const b = t.getBoundingClientRect(); f.target = true; f.tw = b.width; f.th = b.height; }
    }
    out.findings.push(f);
  }
  document.querySelectorAll('svg.timeline').forEach((svg, si) => {
    const d = svg.dataset;
    for (const g of svg.querySelectorAll('g.lane')) {
      const bar = g.querySelector('rect.bar');
      out.lanes.push({id: g.id, start: g.dataset.start, end: g.dataset.end, t0: d.t0, t1: d.t1, x0: +d.x0, w: +d.w, segs: d.segs || '', svg: si,
        x: bar ? +bar.getAttribute('x') : null, width: bar ? +bar.getAttribute('width') : null, y: bar ? +bar.getAttribute('y') : null});
    }
    for (const m of svg.querySelectorAll('g.m[id]')) {
      const bb = m.getBBox(), r = m.getBoundingClientRect();
      out.markers.push({id: m.id, t: m.dataset.t, t0: d.t0, t1: d.t1, x0: +d.x0, w: +d.w, segs: d.segs || '', cx: bb.x + bb.width / 2, shown: r.width > 0, beyond: m.classList.contains('beyond')});
    }
  });
  const ids = {};
  document.querySelectorAll('[id]').forEach(el => { ids[el.id] = (ids[el.id] || 0) + 1; });
  out.duplicateIds = Object.keys(ids).filter(k => ids[k] > 1);
  out.legend = [...document.querySelectorAll('ul.legend li[data-key]')].map(li => li.dataset.key);
  const drawn = new Set();
  document.querySelectorAll('svg.timeline g.lane').forEach(g => {
    if (!g.querySelector('rect.bar')) return;
    const c = g.classList;
    drawn.add(c.contains('killed') ? 'bar-killed' : c.contains('bad') ? 'bar-bad' : 'bar-' + [...c].find(x => x.startsWith('lane-')).slice(5));
  });
  document.querySelectorAll('svg.timeline g.m').forEach(m => {
    const c = m.classList, kind = [...c].find(x => x.startsWith('m-')).slice(2);
    if (kind === 'end') drawn.add(c.contains('src-failed') || c.contains('src-stopped') ? 'end-bad' : 'end');
    else if (kind === 'watchdog') drawn.add(['watch', 'harness', 'workflow-runtime'].map(s => 'src-' + s).find(s => c.contains(s)) ? 'watchdog-' + [...c].find(x => x.startsWith('src-')).slice(4) : 'watchdog-other');
    else drawn.add(kind);
  });
  if (document.querySelector('svg.timeline g.fold')) drawn.add('fold');
  out.drawn = [...drawn].sort();
  for (const a of document.querySelectorAll('article.finding')) {
    if (!a.querySelector('ol.chain')) continue;
    out.chains++;
    if ([...a.querySelectorAll('q.excerpt')].some(q => q.textContent.trim() !== '')) out.excerpted++;
  }
  return out;
})()`

// TestHTMLInBrowser opens the HTML report of several fixtures, a hostile
// report and a corpus run in headless Chromium and checks the page through
// its DOM: no console error, every finding's link lands on a visible spot of
// the timeline, lanes and markers sit where the facts put them, no script
// but the page's own, and the page reads with scripts off.
func TestHTMLInBrowser(t *testing.T) {
	browser := findBrowser(t)
	t.Chdir("../..")
	dir := t.TempDir()
	type page struct{ name, html, json string }
	var pages []page
	check := func(name string, args ...string) {
		h, j := filepath.Join(dir, name+".html"), filepath.Join(dir, name+".json")
		code, _, errOut := runCLI(append([]string{"check", "--fail-level", "none", "--format", "html=" + h, "--format", "json=" + j, "--"}, args...)...)
		if code != ExitOK {
			t.Fatalf("check %v: exit %d: %s", args, code, errOut)
		}
		pages = append(pages, page{name, h, j})
	}
	for _, f := range []string{"rule-killed-subagent-shipped-unreviewed-bad", "detect-workflow-attempts", "replay-kill-retry", "rule-watchdog-disagreement-bad", "rule-quiet-agent-bad"} {
		check(f, "fixtures/runs/"+f)
	}
	pages = append(pages, hostilePage(t, dir))
	if corpus := testcorpus.Dir(t); corpus != "" {
		check("corpus", filepath.Join(corpus, "handgemacht-ai__claude-code-log"))
	} else if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but PMCHECK_CORPUS is unset: the browser test covers a corpus run")
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			var doc *report.Document
			if p.json != "" {
				f, err := os.Open(p.json)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if doc, err = report.Decode(f, p.json); err != nil {
					t.Fatal(err)
				}
			}
			st, shot, problems := loadPage(t, browserCtx, p.html, false)
			for _, pr := range problems {
				t.Errorf("%s", pr)
			}
			out := filepath.Join(t.TempDir(), p.name+".png")
			if err := os.WriteFile(out, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			if keep := os.Getenv("PMCHECK_SCREENSHOTS"); keep != "" {
				os.WriteFile(filepath.Join(keep, p.name+".png"), shot, 0o644)
			}
			t.Logf("screenshot: %s", out)
			checkPage(t, st, doc)
			if p.name != "hostile" && st.Excerpted != st.Chains {
				// The hostile page is rendered from a saved JSON report
				// without excerpts; check's own pages carry them.
				t.Errorf("%d of %d finding cards show their rows' excerpts", st.Excerpted, st.Chains)
			}
			// With scripts off the page reads the same: every finding is
			// shown, and the filters (which need the script) are hidden.
			off, _, problems := loadPage(t, browserCtx, p.html, true)
			for _, pr := range problems {
				t.Errorf("scripts off: %s", pr)
			}
			if off.FiltersShown || len(off.Findings) != len(st.Findings) {
				t.Errorf("scripts off: filters shown %v, %d findings (with scripts %d)", off.FiltersShown, len(off.Findings), len(st.Findings))
			}
			for _, f := range off.Findings {
				if !f.Visible {
					t.Errorf("scripts off: finding %s is not visible", f.ID)
				}
			}
		})
	}
}

// loadPage opens file in a new tab and returns the DOM probe, a screenshot,
// and the console errors, exceptions and error log entries (a blocked
// request, a CSP violation) the page caused.
func loadPage(t *testing.T, browserCtx context.Context, file string, noScript bool) (pageState, []byte, []string) {
	t.Helper()
	tab, cancelTab := chromedp.NewContext(browserCtx)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(tab); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var problems []string
	chromedp.Listen(tab, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				problems = append(problems, fmt.Sprintf("console.%s", e.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		}
	})
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if noScript {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	abs, _ := filepath.Abs(file)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.ToSlash(abs))); err != nil {
		t.Fatal(err)
	}
	// The probe runs as DevTools code, so it works with page scripts off.
	raw, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[[]byte](pageProbe))
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	var st pageState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return st, shot, problems
}

func checkPage(t testing.TB, st pageState, doc *report.Document) {
	t.Helper()
	if len(st.DuplicateIDs) > 0 {
		t.Errorf("element ids used more than once: %q", st.DuplicateIDs)
	}
	legend := slices.Clone(st.Legend)
	slices.Sort(legend)
	if !slices.Equal(legend, st.Drawn) {
		t.Errorf("legend entries %q, but the timelines draw %q: one entry per colour and mark drawn", legend, st.Drawn)
	}
	if st.Scripts != 1 || st.Handlers != 0 || st.Images != 0 {
		t.Errorf("page has %d scripts, %d event-handler attributes, %d images; want only its own script", st.Scripts, st.Handlers, st.Images)
	}
	if doc != nil && len(st.Findings) != len(doc.Findings) {
		t.Errorf("%d findings on the page, %d in the report", len(st.Findings), len(doc.Findings))
	}
	for _, f := range st.Findings {
		if !f.Visible {
			t.Errorf("finding %s is not visible", f.ID)
		}
		if f.Href != "" && (!f.Target || f.TW <= 0 || f.TH <= 0) {
			t.Errorf("finding %s links to %s: exists %v, size %.0fx%.0f; want a visible spot on the timeline", f.ID, f.Href, f.Target, f.TW, f.TH)
		}
	}
	if doc == nil {
		return
	}
	for _, f := range doc.Findings {
		if f.Fact != nil && f.Fact.Kind != "run" && !slicesContainsHref(st, f.Fingerprint, doc) {
			t.Errorf("finding %s (%s) has no link to the timeline", f.Fingerprint, f.RuleID)
		}
	}
	// Lanes: each subagent's and attempt's bar starts and ends where its
	// fact's time and end fall on the svg's scale, and lanes go down in order.
	want := map[string][2]time.Time{}
	for ri, rf := range doc.Facts {
		for i, s := range rf.Subagents {
			want[fmt.Sprintf("r%d-subagent%d", ri, i)] = [2]time.Time{s.Time, s.End}
		}
		for i, a := range rf.Attempts {
			want[fmt.Sprintf("r%d-attempt%d", ri, i)] = [2]time.Time{a.Time, a.End}
		}
		for i, s := range rf.Ships {
			want[fmt.Sprintf("r%d-ship%d", ri, i)] = [2]time.Time{s.Time}
		}
		for i, w := range rf.Watchdogs {
			want[fmt.Sprintf("r%d-watchdog%d", ri, i)] = [2]time.Time{w.Time}
		}
	}
	linear := func(t0s, t1s string, x0, x1 float64, at time.Time) float64 {
		t0, _ := time.Parse(time.RFC3339Nano, t0s)
		t1, _ := time.Parse(time.RFC3339Nano, t1s)
		return x0 + float64(at.Sub(t0))/float64(t1.Sub(t0))*(x1-x0)
	}
	// scale is where the svg puts a time: its linear axis, or, folded, the
	// piece of data-segs ("t0 t1 x0 x1;…") that holds the time.
	var segs string
	scale := func(t0s, t1s string, x0, w float64, at time.Time) float64 {
		if segs == "" {
			return linear(t0s, t1s, x0, x0+w, at)
		}
		pieces := strings.Split(segs, ";")
		for i, p := range pieces {
			f := strings.Fields(p)
			t1, _ := time.Parse(time.RFC3339Nano, f[1])
			if at.After(t1) && i < len(pieces)-1 {
				continue
			}
			a, _ := strconv.ParseFloat(f[2], 64)
			b, _ := strconv.ParseFloat(f[3], 64)
			return linear(f[0], f[1], a, b, at)
		}
		return math.NaN()
	}
	checked := 0
	lastY := map[int]float64{}
	for _, l := range st.Lanes {
		if l.Y != nil {
			if y, ok := lastY[l.SVG]; ok && *l.Y <= y {
				t.Errorf("lane %s is not below the lane before it", l.ID)
			}
			lastY[l.SVG] = *l.Y
		}
		w, ok := want[l.ID]
		if !ok || w[0].IsZero() || l.X == nil {
			continue
		}
		segs = l.Segs
		if got := l.Start; got != w[0].UTC().Format(time.RFC3339Nano) {
			t.Errorf("lane %s starts at %s, its fact at %s", l.ID, got, w[0])
		}
		x := scale(l.T0, l.T1, l.X0, l.W, w[0])
		if math.Abs(*l.X-x) > 0.11 {
			t.Errorf("lane %s bar at x=%.1f, the fact's time is at x=%.1f", l.ID, *l.X, x)
		}
		if !w[1].IsZero() {
			x2 := scale(l.T0, l.T1, l.X0, l.W, w[1])
			if x2-x >= 1 && math.Abs(*l.X+*l.Width-x2) > 0.21 {
				t.Errorf("lane %s bar ends at x=%.1f, the fact's end is at x=%.1f", l.ID, *l.X+*l.Width, x2)
			}
		}
		checked++
	}
	for _, m := range st.Markers {
		w, ok := want[m.ID]
		if !ok || w[0].IsZero() || !m.Shown {
			continue
		}
		segs = m.Segs
		if m.Beyond {
			// Past a clipped axis: at the right edge, after the axis end.
			if t1, _ := time.Parse(time.RFC3339Nano, m.T1); !w[0].After(t1) || m.CX < m.X0+m.W {
				t.Errorf("marker %s is drawn beyond the axis, but its fact's time %s is not after %s", m.ID, w[0], m.T1)
			}
			continue
		}
		if x := scale(m.T0, m.T1, m.X0, m.W, w[0]); math.Abs(m.CX-x) > 0.6 {
			t.Errorf("marker %s centred at x=%.1f, its fact's time is at x=%.1f", m.ID, m.CX, x)
		}
		checked++
	}
	if len(want) > 0 && checked == 0 {
		t.Errorf("no lane or marker of %d facts was checked", len(want))
	}
}

// slicesContainsHref: the finding with this fingerprint links to the timeline.
func slicesContainsHref(st pageState, fp string, doc *report.Document) bool {
	for i, f := range doc.Findings {
		if f.Fingerprint == fp && i < len(st.Findings) {
			return st.Findings[i].Href != ""
		}
	}
	return false
}

// hostilePage renders a report whose transcript text tries to run script:
// a fixture's saved JSON with hostile descriptions, commands and paths.
func hostilePage(t *testing.T, dir string) struct{ name, html, json string } {
	t.Helper()
	saved := filepath.Join(dir, "hostile-src.json")
	if code, _, errOut := runCLI("check", "--fail-level", "none", "--format", "json="+saved, "fixtures/runs/rule-killed-subagent-shipped-unreviewed-bad"); code != ExitOK {
		t.Fatalf("check: %s", errOut)
	}
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	evil := `<script>console.error('pwned')</script>\"><img src=x onerror=console.error(1)> javascript:console.error(2) \u202egnp.exe <svg onload=console.error(3)>`
	s := strings.ReplaceAll(string(b), "Refactor the billing module", evil)
	s = strings.ReplaceAll(s, "git push origin feat/rules", "git push "+evil)
	hostile := filepath.Join(dir, "hostile.json")
	if err := os.WriteFile(hostile, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	h := filepath.Join(dir, "hostile.html")
	if code, _, errOut := runCLI("render", "--format", "html="+h, hostile); code != ExitOK {
		t.Fatalf("render of the hostile report: %s", errOut)
	}
	return struct{ name, html, json string }{"hostile", h, hostile}
}

// TestBrowserChecksCanFail: the same probes catch a page that logs an error,
// runs an injected script, breaks its CSP and draws a lane in the wrong place.
func TestBrowserChecksCanFail(t *testing.T) {
	browser := findBrowser(t)
	t.Chdir("../..")
	dir := t.TempDir()
	j := filepath.Join(dir, "r.json")
	h := filepath.Join(dir, "r.html")
	if code, _, errOut := runCLI("check", "--fail-level", "none", "--format", "json="+j, "--format", "html="+h, "fixtures/runs/detect-workflow-attempts"); code != ExitOK {
		t.Fatal(errOut)
	}
	page, _ := os.ReadFile(h)
	bad := strings.Replace(string(page), "<main>", `<main><script>console.error("x")</script><img src="https://example.invalid/x.png">`, 1)
	// Move the workflow run's first attempt bar 40 units right.
	i := strings.Index(bad, `id="r1-attempt0"`)
	k := i + strings.Index(bad[i:], `class="bar" x="`) + len(`class="bar" x="`)
	e := k + strings.Index(bad[k:], `"`)
	x, _ := strconv.ParseFloat(bad[k:e], 64)
	bad = bad[:k] + strconv.FormatFloat(x+40, 'f', 1, 64) + bad[e:]
	if err := os.WriteFile(h, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	st, _, problems := loadPage(t, browserCtx, h, false)
	if len(problems) < 2 {
		t.Errorf("the blocked script and image gave %d problems: %q", len(problems), problems)
	}
	if st.Scripts != 2 || st.Images != 1 {
		t.Errorf("probe counts %d scripts, %d images; want 2 and 1", st.Scripts, st.Images)
	}
	f, _ := os.Open(j)
	defer f.Close()
	doc, err := report.Decode(f, j)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	rec := &recorder{TB: t, msgs: &msgs}
	checkPage(rec, st, doc)
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "lane r1-attempt0 bar at x=") }) {
		t.Errorf("a misplaced lane was not caught: %q", msgs)
	}
}

// recorder collects Errorf calls instead of failing.
type recorder struct {
	testing.TB
	msgs *[]string
}

func (r *recorder) Errorf(format string, args ...any) {
	*r.msgs = append(*r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

// TestHTMLLongSessionOfSixtyAgents (issue 31, item 4): a generated session
// of eight hours with 60 subagents of two or three minutes each, in bursts
// an hour and more apart, checked at 1400 and 390 CSS pixels: one legend
// entry per colour and mark drawn, unique ids, excerpts in every finding
// card, and lanes that stay readable: the idle hours are folded (and
// marked), so each drawn subagent bar is wider than a dot, and on a phone
// the timeline keeps its size and scrolls sideways instead of shrinking.
func TestHTMLLongSessionOfSixtyAgents(t *testing.T) {
	browser := findBrowser(t)
	dir := t.TempDir()
	for _, f := range gen.LongSessionManyAgents(60) {
		writeFile(t, filepath.Join(dir, "runs", f.Path), f.Data)
	}
	h, j := filepath.Join(dir, "r.html"), filepath.Join(dir, "r.json")
	if code, _, errOut := runIn(t, dir, "check", "--fail-level", "none", "--format", "html="+h, "--format", "json="+j, "runs"); code != ExitOK {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}
	f, err := os.Open(j)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := report.Decode(f, j)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Facts) != 1 || len(doc.Facts[0].Subagents) != 60 {
		t.Fatalf("the generated run has %d runs, want one of 60 subagents", len(doc.Facts))
	}
	if page, _ := os.ReadFile(h); !strings.Contains(string(page), `<h3><span class="title">billing-overhaul</span>`) {
		t.Errorf("the run is not headed by the session's own title (its custom-title row)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}
	for _, width := range []int64{1400, 390} {
		t.Run(strconv.FormatInt(width, 10), func(t *testing.T) {
			tab, cancelTab := chromedp.NewContext(browserCtx)
			defer cancelTab()
			ctx, cancel := context.WithTimeout(tab, 60*time.Second)
			defer cancel()
			abs, _ := filepath.Abs(h)
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate("file://"+filepath.ToSlash(abs))); err != nil {
				t.Fatal(err)
			}
			raw, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[[]byte](pageProbe))
			if err != nil {
				t.Fatal(err)
			}
			var st pageState
			if err := json.Unmarshal(raw, &st); err != nil {
				t.Fatal(err)
			}
			checkPage(t, st, doc)
			if st.Chains == 0 || st.Excerpted != st.Chains {
				t.Errorf("%d of %d finding cards show their rows' excerpts", st.Excerpted, st.Chains)
			}
			if !slices.Contains(st.Drawn, "fold") {
				t.Errorf("the idle hours are not folded: %q", st.Drawn)
			}
			// The lanes as drawn on the screen: height and each subagent bar's width.
			lanes, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[[]struct {
				ID string  `json:"id"`
				H  float64 `json:"h"`
				W  float64 `json:"w"`
				SW float64 `json:"sw"`
			}](`[...document.querySelectorAll('svg.timeline')].slice(0, 1).flatMap(svg => [...svg.querySelectorAll('g.lane')].map(g => {
				const bar = g.querySelector('rect.bar'), b = bar.getBoundingClientRect(), vb = svg.viewBox.baseVal;
				return {id: g.id, h: svg.getBoundingClientRect().height / vb.height * 18, w: b.width, sw: svg.getBoundingClientRect().width};
			}))`))
			if err != nil {
				t.Fatal(err)
			}
			if len(lanes) < 2 {
				t.Fatalf("%d lanes drawn in the first timeline", len(lanes))
			}
			for _, l := range lanes {
				if l.H < 14 {
					t.Errorf("lane %s is %.1f px high at %d px: unreadable", l.ID, l.H, width)
				}
				if strings.Contains(l.ID, "subagent") && l.W < 4 {
					t.Errorf("subagent lane %s is %.1f px wide at %d px: a dot", l.ID, l.W, width)
				}
			}
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
			if err != nil {
				t.Fatal(err)
			}
			for name, data := range map[string][]byte{"page": shot} {
				out := filepath.Join(t.TempDir(), fmt.Sprintf("sixty-%d-%s.png", width, name))
				os.WriteFile(out, data, 0o644)
				if keep := os.Getenv("PMCHECK_SCREENSHOTS"); keep != "" {
					os.WriteFile(filepath.Join(keep, filepath.Base(out)), data, 0o644)
				}
				t.Logf("screenshot: %s", out)
			}
		})
	}
}
