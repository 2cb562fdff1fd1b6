package tui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/search"
)

// updateInput passes a message to the search box and schedules a search
// when the text changed: each change takes a new sequence number, and
// only the debounce tick of the newest one runs.
func (m *Model) updateInput(msg tea.Msg) tea.Cmd {
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() == before {
		return cmd
	}
	return tea.Batch(cmd, m.schedule())
}

// schedule starts the debounce for a new query.
func (m *Model) schedule() tea.Cmd {
	m.seq++
	seq := m.seq
	return tea.Tick(m.opts.Debounce, func(time.Time) tea.Msg { return debounceMsg{seq} })
}

// rerun searches the current text again (filters changed, a crawl ended).
func (m *Model) rerun() tea.Cmd {
	m.seq++
	return m.runSearch(m.seq)
}

// filterText is the query syntax of the type keys' filters.
func (m *Model) filterText() string {
	var parts []string
	for i, on := range m.types {
		if on {
			parts = append(parts, "type:"+typeFilters[i])
		}
	}
	return strings.Join(parts, " ")
}

// queryText is what is searched: the box's text and the type filters.
func (m *Model) queryText() string {
	return strings.TrimSpace(m.input.Value() + " " + m.filterText())
}

// runSearch runs the query of seq off the UI loop: the fast searcher and,
// when set, the full one, both cancelled by the next query.
func (m *Model) runSearch(seq int) tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		m.res, m.resQuery, m.resStage, m.err, m.pending = search.Result{}, "", "", nil, 0
		m.cursor, m.offset = 0, 0
		return nil
	}
	q := search.Query{Text: m.queryText(), K: m.opts.K}
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancelSearch()
	m.searchCancel = cancel
	run := func(s Searcher, stage string) tea.Cmd {
		return func() tea.Msg {
			res, err := s.Search(ctx, q)
			return resultsMsg{seq: seq, stage: stage, res: res, err: err}
		}
	}
	m.pending = 1
	cmds := []tea.Cmd{run(m.opts.Fast, "bm25")}
	if m.opts.Full != nil {
		m.pending = 2
		cmds = append(cmds, run(m.opts.Full, "hybrid"))
	}
	return tea.Batch(cmds...)
}

func (m *Model) cancelSearch() {
	if m.searchCancel != nil {
		m.searchCancel()
		m.searchCancel = nil
	}
}

// applyResults shows a result unless a newer query was typed since or the
// hybrid answer to the same query already arrived.
func (m *Model) applyResults(msg resultsMsg) tea.Cmd {
	if msg.seq != m.seq {
		return nil
	}
	m.pending = max(m.pending-1, 0)
	if msg.err != nil {
		if errors.Is(msg.err, context.Canceled) {
			return nil
		}
		if msg.stage == "hybrid" && m.resSeq == msg.seq {
			m.res.Warnings = append(m.res.Warnings, "hybrid search: "+msg.err.Error())
			return nil
		}
		m.err = msg.err
		return nil
	}
	if msg.stage == "bm25" && m.resSeq == msg.seq && m.resStage == "hybrid" {
		return nil
	}
	var keep string
	if m.resSeq == msg.seq && m.cursor < len(m.res.Hits) {
		keep = m.res.Hits[m.cursor].Chunk.ID // a refinement keeps the selection
	}
	m.res, m.resSeq, m.resStage, m.resQuery, m.err = msg.res, msg.seq, msg.stage, m.queryText(), nil
	m.cursor, m.offset = 0, 0
	for i, h := range m.res.Hits {
		if h.Chunk.ID == keep {
			m.cursor = i
		}
	}
	m.fixOffset()
	return m.selectionChanged()
}

// selected is the selected hit, if any.
func (m *Model) selected() (core.Hit, bool) {
	if m.cursor < 0 || m.cursor >= len(m.res.Hits) {
		return core.Hit{}, false
	}
	return m.res.Hits[m.cursor], true
}

// selectionChanged points the preview at the selected hit.
func (m *Model) selectionChanged() tea.Cmd {
	h, ok := m.selected()
	if !ok {
		m.preview.setChunks(nil, "")
		return nil
	}
	m.preview.setChunks([]core.Chunk{h.Chunk}, "")
	m.preview.hit = &h
	if line := h.Explain.FocusLine(); line > 0 {
		// A pasted trace's frame, a pasted request's route: its line is
		// the one to see.
		m.preview.focusLines = map[string]int{h.Chunk.ID: line}
	}
	return m.readFile(m.sourcePath(h.Chunk))
}

// listHeight is how many result rows fit (each takes two lines).
func (m *Model) listRows() int { return max((m.bodyHeight()-2)/2, 1) }

func (m *Model) fixOffset() {
	rows := m.listRows()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+rows {
		m.offset = m.cursor - rows + 1
	}
}

// move moves the result cursor by d.
func (m *Model) move(d int) tea.Cmd {
	if len(m.res.Hits) == 0 {
		return nil
	}
	c := min(max(m.cursor+d, 0), len(m.res.Hits)-1)
	if c == m.cursor {
		return nil
	}
	m.cursor = c
	m.fixOffset()
	return m.selectionChanged()
}

// searchKey handles a key in the search mode.
func (m *Model) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.focus == focusInput {
		switch {
		case key.Matches(msg, k.Back):
			if len(m.res.Hits) > 0 {
				return m.setFocus(focusList)
			}
			m.input.Blur()
			m.focus = focusList
			return nil
		case key.Matches(msg, k.NextPane), msg.String() == "enter":
			return m.setFocus(focusList)
		case msg.String() == "down":
			return m.move(1)
		case msg.String() == "up":
			return m.move(-1)
		case msg.String() == "pgdown":
			return m.move(m.listRows())
		case msg.String() == "pgup":
			return m.move(-m.listRows())
		}
		return m.updateInput(msg)
	}
	if m.focus == focusPreview {
		switch {
		case key.Matches(msg, k.Back), key.Matches(msg, k.PrevPane):
			return m.setFocus(focusList)
		case key.Matches(msg, k.NextPane):
			return m.setFocus(focusInput)
		}
		if cmd, ok := m.resultKey(msg); ok {
			return cmd
		}
		m.preview.key(k, msg)
		return nil
	}
	switch {
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.Open):
		if _, ok := m.selected(); ok {
			return m.setFocus(focusPreview)
		}
		return nil
	case key.Matches(msg, k.PrevPane), key.Matches(msg, k.Back):
		return m.setFocus(focusInput)
	case key.Matches(msg, k.Up):
		return m.move(-1)
	case key.Matches(msg, k.Down):
		return m.move(1)
	case key.Matches(msg, k.PageUp):
		return m.move(-m.listRows())
	case key.Matches(msg, k.PageDown):
		return m.move(m.listRows())
	case key.Matches(msg, k.Top):
		return m.move(-len(m.res.Hits))
	case key.Matches(msg, k.Bottom):
		return m.move(len(m.res.Hits))
	case key.Matches(msg, k.ClearTypes):
		m.types = [len(typeFilters)]bool{}
		return m.rerun()
	}
	for i, b := range k.TypeFilter {
		if key.Matches(msg, b) {
			m.types[i] = !m.types[i]
			return m.rerun()
		}
	}
	cmd, _ := m.resultKey(msg)
	return cmd
}

// resultKey handles the keys that act on the selected hit.
func (m *Model) resultKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := m.keys
	h, ok := m.selected()
	if !ok {
		return nil, false
	}
	c := h.Chunk
	switch {
	case key.Matches(msg, k.Explain):
		m.explain = !m.explain
		m.preview.invalidate()
		return nil, true
	case key.Matches(msg, k.Copy):
		loc := c.FilePath + ":" + fmt.Sprint(c.LineStart)
		if c.Corpus == core.ConvoSlack {
			loc = c.Location()
		}
		return tea.Batch(tea.SetClipboard(loc), func() tea.Msg { return noticeMsg{"copied " + loc} }), true
	case key.Matches(msg, k.Edit):
		p := m.sourcePath(c)
		if p == "" {
			m.notice = "no file on disk for " + c.Location()
			return nil, true
		}
		return m.openEditor(p, c.LineStart), true
	case key.Matches(msg, k.ToService):
		name := c.ServiceName
		if name == "" {
			m.notice = "no service known for " + c.Location()
			return nil, true
		}
		if !m.graph.selectService(name) {
			m.notice = "service " + name + " is not in the graph"
			return nil, true
		}
		m.mode = modeGraph
		m.input.Blur()
		return m.graphSelectionChanged(), true
	}
	return nil, false
}

// searchBody draws the result list and the preview side by side.
func (m *Model) searchBody() string {
	h := m.bodyHeight()
	listW := m.listWidth()
	list := m.resultList(listW-2, h-2)
	paneL := m.st.Pane
	if m.focus == focusList {
		paneL = m.st.PaneFocused
	}
	left := paneL.Width(listW).Height(h).Render(list)
	paneR := m.st.Pane
	if m.focus == focusPreview {
		paneR = m.st.PaneFocused
	}
	right := paneR.Width(m.width - listW).Height(h).Render(m.preview.view(m))
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// resultList draws the results, two lines each: badge, location and
// score; then the symbol or first line.
func (m *Model) resultList(w, h int) string {
	var lines []string
	switch {
	case m.err != nil:
		lines = append(lines, m.st.Error.Render(wrapText("error: "+m.err.Error(), w)))
	case m.stats != nil && m.stats.Chunks == 0:
		lines = append(lines, "The index is empty.", "", "Crawl something first:",
			"  coderag crawl --repo-path DIR", "  coderag crawl --tui --repo-path DIR")
	case m.resQuery == "" && m.input.Value() == "":
		lines = append(lines, m.st.Dim.Render("Type to search everything at once."), "",
			m.st.Dim.Render("getUserProfile"), m.st.Dim.Render("redis OOMKilled cart"),
			m.st.Dim.Render("type:runbook rollback"), m.st.Dim.Render("service:cart lang:go"), "",
			m.st.Dim.Render("esc then g: service graph"))
	case len(m.res.Hits) == 0 && m.pending == 0 && m.resQuery != "":
		lines = append(lines, "no results for "+m.resQuery)
	}
	for _, wn := range m.res.Warnings {
		lines = append(lines, m.st.Warning.Render(truncate("! "+wn, w)))
	}
	if len(lines) > 0 && len(m.res.Hits) == 0 {
		return strings.Join(lines, "\n")
	}
	rows := max((h-len(lines))/2, 1)
	words := map[string]bool{}
	for _, wd := range codetok.Words(m.res.Text) {
		words[wd] = true
	}
	for i := m.offset; i < len(m.res.Hits) && i < m.offset+rows; i++ {
		hit := m.res.Hits[i]
		c := hit.Chunk.Printable()
		score := fmt.Sprintf("%.3f", hit.Score)
		room := w - 11 - len(score) - 1
		top := m.st.badge(c.Corpus) + " " + truncate(summary(c, words, room), room)
		top = padRight(top, w-len(score)) + m.st.Dim.Render(score)
		service := ""
		if c.ServiceName != "" && c.Corpus != core.ConvoSlack {
			service = c.ServiceName
		}
		// why: a pasted trace's frame, a request's route, its handler, a
		// pod's workload, a qualified name's declaration.
		sub := "  " + whereLine(service, c.Location(), hit.Explain.PinnedKind(), w-2)
		if i == m.cursor {
			top, sub = m.st.Selected.Render(padRight(ansiStrip(top), w)), m.st.Selected.Render(padRight(sub, w))
		} else {
			sub = m.st.Dim.Render(sub)
		}
		lines = append(lines, top, sub)
	}
	return strings.Join(lines, "\n")
}

// whereLine is a hit's second line, "service · location · why", in width
// cells: a long location loses its start (the file name and lines stay),
// the service and the why stay whole while the location keeps a dozen
// cells; narrower, the whole line loses its start.
func whereLine(service, loc, why string, width int) string {
	var head, tail string
	if service != "" {
		head = service + " · "
	}
	if why != "" {
		tail = " · " + why
	}
	if room := width - lipgloss.Width(head) - lipgloss.Width(tail); room >= 12 {
		return head + truncateLeft(loc, room) + tail
	}
	return truncateLeft(head+loc+tail, width)
}

// timePrefix is the "[2024-03-14 14:02] @alice: " of a conversation line.
var timePrefix = regexp.MustCompile(`^\[[^\]]{1,25}\] @?[^:]{1,60}?: `)

// summary is a hit's one-line title in about width cells: its symbols
// (those holding the query's words first, core.SymbolTitle), a
// document's heading, a message's text.
func summary(c core.Chunk, words map[string]bool, width int) string {
	if c.SymbolName != "" {
		return core.SymbolTitle(c.SymbolName, words, width)
	}
	l := firstLine(stripFrontMatter(c.Text))
	switch c.Corpus {
	case core.ConvoSlack, core.ConvoTranscript, core.ConvoOther:
		l = timePrefix.ReplaceAllString(l, "")
	case core.DocReadme, core.DocRunbook, core.DocADR, core.DocGoogle:
		l = strings.TrimLeft(l, "# ")
	}
	return l
}
