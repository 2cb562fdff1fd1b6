package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"coderag/core"
)

// Styles are every style the TUI draws with, in one place. DefaultStyles
// builds them for a dark or light terminal; with NoColor only bold,
// underline and reverse remain.
type Styles struct {
	NoColor bool
	Dark    bool
	// ChromaStyle and GlamourStyle name the highlighting and Markdown
	// styles that match the background ("" with NoColor: no highlighting).
	ChromaStyle, GlamourStyle string

	App         lipgloss.Style
	Title       lipgloss.Style
	Prompt      lipgloss.Style
	Pane        lipgloss.Style // a pane's border
	PaneFocused lipgloss.Style
	Selected    lipgloss.Style
	Dim         lipgloss.Style
	Error       lipgloss.Style
	Warning     lipgloss.Style
	Status      lipgloss.Style
	Key         lipgloss.Style
	Match       lipgloss.Style // matched lines' gutter marker
	LineNo      lipgloss.Style
	Author      lipgloss.Style
	Box         lipgloss.Style // a service box in the graph
	BoxFocused  lipgloss.Style
	Edge        lipgloss.Style
	Badge       map[string]lipgloss.Style // corpus badge by short name
	BarFull     color.Color
	BarEmpty    color.Color
}

// DefaultStyles returns the styles for a dark (or light) background, or
// colourless ones.
func DefaultStyles(dark, noColor bool) Styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	s := Styles{NoColor: noColor, Dark: dark}
	base := lipgloss.NewStyle()
	if noColor {
		s.App = base
		s.Title = base.Bold(true)
		s.Prompt = base.Bold(true)
		s.Pane = base.Border(lipgloss.NormalBorder())
		s.PaneFocused = base.Border(lipgloss.ThickBorder())
		s.Selected = base.Reverse(true)
		s.Dim = base
		s.Error = base.Bold(true)
		s.Warning = base
		s.Status = base.Reverse(true)
		s.Key = base.Bold(true)
		s.Match = base.Bold(true)
		s.LineNo = base
		s.Author = base.Bold(true)
		s.Box = base.Border(lipgloss.NormalBorder()).Padding(0, 1)
		s.BoxFocused = base.Border(lipgloss.ThickBorder()).Padding(0, 1).Bold(true)
		s.Edge = base
		s.Badge = map[string]lipgloss.Style{}
		s.GlamourStyle = "notty"
		return s
	}
	accent := c("#5A56E0", "#8B87FF")
	dim := c("#8A8A8A", "#6C6C6C")
	s.ChromaStyle = "github"
	s.GlamourStyle = "light"
	if dark {
		s.ChromaStyle = "monokai"
		s.GlamourStyle = "dark"
	}
	s.App = base
	s.Title = base.Bold(true).Foreground(accent)
	s.Prompt = base.Bold(true).Foreground(accent)
	s.Pane = base.Border(lipgloss.RoundedBorder()).BorderForeground(dim)
	// Focus shows by the border's shape as well as its colour, for
	// colour-blind eyes and monochrome screenshots.
	s.PaneFocused = base.Border(lipgloss.ThickBorder()).BorderForeground(accent)
	s.Selected = base.Background(c("#E4E2FF", "#3A3768")).Foreground(c("#1A1A1A", "#FFFFFF")).Bold(true)
	s.Dim = base.Foreground(dim)
	s.Error = base.Foreground(c("#C0392B", "#FF6B6B")).Bold(true)
	s.Warning = base.Foreground(c("#B7791F", "#F6C177"))
	s.Status = base.Background(c("#E8E8E8", "#262626")).Foreground(c("#333333", "#D0D0D0"))
	s.Key = base.Foreground(accent).Bold(true)
	s.Match = base.Foreground(c("#D97706", "#FBBF24")).Bold(true)
	s.LineNo = base.Foreground(dim)
	s.Author = base.Foreground(c("#0E7490", "#67E8F9")).Bold(true)
	s.Box = base.Border(lipgloss.RoundedBorder()).BorderForeground(dim).Padding(0, 1)
	s.BoxFocused = base.Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1).Bold(true)
	s.Edge = base.Foreground(dim)
	s.BarFull = accent
	s.BarEmpty = dim
	badge := func(light, darkc string) lipgloss.Style { return base.Foreground(c(light, darkc)).Bold(true) }
	s.Badge = map[string]lipgloss.Style{
		"code":       badge("#1D4ED8", "#60A5FA"),
		"deploy":     badge("#047857", "#34D399"),
		"config":     badge("#0F766E", "#5EEAD4"),
		"docs":       badge("#6D28D9", "#C4B5FD"),
		"runbook":    badge("#B45309", "#FBBF24"),
		"adr":        badge("#7C3AED", "#A78BFA"),
		"gdoc":       badge("#6D28D9", "#C4B5FD"),
		"slack":      badge("#BE185D", "#F472B6"),
		"transcript": badge("#9D174D", "#F9A8D4"),
		"convo":      badge("#9D174D", "#F9A8D4"),
	}
	return s
}

// badge is the corpus-type badge of a chunk, padded to one width.
func (s Styles) badge(c core.CorpusType) string {
	short := c.Short()
	st, ok := s.Badge[short]
	if !ok {
		st = lipgloss.NewStyle()
	}
	return st.Render(padRight(short, 10))
}
