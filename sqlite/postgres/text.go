package postgres

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"

	"coderag/core/codetok"
)

// The three analyzers mirror the SQLite file's FTS5 tables:
//
//	code  (fts_code):  core/codetok tokens, as they are
//	prose (fts_prose): runs of letters and digits, lower-cased, Porter2
//	                   stems (FTS5's "porter unicode61")
//	docs  (fts_files): core/codetok tokens, Porter2 stems ("porter code")
//
// They run in Go, so the lexemes PostgreSQL stores are exactly the SQLite
// tokenizers' and a query meets them the same way; PostgreSQL's own
// parsers never see the text.
type analyzer int

const (
	codeText analyzer = iota
	proseText
	docText
)

// token is one lexeme at a position (1-based; colocated tokens share one).
type token struct {
	text string
	pos  int
}

// tokens analyzes s in document mode.
func (a analyzer) tokens(s string) []token {
	var out []token
	switch a {
	case codeText, docText:
		pos := 0
		codetok.Each(s, func(t codetok.Token) {
			if !t.Colocated {
				pos++
			}
			txt := t.Text
			if a == docText {
				txt = stem(txt)
			}
			out = append(out, token{txt, max(pos, 1)})
		})
	case proseText:
		for i, w := range proseWords(s) {
			out = append(out, token{stem(w), i + 1})
		}
	}
	return out
}

// queryLexemes analyzes a quoted query string: the lexemes of the phrase
// it is, in order.
func (a analyzer) queryLexemes(s string) []string {
	var out []string
	switch a {
	case codeText, docText:
		for _, t := range codetok.QueryTokens(s) {
			txt := t.Text
			if a == docText {
				txt = stem(txt)
			}
			out = append(out, txt)
		}
	case proseText:
		for _, w := range proseWords(s) {
			out = append(out, stem(w))
		}
	}
	return out
}

// proseWords splits s into lower-case runs of letters and digits.
func proseWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// stem is the Porter2 stem of a lower-case word. Stems are cached (the
// stemmer is slow and code repeats its words), up to a bound.
func stem(w string) string {
	if len(w) < 3 {
		return w
	}
	stemMu.RLock()
	s, ok := stems[w]
	stemMu.RUnlock()
	if ok {
		return s
	}
	s = english.Stem(w, false)
	stemMu.Lock()
	if len(stems) < 500_000 {
		stems[strings.Clone(w)] = s
	}
	stemMu.Unlock()
	return s
}

var (
	stemMu sync.RWMutex
	stems  = map[string]string{}
)

// PostgreSQL's limits on a tsvector: positions up to 16383, 256 positions
// a lexeme, 2047 bytes a lexeme, under 1 MB in all.
const (
	maxPos       = 16383
	maxPositions = 256
	maxLexeme    = 2047
	maxTSVector  = 1 << 19 // well under the limit: the text form is larger
)

// field is a column of a document with its BM25 weight class (A..D).
type field struct {
	text   string
	weight byte
}

// tsvector builds the text form of the tsvector of fields analyzed by a
// (positions continue across fields, weights mark the field) and the
// number of tokens it holds (the BM25 document length).
func (a analyzer) tsvector(fields ...field) (string, int) {
	an := make([]analyzed, len(fields))
	for i, f := range fields {
		an[i] = analyzed{a.tokens(f.text), f.weight}
	}
	return tsvectorOf(an...)
}

// analyzed is a field's tokens with its weight class.
type analyzed struct {
	toks   []token
	weight byte
}

// stemmed turns code tokens into the docs analyzer's (Porter2 stems),
// their positions moved on by off: the file's document reuses its chunks'
// code tokens instead of tokenizing their text again.
func stemmed(toks []token, off int) []token {
	out := make([]token, len(toks))
	for i, t := range toks {
		out[i] = token{stem(t.text), t.pos + off}
	}
	return out
}

// lastPos is the position of the last of toks, 0 when there are none.
func lastPos(toks []token) int {
	if len(toks) == 0 {
		return 0
	}
	return toks[len(toks)-1].pos
}

// tsvectorOf builds the text form of the tsvector of analyzed fields
// (positions continue across fields, weights mark the field) and the
// number of tokens it holds.
func tsvectorOf(fields ...analyzed) (string, int) {
	// Positions are packed as position << 8 | weight, one slice per
	// lexeme, so that a chunk's thousands of positions are not thousands
	// of small strings.
	idx := map[string]int{}
	var keys []string
	var pos [][]uint32
	base, n, size := 0, 0, 0
	for _, f := range fields {
		last := 0
		for _, t := range f.toks {
			n++
			last = t.pos
			if len(t.text) > maxLexeme || t.text == "" {
				continue
			}
			i, ok := idx[t.text]
			if !ok {
				if size > maxTSVector {
					continue
				}
				i = len(keys)
				idx[t.text] = i
				keys = append(keys, t.text)
				pos = append(pos, nil)
				size += len(t.text) + 4
			}
			if len(pos[i]) < maxPositions && size < maxTSVector {
				pos[i] = append(pos[i], uint32(min(base+t.pos, maxPos))<<8|uint32(f.weight))
				size += 8
			}
		}
		base += last + 1 // fields are not adjacent for phrases
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool { return keys[order[x]] < keys[order[y]] })
	b := make([]byte, 0, size+2*len(keys))
	for j, i := range order {
		if j > 0 {
			b = append(b, ' ')
		}
		b = appendLexeme(b, keys[i])
		for k, p := range pos[i] {
			if k == 0 {
				b = append(b, ':')
			} else {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(p>>8), 10)
			b = append(b, byte(p))
		}
	}
	return string(b), n
}

// appendLexeme appends the quoted form of a lexeme: in single quotes,
// with quotes doubled and backslashes escaped.
func appendLexeme(b []byte, s string) []byte {
	b = append(b, '\'')
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			b = append(b, '\'', '\'')
		case '\\':
			b = append(b, '\\', '\\')
		default:
			b = append(b, s[i])
		}
	}
	return append(b, '\'')
}

// quoteLexeme quotes a lexeme for the text form of a tsvector or tsquery.
func quoteLexeme(s string) string { return string(appendLexeme(nil, s)) }

// match is a parsed FTS5 expression of the subset core/search writes:
// quoted strings (phrases), AND, OR, parentheses and a leading column
// filter ({symbol_name file_path context_prefix} : (...)).
type match struct {
	op      string   // "AND", "OR", or "" for a phrase
	phrase  []string // the phrase's raw text pieces (one quoted string)
	text    string
	kids    []*match
	columns []string // a column filter on this node
}

// parseMatch parses an FTS5 expression of that subset; anything else is
// an error naming where it stopped.
func parseMatch(s string) (*match, error) {
	p := &matchParser{s: s}
	m, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("match expression %q: unexpected %q at byte %d", s, p.s[p.i:], p.i)
	}
	return m, nil
}

type matchParser struct {
	s string
	i int
}

func (p *matchParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *matchParser) expr() (*match, error) {
	first, err := p.term()
	if err != nil {
		return nil, err
	}
	node := &match{kids: []*match{first}}
	for {
		p.space()
		op := ""
		switch {
		case strings.HasPrefix(p.s[p.i:], "OR "):
			op = "OR"
		case strings.HasPrefix(p.s[p.i:], "AND "):
			op = "AND"
		}
		if op == "" {
			break
		}
		if node.op != "" && node.op != op {
			return nil, fmt.Errorf("match expression %q: AND and OR mixed without parentheses at byte %d", p.s, p.i)
		}
		node.op = op
		p.i += len(op)
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		node.kids = append(node.kids, t)
	}
	if len(node.kids) == 1 {
		return first, nil
	}
	return node, nil
}

func (p *matchParser) term() (*match, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("match expression %q: ends where a term was expected", p.s)
	}
	switch p.s[p.i] {
	case '"':
		var b strings.Builder
		p.i++
		for {
			if p.i >= len(p.s) {
				return nil, fmt.Errorf("match expression %q: unterminated quoted string", p.s)
			}
			c := p.s[p.i]
			p.i++
			if c == '"' {
				if p.i < len(p.s) && p.s[p.i] == '"' {
					b.WriteByte('"')
					p.i++
					continue
				}
				break
			}
			b.WriteByte(c)
		}
		return &match{text: b.String()}, nil
	case '(':
		p.i++
		m, err := p.expr()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return nil, fmt.Errorf("match expression %q: missing ) at byte %d", p.s, p.i)
		}
		p.i++
		return m, nil
	case '{':
		end := strings.IndexByte(p.s[p.i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("match expression %q: missing } at byte %d", p.s, p.i)
		}
		cols := strings.Fields(p.s[p.i+1 : p.i+end])
		p.i += end + 1
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, fmt.Errorf("match expression %q: missing : after a column filter at byte %d", p.s, p.i)
		}
		p.i++
		m, err := p.term()
		if err != nil {
			return nil, err
		}
		m.columns = cols
		return m, nil
	}
	return nil, fmt.Errorf("match expression %q: unexpected %q at byte %d", p.s, p.s[p.i:], p.i)
}

// columnWeights are the tsvector weight classes of the chunk columns.
var columnWeights = map[string]string{"symbol_name": "A", "file_path": "B", "context_prefix": "C", "text": "D",
	"path": "A", "symbols": "B"}

// tsquery is a tsquery in text form for m under analyzer a, with the
// lexemes it names (for scoring: lexeme -> allowed weights, "" for any).
// A phrase of no lexemes matches nothing; ok is false when the whole
// expression matches nothing.
func (a analyzer) tsquery(m *match, weights string, lex map[string]string) (q string, ok bool) {
	if len(m.columns) > 0 {
		weights = ""
		for _, c := range m.columns {
			weights += columnWeights[c]
		}
	}
	if m.op == "" {
		ls := a.queryLexemes(m.text)
		if len(ls) == 0 {
			return "", false
		}
		parts := make([]string, len(ls))
		for i, l := range ls {
			parts[i] = quoteLexeme(l)
			if weights != "" {
				parts[i] += ":" + weights
			}
			switch prev, seen := lex[l]; {
			case !seen:
				lex[l] = weights
			case prev == "" || weights == "":
				lex[l] = "" // any column
			default:
				lex[l] = prev + weights
			}
		}
		if len(parts) == 1 {
			return parts[0], true
		}
		return "(" + strings.Join(parts, " <-> ") + ")", true
	}
	sep := " | "
	if m.op == "AND" {
		sep = " & "
	}
	var parts []string
	for _, k := range m.kids {
		kq, kok := a.tsquery(k, weights, lex)
		if !kok {
			if m.op == "AND" {
				return "", false
			}
			continue
		}
		parts = append(parts, kq)
	}
	if len(parts) == 0 {
		return "", false
	}
	return "(" + strings.Join(parts, sep) + ")", true
}
