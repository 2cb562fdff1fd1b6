package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"coderag/core"
	"coderag/core/graph"
	"coderag/sqlite"
	"coderag/sqlite/postgres"
	"coderag/sqlite/postgres/pgtest"
)

// pgSources are the sample's sources as four crawls of their own.
func pgSources() [][]string {
	return [][]string{
		{"--repo-path", filepath.Join(sampleDir, "platform")},
		{"--repo-path", filepath.Join(sampleDir, "storefront")},
		{"--slack-export", "acme-slack=" + filepath.Join(sampleDir, "slack")},
		{"--transcripts-dir", filepath.Join(sampleDir, "transcripts"), "--gdocs-dir", filepath.Join(sampleDir, "gdocs")},
	}
}

// pgState is what a PostgreSQL index holds: chunks per source and the
// service graph's edges.
func pgState(t *testing.T, dsn string) (map[string]int, []string) {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, s := range st.Sources {
		per[s.Name] = s.Chunks
	}
	g, err := db.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return per, edgeKeys(g)
}

// edgeKeys are a graph's edges as sorted keys.
func edgeKeys(g *graph.Graph) []string {
	var edges []string
	for _, e := range g.Edges {
		edges = append(edges, edgeKey(e.Source, e.Target, e.Type, e.Method, e.Path))
	}
	slices.Sort(edges)
	return edges
}

// pgOwners is the service each chunk is owned by or mentions, by chunk.
func pgOwners(t *testing.T, dsn string) map[string]string {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	names, err := db.SourceNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range names {
		cs, err := db.SourceChunks(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			out[c.ID] = c.ServiceName + " " + c.Meta["services"]
		}
	}
	return out
}

func goldenEdgeKeys(t *testing.T) []string {
	var out []string
	for k := range goldenEdges(t) {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestPostgresCommands runs the commands a user runs against a shared
// index: crawl, query, graph, stats, context; a workspace file's db: may
// name the database.
func TestPostgresCommands(t *testing.T) {
	dsn := pgtest.DSN(t)
	code, out, errs := coderag(t, sampleCrawlArgs(dsn)...)
	if code != 0 {
		t.Fatalf("crawl: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "indexed 5 sources") || !strings.Contains(out, "127.0.0.1") {
		t.Errorf("crawl output: %s", out)
	}
	code, out, errs = coderag(t, "query", "--db", dsn, "--json", "-k", "3", "getUserProfile")
	var q queryJSON
	if code != 0 || json.Unmarshal([]byte(out), &q) != nil || len(q.Hits) == 0 || q.Hits[0].FilePath != "src/clients/accounts.ts" {
		t.Errorf("query getUserProfile: exit %d %s %s", code, out, errs)
	}
	code, out, _ = coderag(t, "graph", "--db", dsn, "--service", "redis", "--blast-radius")
	for _, want := range []string{"cart", "checkout", "storefront"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("blast radius of redis lacks %s: exit %d\n%s", want, code, out)
		}
	}
	code, out, _ = coderag(t, "stats", "--db", dsn, "--json")
	var st struct {
		Chunks  int `json:"chunks"`
		Vectors int `json:"vectors"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Chunks == 0 || st.Vectors != st.Chunks {
		t.Errorf("stats: exit %d %s", code, out)
	}
	code, out, _ = coderag(t, "context", "--db", dsn, "--budget", "800", "what breaks when redis is down")
	if code != 0 || !strings.Contains(out, "<codeRag:chunk>") {
		t.Errorf("context: exit %d\n%s", code, out)
	}
	_, edges := pgState(t, dsn)
	if want := goldenEdgeKeys(t); !slices.Equal(edges, want) {
		t.Errorf("graph on PostgreSQL:\n%s\nwant the sample's:\n%s", strings.Join(edges, "\n"), strings.Join(want, "\n"))
	}

	// A workspace file naming the database.
	dir := t.TempDir()
	dsn2 := pgtest.DSN(t)
	copyTree(t, filepath.Join(sampleDir, "storefront"), filepath.Join(dir, "web"))
	if err := os.WriteFile(filepath.Join(dir, "coderag.yaml"), []byte("db: "+dsn2+"\nembedder: none\nsources:\n  - repo: web\n    name: shop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, out, errs := coderag(t, "crawl"); code != 0 {
		t.Fatalf("crawl with a workspace file: exit %d\n%s\n%s", code, out, errs)
	}
	if per, _ := pgState(t, dsn2); per["shop"] == 0 {
		t.Errorf("the workspace file's database holds %v", per)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres:")); err == nil {
		t.Error("the address was taken for a relative path")
	}
}

// TestPostgresConcurrentCrawls runs four crawler processes of different
// sources at once against one database while four loops query it: every
// source ends complete, no query fails, and the service graph is the one
// a single crawl of everything builds.
func TestPostgresConcurrentCrawls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four crawler processes")
	}
	dsn := pgtest.DSN(t)
	// The database exists with its tables before the queries start.
	db, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	stop := make(chan struct{})
	var queries, failures atomic.Int64
	var failMsg sync.Map
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			words := []string{"redis", "getUserProfile", "kafka orders", "what breaks when cart is down"}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				code, _, errs := coderag(t, "query", "--db", dsn, "--json", "--embedder", "none", words[(i+n)%len(words)])
				queries.Add(1)
				// An empty index answers with no hits, not an error.
				if code != 0 {
					failures.Add(1)
					failMsg.Store(errs, true)
				}
			}
		}()
	}
	var crawlers sync.WaitGroup
	errs := make([]string, len(pgSources()))
	for i, src := range pgSources() {
		crawlers.Add(1)
		go func() {
			defer crawlers.Done()
			cmd := binaryCmd(append([]string{"crawl", "--db", dsn, "--embedder", "none"}, src...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Sprintf("crawler %d: %v\n%s", i, err, out)
			}
		}()
	}
	crawlers.Wait()
	close(stop)
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	if failures.Load() > 0 {
		failMsg.Range(func(k, _ any) bool { t.Errorf("query failed: %s", k); return true })
	}
	t.Logf("%d queries during the crawls, %d failed", queries.Load(), failures.Load())

	// The reference: one crawl of everything into a database of its own.
	ref := pgtest.DSN(t)
	if code, out, errs := coderag(t, append(sampleCrawlArgs(ref), "--embedder", "none")...); code != 0 {
		t.Fatalf("reference crawl: exit %d\n%s\n%s", code, out, errs)
	}
	// The last crawler to commit rebuilt the graph from every source; a
	// crawl with nothing new changes nothing.
	gotPer, gotEdges := pgState(t, dsn)
	refPer, refEdges := pgState(t, ref)
	if fmt.Sprint(gotPer) != fmt.Sprint(refPer) {
		t.Errorf("chunks per source after concurrent crawls %v, after one crawl %v", gotPer, refPer)
	}
	if !slices.Equal(gotEdges, refEdges) {
		t.Errorf("graph after concurrent crawls:\n%s\nafter one crawl:\n%s", strings.Join(gotEdges, "\n"), strings.Join(refEdges, "\n"))
	}
	// Every chunk has the owner and mentions a single crawl gives it.
	got, want := pgOwners(t, dsn), pgOwners(t, ref)
	diff := 0
	for id, w := range want {
		if got[id] != w {
			if diff++; diff <= 5 {
				t.Errorf("chunk %s: owner/mentions %q after concurrent crawls, %q after one crawl", id, got[id], w)
			}
		}
	}
	if diff > 0 || len(got) != len(want) {
		t.Errorf("%d of %d chunks differ (%d chunks after concurrent crawls)", diff, len(want), len(got))
	}
}

// TestPostgresKilledCrawls kills crawlers with SIGKILL at random points,
// 10 times: after each, every source is absent or whole (the crawl
// rewrites the same content), never half written.
func TestPostgresKilledCrawls(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 10 crawls")
	}
	dsn := pgtest.DSN(t)
	ref := pgtest.DSN(t)
	if code, out, errs := coderag(t, append(sampleCrawlArgs(ref), "--embedder", "none")...); code != 0 {
		t.Fatalf("reference crawl: exit %d\n%s\n%s", code, out, errs)
	}
	want, _ := pgState(t, ref)
	r := rand.New(rand.NewPCG(7, 7))
	killed := 0
	for i := 0; i < 10; i++ {
		cmd := binaryCmd(append(sampleCrawlArgs(dsn), "--embedder", "none")...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(100+r.IntN(1400)) * time.Millisecond)
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		cmd.Wait()
		got, _ := pgState(t, dsn)
		for name, n := range got {
			if n != want[name] {
				t.Errorf("kill %d: source %s holds %d chunks, whole it holds %d", i, name, n, want[name])
			}
		}
	}
	// A crawl after the kills completes the index.
	if code, out, errs := coderag(t, append(sampleCrawlArgs(dsn), "--embedder", "none")...); code != 0 {
		t.Fatalf("crawl after the kills: exit %d\n%s\n%s", code, out, errs)
	}
	got, edges := pgState(t, dsn)
	_, refEdges := pgState(t, ref)
	if fmt.Sprint(got) != fmt.Sprint(want) || !slices.Equal(edges, refEdges) {
		t.Errorf("after the kills and a crawl: %v, %d edges; want %v, %d edges", got, len(edges), want, len(refEdges))
	}
	t.Logf("%d crawls killed", killed)
}

// TestMigrate copies the crawled sample from its SQLite file into
// PostgreSQL: every chunk and vector, the same service graph, the same
// first answer; and into another SQLite file.
func TestMigrate(t *testing.T) {
	src := crawlSample(t)
	dsn := pgtest.DSN(t)
	code, out, errs := coderag(t, "migrate", "--from", src, "--to", dsn, "--json")
	if code != 0 {
		t.Fatalf("migrate: exit %d\n%s\n%s", code, out, errs)
	}
	var sum struct {
		Sources, Files, Chunks, Vectors int
		Embedder                        string
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("migrate --json: %v\n%s", err, out)
	}
	// counts reads an index's stats; migrate copies one into another and
	// returns the copy's.
	type counts struct {
		Chunks  int    `json:"chunks"`
		Vectors int    `json:"vectors"`
		Files   int    `json:"files"`
		ID      string `json:"embedder_id"`
	}
	statsOf := func(db string) counts {
		_, out, _ := coderag(t, "stats", "--db", db, "--json")
		var c counts
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("stats of %s: %v", db, err)
		}
		return c
	}
	migrate := func(from, to string) counts {
		if code, out, errs := coderag(t, "migrate", "--from", from, "--to", to); code != 0 || !strings.Contains(out, "copied 5 sources") {
			t.Fatalf("migrate %s to %s: exit %d\n%s\n%s", from, to, code, out, errs)
		}
		return statsOf(to)
	}
	st := statsOf(src)
	if sum.Sources != 5 || sum.Chunks != st.Chunks || sum.Vectors != st.Vectors || sum.Files != st.Files || sum.Embedder != st.ID || st.Vectors == 0 {
		t.Errorf("migrate copied %+v; the file holds %+v", sum, st)
	}
	per, edges := pgState(t, dsn)
	if want := goldenEdgeKeys(t); !slices.Equal(edges, want) {
		t.Errorf("graph after migrate: %d edges, want the sample's %d", len(edges), len(want))
	}
	if len(per) != 5 {
		t.Errorf("sources after migrate: %v", per)
	}
	for _, q := range []string{"getUserProfile", "redis OOMKilled cart"} {
		_, a, _ := coderag(t, "query", "--db", src, "--json", "-k", "1", q)
		_, b, _ := coderag(t, "query", "--db", dsn, "--json", "-k", "1", q)
		var qa, qb queryJSON
		json.Unmarshal([]byte(a), &qa)
		json.Unmarshal([]byte(b), &qb)
		if len(qa.Hits) == 0 || len(qb.Hits) == 0 || qa.Hits[0].ChunkID != qb.Hits[0].ChunkID {
			t.Errorf("query %q: first hit %v in the file, %v after migrate", q, qa.Hits, qb.Hits)
		}
	}
	// Into another SQLite file.
	if st2 := migrate(src, filepath.Join(t.TempDir(), "copy.db")); st2.Chunks != st.Chunks || st2.Vectors != st.Vectors {
		t.Errorf("the copied file holds %+v, the original %+v", st2, st)
	}
	// Back out of PostgreSQL into a new file: the same counts, graph,
	// owners and answers as the file it came from.
	back := filepath.Join(t.TempDir(), "back.db")
	if st3 := migrate(dsn, back); st3.Chunks != st.Chunks || st3.Vectors != st.Vectors || st3.Files != st.Files || st3.ID != st.ID {
		t.Errorf("the file copied back holds %+v, the original %+v", st3, st)
	}
	if edges := fileEdges(t, back); !slices.Equal(edges, goldenEdgeKeys(t)) {
		t.Errorf("graph of the file copied back: %d edges, want the sample's %d", len(edges), len(goldenEdgeKeys(t)))
	}
	for _, q := range []string{"getUserProfile", "redis OOMKilled cart", "checkout 503"} {
		_, a, _ := coderag(t, "query", "--db", src, "--json", "-k", "3", q)
		_, b, _ := coderag(t, "query", "--db", back, "--json", "-k", "3", q)
		var qa, qb queryJSON
		json.Unmarshal([]byte(a), &qa)
		json.Unmarshal([]byte(b), &qb)
		if len(qa.Hits) == 0 || len(qa.Hits) != len(qb.Hits) {
			t.Fatalf("query %q: %d hits in the file, %d in the copy back", q, len(qa.Hits), len(qb.Hits))
		}
		for i := range qa.Hits {
			if qa.Hits[i].ChunkID != qb.Hits[i].ChunkID {
				t.Errorf("query %q: hit %d is %s in the file, %s in the copy back", q, i+1, qa.Hits[i].ChunkID, qb.Hits[i].ChunkID)
			}
		}
	}
	if code, _, errs := coderag(t, "migrate", "--from", dsn, "--to", dsn); code == 0 || !strings.Contains(errs, "itself") {
		t.Errorf("migrate into itself: exit %d %s", code, errs)
	}
}

// fileEdges are the service graph's edges of a SQLite index, as keys.
func fileEdges(t *testing.T, path string) []string {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := db.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return edgeKeys(g)
}

// TestPostgresSameSource: a crawl of a source another crawler is writing
// fails naming that crawler, or with --wait waits for it.
func TestPostgresSameSource(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	path, _ := filepath.Abs(filepath.Join(sampleDir, "storefront"))
	w, err := db.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: path, Name: "storefront"})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"crawl", "--db", dsn, "--embedder", "none", "--repo-path", path}
	code, _, errs := coderag(t, args...)
	if code == 0 || !strings.Contains(errs, "source storefront") || !strings.Contains(errs, "being written by") || !strings.Contains(errs, "pid") {
		t.Errorf("a crawl of a busy source: exit %d, %q", code, errs)
	}
	done := make(chan int)
	go func() {
		code, _, _ := coderag(t, append(args, "--wait")...)
		done <- code
	}()
	select {
	case code := <-done:
		t.Fatalf("crawl --wait did not wait (exit %d)", code)
	case <-time.After(time.Second):
	}
	w.Rollback()
	if code := <-done; code != 0 {
		t.Errorf("crawl --wait after the other crawler finished: exit %d", code)
	}
	if per, _ := pgState(t, dsn); per["storefront"] == 0 {
		t.Errorf("after the waiting crawl: %v", per)
	}
}

// TestPostgresSiblingRepositories: on a shared index too, a deploy
// repository's compose file building ../inventory is the repository
// crawled from there (each repository crawled by a process of its own):
// the graph is the one a SQLite file of the same crawl holds.
func TestPostgresSiblingRepositories(t *testing.T) {
	a, err := txtar.ParseFile(filepath.Join("..", "..", "core", "graph", "testdata", "siblingrepos.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range a.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dsn := pgtest.DSN(t)
	file := filepath.Join(dir, "index.db")
	var all []string
	for _, repo := range []string{"ops", "inventory", "webapp", "traffic-gen"} {
		p := filepath.Join(dir, repo)
		all = append(all, "--repo-path", p)
		if code, out, errs := coderag(t, "crawl", "--db", dsn, "--embedder", "none", "--repo-path", p); code != 0 {
			t.Fatalf("crawl %s: exit %d\n%s\n%s", repo, code, out, errs)
		}
	}
	if code, out, errs := coderag(t, append([]string{"crawl", "--db", file, "--embedder", "none"}, all...)...); code != 0 {
		t.Fatalf("crawl into %s: exit %d\n%s\n%s", file, code, out, errs)
	}
	_, edges := pgState(t, dsn)
	want := fileEdges(t, file)
	if !slices.Equal(edges, want) || !slices.ContainsFunc(edges, func(e string) bool { return strings.HasPrefix(e, "webshop -> stock ") }) {
		t.Errorf("graph on PostgreSQL:\n%s\nin a file:\n%s", strings.Join(edges, "\n"), strings.Join(want, "\n"))
	}
}
