package train

import (
	"context"
	"fmt"
	"path"
	"strings"

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
	// Kind is "name" for a pair whose query is a function's own name,
	// "type" for a type's, "names" for those of a chunk's grouped
	// declarations (MineOptions.NamePairs); empty for a doc comment or
	// heading.
	Kind string `json:"kind,omitempty"`
	// Chunks is "crawl" when the document was chunked as a crawl chunks
	// it (MineOptions.CrawlChunks), empty when its small neighbours were
	// kept apart, as training wants.
	Chunks string `json:"chunks,omitempty"`
}

// MineText walks root as Mine does and returns (query, chunk text) pairs:
// the blanked file is chunked as a crawl would chunk it, but for the
// pieces a crawl joins to a neighbour (chunk.Options.KeepSmall), and each
// query is paired with the chunk that holds its declaration or section. Pairs
// whose chunk cannot be found (the file does not parse, the section is
// empty) are dropped. With opts.NamePairs every function, method or type
// chunk of code (not tests, not generated files) that no comment
// describes is paired with its own name (namePair).
// Nothing is written.
func MineText(ctx context.Context, source, root string, opts MineOptions) ([]TextPair, error) {
	// A comment's document is its own declaration, without the import
	// or class line a crawl joins to it: the shipped model was trained
	// so, and models trained with the joining lost on questions
	// (docs/eval.md, "The documents of the pairs"). opts.CrawlChunks
	// joins them, for a report.
	ch, err := chunk.New(chunk.Options{KeepSmall: !opts.CrawlChunks})
	if err != nil {
		return nil, err
	}
	chunking := ""
	if opts.CrawlChunks {
		chunking = "crawl"
	}
	var out []TextPair
	err = walkMined(ctx, root, opts, func(f minedFile) error {
		if len(f.pairs) == 0 && !(opts.NamePairs && f.code) {
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
		paired := map[int]bool{}
		for _, p := range f.pairs {
			c, ok := chunkAt(chunks, p.at)
			if !ok {
				continue
			}
			paired[c.ByteStart] = true
			doc := embed.DocumentText(embed.Pending{ContextPrefix: c.ContextPrefix, Text: c.Text})
			if len(embed.Tokens(doc)) < 3 {
				continue
			}
			out = append(out, TextPair{Query: p.Query, Doc: doc, Source: source, Group: p.Group, Lang: p.Lang, Chunks: chunking})
		}
		if opts.NamePairs && f.code {
			for _, c := range chunks {
				if !paired[c.ByteStart] {
					if p, ok := namePair(c, source, f.rel, f.lang); ok {
						p.Chunks = chunking
						out = append(out, p)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mine %s: %w", root, err)
	}
	return out, nil
}

// namePair makes the pair of an undocumented function, method or type
// chunk: its name's words ("parse header" for parseHeader) as the query,
// the chunk with every whole occurrence of the name blanked as the
// document; Kind "name" for a function or method, "type" for a type.
// Names of one word ("String", "run") ask too little to learn from, and a
// chunk of several grouped declarations has no one name.
func namePair(c core.Chunk, source, rel, lang string) (TextPair, bool) {
	kind := "name"
	switch c.SymbolKind {
	case "function", "method":
	case "class", "struct", "interface", "record", "enum", "trait", "type":
		kind = "type"
	default:
		return TextPair{}, false
	}
	if strings.Contains(c.SymbolName, ", ") {
		// Several small declarations grouped into one chunk: their
		// names ask for it, left in it (a question that names an
		// identifier finds the code that declares it).
		var words []string
		for _, n := range strings.Split(c.SymbolName, ", ") {
			words = append(words, embed.Tokens(n)...)
		}
		doc := embed.DocumentText(embed.Pending{ContextPrefix: c.ContextPrefix, Text: c.Text})
		if len(words) < 2 || len(embed.Tokens(doc)) < 5 {
			return TextPair{}, false
		}
		return TextPair{Query: strings.Join(words, " "), Doc: doc, Source: source, Group: path.Dir(rel), Lang: lang, Kind: "names"}, true
	}
	name := c.SymbolName
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		name = name[i+1:]
	}
	words := embed.Tokens(name)
	if len(words) < 2 {
		return TextPair{}, false
	}
	doc := embed.DocumentText(embed.Pending{ContextPrefix: blankWord(c.ContextPrefix, name), Text: blankWord(c.Text, name)})
	if len(embed.Tokens(doc)) < 5 {
		return TextPair{}, false
	}
	return TextPair{Query: strings.Join(words, " "), Doc: doc, Source: source, Group: path.Dir(rel), Lang: lang, Kind: kind}, true
}

// blankWord replaces each occurrence of the identifier w in s that is not
// part of a longer identifier with spaces.
func blankWord(s, w string) string {
	ident := func(b byte) bool {
		return b == '_' || b == '$' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	var b strings.Builder
	for {
		i := strings.Index(s, w)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(w)
		if (i > 0 && ident(s[i-1])) || (end < len(s) && ident(s[end])) {
			b.WriteString(s[:end])
		} else {
			b.WriteString(s[:i])
			b.WriteString(strings.Repeat(" ", len(w)))
		}
		s = s[end:]
	}
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
