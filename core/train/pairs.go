package train

import (
	"context"
	"fmt"

	"coderag/core"
	"coderag/core/chunk"
	"coderag/core/embed"
)

// TextPair is a training pair of the embedding model: a query (a doc
// comment or a heading, without the declaration's name) and the text the
// index would embed for the chunk it describes — its context prefix and
// its text, with the comment blanked out of it.
type TextPair struct {
	Query string `json:"q"`
	Doc   string `json:"doc"`
	// Source names the mined tree, Group the package within it: held-out
	// sets are split by (Source, Group).
	Source string `json:"source"`
	Group  string `json:"group"`
	Lang   string `json:"lang"`
}

// MineText walks root as Mine does and returns (query, chunk text) pairs:
// the blanked file is chunked as a crawl would chunk it, and each query
// is paired with the chunk that holds its declaration or section. Pairs
// whose chunk cannot be found (the file does not parse, the section is
// empty) are dropped. Nothing is written.
func MineText(ctx context.Context, source, root string, opts MineOptions) ([]TextPair, error) {
	ch, err := chunk.New(chunk.Options{})
	if err != nil {
		return nil, err
	}
	var out []TextPair
	err = walkMined(ctx, root, opts, func(f minedFile) error {
		if len(f.pairs) == 0 {
			return nil
		}
		base := core.Chunk{SourceURI: source + "/" + f.rel, FilePath: f.rel, Language: f.lang, RepoName: source}
		var chunks []core.Chunk
		if f.lang == "markdown" {
			base.Corpus = core.DocReadme
			chunks = ch.Markdown(f.blanked, base).Chunks
		} else {
			base.Corpus = core.CodeLogic
			res, err := ch.Code(f.blanked, base)
			if err != nil || res.Fallback != "" {
				return nil
			}
			chunks = res.Chunks
		}
		for _, p := range f.pairs {
			c, ok := chunkAt(chunks, p.at)
			if !ok {
				continue
			}
			doc := embed.DocumentText(embed.Pending{ContextPrefix: c.ContextPrefix, Text: c.Text})
			if len(embed.Tokens(doc)) < 3 {
				continue
			}
			out = append(out, TextPair{Query: p.Query, Doc: doc, Source: source, Group: p.Group, Lang: p.Lang})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mine %s: %w", root, err)
	}
	return out, nil
}

// chunkAt returns the chunk whose bytes hold offset at, or the first one
// starting after it (a declaration's chunk may begin at its first
// non-blank line).
func chunkAt(chunks []core.Chunk, at int) (core.Chunk, bool) {
	var next *core.Chunk
	for i := range chunks {
		c := &chunks[i]
		if c.ByteStart <= at && at < c.ByteEnd {
			return *c, true
		}
		if c.ByteStart > at && (next == nil || c.ByteStart < next.ByteStart) {
			next = c
		}
	}
	if next != nil && next.ByteStart-at < 200 {
		return *next, true
	}
	return core.Chunk{}, false
}
