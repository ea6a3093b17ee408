package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// devVersion is the version of a build that carries no release tag.
const devVersion = "0.1.0-dev"

// Version is the version reports carry (tool.version). It is the release tag
// (without its "v") when the binary was built from a tagged module version —
// `go install github.com/pmcheck/pmcheck/cmd/pmcheck@vX.Y.Z`, or a release
// build that sets it with -ldflags "-X main.Version=X.Y.Z" — and devVersion
// otherwise. Commits and dirty trees never reach reports, so the same input
// gives the same bytes from any checkout; `pmcheck version` shows them.
var Version = devVersion

func init() {
	if Version != devVersion {
		return // set by -ldflags
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v, ok := releaseVersion(bi.Main.Version); ok {
			Version = v
		}
	}
}

var (
	semverRE = lazyre.New(`^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$`)
	// A pseudo-version (v0.0.0-20260101120000-abcdef123456, also the forms
	// vX.Y.Z-pre.0.DATE-REV and vX.Y.(Z+1)-0.DATE-REV) names a commit, not a release.
	pseudoRE = lazyre.New(`[-.]\d{14}-[0-9a-f]{12}$`)
)

// releaseVersion returns the release of a module version string: "v1.2.3" ->
// "1.2.3". Pseudo-versions, "+dirty" builds and "(devel)" are not releases.
func releaseVersion(mod string) (string, bool) {
	if !strings.HasPrefix(mod, "v") {
		return "", false // "(devel)", "": no pattern to compile at start-up
	}
	m := semverRE().FindStringSubmatch(mod)
	if m == nil || pseudoRE().MatchString(mod) {
		return "", false
	}
	return m[1], true
}

// versionLine is what `pmcheck version` and `pmcheck --version` print: the
// version, then where the binary came from — the module version it was
// installed at, or the commit of the checkout it was built in.
func versionLine() string {
	line := "pmcheck " + Version
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return line
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var parts []string
	switch {
	case rev != "":
		c := "commit " + rev
		if at != "" {
			c += " (" + at + ")"
		}
		if modified {
			c += " with uncommitted changes"
		}
		parts = append(parts, c)
	case bi.Main.Version != "" && bi.Main.Version != "(devel)" && strings.TrimPrefix(bi.Main.Version, "v") != Version:
		parts = append(parts, "module "+bi.Main.Version)
	case bi.Main.Version == "(devel)" || bi.Main.Version == "":
		if Version == devVersion {
			parts = append(parts, "built without version control information")
		}
	}
	if bi.GoVersion != "" {
		parts = append(parts, bi.GoVersion)
	}
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	return line
}

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints the version.
func (VersionCmd) Run(env *Env) error {
	fmt.Fprintln(env.Stdout, versionLine())
	return nil
}

// versionFlag is --version: print the version and stop, like `pmcheck version`.
type versionFlag bool

// BeforeReset runs when kong sees the flag, before any command validates its
// arguments, so `pmcheck --version` works on its own.
func (versionFlag) BeforeReset(ctx *kong.Context, env *Env) error {
	fmt.Fprintln(env.Stdout, versionLine())
	ctx.Kong.Exit(0)
	return nil
}
