package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"coderag/sqlite"
)

// sampleCopy copies the crawled sample database, so that a test may write
// to it.
func sampleCopy(t *testing.T) string {
	t.Helper()
	src := crawlSample(t)
	dst := filepath.Join(t.TempDir(), "copy.db")
	for _, suf := range []string{"", "-wal"} {
		b, err := os.ReadFile(src + suf)
		if err != nil {
			if suf != "" && os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		os.WriteFile(dst+suf, b, 0o644)
	}
	return dst
}

// startAPI serves a database on a loopback port.
func startAPI(t testing.TB, db, token string) *httptest.Server {
	t.Helper()
	srv, closeFn := newTestAPI(t, db, token)
	t.Cleanup(closeFn)
	return srv
}

// newTestAPI is a server over db and the func that closes it (a
// benchmark closes it before a crawl rewrites the index).
func newTestAPI(t testing.TB, db, token string) (*httptest.Server, func()) {
	t.Helper()
	h, closeFn, err := newAPI(context.Background(), db, &embedFlags{}, &rerankFlags{}, token)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	return srv, func() { srv.Close(); closeFn() }
}

// call makes a request and decodes the JSON answer.
func call(t *testing.T, srv *httptest.Server, method, path, body, token string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: not JSON (%v): %s", method, path, err, b)
	}
	return resp.StatusCode, out
}

func js(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.String()
}

// TestServeAPI: every endpoint of coderag serve on the sample, the JSON
// errors, the OpenAPI document against the routes, and MCP over
// streamable HTTP.
func TestServeAPI(t *testing.T) {
	srv := startAPI(t, sampleCopy(t), "")
	tests := []struct {
		method, path, body string
		status             int
		want               string // a piece of the JSON answer
	}{
		{"GET", "/health", "", 200, `"embedder_reachable":true`},
		{"POST", "/v1/search", `{"query": "redis", "type": ["runbook"], "k": 3}`, 200, `"corpus_type":"DOC_RUNBOOK"`},
		{"POST", "/v1/search", `{"query": "redis", "service": ["kart"]}`, 400, `did you mean cart`},
		{"POST", "/v1/search", `{"query": "RedisConnectionException", "k": 3}`, 200, `"file_path":"docs/runbooks/cart-redis-outage.md"`},
		{"POST", "/v1/search", `{"query": ""}`, 400, `query is required`},
		{"POST", "/v1/search", `{"query": "x", "size": 3}`, 400, `unknown field`},
		{"POST", "/v1/search", `{"query": "x"`, 400, `"code":"bad_request"`},
		{"POST", "/v1/context", `{"query": "what breaks when redis is down", "budget": 2000}`, 200, `"blast_radius":["cart`},
		{"POST", "/v1/context", `{"query": "how are carts stored", "format": "xml", "budget": 1000}`, 200, `<codeRag:chunk>`},
		{"POST", "/v1/context", `{"query": "x", "format": "yaml"}`, 400, `format must be`},
		{"POST", "/v1/pr-context", `{"diff": "--- a/services/cart/Controllers/CartController.cs\n+++ b/services/cart/Controllers/CartController.cs\n@@ -28,3 +28,4 @@\n     public async Task<ActionResult<ShoppingCart>> GetCart(string userId)\n     {\n+        if (userId == \"\") return BadRequest();\n         var cart = await _store.LoadAsync(userId);\n", "title": "refuse blank users"}`,
			200, `"file_path":"services/cart/Controllers/CartController.cs"`},
		{"POST", "/v1/pr-context", `{"diff": "not a diff"}`, 400, `no file changes`},
		{"GET", "/v1/graph", "", 200, `"name":"cart"`},
		{"GET", "/v1/graph?service=cart&depth=1", "", 200, `"focus":"cart"`},
		{"GET", "/v1/graph?service=kart", "", 404, `did you mean cart`},
		{"GET", "/v1/graph?depth=x", "", 400, `depth must be`},
		{"GET", "/v1/services/redis/blast-radius", "", 200, `"name":"checkout"`},
		{"GET", "/v1/nothing", "", 404, `no such endpoint`},
		{"GET", "/v1/search", "", 405, `GET /v1/search: this endpoint takes POST`},
		{"POST", "/v1/search", `[1, 2]`, 400, `want an object, got array`},
		{"POST", "/v1/search", `{"query": "x", "limit": 500}`, 400, `k must be between 1 and 200, got 500`},
		{"POST", "/v1/search", `{"query": "x", "k": "ten"}`, 400, `\"k\" wants an integer, got string`},
		{"POST", "/v1/search", ``, 400, `the body is empty`},
		{"POST", "/v1/graph", "{}", 405, `this endpoint takes GET`},
	}
	for _, tt := range tests {
		status, out := call(t, srv, tt.method, tt.path, tt.body, "")
		if status != tt.status || !strings.Contains(js(out), tt.want) {
			t.Errorf("%s %s: %d %s\nwant %d with %s", tt.method, tt.path, status, trim(js(out)), tt.status, tt.want)
		}
	}
	// The document lists exactly the routes, and each answers.
	_, doc := call(t, srv, "GET", "/v1/openapi.json", "", "")
	var listed []string
	for p, item := range doc["paths"].(map[string]any) {
		for m := range item.(map[string]any) {
			listed = append(listed, strings.ToUpper(m)+" "+p)
		}
	}
	sort.Strings(listed)
	var served []string
	for _, rt := range (&api{}).routes() {
		served = append(served, rt.method+" "+rt.path)
	}
	served = append(served, "GET /v1/openapi.json")
	sort.Strings(served)
	if strings.Join(listed, ", ") != strings.Join(served, ", ") {
		t.Errorf("OpenAPI paths %v, routes %v", listed, served)
	}
	for _, op := range listed {
		method, path, _ := strings.Cut(op, " ")
		path = strings.Replace(path, "{name}", "cart", 1)
		if status, out := call(t, srv, method, path, "{}", ""); status == 404 && strings.Contains(js(out), "no such endpoint") {
			t.Errorf("%s is in the document but not served", op)
		}
	}
	// MCP over streamable HTTP.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 7 {
		t.Fatalf("MCP over HTTP: %v, %d tools", err, len(tools.Tools))
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "RedisConnectionException"}})
	if err != nil || res.IsError {
		t.Errorf("MCP search over HTTP: %v %v", err, res)
	}
}

func trim(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// TestServeToken: with a token every request but /health needs it; a
// non-loopback address without one is refused.
func TestServeToken(t *testing.T) {
	srv := startAPI(t, sampleCopy(t), "s3cret")
	if status, out := call(t, srv, "POST", "/v1/search", `{"query": "redis"}`, ""); status != 401 || !strings.Contains(js(out), "unauthorized") {
		t.Errorf("no token: %d %v", status, out)
	}
	if status, _ := call(t, srv, "POST", "/v1/search", `{"query": "redis"}`, "wrong"); status != 401 {
		t.Errorf("a wrong token: %d", status)
	}
	if status, _ := call(t, srv, "POST", "/v1/search", `{"query": "redis"}`, "s3cret"); status != 200 {
		t.Errorf("the token: %d", status)
	}
	if status, _ := call(t, srv, "GET", "/health", "", ""); status != 200 {
		t.Errorf("/health without the token: %d", status)
	}
	code, _, errs := coderag(t, "serve", "--db", crawlSample(t), "--addr", "0.0.0.0:0")
	if code != 2 || !strings.Contains(errs, "token") {
		t.Errorf("serve on 0.0.0.0 without a token: exit %d, %q", code, errs)
	}
}

// TestServeDuringCrawl: four clients query while a crawl writes the same
// index; none of their requests fails.
func TestServeDuringCrawl(t *testing.T) {
	db := sampleCopy(t)
	srv := startAPI(t, db, "")
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	requests := 0
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				body := fmt.Sprintf(`{"query": "cart redis %d", "k": 5}`, i%7)
				req, _ := http.NewRequest("POST", srv.URL+"/v1/search", strings.NewReader(body))
				resp, err := srv.Client().Do(req)
				mu.Lock()
				requests++
				if err != nil {
					failures = append(failures, err.Error())
				} else if resp.StatusCode != 200 {
					b, _ := io.ReadAll(resp.Body)
					failures = append(failures, fmt.Sprintf("%d %s", resp.StatusCode, b))
				}
				mu.Unlock()
				if resp != nil {
					resp.Body.Close()
				}
			}
		}()
	}
	code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", filepath.Join(sampleDir, "platform"), "--progress", "none")
	close(done)
	wg.Wait()
	if code != 0 {
		t.Fatalf("crawl: %s", errs)
	}
	if len(failures) > 0 || requests < 4 {
		t.Errorf("%d requests during the crawl, %d failed: %v", requests, len(failures), failures[:min(len(failures), 3)])
	}
}

// TestServeCrawl: the write endpoints need a token; a crawl started over
// HTTP runs one at a time (409 for a second), streams its progress as
// server-sent events and ends with its result.
func TestServeCrawl(t *testing.T) {
	db := sampleCopy(t)
	open := startAPI(t, db, "")
	if status, out := call(t, open, "POST", "/v1/index", "", ""); status != 403 || !strings.Contains(js(out), "token") {
		t.Errorf("a crawl without a token set: %d %v", status, out)
	}
	srv := startAPI(t, db, "tok")
	status, out := call(t, srv, "POST", "/v1/index", "", "tok")
	if status != 202 || out["id"] == nil {
		t.Fatalf("POST /v1/index: %d %v", status, out)
	}
	id := int(out["id"].(float64))
	if status, out := call(t, srv, "POST", "/v1/index/update", "", "tok"); status != 409 || !strings.Contains(js(out), "is running") {
		t.Errorf("a second crawl while one runs: %d %v", status, out)
	}
	req, _ := http.NewRequest("GET", fmt.Sprintf("%s/v1/crawls/%d", srv.URL, id), nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body) // until the crawl ends
	resp.Body.Close()
	stream := string(body)
	i := strings.Index(stream, "event: done\ndata: ")
	if resp.Header.Get("Content-Type") != "text/event-stream" || i < 0 {
		t.Fatalf("no done event in the stream:\n%s", stream)
	}
	var done struct {
		Status string `json:"status"`
		Files  int    `json:"files"`
		Chunks int    `json:"chunks"`
	}
	json.Unmarshal([]byte(strings.SplitN(stream[i+len("event: done\ndata: "):], "\n", 2)[0]), &done)
	if done.Status != "ok" || done.Files == 0 || done.Chunks == 0 {
		t.Errorf("crawl result %+v\n%s", done, stream)
	}
	if status, out := call(t, srv, "GET", fmt.Sprintf("/v1/crawls/%d", id), "", "tok"); status != 200 || out["status"] != "ok" {
		t.Errorf("GET the finished crawl: %d %v", status, out)
	}
	if status, _ := call(t, srv, "GET", "/v1/crawls/99", "", "tok"); status != 404 {
		t.Errorf("an unknown crawl: %d", status)
	}
	if status, out := call(t, srv, "POST", "/v1/index/update", "", "tok"); status != 202 {
		t.Errorf("an update after the crawl ended: %d %v", status, out)
	}
}

// TestServeDeleteFiles: DELETE /v1/index/files removes a source's files
// from the index (they stop being found) and reports paths it does not
// hold; it needs a token, and names the closest source for a typo.
func TestServeDeleteFiles(t *testing.T) {
	db := sampleCopy(t)
	if status, _ := call(t, startAPI(t, db, ""), "DELETE", "/v1/index/files", `{"source": "platform", "paths": ["x"]}`, ""); status != 403 {
		t.Errorf("without a token set: %d", status)
	}
	srv := startAPI(t, db, "tok")
	found := func() bool {
		_, out := call(t, srv, "POST", "/v1/search", `{"query": "RedisConnectionException", "k": 20}`, "tok")
		return strings.Contains(js(out), `"file_path":"docs/runbooks/cart-redis-outage.md"`)
	}
	if !found() {
		t.Fatal("the runbook is not found before the delete")
	}
	status, out := call(t, srv, "DELETE", "/v1/index/files", `{"source": "platform", "paths": ["docs/runbooks/cart-redis-outage.md", "nope.md"]}`, "tok")
	if status != 200 || js(out["deleted"]) != "[\"docs/runbooks/cart-redis-outage.md\"]\n" || js(out["not_in_index"]) != "[\"nope.md\"]\n" {
		t.Fatalf("DELETE: %d %v", status, out)
	}
	if found() {
		t.Error("the deleted runbook is still found")
	}
	if status, out := call(t, srv, "DELETE", "/v1/index/files", `{"source": "platfrom", "paths": ["a"]}`, "tok"); status != 404 || !strings.Contains(js(out), "did you mean platform") {
		t.Errorf("a mistyped source: %d %v", status, out)
	}
}

// TestGraphCache: a server reads the graph once, and again only after a
// crawl ended.
func TestGraphCache(t *testing.T) {
	ctx := context.Background()
	path := sampleCopy(t)
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := &graphCache{db: db}
	g1, _, err := c.get(ctx)
	if err != nil || len(g1.Services) == 0 {
		t.Fatalf("graph: %v", err)
	}
	if g2, _, _ := c.get(ctx); g2 != g1 {
		t.Error("the graph was read again with no crawl in between")
	}
	if code, _, errs := coderag(t, "crawl", "--db", path, "--repo-path", filepath.Join(sampleDir, "platform"), "--progress", "none"); code != 0 {
		t.Fatal(errs)
	}
	if g3, _, _ := c.get(ctx); g3 == g1 {
		t.Error("the graph was not read again after a crawl")
	}
}
