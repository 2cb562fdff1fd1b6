package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"coderag/core"
)

// progress prints crawl events for a headless crawl: a live status line on
// a terminal, plain periodic lines otherwise, or JSON lines with --json.
// Its event method is called from several goroutines and never blocks for
// long: output is throttled.
type progress struct {
	io      *ioStreams
	json    bool
	verbose bool
	quiet   bool // --progress none: warnings and errors only

	mu       sync.Mutex
	last     time.Time // last progress line printed
	lastLine int       // width of the live line to clear
	start    map[string]time.Time
	cur      core.Event
}

func newProgress(io *ioStreams, asJSON, verbose bool) *progress {
	return &progress{io: io, json: asJSON, verbose: verbose, start: map[string]time.Time{}}
}

type jsonEvent struct {
	Time       string `json:"time"`
	Kind       string `json:"kind"`
	Phase      string `json:"phase,omitempty"`
	Source     string `json:"source,omitempty"`
	FilesDone  int    `json:"files_done"`
	FilesTotal int    `json:"files_total"`
	Chunks     int    `json:"chunks"`
	Bytes      int64  `json:"bytes"`
	Path       string `json:"path,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Error      string `json:"error,omitempty"`
}

func (p *progress) event(e core.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Kind == core.EventSourceStart {
		p.start[e.Source] = e.Time
	}
	if p.json {
		if e.Kind == core.EventProgress && e.Time.Sub(p.last) < 200*time.Millisecond && e.FilesDone != e.FilesTotal {
			return
		}
		if e.Kind == core.EventProgress {
			p.last = e.Time
		}
		je := jsonEvent{Time: e.Time.UTC().Format(time.RFC3339Nano), Kind: string(e.Kind), Phase: string(e.Phase),
			Source: e.Source, FilesDone: e.FilesDone, FilesTotal: e.FilesTotal, Chunks: e.Chunks, Bytes: e.Bytes,
			Path: e.Path, Reason: e.Reason}
		if e.Err != nil {
			je.Error = e.Err.Error()
		}
		b, _ := json.Marshal(je)
		fmt.Fprintln(p.io.out, string(b))
		return
	}
	switch e.Kind {
	case core.EventSkip:
		if p.verbose {
			p.clear()
			fmt.Fprintf(p.io.err, "skip %s/%s: %s\n", e.Source, e.Path, e.Reason)
		}
	case core.EventWarning:
		p.clear()
		fmt.Fprintf(p.io.err, "warning %s/%s: %s\n", e.Source, e.Path, e.Reason)
	case core.EventError:
		p.clear()
		fmt.Fprintf(p.io.err, "error %s: %v\n", e.Source, e.Err)
	case core.EventSourceStart:
		if !p.io.errTTY && !p.quiet {
			fmt.Fprintf(p.io.err, "crawling %s (%s)\n", e.Source, e.Path)
		}
	case core.EventProgress:
		if e.Phase == core.PhaseLink || p.quiet {
			return // reported in the summary
		}
		p.cur = e
		interval := time.Second
		if p.io.errTTY {
			interval = 100 * time.Millisecond
		}
		if e.Time.Sub(p.last) < interval && e.Phase != core.PhaseCompact {
			return
		}
		p.last = e.Time
		p.draw()
	case core.EventSourceDone:
		p.cur = e
		if p.io.errTTY {
			p.clear()
		}
	}
}

// draw prints the current progress: one redrawn line on a terminal, one
// new line per period otherwise. Called with mu held.
func (p *progress) draw() {
	e := p.cur
	elapsed := e.Time.Sub(p.start[e.Source]).Seconds()
	rate := ""
	if elapsed > 0.2 && e.Bytes > 0 {
		rate = fmt.Sprintf(", %.1f MB/s", float64(e.Bytes)/elapsed/1e6)
	}
	text := fmt.Sprintf("%s: %s %d/%d files, %s chunks%s", e.Source, e.Phase, e.FilesDone, e.FilesTotal, thousands(e.Chunks), rate)
	switch e.Phase {
	case core.PhaseEmbed:
		text = fmt.Sprintf("embedding %d/%d chunks", e.FilesDone, e.FilesTotal)
	case core.PhaseCompact:
		text = "compacting the full-text indexes and vectors (many chunks were removed since the last time)"
	}
	if !p.io.errTTY {
		fmt.Fprintln(p.io.err, text)
		return
	}
	width := p.io.termWidth()
	barWidth := 24
	if e.FilesTotal > 0 && width > len(text)+barWidth+4 {
		filled := barWidth * e.FilesDone / e.FilesTotal
		text = "[" + strings.Repeat("=", filled) + strings.Repeat(" ", barWidth-filled) + "] " + text
	}
	if len(text) > width-1 {
		text = text[:width-1]
	}
	p.clear()
	fmt.Fprint(p.io.err, text)
	p.lastLine = len(text)
}

// clear erases the live line on a terminal. Called with mu held.
func (p *progress) clear() {
	if p.io.errTTY && p.lastLine > 0 {
		fmt.Fprint(p.io.err, "\r"+strings.Repeat(" ", p.lastLine)+"\r")
		p.lastLine = 0
	}
}

// finish clears the live line before the summary is printed.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}
