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
// one. Search results keep both: which copy answers can matter (the
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
	sigs := make([][]uint64, len(hits))
	for i, h := range hits {
		sigs[i] = wordSet(h.Chunk.Text)
	}
	out := hits[:0:0]
	keptSig := [][]uint64{}
	for i, h := range hits {
		dup := -1
		if len(sigs[i]) >= dupMinWords {
			for j, k := range out {
				if k.Chunk.FilePath == h.Chunk.FilePath && k.Chunk.RepoName == h.Chunk.RepoName {
					continue
				}
				if len(keptSig[j]) >= dupMinWords && jaccard(sigs[i], keptSig[j]) >= dupJaccard {
					dup = j
					break
				}
			}
		}
		if dup >= 0 {
			out[dup].Explain.Duplicates = append(out[dup].Explain.Duplicates, h.Chunk.Location())
			continue
		}
		out = append(out, h)
		keptSig = append(keptSig, sigs[i])
	}
	return out
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

// jaccard is |a ∩ b| / |a ∪ b| of two sorted sets.
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	// A size ratio under the threshold rules out the threshold.
	small, large := min(len(a), len(b)), max(len(a), len(b))
	if float64(small) < dupJaccard*float64(large) {
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
