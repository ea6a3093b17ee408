// Package gitjoin reads the branch under check from a real git repository:
// its commits (with subjects and trailers) and the paths it changes, between a
// base and a head revision. It runs the `git` found on PATH; the detectors then
// intersect the result with the work ledger of killed attempts and subagents.
//
// pmcheck never writes into the repository: every command here is read-only.
package gitjoin

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
)

// Trailer is one `Key: value` trailer of a commit message.
type Trailer struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Commit is one commit of the branch.
type Commit struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	// AuthorEmail and CommitterEmail identify who wrote and who committed it
	// (a strict review counts trailers only on commits the agent did not make).
	AuthorEmail    string    `json:"author_email,omitempty"`
	CommitterEmail string    `json:"committer_email,omitempty"`
	Trailers       []Trailer `json:"trailers,omitempty"`
	// Paths the commit changes (empty for merge commits).
	Paths []string `json:"paths,omitempty"`
	// Verified is set by VerifySignatures: the commit's signature verifies
	// with a key the workflow provides, or the platform reports it
	// verified. An e-mail is self-asserted; a signature is not.
	Verified bool `json:"verified,omitempty"`
}

// VerifyOptions say which keys and reports VerifySignatures trusts.
type VerifyOptions struct {
	// AllowedSigners is an SSH allowed-signers file (git's
	// gpg.ssh.allowedSignersFile) for SSH signatures; OpenPGP signatures
	// verify against the GnuPG keyring of the environment (GNUPGHOME).
	AllowedSigners string
	// Platform holds the ids of commits the hosting platform reports as
	// verified (GitHub's commit verification, gathered by the action).
	Platform map[string]bool
	// Only, when set, limits the commits looked at (git runs once per
	// commit): the others stay unverified.
	Only func(Commit) bool
}

// VerifySignatures sets Commit.Verified on the branch's commits: a commit
// the platform reports verified, or whose signature `git verify-commit`
// accepts (exit 0: a good signature by a key the allowed-signers file or the
// keyring holds; git's default gpg.minTrustLevel). A commit without a
// signature, with a bad one, or by an unknown key is not verified. Only an
// error running git at all is returned.
func VerifySignatures(dir string, b *Branch, opts VerifyOptions) error {
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("git join: cannot verify signatures: %v", err)
	}
	var pre []string
	if opts.AllowedSigners != "" {
		pre = []string{"-c", "gpg.ssh.allowedSignersFile=" + opts.AllowedSigners}
	}
	for i := range b.Commits {
		c := &b.Commits[i]
		if opts.Only != nil && !opts.Only(*c) {
			continue
		}
		if opts.Platform[strings.ToLower(c.ID)] {
			c.Verified = true
			continue
		}
		if strings.HasPrefix(c.ID, "-") {
			continue
		}
		_, err := git(dir, append(pre, "verify-commit", c.ID)...)
		c.Verified = err == nil
	}
	return nil
}

// Branch is the branch under check.
type Branch struct {
	// Name is the head's branch name when it names one, else the head as given.
	Name string `json:"name"`
	Base string `json:"base"`
	Head string `json:"head"`
	// Commits are base..head, oldest first.
	Commits []Commit `json:"commits"`
	// Paths are the paths changed between the merge base and head, sorted.
	Paths []string `json:"paths"`
}

// Join lists base..head in the repository at dir.
func Join(dir, base, head string) (*Branch, error) {
	if dir == "" || base == "" || head == "" {
		return nil, errors.New("git join: --git, --base and --head must all be given")
	}
	for _, rev := range []string{base, head} {
		if strings.HasPrefix(rev, "-") {
			return nil, fmt.Errorf("git join: revision %q starts with '-': give a branch, tag or commit id", rev)
		}
		if _, err := git(dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
			return nil, fmt.Errorf("git join: %q is not a commit in %s: check --base/--head (fetch the branch first in a shallow CI checkout)", rev, dir)
		}
	}
	b := &Branch{Base: base, Head: head, Name: head}
	if name, err := git(dir, "rev-parse", "--abbrev-ref", head); err == nil {
		if n := strings.TrimSpace(name); n != "" && n != "HEAD" {
			b.Name = n
		}
	}
	// Records are separated by RS, fields by NUL; --name-only appends the
	// commit's paths after the format, one per line.
	out, err := git(dir, "-c", "core.quotePath=false", "log", "--reverse", "--no-renames", "--name-only",
		"--format=%x1e%H%x00%s%x00%ae%x00%ce%x00%(trailers:unfold,only)%x00", base+".."+head)
	if err != nil {
		return nil, err
	}
	for _, rec := range strings.Split(out, "\x1e") {
		if strings.TrimSpace(rec) == "" {
			continue
		}
		f := strings.SplitN(rec, "\x00", 6)
		if len(f) < 6 {
			return nil, fmt.Errorf("git join: unexpected git log output in %s", dir)
		}
		c := Commit{ID: f[0], Subject: f[1], AuthorEmail: f[2], CommitterEmail: f[3], Trailers: parseTrailers(f[4])}
		for _, p := range strings.Split(f[5], "\n") {
			if p = strings.TrimSpace(p); p != "" {
				c.Paths = append(c.Paths, p)
			}
		}
		b.Commits = append(b.Commits, c)
	}
	diff, err := git(dir, "-c", "core.quotePath=false", "diff", "--no-renames", "--name-only", base+"..."+head)
	if err != nil {
		return nil, err
	}
	for _, p := range strings.Split(diff, "\n") {
		if p = strings.TrimSpace(p); p != "" {
			b.Paths = append(b.Paths, p)
		}
	}
	sort.Strings(b.Paths)
	return b, nil
}

// parseTrailers reads `Key: value` lines (already unfolded by git).
func parseTrailers(s string) []Trailer {
	var out []Trailer
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(strings.TrimSpace(k), " \t") {
			continue
		}
		out = append(out, Trailer{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return out
}

// HasCommit reports whether the branch holds a commit whose id starts with
// the given (possibly abbreviated, at least 7 hex digits) id. To look many
// ids up, take CommitIDs once.
func (b *Branch) HasCommit(id string) bool {
	if b == nil {
		return false
	}
	return b.CommitIDs().Has(id)
}

// CommitIDs are a branch's commit ids, sorted so that an id is found by
// binary search (ledger commits × branch commits compared one by one grew
// with the product).
type CommitIDs []string

// CommitIDs lists the branch's commit ids for Has.
func (b *Branch) CommitIDs() CommitIDs {
	ids := make(CommitIDs, len(b.Commits))
	for i, c := range b.Commits {
		ids[i] = c.ID
	}
	slices.Sort(ids)
	return ids
}

// Has is HasCommit's rule: an id of at least 7 characters, in any case, is
// the start of one of the commit ids. The ids that start with it are
// consecutive in sorted order, from the first one not less than it.
func (x CommitIDs) Has(id string) bool {
	if len(id) < 7 {
		return false
	}
	id = strings.ToLower(id)
	i, _ := slices.BinarySearch(x, id)
	return i < len(x) && strings.HasPrefix(x[i], id)
}

// git runs one read-only git command and returns its stdout.
func git(dir string, args ...string) (string, error) {
	full := append([]string{"-C", dir}, args...)
	cmd := exec.Command("git", full...)
	cmd.Env = append(cmd.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		verb := args[0]
		for i := 0; i+2 < len(args) && args[i] == "-c"; i += 2 {
			verb = args[i+2]
		}
		return "", fmt.Errorf("git join: git %s failed in %s: %s", verb, dir, msg)
	}
	return stdout.String(), nil
}
