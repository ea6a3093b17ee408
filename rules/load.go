package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
	"go.yaml.in/yaml/v3"

	"github.com/pmcheck/pmcheck/analyze/model"
	"github.com/pmcheck/pmcheck/internal/lazyre"
)

// FormatVersion is the only rule file version this pmcheck reads.
const FormatVersion = 1

// MaxFileSize caps a rule or baseline file; policy files are small, and the
// cap keeps a hostile file from costing more than a moment.
const MaxFileSize = 1 << 20

// Valid keys, sorted: error messages list them as they are.
var (
	topKeys  = []string{"review", "rules", "ship", "version"}
	ruleKeys = ruleFieldKeys()
)

// ruleFieldKeys are the keys ruleFields reads, sorted.
func ruleFieldKeys() []string {
	var keys []string
	for _, f := range ruleFields {
		keys = append(keys, f.key)
	}
	slices.Sort(keys)
	return keys
}

// MaxTags caps a rule's tags (SARIF consumers ignore rules with more than 20).
const MaxTags = 10

var (
	idPattern  = lazyre.New(`^[A-Za-z][A-Za-z0-9]*([-_.][A-Za-z0-9]+)*$`)
	tagPattern = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

const maxIDLength = 64

// factTypes maps each fact kind to its typed struct: conditions and message
// placeholders compile against these, so the fields a rule may name are
// exactly the `expr` tags of analyze/model/facts.go.
var factTypes = map[string]reflect.Type{
	model.FactRun:      reflect.TypeFor[model.RunFact](),
	model.FactAttempt:  reflect.TypeFor[model.AttemptFact](),
	model.FactSubagent: reflect.TypeFor[model.SubagentFact](),
	model.FactShip:     reflect.TypeFor[model.ShipFact](),
	model.FactWatchdog: reflect.TypeFor[model.WatchdogFact](),
	model.FactCommit:   reflect.TypeFor[model.CommitFact](),
}

// Fields returns the field names a rule can use for a fact kind, sorted.
func Fields(kind string) []string {
	t, ok := factTypes[kind]
	if !ok {
		return nil
	}
	var out []string
	for f := range t.Fields() {
		if name := f.Tag.Get("expr"); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// exprOptions are the compile options for one fact kind. now() is disabled and
// date() reads UTC: a rule's verdict must not depend on when or where it runs.
func exprOptions(kind string) []expr.Option {
	return []expr.Option{
		expr.Env(reflect.New(factTypes[kind]).Elem().Interface()),
		expr.DisableBuiltin("now"),
		expr.Timezone("UTC"),
	}
}

// PosError is one problem in a rule or baseline file, at a 1-based line and
// column.
type PosError struct {
	Pos Position
	Msg string
}

func (e *PosError) Error() string { return e.Pos.String() + ": " + e.Msg }

// LoadError holds every problem found in one file, in file order.
type LoadError struct {
	Errs []*PosError
}

// Error is one line: the first problem, and how many more there are.
func (e *LoadError) Error() string {
	if len(e.Errs) == 1 {
		return e.Errs[0].Error()
	}
	return fmt.Sprintf("%s (and %d more problems in this file; run 'pmcheck rules validate %s' to see them all)",
		e.Errs[0].Error(), len(e.Errs)-1, e.Errs[0].Pos.File)
}

// LoadFile reads and compiles a rule file. name in errors is the path as given.
func LoadFile(path string) (*Pack, error) {
	data, err := readSmallFile(path, "rule file")
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// readSmallFile reads a policy file, refusing directories and files over
// MaxFileSize with a one-line error.
func readSmallFile(path, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s %q: %v", what, path, errors.Unwrap(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("cannot read %s %q: it is a directory; pass a YAML file", what, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s %q: %v", what, path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s %q is larger than %d bytes; a %s is a short YAML file", what, path, MaxFileSize, what)
	}
	return data, nil
}

// Parse compiles a rule file held in memory; name is used in error positions.
// Every problem is reported (a *LoadError), not only the first.
func Parse(name string, data []byte) (*Pack, error) {
	return parseDocument(name, data, ruleFile, (*loader).pack)
}

// A fileKind names a kind of pmcheck YAML file in its messages.
type fileKind struct {
	file string // with its article: "a rule file"
	noun string // as in "unsupported rule file version"
	list string // the key of the list it holds
}

var (
	ruleFile         = fileKind{"a rule file", "rule file", "rules"}
	baselineFile     = fileKind{"a baseline", "baseline", "findings"}
	expectationsFile = fileKind{"an expectations file", "expectations", "findings"}
)

// parseDocument reads one YAML document of a pmcheck file of the given kind
// with body, and returns what body built or every problem the loader
// recorded.
func parseDocument[T any](name string, data []byte, kind fileKind, body func(*loader, *yaml.Node) *T) (*T, error) {
	l := &loader{file: name, kind: kind, src: data}
	var v *T
	if root := l.document(data); root != nil {
		v = body(l, root)
	}
	if err := l.err(); err != nil {
		return nil, err
	}
	return v, nil
}

// version checks the "version" key of a file's top mapping. It reports a
// problem and returns false when the key is missing, not an integer, or not
// FormatVersion.
func (l *loader) version(root *yaml.Node, top map[string]*yaml.Node) bool {
	vn, ok := top["version"]
	switch {
	case !ok:
		l.nodeErrorf(root, "missing key \"version\"; %s starts with \"version: %d\"", l.kind.file, FormatVersion)
	case vn.Kind != yaml.ScalarNode || vn.ShortTag() != "!!int":
		l.nodeErrorf(vn, "\"version\" must be an integer, got %s; write \"version: %d\"", describe(vn), FormatVersion)
	default:
		if v, err := strconv.Atoi(vn.Value); err != nil || v != FormatVersion {
			l.nodeErrorf(vn, "unsupported %s version %s; this pmcheck reads version %d", l.kind.noun, vn.Value, FormatVersion)
		} else {
			return true
		}
	}
	return false
}

// err returns the problems found, in file order, or nil.
func (l *loader) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(l.errs, func(a, b *PosError) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
	return &LoadError{Errs: l.errs}
}

type loader struct {
	file  string
	kind  fileKind
	src   []byte
	lines []string // src split into lines, built on first use
	errs  []*PosError
	exprs exprCompiler
}

func (l *loader) errorf(line, col int, format string, args ...any) {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	l.errs = append(l.errs, &PosError{Pos: Position{File: l.file, Line: line, Col: col}, Msg: fmt.Sprintf(format, args...)})
}

func (l *loader) nodeErrorf(n *yaml.Node, format string, args ...any) {
	l.errorf(n.Line, n.Column, format, args...)
}

func (l *loader) pos(n *yaml.Node) Position {
	return Position{File: l.file, Line: n.Line, Col: n.Column}
}

var yamlLineError = lazyre.New(`^yaml: line (\d+): (.*)$`)

// document decodes the single YAML document of the file into a node tree.
func (l *loader) document(data []byte) (root *yaml.Node) {
	if !utf8.Valid(data) {
		l.errorf(1, 1, "the file is not valid UTF-8; save it as UTF-8")
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := safeDecode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			l.empty()
		} else {
			l.yamlError(err)
		}
		return nil
	}
	var extra yaml.Node
	if err := safeDecode(dec, &extra); err == nil {
		l.errorf(extra.Line, extra.Column, "a second YAML document starts here; %s holds one document, so remove the \"---\" separator", l.kind.file)
		return nil
	} else if !errors.Is(err, io.EOF) {
		l.yamlError(err)
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		l.empty()
		return nil
	}
	return doc.Content[0]
}

func (l *loader) empty() {
	l.errorf(1, 1, "the file is empty; %s starts with \"version: %d\" and a %q list", l.kind.file, FormatVersion, l.kind.list)
}

// safeDecode turns a parser panic into an error: bad input must never crash.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the YAML parser failed on this input (%v)", r)
		}
	}()
	return dec.Decode(n)
}

func (l *loader) yamlError(err error) {
	msg := strings.TrimSpace(err.Error())
	if m := yamlLineError().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		l.errorf(line, 1, "invalid YAML: %s", oneLine(m[2]))
		return
	}
	l.errorf(1, 1, "invalid YAML: %s", oneLine(strings.TrimPrefix(msg, "yaml: ")))
}

// describe names a node's type for "must be X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!str":
		return "a string"
	case "!!timestamp":
		return "a timestamp"
	case "!!binary":
		return "binary data"
	}
	return fmt.Sprintf("a value tagged %q", n.Tag)
}

// mapping checks that n is a mapping with only valid keys, each once, and
// returns the values by key (nil when n is not a usable mapping).
func (l *loader) mapping(n *yaml.Node, what string, valid []string) map[string]*yaml.Node {
	if n.Kind == yaml.AliasNode {
		l.nodeErrorf(n, "aliases are not supported in rule files; write the value out")
		return nil
	}
	if n.Kind != yaml.MappingNode {
		l.nodeErrorf(n, "%s must be a mapping, got %s", what, describe(n))
		return nil
	}
	out := map[string]*yaml.Node{}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			l.nodeErrorf(k, "a key of %s must be a string, got %s; expected one of %s", what, describe(k), quoteList(valid))
			continue
		}
		if !slices.Contains(valid, k.Value) {
			l.nodeErrorf(k, "unknown key %q in %s; %sexpected one of %s", k.Value, what, didYouMean(k.Value, valid), quoteList(valid))
			continue
		}
		if prev, dup := keys[k.Value]; dup {
			l.nodeErrorf(k, "duplicate key %q in %s; the first is at line %d, column %d", k.Value, what, prev.Line, prev.Column)
			continue
		}
		keys[k.Value] = k
		out[k.Value] = v
	}
	return out
}

// str returns a string scalar; anything else is an error naming the key.
func (l *loader) str(n *yaml.Node, key string) (string, bool) {
	if n.Kind == yaml.AliasNode {
		l.nodeErrorf(n, "aliases are not supported in rule files; write the value out")
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		hint := ""
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
			hint = "; quote the value to make it a string"
		}
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
			// where: !reviewed reads as a YAML tag, the most common slip.
			l.nodeErrorf(n, "%q must be a string, but YAML read %q as a tag; quote the whole value, e.g. %s: \"%s ...\"", key, n.Tag, key, n.Tag)
			return "", false
		}
		l.nodeErrorf(n, "%q must be a string, got %s%s", key, describe(n), hint)
		return "", false
	}
	return n.Value, true
}

// strList reads a string or a list of strings.
func (l *loader) strList(n *yaml.Node, key string, allowScalar bool) ([]string, []*yaml.Node, bool) {
	if allowScalar && n.Kind == yaml.ScalarNode {
		s, ok := l.str(n, key)
		return []string{s}, []*yaml.Node{n}, ok
	}
	if n.Kind != yaml.SequenceNode {
		what := "a list of strings"
		if allowScalar {
			what = "a string or a list of strings"
		}
		l.nodeErrorf(n, "%q must be %s, got %s", key, what, describe(n))
		return nil, nil, false
	}
	ok := true
	var vals []string
	var nodes []*yaml.Node
	for _, item := range n.Content {
		s, good := l.str(item, key+" item")
		if !good {
			ok = false
			continue
		}
		vals = append(vals, s)
		nodes = append(nodes, item)
	}
	return vals, nodes, ok
}

func (l *loader) pack(root *yaml.Node) *Pack {
	top := l.mapping(root, "the rule file", topKeys)
	if top == nil {
		return nil
	}
	// A version problem is reported and the rest of the file is still
	// checked, so one pass lists every problem.
	l.version(root, top)
	pack := &Pack{settingsFrom: settingsFrom{}}
	before := len(l.errs)
	l.settings(top, pack)
	rn, ok := top["rules"]
	if !ok {
		// A file may only configure the detectors (review:, ship:).
		if len(pack.settingsFrom) == 0 && len(l.errs) == before {
			l.nodeErrorf(root, "missing key \"rules\"; add a list of rules")
			return nil
		}
		return pack
	}
	if rn.Kind != yaml.SequenceNode {
		l.nodeErrorf(rn, "\"rules\" must be a list of rules, got %s", describe(rn))
		return nil
	}
	if len(rn.Content) == 0 {
		l.nodeErrorf(rn, "\"rules\" is empty; a rule file defines at least one rule")
		return nil
	}
	// Duplicate ids are found from the id nodes, so a rule with other
	// problems is still checked against the rest.
	seen := map[string]*yaml.Node{}
	for _, n := range rn.Content {
		id := ruleIDNode(n)
		if id != nil {
			if prev, dup := seen[id.Value]; dup {
				l.errorf(n.Line, n.Column, "duplicate rule id %q; the first is at line %d, column %d", id.Value, prev.Line, prev.Column)
				l.rule(n) // its own problems too
				continue
			}
			seen[id.Value] = n
		}
		if r := l.rule(n); r != nil {
			pack.Rules = append(pack.Rules, r)
		}
	}
	return pack
}

// ruleIDNode is the scalar under a rule's "id" key, or nil.
func ruleIDNode(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "id" && n.Content[i+1].Kind == yaml.ScalarNode && n.Content[i+1].Value != "" {
			return n.Content[i+1]
		}
	}
	return nil
}

// rule reads and compiles one rule; nil when it has any problem.
func (l *loader) rule(n *yaml.Node) *Rule {
	before := len(l.errs)
	m := l.mapping(n, "a rule", ruleKeys)
	if m == nil {
		return nil
	}
	r := &Rule{Pos: l.pos(n)}
	l.missingRuleKeys(n, m)
	// Every field is read even after a problem, so one pass lists them all.
	for _, f := range ruleFields {
		if v, ok := m[f.key]; ok {
			f.read(l, v, r)
		}
	}
	l.compile(r, m["where"], m["message"])
	if len(l.errs) > before {
		return nil
	}
	return r
}

// ruleFields read a rule's keys into the Rule, in this order (the order of
// their problems), each recording what is wrong with its value.
var ruleFields = []struct {
	key  string
	read func(l *loader, v *yaml.Node, r *Rule)
}{
	{"id", (*loader).ruleID},
	{"title", (*loader).ruleTitle},
	{"severity", (*loader).ruleSeverity},
	{"description", func(l *loader, v *yaml.Node, r *Rule) { r.Description = l.trimmedText(v, "description") }},
	{"help", func(l *loader, v *yaml.Node, r *Rule) { r.Help = l.trimmedText(v, "help") }},
	{"aliases", (*loader).ruleAliases},
	{"tags", (*loader).ruleTags},
	{"select", (*loader).ruleSelect},
	{"where", (*loader).ruleWhere},
	{"message", (*loader).ruleMessage},
}

// missingRuleKeys names the required keys a rule lacks, in one problem.
func (l *loader) missingRuleKeys(n *yaml.Node, m map[string]*yaml.Node) {
	var missing []string
	for _, key := range []string{"id", "title", "severity", "select", "where", "message"} {
		if _, ok := m[key]; !ok {
			missing = append(missing, key)
		}
	}
	if len(missing) == 0 {
		return
	}
	what := "a rule"
	if idn, ok := m["id"]; ok && idn.Kind == yaml.ScalarNode {
		what = fmt.Sprintf("rule %q", idn.Value)
	}
	noun := "key"
	if len(missing) > 1 {
		noun = "keys"
	}
	l.nodeErrorf(n, "%s is missing required %s %s", what, noun, quoteList(missing))
}

func (l *loader) ruleID(v *yaml.Node, r *Rule) {
	s, ok := l.str(v, "id")
	switch {
	case !ok:
	case len(s) > maxIDLength:
		l.nodeErrorf(v, "rule id %q is longer than %d characters", s, maxIDLength)
	case !idPattern().MatchString(s):
		l.nodeErrorf(v, "rule id %q is not valid; use letters and digits separated by single '-', '_' or '.', starting with a letter (e.g. \"my-rule\")", s)
	default:
		r.ID = s
	}
}

func (l *loader) ruleTitle(v *yaml.Node, r *Rule) {
	s, ok := l.str(v, "title")
	switch {
	case !ok:
	case strings.TrimSpace(s) == "":
		l.nodeErrorf(v, "\"title\" is empty; give the rule a one-line title")
	case strings.ContainsAny(strings.TrimRight(s, "\n"), "\n\r"):
		l.nodeErrorf(v, "\"title\" must be one line")
	default:
		r.Title = strings.TrimSpace(s)
	}
}

func (l *loader) ruleSeverity(v *yaml.Node, r *Rule) {
	s, ok := l.str(v, "severity")
	switch {
	case !ok:
	case severityRank(s) == 0:
		l.nodeErrorf(v, "unknown severity %q; expected one of %s", s, quoteList(sortedCopy(Severities)))
	default:
		r.Severity = s
	}
}

// trimmedText is a free-text field without its surrounding space ("" when
// it is not a string).
func (l *loader) trimmedText(v *yaml.Node, key string) string {
	s, _ := l.str(v, key)
	return strings.TrimSpace(s)
}

func (l *loader) ruleAliases(v *yaml.Node, r *Rule) {
	ids, nodes, _ := l.strList(v, "aliases", false)
	for i, a := range ids {
		if !idPattern().MatchString(a) || len(a) > maxIDLength {
			l.nodeErrorf(nodes[i], "alias %q is not a valid rule id", a)
			continue
		}
		r.Aliases = append(r.Aliases, a)
	}
}

func (l *loader) ruleTags(v *yaml.Node, r *Rule) {
	tags, nodes, _ := l.strList(v, "tags", false)
	seen := map[string]bool{}
	for i, t := range tags {
		switch {
		case !tagPattern().MatchString(t):
			l.nodeErrorf(nodes[i], "tag %q is not valid; use letters, digits, '.', '_' and '-'", t)
		case seen[t]:
			l.nodeErrorf(nodes[i], "duplicate tag %q", t)
		default:
			seen[t] = true
			r.Tags = append(r.Tags, t)
		}
	}
	if len(tags) > MaxTags {
		l.nodeErrorf(v, "a rule has at most %d tags, this one has %d", MaxTags, len(tags))
	}
}

func (l *loader) ruleSelect(v *yaml.Node, r *Rule) {
	kinds, nodes, _ := l.strList(v, "select", true)
	if v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
		l.nodeErrorf(v, "\"select\" is empty; name a fact kind: one of %s", quoteList(Kinds))
	}
	for i, k := range kinds {
		switch {
		case factTypes[k] == nil:
			l.nodeErrorf(nodes[i], "unknown fact kind %q in \"select\"; expected one of %s", k, quoteList(Kinds))
		case slices.Contains(r.Select, k):
			l.nodeErrorf(nodes[i], "fact kind %q is selected twice", k)
		default:
			r.Select = append(r.Select, k)
		}
	}
}

func (l *loader) ruleWhere(v *yaml.Node, r *Rule) {
	s, ok := l.str(v, "where")
	switch {
	case !ok:
	case strings.TrimSpace(s) == "":
		l.nodeErrorf(v, "\"where\" is empty; write a boolean expression, e.g. \"killed && !reviewed\"")
	default:
		r.Where = s
	}
}

func (l *loader) ruleMessage(v *yaml.Node, r *Rule) {
	s, ok := l.str(v, "message")
	switch {
	case !ok:
	case strings.TrimSpace(s) == "":
		l.nodeErrorf(v, "\"message\" is empty; say what happened, e.g. \"subagent {{ description }} was killed\"")
	default:
		r.Message = strings.TrimSpace(s)
	}
}

func forKind(sel []string, kind string) string {
	if len(sel) < 2 {
		return ""
	}
	return fmt.Sprintf(" (compiled for %s)", kind)
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// suggest adds a "did you mean" to expr's "unknown name X" errors.
func (l *loader) suggest(msg, kind string) string {
	const prefix = "unknown name "
	if !strings.HasPrefix(msg, prefix) {
		return msg
	}
	name := strings.TrimPrefix(msg, prefix)
	if name == "now" {
		return "now() is not available: a rule's verdict must not depend on when pmcheck runs; compare with the fact's own times"
	}
	msg = fmt.Sprintf("%s is not a field of the %s fact", strconv.Quote(name), kind)
	if dym := didYouMean(name, Fields(kind)); dym != "" {
		return msg + "; " + strings.TrimSuffix(dym, " ")
	}
	return msg + "; see 'pmcheck rules explain' or docs/rules.md for the fields"
}

// didYouMean returns `did you mean "x"? ` for the closest candidate within
// two edits, or "".
func didYouMean(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %q? ", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// exprErrorOffset returns the byte offset within src that an expr error
// points at, and the error's message without expr's multi-line snippet.
func exprErrorOffset(src string, err error) (int, string) {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return 0, oneLine(err.Error())
	}
	// expr's Line is 1-based and Column counts runes from the line start.
	off, line := 0, 1
	for line < fe.Line {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		line++
	}
	for n := 0; n < fe.Column && off < len(src); n++ {
		_, size := utf8.DecodeRuneInString(src[off:])
		off += size
	}
	return off, oneLine(fe.Message)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// scalarPos maps a byte offset within a scalar's value to a file position.
// Plain and quoted one-line scalars and literal blocks map exactly; for other
// styles the scalar's own position is the best honest answer.
func (l *loader) scalarPos(n *yaml.Node, off int) Position {
	p := l.pos(n)
	v := n.Value
	if off > len(v) {
		off = len(v)
	}
	switch {
	case n.Style&yaml.LiteralStyle != 0:
		if l.lines == nil {
			l.lines = strings.Split(string(l.src), "\n")
		}
		lineIdx := strings.Count(v[:off], "\n")
		lineStart := strings.LastIndexByte(v[:off], '\n') + 1
		srcLine := n.Line + 1 + lineIdx // the block's content starts on the line after "|"
		if srcLine-1 >= len(l.lines) {
			return p
		}
		// The source line is the block's indentation followed by the value's
		// line, so the indentation is the difference of their lengths.
		text := strings.TrimSuffix(l.lines[srcLine-1], "\r")
		valueLine := v[lineStart:]
		if i := strings.IndexByte(valueLine, '\n'); i >= 0 {
			valueLine = valueLine[:i]
		}
		indent := len(text) - len(valueLine)
		if indent < 0 || !strings.HasSuffix(text, valueLine) {
			return p
		}
		return Position{File: l.file, Line: srcLine, Col: utf8.RuneCountInString(text[:indent]) + 1 + utf8.RuneCountInString(v[lineStart:off])}
	case strings.Contains(v, "\n"), n.Style&yaml.FoldedStyle != 0:
		return p
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		p.Col += 1 + utf8.RuneCountInString(v[:off])
	default:
		p.Col += utf8.RuneCountInString(v[:off])
	}
	return p
}

// compile compiles a rule's where and message for each selected kind. They
// are compiled apart, so a rule with a mistake in each shows both; each
// stops at its first kind that fails, so one mistake gives one error
// instead of one per selected kind.
func (l *loader) compile(r *Rule, whereNode, msgNode *yaml.Node) {
	compiled := make([]compiledKind, len(r.Select))
	whereOK, messageOK := r.Where != "", r.Message != ""
	if len(r.Select) > 0 && r.Where != "" {
		for i, kind := range r.Select {
			prog, err := l.exprs.compile(r.Where, kind, true)
			if err != nil {
				off, msg := exprErrorOffset(r.Where, err)
				p := l.scalarPos(whereNode, off)
				l.errorf(p.Line, p.Col, "\"where\"%s: %s", forKind(r.Select, kind), l.suggest(msg, kind))
				whereOK = false
				break
			}
			compiled[i] = compiledKind{kind: kind, where: prog}
		}
	}
	if len(r.Select) > 0 && r.Message != "" {
		// Offsets in r.Message are shifted by the trimmed leading space.
		lead := len(msgNode.Value) - len(strings.TrimLeft(msgNode.Value, " \t\r\n"))
		for i, kind := range r.Select {
			t, terr := compileTemplate(r.Message, func(src string) (*vm.Program, error) { return l.exprs.compile(src, kind, false) })
			if terr != nil {
				p := l.scalarPos(msgNode, lead+terr.offset)
				l.errorf(p.Line, p.Col, "\"message\"%s: %s", forKind(r.Select, kind), l.suggest(terr.msg, kind))
				messageOK = false
				break
			}
			compiled[i].message = t
		}
	}
	if len(r.Select) > 0 && whereOK && messageOK {
		r.compiled = compiled
	}
}
