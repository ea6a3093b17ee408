package report

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Format names, as --format takes them.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatSARIF    = "sarif"
	FormatJUnit    = "junit"
	FormatGitHub   = "github"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
)

// Formats lists every format, in the order help texts show them.
var Formats = []string{FormatText, FormatJSON, FormatSARIF, FormatJUnit, FormatGitHub, FormatMarkdown, FormatHTML}

// Options tune renderers without changing the Document.
type Options struct {
	// JUnitNoFileLine drops the file and line attributes of JUnit testcases,
	// for consumers that validate against Jenkins' junit-10.xsd.
	JUnitNoFileLine bool
	// SARIFCategory, when set, is written as runs[0].automationDetails.id
	// ("<category>/"); left empty, upload-sarif's own category input applies.
	SARIFCategory string
	// InGitHubActions is set when the output goes to a GitHub Actions log
	// (GITHUB_ACTIONS=true). Reports on standard output other than the
	// github format are then wrapped in ::stop-commands::, so the runner
	// executes no workflow command from them, whatever the transcripts say.
	// They are wrapped whenever the github format also goes to standard
	// output, in or out of Actions.
	InGitHubActions bool
	// StopToken is the ::stop-commands:: token. It must be unpredictable
	// from the input (a transcript that knew it could end the pause), so
	// the command draws it at random (NewStopToken); tests set a fixed one.
	StopToken string
	// Verbose adds the list of analyzed runs to the text format.
	Verbose bool
	// HTMLLink is the address of the HTML report (the GitHub Actions artifact
	// the action uploads); the markdown summary then links each finding to
	// it, by the finding's anchor in the page.
	HTMLLink string
}

// NewStopToken returns a random token for ::stop-commands::.
func NewStopToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand: " + err.Error()) // never fails on supported systems
	}
	return "pmcheck-" + hex.EncodeToString(b[:])
}

// Render writes doc in the given format.
func Render(w io.Writer, doc *Document, format string, opts Options) error {
	if err := doc.Validate(); err != nil {
		return err
	}
	var (
		b   []byte
		err error
	)
	// The human formats get a last pass that keeps transcript text from
	// reading as a workflow command when printed into a CI log (inertLines).
	switch format {
	case FormatText:
		b = inertLines(Text(doc, opts.Verbose), false)
	case FormatJSON:
		b, err = JSON(doc)
	case FormatSARIF:
		b, err = SARIF(doc, opts)
	case FormatJUnit:
		b, err = JUnit(doc, opts)
		b = inertLines(b, false)
	case FormatGitHub:
		b = inertLines(GitHub(doc), true)
	case FormatMarkdown:
		if opts.HTMLLink != "" {
			if err := CheckHTMLLink(opts.HTMLLink); err != nil {
				return err
			}
		}
		b = inertLines(markdown(doc, opts.HTMLLink), false)
	case FormatHTML:
		b = inertLines(HTML(doc), false)
	default:
		return fmt.Errorf("unknown report format %q: use one of %s", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Output is one --format value: a format and where it goes ("" or "-" for
// standard output).
type Output struct {
	Format string
	Path   string
}

// ToStdout reports whether the output goes to standard output.
func (o Output) ToStdout() bool { return o.Path == "" || o.Path == "-" }

// ParseOutput parses "FORMAT" or "FORMAT=PATH".
func ParseOutput(spec string) (Output, error) {
	format, file, hasPath := strings.Cut(spec, "=")
	o := Output{Format: strings.TrimSpace(format), Path: file}
	if !slices.Contains(Formats, o.Format) {
		return Output{}, fmt.Errorf("--format %q: unknown format %q: use one of %s, optionally as FORMAT=PATH", spec, o.Format, strings.Join(Formats, ", "))
	}
	if hasPath && file == "" {
		return Output{}, fmt.Errorf("--format %q: empty path after '=': write FORMAT=PATH, or FORMAT alone for standard output", spec)
	}
	return o, nil
}

// ParseOutputs parses every --format value and rejects two outputs to the
// same file or to standard output. An empty list means text on standard output.
func ParseOutputs(specs []string) ([]Output, error) {
	if len(specs) == 0 {
		return []Output{{Format: FormatText}}, nil
	}
	var outs []Output
	seen := map[string]string{}
	stdout := ""
	for _, s := range specs {
		o, err := ParseOutput(s)
		if err != nil {
			return nil, err
		}
		if o.ToStdout() {
			// Two documents concatenated on one stream parse as neither.
			if stdout != "" {
				return nil, fmt.Errorf("--format %q and --format %q both write to standard output: give all but one a file (FORMAT=FILE)", stdout, s)
			}
			stdout = s
		} else {
			key := filepath.Clean(o.Path)
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("--format %q and --format %q write the same file %s: give each output its own path", prev, s, o.Path)
			}
			seen[key] = s
		}
		outs = append(outs, o)
	}
	return outs, nil
}

// WriteOutputs renders doc once per output. Everything is rendered before
// anything is written, so a rendering error leaves no half-written set of
// reports; files are replaced atomically (temp file + rename in the same
// directory), so a reader never sees a partial report.
func WriteOutputs(doc *Document, outs []Output, stdout io.Writer, opts Options) error {
	rendered := make([][]byte, len(outs))
	for i, o := range outs {
		var buf bytes.Buffer
		if err := Render(&buf, doc, o.Format, opts); err != nil {
			return fmt.Errorf("rendering %s: %w", o.Format, err)
		}
		rendered[i] = buf.Bytes()
	}
	wrap := opts.InGitHubActions
	for _, o := range outs {
		if o.ToStdout() && o.Format == FormatGitHub {
			wrap = true
		}
	}
	for i, o := range outs {
		if o.ToStdout() {
			if wrap && o.Format != FormatGitHub {
				rendered[i] = stopCommands(rendered[i], opts.StopToken)
			}
			if _, err := stdout.Write(rendered[i]); err != nil {
				return fmt.Errorf("writing %s report to standard output: %w", o.Format, err)
			}
			continue
		}
		if err := WriteFileAtomic(o.Path, rendered[i]); err != nil {
			return err
		}
	}
	return nil
}

// stopCommands wraps a report in ::stop-commands::TOKEN ... ::TOKEN::, the
// runner's pause of workflow-command processing. Without a token (a caller
// that set none) one is drawn here.
func stopCommands(b []byte, token string) []byte {
	if token == "" {
		token = NewStopToken()
	}
	var out bytes.Buffer
	out.Grow(len(b) + 2*len(token) + 24)
	fmt.Fprintf(&out, "::stop-commands::%s\n", token)
	out.Write(b)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		out.WriteByte('\n')
	}
	fmt.Fprintf(&out, "::%s::\n", token)
	return out.Bytes()
}

// WriteFileAtomic writes data to name through a temporary file in the same
// directory and a rename, so the file is either the old one or the new one.
func WriteFileAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing report %s: %w (check that the directory exists and is writable)", name, err)
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	if _, err := tmp.Write(data); err != nil {
		cleanup()
		return fmt.Errorf("writing report %s: %w", name, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		cleanup()
		return fmt.Errorf("writing report %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing report %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing report %s: %w", name, err)
	}
	return nil
}
