package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/rules"
)

var (
	sarifSchemaOnce sync.Once
	sarifSchema     *jsonschema.Schema
	sarifSchemaErr  error
)

// officialSARIFSchema compiles report/testdata/sarif-2.1.0.json (see the
// README there for its source) with format assertions on.
func officialSARIFSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	sarifSchemaOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		sarifSchema, sarifSchemaErr = c.Compile("testdata/sarif-2.1.0.json")
	})
	if sarifSchemaErr != nil {
		t.Fatalf("compiling the SARIF schema: %v", sarifSchemaErr)
	}
	return sarifSchema
}

func validateSARIFSchema(t testing.TB, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return officialSARIFSchema(t).Validate(inst)
}

func TestSARIFValidAgainstOfficialSchema(t *testing.T) {
	for _, fx := range fixtures {
		for _, opts := range []Options{{}, {SARIFCategory: "pmcheck/agents"}} {
			out := render(t, fx.build(t), FormatSARIF, opts)
			if err := validateSARIFSchema(t, out); err != nil {
				t.Errorf("%s: SARIF is not valid against the 2.1.0 schema: %v", fx.name, err)
			}
			if errs := checkGitHubSARIF(out); len(errs) > 0 {
				t.Errorf("%s: SARIF breaks GitHub's upload rules:\n%s", fx.name, strings.Join(errs, "\n"))
			}
		}
	}
}

// The schema test must be able to fail: defects GitHub rejects are caught.
func TestSARIFSchemaCatchesDefects(t *testing.T) {
	good := string(render(t, fixtureMixed(t), FormatSARIF, Options{}))
	for name, bad := range map[string]string{
		"level critical": strings.Replace(good, `"level": "error"`, `"level": "critical"`, 1),
		"line 0":         strings.Replace(good, `"startLine": 120`, `"startLine": 0`, 1),
		"no message":     strings.Replace(good, `"message": {`, `"mess": {`, 1),
		"no version":     strings.Replace(good, `"version": "2.1.0"`, `"version": "2.0.0"`, 1),
	} {
		if bad == good {
			t.Fatalf("%s: the edit did not apply", name)
		}
		if err := validateSARIFSchema(t, []byte(bad)); err == nil {
			t.Errorf("%s: the schema accepted a broken file", name)
		}
	}
}

// checkGitHubSARIF asserts what the schema and Microsoft's validator miss
// (research/ci-formats.md §1.4, §1.5, §3.3): one run, tags per rule,
// ruleId/ruleIndex agreement, relative percent-encoded URIs, 1-based regions,
// required texts, results present even when empty, limits.
func checkGitHubSARIF(data []byte) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
						FullDescription  struct{ Text string }
						Help             struct{ Text, Markdown string }
						Properties       struct {
							Tags []string `json:"tags"`
						} `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results *[]struct {
				RuleID              string `json:"ruleId"`
				RuleIndex           *int   `json:"ruleIndex"`
				Message             struct{ Text string }
				Locations           []json.RawMessage `json:"locations"`
				RelatedLocations    []json.RawMessage `json:"relatedLocations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Properties          map[string]any    `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	if !strings.HasSuffix(log.Schema, "2.1.0.json") && !strings.HasSuffix(log.Schema, "2.1.0") {
		fail("$schema %q does not end in 2.1.0.json (GH1011)", log.Schema)
	}
	if len(log.Runs) != 1 {
		fail("%d runs: GitHub rejects several runs of one tool and category; write one run per file", len(log.Runs))
	}
	for ri, run := range log.Runs {
		d := run.Tool.Driver
		if d.Name == "" {
			fail("run %d: no driver name", ri)
		}
		if len(d.Rules) > 25000 {
			fail("run %d: %d rules (limit 25000)", ri, len(d.Rules))
		}
		ids := map[string]bool{}
		for _, r := range d.Rules {
			if ids[r.ID] {
				fail("rule %s listed twice", r.ID)
			}
			ids[r.ID] = true
			if len(r.Properties.Tags) > MaxTagsPerRule {
				fail("rule %s has %d tags (GitHub limit %d)", r.ID, len(r.Properties.Tags), MaxTagsPerRule)
			}
			for what, text := range map[string]string{"shortDescription": r.ShortDescription.Text, "fullDescription": r.FullDescription.Text, "help": r.Help.Text} {
				if strings.TrimSpace(text) == "" {
					fail("rule %s: empty %s", r.ID, what)
				}
				if what != "help" && len([]rune(text)) > 1024 {
					fail("rule %s: %s longer than 1024 characters", r.ID, what)
				}
			}
		}
		if run.Results == nil {
			fail("run %d: results missing (GH1014); write [] when clean", ri)
			continue
		}
		if len(*run.Results) > 25000 {
			fail("run %d: %d results (limit 25000)", ri, len(*run.Results))
		}
		for i, res := range *run.Results {
			if res.RuleIndex == nil || *res.RuleIndex < 0 || *res.RuleIndex >= len(d.Rules) {
				fail("result %d: ruleIndex missing or out of range", i)
			} else if d.Rules[*res.RuleIndex].ID != res.RuleID {
				fail("result %d: ruleId %s but ruleIndex %d is rule %s", i, res.RuleID, *res.RuleIndex, d.Rules[*res.RuleIndex].ID)
			}
			if strings.TrimSpace(res.Message.Text) == "" {
				fail("result %d: empty message", i)
			}
			if len(res.Locations) < 1 || len(res.Locations) > 1000 {
				fail("result %d: %d locations (want 1 to 1000)", i, len(res.Locations))
			}
			if len(res.PartialFingerprints) > 0 {
				fail("result %d: partialFingerprints written; upload-sarif computes primaryLocationLineHash itself", i)
			}
			for _, raw := range append(append([]json.RawMessage{}, res.Locations...), res.RelatedLocations...) {
				var loc struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn, EndLine int }
					}
				}
				if err := json.Unmarshal(raw, &loc); err != nil {
					fail("result %d: bad location: %v", i, err)
					continue
				}
				errs = append(errs, checkURI(loc.PhysicalLocation.ArtifactLocation.URI)...)
				rg := loc.PhysicalLocation.Region
				if rg.StartLine < 1 || rg.StartColumn < 1 || rg.EndLine < rg.StartLine {
					fail("result %d: region %+v is not 1-based", i, rg)
				}
			}
		}
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(data)
	w.Close()
	if gz.Len() > 10<<20 {
		fail("gzip size %d bytes exceeds GitHub's 10 MB", gz.Len())
	}
	return errs
}

// checkURI asserts a repository-relative, percent-encoded URI reference.
func checkURI(uri string) []string {
	var errs []string
	switch {
	case uri == "":
		errs = append(errs, "empty uri")
	case strings.HasPrefix(uri, "/"):
		errs = append(errs, fmt.Sprintf("uri %q starts with / (SARIF1004)", uri))
	case strings.ContainsAny(uri, " \\\t\n"):
		errs = append(errs, fmt.Sprintf("uri %q is not percent-encoded", uri))
	}
	u, err := url.Parse(uri)
	if err != nil {
		return append(errs, fmt.Sprintf("uri %q does not parse: %v", uri, err))
	}
	if u.Scheme != "" || u.Host != "" {
		errs = append(errs, fmt.Sprintf("uri %q is absolute", uri))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		errs = append(errs, fmt.Sprintf("uri %q has a query or fragment: a path character was not encoded", uri))
	}
	for _, r := range uri {
		if r > 0x7e {
			errs = append(errs, fmt.Sprintf("uri %q has a non-ASCII character", uri))
			break
		}
	}
	return errs
}

// The Go assertions must catch what validators miss.
func TestCheckGitHubSARIFCatchesDefects(t *testing.T) {
	good := render(t, fixtureMixed(t), FormatSARIF, Options{})
	if errs := checkGitHubSARIF(good); len(errs) > 0 {
		t.Fatalf("good file flagged: %v", errs)
	}
	mutate := func(edit func(m map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(good, &m)
		edit(m)
		b, _ := json.Marshal(m)
		return b
	}
	run0 := func(m map[string]any) map[string]any { return m["runs"].([]any)[0].(map[string]any) }
	cases := map[string]struct {
		data  []byte
		wants string
	}{
		"duplicate runs": {mutate(func(m map[string]any) { m["runs"] = append(m["runs"].([]any), run0(m)) }), "2 runs"},
		"21 tags": {mutate(func(m map[string]any) {
			r := run0(m)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)[0].(map[string]any)
			r["properties"].(map[string]any)["tags"] = make([]any, 21)
		}), "21 tags"},
		"ruleIndex mismatch": {mutate(func(m map[string]any) {
			run0(m)["results"].([]any)[0].(map[string]any)["ruleIndex"] = 1.0
		}), "but ruleIndex 1"},
		"results missing": {mutate(func(m map[string]any) { delete(run0(m), "results") }), "results missing"},
		"unencoded uri": {mutate(func(m map[string]any) {
			res := run0(m)["results"].([]any)[0].(map[string]any)
			loc := res["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)
			loc["uri"] = "my dir/s1.jsonl"
		}), "not percent-encoded"},
		"fingerprint": {mutate(func(m map[string]any) {
			run0(m)["results"].([]any)[0].(map[string]any)["partialFingerprints"] = map[string]any{"primaryLocationLineHash": "x:1"}
		}), "partialFingerprints"},
	}
	for name, c := range cases {
		errs := strings.Join(checkGitHubSARIF(c.data), "\n")
		if !strings.Contains(errs, c.wants) {
			t.Errorf("%s: checker said %q, want %q", name, errs, c.wants)
		}
	}
}

func TestSARIFShape(t *testing.T) {
	clean := string(render(t, fixtureClean(t), FormatSARIF, Options{}))
	if !strings.Contains(clean, `"results": []`) {
		t.Errorf("a clean run must carry results: []")
	}
	if strings.Contains(clean, "automationDetails") {
		t.Errorf("automationDetails written without a category: it would override upload-sarif's category input")
	}
	withCat := string(render(t, fixtureClean(t), FormatSARIF, Options{SARIFCategory: "pmcheck"}))
	if !strings.Contains(withCat, `"id": "pmcheck/"`) {
		t.Errorf("category not written as automationDetails.id")
	}
	// Every evaluated rule is listed, fired or not.
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string } `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	json.Unmarshal([]byte(clean), &log)
	if got := len(log.Runs[0].Tool.Driver.Rules); got != len(testRules()) {
		t.Errorf("%d rules listed, want every evaluated rule (%d)", got, len(testRules()))
	}
	hostile := string(render(t, fixtureHostile(t), FormatSARIF, Options{}))
	for _, want := range []string{`"uri": "odd%20dir/s%202%3A%C3%BC.jsonl"`, `"uri": "odd%20dir/50%25%23%3F.jsonl"`, `"startLine": 1`} {
		if !strings.Contains(hostile, want) {
			t.Errorf("hostile SARIF lacks %s", want)
		}
	}
	if strings.Contains(hostile, `\u001b`) {
		t.Errorf("raw escape character reached SARIF")
	}
}

func TestSARIFRejectsTooManyResults(t *testing.T) {
	fs := make([]rules.Finding, sarifMaxResults+1)
	for i := range fs {
		fs[i] = rules.Finding{RuleID: "PM001", Severity: "error", Evidence: []model.Evidence{{File: "a", Line: i + 1}}}
	}
	doc := mustNew(t, Input{Tool: testTool, Rules: testRules(), Findings: fs})
	if _, err := SARIF(doc, Options{}); err == nil || !strings.Contains(err.Error(), "at most 25000") {
		t.Fatalf("got %v", err)
	}
}

func TestURIPath(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.jsonl":       "a/b.jsonl",
		"my file.jsonl":   "my%20file.jsonl",
		"a:b/c":           "a%3Ab/c",
		"ü/50%":           "%C3%BC/50%25",
		"q?#x":            "q%3F%23x",
		"tilde~_-.ok@+!,": "tilde~_-.ok@+!,",
	} {
		if got := uriPath(in); got != want {
			t.Errorf("uriPath(%q) = %q, want %q", in, got, want)
		}
		if errs := checkURI(uriPath(in)); len(errs) > 0 {
			t.Errorf("uriPath(%q): %v", in, errs)
		}
	}
}

func TestSemanticVersion(t *testing.T) {
	for in, want := range map[string]string{"1.2.3": "1.2.3", "v0.1.0-dev": "0.1.0-dev", "0.1": "", "dev": "", "1.x.3": ""} {
		if got := semanticVersion(in); got != want {
			t.Errorf("semanticVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
