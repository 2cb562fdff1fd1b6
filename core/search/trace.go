package search

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// Frame is one place a pasted stack trace, panic or compiler message
// names: a file path as the running program saw it (absolute, in a
// container, on Windows), a line, and the function when the format says.
type Frame struct {
	Path string
	Line int
	Func string
}

// Locator is an Index that finds files by name and the chunk at a line,
// so that a pasted stack trace finds the code its frames point at.
type Locator interface {
	// FilesNamed returns the files (repository and path) whose last path
	// component is base, at most limit of them.
	FilesNamed(ctx context.Context, base string, limit int) ([]core.FileRef, error)
	// ChunksNear returns the chunks of the file that overlap lines
	// line-window to line+window, in line order, filters applied.
	ChunksNear(ctx context.Context, file core.FileRef, line, window int, f core.Filter) ([]core.Hit, error)
}

// The frame formats of the runtimes and tools whose traces on-call
// engineers paste. Each is matched over the whole text, so that a trace
// whose line breaks were lost (a one-line search box, a log shipper)
// still parses.
var (
	// Python: File "/srv/app/views.py", line 42, in checkout
	pyFrameRE = lazyre.New(`File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?`)
	// Go: a function line, then its file:line and offset.
	//   net/http.(*Server).Serve(0xc000123000, {0x7b6e40, 0xc000010030})
	//   	/usr/local/go/src/net/http/server.go:3056 +0x3a1
	goFrameRE = lazyre.New(`(?m)^\s*(?:created by )?([^\s()]+(?:\(\*?[A-Za-z_][\w\[\], .]*\))?[^\s()]*?)(?:\([^()\n]*\))?(?: in goroutine \d+)?\s*\n\s+(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?`)
	// JVM: at com.shop.cart.CartService.add(CartService.java:42), with or
	// without a module prefix (java.base/...).
	jvmFrameRE = lazyre.New(`\bat\s+(?:[\w.$-]+/)*([\w$]+(?:\.[\w$<>]+)+)\(([\w$-]+\.(?:java|kt|scala|groovy|clj)):(\d+)\)`)
	// .NET: at Shop.Cart.CartService.Add(Int32 id) in /src/Cart/CartService.cs:line 42
	dotnetFrameRE = lazyre.New(`\bat\s+([\w.` + "`" + `<>+\[\],$]+?)\([^()\n]*\)\s+in\s+(.+?\.(?:cs|fs|vb)):line\s+(\d+)`)
	// Node: at CartService.add (/app/src/cart.js:42:13), at /app/src/cart.js:42:13
	nodeFrameRE = lazyre.New(`\bat\s+(?:async\s+)?(?:([^\s()]+(?: \[as [^\]\s]+\])?)\s+\()?(?:file://)?([^\s()]+\.(?:js|mjs|cjs|jsx|ts|tsx|mts|cts|vue)):(\d+)(?::\d+)?\)?`)
	// PHP: #0 /var/www/src/Cart.php(42): Cart->add()
	phpFrameRE = lazyre.New(`#\d+\s+(\S+\.php)\((\d+)\):\s*([^\s(]+)?`)
	// Ruby: /app/models/cart.rb:42:in 'add'
	rubyFrameRE = lazyre.New("(\\S+\\.rb):(\\d+):in [`']([^'`\\s]+)'")
	// Anything else that names a source file and a line: compiler and
	// linter output (main.go:42:13:, Cart.cs(42,13):), log lines, Rust's
	// "panicked at src/main.rs:10:5", a question about server.go:42.
	fileLineRE = lazyre.New(`((?:\b[A-Za-z]:)?[\w./\\@+~-]*\.(?:go|py|java|kt|scala|js|mjs|cjs|jsx|ts|tsx|vue|cs|fs|rs|php|rb|swift|c|cc|cpp|h|hpp|ex|exs|erl|dart))(?::(\d+)|\((\d+),\d+\)|", line (\d+))`)
	// hexRE is an address or offset of a trace (0xc000123000, +0x3a1).
	hexRE = lazyre.New(`\+?\b0x[0-9a-fA-F]+\b`)
)

// frameFormats are the runtimes' frame forms and their groups: the path,
// the line and the function (0: none).
var frameFormats = []struct {
	re             *lazyre.Regexp
	path, line, fn int
	jvm            bool // the path is the file name in the class's package
	outermostFirst bool // the innermost frame is the last (Python)
}{
	{re: pyFrameRE, path: 1, line: 2, fn: 3, outermostFirst: true},
	{re: goFrameRE, path: 2, line: 3, fn: 1},
	{re: jvmFrameRE, path: 2, line: 3, fn: 1, jvm: true},
	{re: dotnetFrameRE, path: 2, line: 3, fn: 1},
	{re: nodeFrameRE, path: 2, line: 3, fn: 1},
	{re: phpFrameRE, path: 1, line: 2, fn: 3},
	{re: rubyFrameRE, path: 1, line: 2, fn: 3},
}

// maxFrames is how many frames of a trace are looked up, and maxMatches
// how many places of each form are read from a long paste.
const (
	maxFrames  = 12
	maxMatches = 500
)

// ParseTrace returns the frames the text names, the frame where the
// failure happened first (the innermost: the last of a Python traceback,
// the first of the others), each place once.
func ParseTrace(text string) []Frame {
	frames, _ := parseTrace(text)
	return frames
}

// cut is a part of a trace's text that names a place, and the function
// it names there ("" for none).
type cut struct {
	start, end int
	fn         string
}

// parseTrace is ParseTrace, and the parts of the text that name places,
// in text order, for traceText.
func parseTrace(text string) ([]Frame, []cut) {
	type found struct {
		at int
		Frame
	}
	var all []found
	var cuts []cut
	// The parts the runtimes' formats took: the generic file:line form
	// does not take a frame again (Main.java:12 of a JVM frame).
	covered := func(at int) bool {
		for _, c := range cuts {
			if c.start <= at && at < c.end {
				return true
			}
		}
		return false
	}
	add := func(at int, path, line, fn string) {
		n, err := strconv.Atoi(line)
		if err != nil || n <= 0 || path == "" {
			return
		}
		all = append(all, found{at, Frame{Path: path, Line: n, Func: fn}})
	}
	outermostFirst := false
	for _, ff := range frameFormats {
		for _, m := range ff.re.FindAllStringSubmatchIndex(text, maxMatches) {
			path, fn := sub(text, m, ff.path), sub(text, m, ff.fn)
			cuts = append(cuts, cut{m[0], m[1], fn})
			outermostFirst = outermostFirst || ff.outermostFirst
			if ff.jvm {
				// The class's package is the file's directory:
				// com.shop.cart.CartService.add is
				// com/shop/cart/CartService.java.
				if parts := strings.Split(fn, "."); len(parts) > 2 {
					path = strings.Join(parts[:len(parts)-2], "/") + "/" + path
				}
			}
			add(m[0], path, sub(text, m, ff.line), fn)
		}
	}
	// The generic form last, for places the formats above did not take.
	for _, m := range fileLineRE.FindAllStringSubmatchIndex(text, maxMatches) {
		// A URL's host and port (https://cdn.example.com/app.js:443)
		// name no file.
		path := text[m[2]:m[3]]
		if covered(m[2]) || strings.HasPrefix(path, "//") || strings.HasSuffix(text[:m[2]], ":") {
			continue
		}
		cuts = append(cuts, cut{m[0], m[1], ""})
		add(m[0], path, sub(text, m, 2)+sub(text, m, 3)+sub(text, m, 4), "")
	}
	slices.SortFunc(cuts, func(a, b cut) int { return a.start - b.start })
	if len(all) == 0 {
		return nil, cuts
	}
	slices.SortStableFunc(all, func(a, b found) int { return a.at - b.at })
	if outermostFirst {
		slices.Reverse(all)
	}
	// Each place once: a format's frame before the generic form's
	// mention of the same place (it knows the function).
	var out []Frame
	seen := map[string]int{}
	for _, f := range all {
		f.Path = strings.ReplaceAll(strings.TrimPrefix(f.Path, "file://"), `\`, "/")
		k := f.Path + ":" + strconv.Itoa(f.Line)
		if i, ok := seen[k]; ok {
			if out[i].Func == "" {
				out[i].Func = f.Func
			}
			continue
		}
		if len(out) < maxFrames {
			seen[k] = len(out)
			out = append(out, f.Frame)
		}
	}
	return out, cuts
}

// sub is group g of match m of text, "" for group 0 or a group that did
// not take part.
func sub(text string, m []int, g int) string {
	if g == 0 || m[2*g] < 0 {
		return ""
	}
	return text[m[2*g]:m[2*g+1]]
}

// traceText is what the full-text lists search for a pasted trace: its
// messages and the frames' function names, without the paths, line
// numbers and addresses that only the frame lookup can use.
func traceText(text string, cuts []cut) string {
	var b strings.Builder
	at := 0
	for _, c := range cuts {
		if c.start < at {
			continue
		}
		// Keep the function's own name: the last part of
		// net/http.(*Server).Serve, CartService.add, Cart->add.
		b.WriteString(text[at:c.start] + " " + funcName(c.fn) + " ")
		at = c.end
	}
	b.WriteString(text[at:])
	return strings.Join(strings.Fields(hexRE.ReplaceAllString(b.String(), " ")), " ")
}

// funcName is the function's own name in a frame's qualified one.
func funcName(fn string) string {
	fn = strings.TrimSuffix(fn, "()")
	if i := strings.LastIndexAny(fn, ".:>/"); i >= 0 {
		fn = fn[i+1:]
	}
	if i := strings.IndexAny(fn, " [`<("); i >= 0 {
		fn = fn[:i]
	}
	return fn
}

// frameHits looks the frames up in the index: for each, the files whose
// path ends the most like the frame's (/usr/lib/python3/dist-packages/
// django/db/models/query.py is db/models/query.py of a crawled django),
// and the chunk holding the line; innermost frame first. A frame that
// names a file the index does not hold (the runtime's, a library's) is
// left out.
func (e *Engine) frameHits(ctx context.Context, frames []Frame, f core.Filter) ([]core.Hit, error) {
	loc, ok := e.idx.(Locator)
	if !ok || len(frames) == 0 {
		return nil, nil
	}
	var out []core.Hit
	seen := map[string]bool{}
	byBase := map[string][]core.FileRef{}
	for _, fr := range frames {
		parts := pathParts(fr.Path)
		if len(parts) == 0 {
			continue
		}
		base := parts[len(parts)-1]
		files, ok := byBase[base]
		if !ok {
			var err error
			if files, err = loc.FilesNamed(ctx, base, 200); err != nil {
				return nil, fmt.Errorf("look up %s of a pasted trace: %w", fr.Path, err)
			}
			byBase[base] = files
		}
		best, bestN := []core.FileRef(nil), 0
		for _, file := range files {
			n := suffixMatch(parts, pathParts(file.Repo+"/"+file.Path))
			switch {
			case n > bestN:
				best, bestN = []core.FileRef{file}, n
			case n == bestN && n > 0:
				best = append(best, file)
			}
		}
		name := normIdent(funcName(fr.Func))
		if name == "" && len(best) > 3 {
			// A bare server.go:42 that many files could be.
			continue
		}
		var hits []core.Hit
		for _, file := range best {
			near, err := loc.ChunksNear(ctx, file, fr.Line, frameWindow, f)
			if err != nil {
				return nil, fmt.Errorf("look up %s:%d of a pasted trace: %w", fr.Path, fr.Line, err)
			}
			if h, ok := chunkAtFrame(near, fr.Line, name); ok {
				hits = append(hits, h)
			}
		}
		// Only the file name agrees (com/shop/Main.java and the index's
		// tools/Main.java), or several files end alike (main.main of
		// /app/cmd/api/main.go, and a dozen main.go): the one chunk
		// that declares the frame's function is that frame.
		if weak := bestN == 1 && len(parts) > 1; name != "" && (weak || len(hits) > 1) {
			hits = slices.DeleteFunc(hits, func(h core.Hit) bool { return !declaresName(h, name) })
			if len(hits) > 1 {
				continue
			}
		}
		for _, h := range hits {
			if seen[h.Chunk.ID] {
				continue
			}
			seen[h.Chunk.ID] = true
			h.Lists = []core.ListRank{{List: "frames", Rank: len(out) + 1}}
			h.Explain.Frame, h.Explain.FrameLine = fmt.Sprintf("%s:%d", fr.Path, fr.Line), fr.Line
			out = append(out, h)
		}
	}
	return out, nil
}

// declaresName reports whether the hit's chunk declares name (normalized,
// normIdent); never for "".
func declaresName(h core.Hit, name string) bool {
	return name != "" && slices.Contains(symbolNames(h.Chunk.SymbolName), name)
}

// frameWindow is how many lines around a frame's line its function is
// looked for, when the code the trace ran was not the code indexed.
const frameWindow = 60

// chunkAtFrame picks, among the chunks near a frame's line, the one the
// frame means: the smallest holding the line when it declares the frame's
// function (or the frame names none); else the nearest that declares the
// function (the file changed since the trace's build); else the one
// holding the line, or the nearest.
func chunkAtFrame(near []core.Hit, line int, name string) (core.Hit, bool) {
	declares := func(h core.Hit) bool { return declaresName(h, name) }
	dist := func(h core.Hit) int {
		switch {
		case line < h.Chunk.LineStart:
			return h.Chunk.LineStart - line
		case line > h.Chunk.LineEnd:
			return line - h.Chunk.LineEnd
		}
		return 0
	}
	best := -1
	better := func(i int) bool {
		if best < 0 {
			return true
		}
		a, b := near[i], near[best]
		if da, db := dist(a), dist(b); da != db {
			return da < db
		}
		return a.Chunk.LineEnd-a.Chunk.LineStart < b.Chunk.LineEnd-b.Chunk.LineStart
	}
	for i := range near {
		if better(i) {
			best = i
		}
	}
	if best < 0 {
		return core.Hit{}, false
	}
	if name == "" || declares(near[best]) {
		return near[best], true
	}
	at := best
	best = -1
	for i := range near {
		if declares(near[i]) && better(i) {
			best = i
		}
	}
	if best >= 0 {
		return near[best], true
	}
	return near[at], true
}

// pathParts splits a path into its components, a version a package
// manager adds to a directory (module@v1.2.3, name-1.2.3) left out.
func pathParts(p string) []string {
	var out []string
	for _, s := range strings.Split(strings.ReplaceAll(p, `\`, "/"), "/") {
		if s == "" || s == "." {
			continue
		}
		out = append(out, versionless(s))
	}
	return out
}

var versionRE = lazyre.New(`(?:@v?|-v?)\d+(?:\.\d+)+(?:[-+][\w.]+)?$`)

func versionless(s string) string {
	if loc := versionRE.FindStringIndex(s); loc != nil && loc[0] > 0 {
		return s[:loc[0]]
	}
	return s
}

// suffixMatch is how many trailing components two paths share.
func suffixMatch(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// pin puts the chunks a trace's frames and a pasted request's routes
// point at first, in their order, before the other hits (each once, the
// search's own evidence kept on a pinned chunk it also found), at most k
// in all. Their scores stay above the others' so that the order holds for
// anyone who sorts by score.
func pin(pinned, hits []core.Hit, k int) []core.Hit {
	found := map[string]int{}
	for i, h := range hits {
		found[h.Chunk.ID] = i
	}
	var top float64
	for _, h := range hits {
		top = max(top, h.Score)
	}
	out := make([]core.Hit, 0, min(k, len(pinned)+len(hits)))
	taken := map[string]bool{}
	for i, ph := range pinned {
		if len(out) == k {
			break
		}
		if taken[ph.Chunk.ID] {
			continue
		}
		h := ph
		if j, ok := found[ph.Chunk.ID]; ok {
			h = hits[j]
			h.Lists = append(slices.Clone(ph.Lists), h.Lists...)
			h.Explain.Frame, h.Explain.FrameLine = ph.Explain.Frame, ph.Explain.FrameLine
			h.Explain.Route, h.Explain.RouteLine = ph.Explain.Route, ph.Explain.RouteLine
			h.Explain.Workload = ph.Explain.Workload
			h.Explain.Edge = ph.Explain.Edge
		}
		h.Score = top + float64(len(pinned)-i)*0.01
		taken[h.Chunk.ID] = true
		out = append(out, h)
	}
	for _, h := range hits {
		if len(out) == k {
			break
		}
		if !taken[h.Chunk.ID] {
			out = append(out, h)
		}
	}
	return out
}
