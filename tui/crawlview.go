package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"

	"coderag/core"
	"coderag/core/ingest"
)

type (
	crawlEventsMsg struct {
		events []core.Event
		final  bool
	}
	crawlDoneMsg struct {
		sum ingest.Summary
		err error
	}
)

// crawlSource is the progress of one source.
type crawlSource struct {
	name        string
	path        string
	phase       core.Phase
	done, total int
	chunks      int
	bytes       int64
	start, last time.Time
	finished    bool
	unchanged   bool
}

// crawlView shows a crawl: a bar per source and for embedding, rates and
// ETAs, and the files that were skipped or failed. It is driven by the
// same core events as the headless crawl's output.
type crawlView struct {
	running           bool
	started, finished time.Time
	buf               *crawlBuffer
	over              chan struct{}
	sources           []*crawlSource
	byName            map[string]*crawlSource
	embed             crawlSource
	link              bool
	compact           bool
	problems          []core.Event
	skips, warns      int
	errs              int
	sum               *ingest.Summary
	err               error
	offset            int
}

func newCrawlView() crawlView { return crawlView{byName: map[string]*crawlSource{}} }

// start runs fn: one Cmd runs the crawl, another carries its events.
func (v *crawlView) start(ctx context.Context, fn CrawlFunc, now time.Time) tea.Cmd {
	*v = newCrawlView()
	v.running, v.started = true, now
	v.buf = &crawlBuffer{notify: make(chan struct{}, 1)}
	v.over = make(chan struct{})
	buf, over := v.buf, v.over
	run := func() tea.Msg {
		sum, err := fn(ctx, buf.add)
		close(over)
		return crawlDoneMsg{sum, err}
	}
	return tea.Batch(run, v.wait())
}

// wait returns the next batch of events; after a notification it lets
// more gather for a moment, so that a fast crawl is drawn at ~20 fps.
func (v *crawlView) wait() tea.Cmd {
	if v.buf == nil || !v.running {
		return nil
	}
	buf, over := v.buf, v.over
	return func() tea.Msg {
		select {
		case <-buf.notify:
			select {
			case <-time.After(50 * time.Millisecond):
			case <-over:
			}
			return crawlEventsMsg{events: buf.take()}
		case <-over:
			return crawlEventsMsg{events: buf.take(), final: true}
		}
	}
}

func (v *crawlView) source(name string) *crawlSource {
	s, ok := v.byName[name]
	if !ok {
		s = &crawlSource{name: name}
		v.byName[name] = s
		v.sources = append(v.sources, s)
	}
	return s
}

// apply folds events into the view.
func (v *crawlView) apply(events []core.Event) {
	for _, e := range events {
		switch e.Kind {
		case core.EventSourceStart:
			s := v.source(e.Source)
			s.start, s.path, s.phase = e.Time, e.Path, core.PhaseDiscover
		case core.EventSourceDone:
			s := v.source(e.Source)
			s.finished, s.last = true, e.Time
			s.done, s.total, s.chunks, s.bytes = e.FilesDone, e.FilesTotal, e.Chunks, e.Bytes
		case core.EventProgress:
			switch e.Phase {
			case core.PhaseEmbed:
				if v.embed.start.IsZero() {
					v.embed.start = e.Time
				}
				v.embed.phase, v.embed.done, v.embed.total, v.embed.last = e.Phase, e.FilesDone, e.FilesTotal, e.Time
			case core.PhaseLink:
				v.link = true
			case core.PhaseCompact:
				v.compact = true
			default:
				s := v.source(e.Source)
				if s.start.IsZero() {
					s.start = e.Time
				}
				s.phase, s.done, s.total, s.chunks, s.bytes, s.last = e.Phase, e.FilesDone, e.FilesTotal, e.Chunks, e.Bytes, e.Time
			}
		case core.EventSkip, core.EventWarning, core.EventError:
			switch e.Kind {
			case core.EventSkip:
				v.skips++
			case core.EventWarning:
				v.warns++
			default:
				v.errs++
			}
			if len(v.problems) < 1000 {
				v.problems = append(v.problems, e)
			}
		}
	}
}

// finish records the end of the crawl.
func (v *crawlView) finish(msg crawlDoneMsg, now time.Time) {
	v.running, v.finished = false, now
	v.sum, v.err = &msg.sum, msg.err
	for _, s := range msg.sum.Sources {
		cs := v.source(s.Source.Name)
		cs.finished = true
		cs.unchanged = s.UpToDate
		cs.done, cs.total, cs.chunks = s.Files, s.Files, s.ChunkCount()
	}
}

func (v *crawlView) key(k KeyMap, msg tea.KeyPressMsg) {
	switch {
	case key.Matches(msg, k.Up):
		v.offset = max(v.offset-1, 0)
	case key.Matches(msg, k.Down):
		v.offset = min(v.offset+1, max(len(v.problems)-1, 0))
	}
}

func (v *crawlView) title() string {
	switch {
	case v.running:
		return fmt.Sprintf("running · %d %s", len(v.sources), pluralWord(len(v.sources), "source", "sources"))
	case v.sum != nil && v.err != nil:
		return "failed: " + v.err.Error()
	case v.sum != nil:
		return fmt.Sprintf("done in %s", v.sum.Duration.Round(time.Millisecond))
	}
	return "no crawl in this session"
}

// view draws the bars, rates and problems.
func (v *crawlView) view(st Styles, w, h int, now time.Time) string {
	var lines []string
	if !v.running && v.sum == nil {
		lines = append(lines, "No crawl has run in this session.", "",
			"ctrl+r re-crawls the index's sources incrementally (changed files only);",
			"coderag crawl --tui --repo-path DIR crawls new sources with this view.")
		return strings.Join(lines, "\n")
	}
	elapsed := now.Sub(v.started)
	if !v.running {
		elapsed = v.finished.Sub(v.started)
	}
	head := fmt.Sprintf("%s · %s elapsed", v.title(), elapsed.Round(100*time.Millisecond))
	lines = append(lines, st.Title.Render(head), "")
	nameW := 12
	for _, s := range v.sources {
		nameW = max(nameW, min(len(s.name), 24))
	}
	barW := min(max(w/4, 10), 30)
	bar := progress.New(progress.WithWidth(barW), progress.WithoutPercentage(), progress.WithColors(st.BarFull, st.BarEmpty))
	if st.NoColor {
		bar = progress.New(progress.WithWidth(barW), progress.WithoutPercentage(), progress.WithFillCharacters('#', '.'))
	}
	row := func(name string, s *crawlSource, unit string) string {
		pct := 0.0
		if s.total > 0 {
			pct = float64(s.done) / float64(s.total)
		}
		if s.finished {
			pct = 1
		}
		line := padRight(truncate(name, nameW), nameW) + " " + bar.ViewAs(pct) + " "
		switch {
		case s.unchanged:
			return line + "unchanged"
		case s.finished && unit == "files":
			return line + fmt.Sprintf("done: %s %s, %s %s in %s", thousands(s.done), pluralWord(s.done, "file", "files"),
				thousands(s.chunks), pluralWord(s.chunks, "chunk", "chunks"), s.last.Sub(s.start).Round(time.Millisecond))
		}
		info := fmt.Sprintf("%s %s/%s %s", s.phase, thousands(s.done), thousands(s.total), unit)
		if unit == "files" {
			info += fmt.Sprintf(" · %s chunks", thousands(s.chunks))
		}
		if secs := s.last.Sub(s.start).Seconds(); secs > 0.3 && s.done > 0 {
			rate := float64(s.done) / secs
			info += fmt.Sprintf(" · %.0f %s/s", rate, unit)
			if s.bytes > 0 {
				info += fmt.Sprintf(" · %.1f MB/s", float64(s.bytes)/secs/1e6)
			}
			if s.total > s.done && rate > 0 {
				info += " · ETA " + (time.Duration(float64(s.total-s.done)/rate) * time.Second).Round(time.Second).String()
			}
		}
		return line + info
	}
	for _, s := range v.sources {
		lines = append(lines, truncate(row(s.name, s, "files"), w))
	}
	if v.embed.total > 0 {
		e := v.embed
		e.finished = !v.running
		if e.finished {
			e.done = e.total
		}
		lines = append(lines, truncate(row("embed", &e, "chunks"), w))
	}
	if v.link {
		lines = append(lines, padRight("link", nameW)+" conversations and docs joined to the services they mention")
	}
	if v.compact {
		lines = append(lines, padRight("compact", nameW)+" the full-text indexes and vectors compacted: many chunks were removed since the last time")
	}
	if v.sum != nil {
		s := v.sum
		files, chunks := 0, 0
		for _, src := range s.Sources {
			files += src.Files
			chunks += src.ChunkCount()
		}
		lines = append(lines, "", fmt.Sprintf("indexed %s files, %s chunks in %s; the search pane now shows the new index",
			thousands(files), thousands(chunks), s.Duration.Round(time.Millisecond)))
		if v.err != nil {
			lines = append(lines, st.Error.Render("error: "+v.err.Error()))
		}
	}
	lines = append(lines, "", st.Title.Render(fmt.Sprintf("problems: %d skipped, %d warnings, %d errors", v.skips, v.warns, v.errs)))
	room := h - len(lines)
	for i := v.offset; i < len(v.problems) && room > 0; i++ {
		e := v.problems[i]
		text := fmt.Sprintf("%s %s/%s: %s", e.Kind, e.Source, e.Path, e.Reason)
		if e.Err != nil {
			text = fmt.Sprintf("%s %s: %v", e.Kind, e.Source, e.Err)
		}
		style := st.Dim
		if e.Kind == core.EventError {
			style = st.Error
		}
		lines = append(lines, truncate(style.Render(text), w))
		room--
	}
	return strings.Join(lines, "\n")
}
