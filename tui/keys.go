package tui

import "charm.land/bubbles/v2/key"

// KeyMap is every key binding of the app, with the help text it shows.
// Update matches keys only through it, help is drawn from it and tests
// press its bindings, so changing a key here changes all three.
type KeyMap struct {
	// Global.
	Quit      key.Binding
	ForceQuit key.Binding
	Help      key.Binding
	Search    key.Binding
	NextPane  key.Binding
	PrevPane  key.Binding
	Back      key.Binding
	Graph     key.Binding
	Crawl     key.Binding
	Recrawl   key.Binding

	// Lists and scrolling.
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Left     key.Binding // the preview, sideways
	Right    key.Binding
	Open     key.Binding

	// Search results.
	Edit       key.Binding
	Copy       key.Binding
	Explain    key.Binding
	ToService  key.Binding
	Ask        key.Binding
	TypeFilter [6]key.Binding
	ClearTypes key.Binding

	// Graph.
	Blast     key.Binding
	Incidents key.Binding
	Neighbors key.Binding
	Deeper    key.Binding
	Shallower key.Binding
}

// typeFilters are the corpus types the number keys toggle, in key order.
var typeFilters = [6]string{"code", "deploy", "config", "doc", "slack", "transcript"}

// DefaultKeyMap returns the default bindings: vim and arrow keys.
func DefaultKeyMap() KeyMap {
	k := KeyMap{
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Search:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		NextPane:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Graph:     key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "service graph")),
		Crawl:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "crawl view")),
		Recrawl:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "re-crawl (incremental)")),

		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup/ctrl+u", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn/ctrl+d", "page down")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "bottom")),
		Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "scroll left (preview)")),
		Right:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "scroll right (preview)")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),

		Edit:       key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "open in $EDITOR")),
		Copy:       key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy path:line")),
		Explain:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "explain rank")),
		ToService:  key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "its service in the graph")),
		Ask:        key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "ask a language model")),
		ClearTypes: key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "all types")),

		Blast:     key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "blast radius")),
		Incidents: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "incidents")),
		Neighbors: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "neighbours")),
		Deeper:    key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "more depth")),
		Shallower: key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "less depth")),
	}
	for i, t := range typeFilters {
		n := string(rune('1' + i))
		k.TypeFilter[i] = key.NewBinding(key.WithKeys(n), key.WithHelp(n, "only "+t))
	}
	return k
}

// Bindings returns every binding with its name, for the key reference in
// the README and for tests.
func (k KeyMap) Bindings() []key.Binding {
	out := []key.Binding{k.Search, k.Back, k.NextPane, k.PrevPane, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom,
		k.Left, k.Right, k.Open, k.Edit, k.Copy, k.Explain, k.ToService, k.Ask}
	out = append(out, k.TypeFilter[:]...)
	return append(out, k.ClearTypes, k.Graph, k.Blast, k.Incidents, k.Neighbors, k.Deeper, k.Shallower,
		k.Crawl, k.Recrawl, k.Help, k.Quit, k.ForceQuit)
}
