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
	if err := c.checkConfigFlags(); err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return usageError("the working directory is unknown: %v", err)
	}
	path, err := c.configPath(wd)
	if err != nil {
		return err
	}
	err = c.fillFromConfig(wd, path)
	if c.FailLevel == "" {
		c.FailLevel = "error"
	}
	return err
}

// checkConfigFlags refuses the config flags that exclude each other.
func (c *CheckCmd) checkConfigFlags() error {
	if c.NoConfig && (c.Config != "" || c.PolicyFrom != "") {
		return usageError("--no-config with --config or --policy-from: drop one of them")
	}
	if c.Config != "" && c.PolicyFrom != "" {
		return usageError("--config with --policy-from: the config is read from the policy folder; drop --config")
	}
	return nil
}

// configPath is the config file that applies ("" for none): --config, the
// policy folder's, or the nearest .pmcheck.yaml to the working directory.
// With --policy-from it also roots the rule and baseline flags there.
func (c *CheckCmd) configPath(wd string) (string, error) {
	switch {
	case c.NoConfig:
		return "", nil
	case c.PolicyFrom != "":
		if st, err := os.Stat(c.PolicyFrom); err != nil || !st.IsDir() {
			return "", usageError("--policy-from %s is not a folder: give the checkout of the base branch", c.PolicyFrom)
		}
		c.Rules = underPolicy(c.Rules, c.PolicyFrom)
		if c.Baseline != "" && !filepath.IsAbs(c.Baseline) {
			c.Baseline = filepath.Join(c.PolicyFrom, c.Baseline)
		}
		if p := filepath.Join(c.PolicyFrom, config.FileName); fileExists(p) {
			return p, nil
		}
		return "", nil
	case c.Config != "":
		return c.Config, nil
	}
	path, err := config.Find(wd)
	if err != nil {
		return "", usageError("looking for %s: %v", config.FileName, err)
	}
	return path, nil
}

// fillFromConfig reads the config at path (none when "") and fills every
// setting the flags left unset.
func (c *CheckCmd) fillFromConfig(wd, path string) error {
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
	c.fillInputs(cfg, inProject)
	c.fillPolicy(cfg, inPolicy)
	c.fillGit(cfg, inProject)
	c.fillOutputs(cfg, inProject)
	return nil
}

// fillInputs takes what to check, and how to read it, from the config.
func (c *CheckCmd) fillInputs(cfg *config.Config, inProject func(string) string) {
	if len(c.Paths) == 0 {
		c.Paths = appendResolved(c.Paths, cfg.Paths, inProject)
	}
	if !c.AllowEmpty && cfg.AllowEmpty != nil {
		c.AllowEmpty = *cfg.AllowEmpty
	}
	if len(c.PublishTools) == 0 {
		c.PublishTools = cfg.PublishTools
	}
	if len(c.DeployLabels) == 0 {
		c.DeployLabels = cfg.DeployLabels
	}
}

// fillPolicy takes the rules, the baseline and the fail level from the
// config; files are in the policy folder.
func (c *CheckCmd) fillPolicy(cfg *config.Config, inPolicy func(string) string) {
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
}

// fillGit takes the git join, or the commit range, from the config.
func (c *CheckCmd) fillGit(cfg *config.Config, inProject func(string) string) {
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
		c.Checkpoints = appendResolved(c.Checkpoints, cfg.Git.Checkpoints, inProject)
	}
	// A range (flag or config) reads the branch under check itself: the
	// config's base and head are not joined on top of it.
	if c.Commits != "" {
		return
	}
	if c.Base == "" {
		c.Base = cfg.Git.Base
	}
	if c.Head == "" {
		c.Head = cfg.Git.Head
	}
	if (c.Base != "" || c.Head != "") && c.Git == "" && (cfg.Git.Base != "" || cfg.Git.Head != "") {
		c.Git = inProject(".") // a config that names revisions joins the project's repository
	}
}

// fillOutputs takes the report outputs from the config; their files are in
// the project.
func (c *CheckCmd) fillOutputs(cfg *config.Config, inProject func(string) string) {
	if !c.JUnitNoFileLine && cfg.JUnitNoFileLine != nil {
		c.JUnitNoFileLine = *cfg.JUnitNoFileLine
	}
	if len(c.Format) != 0 {
		return
	}
	for _, o := range cfg.Outputs {
		if f, file, ok := strings.Cut(o, "="); ok && file != "" && file != "-" {
			o = f + "=" + inProject(file)
		}
		c.Format = append(c.Format, o)
	}
}

// appendResolved appends each of paths, resolved, to dst.
func appendResolved(dst, paths []string, resolve func(string) string) []string {
	for _, p := range paths {
		dst = append(dst, resolve(p))
	}
	return dst
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
