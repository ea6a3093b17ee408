package rules

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Settings configure the detectors from the rule file: what counts as review
// evidence and which actions ship are a team's choice. A nil list
// means "the detectors' default"; an empty list switches that source off.
// check copies them into detect.Options.
type Settings struct {
	// ReviewTrailers are commit-trailer keys whose value names a reviewed
	// killed agent, e.g. Reviewed-Killed-Agent.
	ReviewTrailers []string
	// ReviewFiles are path patterns of review files; {agent} stands for the
	// agent id or tool-use id.
	ReviewFiles []string
	// ReviewerKeywords identify a review subagent by description or type.
	ReviewerKeywords []string
	// AgentAuthors, when set, is the strict review for a required check:
	// only trailers on commits whose author and committer e-mail match none
	// of these patterns count (detect.ReviewOptions.AgentAuthors).
	AgentAuthors []string
	// PublishTools are tool names (path.Match patterns) whose calls publish.
	PublishTools []string
	// DeployLabels are the labels whose `gh pr edit --add-label` deploys.
	DeployLabels []string
}

var (
	reviewKeys = []string{"agent_authors", "files", "reviewer_keywords", "trailers"}
	shipKeys   = []string{"deploy_labels", "publish_tools"}
)

// settingsFrom is where each setting was set, to name both places when two
// rule files set the same one.
type settingsFrom map[string]Position

func (l *loader) settings(top map[string]*yaml.Node, p *Pack) {
	set := func(section, key string, n *yaml.Node, dst *[]string, check func(string) string) {
		vals, nodes, ok := l.strList(n, section+"."+key, false)
		if !ok {
			return
		}
		out := []string{} // non-nil: an empty list switches the source off
		for i, v := range vals {
			if msg := check(v); msg != "" {
				l.nodeErrorf(nodes[i], "%s.%s: %s", section, key, msg)
				return
			}
			out = append(out, v)
		}
		*dst = out
		p.settingsFrom[section+"."+key] = l.pos(n)
	}
	nonEmpty := func(v string) string {
		if strings.TrimSpace(v) == "" {
			return "empty value; remove it"
		}
		return ""
	}
	pattern := func(v string) string {
		if msg := nonEmpty(v); msg != "" {
			return msg
		}
		if _, err := path.Match(v, ""); err != nil {
			return fmt.Sprintf("%q is not a valid path pattern (%v)", v, err)
		}
		return ""
	}
	if n, ok := top["review"]; ok {
		if m := l.mapping(n, "\"review\"", reviewKeys); m != nil {
			for _, key := range reviewKeys {
				v, ok := m[key]
				if !ok {
					continue
				}
				switch key {
				case "trailers":
					set("review", key, v, &p.Settings.ReviewTrailers, nonEmpty)
				case "files":
					set("review", key, v, &p.Settings.ReviewFiles, pattern)
				case "reviewer_keywords":
					set("review", key, v, &p.Settings.ReviewerKeywords, nonEmpty)
				case "agent_authors":
					set("review", key, v, &p.Settings.AgentAuthors, pattern)
				}
			}
		}
	}
	if n, ok := top["ship"]; ok {
		if m := l.mapping(n, "\"ship\"", shipKeys); m != nil {
			for _, key := range shipKeys {
				v, ok := m[key]
				if !ok {
					continue
				}
				switch key {
				case "publish_tools":
					set("ship", key, v, &p.Settings.PublishTools, pattern)
				case "deploy_labels":
					set("ship", key, v, &p.Settings.DeployLabels, nonEmpty)
				}
			}
		}
	}
}

// mergeSettings adds other's settings; a setting made in both is an error.
func (p *Pack) mergeSettings(other *Pack) error {
	fields := map[string][2]*[]string{
		"review.trailers":          {&p.Settings.ReviewTrailers, &other.Settings.ReviewTrailers},
		"review.files":             {&p.Settings.ReviewFiles, &other.Settings.ReviewFiles},
		"review.reviewer_keywords": {&p.Settings.ReviewerKeywords, &other.Settings.ReviewerKeywords},
		"review.agent_authors":     {&p.Settings.AgentAuthors, &other.Settings.AgentAuthors},
		"ship.publish_tools":       {&p.Settings.PublishTools, &other.Settings.PublishTools},
		"ship.deploy_labels":       {&p.Settings.DeployLabels, &other.Settings.DeployLabels},
	}
	for _, key := range []string{"review.agent_authors", "review.files", "review.reviewer_keywords", "review.trailers", "ship.deploy_labels", "ship.publish_tools"} {
		f := fields[key]
		if *f[1] == nil {
			continue
		}
		if prev, set := p.settingsFrom[key]; set {
			return fmt.Errorf("%s: %s is already set at %s; set it in one rule file only", other.settingsFrom[key], key, prev)
		}
		*f[0] = *f[1]
		if p.settingsFrom == nil {
			p.settingsFrom = settingsFrom{}
		}
		p.settingsFrom[key] = other.settingsFrom[key]
	}
	return nil
}
