package scrub

import (
	"math/big"
	"net"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"coderag/core/internal/lazyre"
)

// nameIndex knows people's names: whole names ("alice moreno"), and the
// first and last names of people with more than one word in their name,
// when only one person has them.
type nameIndex struct {
	full     map[string]string // lower-case full name -> person key
	part     map[string]string // lower-case first or last name -> person key, "" when ambiguous
	maxWords int
}

func newNameIndex() *nameIndex {
	return &nameIndex{full: map[string]string{}, part: map[string]string{}}
}

// ambiguousNames are first names that are also common words; alone they
// are not scrubbed (the whole name still is).
var ambiguousNames = map[string]bool{
	"will": true, "may": true, "june": true, "april": true, "august": true, "mark": true, "bill": true,
	"rich": true, "grant": true, "chase": true, "frank": true, "hope": true, "joy": true, "faith": true,
	"grace": true, "rose": true, "dawn": true, "summer": true, "autumn": true, "art": true, "pat": true,
	"sue": true, "gene": true, "jack": true, "max": true, "ray": true, "rob": true, "guy": true,
	"don": true, "dick": true, "lee": true, "long": true, "young": true, "king": true,
	"price": true, "white": true, "black": true, "green": true, "brown": true, "gray": true, "grey": true,
	"page": true, "bot": true, "admin": true, "user": true, "team": true, "the": true, "and": true,
	"ops": true, "dev": true, "test": true, "root": true, "system": true, "unknown": true, "guest": true,
}

var nameNoise = lazyre.New(`\s*(?:\([^)]*\)|\[[^\]]*\]|\|.*)\s*`)

// nameWords normalises a person's name ("Justin Florentine (Besu)",
// "Dima | Lido", "@alice") into its words.
func nameWords(name string) []string {
	name = nameNoise.ReplaceAllString(name, " ")
	name = strings.TrimPrefix(strings.TrimSpace(name), "@")
	return strings.Fields(name)
}

// add records a name. Names of one word shorter than three letters, and
// one-word names that are common words, are ignored.
func (ix *nameIndex) add(name string) {
	words := nameWords(name)
	if len(words) == 0 || len(words) > 5 {
		return
	}
	lw := make([]string, len(words))
	for i, w := range words {
		lw[i] = strings.ToLower(w)
	}
	key := strings.Join(lw, " ")
	if len(words) == 1 {
		if utf8.RuneCountInString(key) < 3 || ambiguousNames[key] {
			return
		}
		ix.full[key] = key
		ix.maxWords = max(ix.maxWords, 1)
		return
	}
	ix.full[key] = key
	ix.maxWords = max(ix.maxWords, len(words))
	for _, p := range []string{lw[0], lw[len(lw)-1]} {
		if utf8.RuneCountInString(p) < 3 || ambiguousNames[p] {
			continue
		}
		if k, ok := ix.part[p]; ok && k != key {
			ix.part[p] = "" // two people share it
		} else {
			ix.part[p] = key
		}
	}
}

func (ix *nameIndex) empty() bool { return ix == nil || len(ix.full) == 0 }

// word is a word of text: letters and digits with inner ' ’ - .
type word struct{ start, end int }

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func words(text string) []word {
	var out []word
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if isWordRune(r) {
				j += n
				continue
			}
			// inner apostrophes and hyphens: O'Brien, Jean-Luc
			if (r == '\'' || r == '’' || r == '-') && j+n < len(text) {
				if r2, _ := utf8.DecodeRuneInString(text[j+n:]); isWordRune(r2) {
					j += n
					continue
				}
			}
			break
		}
		out = append(out, word{i, j})
		i = j
	}
	return out
}

func capitalized(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// nameSpan is a person's name found in text, with its person key.
type nameSpan struct {
	start, end int
	key        string
}

// find returns the names of the indexes in text, longest first at each
// position: whole names in any case, single first or last names only when
// capitalized.
func findNames(text string, ixs ...*nameIndex) []nameSpan {
	maxWords := 0
	for _, ix := range ixs {
		if !ix.empty() {
			maxWords = max(maxWords, ix.maxWords)
		}
	}
	if maxWords == 0 {
		return nil
	}
	ws := words(text)
	var out []nameSpan
	for i := 0; i < len(ws); {
		matched := false
		for k := min(maxWords, len(ws)-i); k >= 1 && !matched; k-- {
			// The words must be separated by single spaces.
			ok := true
			for j := i; j < i+k-1; j++ {
				if text[ws[j].end:ws[j+1].start] != " " {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			span := text[ws[i].start:ws[i+k-1].end]
			low := strings.ToLower(span)
			for _, ix := range ixs {
				if ix.empty() {
					continue
				}
				key, found := ix.full[low]
				if !found && k == 1 && capitalized(span) {
					key, found = ix.part[low]
					found = found && key != ""
				}
				if found {
					out = append(out, nameSpan{ws[i].start, ws[i+k-1].end, key})
					i += k
					matched = true
					break
				}
			}
		}
		if !matched {
			i++
		}
	}
	return out
}

// honorificRE finds "Dr. Smith", "Mrs Jane Doe", "Prof. Ng".
var honorificRE = lazyre.New(`\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Miss|Sr|Sra|Herr|Frau)\.?\s+(\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)?)`)

// labels are the words after which documents list people:
// "Author: Bob Okafor", "Reviewers: Alice Moreno, Chen Wei".
var labels = map[string]bool{
	"author": true, "authors": true, "owner": true, "owners": true, "decider": true, "deciders": true,
	"decision makers": true, "reviewer": true, "reviewers": true, "attendees": true, "participants": true,
	"present": true, "absent": true, "assignee": true, "assignees": true, "reporter": true, "reporters": true,
	"incident commander": true, "commander": true, "scribe": true, "note taker": true, "notetaker": true,
	"notes": true, "facilitator": true, "moderator": true, "host": true, "contact": true, "contacts": true,
	"approver": true, "approvers": true, "driver": true, "dri": true, "on-call": true, "oncall": true,
	"escalated to": true, "cc": true,
}

// labelAt returns where the label list after the colon at i starts, or -1
// when the one or two words before the colon are not a label.
func labelAt(text string, i, width int) int {
	j := i
	for j > 0 && text[j-1] == ' ' {
		j--
	}
	start := j
	words := 0
	for start > 0 && words < 2 {
		k := start
		for k > 0 && (isAlnum(text[k-1]) || text[k-1] == '-') {
			k--
		}
		if k == start {
			break
		}
		words++
		w := strings.ToLower(text[k:j])
		if labels[w] && (k == 0 || !isAlnum(text[k-1])) {
			end := i + width
			for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
				end++
			}
			return end
		}
		if k == 0 || text[k-1] != ' ' {
			break
		}
		start = k - 1
	}
	return -1
}

// labelledNames returns the names listed after labels: runs of one to three
// capitalized words separated by commas, "and" or "&". A single
// capitalized word followed by a lower-case word ("Platform team") is not
// a name.
func labelledNames(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); i++ {
		width := 0
		switch {
		case text[i] == ':':
			width = 1
		case strings.HasPrefix(text[i:], "："):
			width = len("：")
		default:
			continue
		}
		from := labelAt(text, i, width)
		if from < 0 {
			continue
		}
		m := []int{i, from}
		rest := text[m[1]:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[:nl]
		}
		ws := words(rest)
		i := 0
		for i < len(ws) {
			j := i
			for j < len(ws) && j-i < 3 && capitalized(rest[ws[j].start:ws[j].end]) && (j == i || rest[ws[j-1].end:ws[j].start] == " ") {
				j++
			}
			if j == i {
				break
			}
			next := ""
			if j < len(ws) {
				next = rest[ws[j-1].end:ws[j].start]
			}
			if j-i == 1 && j < len(ws) && !capitalized(rest[ws[j].start:ws[j].end]) && strings.TrimSpace(next) == "" {
				break // "Platform team"
			}
			out = append(out, [2]int{m[1] + ws[i].start, m[1] + ws[j-1].end})
			// Go on after a list separator, stop at anything else.
			if j >= len(ws) {
				break
			}
			sep := strings.TrimSpace(next)
			if sep != "," && sep != ";" && sep != "&" && sep != "/" && !strings.EqualFold(sep, "and") && !(sep == "" && strings.EqualFold(rest[ws[j].start:ws[j].end], "and")) {
				break
			}
			if sep == "" { // "A and B": skip the "and" word
				j++
			}
			i = j
		}
	}
	return out
}

// findIBANs returns IBANs that pass the mod-97 check, written with or
// without single spaces between groups.
func findIBANs(text string) [][]int {
	var out [][]int
	// An IBAN begins with two capitals and two digits, at a word start.
	for s := 0; s+4 <= len(text); s++ {
		if !isUpper(text[s]) || !isUpper(text[s+1]) || !isDigit(text[s+2]) || !isDigit(text[s+3]) || (s > 0 && isAlnum(text[s-1])) {
			continue
		}
		m := []int{s, s + 4}
		// Collect up to 34 alphanumerics, allowing single spaces.
		var ends []int // text offset after each character
		var chars []byte
		for i := m[0]; i < len(text) && len(chars) < 34; i++ {
			c := text[i]
			switch {
			case c >= '0' && c <= '9' || c >= 'A' && c <= 'Z':
				chars = append(chars, c)
				ends = append(ends, i+1)
			case c == ' ' && i+1 < len(text) && text[i-1] != ' ':
				continue
			default:
				i = len(text)
			}
		}
		for n := len(chars); n >= 15; n-- {
			if ends[n-1] < len(text) && isAlnum(text[ends[n-1]]) {
				continue // not at the end of a word
			}
			if ibanValid(chars[:n]) {
				out = append(out, []int{m[0], ends[n-1]})
				break
			}
		}
	}
	return out
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// ibanValid checks the ISO 13616 mod-97 checksum.
func ibanValid(s []byte) bool {
	r := append(append([]byte(nil), s[4:]...), s[:4]...)
	var digits strings.Builder
	for _, c := range r {
		if c >= 'A' && c <= 'Z' {
			digits.WriteString(big.NewInt(int64(c - 'A' + 10)).String())
		} else {
			digits.WriteByte(c)
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

var (
	ipv4RE = lazyre.New(`\b(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\b`)
	ipv6RE = lazyre.New(`(?i)(?:^|[^0-9a-z:])((?:[0-9a-f]{1,4}:){1,7}:?(?:[0-9a-f]{0,4}:){0,6}[0-9a-f]{1,4}|::(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})\b`)
)

// findIPs returns IPv4 addresses, and IPv6 addresses that parse and are
// not clock times.
func findIPs(text string) [][]int {
	out := ipv4RE.FindAllStringIndex(text, -1)
	if strings.Count(text, ":") >= 2 {
		for _, m := range ipv6RE.FindAllStringSubmatchIndex(text, -1) {
			v := text[m[2]:m[3]]
			if !strings.Contains(v, "::") && strings.Count(v, ":") < 7 {
				continue // 10:30:00 is a time
			}
			if ip := net.ParseIP(v); ip != nil && ip.To4() == nil {
				out = append(out, []int{m[2], m[3]})
			}
		}
	}
	return out
}

// names is the gate's index of known people, filled before crawling.
type names struct {
	mu sync.RWMutex
	ix *nameIndex
}
