package rules

import (
	"errors"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/vm"
)

// exprCompiler compiles the expressions of one rule file. expr.Compile
// builds a new configuration for every expression: a table of every builtin
// and a description of the fact type (reflection over its fields), which
// was two thirds of the time the default pack took to load (36
// expressions), on the critical path of every check's start-up. Here one
// configuration per fact kind and expectation serves the whole file; the
// steps after it are expr.Compile's own, so the programs and errors are
// the same (TestCompilerMatchesExpr). Not safe for concurrent use: a file
// is loaded by one goroutine.
type exprCompiler struct {
	configs map[compileKey]*conf.Config
}

type compileKey struct {
	kind   string
	asBool bool // a where: the result must be a bool (expr.AsBool)
}

// compile is expr.Compile(src, exprOptions(kind)..., [expr.AsBool()]).
func (c *exprCompiler) compile(src, kind string, asBool bool) (*vm.Program, error) {
	cfg := c.config(compileKey{kind, asBool})
	tree, err := checker.ParseCheck(src, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Optimize {
		if err := optimizer.Optimize(&tree.Node, cfg); err != nil {
			var fileError *file.Error
			if errors.As(err, &fileError) {
				return nil, fileError.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, cfg)
}

// config is the configuration expr.Compile would build for key's options.
// Checking and compiling only read it (its type cache fills as it is used).
func (c *exprCompiler) config(key compileKey) *conf.Config {
	if cfg, ok := c.configs[key]; ok {
		return cfg
	}
	cfg := conf.CreateNew()
	opts := exprOptions(key.kind)
	if key.asBool {
		opts = append(opts, expr.AsBool())
	}
	for _, op := range opts {
		op(cfg)
	}
	for name := range cfg.Disabled {
		delete(cfg.Builtins, name)
	}
	cfg.Check()
	if c.configs == nil {
		c.configs = make(map[compileKey]*conf.Config)
	}
	c.configs[key] = cfg
	return cfg
}
