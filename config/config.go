// Package config reads .pmcheck.yaml, the repository's settings for
// `pmcheck check`: what to check, which rules and baseline, the fail level,
// the git join and the report outputs. A repository's workflow then needs no
// arguments, and a developer runs the same check as CI with `pmcheck check`.
//
// Loading is strict, like the rule files: an unknown key, a value of the
// wrong type or an invalid setting is an error at file:line:col, and every
// problem of the file is reported, not only the first.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// FileName is the config file's name.
const FileName = ".pmcheck.yaml"

// MaxFileSize caps the file: a config is a few lines.
const MaxFileSize = 1 << 20

// Config is .pmcheck.yaml. Zero values mean "not set": check's flags and
// defaults apply.
type Config struct {
	// File is the path the config was read from.
	File string
	// Paths are the inputs to check.
	Paths []string
	// Rules are rule files (FILE replaces the default pack, +FILE extends it).
	Rules    []string
	Disable  []string
	Severity []string // ID=LEVEL
	Baseline string
	// FailLevel is error, warning, note or none.
	FailLevel    string
	AllowEmpty   *bool
	PublishTools []string
	DeployLabels []string
	Git          struct {
		Repo, Base, Head string
		// Commits is a range to check, BASE..HEAD (check --commits);
		// Checkpoints are checkpoint repositories (--checkpoints).
		Commits     string
		Checkpoints []string
	}
	// Outputs are report outputs, FORMAT or FORMAT=FILE, as --format takes them.
	Outputs         []string
	JUnitNoFileLine *bool
}

// Position is a 1-based place in the file.
type Position struct {
	File      string
	Line, Col int
}

func (p Position) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// PosError is one problem in the file.
type PosError struct {
	Pos Position
	Msg string
}

func (e *PosError) Error() string { return e.Pos.String() + ": " + e.Msg }

// LoadError holds every problem of the file, in file order.
type LoadError struct{ Errs []*PosError }

// Error is one line: the first problem, and how many more there are.
func (e *LoadError) Error() string {
	if len(e.Errs) == 1 {
		return e.Errs[0].Error()
	}
	var b strings.Builder
	for i, p := range e.Errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Error())
	}
	return fmt.Sprintf("%d problems in the config file: %s", len(e.Errs), b.String())
}

// Find returns the config file that applies in dir: dir/.pmcheck.yaml, else
// the nearest one in a parent folder, stopping at the repository root (the
// first folder that holds .git) so a file elsewhere in the home folder never
// applies to a repository. "" when there is none.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, FileName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return "", nil
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// Load reads and checks a config file.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read config file %s: %v (give --config an existing file, or --no-config)", path, errors.Unwrap(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("config file %s is a directory; give the YAML file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read config file %s: %v", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("config file %s is larger than %d bytes; a config is a short YAML file", path, MaxFileSize)
	}
	return Parse(path, data)
}

// OutputFormats are the formats outputs takes: every --format format.
var OutputFormats = []string{"text", "json", "sarif", "junit", "github", "markdown", "html"}

// keys are the valid top-level keys (those settingReaders reads), sorted:
// errors list them as they are.
var (
	keys    = slices.Sorted(maps.Keys(settingReaders))
	gitKeys = []string{"base", "checkpoints", "commits", "head", "repo"}
	// formats are every format --format takes, in its order
	// (TestConfigOutputsAreTheReportFormats holds them to report.Formats;
	// config sits below report and does not import it).
	formats = OutputFormats
	levels  = []string{"error", "warning", "note"}
	ruleID  = lazyre.New(`^[A-Za-z][A-Za-z0-9]*([-_.][A-Za-z0-9]+)*$`)
)

type loader struct {
	file string
	errs []*PosError
}

func (l *loader) errorf(n *yaml.Node, format string, args ...any) {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, max(n.Column, 1)
	}
	l.errs = append(l.errs, &PosError{Pos: Position{l.file, line, col}, Msg: fmt.Sprintf(format, args...)})
}

var yamlLineError = lazyre.New(`^yaml: line (\d+): (.*)$`)

// Parse checks a config held in memory; name is used in error positions.
func Parse(name string, data []byte) (cfg *Config, err error) {
	l := &loader{file: name}
	defer func() {
		if r := recover(); r != nil { // the YAML decoder panics on some inputs
			cfg, err = nil, &LoadError{Errs: []*PosError{{Pos: Position{name, 1, 1}, Msg: fmt.Sprintf("not valid YAML (%v)", r)}}}
		}
	}()
	if !utf8.Valid(data) {
		l.errorf(nil, "the file is not valid UTF-8; save it as UTF-8")
		return nil, &LoadError{l.errs}
	}
	cfg = &Config{File: name}
	root, shape := l.document(data)
	switch shape {
	case notSettings:
		return nil, &LoadError{l.errs}
	case setsNothing:
		// Even when a second document follows (TestNullConfigIgnoresASecondDocument).
		return cfg, nil
	}
	l.settings(root, cfg)
	if len(l.errs) > 0 {
		slices.SortStableFunc(l.errs, func(a, b *PosError) int {
			if a.Pos.Line != b.Pos.Line {
				return a.Pos.Line - b.Pos.Line
			}
			return a.Pos.Col - b.Pos.Col
		})
		return nil, &LoadError{l.errs}
	}
	return cfg, nil
}

// docShape is what the file's first document holds.
type docShape int

const (
	settingsMapping docShape = iota // a mapping of settings to read
	setsNothing                     // empty, or null: the config sets nothing
	notSettings                     // not valid YAML, or not a mapping (the problem is recorded)
)

// document decodes the file's first document and returns its mapping of
// settings. A second document is a problem of its own, listed with the
// first document's.
func (l *loader) document(data []byte) (*yaml.Node, docShape) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, setsNothing
		}
		msg := err.Error()
		line := 1
		if m := yamlLineError().FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		l.errs = append(l.errs, &PosError{Pos: Position{l.file, line, 1}, Msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")})
		return nil, notSettings
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		l.errorf(&extra, "a second YAML document starts here; the config is one document, so remove the \"---\" separator")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, setsNothing
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, setsNothing
	}
	if root.Kind != yaml.MappingNode {
		l.errorf(root, "the config is a mapping of settings (paths:, rules:, baseline:, fail-level:, …), not a %s", kindName(root))
		return nil, notSettings
	}
	return root, settingsMapping
}

// settings reads each top-level key with its reader; a key set twice or
// unknown is a problem, and the rest of the file is still read.
func (l *loader) settings(root *yaml.Node, cfg *Config) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			l.errorf(k, "%q is set twice; keep one", k.Value)
			continue
		}
		seen[k.Value] = true
		read, known := settingReaders[k.Value]
		if !known {
			l.errorf(k, "unknown key %q; valid keys: %s", k.Value, strings.Join(keys, ", "))
			continue
		}
		read(l, v, cfg)
	}
}

// settingReaders read each top-level key into the Config, recording its
// problems.
var settingReaders = map[string]func(l *loader, v *yaml.Node, cfg *Config){
	"version": func(l *loader, v *yaml.Node, _ *Config) {
		if v.Kind != yaml.ScalarNode || v.Value != "1" {
			l.errorf(v, "version must be 1 (this pmcheck reads config version 1)")
		}
	},
	"paths":    func(l *loader, v *yaml.Node, cfg *Config) { cfg.Paths = l.strings(v, "paths", nonEmpty) },
	"rules":    func(l *loader, v *yaml.Node, cfg *Config) { cfg.Rules = l.strings(v, "rules", nonEmpty) },
	"disable":  func(l *loader, v *yaml.Node, cfg *Config) { cfg.Disable = l.strings(v, "disable", isRuleID) },
	"severity": func(l *loader, v *yaml.Node, cfg *Config) { cfg.Severity = l.severity(v) },
	"baseline": func(l *loader, v *yaml.Node, cfg *Config) { cfg.Baseline = l.scalar(v, "baseline") },
	"fail-level": func(l *loader, v *yaml.Node, cfg *Config) {
		cfg.FailLevel = l.scalar(v, "fail-level")
		if cfg.FailLevel != "" && !slices.Contains(append(levels, "none"), cfg.FailLevel) {
			l.errorf(v, "fail-level %q is not one of error, warning, note, none", cfg.FailLevel)
		}
	},
	"allow-empty":        func(l *loader, v *yaml.Node, cfg *Config) { cfg.AllowEmpty = l.boolean(v, "allow-empty") },
	"junit-no-file-line": func(l *loader, v *yaml.Node, cfg *Config) { cfg.JUnitNoFileLine = l.boolean(v, "junit-no-file-line") },
	"publish-tools":      func(l *loader, v *yaml.Node, cfg *Config) { cfg.PublishTools = l.strings(v, "publish-tools", nonEmpty) },
	"deploy-labels":      func(l *loader, v *yaml.Node, cfg *Config) { cfg.DeployLabels = l.strings(v, "deploy-labels", nonEmpty) },
	"outputs":            func(l *loader, v *yaml.Node, cfg *Config) { cfg.Outputs = l.strings(v, "outputs", namesAFormat) },
	"git":                func(l *loader, v *yaml.Node, cfg *Config) { l.git(v, cfg) },
}

func isRuleID(s string) string {
	if !ruleID().MatchString(s) {
		return "is not a rule id"
	}
	return ""
}

func namesAFormat(s string) string {
	f, _, _ := strings.Cut(s, "=")
	if !slices.Contains(formats, f) {
		return "names no format; use FORMAT or FORMAT=FILE with FORMAT one of " + strings.Join(formats, ", ")
	}
	return ""
}

func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "is empty"
	}
	return ""
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	}
	return "single value"
}

func (l *loader) scalar(v *yaml.Node, key string) string {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		l.errorf(v, "%s takes a single value, not a %s", key, kindName(v))
		return ""
	}
	return v.Value
}

func (l *loader) boolean(v *yaml.Node, key string) *bool {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		l.errorf(v, "%s takes true or false", key)
		return nil
	}
	b := v.Value == "true"
	return &b
}

// strings reads a list of strings (a single string counts as a list of one);
// check returns why an item is invalid, or "".
func (l *loader) strings(v *yaml.Node, key string, check func(string) string) []string {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	var out []string
	for _, it := range items {
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
			l.errorf(it, "%s takes a list of strings; this item is a %s", key, kindName(it))
			continue
		}
		if why := check(it.Value); why != "" {
			l.errorf(it, "%s: %q %s", key, it.Value, why)
			continue
		}
		out = append(out, it.Value)
	}
	return out
}

// severity reads a mapping of rule id to level.
func (l *loader) severity(v *yaml.Node) []string {
	if v.Kind != yaml.MappingNode {
		l.errorf(v, "severity is a mapping of rule id to level (error, warning, note), e.g. \"killed-subagent-not-shipped-unreviewed: error\"")
		return nil
	}
	var out []string
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, lv := v.Content[i], v.Content[i+1]
		if !ruleID().MatchString(k.Value) {
			l.errorf(k, "severity: %q is not a rule id", k.Value)
			continue
		}
		if lv.Kind != yaml.ScalarNode || !slices.Contains(levels, lv.Value) {
			l.errorf(lv, "severity of %s must be error, warning or note", k.Value)
			continue
		}
		out = append(out, k.Value+"="+lv.Value)
	}
	return out
}

func (l *loader) git(v *yaml.Node, cfg *Config) {
	if v.Kind != yaml.MappingNode {
		l.errorf(v, "git is a mapping with repo, base and head, or repo, commits and checkpoints")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "repo":
			cfg.Git.Repo = l.scalar(val, "git.repo")
		case "base":
			cfg.Git.Base = l.scalar(val, "git.base")
		case "head":
			cfg.Git.Head = l.scalar(val, "git.head")
		case "commits":
			cfg.Git.Commits = l.scalar(val, "git.commits")
		case "checkpoints":
			cfg.Git.Checkpoints = l.strings(val, "git.checkpoints", nonEmpty)
		default:
			l.errorf(k, "unknown key %q under git; valid keys: %s", k.Value, strings.Join(gitKeys, ", "))
		}
	}
}
