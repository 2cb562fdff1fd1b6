package train

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
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

// TestMineTextOwnDeclaration: a comment's document is its own
// declaration, not what a crawl joins to it (chunk.Options.KeepSmall): a
// file's one import, and a class line whose docstring the mining blanked.
func TestMineTextOwnDeclaration(t *testing.T) {
	root := t.TempDir()
	fields := strings.Repeat("  /** How the quote is rounded. */\n  rounding: 'up' | 'down' | 'nearest';\n", 3)
	body := strings.Repeat("        self.rates[zone] = self.loader.load(zone, self.currency, self.rounding)\n", 14)
	files := map[string]string{
		"quotes/options.ts": "import type { Zone } from './zone';\n\n/** Settings of a freight quote for one parcel. */\nexport interface QuoteOptions {\n  zone: Zone;\n" + fields + "}\n",
		"quotes/table.py": "class RateTable:\n    \"\"\"The freight rates of every zone, loaded once per currency.\"\"\"\n\n    def __init__(self, loader, currency):\n        \"\"\"Loads the rates of each zone the loader knows.\"\"\"\n        self.loader = loader\n        self.currency = currency\n" + body +
			"\n    def rate(self, zone, weight):\n        \"\"\"Returns the rate of a parcel of this weight.\"\"\"\n" + body + "        return self.rates[zone] * weight\n",
	}
	if err := os.Mkdir(filepath.Join(root, "quotes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pairs, err := MineText(context.Background(), "fx", root, MineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query, inDoc, notInDoc string
	}{
		{"Settings of a freight quote for one parcel.", "interface QuoteOptions", "import type"},
		{"Loads the rates of each zone the loader knows.", "def __init__", "class RateTable"},
	}
	for _, tt := range tests {
		i := slices.IndexFunc(pairs, func(p TextPair) bool { return p.Query == tt.query })
		if i < 0 {
			t.Errorf("no pair for %q in %d pairs", tt.query, len(pairs))
			continue
		}
		if doc := pairs[i].Doc; !strings.Contains(doc, tt.inDoc) || strings.Contains(doc, tt.notInDoc) {
			t.Errorf("pair %q: want %q and not %q in its document:\n%s", tt.query, tt.inDoc, tt.notInDoc, doc)
		}
	}
}

// TestMineTextCrawlChunks: with CrawlChunks a comment's document is the
// chunk a crawl makes, the one-import header joined to the declaration,
// and the pair says how it was chunked.
func TestMineTextCrawlChunks(t *testing.T) {
	root := t.TempDir()
	fields := strings.Repeat("  /** How the quote is rounded. */\n  rounding: 'up' | 'down' | 'nearest';\n", 3)
	src := "import type { Zone } from './zone';\n\n/** Settings of a freight quote for one parcel. */\nexport interface QuoteOptions {\n  zone: Zone;\n" + fields + "}\n"
	if err := os.WriteFile(filepath.Join(root, "options.ts"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		crawl  bool
		joined bool
		chunks string
	}{{false, false, ""}, {true, true, "crawl"}} {
		pairs, err := MineText(context.Background(), "fx", root, MineOptions{CrawlChunks: tt.crawl})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(pairs, func(p TextPair) bool { return p.Query == "Settings of a freight quote for one parcel." })
		if i < 0 {
			t.Fatalf("crawl %v: no pair in %d", tt.crawl, len(pairs))
		}
		if got := strings.Contains(pairs[i].Doc, "import type"); got != tt.joined || pairs[i].Chunks != tt.chunks {
			t.Errorf("crawl %v: import in the document %v, chunks %q; want %v, %q:\n%s", tt.crawl, got, pairs[i].Chunks, tt.joined, tt.chunks, pairs[i].Doc)
		}
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
			Query:  fmt.Sprintf("%s variant%d case%d", tp.q, i%7, i),
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
	// The queries are asked on every core; one core gives the same sums.
	procs := runtime.GOMAXPROCS(1)
	one, err := EvalHeldOut(ctx, held, e, 100)
	runtime.GOMAXPROCS(procs)
	if err != nil || !reflect.DeepEqual(one, rep) {
		t.Errorf("held-out on one core: %+v (%v), on %d: %+v", one, err, procs, rep)
	}
	// By language: every query counted once, in its own language, and
	// the languages' scores, weighed by their queries, are the whole's.
	mixed := append([]TextPair(nil), held...)
	for i := range mixed {
		if i%3 == 0 {
			mixed[i].Lang = "python"
		}
	}
	rep, err = EvalHeldOut(ctx, mixed, e, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.ByLang) != 2 || rep.ByLang["go"].Queries+rep.ByLang["python"].Queries != rep.Queries || rep.ByLang["python"].Queries == 0 {
		t.Fatalf("by language: %+v of %d queries, want go and python", rep.ByLang, rep.Queries)
	}
	var model, bm float64
	for _, s := range rep.ByLang {
		model += s.Model * float64(s.Queries)
		bm += s.BM25 * float64(s.Queries)
	}
	if n := float64(rep.Queries); math.Abs(model/n-rep.Model) > 1e-9 || math.Abs(bm/n-rep.BM25) > 1e-9 {
		t.Errorf("by language the model %.4f, BM25 %.4f; the whole %.4f, %.4f", model/n, bm/n, rep.Model, rep.BM25)
	}
	if _, _, err := TrainModel(ctx, pairs[:10], opts); err == nil {
		t.Error("fewer pairs than a batch trained")
	}
}

func TestGenerated(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"// Code generated by client-gen. DO NOT EDIT.\n\npackage v1\n", true},
		{"// Copyright 2024 The Authors.\n\n// Code generated by protoc-gen-go. DO NOT EDIT.\n// versions:\npackage pb\n", true},
		{"# Code generated by a tool. DO NOT EDIT.\nimport os\n", true},
		{"// Package gen generates code. The output says Code generated ... DO NOT EDIT.\npackage gen\n", false},
		{"package main\n", false},
	}
	for _, tt := range tests {
		if got := generated([]byte(tt.src)); got != tt.want {
			t.Errorf("generated(%q) = %v", tt.src, got)
		}
	}
}

// TestMineTextNamePairs pairs an undocumented function and an undocumented
// type with their names' words, the name blanked out of the chunk, and
// small functions grouped into one chunk with their names, left in; it
// leaves documented ones, one-word names, tests, generated files and
// longer identifiers alone.
func TestMineTextNamePairs(t *testing.T) {
	dir := t.TempDir()
	quote := `package ship

// Quote returns the price of sending a parcel of the given weight to a zone.
func Quote(zone string, grams int) int { return zoneRate(zone) * grams }
`
	src := `package ship

func zoneRate(zone string) int {
	switch zone {
	case "eu":
		return euroZoneCents + handlingSurcharge(zone)
	case "uk":
		return britishIslesCents + handlingSurcharge(zone)
	case "us", "ca":
		return northAmericaCents + handlingSurcharge(zone) + customsDeclarationFee
	case "au", "nz":
		return oceaniaCents + handlingSurcharge(zone) + customsDeclarationFee
	}
	log.Printf("no rate for zone %q, charging the default", zone)
	return zoneRateDefault
}

func run() {
	for _, z := range []string{"eu", "uk", "us", "ca", "au", "nz", "jp"} {
		fmt.Println(z, Quote(z, 1000), handlingSurcharge(z), customsDeclarationFee)
	}
}
`
	if err := os.MkdirAll(filepath.Join(dir, "ship"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ship", "quote.go"), []byte(quote), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ship", "zones.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	table := `package ship

type RateTable struct {
	EuroZoneCents, BritishIslesCents, NorthAmericaCents, OceaniaCents int
	HandlingSurchargeCents map[string]int
	CustomsDeclarationFeeCents int
	ValidFrom, ValidUntil time.Time
	Currency string
	Source string // where the carrier published the rates
}
`
	if err := os.WriteFile(filepath.Join(dir, "ship", "table.go"), []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	// Neither a generated file nor a test teaches names.
	body := "\tfor _, z := range []string{\"eu\", \"uk\", \"us\", \"ca\", \"au\", \"nz\", \"jp\"} {\n\t\tfmt.Println(z, Quote(z, 1000), handlingSurcharge(z), customsDeclarationFee, euroZoneCents, oceaniaCents)\n\t}\n"
	gen := "// Code generated by ratesgen. DO NOT EDIT.\n\npackage ship\n\nfunc printRates() {\n" + body + "}\n"
	test := "package ship\n\nimport \"testing\"\n\nfunc TestQuoteZones(t *testing.T) {\n" + body + "}\n"
	for name, text := range map[string]string{"rates_gen.go": gen, "quote_test.go": test} {
		if err := os.WriteFile(filepath.Join(dir, "ship", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	limits := "package ship\n\nfunc minWeight() int { return 10 }\n\nfunc maxWeight() int { return 30000 }\n"
	if err := os.WriteFile(filepath.Join(dir, "ship", "limits.go"), []byte(limits), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, names := range []bool{false, true} {
		pairs, err := MineText(context.Background(), "fx", dir, MineOptions{NamePairs: names})
		if err != nil {
			t.Fatal(err)
		}
		var got, types, grouped []TextPair
		for _, p := range pairs {
			switch p.Kind {
			case "name":
				got = append(got, p)
			case "type":
				types = append(types, p)
			case "names":
				grouped = append(grouped, p)
			}
		}
		if !names {
			if len(got)+len(types) != 0 || len(pairs) != 1 {
				t.Errorf("without NamePairs: %d pairs, %d of names; want the comment's alone", len(pairs), len(got)+len(types))
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("name pairs %+v, want one (zoneRate)", got)
		}
		if len(grouped) != 1 || grouped[0].Query != "min weight max weight" || !strings.Contains(grouped[0].Doc, "func minWeight") {
			t.Errorf("grouped pairs %+v, want one of minWeight and maxWeight", grouped)
		}
		if len(types) != 1 || types[0].Query != "rate table" || strings.Contains(types[0].Doc, "RateTable") || !strings.Contains(types[0].Doc, "HandlingSurchargeCents") {
			t.Errorf("type pairs %+v, want one of RateTable without its name", types)
		}
		p := got[0]
		if p.Query != "zone rate" || p.Group != "ship" || p.Lang != "go" {
			t.Errorf("pair %+v, want query \"zone rate\" in group ship", p)
		}
		if strings.Contains(p.Doc, "func zoneRate") || !strings.Contains(p.Doc, "zoneRateDefault") || !strings.Contains(p.Doc, `case "eu":`) {
			t.Errorf("document: the name not blanked, or more than the name:\n%s", p.Doc)
		}
	}
}

// TestLangBatches fills batches with one language's pairs.
func TestLangBatches(t *testing.T) {
	pairs := synthPairs(640)
	for i := range pairs {
		if i%2 == 1 {
			pairs[i].Lang = "python"
			pairs[i].Doc = strings.Replace(pairs[i].Doc, "func", "def", 1)
		}
	}
	var langs [][]string
	opts := ModelOptions{Dim: 16, Epochs: 2, Batch: 32, MinCount: 2, Seed: 7, LangBatches: true,
		batchHook: func(l []string) { langs = append(langs, append([]string(nil), l...)) }}
	if _, _, err := TrainModel(context.Background(), pairs, opts); err != nil {
		t.Fatal(err)
	}
	if len(langs) != 2*640/32 {
		t.Fatalf("%d batches, want %d", len(langs), 2*640/32)
	}
	for i, b := range langs {
		for _, l := range b {
			if l != b[0] {
				t.Fatalf("batch %d mixes languages: %v", i, b)
			}
		}
	}
}

func TestSplitTextAsksNoTrainedQuery(t *testing.T) {
	// Find two groups of one source that fall on either side of the split.
	var heldG, trainG string
	for i := 0; heldG == "" || trainG == ""; i++ {
		g := fmt.Sprintf("pkg%d", i)
		_, h := SplitText([]TextPair{{Query: "q", Source: "src", Group: g}}, 10)
		if len(h) == 1 && heldG == "" {
			heldG = g
		} else if len(h) == 0 && trainG == "" {
			trainG = g
		}
	}
	pairs := []TextPair{
		{Query: "opens the connection pool", Doc: "func Open() {}", Source: "src", Group: heldG},
		{Query: "drains the connection pool", Doc: "func Drain() {}", Source: "src", Group: heldG},
		{Query: "opens the connection pool", Doc: "func Open() { copied }", Source: "src", Group: trainG},
		{Query: "closes the connection pool", Doc: "func Close() {}", Source: "src", Group: trainG},
	}
	tr, held := SplitText(pairs, 10)
	if len(tr) != 2 {
		t.Errorf("train = %+v, want both pairs of %s", tr, trainG)
	}
	if len(held) != 1 || held[0].Query != "drains the connection pool" {
		t.Errorf("held = %+v, want only the pair whose text no training pair has", held)
	}
}

// TestTrainModelLead checks that the lead a model trains with is the one
// its file pools with, and that it weighs a text's first tokens in the
// training bags as embed's pooling does.
func TestTrainModelLead(t *testing.T) {
	lead := embed.Lead{N: 3, Weight: 1.5}
	data, _, err := TrainModel(context.Background(), synthPairs(640), ModelOptions{Dim: 16, Epochs: 1, Batch: 32, MinCount: 2, Seed: 7, Lead: lead})
	if err != nil {
		t.Fatal(err)
	}
	m, err := embed.LoadStatic(data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Lead() != lead {
		t.Errorf("the model's lead %+v, want %+v", m.Lead(), lead)
	}
	id := map[string]int32{"stripe": 0, "capture": 1, "intent": 2, "amount": 3}
	tests := []struct {
		text string
		lead embed.Lead
		want map[int32]float32
	}{
		{"stripe capture intent amount", lead, map[int32]float32{0: 1.5, 1: 1.5, 2: 1.5, 3: 1}},
		{"amount amount stripe capture intent", lead, map[int32]float32{3: 1.5 * float32(1+math.Log(2)), 0: 1.5, 1: 1, 2: 1}},
		{"stripe capture intent", lead, map[int32]float32{0: 1, 1: 1, 2: 1}},
		{"stripe capture intent amount", embed.Lead{}, map[int32]float32{0: 1, 1: 1, 2: 1, 3: 1}},
	}
	for _, tt := range tests {
		b := makeBag(id, tt.text, tt.lead)
		got := map[int32]float32{}
		for k, i := range b.ids {
			got[i] = b.w[k]
		}
		for i, w := range tt.want {
			if math.Abs(float64(got[i]-w)) > 1e-5 {
				t.Errorf("makeBag(%q, %+v) = %v, want %v", tt.text, tt.lead, got, tt.want)
				break
			}
		}
	}
}

// tableRescorer scores a document by its number in a table.
type tableRescorer map[string]float64

func (t tableRescorer) Rescore(_ context.Context, _ string, docs []string, _ []float64) ([]float64, error) {
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = t[d]
	}
	return out, nil
}

// TestHeldOutSecondStage: the held-out report orders the first
// embed.RescoreDepth of the model's list by its second stage and keeps
// the rest after them, as the product's dense list does.
func TestHeldOutSecondStage(t *testing.T) {
	n := embed.RescoreDepth + 5
	docs := make([]string, n)
	ranked := make([]int, n)
	score := tableRescorer{}
	for i := range docs {
		docs[i] = fmt.Sprintf("doc%d", i)
		ranked[i] = i
		score[docs[i]] = float64(i) // the second stage reverses the first
	}
	dv := make([][]float32, n)
	for i := range dv {
		dv[i] = []float32{1}
	}
	got, err := rescore(context.Background(), score, "q", []float32{1}, docs, dv, ranked)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range got {
		want := i
		if i < embed.RescoreDepth {
			want = embed.RescoreDepth - 1 - i
		}
		if d != want {
			t.Fatalf("rescored order %v: place %d holds %d, want %d", got, i, d, want)
		}
	}
}

func TestEvaluatorKeepsTheSecondStage(t *testing.T) {
	ev := NewEvaluator(fakeIndex{}, embed.StaticEmbedder{M: mustShipped(t)}, nil, 1)
	if _, ok := ev.emb.(embed.Rescorer); !ok {
		t.Error("the tuning evaluator's embedder lost the static model's second stage")
	}
	if k := ev.denseKey(); k != "dense-static" {
		t.Errorf("the shipped model's list weight is moved as %q, want dense-static", k)
	}
	if ev := NewEvaluator(fakeIndex{}, nil, nil, 1); ev.emb != nil || ev.denseKey() != "dense" {
		t.Errorf("no embedder: a dense list, or its weight moved as %q", ev.denseKey())
	}
}

func mustShipped(t *testing.T) *embed.Static {
	t.Helper()
	m, err := embed.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMineTextRoots mines a source folder given as a symbolic link (a
// work folder of links to fetched sources) as the folder itself, and
// refuses a root that is a file or missing, naming it, instead of mining
// nothing.
func TestMineTextRoots(t *testing.T) {
	ctx := context.Background()
	want, err := MineText(ctx, "fx", fixture, MineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "linked")
	if err := os.Symlink(abs, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	got, err := MineText(ctx, "fx", link, MineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("through a link: %d pairs, want the folder's %d, the same", len(got), len(want))
	}
	file := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(file, []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ root, want string }{
		{file, "not a directory"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		_, err := MineText(ctx, "fx", tt.root, MineOptions{})
		if err == nil || !strings.Contains(err.Error(), tt.root) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("MineText(%s): error %v, want one naming it and saying %q", tt.root, err, tt.want)
		}
	}
}
