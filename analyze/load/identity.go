package load

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// RunIdentity maps the run paths Load reports for one path given on the
// command line (relative to the working directory, or absolute) to the path
// a finding's fingerprint hashes: the run's path relative to the repository
// that holds it, so that a baseline written in one folder, clone or machine
// matches in another. The repository is repoRoot when it is given and holds
// the input, else the nearest folder above the input with a .git entry;
// outside any repository the path is relative to the input's root (the
// folder given, or the folder of the file or run directory given). The
// process's working directory never enters it.
//
// A path it cannot resolve (the input vanished) is returned as Load
// reported it.
func RunIdentity(given, repoRoot string) func(runPath string) string {
	st, err := os.Stat(given)
	if err != nil {
		return func(p string) string { return p }
	}
	tgt, err := Resolve(given, st.IsDir())
	if err != nil {
		return func(p string) string { return p }
	}
	root := tgt.Root
	display := DisplayRoot(root)
	abs, err := resolved(root)
	if err != nil {
		return func(p string) string { return p }
	}
	base := ""
	if repoRoot != "" {
		if r, err := resolved(repoRoot); err == nil && within(r, abs) {
			base = r
		}
	}
	if base == "" {
		base = enclosingRepository(abs)
	}
	prefix := "" // the input root relative to base
	if base != "" {
		if rel, err := filepath.Rel(base, abs); err == nil && rel != "." {
			prefix = filepath.ToSlash(rel)
		}
	}
	return func(runPath string) string {
		rel := runPath
		switch {
		case display == "":
		case runPath == display:
			rel = "."
		case strings.HasPrefix(runPath, display+"/"):
			rel = runPath[len(display)+1:]
		default:
			return runPath // not a path of this input
		}
		if prefix == "" {
			return rel
		}
		return path.Join(prefix, rel)
	}
}

// resolved is p as an absolute path with its symbolic links resolved (a
// workspace may be reached through a link).
func resolved(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return abs, nil
}

// within reports whether dir is p or holds it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// enclosingRepository is the nearest folder at or above dir that holds a
// .git entry (a folder, or the file of a worktree or submodule), or "".
func enclosingRepository(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}
