package pack

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/search"
)

// A tally service's files as the index would hold them.
func tallyChunks() []core.Chunk {
	var post strings.Builder
	post.WriteString("// Post records a transfer between two accounts.\nfunc (l *Tally) Post(ctx context.Context, t Transfer) error {\n")
	for i := 0; i < 30; i++ {
		if i == 15 {
			post.WriteString("\tif balance < t.Cents { return ErrInsufficientFunds }\n")
			continue
		}
		fmt.Fprintf(&post, "\tstep%d := l.prepare(ctx, %d)\n", i, i)
	}
	post.WriteString("\treturn l.commit(ctx, t)\n}")
	text := post.String()
	n := strings.Count(text, "\n") + 1
	return []core.Chunk{
		{ID: "post", RepoName: "acme", FilePath: "tally/post.go", LineStart: 10, LineEnd: 9 + n, Corpus: core.CodeLogic,
			Language: "go", SymbolName: "Tally.Post", ServiceName: "tally", ContextPrefix: "tally/post.go > Tally > Post",
			Signature: "func (l *Tally) Post(ctx context.Context, t Transfer) error", Text: text},
		{ID: "hdr", RepoName: "acme", FilePath: "tally/post.go", LineStart: 1, LineEnd: 7, Corpus: core.CodeLogic,
			Language: "go", ServiceName: "tally", ContextPrefix: "tally/post.go",
			Text: "package tally\n\nimport (\n\t\"context\"\n\t\"errors\"\n)\n"},
		{ID: "readme", RepoName: "acme", FilePath: "tally/README.md", LineStart: 1, LineEnd: 3, Corpus: core.DocReadme,
			Language: "markdown", ServiceName: "tally", Text: "# Tally\n\nRecords transfers; the balance check refuses overdrafts."},
		{ID: "deploy", RepoName: "acme", FilePath: "deploy/tally.yaml", LineStart: 1, LineEnd: 4, Corpus: core.CodeDeploy,
			Language: "yaml", ServiceName: "tally", Text: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tally"},
	}
}

type fakeSearch struct{ hits []core.Hit }

func (f fakeSearch) Search(_ context.Context, q search.Query) (search.Result, error) {
	return search.Result{Hits: f.hits, Text: q.Text}, nil
}

type fakeStore struct {
	chunks []core.Chunk
	refs   map[string][]string // chunk id -> ids of the chunks it refers to
}

func (f fakeStore) Chunk(_ context.Context, id string) (core.Chunk, error) {
	for _, c := range f.chunks {
		if c.ID == id {
			return c, nil
		}
	}
	return core.Chunk{}, fmt.Errorf("no chunk %s", id)
}

func (f fakeStore) RefTargets(_ context.Context, ids []string, _ int) (map[string][]core.Chunk, error) {
	out := map[string][]core.Chunk{}
	for _, id := range ids {
		for _, to := range f.refs[id] {
			for _, c := range f.chunks {
				if c.ID == to {
					out[id] = append(out[id], c)
				}
			}
		}
	}
	return out, nil
}

func (f fakeStore) FileChunks(_ context.Context, p string, _ int) ([]core.Chunk, error) {
	var out []core.Chunk
	for _, c := range f.chunks {
		if c.FilePath == p || strings.HasSuffix(c.FilePath, "/"+p) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (f fakeStore) SymbolChunks(_ context.Context, name string, _ int) ([]core.Chunk, error) {
	var out []core.Chunk
	for _, c := range f.chunks {
		if c.SymbolName == name {
			out = append(out, c)
		}
	}
	return out, nil
}

func tallyGraph() *graph.Graph {
	g := &graph.Graph{
		Services: []graph.Service{{Name: "tally", Kind: graph.KindService}, {Name: "frontend", Kind: graph.KindService},
			{Name: "tallydb", Kind: graph.KindDatabase}, {Name: "ingress:web", Kind: graph.KindIngress}},
		Edges: []graph.Edge{
			{Source: "frontend", Target: "tally", Type: graph.EdgeHTTP, Method: "POST", Path: "/transfers", Confidence: 0.9},
			{Source: "tally", Target: "tallydb", Type: graph.EdgeDB, Confidence: 0.9},
			{Source: "ingress:web", Target: "frontend", Type: graph.EdgeHTTP, Method: "ANY", Path: "/", Confidence: 0.9},
		},
	}
	g.Sort()
	return g
}

func hits(cs []core.Chunk, ids ...string) []core.Hit {
	var out []core.Hit
	for i, id := range ids {
		for _, c := range cs {
			if c.ID == id {
				out = append(out, core.Hit{Chunk: c, Score: 1 / float64(i+1)})
			}
		}
	}
	return out
}

// TestBudgetHolds: whatever the budget and the format, the rendered pack
// is at most the budget, and Used is its size.
func TestBudgetHolds(t *testing.T) {
	cs := tallyChunks()
	s := fakeSearch{hits(cs, "post", "readme", "deploy", "hdr")}
	for _, format := range []string{"xml", "markdown", "json"} {
		for _, budget := range []int{60, 120, 200, 300, 500, 2000} {
			p, err := Build(context.Background(), s, fakeStore{chunks: cs}, tallyGraph(), "balance check overdraft", Options{Budget: budget, Format: format})
			if err != nil {
				t.Fatal(err)
			}
			got := core.EstimateTokens(p.Render())
			if got > budget || p.Used != got {
				t.Errorf("%s, budget %d: rendered %d tokens, Used %d", format, budget, got, p.Used)
			}
		}
	}
}

// TestElision: a chunk that does not fit whole keeps its doc comment's
// first line, its signature, the matching line with its neighbours and
// its last line; ". . ." stands for the rest.
func TestElision(t *testing.T) {
	cs := tallyChunks()
	p, err := Build(context.Background(), fakeSearch{hits(cs, "post")}, fakeStore{chunks: cs}, nil, "balance", Options{Budget: 260})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || !p.Files[0].Pieces[0].Elided {
		t.Fatalf("want Tally.Post elided:\n%s", p.Render())
	}
	text := p.Files[0].Pieces[0].Text
	for _, want := range []string{"// Post records a transfer", "func (l *Tally) Post(", "step14 :=", "if balance < t.Cents", "step16 :=", ". . .", "}"} {
		if !strings.Contains(text, want) {
			t.Errorf("elided text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "step3 :=") {
		t.Errorf("elided text keeps a line far from the match:\n%s", text)
	}
	if !strings.Contains(p.Render(), "elided to the lines that match") {
		t.Errorf("the commentary does not say the chunk was elided:\n%s", p.Render())
	}
}

// TestForcedAndMerged: an included file comes first, whole, even when
// the search ranks it last; the chunks of one file are one block, in line
// order, with ". . ." over the lines between them.
func TestForcedAndMerged(t *testing.T) {
	cs := tallyChunks()
	p, err := Build(context.Background(), fakeSearch{hits(cs, "post", "readme", "hdr")}, fakeStore{chunks: cs}, nil, "transfer",
		Options{Budget: 4000, Include: []string{"deploy/tally.yaml"}, Format: "xml"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Files[0].Path != "deploy/tally.yaml" || !p.Files[0].Pieces[0].Forced {
		t.Fatalf("the included file is not first: %v", p.Files[0].Path)
	}
	var post *File
	for i := range p.Files {
		if p.Files[i].Path == "tally/post.go" {
			post = &p.Files[i]
		}
	}
	if post == nil || len(post.Pieces) != 2 || post.Pieces[0].Chunk.ID != "hdr" {
		t.Fatalf("tally/post.go is not one block with its header first: %+v", post)
	}
	out := p.Render()
	if strings.Count(out, "file: tally/post.go") != 1 || !strings.Contains(out, "lines: 1-7, 10-") {
		t.Errorf("post.go's pieces are not merged under one header:\n%s", out)
	}
	if !strings.Contains(post.content(), ")\n\n. . .\n// Post records") {
		t.Errorf("no elision line over the gap between the header and Post:\n%s", post.content())
	}
	missing, _ := Build(context.Background(), fakeSearch{}, fakeStore{chunks: cs}, nil, "", Options{Include: []string{"nope.md"}})
	if len(missing.Dropped) != 1 || !strings.Contains(missing.Dropped[0].Reason, "no such file") {
		t.Errorf("an include: of a missing file is not reported: %+v", missing.Dropped)
	}
}

// TestServicesBlock: the services of the evidence with their neighbours;
// the blast radius only when the question asks what breaks.
func TestServicesBlock(t *testing.T) {
	cs := tallyChunks()
	s := fakeSearch{hits(cs, "readme")}
	p, _ := Build(context.Background(), s, fakeStore{chunks: cs}, tallyGraph(), "how are transfers recorded", Options{})
	if len(p.Services) != 1 || p.Services[0].Name != "tally" || len(p.Services[0].BlastRadius) != 0 {
		t.Fatalf("services = %+v", p.Services)
	}
	if fmt.Sprint(p.Services[0].Upstream) != "[frontend (http POST /transfers)]" || fmt.Sprint(p.Services[0].Downstream) != "[tallydb (db)]" {
		t.Errorf("tally's neighbours = %v / %v", p.Services[0].Upstream, p.Services[0].Downstream)
	}
	p, _ = Build(context.Background(), s, fakeStore{chunks: cs}, tallyGraph(), "what breaks when tallydb is down", Options{})
	if p.Services[0].Name != "tallydb" || len(p.Services[0].BlastRadius) != 3 {
		t.Errorf("the named service's blast radius: %+v", p.Services)
	}
	// A service named by an alias only it has (the folder of its code) is
	// named; a generic word or an alias two services share names none.
	g := tallyGraph()
	for i := range g.Services {
		switch g.Services[i].Name {
		case "tallydb":
			g.Services[i].Aliases = []graph.Alias{{Name: "tallystore", Kind: "directory"}, {Name: "store", Kind: "directory"}}
		case "frontend":
			g.Services[i].Aliases = []graph.Alias{{Name: "store", Kind: "image"}, {Name: "web", Kind: "directory"}}
		}
	}
	// Targets nothing declares come after the known services, four named.
	for i := range 6 {
		u := fmt.Sprintf("?grpc:{addr%d}", i)
		g.Services = append(g.Services, graph.Service{Name: u, Kind: graph.KindUnresolved})
		g.Edges = append(g.Edges, graph.Edge{Source: "tally", Target: u, Type: graph.EdgeGRPC, Confidence: 0.5})
	}
	g.Sort()
	p, _ = Build(context.Background(), s, fakeStore{chunks: cs}, g, "how are transfers recorded", Options{})
	if d := p.Services[0].Downstream; len(d) != 6 || d[0] != "tallydb (db)" || !strings.HasPrefix(d[1], "?grpc:{addr0}") || d[5] != "and 2 more targets no deploy file names" {
		t.Errorf("tally depends on %q", d)
	}
	for _, tt := range []struct{ query, want string }{
		{"what breaks when tallystore is down", "tallydb"},
		{"what breaks when the store is down", "tally"},
		{"what breaks when web is down", "tally"},
	} {
		p, _ = Build(context.Background(), s, fakeStore{chunks: cs}, g, tt.query, Options{})
		if len(p.Services) == 0 || p.Services[0].Name != tt.want {
			t.Errorf("%q: services %+v, want %s first", tt.query, p.Services, tt.want)
		}
	}
}

// TestFollowReferences: a chunk two hits call ranks above a hit that only
// matches words, and joins the pack though the search did not find it;
// with Follow 0 the search's order stands.
func TestFollowReferences(t *testing.T) {
	chunk := func(id, file string) core.Chunk {
		return core.Chunk{ID: id, RepoName: "acme", FilePath: file, LineStart: 1, LineEnd: 3, Corpus: core.CodeLogic,
			Language: "go", SymbolName: id, Text: "func " + id + "() {\n\treturn\n}"}
	}
	cs := []core.Chunk{chunk("transfer", "a.go"), chunk("refund", "b.go"), chunk("overdraft", "c.go"), chunk("checkBalance", "d.go")}
	st := fakeStore{chunks: cs, refs: map[string][]string{"transfer": {"checkBalance"}, "refund": {"checkBalance"}}}
	s := fakeSearch{hits(cs, "transfer", "refund", "overdraft")}
	order := func(follow float64) string {
		p, err := Build(context.Background(), s, st, nil, "balance", Options{Follow: follow, Format: "json"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range p.Files {
			ids = append(ids, f.Pieces[0].Chunk.ID)
		}
		return strings.Join(ids, " ")
	}
	if got := order(0); got != "transfer refund overdraft" {
		t.Errorf("Follow 0: %s", got)
	}
	if got := order(0.5); got != "checkBalance transfer refund overdraft" && got != "transfer checkBalance refund overdraft" {
		t.Errorf("Follow 0.5: %s, want checkBalance (called by two hits) above overdraft", got)
	}
	if got := order(-1); !strings.Contains(got, "checkBalance") || strings.Index(got, "checkBalance") > strings.Index(got, "overdraft") {
		t.Errorf("default Follow: %s", got)
	}
}

// TestFollowServiceEdges: a hit that calls another service's route leads
// the walk to the route's handler, which joins the pack.
func TestFollowServiceEdges(t *testing.T) {
	client := core.Chunk{ID: "client", RepoName: "web", FilePath: "api/tally.ts", LineStart: 1, LineEnd: 3, Corpus: core.CodeLogic,
		Text: "export function transfer(t) {\n  return post('/transfers', t)\n}"}
	handler := core.Chunk{ID: "handler", RepoName: "acme", FilePath: "tally/http.go", LineStart: 5, LineEnd: 7, Corpus: core.CodeLogic,
		SymbolName: "handleTransfer", Text: "func handleTransfer(w http.ResponseWriter, r *http.Request) {\n\tpost(r)\n}"}
	g := tallyGraph()
	for i := range g.Edges {
		if g.Edges[i].Target == "tally" {
			g.Edges[i].Evidence = []graph.Evidence{{ChunkID: "client", Repo: "web", File: "api/tally.ts", Line: 2}}
		}
	}
	g.Routes = append(g.Routes, graph.Route{Service: "tally",
		RouteAt: core.RouteAt{Repo: "acme", File: "tally/http.go", ChunkID: "handler", Route: core.Route{Method: "POST", Path: "/transfers", Handler: "handleTransfer"}}})
	st := fakeStore{chunks: []core.Chunk{client, handler}}
	p, err := Build(context.Background(), fakeSearch{[]core.Hit{{Chunk: client, Score: 1}}}, st, g, "send a transfer", Options{Follow: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range p.Files {
		files = append(files, f.Path)
	}
	if !strings.Contains(strings.Join(files, " "), "tally/http.go") {
		t.Errorf("the called route's handler is not in the pack: %v", files)
	}
}

// TestPrefer: prefer: globs (path: semantics) put their hits first.
func TestPrefer(t *testing.T) {
	cs := tallyChunks()
	p, err := Build(context.Background(), fakeSearch{hits(cs, "post", "readme", "deploy")}, fakeStore{chunks: cs}, nil, "x",
		Options{Budget: 4000, Prefer: []string{"deploy/**"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Files[0].Path != "deploy/tally.yaml" {
		t.Errorf("first file %s, want the preferred deploy/tally.yaml", p.Files[0].Path)
	}
	if _, err := Build(context.Background(), fakeSearch{}, fakeStore{}, nil, "x", Options{Prefer: []string{"a[b"}}); err == nil {
		t.Error("a bad prefer: glob is not an error")
	}
}

// TestDuplicatePassagePackedOnce: the same passage in another file (a
// README copied into a second service) is packed once, and the pack says
// where else it is.
func TestDuplicatePassagePackedOnce(t *testing.T) {
	cs := tallyChunks()
	text := "# Tally\n\nRecords transfers between accounts; the balance check refuses overdrafts before the posting is committed to the ledger."
	cs = append(cs,
		core.Chunk{ID: "readme2", RepoName: "acme", FilePath: "tally/README.md", LineStart: 1, LineEnd: 3, Corpus: core.DocReadme, Language: "markdown", Text: text},
		core.Chunk{ID: "copy", RepoName: "acme", FilePath: "vendor-docs/tally/README.md", LineStart: 1, LineEnd: 3, Corpus: core.DocReadme, Language: "markdown", Text: text})
	p, err := Build(context.Background(), fakeSearch{hits(cs, "readme2", "copy", "deploy")}, fakeStore{chunks: cs}, nil, "balance check", Options{Budget: 2000, Format: "markdown"})
	if err != nil {
		t.Fatal(err)
	}
	out := p.Render()
	if strings.Contains(out, "## acme/vendor-docs/tally/README.md") || strings.Count(out, "refuses overdrafts before") != 1 {
		t.Errorf("the copied passage is packed twice:\n%s", out)
	}
	if !strings.Contains(out, "the same passage is in acme/vendor-docs/tally/README.md:1-3") {
		t.Errorf("the pack does not say where the copy is:\n%s", out)
	}
}

// TestPinnedWhy: a pinned hit's reason reaches the commentary and the
// JSON, with the route's line.
func TestPinnedWhy(t *testing.T) {
	for _, tt := range []struct {
		e    core.Explain
		want string
	}{
		{core.Explain{Route: "PUT /feeds/{id}/refresh", RouteLine: 56}, "route PUT /feeds/{id}/refresh (line 56)"},
		{core.Explain{Route: "PUT /feeds/{id}/refresh"}, "handles PUT /feeds/{id}/refresh"},
		{core.Explain{Frame: "/app/cart/store.go:88", FrameLine: 88}, "frame store.go:88"},
		{core.Explain{}, ""},
	} {
		if got := pinnedWhy(tt.e); got != tt.want {
			t.Errorf("pinnedWhy(%+v) = %q, want %q", tt.e, got, tt.want)
		}
	}
	c := core.Chunk{ID: "c1", FilePath: "api/routes.go", LineStart: 50, LineEnd: 60, Text: "mux.HandleFunc(...)"}
	f := File{Pieces: []Piece{{Chunk: c, Text: c.Text, Why: "route PUT /feeds/{id}/refresh (line 56)"}}}
	if com := strings.Join(f.commentary(), "\n"); !strings.Contains(com, "route PUT /feeds/{id}/refresh (line 56)") {
		t.Errorf("commentary = %q, want the route", com)
	}
	p := &Pack{Files: []File{f}}
	if js := p.JSON(); !strings.Contains(js, `"why": "route PUT /feeds/{id}/refresh (line 56)"`) {
		t.Errorf("JSON = %s, want why", js)
	}
}
