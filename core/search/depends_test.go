package search

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/graph"
)

func TestDependencyQuestion(t *testing.T) {
	for _, tt := range []struct {
		text            string
		name            string
		callers, direct bool
		ok              bool
	}{
		{"who calls the cart service?", "cart service", true, true, true},
		{"Which services depend on payments", "payments", true, true, true},
		{"what publishes to orders", "orders", true, true, true},
		{"callers of invoice-api", "invoice-api", true, true, true},
		{"what breaks if redis is down?", "redis", true, false, true},
		{"What breaks when the catalog goes down", "catalog", true, false, true},
		{"what does checkout call", "checkout", false, true, true},
		{"which services does the web app depend on?", "web app", false, true, true},
		{"dependencies of checkout", "checkout", false, true, true},
		// Questions that only look alike.
		{"what does GetPendingOrders use to find orders that still need work", "", false, false, false},
		{"how does the cart call the catalog", "", false, false, false},
		{"why does checkout call payments twice", "", false, false, false},
	} {
		name, callers, direct, ok := dependencyQuestion(tt.text)
		if ok != tt.ok || name != tt.name || callers != tt.callers || direct != tt.direct {
			t.Errorf("dependencyQuestion(%q) = %q %v %v %v, want %q %v %v %v", tt.text, name, callers, direct, ok, tt.name, tt.callers, tt.direct, tt.ok)
		}
	}
}

// graphIndex is a listIndex with a service graph and the chunks its
// evidence names.
type graphIndex struct {
	*listIndex
	g      *graph.Graph
	chunks map[string]core.Chunk
}

func (x graphIndex) Graph(context.Context) (*graph.Graph, error) { return x.g, nil }

func (x graphIndex) Resources(context.Context) ([]core.ResourceAt, error) { return nil, nil }

func (x graphIndex) Chunk(_ context.Context, id string) (core.Chunk, error) {
	c, ok := x.chunks[id]
	if !ok {
		return c, fmt.Errorf("chunk %s: %w", id, core.ErrNotFound)
	}
	return c, nil
}

func TestDependencyHits(t *testing.T) {
	web := chunkAt("web-call", "web/api.ts", 10, 20, core.CodeLogic)
	worker := chunkAt("worker-call", "worker/client.go", 5, 30, core.CodeLogic)
	wiring := chunkAt("wiring", "k8s/checkout.yaml", 1, 40, core.CodeDeploy)
	doc := chunkAt("doc", "docs/architecture.md", 1, 20, core.DocReadme)
	gw := chunkAt("gw-route", "gateway/routes.yaml", 1, 12, core.CodeConfig)
	ev := func(c core.Chunk) graph.Evidence {
		return graph.Evidence{ChunkID: c.ID, File: c.FilePath, Line: c.LineStart}
	}
	g := &graph.Graph{
		Services: []graph.Service{{Name: "web", Kind: graph.KindService}, {Name: "worker", Kind: graph.KindService},
			{Name: "cart", Kind: graph.KindService}, {Name: "checkout", Kind: graph.KindService}, {Name: "gateway", Kind: graph.KindService}, {Name: "orders-db", Kind: graph.KindDatabase}, {Name: "?{url}", Kind: graph.KindUnresolved}},
		Edges: []graph.Edge{
			{Source: "web", Target: "cart", Type: graph.EdgeHTTP, Method: "GET", Path: "/cart/{id}", Confidence: 0.95, Evidence: []graph.Evidence{ev(web)}},
			{Source: "worker", Target: "cart", Type: graph.EdgeHTTP, Confidence: 0.8, Evidence: []graph.Evidence{ev(worker), {ChunkID: "gone"}}},
			{Source: "checkout", Target: "cart", Type: graph.EdgeHTTP, Confidence: 0.75, Evidence: []graph.Evidence{ev(web)}},
			{Source: "cart", Target: "?{url}", Type: graph.EdgeHTTP, Confidence: 0, Evidence: []graph.Evidence{ev(wiring)}},
			{Source: "checkout", Target: "web", Type: graph.EdgeHTTP, Confidence: 0.9, Evidence: []graph.Evidence{ev(wiring)}},
			{Source: "checkout", Target: "orders-db", Type: graph.EdgeDB, Path: "orders", Confidence: 0.75, Evidence: []graph.Evidence{ev(wiring)}},
			{Source: "gateway", Target: "web", Type: graph.EdgeHTTP, Confidence: 0.9, Evidence: []graph.Evidence{ev(gw)}},
		},
	}
	g.Sort() // as the stores return it
	chunks := map[string]core.Chunk{}
	for _, c := range []core.Chunk{web, worker, wiring, doc, gw} {
		chunks[c.ID] = c
	}
	idx := graphIndex{&listIndex{prose: ranked("bm25-prose", doc)}, g, chunks}
	e := New(idx, Options{CorpusBoost: 1})
	edgesOf := func(res Result) []string {
		var out []string
		for _, h := range res.Hits {
			if h.Explain.Edge != "" {
				out = append(out, h.Chunk.ID+": "+h.Explain.Edge)
			}
		}
		return out
	}
	for _, tt := range []struct {
		text  string
		first string   // the first hit
		edges []string // hits that are an edge's evidence, in order
	}{
		// Each caller's evidence, by confidence; the one whose evidence
		// is shown already joins its hit.
		{"who calls the cart service?", "web-call", []string{
			"web-call: web -> cart (http GET /cart/{id}); checkout -> cart (http)", "worker-call: worker -> cart (http)"}},
		{"what does checkout depend on", "wiring", []string{"wiring: checkout -> web (http); checkout -> orders-db (db orders)", "web-call: checkout -> cart (http)"}},
		// The blast radius, nearest first: a list fused with the others,
		// not put first.
		{"what breaks if cart is down", "", []string{
			"web-call: web -> cart (http GET /cart/{id}); checkout -> cart (http)", "worker-call: worker -> cart (http)", "gw-route: gateway -> web (http)"}},
		{"who calls billing", "doc", nil},
	} {
		res, err := e.Search(context.Background(), Query{Text: tt.text, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := edgesOf(res); !slices.Equal(got, tt.edges) {
			t.Errorf("%q: edges %q, want %q", tt.text, got, tt.edges)
		}
		if tt.first != "" && (len(res.Hits) == 0 || res.Hits[0].Chunk.ID != tt.first) {
			t.Errorf("%q: hits %v, want %s first", tt.text, ids(res.Hits), tt.first)
		}
		if has := slices.Contains(res.Lists, "graph"); has != (tt.edges != nil) {
			t.Errorf("%q: lists %v", tt.text, res.Lists)
		}
		if tt.edges != nil && strings.HasPrefix(tt.text, "who") && res.Hits[0].Explain.PinnedKind() != "edge" {
			t.Errorf("%q: first hit not pinned as an edge: %+v", tt.text, res.Hits[0].Explain)
		}
	}
}

func TestServicesNamed(t *testing.T) {
	g := &graph.Graph{}
	for _, n := range []string{"cart", "argocd-redis", "redis-ha", "redis-ha-haproxy", "orders-api", "payments", "ingress:shop"} {
		kind := graph.KindService
		if strings.HasPrefix(n, "ingress:") {
			kind = graph.KindIngress
		}
		g.Services = append(g.Services, graph.Service{Name: n, Kind: kind})
	}
	for _, n := range []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7"} {
		g.Services = append(g.Services, graph.Service{Name: "shop-" + n, Kind: graph.KindService})
	}
	g.Sort()
	for _, tt := range []struct {
		name, want string
	}{
		{"cart", "cart"},
		{"cart service", "cart"},
		{"Orders API", "orders-api"},
		{"redis", "argocd-redis redis-ha redis-ha-haproxy"},
		{"redis ha", "redis-ha"},
		{"shop", ""},   // a word of seven services' names and an ingress: too many
		{"ledger", ""}, // nothing
	} {
		if got := strings.Join(servicesNamed(g, tt.name), " "); got != tt.want {
			t.Errorf("servicesNamed(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
