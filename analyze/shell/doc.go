// Package shell reads one shell command line as the shell would, and
// decides nothing about it: it parses the line with a real shell parser
// (mvdan.cc/sh/v3/syntax; Parse, ParseBounded: bounded nesting, and
// here-documents that never close read as bash reads them), resolves
// static words (WordString) and decodes escapes ($'…', echo -e, printf),
// unwraps the wrappers that run another command to the program they run
// (Unwrap: sudo, env, timeout, xargs, uv run, python -m, …), says what echo
// and printf print (EchoOutput, PrintfOutput), and how much of a command's
// output a transcript reader keeps (OutputOf).
//
// What a command ships, writes or commits and which commands are harmless
// is policy, the classifier's (analyze/detect/ship), which reads commands
// with this package; the transcript reader uses it too, and is given the
// classifier's answers it needs (ship.Inert) by its caller.
package shell
