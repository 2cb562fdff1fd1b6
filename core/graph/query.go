package graph

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	dgraph "github.com/dominikbraun/graph"

	"coderag/core"
)

// ErrNoService is returned for a service name the graph does not know.
var ErrNoService = errors.New("no such service")

// Dependency direction: an edge's source depends on its target, except a
// subscription, whose edge runs from the topic to the consumer (the way
// messages flow) while the consumer depends on the topic.
func dependsOn(e Edge) (from, to string) {
	if e.Type == EdgeQueue && e.Method == "subscribe" {
		return e.Target, e.Source
	}
	return e.Source, e.Target
}

// Dependency returns which service depends on which through e: the
// source on the target, except for a subscription, whose edge runs from
// the topic to the consumer while the consumer depends on the topic.
func (e Edge) Dependency() (from, to string) { return dependsOn(e) }

// Hop is a service reached by a traversal: at which depth, through which
// edge, from which service.
type Hop struct {
	Service string
	Depth   int
	From    string
	Edge    Edge
}

// Resolve finds a service by name or alias.
func (g *Graph) Resolve(name string) (string, error) {
	if s := g.Lookup(name); s != nil {
		return s.Name, nil
	}
	// The names and aliases a near miss is looked for among (placment is
	// near the alias placement of shard-placement-server), each standing
	// for its service.
	var names []string
	of := map[string]string{}
	var same []string
	for _, s := range g.Services {
		names = append(names, s.Name)
		of[s.Name] = s.Name
		if core.SameName(s.Name, name) {
			same = append(same, s.Name)
		}
	}
	if len(same) == 1 { // written another way: "repo server" for repo-server
		return same[0], nil
	}
	for _, s := range g.Services {
		for _, a := range s.Aliases {
			if _, ok := of[a.Name]; !ok {
				names = append(names, a.Name)
				of[a.Name] = s.Name
			}
		}
	}
	var near []string
	for _, n := range core.Closest(name, names, len(names)) {
		if s := of[n]; !slices.Contains(near, s) {
			near = append(near, s)
		}
		if len(near) == 3 {
			break
		}
	}
	if len(near) > 0 {
		return "", fmt.Errorf("service %q: %w (did you mean %s?)", name, ErrNoService, strings.Join(near, ", "))
	}
	return "", fmt.Errorf("service %q: %w", name, ErrNoService)
}

// Index holds the edges by dependency, for repeated traversals of one
// graph (a UI moving from service to service).
type Index struct {
	// dependents[x] are the edges of services depending on x,
	// dependencies[x] those x depends on; both in stable order.
	dependents, dependencies map[string][]Edge
	// unresolved are the nodes standing for addresses nothing declares.
	unresolved map[string]bool
}

// Index indexes the edges at least minConf sure.
func (g *Graph) Index(minConf float64) *Index {
	ix := &Index{dependents: map[string][]Edge{}, dependencies: map[string][]Edge{}, unresolved: map[string]bool{}}
	for _, s := range g.Services {
		if s.Kind == KindUnresolved {
			ix.unresolved[s.Name] = true
		}
	}
	for _, e := range g.Edges {
		if e.Confidence < minConf {
			continue
		}
		from, to := dependsOn(e)
		ix.dependents[to] = append(ix.dependents[to], e)
		ix.dependencies[from] = append(ix.dependencies[from], e)
	}
	return ix
}

func (g *Graph) index(minConf float64) (dependents, dependencies map[string][]Edge) {
	ix := g.Index(minConf)
	return ix.dependents, ix.dependencies
}

// Dependents returns the edges through which services depend on name
// (its callers, the consumers of a topic), in stable order.
func (ix *Index) Dependents(name string) []Edge { return ix.dependents[name] }

// Dependencies returns the edges through which name depends on others.
func (ix *Index) Dependencies(name string) []Edge { return ix.dependencies[name] }

// Degree is the one meaning of a service's counts, wherever they are
// shown (graph's list, the TUI's "n↑ n↓"): up is the number of services
// that depend on it, down the number of known services it depends on
// (calls to addresses nothing declares are listed apart, as unresolved).
// Services count once however many edges (routes, topics) join them: a
// load generator calling seventeen routes of the web front is one.
func (ix *Index) Degree(name string) (up, down int) {
	ups, downs := map[string]bool{}, map[string]bool{}
	for _, e := range ix.dependents[name] {
		from, _ := dependsOn(e)
		ups[from] = true
	}
	for _, e := range ix.dependencies[name] {
		if _, to := dependsOn(e); !ix.unresolved[to] {
			downs[to] = true
		}
	}
	return len(ups), len(downs)
}

// Upstream returns the services that depend on name, up to depth levels.
func (ix *Index) Upstream(name string, depth int) []Hop {
	return walk(name, depth, ix.dependents, func(e Edge, _ string) string { f, _ := dependsOn(e); return f })
}

// Downstream returns the services name depends on, up to depth levels.
func (ix *Index) Downstream(name string, depth int) []Hop {
	return walk(name, depth, ix.dependencies, func(e Edge, _ string) string { _, t := dependsOn(e); return t })
}

// walk traverses breadth first from name along next, up to depth levels,
// and returns every service reached with the shortest depth and the first
// edge (in stable order) that reached it.
func walk(name string, depth int, next map[string][]Edge, other func(Edge, string) string) []Hop {
	seen := map[string]bool{name: true}
	var out []Hop
	frontier := []string{name}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var nextFrontier []string
		for _, cur := range frontier {
			for _, e := range next[cur] {
				o := other(e, cur)
				if seen[o] {
					continue
				}
				seen[o] = true
				out = append(out, Hop{Service: o, Depth: d, From: cur, Edge: e})
				nextFrontier = append(nextFrontier, o)
			}
		}
		sort.Strings(nextFrontier)
		frontier = nextFrontier
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Depth != out[j].Depth {
			return out[i].Depth < out[j].Depth
		}
		return out[i].Service < out[j].Service
	})
	return out
}

// Upstream returns the services that depend on name, up to depth levels
// (1: its direct callers and consumers).
func (g *Graph) Upstream(name string, depth int, minConf float64) []Hop {
	return g.Index(minConf).Upstream(name, depth)
}

// Downstream returns the services name depends on, up to depth levels.
func (g *Graph) Downstream(name string, depth int, minConf float64) []Hop {
	return g.Index(minConf).Downstream(name, depth)
}

// BlastRadius returns what breaks when name is down: every service that
// depends on it, directly or through others, up to depth levels, each
// with the hop that reaches it. A topic's consumers depend on the topic;
// a service that only publishes to a topic its consumers read does not
// make them depend on it.
func (g *Graph) BlastRadius(name string, depth int, minConf float64) []Hop {
	return g.Upstream(name, depth, minConf)
}

// Contract returns the routes a service serves, and for each the edges
// that call it.
func (g *Graph) Contract(name string) []Route {
	var out []Route
	for _, r := range g.Routes {
		if r.Service == name {
			out = append(out, r)
		}
	}
	return out
}

// Callers returns the edges into name that matched the route.
func (g *Graph) Callers(name string, r Route) []Edge {
	var out []Edge
	for _, e := range g.Edges {
		if e.Target == name && e.Path == r.Path && (e.Method == r.Method || r.Method == "ANY") {
			out = append(out, e)
		}
	}
	return out
}

// Path returns the shortest chain of dependencies from a to b (a depends
// on ... depends on b), as hops; nil when there is none.
func (g *Graph) Path(a, b string, minConf float64) []Hop {
	_, dependencies := g.index(minConf)
	prev := map[string]Hop{}
	seen := map[string]bool{a: true}
	frontier := []string{a}
	for d := 1; len(frontier) > 0; d++ {
		var next []string
		for _, cur := range frontier {
			for _, e := range dependencies[cur] {
				_, t := dependsOn(e)
				if seen[t] {
					continue
				}
				seen[t] = true
				prev[t] = Hop{Service: t, Depth: d, From: cur, Edge: e}
				if t == b {
					var path []Hop
					for x := b; x != a; x = prev[x].From {
						path = append([]Hop{prev[x]}, path...)
					}
					return path
				}
				next = append(next, t)
			}
		}
		sort.Strings(next)
		frontier = next
	}
	return nil
}

// Cycles returns the groups of services that depend on each other in a
// circle, each sorted, in stable order.
func (g *Graph) Cycles(minConf float64) ([][]string, error) {
	dg := dgraph.New(dgraph.StringHash, dgraph.Directed())
	for _, s := range g.Services {
		if err := dg.AddVertex(s.Name); err != nil && !errors.Is(err, dgraph.ErrVertexAlreadyExists) {
			return nil, err
		}
	}
	self := map[string]bool{}
	for _, e := range g.Edges {
		if e.Confidence < minConf {
			continue
		}
		from, to := dependsOn(e)
		if from == to {
			self[from] = true
			continue
		}
		if err := dg.AddEdge(from, to); err != nil && !errors.Is(err, dgraph.ErrEdgeAlreadyExists) {
			return nil, err
		}
	}
	sccs, err := dgraph.StronglyConnectedComponents(dg)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, c := range sccs {
		if len(c) > 1 || self[c[0]] {
			sort.Strings(c)
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], ",") < strings.Join(out[j], ",") })
	return out, nil
}

// Subgraph returns the graph restricted to the named services and the
// edges between them.
func (g *Graph) Subgraph(names []string) *Graph {
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	sub := &Graph{}
	for _, s := range g.Services {
		if keep[s.Name] {
			sub.Services = append(sub.Services, s)
		}
	}
	for _, e := range g.Edges {
		if keep[e.Source] && keep[e.Target] {
			sub.Edges = append(sub.Edges, e)
		}
	}
	for _, r := range g.Routes {
		if keep[r.Service] {
			sub.Routes = append(sub.Routes, r)
		}
	}
	return sub
}

// Degree returns how many edges leave and enter a service.
func (g *Graph) Degree(name string) (out, in int) {
	for _, e := range g.Edges {
		if e.Source == name {
			out++
		}
		if e.Target == name {
			in++
		}
	}
	return out, in
}
