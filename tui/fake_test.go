package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/search"
)

// The tests run the app on an in-memory index: a few chunks of a shop's
// services, their files, and a service graph. fakeIndex answers searches
// by counting query words in chunk text, which is enough to drive the UI.

var testNow = time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)

const cartStoreGo = `package cart

import (
	"context"
	"fmt"
)

// CartStore keeps carts in Redis.
type CartStore struct {
	rdb *redis.Client
}

// Get loads a user's cart; a Redis outage surfaces as ErrCartUnavailable.
func (s *CartStore) Get(ctx context.Context, userID string) (Cart, error) {
	raw, err := s.rdb.Get(ctx, "cart:"+userID).Bytes()
	if err != nil {
		return Cart{}, fmt.Errorf("get cart %s: %w", userID, ErrCartUnavailable)
	}
	return decode(raw)
}
`

var testChunks = []core.Chunk{
	{ID: "c1", RepoName: "platform", FilePath: "services/cart/store.go", LineStart: 13, LineEnd: 20, Corpus: core.CodeLogic,
		Language: "go", SymbolName: "CartStore.Get", ServiceName: "cart", ContextPrefix: "services/cart/store.go > CartStore > Get",
		Text: strings.Join(strings.Split(cartStoreGo, "\n")[12:20], "\n")},
	{ID: "r1", RepoName: "platform", FilePath: "docs/runbooks/cart-redis-outage.md", LineStart: 1, LineEnd: 9, Corpus: core.DocRunbook,
		Language: "markdown", ServiceName: "cart", ContextPrefix: "docs/runbooks/cart-redis-outage.md > # Cart / Redis outage",
		Text: "---\nservice: cart\n---\n# Cart / Redis outage\n\nSymptoms: checkout answers **502**, cart logs show `RedisConnectionException`.\n\n1. Check `redis` memory: `kubectl top pod -l app=redis`\n2. Restart cart."},
	{ID: "s1", RepoName: "acme-slack", FilePath: "incidents/2024-03-14.json", Corpus: core.ConvoSlack, Channel: "incidents",
		Author: "alice", Timestamp: "2024-03-14T14:02:00Z", ServiceName: "redis", LineStart: 1, LineEnd: 3,
		Text: "[2024-03-14 14:02] @alice: cart is throwing 502s, redis OOMKilled again?\n[14:05] @bob: yes, maxmemory hit; restarting redis and raising the limit to 2gb\n[14:20] @alice: recovered, writing the postmortem"},
	{ID: "d1", RepoName: "platform", FilePath: "deploy/k8s/cart.yaml", LineStart: 1, LineEnd: 6, Corpus: core.CodeDeploy,
		Language: "yaml", ServiceName: "cart", Text: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cart\nspec:\n  replicas: 3"},
}

var testFiles = map[string]string{
	"/src/platform/services/cart/store.go": cartStoreGo,
}

func testGraph() *graph.Graph {
	ev := func(id, file string, line int) []graph.Evidence {
		return []graph.Evidence{{ChunkID: id, Repo: "platform", File: file, Line: line}}
	}
	g := &graph.Graph{
		Services: []graph.Service{
			{Name: "cart", Kind: graph.KindService, Repo: "platform", Directory: "services/cart", Language: "go"},
			{Name: "checkout", Kind: graph.KindService, Repo: "platform", Directory: "services/checkout", Language: "go"},
			{Name: "redis", Kind: graph.KindCache},
			{Name: "storefront", Kind: graph.KindService, Repo: "storefront", Language: "typescript"},
			{Name: "?env:LEDGER_URL", Kind: graph.KindUnresolved},
		},
		Edges: []graph.Edge{
			{Source: "cart", Target: "redis", Type: graph.EdgeCache, Confidence: 0.9, Via: "env REDIS_URL", Evidence: ev("c1", "services/cart/store.go", 15)},
			{Source: "cart", Target: "?env:LEDGER_URL", Type: graph.EdgeHTTP, Method: "POST", Path: "/entries", Via: "env LEDGER_URL is set nowhere", Evidence: ev("c1", "services/cart/store.go", 21)},
			{Source: "checkout", Target: "cart", Type: graph.EdgeHTTP, Method: "GET", Path: "/api/cart/{userId}", Confidence: 0.9, Via: "literal", Evidence: ev("c1", "services/cart/store.go", 13)},
			{Source: "storefront", Target: "cart", Type: graph.EdgeHTTP, Method: "POST", Path: "/api/cart/items", Confidence: 0.8, Via: "env CART_URL", Evidence: ev("c1", "services/cart/store.go", 13)},
			{Source: "storefront", Target: "checkout", Type: graph.EdgeHTTP, Method: "POST", Path: "/checkout", Confidence: 0.9, Via: "literal", Evidence: ev("c1", "services/cart/store.go", 13)},
		},
	}
	g.Sort()
	return g
}

// fakeIndex is an in-memory Backend and Searcher.
type fakeIndex struct {
	chunks  []core.Chunk
	g       *graph.Graph
	empty   bool
	delay   time.Duration
	queries chan string // every searched text, when set
	stage   string
}

func newFakeIndex() *fakeIndex { return &fakeIndex{chunks: testChunks, g: testGraph()} }

func (f *fakeIndex) Stats(ctx context.Context) (core.Stats, error) {
	if f.empty {
		return core.Stats{Path: "test.db"}, nil
	}
	return core.Stats{Path: "test.db", Chunks: len(f.chunks), Services: f.g.Counts().Nodes,
		Sources: []core.SourceStats{
			{Name: "platform", Kind: core.SourceRepo, Path: "/src/platform"},
			{Name: "acme-slack", Kind: core.SourceSlackExport, Path: "/src/slack"},
		},
		LastRun: &core.CrawlRun{Finished: testNow.Add(-2 * time.Hour)}}, nil
}

func (f *fakeIndex) Chunk(ctx context.Context, id string) (core.Chunk, error) {
	for _, c := range f.chunks {
		if c.ID == id {
			return c, nil
		}
	}
	return core.Chunk{}, fmt.Errorf("chunk %s: %w", id, core.ErrNotFound)
}

func (f *fakeIndex) Graph(ctx context.Context) (*graph.Graph, error) {
	if f.empty {
		return &graph.Graph{}, nil
	}
	return f.g, nil
}

func (f *fakeIndex) Mentions(ctx context.Context, service string, limit int) ([]core.Chunk, int, error) {
	var out []core.Chunk
	for _, c := range f.chunks {
		if (c.Corpus == core.ConvoSlack || c.Corpus == core.DocRunbook) && (c.ServiceName == service || strings.Contains(c.Text, service)) {
			out = append(out, c)
		}
	}
	return out, len(out), nil
}

// Search scores chunks by how many query words their text holds; type:
// filters are honoured.
func (f *fakeIndex) Search(ctx context.Context, q search.Query) (search.Result, error) {
	if f.queries != nil {
		f.queries <- q.Text
	}
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return search.Result{}, ctx.Err()
		}
	}
	parsed, err := search.Parse(q.Text)
	if err != nil {
		return search.Result{}, err
	}
	words := strings.Fields(strings.ToLower(parsed.Text))
	if len(words) == 0 {
		return search.Result{}, errors.New("empty query")
	}
	var hits []core.Hit
	for _, c := range f.chunks {
		if len(parsed.Filter.Corpus) > 0 && !containsCorpus(parsed.Filter.Corpus, c.Corpus) {
			continue
		}
		n := 0
		var matched []string
		for _, w := range words {
			if strings.Contains(strings.ToLower(c.Text+" "+c.SymbolName), w) {
				n++
				matched = append(matched, w)
			}
		}
		if n > 0 {
			hits = append(hits, core.Hit{Chunk: c, Score: float64(n) / float64(len(words)),
				Lists:   []core.ListRank{{List: "bm25-code", Rank: 1, Score: float64(n)}},
				Explain: core.Explain{Fused: float64(n) / 60, Matched: matched}})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return search.Result{Hits: hits, Took: 1500 * time.Microsecond, Text: parsed.Text, Filter: parsed.Filter}, nil
}

func containsCorpus(cs []core.CorpusType, c core.CorpusType) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}
