package gitsource

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Commit is one commit of the range, as its object says.
type Commit struct {
	ID        string
	Subject   string
	Author    Identity
	Committer Identity
	// Trailers are the `Key: value` lines of the message's last paragraph.
	Trailers []Trailer
	// Checkpoints are the values of every `Entire-Checkpoint:` line of the
	// message, wherever it stands (the Entire CLI finds it anywhere), in
	// order, valid or not.
	Checkpoints []string
	// Sessions are the values of `Claude-Session:` lines.
	Sessions []string
}

// Identity is a commit's author or committer, and when.
type Identity struct {
	Name  string
	Email string
	Time  time.Time // UTC; zero when the header has none
}

func (i Identity) String() string {
	if i.Email == "" {
		return i.Name
	}
	return i.Name + " <" + i.Email + ">"
}

// Trailer is one `Key: value` trailer.
type Trailer struct{ Key, Value string }

// Trailer keys that link a commit to an agent's run.
const (
	CheckpointTrailer = "Entire-Checkpoint"
	SessionTrailer    = "Claude-Session"
)

// maxCommit caps a commit object read (messages are kB; a commit of
// megabytes is hostile).
const maxCommit = 4 << 20

// Range lists the commits of base..head, oldest first, reading each commit
// object through b. base and head must name commits (ResolveCommit).
func Range(dir string, b *Batch, base, head string, each func(Commit) error) (int, error) {
	cmd := exec.Command("git", gitArgs(dir, "rev-list", "--reverse", "--topo-order", base+".."+head, "--")...)
	gitEnv(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("git rev-list in %s: %v", dir, err)
	}
	// The ids are read as git lists them; each commit is read while git
	// goes on (thousands of commits never sit in memory as objects).
	sc := bufio.NewScanner(out)
	n := 0
	var failed error
	for sc.Scan() {
		if failed != nil {
			continue
		}
		id := strings.TrimSpace(sc.Text())
		data, _, err := b.ReadSmall(id, "commit", maxCommit)
		if err != nil {
			failed = fmt.Errorf("commit %s: %v", id, err)
			continue
		}
		c := ParseCommit(id, data)
		n++
		failed = each(c)
	}
	if err := cmd.Wait(); err != nil && failed == nil {
		return n, fmt.Errorf("git rev-list %s..%s in %s: %s", base, head, dir, firstLine(stderr.String(), err))
	}
	return n, failed
}

// ResolveCommit is the full id of rev, which must name a commit.
func ResolveCommit(dir, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("revision %q: give a branch, tag or commit id", rev)
	}
	cmd := exec.Command("git", gitArgs(dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")...)
	gitEnv(cmd)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%q is not a commit in %s: fetch it first (in CI: actions/checkout with fetch-depth: 0)", rev, dir)
	}
	return strings.TrimSpace(string(out)), nil
}

// ParseCommit reads a raw commit object.
func ParseCommit(id string, data []byte) Commit {
	c := Commit{ID: id}
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range strings.Split(string(head), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "author":
			c.Author = parseIdentity(v)
		case "committer":
			c.Committer = parseIdentity(v)
		}
	}
	text := strings.ReplaceAll(string(msg), "\r\n", "\n")
	paras := splitParagraphs(text)
	if len(paras) > 0 {
		// git's %s: the first paragraph, its lines joined by spaces.
		c.Subject = strings.Join(strings.Fields(paras[0]), " ")
	}
	if len(paras) > 1 {
		c.Trailers = parseTrailers(paras[len(paras)-1])
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := trailerValue(line, CheckpointTrailer); ok {
			c.Checkpoints = append(c.Checkpoints, v)
		}
		if v, ok := trailerValue(line, SessionTrailer); ok {
			c.Sessions = append(c.Sessions, v)
		}
	}
	return c
}

// trailerValue is the value of a `Key: value` line, the key in any case.
func trailerValue(line, key string) (string, bool) {
	if len(line) <= len(key) || !strings.EqualFold(line[:len(key)], key) || line[len(key)] != ':' {
		return "", false
	}
	v := strings.TrimSpace(line[len(key)+1:])
	if i := strings.IndexAny(v, " \t"); i >= 0 {
		v = v[:i]
	}
	return v, true
}

func parseIdentity(v string) Identity {
	// "Name <email> 1700000000 +0000"
	lt, gt := strings.IndexByte(v, '<'), strings.LastIndexByte(v, '>')
	if lt < 0 || gt < lt {
		return Identity{Name: strings.TrimSpace(v)}
	}
	id := Identity{Name: strings.TrimSpace(v[:lt]), Email: v[lt+1 : gt]}
	if f := strings.Fields(v[gt+1:]); len(f) > 0 {
		if sec, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			id.Time = time.Unix(sec, 0).UTC()
		}
	}
	return id
}

func splitParagraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n\n") {
		if strings.TrimSpace(p) != "" {
			out = append(out, strings.Trim(p, "\n"))
		}
	}
	return out
}

// parseTrailers reads a paragraph as trailers when each of its lines is a
// `Key: value` line or continues the one before (git's trailer block).
func parseTrailers(p string) []Trailer {
	var out []Trailer
	for _, line := range strings.Split(p, "\n") {
		if line != "" && (line[0] == ' ' || line[0] == '\t') && len(out) > 0 {
			out[len(out)-1].Value += " " + strings.TrimSpace(line)
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil
		}
		out = append(out, Trailer{Key: k, Value: strings.TrimSpace(v)})
	}
	return out
}

func firstLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" && err != nil {
		return err.Error()
	}
	return s
}
