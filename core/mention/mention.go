// Package mention finds the services a conversation or a document talks
// about: known service names written as words ("cart", "catalog stock
// worker", "catalog-stock-worker") and service hosts in URLs
// ("http://cart:8080", "cart.shop.svc.cluster.local"). It lets an incident
// thread be joined to the services it concerns; it is a mention, not a
// dependency.
package mention

import (
	_ "embed"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:generate go run -tags sqlite_fts5 ./internal/gencommon -o common.txt $GOROOT/src /usr/lib/python3.11

// commonTxt lists the words too common in technical prose to be taken
// for a service's name without a sign that they name one (see cued):
// those of at least 0.2% of the doc comments and docstrings of the Go
// and Python standard libraries ("search", "store", "profile", "index"), as
// internal/gencommon counts them.
//
//go:embed common.txt
var commonTxt string

var commonWords = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(commonTxt, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out[l] = true
		}
	}
	return out
})

// Common reports whether word (lower case) is one of technical prose's
// common words (commonTxt), which names a service in text only where
// the text marks it as a name.
func Common(word string) bool { return commonWords()[word] }

// serviceNouns follow a word that names a service ("the search service",
// "search pods", "search-api"): a common word before one of them is a
// name.
var serviceNouns = map[string]bool{
	"service": true, "services": true, "svc": true, "microservice": true, "api": true, "server": true,
	"servers": true, "pod": true, "pods": true, "deployment": true, "deployments": true, "container": true,
	"containers": true, "instance": true, "instances": true, "replica": true, "replicas": true,
	"endpoint": true, "endpoints": true, "app": true, "oncall": true,
}

// generic are names too common in prose to count as a service mention on
// their own, even when a deploy file uses them.
var generic = map[string]bool{
	"api": true, "app": true, "web": true, "db": true, "database": true, "worker": true, "server": true,
	"service": true, "services": true, "frontend": true, "backend": true, "proxy": true, "cache": true,
	"queue": true, "main": true, "default": true, "test": true, "tests": true, "prod": true, "staging": true,
	"dev": true, "www": true, "admin": true, "ui": true, "job": true, "jobs": true, "cron": true, "mail": true,
	"data": true, "core": true, "common": true, "shared": true, "base": true, "init": true, "migrate": true,
	"migrations": true, "docs": true, "site": true, "public": true, "internal": true,
	// Kubernetes' own objects and parts, which its projects' docs name on
	// every page.
	"pod": true, "pods": true, "node": true, "nodes": true, "deployment": true, "controller": true, "webhook": true,
	"operator": true, "manager": true, "helm": true, "chart": true, "cluster": true, "namespace": true, "ingress": true,
	"container": true, "crd": true, "crds": true, "config": true, "secret": true, "secrets": true,
	// Words any text uses that example and test manifests name workloads.
	"client": true, "clients": true, "event": true, "events": true, "fail": true, "basic": true,
	"example": true, "demo": true, "sample": true, "hello": true,
}

// Matcher finds mentions of a fixed set of services.
type Matcher struct {
	names  map[string]string // normalized word sequence ("catalog stock worker") -> service
	firsts map[string]bool   // first words of names of several words
	max    int               // longest name in words
}

// New returns a Matcher for the services. Names shorter than three
// letters and names of generic words only (api, web-server, helm-chart)
// are left out; a name of one common word (search, profile) is found only
// where the text marks it as a name (see cued).
func New(services []string) *Matcher {
	m := &Matcher{names: map[string]string{}, firsts: map[string]bool{}}
	for _, s := range services {
		if strings.HasPrefix(s, "?") {
			continue // an unresolved call's target, not a service
		}
		ws := split(strings.ToLower(s))
		key := strings.Join(ws, " ")
		if len(ws) == 0 || (len(ws) == 1 && utf8.RuneCountInString(key) < 3) || allGeneric(ws) {
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

// Generic reports whether word (lower case) is too common in prose to
// name a service on its own (api, worker, operator, ...).
func Generic(word string) bool { return generic[word] }

// allGeneric reports whether every word of a name is a generic one
// (helm-chart, web-server): prose says those words together anyway.
func allGeneric(ws []string) bool {
	for _, w := range ws {
		if !generic[w] {
			return false
		}
	}
	return true
}

// split cuts a name or text into lower-case words at anything that is not
// a letter or digit ("catalog-stock_worker" -> catalog stock worker).
func split(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

type token struct {
	word       string
	start, end int // byte offsets in the text
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
			out = append(out, token{strings.ToLower(text[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token{strings.ToLower(text[start:]), start, len(text)})
	}
	return out
}

// FindIn returns the services a chunk of file mentions: those its file's
// name names first (a runbook cart-restarts.md, a channel's export
// #checkout-oncall/2024-05-01.json), then those its text mentions, the
// most mentioned first. A section of a document named after a service is
// about that service even where it mentions another more often.
func (m *Matcher) FindIn(file, text string) []string {
	return m.FindAbout(file, "", text)
}

// FindAbout is FindIn for a chunk whose file lies in the folder of the
// service owner ("" for none): the services its file's name names come
// first, then owner, then those its text mentions. A service's README or
// runbook in its own folder is about that service however often it names
// the database it reads from; a file named after another service there
// is about that one.
func (m *Matcher) FindAbout(file, owner, text string) []string {
	out := m.Find(fileWords(file))
	if owner != "" && !slices.Contains(out, owner) {
		out = append(out, owner)
	}
	for _, s := range m.Find(text) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// fileWords is what a file's path says it is about: its name without
// extension, and the folder it is in when the name is a date or a number
// (a Slack export's channel/2024-05-01.json).
func fileWords(file string) string {
	file = strings.ReplaceAll(file, `\`, "/")
	base := path.Base(file)
	name := strings.TrimSuffix(base, path.Ext(base))
	if strings.Trim(name, "0123456789-_.") == "" {
		if dir := path.Base(path.Dir(file)); dir != "." && dir != "/" {
			return dir
		}
	}
	return name
}

// Find returns the services text mentions, the most mentioned first (ties
// in order of first mention). A multi-word name matches its words joined
// by any separators ("catalog-stock-worker", "catalog stock worker"); the
// longest name wins where names overlap. A name of one common word counts
// only where cued finds it marked as a name: "the search service" and
// "http://search:8080" mention a service search, "users search" does
// not.
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
			key := strings.Join(parts, " ")
			if s, ok := m.names[key]; ok && (k > 1 || !Common(key) || cued(text, toks, i)) {
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

// outageNouns, outageVerbs and outageState follow a service's name in
// what on-call engineers write: "search outage", "search oomkilled", and
// after is, was, went or keeps: "search is down", "search went down",
// "search keeps crashlooping". Prose says them of a common word only as
// a quantity: "the index is down to 30%".
var (
	outageNouns = map[string]bool{"outage": true, "oomkilled": true, "crashloopbackoff": true}
	outageVerbs = map[string]bool{"is": true, "was": true, "went": true, "are": true, "were": true, "keeps": true}
	outageState = map[string]bool{"down": true, "degraded": true, "unavailable": true, "unreachable": true,
		"unhealthy": true, "crashlooping": true, "oomkilled": true, "flapping": true}
)

// outageSaid reports whether the words after a name say it is out.
func outageSaid(next []token) bool {
	if len(next) > 0 && outageNouns[next[0].word] {
		return true
	}
	if len(next) < 2 || !outageVerbs[next[0].word] || !outageState[next[1].word] {
		return false
	}
	// down to 30%, down by half, down 20 percent: a quantity fell.
	if next[1].word == "down" && len(next) > 2 {
		w := next[2].word
		return w != "to" && w != "by" && w != "from" && (w[0] < '0' || w[0] > '9')
	}
	return true
}

// cued reports whether the common word toks[i] of text is written as a
// name: it is all the text (a file named after it), it is followed by a
// word that says it is a service (search service, search-api, search pods)
// or that it is out (search is down, search outage), or it is a host
// (http://search/, search:8080, search.prod.svc.cluster.local). In code
// quotes alone (`search`) it is as often a field or a parameter.
func cued(text string, toks []token, i int) bool {
	if len(toks) == 1 {
		return true
	}
	t := toks[i]
	if i+1 < len(toks) && serviceNouns[toks[i+1].word] && toks[i+1].start-t.end <= 2 {
		return true
	}
	if outageSaid(toks[i+1:]) {
		return true
	}
	rest := text[t.end:]
	// A URL's host is the name, not a longer one (https://search-images.example.com).
	if strings.HasSuffix(text[:t.start], "://") && (rest == "" || !strings.ContainsRune("-_", rune(rest[0]))) {
		return true
	}
	if len(rest) > 1 && rest[0] == ':' && rest[1] >= '0' && rest[1] <= '9' {
		return true
	}
	if strings.HasPrefix(rest, ".") {
		host := rest
		if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
			host = rest[:i]
		}
		return strings.Contains(strings.ToLower(host), ".svc")
	}
	return false
}
