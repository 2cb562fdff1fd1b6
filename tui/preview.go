package tui

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/charmbracelet/x/ansi"

	"coderag/core"
)

// contextLines is how much of the file around a chunk the preview shows.
const contextLines = 8

// preview shows chunks: code highlighted with line numbers and the file
// around it, Markdown rendered, conversations as messages. It renders
// lazily and keeps the result until its input or size changes.
type preview struct {
	chunks        []core.Chunk
	hit           *core.Hit // the search hit, for its explain data
	title         string
	width, height int
	offset        int
	// hoffset is how many columns code lines are scrolled sideways;
	// wide is the widest code line's width past its gutter, and room the
	// columns the pane has for it.
	hoffset, wide, room int
	lines               []string
	anchor              int // the line scrolled to when the content is new
	valid, placed       bool
	// scrolled says the user moved since the content was placed: until
	// then a re-render (the file around a chunk arrives, the pane is
	// resized) places it at its anchor again, so the match stays in view.
	scrolled bool

	// focusLines marks one line per chunk id (an edge's evidence line).
	focusLines map[string]int

	md      *glamour.TermRenderer
	mdKey   string
	explain bool
}

func (p *preview) setSize(w, h int) {
	if w != p.width || h != p.height {
		p.width, p.height = w, h
		p.valid = false
	}
}

// setChunks shows new chunks, scrolled to the first one.
func (p *preview) setChunks(cs []core.Chunk, title string) {
	p.chunks, p.title, p.hit, p.focusLines = cs, title, nil, nil
	p.valid, p.placed, p.scrolled, p.offset, p.hoffset = false, false, false, 0, 0
}

func (p *preview) invalidate() { p.valid = false }

// innerWidth is the width inside the pane's border.
func (p *preview) innerWidth() int { return max(p.width-2, 10) }
func (p *preview) innerHeight() int {
	return max(p.height-2, 1)
}

func (p *preview) key(k KeyMap, msg tea.KeyPressMsg) {
	h := p.innerHeight()
	p.scrolled = true
	switch {
	case key.Matches(msg, k.Up):
		p.offset--
	case key.Matches(msg, k.Down):
		p.offset++
	case key.Matches(msg, k.PageUp):
		p.offset -= h / 2
	case key.Matches(msg, k.PageDown):
		p.offset += h / 2
	case key.Matches(msg, k.Top):
		p.offset = 0
	case key.Matches(msg, k.Bottom):
		p.offset = len(p.lines)
	case key.Matches(msg, k.Left):
		p.sideways(-8)
	case key.Matches(msg, k.Right):
		p.sideways(8)
	}
	p.clamp()
}

// sideways scrolls code lines by n columns, within the widest line.
func (p *preview) sideways(n int) {
	h := max(min(p.hoffset+n, p.wide-p.room), 0)
	if h != p.hoffset {
		p.hoffset, p.valid = h, false
	}
}

func (p *preview) clamp() {
	p.offset = min(p.offset, len(p.lines)-p.innerHeight())
	p.offset = max(p.offset, 0)
}

// view renders the visible part.
func (p *preview) view(m *Model) string {
	if len(p.chunks) == 0 {
		return ""
	}
	if !p.valid || p.explain != m.explain {
		toggled := p.explain != m.explain
		p.explain = m.explain
		p.lines, p.anchor = p.render(m)
		p.valid = true
		switch {
		case toggled && m.explain:
			// The explanation is at the top: open it there, wherever
			// the preview was scrolled.
			p.offset = 0
		case !p.placed || !p.scrolled:
			p.offset = p.anchor
			p.placed = true
		}
		p.clamp()
	}
	end := min(p.offset+p.innerHeight(), len(p.lines))
	return strings.Join(p.lines[p.offset:end], "\n")
}

// render draws every chunk; anchor is the line of the first chunk's first
// matched line, minus a little context.
func (p *preview) render(m *Model) ([]string, int) {
	st := m.st
	w := p.innerWidth()
	var out []string
	anchor := -1
	p.wide, p.room = 0, w
	if p.title != "" {
		out = append(out, st.Title.Render(truncate(p.title, w)), "")
	}
	for i, c := range p.chunks {
		if i > 0 {
			out = append(out, "", st.Dim.Render(strings.Repeat("─", w)))
		}
		head := st.badge(c.Corpus) + " " + c.Location()
		if c.SymbolName != "" {
			head += "  " + st.Title.Render(c.SymbolName)
		}
		if p.hoffset > 0 {
			head += st.Dim.Render(fmt.Sprintf("  (from column %d, ←/h)", p.hoffset+1))
		}
		out = append(out, truncate(head, w))
		if c.ContextPrefix != "" {
			out = append(out, st.Dim.Render(truncate(c.ContextPrefix, w)))
		}
		if p.hit != nil && i == 0 {
			if l := p.hit.Explain.SameIn(3); l != "" {
				out = append(out, st.Dim.Render(truncate(l, w)))
			}
		}
		if p.explain && p.hit != nil && i == 0 {
			out = append(out, explainLines(st, *p.hit, w)...)
		}
		out = append(out, "")
		var words []string
		if p.hit != nil {
			words = p.hit.Explain.Matched
		}
		body, at := p.body(m, c, words, w)
		if anchor < 0 && i == 0 {
			anchor = len(out) + at
			if at == 0 {
				anchor = 0
			}
		}
		out = append(out, body...)
	}
	return out, max(anchor, 0)
}

// explainLines shows why a hit ranks where it does.
func explainLines(st Styles, h core.Hit, w int) []string {
	e := h.Explain
	var lists []string
	for _, l := range h.Lists {
		lists = append(lists, fmt.Sprintf("%s #%d (%.3f)", l.List, l.Rank, l.Score))
	}
	lines := []string{
		st.Key.Render("why") + fmt.Sprintf(" score %.4f = fused %.4f", h.Score, e.Fused),
		"  lists: " + strings.Join(lists, ", "),
	}
	if e.Rerank != nil {
		var feats []string
		for k, v := range e.Features {
			feats = append(feats, fmt.Sprintf("%s %.2f", k, v))
		}
		sort.Strings(feats)
		lines = append(lines, fmt.Sprintf("  rerank %s %.3f: %s", e.Reranker, *e.Rerank, strings.Join(feats, ", ")))
	}
	if e.Freshness != nil {
		lines = append(lines, fmt.Sprintf("  freshness %.2f", *e.Freshness))
	}
	if e.Boost != 0 && e.Boost != 1 {
		lines = append(lines, fmt.Sprintf("  boost x%.2f (%s)", e.Boost, e.BoostReason))
	}
	if e.Frame != "" {
		lines = append(lines, "  frame of the pasted trace: "+e.Frame)
	} else if e.Edge != "" {
		lines = append(lines, "  evidence of the service graph's "+e.Edge)
	} else if why := e.Pinned(); why != "" {
		// a request's route or handler, a pod's workload, a qualified
		// name's declaration
		lines = append(lines, "  put first: "+why)
	}
	lines = append(lines, "  matched: "+strings.Join(e.Matched, " "))
	for i, l := range lines {
		lines[i] = truncate(l, w)
	}
	return lines
}

// body draws one chunk's content and says at which of its lines the match
// is.
func (p *preview) body(m *Model, c core.Chunk, words []string, w int) ([]string, int) {
	c = c.Printable() // a pasted log's colours or a title sequence never reach the terminal
	switch c.Corpus {
	case core.ConvoSlack, core.ConvoTranscript, core.ConvoOther:
		return conversation(m.st, c.Text, w), 0
	}
	// Notebooks are Markdown with fenced code cells; documents are drawn
	// as Markdown.
	if c.Meta["format"] == "ipynb" {
		if out, err := p.markdown(m.st, c.Text, w); err == nil {
			return out, 0
		}
	}
	switch c.Corpus {
	case core.DocReadme, core.DocRunbook, core.DocADR, core.DocGoogle:
		if c.Language == "markdown" || c.Meta["format"] == "" || strings.HasSuffix(c.FilePath, ".md") {
			if out, err := p.markdown(m.st, c.Text, w); err == nil {
				return out, 0
			}
		}
		return strings.Split(wrapText(c.Text, w), "\n"), 0
	}
	return p.code(m, c, words, w)
}

// code highlights a chunk within its file: contextLines of file around
// it, line numbers, the chunk's lines marked in the gutter and the lines
// holding a matched word marked brighter.
func (p *preview) code(m *Model, c core.Chunk, words []string, w int) ([]string, int) {
	text, first := c.Text, c.LineStart
	if src := m.sourcePath(c); src != "" && c.Verbatim() {
		if data := m.files[src]; len(data) > 0 {
			all := strings.Split(core.Printable(string(data)), "\n")
			from := max(c.LineStart-1-contextLines, 0)
			to := min(c.LineEnd+contextLines, len(all))
			if from < to && c.LineStart-1 < len(all) {
				text, first = strings.Join(all[from:to], "\n"), from+1
			}
		}
	}
	lines := highlight(m.st.ChromaStyle, c.FilePath, c.Language, text)
	lower := make([]string, len(words))
	for i, wd := range words {
		lower[i] = strings.ToLower(wd)
	}
	numW := len(fmt.Sprint(first + len(lines)))
	out := make([]string, 0, len(lines))
	anchor, focusAt := -1, -1
	plain := strings.Split(text, "\n")
	for i, l := range lines {
		n := first + i
		inChunk := n >= c.LineStart && n <= c.LineEnd
		hit := n == p.focusLines[c.ID]
		if hit {
			focusAt = i
		}
		if inChunk && i < len(plain) && !hit {
			pl := strings.ToLower(plain[i])
			for _, wd := range lower {
				if wd != "" && strings.Contains(pl, wd) {
					hit = true
					break
				}
			}
		}
		mark := " "
		switch {
		case hit:
			mark = m.st.Match.Render("▶")
		case inChunk:
			mark = m.st.Match.Render("│")
		}
		if (hit || inChunk && len(lower) == 0 && len(p.focusLines) == 0) && anchor < 0 {
			anchor = i
		}
		gutter := m.st.LineNo.Render(fmt.Sprintf("%*d", numW, n)) + mark + " "
		text := expandTabs(l)
		p.wide, p.room = max(p.wide, ansi.StringWidth(text)), w-(numW+2)
		if p.hoffset > 0 {
			text = ansi.TruncateLeft(text, p.hoffset, "")
		}
		out = append(out, truncate(gutter+text, w))
	}
	switch {
	case focusAt >= 0:
		anchor = focusAt // the frame's or route's line before the query's words
	case anchor < 0:
		anchor = max(c.LineStart-first, 0)
	}
	return out, max(anchor-3, 0)
}

// expandTabs replaces tabs with four spaces (terminals disagree on tabs).
func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// highlight colours source text with Chroma; without a style (NO_COLOR)
// the text comes back as it is. It returns one string per line.
func highlight(style, filename, language, text string) []string {
	if style == "" {
		return strings.Split(text, "\n")
	}
	lexer := lexers.Match(path.Base(filename))
	if lexer == nil && language != "" {
		lexer = lexers.Get(language)
	}
	if lexer == nil {
		return strings.Split(text, "\n")
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, text)
	if err != nil {
		return strings.Split(text, "\n")
	}
	var buf bytes.Buffer
	if err := formatters.TTY256.Format(&buf, styles.Get(style), it); err != nil {
		return strings.Split(text, "\n")
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := strings.Count(text, "\n") + 1
	for len(lines) < want {
		lines = append(lines, "")
	}
	return lines[:want]
}

// markdown renders Markdown with Glamour at width w.
func (p *preview) markdown(st Styles, text string, w int) ([]string, error) {
	k := fmt.Sprint(st.GlamourStyle, w)
	if p.md == nil || p.mdKey != k {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(st.GlamourStyle), glamour.WithWordWrap(w-2))
		if err != nil {
			return nil, err
		}
		p.md, p.mdKey = r, k
	}
	out, err := p.md.Render(stripFrontMatter(text))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.Trim(out, "\n"), "\n"), nil
}

// stripFrontMatter drops a leading YAML front matter block, which
// Markdown renderers show as a rule and a heading; the header line above
// the body already says what the document is.
func stripFrontMatter(s string) string {
	if !strings.HasPrefix(s, "---\n") {
		return s
	}
	if i := strings.Index(s[4:], "\n---"); i >= 0 {
		rest := s[4+i+4:]
		return strings.TrimLeft(rest, "\n")
	}
	return s
}

var (
	// "[2024-03-14 09:45] @bob: text" (Slack), "[00:00:02] Name: text" (VTT)
	timedLine = regexp.MustCompile(`^\[([^\]]{1,25})\] (@?[^:]{1,60}?): (.*)$`)
	// "Name: text" (speaker lines)
	speakerLine = regexp.MustCompile(`^(@?[\pL<][\pL\pN_ .'<>-]{0,40}): (.+)$`)
)

// conversation draws Slack and transcript text as messages: author and
// time on a line, the message wrapped under it.
func conversation(st Styles, text string, w int) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		var when, who, msg string
		if mm := timedLine.FindStringSubmatch(l); mm != nil {
			when, who, msg = mm[1], mm[2], mm[3]
		} else if mm := speakerLine.FindStringSubmatch(l); mm != nil {
			who, msg = mm[1], mm[2]
		} else {
			for _, wl := range strings.Split(wrapText(l, w-2), "\n") {
				out = append(out, "  "+wl)
			}
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		head := st.Author.Render(who)
		if when != "" {
			head += " " + st.Dim.Render(when)
		}
		out = append(out, head)
		for _, wl := range strings.Split(wrapText(msg, w-2), "\n") {
			out = append(out, "  "+wl)
		}
	}
	return out
}
