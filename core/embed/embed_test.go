package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"getUserProfile", []string{"get", "user", "profile"}},
		{"func (s *Server) GetCart(ctx context.Context) error", []string{"server", "get", "cart", "ctx", "context", "context", "error"}},
		{"retry 3 times, x = 42", []string{"retry", "times"}},
		{"the HTTP_CLIENT timeout", []string{"http", "client", "timeout"}},
		{"", nil},
	}
	for _, tt := range tests {
		got := Tokens(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// orthonormal returns an r×c matrix with orthonormal columns.
func orthonormal(rng *rand.Rand, r, c int) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, r, 0, c))
}

// TestRandomizedSVDKnownAnswer builds A = U·diag(s)·Vᵀ with known factors
// and checks that the top singular values and vectors come back.
func TestRandomizedSVDKnownAnswer(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const rows, cols = 60, 40
	s := []float64{20, 10, 5, 2, 1, 0.5, 0.25, 0.1}
	u := orthonormal(rng, rows, len(s))
	v := orthonormal(rng, cols, len(s))
	var us, a mat.Dense
	us.Mul(u, mat.NewDiagDense(len(s), s))
	a.Mul(&us, v.T())
	var entries []Entry
	for i := range rows {
		for j := range cols {
			entries = append(entries, Entry{Row: i, Col: j, Val: a.At(i, j)})
		}
	}
	m, err := NewSparse(rows, cols, entries)
	if err != nil {
		t.Fatal(err)
	}
	got, err := RandomizedSVD(m, 4, 6, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if math.Abs(got.S[i]-s[i]) > 1e-8*s[0] {
			t.Errorf("singular value %d = %.10f, want %.10f", i, got.S[i], s[i])
		}
		dot := 0.0
		for r := range rows {
			dot += got.U.At(r, i) * u.At(r, i)
		}
		if math.Abs(math.Abs(dot)-1) > 1e-8 {
			t.Errorf("singular vector %d: |<u, want>| = %.10f, want 1", i, math.Abs(dot))
		}
	}
}

func TestRandomizedSVDRankDeficient(t *testing.T) {
	// A 5x5 matrix of rank 1 asked for rank 4: no failure, one non-zero value.
	var entries []Entry
	for i := range 5 {
		for j := range 5 {
			entries = append(entries, Entry{Row: i, Col: j, Val: float64((i + 1) * (j + 1))})
		}
	}
	m, _ := NewSparse(5, 5, entries)
	got, err := RandomizedSVD(m, 4, 4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 55.0; math.Abs(got.S[0]-want) > 1e-9 { // ||(1..5)||² = 55
		t.Errorf("S[0] = %v, want %v", got.S[0], want)
	}
	for _, v := range got.S[1:] {
		if v > 1e-5 {
			t.Errorf("S = %v: want one non-zero value", got.S)
		}
	}
}

func TestSparseMergesDuplicates(t *testing.T) {
	m, err := NewSparse(2, 3, []Entry{{0, 2, 1}, {0, 0, 2}, {0, 2, 3}, {1, 1, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if m.NNZ() != 3 {
		t.Fatalf("NNZ = %d, want 3", m.NNZ())
	}
	x := mat.NewDense(3, 1, []float64{1, 10, 100})
	y := m.mul(x)
	if y.At(0, 0) != 402 || y.At(1, 0) != 50 {
		t.Errorf("m·x = %v", mat.Formatted(y))
	}
	if _, err := NewSparse(2, 2, []Entry{{2, 0, 1}}); err == nil {
		t.Error("out-of-range entry accepted")
	}
}

var corpus = []string{
	"func (c *CartClient) AddItem(ctx context.Context, userID string, item Item) error { return c.redis.HSet(ctx, cartKey(userID), item.ID, item.Qty) }",
	"func (c *CartClient) GetCart(ctx context.Context, userID string) (Cart, error) { return c.redis.HGetAll(ctx, cartKey(userID)) }",
	"func (c *CartClient) EmptyCart(ctx context.Context, userID string) error { return c.redis.Del(ctx, cartKey(userID)) }",
	"def charge(card, amount): payment gateway charge card amount currency",
	"def refund(charge_id, amount): payment gateway refund charge amount",
	"class PaymentService: charge card payment gateway currency amount",
	"Runbook: redis cart cache OOMKilled. Increase redis memory limit, flush cart keys.",
	"Incident: payment gateway timeout, charge retries exhausted, refund queue backed up.",
	"export async function getUserProfile(userId: string) { return http.get(`/users/${userId}/profile`) }",
	"export function updateUserProfile(userId: string, profile: Profile) { return http.put(`/users/${userId}/profile`, profile) }",
	"user profile service returns the profile of a user by user id",
}

func trainSmall(t *testing.T) *Model {
	t.Helper()
	m, st, err := Train(context.Background(), corpus, TrainOptions{Dim: 8, MinDocs: 2, Oversample: 4})
	if err != nil {
		t.Fatal(err)
	}
	if st.Vocab == 0 || st.NonZero == 0 || st.Rank == 0 {
		t.Fatalf("stats %+v", st)
	}
	return m
}

func TestTrainDeterministic(t *testing.T) {
	a, b := trainSmall(t), trainSmall(t)
	if !slices.Equal(a.Tokens, b.Tokens) || !slices.Equal(a.Vecs, b.Vecs) || !slices.Equal(a.IDF, b.IDF) {
		t.Fatal("two trainings on the same corpus differ")
	}
	for _, text := range corpus {
		if !slices.Equal(a.Embed(text), b.Embed(text)) {
			t.Fatalf("embeddings of %q differ", text)
		}
	}
}

func cos(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

func TestBuiltinVectors(t *testing.T) {
	m := trainSmall(t)
	if m.Embed("zzz qqq") != nil {
		t.Error("text of unknown words got a vector")
	}
	v := m.Embed(corpus[0])
	n := cos(v, v)
	if math.Abs(n-1) > 1e-5 {
		t.Errorf("|v|² = %v, want 1", n)
	}
	// Related chunks are nearer than unrelated ones.
	cart := m.Embed("redis cart")
	if c1, c2 := cos(cart, m.Embed(corpus[1])), cos(cart, m.Embed(corpus[4])); c1 <= c2 {
		t.Errorf("cos(redis cart, GetCart) = %.3f <= cos(redis cart, refund) = %.3f", c1, c2)
	}
	// A partial model built from the stored rows of some tokens embeds a
	// query like the whole model.
	q := "payment charge"
	var toks []string
	var idf, vecs []float32
	for _, tok := range Tokens(q) {
		if v := m.Vector(tok); v != nil {
			toks = append(toks, tok)
			idf = append(idf, m.IDF[m.index[tok]])
			vecs = append(vecs, v...)
		}
	}
	part, err := NewModel(m.Dim, toks, idf, vecs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(part.Embed(q), m.Embed(q)) {
		t.Error("partial model embeds the query differently")
	}
}

func TestDefaultPrefixes(t *testing.T) {
	tests := []struct {
		model string
		want  Prefixes
	}{
		{"nomic-ai/CodeRankEmbed", Prefixes{Query: "Represent this query for searching relevant code: "}},
		{"nomic-embed-text:v1.5", Prefixes{Query: "search_query: ", Document: "search_document: "}},
		{"intfloat/e5-base-v2", Prefixes{Query: "query: ", Document: "passage: "}},
		{"all-minilm", Prefixes{}},
	}
	for _, tt := range tests {
		if got := DefaultPrefixes(tt.model); got != tt.want {
			t.Errorf("DefaultPrefixes(%q) = %+v, want %+v", tt.model, got, tt.want)
		}
	}
}

func TestDocumentText(t *testing.T) {
	if got := DocumentText(Pending{ContextPrefix: "a.go > F", Text: "body"}); got != "a.go > F\nbody" {
		t.Errorf("got %q", got)
	}
	long := strings.Repeat("é", MaxDocumentBytes)
	got := DocumentText(Pending{Text: long})
	if len(got) > MaxDocumentBytes || !strings.HasPrefix(long, got) || !utf8Valid(got) {
		t.Errorf("cut to %d bytes, valid %v", len(got), utf8Valid(got))
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// fakeVec is the vector a fake server gives a text: its length and first
// byte, padded to dim.
func fakeVec(s string, dim int) []float32 {
	v := make([]float32, dim)
	v[0] = float32(len(s))
	if len(s) > 0 {
		v[1] = float32(s[0])
	}
	return v
}

type embedReq struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

func openaiAnswer(w http.ResponseWriter, in []string, dim int, reverse bool) {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i, s := range in {
		data = append(data, item{"embedding", i, fakeVec(s, dim)})
	}
	if reverse {
		slices.Reverse(data)
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "m"})
}

func TestHTTPProviders(t *testing.T) {
	texts := []string{"alpha", "bravo", "charlie", "delta", "echo"}
	tests := []struct {
		name     string
		provider string
		handler  func(calls *atomic.Int32) http.HandlerFunc
		opts     HTTPOptions
		wantErr  string // substring; "" means success
	}{
		{"openai unsorted index", "openai", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
					http.Error(w, "wrong endpoint", 404)
					return
				}
				var req embedReq
				json.NewDecoder(r.Body).Decode(&req)
				openaiAnswer(w, req.Input, 4, true)
			}
		}, HTTPOptions{}, ""},
		{"openai partial batches", "openai", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				var req embedReq
				json.NewDecoder(r.Body).Decode(&req)
				openaiAnswer(w, req.Input[:min(2, len(req.Input))], 4, false)
			}
		}, HTTPOptions{Batch: 5}, ""},
		{"429 then success", "openai", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1)%2 == 1 {
					http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
					return
				}
				var req embedReq
				json.NewDecoder(r.Body).Decode(&req)
				openaiAnswer(w, req.Input, 4, false)
			}
		}, HTTPOptions{}, ""},
		{"500s", "openai", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				http.Error(w, `{"error":"model not loaded"}`, http.StatusInternalServerError)
			}
		}, HTTPOptions{Retries: 2}, "HTTP 500: model not loaded"},
		{"400 is not retried", "openai", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) > 1 {
					t.Error("a 400 was retried")
				}
				http.Error(w, `{"error":{"message":"unknown model"}}`, http.StatusBadRequest)
			}
		}, HTTPOptions{}, "HTTP 400: unknown model"},
		{"timeout", "openai", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				select {
				case <-r.Context().Done():
				case <-time.After(2 * time.Second):
				}
			}
		}, HTTPOptions{Timeout: 50 * time.Millisecond, Retries: 1}, "no answer within 50ms"},
		{"wrong dimension", "openai", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				n := calls.Add(1)
				var req embedReq
				json.NewDecoder(r.Body).Decode(&req)
				openaiAnswer(w, req.Input, 4+int(n/2), false)
			}
		}, HTTPOptions{}, "dimension 5, expected 4"},
		{"not JSON", "openai", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>proxy</html>")) }
		}, HTTPOptions{}, "not an embeddings response"},
		{"ollama", "ollama", func(calls *atomic.Int32) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				if r.URL.Path != "/api/embed" {
					http.Error(w, "wrong endpoint", 404)
					return
				}
				var req embedReq
				json.NewDecoder(r.Body).Decode(&req)
				var out [][]float32
				for _, s := range req.Input {
					out = append(out, fakeVec(s, 4))
				}
				json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": out})
			}
		}, HTTPOptions{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(tt.handler(&calls))
			defer srv.Close()
			o := tt.opts
			o.Provider, o.URL, o.Model, o.Backoff = tt.provider, srv.URL, "test-model", time.Millisecond
			if o.Batch == 0 {
				o.Batch = 2
			}
			ctx := context.Background()
			h, err := NewHTTP(ctx, o)
			var got [][]float32
			if err == nil {
				got, err = h.Embed(ctx, Document, texts)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), srv.URL) {
					t.Fatalf("err = %v, want one containing %q and the URL", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Info().Dim != 4 || h.Info().ID != tt.provider+":test-model" {
				t.Errorf("Info = %+v", h.Info())
			}
			for i, s := range texts {
				if !slices.Equal(got[i], fakeVec(s, 4)) {
					t.Errorf("vector %d = %v, want %v", i, got[i], fakeVec(s, 4))
				}
			}
		})
	}
}

func TestHTTPDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := NewHTTP(context.Background(), HTTPOptions{Provider: "openai", URL: url, Model: "m", Backoff: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "--embedder builtin") {
		t.Fatalf("err = %v, want the URL and a hint at --embedder builtin", err)
	}
}

func TestHTTPPrefixesAndKey(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "no key", 401)
			return
		}
		var req embedReq
		json.NewDecoder(r.Body).Decode(&req)
		seen = append(seen, req.Input...)
		openaiAnswer(w, req.Input, 3, false)
	}))
	defer srv.Close()
	ctx := context.Background()
	h, err := NewHTTP(ctx, HTTPOptions{Provider: "openai", URL: srv.URL + "/v1", Model: "nomic-ai/CodeRankEmbed", APIKey: "sk-test", Dim: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Embed(ctx, Query, []string{"where is the cart"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Embed(ctx, Document, []string{"func GetCart()"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"Represent this query for searching relevant code: where is the cart", "func GetCart()"}
	if !slices.Equal(seen, want) {
		t.Errorf("server saw %q, want %q", seen, want)
	}
}

func ExampleDefaultPrefixes() {
	fmt.Printf("%q\n", DefaultPrefixes("CodeRankEmbed").Query)
	// Output: "Represent this query for searching relevant code: "
}

func TestLabel(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{CorpusID, "corpus (learned from this index, builtin:ppmi-svd)"},
		{StaticPrefix + "256d-0a1b2c3d", "builtin (the shipped model, builtin:static-256d-0a1b2c3d)"},
		{"openai:text-embedding-3-small", "openai:text-embedding-3-small"},
	} {
		if got := Label(tc.id); got != tc.want {
			t.Errorf("Label(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
