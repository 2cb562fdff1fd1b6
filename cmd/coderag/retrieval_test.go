package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"coderag/core/embed"
	"coderag/sqlite"
)

// TestEvalOnSample runs the sample questions: hybrid must not be worse
// than BM25 alone at recall@10, the default pipeline must find 95%, and
// every mode must find most answers.
func TestEvalOnSample(t *testing.T) {
	db := crawlSample(t)
	code, out, errs := coderag(t, "eval", "--db", db, "--questions", filepath.Join("..", "..", "testdata", "eval", "questions.jsonl"), "--json")
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, errs)
	}
	var rep struct {
		Questions int
		Metrics   map[string]map[string]struct{ R10, MRR10 float64 }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Questions < 60 {
		t.Errorf("%d questions, want at least 60", rep.Questions)
	}
	bm25, hybrid, rerank := rep.Metrics["bm25"]["all"], rep.Metrics["hybrid"]["all"], rep.Metrics["hybrid+rerank"]["all"]
	// Fusion must not cost recall beyond one question's worth nor rank
	// worse, and the default pipeline (what query runs) must find 95% of
	// the answers in its top 10 (issue 16's bar for the sample; the real
	// repositories of ../shared/eval are the measure). One question: the
	// shipped model's list weighs 4 (learned, docs/eval.md), and on this
	// sample fusion trades one question's second gold file at rank 10 for
	// better first ranks (R@10 0.980 -> 0.967, MRR@10 0.810 -> 0.828).
	if n := float64(rep.Questions); hybrid.R10 < bm25.R10-1/n {
		t.Errorf("recall@10: bm25 %.3f, hybrid %.3f: fusion made it worse", bm25.R10, hybrid.R10)
	}
	if hybrid.MRR10 < bm25.MRR10 {
		t.Errorf("MRR@10: bm25 %.3f, hybrid %.3f: fusion made it worse", bm25.MRR10, hybrid.MRR10)
	}
	if rerank.R10 < 0.95 {
		t.Errorf("recall@10 of hybrid+rerank %.3f, want >= 0.95", rerank.R10)
	}
	for mode, m := range rep.Metrics {
		if m["all"].R10 < 0.8 {
			t.Errorf("%s recall@10 = %.3f, want >= 0.8", mode, m["all"].R10)
		}
	}
}

func TestQueryExplainAndFilters(t *testing.T) {
	db := crawlSample(t)
	_, out, _ := coderag(t, "query", "--db", db, "--json", "-k", "3", "--type", "runbook", "restart redis")
	var res struct {
		Lists []string
		Hits  []struct {
			CorpusType string `json:"corpus_type"`
			Lists      []struct{ List string }
			Explain    struct {
				Fused    float64
				Rerank   *float64
				Features map[string]float64
				Matched  []string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	if strings.Join(res.Lists, ",") != "bm25-code,bm25-prose,bm25-synonyms,bm25-file,dense" || len(res.Hits) == 0 {
		t.Fatalf("lists %v, %d hits", res.Lists, len(res.Hits))
	}
	for _, h := range res.Hits {
		if h.CorpusType != "DOC_RUNBOOK" {
			t.Errorf("--type runbook gave a %s hit", h.CorpusType)
		}
	}
	e := res.Hits[0].Explain
	if e.Fused <= 0 || e.Rerank == nil || len(e.Features) == 0 || len(e.Matched) == 0 {
		t.Errorf("explain %+v", e)
	}
	code, out, _ := coderag(t, "query", "--db", db, "--explain", "-k", "1", "getUserProfile")
	if code != 0 || !strings.Contains(out, "why lists: bm25-code #1") || !strings.Contains(out, "symbol 1.00") {
		t.Errorf("--explain output:\n%s", out)
	}
	code, _, errs := coderag(t, "query", "--db", db, "redis type:runbok")
	if code != 2 || !strings.Contains(errs, `unknown corpus type "runbok"`) || !strings.Contains(errs, "^") {
		t.Errorf("bad filter: exit %d, %s", code, errs)
	}
}

// fakeOllama answers /api/embed with vectors hashed from the words of each
// input, so that texts sharing words are near.
func fakeOllama(t *testing.T, dim int) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/api/embed" {
			http.Error(w, "not found", 404)
			return
		}
		var req struct {
			Model string
			Input []string
		}
		json.NewDecoder(r.Body).Decode(&req)
		var out [][]float32
		for _, s := range req.Input {
			v := make([]float32, dim)
			for _, w := range embed.Tokens(s) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%uint32(dim)]++
			}
			v[0] += 0.01
			out = append(out, v)
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": out})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// vectorStats is what 'coderag stats --json' says of an index's vectors.
type vectorStats struct {
	EmbedderID  string `json:"embedder_id"`
	EmbedderDim int    `json:"embedder_dim"`
	Vectors     int    `json:"vectors"`
	Chunks      int    `json:"chunks"`
}

// indexVectors runs 'coderag stats --json' on db.
func indexVectors(t *testing.T, db string) (vectorStats, string) {
	t.Helper()
	_, out, _ := coderag(t, "stats", "--db", db, "--json")
	var st vectorStats
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	return st, out
}

// TestCrawlKeepsTheIndexEmbedder: a crawl that adds a source to an index
// made with another embedder than the default, without --embedder, embeds
// with the index's instead of refusing the change: an index made with the
// corpus model before the shipped one was the default keeps working.
func TestCrawlKeepsTheIndexEmbedder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	front, platform := filepath.Join(sampleDir, "storefront"), filepath.Join(sampleDir, "platform")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", front, "--embedder", "corpus"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := coderag(t, "crawl", "--db", db, "--repo-path", front, "--repo-path", platform)
	if code != 0 || !strings.Contains(out, "with corpus") {
		t.Fatalf("crawl adding a source without --embedder: exit %d\n%s\n%s", code, out, errs)
	}
	if st, _ := indexVectors(t, db); st.EmbedderID != embed.CorpusID || st.Vectors != st.Chunks {
		t.Errorf("stats: embedder %q, %d vectors for %d chunks", st.EmbedderID, st.Vectors, st.Chunks)
	}
	// stats says how to move it to the default.
	if _, out, _ := coderag(t, "stats", "--db", db); !strings.Contains(out, "crawl --embedder builtin --reembed") {
		t.Errorf("stats of a corpus index does not say how to move it to the shipped model:\n%s", out)
	}
	// --reembed alone learns the corpus model again; it does not move the
	// index to the default.
	code, out, errs = coderag(t, "crawl", "--db", db, "--reembed")
	if code != 0 || !strings.Contains(out, "with corpus") || !strings.Contains(out, "model learned") {
		t.Fatalf("crawl --reembed without --embedder: exit %d\n%s\n%s", code, out, errs)
	}
	if st, _ := indexVectors(t, db); st.EmbedderID != embed.CorpusID || st.Vectors != st.Chunks {
		t.Errorf("after --reembed: embedder %q, %d vectors for %d chunks", st.EmbedderID, st.Vectors, st.Chunks)
	}
	// An index with no vectors has none to embed again.
	none := filepath.Join(t.TempDir(), "none.db")
	if code, _, errs := coderag(t, "crawl", "--db", none, "--repo-path", front, "--embedder", "none"); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := coderag(t, "crawl", "--db", none, "--reembed"); code != 2 || !strings.Contains(errs, "holds no vectors") {
		t.Errorf("crawl --reembed of an index without vectors: exit %d, %s", code, errs)
	}
}

func TestHTTPEmbedderEndToEnd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "e.db")
	repo := filepath.Join(sampleDir, "storefront")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo); code != 0 {
		t.Fatal(errs)
	}
	shipped, err := embed.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--embedder", "none")
	if code == 0 || !strings.Contains(errs, "asks for none") {
		t.Fatalf("--embedder none on an index with vectors: exit %d, %s", code, errs)
	}
	srv, calls := fakeOllama(t, 64)
	// Another embedder on an index with builtin vectors is refused...
	code, _, errs = coderag(t, "crawl", "--db", db, "--repo-path", repo, "--embedder", "ollama", "--embed-url", srv.URL, "--embed-model", "test-embed")
	if code == 0 || !strings.Contains(errs, shipped.ID()) || !strings.Contains(errs, "--reembed") {
		t.Fatalf("switch without --reembed: exit %d, %s", code, errs)
	}
	// ...and done with --reembed.
	code, out, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--embedder", "ollama", "--embed-url", srv.URL, "--embed-model", "test-embed", "--reembed")
	if code != 0 || !strings.Contains(out, "with ollama:test-embed") {
		t.Fatalf("crawl --reembed: exit %d\n%s\n%s", code, out, errs)
	}
	if st, out := indexVectors(t, db); st.EmbedderID != "ollama:test-embed" || st.EmbedderDim != 64 || st.Vectors != st.Chunks {
		t.Errorf("stats: %s", out)
	}
	// Queries reach the recorded server.
	before := calls.Load()
	_, out, _ = coderag(t, "query", "--db", db, "--json", "getUserProfile")
	if calls.Load() == before || !strings.Contains(out, `"dense"`) {
		t.Errorf("query did not use the server: %s", out)
	}
	// With the server gone, BM25 still answers, with a warning.
	srv.Close()
	code, out, errs = coderag(t, "query", "--db", db, "getUserProfile")
	if code != 0 || !strings.Contains(out, "getUserProfile") || !strings.Contains(errs, "dense search skipped") {
		t.Errorf("server down: exit %d\n%s\n%s", code, out, errs)
	}
	// A crawl with the server down fails before crawling, naming the URL.
	code, _, errs = coderag(t, "crawl", "--db", db, "--repo-path", repo, "--embedder", "ollama", "--embed-url", srv.URL, "--embed-model", "test-embed")
	if code == 0 || !strings.Contains(errs, srv.URL) || !strings.Contains(errs, "--embedder builtin") {
		t.Errorf("crawl with server down: exit %d, %s", code, errs)
	}
}

// TestShippedEmbedderEndToEnd crawls with the model shipped in the binary
// (--embedder builtin): the index records the model, queries use it, a
// switch to the corpus model needs --reembed, and an index made by
// another model is searched with BM25 and a warning, never with the
// wrong vectors, until a re-crawl (incremental too) embeds it again with
// the shipped model, saying so.
func TestShippedEmbedderEndToEnd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	repo := filepath.Join(sampleDir, "storefront")
	code, out, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--embedder", "builtin")
	if code != 0 || !strings.Contains(out, "with builtin (the shipped model, builtin:static-256d-") {
		t.Fatalf("crawl --embedder builtin: exit %d\n%s\n%s", code, out, errs)
	}
	st, stats := indexVectors(t, db)
	if !strings.HasPrefix(st.EmbedderID, "builtin:static-256d-") || st.Vectors == 0 || st.Vectors > st.Chunks {
		t.Fatalf("stats: %s", stats)
	}
	code, out, errs = coderag(t, "query", "--db", db, "--json", "where is the shopping basket kept")
	if code != 0 || !strings.Contains(out, `"dense"`) || errs != "" {
		t.Fatalf("query: exit %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = coderag(t, "crawl", "--db", db, "--repo-path", repo, "--embedder", "corpus")
	if code == 0 || !strings.Contains(errs, st.EmbedderID) || !strings.Contains(errs, "--reembed") {
		t.Fatalf("switch to corpus without --reembed: exit %d, %s", code, errs)
	}
	// An index embedded by another build's model.
	if err := sqlite.SetupC(); err != nil {
		t.Fatal(err)
	}
	h, err := sql.Open("sqlite3", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Exec(`UPDATE meta SET value = 'builtin:static-256d-00000000' WHERE key = 'embedder_id'`); err != nil {
		t.Fatal(err)
	}
	h.Close()
	code, out, errs = coderag(t, "query", "--db", db, "--json", "where is the shopping basket kept")
	if code != 0 || strings.Contains(out, `"dense"`) || !strings.Contains(out, "dense search skipped") || !strings.Contains(out, "--reembed") {
		t.Errorf("query of another model's index: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = coderag(t, "crawl", "--db", db, "--incremental")
	if code != 0 || !strings.Contains(errs, "the index holds vectors of builtin:static-256d-00000000 and this coderag ships "+st.EmbedderID+": embedding every chunk again") ||
		!strings.Contains(out, fmt.Sprintf("embedded %d chunks with builtin (the shipped model, %s)", st.Vectors, st.EmbedderID)) {
		t.Errorf("crawl --incremental of another model's index: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = coderag(t, "query", "--db", db, "--json", "where is the shopping basket kept")
	if code != 0 || !strings.Contains(out, `"dense"`) {
		t.Errorf("query after the re-crawl: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestQualifiedNameFindsDefinition: a question naming pkg.Name or
// Type.Method gets the declaration first, though many callers write the
// qualified name as it is and the declaration does not (it says Get under
// its package's path or its type's scope), and another package declares a
// Get of its own.
func TestQualifiedNameFindsDefinition(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"platform/store/cache/cache.go":    "package cache\n\n// Get returns the value stored under key and whether it was there.\nfunc Get(key string) (string, bool) {\n\tmu.RLock()\n\tdefer mu.RUnlock()\n\tv, ok := items[key]\n\treturn v, ok\n}\n",
		"platform/client/http/http.go":     "package http\n\n// Get fetches url with the default client.\nfunc Get(url string) (*Response, error) {\n\treturn defaultClient.Do(newRequest(\"GET\", url))\n}\n",
		"platform/services/orders/repo.go": "package orders\n\n// OrderRepo loads orders.\ntype OrderRepo struct{ db *sql.DB }\n\n// Find loads one order by its id.\nfunc (r *OrderRepo) Find(id string) (*Order, error) {\n\trow := r.db.QueryRow(\"SELECT * FROM orders WHERE id = $1\", id)\n\treturn scanOrder(row)\n}\n",
		"platform/services/orders/http.go": "package orders\n\n// handleOrder answers GET /orders/{id} with the order as JSON.\nfunc handleOrder(w http.ResponseWriter, id string) {\n\torder, err := repo.Find(id)\n\tif err != nil {\n\t\thttp.Error(w, err.Error(), http.StatusNotFound)\n\t\treturn\n\t}\n\tjson.NewEncoder(w).Encode(order)\n}\n",
		// Names that are keywords elsewhere (New, Do, Is), and a type
		// whose name holds another's (ClientConn, Client).
		"platform/store/cache/new.go":     "package cache\n\n// New makes a cache of at most size entries.\nfunc New(size int) *Cache {\n\treturn &Cache{items: make(map[string]string, size), size: size}\n}\n",
		"platform/services/orders/new.go": "package orders\n\n// New makes an order repository over db.\nfunc New(db *sql.DB) *OrderRepo {\n\treturn &OrderRepo{db: db}\n}\n",
		"platform/client/http/client.go":  "package http\n\n// Client sends requests with retries.\ntype Client struct{ retries int }\n\n// Do sends req and returns its response, retrying on 503.\nfunc (c *Client) Do(req *Request) (*Response, error) {\n\tfor i := 0; ; i++ {\n\t\tresp, err := send(req)\n\t\tif i >= c.retries || !retry.Is(err) {\n\t\t\treturn resp, err\n\t\t}\n\t}\n}\n",
		"platform/client/http/conn.go":    "package http\n\n// ClientConn is one kept-alive connection.\ntype ClientConn struct{ c net.Conn }\n\n// Do writes req on the connection and reads the response.\nfunc (cc *ClientConn) Do(req *Request) (*Response, error) {\n\treq.Write(cc.c)\n\treturn ReadResponse(cc.c, req)\n}\n",
		"platform/client/retry/retry.go":  "package retry\n\n// Is reports whether err is worth another attempt.\nfunc Is(err error) bool {\n\treturn errors.Is(err, ErrUnavailable) || errors.Is(err, ErrTimeout)\n}\n",
	}
	for i := range 6 {
		files[fmt.Sprintf("platform/services/svc%d/handler.go", i)] = fmt.Sprintf("package svc%d\n\nvar c = cache.New(64)\n\nfunc handle%d(key string) string {\n\tif v, ok := cache.Get(key); ok {\n\t\treturn v\n\t}\n\torder, _ := repo.OrderRepo.Find(key)\n\tv, _ := cache.Get(order.ID)\n\tif v == \"\" {\n\t\torders.handleOrder(nil, key)\n\t}\n\tresp, err := client.Do(newRequest(key))\n\tif retry.Is(err) {\n\t\tresp, _ = client.Do(newRequest(key))\n\t}\n\treturn v + resp.Status\n}\n", i, i)
	}
	db := crawlFiles(t, root, files)
	for _, tt := range []struct{ query, file, symbol string }{
		{"cache.Get", "store/cache/cache.go", "Get"},
		{"where is cache.Get() defined?", "store/cache/cache.go", "Get"},
		{"http.Get", "client/http/http.go", "Get"},
		{"OrderRepo.Find", "services/orders/repo.go", "Find"},
		{"cache.New", "store/cache/new.go", "New"},
		{"orders.New", "services/orders/new.go", "New"},
		{"Client.Do", "client/http/client.go", "Do"},
		{"ClientConn.Do", "client/http/conn.go", "Do"},
		{"retry.Is", "client/retry/retry.go", "Is"},
	} {
		hits := topHits(t, db, tt.query)
		if len(hits) == 0 || hits[0].FilePath != tt.file || !slices.Contains(strings.Split(hits[0].SymbolName, ", "), tt.symbol) {
			t.Errorf("%q: first hit %+v, want %s's %s", tt.query, hits, tt.file, tt.symbol)
		}
	}
	// The text output says why the declaration is first.
	if _, out, _ := coderag(t, "query", "--db", db, "-k", "1", "Client.Do"); !strings.Contains(out, "declares Client.Do") {
		t.Errorf("query Client.Do: the first hit should say it declares Client.Do:\n%s", out)
	}
	// Asked for its callers, the declaration is not the answer: a chunk
	// that calls it is.
	for _, tt := range []struct{ query, declaration string }{
		{"who calls cache.Get", "store/cache/cache.go"},
		{"where is OrderRepo.Find used", "services/orders/repo.go"},
		{"callers of handleOrder", "services/orders/http.go"},
	} {
		hits := topHits(t, db, tt.query)
		if len(hits) == 0 || hits[0].FilePath == tt.declaration || !strings.HasPrefix(hits[0].FilePath, "services/") {
			t.Errorf("%q: hits %+v, want a caller first, not the declaration in %s", tt.query, hits, tt.declaration)
		}
	}
}

// TestPastedPodName: a pod or container name as kubectl, the kubelet, an
// alert or Compose print it puts the manifest of the workload that made it
// first (workload of pod ...), the namespace the text gives choosing
// between two of one name; so do a Service's host (its Service first) and
// an image (the workloads that run it); the lists search the workload's
// name; a workload's own name is searched as any word.
func TestPastedPodName(t *testing.T) {
	deploy := func(name, ns string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n  namespace: " + ns + "\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        - name: server\n          image: ghcr.io/acme/" + name + ":1.4.2\n          resources:\n            limits:\n              memory: 256Mi\n"
	}
	db := crawlFiles(t, t.TempDir(), map[string]string{
		"shop/deploy/prod/checkout.yaml":             deploy("checkout", "shop"),
		"shop/deploy/staging/checkout.yaml":          deploy("checkout", "staging"),
		"shop/deploy/prod/checkout-svc.yaml":         "apiVersion: v1\nkind: Service\nmetadata:\n  name: checkout\n  namespace: shop\nspec:\n  selector:\n    app: checkout\n  ports:\n    - port: 8080\n      targetPort: 8080\n",
		"shop/deploy/prod/redis.yaml":                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: redis\n  namespace: shop\nspec:\n  serviceName: redis\n  template:\n    spec:\n      containers:\n        - name: redis\n          image: redis:7.2\n",
		"shop/charts/cart/Chart.yaml":                "apiVersion: v2\nname: cart\nversion: 0.3.1\n",
		"shop/charts/cart/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"cart.fullname\" . }}\nspec:\n  template:\n    spec:\n      containers:\n        - name: cart\n          image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n",
		"shop/charts/cart/templates/worker.yaml":     "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"cart.fullname\" . }}-worker\nspec:\n  template:\n    spec:\n      containers:\n        - name: worker\n          args: [\"--queue\", \"orders\"]\n",
		"shop/compose/docker-compose.yml":            "services:\n  cart:\n    build: ../services/cart\n    ports:\n      - \"7070:7070\"\n  db:\n    image: postgres:16\n",
		"shop/services/checkout/main.go":             "package main\n\n// main starts the checkout service.\nfunc main() {\n\tlog.Println(\"checkout listening on :8080\")\n\thttp.ListenAndServe(\":8080\", newRouter())\n}\n",
	})
	for _, tt := range []struct{ query, file, why string }{
		{"checkout-7d9f8c6b5-x2k4p   0/1     CrashLoopBackOff   7 (2m ago)   15m", "deploy/prod/checkout.yaml", "workload of pod checkout-7d9f8c6b5-x2k4p"},
		{"KubePodCrashLooping: Pod staging/checkout-7d9f8c6b5-x2k4p is in waiting state", "deploy/staging/checkout.yaml", "workload of pod checkout-7d9f8c6b5-x2k4p"},
		{"Back-off restarting failed container server in pod checkout-5c8d7f6b9d-q4z2w_staging(0b1c2d)", "deploy/staging/checkout.yaml", "workload of pod checkout-5c8d7f6b9d-q4z2w"},
		{"redis-0 OOMKilled", "deploy/prod/redis.yaml", "workload of pod redis-0"},
		{"Name:         checkout-5c8d7f6b9d-q4z2w\nNamespace:    staging\nControlled By:  ReplicaSet/checkout-5c8d7f6b9d\n    Last State:     Terminated\n      Reason:       OOMKilled", "deploy/staging/checkout.yaml", "workload of pod checkout-5c8d7f6b9d-q4z2w"},
		{"compose-cart-1 exited with code 137", "compose/docker-compose.yml", "workload of container compose-cart-1"},
		{"kubectl rollout restart deployment/checkout -n shop", "deploy/prod/checkout.yaml", "workload deployment/checkout"},
		{"prod-cart-worker-7d9f8c6b5-x2k4p   0/1     CrashLoopBackOff", "charts/cart/templates/worker.yaml", "workload of pod prod-cart-worker-7d9f8c6b5-x2k4p"},
		{"prod-cart-5c8d7f6b9d-q4z2w   0/1     OOMKilled", "charts/cart/templates/deployment.yaml", "workload of pod prod-cart-5c8d7f6b9d-q4z2w"},
		{"dial tcp: lookup checkout.shop.svc.cluster.local on 10.96.0.10:53: no such host", "deploy/prod/checkout-svc.yaml", "workload of host checkout.shop.svc.cluster.local"},
		{"dial tcp 10.96.7.12:8080: connect: connection refused (upstream checkout:8080)", "deploy/prod/checkout-svc.yaml", "workload of host checkout:8080"},
		{`Failed to pull image "ghcr.io/acme/checkout:1.5.0": not found`, "/checkout.yaml", "workload of image ghcr.io/acme/checkout:1.5.0"},
	} {
		_, out, errs := coderag(t, "query", "--db", db, "-k", "3", "--", tt.query)
		first, _, _ := strings.Cut(out, "\n")
		if !strings.Contains(first, tt.file) || !strings.Contains(first, tt.why) {
			t.Errorf("query %q: first hit %q, want %s (%s)\n%s%s", tt.query, first, tt.file, tt.why, out, errs)
		}
	}
	// The lists search the workload's name: the service's code follows.
	if _, out, _ := coderag(t, "query", "--db", db, "-k", "5", "checkout-7d9f8c6b5-x2k4p keeps restarting"); !strings.Contains(out, "services/checkout/main.go") {
		t.Errorf("checkout's pod: want its code among the first 5:\n%s", out)
	}
	// The workload's own name is a word like any other: nothing pinned.
	if _, out, _ := coderag(t, "query", "--db", db, "-k", "3", "why is checkout slow"); strings.Contains(out, "workload") {
		t.Errorf("query naming the workload itself pinned its manifest:\n%s", out)
	}
}

// TestPastedErrorMessageFindsItsSource: an error message pasted as it was
// logged, without quotes, puts the chunk that writes it first, though
// other chunks hold its words more often, apart.
func TestPastedErrorMessageFindsItsSource(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"gateway/upstream/dial.go": "package upstream\n\n// dial opens a connection to the upstream, retrying refused ones.\nfunc dial(addr string) (net.Conn, error) {\n\tfor i := 0; i < 3; i++ {\n\t\tif c, err := net.Dial(\"tcp\", addr); err == nil {\n\t\t\treturn c, nil\n\t\t}\n\t}\n\treturn nil, errors.New(\"upstream connection refused after retry budget spent\")\n}\n",
	}
	for i := range 8 {
		files[fmt.Sprintf("gateway/pool/pool%d.go", i)] = fmt.Sprintf("package pool\n\n// retry%d retries a refused upstream connection: the connection budget\n// is spent when the upstream refused every retry, and the connection\n// is refused again after the budget.\nfunc retry%d(conn *Conn, budget int) error {\n\tfor conn.Refused() && budget > 0 {\n\t\tbudget--\n\t\tconn.Retry()\n\t}\n\treturn conn.Err()\n}\n", i, i)
	}
	db := crawlFiles(t, root, files)
	for _, q := range []string{
		"upstream connection refused after retry budget spent",
		"error: upstream connection refused after retry budget spent",
	} {
		if hits := topHits(t, db, q); len(hits) == 0 || hits[0].FilePath != "upstream/dial.go" {
			t.Errorf("%q: hits %+v, want upstream/dial.go first", q, hits)
		}
	}
}

// crawlFiles writes files (path under root: content) and crawls each
// top-level directory they are in as a repository into root/q.db, which
// it returns.
func crawlFiles(t *testing.T, root string, files map[string]string) string {
	t.Helper()
	repos := map[string]bool{}
	for p, src := range files {
		repos[strings.SplitN(p, "/", 2)[0]] = true
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(root, "q.db")
	args := []string{"crawl", "--db", db, "--progress", "none"}
	for r := range repos {
		args = append(args, "--repo-path", filepath.Join(root, r))
	}
	if code, _, errs := coderag(t, args...); code != 0 {
		t.Fatalf("crawl: %s", errs)
	}
	return db
}

// queryHit is what the tests read of a query --json hit.
type queryHit struct {
	FilePath   string `json:"file_path"`
	SymbolName string `json:"symbol_name"`
}

// topHits runs query --json -k 3 and returns its hits.
func topHits(t *testing.T, db, query string) []queryHit {
	t.Helper()
	_, out, _ := coderag(t, "query", "--db", db, "--json", "-k", "3", query)
	var res struct{ Hits []queryHit }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	return res.Hits
}

// TestPastedTrace: a stack trace read from standard input ("query -")
// puts the chunk its innermost frame points at first, found by the end
// of its path (a container's /app/ and a virtualenv's site-packages are
// not the crawled paths) and its line; the text output names the frame.
func TestPastedTrace(t *testing.T) {
	db := crawlFiles(t, t.TempDir(), map[string]string{
		"shop/orders/views.py": `from orders.pricing import total_with_tax


def checkout(request, cart):
    """Charge the cart and create the order."""
    amount = total_with_tax(cart)
    return charge(request.user, amount)
`,
		"shop/orders/pricing.py": `TAX = {"DE": 0.19, "FR": 0.2}


def total_with_tax(cart):
    """The cart's total with the VAT of its country."""
    rate = TAX[cart.country]
    return sum(i.price for i in cart.items) * (1 + rate)


def delivery_fee(cart):
    return 0 if cart.total > 50 else 4.9
`,
		"shop/cart/store.go": `package cart

import "context"

// Store keeps carts in Redis.
type Store struct{ rdb Client }

// Load reads a cart.
func (s *Store) Load(ctx context.Context, id string) (*Cart, error) {
	raw, err := s.rdb.Get(ctx, "cart:"+id).Bytes()
	if err != nil {
		return nil, err
	}
	return decode(raw)
}
`,
	})
	for _, tc := range []struct {
		name, trace, want string
	}{
		{"python", `Traceback (most recent call last):
  File "/srv/app/.venv/lib/python3.11/site-packages/django/core/handlers/base.py", line 197, in _get_response
    response = wrapped_callback(request, *callback_args, **callback_kwargs)
  File "/app/orders/views.py", line 6, in checkout
    amount = total_with_tax(cart)
  File "/app/orders/pricing.py", line 6, in total_with_tax
    rate = TAX[cart.country]
KeyError: 'US'
`, "total_with_tax"},
		{"go", `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x6a1b2c]

goroutine 23 [running]:
example.com/shop/cart.(*Store).Load(0x0, {0x8b6e40, 0xc000010030}, {0xc00001a0c0, 0x24})
	/build/cart/store.go:10 +0x3a
main.main()
	/build/main.go:12 +0x1d
`, "Load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			io := &ioStreams{in: strings.NewReader(tc.trace), out: &out, err: &errb, termWidth: func() int { return 80 }}
			if code := run(context.Background(), []string{"query", "--db", db, "-k", "3", "--json", "-"}, io); code != 0 {
				t.Fatalf("query -: exit %d: %s", code, errb.String())
			}
			var res struct {
				Hits []struct {
					queryHit
					Explain struct {
						Frame string `json:"frame"`
					} `json:"explain"`
				} `json:"hits"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("query --json: %v\n%s", err, out.String())
			}
			if len(res.Hits) == 0 || !slices.Contains(strings.Split(res.Hits[0].SymbolName, ", "), tc.want) || res.Hits[0].Explain.Frame == "" {
				t.Fatalf("query - = %+v, want %s first, as a frame", res.Hits, tc.want)
			}
		})
	}
	var out, errb bytes.Buffer
	io := &ioStreams{in: strings.NewReader("  \n"), out: &out, err: &errb, termWidth: func() int { return 80 }}
	if code := run(context.Background(), []string{"query", "--db", db, "-"}, io); code != 2 || !strings.Contains(errb.String(), "standard input is empty") {
		t.Errorf("query - with nothing on standard input: exit %d, %q", code, errb.String())
	}
}

// TestLoggedMessage: a message as a log shows it, its format string's
// verbs filled with values, finds the line that writes it before chunks
// that hold its words apart, and the bm25-message list says why.
func TestLoggedMessage(t *testing.T) {
	db := crawlFiles(t, t.TempDir(), map[string]string{
		"shop/cart/store.go": `package cart

import (
	"context"
	"fmt"
)

// Open connects the cart store to Redis.
func Open(ctx context.Context, addr string) (*Store, error) {
	rdb, err := dial(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("failed to connect to redis at %s: %w", addr, err)
	}
	return &Store{rdb: rdb}, nil
}
`,
		"shop/cart/health.go": `package cart

import "context"

// Ping reports whether redis answers: a timeout, a refused connection or
// a failed dial at the address all make the cart unhealthy, and the
// probe connects again at the next tick.
func (s *Store) Ping(ctx context.Context) error {
	return s.rdb.Ping(ctx).Err()
}
`,
		"shop/docs/redis.md": "# Redis\n\nThe cart connects to redis at startup. When it failed to start, check the address and the timeout.\n",
	})
	var out, errb bytes.Buffer
	io := &ioStreams{out: &out, err: &errb, termWidth: func() int { return 80 }}
	q := "failed to connect to redis at 10.0.3.17:6379: dial tcp 10.0.3.17:6379: i/o timeout"
	if code := run(context.Background(), []string{"query", "--db", db, "-k", "3", "--json", q}, io); code != 0 {
		t.Fatalf("query: exit %d: %s", code, errb.String())
	}
	var res struct {
		Lists []string `json:"lists"`
		Hits  []queryHit
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].FilePath != "cart/store.go" || !slices.Contains(res.Lists, "bm25-message") {
		t.Errorf("query %q = %+v (lists %v), want cart/store.go first and a bm25-message list", q, res.Hits, res.Lists)
	}
}

// TestPastedRequest: a request as an access log, curl or a client's log
// shows it finds the chunk that registers the route that serves it and
// then its handler, behind a prefix the code does not show, for Go's
// ServeMux, an Express router mounted under a prefix and Flask.
func TestPastedRequest(t *testing.T) {
	db := crawlFiles(t, t.TempDir(), map[string]string{
		"billing/cmd/server/routes.go": `package main

import "net/http"

func routes(h *handlers) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /invoices/{id}", h.getInvoice)
	mux.HandleFunc("POST /invoices/{id}/void", h.voidInvoice)
	mux.HandleFunc("GET /healthz", h.health)
	return mux
}
`,
		"billing/cmd/server/invoices.go": `package main

import "net/http"

// voidInvoice cancels an unpaid invoice; a paid one answers 409.
func (h *handlers) voidInvoice(w http.ResponseWriter, r *http.Request) {
	inv, err := h.store.Invoice(r.Context(), r.PathValue("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if inv.Paid {
		http.Error(w, "invoice already paid", http.StatusConflict)
		return
	}
	h.store.Void(r.Context(), inv.ID)
}

func (h *handlers) getInvoice(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, h.store.Invoice(r.Context(), r.PathValue("id")))
}
`,
		"web/src/app.js": `const express = require('express');
const reviews = require('./routes/reviews');

const app = express();
app.use('/api/reviews', reviews);
app.listen(3000);
`,
		"web/src/routes/reviews.js": `const express = require('express');
const router = express.Router();

router.get('/:productId', async (req, res) => {
  const rows = await db.query('SELECT * FROM reviews WHERE product_id = $1', [req.params.productId]);
  res.json(rows);
});

router.post('/:productId/flag', async (req, res) => {
  await db.query('UPDATE reviews SET flagged = true WHERE id = $1', [req.body.id]);
  res.sendStatus(204);
});

module.exports = router;
`,
		"cart/server/main.go": `package main

import (
	"net"

	"google.golang.org/grpc"

	pb "example.com/shop/gen/cart/v1"
)

func main() {
	lis, _ := net.Listen("tcp", ":50051")
	s := grpc.NewServer()
	pb.RegisterCartServiceServer(s, &cartServer{store: newStore()})
	s.Serve(lis)
}
`,
		"cart/server/cart.go": `package main

import (
	"context"

	pb "example.com/shop/gen/cart/v1"
)

type cartServer struct {
	pb.UnimplementedCartServiceServer
	store *store
}

// AddItem puts an item in a user's cart, merging quantities.
func (c *cartServer) AddItem(ctx context.Context, req *pb.AddItemRequest) (*pb.Empty, error) {
	return &pb.Empty{}, c.store.add(ctx, req.UserId, req.Item)
}

// EmptyCart drops every item of a user's cart.
func (c *cartServer) EmptyCart(ctx context.Context, req *pb.EmptyCartRequest) (*pb.Empty, error) {
	return &pb.Empty{}, c.store.clear(ctx, req.UserId)
}
`,
		"backoffice/backoffice/urls.py": `from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("refunds/", include("refunds.urls")),
]
`,
		"backoffice/refunds/urls.py": `from django.urls import path, re_path

from . import views

urlpatterns = [
    path("", views.RefundList.as_view(), name="refund-list"),
    re_path(r"^(?P<refund_id>\d+)/approve/$", views.approve_refund, name="refund-approve"),
]
`,
		"backoffice/refunds/views.py": `from django.shortcuts import get_object_or_404, redirect
from django.views.generic import ListView

from .models import Refund


class RefundList(ListView):
    model = Refund


def approve_refund(request, refund_id):
    refund = get_object_or_404(Refund, pk=refund_id)
    refund.approve(by=request.user)
    return redirect("refund-list")
`,
		"search/app.py": `from flask import Flask, jsonify, request

app = Flask(__name__)


@app.route("/suggest/<term>")
def suggest(term):
    """Suggestions for a partly typed search term."""
    return jsonify(index.prefix(term, limit=int(request.args.get("n", 5))))
`,
	})
	for _, tc := range []struct {
		name, text string
		want       []string // symbols or files: the registration, then the handler
		route      string
	}{
		{"go access log", `10.4.2.9 - - [24/Nov/2026:07:59:01 +0000] "POST /billing/invoices/inv_8812/void HTTP/1.1" 502 0 "-" "Go-http-client/1.1"`,
			[]string{"routes", "voidInvoice"}, "POST /invoices/{id}/void"},
		{"express curl", "curl -X POST https://shop.example.com/api/reviews/sku-1042/flag -d '{\"id\":7}'",
			[]string{"reviews.js"}, "POST /api/reviews/{productId}/flag"}, // the handler inline
		{"flask client log", "GET http://search:5000/suggest/blue%20sh?n=8 -> 500 INTERNAL SERVER ERROR",
			[]string{"suggest"}, "GET /suggest/{term}"},
		{"django, included urls", `10.0.8.1 - - [24/Nov/2026:08:01:12 +0000] "POST /refunds/5531/approve/ HTTP/1.1" 500 145`,
			[]string{"refunds/urls.py", "approve_refund"}, "ANY /refunds/{refund_id}/approve"},
		{"django class-based view", "curl -s https://backoffice.internal/refunds/",
			[]string{"refunds/urls.py", "RefundList"}, "ANY /refunds"},
		{"grpc interceptor log", `level=error msg="finished call" grpc.service=shop.cart.v1.CartService grpc.method=EmptyCart grpc.code=Unavailable grpc.time_ms=3001`,
			[]string{"main", "EmptyCart"}, "GRPC shop.cart.v1.CartService/EmptyCart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			io := &ioStreams{in: strings.NewReader(tc.text), out: &out, err: &errb, termWidth: func() int { return 80 }}
			if code := run(context.Background(), []string{"query", "--db", db, "-k", "5", "--json", "-"}, io); code != 0 {
				t.Fatalf("query -: exit %d: %s", code, errb.String())
			}
			var res struct {
				Hits []struct {
					queryHit
					LineStart int `json:"line_start"`
					Explain   struct {
						Route     string `json:"route"`
						RouteLine int    `json:"route_line"`
					} `json:"explain"`
				} `json:"hits"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("query --json: %v\n%s", err, out.String())
			}
			if len(res.Hits) < len(tc.want) {
				t.Fatalf("query - = %d hits, want the route's %d first", len(res.Hits), len(tc.want))
			}
			for i, sym := range tc.want {
				h := res.Hits[i]
				if h.Explain.Route != tc.route || (i == 0) != (h.Explain.RouteLine > 0) || !slices.Contains(strings.Split(h.SymbolName, ", "), sym) && h.FilePath != sym && !strings.HasSuffix(h.FilePath, "/"+sym) {
					t.Errorf("hit %d = %s:%d %q route %q line %d, want %q for %s", i+1, h.FilePath, h.LineStart, h.SymbolName, h.Explain.Route, h.Explain.RouteLine, sym, tc.route)
				}
			}
		})
	}
	// Text output says which route a hit registers or handles.
	var out, errb bytes.Buffer
	io := &ioStreams{out: &out, err: &errb, termWidth: func() int { return 100 }}
	if code := run(context.Background(), []string{"query", "--db", db, "-k", "3", "--", `"POST /invoices/9/void HTTP/1.1" 502`}, io); code != 0 {
		t.Fatalf("query: exit %d: %s", code, errb.String())
	}
	if s := out.String(); !strings.Contains(s, "route POST /invoices/{id}/void") || !strings.Contains(s, "handles POST /invoices/{id}/void") {
		t.Errorf("query text output does not show the route:\n%s", s)
	}
}

// TestTranslationCatalogs: a web app's interface text translated into a
// dozen languages does not bury the code that answers a question about
// the system, and comes back when the question is about the text.
func TestTranslationCatalogs(t *testing.T) {
	files := map[string]string{
		"reader/worker/refresh.go": `package worker

// RefreshDue fetches, in the background, every subscription whose next
// check time has passed, a batch at a time.
func (p *Pool) RefreshDue(ctx context.Context) error {
	subs, err := p.store.DueSubscriptions(ctx, p.batchSize)
	if err != nil {
		return err
	}
	for _, s := range subs {
		p.queue <- s
	}
	return nil
}
`,
	}
	for _, lang := range []string{"de", "fr", "es", "it", "ja", "nl", "pl", "pt_BR", "ru", "tr", "uk", "zh_CN"} {
		files["reader/web/locales/"+lang+"/common.json"] = `{
  "refresh.background": "Feeds are refreshed in the background (` + lang + `)",
  "refresh.button": "Refresh all feeds now (` + lang + `)",
  "refresh.done": "How feeds are refreshed: every 60 minutes (` + lang + `)"
}
`
	}
	db := crawlFiles(t, t.TempDir(), files)
	hits := topHits(t, db, "how are feeds refreshed in the background")
	if len(hits) == 0 || hits[0].FilePath != "worker/refresh.go" {
		t.Errorf("how are feeds refreshed: first %+v, want worker/refresh.go before the catalogs", hits)
	}
	hits = topHits(t, db, "which languages is the refresh button text translated into")
	if len(hits) == 0 || !strings.Contains(hits[0].FilePath, "/locales/") {
		t.Errorf("a question about the translations: first %+v, want a catalog", hits)
	}
}

// TestLongPaste: the last few thousand lines of an access log, pasted
// whole, are searched by their most telling terms (with a warning that
// says so) and still find the route they hit; before, FTS5 got every
// term OR-ed and a 50 KB log took a minute.
func TestLongPaste(t *testing.T) {
	db := crawlFiles(t, t.TempDir(), map[string]string{
		"billing/routes.go": `package main

import "net/http"

func routes(h *handlers) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /invoices/{id}/pdf", h.invoicePDF)
	return mux
}
`,
	})
	var b strings.Builder
	for i := 0; b.Len() < 300_000; i++ {
		fmt.Fprintf(&b, "10.0.%d.%d - - [24/Nov/2026:07:%02d:%02d +0000] \"GET /invoices/inv_%d/pdf HTTP/1.1\" 504 0 \"-\" \"Go-http-client/1.1\"\n", i%200, i%250, i%60, i%60, i)
	}
	var out, errb bytes.Buffer
	io := &ioStreams{in: strings.NewReader(b.String()), out: &out, err: &errb, termWidth: func() int { return 80 }}
	if code := run(context.Background(), []string{"query", "--db", db, "-k", "3", "--json", "-"}, io); code != 0 {
		t.Fatalf("query - (300 KB): exit %d: %s", code, errb.String())
	}
	var res struct {
		Warnings []string `json:"warnings"`
		Hits     []struct {
			queryHit
			Explain struct {
				Route string `json:"route"`
			} `json:"explain"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("query --json: %v", err)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "a long text") }) {
		t.Errorf("warnings = %q, want the long text's", res.Warnings)
	}
	if len(res.Hits) == 0 || res.Hits[0].Explain.Route != "GET /invoices/{id}/pdf" {
		t.Errorf("hits = %+v, want the route first", res.Hits)
	}
}
