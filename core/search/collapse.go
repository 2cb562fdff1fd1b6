package search

import (
	"hash/fnv"
	"slices"

	"coderag/core"
	"coderag/core/codetok"
)

// Near-duplicate hits: the same passage in two files (a transcript and
// its corrected copy, a README vendored into two services, a document
// exported twice) would be packed twice into a language model's budget.
// Context packs drop the lower one (Collapse) and name it beside the kept
// one. Search results drop only copies within one service
// (collapseCopies): across services, which copy answers can matter (the
// service whose copy it is), and the file-level eval measures that.
const (
	// dupJaccard is the least share of distinct words two chunks must
	// have in common (intersection over union) to be one passage.
	dupJaccard = 0.9
	// dupMinWords keeps short chunks (a closing brace, a one-line
	// setting) apart: at that size sameness is no sign of a copy.
	dupMinWords = 12
)

// Collapse drops each hit that repeats a higher one from another file
// and records it in that one's Explain.Duplicates; hits is in rank order.
func Collapse(hits []core.Hit) []core.Hit {
	return collapseWhere(hits, len(hits), dupJaccard, func(kept, h core.Hit) bool { return true })
}

// collapseWhere drops each of the first hits that repeats a higher kept
// one from another file, among those may says it may repeat (distinct
// words: least or more in common, dupMinWords or more each), and names
// it in that one's Explain.Duplicates. Once k hits are kept the rest
// stay as they are; a chunk's words are read only when it is compared.
func collapseWhere(hits []core.Hit, k int, least float64, may func(kept, h core.Hit) bool) []core.Hit {
	out := hits[:0:0]
	var sigs [][]uint64 // of out, read when first compared
	sigOf := func(i int) []uint64 {
		if sigs[i] == nil {
			sigs[i] = wordSet(out[i].Chunk.Text)
		}
		return sigs[i]
	}
	for i, h := range hits {
		if len(out) >= k {
			return append(out, hits[i:]...)
		}
		dup := -1
		var sig []uint64
		for j, kept := range out {
			if kept.Chunk.FilePath == h.Chunk.FilePath && kept.Chunk.RepoName == h.Chunk.RepoName || !may(kept, h) {
				continue
			}
			if sig == nil {
				sig = wordSet(h.Chunk.Text)
			}
			if len(sig) >= dupMinWords && len(sigOf(j)) >= dupMinWords && jaccardAt(sig, sigOf(j), least) >= least {
				dup = j
				break
			}
		}
		if dup >= 0 {
			out[dup].Explain.Duplicates = append(out[dup].Explain.Duplicates, h.Chunk.Location())
			continue
		}
		out = append(out, h)
		sigs = append(sigs, sig)
	}
	return out
}

// copyJaccard is the least share of distinct words two chunks of one
// service must have in common to be copies of one passage in a search's
// results: a Kubernetes resource and its copies in the rendered install
// bundles (install.yaml, namespace-install.yaml), which differ by a
// namespace and a few labels.
const copyJaccard = 0.8

// collapseCopies drops, from a search's ranked hits, each hit that
// repeats a higher one of the same service from another file (the same
// resource in a base manifest and in every rendered bundle, one
// service's file copied into two of its folders), and names it in that
// one's Explain.Duplicates. Copies in different services stay (which
// service's copy answers can matter), and so do chunks under
// dupMinWords words and pinned hits. Once k hits are kept the rest stay
// as they are; a chunk's words are read only when a higher hit of its
// service is there to compare.
func collapseCopies(hits []core.Hit, k int) []core.Hit {
	return collapseWhere(hits, k, copyJaccard, func(kept, h core.Hit) bool {
		return h.Chunk.ServiceName != "" && kept.Chunk.ServiceName == h.Chunk.ServiceName && h.Explain.PinnedKind() == ""
	})
}

// wordSet is the sorted, distinct hashes of text's lower-case words.
func wordSet(text string) []uint64 {
	var out []uint64
	for _, w := range codetok.Words(text) {
		h := fnv.New64a()
		h.Write([]byte(w))
		out = append(out, h.Sum64())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// jaccardAt is |a ∩ b| / |a ∪ b| of two sorted sets, exact from least
// up (below it, a size ratio under least is returned as it is).
func jaccardAt(a, b []uint64, least float64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	// A size ratio under the threshold rules out the threshold.
	small, large := min(len(a), len(b)), max(len(a), len(b))
	if float64(small) < least*float64(large) {
		return float64(small) / float64(large)
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
