package graph

import (
	"fmt"
	"strings"
	"testing"

	"coderag/core"
)

// synthetic returns the facts of a system of n services in which every
// service calls perService routes of other services through env vars its
// Deployment sets: n*perService HTTP calls, as many distinct edges.
func synthetic(n, perService int) Input {
	var in Input
	name := func(i int) string { return fmt.Sprintf("svc-%03d", i) }
	for i := 0; i < n; i++ {
		s := name(i)
		dep := core.ResourceAt{Repo: "platform", File: "deploy/" + s + ".yaml", ChunkID: "d" + s,
			Resource: core.Resource{Kind: "Deployment", Name: s, Service: s, Namespace: "prod", Line: 1}}
		for j := 1; j <= 10; j++ {
			t := name((i + j) % n)
			dep.Env = append(dep.Env, core.EnvVar{Name: fmt.Sprintf("SVC_%d_URL", j), Value: "http://" + t + ".prod.svc.cluster.local:8080"})
		}
		in.Resources = append(in.Resources, dep, core.ResourceAt{Repo: "platform", File: "deploy/" + s + ".yaml", ChunkID: "s" + s,
			Resource: core.Resource{Kind: "Service", Name: s, Service: s, Namespace: "prod", Line: 20}})
		in.Files = append(in.Files, [2]string{"platform", "services/" + s + "/go.mod"}, [2]string{"platform", "services/" + s + "/main.go"})
		for k := 0; k < perService; k++ {
			in.Routes = append(in.Routes, core.RouteAt{Repo: "platform", File: "services/" + s + "/main.go", ChunkID: "r" + s,
				Route: core.Route{Method: "GET", Path: fmt.Sprintf("/%s/r%d/{id}", s, k), Line: k + 1}})
		}
	}
	for i := 0; i < n; i++ {
		for k := 0; k < perService; k++ {
			j := k%10 + 1
			t := name((i + j) % n)
			in.Calls = append(in.Calls, core.CallAt{Repo: "platform", File: "services/" + name(i) + "/client.go", ChunkID: "c" + name(i),
				Call: core.Call{Kind: core.CallHTTP, Method: "GET", Target: fmt.Sprintf("/%s/r%d/{x}", t, k), Base: fmt.Sprintf("env:SVC_%d_URL", j),
					Env: fmt.Sprintf("SVC_%d_URL", j), Origin: core.FromTemplate, Line: k + 1}})
		}
	}
	return in
}

// BenchmarkBuild builds the graph of 100 services and 10,000 edges.
func BenchmarkBuild(b *testing.B) {
	in := synthetic(100, 100)
	var g *Graph
	for b.Loop() {
		g = Build(in)
	}
	if len(g.Edges) != 10000 {
		b.Fatalf("%d edges", len(g.Edges))
	}
	b.ReportMetric(float64(len(g.Services)), "services")
	b.ReportMetric(float64(len(g.Edges)), "edges")
}

// BenchmarkBlastRadius asks for the blast radius of one service, depth 3,
// in that graph: from scratch (as coderag graph does), and with the
// index kept (as a UI moving between services does).
func BenchmarkBlastRadius(b *testing.B) {
	g := Build(synthetic(100, 100))
	var hops []Hop
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			hops = g.BlastRadius("svc-050", 3, 0)
		}
	})
	ix := g.Index(0)
	b.Run("indexed", func(b *testing.B) {
		for b.Loop() {
			hops = ix.Upstream("svc-050", 3)
		}
	})
	b.ReportMetric(float64(len(hops)), "services-reached")
}

// copies returns the facts of a repository holding n copies of one
// deployment (overlays, or teams' copies of a template): five services
// whose workloads read their peers' addresses from the one ConfigMap name
// every copy defines, a third of the copies pointing one key elsewhere.
func copies(n int) Input {
	var in Input
	svcs := []string{"storefront", "basket", "billing", "inventory", "delivery"}
	for c := 0; c < n; c++ {
		dir := fmt.Sprintf("team%03d/deploy/", c)
		cm := core.ResourceAt{Repo: "mono", File: dir + "config.yaml", ChunkID: fmt.Sprintf("cm%d", c),
			Resource: core.Resource{Kind: "ConfigMap", Name: "shop-config", Line: 1, Data: map[string]string{}}}
		for _, s := range svcs {
			host := s
			if s == "billing" && c%3 == 0 {
				host = "billing-sandbox"
			}
			cm.Data[strings.ToUpper(s)+"_URL"] = "http://" + host + ":8080"
		}
		in.Resources = append(in.Resources, cm)
		for _, s := range svcs {
			dep := core.ResourceAt{Repo: "mono", File: dir + s + ".yaml", ChunkID: fmt.Sprintf("d%d%s", c, s),
				Resource: core.Resource{Kind: "Deployment", Name: s, Service: s, Line: 1}}
			for _, t := range svcs {
				if t != s {
					dep.Env = append(dep.Env, core.EnvVar{Name: strings.ToUpper(t) + "_URL", ConfigMap: "shop-config", Key: strings.ToUpper(t) + "_URL"})
				}
			}
			in.Resources = append(in.Resources, dep, core.ResourceAt{Repo: "mono", File: dir + s + ".yaml", ChunkID: fmt.Sprintf("s%d%s", c, s),
				Resource: core.Resource{Kind: "Service", Name: s, Service: s, Line: 20}})
		}
	}
	return in
}

// BenchmarkBuildCopies builds the graph of a repository with 150 copies
// of a deployment that shares a ConfigMap name: the variants of a
// ConfigMap are compared once per ConfigMap and service, not per workload
// (it took minutes before).
func BenchmarkBuildCopies(b *testing.B) {
	in := copies(150)
	var g *Graph
	for b.Loop() {
		g = Build(in)
	}
	if len(g.Edges) == 0 {
		b.Fatal("no edges")
	}
	b.ReportMetric(float64(len(g.Services)), "services")
	b.ReportMetric(float64(len(g.Edges)), "edges")
}

// tracedCalls returns the facts of one service whose calls all take their
// address from a field that fields fields of many types set from one
// another (as a large Go service's option structs do), none of them ever
// reaching an address: every call's trace explores the same expressions.
func tracedCalls(calls, types int) Input {
	in := Input{Files: [][2]string{{"platform", "services/gateway/go.mod"}, {"platform", "services/gateway/main.go"}}}
	in.Resources = append(in.Resources, core.ResourceAt{Repo: "platform", File: "deploy/gateway.yaml", ChunkID: "dgw",
		Resource: core.Resource{Kind: "Deployment", Name: "gateway", Service: "gateway", Namespace: "prod", Line: 1}})
	for k := 0; k < types; k++ {
		in.Bindings = append(in.Bindings, core.BindingAt{Repo: "platform", File: fmt.Sprintf("services/gateway/opts%d.go", k%7), ChunkID: "b",
			Binding: core.Binding{Kind: "field", Type: fmt.Sprintf("Options%d", k), Field: "address", Expr: "opts.address", Line: k + 1}})
	}
	for i := 0; i < calls; i++ {
		in.Calls = append(in.Calls, core.CallAt{Repo: "platform", File: fmt.Sprintf("services/gateway/client%d.go", i%7), ChunkID: "c",
			Call: core.Call{Kind: core.CallHTTP, Method: "GET", Target: fmt.Sprintf("/r%d", i), Base: "expr:c.address",
				Origin: core.FromTemplate, Line: i + 1}})
	}
	return in
}

// BenchmarkBuildTraced builds the graph of tracedCalls(500, 60). Without
// trace's memory every call walked the same fields again, 60 of them at
// each of 4 steps (a real service of 13,000 chunks took 26 s).
func BenchmarkBuildTraced(b *testing.B) {
	in := tracedCalls(500, 60)
	var g *Graph
	for b.Loop() {
		g = Build(in)
	}
	b.ReportMetric(float64(len(g.Edges)), "edges")
}

// BenchmarkBuildPrograms builds the graph of one Go module of 2,000
// packages whose 40 programs 400 workloads run by command (ten copies of
// each workload, as overlays and charts repeat them), each program folder
// named like a library folder elsewhere and a folder of API types.
func BenchmarkBuildPrograms(b *testing.B) {
	var in Input
	in.GoImports = map[[2]string][]string{}
	const module = "example.org/platform"
	for p := 0; p < 40; p++ {
		prog := fmt.Sprintf("prog%02d", p)
		in.Files = append(in.Files, [2]string{"platform", "cmd/" + prog + "/main.go"})
		var imps []string
		for k := 0; k < 50; k++ {
			pkg := fmt.Sprintf("pkg/%s/part%02d", prog, k)
			in.Files = append(in.Files, [2]string{"platform", pkg + "/x.go"})
			imps = append(imps, module+"/"+pkg)
			in.GoImports[[2]string{"platform", pkg + "/x.go"}] = []string{module + "/pkg/shared", module + "/apis/" + prog + "/v1"}
		}
		in.GoImports[[2]string{"platform", "cmd/" + prog + "/main.go"}] = imps
		in.Files = append(in.Files, [2]string{"platform", "pkg/lib/" + prog + "/lib.go"}, [2]string{"platform", "apis/" + prog + "/v1/types.go"})
		in.GoImports[[2]string{"platform", "pkg/lib/" + prog + "/lib.go"}] = nil
		in.GoImports[[2]string{"platform", "pkg/shared/" + prog + ".go"}] = []string{module + "/pkg/lib/" + prog}
		for c := 0; c < 10; c++ {
			in.Resources = append(in.Resources, core.ResourceAt{Repo: "platform", File: fmt.Sprintf("deploy/%d/%s.yaml", c, prog), ChunkID: prog,
				Resource: core.Resource{Kind: "Deployment", Name: prog, Service: prog, Line: 1, Images: []string{"registry.example.org/platform"},
					Programs: []string{"/usr/local/bin/platform-" + prog}}})
		}
	}
	in.Files = append(in.Files, [2]string{"platform", "pkg/shared/shared.go"})
	var g *Graph
	for b.Loop() {
		g = Build(in)
	}
	owned := 0
	for _, s := range g.Services {
		owned += len(s.Dirs)
	}
	if owned < 40*51 {
		b.Fatalf("%d folders owned", owned)
	}
	b.ReportMetric(float64(owned), "folders")
}
