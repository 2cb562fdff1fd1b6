package core

import "sort"

// SettleTies orders the hits of one list that have equal scores by
// repository, file and line (then chunk ID) and numbers the list's ranks
// again. A store returns ties in the order of its row IDs: the order a
// crawl wrote chunks in, which is mostly that one but differs between two
// crawls of the same files where files are chunked in parallel. The hits
// must be in descending score order, each with its list's rank first.
func SettleTies(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Chunk.RepoName != b.Chunk.RepoName {
			return a.Chunk.RepoName < b.Chunk.RepoName
		}
		if a.Chunk.FilePath != b.Chunk.FilePath {
			return a.Chunk.FilePath < b.Chunk.FilePath
		}
		if a.Chunk.LineStart != b.Chunk.LineStart {
			return a.Chunk.LineStart < b.Chunk.LineStart
		}
		return a.Chunk.ID < b.Chunk.ID
	})
	for i := range hits {
		if len(hits[i].Lists) > 0 {
			hits[i].Lists[0].Rank = i + 1
		}
	}
}

// WithTies returns how many of n items, sorted best first, to keep for
// the want best: want, and past it the items tied with the want-th, so
// that SettleTies chooses among copies by content, not by the order a
// crawl wrote them in. tied(i) reports whether item i ties item i-1.
func WithTies(n, want int, tied func(i int) bool) int {
	if n <= want {
		return n
	}
	keep := max(want, 0)
	for keep > 0 && keep < n && tied(keep) {
		keep++
	}
	return keep
}
