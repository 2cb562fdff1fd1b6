// Package mention finds the services a conversation or a document talks
// about: known service names written as words ("cart", "catalog stock
// worker", "catalog-stock-worker") and service hosts in URLs
// ("http://cart:8080", "cart.shop.svc.cluster.local"). It lets an incident
// thread be joined to the services it concerns; it is a mention, not a
// dependency.
package mention

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// generic are names too common in prose to count as a service mention on
// their own, even when a deploy file uses them.
var generic = map[string]bool{
	"api": true, "app": true, "web": true, "db": true, "database": true, "worker": true, "server": true,
	"service": true, "services": true, "frontend": true, "backend": true, "proxy": true, "cache": true,
	"queue": true, "main": true, "default": true, "test": true, "tests": true, "prod": true, "staging": true,
	"dev": true, "www": true, "admin": true, "ui": true, "job": true, "jobs": true, "cron": true, "mail": true,
	"data": true, "core": true, "common": true, "shared": true, "base": true, "init": true, "migrate": true,
	"migrations": true, "docs": true, "site": true, "public": true, "internal": true,
}

// Matcher finds mentions of a fixed set of services.
type Matcher struct {
	names  map[string]string // normalized word sequence ("catalog stock worker") -> service
	firsts map[string]bool   // first words of names of several words
	max    int               // longest name in words
}

// New returns a Matcher for the services. Names shorter than three
// letters and generic words (api, web, db, ...) are left out.
func New(services []string) *Matcher {
	m := &Matcher{names: map[string]string{}, firsts: map[string]bool{}}
	for _, s := range services {
		ws := split(strings.ToLower(s))
		key := strings.Join(ws, " ")
		if len(ws) == 0 || (len(ws) == 1 && (utf8.RuneCountInString(key) < 3 || generic[key])) {
			continue
		}
		if _, dup := m.names[key]; !dup {
			m.names[key] = s
		}
		if len(ws) > 1 {
			m.firsts[ws[0]] = true
			// CatalogStockWorker, catalogstockworker
			if j := strings.Join(ws, ""); m.names[j] == "" {
				m.names[j] = s
			}
		}
		m.max = max(m.max, len(ws))
	}
	return m
}

// split cuts a name or text into lower-case words at anything that is not
// a letter or digit ("catalog-stock_worker" -> catalog stock worker).
func split(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

type token struct {
	word  string
	start int
}

func tokens(text string) []token {
	var out []token
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, token{strings.ToLower(text[start:i]), start})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token{strings.ToLower(text[start:]), start})
	}
	return out
}

// Find returns the services text mentions, the most mentioned first (ties
// in order of first mention). A multi-word name matches its words joined
// by any separators ("catalog-stock-worker", "catalog stock worker"); the
// longest name wins where names overlap.
func (m *Matcher) Find(text string) []string {
	if m == nil || len(m.names) == 0 {
		return nil
	}
	toks := tokens(text)
	count := map[string]int{}
	first := map[string]int{}
	for i := 0; i < len(toks); {
		found := false
		top := 1
		if m.firsts[toks[i].word] {
			top = min(m.max, len(toks)-i)
		}
		for k := top; k >= 1; k-- {
			parts := make([]string, k)
			for j := 0; j < k; j++ {
				parts[j] = toks[i+j].word
			}
			// Words of one name sit close together (a separator or two).
			if k > 1 && toks[i+k-1].start-toks[i].start > len(strings.Join(parts, ""))+2*(k-1) {
				continue
			}
			if s, ok := m.names[strings.Join(parts, " ")]; ok {
				if _, seen := first[s]; !seen {
					first[s] = toks[i].start
				}
				count[s]++
				i += k
				found = true
				break
			}
		}
		if !found {
			i++
		}
	}
	out := make([]string, 0, len(count))
	for s := range count {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if count[out[i]] != count[out[j]] {
			return count[out[i]] > count[out[j]]
		}
		return first[out[i]] < first[out[j]]
	})
	return out
}
