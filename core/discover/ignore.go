package discover

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// parsePattern is gitignore.ParsePattern, except that a pattern naming
// one path element without wildcards ("node_modules/", ".env"), or one
// whose only wildcard is a leading or trailing "*" ("*.log", "tmp*"),
// compares strings instead of calling filepath.Match on every element
// of every path: matching is a sixth of a walk's time otherwise. The
// results are the same as go-git's (TestParsePatternMatchesGoGit).
func parsePattern(line string, domain []string) gitignore.Pattern {
	p := namePattern{domain: append([]string(nil), domain...)}
	s := line
	if strings.HasPrefix(s, "!") {
		p.inclusion = true
		s = s[1:]
	}
	if !strings.HasSuffix(s, "\\ ") {
		s = strings.TrimRight(s, " ")
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = s[:len(s)-1]
	}
	switch {
	case s == "" || strings.Contains(s, "/"):
		return gitignore.ParsePattern(line, domain)
	case !strings.ContainsAny(s, `*?[\`):
		p.exact = s
	case strings.HasPrefix(s, "*") && !strings.ContainsAny(s[1:], `*?[\`):
		p.suffix, p.kind = s[1:], suffixMatch
	case strings.HasSuffix(s, "*") && !strings.ContainsAny(s[:len(s)-1], `*?[\`):
		p.prefix, p.kind = s[:len(s)-1], prefixMatch
	default:
		return gitignore.ParsePattern(line, domain)
	}
	return &p
}

const (
	exactMatch = iota
	suffixMatch
	prefixMatch
)

// namePattern is a gitignore pattern without a slash that matches one
// path element by equality, suffix or prefix.
type namePattern struct {
	domain                []string
	kind                  int
	exact, suffix, prefix string
	inclusion, dirOnly    bool
}

func (p *namePattern) matchName(name string) bool {
	switch p.kind {
	case suffixMatch:
		return strings.HasSuffix(name, p.suffix)
	case prefixMatch:
		return strings.HasPrefix(name, p.prefix)
	}
	return name == p.exact
}

// Match follows go-git's pattern.Match for patterns without a slash: any
// element below the domain may match, except that a directory-only pattern
// does not match a file by its own name.
func (p *namePattern) Match(path []string, isDir bool) gitignore.MatchResult {
	if len(path) <= len(p.domain) {
		return gitignore.NoMatch
	}
	for i, e := range p.domain {
		if path[i] != e {
			return gitignore.NoMatch
		}
	}
	path = path[len(p.domain):]
	for i, name := range path {
		if !p.matchName(name) {
			continue
		}
		if p.dirOnly && !isDir && i == len(path)-1 {
			return gitignore.NoMatch
		}
		if p.inclusion {
			return gitignore.Include
		}
		return gitignore.Exclude
	}
	return gitignore.NoMatch
}
