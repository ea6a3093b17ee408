package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInstallRefusesWhatItCannotEditSafely: settings whose hooks are not
// the shape Claude Code reads, a settings path that is a folder, and a
// backup or temporary file that cannot be written each stop the install
// with the settings file as it was.
func TestInstallRefusesWhatItCannotEditSafely(t *testing.T) {
	withStable(t)
	now := time.Date(2026, 5, 7, 9, 0, 0, 0, time.UTC)
	const bin = "/usr/local/bin/pmcheck"
	for _, c := range []struct {
		name, settings string
		block          string // a folder put where install writes
		want           string // the error, after the settings path
	}{
		{"hooks not an object", `{"hooks": []}`, "", `: "hooks" is not an object; fix it, then run install again`},
		{"event not an array", `{"hooks": {"PreToolUse": "x"}}`, "", `: hooks.PreToolUse: not an array`},
		{"backup not writable", `{"model": "opus"}`, ".pmcheck-20260507T090000Z.bak", ".pmcheck-20260507T090000Z.bak: is a directory (nothing was changed)"},
		{"temporary file not writable", `{"model": "opus"}`, ".pmcheck-tmp", ".pmcheck-tmp: is a directory"},
	} {
		settings := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(settings, []byte(c.settings), 0o600)
		if c.block != "" {
			os.Mkdir(settings+c.block, 0o755)
		}
		res, err := Install(InstallOptions{Settings: settings, Binary: bin, Now: now})
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || !strings.Contains(err.Error(), settings) || res.Changed {
			t.Errorf("%s: %+v, %v; want an error ending %q", c.name, res, err, c.want)
		}
		if b, _ := os.ReadFile(settings); string(b) != c.settings {
			t.Errorf("%s: the settings file was changed to %s", c.name, b)
		}
	}

	dir := t.TempDir()
	if _, err := Install(InstallOptions{Settings: dir, Binary: bin}); err == nil || !strings.HasPrefix(err.Error(), "reading "+dir+": ") {
		t.Errorf("settings path is a folder: %v", err)
	}
	absent := filepath.Join(t.TempDir(), "settings.json")
	if res, err := Install(InstallOptions{Settings: absent, Uninstall: true}); err != nil || res.Changed {
		t.Errorf("uninstall with no settings file: %+v, %v", res, err)
	}
	if _, err := os.Stat(absent); !os.IsNotExist(err) {
		t.Errorf("uninstall wrote a settings file: %v", err)
	}
}
