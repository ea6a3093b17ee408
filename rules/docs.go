package rules

import (
	"bytes"
	_ "embed"
	"reflect"
	"strings"
	"text/template"
	"time"

	"github.com/pmcheck/pmcheck/analyze/model"
)

//go:embed docs.md.tmpl
var docsTemplate string

// kindDocs says in a sentence what each fact kind is.
var kindDocs = map[string]string{
	model.FactRun:      "One per run: a session (a main transcript with its subagents) or a Workflow run (a journal with its agent attempts).",
	model.FactAttempt:  "One per Workflow agent attempt: the ordinal-th time a journal key was started.",
	model.FactSubagent: "One per Agent/Task call of a session, linked to its child transcript.",
	model.FactShip:     "One per ship action: a push, merge, deploy, release or publish, from a Bash command or an MCP tool.",
	model.FactCommit:   "One per commit of the range under check (`--commits BASE..HEAD`): its identities, the runs linked to it and by what evidence, its Entire checkpoints and whether they could be read.",
	model.FactWatchdog: "One per event of a replayed watcher or watchdog, and one per disagreement between a predicted and an observed kill (`kind: mismatch`).",
}

// FieldDoc describes one field a rule can use.
type FieldDoc struct {
	Name string // the expr name
	Go   string // the Go field name
	Type string // for people: string, integer, number, boolean, list of strings, time, evidence
	Doc  string
}

// FieldDocs lists a fact kind's fields in declaration order, with their types
// and descriptions.
func FieldDocs(kind string) []FieldDoc {
	t, ok := factTypes[kind]
	if !ok {
		return nil
	}
	var out []FieldDoc
	for f := range t.Fields() {
		name := f.Tag.Get("expr")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, FieldDoc{Name: name, Go: f.Name, Type: typeName(f.Type), Doc: fieldDoc(kind, name)})
	}
	return out
}

func typeName(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "time"
	case t == reflect.TypeFor[model.Evidence]():
		return "evidence"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		return "list of " + typeName(t.Elem()) + "s"
	}
	return t.String()
}

// Markdown renders docs/rules.md: the rule language, the fact fields and the
// pack's rules.
func Markdown(p *Pack) ([]byte, error) {
	type kindDoc struct {
		Kind, Doc string
		Fields    []FieldDoc
	}
	var kinds []kindDoc
	for _, k := range Kinds {
		fields := FieldDocs(k)
		for i := range fields {
			fields[i].Doc = strings.ReplaceAll(fields[i].Doc, "|", `\|`)
		}
		kinds = append(kinds, kindDoc{Kind: k, Doc: kindDocs[k], Fields: fields})
	}
	t, err := template.New("rules.md").Delims("[[", "]]").Funcs(template.FuncMap{"join": strings.Join}).Parse(docsTemplate)
	if err != nil {
		return nil, err
	}
	rp, err := RangeDefaults()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = t.Execute(&b, map[string]any{
		"Rules": p.Rules, "RangeRules": rp.Rules, "Kinds": Kinds, "Facts": kinds, "MaxTags": MaxTags, "MaxIDLength": maxIDLength,
	})
	return b.Bytes(), err
}
