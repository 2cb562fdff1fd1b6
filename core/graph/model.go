// Package graph builds the service graph from what the crawl stored —
// deploy and config resources, outbound calls, server routes — and
// answers questions about it: who calls a service, whom it calls, what
// breaks when it is down.
//
// Every edge says how sure it is (Confidence), how its target was found
// (Via) and where in the code or deploy files it comes from (Evidence).
// What cannot be resolved is kept, as an edge to an unresolved node named
// after the raw target, so that users see what was missed.
package graph

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"coderag/core"
)

// The kinds of node.
const (
	KindService    = "service"
	KindQueue      = "queue"    // a message broker (RabbitMQ, Kafka, a cloud bus)
	KindTopic      = "topic"    // a topic, queue or exchange on a broker
	KindDatabase   = "database" // a database (by name, not by server)
	KindCache      = "cache"
	KindExternal   = "external"   // a host outside the system (api.stripe.com)
	KindIngress    = "ingress"    // an entry point from outside
	KindUnresolved = "unresolved" // a target nobody could resolve; the name is the raw text
)

// The kinds of edge.
const (
	EdgeHTTP  = "http"
	EdgeGRPC  = "grpc"
	EdgeQueue = "queue"
	EdgeDB    = "db"
	EdgeCache = "cache"
	EdgeSMTP  = "smtp" // a mail server
)

// Service is a node of the graph.
type Service struct {
	Name string
	Kind string
	Repo string
	// Directory is the folder of Repo whose code is the service's: "."
	// for the whole repository, "" when no code is known to be its.
	Directory string
	// Dirs are every folder (or file) whose code is the service's, with
	// why: Directory, and the others its build, its mounts or its
	// program's imports give it (a store reads them back deepest first).
	// A chunk belongs to the service of the deepest one holding it.
	Dirs      []Dir
	Language  string
	Namespace string
	Ports     []string
	Aliases   []Alias
	// Declared are the deploy and config chunks that declare it.
	Declared []Evidence
}

// OwnedDirs are the folders a service's chunks are owned from: its Dirs,
// or its Directory when a graph has none (one read from an index written
// before Dirs); none for a node that is not a service.
func (s Service) OwnedDirs() []Dir {
	if s.Kind != KindService {
		return nil
	}
	if len(s.Dirs) > 0 || s.Directory == "" {
		return s.Dirs
	}
	return []Dir{{Repo: s.Repo, Path: s.Directory, Why: "directory"}}
}

// Dir is a folder of a repository (or a file; "." is all of it) whose
// code is a service's, and why.
type Dir struct {
	Repo, Path, Why string
}

// Owners finds the service a file belongs to by the folders services own.
type Owners struct {
	dirs map[string][]ownedDir // repo -> its owned folders, the deepest first
}

type ownedDir struct{ path, service string }

// Owners returns the folders the graph's services own, for About.
func (g *Graph) Owners() Owners {
	o := Owners{dirs: map[string][]ownedDir{}}
	for _, s := range g.Services {
		for _, d := range s.OwnedDirs() {
			o.dirs[d.Repo] = append(o.dirs[d.Repo], ownedDir{d.Path, s.Name})
		}
	}
	for _, ds := range o.dirs {
		sort.SliceStable(ds, func(i, j int) bool {
			a, b := ds[i], ds[j]
			if (a.path == ".") != (b.path == ".") {
				return b.path == "."
			}
			if len(a.path) != len(b.path) {
				return len(a.path) > len(b.path)
			}
			return a.service < b.service
		})
	}
	return o
}

// About returns the service a document of file in repo is about by where
// it lies: the one of the deepest owned folder (or the file itself) that
// holds it, the first name on a tie, "" when none does. It is the rule a
// store's AssignOwners gives code by, except that a service owning the
// whole repository counts only when it is the repository's one service: a
// repository of one service documents that service, but a monorepo's root
// service does not own the design notes its docs folder keeps about the
// others.
func (o Owners) About(repo, file string) string {
	ds := o.dirs[repo]
	for _, d := range ds {
		if d.path == "." {
			if len(ds) == 1 {
				return d.service
			}
			return ""
		}
		if file == d.path || strings.HasPrefix(file, d.path+"/") {
			return d.service
		}
	}
	return ""
}

// Alias is another name a service is reached by.
type Alias struct {
	Name string
	// Kind is dns, env, container, image, directory, label, workload,
	// chart (a chart deploying only this service) or name.
	Kind string
}

// Evidence is a place that proves an edge or declares a service.
type Evidence struct {
	ChunkID string
	Repo    string
	File    string
	Line    int
}

// Edge is a dependency of Source on Target.
type Edge struct {
	Source, Target string
	Type           string // http, grpc, queue, db, cache
	// Method is the HTTP method, the gRPC method, or publish/subscribe.
	Method string
	// Path is the target's route template for HTTP (the client's path when
	// no route matches), the topic for queues, the database name for db.
	Path string
	// Handler is the function that serves the route, when one matched.
	Handler string
	// URL is the target as the code or deploy file wrote it.
	URL        string
	Confidence float64
	// Via says how the target was found: "literal", "env CART_URL from
	// ConfigMap shop-config", "route match", ...
	Via      string
	Evidence []Evidence
	// configured marks, while the graph is built, an edge found in the
	// configuration alone (no traced call).
	configured bool
}

// Label says how an edge connects: its type, method and path, those it
// has ("http GET /cart/{id}", "queue publish orders.placed", "db shopdb").
func (e Edge) Label() string {
	parts := []string{e.Type}
	if e.Method != "" {
		parts = append(parts, e.Method)
	}
	if e.Path != "" {
		parts = append(parts, e.Path)
	}
	return strings.Join(parts, " ")
}

// Key identifies an edge: two calls of the same endpoint are one edge
// with two pieces of evidence.
func (e Edge) Key() string {
	return e.Source + "\x00" + e.Target + "\x00" + e.Type + "\x00" + e.Method + "\x00" + e.Path
}

// Graph is the service graph.
type Graph struct {
	Services []Service
	Edges    []Edge
	// Routes are the server routes with the service that serves them: the
	// services' contract surface.
	Routes []Route
}

// Route is a server route of a service.
type Route struct {
	Service string
	core.RouteAt
}

// Partition splits the edges into the dependencies between nodes, the
// calls whose target nobody could resolve (edges to KindUnresolved nodes),
// the entry points from outside (edges from an Ingress) and the flow of
// messages through topics (a publisher to its topic, a topic to its
// consumers: what a consumer loses when a publisher is down).
func (g *Graph) Partition() (deps, unresolved, entry, topics []Edge) {
	kind := make(map[string]string, len(g.Services))
	for _, s := range g.Services {
		kind[s.Name] = s.Kind
	}
	for _, e := range g.Edges {
		switch {
		case kind[e.Target] == KindUnresolved:
			unresolved = append(unresolved, e)
		case kind[e.Source] == KindIngress:
			entry = append(entry, e)
		case kind[e.Source] == KindTopic || kind[e.Target] == KindTopic:
			topics = append(topics, e)
		default:
			deps = append(deps, e)
		}
	}
	return deps, unresolved, entry, topics
}

// Counts are the sizes of the parts of a graph, as Partition makes them;
// the crawl summary, stats, graph and the terminal UI all count this way.
type Counts struct {
	Nodes, Dependencies, EntryPoints, TopicLinks, Unresolved int
}

// Counts counts the graph's nodes (not the unresolved targets) and the
// parts of its edges.
func (g *Graph) Counts() Counts {
	deps, unresolved, entry, topics := g.Partition()
	c := Counts{Dependencies: len(deps), EntryPoints: len(entry), TopicLinks: len(topics), Unresolved: len(unresolved)}
	for _, s := range g.Services {
		if s.Kind != KindUnresolved {
			c.Nodes++
		}
	}
	return c
}

// String says the counts in the words every command uses; parts that are
// zero, except nodes and dependencies, are left out.
func (c Counts) String() string {
	word := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	s := word(c.Nodes, "node", "nodes") + ", " + word(c.Dependencies, "dependency", "dependencies")
	if c.EntryPoints > 0 {
		s += ", " + word(c.EntryPoints, "entry point", "entry points")
	}
	if c.TopicLinks > 0 {
		s += ", " + word(c.TopicLinks, "topic link", "topic links")
	}
	if c.Unresolved > 0 {
		s += fmt.Sprintf(", %d unresolved", c.Unresolved)
	}
	return s
}

// Service returns the named service, or nil.
func (g *Graph) Service(name string) *Service {
	i := sort.Search(len(g.Services), func(i int) bool { return g.Services[i].Name >= name })
	if i < len(g.Services) && g.Services[i].Name == name {
		return &g.Services[i]
	}
	return nil
}

// Lookup finds a service by name or alias, case-insensitively.
func (g *Graph) Lookup(name string) *Service {
	if s := g.Service(name); s != nil {
		return s
	}
	l := strings.ToLower(name)
	for i := range g.Services {
		s := &g.Services[i]
		if strings.ToLower(s.Name) == l {
			return s
		}
		for _, a := range s.Aliases {
			if strings.ToLower(a.Name) == l {
				return s
			}
		}
	}
	return nil
}

// Sort puts services by name and edges by source, target, type, method
// and path, evidence by repo, file and line: the graph's stable order.
func (g *Graph) Sort() {
	sort.Slice(g.Services, func(i, j int) bool { return g.Services[i].Name < g.Services[j].Name })
	for i := range g.Services {
		s := &g.Services[i]
		sort.Slice(s.Aliases, func(a, b int) bool {
			if s.Aliases[a].Name != s.Aliases[b].Name {
				return s.Aliases[a].Name < s.Aliases[b].Name
			}
			return s.Aliases[a].Kind < s.Aliases[b].Kind
		})
		sortEvidence(s.Declared)
	}
	sort.Slice(g.Edges, func(i, j int) bool { return g.Edges[i].Key() < g.Edges[j].Key() })
	sort.SliceStable(g.Routes, func(i, j int) bool {
		a, b := g.Routes[i], g.Routes[j]
		if a.Service != b.Service {
			return a.Service < b.Service
		}
		if a.Repo+"/"+a.File != b.Repo+"/"+b.File {
			return a.Repo+"/"+a.File < b.Repo+"/"+b.File
		}
		return a.Line < b.Line
	})
	// An edge's evidence keeps its order — the calls (in file order)
	// first, then what corroborates them — but for places that show how
	// to run the system rather than run it (docs, examples), which go
	// last.
	for i := range g.Edges {
		ev := g.Edges[i].Evidence
		sort.SliceStable(ev, func(a, b int) bool { return asideRank(ev[a].File) < asideRank(ev[b].File) })
	}
}

// asideRank is 1 for a file in a folder of documentation or examples
// (docs/operator-manual/cm.yaml, examples/), 0 for the rest: evidence
// and declarations from the system's own code and manifests come first.
func asideRank(file string) int {
	if core.IsExamplePath(file) {
		return 1
	}
	for _, d := range strings.Split(strings.ToLower(path.Dir(file)), "/") {
		switch d {
		case "docs", "doc", "documentation":
			return 1
		}
	}
	return 0
}

func sortEvidence(ev []Evidence) {
	sort.Slice(ev, func(i, j int) bool {
		a, b := ev[i], ev[j]
		if ra, rb := asideRank(a.File), asideRank(b.File); ra != rb {
			return ra < rb
		}
		if a.Repo != b.Repo {
			return a.Repo < b.Repo
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
}
