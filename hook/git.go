package hook

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// maxStatusLines caps the uncommitted paths repeated in the warning.
const maxStatusLines = 20

// gitTimeout bounds each git call: the warning is worth less than a hung resume.
const gitTimeout = 10 * time.Second

// supplementary is the work that exists but has not been through review:
// uncommitted paths (`git status --porcelain`) and unpushed commits
// (`git log @{u}..HEAD`). Uncommitted and unpushed work is a bounded proxy
// scoped to the repository, and it needs no file times. Any git failure (not
// a repository, no upstream, no git) leaves that part out.
func supplementary(cwd string, cfg Config) []string {
	if cwd == "" {
		return nil
	}
	run := cfg.Git
	if run == nil {
		run = gitContext
	}
	var out []string
	if s, err := run(cwd, "status", "--porcelain"); err == nil {
		lines := nonBlank(s)
		if len(lines) > 0 {
			out = append(out, fmt.Sprintf("%d uncommitted %s:", len(lines), plural(len(lines), "path", "paths")))
			for i, l := range lines {
				if i == maxStatusLines {
					out = append(out, fmt.Sprintf("  … and %d more", len(lines)-maxStatusLines))
					break
				}
				out = append(out, "  "+capLen(l))
			}
		}
	}
	if s, err := run(cwd, "log", "--oneline", "@{u}..HEAD"); err == nil {
		if n := len(nonBlank(s)); n > 0 {
			out = append(out, fmt.Sprintf("%d unpushed %s", n, plural(n, "commit", "commits")))
		}
	}
	return out
}

// gitContext runs git in dir. Hook PATH is not the shell's PATH, so the usual
// absolute locations are tried before a PATH lookup.
func gitContext(dir string, args ...string) (string, error) {
	bin := ""
	for _, p := range []string{"/usr/bin/git", "/usr/local/bin/git", "/opt/homebrew/bin/git"} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			bin = p
			break
		}
	}
	if bin == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			return "", err
		}
		bin = p
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	b, err := cmd.Output()
	return string(b), err
}

func nonBlank(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, "\r"))
		}
	}
	return out
}
