package search

import (
	"context"
	"fmt"
	"strings"
)

// SourceNamer is an Index that knows the names of the sources it holds,
// so that a query naming one of several ("OOMKilled argocd repo server"
// in an index of many repositories) keeps that word and prefers that
// source's chunks.
type SourceNamer interface {
	SourceNames(ctx context.Context) ([]string, error)
}

// namedSources returns the sources of the index a text names as a word
// (case and separators aside: "Metrics Server" names metrics-server), in
// an index of two or more; nil otherwise. Names under four letters (api,
// web) are words of any text.
func (e *Engine) namedSources(ctx context.Context, text string) ([]string, error) {
	sn, ok := e.idx.(SourceNamer)
	if !ok {
		return nil, nil
	}
	names, err := sn.SourceNames(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the source names: %w", err)
	}
	if len(names) < 2 {
		return nil, nil
	}
	padded := "-" + foldName(text) + "-"
	var out []string
	for _, n := range names {
		if f := foldName(n); len(f) >= 4 && strings.Contains(padded, "-"+f+"-") {
			out = append(out, n)
		}
	}
	return out, nil
}

// foldName lower-cases s and writes every run of characters other than
// letters and digits as one "-".
func foldName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}
