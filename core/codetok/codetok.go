// Package codetok splits source code and prose into search tokens the way the
// `code` FTS5 tokenizer of coderag's SQLite file does.
//
// The same rules are implemented twice: here in Go (for query building,
// the builtin embedder and tests) and in C as the FTS5 tokenizer registered in
// sqlite/internal/cext. The two are kept equal by a shared golden table
// (testdata/tokens.golden.json) and a differential fuzz test.
//
// # Rules
//
// Text is read as UTF-8; an invalid byte is a separator. A compound is a
// maximal run of segments joined by single connectors ('-' or '.') where a
// segment is a run of word characters (letters, digits, '_'). Each segment is
// cut at underscores, at lower-to-upper case changes ("getUser" -> get, user),
// before the last capital of a capital run followed by a lower-case letter
// ("HTTPServer" -> http, server; a plural like "URLs" stays whole), and between
// letters and digits ("sha256" -> sha, 256). The pieces are the subwords.
//
// Every subword is emitted lower-cased. When a compound has two or more
// subwords, the whole compound is emitted colocated with its first subword,
// normalized: lower-cased with '_' and '-' removed, so that getUserProfile,
// GetUserProfile, get_user_profile and get-user-profile all give
// "getuserprofile" ('.' stays: "http.get"). Every segment with two or more
// subwords that is not the whole compound is emitted the same way, colocated
// with its own first subword. A compound of one subword that is in the stop
// list (language keywords such as "func", "return", "self") is dropped; stop
// words inside identifiers are kept, and so is a stop word written as a
// declared name: capitalized (not A, True, False or None) and directly followed
// by '(', '[', '<', ',' or the end of the text (func (m *Map) Range(f ...),
// func New() *Client, a symbol column holding "Do"), so that Range, New, Do,
// Is and Import can be looked up by name. Subwords longer than MaxTokenBytes are
// cut to that length; whole-compound and segment tokens longer than that are
// not emitted.
//
// # Query mode
//
// FTS5 tokenizes query strings with the same tokenizer in query mode, where
// a compound of two or more subwords yields only its normalized whole token
// (or, when that is too long, its subwords). A query for getUserProfile is
// thus one lookup of "getuserprofile" rather than a phrase over the very
// common subwords get, user and profile; core/search adds the subword phrase
// itself when it is cheap.
//
// # Chinese, Japanese and Korean
//
// Ideographs, kana and Hangul (IsCJK) are written without spaces between
// words, so a run of them is not a word: each run is cut into overlapping
// pairs of characters (bigrams, as Lucene's CJK analyzer does), each a
// token at its own position, and a run of one character is that character.
// 決済サービス gives 決済 済サ サー ービ ビス; a phrase of those is the
// text, and a query of some of them meets the texts that hold them. A run
// ends at any other character: API呼び出し gives api, then 呼び び出 出し.
// Query mode cuts runs alike.
//
// Lower-casing covers ASCII, Latin-1, Greek and basic Cyrillic capitals; other
// letters have no case and are treated as lower-case.
package codetok

// MaxTokenBytes is the longest token text emitted; longer subwords are cut.
const MaxTokenBytes = 128

// Token is one token with the byte range of input it came from.
// Colocated tokens share the position of the token emitted before them.
type Token struct {
	Text      string `json:"t"`
	Start     int    `json:"s"`
	End       int    `json:"e"`
	Colocated bool   `json:"c,omitempty"`
}

// char classes
const (
	clSep = iota
	clConn
	clCJK // an ideograph, kana or Hangul: a run of them is cut into bigrams
	clUnder
	clDigit
	clLower
	clUpper
)

// decode reads one code point at s[i:]. It returns the code point and its
// length in bytes; an invalid or truncated sequence yields (-1, 1).
// It mirrors cr_decode in tokenizer.c byte for byte.
func decode(s string, i int) (rune, int) {
	c := s[i]
	if c < 0x80 {
		return rune(c), 1
	}
	var n int
	var cp rune
	var min rune
	switch {
	case c >= 0xC2 && c <= 0xDF:
		n, cp, min = 2, rune(c&0x1F), 0x80
	case c >= 0xE0 && c <= 0xEF:
		n, cp, min = 3, rune(c&0x0F), 0x800
	case c >= 0xF0 && c <= 0xF4:
		n, cp, min = 4, rune(c&0x07), 0x10000
	default:
		return -1, 1
	}
	if i+n > len(s) {
		return -1, 1
	}
	for k := 1; k < n; k++ {
		b := s[i+k]
		if b&0xC0 != 0x80 {
			return -1, 1
		}
		cp = cp<<6 | rune(b&0x3F)
	}
	if cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) {
		return -1, 1
	}
	return cp, n
}

// class returns the character class of a code point (-1 is invalid input).
func class(cp rune) int {
	if cp < 0x80 {
		switch {
		case cp >= 'a' && cp <= 'z':
			return clLower
		case cp >= 'A' && cp <= 'Z':
			return clUpper
		case cp >= '0' && cp <= '9':
			return clDigit
		case cp == '_':
			return clUnder
		case cp == '-' || cp == '.':
			return clConn
		}
		return clSep
	}
	switch {
	case cp < 0:
		return clSep
	case cp <= 0xBF, cp == 0xD7, cp == 0xF7:
		return clSep
	case cp >= 0x2000 && cp <= 0x2BFF, cp >= 0x2E00 && cp <= 0x2E7F,
		cp >= 0x3000 && cp <= 0x303F, cp >= 0xFE00 && cp <= 0xFE0F,
		cp >= 0xFE30 && cp <= 0xFE4F, cp >= 0xFF00 && cp <= 0xFF0F,
		cp >= 0xFF1A && cp <= 0xFF20, cp >= 0xFF3B && cp <= 0xFF40,
		cp >= 0xFF5B && cp <= 0xFF65, cp >= 0xFFF0 && cp <= 0xFFFF,
		cp >= 0x1F000 && cp <= 0x1FAFF, cp >= 0xE0000 && cp <= 0xE007F:
		return clSep
	}
	if IsCJK(cp) {
		return clCJK
	}
	if lower(cp) != cp {
		return clUpper
	}
	return clLower
}

// IsCJK reports whether r is a Chinese, Japanese or Korean character the
// tokenizer cuts into bigrams: CJK ideographs (with extension A, the
// supplementary planes' extensions and compatibility ideographs), Hiragana,
// Katakana (with its phonetic extensions and the half-width forms),
// Bopomofo, and Hangul syllables and jamo.
func IsCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x11FF: // Hangul Jamo
		return true
	case r < 0x3040:
		return false
	case r <= 0x312F: // Hiragana, Katakana, Bopomofo
		return true
	case r >= 0x3130 && r <= 0x318F: // Hangul Compatibility Jamo
		return true
	case r >= 0x31F0 && r <= 0x31FF: // Katakana Phonetic Extensions
		return true
	case r >= 0x3400 && r <= 0x4DBF: // CJK Unified Ideographs Extension A
		return true
	case r >= 0x4E00 && r <= 0x9FFF: // CJK Unified Ideographs
		return true
	case r >= 0xAC00 && r <= 0xD7AF: // Hangul Syllables
		return true
	case r >= 0xF900 && r <= 0xFAFF: // CJK Compatibility Ideographs
		return true
	case r >= 0xFF66 && r <= 0xFFDC: // half-width Katakana and Hangul
		return true
	case r >= 0x20000 && r <= 0x3134F: // CJK Unified Ideographs Extensions B-G
		return true
	}
	return false
}

// lower maps the capitals coderag knows to lower case; the UTF-8 length of
// the result always equals that of the input.
func lower(cp rune) rune {
	switch {
	case cp >= 'A' && cp <= 'Z':
		return cp + 32
	case cp >= 0xC0 && cp <= 0xDE && cp != 0xD7:
		return cp + 0x20
	case cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2:
		return cp + 0x20
	case cp >= 0x410 && cp <= 0x42F:
		return cp + 0x20
	case cp >= 0x400 && cp <= 0x40F:
		return cp + 0x50
	}
	return cp
}

func isWord(cl int) bool { return cl >= clUnder }

// asciiClass is class of each ASCII code point, looked up rather than
// computed: most of what is tokenized is ASCII.
var asciiClass = func() (t [0x80]uint8) {
	for c := range t {
		t[c] = uint8(class(rune(c)))
	}
	return t
}()

// stopWords are dropped when they stand alone; inside identifiers they stay.
var stopWords = map[string]bool{}

// StopWords lists the words dropped when they stand alone, in tokenizer.c order.
var StopWords = []string{
	"a", "an", "and", "as", "async", "await", "break", "case", "catch", "class",
	"const", "continue", "def", "do", "elif", "else", "except",
	"export", "false", "finally", "for", "from", "func", "function", "if",
	"import", "in", "interface", "is", "let", "namespace", "new",
	"nil", "none", "not", "null", "of", "or", "package", "private", "protected",
	"public", "raise", "range", "return", "self", "static", "struct", "switch",
	"the", "this", "throw", "throws", "to", "true", "try", "undefined", "using",
	"var", "void", "while",
}

func init() {
	for _, w := range StopWords {
		stopWords[w] = true
	}
}

// IsStopWord reports whether the lower-cased word w is dropped when alone.
func IsStopWord(w string) bool { return stopWords[w] }

// Tokenize returns the tokens of s in emission order (document mode).
func Tokenize(s string) []Token {
	var out []Token
	Each(s, func(t Token) { out = append(out, t) })
	return out
}

// QueryTokens returns the tokens FTS5 searches for when s is a quoted
// string in a query (query mode).
func QueryTokens(s string) []Token {
	var out []Token
	t := tokenizer{s: s, emit: func(t Token) { out = append(out, t) }, query: true}
	t.run()
	return out
}

// Words returns the texts of the non-colocated tokens of s: the subwords a
// phrase query over the code table is made of.
func Words(s string) []string {
	var out []string
	Each(s, func(t Token) {
		if !t.Colocated {
			out = append(out, t.Text)
		}
	})
	return out
}

// Each calls emit for every token of s in order. It allocates only the
// token texts.
func Each(s string, emit func(Token)) {
	t := tokenizer{s: s, emit: emit}
	t.run()
}

type tokenizer struct {
	s     string
	emit  func(Token)
	buf   []byte
	query bool
}

// at returns the code point, class and length at byte i; past the end it
// returns a separator.
func (t *tokenizer) at(i int) (rune, int, int) {
	if i >= len(t.s) {
		return -1, clSep, 0
	}
	if c := t.s[i]; c < 0x80 {
		return rune(c), int(asciiClass[c]), 1
	}
	cp, n := decode(t.s, i)
	return cp, class(cp), n
}

// cls returns the class and length of the code point at byte i (a
// separator of length 0 past the end); ASCII is looked up.
func (t *tokenizer) cls(i int) (int, int) {
	if i < len(t.s) && t.s[i] < 0x80 {
		return int(asciiClass[t.s[i]]), 1
	}
	_, cl, n := t.at(i)
	return cl, n
}

func (t *tokenizer) run() {
	i := 0
	for i < len(t.s) {
		cl, n := t.cls(i)
		if cl == clCJK {
			i = t.bigrams(i)
			continue
		}
		if !isWord(cl) {
			i += n
			continue
		}
		i = t.compound(i)
	}
}

// bigrams emits the overlapping character pairs of the run of CJK
// characters starting at start (the character itself when the run is one
// long) and returns the run's end.
func (t *tokenizer) bigrams(start int) int {
	_, n := t.cls(start)
	prev, at := start, start+n
	cl, n := t.cls(at)
	if cl != clCJK {
		t.emit(Token{Text: t.s[start:at], Start: start, End: at})
		return at
	}
	for cl == clCJK {
		t.emit(Token{Text: t.s[prev : at+n], Start: prev, End: at + n})
		prev, at = at, at+n
		cl, n = t.cls(at)
	}
	return at
}

// segmentEnd returns the end of the run of word characters starting at i.
func (t *tokenizer) segmentEnd(i int) int {
	for i < len(t.s) {
		if c := t.s[i]; c < 0x80 {
			if !isWord(int(asciiClass[c])) {
				break
			}
			i++
			continue
		}
		cl, n := t.cls(i)
		if !isWord(cl) {
			break
		}
		i += n
	}
	return i
}

// compound emits the tokens of the compound starting at the word character
// at start and returns its end.
func (t *tokenizer) compound(start int) int {
	// Find the compound's end: segments joined by single connectors.
	end := t.segmentEnd(start)
	for {
		cl, n := t.cls(end)
		if cl != clConn {
			break
		}
		cl2, _ := t.cls(end + n)
		if !isWord(cl2) {
			break
		}
		end = t.segmentEnd(end + n)
	}

	first := true // next subword is the compound's first
	multi := false
	seg := start
	for seg < end {
		segEnd := t.segmentEnd(seg)
		segFirst := true
		p := seg
		for {
			sw, swEnd := t.nextSubword(p, segEnd)
			if sw < 0 {
				break
			}
			if first {
				multi = t.hasSubword(swEnd, end)
				if !multi {
					t.emitWord(sw, swEnd, true)
				} else if t.query {
					if t.emitWhole(start, end, false) {
						return end
					}
					t.emitWord(sw, swEnd, false)
				} else {
					t.emitWord(sw, swEnd, false)
					t.emitWhole(start, end, true)
				}
				first = false
			} else {
				t.emitWord(sw, swEnd, false)
			}
			if segFirst {
				segFirst = false
				if multi && !t.query && (seg != start || segEnd != end) && t.hasSubword(swEnd, segEnd) {
					t.emitWhole(seg, segEnd, true)
				}
			}
			p = swEnd
		}
		seg = segEnd
		if seg < end { // skip the connector
			_, n := t.cls(seg)
			seg += n
		}
	}
	return end
}

// hasSubword reports whether [i, end) holds a word character other than '_'.
func (t *tokenizer) hasSubword(i, end int) bool {
	for i < end {
		cl, n := t.cls(i)
		if cl != clUnder && isWord(cl) {
			return true
		}
		i += n
	}
	return false
}

// nextSubword returns the byte range of the next subword in [i, end), or -1.
func (t *tokenizer) nextSubword(i, end int) (int, int) {
	// skip underscores
	for i < end {
		cl, n := t.cls(i)
		if cl != clUnder {
			break
		}
		i += n
	}
	if i >= end {
		return -1, -1
	}
	start := i
	prev, n := t.cls(i)
	i += n
	for i < end {
		cur, n := t.cls(i)
		if cur == clUnder {
			break
		}
		if (prev == clDigit) != (cur == clDigit) {
			break
		}
		if prev == clLower && cur == clUpper {
			break
		}
		if prev == clUpper && cur == clUpper {
			ncp, next, nn := t.at(i + n)
			if next == clLower && i+n < end {
				// plural acronym: "URLs" followed by a non-lower or the end
				plural := false
				if ncp == 's' {
					after, _ := t.cls(i + n + nn)
					plural = after != clLower || i+n+nn >= end
				}
				if !plural {
					break
				}
			}
		}
		prev = cur
		i += n
	}
	return start, i
}

// lowerInto appends the lower-cased s[i:j] to buf, stopping before the
// code point that would make it longer than limit bytes. With strip, '_'
// and '-' are left out (the normalized whole-compound form).
func (t *tokenizer) lowerInto(i, j, limit int, strip bool) ([]byte, bool) {
	buf := t.buf[:0]
	cut := false
	for i < j {
		c := t.s[i]
		if strip && (c == '_' || c == '-') {
			i++
			continue
		}
		if c < 0x80 {
			if len(buf)+1 > limit {
				cut = true
				break
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
			i++
			continue
		}
		cp, n := decode(t.s, i)
		if len(buf)+n > limit {
			cut = true
			break
		}
		if cp < 0 {
			buf = append(buf, t.s[i])
		} else {
			l := lower(cp)
			if l == cp {
				buf = append(buf, t.s[i:i+n]...)
			} else {
				buf = appendRune(buf, l)
			}
		}
		i += n
	}
	t.buf = buf
	return buf, cut
}

func appendRune(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, byte(0xC0|r>>6), byte(0x80|r&0x3F))
	case r < 0x10000:
		return append(b, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return append(b, byte(0xF0|r>>18), byte(0x80|(r>>12)&0x3F), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
}

func (t *tokenizer) emitWord(i, j int, alone bool) {
	b, _ := t.lowerInto(i, j, MaxTokenBytes, false)
	if alone && stopWords[string(b)] && !t.declaredName(i, j, b) {
		return
	}
	t.emit(Token{Text: string(b), Start: i, End: j})
}

// emitWhole emits the normalized form of s[i:j] unless it is too long, and
// reports whether it did.
// declaredName reports whether the stop word s[i:j] (lower-cased b) is
// written as a name rather than a keyword: capitalized, two letters or more
// (not the article A), not one of the keywords Python capitalizes (True,
// False, None), and directly followed by
// '(', '[', '<' or ',' or by the end of the text — a declaration (func (m
// *Map) Range(f ...), func New[T any](), public void Import()) or a
// symbol list ("Reader, New", a chunk's symbol column holding "Do").
// Keywords are written in lower case, and an English word that starts a
// sentence is followed by a space.
func (t *tokenizer) declaredName(i, j int, b []byte) bool {
	if c := t.s[i]; c < 'A' || c > 'Z' || len(b) < 2 {
		return false
	}
	switch string(b) {
	case "true", "false", "none":
		return false
	}
	if j == len(t.s) {
		return true
	}
	switch t.s[j] {
	case '(', '[', '<', ',':
		return true
	}
	return false
}

func (t *tokenizer) emitWhole(i, j int, colocated bool) bool {
	b, cut := t.lowerInto(i, j, MaxTokenBytes, true)
	if cut {
		return false
	}
	t.emit(Token{Text: string(b), Start: i, End: j, Colocated: colocated})
	return true
}
