package postgres

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := english.Stem(w, false)
	if stemCount.Add(1) < 500_000 {
		stems.Store(w, s)
	}
	return s
}

var (
	stems     sync.Map
	stemCount atomic.Int64
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
	type entry struct {
		pos []string
	}
	lex := map[string]*entry{}
	base, n, size := 0, 0, 0
	for _, f := range fields {
		last := 0
		for _, t := range a.tokens(f.text) {
			n++
			last = t.pos
			if len(t.text) > maxLexeme || t.text == "" {
				continue
			}
			e := lex[t.text]
			if e == nil {
				if size > maxTSVector {
					continue
				}
				e = &entry{}
				lex[t.text] = e
				size += len(t.text) + 4
			}
			if len(e.pos) < maxPositions && size < maxTSVector {
				e.pos = append(e.pos, strconv.Itoa(min(base+t.pos, maxPos))+string(f.weight))
				size += 8
			}
		}
		base += last + 1 // fields are not adjacent for phrases
	}
	keys := make([]string, 0, len(lex))
	for k := range lex {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(k))
		if p := lex[k].pos; len(p) > 0 {
			b.WriteByte(':')
			b.WriteString(strings.Join(p, ","))
		}
	}
	return b.String(), n
}

// quoteLexeme quotes a lexeme for the text form of a tsvector or tsquery.
func quoteLexeme(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}

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
