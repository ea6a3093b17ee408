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
	// Color colours the text report on standard output (severities, rule
	// ids, headings) with ANSI escapes; the command decides when (--color,
	// NO_COLOR, a terminal, not a CI log). Files are never coloured.
	Color bool
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

// Render writes doc in the given format. The text, JSON and JUnit reports,
// the ones that list every finding (JUnit up to junitMaxListed per
// testcase), are written to w as they are made; the others, capped for the
// people who read them, are rendered whole first.
func Render(w io.Writer, doc *Document, format string, opts Options) error {
	if err := doc.Validate(); err != nil {
		return err
	}
	return renderValid(w, doc, format, opts)
}

// renderValid is Render of a validated Document.
func renderValid(w io.Writer, doc *Document, format string, opts Options) error {
	var (
		b   []byte
		err error
	)
	// The human formats get a last pass that keeps transcript text from
	// reading as a workflow command when printed into a CI log (inertLines).
	switch format {
	case FormatText:
		iw := &inertWriter{w: w}
		if err := writeText(iw, doc, opts.Verbose, opts.Color); err != nil {
			return err
		}
		return iw.Close()
	case FormatJSON:
		return writeJSON(w, doc)
	case FormatSARIF:
		b, err = SARIF(doc, opts)
	case FormatJUnit:
		iw := &inertWriter{w: w}
		if err := writeJUnit(iw, doc, opts); err != nil {
			return err
		}
		return iw.Close()
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

// streamed reports whether Render writes format as it is made.
func streamed(format string) bool {
	return format == FormatText || format == FormatJSON || format == FormatJUnit
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

// WriteOutputs renders doc once per output. Files are replaced atomically
// (a temp file in the same directory, renamed in place only after every
// output was rendered), so a reader never sees a partial report and a
// rendering error leaves no half-written set of reports. The text, JSON and JUnit
// reports are streamed to their file or to standard output rather than
// built in memory (a check of hundreds of thousands of findings writes
// hundreds of megabytes); the others are rendered whole before anything
// goes to standard output, and the streamed standard output comes last.
func WriteOutputs(doc *Document, outs []Output, stdout io.Writer, opts Options) error {
	if len(outs) == 0 {
		return nil
	}
	if err := doc.Validate(); err != nil {
		return fmt.Errorf("rendering %s: %w", outs[0].Format, err)
	}
	wrap := opts.InGitHubActions
	for _, o := range outs {
		if o.ToStdout() && o.Format == FormatGitHub {
			wrap = true
		}
	}
	return writeOutputs(outs, stdout, wrap, opts.StopToken, func(w io.Writer, o Output) error {
		oo := opts
		oo.Color = opts.Color && o.ToStdout() // never into a file
		return renderValid(w, doc, o.Format, oo)
	})
}

// writeOutputs writes every output with render, the one way check and
// rules test write theirs: files through a temporary file each, renamed in
// place only after every output was written (a device, pipe or socket such
// as /dev/null is written in place, see createOut); standard output last, wrapped
// in stop-commands when wrap is set (except the github format, which pauses
// workflow commands itself), and rendered in memory first unless its format
// streams, so that a rendering error leaves standard output untouched.
func writeOutputs(outs []Output, stdout io.Writer, wrap bool, token string, render func(w io.Writer, o Output) error) error {
	var (
		files    []*outFile
		toStdout = -1
		rendered []byte
	)
	defer func() {
		for _, f := range files {
			f.discard()
		}
	}()
	for i, o := range outs {
		if o.ToStdout() {
			toStdout = i
			if !streamed(o.Format) {
				var buf bytes.Buffer
				if err := render(&buf, o); err != nil {
					return fmt.Errorf("rendering %s: %w", o.Format, err)
				}
				rendered = buf.Bytes()
			}
			continue
		}
		f, err := createOut(o.Path)
		if err != nil {
			return err
		}
		files = append(files, f)
		if err := render(f.File, o); err != nil {
			return fmt.Errorf("writing %s report %s: %w", o.Format, o.Path, err)
		}
		if err := f.finish(); err != nil {
			return err
		}
	}
	if toStdout >= 0 {
		o := outs[toStdout]
		var err error
		if wrap && o.Format != FormatGitHub {
			err = writeStopCommands(stdout, token, func(w io.Writer) error {
				if rendered != nil {
					_, err := w.Write(rendered)
					return err
				}
				return render(w, o)
			})
		} else if rendered != nil {
			_, err = stdout.Write(rendered)
		} else {
			err = render(stdout, o)
		}
		if err != nil {
			return fmt.Errorf("writing %s report to standard output: %w", o.Format, err)
		}
	}
	for i, f := range files {
		if err := f.commit(); err != nil {
			files = files[i:]
			return err
		}
	}
	files = nil
	return nil
}

// stopCommands wraps a report in ::stop-commands::TOKEN ... ::TOKEN::, the
// runner's pause of workflow-command processing. Without a token (a caller
// that set none) one is drawn here.
func stopCommands(b []byte, token string) []byte {
	var out bytes.Buffer
	writeStopCommands(&out, token, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	return out.Bytes()
}

// writeStopCommands writes what body writes between ::stop-commands::TOKEN
// and ::TOKEN::, each on a line of its own.
func writeStopCommands(w io.Writer, token string, body func(io.Writer) error) error {
	if token == "" {
		token = NewStopToken()
	}
	if _, err := fmt.Fprintf(w, "::stop-commands::%s\n", token); err != nil {
		return err
	}
	lw := &lastByteWriter{w: w}
	if err := body(lw); err != nil {
		return err
	}
	if lw.n > 0 && lw.last != '\n' {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "::%s::\n", token)
	return err
}

// lastByteWriter remembers the last byte written through it.
type lastByteWriter struct {
	w    io.Writer
	n    int64
	last byte
}

func (l *lastByteWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.n += int64(n)
		l.last = p[n-1]
	}
	return n, err
}

// WriteFileAtomic writes data to name through a temporary file in the same
// directory and a rename, so the file is either the old one or the new one
// (a device, pipe or socket is written in place, see createOut).
func WriteFileAtomic(name string, data []byte) error {
	f, err := createOut(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.discard()
		return fmt.Errorf("writing report %s: %w", name, err)
	}
	if err := f.finish(); err != nil {
		f.discard()
		return err
	}
	if err := f.commit(); err != nil {
		f.discard()
		return err
	}
	return nil
}

// outFile is a report file being written: a temporary file renamed over
// its path once complete, or the path itself when that is an existing
// device, pipe or socket (/dev/null, /dev/stdout, a named pipe): renaming a
// file over it would replace the device with a regular file (a run of
// `--format json=/dev/null` as root left /dev/null a 200 MB file).
type outFile struct {
	*os.File
	name   string // the report's path
	direct bool   // writing name itself
	closed bool
}

// createOut opens the file a report named name is written to.
func createOut(name string) (*outFile, error) {
	if fi, err := os.Stat(name); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("writing report %s: %w", name, err)
		}
		return &outFile{File: f, name: name, direct: true}, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("writing report %s: %w (check that the directory exists and is writable)", name, err)
	}
	return &outFile{File: tmp, name: name}, nil
}

// finish makes a written temporary file readable as a report and closes
// the file.
func (f *outFile) finish() error {
	if !f.direct {
		if err := f.Chmod(0o644); err != nil {
			return fmt.Errorf("writing report %s: %w", f.name, err)
		}
	}
	f.closed = true
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing report %s: %w", f.name, err)
	}
	return nil
}

// commit puts a finished temporary file in place.
func (f *outFile) commit() error {
	if f.direct {
		return nil
	}
	if err := os.Rename(f.File.Name(), f.name); err != nil {
		return fmt.Errorf("writing report %s: %w", f.name, err)
	}
	return nil
}

// discard closes the file and removes a temporary one (never the path
// written in place).
func (f *outFile) discard() {
	if !f.closed {
		f.closed = true
		f.Close()
	}
	if !f.direct {
		os.Remove(f.File.Name())
	}
}
