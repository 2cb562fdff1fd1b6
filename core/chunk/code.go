package chunk

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	tskotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	ts "github.com/tree-sitter/go-tree-sitter"
	tscsharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"coderag/core"
	"coderag/core/internal/lazyre"
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

// factsFiles lists the facts queries of each grammar, concatenated.
var factsFiles = map[string][]string{
	"go":         {"go.facts.scm"},
	"csharp":     {"csharp.facts.scm"},
	"python":     {"python.facts.scm"},
	"typescript": {"typescript.facts.scm", "javascript.facts.scm"},
	"tsx":        {"typescript.facts.scm", "javascript.facts.scm"},
	"javascript": {"javascript.facts.scm"},
	"java":       {"java.facts.scm"},
	"kotlin":     {"kotlin.facts.scm"},
	"php":        {"php.facts.scm"},
	"rust":       {"rust.facts.scm"},
	"ruby":       {"ruby.facts.scm"},
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
	"kotlin":     {tskotlin.Language, "kotlin.scm", 8},
	"php":        {tsphp.LanguagePHP, "php.scm", 8},
	"rust":       {tsrust.Language, "rust.scm", 6},
	"ruby":       {tsruby.Language, "ruby.scm", 14}, // module > module > class > def, each through a body_statement
}

// Languages lists the languages Chunker parses.
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
	"impl": true, "trait": true, "module": true, // Rust
}

// commentKinds are the comment node types of the grammars, and the nodes
// that, like a doc comment, belong to the declaration below them: Rust's
// attributes (#[derive(Debug)], #[cfg(test)]) are siblings of their item.
var commentKinds = map[string]bool{"comment": true, "line_comment": true, "block_comment": true, "attribute_item": true}

// Options configure a Chunker. The zero value uses the defaults.
type Options struct {
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
	// KeepSmall leaves pieces too small to answer a search alone as
	// chunks of their own where a crawl joins them to a neighbour: a
	// nameless crumb or a one-import file header (joinCrumbs), a package
	// line of 9 to 24 tokens (bareHeader), a container's bare signature
	// (bareSignature). The model's miner sets it, so that a doc comment
	// is paired with its own declaration and not with the import or the
	// class line beside it.
	KeepSmall bool
}

// lang is a grammar ready for use: its compiled query and a pool of
// parsers (a parser is not safe for concurrent use; a query is).
type lang struct {
	name     string
	depth    uint
	ts       *ts.Language
	query    *ts.Query
	captures []string
	// parsers is a free list, not a sync.Pool: a pool may drop a parser
	// at any GC, and a dropped parser's C memory would never be freed.
	parsers  chan *ts.Parser
	errQuery *ts.Query
	// factsQuery finds calls, routes and references (queries/*.facts.scm).
	factsQuery    *ts.Query
	factsCaptures []string
	props         []map[string]string // #set! properties per pattern
}

// Chunker chunks source code along its syntax tree with tree-sitter. It is
// safe for concurrent use. The compiled queries and parsers of each
// language are shared by all Chunkers of the process and made on first use.
type Chunker struct {
	opts Options
}

// New returns a Chunker. It is cheap: languages are prepared when a
// file of theirs is first chunked.
func New(opts Options) (*Chunker, error) {
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
	return &Chunker{opts: opts}, nil
}

// Close is a no-op kept for symmetry: the compiled queries live as long as
// the process.
func (c *Chunker) Close() {}

var (
	langsMu sync.Mutex
	langs   = map[string]*lazyLang{}
)

// lazyLang compiles a language once.
type lazyLang struct {
	once sync.Once
	l    *lang
	err  error
}

// Prepare compiles the queries of a language (a core/discover language
// name) now, so that the first file of it does not wait for them; other
// languages are ignored. It is safe to call from several goroutines and
// compiles each language once per process.
func Prepare(name string) {
	language(name)
}

// language returns the prepared language, compiling its queries on first
// use; parse timeouts are per parser, so they are set at each use.
func language(name string) (*lang, error) {
	g, ok := grammars[name]
	if !ok {
		return nil, nil
	}
	langsMu.Lock()
	ll := langs[name]
	if ll == nil {
		ll = &lazyLang{}
		langs[name] = ll
	}
	langsMu.Unlock()
	ll.once.Do(func() { ll.l, ll.err = compile(name, g) })
	return ll.l, ll.err
}

func compile(name string, g grammar) (*lang, error) {
	src, err := queryFS.ReadFile("queries/" + g.queries)
	if err != nil {
		return nil, err
	}
	tl := ts.NewLanguage(g.language())
	q, qerr := ts.NewQuery(tl, string(src))
	if qerr != nil {
		return nil, fmt.Errorf("compile queries/%s for %s: %s", g.queries, name, qerr.Error())
	}
	eq, qerr := ts.NewQuery(tl, "(ERROR) @error")
	if qerr != nil {
		return nil, fmt.Errorf("compile error query for %s: %s", name, qerr.Error())
	}
	l := &lang{name: name, depth: g.depth, ts: tl, query: q, captures: q.CaptureNames(), errQuery: eq}
	var facts strings.Builder
	for _, f := range factsFiles[name] {
		b, err := queryFS.ReadFile("queries/" + f)
		if err != nil {
			return nil, err
		}
		facts.Write(b)
		facts.WriteByte('\n')
	}
	if facts.Len() > 0 {
		fq, qerr := ts.NewQuery(tl, facts.String())
		if qerr != nil {
			return nil, fmt.Errorf("compile facts queries %v for %s: %s", factsFiles[name], name, qerr.Error())
		}
		l.factsQuery, l.factsCaptures = fq, fq.CaptureNames()
		for i := uint(0); i < fq.PatternCount(); i++ {
			props := map[string]string{}
			for _, p := range fq.PropertySettings(i) {
				if p.Value != nil {
					props[p.Key] = *p.Value
				}
			}
			l.props = append(l.props, props)
		}
	}
	l.parsers = make(chan *ts.Parser, 2*runtime.GOMAXPROCS(0))
	return l, nil
}

// js reports whether the language is JavaScript or TypeScript (with TSX).
func (l *lang) js() bool {
	return l.name == "javascript" || l.name == "typescript" || l.name == "tsx"
}

// parser takes a parser from the free list or makes one.
func (l *lang) parser() *ts.Parser {
	select {
	case p := <-l.parsers:
		return p
	default:
		p := ts.NewParser()
		p.SetLanguage(l.ts)
		return p
	}
}

// release returns a parser to the free list, or closes it when the list
// is full.
func (l *lang) release(p *ts.Parser) {
	select {
	case l.parsers <- p:
	default:
		p.Close()
	}
}

// Supports reports whether Chunker parses language.
func (c *Chunker) Supports(language string) bool {
	_, ok := grammars[language]
	return ok
}

// Result is what Chunker.Chunk found in one file.
type Result struct {
	Chunks []core.Chunk
	// Imports are the modules, packages and namespaces the file imports.
	Imports []string
	// ErrorBytes is how many bytes lie under syntax error nodes.
	ErrorBytes int
	// Fallback says why the file was cut into windows instead, if it was.
	Fallback string
	// Mounts put routers of this or other files under a path prefix.
	Mounts []core.Mount
	// Warning says why the file was indexed in a weaker way than its type
	// asks for (YAML that does not parse is indexed as text).
	Warning string
}

// Chunk cuts src along its syntax tree. base supplies the fields all
// chunks share (SourceURI, Corpus, FilePath, RepoName, Language); its
// Language selects the grammar. Every chunk's Text equals
// src[ByteStart:ByteEnd], every non-blank line lies in a chunk, and the
// result depends only on src and base.
func (c *Chunker) Code(src []byte, base core.Chunk) (Result, error) {
	l, err := language(base.Language)
	if err != nil {
		return Result{}, fmt.Errorf("chunk %s: %w", base.FilePath, err)
	}
	if l == nil {
		return Result{}, fmt.Errorf("chunk %s: no grammar for language %q", base.FilePath, base.Language)
	}
	tree, errBytes := c.parse(l, src)
	if tree == nil {
		return c.fallback(src, base, fmt.Sprintf("parse took longer than %s", c.opts.Timeout)), nil
	}
	if errBytes > 0 && l.name == "javascript" {
		// JavaScript with Flow's type annotations (React and the code
		// of teams that use Flow) is no JavaScript to its grammar, and
		// TypeScript to the TSX grammar in all but a few forms: the tree
		// with fewer errors is chunked (the chunks stay javascript).
		if tl, _ := language("tsx"); tl != nil {
			if t2, e2 := c.parse(tl, src); t2 != nil && e2 < errBytes {
				tree.Close()
				tree, errBytes, l = t2, e2, tl
			} else if t2 != nil {
				t2.Close()
			}
		}
	}
	defer tree.Close()

	root := tree.RootNode()
	if float64(errBytes) > c.opts.MaxErrorShare*float64(len(src)) {
		r := c.fallback(src, base, fmt.Sprintf("syntax errors cover %d%% of the file", 100*errBytes/max(1, len(src))))
		r.ErrorBytes = errBytes
		return r, nil
	}
	tags := l.tags(root, src)
	facts := l.facts(root, src, tags.imports)
	if l.name == "go" && goBuildTool(src, path.Base(base.FilePath)) {
		// What a generator calls at go generate time is no service's
		// dependency: its references stay, its calls, routes and
		// environment reads go.
		kept := facts.facts[:0]
		for _, f := range facts.facts {
			if f.ref != nil {
				kept = append(kept, fact{at: f.at, key: f.key, ref: f.ref})
			}
		}
		facts.facts = kept
	}
	if l.js() {
		if fr := fileRoutes(base.FilePath, src); len(fr) > 0 {
			facts.facts = append(facts.facts, fr...)
			sort.SliceStable(facts.facts, func(i, j int) bool { return facts.facts[i].at < facts.facts[j].at })
		}
	}
	b := &builder{c: c, l: l, src: src, base: base, tags: tags, facts: facts.facts}
	defer func() {
		if b.cursor != nil {
			b.cursor.Close()
		}
	}()
	b.base.Imports = tags.imports
	b.scope(root, nil, true, 0)
	b.cover()
	r := Result{Chunks: b.chunks, Imports: tags.imports, ErrorBytes: errBytes, Mounts: facts.mounts}
	if base.Language == "csharp" {
		for _, res := range aspireResources(src) {
			attach(&r, res)
		}
	}
	return r, nil
}

// parse parses src with l's grammar and returns the tree and how many of
// its bytes lie under syntax errors; the tree is nil when the parse took
// longer than the chunker's timeout. The caller closes the tree.
func (c *Chunker) parse(l *lang, src []byte) (*ts.Tree, int) {
	p := l.parser()
	p.SetTimeoutMicros(uint64(c.opts.Timeout / time.Microsecond))
	// Waited for half as long again as the timeout: tree-sitter looks at
	// its clock only between parse actions, and some actions take time
	// (and memory) that grows with the square of the input, such as
	// wrapping a whole file of syntax errors into one at its end (48 KB
	// of Java "x =>" lines ran 87 s past a 10 s timeout).
	tree, done := waitBounded(c.opts.Timeout*3/2, func() *ts.Tree { return p.Parse(src, nil) }, p.Close)
	if !done {
		return nil, 0
	}
	if tree == nil {
		// Timed out (or cancelled). The parser is closed, not reset and
		// reused: tree-sitter 0.25's reset leaves a parse cancelled while
		// balancing its tree marked as such, and the next parse aborts
		// the process on an assertion (finished_tree).
		p.Close()
		return nil, 0
	}
	l.release(p)
	errBytes := 0
	if root := tree.RootNode(); root.HasError() {
		errBytes = l.errorBytes(root, src)
	}
	return tree, errBytes
}

// abandonedParses counts the parses waitBounded stopped waiting for that
// are still running.
var abandonedParses atomic.Int32

// maxAbandonedParses bounds them: each holds a core until tree-sitter
// returns. Past it a parse is waited for however long it takes.
var maxAbandonedParses = int32(max(1, runtime.NumCPU()/2))

// waitBounded runs parse and waits for it at most wait; done is false when
// it stopped waiting. A parse not waited for runs on in its own goroutine,
// which closes its tree and calls closeParser when it returns. Past
// maxAbandonedParses of them still running, parse is waited for however
// long it takes.
func waitBounded(wait time.Duration, parse func() *ts.Tree, closeParser func()) (tree *ts.Tree, done bool) {
	if abandonedParses.Load() >= maxAbandonedParses {
		return parse(), true
	}
	result := make(chan *ts.Tree, 1)
	go func() { result <- parse() }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case tree := <-result:
		return tree, true
	case <-timer.C:
	}
	abandonedParses.Add(1)
	go func() {
		if tree := <-result; tree != nil {
			tree.Close()
		}
		closeParser()
		abandonedParses.Add(-1)
	}()
	return nil, false
}

// rustTestAttr is an attribute that makes the item after it test code:
// #[cfg(test)] (or cfg(all(test, ...))) on a module, #[test] or a
// framework's test macro (#[tokio::test], #[rstest]) on a function.
var rustTestAttr = lazyre.New(`^#\[\s*(?:cfg\s*\(\s*(?:all\s*\(\s*)?test\b|(?:[\w:]+::)?test\b|rstest\b)`)

func (c *Chunker) fallback(src []byte, base core.Chunk, why string) Result {
	return Result{Chunks: Window(string(src), base, c.opts.Window), Fallback: why}
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

var (
	// goIgnoreRE is the build constraint that leaves a file out of every
	// build: the idiom of programs run by go run or go generate.
	goIgnoreRE = lazyre.New(`(?m)^//(?:go:build|\s*\+build)\s+ignore\s*$`)
	// goGenerateRunRE is a go:generate directive that runs a file or its
	// package with go run.
	goGenerateRunRE = lazyre.New(`(?m)^//go:generate\s+go\s+run\s+(\S+)`)
	goPackageMainRE = lazyre.New(`(?m)^package\s+main\b`)
)

// goBuildTool reports whether a Go file (named name) is a program run at
// build time rather than part of a service: one with the ignore build
// constraint (gen.go, generate-emoji.go), or a main package whose own
// go:generate directive runs it (//go:generate go run main.go).
func goBuildTool(src []byte, name string) bool {
	// Build constraints stand before the package clause.
	head := src
	if i := bytes.Index(src, []byte("\npackage ")); i >= 0 {
		head = src[:i+1]
	}
	if goIgnoreRE.Match(head) {
		return true
	}
	if !goPackageMainRE.Match(src) {
		return false
	}
	for _, m := range goGenerateRunRE.FindAllSubmatch(src, -1) {
		if t := string(m[1]); t == name || t == "." || t == "./"+name {
			return true
		}
	}
	return false
}
