package model

// ShellAnalysis is what the shell classifier (package detect/ship, which
// owns every decision in it: ship.Analysis is this type) found in one Bash
// command line. It is a plain type here so that a transcript can keep the
// classification its reader made (ToolCall.ShellClass).
type ShellAnalysis struct {
	Actions []ShellAction `json:"actions,omitempty"`
	// Writes are paths the command obviously writes (redirection targets, tee,
	// touch, cp/mv destinations, sed -i, rm), as written in the command.
	Writes []string `json:"writes,omitempty"`
	// ParseError is set when the line is not valid shell; the analysis then
	// comes from a conservative word split and MayWrite is true.
	ParseError string `json:"parse_error,omitempty"`
	// Commits counts `git commit` invocations.
	Commits int `json:"commits,omitempty"`
	// MayWrite is true when some part of the command may have written files
	// that Writes does not list (an unknown program, a dynamic target).
	// (The flags sit together: 80 bytes, not 88.)
	MayWrite bool `json:"may_write,omitempty"`
	// MayShip is true when some part of the command is not proven harmless
	// (detect/ship's harmless.go decides): it may ship in a way Actions does
	// not name, so while a killed subagent is outstanding it is a possible
	// ship action (ship.ShipActions).
	MayShip bool `json:"may_ship,omitempty"`
	// GitNotBuiltin is true when the line runs git with a subcommand that is
	// not one of git's own: a git alias may define it, so the analysis may
	// change with the run's aliases (ship.Reuse decides).
	GitNotBuiltin bool `json:"-"`
}

// Footprint is roughly what a copy of a's strings and lists takes beyond
// the struct itself: what a cache or memo that keeps a copy counts for it
// (a ShellAction's headers are 96 bytes, a path's 16).
func (a *ShellAnalysis) Footprint() int {
	n := len(a.ParseError)
	for i := range a.Actions {
		x := &a.Actions[i]
		n += len(x.Kind) + len(x.Branch) + len(x.Target) + len(x.Command) + len(x.RefKind) + 96
	}
	for _, w := range a.Writes {
		n += len(w) + 16
	}
	return n
}

// ShellAction is one ship action found in a command line (ship.Action).
type ShellAction struct {
	Kind string `json:"kind"`
	// Branch is the remote branch a push updates (the destination of the first
	// refspec, without refs/heads/), "" when the command does not name one.
	Branch string `json:"branch,omitempty"`
	// Target is the pull request, API endpoint, release tag or label involved.
	Target string `json:"target,omitempty"`
	// Command is the simple command that ships, its words resolved and joined
	// by spaces (e.g. "git -C ../wt push origin HEAD:main").
	Command string `json:"command"`
	// RefKind says what a push updates: branch or tag ("" for other
	// kinds). A tag push (--tags, refs/tags/…, `tag NAME`, a version-like
	// name such as v1.2.3) has no Branch; Target names the tag.
	RefKind string `json:"ref_kind,omitempty"`
	// Possible marks an action the classifier could not rule out: a command
	// whose program name or git subcommand is computed at run time ($(echo
	// git) push, $CMD, git $x; eval or bash -c of a computed string, a
	// script piped into a shell from curl or cat), a git alias defined by
	// `git config` in the run, a shell alias defined earlier in the line
	// (alias g=git; g push), a git run by xargs with its subcommand on
	// standard input, and, when its text names a ship verb, a line that
	// does not parse or nests bash -c deeper than the classifier follows.
	// Kind is the verb's kind (push when it names none).
	Possible bool `json:"possible,omitempty"`
}

// ShellClasses are the classifications a transcript's reader made of its
// Bash commands (transcript.Options.Shell): each distinct analysis once,
// so that the calls of a command an agent ran a thousand times, or of the
// many commands that write nothing, share one.
type ShellClasses struct {
	// Labels are the deploy labels they were made with (nil: the
	// classifier's defaults). They were made without any run's git aliases.
	Labels []string
	List   []ShellAnalysis
}

// maxShellClasses is how many analyses a transcript's ShellClasses can
// name: a call holds its analysis's place in the top shellBits of its
// packed word. The calls of further analyses keep none and are classified
// when analysed.
const maxShellClasses = 1<<shellBits - 1

// AddShellClass appends a to t's classifications (made with labels, which
// the first call sets) and returns its index, or -1 when the list is full.
func (t *Transcript) AddShellClass(labels []string, a ShellAnalysis) int {
	if t.Shell == nil {
		t.Shell = &ShellClasses{Labels: labels}
	}
	if len(t.Shell.List) >= maxShellClasses {
		return -1
	}
	t.Shell.List = append(t.Shell.List, a)
	return len(t.Shell.List) - 1
}

// SetShellClass gives a Bash call of t the classification at index i of
// t.Shell.List (from AddShellClass; -1 leaves it without one).
func (c *ToolCall) SetShellClass(i int) {
	if c.t == nil || c.t.Shell == nil || i < 0 || i >= len(c.t.Shell.List) {
		return
	}
	c.packed = c.packed&(1<<shellShift-1) | uint32(i+1)<<shellShift
}

// ShellClass is the classification the reader made of the call's command,
// with the deploy labels it was made with; ok is false when it made none
// (a hand-built or edited call, a reader not asked to, a full list).
func (c *ToolCall) ShellClass() (a ShellAnalysis, labels []string, ok bool) {
	i := c.packed >> shellShift
	if i == 0 || c.t == nil || c.t.Shell == nil {
		return ShellAnalysis{}, nil, false
	}
	s := c.t.Shell
	return s.List[i-1], s.Labels, true
}
