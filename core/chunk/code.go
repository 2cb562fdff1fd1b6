package chunk

import (
	"embed"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"coderag/core"
)

//go:embed queries/*.scm
var queryFS embed.FS

// grammar is one tree-sitter grammar coderag parses with.
type grammar struct {
	language func() unsafe.Pointer
	queries  string // file under queries/
	// depth is the deepest node the tags query starts a match at.
	// Declarations live near the top of the tree; not starting matches
	// inside function bodies saves most of the query's walk. Go needs 3
	// (import_declaration > import_spec_list > import_spec); C# and Java
	// 8 (namespace > class > nested class > member).
	depth uint
}

// grammars maps coderag language names (core/discover) to grammars.
var grammars = map[string]grammar{
	"go":         {tsgo.Language, "go.scm", 3},
	"csharp":     {tscsharp.Language, "csharp.scm", 8},
	"python":     {tspython.Language, "python.scm", 6},
	"typescript": {tsts.LanguageTypescript, "typescript.scm", 6},
	"tsx":        {tsts.LanguageTSX, "typescript.scm", 6},
	"javascript": {tsjs.Language, "javascript.scm", 6},
	"java":       {tsjava.Language, "java.scm", 8},
}

// Languages lists the languages Coder parses.
func Languages() []string {
	out := make([]string, 0, len(grammars))
	for name := range grammars {
		out = append(out, name)
	}
	return out
}

// containerKinds are definition kinds whose body holds members that are
// chunked one by one when the whole does not fit the budget.
var containerKinds = map[string]bool{
	"class": true, "struct": true, "interface": true, "record": true, "enum": true, "namespace": true,
}

// commentKinds are the comment node types of the grammars.
var commentKinds = map[string]bool{"comment": true, "line_comment": true, "block_comment": true}

// CodeOptions configure a Coder. The zero value uses the defaults.
type CodeOptions struct {
	// Budget is the largest chunk in estimated tokens (core.EstimateTokens);
	// default 512. Larger declarations are split along their syntax tree.
	Budget int
	// Tiny declarations (at most this many tokens; default 64) are grouped
	// with their small neighbours up to the budget.
	Tiny int
	// MaxDepth bounds the recursion into the syntax tree (default 200);
	// deeper subtrees are cut into windows.
	MaxDepth int
	// Timeout bounds the parse of one file (default 10s); a file that takes
	// longer is cut into windows.
	Timeout time.Duration
	// MaxErrorShare: a file whose syntax errors cover more than this share
	// of its bytes (default 0.5) is cut into windows.
	MaxErrorShare float64
	// Window configures the fallback windows.
	Window WindowOptions
}

// lang is a grammar ready for use: its compiled query and a pool of
// parsers (a parser is not safe for concurrent use; a query is).
type lang struct {
	name     string
	depth    uint
	ts       *ts.Language
	query    *ts.Query
	captures []string
	parsers  sync.Pool
	errQuery *ts.Query
}

// Coder chunks source code along its syntax tree with tree-sitter. It is
// safe for concurrent use. Close it when done.
type Coder struct {
	opts  CodeOptions
	langs map[string]*lang
}

// NewCoder compiles the embedded queries of every supported language.
func NewCoder(opts CodeOptions) (*Coder, error) {
	if opts.Budget <= 0 {
		opts.Budget = 512
	}
	if opts.Tiny <= 0 {
		opts.Tiny = 64
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 200
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxErrorShare <= 0 {
		opts.MaxErrorShare = 0.5
	}
	c := &Coder{opts: opts, langs: map[string]*lang{}}
	for name, g := range grammars {
		src, err := queryFS.ReadFile("queries/" + g.queries)
		if err != nil {
			c.Close()
			return nil, err
		}
		tl := ts.NewLanguage(g.language())
		q, qerr := ts.NewQuery(tl, string(src))
		if qerr != nil {
			c.Close()
			return nil, fmt.Errorf("compile queries/%s for %s: %s", g.queries, name, qerr.Error())
		}
		eq, qerr := ts.NewQuery(tl, "(ERROR) @error")
		if qerr != nil {
			q.Close()
			c.Close()
			return nil, fmt.Errorf("compile error query for %s: %s", name, qerr.Error())
		}
		l := &lang{name: name, depth: g.depth, ts: tl, query: q, captures: q.CaptureNames(), errQuery: eq}
		timeout := uint64(opts.Timeout / time.Microsecond)
		l.parsers.New = func() any {
			p := ts.NewParser()
			p.SetLanguage(tl)
			p.SetTimeoutMicros(timeout)
			return p
		}
		c.langs[name] = l
	}
	return c, nil
}

// Close releases the compiled queries. Parsers still pooled are left to
// the garbage collector's finalizers of go-tree-sitter.
func (c *Coder) Close() {
	for _, l := range c.langs {
		l.query.Close()
		l.errQuery.Close()
	}
	c.langs = nil
}

// Supports reports whether Coder parses language.
func (c *Coder) Supports(language string) bool { return c.langs[language] != nil }

// CodeResult is what Coder.Chunk found in one file.
type CodeResult struct {
	Chunks []core.Chunk
	// Imports are the modules, packages and namespaces the file imports.
	Imports []string
	// ErrorBytes is how many bytes lie under syntax error nodes.
	ErrorBytes int
	// Fallback says why the file was cut into windows instead, if it was.
	Fallback string
}

// Chunk cuts src along its syntax tree. base supplies the fields all
// chunks share (SourceURI, Corpus, FilePath, RepoName, Language); its
// Language selects the grammar. Every chunk's Text equals
// src[ByteStart:ByteEnd], every non-blank line lies in a chunk, and the
// result depends only on src and base.
func (c *Coder) Chunk(src []byte, base core.Chunk) (CodeResult, error) {
	l := c.langs[base.Language]
	if l == nil {
		return CodeResult{}, fmt.Errorf("chunk %s: no grammar for language %q", base.FilePath, base.Language)
	}
	p := l.parsers.Get().(*ts.Parser)
	tree := p.Parse(src, nil)
	if tree == nil {
		// Timed out (or cancelled): the parser must be reset before reuse.
		p.Reset()
		l.parsers.Put(p)
		return c.fallback(src, base, fmt.Sprintf("parse took longer than %s", c.opts.Timeout)), nil
	}
	l.parsers.Put(p)
	defer tree.Close()

	root := tree.RootNode()
	errBytes := 0
	if root.HasError() {
		errBytes = l.errorBytes(root, src)
		if float64(errBytes) > c.opts.MaxErrorShare*float64(len(src)) {
			r := c.fallback(src, base, fmt.Sprintf("syntax errors cover %d%% of the file", 100*errBytes/max(1, len(src))))
			r.ErrorBytes = errBytes
			return r, nil
		}
	}
	tags := l.tags(root, src)
	b := &builder{c: c, l: l, src: src, base: base, tags: tags}
	defer func() {
		if b.cursor != nil {
			b.cursor.Close()
		}
	}()
	b.base.Imports = tags.imports
	b.scope(root, nil, true, 0)
	b.cover()
	return CodeResult{Chunks: b.chunks, Imports: tags.imports, ErrorBytes: errBytes}, nil
}

func (c *Coder) fallback(src []byte, base core.Chunk, why string) CodeResult {
	return CodeResult{Chunks: Window(string(src), base, c.opts.Window), Fallback: why}
}

// errorBytes sums the sizes of the outermost ERROR nodes.
func (l *lang) errorBytes(root *ts.Node, src []byte) int {
	qc := ts.NewQueryCursor()
	defer qc.Close()
	matches := qc.Matches(l.errQuery, root, src)
	total, end := 0, uint(0)
	for m := matches.Next(); m != nil; m = matches.Next() {
		for _, cp := range m.Captures {
			s, e := cp.Node.StartByte(), cp.Node.EndByte()
			if s >= end { // nested errors count once
				total += int(e - s)
				end = e
			}
		}
	}
	return total
}

// def is a definition found by the tags query.
type def struct {
	kind     string
	names    []string
	receiver string
	node     ts.Node
	pattern  uint // index of the query pattern that set kind
}

func (d *def) name() string { return strings.Join(d.names, ", ") }

// tagSet is what the tags query found in a file.
type tagSet struct {
	defs    map[nodeKey]*def
	header  map[nodeKey]bool
	pkg     string
	imports []string
}

type nodeKey struct {
	start, end uint
	kind       uint16
}

func keyOf(n *ts.Node) nodeKey { return nodeKey{n.StartByte(), n.EndByte(), n.KindId()} }

// tags runs the language's query over the tree. When several patterns
// match one node, the one written first in the .scm file decides its
// kind; names from all matches are collected (const blocks declare
// several).
func (l *lang) tags(root *ts.Node, src []byte) tagSet {
	t := tagSet{defs: map[nodeKey]*def{}, header: map[nodeKey]bool{}}
	qc := ts.NewQueryCursor()
	defer qc.Close()
	depth := l.depth
	qc.SetMaxStartDepth(&depth)
	seenImport := map[string]bool{}
	matches := qc.Matches(l.query, root, src)
	for m := matches.Next(); m != nil; m = matches.Next() {
		var d *def
		var name, receiver string
		for _, cp := range m.Captures {
			capName := l.captures[cp.Index]
			switch {
			case strings.HasPrefix(capName, "definition."):
				k := keyOf(&cp.Node)
				kind := strings.TrimPrefix(capName, "definition.")
				if d = t.defs[k]; d == nil {
					d = &def{kind: kind, node: cp.Node, pattern: m.PatternIndex}
					t.defs[k] = d
				} else if m.PatternIndex < d.pattern {
					// The earlier pattern in the .scm file decides the kind.
					d.kind, d.pattern = kind, m.PatternIndex
				}
			case capName == "name":
				name = cp.Node.Utf8Text(src)
			case capName == "receiver":
				receiver = cp.Node.Utf8Text(src)
			case capName == "header":
				t.header[keyOf(&cp.Node)] = true
			case capName == "package":
				if t.pkg == "" {
					t.pkg = cp.Node.Utf8Text(src)
				}
			case capName == "import":
				imp := strings.Trim(cp.Node.Utf8Text(src), "\"'`")
				if imp != "" && !seenImport[imp] {
					seenImport[imp] = true
					t.imports = append(t.imports, imp)
				}
			}
		}
		if d != nil && name != "" {
			dup := false
			for _, n := range d.names {
				dup = dup || n == name
			}
			if !dup {
				d.names = append(d.names, name)
			}
			if receiver != "" {
				d.receiver = receiver
			}
		}
	}
	return t
}
