// Package redact replaces secrets in transcript text with labelled markers
// ([REDACTED:github-pat]) before a transcript leaves the machine it was
// written on.
//
// The patterns are gitleaks' default rule set (gitleaks.toml, v8.30.1, MIT
// licence in gitleaks.LICENSE), embedded verbatim so it can be refreshed by
// copying the file, plus a few rules of our own for what a transcript holds
// and a secret scanner of source files does not look for: URLs with a
// password, KEY=value assignments of secret-looking names, JSON fields of
// secret-looking names, token formats gitleaks' set misses (Claude Code's
// sk-ant-oat01- OAuth tokens, sk-proj- keys without their marker, AWS key
// ids with any digit, mysql -pSECRET), and values the user lists. The
// gitleaks rules are used with '&', ',' and ')' accepted after a token
// (widenTerminator).
//
// Transcripts are JSON Lines. Only JSON strings (values and keys) are scanned and only a
// string that held a secret is re-encoded; every other byte of a line is
// copied unchanged, so keys, structure, escaping and everything pmcheck reads
// stay as they were. A match that would cut through markup ('<' or '>') is
// left alone, so a <task-notification> keeps its elements.
package redact

import (
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/pelletier/go-toml/v2"
)

//go:embed gitleaks.toml
var gitleaksTOML []byte

// GitleaksVersion is the gitleaks release the embedded rule set comes from.
const GitleaksVersion = "v8.30.1"

// Marker is the text that replaces a secret found by the rule with this id.
func Marker(id string) string { return "[REDACTED:" + id + "]" }

// Labels of pmcheck's own rules.
const (
	LabelURLPassword = "url-password"
	LabelAssignment  = "secret-assignment"
	LabelField       = "secret-field"
	LabelUserValue   = "user-value"
	// Token formats gitleaks' set misses or matches too narrowly.
	LabelAnthropic     = "anthropic-token"
	LabelOpenAI        = "openai-key"
	LabelAWSKeyID      = "aws-access-key-id"
	LabelMySQLPassword = "mysql-password"
)

type allowlist struct {
	and       bool
	target    string // "secret" (default), "match" or "line"
	regexes   []*regexp.Regexp
	stopwords []string
	unusable  bool // needs a path or commit, which a transcript does not have
}

type rule struct {
	id          string
	re          *regexp.Regexp
	secretGroup int
	entropy     float64
	keywords    []string // lower case; none means always run
	allow       []allowlist
}

// Redactor finds and replaces secrets. It is safe for concurrent use.
type Redactor struct {
	rules  []rule
	global []allowlist
	values []string // user-listed values, longest first
}

// Counts is how many secrets were replaced, by label.
type Counts map[string]int

// Add adds o into c.
func (c Counts) Add(o Counts) {
	for k, v := range o {
		c[k] += v
	}
}

// Total is the number of replacements.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

type tomlAllowlist struct {
	Condition   string   `toml:"condition"`
	RegexTarget string   `toml:"regexTarget"`
	Regexes     []string `toml:"regexes"`
	StopWords   []string `toml:"stopwords"`
	Paths       []string `toml:"paths"`
	Commits     []string `toml:"commits"`
}

type tomlConfig struct {
	Allowlist tomlAllowlist `toml:"allowlist"`
	Rules     []struct {
		ID          string          `toml:"id"`
		Regex       string          `toml:"regex"`
		SecretGroup int             `toml:"secretGroup"`
		Entropy     float64         `toml:"entropy"`
		Keywords    []string        `toml:"keywords"`
		Path        string          `toml:"path"`
		Allowlists  []tomlAllowlist `toml:"allowlists"`
	} `toml:"rules"`
}

// New returns a Redactor with the embedded rule set, pmcheck's own rules and
// the given user values (empty ones are ignored; values shorter than 4 bytes
// are refused, since they would replace ordinary text everywhere).
func New(values []string) (*Redactor, error) {
	var cfg tomlConfig
	if err := toml.Unmarshal(gitleaksTOML, &cfg); err != nil {
		return nil, fmt.Errorf("embedded gitleaks rules: %w", err)
	}
	r := &Redactor{}
	g, err := compileAllowlist(cfg.Allowlist)
	if err != nil {
		return nil, fmt.Errorf("embedded gitleaks global allowlist: %w", err)
	}
	r.global = []allowlist{g}
	for _, tr := range cfg.Rules {
		if tr.Regex == "" || tr.Path != "" {
			// Path-only rules find files, and path-scoped rules apply to
			// source files of one kind; a transcript is neither.
			continue
		}
		re, err := regexp.Compile(widenTerminator(tr.Regex))
		if err != nil {
			return nil, fmt.Errorf("embedded gitleaks rule %s: %w", tr.ID, err)
		}
		ru := rule{id: tr.ID, re: re, secretGroup: tr.SecretGroup, entropy: tr.Entropy}
		for _, k := range tr.Keywords {
			ru.keywords = append(ru.keywords, strings.ToLower(k))
		}
		for _, a := range tr.Allowlists {
			al, err := compileAllowlist(a)
			if err != nil {
				return nil, fmt.Errorf("embedded gitleaks rule %s allowlist: %w", tr.ID, err)
			}
			ru.allow = append(ru.allow, al)
		}
		r.rules = append(r.rules, ru)
	}
	r.rules = append(r.rules, ownRules()...)
	for _, v := range values {
		switch {
		case v == "":
		case len(v) < 4:
			return nil, fmt.Errorf("redaction value %q is shorter than 4 characters: it would replace ordinary text; list the whole secret", v)
		default:
			r.values = append(r.values, v)
		}
	}
	sort.SliceStable(r.values, func(i, j int) bool { return len(r.values[i]) > len(r.values[j]) })
	return r, nil
}

// gitleaksTerminator is what most gitleaks rules require after a token: a
// quote, space or semicolon, an escaped line break, or the end. In a
// transcript a token is as often followed by '&' (a query string:
// ?id_token=JWT&), ',' (a JSON or argument list) or ')' (a call), and
// gitleaks then misses it (sk_live_…& survived). The rule set is used with
// those three added to the terminator; the embedded file stays verbatim.
const gitleaksTerminator = `(?:[\x60'"\s;]|\\[nr]|$)`

func widenTerminator(re string) string {
	return strings.ReplaceAll(re, gitleaksTerminator, `(?:[\x60'"\s;&,)]|\\[nr]|$)`)
}

func compileAllowlist(a tomlAllowlist) (allowlist, error) {
	al := allowlist{and: strings.EqualFold(a.Condition, "AND"), target: a.RegexTarget}
	for _, s := range a.Regexes {
		re, err := regexp.Compile(s)
		if err != nil {
			return al, err
		}
		al.regexes = append(al.regexes, re)
	}
	for _, s := range a.StopWords {
		al.stopwords = append(al.stopwords, strings.ToLower(s))
	}
	if len(a.Paths) > 0 || len(a.Commits) > 0 {
		// With OR, the regexes and stopwords still allow on their own; with
		// AND, the path or commit part can never match here.
		al.unusable = al.and
	}
	return al, nil
}

// allows reports whether the allowlist lets this finding through as not
// secret. The line is asked of ln only when a regex targets it, and a
// regex's verdict on a line is kept for the next match on that line.
func (a *allowlist) allows(secret, match string, ln *lineOf, start, end int) bool {
	if a.unusable || (len(a.regexes) == 0 && len(a.stopwords) == 0) {
		return false
	}
	regexHit := false
	for _, re := range a.regexes {
		var hit bool
		switch a.target {
		case "match":
			hit = re.MatchString(match)
		case "line":
			hit = ln.matches(re, start, end)
		default:
			hit = re.MatchString(secret)
		}
		if hit {
			regexHit = true
			break
		}
	}
	stopHit := false
	if len(a.stopwords) > 0 {
		ls := strings.ToLower(secret)
		for _, w := range a.stopwords {
			if strings.Contains(ls, w) {
				stopHit = true
				break
			}
		}
	}
	if a.and {
		return (len(a.regexes) == 0 || regexHit) && (len(a.stopwords) == 0 || stopHit)
	}
	return regexHit || stopHit
}

// lineOf finds the line around a match, for allowlists that test it. A
// rule's matches come in order, so the line of the last match is kept: many
// matches on one long line find it once and test each regex on it once
// (recomputing it per match made 64k matches on a 1.5 MB line take 102 s).
// Moving to a later line scans only the text between the two.
type lineOf struct {
	s    string
	a, b int // the current line is s[a:b]; b < 0 when there is none yet
	memo map[*regexp.Regexp]bool
}

func newLineOf(s string) *lineOf { return &lineOf{s: s, b: -1} }

// lineBytesTested, when a test sets it, is told the length of each line an
// allowlist regex is run on.
var lineBytesTested func(n int)

// matches reports whether re matches the line that holds s[start:end].
func (l *lineOf) matches(re *regexp.Regexp, start, end int) bool {
	if l.b < 0 || start < l.a || end > l.b {
		from := 0 // the last line break before start is at or after from
		switch {
		case l.b >= 0 && start >= l.b:
			from = l.b
		case l.b >= 0 && start >= l.a:
			from = l.a
		}
		l.a = from + strings.LastIndexByte(l.s[from:start], '\n') + 1
		if k := strings.IndexByte(l.s[end:], '\n'); k >= 0 {
			l.b = end + k
		} else {
			l.b = len(l.s)
		}
		clear(l.memo)
	}
	if hit, ok := l.memo[re]; ok {
		return hit
	}
	if l.memo == nil {
		l.memo = map[*regexp.Regexp]bool{}
	}
	if lineBytesTested != nil {
		lineBytesTested(l.b - l.a)
	}
	hit := re.MatchString(l.s[l.a:l.b])
	l.memo[re] = hit
	return hit
}

// Own rules. Each names the secret with the group "secret". They are
// compiled on first use: compiling them when the package is initialised
// (their counted repetitions make large programs) cost every pmcheck
// command about a millisecond, and only collect redacts.
type ownRegexps struct {
	urlPasswordRE, assignmentRE, secretNameRE, notSecretNameRE, secretFieldRE, notSecretFieldRE *regexp.Regexp
	textFieldRE, anthropicRE, openaiRE, awsKeyIDRE, mysqlPasswordRE, codePathRE                 *regexp.Regexp
}

var ownREs = sync.OnceValue(func() *ownRegexps {
	return &ownRegexps{
		// scheme://user:password@host — the password only. The user may be
		// empty (redis://:pw@host) and the password may hold '@' (it runs
		// to the last '@' before the host).
		urlPasswordRE: regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@'"<>]{0,256}:(?P<secret>[^\s/'"<>]{1,256})@[A-Za-z0-9.-]`),
		// NAME=value and NAME: value where NAME says it holds a secret, in
		// any case and with '.' or '-' between words (password=,
		// db_password=, api_token=, spring.datasource.password=,
		// --password=, password: …).
		assignmentRE: regexp.MustCompile(`\b(?P<name>[A-Za-z][A-Za-z0-9_.-]{0,60})[ \t]*(?:=|: )[ \t]*(?P<q>['"]?)(?P<secret>[^\s'"<>$\x60;&|(){}]{6,512})`),
		// A dotted path of identifiers: in code, a variable or field.
		codePathRE: regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$`),
		// "name": "value" inside text (a tool's output holding JSON): the
		// name is checked like a JSON field's.
		textFieldRE: regexp.MustCompile(`"(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,60})"[ \t]*:[ \t]*"(?P<secret>(?:[^"\\\n]|\\.){6,512})"`),
		// Anthropic keys and Claude Code's OAuth tokens: sk-ant-api03-,
		// sk-ant-admin01-, sk-ant-oat01- (access), sk-ant-ort01- (refresh).
		anthropicRE: regexp.MustCompile(`\bsk-ant-[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{20,300}`),
		// OpenAI project, service-account and admin keys of any length
		// (gitleaks' rule needs the T3BlbkFJ marker, which not all carry).
		openaiRE: regexp.MustCompile(`\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,300}`),
		// AWS access key ids with any upper-case letter or digit after the
		// prefix: real ids use A-Z and 2-7, but a pattern that relies on it
		// lets an id with 0, 1, 8 or 9 through.
		awsKeyIDRE: regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),
		// mysql -pSECRET (the password glued to -p), in a mysql command.
		mysqlPasswordRE: regexp.MustCompile(`\bmysql(?:dump|admin|import|show|check|slap)?\b[^\n;|&]{0,200}?[ \t]-p(?P<secret>[^\s'"\x60;|&<>]{3,128})`),
		secretNameRE:    regexp.MustCompile(`(?:^|_)(?:SECRET|SECRETS|PASSWORD|PASSWD|PASS|PWD|TOKEN|APIKEY|API_KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL|CREDENTIALS|AUTH|CLIENT_SECRET)(?:$|_)`),
		// Suffixes that name where a secret is, not the secret.
		notSecretNameRE: regexp.MustCompile(`_(?:FILE|PATH|DIR|URL|URI|NAME|ID|COUNT|LENGTH|SIZE|TYPE|MODE|HEADER|ENV|VAR|KEY_ID|EXPIRY|EXPIRES|TTL|ENABLED|REQUIRED)$`),
		// JSON fields whose name says the value is a secret.
		secretFieldRE:    regexp.MustCompile(`(?i)^(?:[a-z0-9]+[_-]?)*(?:api[_-]?key|secret|client[_-]?secret|password|passwd|access[_-]?token|refresh[_-]?token|auth[_-]?token|bearer[_-]?token|private[_-]?key|token)$`),
		notSecretFieldRE: regexp.MustCompile(`(?i)(?:tokens|[_-]?(?:count|type|id|name|path|file|url|length|limit|usage))$`),
	}
})

// ownRules are pmcheck's rules as rule values (checked after gitleaks').
func ownRules() []rule {
	re := ownREs()
	return []rule{
		{id: LabelURLPassword, re: re.urlPasswordRE, secretGroup: re.urlPasswordRE.SubexpIndex("secret"), keywords: []string{"://"}},
		{id: LabelAnthropic, re: re.anthropicRE, keywords: []string{"sk-ant-"}},
		{id: LabelOpenAI, re: re.openaiRE, keywords: []string{"sk-proj-", "sk-svcacct-", "sk-admin-"}},
		{id: LabelAWSKeyID, re: re.awsKeyIDRE, keywords: []string{"a3t", "akia", "asia", "abia", "acca"},
			allow: []allowlist{{regexes: []*regexp.Regexp{regexp.MustCompile(`EXAMPLE$`)}}}},
		{id: LabelMySQLPassword, re: re.mysqlPasswordRE, secretGroup: re.mysqlPasswordRE.SubexpIndex("secret"), keywords: []string{"mysql"}},
	}
}

// span is one replacement in a string.
type span struct {
	start, end int
	label      string
}

// String redacts one piece of text. field is the JSON key the text is the
// value of ("" when unknown).
func (r *Redactor) String(s, field string) (string, Counts) {
	if s == "" {
		return s, nil
	}
	var spans []span
	if field != "" && ownREs().secretFieldRE.MatchString(field) && !ownREs().notSecretFieldRE.MatchString(field) &&
		len(s) >= 8 && !strings.ContainsAny(s, " \n<>") && !strings.HasPrefix(s, "[REDACTED:") {
		return Marker(LabelField), Counts{LabelField: 1}
	}
	lower := strings.ToLower(s)
	for i := range r.rules {
		spans = append(spans, r.findRule(&r.rules[i], s, lower)...)
	}
	spans = append(spans, findAssignments(s)...)
	for _, v := range r.values {
		for off := 0; ; {
			i := strings.Index(s[off:], v)
			if i < 0 {
				break
			}
			spans = append(spans, span{off + i, off + i + len(v), LabelUserValue})
			off += i + len(v)
		}
	}
	if len(spans) == 0 {
		return s, nil
	}
	// Earliest first, longest first at the same start; overlaps are merged
	// into the first span's label.
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	counts := Counts{}
	pos := 0
	for i := 0; i < len(spans); {
		sp := spans[i]
		j := i + 1
		for j < len(spans) && spans[j].start < sp.end {
			if spans[j].end > sp.end {
				sp.end = spans[j].end
			}
			if generic(sp.label) && !generic(spans[j].label) {
				sp.label = spans[j].label // name the secret by its most specific rule
			}
			j++
		}
		if strings.ContainsAny(s[sp.start:sp.end], "<>") {
			i = j
			continue // never cut through markup
		}
		b.WriteString(s[pos:sp.start])
		b.WriteString(Marker(sp.label))
		counts[sp.label]++
		pos = sp.end
		i = j
	}
	if len(counts) == 0 {
		return s, nil
	}
	b.WriteString(s[pos:])
	return b.String(), counts
}

// generic reports whether a label names a catch-all rule rather than a
// known token format.
func generic(label string) bool {
	return label == "generic-api-key" || label == LabelAssignment
}

func (r *Redactor) findRule(ru *rule, s, lower string) []span {
	if len(ru.keywords) > 0 {
		hit := false
		for _, k := range ru.keywords {
			if strings.Contains(lower, k) {
				hit = true
				break
			}
		}
		if !hit {
			return nil
		}
	}
	var out []span
	ln := newLineOf(s)
	for _, m := range ru.re.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[0], m[1]
		if ru.secretGroup > 0 && 2*ru.secretGroup+1 < len(m) && m[2*ru.secretGroup] >= 0 {
			start, end = m[2*ru.secretGroup], m[2*ru.secretGroup+1]
		} else if ru.secretGroup == 0 {
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					start, end = m[2*g], m[2*g+1]
					break
				}
			}
		}
		secret, match := s[start:end], s[m[0]:m[1]]
		if strings.HasPrefix(secret, "[REDACTED:") {
			continue
		}
		if ru.entropy != 0 && entropy(secret) <= ru.entropy {
			continue
		}
		allowed := false
		for i := range r.global {
			if !allowed && r.global[i].allows(secret, match, ln, m[0], m[1]) {
				allowed = true
			}
		}
		for i := range ru.allow {
			if !allowed && ru.allow[i].allows(secret, match, ln, m[0], m[1]) {
				allowed = true
			}
		}
		if !allowed {
			out = append(out, span{start, end, ru.id})
		}
	}
	return out
}

func findAssignments(s string) []span {
	if !strings.ContainsAny(s, "=:") {
		return nil
	}
	var out []span
	re := ownREs()
	assignmentRE, secretNameRE, notSecretNameRE := re.assignmentRE, re.secretNameRE, re.notSecretNameRE
	name, sec := assignmentRE.SubexpIndex("name"), assignmentRE.SubexpIndex("secret")
	for _, m := range assignmentRE.FindAllStringSubmatchIndex(s, -1) {
		n := strings.Map(func(r rune) rune {
			if r == '.' || r == '-' {
				return '_'
			}
			return unicode.ToUpper(r)
		}, s[m[2*name]:m[2*name+1]])
		if !secretNameRE.MatchString(n) || notSecretNameRE.MatchString(n) {
			continue
		}
		v := s[m[2*sec]:m[2*sec+1]]
		if strings.HasPrefix(v, "[REDACTED:") || strings.Trim(v, v[:1]) == "" {
			continue // already redacted, or one character repeated (xxxxxx, ******)
		}
		if end := m[2*sec+1]; end < len(s) && s[end] == '(' {
			continue // a call in code (token = Phoenix.Token.sign(…)), not a value
		}
		if raw := s[m[2*name]:m[2*name+1]]; raw != strings.ToUpper(raw) && re.codePathRE.MatchString(v) {
			continue // code reading a variable or field (password = opts.password)
		}
		out = append(out, span{m[2*sec], m[2*sec+1], LabelAssignment})
	}
	if strings.Contains(s, `":`) || strings.Contains(s, `" :`) {
		fname, fsec := re.textFieldRE.SubexpIndex("name"), re.textFieldRE.SubexpIndex("secret")
		for _, m := range re.textFieldRE.FindAllStringSubmatchIndex(s, -1) {
			n := s[m[2*fname]:m[2*fname+1]]
			v := s[m[2*fsec]:m[2*fsec+1]]
			if !re.secretFieldRE.MatchString(n) || re.notSecretFieldRE.MatchString(n) ||
				strings.HasPrefix(v, "[REDACTED:") || strings.HasPrefix(v, "$") || strings.Trim(v, v[:1]) == "" {
				continue
			}
			out = append(out, span{m[2*fsec], m[2*fsec+1], LabelField})
		}
	}
	return out
}

// entropy is the Shannon entropy of s in bits per character (gitleaks').
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1.0 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}
