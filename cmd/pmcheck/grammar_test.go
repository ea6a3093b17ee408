package main

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// parseOutcome is everything a parse can show: what kong printed, how it
// exited, the error, the command chosen and the values it filled in.
type parseOutcome struct {
	Stdout, Stderr string
	Exit           int // -1: kong did not exit
	Err            string
	Command        string
	Values         string
}

// parseWith parses args with the parser newParser builds from g, without
// running the command.
func parseWith(t *testing.T, g any, args []string) (out parseOutcome) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	out.Exit = -1
	defer func() {
		out.Stdout, out.Stderr = stdout.String(), stderr.String()
		if r := recover(); r != nil {
			k, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			out.Exit = k.code
		}
	}()
	parser, err := newParser(g, &Env{Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Command = kctx.Command()
	// The chosen command's field: the same type in both grammars.
	v := reflect.ValueOf(g).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); commandName(f) == strings.Fields(out.Command)[0] {
			out.Values = fmt.Sprintf("%+v", v.Field(i).Interface())
		}
	}
	return out
}

// TestOneCommandGrammar: a command parses, prints its help and reports its
// errors the same whether kong is given the whole CLI or only that command
// (grammar), for every command and subcommand.
func TestOneCommandGrammar(t *testing.T) {
	var cli CLI
	full, err := newParser(&cli, &Env{})
	if err != nil {
		t.Fatal(err)
	}
	var paths [][]string
	var walk func(n *kong.Node, path []string)
	walk = func(n *kong.Node, path []string) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode {
				continue
			}
			p := append(slices.Clone(path), c.Name)
			paths = append(paths, p)
			walk(c, p)
		}
	}
	walk(full.Model.Node, nil)
	if len(paths) < 15 {
		t.Fatalf("found %d commands, want every command and subcommand", len(paths))
	}
	for _, c := range full.Model.Children {
		if len(c.Aliases) > 0 {
			t.Errorf("command %s has aliases: grammar selects commands by name only", c.Name)
		}
		if g := grammar(new(CLI), []string{c.Name}); reflect.TypeOf(g) == reflect.TypeFor[*CLI]() {
			t.Errorf("grammar does not find command %q: does its field have another name?", c.Name)
		}
	}
	tails := [][]string{nil, {"--help"}, {"-h"}, {"--no-such-flag"}, {"--version"}, {"no-such-word"}, {"a", "b", "c"}, {"--jobs", "2", "x"}, {"--format", "nope"}}
	n := 0
	for _, p := range paths {
		for _, tail := range tails {
			args := append(slices.Clone(p), tail...)
			want := parseWith(t, new(CLI), args)
			got := parseWith(t, grammar(new(CLI), args), args)
			n++
			if got != want {
				t.Errorf("pmcheck %s: one-command grammar gives\n%+v\nthe whole CLI gives\n%+v", strings.Join(args, " "), got, want)
			}
		}
	}
	// Arguments that do not start with a command use the whole CLI.
	for _, args := range [][]string{nil, {"--help"}, {"--version", "check"}, {"chek"}, {"Check"}} {
		if g := grammar(new(CLI), args); reflect.TypeOf(g) != reflect.TypeFor[*CLI]() {
			t.Errorf("grammar(%q) is %T, want the whole CLI", args, g)
		}
	}
	t.Logf("%d command lines compared", n)
}
