package search

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"coderag/core"
	"coderag/core/codetok"
)

// pastedWords is how many words make a text a pasted message, whose
// key:value words with a value no filter takes (type:context) are text.
const pastedWords = 8

// Parsed is user query text split into the words to search and the
// filters it names.
type Parsed struct {
	Text   string // the free text, filters removed, quoted phrases kept quoted
	Filter core.Filter
	// AsText says which key:value words of a pasted message were taken
	// as text because no filter takes their value.
	AsText []string
}

// pastedMessage reports whether text reads as a message pasted from a log
// rather than a query typed: pastedWords words or more, and no question.
func pastedMessage(text string) bool {
	ws := strings.Fields(text)
	return len(ws) >= pastedWords && !strings.Contains(text, "?") && !askWords[strings.ToLower(ws[0])]
}

// SyntaxError is a query whose filter part cannot be used; Pos is the byte
// offset of the bad part, so that a caller can point at it.
type SyntaxError struct {
	Query string
	Pos   int
	Msg   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("query %q: %s\n  %s\n  %s^", e.Query, e.Msg, e.Query, strings.Repeat(" ", e.Pos))
}

// Unwrap makes errors.Is(err, core.ErrBadQuery) true.
func (e *SyntaxError) Unwrap() error { return core.ErrBadQuery }

// filterKeys are the recognised key: prefixes. Other words with a colon
// (std::string, http://x, key: value) are searched as text.
var filterKeys = map[string]bool{
	"type": true, "corpus": true, "service": true, "repo": true, "lang": true, "language": true,
	"path": true, "file": true,
}

// corpusGroups are type: values that stand for several corpus types.
var corpusGroups = map[string][]core.CorpusType{
	"doc":   {core.DocReadme, core.DocRunbook, core.DocADR, core.DocGoogle},
	"convo": {core.ConvoSlack, core.ConvoTranscript, core.ConvoOther},
	"chat":  {core.ConvoSlack, core.ConvoTranscript, core.ConvoOther},
}

// Parse splits query text into search text and filters, in the syntax of
// code search tools: type:runbook, service:cart, repo:web, lang:go,
// path:src/api/** (a glob; a value without glob characters matches as a
// path prefix or a file name), -path:test (exclude), quoted "phrases".
// Several values of one key (type:runbook type:adr, or type:runbook,adr)
// are alternatives. A key with no value, an unknown type or a bad glob is
// a *SyntaxError pointing at it.
func Parse(text string) (Parsed, error) {
	var p Parsed
	var words []string
	i := 0
	// space is the length of the white space character at j, or 0. (A
	// byte alone is no character: 0xA0 ends ム and à as well as a
	// no-break space.)
	space := func(j int) int {
		r, n := utf8.DecodeRuneInString(text[j:])
		if unicode.IsSpace(r) {
			return n
		}
		return 0
	}
	for i < len(text) {
		if n := space(i); n > 0 {
			i += n
			continue
		}
		start := i
		if text[i] == '"' {
			end := strings.IndexByte(text[i+1:], '"')
			if end < 0 {
				words = append(words, text[i:])
				break
			}
			words = append(words, text[i:i+end+2])
			i += end + 2
			continue
		}
		for i < len(text) && space(i) == 0 {
			_, n := utf8.DecodeRuneInString(text[i:])
			i += n
		}
		word := text[start:i]
		neg := strings.HasPrefix(word, "-")
		key, val, ok := strings.Cut(strings.TrimPrefix(word, "-"), ":")
		key = strings.ToLower(key)
		if !ok || !filterKeys[key] || strings.HasPrefix(val, "/") && !strings.HasPrefix(val, "//") && key != "path" && key != "file" {
			words = append(words, word)
			continue
		}
		valPos := start + len(word) - len(val)
		if val == "" {
			// "unexpected type: int", "service: cart is down": a filter
			// takes its value without a space, so this is text (an error
			// message pasted as it was logged).
			words = append(words, word)
			continue
		}
		if strings.HasPrefix(val, `"`) {
			// key:"value with spaces"
			end := strings.IndexByte(text[valPos+1:], '"')
			if end < 0 {
				return p, &SyntaxError{text, valPos, "unterminated quote"}
			}
			val = text[valPos+1 : valPos+1+end]
			i = valPos + end + 2
		}
		if neg && key != "path" && key != "file" {
			return p, &SyntaxError{text, start, fmt.Sprintf("-%s: only path: can be excluded", key)}
		}
		var bad error
		var added Parsed
		for _, v := range strings.Split(val, ",") {
			if v == "" {
				continue
			}
			if err := added.add(key, v, neg); err != nil {
				bad = err
				break
			}
		}
		switch {
		case bad == nil:
			p.Filter = mergeFilters(p.Filter, added.Filter)
		case pastedMessage(text):
			// "... against non-function type:context ...": a pasted
			// message's words, not a mistyped filter.
			words = append(words, text[start:i])
			p.AsText = append(p.AsText, fmt.Sprintf("%s is not a filter (%v): searched as text", text[start:i], bad))
		default:
			return p, &SyntaxError{text, valPos, bad.Error()}
		}
	}
	p.Text = strings.Join(words, " ")
	return p, nil
}

func (p *Parsed) add(key, v string, neg bool) error {
	f := &p.Filter
	switch key {
	case "type", "corpus":
		if g, ok := corpusGroups[strings.ToLower(v)]; ok {
			f.Corpus = append(f.Corpus, g...)
			return nil
		}
		c, err := core.ParseCorpusType(v)
		if err != nil {
			return fmt.Errorf("%v; or doc, convo", err)
		}
		f.Corpus = append(f.Corpus, c)
	case "service":
		f.Service = append(f.Service, v)
	case "repo":
		f.Repo = append(f.Repo, v)
	case "lang", "language":
		f.Language = append(f.Language, normLang(v))
	case "path", "file":
		g, err := PathGlob(v)
		if err != nil {
			return err
		}
		if neg {
			f.NotPath = append(f.NotPath, g)
		} else {
			f.Path = append(f.Path, g)
		}
	}
	return nil
}

// langAliases map common names to the language names chunks carry.
var langAliases = map[string]string{
	"golang": "go", "c#": "csharp", "cs": "csharp", "py": "python", "ts": "typescript",
	"js": "javascript", "tsx": "tsx", "yml": "yaml", "md": "markdown", "tf": "hcl", "terraform": "hcl",
}

func normLang(v string) string {
	v = strings.ToLower(v)
	if a, ok := langAliases[v]; ok {
		return a
	}
	return v
}

// PathGlob turns a path: value into an SQLite GLOB over file paths. A value
// with glob characters (*, ?, [) is used as given, with ** meaning any
// number of directories; a plain value matches any path containing it
// (path:test matches test/a.go, src/test/b.go and cart_test.go).
func PathGlob(v string) (string, error) {
	if strings.Count(v, "[") != strings.Count(v, "]") {
		return "", fmt.Errorf("path:%s: unbalanced [ ] in glob", v)
	}
	v = strings.TrimPrefix(v, "./")
	if !strings.ContainsAny(v, "*?[") {
		return "*" + v + "*", nil
	}
	// SQLite's * already crosses '/', so ** is *.
	for strings.Contains(v, "**") {
		v = strings.ReplaceAll(v, "**", "*")
	}
	return v, nil
}

// PathMatcher is PathGlob's match in Go, for the paths of chunks already
// read: it reports whether a file path is one path:v admits.
func PathMatcher(v string) (func(string) bool, error) {
	g, err := PathGlob(v)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(g[i:], ']')
			class := g[i+1 : i+j]
			if strings.HasPrefix(class, "^") { // SQLite negates with ^, as regexp does
				class = "^" + regexp.QuoteMeta(class[1:])
			} else {
				class = regexp.QuoteMeta(class)
			}
			b.WriteString("[" + class + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("path:%s: %w", v, err)
	}
	return re.MatchString, nil
}

// questionWords are words of plain-language questions that say nothing
// about what is searched for: question words, auxiliaries, pronouns,
// articles and prepositions. They are dropped from a query that has other
// words (a quoted phrase keeps them).
var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else so than that this these those there here
		what where when why how which who whom whose
		is are was were be been being am do does did doing done have has had having
		can could would should will shall may might must need needs
		i me my we us our you your he she it its they them their
		of to in on at for from by with about into onto over under between through during before after
		up down out off again further once just also only too very any all some each every both either neither
		not no nor own same such more most other another
		get gets got getting make makes made use used uses using
		s t ll re ve d m`) {
		questionWords[w] = true
	}
}

// ContentText drops the question words of a plain-language query ("Where
// is unmarshalOrderFromQueue and how does it pick an order's ID?" is
// searched as "unmarshalOrderFromQueue pick order ID"): unquoted terms
// that are question words, possessive 's and trailing punctuation, and a
// capitalized keyword that starts a sentence ("New errors since the
// deploy": the code index keeps New only as a declared name). A query of
// nothing but such words is returned as it is.
func ContentText(text string) string {
	var kept []string
	start := true // the next term starts a sentence
	for _, t := range Terms(text) {
		first := start
		start = t != "" && strings.ContainsAny(t[len(t)-1:], ".?!:")
		if strings.ContainsAny(t, " \t") {
			kept = append(kept, `"`+t+`"`) // a quoted phrase
			continue
		}
		if first && t != "" && t[0] >= 'A' && t[0] <= 'Z' && codetok.IsStopWord(strings.ToLower(strings.TrimRight(t, "?!.,;:"))) {
			continue
		}
		t = strings.TrimRight(t, "?!.,;:)")
		t = strings.TrimLeft(t, "(")
		for _, suf := range []string{"'s", "’s", "'"} {
			t = strings.TrimSuffix(t, suf)
		}
		if t == "" || questionWords[strings.ToLower(t)] {
			continue
		}
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		return text
	}
	return strings.Join(kept, " ")
}
