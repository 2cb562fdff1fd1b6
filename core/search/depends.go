package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/internal/lazyre"
)

// GraphReader is an Index that holds the service graph the crawl built, so
// that a question about a service's callers or dependencies ("who calls
// the cart service", "what does checkout depend on") is answered from the
// graph's edges as well as by the words.
type GraphReader interface {
	Graph(ctx context.Context) (*graph.Graph, error)
}

// maxEdgeHits caps the edges a dependency question puts first.
const maxEdgeHits = 8

// blastDepth is how many levels of dependents "what breaks if X is
// down" follows.
const blastDepth = 3

// Questions about a service's dependents and dependencies, asked of the
// whole text. The service's name is the first group.
var (
	// who calls the cart service; which services depend on cart; what
	// publishes to orders
	callersRE = lazyre.New(`(?i)^\s*(?:who|what|which(?:\s+[a-z-]+){0,2})\s+(?:calls?|uses?|depends?\s+on|talks?\s+to|connects?\s+to|sends?\s+(?:requests\s+)?to|reads?\s+from|writes?\s+to|publish(?:es)?\s+to|consumes?\s+from|needs?)\s+(?:the\s+|a\s+|an\s+)?(.+?)\s*\??\s*$`)
	// callers of cart; dependents of the orders queue
	callersOfRE = lazyre.New(`(?i)^\s*(?:(?:list|show|find)\s+)?(?:the\s+|all\s+)?(?:callers|clients|dependents|consumers|upstreams?)\s+of\s+(?:the\s+)?(.+?)\s*\??\s*$`)
	// what breaks if redis is down
	breaksRE = lazyre.New(`(?i)^\s*what\s+(?:breaks|fails|stops\s+working|goes\s+down|is\s+affected|is\s+impacted)\s+(?:when|if)\s+(?:the\s+)?(.+?)\s+(?:is\s+|goes\s+)?(?:down|dies|fails|crashes|is\s+unavailable|unavailable|is\s+slow|slows\s+down)\s*\??\s*$`)
	// what does checkout call; which services does the web app depend on
	calleesRE = lazyre.New(`(?i)^\s*(?:what|which(?:\s+[a-z-]+){0,2})\s+does\s+(?:the\s+)?(.+?)\s+(?:call|use|depend\s+on|talk\s+to|connect\s+to|need|send\s+(?:requests\s+)?to|read\s+from|write\s+to|publish\s+to|consume\s+from)\s*\??\s*$`)
	// dependencies of checkout
	calleesOfRE = lazyre.New(`(?i)^\s*(?:(?:list|show|find)\s+)?(?:the\s+|all\s+)?(?:dependencies|downstreams?)\s+of\s+(?:the\s+)?(.+?)\s*\??\s*$`)
)

// dependencyQuestion reads a question about the services that depend on
// one (callers) or that one depends on (not callers), and the name as
// written; ok is false for other text. direct says the question asks for
// the edges themselves (who calls X), not for what follows from them
// (what breaks if X is down, which a runbook or a design document may
// answer better).
func dependencyQuestion(text string) (name string, callers, direct, ok bool) {
	if strings.ContainsAny(text, "\n") || len(text) > 200 {
		return "", false, false, false
	}
	for _, q := range []struct {
		re              *lazyre.Regexp
		callers, direct bool
	}{{callersRE, true, true}, {callersOfRE, true, true}, {breaksRE, true, false}, {calleesRE, false, true}, {calleesOfRE, false, true}} {
		if m := q.re.FindStringSubmatch(text); m != nil {
			return strings.TrimSpace(m[1]), q.callers, q.direct, true
		}
	}
	return "", false, false, false
}

// maxNamedServices is how many services a name may be a word of and
// still name them all ("redis" for argocd-redis and redis-ha).
const maxNamedServices = 6

// servicesNamed finds the graph's services a question names: the one it
// names as written, or without a last word that says what it is ("the
// cart service", "the orders queue", "payments api" when the service is
// payments); else those whose name holds the name as whole words (redis:
// argocd-redis, redis-ha), when they are maxNamedServices or fewer.
func servicesNamed(g *graph.Graph, name string) []string {
	name = strings.Trim(name, " \"'`")
	try := []string{name}
	if ws := strings.Fields(name); len(ws) > 1 {
		switch strings.ToLower(ws[len(ws)-1]) {
		case "service", "services", "svc", "queue", "topic", "database", "db", "cache", "api", "app", "server", "deployment", "pod", "pods":
			try = append(try, strings.Join(ws[:len(ws)-1], " "))
		}
	}
	for _, n := range try {
		if s, err := g.Resolve(n); err == nil {
			if sv := g.Lookup(s); sv != nil && sv.Kind != graph.KindUnresolved {
				return []string{s}
			}
		}
	}
	for _, n := range try {
		if len(core.FoldName(n)) < 3 {
			continue
		}
		var out []string
		for _, sv := range g.Services {
			if sv.Kind != graph.KindUnresolved && sv.Kind != graph.KindIngress && core.HoldsName(sv.Name, n) {
				out = append(out, sv.Name)
			}
		}
		if len(out) > 0 && len(out) <= maxNamedServices {
			return out
		}
	}
	return nil
}

// dependencyHits answers a question about a service's dependents or
// dependencies from the graph: for each edge into (or out of) the
// service, the chunk of an evidence of it — the call, or the deploy file
// that wires the two — in order of the edge's confidence. direct says
// they go first (who calls X); otherwise (what breaks if X is down) they
// are the edges of its blast radius (blastDepth levels, nearest first),
// a list fused with the others. nil when the text asks no such
// question, the index holds no graph, or no service of the graph has the
// name.
func (e *Engine) dependencyHits(ctx context.Context, text string, f core.Filter) (hits []core.Hit, direct bool, err error) {
	name, callers, direct, ok := dependencyQuestion(text)
	if !ok {
		return nil, false, nil
	}
	gr, ok := e.idx.(GraphReader)
	wf, ok2 := e.idx.(WorkloadFinder)
	if !ok || !ok2 {
		return nil, false, nil
	}
	g, err := gr.Graph(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("read the service graph for %q: %w", name, err)
	}
	svcs := servicesNamed(g, name)
	if len(svcs) == 0 {
		return nil, false, nil
	}
	kind := map[string]string{}
	for _, s := range g.Services {
		kind[s.Name] = s.Kind
	}
	var edges []graph.Edge
	if !direct {
		// What breaks: the blast radius, nearest first, each dependent
		// through the edge that reaches it.
		var hops []graph.Hop
		for _, svc := range svcs {
			hops = append(hops, g.BlastRadius(svc, blastDepth, 0)...)
		}
		sort.SliceStable(hops, func(i, j int) bool {
			if hops[i].Depth != hops[j].Depth {
				return hops[i].Depth < hops[j].Depth
			}
			return hops[i].Edge.Confidence > hops[j].Edge.Confidence
		})
		for _, h := range hops {
			if from, _ := h.Edge.Dependency(); kind[from] != graph.KindUnresolved && len(h.Edge.Evidence) > 0 {
				edges = append(edges, h.Edge)
			}
		}
	}
	for _, ed := range g.Edges {
		if !direct {
			break
		}
		from, to := ed.Dependency()
		other := to
		if callers {
			other = from
		}
		if from == to || len(ed.Evidence) == 0 || kind[other] == graph.KindUnresolved || slices.Contains(svcs, other) ||
			callers && !slices.Contains(svcs, to) || !callers && !slices.Contains(svcs, from) {
			continue
		}
		edges = append(edges, ed)
	}
	if direct {
		sort.SliceStable(edges, func(i, j int) bool { return edges[i].Confidence > edges[j].Confidence })
	}
	at := map[string]int{} // chunk id -> its hit
	for _, ed := range edges {
		from, to := ed.Dependency()
		desc := fmt.Sprintf("%s -> %s (%s)", from, to, ed.Label())
		// The edge's first evidence not shown yet (its call, else what
		// wires it); when all are, the edge joins the hit of its first.
		shown := -1
		added := false
		for _, ev := range ed.Evidence {
			if i, ok := at[ev.ChunkID]; ok {
				if shown < 0 {
					shown = i
				}
				continue
			}
			if len(hits) == maxEdgeHits {
				break
			}
			c, err := wf.Chunk(ctx, ev.ChunkID)
			if errors.Is(err, core.ErrNotFound) || err == nil && !admits(f, c) {
				continue // a chunk replaced since the graph was built, or filtered out
			}
			if err != nil {
				return nil, false, fmt.Errorf("read the evidence of %s's edges: %w", strings.Join(svcs, ", "), err)
			}
			at[ev.ChunkID] = len(hits)
			hits = append(hits, core.Hit{Chunk: c, Lists: []core.ListRank{{List: "graph", Rank: len(hits) + 1, Score: ed.Confidence}},
				Explain: core.Explain{Edge: desc}})
			added = true
			break
		}
		if !added && shown >= 0 && !strings.Contains(hits[shown].Explain.Edge, desc) {
			hits[shown].Explain.Edge += "; " + desc
		}
	}
	return hits, direct, nil
}
