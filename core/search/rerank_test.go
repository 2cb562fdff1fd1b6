package search

import (
	"fmt"
	"slices"
	"testing"

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
