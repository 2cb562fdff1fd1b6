// Package pack builds context packs: the best evidence for a question,
// packed into a token budget for a language model (seed 004's
// <codeRag:chunk> format, Markdown or JSON). Chunks of one file are
// merged in file order under one header; a chunk that does not fit whole
// keeps its signature and the lines that match the question, the rest
// elided with ". . ."; forced items (a whole file, a whole declaration)
// come first; the services the evidence belongs to follow with their
// neighbours, routes and, when the question asks what breaks, their
// blast radius. What did not fit is listed as dropped.
package pack

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/internal/lazyre"
	"coderag/core/mention"
	"coderag/core/search"
)

// DefaultBudget is the token budget of a pack unless Options say otherwise.
const DefaultBudget = 8000

// Searcher runs a query; *search.Engine is one.
type Searcher interface {
	Search(ctx context.Context, q search.Query) (search.Result, error)
}

// Store fetches what boost directives force into a pack; sqlite.DB is one.
type Store interface {
	// FileChunks returns the chunks of the files whose path is p or ends
	// in "/"+p, in file order.
	FileChunks(ctx context.Context, p string, k int) ([]core.Chunk, error)
	// SymbolChunks returns the chunks of the declaration named name (and
	// of its members, when it was cut into several), in file order.
	SymbolChunks(ctx context.Context, name string, k int) ([]core.Chunk, error)
	// RefTargets returns, for each chunk, the chunks defining the names it
	// calls or refers to, leaving out names more than maxDefs chunks
	// declare.
	RefTargets(ctx context.Context, chunkIDs []string, maxDefs int) (map[string][]core.Chunk, error)
	// Chunk returns the chunk with the given id.
	Chunk(ctx context.Context, id string) (core.Chunk, error)
}

// Options configure a pack. The zero value packs 8,000 tokens from the
// best 40 hits.
type Options struct {
	// Budget is the most tokens (core.EstimateTokens) the rendered pack
	// may take; default DefaultBudget.
	Budget int
	// Format is what the budget is measured in: "xml" (default),
	// "markdown" or "json".
	Format string
	// Candidates is how many search hits are considered (default 40).
	Candidates int
	// Include names files to include whole (include:README.md), Symbols
	// declarations (symbol:CartStore); both come first. Prefer are path
	// globs whose hits rank first among the others (prefer:src/auth/**).
	Include, Symbols, Prefer []string
	// NoServices leaves the services block out.
	NoServices bool
	// Follow is how much the references of the hits count (personalized
	// PageRank over calls and type references, seeded by the hits' scores;
	// the damping factor): 0 ranks by the search alone, 1 by references
	// alone. Negative means DefaultFollow.
	Follow float64
}

// DefaultFollow is Options.Follow unless set: references lift a chunk
// that several hits call past hits that only match words.
const DefaultFollow = 0.3

// Pack is a packed context.
type Pack struct {
	Query  string
	Budget int
	// Used is the estimated tokens of the rendered pack (at most Budget).
	Used   int
	Format string
	// Diff is the change a PR context pack is about, as a unified diff.
	Diff     string
	Files    []File
	Services []Service
	Dropped  []Dropped
	// shown is how many of Dropped the text formats list (the rest are
	// counted); as many as the budget leaves room for.
	shown int
	// order are the ids of the pieces in the order they were added.
	order []string
	// Warnings say what part of the search could not run.
	Warnings []string
}

// File is the evidence of one file, its pieces in line order.
type File struct {
	Repo, Path, Corpus, Language, Service string
	Pieces                                []Piece
}

// Piece is one chunk in a pack, whole or elided.
type Piece struct {
	Chunk core.Chunk
	Score float64
	// Forced: a boost directive asked for it (include:, symbol:).
	Forced bool
	// Elided is true when Text leaves lines out (". . ." stands for them).
	Elided bool
	Text   string
	// Duplicates are other files holding the same passage, not packed.
	Duplicates []string
	// Why says why the search put it first: a pasted trace's frame, the
	// route a pasted request is served by, its handler, the declaration
	// of the qualified name asked about ("" for none).
	Why string
}

// pinnedWhy is a pinned hit's reason with the line it is about.
func pinnedWhy(e core.Explain) string {
	why := e.Pinned()
	if why != "" && e.RouteLine > 0 {
		why += fmt.Sprintf(" (line %d)", e.RouteLine)
	}
	return why
}

// Service is a service the evidence belongs to, with its neighbours.
type Service struct {
	Name       string
	Upstream   []string // "checkout (http GET /api/cart/{userId})": who depends on it
	Downstream []string // what it depends on
	Routes     []string // "GET /api/cart/{userId} GetCart": what it serves
	// BlastRadius is what breaks when it is down, when the question asks.
	BlastRadius []string
	// Callers are the calls of routes a change touches, from other
	// services, with their evidence lines (PR context).
	Callers []string
}

// Dropped is an item left out, and why.
type Dropped struct {
	ChunkID, Location, Reason string
}

// withDefaults fills in what the zero value leaves open.
func (o Options) withDefaults() Options {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.Candidates <= 0 {
		o.Candidates = 40
	}
	if o.Format == "" {
		o.Format = "xml"
	}
	return o
}

// elision is the line that stands for left-out lines.
const elision = ". . ."

// Build searches for query, then packs the best evidence into the budget.
// g may be nil (no services block).
func Build(ctx context.Context, s Searcher, st Store, g *graph.Graph, query string, o Options) (Pack, error) {
	o = o.withDefaults()
	p := Pack{Query: query, Budget: o.Budget, Format: o.Format}
	var forced []Piece
	seen := map[string]bool{}
	force := func(name, what string, fetch func(context.Context, string, int) ([]core.Chunk, error), k int) error {
		cs, err := fetch(ctx, name, k)
		if err != nil {
			return err
		}
		if len(cs) == 0 {
			p.Dropped = append(p.Dropped, Dropped{Location: name, Reason: what})
		}
		for _, c := range cs {
			if !seen[c.ID] {
				seen[c.ID] = true
				forced = append(forced, Piece{Chunk: c, Forced: true})
			}
		}
		return nil
	}
	for _, inc := range o.Include {
		if err := force(inc, "include: no such file in the index", st.FileChunks, 2000); err != nil {
			return p, err
		}
	}
	for _, sym := range o.Symbols {
		if err := force(sym, "symbol: no such declaration in the index", st.SymbolChunks, 200); err != nil {
			return p, err
		}
	}
	var hits []core.Hit
	var words []string
	if strings.TrimSpace(query) != "" {
		res, err := s.Search(ctx, search.Query{Text: query, K: o.Candidates})
		if err != nil {
			return p, err
		}
		// The same passage from another file is packed once.
		hits, p.Warnings = search.Collapse(res.Hits), res.Warnings
		words = search.Terms(res.Text)
	}
	var ranked []Piece
	for _, h := range hits {
		if seen[h.Chunk.ID] {
			continue
		}
		seen[h.Chunk.ID] = true
		ranked = append(ranked, Piece{Chunk: h.Chunk, Score: h.Score, Duplicates: h.Explain.Duplicates, Why: pinnedWhy(h.Explain)})
	}
	if o.Follow < 0 {
		o.Follow = DefaultFollow
	}
	if o.Follow > 0 && len(ranked) > 0 {
		var err error
		if ranked, err = follow(ctx, st, g, ranked, seen, min(o.Follow, 1)); err != nil {
			return p, err
		}
	}
	if len(o.Prefer) > 0 {
		// prefer: globs mean what path: filters mean.
		var match []func(string) bool
		for _, g := range o.Prefer {
			m, err := search.PathMatcher(g)
			if err != nil {
				return p, fmt.Errorf("prefer:%s: %w", g, err)
			}
			match = append(match, m)
		}
		sort.SliceStable(ranked, func(i, j int) bool {
			return preferred(ranked[i].Chunk.FilePath, match) && !preferred(ranked[j].Chunk.FilePath, match)
		})
	}
	if g != nil && !o.NoServices {
		p.Services = services(g, append(append([]Piece{}, forced...), ranked...), query)
	}
	return p.fill(forced, ranked, words)
}

// fill packs the forced pieces, then the ranked ones: each whole if the
// rendered pack still fits, else elided to the lines holding words, else
// dropped. The services block (as many services as fit a quarter of the
// budget) is measured with the files, so the budget holds for the whole
// output.
func (p *Pack) fill(forced, ranked []Piece, words []string) (Pack, error) {
	// The services block may take a quarter of the budget, a service at
	// a time; the evidence comes first.
	all := p.Services
	p.Services = nil
	for _, sv := range all {
		p.Services = append(p.Services, sv)
		if p.tokens() > p.Budget/4 {
			p.Services = p.Services[:len(p.Services)-1]
			break
		}
	}
	if len(p.Services) == 0 {
		p.Services = nil
	}
	for _, it := range append(forced, ranked...) {
		it.Text = it.Chunk.Text
		if p.add(it) {
			continue
		}
		added := false
		for level := 0; level < 3 && !added; level++ {
			if el, ok := elide(it.Chunk, words, level); ok {
				it.Text, it.Elided = el, true
				added = p.add(it)
			}
		}
		if added {
			continue
		}
		p.Dropped = append(p.Dropped, Dropped{ChunkID: it.Chunk.ID, Location: it.Chunk.Location(), Reason: "budget"})
	}
	// Later drops lengthen the dropped count: make the whole fit again,
	// taking out the last pieces added, then the services block.
	for p.tokens() > p.Budget {
		if p.removeLast() {
			continue
		}
		if p.Services == nil {
			break
		}
		p.Services = nil
	}
	// Name as many dropped items as still fit; the others are counted.
	for p.shown < len(p.Dropped) {
		p.shown++
		if p.tokens() > p.Budget {
			p.shown--
			break
		}
	}
	p.Used = p.tokens()
	// The pack states Used: settle it on the size of the pack that states
	// it (a shorter number can make the pack a token shorter).
	for range 3 {
		n := core.EstimateTokens(p.Render())
		if n == p.Used {
			break
		}
		p.Used = n
	}
	if p.Used > p.Budget {
		return *p, fmt.Errorf("context pack: a budget of %d tokens is too small even for the pack's frame (%d tokens)", p.Budget, p.Used)
	}
	return *p, nil
}

// removeLast takes the piece added last out of the pack and lists it as
// dropped; false when the pack holds none.
func (p *Pack) removeLast() bool {
	if len(p.order) == 0 {
		return false
	}
	id := p.order[len(p.order)-1]
	p.order = p.order[:len(p.order)-1]
	for i := range p.Files {
		f := &p.Files[i]
		for k, pc := range f.Pieces {
			if pc.Chunk.ID != id {
				continue
			}
			f.Pieces = append(f.Pieces[:k], f.Pieces[k+1:]...)
			if len(f.Pieces) == 0 {
				p.Files = append(p.Files[:i], p.Files[i+1:]...)
			}
			p.Dropped = append(p.Dropped, Dropped{ChunkID: id, Location: pc.Chunk.Location(), Reason: "budget"})
			return true
		}
	}
	return false
}

// add puts a piece into its file's block when the rendered pack still
// fits the budget, and reports whether it did.
func (p *Pack) add(it Piece) bool {
	before := cloneFiles(p.Files)
	c := it.Chunk
	i := -1
	for k := range p.Files {
		if p.Files[k].Repo == c.RepoName && p.Files[k].Path == c.FilePath && c.Verbatim() && p.Files[k].Corpus == string(c.Corpus) {
			i = k
			break
		}
	}
	if i < 0 {
		p.Files = append(p.Files, File{Repo: c.RepoName, Path: c.FilePath, Corpus: string(c.Corpus), Language: c.Language, Service: c.ServiceName})
		i = len(p.Files) - 1
	}
	f := &p.Files[i]
	f.Pieces = append(f.Pieces, it)
	sort.SliceStable(f.Pieces, func(a, b int) bool { return f.Pieces[a].Chunk.LineStart < f.Pieces[b].Chunk.LineStart })
	if f.Service == "" {
		f.Service = c.ServiceName
	}
	if p.tokens() <= p.Budget {
		p.order = append(p.order, c.ID)
		return true
	}
	p.Files = before
	return false
}

func cloneFiles(fs []File) []File {
	out := make([]File, len(fs))
	for i, f := range fs {
		out[i] = f
		out[i].Pieces = append([]Piece(nil), f.Pieces...)
	}
	return out
}

// tokens is the estimated size of the pack rendered in its format, with
// Used at its widest (the budget), so that writing the real Used later
// cannot make the output longer than measured.
func (p *Pack) tokens() int {
	used := p.Used
	p.Used = p.Budget
	n := core.EstimateTokens(p.Render())
	p.Used = used
	return n
}

// Render writes the pack in its format.
func (p *Pack) Render() string {
	switch p.Format {
	case "markdown":
		return p.Markdown()
	case "json":
		return p.JSON()
	}
	return p.XML()
}

// routeHandlers maps each of the given chunks that is the evidence of a
// call to another service's route to the chunks of the handlers serving
// that route.
func routeHandlers(g *graph.Graph, ids []string) map[string][]string {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[string][]string{}
	for _, e := range g.Edges {
		for _, ev := range e.Evidence {
			if !want[ev.ChunkID] {
				continue
			}
			for _, r := range g.Routes {
				if r.Service == e.Target && r.Path == e.Path && (r.Method == e.Method || r.Method == "ANY") && r.ChunkID != "" &&
					!slices.Contains(out[ev.ChunkID], r.ChunkID) {
					out[ev.ChunkID] = append(out[ev.ChunkID], r.ChunkID)
				}
			}
		}
	}
	return out
}

// seeds is how many of the best hits personalize the walk.
const seeds = 10

// follow reranks the pieces by personalized PageRank over references: the
// walk restarts at one of the best hits (seeds) in proportion to its score
// and, with probability f, moves from it to a chunk defining a name it
// calls or refers to (one hop; names declared more than three times are
// not followed) or to the handler of another service's route it calls
// (the service graph's edges). Chunks the best hits reference rise, and join the
// candidates when the search did not find them; the other hits follow in
// the search's order.
func follow(ctx context.Context, st Store, g *graph.Graph, pieces []Piece, seen map[string]bool, f float64) ([]Piece, error) {
	idx := map[string]int{}
	for i, pc := range pieces {
		idx[pc.Chunk.ID] = i
	}
	ids := make([]string, min(len(pieces), seeds))
	for i := range ids {
		ids[i] = pieces[i].Chunk.ID
	}
	targets, err := st.RefTargets(ctx, ids, 3)
	if err != nil {
		return nil, err
	}
	// The service graph's edges too: a hit that calls another service's
	// route leads to the route's handler.
	if g != nil {
		for id, handlers := range routeHandlers(g, ids) {
			for _, hid := range handlers {
				if c, err := st.Chunk(ctx, hid); err == nil {
					targets[id] = append(targets[id], c)
				}
			}
		}
	}
	edges := make([][]int, len(pieces))
	for i, id := range ids {
		for _, c := range targets[id] {
			j, ok := idx[c.ID]
			if !ok {
				if seen[c.ID] {
					continue // forced already
				}
				j = len(pieces)
				idx[c.ID] = j
				pieces = append(pieces, Piece{Chunk: c})
				edges = append(edges, nil)
			}
			if j != i && !slices.Contains(edges[i], j) {
				edges[i] = append(edges[i], j)
			}
		}
	}
	n := len(pieces)
	restart := make([]float64, n)
	total := 0.0
	for i := range ids {
		restart[i] = max(pieces[i].Score, 1e-9)
		total += restart[i]
	}
	for i := range restart {
		restart[i] /= total
	}
	rank := append([]float64(nil), restart...)
	for iter := 0; iter < 30; iter++ {
		next := make([]float64, n)
		dangling := 0.0
		for i, r := range rank {
			if len(edges[i]) == 0 {
				dangling += r
				continue
			}
			share := f * r / float64(len(edges[i]))
			for _, j := range edges[i] {
				next[j] += share
			}
			dangling += (1 - f) * r // back to the hits, below
		}
		for i := range next {
			next[i] += dangling * restart[i]
		}
		rank = next
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rank[order[a]] > rank[order[b]] })
	out := make([]Piece, n)
	for k, i := range order {
		out[k] = pieces[i]
		out[k].Score = rank[i]
	}
	for _, pc := range out {
		seen[pc.Chunk.ID] = true
	}
	return out, nil
}

// preferred reports whether a path matches one of the matchers.
func preferred(p string, match []func(string) bool) bool {
	for _, m := range match {
		if m(p) {
			return true
		}
	}
	return false
}

// elide keeps what tells a chunk apart when it does not fit whole: its
// leading doc comment's first line, its signature line, the lines that
// hold a query word, and its last line; the rest becomes ". . .". Level 0
// keeps a line around each matching line, level 1 the matching lines
// alone, level 2 none of them (the signature and the ends only). It
// reports false when nothing would be left out.
func elide(c core.Chunk, words []string, level int) (string, bool) {
	lines := strings.Split(c.Text, "\n")
	if len(lines) < 4 {
		return "", false
	}
	keep := make([]bool, len(lines))
	sig := signatureLine(lines, c)
	keep[sig] = true
	for i := 0; i < sig; i++ { // the doc comment's first line that says something
		if wordy(lines[i]) {
			keep[i] = true
			break
		}
	}
	lower := make([]string, 0, len(words))
	for _, w := range words {
		if len(w) > 1 {
			lower = append(lower, strings.ToLower(w))
		}
	}
	around := 1 - level
	for i, l := range lines {
		if level == 2 {
			break
		}
		ll := strings.ToLower(l)
		for _, w := range lower {
			if strings.Contains(ll, w) {
				for k := max(i-around, 0); k <= min(i+around, len(lines)-1); k++ {
					keep[k] = true
				}
				break
			}
		}
	}
	keep[len(lines)-1] = true
	var out []string
	gap, left := false, 0
	for i, l := range lines {
		if keep[i] {
			if gap {
				out = append(out, elision)
				gap = false
			}
			out = append(out, l)
			continue
		}
		if strings.TrimSpace(l) != "" {
			left++
		}
		gap = true
	}
	if left == 0 {
		return "", false
	}
	return strings.Join(out, "\n"), true
}

// markupRE is comment markers and XML doc tags.
var markupRE = lazyre.New(`^[\s/*#"'-]+|<[^>]*>`)

// wordy reports whether a comment line holds words, not only markers and
// tags ("/// <summary>", "/**").
func wordy(l string) bool {
	letters := 0
	for _, r := range markupRE.ReplaceAllString(l, "") {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			letters++
		}
	}
	return letters >= 3
}

// commentLine matches a line that is a comment (or a decorator), not code.
var commentLine = lazyre.New(`^\s*(//|#|/\*|\*|"""|'''|@|--|<!--)`)

// signatureLine is the line of a chunk that declares it: the first line
// holding its symbol's last name, else the first line that is not a
// comment.
func signatureLine(lines []string, c core.Chunk) int {
	if name := c.SymbolName; name != "" {
		name = strings.TrimSpace(strings.Split(name, ",")[0])
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		for i, l := range lines {
			if strings.Contains(l, name) && !commentLine.MatchString(l) {
				return i
			}
		}
	}
	for i, l := range lines {
		if strings.TrimSpace(l) != "" && !commentLine.MatchString(l) {
			return i
		}
	}
	return 0
}

// breakWords are question words asking what a failure affects.
var breakWords = lazyre.New(`(?i)\b(break|breaks|broken|down|outage|blast|impact|impacted|affect|affected|affects|fail|fails|failing|depends? on)\b`)

// services describes the services the question names and those the best
// pieces belong to (three at most, unless the question names more): who
// depends on each, what it depends on, what it serves and, when the
// question asks what breaks, the blast radius of the services it names
// (or else of the first).
func services(g *graph.Graph, pieces []Piece, query string) []Service {
	var names []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) {
		if n := namedService(g, w); n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n) // a service the question names comes first
		}
	}
	named := len(names)
	for _, p := range pieces {
		if p.Chunk.ServiceName == "" {
			continue
		}
		// The chunk's service, or the one its chart deploys (a
		// subchart's files carry the subchart's name).
		s := g.Lookup(p.Chunk.ServiceName)
		if s == nil || s.Kind == graph.KindUnresolved || seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		names = append(names, s.Name)
	}
	names = names[:min(len(names), max(named, 3))]
	asks := breakWords.MatchString(query)
	ix := g.Index(0)
	var out []Service
	for i, n := range names {
		out = append(out, Describe(g, ix, n, asks && (i < named || named == 0 && i == 0)))
	}
	return out
}

// namedService returns the service a question's word names: its own
// name, or an alias of one service only (its folder, image or DNS name:
// "placement" for a placement-server whose code is in placement/) that is
// no word any text uses (api, worker, operator). Unresolved targets are no
// services.
func namedService(g *graph.Graph, w string) string {
	if s := g.Service(w); s != nil {
		if s.Kind == graph.KindUnresolved {
			return ""
		}
		return s.Name
	}
	if mention.Generic(w) {
		return ""
	}
	found := ""
	for _, s := range g.Services {
		if s.Kind == graph.KindUnresolved {
			continue
		}
		for _, a := range s.Aliases {
			if strings.EqualFold(a.Name, w) {
				if found != "" && found != s.Name {
					return "" // several services': it names none
				}
				found = s.Name
			}
		}
	}
	return found
}

// Describe gives a service's neighbours and routes, and its blast radius
// when blast is set, as a pack's services block lists them.
func Describe(g *graph.Graph, ix *graph.Index, n string, blast bool) Service {
	s := Service{Name: n}
	for _, e := range ix.Dependents(n) {
		s.Upstream = appendOnce(s.Upstream, fmt.Sprintf("%s (%s)", other(e, n), e.Label()))
	}
	// Known services first; targets nothing declares (an address computed
	// at run time) after them, a few named and the rest counted, so that
	// a service making many such calls does not spend the budget.
	var unresolved []string
	for _, e := range ix.Dependencies(n) {
		d := fmt.Sprintf("%s (%s)", other(e, n), e.Label())
		if t := g.Service(other(e, n)); t != nil && t.Kind == graph.KindUnresolved {
			unresolved = appendOnce(unresolved, d)
			continue
		}
		s.Downstream = appendOnce(s.Downstream, d)
	}
	const shownUnresolved = 4
	if len(unresolved) > shownUnresolved {
		unresolved = append(unresolved[:shownUnresolved], fmt.Sprintf("and %d more targets no deploy file names", len(unresolved)-shownUnresolved))
	}
	s.Downstream = append(s.Downstream, unresolved...)
	for _, r := range g.Contract(n) {
		route := strings.TrimSpace(r.Method + " " + r.Path)
		if r.Handler != "" {
			route += " " + r.Handler
		}
		s.Routes = appendOnce(s.Routes, route)
	}
	if blast {
		for _, h := range g.BlastRadius(n, 3, 0) {
			s.BlastRadius = appendOnce(s.BlastRadius, fmt.Sprintf("%s (depth %d, via %s)", h.Service, h.Depth, h.From))
		}
	}
	return s
}

// other is the service at the other end of an edge from n.
func other(e graph.Edge, n string) string {
	if e.Source == n {
		return e.Target
	}
	return e.Source
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
