package search

import (
	"fmt"
	"slices"
	"testing"

	"coderag/core"
	"coderag/core/codetok"
)

// TestLeadingNewlineTokens: the reranker tokenizes a chunk without a scope
// as "\n" + text and gives the model's vector those tokens as the text's
// own (semanticVector).
func TestLeadingNewlineTokens(t *testing.T) {
	for _, text := range []string{
		"func (m *Map) Range(f func(key, value any) bool) {}",
		"Do the thing: getUserProfile(id) -> HTTP_503",
		"New() *Client",
		"  indented\tline\n## Heading\n",
		"résumé naïve 日本語 snake_case kebab-case CamelCase",
		"",
		"x",
	} {
		var a, b []string
		for _, tok := range codetok.Tokenize(text) {
			a = append(a, fmt.Sprintf("%s/%v", tok.Text, tok.Colocated))
		}
		for _, tok := range codetok.Tokenize("\n" + text) {
			b = append(b, fmt.Sprintf("%s/%v", tok.Text, tok.Colocated))
		}
		if !slices.Equal(a, b) {
			t.Errorf("tokens of %q = %v, of \"\\n\" + it = %v", text, a, b)
		}
	}
}

// TestStemCoverage: a word of the chunk counts for a query word it shares
// a stem with when it is a form of that word (retries for retry), not
// another word the stemmer cut the same (activities for activator).
func TestStemCoverage(t *testing.T) {
	for _, tc := range []struct {
		query, text string
		covered     bool
	}{
		{"retry", "the client retries twice", true},
		{"timeouts", "a timeout of 5s", true},
		{"scheduler", "scheduling the pods", true},
		{"validation", "validate the order", true},
		{"activator", "list the recent activities", false},
		{"general", "generated code", false},
	} {
		f := Features(core.Chunk{Text: tc.text}, []string{tc.query}, nil)
		if got := f["coverage"] > 0; got != tc.covered {
			t.Errorf("query %q over %q: coverage %v, want covered %v", tc.query, tc.text, f["coverage"], tc.covered)
		}
	}
}

// TestStemPrefixes: a word always passes the prefix filter of its own
// stem (the reranker stems only the words that do), the exceptions to
// "a stem keeps its word's first two letters" included.
func TestStemPrefixes(t *testing.T) {
	words := []string{"retries", "retrying", "connection", "connected", "dying", "lying", "tying", "eing",
		"happily", "generously", "databases", "queues", "caching", "skis", "news", "authentication",
		"authorized", "replicas", "yielding", "ying", "idly", "ugly", "early", "only", "gently", "cries", "ties"}
	for _, w := range words {
		st := stem(w)
		if !stemPrefixes(map[string]string{st: w}).holds(w) {
			t.Errorf("%q (stem %q) fails its own stem's prefix filter", w, st)
		}
	}
	ps := stemPrefixes(map[string]string{stem("retry"): "retry"}, map[string]string{stem("backoff"): "retry"})
	for w, want := range map[string]bool{"retries": true, "backoffs": true, "database": false, "connection": false, "x": true} {
		if got := ps.holds(w); got != want {
			t.Errorf("holds(%q) = %v, want %v", w, got, want)
		}
	}
}
