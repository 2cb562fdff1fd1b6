package train

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"coderag/core"
	"coderag/core/search"
)

var update = flag.Bool("update", false, "update golden files")

const fixture = "../../testdata/train"

// TestMine mines the fixture services (Go, Python, TypeScript, Java, C#)
// and compares the pairs with testdata/pairs.golden; every mined comment
// must be blank in the copy, with the lines and the code kept.
func TestMine(t *testing.T) {
	out := t.TempDir()
	pairs, err := Mine(context.Background(), fixture, out, MineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, p := range pairs {
		enc.Encode(p)
	}
	golden := filepath.Join("testdata", "pairs.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if d := cmp.Diff(string(want), b.String()); d != "" {
		t.Errorf("pairs differ from %s (-want +got):\n%s", golden, d)
	}
	langs := map[string]bool{}
	for _, p := range pairs {
		langs[p.Lang] = true
		src, _ := os.ReadFile(filepath.Join(fixture, p.File))
		cp, err := os.ReadFile(filepath.Join(out, p.File))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(src), "\n") != strings.Count(string(cp), "\n") || len(src) != len(cp) {
			t.Errorf("%s: the copy's lines or length differ from the source", p.File)
		}
		if strings.Contains(string(cp), p.Query) {
			t.Errorf("%s: the copy still holds the query %q", p.File, p.Query)
		}
		if !strings.Contains(string(src), strings.Fields(p.Query)[0]) {
			t.Errorf("%s: query %q does not come from the file", p.File, p.Query)
		}
	}
	for _, l := range []string{"go", "python", "typescript", "java", "csharp", "markdown"} {
		if !langs[l] {
			t.Errorf("no pair mined from %s", l)
		}
	}
	// Code is kept: a function body of the copy is the source's.
	cp, _ := os.ReadFile(filepath.Join(out, "billing/invoice.go"))
	if !strings.Contains(string(cp), "if i.RefundTotal()+cents > i.Cents {") {
		t.Errorf("the copy lost code:\n%s", cp)
	}
}

func TestQuery(t *testing.T) {
	tests := []struct {
		name, doc, symbol, want string
	}{
		{"go convention", "ParseDuration parses a duration string such as 300ms.", "ParseDuration", "parses a duration string such as 300ms."},
		{"tags dropped", "Returns the price of a parcel.\n@param zone the zone\n@return cents", "priceCents", "Returns the price of a parcel."},
		{"first paragraph", "Opens the relay connection and sends it.\n\nThe caller closes it.", "deliver", "Opens the relay connection and sends it."},
		{"xml doc", "<summary>\nCharges an amount held earlier on the card.\n</summary>", "CaptureAsync", "Charges an amount held earlier on the card."},
		{"too short", "Close closes it.", "Close", ""},
		{"directive", "TODO: make this faster than it is today please", "x", ""},
		{"licence header", "Copyright 2024 The Authors. All rights reserved here.", "x", ""},
		{"grammar, not prose", "msg-id = [CFWS] \"<\" id-left \"@\" id-right \">\" [CFWS]", "get_msg_id", ""},
		{"link", "See https://example.com/spec for the format of this field", "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := query(tt.doc, tt.symbol, MineOptions{MinWords: 5, MaxWords: 40}); got != tt.want {
				t.Errorf("query(%q) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
}

func TestSplitKeepsPackagesApart(t *testing.T) {
	var pairs []Pair
	for _, g := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		for i := 0; i < 3; i++ {
			pairs = append(pairs, Pair{Query: g, Group: g})
		}
	}
	train, held := Split(pairs, 3)
	if len(train) == 0 || len(held) == 0 || len(train)+len(held) != len(pairs) {
		t.Fatalf("split %d/%d of %d", len(train), len(held), len(pairs))
	}
	in := map[string]bool{}
	for _, p := range train {
		in[p.Group] = true
	}
	for _, p := range held {
		if in[p.Group] {
			t.Errorf("group %s is in both sets", p.Group)
		}
	}
	again, _ := Split(pairs, 3)
	if d := cmp.Diff(train, again, cmpopts.IgnoreUnexported(Pair{})); d != "" {
		t.Errorf("split is not deterministic: %s", d)
	}
}

// fakeIndex answers every query with the same lists: the gold file is
// second in the chunk list and first in the file list, so a weighting
// that counts the file list, or the chunk list less, puts it first.
type fakeIndex struct{}

func hit(id, file, list string, rank int) core.Hit {
	return core.Hit{Chunk: core.Chunk{ID: id, RepoName: "r", FilePath: file, Corpus: core.CodeLogic, Text: "func x() {}", LineStart: 1, LineEnd: 2},
		Lists: []core.ListRank{{List: list, Rank: rank}}}
}

func (fakeIndex) BM25(_ context.Context, index, _ string, _ int, _ core.Filter) ([]core.Hit, error) {
	if index != "code" {
		return nil, nil
	}
	return []core.Hit{hit("w1", "wrong1.go", "bm25-code", 1), hit("g", "gold.go", "bm25-code", 2), hit("w2", "wrong2.go", "bm25-code", 3)}, nil
}

func (fakeIndex) FileBM25(context.Context, string, string, int, core.Filter) ([]core.Hit, error) {
	return []core.Hit{hit("g", "gold.go", "bm25-file", 1), hit("w2", "wrong2.go", "bm25-file", 2)}, nil
}

func (fakeIndex) KNN(context.Context, []float32, int, core.Filter) ([]core.Hit, error) {
	return nil, nil
}

func (fakeIndex) TermDocs(_ context.Context, tokens []string) (int, map[string]int, error) {
	df := map[string]int{}
	for _, t := range tokens {
		df[t] = 1
	}
	return 100, df, nil
}

func TestFitLearnsFromTheQuestions(t *testing.T) {
	qs := []Question{{Q: "issue an invoice", Gold: "r/gold.go"}, {Q: "refund a payment", Gold: "r/gold.go"}}
	ev := NewEvaluator(fakeIndex{}, nil, qs, 2)
	start := search.DefaultParams()
	start.Lists["bm25-file"] = 0
	start.RerankMix = 0.1
	before, err := ev.MRR(context.Background(), start)
	if err != nil {
		t.Fatal(err)
	}
	p, after, err := Fit(context.Background(), ev, start, FitOptions{Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if before != 0.5 || after != 1 {
		t.Errorf("MRR %v -> %v, want 0.5 -> 1", before, after)
	}
	if d := cmp.Diff(start, p); d == "" {
		t.Error("Fit changed no parameter")
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	if _, err := search.ParseParams(p.MarshalIndent()); err != nil {
		t.Errorf("learned parameters do not round-trip: %v", err)
	}
}

// TestPairedGain: a change that helps every question is significant; one
// that helps some as much as it hurts others is noise.
func TestPairedGain(t *testing.T) {
	for _, tt := range []struct {
		name        string
		a, b        []float64
		gain        float64
		significant bool
	}{
		{"helps all", []float64{0.5, 0.5, 0.5, 0.5}, []float64{1, 1, 1, 1}, 0.5, true},
		{"helps one, hurts one", []float64{1, 0.5, 0.5, 0.2, 1}, []float64{0.5, 1, 0.5, 0.2, 1.1}, 0.02, false},
		{"nothing", []float64{1, 0}, []float64{1, 0}, 0, false},
	} {
		gain, se := pairedGain(tt.a, tt.b)
		if math.Abs(gain-tt.gain) > 1e-9 || (gain > 2*se && gain > 0) != tt.significant {
			t.Errorf("%s: gain %.3f se %.3f, want %.3f significant %v", tt.name, gain, se, tt.gain, tt.significant)
		}
	}
}
