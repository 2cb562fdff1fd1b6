// Package search answers queries over a coderag index: it turns user text
// into full-text expressions, runs them against the index's retrieval lists
// and fuses the lists with weighted reciprocal rank fusion.
package search

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"coderag/core"
	"coderag/core/codetok"
)

// Index is what search needs from the store; sqlite.DB implements it.
type Index interface {
	// BM25 runs an FTS5 expression against the "code" or "prose" index.
	BM25(ctx context.Context, index, match string, k int, f core.Filter) ([]core.Hit, error)
}

// Options tune an Engine. The zero value uses the defaults.
type Options struct {
	// RRFK is the k of reciprocal rank fusion (default 60).
	RRFK int
	// Depth is how many hits each list contributes before fusion
	// (default 50, never less than the query's K).
	Depth int
	// Weights weighs each list in the fusion by name ("bm25-code",
	// "bm25-prose"); a missing list weighs 1.
	Weights map[string]float64
}

// Engine runs searches. It is safe for concurrent use.
type Engine struct {
	idx  Index
	opts Options
}

// New returns an Engine over idx.
func New(idx Index, opts Options) *Engine {
	if opts.RRFK <= 0 {
		opts.RRFK = 60
	}
	if opts.Depth <= 0 {
		opts.Depth = 50
	}
	return &Engine{idx: idx, opts: opts}
}

// Query is one search request.
type Query struct {
	Text   string
	K      int // results wanted (default 10)
	Filter core.Filter
}

// Result is the answer to a Query.
type Result struct {
	Hits []core.Hit
	Took time.Duration
}

// Search runs q over both full-text indexes and fuses the results.
func (e *Engine) Search(ctx context.Context, q Query) (Result, error) {
	start := time.Now()
	k := q.K
	if k <= 0 {
		k = 10
	}
	depth := max(e.opts.Depth, k)
	var lists [][]core.Hit
	for _, index := range []string{"code", "prose"} {
		match := MatchExpr(q.Text, index)
		if match == "" {
			continue
		}
		hits, err := e.idx.BM25(ctx, index, match, depth, q.Filter)
		if err != nil {
			return Result{}, fmt.Errorf("search %q: %w", q.Text, err)
		}
		lists = append(lists, hits)
	}
	hits := Fuse(e.opts.RRFK, e.opts.Weights, lists...)
	if len(hits) > k {
		hits = hits[:k]
	}
	return Result{Hits: hits, Took: time.Since(start)}, nil
}

// Fuse merges ranked lists with weighted reciprocal rank fusion: a hit
// scores the sum over lists of weight/(rrfk + rank). Hits are identified by
// chunk id; each fused hit keeps the ListRank of every list it came from.
// Ties are broken by chunk id so that the order is stable.
func Fuse(rrfk int, weights map[string]float64, lists ...[]core.Hit) []core.Hit {
	byID := map[string]*core.Hit{}
	var order []string
	for _, list := range lists {
		for _, h := range list {
			for _, lr := range h.Lists {
				w, ok := weights[lr.List]
				if !ok {
					w = 1
				}
				f, seen := byID[h.Chunk.ID]
				if !seen {
					c := h
					c.Score = 0
					c.Lists = nil
					f = &c
					byID[h.Chunk.ID] = f
					order = append(order, h.Chunk.ID)
				}
				f.Score += w / float64(rrfk+lr.Rank)
				f.Lists = append(f.Lists, lr)
			}
		}
	}
	out := make([]core.Hit, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Chunk.ID < out[j].Chunk.ID
	})
	return out
}

// Terms splits user text into search terms: double-quoted phrases stay
// whole, everything else splits on white space. An unbalanced quote runs to
// the end of the text. Control characters count as white space.
func Terms(text string) []string {
	var terms []string
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, text)
	for {
		text = strings.TrimLeftFunc(text, unicode.IsSpace)
		if text == "" {
			return terms
		}
		if text[0] == '"' {
			end := strings.IndexByte(text[1:], '"')
			if end < 0 {
				terms = append(terms, text[1:])
				return terms
			}
			terms = append(terms, text[1:1+end])
			text = text[end+2:]
			continue
		}
		end := strings.IndexFunc(text, unicode.IsSpace)
		if end < 0 {
			end = len(text)
		}
		terms = append(terms, text[:end])
		text = text[end:]
	}
}

// MatchExpr turns free user text into an FTS5 MATCH expression for the
// "code" or "prose" index: every term becomes a quoted FTS5 string (so that
// http.Get, user-profile, NEAR, *, and stray quotes are literal text), terms
// that the index's tokenizer would reduce to nothing are dropped, and the
// rest are OR-ed so that BM25 ranks chunks matching more terms higher. It
// returns "" when nothing searchable is left.
func MatchExpr(text, index string) string {
	var parts []string
	for _, t := range Terms(text) {
		if !searchable(t, index) {
			continue
		}
		parts = append(parts, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	return strings.Join(parts, " OR ")
}

func searchable(term, index string) bool {
	if index == "code" {
		return len(codetok.Words(term)) > 0
	}
	for _, r := range term {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// IsBadQuery reports whether err means the query itself was malformed.
func IsBadQuery(err error) bool { return errors.Is(err, core.ErrBadQuery) }
