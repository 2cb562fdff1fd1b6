// Package embed holds the last stage type of the crawl pipeline, the
// embedded chunk, and the embedders: the built-in one learned from the
// indexed corpus (builtin.go) and clients of embedding servers (http.go).
package embed

import (
	"context"
	"crypto/sha256"
	"strings"
	"unicode/utf8"

	"coderag/core"
	"coderag/core/scrub"
)

// Chunk is a clean chunk with its vector: what the store writes. Vector is
// nil when the chunk is embedded later, after the crawl's sources are
// written (the built-in embedder must first learn from all of them).
type Chunk struct {
	Clean  scrub.CleanChunk
	Vector []float32
}

// Kind says what a text to embed is: models that want instructions give
// queries and documents different prefixes.
type Kind int

// The kinds of text.
const (
	Document Kind = iota
	Query
)

// Embedder turns texts into vectors of one dimension.
type Embedder interface {
	// Info names the embedder and its dimension.
	Info() core.EmbedderInfo
	// Embed returns one vector per text, in order. A nil vector means the
	// embedder has nothing to say about that text (the built-in embedder
	// knows none of its words).
	Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error)
}

// Pending is a stored chunk that has no vector yet.
type Pending struct {
	PK            int64
	ContextPrefix string
	Text          string
}

// Vector is a vector to store for the chunk with primary key PK.
type Vector struct {
	PK  int64
	Vec []float32
}

// MaxDocumentBytes is how much of a chunk is sent to an embedder.
const MaxDocumentBytes = 8000

// DocumentText is the text embedded for a chunk: its context prefix (file,
// scope, signature) and its text, cut at MaxDocumentBytes on a rune
// boundary.
func DocumentText(p Pending) string {
	s := p.Text
	if p.ContextPrefix != "" {
		s = p.ContextPrefix + "\n" + p.Text
	}
	if !DocumentCut(p) {
		return s
	}
	cut := MaxDocumentBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// DocumentCut reports whether DocumentText cuts p's text at
// MaxDocumentBytes (without building it).
func DocumentCut(p Pending) bool {
	n := len(p.Text)
	if p.ContextPrefix != "" {
		n += len(p.ContextPrefix) + len("\n")
	}
	return n > MaxDocumentBytes
}

// Prefixes are the instructions a model wants before queries and
// documents.
type Prefixes struct {
	Query, Document string
}

// knownPrefixes maps a model name fragment to its documented prefixes.
// The first match wins, so specific names come first.
var knownPrefixes = []struct {
	fragment string
	p        Prefixes
}{
	{"coderankembed", Prefixes{Query: "Represent this query for searching relevant code: "}},
	{"nomic-embed-code", Prefixes{Query: "Represent this query for searching relevant code: "}},
	{"nomic-embed-text", Prefixes{Query: "search_query: ", Document: "search_document: "}},
	{"e5-", Prefixes{Query: "query: ", Document: "passage: "}},
	{"bge-", Prefixes{Query: "Represent this sentence for searching relevant passages: "}},
	{"mxbai-embed-large", Prefixes{Query: "Represent this sentence for searching relevant passages: "}},
	{"snowflake-arctic-embed", Prefixes{Query: "Represent this sentence for searching relevant passages: "}},
}

// DefaultPrefixes returns the prefixes the model's authors document, by
// the model's name (CodeRankEmbed, nomic-embed-text, e5, bge, mxbai,
// arctic-embed); none for other models.
func DefaultPrefixes(model string) Prefixes {
	m := strings.ToLower(model)
	for _, k := range knownPrefixes {
		if strings.Contains(m, k.fragment) {
			return k.p
		}
	}
	return Prefixes{}
}

// Stored is the built-in embedder over a model kept in the index: each
// Embed loads only the rows of the texts' tokens, so a query costs a few
// lookups rather than loading the model.
type Stored struct {
	Dim  int
	Load func(ctx context.Context, tokens []string) (*Model, error)
}

// Info implements Embedder.
func (s Stored) Info() core.EmbedderInfo { return core.EmbedderInfo{ID: CorpusID, Dim: s.Dim} }

// Embed implements Embedder.
func (s Stored) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	seen := map[string]bool{}
	var toks []string
	for _, t := range texts {
		for _, w := range Tokens(t) {
			if !seen[w] {
				seen[w] = true
				toks = append(toks, w)
			}
		}
	}
	if toks == nil {
		toks = []string{}
	}
	m, err := s.Load(ctx, toks)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return make([][]float32, len(texts)), nil
	}
	return Builtin{M: m}.Embed(ctx, kind, texts)
}

// TextSum is a digest of what a chunk's vector depends on, its context
// prefix and text: a store that rewrites a chunk with the same sum may
// keep its vector.
func TextSum(prefix, text string) [32]byte {
	h := sha256.New()
	h.Write([]byte(prefix))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var out [32]byte
	h.Sum(out[:0])
	return out
}
