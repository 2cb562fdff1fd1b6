package chunk

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"

	"gopkg.in/yaml.v3"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// maxAliases bounds YAML alias use: more is treated as an alias bomb and
// the file is indexed as text. Parsing into nodes does not expand
// aliases, and decoding a node into values stops a billion laughs itself
// (yaml.v3: "document contains excessive aliasing"), so the bound is wide:
// test fixtures and CI files merge one anchor hundreds of times.
const maxAliases = 10_000

// parseYAMLDocs parses a (multi-document) YAML file, refusing alias bombs.
// It returns one node per document.
func parseYAMLDocs(src []byte) ([]*yaml.Node, error) {
	if n := bytes.Count(src, []byte("*")); n > maxAliases && countAliases(src) > maxAliases {
		return nil, fmt.Errorf("more than %d YAML aliases (an alias bomb?)", maxAliases)
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, &n)
	}
}

var aliasRE = lazyre.New(`(?m)(^|[\s\[,:-])\*[A-Za-z0-9_-]+`)

func countAliases(src []byte) int { return len(aliasRE.FindAll(src, -1)) }

// keyed chunks a mapping node by its keys: neighbouring small keys share a
// chunk up to the budget (symbol "a, b, c", kind "keys"), with "file > key"
// scopes; a key whose value is over the budget is chunked by its own keys
// in turn ("file > Logging > LogLevel"). end is the line after the mapping.
func (b *builder) keyed(m *yaml.Node, scope []string, end int, lineStart func(int) uint, kind string, depth int) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	g := neighbours{b: b, kind: kind, scope: scope}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		to := end
		if i+2 < len(m.Content) {
			to = m.Content[i+2].Line
		}
		start, stop := lineStart(k.Line), lineStart(to)
		size := b.tokens(start, stop)
		if size > b.c.opts.Budget {
			g.flush()
			if v.Kind == yaml.MappingNode && depth < 6 && len(v.Content) > 0 {
				// The key line itself joins the first child's chunk.
				inner := append(append([]string(nil), scope...), k.Value)
				before := len(b.pieces)
				b.keyed(v, inner, to, lineStart, kind, depth+1)
				if len(b.pieces) > before && b.pieces[before].start > start {
					b.pieces[before].start = start
				}
			} else {
				b.windows(start, stop, meta{symbol: k.Value, kind: kind, scope: scope})
			}
			continue
		}
		g.add(start, stop, k.Value)
	}
	g.flush()
}

// lineStarter returns a function from 1-based line numbers to byte offsets.
func lineStarter(src []byte) func(int) uint {
	lines := newLineIndex(src)
	return func(l int) uint {
		if l <= 1 {
			return 0
		}
		if l-2 < len(lines) {
			return lines[l-2] + 1
		}
		return uint(len(src))
	}
}

// Config chunks configuration files by their keys and sections: JSON and
// YAML by top-level key (deeper for big values), TOML and INI by table,
// go.mod by directive, XML (.csproj, .props) by top-level element. A file
// that does not parse is cut into windows and the error is returned as a
// warning.
func (c *Chunker) Config(src []byte, base core.Chunk) (Result, string) {
	switch base.Language {
	case "json", "yaml":
		docs, err := parseYAMLDocs(src)
		if err != nil && base.Language == "json" {
			// JSON with comments and trailing commas (tsconfig.json,
			// devcontainer.json, VS Code settings): read with them
			// blanked out, lines and columns unchanged.
			if clean, ok := blankJSONC(src); ok {
				if d, err2 := parseYAMLDocs(clean); err2 == nil {
					docs, err = d, nil
				}
			}
		}
		if err != nil && base.Language == "json" {
			// JSON that YAML cannot read: surrogate pairs, \/, a raw
			// DEL (yamlEscapes), lines unchanged.
			if clean, ok := yamlEscapes(src); ok {
				if d, err2 := parseYAMLDocs(clean); err2 == nil {
					docs, err = d, nil
				}
			}
		}
		if err == nil && len(docs) == 0 {
			// Only comments (or nothing): a file with no keys, kept as
			// its text, not a fault.
			return c.fallback(src, base, ""), ""
		}
		if err != nil && base.Language == "json" && jsonStream(src) {
			// JSON Lines, or JSON values one after another (a log, an
			// export, a test's fixtures), under .json: no fault, and no
			// keys of one document to chunk by.
			return c.fallback(src, base, ""), ""
		}
		if err != nil && (isTemplate(src) || base.Language == "json" && placeholderJSON(src)) {
			// A template of the format ({{ .Shards }}, {% if %}: an
			// Elasticsearch mapping, a Nomad job's config) is not the
			// format until rendered: its text, not a fault.
			return c.fallback(src, base, ""), ""
		}
		if err != nil {
			msg := err.Error()
			if base.Language == "json" {
				// JSON is read with the YAML parser (its superset); the
				// JSON parser says what is wrong in JSON's terms.
				msg = jsonError(src, msg)
			}
			return c.fallback(src, base, "does not parse: "+msg), "indexed as text: " + msg
		}
		b := &builder{c: c, src: src, base: base}
		ls := lineStarter(src)
		for i, d := range docs {
			if len(d.Content) == 0 {
				continue
			}
			end := len(newLineIndex(src)) + 2
			if i+1 < len(docs) && len(docs[i+1].Content) > 0 {
				end = docs[i+1].Content[0].Line
			}
			b.keyed(d.Content[0], nil, end, ls, "key", 0)
		}
		b.cover()
		return Result{Chunks: b.chunks}, ""
	case "pip-requirements":
		if bytes.Contains(src, []byte("--hash=")) {
			return c.hashPinned(src, base), ""
		}
		return c.sections(src, base, tableRE), ""
	case "toml", "ini", "dotenv", "properties", "conf":
		return c.sections(src, base, tableRE), ""
	case "gomod":
		return c.sections(src, base, gomodRE), ""
	case "xml":
		return c.xmlElements(src, base), ""
	}
	return c.fallback(src, base, "no config chunker"), ""
}

// hashRE is a pip hash option and the line continuation before it.
var hashRE = lazyre.New(`[ \t]*\\?[ \t]*(?:\n[ \t]*)?--hash=[A-Za-z0-9]+:[A-Fa-f0-9]+`)

// hashPinned indexes a hash-pinned requirements file (pip-compile
// --generate-hashes) by its package names and versions: the hashes, most
// of its bytes and useless to a search, are left out of the text (lines
// kept, so line numbers stay true; Meta "format" says so).
func (c *Chunker) hashPinned(src []byte, base core.Chunk) Result {
	text := hashRE.ReplaceAllFunc(src, func(m []byte) []byte {
		return bytes.Repeat([]byte("\n"), bytes.Count(m, []byte("\n")))
	})
	r := c.fallback(text, base, "")
	for i := range r.Chunks {
		ch := &r.Chunks[i]
		if ch.Meta == nil {
			ch.Meta = map[string]string{}
		}
		ch.Meta["format"] = "requirements, hashes left out"
	}
	return r
}

var (
	tableRE = lazyre.New(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*$`)
	gomodRE = lazyre.New(`^(module|go|toolchain|require|replace|exclude|retract|godebug|tool|use)\b\s*(\S*)`)
)

// sections cuts a line-oriented file at the lines header matches; the
// first submatch names the section. Lines before the first header are a
// section of their own. Neighbouring sections share a chunk up to the
// budget (symbol "a, b", kind "sections"), as YAML's keys do.
func (c *Chunker) sections(src []byte, base core.Chunk, header *lazyre.Regexp) Result {
	b := &builder{c: c, src: src, base: base}
	g := neighbours{b: b, kind: "section"}
	start, name := uint(0), ""
	off := 0
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		if sm := header.FindSubmatch(bytes.TrimRight(line, "\r\n")); sm != nil {
			g.add(start, uint(off), name)
			start, name = uint(off), strings.TrimSpace(string(sm[1]))
			if len(sm) > 2 && len(sm[2]) > 0 && name != "require" && name != "replace" {
				name += " " + string(sm[2])
			}
		}
		off += len(line)
	}
	g.add(start, uint(len(src)), name)
	g.flush()
	b.cover()
	return Result{Chunks: b.chunks}
}

// xmlElements cuts an XML file at its top-level elements (PropertyGroup,
// ItemGroup, dependencies, ...); neighbouring elements share a chunk up
// to the budget (a pom's groupId, artifactId, version and name lines are
// one chunk, kind "elements").
func (c *Chunker) xmlElements(src []byte, base core.Chunk) Result {
	b := &builder{c: c, src: src, base: base}
	g := neighbours{b: b, kind: "element"}
	dec := xml.NewDecoder(bytes.NewReader(src))
	dec.Strict = false
	depth := 0
	var start uint
	var name string
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 {
				start, name = uint(off), t.Name.Local
			}
		case xml.EndElement:
			if depth == 2 {
				g.add(start, uint(dec.InputOffset()), name)
			}
			depth--
		}
	}
	g.flush()
	b.cover()
	return Result{Chunks: b.chunks}
}

// neighbours groups the neighbouring parts of a config file (YAML keys,
// sections, elements) into chunks up to the budget: one part keeps its
// name and kind, several are named "a, b, c" with the kind's plural; a
// part over the budget is windowed alone. A part may be empty (keys of a
// flow mapping on one line): its name still counts.
type neighbours struct {
	b          *builder
	kind       string
	scope      []string
	start, end uint
	names      []string
	parts      int
}

// add adds the part [start, end) named name ("" for none).
func (g *neighbours) add(start, end uint, name string) {
	budget := g.b.c.opts.Budget
	if g.b.tokens(start, end) > budget {
		g.flush()
		m := meta{symbol: name, kind: g.kind, scope: g.scope}
		if name == "" {
			m.kind = ""
		}
		g.b.windows(start, end, m)
		return
	}
	if g.parts > 0 && g.b.tokens(g.start, end) > budget {
		g.flush()
	}
	if g.parts == 0 {
		g.start = start
	}
	g.end = end
	g.parts++
	if name != "" {
		g.names = append(g.names, name)
	}
}

// flush emits the parts added since the last flush as one chunk.
func (g *neighbours) flush() {
	if g.parts == 0 {
		return
	}
	m := meta{scope: g.scope}
	switch len(g.names) {
	case 0:
	case 1:
		m.symbol, m.kind = g.names[0], g.kind
	default:
		m.symbol, m.kind = strings.Join(g.names, ", "), g.kind+"s"
	}
	g.b.emit(g.start, g.end, m)
	g.start, g.end, g.names, g.parts = 0, 0, nil, 0
}

// yamlEscapes returns src with what JSON allows in its strings and YAML
// refuses written as YAML reads it: a surrogate pair (\ud834\udd1e) as one
// \U escape, a lone half as \ufffd, an escaped slash (\/) as a slash and
// a raw DEL as \x7f; ok is false when there was none. Only columns move.
func yamlEscapes(src []byte) ([]byte, bool) {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 4 {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[:4]), 16, 32)
		return rune(v), err == nil
	}
	var out []byte
	start := func(i int) {
		if out == nil {
			out = append(make([]byte, 0, len(src)+16), src[:i]...)
		}
	}
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			inString = !inString
		case c == 0x7f && inString:
			start(i)
			out = append(out, `\x7f`...)
			continue
		case c == '\\' && inString && i+1 < len(src):
			if src[i+1] == '/' {
				start(i)
				out = append(out, '/')
				i++
				continue
			}
			if src[i+1] != 'u' {
				if out != nil {
					out = append(out, c, src[i+1])
				}
				i++
				continue
			}
			r, ok := hex4(src[i+2:])
			if !ok || !utf16.IsSurrogate(r) {
				break
			}
			start(i)
			if r < 0xdc00 && i+11 < len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
				if lo, ok := hex4(src[i+8:]); ok && lo >= 0xdc00 && lo <= 0xdfff {
					out = fmt.Appendf(out, `\U%08x`, utf16.DecodeRune(r, lo))
					i += 11
					continue
				}
			}
			out = append(out, `\ufffd`...)
			i += 5
			continue
		}
		if out != nil {
			out = append(out, c)
		}
	}
	return out, out != nil
}

// blankJSONC returns src with the comments (// and /* */) and trailing
// commas of JSON with comments replaced by spaces, newlines kept so that
// every byte stays on its line and column; ok is false when there were
// none.
func blankJSONC(src []byte) ([]byte, bool) {
	out := bytes.Clone(src)
	changed := false
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
		changed = true
	}
	lastComma := -1 // a comma with only blanks and comments after it so far
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			lastComma = -1
			for i++; i < len(out) && out[i] != '"' && out[i] != '\n'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			j := bytes.IndexByte(out[i:], '\n')
			if j < 0 {
				j = len(out) - i
			}
			blank(i, i+j)
			i += j - 1
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := bytes.Index(out[i+2:], []byte("*/"))
			if j < 0 {
				return src, false // an unclosed comment: not JSONC either
			}
			blank(i, i+2+j+2)
			i += 2 + j + 1
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				blank(lastComma, lastComma+1)
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out, changed
}

// isTemplate reports whether src holds template directives: Go and Helm
// ({{ ... }}), Jinja ({% ... %}).
func isTemplate(src []byte) bool {
	return bytes.Contains(src, []byte("{{")) && bytes.Contains(src, []byte("}}")) ||
		bytes.Contains(src, []byte("{%")) && bytes.Contains(src, []byte("%}"))
}

// placeholderJSON reports whether src is JSON but for a placeholder
// written where a value goes (an envsubst or shell template:
// "params": ${CUSTOM_ATTRIBUTES}): the first thing encoding/json refuses
// is ${.
func placeholderJSON(src []byte) bool {
	var v any
	var se *json.SyntaxError
	if err := json.Unmarshal(src, &v); !errors.As(err, &se) || se.Offset < 1 || se.Offset > int64(len(src)) {
		return false
	}
	return bytes.HasPrefix(src[se.Offset-1:], []byte("${"))
}

// jsonStream reports whether src is two or more JSON values one after
// another (JSON Lines, or pretty-printed values back to back) and nothing
// else.
func jsonStream(src []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(src))
	n := 0
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			return n >= 2
		} else if err != nil {
			return false
		}
		n++
	}
}

// jsonError describes why src is not JSON, with the line, or returns
// fallback when encoding/json accepts it (JSON5-ish input the YAML parser
// refused for its own reasons).
func jsonError(src []byte, fallback string) string {
	var v any
	err := json.Unmarshal(src, &v)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return fallback
	case errors.As(err, &se):
		off := min(int(se.Offset), len(src))
		return fmt.Sprintf("json: line %d: %v", bytes.Count(src[:off], []byte("\n"))+1, se)
	default:
		return "json: " + err.Error()
	}
}
