package chunk

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// This file is the cAST chunker (seed 000 §4.1, seed 004): top-level and
// class-level declarations become chunks when they fit the budget; a
// larger container is cut into its signature and its members; a larger
// declaration is cut along its children, small siblings merged greedily;
// small neighbours are grouped up to the budget; the file header
// (package, imports, leading doc comment) is a chunk of its own.
//
// The builder works on byte ranges and only materializes chunks at the
// end, after a coverage pass has made sure every non-blank byte of the
// file lies in a chunk.

// meta is what a chunk says about its content.
type meta struct {
	symbol, kind, signature string
	scope                   []string // container names, outermost first
	extra                   []string // names of small neighbours grouped in
	section                 []string // document headings, outermost first ("## Rollback")
	test                    bool     // test code in a file of other code (Rust's #[cfg(test)]): Meta "test"
}

// piece is a chunk in the making.
type piece struct {
	start, end uint
	meta       meta
}

type builder struct {
	c      *Chunker
	l      *lang
	src    []byte
	base   core.Chunk
	tags   tagSet
	pieces []piece
	chunks []core.Chunk
	cursor *ts.TreeCursor
	facts  []fact // sorted by offset; assigned to chunks in cover
}

// item is a child of a scope with its attached leading comments.
type item struct {
	start, end uint
	node       ts.Node
	def        *def
	header     bool
	comment    bool // a standalone run of comments
	test       bool // under a test attribute (Rust's #[cfg(test)], #[test])
}

func (b *builder) tokens(start, end uint) int { return core.EstimateTokens(string(b.src[start:end])) }

// children returns all children of n.
func (b *builder) children(n *ts.Node) []ts.Node {
	if b.cursor == nil {
		b.cursor = n.Walk()
	}
	return n.Children(b.cursor)
}

// items groups the children of parent into items: named nodes with the
// comments directly above them; anonymous tokens ({ } ; ,) join the item
// before them.
func (b *builder) items(parent *ts.Node, root bool) []item {
	var out []item
	var pending []ts.Node // comments (and leading tokens) not yet attached
	flushComments := func() {
		if len(pending) > 0 {
			out = append(out, item{start: pending[0].StartByte(), end: pending[len(pending)-1].EndByte(), node: pending[0], comment: true})
			pending = nil
		}
	}
	for _, c := range b.children(parent) {
		switch {
		case commentKinds[c.Kind()]:
			if len(pending) > 0 && !b.adjacent(pending[len(pending)-1].EndByte(), c.StartByte()) {
				flushComments()
			}
			pending = append(pending, c)
		case !c.IsNamed():
			switch {
			case len(out) > 0 && len(pending) == 0:
				out[len(out)-1].end = max(out[len(out)-1].end, c.EndByte())
			case len(out) == 0 && len(pending) == 0:
				// A body's opening brace is an item of its own, which
				// the container's signature takes ("impl Certificate {"),
				// not the start of the first member's chunk.
				out = append(out, item{start: c.StartByte(), end: c.EndByte(), node: c})
			default:
				pending = append(pending, c)
			}
		default:
			it := item{start: c.StartByte(), end: c.EndByte(), node: c, def: b.defOf(&c)}
			if root {
				it.header = b.tags.header[keyOf(&c)]
			}
			if len(pending) > 0 {
				if b.adjacent(pending[len(pending)-1].EndByte(), c.StartByte()) {
					it.start = pending[0].StartByte()
					for _, p := range pending {
						it.test = it.test || p.Kind() == "attribute_item" && rustTestAttr.Match(b.src[p.StartByte():p.EndByte()])
					}
					pending = nil
				} else {
					flushComments()
				}
			}
			out = append(out, it)
		}
	}
	flushComments()
	return out
}

// adjacent reports whether only white space with at most one line break
// lies between a and b (a comment directly above a declaration).
func (b *builder) adjacent(a, c uint) bool {
	if c < a {
		return true
	}
	nl := 0
	for _, ch := range b.src[a:c] {
		switch ch {
		case '\n':
			nl++
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return nl <= 1
}

// defOf returns the definition n is, or wraps (export statements,
// decorated definitions, C# global statements).
func (b *builder) defOf(n *ts.Node) *def {
	if d := b.tags.defs[keyOf(n)]; d != nil {
		return d
	}
	var found *def
	for i := uint(0); i < n.NamedChildCount(); i++ {
		c := n.NamedChild(i)
		if d := b.tags.defs[keyOf(c)]; d != nil {
			if found != nil {
				return nil // several definitions: not a wrapper
			}
			found = d
		}
	}
	return found
}

// meta describes a definition at a scope.
func (b *builder) meta(d *def, scope []string, inContainer bool) meta {
	if d == nil {
		return meta{scope: scope}
	}
	kind := d.kind
	if inContainer && kind == "function" {
		kind = "method"
	}
	if d.receiver != "" {
		scope = append(append([]string(nil), scope...), d.receiver)
	}
	return meta{symbol: d.name(), kind: kind, signature: b.signature(d), scope: scope}
}

// signature is the declaration without its body, on one line.
func (b *builder) signature(d *def) string {
	n := &d.node
	start, end := n.StartByte(), n.EndByte()
	body := n.ChildByFieldName("body")
	for i := uint(0); body == nil && i < n.NamedChildCount(); i++ {
		switch c := n.NamedChild(i); c.Kind() {
		case "class_body", "enum_class_body", "function_body": // Kotlin's have no field name
			body = c
		}
	}
	if body != nil && body.StartByte() > start && body.Kind() != "body_statement" {
		end = body.StartByte()
	} else { // Ruby's body starts after the comments below the def line
		text := b.src[start:end]
		if i := strings.IndexByte(string(text), '\n'); i >= 0 {
			text = text[:i]
		}
		if i := strings.IndexByte(string(text), '{'); i > 0 {
			text = text[:i]
		}
		end = start + uint(len(text))
	}
	sig := strings.Join(strings.Fields(string(b.src[start:end])), " ")
	sig = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(sig, "{"), ":"))
	if len(sig) > 240 {
		cut := 240
		for cut > 0 && sig[cut]&0xC0 == 0x80 {
			cut--
		}
		sig = sig[:cut] + "…"
	}
	return sig
}

func (b *builder) emit(start, end uint, m meta) {
	if end > start {
		b.pieces = append(b.pieces, piece{start, end, m})
	}
}

// group accumulates small neighbouring items into one chunk.
type group struct {
	start, end uint
	tokens     int
	defs       []*def
	items      int
	test       bool // its items are test code (groups never mix test and other code)
}

func (g *group) add(it item, tokens int) {
	if g.items == 0 {
		g.start, g.test = it.start, it.test
	}
	g.end = it.end
	g.tokens += tokens
	g.items++
	if it.def != nil {
		g.defs = append(g.defs, it.def)
	}
}

func (b *builder) flush(g *group, scope []string, inContainer bool) {
	if g.items == 0 {
		return
	}
	m := meta{scope: scope}
	switch len(g.defs) {
	case 0:
	case 1:
		m = b.meta(g.defs[0], scope, inContainer)
	default:
		// Each name once: a Rust type and its impl blocks (impl Display
		// for E, impl From<X> for E) are one name. Go's blank identifier
		// (var _ Iface = (*impl)(nil)) names nothing.
		var names []string
		kind := g.defs[0].kind
		for _, d := range g.defs {
			if n := d.name(); n != "_" && !slices.Contains(names, n) {
				names = append(names, n)
			}
			if d.kind != kind {
				kind = "group"
			}
		}
		if inContainer && kind == "function" {
			kind = "method"
		}
		m = meta{symbol: strings.Join(names, ", "), kind: kind, scope: scope}
	}
	m.test = g.test
	b.emit(g.start, g.end, m)
	*g = group{}
}

// scope chunks the children of parent.
func (b *builder) scope(parent *ts.Node, scope []string, root bool, depth int) {
	b.scopeItems(b.items(parent, root), scope, root, !root && len(scope) > 0, depth)
}

func (b *builder) scopeItems(items []item, scope []string, root, inContainer bool, depth int) {
	budget, tiny := b.c.opts.Budget, b.c.opts.Tiny
	var g, header group
	inHeader, headerComment := root, false
	for _, it := range items {
		tokens := b.tokens(it.start, it.end)
		if inHeader && (it.header || it.comment) {
			if header.items > 0 && header.tokens+tokens > budget {
				b.flushHeader(&header)
			}
			if tokens > budget {
				b.flushHeader(&header)
				b.split(&it.node, it.start, it.end, meta{kind: "header", symbol: b.tags.pkg}, depth)
				continue
			}
			header.add(it, tokens)
			headerComment = headerComment || it.comment
			continue
		}
		if inHeader {
			inHeader = false
			if header.items == 1 && !headerComment && header.tokens <= b.bareHeaderTokens() &&
				!bytes.Contains(bytes.TrimSpace(b.src[header.start:header.end]), []byte("\n")) {
				// A bare package or namespace line says nothing a
				// chunk of its own could answer: cover joins it to
				// the first chunk after it.
				header = group{}
			}
			b.flushHeader(&header)
		}
		if g.items > 0 && g.test != it.test {
			b.flush(&g, scope, inContainer)
		}
		switch {
		case it.def != nil && containerKinds[it.def.kind] && tokens > budget:
			b.flush(&g, scope, inContainer)
			b.container(it, scope, depth)
		case tokens > budget:
			b.flush(&g, scope, inContainer)
			m := b.meta(it.def, scope, inContainer)
			m.test = it.test
			b.split(&it.node, it.start, it.end, m, depth)
		case it.def != nil && tokens > tiny:
			m := b.meta(it.def, scope, inContainer)
			m.test = it.test
			start := it.start
			if g.items > 0 && g.tokens <= tiny && g.tokens+tokens <= budget {
				// A tiny group joins the declaration after it.
				start = g.start
				for _, d := range g.defs {
					m.extra = append(m.extra, d.name())
				}
				g = group{}
			}
			b.flush(&g, scope, inContainer)
			b.emit(start, it.end, m)
		default:
			if g.items > 0 && g.tokens+tokens > budget {
				b.flush(&g, scope, inContainer)
			}
			g.add(it, tokens)
		}
	}
	b.flushHeader(&header)
	b.flush(&g, scope, inContainer)
}

// bareHeader is the most tokens of a file header that is one package or
// namespace line and nothing else (no imports, no comment): Java's
// reverse-domain names run long (package org.example.ledger.settlement.batch;).
const bareHeader = 24

// keptHeader is bareHeader under Options.KeepSmall: a package line of up
// to 8 tokens (package http, package com.example;) still joins the first
// declaration, as it did before bareHeader grew to 24.
const keptHeader = 8

// bareHeaderTokens is the most tokens of a bare package line that joins
// the first declaration: bareHeader, or keptHeader under KeepSmall.
func (b *builder) bareHeaderTokens() int {
	if b.c.opts.KeepSmall {
		return keptHeader
	}
	return bareHeader
}

func (b *builder) flushHeader(h *group) {
	if h.items > 0 {
		b.emit(h.start, h.end, meta{kind: "header", symbol: b.tags.pkg})
		*h = group{}
	}
}

// container chunks a class-like definition that is over the budget: its
// signature (up to the first member) and then its members.
func (b *builder) container(it item, scope []string, depth int) {
	d := it.def
	m := b.meta(d, scope, false)
	m.test = it.test
	body := d.node.ChildByFieldName("body")
	if body == nil || depth >= b.c.opts.MaxDepth {
		b.split(&it.node, it.start, it.end, m, depth)
		return
	}
	members := b.items(body, false)
	if len(members) == 0 {
		b.split(&it.node, it.start, it.end, m, depth)
		return
	}
	// The members of a test module are test code.
	for i := range members {
		members[i].test = members[i].test || it.test
	}
	inner := append(append([]string(nil), scope...), d.name())
	// The container's chunk is its signature plus the small members that
	// lead its body (docstring, fields, a short constructor).
	headEnd, rest := members[0].start, members
	if b.tokens(it.start, headEnd) > b.c.opts.Budget {
		b.windows(it.start, headEnd, m)
	} else {
		for len(rest) > 0 && b.tokens(rest[0].start, rest[0].end) <= b.c.opts.Tiny &&
			b.tokens(it.start, rest[0].end) <= b.c.opts.Budget/2 {
			if rest[0].def != nil {
				m.extra = append(m.extra, rest[0].def.name())
			}
			headEnd = rest[0].end
			rest = rest[1:]
		}
		if !b.c.opts.KeepSmall && len(rest) > 0 && rest[0].def != nil && rest[0].test == m.test &&
			b.tokens(it.start, headEnd) <= bareSignature && b.tokens(it.start, rest[0].end) <= b.c.opts.Budget {
			// A bare signature (class Api extends EventEmitter {) is no
			// chunk of its own, found by its name and nothing else: it
			// takes its first member, as it takes small ones above.
			m.extra = append(m.extra, rest[0].def.name())
			headEnd = rest[0].end
			rest = rest[1:]
		}
		b.emit(it.start, headEnd, m)
	}
	b.scopeItems(rest, inner, false, true, depth+1)
	// The closing brace joins the last member's chunk.
	if last := len(b.pieces) - 1; last >= 0 && b.pieces[last].end < it.end {
		b.pieces[last].end = it.end
	}
}

// bareSignature is the most tokens of a container's signature, with
// nothing of its body, that takes its first member into its chunk
// whatever that member's size (up to the budget).
const bareSignature = 24

// split cuts [start, end) of node n along its children: consecutive
// children are merged greedily up to the budget, a child over the budget
// is split in turn, and a leaf over the budget is cut into windows. The
// pieces tile the range.
func (b *builder) split(n *ts.Node, start, end uint, m meta, depth int) {
	budget, tiny := b.c.opts.Budget, b.c.opts.Tiny
	if depth >= b.c.opts.MaxDepth || n.ChildCount() == 0 {
		b.windows(start, end, m)
		return
	}
	first := len(b.pieces)
	kids := b.children(n)
	gs, ge := start, start
	for i := range kids {
		c := &kids[i]
		ce := min(max(c.EndByte(), ge), end)
		if b.tokens(gs, ce) <= budget {
			ge = ce
			continue
		}
		// c does not fit with the pending group [gs, ge).
		if b.tokens(ge, ce) <= budget || b.tokens(gs, ge) > budget/2 {
			// c fits alone, or the group is substantial: the group stands alone.
			b.emit(gs, ge, m)
			gs = ge
			if b.tokens(gs, ce) <= budget {
				ge = ce
				continue
			}
		}
		// c is over the budget: split it, the small pending group (a
		// signature, an opening brace) leading its first piece.
		b.split(c, gs, ce, m, depth+1)
		gs, ge = ce, ce
	}
	if end > gs {
		switch tail := b.tokens(gs, end); {
		case tail <= tiny && len(b.pieces) > first:
			b.pieces[len(b.pieces)-1].end = end // a closing brace joins the last piece
		case tail > budget:
			b.windows(gs, end, m)
		default:
			b.emit(gs, end, m)
		}
	}
}

// windows cuts [start, end) into line-aligned windows.
func (b *builder) windows(start, end uint, m meta) {
	for _, w := range Window(string(b.src[start:end]), core.Chunk{}, WindowOptions{Budget: b.c.opts.Budget}) {
		b.emit(start+uint(w.ByteStart), start+uint(w.ByteEnd), m)
	}
}

// lineStart moves off back to the start of its line when only
// indentation (or a stray carriage return) precedes it there, but not
// before floor: a chunk of an
// indented method or of a piece of a long declaration keeps its first
// line's indentation, so that its text reads as the file does and two
// neighbouring chunks shown together line up.
func (b *builder) lineStart(off, floor uint) uint {
	s := off
	for s > floor && b.src[s-1] != '\n' && isSpace(b.src[s-1]) {
		s--
	}
	if s == 0 || b.src[s-1] == '\n' {
		return s
	}
	return off
}

// crumbTokens is the most tokens of a nameless piece (module.exports = X,
// 'use strict', export { a as default }, a lone ;) or a file header (one
// import, a one-line comment) that joins a neighbour instead of making a
// chunk of its own: alone it answered searches by its file's path and
// nothing else.
const crumbTokens = 12

// joinCrumbs joins each nameless piece of at most crumbTokens to the piece
// before it, or when that would pass the budget by more than the crumb (or
// there is none) to the piece after it; test code and other code are
// never joined.
func (b *builder) joinCrumbs(out []piece) []piece {
	budget := b.c.opts.Budget + crumbTokens
	res := out[:0]
	for i := 0; i < len(out); i++ {
		p := out[i]
		crumb := p.meta.symbol == "" && p.meta.kind == "" && len(p.meta.section) == 0 || p.meta.kind == "header"
		if crumb && b.tokens(p.start, p.end) <= crumbTokens {
			if n := len(res); n > 0 && res[n-1].meta.test == p.meta.test && b.tokens(res[n-1].start, p.end) <= budget {
				res[n-1].end = p.end
				continue
			}
			if i+1 < len(out) && out[i+1].meta.test == p.meta.test && b.tokens(p.start, out[i+1].end) <= budget {
				out[i+1].start = p.start
				continue
			}
		}
		res = append(res, p)
	}
	return res
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// cover makes the pieces a sorted, non-overlapping cover of every
// non-blank byte of the file, then materializes the chunks.
func (b *builder) cover() {
	sort.SliceStable(b.pieces, func(i, j int) bool { return b.pieces[i].start < b.pieces[j].start })
	var out []piece
	var prevEnd uint
	gap := func(s, e uint) {
		for s < e && isSpace(b.src[s]) {
			s++
		}
		for e > s && isSpace(b.src[e-1]) {
			e--
		}
		if s >= e {
			return
		}
		s = b.lineStart(s, prevEnd)
		if len(out) > 0 && b.tokens(out[len(out)-1].start, e) <= b.c.opts.Budget {
			out[len(out)-1].end = e
			return
		}
		for _, w := range Window(string(b.src[s:e]), core.Chunk{}, WindowOptions{Budget: b.c.opts.Budget}) {
			out = append(out, piece{s + uint(w.ByteStart), s + uint(w.ByteEnd), meta{}})
		}
	}
	for _, p := range b.pieces {
		if p.start < prevEnd {
			p.start = prevEnd
		}
		for p.start < p.end && isSpace(b.src[p.start]) {
			p.start++
		}
		for p.end > p.start && isSpace(b.src[p.end-1]) {
			p.end--
		}
		if p.start >= p.end {
			continue
		}
		if len(out) == 0 && b.tokens(prevEnd, p.end) <= b.c.opts.Budget {
			// What comes before the first piece (a brace, a comment)
			// joins it rather than making a chunk of its own.
			s := prevEnd
			for s < p.start && isSpace(b.src[s]) {
				s++
			}
			p.start = s
		}
		gap(prevEnd, p.start)
		p.start = b.lineStart(p.start, prevEnd)
		out = append(out, p)
		prevEnd = p.end
	}
	gap(prevEnd, uint(len(b.src)))
	if !b.c.opts.KeepSmall {
		out = b.joinCrumbs(out)
	}

	lines := newLineIndex(b.src)
	b.pieces = nil
	path := b.base.FilePath
	for _, p := range out {
		c := b.base
		c.ByteStart, c.ByteEnd = int(p.start), int(p.end)
		c.LineStart, c.LineEnd = lines.line(p.start), lines.line(p.end-1)
		c.Text = string(b.src[p.start:p.end])
		c.ID = core.ChunkID(c.SourceURI, c.ByteStart, c.ByteEnd)
		c.SymbolName, c.SymbolKind, c.Signature = p.meta.symbol, p.meta.kind, p.meta.signature
		if p.meta.test {
			c.Meta = mergeMeta(c.Meta, map[string]string{"test": "true"})
		}
		if len(p.meta.extra) > 0 {
			names := []string{p.meta.symbol}
			for _, x := range p.meta.extra {
				if !slices.Contains(names, x) {
					names = append(names, x)
				}
			}
			c.SymbolName = strings.Join(names, ", ")
		}
		parts := append([]string{path}, p.meta.scope...)
		if len(p.meta.section) > 0 {
			c.SectionPath = strings.Join(p.meta.section, " > ")
			parts = append(parts, p.meta.section...)
		} else if p.meta.symbol != "" && !groupKinds[p.meta.kind] {
			parts = append(parts, p.meta.symbol)
		}
		c.ContextPrefix = strings.Join(parts, " > ")
		b.chunks = append(b.chunks, c)
	}
	b.assignFacts()
}

// groupKinds are the kinds of chunks whose symbol names several parts
// ("a, b, c"), which a context prefix leaves out.
var groupKinds = map[string]bool{"header": true, "group": true, "keys": true, "sections": true, "elements": true, "front matter": true}

// assignFacts gives every call, route and reference to the chunk that
// contains it (or the chunk before it, for one that lies in a gap).
func (b *builder) assignFacts() {
	if len(b.chunks) == 0 {
		return
	}
	seen := make([]map[core.Ref]bool, len(b.chunks))
	for _, f := range b.facts {
		i := sort.Search(len(b.chunks), func(i int) bool { return b.chunks[i].ByteEnd > int(f.at) })
		if i == len(b.chunks) || b.chunks[i].ByteStart > int(f.at) && i > 0 {
			i--
		}
		c := &b.chunks[i]
		switch {
		case f.call != nil:
			c.Calls = append(c.Calls, *f.call)
			if s := f.call.Summary(); s != "" && !slices.Contains(c.CallsOut, s) {
				c.CallsOut = append(c.CallsOut, s)
			}
		case f.route != nil:
			c.Routes = append(c.Routes, *f.route)
		case f.binding != nil:
			c.Bindings = append(c.Bindings, *f.binding)
		case f.ref != nil:
			if seen[i] == nil {
				seen[i] = map[core.Ref]bool{}
			}
			if !seen[i][*f.ref] {
				seen[i][*f.ref] = true
				c.Refs = append(c.Refs, *f.ref)
			}
		}
	}
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []uint

func newLineIndex(src []byte) lineIndex {
	var nl lineIndex
	for i, c := range src {
		if c == '\n' {
			nl = append(nl, uint(i))
		}
	}
	return nl
}

func (li lineIndex) line(off uint) int {
	return sort.Search(len(li), func(i int) bool { return li[i] >= off }) + 1
}
