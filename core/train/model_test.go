package train

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"coderag/core/embed"
)

// TestMineText pairs each fixture comment with its declaration's chunk:
// the chunk holds the declaration's name and not the comment's words.
func TestMineText(t *testing.T) {
	pairs, err := MineText(context.Background(), "fx", fixture, MineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query   string // a query mined from the fixture
		inDoc   string // the declaration it documents, found in its chunk
		notInDo string // a word of the comment, blanked out of the chunk
	}{
		{"creates an unpaid invoice for an order in the given currency.", "func NewInvoice", "unpaid"},
		{"Computes what the basket costs before delivery, in cents.", "subtotal", "Computes"},
		{"Returns the price of sending a parcel of the given weight to a zone.", "priceCents", "sending"},
	}
	for _, tt := range tests {
		var found *TextPair
		for i := range pairs {
			if pairs[i].Query == tt.query {
				found = &pairs[i]
			}
		}
		if found == nil {
			t.Errorf("no pair for %q", tt.query)
			continue
		}
		if !strings.Contains(found.Doc, tt.inDoc) || strings.Contains(found.Doc, tt.notInDo) {
			t.Errorf("pair %q: doc does not hold %q or still holds %q:\n%s", tt.query, tt.inDoc, tt.notInDo, found.Doc)
		}
		if found.Source != "fx" || found.Group == "" {
			t.Errorf("pair %q: source %q group %q", tt.query, found.Source, found.Group)
		}
	}
	mined, err := Mine(context.Background(), fixture, t.TempDir(), MineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) < len(mined)*3/4 {
		t.Errorf("%d text pairs of %d mined pairs: most comments lost their chunk", len(pairs), len(mined))
	}
}

// synthPairs are pairs of a made-up language: each topic has its own
// query words and code words, so only training can tie them together.
func synthPairs(n int) []TextPair {
	topics := []struct{ q, d string }{
		{"charge the card payment", "stripe capture intent amount"},
		{"store the order record", "insert orders table row commit"},
		{"send the email message", "smtp mailer deliver inbox"},
		{"read the config file", "yaml parse settings loader"},
		{"cache the user session", "redis ttl expire key"},
		{"retry the failed request", "backoff attempt jitter sleep"},
		{"render the html page", "template view layout markup"},
		{"hash the user password", "bcrypt salt digest verify"},
	}
	var out []TextPair
	for i := range n {
		tp := topics[i%len(topics)]
		out = append(out, TextPair{
			Query:  fmt.Sprintf("%s variant%d", tp.q, i%7),
			Doc:    fmt.Sprintf("func handler%d() { %s variant%d }", i, tp.d, (i+3)%7),
			Source: "synth", Group: fmt.Sprintf("g%d", i%10), Lang: "go",
		})
	}
	return out
}

// TestTrainModel learns the synthetic topics: held-out queries find
// their topic's code, training is deterministic, and the file loads.
func TestTrainModel(t *testing.T) {
	ctx := context.Background()
	pairs := synthPairs(640)
	opts := ModelOptions{Dim: 16, Epochs: 3, Batch: 32, MinCount: 2, Seed: 7}
	a, st, err := TrainModel(ctx, pairs, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := TrainModel(ctx, pairs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("two runs with one seed gave different models")
	}
	if len(st.Loss) != 3 || st.Loss[2] >= st.Loss[0] {
		t.Errorf("loss did not fall: %v", st.Loss)
	}
	m, err := embed.LoadStatic(a)
	if err != nil {
		t.Fatal(err)
	}
	e := embed.StaticEmbedder{M: m}
	q, _ := e.Embed(ctx, embed.Query, []string{"charge the card payment", "hash the user password"})
	d, _ := e.Embed(ctx, embed.Document, []string{"func pay() { stripe capture intent amount }", "func login() { bcrypt salt digest verify }"})
	dot := func(x, y []float32) (s float32) {
		for i := range x {
			s += x[i] * y[i]
		}
		return s
	}
	if dot(q[0], d[0]) <= dot(q[0], d[1]) || dot(q[1], d[1]) <= dot(q[1], d[0]) {
		t.Errorf("queries not nearest their topic's code: %.2f %.2f / %.2f %.2f", dot(q[0], d[0]), dot(q[0], d[1]), dot(q[1], d[1]), dot(q[1], d[0]))
	}
	// Held-out evaluation: the model ties query words to code words BM25
	// cannot match.
	_, held := SplitText(pairs, 5)
	rep, err := EvalHeldOut(ctx, held, e, 100)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries == 0 || rep.Model <= rep.BM25 {
		t.Errorf("held-out: %+v, want the model above BM25", rep)
	}
	if _, _, err := TrainModel(ctx, pairs[:10], opts); err == nil {
		t.Error("fewer pairs than a batch trained")
	}
}
