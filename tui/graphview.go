package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"coderag/core"
	"coderag/core/graph"
)

// The right side of the graph view.
type graphSub int

const (
	subNeighbors graphSub = iota // callers -> [service] -> callees, drawn
	subBlast                     // what breaks when it is down, as a tree
	subIncidents                 // newest conversations and docs about it
	subEvidence                  // the chunks behind an edge, or one mention
)

// gLine is a line of the right side; row >= 0 makes it selectable.
type gLine struct {
	text string
	row  int
}

// gRow is what a selectable line stands for.
type gRow struct {
	edge  *graph.Edge
	chunk *core.Chunk
}

// graphView is the service list and, for the selected service, its
// neighbours, blast radius or incident context.
type graphView struct {
	g              *graph.Graph
	err            error
	ix             *graph.Index // every edge, by who depends on whom
	names          []string
	longest        int // the longest name's length, for the list's width
	cursor, offset int
	sub, prevSub   graphSub
	right          bool // focus on the right side
	rows           []gRow
	rowCursor      int
	rowOffset      int
	depth          int
	mentions       map[string]mentionsMsg
	preview        preview
	evKey          string
	width, height  int
}

func newGraphView() graphView {
	return graphView{depth: 3, mentions: map[string]mentionsMsg{}}
}

var kindRank = map[string]int{graph.KindService: 0, graph.KindIngress: 1, graph.KindDatabase: 2, graph.KindCache: 3,
	graph.KindQueue: 4, graph.KindExternal: 5, graph.KindUnresolved: 6}

func (v *graphView) setGraph(g *graph.Graph, err error) {
	sel := v.selected()
	v.g, v.err = g, err
	v.names, v.longest = nil, 0
	if g == nil {
		return
	}
	v.ix = g.Index(0)
	for _, s := range g.Services {
		// Targets nobody could resolve are not nodes to browse: they are
		// listed under the service that calls them.
		if s.Kind != graph.KindUnresolved {
			v.names = append(v.names, s.Name)
			v.longest = max(v.longest, len(s.Name))
		}
	}
	sort.SliceStable(v.names, func(i, j int) bool {
		a, b := g.Service(v.names[i]), g.Service(v.names[j])
		if kindRank[a.Kind] != kindRank[b.Kind] {
			return kindRank[a.Kind] < kindRank[b.Kind]
		}
		return a.Name < b.Name
	})
	v.mentions = map[string]mentionsMsg{}
	v.cursor = 0
	if sel != "" {
		v.selectService(sel)
	}
	v.setSize(v.width, v.height) // the list's width follows its names
}

func (v *graphView) selected() string {
	if v.cursor < 0 || v.cursor >= len(v.names) {
		return ""
	}
	return v.names[v.cursor]
}

// selectService moves the cursor to a service by name or alias.
func (v *graphView) selectService(name string) bool {
	if v.g == nil {
		return false
	}
	s := v.g.Lookup(name)
	if s == nil {
		return false
	}
	for i, n := range v.names {
		if n == s.Name {
			v.cursor = i
			v.sub, v.right, v.rowCursor, v.rowOffset = subNeighbors, false, 0, 0
			return true
		}
	}
	return false
}

func (v *graphView) setSize(w, h int) {
	v.width, v.height = w, h
	v.preview.setSize(w-v.listWidth(), h)
}

// listWidth is the service list's width: a third of the screen, wider
// (up to 40 columns or half the screen) when a name needs it.
func (v *graphView) listWidth() int {
	return max(min(max(v.width/3, v.longest+11), 40, v.width/2), min(26, v.width))
}

func (v *graphView) title() string {
	switch {
	case v.err != nil:
		return "error: " + v.err.Error()
	case v.g == nil:
		return "loading…"
	}
	return v.g.Counts().String() + " · n↑ services depend on it, n↓ it depends on"
}

func (v *graphView) setMentions(msg mentionsMsg) { v.mentions[msg.service] = msg }

// graphSelectionChanged loads what the right side needs for the selected
// service.
func (m *Model) graphSelectionChanged() tea.Cmd {
	v := &m.graph
	name := v.selected()
	v.rowCursor, v.rowOffset = 0, 0
	if name == "" || v.sub != subIncidents {
		return nil
	}
	if _, ok := v.mentions[name]; ok {
		return nil
	}
	v.mentions[name] = mentionsMsg{service: name}
	b, ctx := m.opts.Backend, m.ctx
	return func() tea.Msg {
		cs, total, err := b.Mentions(ctx, name, 50)
		return mentionsMsg{service: name, chunks: cs, total: total, err: err, done: true}
	}
}

// graphKey handles a key in the graph mode.
func (m *Model) graphKey(msg tea.KeyPressMsg) tea.Cmd {
	v := &m.graph
	k := m.keys
	if v.g != nil && v.sub != subEvidence {
		v.rightView(m, v.width-v.listWidth()-2, v.height-2) // the selectable rows as drawn
	}
	if v.sub == subEvidence && v.right {
		switch {
		case key.Matches(msg, k.Back):
			v.sub = v.prevSub
			return nil
		case key.Matches(msg, k.Edit):
			if len(v.preview.chunks) > 0 {
				c := v.preview.chunks[0]
				if p := m.sourcePath(c); p != "" {
					return m.openEditor(p, c.LineStart)
				}
			}
			return nil
		}
		v.preview.key(k, msg)
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		if v.right {
			v.right = false
			return nil
		}
		m.mode = modeSearch
		return m.setFocus(focusList)
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.PrevPane):
		v.right = !v.right && len(v.rows) > 0
		return nil
	case key.Matches(msg, k.Blast):
		v.sub = subBlast
		return m.graphSelectionChanged()
	case key.Matches(msg, k.Incidents):
		v.sub = subIncidents
		return m.graphSelectionChanged()
	case key.Matches(msg, k.Neighbors):
		v.sub = subNeighbors
		return m.graphSelectionChanged()
	case key.Matches(msg, k.Deeper):
		v.depth = min(v.depth+1, 9)
		return nil
	case key.Matches(msg, k.Shallower):
		v.depth = max(v.depth-1, 1)
		return nil
	}
	if v.right {
		switch {
		case key.Matches(msg, k.Up):
			v.rowCursor = max(v.rowCursor-1, 0)
		case key.Matches(msg, k.Down):
			v.rowCursor = min(v.rowCursor+1, max(len(v.rows)-1, 0))
		case key.Matches(msg, k.PageUp):
			v.rowCursor = max(v.rowCursor-10, 0)
		case key.Matches(msg, k.PageDown):
			v.rowCursor = min(v.rowCursor+10, max(len(v.rows)-1, 0))
		case key.Matches(msg, k.Open):
			return m.openRow()
		}
		return nil
	}
	d := 0
	switch {
	case key.Matches(msg, k.Up):
		d = -1
	case key.Matches(msg, k.Down):
		d = 1
	case key.Matches(msg, k.PageUp):
		d = -(v.height - 2)
	case key.Matches(msg, k.PageDown):
		d = v.height - 2
	case key.Matches(msg, k.Top):
		d = -len(v.names)
	case key.Matches(msg, k.Bottom):
		d = len(v.names)
	case key.Matches(msg, k.Open):
		v.right = len(v.rows) > 0
		return nil
	}
	if d != 0 && len(v.names) > 0 {
		v.cursor = min(max(v.cursor+d, 0), len(v.names)-1)
		return m.graphSelectionChanged()
	}
	return nil
}

// openRow shows the evidence of the selected edge or the selected
// mention in the preview.
func (m *Model) openRow() tea.Cmd {
	v := &m.graph
	if v.rowCursor >= len(v.rows) {
		return nil
	}
	r := v.rows[v.rowCursor]
	if v.sub != subEvidence {
		v.prevSub = v.sub
	}
	v.sub = subEvidence
	if r.chunk != nil {
		v.preview.setChunks([]core.Chunk{*r.chunk}, "")
		v.evKey = r.chunk.ID
		return m.readFile(m.sourcePath(*r.chunk))
	}
	e := *r.edge
	title := fmt.Sprintf("%s → %s  %s", e.Source, e.Target, e.Label())
	if e.Via != "" {
		title += "  (via " + e.Via + ")"
	}
	v.preview.setChunks(nil, title)
	v.preview.focusLines = map[string]int{}
	for _, ev := range e.Evidence {
		if _, ok := v.preview.focusLines[ev.ChunkID]; !ok {
			v.preview.focusLines[ev.ChunkID] = ev.Line
		}
	}
	k := e.Key()
	v.evKey = k
	var ids []string
	for _, ev := range e.Evidence {
		if ev.ChunkID != "" && len(ids) < 8 {
			ids = append(ids, ev.ChunkID)
		}
	}
	b, ctx := m.opts.Backend, m.ctx
	return func() tea.Msg {
		var cs []core.Chunk
		for _, id := range ids {
			c, err := b.Chunk(ctx, id)
			if err != nil {
				return evidenceMsg{key: k, err: err}
			}
			cs = append(cs, c)
		}
		return evidenceMsg{key: k, chunks: cs}
	}
}

// setEvidence shows loaded evidence chunks and reads their files.
func (v *graphView) setEvidence(m *Model, msg evidenceMsg) tea.Cmd {
	if msg.key != v.evKey {
		return nil
	}
	if msg.err != nil {
		m.notice = "evidence: " + msg.err.Error()
		return nil
	}
	title, focus := v.preview.title, v.preview.focusLines
	v.preview.setChunks(msg.chunks, title)
	v.preview.focusLines = focus
	var cmds []tea.Cmd
	for _, c := range msg.chunks {
		cmds = append(cmds, m.readFile(m.sourcePath(c)))
	}
	return tea.Batch(cmds...)
}

// view draws the service list and the right side.
func (v *graphView) view(m *Model) string {
	st := m.st
	h := v.height
	lw := v.listWidth()
	if v.err != nil || v.g == nil || len(v.names) == 0 {
		msg := "loading the service graph…"
		switch {
		case v.err != nil:
			msg = "cannot read the service graph: " + v.err.Error()
		case v.g != nil:
			msg = "The graph is empty: crawl repositories with deploy files (Kubernetes, compose, Helm) first."
		}
		return st.Pane.Width(v.width).Height(h).Render(wrapText(msg, v.width-4))
	}
	left := v.serviceList(st, lw-2, h-2)
	lp, rp := st.PaneFocused, st.Pane
	if v.right {
		lp, rp = st.Pane, st.PaneFocused
	}
	rw := v.width - lw
	var right string
	if v.sub == subEvidence {
		right = v.preview.view(m)
	} else {
		right = v.rightView(m, rw-2, h-2)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, lp.Width(lw).Height(h).Render(left), rp.Width(rw).Height(h).Render(right))
}

// serviceList draws the nodes: name, language or kind, in/out degree.
func (v *graphView) serviceList(st Styles, w, h int) string {
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+h {
		v.offset = v.cursor - h + 1
	}
	// The counts line up in columns as wide as the largest of each.
	upW, downW := 1, 1
	for _, n := range v.names {
		up, down := v.ix.Degree(n)
		upW, downW = max(upW, len(strconv.Itoa(up))), max(downW, len(strconv.Itoa(down)))
	}
	var lines []string
	for i := v.offset; i < len(v.names) && i < v.offset+h; i++ {
		s := v.g.Service(v.names[i])
		what := s.Language
		if s.Kind != graph.KindService || what == "" {
			what = s.Kind
		}
		up, down := v.ix.Degree(s.Name)
		deg := fmt.Sprintf("%*d↑ %*d↓", upW, up, downW, down)
		nameW := max(w-len(what)-lipgloss.Width(deg)-3, 6)
		if len(s.Name) > nameW {
			// The name tells services apart; the language is in the
			// right pane's box.
			what = ""
			nameW = max(w-lipgloss.Width(deg)-2, 6)
		}
		line := padRight(truncate(s.Name, nameW), nameW) + " " + st.Dim.Render(padRight(what, len(what))) + " "
		line = padRight(line, w-lipgloss.Width(deg)) + deg
		if i == v.cursor {
			line = st.Selected.Render(padRight(ansiStrip(line), w))
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// rightView draws the selected service's neighbours, blast radius or
// incidents, scrolled to keep the selected row in view.
func (v *graphView) rightView(m *Model, w, h int) string {
	name := v.selected()
	var lines []gLine
	v.rows = nil
	switch v.sub {
	case subBlast:
		lines = v.blastLines(m.st, name, w)
	case subIncidents:
		lines = v.incidentLines(m.st, name, w)
	default:
		lines = v.neighborLines(m.st, name, w)
	}
	v.rowCursor = min(v.rowCursor, max(len(v.rows)-1, 0))
	sel := -1
	for i, l := range lines {
		if l.row == v.rowCursor && v.right {
			sel = i
		}
	}
	if sel >= 0 {
		if sel < v.rowOffset {
			v.rowOffset = sel
		}
		if sel >= v.rowOffset+h {
			v.rowOffset = sel - h + 1
		}
	} else if v.rowOffset > max(len(lines)-h, 0) {
		v.rowOffset = max(len(lines)-h, 0)
	}
	var out []string
	for i := v.rowOffset; i < len(lines) && i < v.rowOffset+h; i++ {
		t := truncate(lines[i].text, w)
		if i == sel {
			t = m.st.Selected.Render(padRight(ansiStrip(t), w))
		}
		out = append(out, t)
	}
	return strings.Join(out, "\n")
}

func (v *graphView) addRow(r gRow) int {
	v.rows = append(v.rows, r)
	return len(v.rows) - 1
}

// neighborLines draws who depends on the service (arrows into its box)
// and what it depends on (arrows out of it), one edge per line with its
// protocol, method and path.
func (v *graphView) neighborLines(st Styles, name string, w int) []gLine {
	s := v.g.Service(name)
	up := v.ix.Dependents(name)
	down, unresolved := v.splitUnresolved(v.ix.Dependencies(name))
	other := func(e graph.Edge, self bool) string {
		from, to := e.Dependency()
		if self {
			return from
		}
		return to
	}
	nameW := 4
	labelW := 4
	for _, e := range up {
		nameW = max(nameW, len(other(e, true)))
		labelW = max(labelW, len(e.Label()))
	}
	nameW = min(nameW, 24)
	// leave room for the box and what the service calls
	labelW = min(labelW, max(w-nameW-30, w*11/20-nameW-7, 8))
	col := 2 + nameW + 3 + labelW + 2 // the column arrows meet at
	if len(up) == 0 {
		col = 4
	}
	var out []gLine
	text := func(s string) { out = append(out, gLine{text: s, row: -1}) }
	if len(up) == 0 {
		text(st.Dim.Render("nothing depends on " + name))
	} else {
		text(st.Dim.Render(fmt.Sprintf("depend on %s (%d)", name, len(up))))
	}
	for i, e := range up {
		e := e
		corner := "┤"
		if i == 0 {
			corner = "┐"
		}
		label := truncate(e.Label(), labelW)
		line := "  " + padRight(truncate(other(e, true), nameW), nameW) + " ──" + st.Edge.Render(label) + " " +
			strings.Repeat("─", max(labelW-lipgloss.Width(label), 0)) + corner
		out = append(out, gLine{text: line, row: v.addRow(gRow{edge: &e})})
	}
	if len(up) > 0 {
		text(strings.Repeat(" ", col) + "▼")
	}
	info := []string{s.Kind}
	if s.Language != "" {
		info = append(info, s.Language)
	}
	if s.Repo != "" {
		loc := s.Repo
		if s.Directory != "" && s.Directory != "." {
			loc += "/" + s.Directory
		}
		// The packages its program imports, a file it mounts: coderag
		// graph --service lists them.
		if n := len(s.OwnedDirs()); n > 1 {
			loc += fmt.Sprintf(" +%d folders", n-1)
		}
		info = append(info, loc)
	}
	boxText := truncate(name+"  "+st.Dim.Render(strings.Join(info, " · ")), max(w-col-4, 8))
	box := st.BoxFocused.Render(boxText)
	indent := strings.Repeat(" ", max(col-2, 0))
	for _, l := range strings.Split(box, "\n") {
		text(indent + l)
	}
	if len(down) == 0 {
		text(st.Dim.Render(name + " depends on nothing the crawl found"))
	} else {
		text(strings.Repeat(" ", col) + "│" + st.Dim.Render(fmt.Sprintf("  %s depends on (%d)", name, len(down))))
		dn := 4
		for _, e := range down {
			dn = max(dn, len(other(e, false)))
		}
		dn = min(dn, 24)
		for i, e := range down {
			e := e
			branch := "├──▶ "
			if i == len(down)-1 {
				branch = "└──▶ "
			}
			line := strings.Repeat(" ", col) + branch + padRight(truncate(other(e, false), dn), dn) + "  " + st.Edge.Render(e.Label())
			out = append(out, gLine{text: line, row: v.addRow(gRow{edge: &e})})
		}
	}
	if len(unresolved) > 0 {
		// Calls whose target nobody could resolve: not dependencies, but
		// what the crawl missed, with why (enter shows the call).
		text("")
		text(st.Dim.Render(fmt.Sprintf("unresolved calls of %s (%d): the target is not in the index", name, len(unresolved))))
		for _, e := range unresolved {
			e := e
			line := "  " + st.Warning.Render(e.Target) + "  " + st.Edge.Render(e.Label()) + "  " + st.Dim.Render(e.Via)
			out = append(out, gLine{text: line, row: v.addRow(gRow{edge: &e})})
		}
	}
	return out
}

// splitUnresolved separates the edges to targets nobody could resolve.
func (v *graphView) splitUnresolved(edges []graph.Edge) (resolved, unresolved []graph.Edge) {
	for _, e := range edges {
		if t := v.g.Service(e.Target); t != nil && t.Kind == graph.KindUnresolved {
			unresolved = append(unresolved, e)
		} else {
			resolved = append(resolved, e)
		}
	}
	return resolved, unresolved
}

// blastLines draws what breaks when the service is down as a tree: each
// dependent under the service it depends on, with the edge between them.
func (v *graphView) blastLines(st Styles, name string, w int) []gLine {
	hops := v.ix.Upstream(name, v.depth)
	kids := map[string][]graph.Hop{}
	for _, h := range hops {
		kids[h.From] = append(kids[h.From], h)
	}
	var out []gLine
	out = append(out, gLine{text: st.Title.Render(name) + fmt.Sprintf(" down breaks %d %s within depth %d (+/- to change)",
		len(hops), pluralWord(len(hops), "service", "services"), v.depth), row: -1})
	if len(hops) == 0 {
		out = append(out, gLine{text: st.Dim.Render("nothing depends on " + name), row: -1})
		return out
	}
	var walk func(parent, prefix string)
	walk = func(parent, prefix string) {
		ks := kids[parent]
		for i, h := range ks {
			h := h
			branch, next := "├─▶ ", "│   "
			if i == len(ks)-1 {
				branch, next = "└─▶ ", "    "
			}
			line := prefix + branch + h.Service + "  " + st.Edge.Render(h.Edge.Label()) + st.Dim.Render(fmt.Sprintf("  depth %d", h.Depth))
			out = append(out, gLine{text: line, row: v.addRow(gRow{edge: &h.Edge})})
			walk(h.Service, prefix+next)
		}
	}
	walk(name, "")
	return out
}

// incidentLines lists the newest Slack threads, transcripts and runbooks
// that mention the service.
func (v *graphView) incidentLines(st Styles, name string, w int) []gLine {
	mm, ok := v.mentions[name]
	var out []gLine
	switch {
	case !ok || !mm.done:
		return []gLine{{text: "loading…", row: -1}}
	case mm.err != nil:
		return []gLine{{text: st.Error.Render("mentions: " + mm.err.Error()), row: -1}}
	}
	out = append(out, gLine{text: st.Dim.Render(fmt.Sprintf("conversations and docs about %s: %d, newest first", name, mm.total)), row: -1})
	for i := range mm.chunks {
		c := mm.chunks[i]
		loc := c.Location()
		if d := c.Date(); d != "" && c.Corpus != core.ConvoSlack {
			loc += " " + d
		}
		line := st.badge(c.Corpus) + " " + loc + "  " + st.Dim.Render(summary(c, nil, 60))
		out = append(out, gLine{text: line, row: v.addRow(gRow{chunk: &c})})
	}
	if more := mm.total - len(mm.chunks); more > 0 {
		out = append(out, gLine{text: st.Dim.Render(fmt.Sprintf("… %d older: coderag graph --service %s --mentions %d", more, name, mm.total)), row: -1})
	}
	return out
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
