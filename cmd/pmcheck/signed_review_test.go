//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmcheck/pmcheck/analyze/detect/gitjoin/gittest"
)

// TestTrustStrictReviewCountsOnlySignedCommits (issue 29, item 5): with
// review.agent_authors, an agent committed under another author and
// committer e-mail with a Reviewed-Killed-Agent trailer and cleared
// killed-subagent-shipped-unreviewed. E-mails are self-asserted: strict review now
// counts a trailer only on a commit whose signature verifies with a key the
// workflow provides (--allowed-signers, git verify-commit) or that the
// platform reports verified (--verified-commits). The keys are throwaway
// SSH keys made here; the signed commits are made here with them.
func TestTrustStrictReviewCountsOnlySignedCommits(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed")
	}
	keys := t.TempDir()
	keygen := func(name string) string {
		p := filepath.Join(keys, name)
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", p).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		return p
	}
	reviewer, stranger := keygen("reviewer"), keygen("stranger")
	pub, err := os.ReadFile(reviewer + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	signers := filepath.Join(keys, "allowed_signers")
	writeFile(t, signers, []byte("dev@example.com "+string(pub)))
	rules := filepath.Join(keys, "strict.yaml")
	writeFile(t, rules, []byte("version: 1\nreview:\n  agent_authors: [\"*@bots.example\"]\n"))

	const trailer = "Reviewed-Killed-Agent: Refactor the billing module"
	// commit makes one commit on a new branch off main and returns its id;
	// key, when set, signs it.
	r := gittest.NewRepo(t)
	commit := func(branch, key string) string {
		r.Git("checkout", "-q", "-b", branch, "main")
		r.Write(branch+".md", "reviewed\n")
		r.Git("add", "-A")
		args := []string{"-c", "user.email=dev@example.com", "-c", "user.name=Dev"}
		if key != "" {
			args = append(args, "-c", "gpg.format=ssh", "-c", "user.signingkey="+key, "commit", "-S")
		} else {
			args = append(args, "commit")
		}
		r.Git(append(args, "-q", "-m", "Review the billing refactor", "-m", trailer)...)
		return strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	}
	unsigned := commit("forged", "")
	commit("signed", reviewer)
	commit("stranger", stranger)
	verified := filepath.Join(keys, "verified")
	writeFile(t, verified, []byte(unsigned+"\n"))

	fires := func(head string, extra ...string) bool {
		t.Helper()
		args := append([]string{"--fail-level", "none", "--rules", "+" + rules, "--git", r.Dir, "--base", "main", "--head", head}, extra...)
		rep, _ := checkJSON(t, append(args, fixture("rule-killed-subagent-shipped-unreviewed-bad"))...)
		for _, f := range rep.Findings {
			if f.RuleID == "killed-subagent-shipped-unreviewed" {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		name  string
		head  string
		extra []string
		fires bool
	}{
		{"an unsigned commit under a human's e-mail", "forged", []string{"--allowed-signers", signers}, true},
		{"a commit signed by the reviewer's key", "signed", []string{"--allowed-signers", signers}, false},
		{"the same commit without the workflow's keys", "signed", nil, true},
		{"a commit signed by a key the workflow does not provide", "stranger", []string{"--allowed-signers", signers}, true},
		{"an unsigned commit the platform reports verified", "forged", []string{"--verified-commits", verified}, false},
	} {
		if got := fires(c.head, c.extra...); got != c.fires {
			t.Errorf("%s: killed-subagent-shipped-unreviewed fired %v, want %v", c.name, got, c.fires)
		}
	}
	// --allowed-signers verifies the branch under check: without it, it is
	// a usage error, as is a file that is not a list of commit ids.
	oneLineError(t, runPM(t, "check", "--allowed-signers", signers, fixture("rule-killed-subagent-shipped-unreviewed-bad")), ExitUsage, "--git")
	bad := filepath.Join(keys, "bad")
	writeFile(t, bad, []byte("not-an-id\n"))
	oneLineError(t, runPM(t, "check", "--rules", "+"+rules, "--git", r.Dir, "--base", "main", "--head", "forged", "--verified-commits", bad, fixture("rule-killed-subagent-shipped-unreviewed-bad")), ExitUsage, "bad:1:", "not a commit id")
}

// TestTrustStrictReviewCountsOpenPGPSignedCommits: the OpenPGP side of
// strict review. A commit signed with a key in the runner's GnuPG keyring
// (the keys the workflow imported) clears the rule; with a keyring that
// lacks the key, the same commit does not. The key is made here, in a
// throwaway GNUPGHOME.
func TestTrustStrictReviewCountsOpenPGPSignedCommits(t *testing.T) {
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Skip("gpg is not installed")
	}
	// A short path: gpg-agent's socket lives in GNUPGHOME.
	home, err := os.MkdirTemp("", "pmgpg")
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(home, "empty")
	keyring := filepath.Join(home, "k")
	for _, d := range []string{empty, keyring} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, d := range []string{empty, keyring} {
			c := exec.Command("gpgconf", "--kill", "gpg-agent")
			c.Env = append(os.Environ(), "GNUPGHOME="+d)
			c.Run()
		}
		os.RemoveAll(home)
	})
	t.Setenv("GNUPGHOME", keyring)
	if out, err := exec.Command("gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Dev <dev@example.com>", "ed25519", "sign", "never").CombinedOutput(); err != nil {
		t.Skipf("gpg cannot make a key here: %v\n%s", err, out)
	}
	rules := filepath.Join(home, "strict.yaml")
	writeFile(t, rules, []byte("version: 1\nreview:\n  agent_authors: [\"*@bots.example\"]\n"))
	r := gittest.NewRepo(t)
	r.Git("checkout", "-q", "-b", "signed", "main")
	r.Write("review.md", "reviewed\n")
	r.Git("add", "-A")
	r.Git("-c", "user.email=dev@example.com", "-c", "user.name=Dev", "-c", "user.signingkey=dev@example.com", "commit", "-S", "-q",
		"-m", "Review the billing refactor", "-m", "Reviewed-Killed-Agent: Refactor the billing module")
	fires := func() bool {
		t.Helper()
		rep, _ := checkJSON(t, "--fail-level", "none", "--rules", "+"+rules, "--git", r.Dir, "--base", "main", "--head", "signed", fixture("rule-killed-subagent-shipped-unreviewed-bad"))
		for _, f := range rep.Findings {
			if f.RuleID == "killed-subagent-shipped-unreviewed" {
				return true
			}
		}
		return false
	}
	if fires() {
		t.Error("a commit signed with a key of the runner's keyring did not clear the rule")
	}
	t.Setenv("GNUPGHOME", empty)
	if !fires() {
		t.Error("a commit signed with a key the keyring lacks cleared the rule")
	}
}
