package core

import (
	"slices"
	"strconv"
	"strings"

	"coderag/core/codetok"
)

// SymbolTitle is a chunk's symbol names shortened for a one-line title of
// about width columns: a chunk of many small declarations (a file of
// error constants) names them all, which no line holds. Names that hold
// more of words (a query's, lower-case) come first, so a title shows why
// the chunk was found; the others follow in their order, and "+N more"
// counts those left out. The first name is always kept, whatever its
// length.
func SymbolTitle(names string, words map[string]bool, width int) string {
	if len(names) <= width || !strings.Contains(names, ", ") {
		return names
	}
	// By how many of the words a name holds, most first, then in order.
	ordered := strings.Split(names, ", ")
	held := make(map[string]int, len(ordered))
	for _, n := range ordered {
		seen := map[string]bool{}
		for _, w := range codetok.Words(n) {
			if words[w] && !seen[w] {
				seen[w] = true
				held[n]++
			}
		}
	}
	slices.SortStableFunc(ordered, func(a, b string) int { return held[b] - held[a] })
	var b strings.Builder
	b.WriteString(ordered[0])
	for i := 1; i < len(ordered); i++ {
		// Room for this name and, unless it is the last, the count of
		// the names after it.
		need := b.Len() + len(", ") + len(ordered[i])
		if i < len(ordered)-1 {
			need += len(moreNames(len(ordered) - i - 1))
		}
		if need > width {
			b.WriteString(moreNames(len(ordered) - i))
			return b.String()
		}
		b.WriteString(", " + ordered[i])
	}
	return b.String()
}

// moreNames is the count of names a title leaves out.
func moreNames(n int) string { return " +" + strconv.Itoa(n) + " more" }
