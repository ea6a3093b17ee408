package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeBin writes a stand-in pmcheck binary. It lives in a temporary
// directory, which StableBinary refuses, so the install tests replace
// stableCheck and test StableBinary on its own.
func fakeBin(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bin", "pmcheck")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func readSettings(t *testing.T, p string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func withStable(t *testing.T) {
	old := stableCheck
	stableCheck = func(string) error { return nil }
	t.Cleanup(func() { stableCheck = old })
}

func TestInstallWritesTheHandlersWithIfInsideTheInnerArray(t *testing.T) {
	withStable(t)
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	os.WriteFile(settings, []byte(`{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"fmt.sh"}]}]}}`), 0o600)
	bin := "/opt/pm check/pmcheck"
	res, err := Install(InstallOptions{Settings: settings, Binary: bin, Now: time.Date(2026, 5, 7, 9, 0, 0, 0, time.UTC)})
	if err != nil || !res.Changed {
		t.Fatalf("install: %+v %v", res, err)
	}
	if want := settings + ".pmcheck-20260507T090000Z.bak"; res.Backup != want {
		t.Fatalf("backup %q", res.Backup)
	}
	if b, _ := os.ReadFile(res.Backup); !strings.Contains(string(b), `"model":"opus"`) {
		t.Fatalf("backup content %s", b)
	}
	m := readSettings(t, settings)
	if m["model"] != "opus" {
		t.Fatal("another key was lost")
	}
	hooks := m["hooks"].(map[string]any)
	ss := hooks["SessionStart"].([]any)[0].(map[string]any)
	if ss["matcher"] != "resume" {
		t.Fatalf("SessionStart matcher %v", ss["matcher"])
	}
	if cmd := ss["hooks"].([]any)[0].(map[string]any)["command"]; cmd != "'/opt/pm check/pmcheck' hook session-start" {
		t.Fatalf("SessionStart command %q", cmd)
	}
	pre := hooks["PreToolUse"].([]any)
	if len(pre) != 3 || pre[0].(map[string]any)["matcher"] != "Edit" {
		t.Fatalf("PreToolUse groups %v", pre)
	}
	bash := pre[1].(map[string]any)
	if bash["matcher"] != "^Bash$" {
		t.Fatalf("Bash matcher %v", bash["matcher"])
	}
	if _, ok := bash["if"]; ok {
		t.Fatal(`"if" beside the matcher`)
	}
	// One handler for every Bash call, no `if` conditions: the hook's
	// classifier decides what may ship, not a list of command shapes
	// (issue 29, item 2: the list missed doas git push, git send-pack, …).
	handlers := bash["hooks"].([]any)
	if len(handlers) != 1 {
		t.Fatalf("Bash handlers %v, want one", handlers)
	}
	hm := handlers[0].(map[string]any)
	if _, ok := hm["if"]; ok || hm["type"] != "command" || hm["command"] != "'/opt/pm check/pmcheck' hook pre-tool-use" {
		t.Fatalf("handler %v", hm)
	}
	pub := pre[2].(map[string]any)
	if m := pub["matcher"].(string); !strings.HasPrefix(m, "^(Artifact|") || !strings.HasSuffix(m, ")$") {
		t.Fatalf("publish matcher %q", m)
	}

	// Idempotent: a second install changes nothing and writes no backup.
	before, _ := os.ReadFile(settings)
	res, err = Install(InstallOptions{Settings: settings, Binary: bin})
	after, _ := os.ReadFile(settings)
	if err != nil || res.Changed || res.Backup != "" || string(before) != string(after) {
		t.Fatalf("second install: %+v %v", res, err)
	}

	// Uninstall leaves the other hook and key alone.
	res, err = Install(InstallOptions{Settings: settings, Uninstall: true})
	if err != nil || !res.Changed || res.Backup == "" {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	m = readSettings(t, settings)
	hooks = m["hooks"].(map[string]any)
	if _, ok := hooks["SessionStart"]; ok || len(hooks["PreToolUse"].([]any)) != 1 || m["model"] != "opus" {
		t.Fatalf("after uninstall: %v", m)
	}
}

func TestInstallWithConfiguredToolsAndLabels(t *testing.T) {
	withStable(t)
	settings := filepath.Join(t.TempDir(), ".claude", "settings.json")
	cfg := Config{PublishTools: []string{"mcp__acme__publish*"}, DeployLabels: []string{"ship-it"}}
	if _, err := Install(InstallOptions{Settings: settings, Binary: "/usr/local/bin/pmcheck", Config: cfg}); err != nil {
		t.Fatal(err)
	}
	pre := readSettings(t, settings)["hooks"].(map[string]any)["PreToolUse"].([]any)
	pub := pre[1].(map[string]any)
	if pub["matcher"] != "^(mcp__acme__publish.*)$" {
		t.Fatalf("matcher %v", pub["matcher"])
	}
	cmd := pub["hooks"].([]any)[0].(map[string]any)["command"]
	if cmd != "/usr/local/bin/pmcheck hook pre-tool-use --publish-tool='mcp__acme__publish*' --deploy-label=ship-it" {
		t.Fatalf("command %q", cmd)
	}
}

func TestInstallRefusesMalformedSettings(t *testing.T) {
	withStable(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(settings, []byte(`{"hooks": [`), 0o600)
	if _, err := Install(InstallOptions{Settings: settings, Binary: "/usr/local/bin/pmcheck"}); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(settings); string(b) != `{"hooks": [` {
		t.Fatal("malformed settings were changed")
	}
}

func TestStableBinaryRefusesTemporaryAndCheckoutPaths(t *testing.T) {
	tmp := fakeBin(t, "exit 0")
	if err := StableBinary(tmp); err == nil || !strings.Contains(err.Error(), "temporary directory") {
		t.Fatalf("temp binary: %v", err)
	}
	if err := StableBinary("pmcheck"); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("relative: %v", err)
	}
	if err := StableBinary("/nonexistent/pmcheck"); err == nil {
		t.Fatal("missing binary accepted")
	}
	// A binary inside a checkout: this package's own directory is in one.
	wd, _ := os.Getwd()
	if dir, ok := checkout(filepath.Join(wd, "pmcheck")); !ok {
		t.Fatalf("the test's checkout was not recognised (%s)", dir)
	}
	if _, err := Install(InstallOptions{Settings: filepath.Join(t.TempDir(), "s.json"), Binary: tmp}); err == nil {
		t.Fatal("install accepted a temporary binary")
	}
}

func TestCheckReportsABrokenInstall(t *testing.T) {
	withStable(t)
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	good := fakeBin(t, "exit 0")
	if _, err := Install(InstallOptions{Settings: settings, Binary: good}); err != nil {
		t.Fatal(err)
	}
	if ps := Check(settings); len(ps) != 0 {
		t.Fatalf("working install: %q", ps)
	}

	os.Remove(good)
	if ps := Check(settings); len(ps) != 1 || !strings.Contains(string(ps[0]), "does not exist") {
		t.Fatalf("missing binary: %q", ps)
	}
	os.WriteFile(good, []byte("#!/bin/sh\nexit 0\n"), 0o644)
	if ps := Check(settings); len(ps) != 1 || !strings.Contains(string(ps[0]), "not an executable") {
		t.Fatalf("non-executable binary: %q", ps)
	}
	os.WriteFile(good, []byte("#!/bin/sh\necho boom >&2; exit 3\n"), 0o755)
	os.Chmod(good, 0o755)
	if ps := Check(settings); len(ps) != 1 || !strings.Contains(string(ps[0]), "does not start") {
		t.Fatalf("failing binary: %q", ps)
	}

	os.WriteFile(settings, []byte(`{"hooks":`), 0o600)
	if ps := Check(settings); len(ps) != 1 || !strings.Contains(string(ps[0]), "not a JSON object") {
		t.Fatalf("malformed settings: %q", ps)
	}
	os.WriteFile(settings, []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","if":"Bash(git push:*)","hooks":[{"type":"command","command":"`+good+` hook pre-tool-use"}]}]}}`), 0o600)
	os.WriteFile(good, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	ps := Check(settings)
	joined := ""
	for _, p := range ps {
		joined += string(p) + "\n"
	}
	for _, want := range []string{`"if" beside the matcher`, `unanchored`, "no pmcheck SessionStart handler"} {
		if !strings.Contains(joined, want) {
			t.Errorf("hand-written install: no problem %q in\n%s", want, joined)
		}
	}
	if ps := Check(filepath.Join(dir, "none.json")); len(ps) != 1 {
		t.Fatalf("no settings file: %q", ps)
	}
}

// TestInstallKeepsASymlinkedSettingsFileAndItsMode: a settings file that is a
// symbolic link (dotfiles) is edited where it points, and keeps its mode.
func TestInstallKeepsASymlinkedSettingsFileAndItsMode(t *testing.T) {
	withStable(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte(`{"model":"opus"}`), 0o640)
	link := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if _, err := Install(InstallOptions{Settings: link, Binary: "/usr/local/bin/pmcheck"}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	st, _ := os.Stat(real)
	if st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
	if m := readSettings(t, real); m["hooks"] == nil || m["model"] != "opus" {
		t.Fatalf("settings %v", m)
	}
}
