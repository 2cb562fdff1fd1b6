package search

import (
	"context"
	"slices"
	"strings"
	"sync"
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
		{"決済サービス 障害", []string{"決済", "済サ", "サー", "ービ", "ビス", "障害"}},
		{"API呼び出し", []string{"API", "呼び", "び出", "出し"}},
		{"値", []string{"値"}},
		{"支付服务，数据库", []string{"支付", "付服", "服务", "，", "数据", "据库"}},
		{`"決済サービス" x`, []string{"決済サービス", "x"}}, // a quoted phrase stays whole
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
		{"決済 retry", `"決済" OR "retry"`, `"retry"`}, // the prose index cannot meet a CJK pair
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

// fakeIndex records the expressions it is asked for (the lists run
// concurrently).
type fakeIndex struct {
	total   int
	df      map[string]int
	mu      sync.Mutex
	matches []string
}

func (f *fakeIndex) BM25(_ context.Context, index, match string, k int, _ core.Filter) ([]core.Hit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.matches = append(f.matches, index+": "+match)
	return nil, nil
}

func (f *fakeIndex) FileBM25(_ context.Context, match, _ string, _ int, _ core.Filter) ([]core.Hit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.matches = append(f.matches, "files: "+match)
	return nil, nil
}

func (f *fakeIndex) KNN(context.Context, []float32, int, core.Filter) ([]core.Hit, error) {
	return nil, nil
}

func (f *fakeIndex) TermDocs(_ context.Context, tokens []string) (int, map[string]int, error) {
	return f.total, f.df, nil
}

func TestFocusColumnsFirstForCommonQueries(t *testing.T) {
	df := map[string]int{"err": 95_000, "checkout": 800}
	for _, tt := range []struct {
		q     string
		focus bool
	}{{"err", true}, {"checkout", false}} {
		idx := &fakeIndex{total: 100_000, df: df}
		if _, err := New(idx, Options{}).Search(context.Background(), Query{Text: tt.q}); err != nil {
			t.Fatal(err)
		}
		focused := strings.Contains(strings.Join(idx.matches, "\n"), `code: {symbol_name file_path context_prefix} : ("`+tt.q+`")`)
		if focused != tt.focus {
			t.Errorf("Search(%q) expressions %v: focus pass = %v, want %v", tt.q, idx.matches, focused, tt.focus)
		}
		// The fake returns no hits, so the full search always follows.
		if !strings.Contains(strings.Join(idx.matches, "\n"), `code: "`+tt.q+`"`) {
			t.Errorf("Search(%q) never searched all columns: %v", tt.q, idx.matches)
		}
	}
}

func TestPlanDropsCommonTerms(t *testing.T) {
	df := map[string]int{"err": 95_000, "ctx": 90_000, "checkout": 800, "handler": 8_000, "user": 30_000, "profile": 2_000,
		"get": 60_000, "getuserprofile": 12, "userprofile": 40}
	tests := []struct {
		name    string
		total   int
		q       string
		code    string
		dropped []string
		and     bool
	}{
		{"rare and common", 100_000, "checkout err", `"checkout"`, []string{"err"}, false},
		{"all common are and-ed", 100_000, "err ctx", `"err" AND "ctx"`, nil, true},
		{"phrase with a rare word is rare", 100_000, `"user profile" err`, `"user profile"`, []string{"err"}, false},
		{"moderate terms kept", 100_000, "checkout handler", `"checkout" OR "handler"`, nil, false},
		{"unknown term is rare", 100_000, "zzz err", `"zzz"`, []string{"err"}, false},
		{"small index never prunes", 1_000, "checkout err", `"checkout" OR "err"`, nil, false},
		{"single term never pruned", 100_000, "err", `"err"`, nil, false},
		{"identifier with a rare subword gets its phrase", 100_000, "UserProfile", `("UserProfile" OR "user profile")`, nil, false},
		{"rare identifier next to a common word", 100_000, "getUserProfile err", `("getUserProfile" OR "get user profile")`, []string{"err"}, false},
		{"identifier of common subwords: whole token only", 100_000, "getUser", `"getUser"`, nil, false},
		{"stop word is common", 100_000, "func checkout", `"checkout"`, []string{"func"}, false},
		{"small index: phrase always", 1_000, "getUser", `("getUser" OR "get user")`, nil, false},
		{"no phrase with a stop word", 1_000, "forEach", `"forEach"`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := &fakeIndex{total: tt.total, df: df}
			res, err := New(idx, Options{}).Search(context.Background(), Query{Text: tt.q})
			if err != nil {
				t.Fatal(err)
			}
			found := false // the code list's (the synonyms' list is another)
			for _, m := range idx.matches {
				found = found || m == "code: "+tt.code
			}
			if !found {
				t.Errorf("code expression = %v, want %s", idx.matches, tt.code)
			}
			if d := cmp.Diff(tt.dropped, res.Dropped); d != "" || res.AllCommon != tt.and {
				t.Errorf("dropped %v and=%v, want %v and=%v", res.Dropped, res.AllCommon, tt.dropped, tt.and)
			}
		})
	}
}

// TestPathMatcher: the Go match of path: values means what the SQL GLOB
// of PathGlob means.
func TestPathMatcher(t *testing.T) {
	for _, tt := range []struct {
		v, path string
		want    bool
	}{
		{"src/auth/**", "src/auth/jwt/verify.go", true},
		{"src/auth/**", "lib/src/auth/x.go", false},
		{"test", "services/cart/cart_test.go", true},
		{"*.md", "docs/runbooks/redis.md", true},
		{"*.md", "docs/runbooks/redis.mdx", false},
		{"svc/[ab]*.go", "svc/api.go", true},
		{"svc/[^ab]*.go", "svc/api.go", false},
		{"a?c.go", "abc.go", true},
		{"a.c", "abc", false},
	} {
		m, err := PathMatcher(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := m(tt.path); got != tt.want {
			t.Errorf("path:%s on %s = %v, want %v", tt.v, tt.path, got, tt.want)
		}
	}
}

func TestShingles(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"dial tcp 10.0.3.17:6379: connection refused", nil},
		{"failed to connect to redis at 10.0.3.17:6379: i/o timeout", []string{"failed to connect", "connect to redis", "i o timeout"}},
		{`value has type "user-7781"; should be int`, []string{"value has type", "has type user"}},
		{"Unable to read InputStream: EOF while reading the header block", []string{"unable to read", "to read inputstream", "read inputstream eof", "inputstream eof while", "eof while reading", "while reading the", "reading the header", "the header block"}},
		{"where does the cart retry the payment?", nil},
		{"how the cart retries payments: twice", nil},
		{"consumer that takes stock out when an order is placed", nil},
		{"retry: the payment", nil},
		{"error: a b c d e f g h i j k l m", []string{"error a b", "a b c", "c d e", "d e f", "f g h", "g h i", "i j k", "j k l"}},
	} {
		if got := shingles(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("shingles(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestContentTextDropsKeywordsStartingSentences(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"New errors since the deploy", "errors since deploy"},
		{"Range over sync.Map", "sync.Map"},
		{"the cart fails. Import hangs", "cart fails hangs"},
		{"New", "New"},
		{"where is New defined", "New defined"},
		{"errors.Is and errors.As", "errors.Is errors.As"},
	} {
		if got := ContentText(tt.in); got != tt.want {
			t.Errorf("ContentText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
