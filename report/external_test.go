package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExternalReports validates report files written outside this package
// (by pmcheck check on every fixture, by the GitHub Action smoke test):
// .ci/validate-reports.sh lists them in PMCHECK_VALIDATE_SARIF and
// PMCHECK_VALIDATE_JUNIT, separated by the OS path-list separator. It applies
// the official SARIF schema and the same Go assertions as the unit tests.
// With neither variable set it skips.
func TestExternalReports(t *testing.T) {
	sarifs := splitList(os.Getenv("PMCHECK_VALIDATE_SARIF"))
	junits := splitList(os.Getenv("PMCHECK_VALIDATE_JUNIT"))
	if len(sarifs)+len(junits) == 0 {
		t.Skip("PMCHECK_VALIDATE_SARIF and PMCHECK_VALIDATE_JUNIT unset; .ci/validate-reports.sh sets them")
	}
	for _, f := range sarifs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if err := validateSARIFSchema(t, data); err != nil {
			t.Errorf("%s: not valid SARIF 2.1.0: %v", f, err)
		}
		for _, e := range checkGitHubSARIF(data) {
			t.Errorf("%s: %s", f, e)
		}
	}
	for _, f := range junits {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		// Files rendered with --junit-no-file-line say so in their name.
		wantFileLine := !strings.Contains(filepath.Base(f), "nofileline")
		for _, e := range checkJUnit(data, wantFileLine) {
			t.Errorf("%s: %s", f, e)
		}
	}
	t.Logf("validated %d SARIF and %d JUnit files", len(sarifs), len(junits))
}

func splitList(s string) []string {
	var out []string
	for _, p := range filepath.SplitList(s) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
