package pack

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/internal/lazyre"
	"coderag/core/search"
)

// Change is a code change: its intent (a commit message or PR title) and
// the files and hunks it touches.
type Change struct {
	Title string
	Files []ChangedFile
}

// ChangedFile is a file a change touches, by its path after the change.
type ChangedFile struct {
	Path  string
	Hunks []Hunk
	// Diff is its hunks as the diff wrote them.
	Diff string
}

// Hunk is one changed region: its lines in the new file, the function
// git names in its header, and the lines it adds and removes.
type Hunk struct {
	Start, Count   int
	Context        string
	Added, Removed []string
	// Lines are the new file's lines the hunk adds, and those next to
	// which it removes lines (context lines left out).
	Lines []int
}

// hunkRE is a unified diff hunk header: @@ -a,b +c,d @@ context.
var hunkRE = lazyre.New(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@ ?(.*)$`)

// ParseDiff reads a unified diff (git diff, git format-patch, diff -u).
// The lines before the first file header are the change's message; its
// first non-empty line (less a "Subject: [PATCH]" prefix) is the title.
func ParseDiff(r io.Reader) (Change, error) {
	var ch Change
	var cur *ChangedFile
	var h *Hunk
	var message []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	inHeader := true
	next := 0 // the new file's line the next hunk line is
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			inHeader, cur, h = false, nil, nil
		case strings.HasPrefix(l, "+++ "):
			inHeader = false
			p := strings.TrimSpace(strings.TrimPrefix(l, "+++ "))
			if i := strings.IndexByte(p, '\t'); i >= 0 {
				p = p[:i]
			}
			if p == "/dev/null" {
				cur = nil // a deleted file
				continue
			}
			p = strings.TrimPrefix(strings.TrimPrefix(p, "b/"), "./")
			ch.Files = append(ch.Files, ChangedFile{Path: p})
			cur, h = &ch.Files[len(ch.Files)-1], nil
		case strings.HasPrefix(l, "--- ") && h == nil:
			inHeader = false
		case inHeader:
			message = append(message, l)
		case cur != nil && strings.HasPrefix(l, "@@"):
			m := hunkRE.FindStringSubmatch(l)
			if m == nil {
				return ch, fmt.Errorf("diff line %d: bad hunk header %q", n, l)
			}
			start, _ := strconv.Atoi(m[1])
			count := 1
			if m[2] != "" {
				count, _ = strconv.Atoi(m[2])
			}
			cur.Hunks = append(cur.Hunks, Hunk{Start: start, Count: count, Context: strings.TrimSpace(m[3])})
			h = &cur.Hunks[len(cur.Hunks)-1]
			next = start
			cur.Diff += l + "\n"
		case h != nil && strings.HasPrefix(l, "+"):
			h.Added = append(h.Added, l[1:])
			h.Lines = append(h.Lines, next)
			next++
			cur.Diff += l + "\n"
		case h != nil && strings.HasPrefix(l, "-"):
			h.Removed = append(h.Removed, l[1:])
			h.Lines = append(h.Lines, next)
			cur.Diff += l + "\n"
		case h != nil && (strings.HasPrefix(l, " ") || l == ""):
			next++
			cur.Diff += l + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		return ch, fmt.Errorf("read diff: %w", err)
	}
	ch.Title = title(message)
	if len(ch.Files) == 0 {
		return ch, fmt.Errorf("read diff: no file changes in it (a unified diff has +++ lines)")
	}
	return ch, nil
}

// title is a change's intent from the lines before its first file: a
// format-patch Subject (less "[PATCH n/m]"), else the first line that is
// not a header of git log or format-patch.
func title(message []string) string {
	clean := func(l string) string {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[PATCH") {
			if i := strings.IndexByte(l, ']'); i >= 0 {
				l = strings.TrimSpace(l[i+1:])
			}
		}
		return l
	}
	for _, l := range message {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "Subject:"); ok {
			return clean(rest)
		}
	}
	for _, l := range message {
		l = strings.TrimSpace(l)
		if l == "" || l == "---" {
			continue
		}
		header := false
		for _, h := range []string{"From ", "From:", "Date:", "commit ", "Author:", "Merge:", "index ", "Signed-off-by:"} {
			header = header || strings.HasPrefix(l, h)
		}
		if !header {
			return clean(l)
		}
	}
	return ""
}

// PR query weights (seed 003): the intent, a directory hot spot, a
// snippet of changed code.
const (
	weightIntent  = 1.0
	weightDir     = 0.8
	weightSnippet = 1.2
)

// identRE finds identifiers in changed lines.
var identRE = lazyre.New(`[A-Za-z_][A-Za-z0-9_]{2,}`)

// prQuery is one query a change is decomposed into.
type prQuery struct {
	text   string
	weight float64
}

// queries decomposes a change: its title; per directory, the title (or
// the changed files' names) among that directory's files; per hunk, the
// identifiers its header and changed lines hold.
func (ch Change) queries() []prQuery {
	var out []prQuery
	if ch.Title != "" {
		out = append(out, prQuery{ch.Title, weightIntent})
	}
	dirs := map[string][]string{}
	var order []string
	for _, f := range ch.Files {
		d := path.Dir(f.Path)
		if _, ok := dirs[d]; !ok {
			order = append(order, d)
		}
		dirs[d] = append(dirs[d], strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path)))
	}
	for _, d := range order {
		text := ch.Title
		if text == "" {
			text = strings.Join(dirs[d], " ")
		}
		if d != "." {
			text += " path:" + d + "/**"
		}
		out = append(out, prQuery{text, weightDir})
	}
	for _, f := range ch.Files {
		for _, h := range f.Hunks {
			seen := map[string]bool{}
			var words []string
			for _, l := range append(append([]string{h.Context}, h.Added...), h.Removed...) {
				for _, w := range identRE.FindAllString(l, -1) {
					if !seen[w] && !commonWord[strings.ToLower(w)] {
						seen[w] = true
						words = append(words, w)
					}
				}
			}
			if len(words) > 0 {
				out = append(out, prQuery{strings.Join(words[:min(len(words), 12)], " "), weightSnippet})
			}
		}
	}
	return out
}

// commonWord are keywords that say nothing about what changed.
var commonWord = map[string]bool{"func": true, "return": true, "err": true, "nil": true, "the": true, "and": true, "var": true,
	"const": true, "let": true, "def": true, "self": true, "this": true, "new": true, "public": true, "private": true,
	"static": true, "void": true, "string": true, "int": true, "true": true, "false": true, "null": true, "await": true,
	"async": true, "if": true, "else": true, "for": true, "import": true, "from": true}

// BuildPR packs the context of a change: the change itself (its hunks, up
// to half the budget), the indexed chunks it changes, the
// callers of the routes those chunks serve (in other services, with the
// evidence line), then the best hits of the queries the change is
// decomposed into (run concurrently, fused by weight, then reranked by
// seed 003's path priorities); the services
// block gives the services whose code changed with their blast radius.
func BuildPR(ctx context.Context, s Searcher, st Store, g *graph.Graph, ch Change, o Options) (Pack, error) {
	o = o.withDefaults()
	title := ch.Title
	if title == "" {
		title = fmt.Sprintf("change to %d files", len(ch.Files))
	}
	p := Pack{Query: title, Budget: o.Budget, Format: o.Format}
	var diff strings.Builder
	for _, f := range ch.Files {
		diff.WriteString("--- a/" + f.Path + "\n+++ b/" + f.Path + "\n" + f.Diff)
	}
	p.Diff = strings.TrimSuffix(diff.String(), "\n")
	if core.EstimateTokens(p.Diff) > o.Budget/2 {
		// The change itself may take half the budget; the rest is context.
		lines := strings.Split(p.Diff, "\n")
		for len(lines) > 1 && core.EstimateTokens(strings.Join(lines, "\n")) > o.Budget/2 {
			lines = lines[:len(lines)*3/4]
		}
		p.Diff = strings.Join(lines, "\n") + "\n" + elision + " (the diff goes on)"
	}
	seen := map[string]bool{}
	var forced []Piece
	changedServices := []string{}
	var changedRoutes []graph.Route
	for _, f := range ch.Files {
		cs, err := st.FileChunks(ctx, f.Path, 2000)
		if err != nil {
			return p, err
		}
		for _, c := range cs {
			if c.FilePath != f.Path || !touches(c, f.Hunks) || seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			forced = append(forced, Piece{Chunk: c, Forced: true})
			if c.ServiceName != "" && !slices.Contains(changedServices, c.ServiceName) {
				changedServices = append(changedServices, c.ServiceName)
			}
			if g != nil {
				for _, r := range g.Routes {
					if r.ChunkID == c.ID {
						changedRoutes = append(changedRoutes, r)
					}
				}
			}
		}
	}
	// Callers of the changed routes, in the services that call them.
	var callers []string
	if g != nil {
		for _, r := range changedRoutes {
			for _, e := range g.Edges {
				if e.Target != r.Service || e.Path != r.Path || (e.Method != r.Method && r.Method != "ANY") {
					continue
				}
				for _, ev := range e.Evidence {
					callers = appendOnce(callers, fmt.Sprintf("%s calls %s %s at %s/%s:%d", e.Source, e.Method, e.Path, ev.Repo, ev.File, ev.Line))
					if ev.ChunkID == "" || seen[ev.ChunkID] {
						continue
					}
					c, err := st.Chunk(ctx, ev.ChunkID)
					if err != nil {
						continue // the evidence's chunk is gone: the line is listed
					}
					seen[c.ID] = true
					forced = append(forced, Piece{Chunk: c, Forced: true})
				}
			}
		}
	}
	// The decomposed queries, concurrently, fused by weighted reciprocal
	// rank.
	qs := ch.queries()
	results := make([]search.Result, len(qs))
	errs := make([]error, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = s.Search(ctx, search.Query{Text: q.text, K: o.Candidates})
		}()
	}
	wg.Wait()
	score := map[string]float64{}
	chunks := map[string]core.Chunk{}
	for i, res := range results {
		if errs[i] != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("query %q: %v", qs[i].text, errs[i]))
			continue
		}
		p.Warnings = append(p.Warnings, res.Warnings...)
		for rank, h := range res.Hits {
			score[h.Chunk.ID] += qs[i].weight / float64(60+rank+1)
			chunks[h.Chunk.ID] = h.Chunk
		}
	}
	var ranked []Piece
	for id, sc := range score {
		if !seen[id] {
			// Seed 003's priority rerank: service, handler, api, auth
			// code up, tests, mocks and fixtures down.
			ranked = append(ranked, Piece{Chunk: chunks[id], Score: sc * search.PathPriority(chunks[id])})
		}
	}
	sort.Slice(ranked, func(i, j int) bool {
		if ranked[i].Score != ranked[j].Score {
			return ranked[i].Score > ranked[j].Score
		}
		return ranked[i].Chunk.ID < ranked[j].Chunk.ID
	})
	ranked = ranked[:min(len(ranked), o.Candidates)]
	for _, pc := range ranked {
		seen[pc.Chunk.ID] = true
	}
	if g != nil && !o.NoServices {
		ix := g.Index(0)
		for _, n := range changedServices {
			if g.Service(n) == nil {
				continue
			}
			sv := Describe(g, ix, n, true)
			for _, c := range callers {
				if strings.Contains(c, " "+n+" ") || strings.HasPrefix(c, n+" ") {
					continue
				}
				sv.Callers = appendOnce(sv.Callers, c)
			}
			p.Services = append(p.Services, sv)
		}
	}
	var words []string
	for _, q := range qs {
		if q.weight == weightSnippet {
			words = append(words, strings.Fields(q.text)...)
		}
	}
	return p.fill(forced, ranked, words)
}

// touches reports whether a chunk holds a line a hunk adds, or the place
// of lines it removes.
func touches(c core.Chunk, hunks []Hunk) bool {
	for _, h := range hunks {
		for _, l := range h.Lines {
			if c.LineStart <= l && l <= c.LineEnd {
				return true
			}
		}
	}
	return false
}
