package discover

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// TestParsePatternMatchesGoGit checks the fast name patterns against
// go-git's matching on every pattern and path below.
func TestParsePatternMatchesGoGit(t *testing.T) {
	patterns := []string{
		"node_modules/", "node_modules", ".env", "!.env", "*.log", "!*.log", "*.log/", "tmp*", "tmp*/",
		"*", "*/", "**", "a*b", "?x", "[ab].txt", `\#x`, "a\\ ", "bin/ ", "/bin", "docs/*.md", "**/build",
		"build/**", "!keep.log", "x", "dist/",
	}
	paths := []string{
		"node_modules", "a/node_modules", "a/node_modules/x.js", ".env", "a/.env", "a/.env/b",
		"app.log", "a/b/app.log", "app.log/x", "applog", "tmpfile", "a/tmp/x", "tmp", "x/tmp",
		"ab", "a/xb", "axb", "a.txt", "b.txt", "#x", "a ", "bin", "src/bin/x", "docs/a.md", "build", "a/build/c",
		"keep.log", "x", "y/x", "x/y", "dist", "dist/a.js", "a/dist",
	}
	domains := [][]string{nil, {"a"}, {"a", "b"}}
	for _, line := range patterns {
		for _, domain := range domains {
			fast, slow := parsePattern(line, domain), gitignore.ParsePattern(line, domain)
			for _, p := range paths {
				parts := strings.Split(p, "/")
				if len(domain) > 0 {
					parts = append(append([]string(nil), domain...), parts...)
				}
				for _, isDir := range []bool{false, true} {
					if got, want := fast.Match(parts, isDir), slow.Match(parts, isDir); got != want {
						t.Errorf("pattern %q (domain %v) on %v dir=%v: %v, go-git %v", line, domain, parts, isDir, got, want)
					}
				}
			}
		}
	}
	if _, ok := parsePattern("*.log", nil).(*namePattern); !ok {
		t.Error("*.log is not a fast name pattern")
	}
}
