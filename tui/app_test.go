package tui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/google/go-cmp/cmp"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/ingest"
	"coderag/core/search"
)

// updating reports -update, the flag x/exp/golden (through teatest)
// defines for this test binary.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func testOptions(f *fakeIndex) Options {
	return Options{
		Backend:  f,
		Fast:     f,
		DB:       "test.db",
		Styles:   DefaultStyles(true, true),
		Debounce: time.Millisecond,
		Now:      func() time.Time { return testNow },
		ReadFile: func(p string) ([]byte, error) {
			if s, ok := testFiles[filepath.ToSlash(p)]; ok {
				return []byte(s), nil
			}
			return nil, os.ErrNotExist
		},
	}
}

// driver runs the app synchronously: every Cmd is executed and its
// message fed back, as the Bubble Tea loop would.
type driver struct {
	t *testing.T
	m *Model
}

func newDriver(t *testing.T, opts Options, w, h int) *driver {
	t.Helper()
	d := &driver{t: t, m: New(opts)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(d.m.Init())
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case tea.QuitMsg:
	default:
		if _, ok := msg.(tea.Msg); ok {
			d.send(msg)
		}
	}
}

func (d *driver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// press presses a binding of the key map (its first key).
func (d *driver) press(b key.Binding) {
	d.t.Helper()
	d.send(keyMsg(b.Keys()[0]))
}

// typeText types into the app.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+r":
		return tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func (d *driver) screen() string { return ansi.Strip(d.m.Render()) }

// golden compares got with testdata/<name>.golden (rewritten by -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

// TestPanes draws every pane at 100x30 with colours off.
func TestPanes(t *testing.T) {
	keys := DefaultKeyMap()
	tests := []struct {
		name  string
		empty bool
		w, h  int
		do    func(d *driver)
	}{
		{name: "start", do: func(d *driver) {}},
		{name: "empty_index", empty: true, do: func(d *driver) {}},
		{name: "search_code_preview", do: func(d *driver) { d.typeText("redis cart") }},
		{name: "search_small_terminal", w: 80, h: 24, do: func(d *driver) { d.typeText("redis cart") }},
		{name: "search_explain", do: func(d *driver) {
			d.typeText("redis cart")
			d.press(keys.Back)
			d.press(keys.Explain)
		}},
		{name: "search_runbook_markdown", do: func(d *driver) {
			d.typeText("restart")
			d.press(keys.Back)
		}},
		{name: "search_slack_conversation", do: func(d *driver) {
			d.typeText("OOMKilled")
			d.press(keys.Back)
		}},
		{name: "search_type_filter", do: func(d *driver) {
			d.typeText("cart")
			d.press(keys.Back)
			d.press(keys.TypeFilter[1]) // deploy
		}},
		{name: "graph_neighbours", do: func(d *driver) {
			d.press(keys.Back)
			d.press(keys.Graph)
		}},
		{name: "graph_blast_radius", do: func(d *driver) {
			d.press(keys.Back)
			d.press(keys.Graph)
			d.press(keys.Down) // redis? services sort by kind: cart, checkout, storefront, redis
			d.press(keys.Down)
			d.press(keys.Down)
			d.press(keys.Blast)
		}},
		{name: "graph_incidents", do: func(d *driver) {
			d.press(keys.Back)
			d.press(keys.Graph)
			d.press(keys.Incidents)
		}},
		{name: "graph_edge_evidence", do: func(d *driver) {
			d.press(keys.Back)
			d.press(keys.Graph)
			d.press(keys.Open)
			d.press(keys.Open)
		}},
		{name: "full_help", do: func(d *driver) {
			d.press(keys.Back)
			d.press(keys.Help)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeIndex()
			f.empty = tt.empty
			w, h := tt.w, tt.h
			if w == 0 {
				w, h = 100, 30
			}
			d := newDriver(t, testOptions(f), w, h)
			tt.do(d)
			got := d.screen()
			if n := strings.Count(got, "\n") + 1; n != h {
				t.Errorf("screen has %d lines, want %d", n, h)
			}
			for i, l := range strings.Split(got, "\n") {
				if lw := ansi.StringWidth(l); lw > w {
					t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, lw, w, l)
				}
			}
			golden(t, "TestPanes_"+tt.name, got)
		})
	}
}

// TestKeys presses bindings from the key map and checks the state.
func TestKeys(t *testing.T) {
	keys := DefaultKeyMap()
	f := newFakeIndex()
	d := newDriver(t, testOptions(f), 100, 30)
	m := d.m
	if m.focus != focusInput || m.mode != modeSearch {
		t.Fatalf("start: focus %v mode %v, want the search box", m.focus, m.mode)
	}
	d.press(keys.Help) // "?" in the empty box is help, not a query
	if !m.fullHelp || m.input.Value() != "" {
		t.Fatalf("? in the empty search box: help %v, value %q; want the help and no query", m.fullHelp, m.input.Value())
	}
	d.press(keys.Help)
	d.press(keys.Quit) // "q" while typing is text
	if m.input.Value() != "q" {
		t.Fatalf("q in the search box: value %q, want q", m.input.Value())
	}
	d.press(keys.Help) // and "?" after it is text too
	if m.fullHelp || m.input.Value() != "q?" {
		t.Fatalf("? after text: help %v, value %q; want text", m.fullHelp, m.input.Value())
	}
	d.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	d.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	d.typeText("cart")
	if len(m.res.Hits) != 4 {
		t.Fatalf("cart: %d hits, want 4", len(m.res.Hits))
	}
	d.press(keys.Back)
	if m.focus != focusList {
		t.Fatalf("esc: focus %v, want the list", m.focus)
	}
	d.press(keys.Down)
	if m.cursor != 1 {
		t.Errorf("down: cursor %d, want 1", m.cursor)
	}
	d.press(keys.Up)
	d.press(keys.Up)
	if m.cursor != 0 {
		t.Errorf("up twice: cursor %d, want 0", m.cursor)
	}
	d.press(keys.Bottom)
	if m.cursor != len(m.res.Hits)-1 {
		t.Errorf("bottom: cursor %d, want %d", m.cursor, len(m.res.Hits)-1)
	}
	d.press(keys.Top)
	d.press(keys.Open)
	if m.focus != focusPreview {
		t.Errorf("enter: focus %v, want the preview", m.focus)
	}
	d.press(keys.Back)
	d.press(keys.TypeFilter[0]) // code only
	if got := m.filterText(); got != "type:code" {
		t.Errorf("1: filter %q, want type:code", got)
	}
	for _, h := range m.res.Hits {
		if h.Chunk.Corpus != core.CodeLogic {
			t.Errorf("type:code shows a %s hit", h.Chunk.Corpus)
		}
	}
	d.press(keys.ClearTypes)
	if m.filterText() != "" || len(m.res.Hits) != 4 {
		t.Errorf("0: filter %q, %d hits; want none and 4", m.filterText(), len(m.res.Hits))
	}
	d.press(keys.Explain)
	if !m.explain {
		t.Error("x did not turn explain on")
	}
	d.press(keys.ToService)
	if m.mode != modeGraph || m.graph.selected() != "cart" {
		t.Errorf("s: mode %v service %q, want the graph at cart", m.mode, m.graph.selected())
	}
	d.press(keys.Blast)
	if m.graph.sub != subBlast {
		t.Errorf("b: sub %v, want blast", m.graph.sub)
	}
	d.press(keys.Deeper)
	if m.graph.depth != 4 {
		t.Errorf("+: depth %d, want 4", m.graph.depth)
	}
	d.press(keys.Shallower)
	d.press(keys.Shallower)
	if m.graph.depth != 2 {
		t.Errorf("- twice: depth %d, want 2", m.graph.depth)
	}
	d.press(keys.Back)
	if m.mode != modeSearch {
		t.Errorf("esc in the graph: mode %v, want search", m.mode)
	}
	d.press(keys.Search)
	if m.focus != focusInput {
		t.Errorf("/: focus %v, want the search box", m.focus)
	}
	d.press(keys.Back)
	d.press(keys.Copy)
	if !strings.Contains(m.notice, "copied services/cart/store.go:13") {
		t.Errorf("y: notice %q, want the copied path:line", m.notice)
	}
	if m.keys.Recrawl.Enabled() {
		t.Error("ctrl+r is enabled without a Recrawl function")
	}
	_, cmd := m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q outside the search box returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q outside the search box does not quit")
	}
}

// TestStaleResultsDropped: results of an older query never replace the
// newer query's, and the hybrid answer is not replaced by a late BM25 one.
func TestStaleResultsDropped(t *testing.T) {
	f := newFakeIndex()
	d := newDriver(t, testOptions(f), 100, 30)
	m := d.m
	d.typeText("cart")
	seq := m.seq
	fresh, _ := f.Search(t.Context(), searchQuery("redis"))
	old, _ := f.Search(t.Context(), searchQuery("checkout"))
	d.send(resultsMsg{seq: seq, stage: "hybrid", res: fresh})
	d.send(resultsMsg{seq: seq - 1, stage: "bm25", res: old})
	if m.resStage != "hybrid" || len(m.res.Hits) != len(fresh.Hits) {
		t.Fatalf("an older query's results replaced the newer ones: stage %s, %d hits", m.resStage, len(m.res.Hits))
	}
	d.send(resultsMsg{seq: seq, stage: "bm25", res: old})
	if m.resStage != "hybrid" || len(m.res.Hits) != len(fresh.Hits) {
		t.Errorf("a late BM25 answer replaced the hybrid one: stage %s", m.resStage)
	}
}

func searchQuery(text string) search.Query { return search.Query{Text: text, K: 50} }

// TestCrawlView draws a running crawl: a source's bar, rate and ETA, and
// a skipped file.
func TestCrawlView(t *testing.T) {
	m := New(testOptions(newFakeIndex()))
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.mode = modeCrawl
	m.crawl = newCrawlView()
	m.crawl.running, m.crawl.started = true, testNow
	m.crawl.apply([]core.Event{
		{Time: testNow, Kind: core.EventSourceStart, Source: "platform", Path: "/src/platform"},
		{Time: testNow.Add(time.Second), Kind: core.EventProgress, Phase: core.PhaseChunk, Source: "platform", FilesDone: 50, FilesTotal: 200, Chunks: 400, Bytes: 2e6},
		{Time: testNow.Add(time.Second), Kind: core.EventSkip, Source: "platform", Path: "vendor/x.go", Reason: "dependency directory"},
		{Time: testNow, Kind: core.EventSourceStart, Source: "acme-slack", Path: "/src/slack"},
		{Time: testNow.Add(time.Second), Kind: core.EventSourceDone, Source: "acme-slack", FilesDone: 12, FilesTotal: 12, Chunks: 40},
		{Time: testNow, Kind: core.EventSourceStart, Source: "postmortems", Path: "/src/postmortems"},
		{Time: testNow.Add(time.Second), Kind: core.EventSourceDone, Source: "postmortems", FilesDone: 1, FilesTotal: 1, Chunks: 1},
		{Time: testNow.Add(time.Second), Kind: core.EventProgress, Phase: core.PhaseEmbed, FilesDone: 100, FilesTotal: 440},
	})
	golden(t, "TestCrawlView_running", ansi.Strip(m.Render()))
	// The end: compacting the indexes is a line of its own, not a source.
	m.crawl.apply([]core.Event{{Time: testNow.Add(2 * time.Second), Kind: core.EventProgress, Phase: core.PhaseCompact}})
	if out := ansi.Strip(m.Render()); !strings.Contains(out, "the full-text indexes and vectors compacted") || len(m.crawl.sources) != 3 {
		t.Errorf("after the compact event, %d sources and:\n%s", len(m.crawl.sources), out)
	}
}

// TestCrawlFlow runs a crawl in the real Bubble Tea loop (teatest): its
// events reach the crawl view, none is lost, the end reloads the index.
func TestCrawlFlow(t *testing.T) {
	f := newFakeIndex()
	opts := testOptions(f)
	opts.StartCrawl = func(ctx context.Context, progress func(core.Event)) (ingest.Summary, error) {
		progress(core.Event{Time: testNow, Kind: core.EventSourceStart, Source: "platform", Path: "/src/platform"})
		for i := 1; i <= 200; i++ {
			progress(core.Event{Time: testNow.Add(time.Duration(i) * 10 * time.Millisecond), Kind: core.EventProgress, Phase: core.PhaseChunk,
				Source: "platform", FilesDone: i, FilesTotal: 200, Chunks: 2 * i})
			if i%50 == 0 {
				progress(core.Event{Time: testNow, Kind: core.EventSkip, Source: "platform", Path: fmt.Sprintf("vendor/x%d.go", i), Reason: "dependency directory"})
			}
		}
		progress(core.Event{Time: testNow.Add(3 * time.Second), Kind: core.EventError, Source: "platform", Err: errors.New("read services/broken.go: permission denied")})
		return ingest.Summary{Duration: 3 * time.Second}, nil
	}
	tm := teatest.NewTestModel(t, New(opts), teatest.WithInitialTermSize(100, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		s := ansi.Strip(string(b))
		return strings.Contains(s, "done in 3s") && strings.Contains(s, "4 skipped")
	}, teatest.WithDuration(10*time.Second))
	tm.Send(keyMsg("ctrl+c"))
	m := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if m.crawl.skips != 4 || m.crawl.errs != 1 || m.crawl.running {
		t.Errorf("crawl view: %d skips, %d errors, running %v; want 4, 1, false", m.crawl.skips, m.crawl.errs, m.crawl.running)
	}
}

// TestSearchFlow types a query in the real loop and sees the hit.
func TestSearchFlow(t *testing.T) {
	f := newFakeIndex()
	f.delay = 5 * time.Millisecond
	tm := teatest.NewTestModel(t, New(testOptions(f)), teatest.WithInitialTermSize(100, 30))
	tm.Type("redis")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(ansi.Strip(string(b)), "CartStore.Get")
	}, teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("esc"))
	tm.Send(keyMsg("g"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(ansi.Strip(string(b)), "depend on cart")
	}, teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("ctrl+c"))
	m := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if m.mode != modeGraph || m.resQuery != "redis" {
		t.Errorf("final: mode %v query %q; want graph and redis", m.mode, m.resQuery)
	}
}

// TestPreviewPlacement: the explanation opens at its top however far the
// preview was scrolled, and an edge's evidence opens with its marked line
// in view whatever the previous evidence was scrolled to.
func TestPreviewPlacement(t *testing.T) {
	keys := DefaultKeyMap()
	d := newDriver(t, testOptions(newFakeIndex()), 100, 16)
	d.typeText("cart")
	d.press(keys.Back)
	d.press(keys.Open)
	for i := 0; i < 4; i++ {
		d.press(keys.PageDown)
	}
	d.press(keys.Explain)
	if s := d.screen(); !strings.Contains(s, "why") || !strings.Contains(s, "lists:") {
		t.Errorf("explain after scrolling shows no explanation:\n%s", s)
	}
	d.press(keys.Explain)

	d.press(keys.Back)
	d.press(keys.Graph)
	d.press(keys.Open) // the right side: cart's edges
	d.press(keys.Open) // the first edge's evidence
	if s := d.screen(); !strings.Contains(s, "▶") {
		t.Fatalf("evidence opens without its marked line:\n%s", s)
	}
	for i := 0; i < 4; i++ {
		d.press(keys.PageDown)
	}
	d.press(keys.Back)
	d.press(keys.Down)
	d.press(keys.Open)
	if s := d.screen(); !strings.Contains(s, "▶") {
		t.Errorf("the next edge's evidence opens scrolled away from its marked line:\n%s", s)
	}
}

// TestFocusShowsWithoutColour: the focused pane's border differs from the
// others' in shape, not only in colour, in every theme.
func TestFocusShowsWithoutColour(t *testing.T) {
	for _, tt := range []struct{ dark, noColor bool }{{true, false}, {false, false}, {true, true}} {
		st := DefaultStyles(tt.dark, tt.noColor)
		if st.Pane.GetBorderStyle() == st.PaneFocused.GetBorderStyle() {
			t.Errorf("dark %v, no colour %v: focused and plain panes have the same border", tt.dark, tt.noColor)
		}
	}
}

// TestGraphListKeepsNames: at 80x24 a long service name is shown whole,
// at the cost of its language, so that two names with one prefix stay
// apart.
func TestGraphListKeepsNames(t *testing.T) {
	keys := DefaultKeyMap()
	f := newFakeIndex()
	g := testGraph()
	for _, n := range []string{"frontend-proxy-gateway", "frontend-proxy-admin"} {
		g.Services = append(g.Services, graph.Service{Name: n, Kind: graph.KindService, Language: "typescript"})
	}
	g.Sort()
	f.g = g
	d := newDriver(t, testOptions(f), 80, 24)
	d.press(keys.Back)
	d.press(keys.Graph)
	s := d.screen()
	for _, n := range []string{"frontend-proxy-gateway", "frontend-proxy-admin"} {
		if !strings.Contains(s, n) {
			t.Errorf("%s is cut in the graph list:\n%s", n, s)
		}
	}
}

// TestFullHelpFitsSmallTerminals: at 80x24 the full help shows every key
// (its groups wrap into rows instead of being cut).
func TestFullHelpFitsSmallTerminals(t *testing.T) {
	keys := DefaultKeyMap()
	d := newDriver(t, testOptions(newFakeIndex()), 80, 24)
	d.press(keys.Back)
	d.press(keys.Help)
	s := d.screen()
	for _, g := range d.m.FullHelp() {
		for _, b := range g {
			if !b.Enabled() {
				continue // hidden when it cannot be used (no re-crawl in this test)
			}
			if h := b.Help(); !strings.Contains(s, h.Desc) {
				t.Errorf("help for %q (%s) is not on the 80x24 screen:\n%s", h.Key, h.Desc, s)
			}
		}
	}
}

// TestPreviewSideways (issue 23, item 16): a code line wider than the
// preview is cut at its edge; →/l scrolls the code sideways (the gutter
// stays) to show its end, and ←/h back.
func TestPreviewSideways(t *testing.T) {
	keys := DefaultKeyMap()
	d := newDriver(t, testOptions(newFakeIndex()), 80, 24)
	d.typeText("cart unavailable")
	d.press(keys.Back)
	d.press(keys.Open)
	if s := d.screen(); !strings.Contains(s, "CartStore.Get") || strings.Contains(s, "ErrCartUnavailable)") {
		t.Fatalf("the preview does not show CartStore.Get with its long line cut:\n%s", s)
	}
	for i := 0; i < 8; i++ {
		d.press(keys.Right)
	}
	s := d.screen()
	if !strings.Contains(s, "ErrCartUnavailable)") || strings.Contains(s, "func (s *CartStore)") {
		t.Errorf("→ does not bring the end of the long line into view:\n%s", s)
	}
	if !strings.Contains(s, "16▶") && !strings.Contains(s, "16│") {
		t.Errorf("the gutter scrolled away with the code:\n%s", s)
	}
	for i := 0; i < 8; i++ {
		d.press(keys.Left)
	}
	if s := d.screen(); !strings.Contains(s, "func (s *CartStore) Get") {
		t.Errorf("← does not scroll back to the first column:\n%s", s)
	}
}

// TestAskPane: a on the results asks the search box's question; the answer
// streams into the ask pane, its evidence is listed and previewed, ↓
// moves to the next piece, esc goes back; without a model the key says
// how to enable it.
func TestAskPane(t *testing.T) {
	keys := DefaultKeyMap()
	opts := testOptions(newFakeIndex())
	var asked string
	opts.Ask = func(ctx context.Context, q string, onDelta func(string)) (AskResult, error) {
		asked = q
		for _, s := range []string{"Carts live ", "in Redis ", "(services/cart/store.go:13)."} {
			onDelta(s)
		}
		return AskResult{Answer: "Carts live in Redis (services/cart/store.go:13).", Citations: []core.Chunk{testChunks[0], testChunks[1]}}, nil
	}
	d := newDriver(t, opts, 100, 24)
	d.typeText("where are carts kept")
	d.press(keys.Back)
	d.press(keys.Ask)
	s := d.screen()
	if asked != "where are carts kept" || !strings.Contains(s, "Carts live in Redis") || !strings.Contains(s, "evidence") {
		t.Fatalf("ask pane after a:\n%s", s)
	}
	if !strings.Contains(s, "CartStore > Get") || !strings.Contains(s, "rdb.Get(ctx") {
		t.Errorf("the first piece of evidence is not previewed:\n%s", s)
	}
	d.press(keys.Down)
	if s := d.screen(); !strings.Contains(s, "Cart / Redis outage") {
		t.Errorf("↓ does not preview the next piece:\n%s", s)
	}
	d.press(keys.Back)
	if s := d.screen(); strings.Contains(s, "ask:") {
		t.Errorf("esc does not leave the ask pane:\n%s", s)
	}
	plain := newDriver(t, testOptions(newFakeIndex()), 100, 24)
	plain.typeText("redis")
	plain.press(keys.Back)
	plain.press(keys.Ask)
	if s := plain.screen(); !strings.Contains(s, "--llm-url") {
		t.Errorf("a without a model says nothing:\n%s", s)
	}
}

// TestReadSourceDecodes: previews read a file as the crawl did, so the
// lines of a UTF-16 file match its chunks.
func TestReadSourceDecodes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "report.sql")
	os.WriteFile(p, []byte{0xFF, 0xFE, 'S', 0, 'E', 0, 'L', 0, '\n', 0}, 0o644)
	got, err := readSource(p)
	if err != nil || string(got) != "SEL\n" {
		t.Errorf("readSource = %q, %v; want %q", got, err, "SEL\n")
	}
	if _, err := readSource(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("readSource of a missing file: no error")
	}
}

// TestPreviewNotebookAsMarkdown: a notebook chunk (Markdown with fenced
// code cells) is drawn as Markdown, not as one language's code.
func TestPreviewNotebookAsMarkdown(t *testing.T) {
	m := New(testOptions(newFakeIndex()))
	c := core.Chunk{Corpus: core.CodeLogic, Language: "jupyter", Meta: map[string]string{"format": "ipynb"},
		Text: "# Churn model\n\nWhich customers stop ordering.\n\n```python\nmodel = train_churn(orders_df)\n```"}
	lines, _ := m.preview.body(m, c, nil, 60)
	out := ansi.Strip(strings.Join(lines, "\n"))
	if strings.Contains(out, "```") || !strings.Contains(out, "model = train_churn(orders_df)") {
		t.Errorf("notebook preview is not rendered Markdown:\n%s", out)
	}
}

// TestPreviewNeverDrivesTheTerminal: a runbook, a chat message and code
// holding escape sequences (a pasted log's colours, a window title,
// clearing the screen) are drawn without them: lipgloss's own styling is
// all the preview writes.
func TestPreviewNeverDrivesTheTerminal(t *testing.T) {
	m := New(testOptions(newFakeIndex()))
	text := "# Outage\n\nThe rollout printed \x1b[31mERROR\x1b[0m then \x1b]0;owned\x07 and \x1b[2J\n"
	for _, c := range []core.Chunk{
		{Corpus: core.DocRunbook, Language: "markdown", FilePath: "runbooks/outage.md", Text: text},
		{Corpus: core.ConvoSlack, Text: "[2024-09-03 10:00] @bot: " + text},
		{Corpus: core.CodeLogic, Language: "go", FilePath: "log.go", LineStart: 1, LineEnd: 4, Text: "package x\n\nconst banner = \"\x1b]0;owned\x07\x1b[2J\"\n"},
	} {
		lines, _ := m.preview.body(m, c, nil, 80)
		out := strings.Join(lines, "\n")
		if strings.Contains(out, "\x1b]0;") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x07") || strings.Contains(out, "\x1b[31m") {
			t.Errorf("%s preview writes the text's escape sequences: %q", c.Corpus, out)
		}
	}
}

// TestExplainSaysWhyPinned: the explanation of a hit the search put
// first says why (a trace's frame, a route, a pod's workload, a
// qualified name's declaration).
func TestExplainSaysWhyPinned(t *testing.T) {
	st := DefaultStyles(true, true)
	for _, tt := range []struct {
		e    core.Explain
		want string
	}{
		{core.Explain{Frame: "/app/cart.go:13", FrameLine: 13}, "frame of the pasted trace: /app/cart.go:13"},
		{core.Explain{Route: "GET /users/{id}", RouteLine: 4}, "put first: route GET /users/{id}"},
		{core.Explain{Workload: "pod cart-7d9f8c6b5-x2k4p"}, "put first: workload of pod cart-7d9f8c6b5-x2k4p"},
		{core.Explain{Declares: "errors.Is"}, "put first: declares errors.Is"},
		{core.Explain{Edge: "web -> cart (http)"}, "evidence of the service graph's web -> cart (http)"},
		{core.Explain{}, ""},
	} {
		got := strings.Join(explainLines(st, core.Hit{Explain: tt.e}, 200), "\n")
		if tt.want != "" && !strings.Contains(got, tt.want) || tt.want == "" && strings.Contains(got, "put first") {
			t.Errorf("explain of %+v:\n%s\nwant %q", tt.e, got, tt.want)
		}
	}
}

// TestWhereLine keeps a hit's service and why whole and shortens its
// location from the left, so that a long path does not cut the service's
// name.
func TestWhereLine(t *testing.T) {
	tests := []struct {
		service, loc, why string
		width             int
		want              string
	}{
		{"cart", "shop/services/cart/store.go:10-20", "", 60, "cart · shop/services/cart/store.go:10-20"},
		{"activator", "serving/pkg/activator/net/throttler.go:454-463", "", 40, "activator · …or/net/throttler.go:454-463"},
		{"", "serving/pkg/activator/net/throttler.go:454-463", "", 30, "…ator/net/throttler.go:454-463"},
		{"cart", "shop/services/cart/handler.go:40-52", "route GET /cart/{id}", 50, "cart · …rt/handler.go:40-52 · route GET /cart/{id}"},
		// Too narrow to keep both whole: the line loses its start.
		{"activator", "serving/pkg/activator/net/throttler.go:454-463", "frame 3", 24, "…er.go:454-463 · frame 3"},
	}
	for _, tt := range tests {
		got := whereLine(tt.service, tt.loc, tt.why, tt.width)
		if got != tt.want {
			t.Errorf("whereLine(%q, %q, %q, %d) = %q, want %q", tt.service, tt.loc, tt.why, tt.width, got, tt.want)
		}
		if w := ansi.StringWidth(got); w > tt.width {
			t.Errorf("whereLine(%q, %d) is %d cells wide", tt.loc, tt.width, w)
		}
	}
}
