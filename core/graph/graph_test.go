package graph_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/ingest"
	"coderag/sqlite"
)

// crawl extracts a txtar workspace, crawls its repos (the "repo NAME"
// lines of the comment) and returns the graph.
func crawl(t testing.TB, archive string) (*graph.Graph, *txtar.Archive) {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range a.Files {
		if f.Name == "want" {
			continue
		}
		p := filepath.Join(dir, f.Name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sources []core.Source
	for _, l := range strings.Split(string(a.Comment), "\n") {
		if name, ok := strings.CutPrefix(l, "repo "); ok {
			sources = append(sources, core.Source{Kind: core.SourceRepo, Path: filepath.Join(dir, name), Name: name})
		}
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "g.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sum, err := ingest.New(db, ingest.Options{}).Run(ctx, sources)
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	g, err := db.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkOwners(t, db, a)
	return g, a
}

// checkOwners compares the service each file's chunks belong to with the
// archive's "owners" list ("repo/path service", "-" for none), if any.
func checkOwners(t testing.TB, db *sqlite.DB, a *txtar.Archive) {
	t.Helper()
	for _, f := range a.Files {
		if f.Name != "owners" {
			continue
		}
		hits, err := db.List(context.Background(), core.Filter{}, 10000)
		if err != nil {
			t.Fatal(err)
		}
		owner := map[string]string{}
		for _, h := range hits {
			owner[h.Chunk.RepoName+"/"+h.Chunk.FilePath] = h.Chunk.ServiceName
		}
		for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
			file, want, _ := strings.Cut(l, " ")
			if want == "-" {
				want = ""
			}
			got, ok := owner[file]
			if !ok {
				t.Errorf("owners: no chunk of %s", file)
			} else if got != want {
				t.Errorf("owners: %s belongs to %q, want %q", file, got, want)
			}
		}
	}
}

func key(src, dst, typ, method, path string) string {
	return fmt.Sprintf("%s -> %s %s %s %s", src, dst, typ, method, path)
}

// TestResolutionPaths crawls one small workspace per way of wiring
// services together and compares the resolved edges with the archive's
// "want" list: "a -> b type method path" must be there, "!a -> b" must
// not (in any form), and nothing else may be; "unresolved" lists the
// edges to what could not be resolved, each with a part of its reason.
func TestResolutionPaths(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if len(files) < 6 {
		t.Fatalf("found %d fixtures", len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			g, a := crawl(t, f)
			got := map[string]graph.Edge{}
			pairs := map[string]bool{}
			for _, e := range g.Edges {
				if s := g.Service(e.Target); s != nil && s.Kind == graph.KindUnresolved {
					continue
				}
				got[key(e.Source, e.Target, e.Type, e.Method, e.Path)] = e
				pairs[e.Source+" -> "+e.Target] = true
			}
			want := map[string]bool{}
			for _, f := range a.Files {
				if f.Name != "want" {
					continue
				}
				for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					if strings.TrimSpace(l) == "" {
						continue
					}
					if neg, ok := strings.CutPrefix(l, "!"); ok {
						if pairs[neg] {
							t.Errorf("edge %s must not exist", neg)
						}
						continue
					}
					fs := strings.Fields(l)
					for i := range fs {
						if fs[i] == "-" {
							fs[i] = ""
						}
					}
					k := key(fs[0], fs[2], fs[3], fs[4], fs[5])
					want[k] = true
					e, ok := got[k]
					if !ok {
						t.Errorf("missing edge %s", k)
						continue
					}
					if len(e.Evidence) == 0 || e.Evidence[0].Line == 0 || e.Confidence <= 0 || e.Via == "" {
						t.Errorf("edge %s: evidence %v, confidence %v, via %q", k, e.Evidence, e.Confidence, e.Via)
					}
				}
			}
			// "nodes": "name kind" must be a node of that kind, "!name"
			// must not be a node.
			for _, f := range a.Files {
				if f.Name != "nodes" {
					continue
				}
				for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					if neg, ok := strings.CutPrefix(l, "!"); ok {
						if g.Service(neg) != nil {
							t.Errorf("node %s must not exist", neg)
						}
						continue
					}
					name, kind, _ := strings.Cut(l, " ")
					if s := g.Service(name); s == nil || s.Kind != kind {
						t.Errorf("node %s: %+v, want kind %s", name, s, kind)
					}
				}
			}
			// "places": "name dir" must be the folder the node's code
			// is in ("-" for none known).
			for _, f := range a.Files {
				if f.Name != "places" {
					continue
				}
				for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					name, dir, _ := strings.Cut(l, " ")
					if dir == "-" {
						dir = ""
					}
					if s := g.Service(name); s == nil || s.Directory != dir {
						t.Errorf("place of %s: %+v, want %q", name, s, dir)
					}
				}
			}
			// "unresolved": "src -> target | reason" must be an edge to
			// an unresolved node whose reason holds the text after |;
			// "!src -> target" must be none.
			for _, f := range a.Files {
				if f.Name != "unresolved" {
					continue
				}
				for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					if neg, ok := strings.CutPrefix(l, "!"); ok {
						src, dst, _ := strings.Cut(strings.TrimSpace(neg), " -> ")
						for _, e := range g.Edges {
							if e.Source == src && e.Target == dst {
								t.Errorf("unresolved edge %s -> %s must not exist (%s)", src, dst, e.Via)
							}
						}
						continue
					}
					pair, reason, _ := strings.Cut(l, " | ")
					src, dst, _ := strings.Cut(strings.TrimSpace(pair), " -> ")
					found := false
					for _, e := range g.Edges {
						if e.Source == src && e.Target == dst && strings.Contains(e.Via, reason) {
							found = true
						}
					}
					if s := g.Service(dst); !found || s == nil || s.Kind != graph.KindUnresolved {
						t.Errorf("no unresolved edge %s -> %s saying %q", src, dst, reason)
					}
				}
			}
			var extra []string
			for k, e := range got {
				if !want[k] {
					extra = append(extra, fmt.Sprintf("%s (%s)", k, e.Via))
				}
			}
			sort.Strings(extra)
			for _, x := range extra {
				t.Errorf("extra edge %s", x)
			}
			if t.Failed() {
				for _, e := range g.Edges {
					t.Logf("edge %s: %.2f %s %v", key(e.Source, e.Target, e.Type, e.Method, e.Path), e.Confidence, e.Via, e.Evidence)
				}
			}
		})
	}
}

// TestGRPCFrameworkServices checks that clients of gRPC's own services
// (health, reflection) whose address is unknown are no unresolved
// dependency, and an application's own HealthService still is.
func TestGRPCFrameworkServices(t *testing.T) {
	g, _ := crawl(t, filepath.Join("testdata", "grpcframework.txtar"))
	var unresolved []string
	for _, e := range g.Edges {
		if s := g.Service(e.Target); s != nil && s.Kind == graph.KindUnresolved {
			unresolved = append(unresolved, e.Target+" "+e.Method)
		}
	}
	if strings.Join(unresolved, ", ") != "?grpc:Health Health" {
		t.Errorf("unresolved: %q, want the application's HealthService alone", unresolved)
	}
}

// TestTestImageFolder checks that a folder of a test named after a
// service (test/conformance/idp, holding a Dockerfile) is none of the
// service's folders.
func TestTestImageFolder(t *testing.T) {
	g, _ := crawl(t, filepath.Join("testdata", "dockerfilefolder.txtar"))
	s := g.Service("idp")
	if s == nil {
		t.Fatal("no service idp")
	}
	for _, d := range s.Dirs {
		if strings.HasPrefix(d.Path, "test/") || strings.HasPrefix(d.Path, ".docker") {
			t.Errorf("idp owns %s (%s)", d.Path, d.Why)
		}
	}
}

// TestRepositoryLanguage checks that a repository that stands for its
// code, as a node made from its Dockerfile or because no service owns
// its code (devcompose), has the language its code is in.
func TestRepositoryLanguage(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		repos   []string
	}{
		{"dockerfilerepo.txtar", []string{"inventory", "webapp"}},
		{"devcompose.txtar", []string{"ledger"}},
	} {
		g, _ := crawl(t, filepath.Join("testdata", tt.fixture))
		for _, name := range tt.repos {
			s := g.Service(name)
			if s == nil {
				t.Errorf("%s: no service %s", tt.fixture, name)
				continue
			}
			if s.Kind != graph.KindService || s.Language != "go" || s.Repo != name {
				t.Errorf("%s: %s: kind %q, language %q, repo %q; want service, go, %s", tt.fixture, name, s.Kind, s.Language, s.Repo, name)
			}
		}
		if s := g.Service("kit"); s != nil {
			t.Errorf("library kit is a node: %+v", s)
		}
	}
}

// TestSelfRegisteredGRPC checks the reason an unresolved gRPC call gives
// when the only code registering the service is the caller's own.
func TestSelfRegisteredGRPC(t *testing.T) {
	g, _ := crawl(t, filepath.Join("testdata", "selfgrpc.txtar"))
	found := false
	for _, e := range g.Edges {
		if e.Source != "meter" || e.Type != graph.EdgeGRPC {
			continue
		}
		found = true
		if !strings.HasPrefix(e.Target, "?") || e.Via != "no address, and only meter's own code registers Usage" {
			t.Errorf("edge %s -> %s: via %q", e.Source, e.Target, e.Via)
		}
	}
	if !found {
		t.Error("no gRPC call of meter")
	}
}

// TestAzdProvenance checks that an address azd writes into a Kustomize
// .env says where it comes from: the project file's line (also the
// evidence) and the Terraform output it was filled from.
func TestAzdProvenance(t *testing.T) {
	g, _ := crawl(t, filepath.Join("testdata", "azd.txtar"))
	for _, e := range g.Edges {
		if e.Source != "invoicer" || e.Target != "control.cloudhost.net" {
			continue
		}
		want := "env STORAGE_KEYS_URL from ConfigMap invoicer (deploy/overlays/azd/invoicer/kustomization.yaml), written to deploy/overlays/azd/invoicer/.env by azd from azure.yaml:19, Terraform output AZURE_STORAGE_KEYS_URL (infra/outputs.tf:1)"
		if e.Via != want {
			t.Errorf("via %q\nwant %q", e.Via, want)
		}
		if !slices.ContainsFunc(e.Evidence, func(ev graph.Evidence) bool { return ev.File == "azure.yaml" && ev.Line == 19 }) {
			t.Errorf("evidence %+v lacks azure.yaml:19", e.Evidence)
		}
		return
	}
	t.Error("no edge invoicer -> control.cloudhost.net")
}

// TestChartAliases: a subchart deploying one service is another name of
// it; one deploying two is no name of either.
func TestChartAliases(t *testing.T) {
	g, _ := crawl(t, filepath.Join("testdata", "helmsubcharts.txtar"))
	if s := g.Lookup("quota_engine"); s == nil || s.Name != "quota-engine-server" {
		t.Errorf("Lookup(quota_engine) = %+v, want quota-engine-server", s)
	}
	if s := g.Lookup("audit"); s != nil {
		t.Errorf("Lookup(audit) = %s, want none", s.Name)
	}
	if name, err := g.Resolve("quota_engine"); err != nil || name != "quota-engine-server" {
		t.Errorf("Resolve(quota_engine) = %q, %v", name, err)
	}
}

// TestMountIsNoDirectory: a service's directory is a folder of its code
// (here the repository), not a folder its compose service mounts.
func TestMountIsNoDirectory(t *testing.T) {
	g, _ := crawl(t, filepath.Join("testdata", "mountdir.txtar"))
	s := g.Service("edge")
	if s == nil || s.Directory != "." {
		t.Fatalf("edge = %+v, want its directory the repository", s)
	}
	if !slices.ContainsFunc(s.Dirs, func(d graph.Dir) bool { return d.Path == "guides/tls/certs" }) {
		t.Errorf("edge's folders %+v lack the mounted one", s.Dirs)
	}
	if g.Lookup("certs") != nil {
		t.Errorf("the mounted folder's name is an alias of %s", g.Lookup("certs").Name)
	}
}

// TestSiblingRepositories: a compose build context in a repository
// crawled beside the deploy repository is that repository's root; one no
// crawled repository holds is no folder (not "ops/../pricing").
func TestSiblingRepositories(t *testing.T) {
	g, _ := crawl(t, filepath.Join("testdata", "siblingrepos.txtar"))
	for name, repo := range map[string]string{"stock": "inventory", "webshop": "webapp", "traffic": "traffic-gen"} {
		s := g.Service(name)
		if s == nil || s.Repo != repo || s.Directory != "." {
			t.Errorf("%s = %+v, want the repository %s", name, s, repo)
		}
	}
	if s := g.Service("webshop"); s != nil && !slices.ContainsFunc(s.Dirs, func(d graph.Dir) bool { return d.Repo == "webapp" && d.Path == "nginx.conf" }) {
		t.Errorf("webshop's folders %+v lack the file it mounts", s.Dirs)
	}
	for _, s := range g.Services {
		if strings.Contains(s.Directory, "..") || slices.ContainsFunc(s.Dirs, func(d graph.Dir) bool { return strings.Contains(d.Path, "..") }) {
			t.Errorf("%s: a folder outside its repository: %q %+v", s.Name, s.Directory, s.Dirs)
		}
	}
}
