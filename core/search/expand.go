package search

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"coderag/core/codetok"
)

// expansions are words added to a plain-language query, from knowledge of
// English and of HTTP rather than of any repository:
//
//   - a verb and its particle whose joined form is a token of the index
//     ("timing out" finds proxy_read_timeout, "checks out" a checkout
//     button, "starts up" a startup probe, "log in" login): a content word
//     and the function word after it, joined as written and with the
//     first one's stem;
//   - an HTTP status code's reason phrase ("503" finds
//     StatusServiceUnavailable and SERVICE_UNAVAILABLE), from net/http.
//
// Quoted phrases are left alone. The words are returned in query order,
// without duplicates and without the query's own words; nil when there
// are none.
func (e *Engine) expansions(ctx context.Context, text string) ([]string, error) {
	var words []string // the query's plain words, lower-case; "" breaks a run
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, t := range Terms(text) {
		for _, w := range codetok.Words(t) {
			seen[w] = true
		}
	}
	for _, t := range Terms(text) {
		if strings.ContainsAny(t, " \t") {
			words = append(words, "")
			continue
		}
		w := strings.ToLower(strings.Trim(t, "?!.,;:()'\"’"))
		if code, err := strconv.Atoi(w); err == nil && len(w) == 3 {
			if reason := http.StatusText(code); reason != "" {
				for _, r := range strings.Fields(strings.ToLower(reason)) {
					if !questionWords[r] {
						add(strings.Trim(r, "-"))
					}
				}
			}
		}
		if !isWord(w) || strings.HasSuffix(strings.TrimRight(t, "?!.;:)\"’'"), ",") {
			words = append(words, w, "") // a comma ends a run: "fails, out of memory"
			continue
		}
		words = append(words, w)
	}
	var joins []string
	for i := 0; i+1 < len(words); i++ {
		a, b := words[i], words[i+1]
		// A verb and its particle: joining two content words
		// ("order history") finds a service's name everywhere and
		// ranked worse on ../shared/eval (docs/eval.md).
		if !isWord(a) || !isWord(b) || questionWords[a] || !questionWords[b] {
			continue
		}
		for _, j := range []string{a + b, stem(a) + b} {
			if len(j) >= 5 && !questionWords[j] && !containsString(joins, j) {
				joins = append(joins, j)
			}
		}
	}
	if len(joins) > 0 {
		_, df, err := e.idx.TermDocs(ctx, joins)
		if err != nil {
			return nil, err
		}
		for _, j := range joins {
			if df[j] > 0 {
				add(j)
			}
		}
	}
	return out, nil
}

// isWord reports whether w is a lower-case word of letters only.
func isWord(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}
