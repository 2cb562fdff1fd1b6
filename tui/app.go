// Package tui is coderag's terminal UI: live hybrid search over every
// corpus, highlighted previews, the service graph with blast radius and
// incident context, and the crawl progress view. It reads the index only
// through the small interfaces below, which cmd wires to the store.
package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"coderag/core"
	"coderag/core/discover"
	"coderag/core/graph"
	"coderag/core/ingest"
	"coderag/core/search"
)

// Backend is what the TUI reads from an index besides searches; sqlite.DB
// implements it. Its methods are called from several goroutines.
type Backend interface {
	Stats(ctx context.Context) (core.Stats, error)
	Chunk(ctx context.Context, id string) (core.Chunk, error)
	Graph(ctx context.Context) (*graph.Graph, error)
	// Mentions returns the conversation and doc chunks that mention a
	// service, newest first (older release notes last), and how many there are in all.
	Mentions(ctx context.Context, service string, limit int) ([]core.Chunk, int, error)
}

// Searcher runs searches; search.Engine implements it.
type Searcher interface {
	Search(ctx context.Context, q search.Query) (search.Result, error)
}

// CrawlFunc runs a crawl and reports through progress, which may be called
// from several goroutines and never blocks.
type CrawlFunc func(ctx context.Context, progress func(core.Event)) (ingest.Summary, error)

// Options configure the app. Backend and Fast are required.
type Options struct {
	Backend Backend
	// Fast answers first (BM25 only); Full, when set, refines the answer
	// (hybrid with dense vectors and reranking).
	Fast, Full Searcher
	// Recrawl is the incremental re-crawl of the index's sources that
	// Keys.Recrawl starts; nil turns the key off.
	Recrawl CrawlFunc
	// StartCrawl, when set, runs at start in the crawl view
	// (coderag crawl --tui).
	StartCrawl CrawlFunc
	// Ask answers a question with a language model (the a key); nil
	// turns the key into a note on how to enable it.
	Ask AskFunc
	// DB is the database path shown in the status bar.
	DB     string
	Styles Styles
	Keys   KeyMap
	// Debounce is how long typing must pause before a search (default
	// 30ms); K is how many results are fetched (default 50).
	Debounce time.Duration
	K        int
	// Query is typed into the search box at start.
	Query string
	// ReadFile reads a source file for previews (default: the file as
	// UTF-8, decoded as the crawl decodes it).
	ReadFile func(path string) ([]byte, error)
	// Editor is the command `e` runs (default $VISUAL, $EDITOR, vi).
	Editor string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

type mode int

const (
	modeSearch mode = iota
	modeGraph
	modeCrawl
	modeAsk
)

type focus int

const (
	focusInput focus = iota
	focusList
	focusPreview
)

// Messages. Results carry the sequence number of the query they answer.
type (
	debounceMsg struct{ seq int }
	resultsMsg  struct {
		seq   int
		stage string // "bm25" or "hybrid"
		res   search.Result
		err   error
	}
	statsMsg struct {
		stats core.Stats
		err   error
	}
	graphMsg struct {
		g   *graph.Graph
		err error
	}
	mentionsMsg struct {
		service string
		chunks  []core.Chunk
		total   int
		err     error
		done    bool
	}
	fileMsg struct {
		path string
		data []byte
		err  error
	}
	evidenceMsg struct {
		key    string
		chunks []core.Chunk
		err    error
	}
	editorDoneMsg struct{ err error }
	noticeMsg     struct{ text string }
)

// Model is the root model of the app.
type Model struct {
	opts Options
	keys KeyMap
	st   Styles
	help help.Model

	ctx    context.Context
	cancel context.CancelFunc

	width, height int
	mode          mode
	focus         focus
	fullHelp      bool

	input    textinput.Model
	seq      int // the latest query's sequence number
	pending  int // searches of seq still running
	res      search.Result
	resSeq   int
	resStage string
	resQuery string
	err      error
	// searchCancel cancels the searches of the previous query.
	searchCancel context.CancelFunc
	cursor       int
	offset       int
	types        [len(typeFilters)]bool
	explain      bool

	files   map[string][]byte // source files read for previews
	fileErr map[string]error
	preview preview

	stats    *core.Stats
	statsErr error
	graph    graphView
	crawl    crawlView
	ask      askView
	notice   string
}

// New returns the app model.
func New(opts Options) *Model {
	if opts.Debounce <= 0 {
		opts.Debounce = 30 * time.Millisecond
	}
	if opts.K <= 0 {
		opts.K = 50
	}
	if opts.ReadFile == nil {
		opts.ReadFile = readSource
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Keys.Quit.Keys() == nil {
		opts.Keys = DefaultKeyMap()
	}
	if opts.Styles.Badge == nil {
		opts.Styles = DefaultStyles(true, false)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Model{opts: opts, keys: opts.Keys, st: opts.Styles, help: help.New(), ctx: ctx, cancel: cancel,
		width: 80, height: 24, files: map[string][]byte{}, fileErr: map[string]error{}}
	m.help.Styles = help.DefaultStyles(opts.Styles.Dark)
	m.input = textinput.New()
	m.input.Prompt = "❯ "
	m.input.Placeholder = "search code, deploy files, runbooks, Slack…  (type:runbook service:cart lang:go path:src/**)"
	is := m.input.Styles()
	is.Cursor.Blink = false // a steady cursor: no redraw twice a second
	m.input.SetStyles(is)
	m.input.SetValue(opts.Query)
	m.input.CursorEnd()
	m.input.Focus()
	m.graph = newGraphView()
	m.crawl = newCrawlView()
	m.keys.Recrawl.SetEnabled(opts.Recrawl != nil)
	m.layout()
	return m
}

// Init loads the stats and the graph, runs the start query or crawl.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadStats(), m.loadGraph(), tea.RequestBackgroundColor}
	if m.opts.Query != "" {
		cmds = append(cmds, m.runSearch(m.seq))
	}
	if m.opts.StartCrawl != nil {
		m.mode = modeCrawl
		cmds = append(cmds, m.startCrawl(m.opts.StartCrawl))
	}
	return tea.Batch(cmds...)
}

func (m *Model) loadStats() tea.Cmd {
	b, ctx := m.opts.Backend, m.ctx
	return func() tea.Msg {
		s, err := b.Stats(ctx)
		return statsMsg{s, err}
	}
}

func (m *Model) loadGraph() tea.Cmd {
	b, ctx := m.opts.Backend, m.ctx
	return func() tea.Msg {
		g, err := b.Graph(ctx)
		return graphMsg{g, err}
	}
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.BackgroundColorMsg:
		if !m.st.NoColor && msg.IsDark() != m.st.Dark {
			m.st = DefaultStyles(msg.IsDark(), false)
			m.help.Styles = help.DefaultStyles(msg.IsDark())
			m.preview.invalidate()
			m.graph.preview.invalidate()
		}
		return m, nil
	case debounceMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		return m, m.runSearch(msg.seq)
	case resultsMsg:
		return m, m.applyResults(msg)
	case statsMsg:
		if msg.err != nil {
			m.statsErr = msg.err
		} else {
			s := msg.stats
			m.stats, m.statsErr = &s, nil
		}
		return m, nil
	case graphMsg:
		m.graph.setGraph(msg.g, msg.err)
		return m, m.graphSelectionChanged()
	case mentionsMsg:
		m.graph.setMentions(msg)
		return m, nil
	case fileMsg:
		if msg.err != nil {
			m.fileErr[msg.path] = msg.err
		} else {
			m.files[msg.path] = msg.data
		}
		m.preview.invalidate()
		m.graph.preview.invalidate()
		m.ask.preview.invalidate()
		return m, nil
	case evidenceMsg:
		return m, m.graph.setEvidence(m, msg)
	case editorDoneMsg:
		if msg.err != nil {
			m.notice = "editor: " + msg.err.Error()
		}
		return m, nil
	case noticeMsg:
		m.notice = msg.text
		return m, nil
	case crawlEventsMsg:
		m.crawl.apply(msg.events)
		if msg.final {
			return m, nil
		}
		return m, m.crawl.wait()
	case askDeltaMsg:
		m.ask.answer += msg.text
		return m, m.waitAsk()
	case askDoneMsg:
		m.ask.running, m.ask.err = false, msg.err
		if msg.err == nil {
			m.ask.answer, m.ask.cites, m.ask.cursor = msg.res.Answer, msg.res.Citations, 0
			return m, m.showCitation()
		}
		return m, nil
	case crawlDoneMsg:
		m.crawl.finish(msg, m.opts.Now())
		return m, tea.Batch(m.loadStats(), m.loadGraph(), m.rerun())
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	}
	if m.focus == focusInput && m.mode == modeSearch {
		return m, m.updateInput(msg)
	}
	return m, nil
}

// handleKey routes a key: global keys first, then the mode's.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	m.notice = ""
	k := m.keys
	typing := m.mode == modeSearch && m.focus == focusInput
	switch {
	case key.Matches(msg, k.ForceQuit):
		m.cancel()
		return tea.Quit
	case key.Matches(msg, k.Help) && (!typing || m.input.Value() == ""):
		// In an empty search box "?" is a request for help, not a query.
		m.fullHelp = !m.fullHelp
		m.layout()
		return nil
	case key.Matches(msg, k.Quit) && !typing:
		m.cancel()
		return tea.Quit
	case key.Matches(msg, k.Search):
		if !typing {
			m.mode = modeSearch
			return m.setFocus(focusInput)
		}
	case key.Matches(msg, k.Recrawl) && m.opts.Recrawl != nil:
		if m.crawl.running {
			m.mode = modeCrawl
			return nil
		}
		m.mode = modeCrawl
		m.setFocus(focusList)
		return m.startCrawl(m.opts.Recrawl)
	case key.Matches(msg, k.Graph) && !typing && m.mode != modeGraph:
		m.mode = modeGraph
		m.input.Blur()
		return m.graphSelectionChanged()
	case key.Matches(msg, k.Crawl) && !typing && m.mode != modeCrawl:
		m.mode = modeCrawl
		m.input.Blur()
		return nil
	case key.Matches(msg, k.Ask) && !typing && m.mode == modeSearch:
		return m.startAsk()
	}
	switch m.mode {
	case modeGraph:
		return m.graphKey(msg)
	case modeCrawl:
		if key.Matches(msg, k.Back) {
			m.mode = modeSearch
			return m.setFocus(focusList)
		}
		m.crawl.key(k, msg)
		return nil
	case modeAsk:
		return m.askKey(msg)
	}
	return m.searchKey(msg)
}

// Stop cancels what the app runs in the background (searches, a crawl)
// and waits for a crawl to give up, so that the caller can close the
// database the crawl writes. Call it after the program ends.
func (m *Model) Stop() {
	m.cancel()
	if m.crawl.over != nil {
		<-m.crawl.over
	}
}

// setFocus moves the focus in the search mode.
func (m *Model) setFocus(f focus) tea.Cmd {
	m.focus = f
	if f == focusInput {
		return m.input.Focus()
	}
	m.input.Blur()
	return nil
}

// startCrawl runs fn in the background; its events come back as
// crawlEventsMsg and its end as crawlDoneMsg.
func (m *Model) startCrawl(fn CrawlFunc) tea.Cmd {
	return m.crawl.start(m.ctx, fn, m.opts.Now())
}

// layout sizes the panes for the window.
func (m *Model) layout() {
	w := max(m.width, 20)
	m.input.SetWidth(max(w-lipgloss.Width(m.input.Prompt)-34, 10))
	m.help.SetWidth(w)
	bodyH := m.bodyHeight()
	listW := m.listWidth()
	m.preview.setSize(w-listW, bodyH)
	m.ask.preview.setSize(w-listW, bodyH)
	m.graph.setSize(w, bodyH)
}

// bodyHeight is the height between the search box and the status bar.
func (m *Model) bodyHeight() int {
	h := m.height - 3 // search line, status bar, help line
	if m.fullHelp {
		h -= lipgloss.Height(m.fullHelpView()) - 1
	}
	return max(h, 3)
}

// fullHelpView lays the help's groups out in as many rows as the width
// needs, so that every key is on screen at 80 columns.
func (m *Model) fullHelpView() string {
	var rows []string
	var row []string
	width := 0
	const gap = "    "
	for _, g := range m.FullHelp() {
		col := m.help.FullHelpView([][]key.Binding{g})
		w := lipgloss.Width(col)
		if len(row) > 0 && width+len(gap)+w > m.width {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, width = nil, 0
		}
		if len(row) > 0 {
			row = append(row, gap)
			width += len(gap)
		}
		row = append(row, col)
		width += w
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	return strings.Join(rows, "\n")
}

func (m *Model) listWidth() int {
	w := max(m.width, 20)
	return min(max(w*2/5, 30), w-20)
}

// View draws the app.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "coderag"
	return v
}

// Render draws the app as a string: the first frame, golden tests.
func (m *Model) Render() string {
	var body string
	switch m.mode {
	case modeGraph:
		body = m.graph.view(m)
	case modeCrawl:
		body = m.crawl.view(m.st, m.width, m.bodyHeight(), m.opts.Now())
	case modeAsk:
		body = m.askBody()
	default:
		body = m.searchBody()
	}
	body = fitBlock(body, m.width, m.bodyHeight())
	helpView := m.help.ShortHelpView(m.ShortHelp())
	if m.fullHelp {
		helpView = m.fullHelpView()
	}
	out := strings.Join([]string{m.topLine(), body, m.statusLine(), helpView}, "\n")
	return fitBlock(out, m.width, m.height)
}

// topLine is the search box with the result count and latency, or the
// title of the graph and crawl views.
func (m *Model) topLine() string {
	right := ""
	switch {
	case m.pending > 0:
		right = "searching…"
	case m.resQuery != "":
		right = fmt.Sprintf("%d %s · %s · %s", len(m.res.Hits), pluralWord(len(m.res.Hits), "result", "results"),
			m.res.Took.Round(100*time.Microsecond), listsLabel(m.res.Lists))
	}
	switch m.mode {
	case modeGraph:
		return m.st.Title.Render("service graph") + m.st.Dim.Render("  "+m.graph.title())
	case modeCrawl:
		return m.st.Title.Render("crawl") + m.st.Dim.Render("  "+m.crawl.title())
	case modeAsk:
		state := "answered"
		if m.ask.running {
			state = "answering…"
		}
		return m.st.Title.Render("ask") + m.st.Dim.Render("  "+state)
	}
	left := m.input.View()
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return truncate(left, m.width)
	}
	return left + strings.Repeat(" ", gap) + m.st.Dim.Render(right)
}

// listsLabel says what answered: "hybrid" when the dense list ran, else
// "bm25" (an index without vectors answers the full search with BM25 too).
func listsLabel(lists []string) string {
	for _, l := range lists {
		if l == "dense" {
			return "hybrid"
		}
	}
	return "bm25"
}

// statusLine shows the database, its size, the filters and the last crawl.
func (m *Model) statusLine() string {
	parts := []string{m.opts.DB}
	switch {
	case m.statsErr != nil:
		parts = append(parts, "error: "+m.statsErr.Error())
	case m.stats != nil:
		parts = append(parts, fmt.Sprintf("%s %s · %d %s · %d %s", thousands(m.stats.Chunks), pluralWord(m.stats.Chunks, "chunk", "chunks"),
			len(m.stats.Sources), pluralWord(len(m.stats.Sources), "source", "sources"), m.stats.Services, pluralWord(m.stats.Services, "service", "services")))
		if r := m.stats.LastRun; r != nil {
			parts = append(parts, "crawled "+ago(m.opts.Now().Sub(r.Finished))+" ago")
		}
	}
	if f := m.filterText(); f != "" {
		parts = append(parts, "filter "+f)
	}
	if m.crawl.running {
		parts = append(parts, "crawling: "+m.crawl.title())
	}
	if m.notice != "" {
		parts = append(parts, m.notice)
	}
	if m.err != nil {
		parts = append(parts, "error: "+m.err.Error())
	}
	line := " " + strings.Join(parts, " │ ")
	return m.st.Status.Render(padRight(truncate(line, m.width), m.width))
}

// ShortHelp returns the keys of the focused pane plus the global ones.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	switch m.mode {
	case modeGraph:
		return []key.Binding{k.Up, k.Down, k.Open, k.Blast, k.Incidents, k.Deeper, k.Back, k.Help, k.Quit}
	case modeCrawl:
		return []key.Binding{k.Back, k.Recrawl, k.Help, k.Quit}
	case modeAsk:
		return []key.Binding{k.Up, k.Down, k.PageDown, k.Back, k.Help, k.Quit}
	}
	if m.focus == focusInput {
		return []key.Binding{k.Down, k.Open, k.Back, k.NextPane, k.Recrawl, k.ForceQuit}
	}
	return []key.Binding{k.Up, k.Down, k.Open, k.Search, k.Graph, k.ToService, k.Edit, k.Copy, k.Explain, k.Help, k.Quit}
}

// FullHelp returns every key in groups.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.keys
	types := append([]key.Binding{}, k.TypeFilter[:]...)
	return [][]key.Binding{
		{k.Search, k.Back, k.NextPane, k.PrevPane, k.Help, k.Quit, k.ForceQuit},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Left, k.Right, k.Open},
		{k.Edit, k.Copy, k.Explain, k.ToService, k.Ask, k.Recrawl, k.Crawl},
		append(types, k.ClearTypes),
		{k.Graph, k.Blast, k.Incidents, k.Neighbors, k.Deeper, k.Shallower},
	}
}

// openEditor runs the editor at a file and line, suspending the app.
func (m *Model) openEditor(path string, line int) tea.Cmd {
	ed := m.opts.Editor
	if ed == "" {
		ed = os.Getenv("VISUAL")
	}
	if ed == "" {
		ed = os.Getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	args := strings.Fields(ed)
	args = append(args, "+"+strconv.Itoa(line), path)
	c := exec.Command(args[0], args[1:]...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return editorDoneMsg{err} })
}

// sourcePath is where a chunk's file is on disk, from the index's sources.
func (m *Model) sourcePath(c core.Chunk) string {
	if m.stats == nil || c.FilePath == "" {
		return ""
	}
	for _, s := range m.stats.Sources {
		if s.Name == c.RepoName {
			if s.Kind == core.SourceSlackExport {
				return ""
			}
			return filepath.Join(s.Path, filepath.FromSlash(c.FilePath))
		}
	}
	return ""
}

// readSource reads a file for previews as the crawl read it: UTF-16 and
// legacy encodings decoded to UTF-8, so lines match the indexed chunks.
func readSource(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if text, _, ok := discover.DecodeText(b); ok {
		return text, nil
	}
	return b, nil
}

// readFile loads a source file for previews once.
func (m *Model) readFile(path string) tea.Cmd {
	if path == "" {
		return nil
	}
	if _, ok := m.files[path]; ok {
		return nil
	}
	if _, ok := m.fileErr[path]; ok {
		return nil
	}
	m.files[path] = nil // in flight
	read := m.opts.ReadFile
	return func() tea.Msg {
		b, err := read(path)
		if b == nil && err == nil {
			b = []byte{}
		}
		return fileMsg{path, b, err}
	}
}

// crawlBuffer collects a crawl's events between two reads by the UI: the
// crawl never blocks on the UI and no skip or error is lost.
type crawlBuffer struct {
	mu     sync.Mutex
	events []core.Event
	notify chan struct{}
}

func (b *crawlBuffer) add(e core.Event) {
	b.mu.Lock()
	if len(b.events) < 10000 || e.Kind != core.EventProgress {
		b.events = append(b.events, e)
	}
	b.mu.Unlock()
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

func (b *crawlBuffer) take() []core.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	ev := b.events
	b.events = nil
	return ev
}
