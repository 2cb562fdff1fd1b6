package eval

import (
	"math"
	"strings"
	"testing"
)

func TestScore(t *testing.T) {
	eq := func(a, b string) bool { return a == b }
	tests := []struct {
		name   string
		ranked []string
		gold   []string
		want   scored
	}{
		{"first", []string{"a", "x"}, []string{"a"}, scored{r1: 1, r5: 1, r10: 1, mrr: 1, ndcg: 1, first: 1}},
		{"third", []string{"x", "y", "a"}, []string{"a"}, scored{r5: 1, r10: 1, mrr: 1.0 / 3, ndcg: 0.5, first: 3}},
		{"half of two", []string{"a", "x", "y", "z", "w", "v", "b"}, []string{"a", "b", "c"},
			scored{r1: 1.0 / 3, r5: 1.0 / 3, r10: 2.0 / 3, mrr: 1, ndcg: (1 + 1/math.Log2(8)) / (1 + 1/math.Log2(3) + 0.5), first: 1}},
		{"missing", []string{"x"}, []string{"a"}, scored{}},
		{"beyond 10", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a"}, []string{"a"}, scored{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := score(tt.ranked, tt.gold, eq)
			for _, p := range [][3]any{{"r1", got.r1, tt.want.r1}, {"r5", got.r5, tt.want.r5}, {"r10", got.r10, tt.want.r10},
				{"mrr", got.mrr, tt.want.mrr}, {"ndcg", got.ndcg, tt.want.ndcg}} {
				if math.Abs(p[1].(float64)-p[2].(float64)) > 1e-9 {
					t.Errorf("%s = %v, want %v", p[0], p[1], p[2])
				}
			}
			if got.first != tt.want.first {
				t.Errorf("first = %d, want %d", got.first, tt.want.first)
			}
		})
	}
}

func TestSymbolMatch(t *testing.T) {
	for _, tt := range []struct {
		got, gold string
		want      bool
	}{
		{"User, engine, Session", "engine", true},
		{"CartService.GetCart", "GetCart", true},
		{"GetCartItems", "GetCart", false},
		{"", "x", false},
	} {
		if symbolMatch(tt.got, tt.gold) != tt.want {
			t.Errorf("symbolMatch(%q, %q) != %v", tt.got, tt.gold, tt.want)
		}
	}
}

func TestReadQuestions(t *testing.T) {
	in := `# comment
{"q": "a", "gold_files": ["r/a.go"]}

{"q": "b", "gold_file": ["r/b.go"]}`
	_, err := ReadQuestions(strings.NewReader(in), "q.jsonl")
	if err == nil || !strings.Contains(err.Error(), "q.jsonl:4") {
		t.Fatalf("err = %v, want one naming q.jsonl:4", err)
	}
	qs, err := ReadQuestions(strings.NewReader(`{"q": "a", "gold_files": ["r/a.go"]}`), "q.jsonl")
	if err != nil || len(qs) != 1 || qs[0].Kind != "other" {
		t.Fatalf("qs = %+v, %v", qs, err)
	}
}
