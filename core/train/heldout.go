package train

import (
	"context"
	"math"
	"runtime"
	"sort"
	"sync/atomic"

	"coderag/core/embed"

	"golang.org/x/sync/errgroup"
)

// HeldOutReport is MRR@10 on held-out pairs: each query ranks every
// held-out document (the pool), and its own document is the answer.
type HeldOutReport struct {
	HeldOutScores     // over every query asked
	Docs          int // the pool
	// ByLang splits the scores by the language of each query's pair (of
	// the file it was mined from; "markdown" is heading -> section),
	// each ranking the same pool: where the model trails BM25.
	ByLang map[string]HeldOutScores
}

// HeldOutScores is MRR@10 of a set of held-out queries.
type HeldOutScores struct {
	Queries int
	Model   float64 // the embedding model alone, both stages when it has two (embed.Rescorer)
	Pooled  float64 // the model's first stage alone: one vector per text
	BM25    float64 // Okapi BM25 over the same tokens alone
	Fused   float64 // the two lists fused by reciprocal rank (k 60)
}

// add counts one query's reciprocal ranks (a sum until mean).
func (s *HeldOutScores) add(r HeldOutScores) {
	s.Queries++
	s.Model += r.Model
	s.Pooled += r.Pooled
	s.BM25 += r.BM25
	s.Fused += r.Fused
}

// mean turns the sums of add into means over the queries.
func (s *HeldOutScores) mean() {
	n := float64(s.Queries)
	s.Model, s.Pooled, s.BM25, s.Fused = s.Model/n, s.Pooled/n, s.BM25/n, s.Fused/n
}

// EvalHeldOut measures emb against BM25 on held-out pairs (at most maxQ
// queries, spread evenly; the pool is every held-out document).
func EvalHeldOut(ctx context.Context, held []TextPair, emb embed.Embedder, maxQ int) (HeldOutReport, error) {
	docID := map[string]int{}
	var docs []string
	gold := make([]int, len(held))
	for i, p := range held {
		k, ok := docID[p.Doc]
		if !ok {
			k = len(docs)
			docID[p.Doc] = k
			docs = append(docs, p.Doc)
		}
		gold[i] = k
	}
	qi := make([]int, 0, len(held))
	for i := range held {
		qi = append(qi, i)
	}
	if maxQ > 0 && len(qi) > maxQ {
		s := make([]int, 0, maxQ)
		for i := 0; i < maxQ; i++ {
			s = append(s, qi[i*len(qi)/maxQ])
		}
		qi = s
	}
	rep := HeldOutReport{HeldOutScores: HeldOutScores{Queries: len(qi)}, Docs: len(docs)}
	if len(qi) == 0 {
		return rep, nil
	}
	dv, err := emb.Embed(ctx, embed.Document, docs)
	if err != nil {
		return rep, err
	}
	qs := make([]string, len(qi))
	for k, i := range qi {
		qs[k] = held[i].Query
	}
	qv, err := emb.Embed(ctx, embed.Query, qs)
	if err != nil {
		return rep, err
	}
	bm := newBM25(docs)
	rs, _ := emb.(embed.Rescorer)
	// Each query's reciprocal ranks, asked on every core and summed in
	// query order (the same sums, in the same order, however many cores).
	got := make([]HeldOutScores, len(qi)) // each query's reciprocal ranks
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range runtime.GOMAXPROCS(0) {
		g.Go(func() error {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(qi) {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				i := qi[k]
				dense := denseRank(qv[k], dv, 100)
				r := HeldOutScores{Pooled: rr(dense, gold[i])}
				if rs != nil {
					var err error
					if dense, err = rescore(gctx, rs, qs[k], qv[k], docs, dv, dense); err != nil {
						return err
					}
				}
				lex := bm.rank(qs[k], 100)
				r.Model, r.BM25, r.Fused = rr(dense, gold[i]), rr(lex, gold[i]), rr(rrf(dense, lex), gold[i])
				got[k] = r
			}
		})
	}
	if err := g.Wait(); err != nil {
		return rep, err
	}
	all := HeldOutScores{}
	rep.ByLang = map[string]HeldOutScores{}
	for k, r := range got {
		all.add(r)
		lang := held[qi[k]].Lang
		s := rep.ByLang[lang]
		s.add(r)
		rep.ByLang[lang] = s
	}
	all.mean()
	rep.HeldOutScores = all
	for l, s := range rep.ByLang {
		s.mean()
		rep.ByLang[l] = s
	}
	return rep, nil
}

// rescore orders the first embed.RescoreDepth of ranked by rs's scores;
// the rest keep their order after them.
func rescore(ctx context.Context, rs embed.Rescorer, q string, qv []float32, docs []string, dv [][]float32, ranked []int) ([]int, error) {
	n := min(len(ranked), embed.RescoreDepth)
	texts := make([]string, n)
	first := make([]float64, n)
	for i, d := range ranked[:n] {
		texts[i] = docs[d]
		for x, v := range qv {
			first[i] += float64(v * dv[d][x])
		}
	}
	sc, err := rs.Rescore(ctx, q, texts, first)
	if err != nil {
		return nil, err
	}
	s := make([]scored, n)
	for i, d := range ranked[:n] {
		s[i] = scored{d, sc[i]}
	}
	return append(top(s, n), ranked[n:]...), nil
}

// rr is the reciprocal rank of want within the first 10 of ranked, or 0.
func rr(ranked []int, want int) float64 {
	for r, d := range ranked {
		if r >= 10 {
			break
		}
		if d == want {
			return 1 / float64(r+1)
		}
	}
	return 0
}

type scored struct {
	doc   int
	score float64
}

func top(s []scored, k int) []int {
	sort.Slice(s, func(i, j int) bool {
		if s[i].score != s[j].score {
			return s[i].score > s[j].score
		}
		return s[i].doc < s[j].doc
	})
	out := make([]int, 0, k)
	for _, x := range s {
		if len(out) == k {
			break
		}
		out = append(out, x.doc)
	}
	return out
}

func denseRank(q []float32, docs [][]float32, k int) []int {
	if q == nil {
		return nil
	}
	s := make([]scored, 0, len(docs))
	for i, d := range docs {
		if d == nil {
			continue
		}
		var dot float32
		for x, v := range q {
			dot += v * d[x]
		}
		s = append(s, scored{i, float64(dot)})
	}
	return top(s, k)
}

func rrf(lists ...[]int) []int {
	score := map[int]float64{}
	for _, l := range lists {
		for r, d := range l {
			score[d] += 1 / float64(60+r+1)
		}
	}
	s := make([]scored, 0, len(score))
	for d, v := range score {
		s = append(s, scored{d, v})
	}
	return top(s, 100)
}

// bm25 is Okapi BM25 (k1 1.2, b 0.75) over the embedding model's tokens.
type bm25 struct {
	post  map[string][]posting
	len   []float64
	avg   float64
	ndocs int
}

type posting struct {
	doc int
	tf  float64
}

func newBM25(docs []string) *bm25 {
	b := &bm25{post: map[string][]posting{}, len: make([]float64, len(docs)), ndocs: len(docs)}
	var total float64
	for i, d := range docs {
		tf := map[string]int{}
		toks := embed.Tokens(d)
		for _, t := range toks {
			tf[t]++
		}
		for t, n := range tf {
			b.post[t] = append(b.post[t], posting{i, float64(n)})
		}
		b.len[i] = float64(len(toks))
		total += b.len[i]
	}
	b.avg = total / float64(max(1, len(docs)))
	return b
}

func (b *bm25) rank(q string, k int) []int {
	score := map[int]float64{}
	seen := map[string]bool{}
	for _, t := range embed.Tokens(q) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := b.post[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (float64(b.ndocs)-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			score[p.doc] += idf * p.tf * 2.2 / (p.tf + 1.2*(0.25+0.75*b.len[p.doc]/b.avg))
		}
	}
	s := make([]scored, 0, len(score))
	for d, v := range score {
		s = append(s, scored{d, v})
	}
	return top(s, k)
}
