package embed

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// RescoreDepth is how many of the nearest documents by pooled cosine a
// Rescorer scores again (the second stage of the static model's
// retrieval): deeper costs time and, on the model's held-out pairs, finds
// nothing more.
const RescoreDepth = 50

// The second stage's weights, chosen on the held-out pairs of an earlier
// model's sources (docs/eval.md, "Two stages"); nothing of ../shared/eval
// or any question file was read.
const (
	coverWeight = 0.5 // the question's coverage by the document's tokens
	leadWeight  = 0.5 // the document's first tokens' coverage by the question's
	leadTokens  = 20  // the document's first tokens: its path, scope and signature
)

// pairWeight weighs the share of the question's adjacent token pairs the
// document holds adjacent too ("user profile" in getUserProfile), chosen
// on doc comments of Go, TypeScript and Python code the model never
// trained on (docs/eval.md, "Adjacent pairs").
const pairWeight = 0.35

// unknownWeight weighs the share of the question's distinct tokens that
// the model does not know (an identifier of the code at hand, a word
// rarer than its 50,000) and the document holds as they are, chosen on
// the same sets (docs/eval.md, "Words the model does not know").
const unknownWeight = 3.0

// Rescorer scores documents for a query more exactly than one vector
// each can, for the few a vector search found first.
type Rescorer interface {
	// Rescore returns one score per document, higher is better; first
	// holds each document's first-stage score (its cosine with the
	// query, as the vector search found it).
	Rescore(ctx context.Context, query string, docs []string, first []float64) ([]float64, error)
}

// Rescore implements Rescorer with the static model's late interaction:
// the pooled cosine of query and document (first), plus how well the
// document's tokens cover the query's and the query's cover the
// document's first tokens, plus the share of the query's adjacent token
// pairs that the document holds adjacent too, plus the share of the
// query's tokens the model does not know that the document holds. A
// query token counts its
// best cosine with a document token (1 when the document holds it; no
// less than 0); each counts as much as its vector is long (training makes
// a telling token's vector long, as IDF would weigh it). All of it is the
// model's and the two texts': no statistic of the index is read.
func (s StaticEmbedder) Rescore(ctx context.Context, query string, docs []string, first []float64) ([]float64, error) {
	if len(first) != len(docs) {
		return nil, fmt.Errorf("rescore: %d first-stage scores for %d documents", len(first), len(docs))
	}
	m := s.M
	out := make([]float64, len(docs))
	copy(out, first) // a document of no token the model knows keeps its cosine
	qtoks := Tokens(query)
	qids := ids(qtoks, m.Lookup)
	if len(qids) == 0 {
		return out, nil
	}
	pairs, npairs := queryPairs(qtoks)
	pairHit := make([]int, npairs) // per pair: 1 + the last document that holds it
	unknown := map[string]int{}    // the query's tokens the model does not know, numbered
	for _, t := range qtoks {
		if _, ok := unknown[t]; !ok && m.Lookup(t) < 0 {
			unknown[t] = len(unknown)
		}
	}
	unknownHit := make([]int, len(unknown)) // per token: 1 + the last document that holds it
	Q := len(qids)
	qrows := make([][]byte, Q)
	qn := make([]float64, Q) // lengths of the int8 rows
	qw := make([]float64, Q) // lengths of the vectors: the tokens' weights
	for j, q := range qids {
		qrows[j], qn[j] = m.row8(q), m.norm8(q)
		qw[j] = m.scale(q) * qn[j]
	}
	// The documents of one query share most of their tokens: each is
	// looked up once (row: its row in sims and norms, -1 when the model
	// does not know it), and its cosines with the query's tokens are
	// computed once (sims, a row per token met, in the order met).
	// A token met also keeps the query's pairs it starts (pairs).
	type tokenRow struct {
		r       int32
		unknown int // its number among the query's unknown tokens, or -1
		pairs   []tokenPair
	}
	row := map[string]tokenRow{}
	var sims []float64
	var norms []float64
	var in []int // per row: 1 + the last document that holds it
	var dids []int32
	for i, d := range docs {
		if i%16 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The document's distinct known tokens, in their first order;
		// the first lead of them are among its first leadTokens tokens.
		dids = dids[:0]
		lead := 0
		hits, unknownHits := 0, 0 // the query's pairs and unknown tokens the document holds
		var prev []tokenPair      // the pairs the token before starts
		for k, t := range Tokens(d) {
			tr, ok := row[t]
			if !ok {
				tr = tokenRow{r: -1, unknown: -1, pairs: pairs[t]}
				if u, ok := unknown[t]; ok {
					tr.unknown = u
				}
				if id := int32(m.Lookup(t)); id >= 0 {
					tr.r = int32(len(norms))
					v8, n8 := m.row8(id), m.norm8(id)
					norms = append(norms, m.scale(id)*n8)
					in = append(in, 0)
					for j := range qrows {
						v := 0.0
						if n8 > 0 && qn[j] > 0 {
							v = max(0, float64(dot8(qrows[j], v8))/(qn[j]*n8))
						}
						sims = append(sims, v)
					}
				}
				row[t] = tr
			}
			for _, p := range prev {
				if p.second == t && pairHit[p.n] != i+1 {
					pairHit[p.n] = i + 1
					hits++
				}
			}
			prev = tr.pairs
			if u := tr.unknown; u >= 0 && unknownHit[u] != i+1 {
				unknownHit[u] = i + 1
				unknownHits++
			}
			if r := tr.r; r >= 0 && in[r] != i+1 {
				in[r] = i + 1
				dids = append(dids, r)
				if k < leadTokens {
					lead++
				}
			}
		}
		if len(dids) == 0 {
			continue
		}
		score := first[i]
		// The query's tokens, covered by the document's.
		var cov, wsum float64
		for j := range Q {
			best := 0.0
			for _, r := range dids {
				best = max(best, sims[int(r)*Q+j])
			}
			cov += qw[j] * best
			wsum += qw[j]
		}
		score += coverWeight * cov / wsum
		// The document's first tokens, covered by the query's.
		cov, wsum = 0, 0
		for _, r := range dids[:lead] {
			best := 0.0
			for j := range Q {
				best = max(best, sims[int(r)*Q+j])
			}
			cov += norms[r] * best
			wsum += norms[r]
		}
		if wsum > 0 {
			score += leadWeight * cov / wsum
		}
		// The query's adjacent pairs, adjacent in the document.
		if npairs > 0 {
			score += pairWeight * float64(hits) / float64(npairs)
		}
		// The query's tokens the model does not know, as they are.
		if len(unknown) > 0 {
			score += unknownWeight * float64(unknownHits) / float64(len(unknown)+Q)
		}
		out[i] = score
	}
	return out, nil
}

// tokenPair is the second token of one of a query's adjacent pairs, and
// the pair's number.
type tokenPair struct {
	second string
	n      int
}

// queryPairs returns the distinct adjacent pairs of toks (a token beside
// itself is no pair), by first token, and how many there are.
func queryPairs(toks []string) (map[string][]tokenPair, int) {
	pairs := map[string][]tokenPair{}
	n := 0
	for k := 1; k < len(toks); k++ {
		a, b := toks[k-1], toks[k]
		if a == b || slices.ContainsFunc(pairs[a], func(p tokenPair) bool { return p.second == b }) {
			continue
		}
		pairs[a] = append(pairs[a], tokenPair{b, n})
		n++
	}
	return pairs, n
}

// ids returns the distinct tokens lookup knows among toks, in their
// first order.
func ids(toks []string, lookup func(string) int) []int32 {
	out := make([]int32, 0, len(toks))
	seen := make(map[int32]struct{}, len(toks))
	for _, t := range toks {
		i := lookup(t)
		if i < 0 {
			continue
		}
		if _, ok := seen[int32(i)]; !ok {
			seen[int32(i)] = struct{}{}
			out = append(out, int32(i))
		}
	}
	return out
}

// row8 is token i's int8 vector, as bytes.
func (m *Static) row8(i int32) []byte { return m.vecs[int(i)*m.dim : int(i+1)*m.dim] }

// norm8 is the length of token i's int8 vector.
func (m *Static) norm8(i int32) float64 {
	var n int32
	for _, v := range m.row8(i) {
		n += int32(int8(v)) * int32(int8(v))
	}
	return math.Sqrt(float64(n))
}

// scale is token i's int8 scale.
func (m *Static) scale(i int32) float64 {
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(m.scales[4*i:])))
}

// dot8 is the dot product of two int8 vectors (as bytes) of one length.
func dot8(a, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	// four bytes a step, each step's slices cut to four so that the
	// compiler checks no bounds inside it
	for len(a) >= 4 && len(b) >= 4 {
		x, y := a[:4:4], b[:4:4]
		s0 += int32(int8(x[0])) * int32(int8(y[0]))
		s1 += int32(int8(x[1])) * int32(int8(y[1]))
		s2 += int32(int8(x[2])) * int32(int8(y[2]))
		s3 += int32(int8(x[3])) * int32(int8(y[3]))
		a, b = a[4:], b[4:]
	}
	for i := range a {
		s0 += int32(int8(a[i])) * int32(int8(b[i]))
	}
	return s0 + s1 + s2 + s3
}
