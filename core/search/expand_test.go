package search

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestExpansions(t *testing.T) {
	// The index's vocabulary: joined forms are added only when a chunk
	// holds them.
	df := map[string]int{"timeout": 12, "checkout": 4, "startup": 2, "login": 9, "waitfor": 1, "paymentgateway": 30}
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"How long does the proxy wait before timing out?", []string{"timeout"}},
		{"What runs when a shopper checks out?", []string{"checkout"}},
		{"Why do requests get 503 while the gateway starts up?", []string{"service", "unavailable", "startup"}},
		{"how do admins log in", []string{"login"}},
		// Two content words are not joined, even when the index holds
		// the compound: it names a service everywhere.
		{"how is the payment gateway created", nil},
		// A comma ends a run; a quoted phrase is left alone; the first
		// word must be a content word.
		{"it checks, out of memory", nil},
		{`"checks out" of the cart`, nil},
		{"what to do in setup", nil},
		// A status code's words the query already has are not repeated;
		// numbers that are no status code add nothing.
		{"503 Service Unavailable from the gateway", nil},
		{"port 8080 and 999 replicas", nil},
		{"404 on the product page", []string{"found"}}, // "not" is a function word
		// Joins the index does not hold are dropped.
		{"the job backs off", nil},
	} {
		idx := &fakeIndex{total: 1000, df: df}
		got, err := New(idx, Options{}).expansions(context.Background(), tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("expansions(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

// TestSearchAddsExpansions: the joined form reaches the BM25 expression.
func TestSearchAddsExpansions(t *testing.T) {
	idx := &fakeIndex{total: 1000, df: map[string]int{"timeout": 12, "proxy": 40, "timing": 3}}
	if _, err := New(idx, Options{}).Search(context.Background(), Query{Text: "why is the proxy timing out"}); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(idx.matches, "\n")
	if !strings.Contains(all, `"timeout"`) || !strings.Contains(all, `"timing"`) {
		t.Errorf("expressions %q lack the query's word or its joined form", idx.matches)
	}
}

func TestSynonymWords(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want []string
	}{
		// "database" is in two groups, "invoices" in none.
		{"Which database holds the invoices?", []string{"db", "datastore", "postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongo", "sql", "sqlite"}},
		{"where are user sessions kept", []string{"account", "customer", "jwt", "token"}}, // plurals share a stem
		{"retrying", []string{"backoff", "attempt"}},
		{"out of disk space", []string{"filesystem", "volume", "storage", "pvc"}}, // an alert says filesystem
		{"how is the widget rendered", nil},
	} {
		if got := synonymWords(tt.q); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("synonymWords(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

// TestSynonymList: the synonyms are searched as a list of their own, with
// the query's words, and fused at half weight.
func TestSynonymList(t *testing.T) {
	idx := &fakeIndex{total: 1000, df: map[string]int{"retry": 40, "backoff": 5, "attempt": 9}}
	if _, err := New(idx, Options{}).Search(context.Background(), Query{Text: "why retry"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(idx.matches, `code: "retry" OR "backoff" OR "attempt"`) {
		t.Errorf("expressions %q lack the synonyms' list", idx.matches)
	}
	// In a large index a synonym in most chunks is left out, and one the
	// index does not hold is never searched.
	idx = &fakeIndex{total: 100_000, df: map[string]int{"retry": 40, "attempt": 30_000}}
	if _, err := New(idx, Options{}).Search(context.Background(), Query{Text: "why retry"}); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(idx.matches, func(m string) bool { return strings.Contains(m, "attempt") || strings.Contains(m, "backoff") }) {
		t.Errorf("expressions %q search a common or absent synonym", idx.matches)
	}
	if w := DefaultParams().Lists["bm25-synonyms"]; w != 0.5 {
		t.Errorf("bm25-synonyms weighs %v, want 0.5", w)
	}
}
