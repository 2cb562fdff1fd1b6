package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"coderag/core"
)

// AskResult is a language model's answer and the chunks it was given.
type AskResult struct {
	Answer    string
	Citations []core.Chunk
}

// AskFunc answers a question with a language model (coderag ask's
// pipeline), streaming the answer's text through onDelta.
type AskFunc func(ctx context.Context, question string, onDelta func(string)) (AskResult, error)

// askView is the ask pane: the question, the answer as it streams, and
// the evidence it cites, each selectable into the preview.
type askView struct {
	question string
	answer   string
	cites    []core.Chunk
	cursor   int
	running  bool
	err      error
	ch       chan tea.Msg
	preview  preview
}

type askDeltaMsg struct{ text string }

type askDoneMsg struct {
	res AskResult
	err error
}

// startAsk asks the search box's question in the ask pane.
func (m *Model) startAsk() tea.Cmd {
	q := strings.TrimSpace(m.input.Value())
	switch {
	case m.opts.Ask == nil:
		m.notice = "a needs --llm-url and --llm-model"
		return nil
	case q == "":
		m.notice = "type a question first"
		return nil
	case m.ask.running:
		m.mode = modeAsk
		return nil
	}
	m.mode = modeAsk
	m.input.Blur()
	m.ask = askView{question: q, running: true, ch: make(chan tea.Msg, 256), preview: m.ask.preview}
	m.ask.preview.setChunks(nil, "") // sized by layout; empty until the evidence comes
	ch, fn, ctx := m.ask.ch, m.opts.Ask, m.ctx
	go func() {
		res, err := fn(ctx, q, func(s string) { ch <- askDeltaMsg{s} })
		ch <- askDoneMsg{res, err}
	}()
	return m.waitAsk()
}

// waitAsk delivers the ask's next message.
func (m *Model) waitAsk() tea.Cmd {
	ch := m.ask.ch
	return func() tea.Msg { return <-ch }
}

func (m *Model) askKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		m.mode = modeSearch
		return m.setFocus(focusList)
	case key.Matches(msg, k.Up) && m.ask.cursor > 0:
		m.ask.cursor--
		return m.showCitation()
	case key.Matches(msg, k.Down) && m.ask.cursor < len(m.ask.cites)-1:
		m.ask.cursor++
		return m.showCitation()
	case key.Matches(msg, k.PageDown), key.Matches(msg, k.PageUp), key.Matches(msg, k.Left), key.Matches(msg, k.Right):
		m.ask.preview.key(k, msg)
	}
	return nil
}

// showCitation puts the selected citation into the preview, loading its
// file for context.
func (m *Model) showCitation() tea.Cmd {
	if len(m.ask.cites) == 0 {
		return nil
	}
	c := m.ask.cites[m.ask.cursor]
	m.ask.preview.setChunks([]core.Chunk{c}, "")
	return m.readFile(m.sourcePath(c))
}

// askBody draws the ask pane: question, answer and evidence on the left,
// the selected evidence on the right.
func (m *Model) askBody() string {
	h := m.bodyHeight()
	listW := m.listWidth()
	w := listW - 2
	a := m.ask
	var lines []string
	lines = append(lines, m.st.Title.Render(truncate("ask: "+a.question, w)), "")
	switch {
	case a.err != nil:
		lines = append(lines, m.st.Error.Render(wrapText("error: "+a.err.Error(), w)))
	case a.answer == "" && a.running:
		lines = append(lines, m.st.Dim.Render("asking…"))
	default:
		lines = append(lines, wrapText(a.answer, w))
	}
	if len(a.cites) > 0 {
		lines = append(lines, "", m.st.Dim.Render("evidence (↑/↓ to preview):"))
		for i, c := range a.cites {
			line := truncate(m.st.badge(c.Corpus)+" "+c.Location(), w)
			if i == a.cursor {
				line = m.st.Selected.Render(padRight(line, w))
			}
			lines = append(lines, line)
		}
	}
	left := m.st.PaneFocused.Width(listW).Height(h).Render(fitBlock(strings.Join(lines, "\n"), w, h-2))
	right := m.st.Pane.Width(m.width - listW).Height(h).Render(m.ask.preview.view(m))
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}
