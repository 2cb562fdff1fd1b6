// Package search answers queries over a coderag index: it turns user text
// into full-text expressions, runs them against the index's retrieval lists
// and fuses the lists with weighted reciprocal rank fusion.
package search

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/discover"
	"coderag/core/embed"
)

// Index is what search needs from the store; sqlite.DB implements it.
type Index interface {
	// BM25 runs an FTS5 expression against the "code" or "prose" index.
	BM25(ctx context.Context, index, match string, k int, f core.Filter) ([]core.Hit, error)
	// TermDocs returns the number of chunks and the number of chunks that
	// hold each of the given code tokens.
	TermDocs(ctx context.Context, tokens []string) (int, map[string]int, error)
	// FileBM25 ranks whole files against an FTS5 expression and returns
	// each file's chunk that best matches best (an expression for the
	// "code" index).
	FileBM25(ctx context.Context, match, best string, k int, f core.Filter) ([]core.Hit, error)
	// KNN returns the k chunks nearest to v, filters applied.
	KNN(ctx context.Context, v []float32, k int, f core.Filter) ([]core.Hit, error)
}

// Lister is an Index that lists the chunks a filter admits, in file
// order, for a query that is all filters.
type Lister interface {
	List(ctx context.Context, f core.Filter, k int) ([]core.Hit, error)
}

// PhraseScorer is an Index whose BM25 scores a quoted phrase as one term
// (SQLite's FTS5: its own document frequency, counted where its words
// stand together). An index that scores a phrase's words one by one
// (the PostgreSQL store) is not asked for the query's whole text as a
// phrase: that would count every word of the question, the common ones
// the plan leaves out included.
type PhraseScorer interface {
	ScoresPhrases() bool
}

// ListLimiter is an Index whose lists cost the process's own CPU (the
// SQLite file, searched in this process): a query runs at most
// ListsAtOnce of its retrieval lists at once. An index without it (a
// database server, whose lists wait on the network) runs them all at
// once.
type ListLimiter interface {
	ListsAtOnce() int
}

// FilterValuer is an Index that knows the values of a filter field
// ("service", "repo", "language"), so that a mistyped one is an error with
// suggestions instead of no results.
type FilterValuer interface {
	FilterValues(ctx context.Context, field string) ([]string, error)
}

// checkFilterValues refuses service, repo and language filters that name
// nothing in the index, suggesting the closest names (or, for a short
// list, all of them). Search asks only when a query
// found nothing, so a filter costs no extra query on the way to results.
func (e *Engine) checkFilterValues(ctx context.Context, text string, f core.Filter) error {
	fv, ok := e.idx.(FilterValuer)
	if !ok {
		return nil
	}
	for _, c := range []struct {
		field string
		vals  []string
	}{{"service", f.Service}, {"repo", f.Repo}, {"language", f.Language}} {
		if len(c.vals) == 0 {
			continue
		}
		known, err := fv.FilterValues(ctx, c.field)
		if err != nil {
			return fmt.Errorf("search %q: %w", text, err)
		}
		for _, v := range c.vals {
			if slices.Contains(known, v) {
				continue
			}
			msg := fmt.Sprintf("no %s %q in the index", c.field, v)
			if near := core.Closest(v, known, 3); len(near) > 0 {
				msg += " (did you mean " + strings.Join(near, ", ") + "?)"
			} else if len(known) == 0 {
				msg += " (no chunk belongs to a " + c.field + ")"
			} else if len(known) <= 20 {
				msg += " (it holds " + strings.Join(known, ", ") + ")"
			}
			return fmt.Errorf("query %q: %w: %s", text, core.ErrBadQuery, msg)
		}
	}
	return nil
}

// Options tune an Engine. The zero value uses the defaults.
type Options struct {
	// Params are the numbers of ranking (default DefaultParams, see
	// docs/eval.md). RRFK, Weights and RerankMix below override theirs.
	Params *Params
	// RRFK is the k of reciprocal rank fusion (default Params.RRFK).
	RRFK int
	// Depth is how many hits each list contributes before fusion
	// (default 50, never less than the query's K).
	Depth int
	// Weights weighs each list in the fusion by name ("bm25-code",
	// "bm25-prose", "bm25-file", "dense") over Params.Lists; the dense list
	// of an embedding server weighs 1 unless named here (Params.Lists
	// weighs the built-in embedder's).
	Weights map[string]float64
	// Embedder embeds queries for the dense list; nil: no dense list.
	Embedder embed.Embedder
	// NoBM25 leaves out both BM25 lists (dense only; for evaluation).
	NoBM25 bool
	// Reranker rescores the best RerankDepth fused hits (default 50); nil:
	// no reranking. RerankMix is the reranker's share of the score of the
	// builtin reranker (default Params.RerankMix); an HTTP cross-encoder's
	// score replaces the fused one.
	Reranker    Reranker
	RerankDepth int
	RerankMix   float64
	// FreshnessHalfLife and FreshnessWeight give conversation chunks
	// (Slack, transcripts) a recency term: score = (1-w)·score +
	// w·2^(-age/half-life) (defaults 90 days and 0.1; negative disables).
	// Now is the clock (default time.Now).
	FreshnessHalfLife time.Duration
	FreshnessWeight   float64
	Now               func() time.Time
	// CorpusBoost multiplies the score of corpus types the query's words
	// point at (identifiers: code and config; deploy words: deploy files
	// and runbooks; incident words: Slack and runbooks; how-to words:
	// runbooks and docs); default 1.15, 1 disables.
	CorpusBoost float64
	// PathPriority multiplies the score of code chunks by their path's
	// words (seed 003): service, controller, handler, api, auth, ... x1.3;
	// model, schema, util, client, ... x1.1; test, spec, mock, fixture,
	// config, stub x0.8. Off by default.
	PathPriority bool
	// NoPriors turns off the file priors: tests (unless the query asks
	// about tests) weigh Params.TestPrior, repository boilerplate and tool
	// configuration (unless the query names the file)
	// Params.BoilerplatePrior.
	NoPriors bool
	// CommonShare: in an index of at least PruneFrom chunks, a query term
	// found in more than this share of chunks is dropped from a query that
	// has rarer terms (default 0.1). Such terms rank almost nothing (their
	// BM25 IDF is near zero) but make FTS5 score most of the index.
	CommonShare float64
	// PruneFrom is the index size from which common terms are dropped
	// (default 5000 chunks).
	PruneFrom int
	// FocusFrom: when a query is estimated to match more chunks than this
	// (default 10000), each index is first searched in the high-weight
	// columns only (symbol, path, context); all columns are searched only
	// when that finds fewer than Depth hits. FTS5 scores every match, so
	// this keeps very common terms fast.
	FocusFrom int
}

// Engine runs searches. It is safe for concurrent use.
type Engine struct {
	idx    Index
	opts   Options
	params Params
	// learnedDense: the dense list's weight is the shipped model's
	// (dense-static), learned on questions that describe code; see
	// weightsFor.
	learnedDense bool
}

// New returns an Engine over idx.
func New(idx Index, opts Options) *Engine {
	p := DefaultParams()
	if opts.Params != nil {
		p = opts.Params.Clone()
	}
	if opts.RRFK <= 0 {
		opts.RRFK = p.RRFK
	}
	if opts.Depth <= 0 {
		opts.Depth = 50
	}
	if opts.CommonShare <= 0 {
		opts.CommonShare = 0.1
	}
	if opts.PruneFrom <= 0 {
		opts.PruneFrom = 5000
	}
	if opts.FocusFrom <= 0 {
		opts.FocusFrom = 10000
	}
	if opts.RerankDepth <= 0 {
		opts.RerankDepth = 50
	}
	if opts.RerankMix <= 0 {
		opts.RerankMix = p.RerankMix
	}
	if opts.FreshnessHalfLife == 0 {
		opts.FreshnessHalfLife = 90 * 24 * time.Hour
	}
	if opts.FreshnessWeight == 0 {
		opts.FreshnessWeight = 0.1
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CorpusBoost <= 0 {
		opts.CorpusBoost = 1.15
	}
	w := map[string]float64{}
	learned := false
	for k, v := range p.Lists {
		switch {
		case k == "dense-static":
			if opts.Embedder != nil && embed.IsStatic(opts.Embedder.Info().ID) {
				w["dense"], learned = v, true
			}
		case k != "dense" || opts.Embedder != nil && opts.Embedder.Info().ID == embed.CorpusID:
			w[k] = v
		}
	}
	if _, given := opts.Weights["dense"]; given {
		learned = false
	}
	for k, v := range opts.Weights {
		w[k] = v
	}
	opts.Weights = w
	return &Engine{idx: idx, opts: opts, params: p, learnedDense: learned}
}

// Query is one search request.
type Query struct {
	// Text is free text with optional filters (type:runbook service:cart
	// repo:web lang:go path:src/** -path:test "a phrase"); see Parse.
	Text   string
	K      int // results wanted (default 10)
	Filter core.Filter
}

// Result is the answer to a Query.
type Result struct {
	Hits []core.Hit
	Took time.Duration
	// Text is the searched text and Filter the filters in effect (the
	// query's and those written in its text).
	Text   string
	Filter core.Filter
	// Dropped lists query terms left out because they are in most chunks;
	// AllCommon says every term was, and the terms were AND-ed instead.
	Dropped   []string
	AllCommon bool
	// Warnings say what part of the search could not run (an embedding or
	// rerank server that is down); the rest of the result stands.
	Warnings []string
	// Lists are the retrieval lists that ran, Reranker the reranker.
	Lists    []string
	Reranker string
}

// Search runs q: BM25 over both full-text indexes and, with an embedder,
// dense KNN; weighted reciprocal rank fusion; overlapping chunks of one
// file merged; reranking, freshness and corpus boosts over the best hits.
// A query that finds nothing and names a service or repository the index
// does not hold is an error suggesting the closest names.
func (e *Engine) Search(ctx context.Context, q Query) (Result, error) {
	res, err := e.search(ctx, q)
	if err == nil && len(res.Hits) == 0 {
		err = e.checkFilterValues(ctx, q.Text, res.Filter)
	}
	return res, err
}

// listQuery is what a query's retrieval lists search for: its phrases and
// runs, and the plan and vector of its text, each made once however many
// times the lists run.
type listQuery struct {
	whole    []string
	shingles []string
	usage    bool
	depth    int
	plan     func() (queryPlan, error)
	text     string // what the dense list embeds
	vector   func() ([][]float32, error)
}

// listRun is one run of a query's retrieval lists.
type listRun struct {
	lists     [][]core.Hit
	names     []string // the lists' names, in their order
	warnings  []string
	dropped   []string // terms left out as too common (Result.Dropped)
	allCommon bool
	idf       map[string]float64
}

// runLists runs a query's retrieval lists with filter f: the BM25 lists
// (code, prose, synonyms, definitions, message, whole files) and the
// dense list, each on a connection of its own, as many at once as the
// index says (ListLimiter; the SQLite file: as many as the process has
// cores), else all at once. More at once than cores gains an in-process
// index no time and costs CPU: each list's connection maps the file and
// faults its pages in anew, and the goroutines wait on each other's
// cores (on two cores, seven lists at once took 7% more CPU than two at
// a time, and more wall time at the 95th percentile). The dense list
// takes its turn once its query is embedded: an embedding server's
// answer is not the process's CPU.
func (e *Engine) runLists(ctx context.Context, q listQuery, f core.Filter) (listRun, error) {
	whole, sh, usage, depth := q.whole, q.shingles, q.usage, q.depth
	type denseResult struct {
		hits []core.Hit
		warn string
		err  error
	}
	slots := make(chan struct{}, 16) // more than a query has lists
	if l, ok := e.idx.(ListLimiter); ok {
		slots = make(chan struct{}, max(1, l.ListsAtOnce()))
	}
	var run listRun
	var denseCh chan denseResult
	if e.opts.Embedder != nil {
		denseCh = make(chan denseResult, 1)
		go func() {
			held := false
			vector := func() ([][]float32, error) {
				v, err := q.vector()
				slots <- struct{}{}
				held = true
				return v, err
			}
			hits, warn, err := e.dense(ctx, q.text, vector, depth, f)
			if held {
				<-slots
			}
			denseCh <- denseResult{hits, warn, err}
		}()
	}
	if !e.opts.NoBM25 {
		p, err := q.plan()
		if err != nil {
			if denseCh != nil {
				<-denseCh
			}
			return listRun{}, err
		}
		run.dropped, run.allCommon = p.dropped, p.and
		run.idf = p.idf
		// The code, prose and whole-file lists run at once, each on a
		// connection of its own.
		type list struct {
			name string
			run  func() ([]core.Hit, error)
		}
		var todo []list
		for _, index := range []string{"code", "prose"} {
			match := matchTerms(p.terms, index, p.and)
			if match == "" {
				continue
			}
			if ps, ok := e.idx.(PhraseScorer); ok && ps.ScoresPhrases() && len(whole) > 0 && !p.and {
				match += " OR " + quote(whole[0])
			}
			todo = append(todo, list{"bm25-" + index, func() ([]core.Hit, error) {
				return e.bm25(ctx, index, match, p.estimate, depth, f)
			}})
		}
		// Synonyms: the query's words and the words of software work that
		// name the same things (stem.go), for chunks that say "postgres"
		// where the question says "database"; a list of its own so that it
		// weighs less than the query's own words. The plan keeps the
		// synonyms the index holds and, in a large index, not those as
		// common as its dropped terms.
		if len(p.synonyms) > 0 && !p.and {
			if match := matchTerms(p.terms, "code", false); match != "" {
				for _, w := range p.synonyms {
					match += " OR " + quote(w)
				}
				todo = append(todo, list{"bm25-synonyms", func() ([]core.Hit, error) {
					hits, err := e.bm25(ctx, "code", match, p.estimate, depth, f)
					return relabel(hits, "bm25-synonyms"), err
				}})
			}
		}
		// Definitions: a qualified name (os.ReadFile, CartService.Checkout)
		// asks for its declaration, which says ReadFile alone, under its
		// package's path or its type's scope; its callers, which say
		// os.ReadFile, fill the other lists. Declarations under the
		// qualifier come first, then the others of that name.
		if defs := definitionQueries(p.terms); len(defs.queries) > 0 && !usage {
			todo = append(todo, list{"bm25-definitions", func() ([]core.Hit, error) {
				var out []core.Hit
				seen := map[string]bool{}
				for _, match := range defs.queries {
					hits, err := e.idx.BM25(ctx, "code", match, depth, f)
					if err != nil {
						return nil, err
					}
					// A chunk that declares the name itself before one whose
					// symbol only contains it (TestOncePanic for Once), and
					// code before its tests.
					rank := func(h core.Hit) int {
						r := 0
						if !defs.declares(h.Chunk.SymbolName) {
							r += 2
						}
						if core.IsTestPath(h.Chunk.FilePath) {
							r++
						}
						return r
					}
					sort.SliceStable(hits, func(i, j int) bool { return rank(hits[i]) < rank(hits[j]) })
					for _, h := range hits {
						if !seen[h.Chunk.ID] && len(out) < depth {
							seen[h.Chunk.ID] = true
							h.Lists = []core.ListRank{{List: "bm25-definitions", Rank: len(out) + 1, Score: h.Score}}
							out = append(out, h)
						}
					}
				}
				return out, nil
			}})
		}
		// A message with its values filled in: the chunks that write
		// its three-word runs, a list of its own so that a message
		// written as logged (the whole-text phrase above) still ranks
		// by its own words first.
		if ps, ok := e.idx.(PhraseScorer); ok && ps.ScoresPhrases() && len(sh) >= 2 && !p.and {
			var runs []string
			for _, s := range sh {
				runs = append(runs, quote(s))
			}
			match := strings.Join(runs, " OR ")
			todo = append(todo, list{"bm25-message", func() ([]core.Hit, error) {
				hits, err := e.idx.BM25(ctx, "code", match, depth, f)
				return relabel(hits, "bm25-message"), err
			}})
		}
		// Whole files: the evidence a file holds between its chunks.
		if match := matchTerms(p.terms, "code", p.and); match != "" {
			todo = append(todo, list{"bm25-file", func() ([]core.Hit, error) {
				return e.idx.FileBM25(ctx, match, match, depth, f)
			}})
		}
		got := make([][]core.Hit, len(todo))
		errs := make([]error, len(todo))
		var wg sync.WaitGroup
		// The whole-file list, the slowest (it ranks the files, then
		// the chunks of the best), starts first; the rest take the
		// cores as they free up, in their order.
		order := make([]int, 0, len(todo))
		for i, l := range todo {
			if l.name == "bm25-file" {
				order = append([]int{i}, order...)
			} else {
				order = append(order, i)
			}
		}
		for _, i := range order {
			wg.Add(1)
			slots <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				got[i], errs[i] = todo[i].run()
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			if denseCh != nil {
				<-denseCh
			}
			return listRun{}, err
		}
		for i, l := range todo {
			run.lists = append(run.lists, got[i])
			run.names = append(run.names, l.name)
		}
	}
	if denseCh != nil {
		d := <-denseCh
		if d.err != nil {
			return listRun{}, d.err
		}
		if d.warn != "" {
			run.warnings = append(run.warnings, d.warn)
		} else {
			run.lists = append(run.lists, d.hits)
			run.names = append(run.names, "dense")
		}
	}
	return run, nil
}

// pinnedLists names the lists of pinned hits a search has.
func pinnedLists(framed, routed, workloads, edges []core.Hit) []string {
	var out []string
	if len(framed) > 0 {
		out = append(out, "frames")
	}
	if len(routed) > 0 {
		out = append(out, "routes")
	}
	if len(workloads) > 0 {
		out = append(out, "workloads")
	}
	if len(edges) > 0 {
		out = append(out, "graph")
	}
	return out
}

func (e *Engine) search(ctx context.Context, q Query) (Result, error) {
	start := time.Now()
	k := q.K
	if k <= 0 {
		k = 10
	}
	// A pasted stack trace: its frames are looked up by file and line,
	// and the lists search its messages and function names.
	text := q.Text
	frames, cuts := parseTrace(text)
	if len(frames) > 0 {
		text = traceText(text, cuts)
	}
	parsed, err := Parse(text)
	if err != nil {
		return Result{}, err
	}
	f := mergeFilters(q.Filter, parsed.Filter)
	res := Result{Text: parsed.Text, Filter: f, Warnings: parsed.AsText}
	framed, err := e.frameHits(ctx, frames, f)
	if err != nil {
		return Result{}, fmt.Errorf("search %q: %w", q.Text, err)
	}
	// A pasted request (an access-log line, a curl command): the routes
	// that serve it and their handlers.
	routed, err := e.requestHits(ctx, ParseRequests(q.Text), f)
	if err != nil {
		return Result{}, fmt.Errorf("search %q: %w", q.Text, err)
	}
	// A pasted pod or container name (kubectl get pods, an event, an
	// alert): the manifest of the workload that made it, and the lists
	// search the workload's name instead.
	pods := ParsePodNames(q.Text)
	workloads, renames, err := e.workloadHits(ctx, pods, q.Text, f)
	if err != nil {
		return Result{}, fmt.Errorf("search %q: %w", q.Text, err)
	}
	parsed.Text = workloadText(parsed.Text, renames)
	res.Text = parsed.Text
	// A question about a service's callers or dependencies: the evidence
	// of the graph's edges, and the lists search the words.
	edges, direct, err := e.dependencyHits(ctx, q.Text, f)
	if err != nil {
		return Result{}, fmt.Errorf("search %q: %w", q.Text, err)
	}
	var edgeList []core.Hit // fused with the lists, not put first
	if !direct {
		edges, edgeList = nil, edges
	}
	pinned, pinnedLists := slices.Concat(framed, routed, workloads, edges), pinnedLists(framed, routed, workloads, edges)
	if strings.TrimSpace(parsed.Text) == "" {
		if len(pinned) > 0 {
			res.Hits, res.Lists, res.Took = pin(pinned, nil, k), pinnedLists, time.Since(start)
			return res, nil
		}
		if f.Empty() {
			return res, nil
		}
		// All filters: list what they admit, in file order.
		l, ok := e.idx.(Lister)
		if !ok {
			return res, fmt.Errorf("query %q: %w: nothing to search for besides filters", q.Text, core.ErrBadQuery)
		}
		hits, err := l.List(ctx, f, k)
		if err != nil {
			return res, fmt.Errorf("search %q: %w", q.Text, err)
		}
		res.Hits, res.Lists, res.Took = hits, []string{"filter"}, time.Since(start)
		return res, nil
	}
	// The whole text as written, a phrase: a pasted error message or log
	// line is found where it is written, before the chunks that hold its
	// words apart.
	whole, sh := wholePhrases(parsed.Text), shingles(parsed.Text)
	// Whether the text reads as a pasted message is judged on it as
	// written: the lists and the reranker get its content words only.
	message := messageSigns(parsed.Text)
	// A long paste (a log's last hundred lines) is searched by its most
	// telling terms, not as a phrase: FTS5's cost grows with every term
	// OR-ed in, and a 50 KB log took a minute.
	if short, ok := condense(parsed.Text); ok {
		parsed.Text, whole = short, nil
		res.Warnings = append(res.Warnings, fmt.Sprintf("a long text: searched by %d of its terms (words before values, the most repeated first)", len(Terms(short))))
	}
	usage := usageQuestion(parsed.Text)
	asked := parsed.Text
	// A source the text names (one repository of several): its chunks get
	// the corpus boost. (Keeping its name in the lists as well, though
	// found in most chunks, ranked every short resource of it first.)
	named, err := e.namedSources(ctx, parsed.Text)
	if err != nil {
		return Result{}, fmt.Errorf("search %q: %w", q.Text, err)
	}
	extra, err := e.expansions(ctx, parsed.Text)
	if err != nil {
		return Result{}, fmt.Errorf("search %q: %w", q.Text, err)
	}
	parsed.Text = strings.TrimSpace(ContentText(parsed.Text) + " " + strings.Join(extra, " "))
	depth := max(e.opts.Depth, k, e.opts.RerankDepth)
	// The lists run once, or twice when translation catalogs flood them
	// (below): the second time without the catalogs' folders.
	lt := parsed.Text
	lq := listQuery{whole: whole, shingles: sh, usage: usage, depth: depth, text: lt,
		plan: sync.OnceValues(func() (queryPlan, error) { return e.plan(ctx, Terms(lt), synonymWords(lt)) })}
	if e.opts.Embedder != nil {
		lq.vector = sync.OnceValues(func() ([][]float32, error) { return e.opts.Embedder.Embed(ctx, embed.Query, []string{lt}) })
	}
	var run listRun
	var fused []core.Hit
	lf := f
	for pass := 0; ; pass++ {
		run, err = e.runLists(ctx, lq, lf)
		if err != nil {
			return Result{}, fmt.Errorf("search %q: %w", q.Text, err)
		}
		if len(edgeList) > 0 {
			// First, so that a chunk the other lists hold too keeps the
			// edge it is evidence of.
			run.lists = append([][]core.Hit{edgeList}, run.lists...)
			run.names = append([]string{"graph"}, run.names...)
		}
		fused = Fuse(e.opts.RRFK, e.weightsFor(asked, message, usage, run), run.lists...)
		if pass > 0 || e.opts.NoPriors {
			break
		}
		// A question about the system in an index where a user
		// interface's text is translated into dozens of languages finds
		// the catalogs first, one copy per language, and nothing else
		// within the lists' depth: ask again without their folders.
		globs := catalogFlood(fused, e.opts.RerankDepth, parsed.Text, message)
		if len(globs) == 0 {
			break
		}
		lf.NotPath = append(slices.Clone(f.NotPath), globs...)
	}
	res.Lists = append(res.Lists, run.names...)
	res.Warnings = append(res.Warnings, run.warnings...)
	res.Dropped, res.AllCommon = run.dropped, run.allCommon
	// What the reranker is told besides the text (rescore, below).
	facts := queryFacts{phrases: whole, usage: usage, shingles: sh, idf: run.idf, message: message, sources: named}
	lists := run.lists
	e.spreadFileRanks(fused, lists)
	hits := dedupe(fused)
	hits, warn := e.rescore(withFacts(ctx, facts), parsed.Text, hits, k)
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	if e.opts.Reranker != nil {
		res.Reranker = e.opts.Reranker.Name()
	}
	// A pasted message that names a type ("bufio.Scanner: Read returned
	// impossible count") wants the code that writes it, not the type.
	if !usage && len(sh) == 0 && !strings.Contains(asked+" ", ": ") && !strings.ContainsAny(asked, `"'`+"`") {
		hits = promoteDeclaration(hits, asked, e.opts.RerankDepth)
	}
	hits = collapseCopies(hits, k)
	if len(pinned) > 0 {
		hits = pin(pinned, hits, k)
		res.Lists = append(pinnedLists, res.Lists...)
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	words, _ := queryWords(parsed.Text)
	for i := range hits {
		hits[i].Explain.Matched = matched(hits[i].Chunk, words)
	}
	res.Hits, res.Took = hits, time.Since(start)
	return res, nil
}

// weightsFor returns the fusion weights for a query whose lists ran as
// run. The shipped model's list weight was learned on questions that
// describe what code does (a doc comment asking for its declaration). Two
// kinds of query are not such questions, and no weight was learned for
// them: a pasted message (or a text the lexical lists' first hits hold
// word for word), and a query written wholly as code (os.ReadFile,
// ReadMIMEHeader). Their answer holds their very words, which only the
// lexical lists match exactly; there the dense list counts as one list,
// as it did before its weight was learned. A question for the callers of something (who calls
// ReadMIMEHeader) is answered by code that names it among other code,
// which a similarity search cannot tell from the thing itself and its
// look-alikes: there the dense list does not count.
func (e *Engine) weightsFor(asked string, message, usage bool, run listRun) map[string]float64 {
	w := e.opts.Weights
	if !e.learnedDense || w["dense"] == 0 || e.opts.NoBM25 {
		return w
	}
	dense := w["dense"]
	switch {
	case usage:
		dense = 0
	case message || identifierQuery(asked) || heldVerbatim(asked, run):
		dense = min(dense, 1)
	default:
		return w
	}
	out := maps.Clone(w)
	out["dense"] = dense
	return out
}

// heldVerbatim reports whether one of the first hits of the lexical lists
// holds the query's text as written (three words or more, case and
// spacing aside): a message copied from where the index holds it, which
// reads like a question ("invalid pattern syntax") but is found by its
// words.
func heldVerbatim(q string, run listRun) bool {
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	want := norm(q)
	if len(strings.Fields(want)) < 3 {
		return false
	}
	for i, l := range run.lists {
		if !strings.HasPrefix(run.names[i], "bm25-") {
			continue
		}
		for _, h := range l[:min(len(l), 5)] {
			if strings.Contains(norm(h.Chunk.Text), want) {
				return true
			}
		}
	}
	return false
}

// identifierQuery reports whether every content term of q is written as
// code: an identifier, a qualified name, a call.
func identifierQuery(q string) bool {
	n := 0
	for _, t := range Terms(q) {
		t, code := codeTerm(t)
		if t == "" || codetok.IsStopWord(strings.ToLower(t)) {
			continue
		}
		if !code {
			return false
		}
		n++
	}
	return n > 0
}

// relabel names the list hits came from: a list that runs another's
// index under a name of its own.
func relabel(hits []core.Hit, list string) []core.Hit {
	for i := range hits {
		for j := range hits[i].Lists {
			hits[i].Lists[j].List = list
		}
	}
	return hits
}

// bm25 runs one BM25 list. A query estimated to match more than FocusFrom
// chunks searches the high-weight columns (symbol, path, scope) first and
// all columns only when that finds fewer than depth hits: FTS5 scores
// every match.
func (e *Engine) bm25(ctx context.Context, index, match string, estimate, depth int, f core.Filter) ([]core.Hit, error) {
	var hits []core.Hit
	var err error
	if estimate > e.opts.FocusFrom {
		hits, err = e.idx.BM25(ctx, index, "{symbol_name file_path context_prefix} : ("+match+")", depth, f)
	}
	if err == nil && len(hits) < depth {
		hits, err = e.idx.BM25(ctx, index, match, depth, f)
	}
	return hits, err
}

// dense embeds the query and runs KNN; an embedder that has a second
// stage (embed.Rescorer: the shipped static model) orders the nearest
// hits again. A query the embedder cannot embed (a server that is down,
// words the built-in model never saw) gives a warning, not an error: BM25
// still answers.
func (e *Engine) dense(ctx context.Context, text string, vector func() ([][]float32, error), depth int, f core.Filter) ([]core.Hit, string, error) {
	vecs, err := vector()
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, fmt.Sprintf("dense search skipped: %v", err), nil
	}
	if len(vecs) != 1 || vecs[0] == nil {
		return nil, "dense search skipped: the embedder knows none of the query's words", nil
	}
	hits, err := e.idx.KNN(ctx, vecs[0], depth, f)
	if errors.Is(err, core.ErrVectorsReplaced) {
		return nil, "dense search skipped: " + core.ErrVectorsReplaced.Error(), nil
	}
	if rs, ok := e.opts.Embedder.(embed.Rescorer); ok && err == nil {
		err = rescoreDense(ctx, rs, text, hits)
	}
	return hits, "", err
}

// rescoreDense orders the first embed.RescoreDepth dense hits by rs's
// scores (each hit's list score becomes its score there); the rest keep
// their order after them, and every hit's rank is its new place.
func rescoreDense(ctx context.Context, rs embed.Rescorer, query string, hits []core.Hit) error {
	top := hits[:min(len(hits), embed.RescoreDepth)]
	docs := make([]string, len(top))
	first := make([]float64, len(top))
	for i, h := range top {
		docs[i] = embed.DocumentText(embed.Pending{ContextPrefix: h.Chunk.ContextPrefix, Text: h.Chunk.Text})
		first[i] = h.Score // the cosine the vector search found
	}
	scores, err := rs.Rescore(ctx, query, docs, first)
	if err != nil {
		return fmt.Errorf("dense list, second stage: %w", err)
	}
	for i := range top {
		top[i].Score = scores[i]
	}
	sort.SliceStable(top, func(i, j int) bool { return top[i].Score > top[j].Score })
	for i := range hits {
		for j := range hits[i].Lists {
			if hits[i].Lists[j].List == "dense" {
				hits[i].Lists[j].Rank, hits[i].Lists[j].Score = i+1, hits[i].Score
			}
		}
	}
	return nil
}

func mergeFilters(a, b core.Filter) core.Filter {
	a.Corpus = append(a.Corpus[:len(a.Corpus):len(a.Corpus)], b.Corpus...)
	a.Repo = append(a.Repo[:len(a.Repo):len(a.Repo)], b.Repo...)
	a.Language = append(a.Language[:len(a.Language):len(a.Language)], b.Language...)
	a.Service = append(a.Service[:len(a.Service):len(a.Service)], b.Service...)
	a.Path = append(a.Path[:len(a.Path):len(a.Path)], b.Path...)
	a.NotPath = append(a.NotPath[:len(a.NotPath):len(a.NotPath)], b.NotPath...)
	return a
}

// spreadFileRanks gives every fused chunk of a file the file list ranks
// (the list names one chunk per file: the whole file's evidence counts for
// each of its chunks) and sorts the hits again.
func (e *Engine) spreadFileRanks(hits []core.Hit, lists [][]core.Hit) {
	rank := map[string]core.ListRank{}
	for _, list := range lists {
		for _, h := range list {
			for _, lr := range h.Lists {
				if lr.List == "bm25-file" && !strings.HasPrefix(string(h.Chunk.Corpus), "CONVO_") {
					rank[h.Chunk.RepoName+"\x00"+h.Chunk.FilePath] = lr
				}
			}
		}
	}
	if len(rank) == 0 {
		return
	}
	w, ok := e.opts.Weights["bm25-file"]
	if !ok {
		w = 1
	}
	for i := range hits {
		h := &hits[i]
		lr, ok := rank[h.Chunk.RepoName+"\x00"+h.Chunk.FilePath]
		if !ok || strings.HasPrefix(string(h.Chunk.Corpus), "CONVO_") {
			continue
		}
		has := false
		for _, x := range h.Lists {
			has = has || x.List == "bm25-file"
		}
		if !has {
			h.Score += w / float64(e.opts.RRFK+lr.Rank)
			h.Explain.Fused = h.Score
			h.Lists = append(h.Lists, lr)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Chunk.ID < hits[j].Chunk.ID
	})
}

// dedupe drops a hit whose lines overlap a better hit of the same file
// (a sliding window and the function inside it, a thread and its reply
// window): the better one stands for both.
func dedupe(hits []core.Hit) []core.Hit {
	type span struct{ lo, hi int }
	kept := map[string][]span{}
	out := hits[:0:0]
	for _, h := range hits {
		c := h.Chunk
		key := c.RepoName + "\x00" + c.FilePath
		overlap := false
		if c.FilePath != "" && c.LineEnd > 0 {
			for _, s := range kept[key] {
				if c.LineStart <= s.hi && s.lo <= c.LineEnd {
					overlap = true
					break
				}
			}
		}
		if overlap {
			continue
		}
		kept[key] = append(kept[key], span{c.LineStart, c.LineEnd})
		out = append(out, h)
	}
	return out
}

// matched lists the query words found in c (body, symbol, path, context).
func matched(c core.Chunk, words []string) []string {
	have := set(codetok.Words(c.SymbolName + " " + c.FilePath + " " + c.ContextPrefix + " " + c.Text))
	out := []string{}
	for _, w := range words {
		if have[w] {
			out = append(out, w)
		}
	}
	return out
}

// termPlan is how one query term is searched.
type termPlan struct {
	text string
	// identifier: the term is one compound identifier (getUserProfile,
	// trace_item_address0); it is searched in the code index only.
	identifier bool
	// phrase adds, in the code index, a phrase of the term's subwords to
	// the lookup of its whole identifier token, so that a partial
	// identifier finds the longer ones (UserProfile finds getUserProfile
	// by "user profile").
	phrase []string
	// name is the last part of a qualified name (os.ReadFile: ReadFile),
	// searched beside the whole: a definition says ReadFile, only its
	// callers say os.ReadFile.
	name string
	// qualifier is the part before the name (os, OrderRepo): declarations
	// under its path or scope come first.
	qualifier string
}

// queryPlan is how a whole query is searched.
type queryPlan struct {
	terms    []termPlan
	dropped  []string
	and      bool
	estimate int // chunks the query may match, from document frequencies
	// idf are the inverse document frequencies of the query's words.
	idf map[string]float64
	// synonyms are the synonyms of the query's words worth a list (see
	// plan).
	synonyms []string
}

// plan decides how to search each term. An identifier is looked up by its
// whole token; its subword phrase is added when no subword is a stop word
// and, in a large index, the rarest subword is not common. In an index of
// PruneFrom chunks or more, terms found in more than CommonShare of the
// chunks are dropped when rarer terms remain (stop words count as common);
// when every term is that common, all are kept and AND-ed. Of synonyms,
// it keeps those the index holds and, in such an index, no more common
// than that.
func (e *Engine) plan(ctx context.Context, terms, synonyms []string) (queryPlan, error) {
	var qp queryPlan
	words := make([][]string, len(terms))
	whole := make([][]string, len(terms))
	var all []string
	for i, t := range terms {
		words[i] = codetok.Words(t)
		for _, q := range codetok.QueryTokens(t) {
			whole[i] = append(whole[i], q.Text)
		}
		all = append(all, words[i]...)
		all = append(all, whole[i]...)
	}
	total, df, err := e.idx.TermDocs(ctx, append(all, synonyms...))
	if err != nil {
		return qp, err
	}
	qp.idf = map[string]float64{}
	for _, ws := range words {
		for _, w := range ws {
			n := float64(df[w])
			qp.idf[w] = math.Log(1 + (float64(total)-n+0.5)/(n+0.5))
		}
	}
	large := total >= e.opts.PruneFrom
	limit := int(e.opts.CommonShare * float64(total))
	for _, w := range synonyms {
		if n := df[w]; n > 0 && (!large || n <= limit) {
			qp.synonyms = append(qp.synonyms, w)
		}
	}
	rare := func(ws []string) bool { // a phrase is no more frequent than its rarest word
		for _, w := range ws {
			if df[w] <= limit {
				return true
			}
		}
		return false
	}
	// freq estimates how many chunks a term matches.
	freq := func(i int) int {
		if len(whole[i]) == 0 {
			return 0
		}
		n := total
		for _, w := range whole[i] {
			n = min(n, df[w])
		}
		return n
	}
	var common []termPlan
	commonEst := total
	for i, t := range terms {
		p := termPlan{text: t, identifier: len(whole[i]) == 1 && len(words[i]) >= 2}
		p.qualifier, p.name = qualified(t)
		if p.identifier && (!large || rare(words[i])) {
			p.phrase = words[i]
			for _, w := range words[i] {
				if codetok.IsStopWord(w) {
					p.phrase = nil
				}
			}
		}
		isCommon := large && len(terms) > 1 && (len(whole[i]) == 0 && hasLetter(t) || len(whole[i]) > 0 && !rare(whole[i]))
		if isCommon {
			common = append(common, p)
			qp.dropped = append(qp.dropped, t)
			if len(whole[i]) > 0 {
				commonEst = min(commonEst, freq(i))
			}
		} else {
			qp.terms = append(qp.terms, p)
			qp.estimate += freq(i)
		}
	}
	if len(qp.terms) == 0 {
		return queryPlan{terms: common, and: true, estimate: commonEst, idf: qp.idf, synonyms: qp.synonyms}, nil
	}
	return qp, nil
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// Fuse merges ranked lists with weighted reciprocal rank fusion: a hit
// scores the sum over lists of weight/(rrfk + rank). Hits are identified by
// chunk id; each fused hit keeps the ListRank of every list it came from.
// Ties are broken by chunk id so that the order is stable.
func Fuse(rrfk int, weights map[string]float64, lists ...[]core.Hit) []core.Hit {
	byID := map[string]*core.Hit{}
	var order []string
	for _, list := range lists {
		for _, h := range list {
			for _, lr := range h.Lists {
				w, ok := weights[lr.List]
				if !ok {
					w = 1
				}
				f, seen := byID[h.Chunk.ID]
				if !seen {
					c := h
					c.Score = 0
					c.Lists = nil
					f = &c
					byID[h.Chunk.ID] = f
					order = append(order, h.Chunk.ID)
				}
				f.Score += w / float64(rrfk+lr.Rank)
				f.Explain.Fused = f.Score
				f.Lists = append(f.Lists, lr)
			}
		}
	}
	out := make([]core.Hit, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Chunk.ID < out[j].Chunk.ID
	})
	return out
}

// Terms splits user text into search terms: double-quoted phrases stay
// whole, everything else splits on white space. An unbalanced quote runs to
// the end of the text. Control characters count as white space. Chinese,
// Japanese and Korean, written without spaces between words, give a term
// per pair of adjacent characters (the code tokenizer's bigrams), so that
// a question meets the texts holding some of its words, not only those
// holding it whole; what else a word holds is a term of its own.
func Terms(text string) []string {
	var terms []string
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, text)
	for {
		text = strings.TrimLeftFunc(text, unicode.IsSpace)
		if text == "" {
			return terms
		}
		if text[0] == '"' {
			end := strings.IndexByte(text[1:], '"')
			if end < 0 {
				terms = append(terms, text[1:])
				return terms
			}
			terms = append(terms, text[1:1+end])
			text = text[end+2:]
			continue
		}
		end := strings.IndexFunc(text, unicode.IsSpace)
		if end < 0 {
			end = len(text)
		}
		terms = appendCJKSplit(terms, text[:end])
		text = text[end:]
	}
}

// appendCJKSplit appends w to terms, or, when w holds CJK characters
// (codetok.IsCJK), its other runs and its CJK runs' bigrams, in order.
func appendCJKSplit(terms []string, w string) []string {
	if !strings.ContainsFunc(w, codetok.IsCJK) {
		return append(terms, w)
	}
	for w != "" {
		i := strings.IndexFunc(w, codetok.IsCJK)
		if i < 0 {
			return append(terms, w)
		}
		if i > 0 {
			terms = append(terms, w[:i])
		}
		w = w[i:]
		end := strings.IndexFunc(w, func(r rune) bool { return !codetok.IsCJK(r) })
		if end < 0 {
			end = len(w)
		}
		run := []rune(w[:end])
		if len(run) == 1 {
			terms = append(terms, string(run))
		}
		for k := 0; k+1 < len(run); k++ {
			terms = append(terms, string(run[k:k+2]))
		}
		w = w[end:]
	}
	return terms
}

// MatchExpr turns free user text into an FTS5 MATCH expression for the
// "code" or "prose" index, without the statistics-driven planning of
// Engine.Search: every term becomes a quoted FTS5 string (so that
// http.Get, user-profile, NEAR, *, and stray quotes are literal text),
// terms that the index's tokenizer would reduce to nothing are dropped,
// and the rest are OR-ed so that BM25 ranks chunks matching more terms
// higher. It returns "" when nothing searchable is left.
func MatchExpr(text, index string) string {
	var plans []termPlan
	for _, t := range Terms(text) {
		plans = append(plans, termPlan{text: t})
	}
	return matchTerms(plans, index, false)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// matchTerms builds the expression for the planned terms, joined with OR
// (or AND).
func matchTerms(plans []termPlan, index string, and bool) string {
	var parts []string
	for _, p := range plans {
		if !searchable(p.text, index) || index == "prose" && p.identifier {
			continue
		}
		part := quote(p.text)
		if index == "code" && len(p.phrase) > 0 {
			part = "(" + part + " OR " + quote(strings.Join(p.phrase, " ")) + ")"
		}
		if p.name != "" {
			part = "(" + part + " OR " + quote(p.name) + ")"
		}
		parts = append(parts, part)
	}
	op := " OR "
	if and {
		op = " AND "
	}
	return strings.Join(parts, op)
}

// QualifiedName returns the last part of a term written as a qualified
// code name — package, type or module, then the name: os.ReadFile,
// http.MaxBytesReader, Cart::Checkout, std::fs::read — or "" for anything
// else, a file's name (nginx.conf, app.py) included. Trailing punctuation
// and call parentheses are ignored ("os.ReadFile()?").
func QualifiedName(t string) string {
	_, name := qualified(t)
	return name
}

// qualified splits a qualified code name into its qualifier's last part
// and its name (std::fs::read: fs, read); both are "" when t is not one
// (see QualifiedName).
func qualified(t string) (qualifier, name string) {
	t = bareName(t)
	parts := strings.FieldsFunc(t, func(r rune) bool { return r == '.' || r == ':' || r == '#' })
	if len(parts) < 2 || strings.Contains(t, ":::") || strings.HasPrefix(t, ".") || strings.HasSuffix(t, ".") {
		return "", ""
	}
	for _, p := range parts {
		if !codeName(p) {
			return "", ""
		}
	}
	last := parts[len(parts)-1]
	if len(last) < 2 || last == strings.ToLower(last) && (discover.KnownExtension("."+last) || topLevelDomains[last]) {
		return "", "" // a file's name (nginx.conf) or a host's (events.contoso.net)
	}
	return parts[len(parts)-2], last
}

// bareName is a term written as a name without the punctuation and call
// parentheses around it in a sentence ("os.ReadFile()?": os.ReadFile).
func bareName(t string) string {
	return strings.TrimSuffix(strings.TrimRight(t, ",;:!?'\")"), "(")
}

// topLevelDomains end host names, which look like qualified names.
var topLevelDomains = map[string]bool{
	"com": true, "net": true, "org": true, "io": true, "dev": true, "app": true, "cloud": true, "ai": true,
	"local": true, "internal": true, "svc": true, "cluster": true, "localhost": true, "gov": true, "edu": true,
}

// wholePhrases are text as one phrase when it can be a message copied
// from a log or an error (three words or more, none of them quoted) —
// and, from four words, without its first or its last word, which a log
// line adds ("error: ...", "... (exit 1)") — else nil. The full text is
// searched; the shorter ones count only where no candidate holds it.
// maxShingles is how many of a message's three-word runs are searched.
const maxShingles = 8

// shingles returns the runs of three consecutive words (letters and
// digits, lower-cased) of a text of four words or more, at most
// maxShingles of them spread over it: a message as logged, its values
// filled in ("dial tcp 10.0.3.17:6379: connection refused"), shares
// these with the format string that wrote it ("dial tcp %s: %v") where
// the whole text is found nowhere. Runs with a number are left out (a
// value, more often than not), and so are runs of one word besides
// articles and prepositions ("in the cart"). Only a text that reads as
// logged has them: one with a value (a number, a quoted string) or a
// colon after a word, and no question — a question's or a description's
// word runs are the asker's, not text the code writes.
func shingles(text string) []string {
	if !messageSigns(text) {
		return nil
	}
	ws := strings.Fields(alnumWords(text))
	if len(ws) < 4 || askWords[ws[0]] {
		return nil
	}
	var all []string
	seen := map[string]bool{}
	for i := 0; i+3 <= len(ws); i++ {
		run := ws[i : i+3]
		if slices.ContainsFunc(run, hasDigit) || contentWords(run) < 2 {
			continue
		}
		s := strings.Join(run, " ")
		if !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	if len(all) <= maxShingles {
		return all
	}
	out := make([]string, 0, maxShingles)
	for i := range maxShingles {
		out = append(out, all[i*len(all)/maxShingles])
	}
	return out
}

// alnumWords is text lower-cased with every run of other characters one
// space, so that shingles compare words alone.
func alnumWords(text string) string {
	var b strings.Builder
	space := true
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return b.String()
}

// askWords begin a question.
var askWords = map[string]bool{"what": true, "where": true, "when": true, "why": true, "how": true, "which": true, "who": true,
	"is": true, "are": true, "does": true, "do": true, "did": true, "can": true, "could": true, "should": true, "would": true, "will": true}

// messageSigns reports whether text reads as a message a program wrote:
// no question mark, and a quoted string or a colon closing a word ("read
// config: open ..."), or, unless a question word begins it ("why does
// the proxy return 503"), a value (a word with a digit, an absolute path,
// a URL, a key=value).
func messageSigns(text string) bool {
	if strings.Contains(text, "?") {
		return false
	}
	if hasQuote(text) || strings.Contains(text+" ", ": ") {
		return true
	}
	ws := strings.Fields(text)
	if len(ws) > 0 && askWords[strings.ToLower(ws[0])] {
		return false
	}
	return slices.ContainsFunc(ws, func(w string) bool {
		return hasDigit(w) || strings.HasPrefix(w, "/") || strings.Contains(w, "://") ||
			strings.Contains(strings.Trim(w, "="), "=")
	})
}

// hasQuote reports whether text quotes something: a quotation mark or
// backquote, or an apostrophe not between two letters (doesn't is no
// quote).
func hasQuote(text string) bool {
	if strings.ContainsAny(text, `"`+"`") {
		return true
	}
	rs := []rune(text)
	for i, r := range rs {
		if r == '\'' && !(i > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i-1]) && unicode.IsLetter(rs[i+1])) {
			return true
		}
	}
	return false
}

// contentWords counts the words that are not question words (articles,
// prepositions, pronouns, auxiliaries).
func contentWords(ws []string) int {
	n := 0
	for _, w := range ws {
		if !questionWords[w] {
			n++
		}
	}
	return n
}

func hasDigit(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

// maxQueryTerms is how many distinct terms of a long text are searched.
const maxQueryTerms = 64

// condense returns the terms of a text with more than maxQueryTerms of
// them that tell most, each once, in the text's order, and true: words
// before values (numbers, addresses, timestamps: a quarter at most), the
// ones the text repeats most first; the text itself and false when it is
// short.
func condense(text string) (string, bool) {
	ts := Terms(text)
	if len(ts) <= maxQueryTerms {
		return text, false
	}
	type term struct {
		text         string
		first, count int
		word         bool
	}
	byKey := map[string]*term{}
	var all []*term
	for i, t := range ts {
		k := strings.ToLower(t)
		if tm, ok := byKey[k]; ok {
			tm.count++
			continue
		}
		tm := &term{text: t, first: i, count: 1, word: strings.ContainsFunc(t, unicode.IsLetter) && !hasDigit(t)}
		byKey[k] = tm
		all = append(all, tm)
	}
	// Words first, the most repeated first; values (a log's addresses,
	// IDs and times) fill a quarter at most.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].word != all[j].word {
			return all[i].word
		}
		return all[i].count > all[j].count
	})
	kept, values := 0, 0
	for _, tm := range all {
		if kept == maxQueryTerms {
			break
		}
		if !tm.word {
			if values == maxQueryTerms/4 {
				break
			}
			values++
		}
		kept++
	}
	all = all[:kept]
	sort.SliceStable(all, func(i, j int) bool { return all[i].first < all[j].first })
	out := make([]string, len(all))
	for i, tm := range all {
		out[i] = tm.text
		if strings.ContainsFunc(tm.text, unicode.IsSpace) {
			out[i] = quote(tm.text)
		}
	}
	return strings.Join(out, " "), true
}

func wholePhrases(text string) []string {
	if strings.Contains(text, `"`) {
		return nil
	}
	ts := Terms(text)
	if len(ts) < 3 {
		return nil
	}
	out := []string{strings.Join(ts, " ")}
	if len(ts) >= 4 {
		out = append(out, strings.Join(ts[1:], " "), strings.Join(ts[:len(ts)-1], " "))
	}
	return out
}

// definitions is how the declarations of the qualified names a query
// holds are found.
type definitions struct {
	// queries are code-index matches: first the declarations under their
	// qualifier ({symbol_name}: ReadFile AND {file_path context_prefix}:
	// os), then any of that name.
	queries []string
	names   map[string]bool // the names, normalized (normIdent)
}

// declares reports whether a chunk's symbol (or one of a group's symbols)
// is one of the names, in any naming convention.
func (d definitions) declares(symbol string) bool {
	for _, s := range symbolNames(symbol) {
		if d.names[s] {
			return true
		}
	}
	return false
}

// definitionQueries returns how to find the declarations of the qualified
// names among terms (no queries without one).
func definitionQueries(terms []termPlan) definitions {
	var strict, loose []string
	d := definitions{names: map[string]bool{}}
	for _, t := range terms {
		if t.name == "" {
			continue
		}
		d.names[normIdent(t.name)] = true
		name := "{symbol_name} : " + quote(t.name)
		loose = append(loose, name)
		strict = append(strict, "("+name+" AND {file_path context_prefix} : "+quote(t.qualifier)+")")
	}
	if len(loose) > 0 {
		d.queries = []string{strings.Join(strict, " OR "), strings.Join(loose, " OR ")}
	}
	return d
}

// codeName reports whether s is one name as code writes it: letters,
// digits and underscores, not starting with a digit.
func codeName(s string) bool {
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// searchable reports whether term gives the index any token to look up.
func searchable(term, index string) bool {
	if index == "code" {
		return len(codetok.Words(term)) > 0
	}
	// The prose index (unicode61) reads a run of CJK characters as one
	// word: a pair of them (Terms' bigrams) meets only a run of two.
	if strings.ContainsFunc(term, codetok.IsCJK) {
		return false
	}
	for _, r := range term {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
