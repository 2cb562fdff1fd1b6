package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
	"coderag/core/embed"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		text string
		f    core.Filter
		err  string
	}{
		{"redis oom", "redis oom", core.Filter{}, ""},
		{"type:runbook redis", "redis", core.Filter{Corpus: []core.CorpusType{core.DocRunbook}}, ""},
		{"cart service:cart repo:platform lang:golang", "cart", core.Filter{Service: []string{"cart"}, Repo: []string{"platform"}, Language: []string{"go"}}, ""},
		{"path:src/api/** -path:test handler", "handler", core.Filter{Path: []string{"src/api/*"}, NotPath: []string{"*test*"}}, ""},
		{"type:runbook,adr x", "x", core.Filter{Corpus: []core.CorpusType{core.DocRunbook, core.DocADR}}, ""},
		{"type:convo x", "x", core.Filter{Corpus: []core.CorpusType{core.ConvoSlack, core.ConvoTranscript, core.ConvoOther}}, ""},
		{`"user profile" service:"user svc"`, `"user profile"`, core.Filter{Service: []string{"user svc"}}, ""},
		{"std::string http://cart:8080/x key: value", "std::string http://cart:8080/x key: value", core.Filter{}, ""},
		{"type: redis", "type: redis", core.Filter{}, ""},
		{"unexpected type: int", "unexpected type: int", core.Filter{}, ""},
		{"service: cart is down lang:", "service: cart is down lang:", core.Filter{}, ""},
		{"redis type:runbok", "", core.Filter{}, `unknown corpus type "runbok"`},
		{"how do I restart redis when the cart is down type:runbok", "", core.Filter{}, `unknown corpus type "runbok"`},
		{"relocation on dwinfosym for 42 against non-function data.db type:context deadline exceeded", "relocation on dwinfosym for 42 against non-function data.db type:context deadline exceeded", core.Filter{}, ""},
		{"relocation on dwinfosym for 42 against non-function type:runbook", "relocation on dwinfosym for 42 against non-function", core.Filter{Corpus: []core.CorpusType{core.DocRunbook}}, ""},
		{"x -type:slack", "", core.Filter{}, "only path: can be excluded"},
		{"x path:src/[a", "", core.Filter{}, "unbalanced"},
		// A character whose last byte is 0xA0 or 0x85 (which, alone, would
		// read as a no-break space or a next-line) stays whole.
		{"ポストモーテム", "ポストモーテム", core.Filter{}, ""},
		{"à la carte Åland", "à la carte Åland", core.Filter{}, ""},
		{"redis oom lang:go", "redis oom", core.Filter{Language: []string{"go"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.err != "" {
				var se *SyntaxError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, core.ErrBadQuery) {
					t.Fatalf("Parse(%q) err = %v, want a SyntaxError with %q", tt.in, err, tt.err)
				}
				if !strings.Contains(err.Error(), "^") {
					t.Errorf("error does not point at the bad part: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.text {
				t.Errorf("text = %q, want %q", got.Text, tt.text)
			}
			if d := cmp.Diff(tt.f, got.Filter); d != "" {
				t.Errorf("filter (-want +got):\n%s", d)
			}
		})
	}
}

func TestSyntaxErrorPointsAtValue(t *testing.T) {
	_, err := Parse("redis type:runbok")
	want := "  redis type:runbok\n             ^"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error:\n%v\nwant it to contain\n%s", err, want)
	}
}

func chunkAt(id, file string, lo, hi int, corpus core.CorpusType) core.Chunk {
	return core.Chunk{ID: id, FilePath: file, RepoName: "r", LineStart: lo, LineEnd: hi, Corpus: corpus}
}

func TestDedupeOverlappingChunks(t *testing.T) {
	hits := []core.Hit{
		{Chunk: chunkAt("a", "x.go", 10, 30, core.CodeLogic)},
		{Chunk: chunkAt("b", "x.go", 20, 25, core.CodeLogic)}, // inside a
		{Chunk: chunkAt("c", "x.go", 31, 40, core.CodeLogic)}, // after a
		{Chunk: chunkAt("d", "y.go", 10, 30, core.CodeLogic)}, // other file
	}
	var ids []string
	for _, h := range dedupe(hits) {
		ids = append(ids, h.Chunk.ID)
	}
	if d := cmp.Diff([]string{"a", "c", "d"}, ids); d != "" {
		t.Error(d)
	}
}

func TestBuiltinRerankerFeatures(t *testing.T) {
	fn := core.Chunk{SymbolName: "CartService.GetCart", Signature: "func (s *CartService) GetCart(ctx context.Context, userID string) (*Cart, error)",
		FilePath: "cart/service.go", Text: "func (s *CartService) GetCart(ctx context.Context, userID string) (*Cart, error) {\n\treturn s.store.Load(ctx, userID)\n}"}
	doc := core.Chunk{FilePath: "docs/overview.md", Text: "The cart is stored per user. Getting a cart is cheap; the service keeps carts in redis."}
	words, idents := queryWords("GetCart")
	f := Features(fn, words, idents)
	if f["symbol"] != 1 || f["coverage"] != 1 {
		t.Errorf("features of GetCart for its own function = %v", f)
	}
	scores, _, _ := BuiltinReranker{}.Rerank(context.Background(), "GetCart", []core.Hit{{Chunk: doc}, {Chunk: fn}})
	if scores[1] <= scores[0] {
		t.Errorf("rerank scores %v: the function should beat the doc", scores)
	}
	// A chunk of several declarations is the symbol of each of them.
	decls := core.Chunk{SymbolName: "CouponValidator, CODE_PATTERN, LOGGER", FilePath: "promotions/CouponValidator.java",
		Text: "public class CouponValidator {\n  static final Pattern CODE_PATTERN = Pattern.compile(\"^[A-Z0-9]{8}$\");"}
	for _, q := range []string{"CouponValidator", "CODE_PATTERN", "code_pattern"} {
		w, id := queryWords("what does " + q + " check")
		if f := Features(decls, w, id); f["symbol"] != 1 {
			t.Errorf("features of %q for the chunk declaring it = %v, want symbol 1", q, f)
		}
	}
	// A question that names a repository asks about its files: the
	// repository's name counts as the first part of the path.
	w, id := queryWords("how does payments-api retry a charge")
	mine := core.Chunk{RepoName: "payments-api", FilePath: "src/retry.ts", Text: "export function retryCharge() {}"}
	other := core.Chunk{RepoName: "web", FilePath: "src/retry.ts", Text: "export function retryCharge() {}"}
	if fm, fo := Features(mine, w, id), Features(other, w, id); fm["path"] <= fo["path"] || fm["coverage"] <= fo["coverage"] {
		t.Errorf("features of the named repository's chunk %v, of another's %v: want more path and coverage", fm, fo)
	}
	// A qualified name is the symbol of the declaration under its
	// qualifier (path or scope), half so of another of that name.
	w, id = queryWords("os.ReadFile")
	def := core.Chunk{SymbolName: "ReadFile", FilePath: "os/file.go", ContextPrefix: "os/file.go > ReadFile", Text: "func ReadFile(name string) ([]byte, error) {"}
	another := core.Chunk{SymbolName: "ReadFile", FilePath: "io/ioutil/ioutil.go", ContextPrefix: "io/ioutil/ioutil.go > ReadFile", Text: "func ReadFile(filename string) ([]byte, error) {\n\treturn os.ReadFile(filename)\n}"}
	method := core.Chunk{SymbolName: "Find", FilePath: "orders/repo.go", ContextPrefix: "orders/repo.go > OrderRepo > Find", Text: "func (r *OrderRepo) Find(id string) (*Order, error) {"}
	if f := Features(def, w, id); f["symbol"] != 1 || f["exact"] != 1 {
		t.Errorf("features of os.ReadFile's declaration = %v, want symbol and exact 1", f)
	}
	if f := Features(another, w, id); f["symbol"] != 0.5 {
		t.Errorf("features of another package's ReadFile = %v, want symbol 0.5", f)
	}
	if w, id := queryWords("what does OrderRepo.Find return"); Features(method, w, id)["symbol"] != 1 {
		t.Errorf("features of OrderRepo's Find for OrderRepo.Find = %v, want symbol 1", Features(method, w, id))
	}
	// A short name counts when qualified (errors.Is); a qualifier that is
	// only somewhere in the path (log of log/slog/logger.go) counts less
	// than the directory or type the name is declared in, and a type
	// whose name holds the qualifier (ClientConn for Client) is not it.
	w, id = queryWords("errors.Is")
	is := core.Chunk{SymbolName: "Is", FilePath: "errors/wrap.go", ContextPrefix: "errors/wrap.go > Is", Text: "func Is(err, target error) bool {"}
	if f := Features(is, w, id); f["symbol"] != 1 {
		t.Errorf("features of errors.Is's declaration = %v, want symbol 1", f)
	}
	w, id = queryWords("log.New")
	logNew := core.Chunk{SymbolName: "New", FilePath: "log/log.go", ContextPrefix: "log/log.go > New", Text: "func New(out io.Writer, prefix string, flag int) *Logger {"}
	slogNew := core.Chunk{SymbolName: "New", FilePath: "log/slog/logger.go", ContextPrefix: "log/slog/logger.go > New", Text: "func New(h Handler) *Logger {"}
	if fl, fs := Features(logNew, w, id), Features(slogNew, w, id); fl["symbol"] != 1 || fs["symbol"] != 0.75 {
		t.Errorf("symbol feature for log.New: log/log.go %v, log/slog/logger.go %v; want 1 and 0.75", fl["symbol"], fs["symbol"])
	}
	w, id = queryWords("Client.Do")
	conn := core.Chunk{SymbolName: "Do", FilePath: "net/http/persist.go", ContextPrefix: "net/http/persist.go > ClientConn > Do", Text: "func (cc *ClientConn) Do(req *Request) (*Response, error) {"}
	if f := Features(conn, w, id); f["symbol"] != 0.5 {
		t.Errorf("features of ClientConn.Do for Client.Do = %v, want symbol 0.5", f)
	}
	// Proximity: words next to each other beat words far apart.
	near := core.Chunk{Text: "redis memory limit raised " + strings.Repeat("filler ", 50)}
	far := core.Chunk{Text: "redis " + strings.Repeat("filler ", 50) + " memory limit"}
	w, id = queryWords("redis memory limit")
	if Features(near, w, id)["proximity"] <= Features(far, w, id)["proximity"] {
		t.Error("proximity does not prefer adjacent words")
	}
	// One word far from the others costs its share, not the whole score:
	// three of four words together beat four words spread out.
	w, id = queryWords("failed reserve stock warehouse")
	together := core.Chunk{Text: "log.error(failed to reserve stock) " + strings.Repeat("filler ", 80) + " warehouse"}
	spread := core.Chunk{Text: "failed " + strings.Repeat("filler ", 20) + " reserve " + strings.Repeat("filler ", 20) + " stock warehouse"}
	pt, ps := Features(together, w, id)["proximity"], Features(spread, w, id)["proximity"]
	if pt <= ps || math.Abs(pt-0.75) > 1e-9 {
		t.Errorf("proximity of three words together and one far = %v (want 3/4: three adjacent words of four), of four spread = %v", pt, ps)
	}
}

// listIndex answers BM25 and KNN from fixed lists (the lists run
// concurrently).
type listIndex struct {
	code, prose, dense, files []core.Hit
	matches                   []string // the BM25 expressions asked
	knnErr                    error
	mu                        sync.Mutex
	knnCalls                  int
	lastFilter                core.Filter
}

func (l *listIndex) BM25(_ context.Context, index, match string, k int, f core.Filter) ([]core.Hit, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastFilter = f
	l.matches = append(l.matches, match)
	if index == "code" {
		return l.code, nil
	}
	return l.prose, nil
}

func (l *listIndex) FileBM25(_ context.Context, _, _ string, k int, f core.Filter) ([]core.Hit, error) {
	return l.files, nil
}

func (l *listIndex) TermDocs(context.Context, []string) (int, map[string]int, error) {
	return 100, map[string]int{}, nil
}

func (l *listIndex) KNN(_ context.Context, v []float32, k int, f core.Filter) ([]core.Hit, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.knnCalls++
	return l.dense, l.knnErr
}

func ranked(list string, chunks ...core.Chunk) []core.Hit {
	var out []core.Hit
	for i, c := range chunks {
		out = append(out, core.Hit{Chunk: c, Score: float64(10 - i), Lists: []core.ListRank{{List: list, Rank: i + 1, Score: float64(10 - i)}}})
	}
	return out
}

type fixedEmbedder struct {
	id  string
	err error
}

func (f fixedEmbedder) Info() core.EmbedderInfo { return core.EmbedderInfo{ID: f.id, Dim: 2} }
func (f fixedEmbedder) Embed(_ context.Context, _ embed.Kind, texts []string) ([][]float32, error) {
	if f.err != nil {
		return nil, f.err
	}
	return [][]float32{{1, 0}}, nil
}

// rescoringEmbedder is a fixedEmbedder with a second stage that scores
// each document text from a table.
type rescoringEmbedder struct {
	fixedEmbedder
	score map[string]float64
}

func (r rescoringEmbedder) Rescore(_ context.Context, _ string, docs []string, _ []float64) ([]float64, error) {
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = r.score[d]
	}
	return out, nil
}

func TestSearchPipeline(t *testing.T) {
	a := chunkAt("a", "a.go", 1, 10, core.CodeLogic)
	b := chunkAt("b", "b.md", 1, 10, core.DocRunbook)
	c := chunkAt("c", "c.go", 1, 10, core.CodeLogic)
	old := chunkAt("old", "#incidents", 1, 1, core.ConvoSlack)
	old.Timestamp = "2024-01-01T00:00:00Z"
	fresh := chunkAt("fresh", "#incidents", 5, 5, core.ConvoSlack)
	fresh.Timestamp = "2026-11-20T00:00:00Z"
	now := func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) }

	t.Run("dense list joins with the builtin weight", func(t *testing.T) {
		idx := &listIndex{code: ranked("bm25-code", a, c), dense: ranked("dense", c, a)}
		e := New(idx, Options{Embedder: fixedEmbedder{id: embed.CorpusID}, CorpusBoost: 1, Now: now})
		res, err := e.Search(context.Background(), Query{Text: "cart", K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if res.Hits[0].Chunk.ID != "a" || idx.knnCalls != 1 || !strings.Contains(strings.Join(res.Lists, ","), "dense") {
			t.Fatalf("hits %v lists %v: bm25 should beat the builtin dense list at %v", ids(res.Hits), res.Lists, DefaultParams().Lists)
		}
		p := DefaultParams()
		want := p.Lists["bm25-code"]/float64(p.RRFK+1) + p.Lists["dense"]/float64(p.RRFK+2)
		if got := res.Hits[0].Explain.Fused; got < want-1e-12 || got > want+1e-12 {
			t.Errorf("fused = %v, want %v", got, want)
		}
	})
	t.Run("a second stage orders the dense list", func(t *testing.T) {
		a, c := a, c
		a.Text, c.Text = "func RetryPayment() {}", "func Charge() {}"
		idx := &listIndex{dense: ranked("dense", c, a)}
		emb := rescoringEmbedder{fixedEmbedder{id: embed.StaticPrefix + "2d-00000000"}, map[string]float64{a.Text: 2, c.Text: 1}}
		res, err := New(idx, Options{Embedder: emb, NoBM25: true, CorpusBoost: 1, Now: now}).Search(context.Background(), Query{Text: "retry payment", K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 2 || res.Hits[0].Chunk.ID != "a" {
			t.Fatalf("hits %v: the second stage puts a first", ids(res.Hits))
		}
		for _, h := range res.Hits {
			want := map[string]int{"a": 1, "c": 2}[h.Chunk.ID]
			if len(h.Lists) != 1 || h.Lists[0].List != "dense" || h.Lists[0].Rank != want {
				t.Errorf("%s lists %+v, want dense rank %d", h.Chunk.ID, h.Lists, want)
			}
		}
	})
	t.Run("embedder down: bm25 answers with a warning", func(t *testing.T) {
		idx := &listIndex{code: ranked("bm25-code", a)}
		e := New(idx, Options{Embedder: fixedEmbedder{id: "openai:m", err: errors.New("embedder openai at http://x is not reachable")}})
		res, err := e.Search(context.Background(), Query{Text: "cart"})
		if err != nil || len(res.Hits) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "not reachable") {
			t.Fatalf("res %+v, err %v", res, err)
		}
	})
	t.Run("vectors replaced by a crawl: bm25 answers with a warning", func(t *testing.T) {
		idx := &listIndex{code: ranked("bm25-code", a), knnErr: fmt.Errorf("vector search in x.db: %w", core.ErrVectorsReplaced)}
		res, err := New(idx, Options{Embedder: fixedEmbedder{id: embed.CorpusID}}).Search(context.Background(), Query{Text: "cart"})
		if err != nil || len(res.Hits) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "being replaced") {
			t.Fatalf("res %+v, err %v", res, err)
		}
	})
	t.Run("filters in the text reach the index", func(t *testing.T) {
		idx := &listIndex{prose: ranked("bm25-prose", b)}
		res, err := New(idx, Options{}).Search(context.Background(), Query{Text: "type:runbook restart", Filter: core.Filter{Repo: []string{"ops"}}})
		if err != nil {
			t.Fatal(err)
		}
		want := core.Filter{Corpus: []core.CorpusType{core.DocRunbook}, Repo: []string{"ops"}}
		if d := cmp.Diff(want, idx.lastFilter); d != "" || res.Text != "restart" {
			t.Errorf("filter (-want +got): %s text %q", d, res.Text)
		}
		if _, err := New(idx, Options{}).Search(context.Background(), Query{Text: "type:runbook"}); !errors.Is(err, core.ErrBadQuery) {
			t.Errorf("filters alone: err = %v, want ErrBadQuery", err)
		}
	})
	t.Run("freshness lifts recent conversations", func(t *testing.T) {
		idx := &listIndex{prose: ranked("bm25-prose", old, fresh)}
		res, _ := New(idx, Options{Now: now, CorpusBoost: 1}).Search(context.Background(), Query{Text: "checkout down"})
		if res.Hits[0].Chunk.ID != "fresh" || res.Hits[0].Explain.Freshness == nil {
			t.Errorf("order %v, explain %+v", ids(res.Hits), res.Hits[0].Explain)
		}
		res, _ = New(idx, Options{Now: now, CorpusBoost: 1, FreshnessWeight: -1}).Search(context.Background(), Query{Text: "checkout down"})
		if res.Hits[0].Chunk.ID != "old" {
			t.Errorf("freshness off: order %v", ids(res.Hits))
		}
	})
	t.Run("a question with a value is no pasted message", func(t *testing.T) {
		// The question words decide it, though the lists and the
		// reranker see the content words alone ("proxy return 503").
		cat := chunkAt("cat", "web/locales/uk/common.json", 1, 10, core.CodeConfig)
		idx := &listIndex{code: ranked("bm25-code", cat, a)}
		for _, tt := range []struct {
			text string
			want float64
		}{
			{"why does the proxy return 503", 0.3},
			{"proxy returned 503", 0},
		} {
			res, err := New(idx, Options{Now: now, CorpusBoost: 1}).Search(context.Background(), Query{Text: tt.text, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			var got float64
			for _, h := range res.Hits {
				if h.Chunk.ID == "cat" {
					got = h.Explain.Boost
				}
			}
			if got != tt.want {
				t.Errorf("%q: the catalog's prior %v, want %v", tt.text, got, tt.want)
			}
		}
	})
	t.Run("corpus boost for how-to words", func(t *testing.T) {
		idx := &listIndex{code: ranked("bm25-code", a), prose: ranked("bm25-prose", b)}
		res, _ := New(idx, Options{Now: now}).Search(context.Background(), Query{Text: "how to restart cart"})
		if res.Hits[0].Chunk.ID != "b" || res.Hits[0].Explain.Boost != 1.15 || !strings.Contains(res.Hits[0].Explain.BoostReason, "how-to") {
			t.Errorf("order %v explain %+v", ids(res.Hits), res.Hits[0].Explain)
		}
	})
}

func ids(hits []core.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Chunk.ID)
	}
	return out
}

func TestHTTPRerankers(t *testing.T) {
	hits := []core.Hit{{Chunk: core.Chunk{ID: "x", Text: "one"}}, {Chunk: core.Chunk{ID: "y", Text: "two"}}, {Chunk: core.Chunk{ID: "z", Text: "three"}}}
	tests := []struct {
		provider string
		path     string
		answer   func(req map[string]any) any
	}{
		{"tei", "/rerank", func(req map[string]any) any {
			if len(req["texts"].([]any)) != 3 || req["query"] != "q" {
				return nil
			}
			return []map[string]any{{"index": 2, "score": 0.9}, {"index": 0, "score": 0.1}, {"index": 1, "score": 0.5}}
		}},
		{"cohere", "/v1/rerank", func(req map[string]any) any {
			if len(req["documents"].([]any)) != 3 || req["model"] != "rr" {
				return nil
			}
			return map[string]any{"results": []map[string]any{{"index": 2, "relevance_score": 0.9}, {"index": 1, "relevance_score": 0.5}, {"index": 0, "relevance_score": 0.1}}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				if calls == 1 {
					http.Error(w, "busy", http.StatusServiceUnavailable)
					return
				}
				if r.URL.Path != tt.path {
					http.Error(w, "wrong path "+r.URL.Path, 404)
					return
				}
				var req map[string]any
				json.NewDecoder(r.Body).Decode(&req)
				json.NewEncoder(w).Encode(tt.answer(req))
			}))
			defer srv.Close()
			rr := &HTTPReranker{Provider: tt.provider, URL: srv.URL, Model: "rr"}
			scores, _, err := rr.Rerank(context.Background(), "q", hits)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]float64{0.1, 0.5, 0.9}, scores); d != "" {
				t.Error(d)
			}
			// Through the engine: the cross-encoder's order wins.
			idx := &listIndex{code: ranked("bm25-code", hits[0].Chunk, hits[1].Chunk, hits[2].Chunk)}
			calls = 1
			res, err := New(idx, Options{Reranker: rr, CorpusBoost: 1}).Search(context.Background(), Query{Text: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{"z", "y", "x"}, ids(res.Hits)); d != "" || res.Hits[0].Explain.Rerank == nil {
				t.Errorf("order (-want +got): %s", d)
			}
		})
	}
	// A server that is down leaves the fused order and a warning.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	idx := &listIndex{code: ranked("bm25-code", hits[0].Chunk, hits[1].Chunk)}
	res, err := New(idx, Options{Reranker: &HTTPReranker{Provider: "tei", URL: url}}).Search(context.Background(), Query{Text: "q"})
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], url) || res.Hits[0].Chunk.ID != "x" {
		t.Errorf("down reranker: %+v %v", res, err)
	}
}

func TestPathPriority(t *testing.T) {
	tests := []struct {
		path   string
		corpus core.CorpusType
		want   float64
	}{
		{"services/cart/Controllers/CartController.cs", core.CodeLogic, 1.3}, // services, controllers: high
		{"src/clients/cart.ts", core.CodeLogic, 1.1},
		{"src/clients/cart_test.go", core.CodeLogic, 0.8},
		{"docs/api.md", core.DocReadme, 1},
		{"main.go", core.CodeLogic, 1},
	}
	for _, tt := range tests {
		got, _ := pathPriority(core.Chunk{FilePath: tt.path, Corpus: tt.corpus})
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("pathPriority(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestRerankerSemanticFeature: the shipped model's cosine is a feature
// when its weight is set: a question scores a chunk on its topic above an
// unrelated one with no word in common, and not at all at weight 0.
func TestRerankerSemanticFeature(t *testing.T) {
	q := "how are uploaded files compressed before they are written to disk"
	on := core.Chunk{FilePath: "storage/archive.go", SymbolName: "WriteArchive",
		Text: "// WriteArchive gzips the blob and stores it.\nfunc WriteArchive(w io.Writer, blob []byte) error {\n\tzw := gzip.NewWriter(w)\n\tdefer zw.Close()\n\t_, err := zw.Write(blob)\n\treturn err\n}"}
	off := core.Chunk{FilePath: "billing/invoice.go", SymbolName: "TotalDue",
		Text: "// TotalDue sums the invoice lines with tax.\nfunc TotalDue(lines []Line, tax float64) float64 {\n\tvar s float64\n\tfor _, l := range lines {\n\t\ts += l.Amount\n\t}\n\treturn s * (1 + tax)\n}"}
	_, feats, err := BuiltinReranker{Features: map[string]float64{"semantic": 1}}.Rerank(context.Background(), q, []core.Hit{{Chunk: on}, {Chunk: off}})
	if err != nil {
		t.Fatal(err)
	}
	if feats[0]["semantic"] <= feats[1]["semantic"] {
		t.Errorf("semantic feature: %v for the archive writer, %v for the invoice total", feats[0]["semantic"], feats[1]["semantic"])
	}
	_, feats, _ = BuiltinReranker{Features: map[string]float64{"coverage": 1}}.Rerank(context.Background(), q, []core.Hit{{Chunk: on}})
	if _, ok := feats[0]["semantic"]; ok {
		t.Error("semantic feature computed at weight 0")
	}
}

func TestQualifiedName(t *testing.T) {
	for _, tt := range []struct{ term, want string }{
		{"os.ReadFile", "ReadFile"},
		{"http.MaxBytesReader", "MaxBytesReader"},
		{"os.ReadFile()?", "ReadFile"},
		{"CartService.Checkout,", "Checkout"},
		{"Cart::Checkout", "Checkout"},
		{"std::fs::read", "read"},
		{"os.path.join", "join"},
		{"OrderController#create", "create"},
		{"nginx.conf", ""},
		{"app.py", ""},
		{"values.yaml", ""},
		{"events.contoso.net", ""},
		{"cart.svc.cluster.local", ""},
		{"e.g.", ""},
		{"v1.2", ""},
		{"3.14", ""},
		{"ReadFile", ""},
		{".env", ""},
		{"a:::b", ""},
	} {
		if got := QualifiedName(tt.term); got != tt.want {
			t.Errorf("QualifiedName(%q) = %q, want %q", tt.term, got, tt.want)
		}
	}
}

func TestWholePhrases(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"redis down", nil},
		{`"connection refused" upstream retry`, nil},
		{"tls: bad certificate", []string{"tls: bad certificate"}},
		{"error: upstream connection  refused", []string{"error: upstream connection refused", "upstream connection refused", "error: upstream connection"}},
	} {
		if got := wholePhrases(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("wholePhrases(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestUsageQuestion(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"who calls ReadMIMEHeader", true},
		{"What uses the cart client?", true},
		{"callers of http.Error", true},
		{"usages of BILLING_API_URL", true},
		{"where is SESSION_TTL used, and what is its default?", true},
		{"where does getUserProfile get called", true},
		{"call sites of retryCharge", true},
		{"where is ReadMIMEHeader defined", false},
		{"which payment provider does checkout call", false},
		{"what does the cart service use for storage", false},
		{"how is the connection pool used", false},
	} {
		if got := usageQuestion(tt.q); got != tt.want {
			t.Errorf("usageQuestion(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// phraseIndex is a listIndex whose BM25 scores phrases as FTS5 does.
type phraseIndex struct{ *listIndex }

func (phraseIndex) ScoresPhrases() bool { return true }

// TestWholePhraseOnlyWherePhrasesScore: the query's whole text is asked
// as a phrase of an index that scores phrases as one term, and not of one
// that would count each of its words (PostgreSQL's).
func TestWholePhraseOnlyWherePhrasesScore(t *testing.T) {
	const q = "upstream connection refused after retry"
	for _, tt := range []struct {
		name string
		idx  func(*listIndex) Index
		want bool
	}{
		{"phrase scorer", func(l *listIndex) Index { return phraseIndex{l} }, true},
		{"per-word scorer", func(l *listIndex) Index { return l }, false},
	} {
		l := &listIndex{}
		if _, err := New(tt.idx(l), Options{}).Search(context.Background(), Query{Text: q}); err != nil {
			t.Fatal(err)
		}
		asked := false
		for _, m := range l.matches {
			asked = asked || strings.Contains(m, `"`+q+`"`)
		}
		if asked != tt.want {
			t.Errorf("%s: whole phrase asked %v, want %v (matches %q)", tt.name, asked, tt.want, l.matches)
		}
	}
}

// TestWeightsFor: the shipped model's learned list weight holds for
// questions that describe code; a pasted message and a query written as
// code count its list as one list, a question for callers not at all. The
// corpus model's weight, a weight given in Options, and the dense list
// alone are left as they are.
func TestWeightsFor(t *testing.T) {
	static := fixedEmbedder{id: embed.StaticPrefix + "2d-00000000"}
	learned := DefaultParams().Lists["dense-static"]
	for _, tt := range []struct {
		name    string
		opts    Options
		q       string
		message bool
		usage   bool
		run     listRun
		want    float64
	}{
		{"a description", Options{Embedder: static}, "how are sessions kept in the cache", false, false, listRun{}, learned},
		{"a description naming an identifier", Options{Embedder: static}, "how does parseHeader handle an empty line", false, false, listRun{}, learned},
		{"a qualified name", Options{Embedder: static}, "os.ReadFile", false, false, listRun{}, 1},
		{"an identifier", Options{Embedder: static}, "ReadMIMEHeader", false, false, listRun{}, 1},
		{"identifiers and a stop word", Options{Embedder: static}, "the MAX_RETRIES", false, false, listRun{}, 1},
		{"a call", Options{Embedder: static}, "handle()", false, false, listRun{}, 1},
		{"a pasted message", Options{Embedder: static}, "dial tcp: connection refused", true, false, listRun{}, 1},
		{"a message copied as the index holds it", Options{Embedder: static}, "invalid pattern syntax", false, false,
			listRun{lists: [][]core.Hit{{{Chunk: core.Chunk{Text: `errors.New("invalid pattern syntax")`}}}}, names: []string{"bm25-code"}}, 1},
		{"a question for callers", Options{Embedder: static}, "who calls ReadMIMEHeader", false, true, listRun{}, 0},
		{"the corpus model", Options{Embedder: fixedEmbedder{id: embed.CorpusID}}, "os.ReadFile", false, false, listRun{}, DefaultParams().Lists["dense"]},
		{"a weight given", Options{Embedder: static, Weights: map[string]float64{"dense": 3}}, "who calls Get", false, true, listRun{}, 3},
		{"the dense list alone", Options{Embedder: static, NoBM25: true}, "who calls Get", false, true, listRun{}, learned},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := New(&listIndex{}, tt.opts)
			w := e.weightsFor(tt.q, tt.message, tt.usage, tt.run)
			if got := w["dense"]; got != tt.want {
				t.Errorf("dense weight %g, want %g", got, tt.want)
			}
		})
	}
	// The engine's weights are not changed by a query's.
	e := New(&listIndex{}, Options{Embedder: static})
	e.weightsFor("who calls Get", false, true, listRun{})
	if e.opts.Weights["dense"] != learned {
		t.Errorf("the engine's dense weight became %g", e.opts.Weights["dense"])
	}
}

// TestHeldVerbatim: a query the first hits of a lexical list hold word for
// word (case and spacing aside, three words or more) reads as a copied
// message; the dense list's hits and shorter queries do not count.
func TestHeldVerbatim(t *testing.T) {
	chunk := func(text string) []core.Hit { return []core.Hit{{Chunk: core.Chunk{Text: text}}} }
	msg := `return errors.New("invalid  pattern syntax")`
	for _, tt := range []struct {
		name string
		q    string
		run  listRun
		want bool
	}{
		{"held by a BM25 list", "Invalid pattern syntax", listRun{lists: [][]core.Hit{chunk(msg)}, names: []string{"bm25-code"}}, true},
		{"held only by the dense list", "invalid pattern syntax", listRun{lists: [][]core.Hit{chunk(msg)}, names: []string{"dense"}}, false},
		{"words apart", "pattern syntax invalid", listRun{lists: [][]core.Hit{chunk(msg)}, names: []string{"bm25-code"}}, false},
		{"two words", "pattern syntax", listRun{lists: [][]core.Hit{chunk(msg)}, names: []string{"bm25-code"}}, false},
		{"no lists", "invalid pattern syntax", listRun{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := heldVerbatim(tt.q, tt.run); got != tt.want {
				t.Errorf("heldVerbatim(%q) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

// busyIndex is a listIndex that counts how many of its lists run at once
// and in which order they start; limit is its ListsAtOnce.
type busyIndex struct {
	listIndex
	limit   int
	mu2     sync.Mutex
	running int
	most    int
	started []string
}

func (b *busyIndex) enter(name string) func() {
	b.mu2.Lock()
	b.running++
	b.most = max(b.most, b.running)
	b.started = append(b.started, name)
	b.mu2.Unlock()
	time.Sleep(5 * time.Millisecond)
	return func() {
		b.mu2.Lock()
		b.running--
		b.mu2.Unlock()
	}
}

func (b *busyIndex) ListsAtOnce() int { return b.limit }

func (b *busyIndex) BM25(ctx context.Context, index, match string, k int, f core.Filter) ([]core.Hit, error) {
	defer b.enter("bm25-" + index)()
	return b.listIndex.BM25(ctx, index, match, k, f)
}

func (b *busyIndex) FileBM25(ctx context.Context, match, best string, k int, f core.Filter) ([]core.Hit, error) {
	defer b.enter("file")()
	return b.listIndex.FileBM25(ctx, match, best, k, f)
}

func (b *busyIndex) KNN(ctx context.Context, v []float32, k int, f core.Filter) ([]core.Hit, error) {
	defer b.enter("knn")()
	return b.listIndex.KNN(ctx, v, k, f)
}

// TestListsAtOnce: a query runs no more of its retrieval lists at once
// than the index allows (the SQLite file: one per core; each list holds
// a connection, and more at once than cores only cost CPU), every one of
// them runs, and when they wait their turn the whole-file list, the
// slowest, starts before the other BM25 lists. An index without a limit
// (a database server) runs them all at once.
func TestListsAtOnce(t *testing.T) {
	for _, limit := range []int{1, 2, 4, 0} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			idx := &busyIndex{limit: limit, listIndex: listIndex{
				code:  ranked("bm25-code", chunkAt("a", "a.go", 1, 10, core.CodeLogic)),
				dense: ranked("dense", chunkAt("b", "b.go", 1, 10, core.CodeLogic)),
			}}
			var index Index = idx
			if limit == 0 {
				index = &idx.listIndex // no ListsAtOnce
			}
			res, err := New(index, Options{Embedder: fixedEmbedder{id: "t"}}).Search(context.Background(),
				Query{Text: "database connection refused while reading the config"})
			if err != nil {
				t.Fatal(err)
			}
			if limit == 0 {
				if len(res.Lists) != 4 {
					t.Errorf("lists %v, want four", res.Lists)
				}
				return
			}
			if idx.most > limit {
				t.Errorf("%d lists ran at once, want at most %d (lists %v)", idx.most, limit, res.Lists)
			}
			if idx.knnCalls != 1 || len(res.Lists) != 4 || len(idx.started) != 4 {
				t.Errorf("lists %v, KNN asked %d times: want every list run once", res.Lists, idx.knnCalls)
			}
			var bm25 []string
			for _, s := range idx.started {
				if s != "knn" {
					bm25 = append(bm25, s)
				}
			}
			if limit == 1 && (len(bm25) == 0 || bm25[0] != "file") {
				t.Errorf("BM25 lists started in the order %v, want the whole-file list first", bm25)
			}
		})
	}
}
