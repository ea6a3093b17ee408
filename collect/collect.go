// Package collect finds the Claude Code runs that belong to one repository
// and branch on this machine and copies them, redacted, into a folder that
// `pmcheck check` reads (by default .agent-runs/ in the repository).
//
// Selection: a session transcript <root>/<project>/<sessionId>.jsonl belongs
// when one of its rows has a `cwd` at or under the repository folder and, in
// the same row, the chosen `gitBranch` (and, with Since, a `timestamp` at or
// after it). With it come everything of that session that check reads: its
// subagent transcripts and sidecars under <sessionId>/subagents/, the
// Workflow runs it launched (<sessionId>/subagents/workflows/<runId>/:
// journal and agent transcripts), and legacy agent-*.jsonl files beside it
// whose rows carry its sessionId.
//
// Sources are opened read-only and never modified. Every file is streamed
// line by line through the redactor into a temporary file in the output
// folder, then renamed, so no unredacted byte is ever written.
package collect

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pmcheck/pmcheck/analyze"

	"github.com/pmcheck/pmcheck/collect/redact"
)

// ManifestName is the manifest's file name in the output folder. check only
// reads .jsonl files, so the manifest is never taken for a run.
const ManifestName = "pmcheck-collect.json"

// Options say what to collect and where to.
type Options struct {
	// Root is the folder of Claude Code projects (~/.claude/projects).
	Root string
	// RootLabel is how the manifest names Root ("~/.claude/projects"), so
	// the manifest does not carry the home folder; Root when empty.
	RootLabel string
	// Cwd is the repository folder: rows whose cwd is it or under it match.
	Cwd string
	// Branch is the git branch rows must name; "" with AllBranches.
	Branch      string
	AllBranches bool
	// Since, when not zero, needs a matching row at or after it.
	Since time.Time
	// Out is the output folder.
	Out string
	// Redactor redacts every file; nil copies as is (--no-redact).
	Redactor *redact.Redactor
	// LineCap is the longest line scanned.
	LineCap int
	// DryRun selects and reports without writing anything.
	DryRun bool
}

// File is one collected file in the manifest.
type File struct {
	// Path is the file's path in the output folder (slash-separated).
	Path string `json:"path"`
	// Source is where it came from, relative to the root.
	Source  string `json:"source"`
	Kind    string `json:"kind"`
	Session string `json:"session"`
	// Size and SHA256 are of the written (redacted) file.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// SourceSize and SourceSHA256 are of the source as read.
	SourceSize   int64  `json:"source_size"`
	SourceSHA256 string `json:"source_sha256"`
	// Redactions counts replaced secrets by rule (never the secret).
	Redactions redact.Counts `json:"redactions"`
}

// Manifest describes what a collection took, from where, and what it redacted.
type Manifest struct {
	Kind          string `json:"kind"`
	SchemaVersion int    `json:"schema_version"`
	Tool          string `json:"tool"`
	Root          string `json:"root"`
	Match         struct {
		Cwd    string `json:"cwd"`
		Branch string `json:"branch"`
		Since  string `json:"since,omitempty"`
	} `json:"match"`
	Redaction struct {
		Enabled bool   `json:"enabled"`
		Rules   string `json:"rules,omitempty"`
		// Total counts every replacement in the files below, by rule.
		Total redact.Counts `json:"total"`
	} `json:"redaction"`
	Sessions []string `json:"sessions"`
	Files    []File   `json:"files"`
}

// ManifestKind marks a collect manifest.
const ManifestKind = "pmcheck-collect-manifest"

// plan is one file to copy.
type plan struct {
	src, rel, dest, kind, session string
}

// Run selects and copies. It returns the manifest it wrote (or would write).
func Run(opts Options, tool string) (*Manifest, error) {
	if opts.LineCap <= 0 {
		opts.LineCap = 64 << 20
	}
	st, err := os.Stat(opts.Root)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("runs root %s is not a folder: give --root the folder Claude Code writes projects to (default ~/.claude/projects)", opts.Root)
	}
	cwd := filepath.Clean(opts.Cwd)
	sessions, legacy, err := findSessions(opts.Root)
	if err != nil {
		return nil, err
	}
	var plans []plan
	var picked []string
	seenDest := map[string]string{}
	add := func(p plan) error {
		if prev, dup := seenDest[p.dest]; dup {
			return fmt.Errorf("%s and %s would both be written to %s: collect one project at a time (--root)", prev, p.rel, p.dest)
		}
		seenDest[p.dest] = p.rel
		plans = append(plans, p)
		return nil
	}
	for _, s := range sessions {
		ok, err := sessionMatches(s.path, cwd, opts)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		picked = append(picked, s.id)
		if err := add(plan{s.path, rel(opts.Root, s.path), s.id + ".jsonl", "session", s.id}); err != nil {
			return nil, err
		}
		subs, err := sessionFiles(opts.Root, filepath.Join(filepath.Dir(s.path), s.id), s.id)
		if err != nil {
			return nil, err
		}
		for _, p := range subs {
			if err := add(p); err != nil {
				return nil, err
			}
		}
		for _, l := range legacy[filepath.Dir(s.path)] {
			owner, err := firstSessionID(l)
			if err != nil {
				return nil, err
			}
			if owner == s.id {
				if err := add(plan{l, rel(opts.Root, l), filepath.Base(l), analyze.FileSubagent, s.id}); err != nil {
					return nil, err
				}
			}
		}
	}
	sort.Strings(picked)
	sort.Slice(plans, func(i, j int) bool { return plans[i].dest < plans[j].dest })

	m := &Manifest{Kind: ManifestKind, SchemaVersion: 1, Tool: tool, Root: opts.RootLabel, Sessions: picked}
	if m.Root == "" {
		m.Root = filepath.ToSlash(opts.Root)
	}
	m.Match.Cwd = filepath.ToSlash(cwd)
	m.Match.Branch = opts.Branch
	if opts.AllBranches {
		m.Match.Branch = "*"
	}
	if !opts.Since.IsZero() {
		m.Match.Since = opts.Since.UTC().Format(time.RFC3339)
	}
	m.Redaction.Enabled = opts.Redactor != nil
	m.Redaction.Total = redact.Counts{}
	if opts.Redactor != nil {
		m.Redaction.Rules = "gitleaks " + redact.GitleaksVersion + " default rules, and pmcheck's rules for URL passwords, secret assignments, secret fields and listed values"
	}
	m.Files = []File{}
	if m.Sessions == nil {
		m.Sessions = []string{}
	}
	if len(picked) == 0 {
		// Nothing matched: nothing is written, and the manifest of an
		// earlier collection is left as it was. The caller says so the same
		// way with and without --dry-run.
		return m, nil
	}
	var out *os.Root
	if !opts.DryRun {
		if out, err = openOut(opts.Out); err != nil {
			return nil, err
		}
		defer out.Close()
	}
	for _, p := range plans {
		f, err := copyFile(p, opts, out)
		if err != nil {
			return nil, err
		}
		m.Redaction.Total.Add(f.Redactions)
		m.Files = append(m.Files, f)
	}
	if opts.DryRun {
		return m, nil
	}
	if err := writeManifest(out, opts.Out, m); err != nil {
		return nil, err
	}
	return m, nil
}

// openOut makes the output folder and opens it as a root that every write
// goes through. The folder, and each folder of a relative --out, must not be
// a symbolic link: collect writes into the folder named, never through a
// link to somewhere else (a committed .agent-runs could hold one). Inside
// it, os.Root refuses any path that would leave it, and makeDirs refuses
// links, so no write lands outside the output folder.
func openOut(dir string) (*os.Root, error) {
	clean := filepath.Clean(dir)
	check := []string{clean}
	if !filepath.IsAbs(clean) {
		check = check[:0]
		for p := clean; p != "." && p != string(filepath.Separator); p = filepath.Dir(p) {
			if filepath.Base(p) != ".." {
				check = append(check, p)
			}
		}
	}
	for _, p := range check {
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: collect writes only into a real folder, never through a link; remove the link or give --out another folder", p)
		}
	}
	if err := os.MkdirAll(clean, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	if st, err := os.Lstat(clean); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder: give --out a folder", dir)
	}
	root, err := os.OpenRoot(clean)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	return root, nil
}

// makeDirs creates the folders of rel (slash-separated, relative to the
// output root) one at a time, refusing any that is a symbolic link or not a
// folder: a link at .agent-runs/<sessionId> would send the session's
// subagents anywhere.
func makeDirs(out *os.Root, outName, rel string) error {
	cur := ""
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "." {
			continue
		}
		cur = path.Join(cur, part)
		st, err := out.Lstat(filepath.FromSlash(cur))
		switch {
		case err == nil && st.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link: collect never writes through a link; remove it", filepath.Join(outName, filepath.FromSlash(cur)))
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s is not a folder: remove it to collect into it", filepath.Join(outName, filepath.FromSlash(cur)))
		case err == nil:
		case errors.Is(err, fs.ErrNotExist):
			if err := out.Mkdir(filepath.FromSlash(cur), 0o755); err != nil {
				return fmt.Errorf("creating %s: %w", filepath.Join(outName, filepath.FromSlash(cur)), err)
			}
		default:
			return fmt.Errorf("creating %s: %w", filepath.Join(outName, filepath.FromSlash(cur)), err)
		}
	}
	return nil
}

// createTemp creates a new file beside rel in the output root, with a name
// no other file has.
func createTemp(out *os.Root, rel string) (*os.File, string, error) {
	dir, base := path.Split(rel)
	for range 100 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, "", err
		}
		name := dir + "." + base + ".tmp" + hex.EncodeToString(b[:])
		f, err := out.OpenFile(filepath.FromSlash(name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no free temporary name beside %s", rel)
}

type session struct{ id, path string }

// findSessions lists candidate session transcripts under root (any
// <id>.jsonl outside a subagents folder) and, per folder, the legacy
// agent-*.jsonl files beside them.
func findSessions(root string) ([]session, map[string][]string, error) {
	var out []session
	legacy := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == analyze.SubagentsFolder || name == ".git") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !analyze.IsTranscriptName(name) {
			return nil
		}
		if analyze.IsAgentName(name) {
			legacy[filepath.Dir(p)] = append(legacy[filepath.Dir(p)], p)
			return nil
		}
		out = append(out, session{analyze.SessionIDOf(name), p})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, legacy, nil
}

// row is what selection reads of a transcript row.
type row struct {
	Cwd       string `json:"cwd"`
	GitBranch string `json:"gitBranch"`
	Timestamp string `json:"timestamp"`
	SessionID string `json:"sessionId"`
}

// sessionMatches streams a transcript until a row matches. Lines that do not
// name the folder at all are not decoded.
func sessionMatches(path, cwd string, opts Options) (bool, error) {
	quoted, _ := json.Marshal(filepath.ToSlash(cwd))
	needle := quoted[1 : len(quoted)-1]
	if filepath.Separator == '\\' {
		q, _ := json.Marshal(cwd)
		needle = q[1 : len(q)-1]
	}
	match := false
	err := eachLine(path, opts.LineCap, func(line []byte) bool {
		if !bytes.Contains(line, needle) {
			return true
		}
		var r row
		if json.Unmarshal(line, &r) != nil || r.Cwd == "" {
			return true
		}
		if !within(r.Cwd, cwd) {
			return true
		}
		if !opts.AllBranches && r.GitBranch != opts.Branch {
			return true
		}
		if !opts.Since.IsZero() {
			t := analyze.ParseTimestamp(r.Timestamp)
			if t.IsZero() || t.Before(opts.Since) {
				return true
			}
		}
		match = true
		return false
	})
	return match, err
}

// within reports whether dir is base or a folder under it.
func within(dir, base string) bool {
	dir = filepath.Clean(dir)
	if dir == base {
		return true
	}
	sep := string(filepath.Separator)
	return strings.HasPrefix(dir, strings.TrimSuffix(base, sep)+sep)
}

// firstSessionID is the sessionId of a legacy agent transcript's first row
// that names one.
func firstSessionID(path string) (string, error) {
	id := ""
	err := eachLine(path, 64<<20, func(line []byte) bool {
		var r row
		if json.Unmarshal(line, &r) == nil && r.SessionID != "" {
			id = r.SessionID
			return false
		}
		return true
	})
	return id, err
}

// eachLine streams the lines of a file (lines over the cap are skipped)
// until fn returns false.
func eachLine(path string, lineCap int, fn func([]byte) bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	var buf []byte
	for {
		buf = buf[:0]
		over := false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if !over {
				buf = append(buf, chunk...)
				if len(buf) > lineCap {
					over, buf = true, buf[:0]
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if !over && len(buf) > 0 && !fn(buf) {
			return nil
		}
		if err != nil {
			return nil
		}
	}
}

// sessionFiles lists what check reads under a session's folder: subagent
// transcripts and sidecars (subagents/**), Workflow journals and attempts
// (subagents/workflows/<runId>/). Symbolic links are not followed.
func sessionFiles(root, dir, id string) ([]plan, error) {
	// The session's folder and its subagents folder are looked at without
	// following links: a link there would bring in files from anywhere
	// (the walk below does not follow links inside). A link is an error,
	// not a skip: the copy would lack the session's subagents and pass.
	sub := analyze.SubagentsDirOnDisk(dir)
	for _, p := range []string{dir, sub} {
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			if err == nil && st.Mode()&fs.ModeSymlink != 0 {
				return nil, fmt.Errorf("%s is a symbolic link: collect does not follow links at the source; copy the folder in its place or remove the link", p)
			}
			return nil, nil
		}
	}
	var out []plan
	err := filepath.WalkDir(sub, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		kind := analyze.SessionFileKind(p)
		if kind == "" {
			return nil
		}
		r, _ := filepath.Rel(dir, p)
		out = append(out, plan{p, rel(root, p), filepath.ToSlash(filepath.Join(id, r)), kind, id})
		return nil
	})
	return out, err
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// copyFile streams one file through the redactor into a temporary file
// beside its destination in the output root, then renames it into place.
func copyFile(p plan, opts Options, out *os.Root) (File, error) {
	f := File{Path: p.dest, Source: p.rel, Kind: p.kind, Session: p.session, Redactions: redact.Counts{}}
	src, err := os.Open(p.src)
	if err != nil {
		return f, fmt.Errorf("reading %s: %w", p.src, err)
	}
	defer src.Close()
	srcHash := sha256.New()
	counted := &countingReader{r: io.TeeReader(src, srcHash)}
	dstHash := sha256.New()
	var sink io.Writer = dstHash
	var tmp *os.File
	var tmpName string
	dest := filepath.Join(opts.Out, filepath.FromSlash(p.dest))
	if out != nil {
		if err := makeDirs(out, opts.Out, path.Dir(p.dest)); err != nil {
			return f, err
		}
		tmp, tmpName, err = createTemp(out, p.dest)
		if err != nil {
			return f, fmt.Errorf("writing %s: %w", dest, err)
		}
		defer out.Remove(filepath.FromSlash(tmpName)) // after a successful rename this fails harmlessly
		sink = io.MultiWriter(tmp, dstHash)
	}
	cw := &countingWriter{w: sink}
	if opts.Redactor != nil {
		c, err := opts.Redactor.Stream(cw, counted, opts.LineCap)
		if err != nil {
			closeTmp(tmp)
			return f, fmt.Errorf("%s: %w", p.src, err)
		}
		f.Redactions = c
	} else if _, err := io.Copy(cw, counted); err != nil {
		closeTmp(tmp)
		return f, fmt.Errorf("copying %s: %w", p.src, err)
	}
	f.Size, f.SHA256 = cw.n, hex.EncodeToString(dstHash.Sum(nil))
	f.SourceSize, f.SourceSHA256 = counted.n, hex.EncodeToString(srcHash.Sum(nil))
	if tmp != nil {
		if err := tmp.Close(); err != nil {
			return f, fmt.Errorf("writing %s: %w", dest, err)
		}
		if err := out.Rename(filepath.FromSlash(tmpName), filepath.FromSlash(p.dest)); err != nil {
			return f, fmt.Errorf("writing %s: %w", dest, err)
		}
	}
	return f, nil
}

func closeTmp(f *os.File) {
	if f != nil {
		f.Close()
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeManifest merges this collection into the folder's manifest: entries
// for files collected now replace earlier ones; earlier entries whose file is
// still there are kept, so repeated collections on a branch accumulate. m
// itself stays this collection's: what the command reports is what it
// matched now, not what earlier runs left.
func writeManifest(root *os.Root, out string, this *Manifest) error {
	m := *this
	m.Files = slices.Clone(this.Files)
	m.Sessions = slices.Clone(this.Sessions)
	m.Redaction.Total = redact.Counts{}
	m.Redaction.Total.Add(this.Redaction.Total)
	name := filepath.Join(out, ManifestName)
	if st, err := root.Lstat(ManifestName); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (a link?): remove it to collect", name)
	}
	if data, err := root.ReadFile(ManifestName); err == nil {
		var old Manifest
		if json.Unmarshal(data, &old) == nil && old.Kind == ManifestKind {
			now := map[string]bool{}
			for _, f := range m.Files {
				now[f.Path] = true
			}
			sessions := map[string]bool{}
			for _, s := range m.Sessions {
				sessions[s] = true
			}
			for _, f := range old.Files {
				if now[f.Path] {
					continue
				}
				if _, err := root.Lstat(filepath.FromSlash(f.Path)); err != nil {
					continue
				}
				m.Files = append(m.Files, f)
				m.Redaction.Total.Add(f.Redactions)
				if !sessions[f.Session] {
					sessions[f.Session] = true
					m.Sessions = append(m.Sessions, f.Session)
				}
			}
			sort.Strings(m.Sessions)
			sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
		}
	}
	data, err := json.MarshalIndent(&m, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	tmp, tmpName, err := createTemp(root, ManifestName)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	defer root.Remove(tmpName)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return root.Rename(tmpName, ManifestName)
}
