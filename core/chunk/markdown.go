package chunk

import (
	"bytes"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"gopkg.in/yaml.v3"

	"coderag/core"
)

// tinySection is the most tokens of a Markdown section that joins the
// section after it instead of being a chunk of its own.
const tinySection = 32

// markdown parses Markdown; it is safe for concurrent use.
var markdown = goldmark.New()

// Markdown chunks a Markdown document along its headings: every H1-H3
// starts a section (a section of at most tinySection tokens joins the
// next one) whose chunk carries the heading path as section_path
// ("# Runbook > ## Rollback > ### Step 3") and the heading as symbol. A
// section over the budget is split at block boundaries; a fenced code
// block is never split (unless it alone exceeds twice the budget) and a
// chunk that is just one is tagged with the block's language. YAML front
// matter becomes chunk metadata. A chunk's Timestamp is the date its
// section heading or, failing that, its document states (front matter, a
// "Date:" line), if any.
func (c *Chunker) Markdown(src []byte, base core.Chunk) Result {
	b := &builder{c: c, src: src, base: base}
	front, body := frontMatter(src)
	if len(front) > 0 {
		base.Meta = mergeMeta(base.Meta, front)
		if svc := front["service"]; svc != "" && base.ServiceName == "" {
			base.ServiceName = svc // runbooks name the service they are about
		}
		b.base = base
	}
	doc := markdown.Parser().Parse(text.NewReader(src))
	lineStart := func(off int) uint { // start of the line holding off
		for off > 0 && src[off-1] != '\n' {
			off--
		}
		return uint(off)
	}
	type block struct {
		start   uint
		level   int // heading level, 0 for other blocks
		title   string
		fenced  string // language of a fenced code block, "-" when none is given
		isFence bool
	}
	var blocks []block
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		first := firstSegment(n)
		if first < 0 {
			continue
		}
		start := lineStart(first)
		if uint(first) < uint(body) {
			continue // inside the front matter
		}
		bl := block{start: start}
		switch v := n.(type) {
		case *ast.Heading:
			bl.level, bl.title = v.Level, strings.TrimSpace(string(v.Text(src)))
		case *ast.FencedCodeBlock:
			bl.isFence = true
			bl.fenced = "-"
			if v.Info != nil {
				info := strings.Fields(string(v.Info.Segment.Value(src)))
				if len(info) > 0 {
					bl.fenced = info[0]
				}
				bl.start = lineStart(v.Info.Segment.Start)
			} else if bl.start > 0 {
				bl.start = lineStart(int(bl.start) - 1) // the fence line above the first code line
			}
		}
		blocks = append(blocks, bl)
	}
	budget := c.opts.Budget
	var path [4]string // heading titles by level 1..3
	section := func(path [4]string) ([]string, string) {
		var parts []string
		last := ""
		for l := 1; l <= 3; l++ {
			if path[l] != "" {
				parts = append(parts, strings.Repeat("#", l)+" "+path[l])
				last = path[l]
			}
		}
		return parts, last
	}
	// Walk the blocks; a group is emitted at each H1-H3 and whenever the
	// next block would not fit.
	gs := uint(body)
	var groupFence string
	groupBlocks := 0
	headingOnly := false // the group so far is just a heading
	// joinedPath is the first section's heading path when the group holds
	// a tiny section and the one after it (nil otherwise).
	var joinedPath *[4]string
	flush := func(end uint) {
		if end <= gs {
			return
		}
		if len(bytes.TrimSpace(src[gs:end])) == 0 {
			gs = end
			return
		}
		p := path
		if joinedPath != nil {
			p, joinedPath = *joinedPath, nil
		}
		sp, title := section(p)
		m := meta{symbol: title, kind: "section", section: sp}
		if len(sp) == 0 {
			m.kind = ""
		}
		if groupBlocks == 1 && groupFence != "" {
			m.kind = "code"
			if groupFence != "-" {
				m.signature = "```" + groupFence
			}
		}
		if b.tokens(gs, end) > 2*budget || (b.tokens(gs, end) > budget && groupFence == "") {
			b.windows(gs, end, m)
		} else {
			b.emit(gs, end, m)
		}
		gs = end
		groupBlocks, groupFence = 0, ""
	}
	for i, bl := range blocks {
		end := uint(len(src))
		if i+1 < len(blocks) {
			end = blocks[i+1].start
		}
		if bl.level >= 1 && bl.level <= 3 {
			// A bare heading, or a section of a line or two (an ADR's
			// "Status: Accepted", a title and the date under it), joins the
			// section after it: alone it answers nothing.
			// The joined chunk keeps the first section's heading path. Dated
			// sections (a changelog's releases, an incident's days) keep
			// their own chunks and dates.
			_, cur := section(path)
			switch {
			case headingOnly:
			case groupBlocks == 0 || b.tokens(gs, bl.start) > tinySection || sectionDate(cur) != "" || sectionDate(bl.title) != "":
				flush(bl.start)
			case joinedPath == nil:
				first := path
				joinedPath = &first
			}
			path[bl.level] = bl.title
			for l := bl.level + 1; l <= 3; l++ {
				path[l] = ""
			}
		} else if groupBlocks > 0 && !headingOnly && b.tokens(gs, end) > budget {
			// A heading stays with what follows it even when that is
			// too long for one chunk (a list of forty links under
			// "Troubleshooting Pointers"): the windows cut it below the
			// heading, not after it. A heading that ends a group (a tiny
			// section joined to it) opens the next one instead.
			if prev := blocks[i-1]; prev.level >= 1 && prev.level <= 3 && prev.start > gs {
				flush(prev.start)
				groupBlocks = 1
			} else {
				flush(bl.start)
			}
		}
		if bl.isFence && groupBlocks == 0 {
			groupFence = bl.fenced
		} else if groupBlocks > 0 {
			groupFence = ""
		}
		headingOnly = bl.level >= 1 && bl.level <= 3 && (groupBlocks == 0 || headingOnly)
		groupBlocks++
	}
	if n := len(b.pieces); headingOnly && n > 0 && b.pieces[n-1].end == gs && b.tokens(b.pieces[n-1].start, uint(len(src))) <= budget {
		// A heading that ends the file with nothing under it (a
		// runbook's empty "## Mitigation") joins the chunk before it.
		b.pieces[n-1].end = uint(len(src))
		gs = uint(len(src))
	}
	flush(uint(len(src)))
	if body > 0 {
		// Front matter joins the first section when they fit together.
		if len(b.pieces) > 0 && b.tokens(0, b.pieces[0].end) <= budget {
			b.pieces[0].start = 0
		} else {
			b.emit(0, uint(body), meta{kind: "front matter", symbol: front["title"]})
		}
	}
	b.cover()
	date := docDate(front, src[body:])
	for i := range b.chunks {
		ch := &b.chunks[i]
		if ch.SymbolKind == "code" && strings.HasPrefix(ch.Signature, "```") {
			ch.Meta = mergeMeta(ch.Meta, map[string]string{"code_language": strings.TrimPrefix(ch.Signature, "```")})
		}
		// The document's date, or its section's (a changelog entry, a
		// dated incident), orders it among conversations by time.
		if d := sectionDate(ch.SectionPath); d != "" {
			ch.Timestamp = d
		} else if ch.Timestamp == "" {
			ch.Timestamp = date
		}
	}
	return Result{Chunks: b.chunks}
}

// firstSegment returns the offset of the first text of a block, or -1.
func firstSegment(n ast.Node) int {
	if l := n.Lines(); l != nil && l.Len() > 0 {
		return l.At(0).Start
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if off := firstSegment(c); off >= 0 {
			return off
		}
	}
	if t, ok := n.(*ast.Text); ok {
		return t.Segment.Start
	}
	return -1
}

// frontMatter reads a leading YAML front matter block ("---" lines) and
// returns its scalar fields and the offset where the body starts.
func frontMatter(src []byte) (map[string]string, int) {
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return nil, 0
	}
	end := bytes.Index(src[3:], []byte("\n---"))
	if end < 0 {
		return nil, 0
	}
	end += 3
	var m map[string]any
	if err := yaml.Unmarshal(src[3:end], &m); err != nil {
		return nil, 0
	}
	body := end + 4
	for body < len(src) && src[body] != '\n' {
		body++
	}
	if body < len(src) {
		body++
	}
	out := map[string]string{}
	for k, v := range m {
		switch t := v.(type) {
		case string:
			out[k] = t
		case time.Time: // an unquoted YAML date
			out[k] = t.Format("2006-01-02")
		case int, float64, bool:
			out[k] = strings.TrimSpace(yamlScalar(t))
		case []any:
			var parts []string
			for _, e := range t {
				parts = append(parts, strings.TrimSpace(yamlScalar(e)))
			}
			out[k] = strings.Join(parts, ", ")
		}
	}
	return out, body
}

func yamlScalar(v any) string {
	b, _ := yaml.Marshal(v)
	return string(b)
}

func mergeMeta(a, b map[string]string) map[string]string {
	if len(b) == 0 {
		return a
	}
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// Paragraphs chunks plain text (.txt, .rst, .adoc) at blank lines, merging
// paragraphs up to the budget.
func (c *Chunker) Paragraphs(src []byte, base core.Chunk) Result {
	b := &builder{c: c, src: src, base: base}
	gs, ge := uint(0), uint(0)
	i := 0
	for i < len(src) {
		// the next paragraph: up to a blank line
		j := bytes.Index(src[i:], []byte("\n\n"))
		end := len(src)
		if j >= 0 {
			end = i + j + 1
		}
		if ge > gs && b.tokens(gs, uint(end)) > c.opts.Budget {
			b.emit(gs, ge, meta{})
			gs = ge
		}
		ge = uint(end)
		i = end
		for i < len(src) && src[i] == '\n' {
			i++
		}
	}
	if ge > gs {
		if b.tokens(gs, ge) > c.opts.Budget {
			b.windows(gs, ge, meta{})
		} else {
			b.emit(gs, ge, meta{})
		}
	}
	b.cover()
	return Result{Chunks: b.chunks}
}
