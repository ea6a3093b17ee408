package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/internal/lazyre"
)

func TestReleaseVersion(t *testing.T) {
	for _, c := range []struct {
		mod, want string
		ok        bool
	}{
		{"v0.2.0", "0.2.0", true},
		{"v1.0.0-rc.1", "1.0.0-rc.1", true},
		{"(devel)", "", false},
		{"", "", false},
		{"v0.0.0-20261130203904-b44857f2dea8", "", false},
		{"v0.2.1-0.20261130203904-b44857f2dea8", "", false},
		{"v0.2.0-rc.1.0.20261130203904-b44857f2dea8", "", false},
		{"v0.2.0+dirty", "", false},
		{"v0.0.0-20261130203904-b44857f2dea8+dirty", "", false},
		{"0.2.0", "", false},
	} {
		got, ok := releaseVersion(c.mod)
		if got != c.want || ok != c.ok {
			t.Errorf("releaseVersion(%q) = %q, %v; want %q, %v", c.mod, got, ok, c.want, c.ok)
		}
	}
}

// TestVersionFlagAndCommand: both forms print the same line, exit 0, and
// --version works without a command.
func TestVersionFlagAndCommand(t *testing.T) {
	var a, b, errb bytes.Buffer
	if code := Run([]string{"--version"}, strings.NewReader(""), &a, &errb); code != 0 {
		t.Fatalf("--version: exit %d (%s)", code, errb.String())
	}
	if code := Run([]string{"version"}, strings.NewReader(""), &b, &errb); code != 0 {
		t.Fatalf("version: exit %d (%s)", code, errb.String())
	}
	if a.String() != b.String() || !strings.HasPrefix(a.String(), "pmcheck "+Version) {
		t.Errorf("--version printed %q, version printed %q", a.String(), b.String())
	}
}

func TestUsesRules(t *testing.T) {
	for args, want := range map[string]bool{
		"check .":             true,
		"--jobs 2 check":      false, // a flag's value ends the search: no warm-up, only 2 ms lost
		"explain run.jsonl":   true,
		"rules list":          true,
		"rules test fixtures": true,
		"hook pre-tool-use":   false,
		"scan .":              false,
		"--version":           false,
		"":                    false,
		"replay run/check":    false,
		"--help check":        true,
	} {
		if got := usesRules(strings.Fields(args)); got != want {
			t.Errorf("usesRules(%q) = %v, want %v", args, got, want)
		}
	}
}

// Every pattern the program compiles on first use (internal/lazyre)
// compiles: they are no longer checked when the program starts. The binary
// links every package; the patterns it lists must be every lazyre.New call
// in the repository's code, so none is left unchecked.
func TestEveryLazyPatternCompiles(t *testing.T) {
	calls := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.Contains(path, "internal/lazyre") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			calls += bytes.Count(b, []byte("lazyre.New("))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	patterns := lazyre.Patterns()
	if len(patterns) != calls || calls == 0 {
		t.Fatalf("%d lazy patterns made by the binary's packages, %d lazyre.New calls in the code", len(patterns), calls)
	}
	for _, p := range patterns {
		if _, err := regexp.Compile(p); err != nil {
			t.Errorf("pattern %q: %v", p, err)
		}
	}
}
