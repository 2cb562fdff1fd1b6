package train

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/eval"
	"coderag/core/search"
)

// Question is a training query and the file ("source/path") that
// answers it.
type Question struct {
	Q    string
	Gold string
}

// Questions turns pairs mined under the source named source into
// questions. Pairs whose file is a test are left out: tests stay in the
// index as competitors, but the questions a user asks are about the code.
func Questions(source string, pairs []Pair) []Question {
	var out []Question
	for _, p := range pairs {
		if core.IsTestPath(p.File) {
			continue
		}
		out = append(out, Question{Q: p.Query, Gold: source + "/" + p.File})
	}
	return out
}

// Split divides pairs by group: the groups whose name hashes to 0 modulo
// every are held out, the rest train. A held-out question never shares its
// package with a training question.
func Split(pairs []Pair, every int) (train, held []Pair) {
	for _, p := range pairs {
		h := fnv.New32a()
		h.Write([]byte(p.Group))
		if every > 1 && h.Sum32()%uint32(every) == 0 {
			held = append(held, p)
		} else {
			train = append(train, p)
		}
	}
	return train, held
}

// Sample returns at most n questions, spread evenly over qs (which keeps
// every package represented), in a fixed order.
func Sample(qs []Question, n int) []Question {
	if n <= 0 || len(qs) <= n {
		return qs
	}
	out := make([]Question, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, qs[i*len(qs)/n])
	}
	return out
}

// Evaluator measures a parameter set by MRR@10 over questions, at the
// file level as coderag eval does (the first 10 distinct files of 40
// hits). What does not depend on the parameters — the index's lists, the
// query vectors, the reranker's features — is computed once.
type Evaluator struct {
	idx     *cachedIndex
	emb     embed.Embedder
	feats   *search.FeatureCache
	qs      []Question
	workers int
}

// NewEvaluator returns an evaluator of qs on idx; emb may be nil (no
// dense list).
func NewEvaluator(idx search.Index, emb embed.Embedder, qs []Question, workers int) *Evaluator {
	if workers <= 0 {
		workers = 2
	}
	ev := &Evaluator{idx: &cachedIndex{Index: idx, m: map[string]cached{}}, feats: &search.FeatureCache{}, qs: qs, workers: workers}
	if emb != nil {
		ce := &cachedEmbedder{Embedder: emb, m: map[string][]float32{}}
		ev.emb = ce
		if rs, ok := emb.(embed.Rescorer); ok {
			// The dense list's second stage, as the product runs it.
			ev.emb = &cachedRescorer{cachedEmbedder: ce, rs: rs, m: map[string][]float64{}}
		}
	}
	return ev
}

// MRR returns the mean reciprocal rank of the gold files under p.
func (ev *Evaluator) MRR(ctx context.Context, p search.Params) (float64, error) {
	rrs, err := ev.RRs(ctx, p)
	if err != nil {
		return 0, err
	}
	return mean(rrs), nil
}

// RRs returns each question's reciprocal rank of its gold file under p (0
// when it is not among the first 10 files).
func (ev *Evaluator) RRs(ctx context.Context, p search.Params) ([]float64, error) {
	ranks, err := ev.Ranks(ctx, p)
	if err != nil {
		return nil, err
	}
	rrs := make([]float64, len(ranks))
	for i, r := range ranks {
		if r > 0 {
			rrs[i] = 1 / float64(r)
		}
	}
	return rrs, nil
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(max(1, len(xs)))
}

// pairedGain is the mean of b-a over questions and its standard error.
func pairedGain(a, b []float64) (gain, se float64) {
	n := len(a)
	if n < 2 {
		return mean(b) - mean(a), 0
	}
	d := make([]float64, n)
	for i := range a {
		d[i] = b[i] - a[i]
	}
	gain = mean(d)
	ss := 0.0
	for _, x := range d {
		ss += (x - gain) * (x - gain)
	}
	return gain, math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
}

// Ranks returns each question's gold rank among the first 10 files (0:
// not there).
func (ev *Evaluator) Ranks(ctx context.Context, p search.Params) ([]int, error) {
	opts := search.Options{Params: &p, Reranker: search.BuiltinReranker{Cache: ev.feats}}
	if ev.emb != nil {
		opts.Embedder = ev.emb
	}
	eng := search.New(ev.idx, opts)
	ranks := make([]int, len(ev.qs))
	errs := make([]error, ev.workers)
	var wg sync.WaitGroup
	for w := 0; w < ev.workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(ev.qs); i += ev.workers {
				q := ev.qs[i]
				res, err := eng.Search(ctx, search.Query{Text: q.Q, K: eval.Hits})
				if err != nil {
					errs[w] = fmt.Errorf("question %q: %w", q.Q, err)
					return
				}
				for r, f := range eval.RankedFiles(res.Hits) {
					if r >= eval.K {
						break
					}
					if f == q.Gold {
						ranks[i] = r + 1
						break
					}
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ranks, nil
}

// knob is one parameter coordinate ascent moves: its name, the values
// tried, and how to read and set it.
type knob struct {
	name   string
	values []float64
	get    func(p *search.Params) float64
	set    func(p *search.Params, v float64)
}

func listKnob(list string, values []float64) knob {
	return knob{"lists." + list, values,
		func(p *search.Params) float64 { return p.Lists[list] },
		func(p *search.Params, v float64) { p.Lists[list] = v }}
}

func featureKnob(f string) knob {
	return knob{"features." + f, []float64{0, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8},
		func(p *search.Params) float64 { return p.Features[f] },
		func(p *search.Params, v float64) { p.Features[f] = v }}
}

// knobs are the parameters the mined pairs can teach: the weights of the
// lists (bm25-prose for the Markdown headings; dense is the params key of
// the index's dense list: dense for the corpus model, dense-static for
// the shipped one), the fusion's k, the reranker's share and feature
// weights, and the prior of tests (tests are in the corpus; repository
// boilerplate is not).
func knobs(dense string) []knob {
	weights := []float64{0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3}
	ks := []knob{
		listKnob("bm25-code", weights),
		listKnob("bm25-file", weights),
		listKnob("bm25-prose", weights),
		listKnob(dense, slices.Concat(weights, []float64{4, 6})),
		{"rrf_k", []float64{5, 10, 20, 30, 45, 60, 90, 120},
			func(p *search.Params) float64 { return float64(p.RRFK) },
			func(p *search.Params, v float64) { p.RRFK = int(v) }},
		{"rerank_mix", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9},
			func(p *search.Params) float64 { return p.RerankMix },
			func(p *search.Params, v float64) { p.RerankMix = v }},
		{"test_prior", []float64{0.3, 0.45, 0.6, 0.75, 0.9, 1},
			func(p *search.Params) float64 { return p.TestPrior },
			func(p *search.Params, v float64) { p.TestPrior = v }},
	}
	for _, f := range []string{"exact", "symbol", "coverage", "proximity", "path", "signature"} {
		ks = append(ks, featureKnob(f))
	}
	return ks
}

// FitOptions configure Fit.
type FitOptions struct {
	// Rounds bounds the passes over all parameters (default 3); a pass
	// that changes nothing ends the fit.
	Rounds int
	// MinGain is the least MRR gain a change must bring (default 0.002).
	MinGain float64
	// Z is how many standard errors of the paired per-question gain a
	// change must clear (default 2): with a thousand questions an MRR
	// difference of 0.005 is often noise, and a parameter moved by noise
	// does not carry to other code.
	Z float64
	// Log, when set, is told each accepted change.
	Log func(format string, args ...any)
}

// Fit moves one parameter at a time to the value of its grid that gives
// the best MRR on ev (coordinate ascent), starting from start, until a
// pass over all parameters changes nothing. A move is taken only when its
// gain over the questions is significant (Z standard errors of the paired
// per-question difference). It returns the parameters and their MRR.
func Fit(ctx context.Context, ev *Evaluator, start search.Params, opts FitOptions) (search.Params, float64, error) {
	if opts.Rounds <= 0 {
		opts.Rounds = 3
	}
	if opts.MinGain <= 0 {
		opts.MinGain = 0.002
	}
	if opts.Z <= 0 {
		opts.Z = 2
	}
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	best := start.Clone()
	bestRR, err := ev.RRs(ctx, best)
	if err != nil {
		return best, 0, err
	}
	logf("start: MRR@10 %.4f", mean(bestRR))
	for round := 1; round <= opts.Rounds; round++ {
		changed := false
		for _, k := range knobs(ev.denseKey()) {
			cur := k.get(&best)
			choice, choiceRR, choiceGain, choiceSE := cur, bestRR, 0.0, 0.0
			for _, v := range k.values {
				if v == cur {
					continue
				}
				p := best.Clone()
				k.set(&p, v)
				if p.Validate() != nil {
					continue
				}
				rr, err := ev.RRs(ctx, p)
				if err != nil {
					return best, mean(bestRR), err
				}
				gain, se := pairedGain(bestRR, rr)
				if gain > choiceGain && gain >= opts.MinGain && gain > opts.Z*se {
					choice, choiceRR, choiceGain, choiceSE = v, rr, gain, se
				}
			}
			if choice != cur {
				k.set(&best, choice)
				logf("round %d: %s %g -> %g: MRR@10 %.4f -> %.4f (gain %.4f, %.1f standard errors)", round, k.name, cur, choice,
					mean(bestRR), mean(choiceRR), choiceGain, choiceGain/max(choiceSE, 1e-9))
				bestRR = choiceRR
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return best, mean(bestRR), nil
}

// cachedIndex answers each distinct index call once.
type cachedIndex struct {
	search.Index
	mu sync.Mutex
	m  map[string]cached
}

type cached struct {
	hits  []core.Hit
	total int
	df    map[string]int
	err   error
}

func (c *cachedIndex) do(key string, f func() cached) cached {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = f()
	c.mu.Lock()
	c.m[key] = v
	c.mu.Unlock()
	return v
}

// copyHits returns a copy the engine may change (it sets scores and
// appends list ranks).
func copyHits(h []core.Hit) []core.Hit {
	out := make([]core.Hit, len(h))
	copy(out, h)
	for i := range out {
		out[i].Lists = append([]core.ListRank(nil), h[i].Lists...)
	}
	return out
}

func (c *cachedIndex) BM25(ctx context.Context, index, match string, k int, f core.Filter) ([]core.Hit, error) {
	v := c.do(fmt.Sprintf("bm25\x00%s\x00%s\x00%d\x00%v", index, match, k, f), func() cached {
		h, err := c.Index.BM25(ctx, index, match, k, f)
		return cached{hits: h, err: err}
	})
	return copyHits(v.hits), v.err
}

func (c *cachedIndex) FileBM25(ctx context.Context, match, best string, k int, f core.Filter) ([]core.Hit, error) {
	v := c.do(fmt.Sprintf("file\x00%s\x00%s\x00%d\x00%v", match, best, k, f), func() cached {
		h, err := c.Index.FileBM25(ctx, match, best, k, f)
		return cached{hits: h, err: err}
	})
	return copyHits(v.hits), v.err
}

func (c *cachedIndex) KNN(ctx context.Context, vec []float32, k int, f core.Filter) ([]core.Hit, error) {
	v := c.do(fmt.Sprintf("knn\x00%p\x00%d\x00%v", &vec[0], k, f), func() cached {
		h, err := c.Index.KNN(ctx, vec, k, f)
		return cached{hits: h, err: err}
	})
	return copyHits(v.hits), v.err
}

func (c *cachedIndex) TermDocs(ctx context.Context, tokens []string) (int, map[string]int, error) {
	v := c.do("df\x00"+strings.Join(tokens, "\x00"), func() cached {
		n, df, err := c.Index.TermDocs(ctx, tokens)
		return cached{total: n, df: df, err: err}
	})
	return v.total, v.df, v.err
}

// denseKey is the params key of the weight of ev's dense list: the
// shipped model's (dense-static) or the corpus model's (dense).
func (ev *Evaluator) denseKey() string {
	if ev.emb != nil && embed.IsStatic(ev.emb.Info().ID) {
		return "dense-static"
	}
	return "dense"
}

// cachedRescorer is a cachedEmbedder whose model has a second stage; it
// scores each query's documents once.
type cachedRescorer struct {
	*cachedEmbedder
	rs embed.Rescorer
	mu sync.Mutex
	m  map[string][]float64
}

func (c *cachedRescorer) Rescore(ctx context.Context, query string, docs []string, first []float64) ([]float64, error) {
	h := fnv.New64a()
	for i, d := range docs {
		h.Write([]byte(d))
		h.Write([]byte{0})
		if i < len(first) { // a short first is the Rescorer's error to give
			fmt.Fprintf(h, "%x", math.Float64bits(first[i]))
		}
	}
	key := fmt.Sprintf("%s\x00%d\x00%x", query, len(docs), h.Sum64())
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return append([]float64(nil), v...), nil
	}
	v, err := c.rs.Rescore(ctx, query, docs, first)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.m[key] = v
	c.mu.Unlock()
	return append([]float64(nil), v...), nil
}

// cachedEmbedder embeds each query once; the same text gets the same
// vector (the same backing array, which cachedIndex keys KNN by).
type cachedEmbedder struct {
	embed.Embedder
	mu sync.Mutex
	m  map[string][]float32
}

func (c *cachedEmbedder) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	if kind != embed.Query || len(texts) != 1 {
		return c.Embedder.Embed(ctx, kind, texts)
	}
	c.mu.Lock()
	v, ok := c.m[texts[0]]
	c.mu.Unlock()
	if ok {
		return [][]float32{v}, nil
	}
	vs, err := c.Embedder.Embed(ctx, kind, texts)
	if err != nil || len(vs) != 1 {
		return vs, err
	}
	c.mu.Lock()
	c.m[texts[0]] = vs[0]
	c.mu.Unlock()
	return vs, nil
}
