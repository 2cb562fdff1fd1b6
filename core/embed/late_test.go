package embed

import (
	"context"
	"go/build"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// cosines are the first-stage scores of docs for q: the cosines of their
// pooled vectors, as the vector search finds them (0 for a text of no
// known token).
func cosines(m *Static, q string, docs []string) []float64 {
	qv := m.Embed(q)
	out := make([]float64, len(docs))
	for i, d := range docs {
		if dv := m.Embed(d); qv != nil && dv != nil {
			for x := range qv {
				out[i] += float64(qv[x] * dv[x])
			}
		}
	}
	return out
}

// TestRescoreKnownAnswer checks the second stage's score by hand on the
// tiny model: cart (1, 0), order (0, 2), payment (-0.5, 0.5).
func TestRescoreKnownAnswer(t *testing.T) {
	m, _ := tinyModel(t)
	s := StaticEmbedder{M: m}
	// The query "cart" against:
	//  - "cart": cosine 1, the query covered 1, the document's lead
	//    covered 1: 1 + 0.5 + 0.5;
	//  - "order": cosine 0, order's cosine with cart is 0: 0;
	//  - "payment": cosine -0.71; payment's best cosine with cart is
	//    negative, so nothing covers: -0.71;
	//  - "order cart": cosine 1/sqrt(5); cart covered 1; the lead (order,
	//    cart) covered by cart: (2*0 + 1*1) / (2 + 1), each token weighing
	//    its vector's length.
	tests := []struct {
		doc  string
		want float64
	}{
		{"cart", 2},
		{"order", 0},
		{"payment", -1 / math.Sqrt2},
		{"order cart", 1/math.Sqrt(5) + 0.5 + 0.5*(2*0+1*1)/(2+1)},
		{"zebra lantern", 0},
	}
	docs := make([]string, len(tests))
	for i, tt := range tests {
		docs[i] = tt.doc
	}
	got, err := s.Rescore(context.Background(), "cart", docs, cosines(m, "cart", docs))
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		if math.Abs(got[i]-tt.want) > 0.01 {
			t.Errorf("Rescore(cart, %q) = %.4f, want %.4f", tt.doc, got[i], tt.want)
		}
	}
	// Given first-stage scores, they stand for the cosine.
	first := make([]float64, len(docs))
	for i := range first {
		first[i] = 10
	}
	withFirst, err := s.Rescore(context.Background(), "cart", docs, first)
	if err != nil {
		t.Fatal(err)
	}
	if want := 10 + 0.5 + 0.5; math.Abs(withFirst[0]-want) > 0.01 {
		t.Errorf("Rescore(cart, cart) with first-stage score 10 = %.4f, want %.4f", withFirst[0], want)
	}
	if withFirst[4] != 10 {
		t.Errorf("Rescore(cart, zebra lantern) with first-stage score 10 = %.4f: a document of no known token keeps its cosine", withFirst[4])
	}
	if _, err := s.Rescore(context.Background(), "cart", docs, first[:2]); err == nil {
		t.Error("two first-stage scores for five documents: no error")
	}
	// A query of no known word scores every document 0.
	got, err = s.Rescore(context.Background(), "zebra lantern", docs, cosines(m, "zebra lantern", docs))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 0 {
			t.Errorf("Rescore(zebra lantern, %q) = %g, want 0", docs[i], v)
		}
	}
}

// TestRescorePairs: a document holding the query's words side by side, in
// the query's order, outranks one holding the same words apart or the
// other way round, by the pair weight times the share of the query's
// pairs it holds.
func TestRescorePairs(t *testing.T) {
	m, _ := tinyModel(t)
	s := StaticEmbedder{M: m}
	docs := []string{"cart order", "order cart", "cart payment order", "orderCart cartOrder"}
	got, err := s.Rescore(context.Background(), "cart order", docs, make([]float64, len(docs)))
	if err != nil {
		t.Fatal(err)
	}
	if d := got[0] - got[1]; math.Abs(d-pairWeight) > 1e-9 {
		t.Errorf("cart order %.4f, order cart %.4f: differ by %.4f, want the pair weight %.2f", got[0], got[1], d, pairWeight)
	}
	if got[2] >= got[0] {
		t.Errorf("cart payment order %.4f, cart order %.4f: words apart are no pair", got[2], got[0])
	}
	// Identifiers split into words make pairs too (cartOrder).
	if got[3] <= got[1] {
		t.Errorf("orderCart cartOrder %.4f, order cart %.4f: the identifier's words are the query's pair", got[3], got[1])
	}
}

// TestRescoreUnknownWords: a query word the model does not know counts
// when the document holds it as it is, by the unknown weight times its
// share of the query's words.
func TestRescoreUnknownWords(t *testing.T) {
	m, _ := tinyModel(t)
	s := StaticEmbedder{M: m}
	docs := []string{"cart", "zebra cart", "cart zebra"}
	got, err := s.Rescore(context.Background(), "cart zebra", docs, make([]float64, len(docs)))
	if err != nil {
		t.Fatal(err)
	}
	// cart (known) and zebra (unknown): zebra held is worth 3 x 1/2; held
	// after cart, the pair (cart, zebra) adds its weight.
	if d := got[1] - got[0]; math.Abs(d-unknownWeight/2) > 1e-9 {
		t.Errorf("zebra cart - cart = %.4f, want %.4f", d, unknownWeight/2)
	}
	if d := got[2] - got[0]; math.Abs(d-unknownWeight/2-pairWeight) > 1e-9 {
		t.Errorf("cart zebra - cart = %.4f, want %.4f", d, unknownWeight/2+pairWeight)
	}
}

func TestQueryPairs(t *testing.T) {
	tests := []struct {
		toks []string
		want int
	}{
		{nil, 0},
		{[]string{"cart"}, 0},
		{[]string{"cart", "cart"}, 0},
		{[]string{"cart", "order", "cart", "order"}, 2},
		{[]string{"cart", "cart", "order", "payment"}, 2},
	}
	for _, tt := range tests {
		if _, n := queryPairs(tt.toks); n != tt.want {
			t.Errorf("queryPairs(%q) = %d pairs, want %d", tt.toks, n, tt.want)
		}
	}
}

// TestRescoreWordsOverOneVector: with the shipped model, a document that
// holds the question's words outranks one whose pooled vector is about
// as near but holds none of them, and the same input always gives the
// same scores.
func TestRescoreWordsOverOneVector(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	s := StaticEmbedder{M: m}
	q := "retry a failed payment with exponential backoff"
	docs := []string{
		"billing/charge.go > Charge\nfunc Charge(ctx context.Context, card Card, cents int64) error { return gateway.Charge(ctx, card, cents) }",
		"billing/retry.go > retryPayment\n// retryPayment retries a failed payment, doubling the wait each time (exponential backoff).\nfunc retryPayment(ctx context.Context, p Payment) error { for wait := time.Second; ; wait *= 2 { if err := p.Try(ctx); err == nil { return nil }; time.Sleep(wait) } }",
	}
	first := cosines(m, q, docs)
	a, err := s.Rescore(context.Background(), q, docs, first)
	if err != nil {
		t.Fatal(err)
	}
	if a[1] <= a[0] {
		t.Errorf("the retry function scores %.3f, the charge function %.3f", a[1], a[0])
	}
	b, _ := s.Rescore(context.Background(), q, docs, first)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("scores differ between runs: %v, %v", a, b)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Rescore(ctx, q, docs, first); err == nil {
		t.Error("Rescore with a cancelled context: no error")
	}
}

// BenchmarkRescore is the second stage of a dense query on the shipped
// model: a question against RescoreDepth chunks of real code (1.3 KB
// pieces of the Go standard library's net/http), their first-stage
// scores given, as a query gives them.
func BenchmarkRescore(b *testing.B) {
	m, err := Shipped()
	if err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(build.Default.GOROOT, "src", "net", "http", "*.go"))
	var docs []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for off := 0; off+1300 < len(data) && len(docs) < RescoreDepth; off += 40000 {
			docs = append(docs, string(data[off:off+1300]))
		}
	}
	if len(docs) < RescoreDepth {
		b.Skipf("%d chunks of net/http under GOROOT %s, want %d", len(docs), build.Default.GOROOT, RescoreDepth)
	}
	s, ctx, first := StaticEmbedder{M: m}, context.Background(), make([]float64, len(docs))
	for b.Loop() {
		if _, err := s.Rescore(ctx, "how does the server close idle keep-alive connections after a timeout", docs, first); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDot8 checks dot8 against the plain sum over lengths that end in
// each of its four-byte steps' remainders, with the extreme values.
func TestDot8(t *testing.T) {
	for n := range 11 {
		a, b := make([]byte, n), make([]byte, n+3) // b may be longer
		want := int32(0)
		for i := range n {
			x, y := int8(i*37-128), int8(127-i*29)
			if i%3 == 0 {
				x = -128
			}
			a[i], b[i] = byte(x), byte(y)
			want += int32(x) * int32(y)
		}
		if got := dot8(a, b); got != want {
			t.Errorf("dot8 over %d bytes = %d, want %d", n, got, want)
		}
	}
}
