package search

import (
	"context"
	"fmt"

	"coderag/core"
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
	var out []string
	for _, n := range names {
		if len(core.FoldName(n)) >= 4 && core.HoldsName(text, n) {
			out = append(out, n)
		}
	}
	return out, nil
}
