package core

import (
	"sort"
	"strings"
	"unicode"
)

// Closest returns up to n of names nearest to s: those that contain it or
// that it contains first, then by edit distance (at most a third of the
// longer name). Case and word separators do not count: "repo server"
// is in argocd-repo-server.
func Closest(s string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	ls := FoldName(s)
	var cs []cand
	for _, name := range names {
		ln := FoldName(name)
		d := editDistance(ls, ln)
		switch {
		case ln == ls:
			d = -1 // the name written another way (Payments API)
		case strings.Contains(ln, ls) || strings.Contains(ls, ln):
			d = 0
		}
		if d <= max(len(ls), len(ln), 3)/3 {
			cs = append(cs, cand{name, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// editDistance is the optimal-string-alignment distance of two strings,
// by bytes: insertions, deletions, substitutions and swaps of neighbours
// (crat for cart) cost one.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// FoldName lower-cases s and writes every run of characters other than
// letters and digits as one "-", trimmed: "Orders Repo_Server" is
// orders-repo-server.
func FoldName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// HoldsName reports whether text holds name as whole words, case and
// separators aside: "why is Metrics Server slow" holds metrics-server.
func HoldsName(text, name string) bool {
	f := FoldName(name)
	return f != "" && strings.Contains("-"+FoldName(text)+"-", "-"+f+"-")
}

// SameName reports whether two names differ only in case and word
// separators: "Payments API" and payments-api.
func SameName(a, b string) bool { return FoldName(a) == FoldName(b) }
