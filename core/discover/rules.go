package discover

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"gopkg.in/yaml.v3"

	"coderag/core"
)

// Rule gives the files whose paths match Pattern (gitignore syntax:
// "ops/playbooks/**", "*.runbook.md") the corpus type Corpus, whatever
// their name says. The first matching rule wins.
type Rule struct {
	Pattern string
	Corpus  core.CorpusType
}

// ParseRule reads "PATTERN=TYPE" (TYPE a corpus type or its short name:
// runbook, adr, docs, deploy, config, code, gdoc).
func ParseRule(s string) (Rule, error) {
	i := strings.LastIndexByte(s, '=')
	if i <= 0 || i == len(s)-1 {
		return Rule{}, fmt.Errorf("classification rule %q: want PATTERN=TYPE, e.g. 'ops/playbooks/**=runbook'", s)
	}
	c, err := core.ParseCorpusType(s[i+1:])
	if err != nil {
		return Rule{}, fmt.Errorf("classification rule %q: %w", s, err)
	}
	return Rule{Pattern: s[:i], Corpus: c}, nil
}

// ConfigFile is the per-source file that extends discovery: rules that
// classify paths, and paths to leave out.
//
//	classify:
//	  - path: ops/playbooks/**
//	    type: runbook
//	  - path: design/decisions/*.md
//	    type: adr
//	exclude:
//	  - fixtures/**
const ConfigFile = ".coderag.yaml"

type configFile struct {
	Classify []struct {
		Path string `yaml:"path"`
		Type string `yaml:"type"`
	} `yaml:"classify"`
	Exclude []string `yaml:"exclude"`
}

// readConfig reads ConfigFile at the root of fsys, if there is one.
func readConfig(fsys fs.FS) (rules []Rule, exclude []string, err error) {
	data, err := fs.ReadFile(fsys, ConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	var cfg configFile
	if err := doc.Decode(&cfg); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	for i, c := range cfg.Classify {
		line := classifyLine(&doc, i)
		if c.Path == "" {
			return nil, nil, fmt.Errorf("%s line %d: classify rule without a path", ConfigFile, line)
		}
		ct, err := core.ParseCorpusType(c.Type)
		if err != nil {
			return nil, nil, fmt.Errorf("%s line %d: %w", ConfigFile, line, err)
		}
		rules = append(rules, Rule{Pattern: c.Path, Corpus: ct})
	}
	return rules, cfg.Exclude, nil
}

// classifyLine finds the line of the i-th classify rule for messages.
func classifyLine(doc *yaml.Node, i int) int {
	if len(doc.Content) == 0 {
		return 0
	}
	m := doc.Content[0]
	for k := 0; k+1 < len(m.Content); k += 2 {
		if m.Content[k].Value == "classify" && m.Content[k+1].Kind == yaml.SequenceNode && i < len(m.Content[k+1].Content) {
			return m.Content[k+1].Content[i].Line
		}
	}
	return 0
}

// classifier applies rules to paths.
type classifier struct {
	rules    []Rule
	patterns []gitignore.Pattern
}

func newClassifier(rules []Rule) *classifier {
	c := &classifier{rules: rules}
	for _, r := range rules {
		c.patterns = append(c.patterns, gitignore.ParsePattern(r.Pattern, nil))
	}
	return c
}

// corpus returns the corpus type the first matching rule gives the
// path with elements parts.
func (c *classifier) corpus(parts []string) (core.CorpusType, bool) {
	for i, pat := range c.patterns {
		if pat.Match(parts, false) == gitignore.Exclude {
			return c.rules[i].Corpus, true
		}
	}
	return "", false
}
