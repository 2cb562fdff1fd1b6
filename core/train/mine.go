// Package train learns coderag's ranking from open-source code: it mines
// (doc comment, declaration) pairs with the tree-sitter chunker, writes a
// copy of the code without those comments, and fits the search
// parameters (core/search.Params) to rank each comment's file first when
// the comment, less the declaration's name, is the query. Nothing here
// reads an evaluation set: the pairs come from the code itself.
package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"coderag/core"
	"coderag/core/chunk"
	"coderag/core/discover"
	"coderag/core/internal/lazyre"
)

// Pair is a training query and the file that answers it.
type Pair struct {
	Query  string `json:"q"`
	File   string `json:"file"` // slash path under the mined root
	Symbol string `json:"symbol"`
	Lang   string `json:"lang"`
	// Group is the package (directory) the pair comes from: pairs are
	// split into training and held-out sets by group, so that a held-out
	// query never shares its package with a training one.
	Group string `json:"group"`
	// at is the byte offset in the file of what the query describes: the
	// declaration after a doc comment, the section after a heading.
	at int
}

// MineOptions configure Mine.
type MineOptions struct {
	// MaxFileSize skips larger files (default 256 KiB).
	MaxFileSize int64
	// MinWords is the fewest words a query keeps (default 5).
	MinWords int
	// MaxWords cuts longer comments at a sentence end (default 40).
	MaxWords int
	// Skip holds directory names not entered (default: testdata, vendor,
	// node_modules, test, tests, and directories starting with "." or "_").
	Skip []string
	// NamePairs adds, for MineText, a pair for every function, method or
	// type chunk without a doc comment: its name's words as the query,
	// the chunk without the name as the document.
	NamePairs bool
	// CrawlChunks makes MineText's documents the chunks a crawl makes,
	// the small pieces a crawl joins to a neighbour (an import line, a
	// bare class line) joined, as questions search them: for a held-out
	// report that sees what a question sees, not for training (models
	// trained on them lost on questions; docs/eval.md).
	CrawlChunks bool
}

// minedLangs are the languages mined: those with doc comment conventions
// the chunker parses.
var minedLangs = map[string]bool{"go": true, "python": true, "java": true, "javascript": true, "typescript": true, "csharp": true, "php": true, "rust": true}

// Mine walks root, chunks every source file of a mined language, takes the
// doc comment that opens each declaration's chunk (Python: the docstring
// that opens its body) as a query for the file — and each descriptive
// heading of a Markdown file over a section of some length (see
// mineMarkdown) — and writes under out a
// copy of the tree in which those comments are blanked (replaced by
// spaces, lines kept), so that a query's words are not found verbatim in
// an index of the copy. Other files are copied unchanged. Files that do
// not parse are copied and yield no pairs.
func Mine(ctx context.Context, root, out string, opts MineOptions) ([]Pair, error) {
	var pairs []Pair
	err := walkMined(ctx, root, opts, func(f minedFile) error {
		pairs = append(pairs, f.pairs...)
		dst := filepath.Join(out, filepath.FromSlash(f.rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("mine: %w", err)
		}
		if err := os.WriteFile(dst, f.blanked, 0o644); err != nil {
			return fmt.Errorf("mine: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].File < pairs[j].File })
	return pairs, nil
}

// minedFile is one file of a mined tree: its pairs and its text with their
// queries blanked.
type minedFile struct {
	rel, lang string
	pairs     []Pair
	blanked   []byte
	// code: the file is code of a mined language, not a test and not
	// generated (its doc comments were mined).
	code bool
}

// walkMined walks root (a directory, or a symbolic link to one) in
// lexical order and calls fn with every regular file no larger than
// opts.MaxFileSize outside the skipped directories, with the pairs mined
// from it.
func walkMined(ctx context.Context, root string, opts MineOptions, fn func(minedFile) error) error {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 256 << 10
	}
	if opts.MinWords <= 0 {
		opts.MinWords = 5
	}
	if opts.MaxWords <= 0 {
		opts.MaxWords = 40
	}
	skip := map[string]bool{"testdata": true, "vendor": true, "node_modules": true, "test": true, "tests": true}
	for _, s := range opts.Skip {
		skip[s] = true
	}
	// A root given as a symbolic link (a source folder linked into a
	// work folder) is walked as the folder it names: WalkDir does not
	// follow a link, and would mine nothing.
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("mine %s: %w", root, err)
	}
	if info, err := os.Stat(resolved); err != nil {
		return fmt.Errorf("mine %s: %w", root, err)
	} else if !info.IsDir() {
		return fmt.Errorf("mine %s: not a directory", root)
	}
	root = resolved
	ch, err := chunk.New(chunk.Options{})
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (skip[d.Name()] || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > opts.MaxFileSize {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("mine %s: %w", p, err)
		}
		lang, corpus := discover.Classify(rel)
		f := minedFile{rel: rel, lang: lang, blanked: src}
		switch {
		case generated(src):
			// Generated code repeats one comment template per type.
		case minedLangs[lang] && corpus == core.CodeLogic:
			f.code = !core.IsTestPath(rel)
			f.pairs, f.blanked = mineFile(ch, rel, lang, src, opts)
		case lang == "markdown":
			f.pairs, f.blanked = mineMarkdown(rel, src)
		}
		return fn(f)
	})
}

// generatedRE is Go's convention for generated files, which other code
// generators (protoc plugins, client generators) follow too.
var generatedRE = lazyre.New(`(?m)^(//|#) Code generated .* DO NOT EDIT\.?$`)

// generated reports whether src says, in its first 2 KiB, that a tool
// wrote it.
func generated(src []byte) bool {
	return generatedRE.Match(src[:min(len(src), 2048)])
}

// mineFile returns the pairs of one file and its text with their comments
// blanked. The file must parse (the chunker cuts it along its syntax
// tree, not into windows); then every doc comment of a declaration is
// mined, also of declarations the chunker groups into one chunk.
func mineFile(ch *chunk.Chunker, rel, lang string, src []byte, opts MineOptions) ([]Pair, []byte) {
	res, err := ch.Code(src, core.Chunk{SourceURI: rel, FilePath: rel, Language: lang, Corpus: core.CodeLogic})
	if err != nil || res.Fallback != "" {
		return nil, src
	}
	var pairs []Pair
	out := append([]byte(nil), src...)
	for _, d := range docComments(lang, string(src)) {
		q := query(d.text, d.symbol, opts)
		if q == "" {
			continue
		}
		pairs = append(pairs, Pair{Query: q, File: rel, Symbol: d.symbol, Lang: lang, Group: path.Dir(rel), at: d.end})
		for i := d.start; i < d.end && i < len(out); i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	return pairs, out
}

// doc is a doc comment: where it lies, its words, and the name of the
// declaration it documents.
type doc struct {
	start, end int
	text       string
	symbol     string
}

var (
	pyDefRE    = lazyre.New(`(?m)^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_][A-Za-z0-9_]*)[^\n]*:[ \t]*(?:#[^\n]*)?\n`)
	pyDocRE    = lazyre.New(`^[ \t]*[rRuU]?("""|''')`)
	declRE     = lazyre.New(`^\s*(?:@\w+(?:\([^)]*\))?\s*)*(?:(?:export|default|public|private|protected|internal|static|async|abstract|final|sealed|override|virtual|readonly|partial|declare|function|func|type|class|interface|struct|enum|record|const|let|var|package|namespace|def|trait|module)\b|[A-Za-z_$][\w$<>\[\],. ?]*\s+[A-Za-z_$][\w$]*\s*\()`)
	rustDeclRE = lazyre.New(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern(?:\s+"[^"]*")?)\s+)*(?:fn|struct|enum|union|trait|impl|mod|type|const|static|macro_rules!)\b`)
	symbolRE   = lazyre.New(`(?:func\s+(?:\([^)]*\)\s*)?|(?:type|class|interface|struct|enum|record|trait|namespace|package|function|const|let|var|def|fn|mod|impl|static)\s+)([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*[(<=]`)
	modifierW  = map[string]bool{"public": true, "private": true, "protected": true, "static": true, "async": true, "export": true, "default": true, "final": true,
		"abstract": true, "override": true, "virtual": true, "readonly": true, "internal": true, "sealed": true, "partial": true, "new": true, "void": true, "Task": true,
		"pub": true, "crate": true, "unsafe": true, "extern": true}
	docTagRE     = lazyre.New(`(?m)^\s*[@\\](param|return|returns|throws|exception|see|since|author|version|deprecated|example|type|typedef|template|property|link|inheritdoc|override|internal|private|public|remarks)\b.*$`)
	xmlTagRE     = lazyre.New(`<[^>]{1,80}>`)
	directiveRE  = lazyre.New(`(?i)^(copyright|licensed|license|spdx|todo|fixme|xxx|deprecated|nolint|go:|eslint|@ts-|type:|pylint|noqa|code generated|autogenerated|auto-generated|this file|generated by)`)
	sentenceEnds = lazyre.New(`[.!?](\s|$)`)
)

// docComments finds the doc comments of a file: a run of comment lines
// (//, ///, /* */, /** */; # in PHP) directly above a declaration (Rust
// attributes may stand between them), or, in
// Python, the docstring that opens a def's or a class's body.
func docComments(lang, text string) []doc {
	if lang == "python" {
		var out []doc
		for _, m := range pyDefRE.FindAllStringSubmatchIndex(text, -1) {
			body := text[m[1]:]
			q := pyDocRE.FindStringSubmatchIndex(body)
			if q == nil {
				continue
			}
			quote := body[q[2]:q[3]]
			closeAt := strings.Index(body[q[3]:], quote)
			if closeAt < 0 {
				continue
			}
			out = append(out, doc{start: m[1] + q[0], end: m[1] + q[3] + closeAt + len(quote),
				text: body[q[3] : q[3]+closeAt], symbol: text[m[2]:m[3]]})
		}
		return out
	}
	var out []doc
	var lines []string
	start, inBlock := -1, false
	for i := 0; i < len(text); {
		nl := strings.IndexByte(text[i:], '\n')
		end := len(text)
		if nl >= 0 {
			end = i + nl + 1
		}
		l := strings.TrimSpace(text[i:end])
		isComment := true
		switch {
		case inBlock:
			if k := strings.Index(l, "*/"); k >= 0 {
				l, inBlock = l[:k], false
			}
			lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "*"))
		case strings.HasPrefix(l, "/*"):
			l = strings.TrimLeft(l, "/*")
			if k := strings.Index(l, "*/"); k >= 0 {
				l = l[:k]
			} else {
				inBlock = true
			}
			lines = append(lines, l)
		case strings.HasPrefix(l, "//"):
			lines = append(lines, strings.TrimLeft(l, "/"))
		case lang == "php" && strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "#["):
			lines = append(lines, strings.TrimLeft(l, "#"))
		case lang == "rust" && start >= 0 && strings.HasPrefix(l, "#["):
			// An attribute between a doc comment and its item.
		default:
			isComment = false
		}
		if isComment {
			if start < 0 {
				start = i
			}
		} else {
			isDecl := declRE.MatchString(l)
			if lang == "rust" {
				isDecl = rustDeclRE.MatchString(l)
			}
			if start >= 0 && l != "" && isDecl {
				out = append(out, doc{start: start, end: i, text: strings.Join(lines, "\n"), symbol: symbolOf(l)})
			}
			start, lines = -1, nil
		}
		i = end
	}
	return out
}

// symbolOf returns the name a declaration line declares.
func symbolOf(line string) string {
	for _, m := range symbolRE.FindAllStringSubmatch(line, -1) {
		name := m[1]
		if name == "" {
			name = m[2]
		}
		if name != "" && !modifierW[name] {
			return name
		}
	}
	return ""
}

// query turns a doc comment into a training query: its first paragraph
// without tags, markup and directives, cut at a sentence end within
// MaxWords, with the declaration's own name taken out (Go comments start
// with it; a query that names the symbol is too easy). "" when too little
// is left.
func query(doc, symbol string, opts MineOptions) string {
	doc = docTagRE.ReplaceAllString(doc, "")
	doc = xmlTagRE.ReplaceAllString(doc, " ")
	// The first paragraph.
	var para []string
	for _, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, l)
	}
	text := strings.Join(para, " ")
	if directiveRE.MatchString(text) || strings.Contains(text, "http://") || strings.Contains(text, "https://") || !prose(text) {
		return ""
	}
	words := strings.Fields(text)
	if len(words) > opts.MaxWords {
		cut := strings.Join(words[:opts.MaxWords], " ")
		if locs := sentenceEnds.FindAllStringIndex(cut, -1); len(locs) > 0 {
			cut = cut[:locs[len(locs)-1][0]+1]
		}
		words = strings.Fields(cut)
	}
	lsym := strings.ToLower(symbol)
	var kept []string
	letters := 0
	for _, w := range words {
		bare := strings.ToLower(strings.Trim(w, ".,;:!?()'\"`*[]{}"))
		if bare == lsym || bare == "" {
			continue
		}
		if strings.IndexFunc(bare, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0 {
			letters++
		}
		kept = append(kept, w)
	}
	if letters < opts.MinWords {
		return ""
	}
	return strings.Join(kept, " ")
}

// prose reports whether text reads as sentences: most of its characters
// are letters and spaces (not a grammar, a table or an example).
func prose(text string) bool {
	n, letters := 0, 0
	for _, r := range text {
		n++
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == ' ' {
			letters++
		}
	}
	return n > 0 && float64(letters) >= 0.85*float64(n)
}

var (
	mdHeadingRE = lazyre.New(`^(#{2,4})[ \t]+(.+?)[ \t#]*$`)
	mdFenceRE   = lazyre.New("^[ \t]*(```|~~~)")
	mdLinkRE    = lazyre.New(`\[([^\]]*)\]\([^)]*\)`)
	// genericHeadings say nothing about what their section holds.
	genericHeadings = lazyre.New(`(?i)^(see also|synopsis|description|examples?|usage|options|configuration|installation|overview|introduction|notes?|license|contributing|changelog|table of contents|contents|summary|faq|getting started|requirements|references|related|example usage|api|arguments|parameters|returns|background)$`)
)

// mineMarkdown returns the (heading, section) pairs of a Markdown file and
// its text with those headings blanked: a heading of level 2 to 4 (not in
// a code fence) whose text, less markup, has three or more words and is
// not a generic title (Usage, See also), over a section of 40 words or
// more before the next heading.
func mineMarkdown(rel string, src []byte) ([]Pair, []byte) {
	type heading struct {
		start, end int
		text       string
	}
	var hs []heading
	var bodyWords []int
	inFence := false
	for i := 0; i < len(src); {
		nl := bytes.IndexByte(src[i:], '\n')
		end := len(src)
		if nl >= 0 {
			end = i + nl + 1
		}
		line := strings.TrimRight(string(src[i:end]), "\r\n")
		switch {
		case mdFenceRE.MatchString(line):
			inFence = !inFence
		case !inFence && mdHeadingRE.MatchString(line):
			hs = append(hs, heading{start: i, end: i + len(line), text: mdHeadingRE.FindStringSubmatch(line)[2]})
			bodyWords = append(bodyWords, 0)
			i = end
			continue
		}
		if len(hs) > 0 {
			bodyWords[len(hs)-1] += len(strings.Fields(line))
		}
		i = end
	}
	out := append([]byte(nil), src...)
	var pairs []Pair
	for k, h := range hs {
		q := mdLinkRE.ReplaceAllString(h.text, "$1")
		q = strings.NewReplacer("`", "", "*", "", "_", " ").Replace(q)
		q = strings.Join(strings.Fields(q), " ")
		words := 0
		for _, w := range strings.Fields(q) {
			if strings.IndexFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0 {
				words++
			}
		}
		if words < 3 || bodyWords[k] < 40 || genericHeadings.MatchString(q) || !prose(q) {
			continue
		}
		pairs = append(pairs, Pair{Query: q, File: rel, Symbol: q, Lang: "markdown", Group: path.Dir(rel), at: h.end})
		for j := h.start; j < h.end; j++ {
			out[j] = ' '
		}
	}
	return pairs, out
}

// ErrNoPairs is returned when the sources hold no doc comments to learn
// from.
var ErrNoPairs = errors.New("no doc comments found to learn from")
