package core

import (
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	types := SourceTypes()
	if len(types) != 10 {
		t.Fatalf("registry has %d rows, want 10", len(types))
	}
	seen := map[string]bool{}
	for _, st := range types {
		if !st.Corpus.Valid() || st.Description == "" || st.Chunker == "" || st.Tokenizer == "" || st.Short == "" {
			t.Errorf("incomplete registry row %+v", st)
		}
		if seen[st.Short] {
			t.Errorf("short name %q used twice", st.Short)
		}
		seen[st.Short] = true
	}
	tiers := map[CorpusType]Sensitivity{
		CodeLogic: Clean, CodeDeploy: Clean, CodeConfig: Clean, DocReadme: Clean,
		DocRunbook: MaybeSensitive, DocADR: MaybeSensitive, ConvoSlack: MaybeSensitive, ConvoOther: MaybeSensitive,
		DocGoogle: Sensitive, ConvoTranscript: Sensitive,
	}
	for c, want := range tiers {
		if got := c.Type().Sensitivity; got != want {
			t.Errorf("%s sensitivity = %s, want %s", c, got, want)
		}
	}
}

func TestParseCorpusType(t *testing.T) {
	tests := []struct {
		in   string
		want CorpusType
	}{
		{"CODE_LOGIC", CodeLogic}, {"code_logic", CodeLogic}, {"code", CodeLogic}, {"runbook", DocRunbook},
		{"ADR", DocADR}, {"slack", ConvoSlack}, {"gdoc", DocGoogle}, {"deploy", CodeDeploy},
	}
	for _, tt := range tests {
		if got, err := ParseCorpusType(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseCorpusType(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParseCorpusType("nope"); err == nil || !strings.Contains(err.Error(), "runbook") {
		t.Errorf("ParseCorpusType(nope) error = %v, want one listing the valid names", err)
	}
}

func TestChunkID(t *testing.T) {
	a := ChunkID("repo/a.go", 0, 10)
	if a != ChunkID("repo/a.go", 0, 10) || len(a) != 64 {
		t.Fatalf("ChunkID not deterministic or not hex sha256: %q", a)
	}
	for _, other := range []string{ChunkID("repo/a.go", 0, 11), ChunkID("repo/a.go", 1, 10), ChunkID("repo/b.go", 0, 10), ChunkID("repo/a.go0", 0, 10)} {
		if other == a {
			t.Errorf("ChunkID collision with %q", other)
		}
	}
	// The separator keeps "a.go" + "1-2" apart from "a.go1" + "-2".
	if ChunkID("x1", 2, 3) == ChunkID("x", 12, 3) {
		t.Error("ChunkID is ambiguous between uri and range")
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"a", 1}, {"abcd", 1}, {"abcde", 2},
		{"x" + strings.Repeat(" ", 100) + "y", 1}, // a run of spaces counts once
		{strings.Repeat("word ", 100), 125},
		{"接続プール", 5},         // a token a CJK character, not one per 4 of its 12 bytes (3)
		{"retry 接続 pool", 5}, // (6 + 2×4 + 5 + 3) / 4
		{"ünïcödé", 3},       // other characters stay bytes: 11 bytes
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestExplainPinned(t *testing.T) {
	for _, tt := range []struct {
		e    Explain
		want string
	}{
		{Explain{Frame: "/app/cart/store.go:88", FrameLine: 88}, "frame store.go:88"},
		{Explain{Frame: `C:\src\Cart\CartService.cs:42`, FrameLine: 42}, "frame CartService.cs:42"},
		{Explain{Route: "PUT /feeds/{id}", RouteLine: 12}, "route PUT /feeds/{id}"},
		{Explain{Route: "PUT /feeds/{id}"}, "handles PUT /feeds/{id}"},
		{Explain{}, ""},
	} {
		if got := tt.e.Pinned(); got != tt.want {
			t.Errorf("%+v.Pinned() = %q, want %q", tt.e, got, tt.want)
		}
	}
}

func TestExplainSameIn(t *testing.T) {
	for _, tt := range []struct {
		dups []string
		want string
	}{
		{nil, ""},
		{[]string{"shop/install.yaml:40-60"}, "the same in shop/install.yaml:40-60"},
		{[]string{"a.yaml:1-2", "b.yaml:1-2", "c.yaml:1-2", "d.yaml:1-2", "e.yaml:1-2"}, "the same in a.yaml:1-2, b.yaml:1-2, c.yaml:1-2 and 2 more"},
	} {
		if got := (Explain{Duplicates: tt.dups}).SameIn(3); got != tt.want {
			t.Errorf("SameIn(3) of %q = %q, want %q", tt.dups, got, tt.want)
		}
	}
}
