// Package graphviz writes the service graph as Graphviz DOT and as Mermaid
// flowcharts, deterministically: the same graph gives the same bytes, so
// that the output can be golden-tested, diffed and committed next to a
// README.
package graphviz

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"coderag/core/graph"
)

// Options shape the drawing.
type Options struct {
	// Cluster groups services by "repo" or "namespace"; "" draws no groups.
	Cluster string
	// Focus is the service a view is about; it is drawn filled.
	Focus string
	// Depth, when set, shades services by their distance from Focus (a
	// blast radius): depth 1 darkest.
	Depth map[string]int
	// Title is drawn above the graph.
	Title string
	// LeftToRight lays the graph out left to right (the default is top
	// to bottom).
	LeftToRight bool
}

// Colours of the blast radius by depth; the focus is red.
var (
	focusColour = "#d62728"
	depthColour = []string{"", "#ff9896", "#ffbb78", "#ffe8a3", "#fff5d6"}
	kindColour  = map[string]string{graph.KindDatabase: "#dbe9f6", graph.KindCache: "#e5f5e0", graph.KindQueue: "#efe5f7",
		graph.KindExternal: "#ffffff", graph.KindIngress: "#fdf0d5", graph.KindUnresolved: "#ffffff", graph.KindService: "#f2f2f2"}
	dotShape = map[string]string{graph.KindDatabase: "cylinder", graph.KindCache: "cylinder", graph.KindQueue: "cds",
		graph.KindTopic: "parallelogram", graph.KindExternal: "box", graph.KindIngress: "invhouse", graph.KindUnresolved: "box",
		graph.KindService: "box"}
)

// shapeOf is a node kind's DOT shape: a box for a kind it does not know,
// so that the drawing stays valid DOT.
func shapeOf(kind string) string {
	if s, ok := dotShape[kind]; ok {
		return s
	}
	return "box"
}

// EdgeLabel is how an edge is labelled: its protocol and method and path
// ("http GET /users/{id}"), or its topic.
func EdgeLabel(e graph.Edge) string {
	parts := []string{e.Type}
	switch {
	case e.Type == graph.EdgeQueue:
		parts = append(parts, e.Method)
	case e.Method != "":
		parts = append(parts, e.Method)
	}
	if e.Path != "" && e.Path != e.Target && e.Path != e.Source {
		parts = append(parts, e.Path)
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

func groupOf(s graph.Service, by string) string {
	switch by {
	case "repo":
		return s.Repo
	case "namespace":
		return s.Namespace
	}
	return ""
}

func (o Options) fill(s graph.Service) (fill, font string) {
	if s.Name == o.Focus && o.Focus != "" {
		return focusColour, "#ffffff"
	}
	if d, ok := o.Depth[s.Name]; ok && d > 0 {
		return depthColour[min(d, len(depthColour)-1)], "#000000"
	}
	if c, ok := kindColour[s.Kind]; ok {
		return c, "#000000"
	}
	return "#f2f2f2", "#000000"
}

func (o Options) hot(e graph.Edge) bool {
	if o.Depth == nil {
		return false
	}
	_, a := o.Depth[e.Source]
	_, b := o.Depth[e.Target]
	return (a || e.Source == o.Focus) && (b || e.Target == o.Focus)
}

// nodeLabel is a service's name with its language or kind.
func nodeLabel(s graph.Service) string {
	switch {
	case s.Language != "":
		return s.Name + "\n" + s.Language
	case s.Kind != graph.KindService:
		return s.Name + "\n" + s.Kind
	}
	return s.Name
}

// groups returns the services by group, groups sorted, "" last.
func groups(g *graph.Graph, by string) ([]string, map[string][]graph.Service) {
	m := map[string][]graph.Service{}
	for _, s := range g.Services {
		k := groupOf(s, by)
		m[k] = append(m[k], s)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if _, ok := m[""]; ok {
		keys = append(keys, "")
	}
	return keys, m
}

// DOT writes g as a Graphviz digraph.
func DOT(w io.Writer, g *graph.Graph, o Options) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("digraph coderag {\n")
	rank := "TB"
	if o.LeftToRight {
		rank = "LR"
	}
	p("  graph [rankdir=%s, fontname=\"Helvetica\", fontsize=12, nodesep=0.4, ranksep=0.6", rank)
	if o.Title != "" {
		p(", label=%s, labelloc=t", quote(o.Title))
	}
	p("];\n")
	p("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n")
	p("  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n")
	keys, byGroup := groups(g, o.Cluster)
	for i, k := range keys {
		indent := "  "
		if k != "" {
			p("  subgraph cluster_%d {\n    label=%s; style=\"rounded,dashed\"; color=\"#999999\";\n", i, quote(k))
			indent = "    "
		}
		for _, s := range byGroup[k] {
			fill, font := o.fill(s)
			style := "rounded,filled"
			if s.Kind == graph.KindExternal || s.Kind == graph.KindUnresolved {
				style = "rounded,filled,dashed"
			}
			if s.Kind == graph.KindDatabase || s.Kind == graph.KindCache || s.Kind == graph.KindQueue || s.Kind == graph.KindIngress {
				style = "filled"
			}
			extra := ""
			if s.Kind == graph.KindUnresolved {
				extra = ", color=\"#d62728\""
			}
			p("%s%s [label=%s, shape=%s, style=%s, fillcolor=%s, fontcolor=%s%s];\n", indent, quote(s.Name), quote(nodeLabel(s)),
				shapeOf(s.Kind), quote(style), quote(fill), quote(font), extra)
		}
		if k != "" {
			p("  }\n")
		}
	}
	for _, e := range g.Edges {
		attrs := []string{"label=" + quote(EdgeLabel(e)), "tooltip=" + quote(fmt.Sprintf("%s (confidence %.2f)", e.Via, e.Confidence))}
		switch {
		case o.hot(e):
			attrs = append(attrs, `color="#d62728"`, "penwidth=2")
		case e.Confidence < 0.7:
			attrs = append(attrs, `style=dashed`)
		}
		if e.Type == graph.EdgeQueue {
			attrs = append(attrs, `arrowhead=vee`)
		}
		p("  %s -> %s [%s];\n", quote(e.Source), quote(e.Target), strings.Join(attrs, ", "))
	}
	p("}\n")
	return bw.Flush()
}

// mermaidText escapes text for a quoted Mermaid label: Mermaid draws a
// label as HTML, so a compose service named db<main> would lose its
// name or break the drawing.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", "<br/>").Replace(s)
}

// Mermaid writes g as a Mermaid flowchart.
func Mermaid(w io.Writer, g *graph.Graph, o Options) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	if o.Title != "" {
		p("---\ntitle: %s\n---\n", o.Title)
	}
	dir := "TB"
	if o.LeftToRight {
		dir = "LR"
	}
	p("flowchart %s\n", dir)
	ids := map[string]string{}
	for i, s := range g.Services {
		ids[s.Name] = fmt.Sprintf("n%d", i+1)
	}
	shape := func(s graph.Service) string {
		l := `"` + mermaidText(nodeLabel(s)) + `"`
		switch s.Kind {
		case graph.KindDatabase, graph.KindCache:
			return "[(" + l + ")]"
		case graph.KindQueue:
			return "[/" + l + "/]"
		case graph.KindTopic:
			return "[/" + l + "\\]"
		case graph.KindExternal:
			return "[[" + l + "]]"
		case graph.KindIngress:
			return ">" + l + "]"
		case graph.KindUnresolved:
			return "{{" + l + "}}"
		}
		return "(" + l + ")"
	}
	keys, byGroup := groups(g, o.Cluster)
	for i, k := range keys {
		indent := "  "
		if k != "" {
			p("  subgraph g%d[\"%s\"]\n", i+1, mermaidText(k))
			indent = "    "
		}
		for _, s := range byGroup[k] {
			p("%s%s%s\n", indent, ids[s.Name], shape(s))
		}
		if k != "" {
			p("  end\n")
		}
	}
	var hot []int
	for i, e := range g.Edges {
		arrow := "-->"
		if e.Confidence < 0.7 {
			arrow = "-.->"
		}
		p("  %s %s|\"%s\"| %s\n", ids[e.Source], arrow, mermaidText(EdgeLabel(e)), ids[e.Target])
		if o.hot(e) {
			hot = append(hot, i)
		}
	}
	if o.Focus != "" || len(o.Depth) > 0 {
		p("  classDef focus fill:%s,color:#fff,stroke:#8b0000\n", focusColour)
		for d := 1; d < len(depthColour); d++ {
			p("  classDef depth%d fill:%s\n", d, depthColour[d])
		}
		if id, ok := ids[o.Focus]; ok {
			p("  class %s focus\n", id)
		}
		byDepth := map[int][]string{}
		for name, d := range o.Depth {
			if id, ok := ids[name]; ok && d > 0 && name != o.Focus {
				byDepth[min(d, len(depthColour)-1)] = append(byDepth[min(d, len(depthColour)-1)], id)
			}
		}
		for d := 1; d < len(depthColour); d++ {
			if len(byDepth[d]) > 0 {
				sort.Strings(byDepth[d])
				p("  class %s depth%d\n", strings.Join(byDepth[d], ","), d)
			}
		}
		if len(hot) > 0 {
			var idx []string
			for _, i := range hot {
				idx = append(idx, fmt.Sprint(i))
			}
			p("  linkStyle %s stroke:%s,stroke-width:2px\n", strings.Join(idx, ","), focusColour)
		}
	}
	return bw.Flush()
}
