package graphviz

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core/graph"
)

var update = flag.Bool("update", false, "update golden files")

// shop is a small graph with every kind of node and edge.
func shop() *graph.Graph {
	g := &graph.Graph{Services: []graph.Service{
		{Name: "ingress:web", Kind: graph.KindIngress, Repo: "platform", Namespace: "prod"},
		{Name: "web", Kind: graph.KindService, Repo: "web", Language: "typescript", Namespace: "prod"},
		{Name: "api", Kind: graph.KindService, Repo: "platform", Language: "go", Namespace: "prod"},
		{Name: "shopdb", Kind: graph.KindDatabase},
		{Name: "redis", Kind: graph.KindCache, Repo: "platform"},
		{Name: "orders.placed", Kind: graph.KindQueue},
		{Name: "payments.failed", Kind: graph.KindTopic},
		{Name: "mailer", Kind: graph.KindService, Repo: "platform", Language: "python"},
		{Name: "api.stripe.com", Kind: graph.KindExternal},
		{Name: "?env:LEGACY_URL", Kind: graph.KindUnresolved},
	}}
	edge := func(s, t, typ, m, p string, conf float64) {
		g.Edges = append(g.Edges, graph.Edge{Source: s, Target: t, Type: typ, Method: m, Path: p, Confidence: conf, Via: "test \"quoted\""})
	}
	edge("ingress:web", "web", graph.EdgeHTTP, "ANY", "/", 1)
	edge("web", "api", graph.EdgeHTTP, "GET", "/items/{id}", 0.95)
	edge("api", "shopdb", graph.EdgeDB, "", "", 0.9)
	edge("api", "redis", graph.EdgeCache, "", "", 0.9)
	edge("api", "orders.placed", graph.EdgeQueue, "publish", "orders.placed", 0.95)
	edge("orders.placed", "mailer", graph.EdgeQueue, "subscribe", "orders.placed", 0.95)
	edge("api", "payments.failed", graph.EdgeQueue, "publish", "payments.failed", 0.95)
	edge("api", "api.stripe.com", graph.EdgeHTTP, "POST", "/v1/charges", 0.9)
	edge("mailer", "?env:LEGACY_URL", graph.EdgeHTTP, "GET", "/ping", 0)
	g.Sort()
	return g
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.WriteFile(p, got, 0o644)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", p, d)
	}
}

func TestGolden(t *testing.T) {
	blast := Options{Cluster: "repo", Focus: "api", Depth: map[string]int{"web": 1, "ingress:web": 2}, Title: "blast radius of api"}
	for _, tt := range []struct {
		name  string
		write func(*bytes.Buffer, *graph.Graph, Options) error
		opts  Options
	}{
		{"shop.dot", func(b *bytes.Buffer, g *graph.Graph, o Options) error { return DOT(b, g, o) }, Options{Cluster: "repo", LeftToRight: true}},
		{"shop-blast.dot", func(b *bytes.Buffer, g *graph.Graph, o Options) error { return DOT(b, g, o) }, blast},
		{"shop.mmd", func(b *bytes.Buffer, g *graph.Graph, o Options) error { return Mermaid(b, g, o) }, Options{Cluster: "namespace", LeftToRight: true}},
		{"shop-blast.mmd", func(b *bytes.Buffer, g *graph.Graph, o Options) error { return Mermaid(b, g, o) }, blast},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := tt.write(&a, shop(), tt.opts); err != nil {
				t.Fatal(err)
			}
			tt.write(&b, shop(), tt.opts)
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatal("two writes of the same graph differ")
			}
			golden(t, tt.name, a.Bytes())
		})
	}
}

// TestDOTIsValid: every kind of node gets a shape (a topic once drew as
// "shape=," and dot refused the whole graph), and where Graphviz is
// installed, dot reads the drawing.
func TestDOTIsValid(t *testing.T) {
	kinds := []string{graph.KindService, graph.KindQueue, graph.KindTopic, graph.KindDatabase, graph.KindCache,
		graph.KindExternal, graph.KindIngress, graph.KindUnresolved, "a-kind-not-yet-drawn"}
	g := &graph.Graph{}
	for i, k := range kinds {
		g.Services = append(g.Services, graph.Service{Name: fmt.Sprintf("n%d", i), Kind: k})
	}
	var b bytes.Buffer
	if err := DOT(&b, g, Options{}); err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`shape=[,\]]`).FindString(b.String()); m != "" {
		t.Errorf("a node without a shape (%q) in:\n%s", m, b.String())
	}
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz's dot is not installed")
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = &b
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("dot -Tsvg: %v: %s", err, out)
	}
}

// TestMermaidEscapesLabels: names that hold quotes or angle brackets (a
// compose service's key can be anything) stay text in Mermaid's labels.
func TestMermaidEscapesLabels(t *testing.T) {
	g := &graph.Graph{Services: []graph.Service{
		{Name: `web"app`, Kind: graph.KindService},
		{Name: "db<main>", Kind: graph.KindDatabase},
	}, Edges: []graph.Edge{{Source: `web"app`, Target: "db<main>", Type: graph.EdgeDB, Via: "DB_HOST = db<main>"}}}
	var b bytes.Buffer
	if err := Mermaid(&b, g, Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<main>") || strings.Contains(out, `web"app`) {
		t.Errorf("a name reached a label unescaped:\n%s", out)
	}
	if !strings.Contains(out, "db#lt;main#gt;") || !strings.Contains(out, "web#quot;app") {
		t.Errorf("names not escaped as Mermaid entities:\n%s", out)
	}
}
