package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  getUserProfile  ", []string{"getUserProfile"}},
		{"user profile", []string{"user", "profile"}},
		{`"user profile" cart`, []string{"user profile", "cart"}},
		{`cart "unterminated phrase`, []string{"cart", "unterminated phrase"}},
		{"a\x00b\tc", []string{"a", "b", "c"}},
		{`""`, []string{""}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, Terms(tt.in)); d != "" {
			t.Errorf("Terms(%q) mismatch (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestMatchExpr(t *testing.T) {
	tests := []struct {
		in, code, prose string
	}{
		{"getUserProfile", `"getUserProfile"`, `"getUserProfile"`},
		{"http.Get", `"http.Get"`, `"http.Get"`},
		{"user profile", `"user" OR "profile"`, `"user" OR "profile"`},
		{`say "hi there"`, `"say" OR "hi there"`, `"say" OR "hi there"`},
		{`a"b`, `"a""b"`, `"a""b"`}, // the quote is escaped by doubling
		{"NEAR *", `"NEAR"`, `"NEAR"`},
		{"return if", ``, `"return" OR "if"`},
		{"!!! ???", ``, ``},
		{"", ``, ``},
	}
	for _, tt := range tests {
		if got := MatchExpr(tt.in, "code"); got != tt.code {
			t.Errorf("MatchExpr(%q, code) = %s, want %s", tt.in, got, tt.code)
		}
		if got := MatchExpr(tt.in, "prose"); got != tt.prose {
			t.Errorf("MatchExpr(%q, prose) = %s, want %s", tt.in, got, tt.prose)
		}
	}
}

func hit(id, list string, rank int) core.Hit {
	return core.Hit{Chunk: core.Chunk{ID: id}, Lists: []core.ListRank{{List: list, Rank: rank}}}
}

func TestFuse(t *testing.T) {
	code := []core.Hit{hit("a", "bm25-code", 1), hit("b", "bm25-code", 2), hit("c", "bm25-code", 3)}
	prose := []core.Hit{hit("c", "bm25-prose", 1), hit("b", "bm25-prose", 2)}
	got := Fuse(60, nil, code, prose)
	var ids []string
	for _, h := range got {
		ids = append(ids, h.Chunk.ID)
	}
	// b: 1/62+1/62, c: 1/63+1/61, a: 1/61
	if d := cmp.Diff([]string{"c", "b", "a"}, ids); d != "" {
		t.Errorf("Fuse order (-want +got):\n%s", d)
	}
	if len(got[0].Lists) != 2 {
		t.Errorf("fused hit lists = %+v, want both lists", got[0].Lists)
	}
	// A weight of 0 removes a list's influence.
	got = Fuse(60, map[string]float64{"bm25-prose": 0}, code, prose)
	if got[0].Chunk.ID != "a" {
		t.Errorf("with prose weight 0, top = %s, want a", got[0].Chunk.ID)
	}
	// Ties break by id.
	got = Fuse(60, nil, []core.Hit{hit("z", "x", 1)}, []core.Hit{hit("y", "w", 1)})
	if got[0].Chunk.ID != "y" {
		t.Errorf("tie order = %s first, want y", got[0].Chunk.ID)
	}
}
