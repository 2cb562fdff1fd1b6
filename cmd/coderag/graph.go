package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/graph"
	"coderag/graphviz"
)

type graphOptions struct {
	db                          *string
	service                     string
	upstream, downstream, blast bool
	routes, cycles              bool
	pathTo                      string
	depth                       int
	format                      string
	cluster                     string
	minConf                     float64
	hideUnresolved, lr, json    bool
	mentions                    int
}

const graphLong = `Graph shows the service graph the last crawl built: which services call
which, down to the endpoint, through which queues, databases and caches.

Services come from Kubernetes workloads and Services, docker-compose
services, Helm charts and .NET Aspire AppHosts (a repository that declares
none of its code is one when it has a Dockerfile at its root or its code
serves routes or calls out);
code belongs to a service by
its folder (a compose build context, a folder named after the service with a
Dockerfile or project file), by the Go program a workload runs (its ko://
image, or the program its container command names: /usr/local/bin/cart runs
cmd/cart or what a go build -o in a Dockerfile or Makefile builds as cart,
with the packages only it imports) or by its repository. An
outbound call's address is resolved from a literal, a constant, an
environment variable or a config key through the values the deploy files
give it (Kubernetes env and ConfigMaps, Helm values, compose environment,
appsettings.json, Spring's application.yml and bootstrap.yml, azd's
Kustomize env filled from Terraform outputs), through the fields and
constructors that carry it (Go; Spring's @Value fields), or else by the
one service that serves the called route. A Spring Cloud OpenFeign
interface's methods are calls to the service it names, a .NET Refit
interface's calls through the client registered for it, and a Dapr
invocation (the sidecar's /v1.0/invoke/APP/method/... or an SDK's) a call
to the service whose name or dapr.io/app-id is APP. HTTP calls are
matched to the route template and handler that serve them. What cannot be
resolved is kept as an edge to a node named "?" and the raw target.

Without --service the whole graph is printed. With --service NAME (a name
or an alias such as cart.shop.svc.cluster.local):
  (no flag)        who calls it, what it calls, the routes it serves
  --upstream       who depends on it, --depth levels deep
  --downstream     what it depends on
  --blast-radius   what breaks when it is down: every dependent by depth,
                   with the evidence of each hop (default depth 3)
  --path-to OTHER  the shortest chain of dependencies to OTHER
  --routes         its routes and who calls each
--cycles lists services that depend on each other in a circle.

A service depends on what it calls, queries, caches in or publishes to; a
consumer depends on the topic it reads.

--format text (default), json, dot (Graphviz), mermaid, or svg (rendered by
Graphviz's dot program, which must be installed). The JSON is
  {"services":[{"name","kind","aliases","repo","language","directory",...}],
   "edges":[{"source","target","type","method","path","confidence","via",
             "evidence":[{"file_path","line_start","chunk_id"}]}]}`

func newGraphCmd(io *ioStreams, db *string) *cobra.Command {
	o := &graphOptions{db: db}
	cmd := &cobra.Command{
		Use:   "graph [--service NAME [--upstream|--downstream|--blast-radius|--routes|--path-to OTHER]]",
		Short: "Show the service graph, a service's dependencies and its blast radius",
		Long:  graphLong,
		Example: `  coderag graph
  coderag graph --service cart
  coderag graph --service redis --blast-radius
  coderag graph --service storefront --downstream --depth 2 --format mermaid
  coderag graph --format dot | dot -Tpng > graph.png
  coderag graph --service checkout --path-to shopdb`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return graphRun(cmd, io, o) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.service, "service", "s", "", "the service to look at (name or alias)")
	f.BoolVar(&o.upstream, "upstream", false, "show who depends on the service")
	f.BoolVar(&o.downstream, "downstream", false, "show what the service depends on")
	f.BoolVar(&o.blast, "blast-radius", false, "show what breaks when the service is down")
	f.BoolVar(&o.routes, "routes", false, "show the routes the service serves and who calls each")
	f.StringVar(&o.pathTo, "path-to", "", "show the shortest chain of dependencies from the service to this one")
	f.BoolVar(&o.cycles, "cycles", false, "list services that depend on each other in a circle")
	f.IntVarP(&o.depth, "depth", "d", 0, "levels to follow (default 1; 3 for --blast-radius)")
	f.StringVarP(&o.format, "format", "f", "text", "output: text, json, dot, mermaid or svg")
	f.BoolVar(&o.json, "json", false, "print JSON (the same as --format json)")
	f.IntVar(&o.mentions, "mentions", 5, "with --service: how many of the conversations and docs that mention it to list")
	f.StringVar(&o.cluster, "cluster", "repo", "group services in dot and mermaid output by repo, namespace or none")
	f.Float64Var(&o.minConf, "min-confidence", 0, "leave out edges less sure than this (0-1)")
	f.BoolVar(&o.hideUnresolved, "hide-unresolved", false, "leave out the edges to targets nobody could resolve")
	f.BoolVar(&o.lr, "left-to-right", false, "lay dot and mermaid output out left to right")
	cmd.RegisterFlagCompletionFunc("service", indexValues(db, "service"))
	cmd.RegisterFlagCompletionFunc("path-to", indexValues(db, "service"))
	cmd.RegisterFlagCompletionFunc("format", fixedValues("text", "json", "dot", "mermaid", "svg"))
	cmd.RegisterFlagCompletionFunc("cluster", fixedValues("repo", "namespace", "none"))
	return cmd
}

// view is what a graph command shows: a subgraph, and how to draw it.
type view struct {
	g     *graph.Graph
	opts  graphviz.Options
	hops  []graph.Hop
	title string
	// mentions are the newest conversations and docs about the service.
	mentions     []core.Chunk
	mentionCount int
}

func graphRun(cmd *cobra.Command, io *ioStreams, o *graphOptions) error {
	if o.json {
		if cmd.Flags().Changed("format") && o.format != "json" {
			return usagef("--json and --format %s ask for different outputs", o.format)
		}
		o.format = "json"
	}
	switch o.format {
	case "text", "json", "dot", "mermaid", "svg":
	default:
		return usagef("--format %q: want text, json, dot, mermaid or svg", o.format)
	}
	switch o.cluster {
	case "repo", "namespace", "none":
	default:
		return usagef("--cluster %q: want repo, namespace or none", o.cluster)
	}
	modes := 0
	for _, b := range []bool{o.upstream, o.downstream, o.blast, o.routes, o.pathTo != ""} {
		if b {
			modes++
		}
	}
	if modes > 1 {
		return usagef("pass one of --upstream, --downstream, --blast-radius, --routes and --path-to")
	}
	if modes > 0 && o.service == "" {
		return usagef("--upstream, --downstream, --blast-radius, --routes and --path-to need --service")
	}
	if cmd.Flags().Changed("depth") {
		if err := positiveInt("depth", o.depth); err != nil {
			return err
		}
	}
	if o.mentions < 0 {
		return usagef("--mentions must be 0 or more, got %d", o.mentions)
	}
	if o.minConf < 0 || o.minConf > 1 {
		return usagef("--min-confidence must be between 0 and 1, got %v", o.minConf)
	}
	ctx := cmd.Context()
	db, err := openIndex(ctx, *o.db, false)
	if err != nil {
		return err
	}
	defer db.Close()
	g, err := db.Graph(ctx)
	if err != nil {
		return err
	}
	if len(g.Services) == 0 {
		return fmt.Errorf("%s has no service graph yet: crawl repositories with deploy files (coderag crawl --repo-path ...)", *o.db)
	}
	if o.hideUnresolved {
		g = withoutUnresolved(g)
	}
	if o.minConf > 0 {
		g = minConfidence(g, o.minConf)
	}
	cluster := o.cluster
	if cluster == "none" {
		cluster = ""
	}
	v := view{g: g, opts: graphviz.Options{Cluster: cluster, LeftToRight: o.lr}}
	if o.cycles {
		return printCycles(io, g, o)
	}
	if o.service != "" {
		name, err := g.Resolve(o.service)
		if err != nil {
			return err
		}
		v, err = serviceView(g, name, o)
		if err != nil {
			return err
		}
		if v.mentions, v.mentionCount, err = db.Mentions(ctx, name, o.mentions); err != nil {
			return err
		}
		v.opts.Cluster, v.opts.LeftToRight = cluster, o.lr
	}
	switch o.format {
	case "json":
		return writeGraphJSON(io.out, v)
	case "dot":
		return graphviz.DOT(io.out, v.g, v.opts)
	case "mermaid":
		return graphviz.Mermaid(io.out, v.g, v.opts)
	case "svg":
		return writeSVG(ctx, io.out, v)
	}
	st := styles(io.color)
	if o.service == "" {
		return printWholeGraph(io.out, st, g)
	}
	return printServiceView(io.out, st, g, v, o)
}

func withoutUnresolved(g *graph.Graph) *graph.Graph {
	var names []string
	for _, s := range g.Services {
		if s.Kind != graph.KindUnresolved {
			names = append(names, s.Name)
		}
	}
	return g.Subgraph(names)
}

func minConfidence(g *graph.Graph, min float64) *graph.Graph {
	out := *g
	out.Edges = nil
	for _, e := range g.Edges {
		if e.Confidence >= min {
			out.Edges = append(out.Edges, e)
		}
	}
	return &out
}

// serviceView computes what --service shows.
func serviceView(g *graph.Graph, name string, o *graphOptions) (view, error) {
	depth := o.depth
	if depth == 0 {
		depth = 1
		if o.blast {
			depth = 3
		}
	}
	v := view{opts: graphviz.Options{Focus: name, Depth: map[string]int{}}}
	switch {
	case o.pathTo != "":
		to, err := g.Resolve(o.pathTo)
		if err != nil {
			return v, err
		}
		v.hops = g.Path(name, to, 0)
		v.title = fmt.Sprintf("dependencies from %s to %s", name, to)
	case o.upstream:
		v.hops = g.Upstream(name, depth, 0)
		v.title = fmt.Sprintf("services depending on %s (depth %d)", name, depth)
	case o.downstream:
		v.hops = g.Downstream(name, depth, 0)
		v.title = fmt.Sprintf("what %s depends on (depth %d)", name, depth)
	case o.blast:
		v.hops = g.BlastRadius(name, depth, 0)
		v.title = fmt.Sprintf("blast radius of %s (depth %d)", name, depth)
	default:
		v.hops = append(g.Upstream(name, 1, 0), g.Downstream(name, 1, 0)...)
		v.title = name
	}
	names := []string{name}
	for _, h := range v.hops {
		names = append(names, h.Service)
		v.opts.Depth[h.Service] = h.Depth
	}
	v.g = g.Subgraph(names)
	if o.downstream || o.pathTo != "" {
		v.opts.Depth = nil // shading by distance is for dependents
	}
	v.opts.Title = v.title
	return v, nil
}

func evidenceText(e graph.Edge) string {
	if len(e.Evidence) == 0 {
		return ""
	}
	ev := e.Evidence[0]
	s := core.Printable(fmt.Sprintf("%s/%s:%d", ev.Repo, ev.File, ev.Line))
	if n := len(e.Evidence) - 1; n > 0 {
		s += fmt.Sprintf(" (+%d)", n)
	}
	return s
}

func printWholeGraph(w io.Writer, st textStyles, g *graph.Graph) error {
	nodes := 0
	for _, s := range g.Services {
		if s.Kind != graph.KindUnresolved {
			nodes++
		}
	}
	// n↑ and n↓ count as the TUI does: who depends on the service, what
	// it depends on (a consumer depends on its topic), unresolved calls
	// left out.
	fmt.Fprintln(w, st.bold(fmt.Sprintf("services (%d)", nodes))+st.dim("  n↑ services depend on it, n↓ it depends on"))
	ix := g.Index(0)
	var names []string
	for _, s := range g.Services {
		if s.Kind != graph.KindUnresolved {
			names = append(names, s.Name)
		}
	}
	place := func(s graph.Service) string {
		if s.Directory != "" && s.Directory != "." {
			return s.Repo + "/" + s.Directory
		}
		return s.Repo
	}
	var places, langs []string
	for _, s := range g.Services {
		if s.Kind != graph.KindUnresolved {
			places, langs = append(places, place(s)), append(langs, s.Language)
		}
	}
	// A column as wide as its longest value (up to a cap), so that a
	// deep directory does not push the counts out of line.
	nameW, placeW, langW := colWidth(22, 64, names), colWidth(14, 70, places), colWidth(6, 12, langs)
	for _, s := range g.Services {
		if s.Kind == graph.KindUnresolved {
			continue
		}
		up, down := ix.Degree(s.Name)
		fmt.Fprintf(w, "  %-*s %-9s %-*s %-*s %2d↑ %2d↓\n", nameW, s.Name, s.Kind, placeW, place(s), langW, s.Language, up, down)
	}
	deps, unresolved, entry, topics := g.Partition()
	// One set of column widths for every edge table, so they line up.
	var srcs, dsts, labels []string
	for _, e := range g.Edges {
		srcs, dsts, labels = append(srcs, e.Source), append(dsts, e.Target), append(labels, graphviz.EdgeLabel(e))
	}
	srcW, dstW, labelW := colWidth(16, 48, srcs), colWidth(18, 48, dsts), colWidth(24, 60, labels)
	printEdge := func(e graph.Edge) {
		fmt.Fprintf(w, "  %-*s -> %-*s %-*s %.2f  %s\n", srcW, e.Source, dstW, e.Target, labelW, graphviz.EdgeLabel(e), e.Confidence, st.dim(evidenceText(e)))
	}
	section := func(title string, edges []graph.Edge) {
		if len(edges) == 0 {
			return
		}
		fmt.Fprintln(w, st.bold(fmt.Sprintf("\n%s (%d)", title, len(edges))))
		for _, e := range edges {
			printEdge(e)
		}
	}
	fmt.Fprintln(w, st.bold(fmt.Sprintf("\nedges (%d)", len(deps))))
	for _, e := range deps {
		printEdge(e)
	}
	section("entry points", entry)
	section("message flow through topics", topics)
	if len(unresolved) > 0 {
		fmt.Fprintln(w, st.bold(fmt.Sprintf("\nunresolved (%d)", len(unresolved))))
		for _, e := range unresolved {
			fmt.Fprintf(w, "  %-*s -> %-*s %-*s %s\n    %s\n", srcW, e.Source, dstW, e.Target, labelW, graphviz.EdgeLabel(e), st.dim(evidenceText(e)), core.Printable(e.Via))
		}
	}
	return nil
}

func printServiceView(w io.Writer, st textStyles, g *graph.Graph, v view, o *graphOptions) error {
	name := v.opts.Focus
	s := g.Service(name)
	if o.routes {
		return printRoutes(w, st, g, name)
	}
	if !o.upstream && !o.downstream && !o.blast && o.pathTo == "" {
		place := s.Repo
		if s.Directory != "" && s.Directory != "." {
			place += "/" + s.Directory
		}
		fmt.Fprintf(w, "%s  %s  %s  %s\n", st.bold(s.Name), s.Kind, place, s.Language)
		if len(s.Aliases) > 0 {
			var as []string
			for _, a := range s.Aliases {
				as = append(as, a.Name)
			}
			fmt.Fprintf(w, "  %s %s\n", st.dim("also"), strings.Join(as, ", "))
		}
		if len(s.Declared) > 0 {
			var ds []string
			for _, d := range s.Declared {
				ds = append(ds, fmt.Sprintf("%s/%s:%d", d.Repo, d.File, d.Line))
			}
			// A service many compose files define (one per set-up).
			fmt.Fprintf(w, "  %s %s\n", st.dim("declared in"), firstOf(st, ds, 4))
		}
		if dirs := s.OwnedDirs(); len(dirs) > 1 {
			var ds []string
			for _, d := range dirs {
				ds = append(ds, strings.TrimSuffix(d.Repo+"/"+d.Path, "/."))
			}
			slices.Sort(ds)
			// A program of a monorepo imports dozens of packages.
			fmt.Fprintf(w, "  %s %s\n", st.dim("code in"), firstOf(st, ds, 8))
		}
		var in, out []graph.Hop
		for _, e := range g.Edges {
			switch {
			case isDependency(graph.Hop{Edge: e}, name):
				out = append(out, graph.Hop{Service: other(e, name), Edge: e})
			case e.Source == name || e.Target == name:
				in = append(in, graph.Hop{Service: other(e, name), Edge: e})
			}
		}
		printHops(w, st, fmt.Sprintf("\ncalled by (%d)", len(in)), in)
		printHops(w, st, fmt.Sprintf("\ndepends on (%d)", len(out)), out)
		if rs := g.Contract(name); len(rs) > 0 {
			fmt.Fprintln(w)
			printRoutes(w, st, g, name)
		}
		if len(v.mentions) > 0 {
			fmt.Fprintln(w, st.bold(fmt.Sprintf("\nmentioned in (%d, newest first; older release notes last)", v.mentionCount)))
			for _, c := range v.mentions {
				c = c.Printable()
				loc := c.Location()
				if d := c.Date(); d != "" && c.Corpus != core.ConvoSlack {
					loc += " " + d
				}
				first := strings.TrimSpace(strings.SplitN(c.Text, "\n", 2)[0])
				if len(first) > 70 {
					first = first[:67] + "..."
				}
				fmt.Fprintf(w, "  %s %-44s %s\n", st.badge(c.Corpus), loc, st.dim(first))
			}
			if more := v.mentionCount - len(v.mentions); more > 0 {
				fmt.Fprintln(w, st.dim(fmt.Sprintf("  … %d more (--mentions %d shows them all)", more, v.mentionCount)))
			}
		}
		return nil
	}
	if o.pathTo != "" && len(v.hops) == 0 {
		fmt.Fprintf(w, "%s does not depend on %s, directly or through others\n", name, o.pathTo)
		return nil
	}
	fmt.Fprintf(w, "%s: %s\n", st.bold(v.title), plural(len(v.hops), "service", "services"))
	var names, labels []string
	for _, h := range v.hops {
		names, labels = append(names, h.Service), append(labels, graphviz.EdgeLabel(h.Edge))
	}
	nameW, labelW := colWidth(18, 30, names), colWidth(24, 60, labels)
	last := 0
	for _, h := range v.hops {
		if h.Depth != last && o.pathTo == "" {
			fmt.Fprintln(w, st.bold(fmt.Sprintf("depth %d", h.Depth)))
			last = h.Depth
		}
		via := ""
		if h.From != name {
			via = "via " + h.From
		}
		fmt.Fprintf(w, "  %-*s %-*s %-16s %s\n", nameW, h.Service, labelW, graphviz.EdgeLabel(h.Edge), via, st.dim(evidenceText(h.Edge)))
	}
	return nil
}

// isDependency reports whether a hop from name is something name depends
// on (rather than a dependent).
func isDependency(h graph.Hop, name string) bool {
	e := h.Edge
	if e.Type == graph.EdgeQueue && e.Method == "subscribe" {
		return e.Target == name
	}
	return e.Source == name
}

// other is the end of e that is not name.
func other(e graph.Edge, name string) string {
	if e.Source == name {
		return e.Target
	}
	return e.Source
}

func printHops(w io.Writer, st textStyles, title string, hops []graph.Hop) {
	fmt.Fprintln(w, st.bold(title))
	var names, labels []string
	for _, h := range hops {
		names, labels = append(names, h.Service), append(labels, graphviz.EdgeLabel(h.Edge))
	}
	nameW, labelW := colWidth(18, 30, names), colWidth(24, 60, labels)
	for _, h := range hops {
		fmt.Fprintf(w, "  %-*s %-*s %.2f  %s\n", nameW, h.Service, labelW, graphviz.EdgeLabel(h.Edge), h.Edge.Confidence, st.dim(evidenceText(h.Edge)))
	}
}

// colWidth is the width of a text column: its longest value's, at least
// least and at most most (a longer value pushes its own line only).
func colWidth(least, most int, vals []string) int {
	w := least
	for _, v := range vals {
		w = max(w, min(most, utf8.RuneCountInString(v)))
	}
	return w
}

func printRoutes(w io.Writer, st textStyles, g *graph.Graph, name string) error {
	rs := g.Contract(name)
	fmt.Fprintln(w, st.bold(fmt.Sprintf("serves (%s)", plural(len(rs), "route", "routes"))))
	for _, r := range rs {
		var callers []string
		for _, e := range g.Callers(name, r) {
			callers = appendUniq(callers, e.Source)
		}
		handler := r.Handler
		if handler == "" {
			handler = "-"
		}
		line := fmt.Sprintf("  %-7s %-30s %-22s %s", r.Method, r.Path, handler, st.dim(fmt.Sprintf("%s/%s:%d", r.Repo, r.File, r.Line)))
		if len(callers) > 0 {
			line += "  <- " + strings.Join(callers, ", ")
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

func appendUniq(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func printCycles(io *ioStreams, g *graph.Graph, o *graphOptions) error {
	cycles, err := g.Cycles(o.minConf)
	if err != nil {
		return err
	}
	if o.format == "json" {
		if cycles == nil {
			cycles = [][]string{}
		}
		return json.NewEncoder(io.out).Encode(map[string]any{"cycles": cycles})
	}
	if len(cycles) == 0 {
		fmt.Fprintln(io.out, "no services depend on each other in a circle")
		return nil
	}
	for _, c := range cycles {
		fmt.Fprintln(io.out, strings.Join(c, " <-> "))
	}
	return nil
}

type jsonService struct {
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Aliases   []string `json:"aliases"`
	Repo      string   `json:"repo"`
	Language  string   `json:"language"`
	Directory string   `json:"directory"`
	// Folders are every folder (or file) whose code is the service's,
	// deepest first, with why ("ko image", "compose build", ...).
	Folders   []jsonFolder   `json:"folders"`
	Namespace string         `json:"namespace,omitempty"`
	Declared  []jsonEvidence `json:"declared_in"`
	Depth     *int           `json:"depth,omitempty"`
}

type jsonFolder struct {
	Repo string `json:"repo"`
	Path string `json:"path"`
	Why  string `json:"why"`
}

type jsonEvidence struct {
	FilePath  string `json:"file_path"`
	LineStart int    `json:"line_start"`
	ChunkID   string `json:"chunk_id"`
}

type jsonEdge struct {
	Source     string         `json:"source"`
	Target     string         `json:"target"`
	Type       string         `json:"type"`
	Method     string         `json:"method"`
	Path       string         `json:"path"`
	Handler    string         `json:"handler,omitempty"`
	URL        string         `json:"url,omitempty"`
	Confidence float64        `json:"confidence"`
	Via        string         `json:"via"`
	Evidence   []jsonEvidence `json:"evidence"`
}

func writeGraphJSON(w io.Writer, v view) error {
	out := struct {
		Focus    string        `json:"focus,omitempty"`
		Title    string        `json:"title,omitempty"`
		Services []jsonService `json:"services"`
		Edges    []jsonEdge    `json:"edges"`
		// Unresolved are calls whose target nobody could resolve, with
		// the reason in "via"; EntryPoints are Ingress routes from
		// outside. Neither is a dependency between services.
		// Topics are the messages' path: a publisher to its topic, a
		// topic to its consumers (both also depend on the broker).
		Unresolved  []jsonEdge `json:"unresolved"`
		EntryPoints []jsonEdge `json:"entrypoints"`
		Topics      []jsonEdge `json:"topics"`
	}{Focus: v.opts.Focus, Title: v.title, Services: []jsonService{}, Edges: []jsonEdge{}, Unresolved: []jsonEdge{}, EntryPoints: []jsonEdge{},
		Topics: []jsonEdge{}}
	for _, s := range v.g.Services {
		if s.Kind == graph.KindUnresolved {
			continue
		}
		js := jsonService{Name: s.Name, Kind: s.Kind, Aliases: []string{}, Repo: s.Repo, Language: s.Language, Directory: s.Directory,
			Namespace: s.Namespace, Declared: []jsonEvidence{}, Folders: []jsonFolder{}}
		for _, d := range s.OwnedDirs() {
			js.Folders = append(js.Folders, jsonFolder{d.Repo, d.Path, d.Why})
		}
		for _, d := range s.Declared {
			js.Declared = append(js.Declared, jsonEvidence{d.Repo + "/" + d.File, d.Line, d.ChunkID})
		}
		for _, a := range s.Aliases {
			js.Aliases = append(js.Aliases, a.Name)
		}
		if d, ok := v.opts.Depth[s.Name]; ok {
			js.Depth = &d
		}
		out.Services = append(out.Services, js)
	}
	toJSON := func(e graph.Edge) jsonEdge {
		je := jsonEdge{Source: e.Source, Target: e.Target, Type: e.Type, Method: e.Method, Path: e.Path, Handler: e.Handler,
			URL: e.URL, Confidence: e.Confidence, Via: e.Via, Evidence: []jsonEvidence{}}
		for _, ev := range e.Evidence {
			je.Evidence = append(je.Evidence, jsonEvidence{ev.Repo + "/" + ev.File, ev.Line, ev.ChunkID})
		}
		return je
	}
	deps, unresolved, entry, topics := v.g.Partition()
	for _, e := range deps {
		out.Edges = append(out.Edges, toJSON(e))
	}
	for _, e := range unresolved {
		je := toJSON(e)
		je.Target = strings.TrimPrefix(je.Target, "?")
		out.Unresolved = append(out.Unresolved, je)
	}
	for _, e := range entry {
		out.EntryPoints = append(out.EntryPoints, toJSON(e))
	}
	for _, e := range topics {
		out.Topics = append(out.Topics, toJSON(e))
	}
	sort.SliceStable(out.Services, func(i, j int) bool { return out.Services[i].Name < out.Services[j].Name })
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// writeSVG renders the view with Graphviz's dot program.
func writeSVG(ctx context.Context, w io.Writer, v view) error {
	dot, err := exec.LookPath("dot")
	if err != nil {
		return errors.New("--format svg needs Graphviz's dot program on PATH (e.g. apt install graphviz); or use --format dot and render it elsewhere")
	}
	var in, errb bytes.Buffer
	if err := graphviz.DOT(&in, v.g, v.opts); err != nil {
		return err
	}
	c := exec.CommandContext(ctx, dot, "-Tsvg")
	c.Stdin, c.Stdout, c.Stderr = &in, w, &errb
	if err := c.Run(); err != nil {
		return fmt.Errorf("dot -Tsvg: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// firstOf joins the first shown items and says how many more there are
// (--json lists them all).
func firstOf(st textStyles, items []string, shown int) string {
	if len(items) <= shown {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:shown], ", ") + st.dim(fmt.Sprintf(" … %d more (--json lists them)", len(items)-shown))
}
