package pack

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// XML writes the pack in seed 004's XML-like markup: a <codeRag:chunk>
// per file with <codeRag:metadata>, <codeRag:commentary> and
// <codeRag:content>, then <codeRag:services> and <codeRag:dropped>.
// Content is verbatim (not entity-escaped: a model reads code as written);
// a closing tag inside it is broken up so that it cannot end the element.
func (p *Pack) XML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<codeRag:context query=%q budget=\"%d\">\n", p.Query, p.Budget)
	if p.Diff != "" {
		b.WriteString("<codeRag:change>\n" + strings.ReplaceAll(p.Diff, "</codeRag:", "</ codeRag:") + "\n</codeRag:change>\n")
	}
	for _, f := range p.Files {
		b.WriteString("<codeRag:chunk>\n<codeRag:metadata>\n")
		for _, kv := range f.metadata() {
			fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
		}
		b.WriteString("</codeRag:metadata>\n")
		if com := f.commentary(); len(com) > 0 {
			b.WriteString("<codeRag:commentary>\n" + strings.Join(com, "\n") + "\n</codeRag:commentary>\n")
		}
		b.WriteString("<codeRag:content>\n")
		b.WriteString(strings.ReplaceAll(f.content(), "</codeRag:", "</ codeRag:"))
		b.WriteString("\n</codeRag:content>\n</codeRag:chunk>\n")
	}
	if len(p.Services) > 0 {
		b.WriteString("<codeRag:services>\n")
		for _, s := range p.Services {
			b.WriteString(strings.Join(s.lines(), "\n") + "\n")
		}
		b.WriteString("</codeRag:services>\n")
	}
	if len(p.Dropped) > 0 {
		b.WriteString("<codeRag:dropped>\n")
		for _, l := range p.droppedLines() {
			b.WriteString(l + "\n")
		}
		b.WriteString("</codeRag:dropped>\n")
	}
	b.WriteString("</codeRag:context>\n")
	return b.String()
}

// Markdown writes the pack as Markdown: a section per file with its
// metadata, commentary and a fenced block, then the services and what was
// dropped.
func (p *Pack) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Context: %s\n\n", p.Query)
	if p.Diff != "" {
		fence := "```"
		for strings.Contains(p.Diff, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "## Change\n\n%sdiff\n%s\n%s\n\n", fence, p.Diff, fence)
	}
	for _, f := range p.Files {
		fmt.Fprintf(&b, "## %s/%s\n\n", f.Repo, f.Path)
		var meta []string
		for _, kv := range f.metadata()[2:] {
			meta = append(meta, kv[0]+": "+kv[1])
		}
		b.WriteString(strings.Join(meta, " · ") + "\n\n")
		for _, c := range f.commentary() {
			b.WriteString("> " + c + "\n")
		}
		if len(f.commentary()) > 0 {
			b.WriteString("\n")
		}
		fence := "```"
		for strings.Contains(f.content(), fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "%s%s\n%s\n%s\n\n", fence, f.Language, f.content(), fence)
	}
	if len(p.Services) > 0 {
		b.WriteString("## Services\n\n")
		for _, s := range p.Services {
			l := s.lines()
			b.WriteString("- " + l[0] + "\n")
			for _, x := range l[1:] {
				b.WriteString("  - " + strings.TrimSpace(x) + "\n")
			}
		}
		b.WriteString("\n")
	}
	if len(p.Dropped) > 0 {
		b.WriteString("## Dropped\n\n")
		for _, l := range p.droppedLines() {
			b.WriteString("- " + l + "\n")
		}
	}
	return b.String()
}

// jsonPack is the JSON form of a pack. Fields are only ever added.
type jsonPack struct {
	Query    string        `json:"query"`
	Diff     string        `json:"diff,omitempty"`
	Budget   int           `json:"budget"`
	Used     int           `json:"used_tokens"`
	Chunks   []jsonChunk   `json:"chunks"`
	Services []jsonService `json:"services"`
	Dropped  []jsonDropped `json:"dropped"`
	// DroppedCount counts every item left out; Dropped lists those the
	// budget leaves room to name.
	DroppedCount int      `json:"dropped_count"`
	Warnings     []string `json:"warnings,omitempty"`
}

type jsonChunk struct {
	ChunkID     string   `json:"chunk_id"`
	RepoName    string   `json:"repo_name"`
	FilePath    string   `json:"file_path"`
	LineStart   int      `json:"line_start"`
	LineEnd     int      `json:"line_end"`
	SymbolName  string   `json:"symbol_name"`
	ServiceName string   `json:"service_name"`
	CorpusType  string   `json:"corpus_type"`
	Score       float64  `json:"score"` // to 6 decimals: the rest is noise (freshness moves it with the clock)
	Forced      bool     `json:"forced"`
	Elided      bool     `json:"elided"`
	Text        string   `json:"text"`
	Duplicates  []string `json:"duplicates,omitempty"` // other files holding the same passage, not packed
	Why         string   `json:"why,omitempty"`        // a pasted trace's frame, a pasted request's route or handler
}

type jsonService struct {
	Name        string   `json:"name"`
	Upstream    []string `json:"upstream"`
	Downstream  []string `json:"downstream"`
	Routes      []string `json:"routes"`
	BlastRadius []string `json:"blast_radius"`
	Callers     []string `json:"callers,omitempty"`
}

type jsonDropped struct {
	ChunkID  string `json:"chunk_id,omitempty"`
	Location string `json:"location"`
	Reason   string `json:"reason"`
}

// JSON writes the pack as one JSON object (see jsonPack). used_tokens is
// the estimate of the JSON text itself, which the budget bounds.
func (p *Pack) JSON() string {
	out := jsonPack{Query: p.Query, Diff: p.Diff, Budget: p.Budget, Used: p.Used, Chunks: []jsonChunk{}, Services: []jsonService{},
		Dropped: []jsonDropped{}, Warnings: p.Warnings}
	for _, f := range p.Files {
		for _, pc := range f.Pieces {
			c := pc.Chunk
			out.Chunks = append(out.Chunks, jsonChunk{ChunkID: c.ID, RepoName: c.RepoName, FilePath: c.FilePath, LineStart: c.LineStart,
				LineEnd: c.LineEnd, SymbolName: c.SymbolName, ServiceName: c.ServiceName, CorpusType: string(c.Corpus),
				Score: math.Round(pc.Score*1e6) / 1e6, Forced: pc.Forced, Elided: pc.Elided, Text: pc.Text, Duplicates: pc.Duplicates, Why: pc.Why})
		}
	}
	for _, s := range p.Services {
		out.Services = append(out.Services, jsonService{Name: s.Name, Upstream: nonNil(s.Upstream), Downstream: nonNil(s.Downstream),
			Routes: nonNil(s.Routes), BlastRadius: nonNil(s.BlastRadius), Callers: s.Callers})
	}
	for _, d := range p.Dropped[:min(p.shown, len(p.Dropped))] {
		out.Dropped = append(out.Dropped, jsonDropped(d))
	}
	out.DroppedCount = len(p.Dropped)
	b, _ := json.MarshalIndent(out, "", "  ")
	return string(b) + "\n"
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// droppedLines name the items left out that the budget leaves room for,
// then count the others.
func (p *Pack) droppedLines() []string {
	var out []string
	for _, d := range p.Dropped[:min(p.shown, len(p.Dropped))] {
		out = append(out, fmt.Sprintf("%s (%s)", d.Location, d.Reason))
	}
	if more := len(p.Dropped) - len(out); more > 0 {
		out = append(out, fmt.Sprintf("%d more left out for the budget", more))
	}
	return out
}

// metadata are a file block's key/value lines: repo, file, lines,
// symbols, type, language, service.
func (f File) metadata() [][2]string {
	var ranges, symbols []string
	for _, pc := range f.Pieces {
		ranges = append(ranges, fmt.Sprintf("%d-%d", pc.Chunk.LineStart, pc.Chunk.LineEnd))
		if s := pc.Chunk.SymbolName; s != "" {
			symbols = appendOnce(symbols, s)
		}
	}
	out := [][2]string{{"repo", f.Repo}, {"file", f.Path}, {"lines", strings.Join(ranges, ", ")}}
	if len(symbols) > 0 {
		out = append(out, [2]string{"symbols", strings.Join(symbols, ", ")})
	}
	out = append(out, [2]string{"type", f.Corpus})
	if f.Language != "" {
		out = append(out, [2]string{"language", f.Language})
	}
	if f.Service != "" {
		out = append(out, [2]string{"service", f.Service})
	}
	return out
}

// commentary is what the index knows about a file block's pieces beyond
// their text: each one's scope and signature, and whether it was forced
// or elided.
func (f File) commentary() []string {
	var out []string
	for _, pc := range f.Pieces {
		c := pc.Chunk
		var parts []string
		if c.ContextPrefix != "" {
			parts = append(parts, "scope: "+c.ContextPrefix)
		}
		if c.Signature != "" && !strings.HasPrefix(c.Signature, "```") {
			parts = append(parts, "signature: "+c.Signature)
		}
		if pc.Why != "" {
			parts = append(parts, pc.Why)
		}
		if pc.Forced {
			parts = append(parts, "included as asked")
		}
		if pc.Elided {
			parts = append(parts, "elided to the lines that match")
		}
		if len(pc.Duplicates) > 0 {
			parts = append(parts, "the same passage is in "+strings.Join(pc.Duplicates, ", "))
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("lines %d-%d: %s", c.LineStart, c.LineEnd, strings.Join(parts, "; ")))
		}
	}
	return out
}

// content is a file block's pieces in line order; a gap between two
// pieces is an elision line.
func (f File) content() string {
	var b strings.Builder
	last := 0
	for i, pc := range f.Pieces {
		c := pc.Chunk
		if i > 0 {
			b.WriteString("\n")
			if c.LineStart > last+1 {
				b.WriteString(elision + "\n")
			}
		}
		text := pc.Text
		if i > 0 && c.LineStart <= last && c.Verbatim() && !pc.Elided {
			// Overlapping chunks: only the lines the previous one lacks.
			lines := strings.Split(text, "\n")
			skip := min(last-c.LineStart+1, len(lines))
			text = strings.Join(lines[skip:], "\n")
		}
		b.WriteString(text)
		last = max(last, c.LineEnd)
	}
	return b.String()
}

// lines describe a service: its name, then who depends on it, what it
// depends on, its routes and its blast radius.
func (s Service) lines() []string {
	out := []string{s.Name + ":"}
	add := func(what string, xs []string) {
		if len(xs) > 0 {
			out = append(out, "  "+what+": "+strings.Join(xs, "; "))
		}
	}
	add("depended on by", s.Upstream)
	add("depends on", s.Downstream)
	add("serves", s.Routes)
	add("blast radius (what breaks when it is down)", s.BlastRadius)
	add("callers of the changed routes", s.Callers)
	return out
}
