package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pmcheck/pmcheck/config"
)

// configFlags are check's flags about .pmcheck.yaml.
type configFlags struct {
	Config     string `name:"config" placeholder:"FILE" help:"Config file (default: .pmcheck.yaml in the working directory or the nearest parent folder, up to the repository root)."`
	NoConfig   bool   `name:"no-config" help:"Read no config file; flags and defaults only."`
	PolicyFrom string `name:"policy-from" placeholder:"DIR" help:"Read the config file, rule files and baseline from DIR (a checkout of the base branch) instead of the working tree, so a pull request cannot weaken its own check."`
}

// applyConfig fills every setting the command line left unset from the
// config file. Flags win; a list given as flags replaces the config's list.
//
// Paths, git.repo and outputs in the file are relative to the file's folder
// (the project); rule files and the baseline are relative to the policy
// folder, which is the file's folder too, or DIR with --policy-from. With
// --policy-from the working tree's own .pmcheck.yaml is never read, the
// project is the working directory, and relative --rules and --baseline
// flags also resolve against DIR.
func (c *CheckCmd) applyConfig() error {
	if c.NoConfig && (c.Config != "" || c.PolicyFrom != "") {
		return usageError("--no-config with --config or --policy-from: drop one of them")
	}
	if c.Config != "" && c.PolicyFrom != "" {
		return usageError("--config with --policy-from: the config is read from the policy folder; drop --config")
	}
	wd, err := os.Getwd()
	if err != nil {
		return usageError("the working directory is unknown: %v", err)
	}
	path := c.Config
	switch {
	case c.NoConfig:
	case c.PolicyFrom != "":
		if st, err := os.Stat(c.PolicyFrom); err != nil || !st.IsDir() {
			return usageError("--policy-from %s is not a folder: give the checkout of the base branch", c.PolicyFrom)
		}
		if p := filepath.Join(c.PolicyFrom, config.FileName); fileExists(p) {
			path = p
		}
		c.Rules = underPolicy(c.Rules, c.PolicyFrom)
		if c.Baseline != "" && !filepath.IsAbs(c.Baseline) {
			c.Baseline = filepath.Join(c.PolicyFrom, c.Baseline)
		}
	case path == "":
		if path, err = config.Find(wd); err != nil {
			return usageError("looking for %s: %v", config.FileName, err)
		}
	}
	if c.FailLevel == "" {
		defer func() {
			if c.FailLevel == "" {
				c.FailLevel = "error"
			}
		}()
	}
	if path == "" {
		return nil
	}
	cfg, err := config.Load(path)
	if err != nil {
		return usageError("%v", err)
	}
	project, policy := filepath.Dir(path), filepath.Dir(path)
	if c.PolicyFrom != "" {
		project = wd
	}
	inProject := func(p string) string { return relTo(wd, project, p) }
	inPolicy := func(p string) string { return relTo(wd, policy, p) }

	if len(c.Paths) == 0 {
		for _, p := range cfg.Paths {
			c.Paths = append(c.Paths, inProject(p))
		}
	}
	if len(c.Rules) == 0 {
		c.Rules = underPolicyFunc(cfg.Rules, inPolicy)
	}
	if len(c.Disable) == 0 {
		c.Disable = cfg.Disable
	}
	if len(c.Severity) == 0 {
		c.Severity = cfg.Severity
	}
	if c.Baseline == "" && cfg.Baseline != "" {
		c.Baseline = inPolicy(cfg.Baseline)
	}
	if c.FailLevel == "" {
		c.FailLevel = cfg.FailLevel
	}
	if !c.AllowEmpty && cfg.AllowEmpty != nil {
		c.AllowEmpty = *cfg.AllowEmpty
	}
	if !c.JUnitNoFileLine && cfg.JUnitNoFileLine != nil {
		c.JUnitNoFileLine = *cfg.JUnitNoFileLine
	}
	if len(c.PublishTools) == 0 {
		c.PublishTools = cfg.PublishTools
	}
	if len(c.DeployLabels) == 0 {
		c.DeployLabels = cfg.DeployLabels
	}
	if c.Git == "" && cfg.Git.Repo != "" && cfg.Git.Commits == "" {
		c.Git = inProject(cfg.Git.Repo)
	}
	if c.Commits == "" && cfg.Git.Commits != "" {
		c.Commits = cfg.Git.Commits
		if c.Repo == "" && cfg.Git.Repo != "" {
			c.Repo = inProject(cfg.Git.Repo)
		}
	}
	if len(c.Checkpoints) == 0 {
		for _, p := range cfg.Git.Checkpoints {
			c.Checkpoints = append(c.Checkpoints, inProject(p))
		}
	}
	// A range (flag or config) reads the branch under check itself: the
	// config's base and head are not joined on top of it.
	if c.Base == "" && c.Commits == "" {
		c.Base = cfg.Git.Base
	}
	if c.Head == "" && c.Commits == "" {
		c.Head = cfg.Git.Head
	}
	if (c.Base != "" || c.Head != "") && c.Git == "" && c.Commits == "" && (cfg.Git.Base != "" || cfg.Git.Head != "") {
		c.Git = inProject(".") // a config that names revisions joins the project's repository
	}
	if len(c.Format) == 0 {
		for _, o := range cfg.Outputs {
			if f, file, ok := strings.Cut(o, "="); ok && file != "" && file != "-" {
				o = f + "=" + inProject(file)
			}
			c.Format = append(c.Format, o)
		}
	}
	return nil
}

// relTo resolves p (relative to base) and returns it relative to the working
// directory when it lies inside it, so reports keep repository paths.
func relTo(wd, base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	full := filepath.Join(base, p)
	if !filepath.IsAbs(full) {
		return full
	}
	if r, err := filepath.Rel(wd, full); err == nil {
		return r
	}
	return full
}

func underPolicy(files []string, dir string) []string {
	return underPolicyFunc(files, func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	})
}

// underPolicyFunc maps rule file paths, keeping the "+" that extends the
// default pack.
func underPolicyFunc(files []string, resolve func(string) string) []string {
	var out []string
	for _, f := range files {
		plus := strings.HasPrefix(f, "+")
		p := resolve(strings.TrimPrefix(f, "+"))
		if plus {
			p = "+" + p
		}
		out = append(out, p)
	}
	return out
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// reportRoot is the working directory relative to the repository root, the
// prefix every report path gets ("." when they are the same), so SARIF
// results and annotations name repository files when check runs in a
// subfolder (the action's working-directory).
func reportRoot(repoRoot string) (string, error) {
	if repoRoot == "" {
		return ".", nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", usageError("the working directory is unknown: %v", err)
	}
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		return "", usageError("--repo-root %s: %v", repoRoot, err)
	}
	// Compare resolved paths: the workspace may be reached through a link.
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	rel, err := filepath.Rel(abs, wd)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", usageError("--repo-root %s does not contain the working directory %s: run pmcheck inside the repository", repoRoot, wd)
	}
	return filepath.ToSlash(rel), nil
}
