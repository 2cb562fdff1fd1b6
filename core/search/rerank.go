package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/embed"
	"coderag/core/internal/lazyre"
)

// Reranker scores candidate hits against the query; higher is better.
type Reranker interface {
	Name() string
	// Rerank returns one score per hit, in order, and for each hit the
	// features that made it (nil when the reranker cannot say).
	Rerank(ctx context.Context, query string, hits []core.Hit) ([]float64, []map[string]float64, error)
}

// BuiltinReranker scores hits by features one can check by eye: the query
// names the chunk's symbol (exactly or by its words), its signature or its
// file; the share of query words the chunk holds (coverage); how close
// together they are (proximity). The score is a weighted sum in [0, 1].
type BuiltinReranker struct {
	// Features weigh the features (nil: DefaultParams' Features; an
	// Engine passes its Params').
	Features map[string]float64
	// Cache, when set, keeps each (query, chunk)'s features: coderag tune
	// asks the same questions under many weightings.
	Cache *FeatureCache
}

// FeatureCache holds the reranker's features by query and chunk. It is
// safe for concurrent use.
type FeatureCache struct {
	mu sync.Mutex
	m  map[string]map[string]float64
}

func (fc *FeatureCache) get(key string) (map[string]float64, bool) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	f, ok := fc.m[key]
	return f, ok
}

func (fc *FeatureCache) put(key string, f map[string]float64) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.m == nil {
		fc.m = map[string]map[string]float64{}
	}
	fc.m[key] = f
}

// Name implements Reranker.
func (BuiltinReranker) Name() string { return "builtin" }

// queryWords are the distinct searchable words of query text (subwords,
// lower-case, no stop words), and its identifiers normalised (lower-case,
// no separators).
func queryWords(q string) (words []string, idents []string) {
	seen := map[string]bool{}
	for _, w := range codetok.Words(q) {
		if !codetok.IsStopWord(w) && !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	// Identifiers: terms written as code (getUserProfile, MAX_RETRIES,
	// http.Get, handle()), not plain words that may name a symbol too.
	for _, t := range Terms(q) {
		t, code := codeTerm(t)
		if !code {
			continue
		}
		if n := normIdent(t); len(n) > 2 {
			idents = append(idents, n)
		}
		// A qualified name (os.ReadFile) is its last part as well, with
		// its qualifier: the definition's symbol is ReadFile, under os.
		// The qualifier makes a short name (errors.Is, Client.Do) one too.
		if qual, name := qualified(t); len(normIdent(name)) >= 2 && normIdent(qual) != "" {
			idents = append(idents, normIdent(name)+"@"+normIdent(qual))
		}
	}
	return words, idents
}

// codeTerm returns a query term without the punctuation around it, and
// whether it is written as code: an identifier (getUserProfile,
// MAX_RETRIES), a qualified name (http.Get), a call (handle()).
func codeTerm(t string) (string, bool) {
	t = strings.Trim(t, ",;:!?'\"")
	return t, isIdentifier(t) || strings.ContainsAny(t, "_.()")
}

// normIdent lower-cases s and drops everything but letters and digits:
// getUserProfile, get_user_profile and GetUserProfile are one.
func normIdent(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// queryFacts is what the engine knows of a query that the builtin
// reranker cannot see in the text it gets: the inverse document
// frequencies of its words, its whole text as phrases (see wholePhrases),
// and whether the text as the user wrote it — question words included —
// asks for usages (see usageQuestion).
type queryFacts struct {
	idf     map[string]float64
	phrases []string
	usage   bool
	// shingles are the runs of three words of a message (shingles):
	// the parts a logged message shares with its format string.
	shingles []string
	// message: the text as written reads as a pasted message
	// (messageSigns), not a question.
	message bool
	// sources are the sources of several the text names (namedSources).
	sources []string
}

type factsKey struct{}

func withFacts(ctx context.Context, f queryFacts) context.Context {
	return context.WithValue(ctx, factsKey{}, f)
}

func factsFrom(ctx context.Context) queryFacts {
	f, _ := ctx.Value(factsKey{}).(queryFacts)
	return f
}

// usageRE is a question about where something is used rather than what
// it is: who calls X, callers of X, usages of X, where is X used.
var usageRE = lazyre.New(`(?i)\b(who|what)\s+(calls|uses|invokes|references)\b|\bcallers\s+of\b|\bcall\s*sites?\b|\busages?\s+of\b|\bwhere\s+(is|are)\s+\S+\s+(used|called|invoked|referenced)\b|\bwhere\s+(do|does)\s+\S+\s+(get\s+)?(used|called|invoked)\b`)

// usageQuestion reports whether the query asks for the places that use
// something (who calls ReadMIMEHeader): its declaration is then not the
// answer — no declarations list, no credit for declaring the name.
func usageQuestion(q string) bool { return usageRE.MatchString(q) }

// declaresIdent reports whether one of a chunk's symbols is one of the
// query's identifiers (name@qualifier counts by its name), whatever its
// qualifier.
func declaresIdent(symbols string, idents []string) bool {
	for _, sym := range symbolNames(symbols) {
		for _, id := range idents {
			if n, _, _ := strings.Cut(id, "@"); n == sym {
				return true
			}
		}
	}
	return false
}

// symbolNames are the names a chunk's symbol field declares (a group's
// "Validator, ACCT_REGEX"), each without its qualifier (pkg.Type.Method:
// Method) and normalized (normIdent); empty ones are left out.
func symbolNames(symbols string) []string {
	var out []string
	for _, name := range strings.Split(symbols, ", ") {
		if i := strings.LastIndexAny(name, ".:/"); i >= 0 {
			name = name[i+1:]
		}
		if n := normIdent(name); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Rerank implements Reranker.
func (r BuiltinReranker) Rerank(ctx context.Context, query string, hits []core.Hit) ([]float64, []map[string]float64, error) {
	weights := r.Features
	if weights == nil {
		weights = defaultParams.Features
	}
	words, idents := queryWords(query)
	scores := make([]float64, len(hits))
	feats := make([]map[string]float64, len(hits))
	if len(words) == 0 {
		return scores, feats, nil
	}
	facts := factsFrom(ctx)
	idf := facts.idf
	phrases := quotedPhrases(query)
	usage := facts.usage
	// The whole query as written (a pasted error message) is as exact as
	// a match gets; without its first or last word (a log line's "error:")
	// only when no hit holds it all.
	// The hits' texts lower-cased with single spaces, where a phrase is
	// looked for.
	var norm []string
	if len(phrases) > 0 || len(facts.phrases) > 0 {
		norm = make([]string, len(hits))
		for i, h := range hits {
			norm[i] = normSpace(h.Chunk.Text)
		}
	}
	var whole []string
	if ps := facts.phrases; len(ps) > 0 {
		whole = []string{normSpace(ps[0])}
		found := false
		for _, text := range norm {
			if strings.Contains(text, whole[0]) {
				found = true
				break
			}
		}
		if !found {
			whole = nil
			for _, p := range ps[1:] {
				whole = append(whole, normSpace(p))
			}
		}
	}
	compounds := compoundTokens(query)
	// The shipped model's opinion, whatever the index's embedder: the
	// cosine of the question and the chunk, which knows what doc comments
	// say about code.
	var sem *embed.Static
	var qv []float32
	if weights["semantic"] > 0 {
		if m, err := embed.Shipped(); err == nil {
			sem, qv = m, m.Embed(query)
		}
	}
	// The features depend on the facts as well as on the text the
	// reranker gets ("where is X used" and "X used" both come as "X used").
	prefix := fmt.Sprintf("%s\x00%v\x00%q\x00%q\x00", query, usage, facts.phrases, facts.shingles)
	// One chunk's features; chunks are scored on several cores, each
	// into its own slot.
	score := func(i int) {
		h := hits[i]
		key := prefix + h.Chunk.ID
		if r.Cache != nil {
			if f, ok := r.Cache.get(key); ok {
				scores[i], feats[i] = weighted(weights, f), f
				return
			}
		}
		// The chunk's text is tokenized once, for its features and for
		// the model's vector.
		toks := codetok.Tokenize(h.Chunk.ContextPrefix + "\n" + h.Chunk.Text)
		f := featuresOf(h.Chunk, words, idents, idf, toks)
		declares := usage && declaresIdent(h.Chunk.SymbolName, idents)
		if declares {
			// Who calls X: the chunk that declares X is not a caller.
			delete(f, "symbol")
		}
		// The query's quoted phrases and compound identifiers
		// (MAX_RETRIES, unmarshalOrderFromQueue) found as written, in any
		// naming convention.
		if n := len(phrases) + len(compounds); n > 0 {
			found := 0
			if len(phrases) > 0 {
				for _, p := range phrases {
					if strings.Contains(norm[i], p) {
						found++
					}
				}
			}
			if len(compounds) > 0 {
				have := map[string]bool{}
				codetok.Each(h.Chunk.SymbolName+"\n"+h.Chunk.Text, func(t codetok.Token) {
					if t.Colocated {
						have[t.Text] = true
					}
				})
				for _, c := range compounds {
					if have[c] {
						found++
					}
				}
			}
			if found > 0 {
				f["exact"] = max(f["exact"], float64(found)/float64(n))
			}
		}
		if usage && !declares && f["exact"] > 0 && len(compounds) > 0 {
			// ... and a chunk that holds X as written is where it is used.
			f["symbol"] = 1
		}
		if len(whole) > 0 {
			for _, p := range whole {
				if strings.Contains(norm[i], p) {
					f["exact"] = 1
					break
				}
			}
		}
		if sh := facts.shingles; len(sh) >= 2 && f["exact"] < 1 {
			// A message with its values filled in: the share of its
			// three-word runs the chunk writes, when two or more.
			text := " " + alnumWords(h.Chunk.Text) + " "
			found := 0
			for _, s := range sh {
				if strings.Contains(text, " "+s+" ") {
					found++
				}
			}
			if found >= 2 {
				f["exact"] = max(f["exact"], float64(found)/float64(len(sh)))
			}
		}
		if qv != nil {
			if dv := semanticVector(sem, h.Chunk, toks); dv != nil {
				var dot float64
				for j := range qv {
					dot += float64(qv[j]) * float64(dv[j])
				}
				if dot > 0 {
					f["semantic"] = dot
				}
			}
		}
		if r.Cache != nil {
			r.Cache.put(key, f)
		}
		scores[i], feats[i] = weighted(weights, f), f
	}
	eachParallel(len(hits), score)
	return scores, feats, nil
}

// eachParallel calls fn(i) for i in [0, n), on up to as many goroutines
// as the process may run at once when n is worth it.
func eachParallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+7)/8)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// weighted is the sum of the features f times their weights, added in
// the order of their names so that a score is the same to the last bit
// in every run (a map's order is random and float addition is not
// associative).
func weighted(weights, f map[string]float64) float64 {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := 0.0
	for _, k := range keys {
		s += weights[k] * f[k]
	}
	return s
}

// compoundTokens are the whole-identifier tokens of the query's compound
// identifiers (MAX_RETRIES, unmarshalOrderFromQueue): the colocated
// token the code tokenizer gives each, which is the same in every naming
// convention.
func compoundTokens(q string) []string {
	var out []string
	for _, t := range Terms(q) {
		if strings.ContainsAny(t, " \t") || !isIdentifier(strings.Trim(t, ".,;:!?()'\"")) {
			continue
		}
		codetok.Each(strings.Trim(t, ".,;:!?()'\""), func(tk codetok.Token) {
			if tk.Colocated {
				out = append(out, tk.Text)
			}
		})
	}
	return out
}

// quotedPhrases are the query's "quoted phrases" of two words or more,
// lower-cased with single spaces.
func quotedPhrases(q string) []string {
	var out []string
	for _, t := range Terms(q) {
		if strings.ContainsAny(t, " \t") {
			out = append(out, normSpace(t))
		}
	}
	return out
}

func normSpace(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Features computes the builtin reranker's features of chunk c for the
// query words and identifiers, each in [0, 1], every word weighing the
// same.
func Features(c core.Chunk, words, idents []string) map[string]float64 {
	return FeaturesIDF(c, words, idents, nil)
}

// FeaturesIDF is Features with each query word weighed by its inverse
// document frequency in the index (a word in every chunk says little); a
// word missing from idf weighs the mean of the others.
func FeaturesIDF(c core.Chunk, words, idents []string, idf map[string]float64) map[string]float64 {
	return featuresOf(c, words, idents, idf, codetok.Tokenize(c.ContextPrefix+"\n"+c.Text))
}

// semanticVector is the shipped model's vector of chunk c's document text
// (embed.DocumentText), from toks, the tokens of its scope and text as
// the reranker reads them, when they are that text's (it is not cut).
func semanticVector(m *embed.Static, c core.Chunk, toks []codetok.Token) []float32 {
	if p := (embed.Pending{ContextPrefix: c.ContextPrefix, Text: c.Text}); embed.DocumentCut(p) {
		return m.Embed(embed.DocumentText(p)) // cut: its own tokens
	}
	// Without a scope the document is the text alone, whose tokens are
	// those of "\n" + text (TestLeadingNewlineTokens).
	seen := make([]string, 0, len(toks))
	for _, t := range toks {
		if embed.Sees(t) {
			seen = append(seen, t.Text)
		}
	}
	return m.EmbedTokens(seen)
}

// featuresOf is FeaturesIDF with the tokens of the chunk's scope and text,
// c.ContextPrefix + "\n" + c.Text, given.
func featuresOf(c core.Chunk, words, idents []string, idf map[string]float64, toks []codetok.Token) map[string]float64 {
	f := map[string]float64{}
	// The path begins with the repository's name: a question that names
	// the repository (payments-api, kafkajs) asks about its files as one
	// that names a directory does.
	pathWords := set(codetok.Words(c.RepoName + "/" + c.FilePath))
	// A chunk of several small declarations names them all ("Validator,
	// ACCT_REGEX, LOGGER"); a query identifier equal to any of them, whole
	// or without its qualifier (pkg.Type.Method), is the chunk's symbol.
	// A qualified one (name@qualifier, from os.ReadFile) is when its
	// qualifier is in the chunk's path or scope (os/file.go), and half
	// so elsewhere (another package's ReadFile).
	var scope, home map[string]bool
	for _, name := range strings.Split(c.SymbolName, ", ") {
		sym := normIdent(name)
		if i := strings.LastIndexAny(name, ".:/"); i >= 0 {
			sym = normIdent(name[i+1:])
		}
		if sym == "" {
			continue
		}
		for _, id := range idents {
			if n, qual, ok := strings.Cut(id, "@"); ok {
				if n != sym {
					continue
				}
				if scope == nil {
					scope, home = qualifierScopes(c, pathWords)
				}
				if home[qual] {
					// The declaration of the name the question
					// qualifies holds it as exactly as a call does.
					f["symbol"], f["exact"] = 1, 1
				} else if scope[qual] {
					f["symbol"], f["exact"] = max(f["symbol"], 0.75), 1
				} else {
					f["symbol"] = max(f["symbol"], 0.5)
				}
				continue
			}
			if id == sym || id == normIdent(name) {
				f["symbol"] = 1
			}
		}
	}
	symWords := set(codetok.Words(c.SymbolName))
	sigWords := set(codetok.Words(c.Signature))
	weight := func(w string) float64 {
		if v, ok := idf[w]; ok {
			return v
		}
		if len(idf) == 0 {
			return 1
		}
		sum := 0.0
		for _, v := range idf {
			sum += v
		}
		return sum / float64(len(idf))
	}
	var inSym, inPath, inSig, n float64
	for _, w := range words {
		wt := weight(w)
		n += wt
		if symWords[w] {
			inSym += wt
		}
		if pathWords[w] {
			inPath += wt
		}
		if sigWords[w] {
			inSig += wt
		}
	}
	if n == 0 {
		return f
	}
	if f["symbol"] == 0 && inSym > 0 {
		f["symbol"] = 0.5 * inSym / n
	}
	f["path"] = inPath / n
	f["signature"] = inSig / n
	// Coverage and proximity over the body's word sequence, words matched
	// by their stems ("retries" finds retry); a word found only through
	// a synonym ("database" through postgres) counts half.
	stemOf := map[string]string{} // query stem -> query word
	synOf := map[string]string{}  // synonym stem -> query word
	for _, w := range words {
		stemOf[stem(w)] = w
	}
	for _, w := range words {
		for _, syn := range synonyms[stem(w)] {
			if _, own := stemOf[syn]; !own {
				synOf[syn] = w
			}
		}
	}
	might := stemPrefixes(stemOf, synOf)
	pos := map[string][]int{}
	viaSyn := map[string]bool{}
	k := 0
	for _, t := range toks {
		if t.Colocated {
			continue
		}
		if !might.holds(t.Text) {
			k++ // no stem of the query's starts as it does: stemming it finds nothing
			continue
		}
		st := stem(t.Text)
		if w, ok := stemOf[st]; ok && sameWord(w, t.Text) {
			pos[w] = append(pos[w], k)
		} else if w, ok := synOf[st]; ok {
			viaSyn[w] = true
		}
		k++
	}
	found := 0.0
	for _, w := range words {
		switch {
		case len(pos[w]) > 0 || symWords[w] || pathWords[w]:
			found += weight(w)
		case viaSyn[w]:
			found += 0.5 * weight(w)
		}
	}
	f["coverage"] = found / n
	if len(pos) >= 2 {
		f["proximity"] = proximity(pos)
	} else if len(pos) == 1 && len(words) == 1 {
		f["proximity"] = 1
	}
	for k, v := range f {
		if v == 0 {
			delete(f, k)
		}
	}
	return f
}

// prefixSet holds the first two letters a word must start with for its
// stem to be one of a set of stems; all is set when any word may.
type prefixSet struct {
	all bool
	p   map[string]bool
}

// stemPrefixes returns the prefixSet of the keys of the maps. A Porter2
// stem keeps its word's first two letters but in dying, lying and tying
// (die, lie, tie) and stems of one letter; over 914,899 distinct words of
// Python and JavaScript code no other differed. Stemming only the words
// that may match spares most of a one-shot query's stemming (the cache of
// stems is cold in a new process).
func stemPrefixes(sets ...map[string]string) prefixSet {
	ps := prefixSet{p: map[string]bool{}}
	for _, m := range sets {
		for s := range m {
			if len(s) < 2 {
				ps.all = true
				continue
			}
			ps.p[s[:2]] = true
			if s[1] == 'i' {
				ps.p[s[:1]+"y"] = true
			}
		}
	}
	return ps
}

// holds reports whether w may stem to one of the set's stems.
func (ps prefixSet) holds(w string) bool {
	return ps.all || len(w) < 2 || ps.p[w[:2]]
}

func set(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// proximity is how close together a chunk's matched query words stand:
// over every number m ≥ 2 of distinct words, the shortest window holding m
// of them gives m/window (at most 1), scaled by the share m of the matched
// words; the best m counts. One matched word far from the others (a word
// of a log line at the other end of a method) costs its share, not the
// whole score.
func proximity(pos map[string][]int) float64 {
	// The words' positions in order, sorted once for every m.
	var all []occurrence
	w := 0
	for _, ps := range pos {
		for _, p := range ps {
			all = append(all, occurrence{p, w})
		}
		w++
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at < all[j].at })
	best := 0.0
	for m := len(pos); m >= 2; m-- {
		share := float64(m) / float64(len(pos))
		if share <= best {
			break
		}
		best = max(best, share*math.Min(1, float64(m)/float64(minSpan(all, len(pos), m))))
	}
	return best
}

// occurrence is a matched word (its index) at a position.
type occurrence struct{ at, word int }

// minSpan is the length of the shortest window of the sorted occurrences
// all (of words distinct words) that holds need distinct words.
func minSpan(all []occurrence, words, need int) int {
	count := make([]int, words)
	have, best, lo := 0, math.MaxInt, 0
	for _, o := range all {
		if count[o.word] == 0 {
			have++
		}
		count[o.word]++
		for have == need {
			best = min(best, o.at-all[lo].at+1)
			count[all[lo].word]--
			if count[all[lo].word] == 0 {
				have--
			}
			lo++
		}
	}
	return best
}

// HTTPReranker calls a cross-encoder server: "tei" (Text Embeddings
// Inference, POST /rerank {query, texts} -> [{index, score}]) or "cohere"
// (Cohere, Jina, Infinity, vLLM: POST /v1/rerank {model, query, documents,
// top_n} -> {results: [{index, relevance_score}]}).
type HTTPReranker struct {
	Provider string
	URL      string
	Model    string
	APIKey   string
	Timeout  time.Duration // default 30s
	Client   *http.Client
}

// Name implements Reranker.
func (r *HTTPReranker) Name() string { return r.Provider + ":" + r.Model }

func (r *HTTPReranker) endpoint() string {
	base := strings.TrimRight(r.URL, "/")
	switch r.Provider {
	case "tei":
		if strings.HasSuffix(base, "/rerank") {
			return base
		}
		return base + "/rerank"
	default:
		if strings.HasSuffix(base, "/rerank") {
			return base
		}
		if strings.HasSuffix(base, "/v1") {
			return base + "/rerank"
		}
		return base + "/v1/rerank"
	}
}

// Rerank implements Reranker. Hits the server gave no score rank last.
func (r *HTTPReranker) Rerank(ctx context.Context, query string, hits []core.Hit) ([]float64, []map[string]float64, error) {
	docs := make([]string, len(hits))
	for i, h := range hits {
		docs[i] = h.Chunk.ContextPrefix + "\n" + h.Chunk.Text
	}
	var body any
	switch r.Provider {
	case "tei":
		body = map[string]any{"query": query, "texts": docs, "truncate": true}
	case "cohere":
		body = map[string]any{"model": r.Model, "query": query, "documents": docs, "top_n": len(docs)}
	default:
		return nil, nil, fmt.Errorf("reranker %q: unknown provider (want builtin, tei or cohere)", r.Provider)
	}
	data, _ := json.Marshal(body)
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	url := r.endpoint()
	var resp []byte
	for attempt := 0; ; attempt++ {
		status, b, err := post(ctx, client, url, r.APIKey, data, timeout)
		if err == nil && status == http.StatusOK {
			resp = b
			break
		}
		retry := err != nil || status == http.StatusTooManyRequests || status >= 500
		if !retry || attempt >= 2 || ctx.Err() != nil {
			if err != nil {
				return nil, nil, fmt.Errorf("reranker %s at %s: %w", r.Provider, url, err)
			}
			return nil, nil, fmt.Errorf("reranker %s at %s: HTTP %d: %s", r.Provider, url, status, strings.TrimSpace(string(b)))
		}
		time.Sleep(time.Duration(200<<attempt) * time.Millisecond)
	}
	scores := make([]float64, len(hits))
	for i := range scores {
		scores[i] = math.Inf(-1)
	}
	type item struct {
		Index          int      `json:"index"`
		Score          *float64 `json:"score"`
		RelevanceScore *float64 `json:"relevance_score"`
	}
	var items []item
	if r.Provider == "tei" {
		if err := json.Unmarshal(resp, &items); err != nil {
			return nil, nil, fmt.Errorf("reranker tei at %s: answer is not a list of {index, score}: %w", url, err)
		}
	} else {
		var out struct {
			Results []item `json:"results"`
		}
		if err := json.Unmarshal(resp, &out); err != nil {
			return nil, nil, fmt.Errorf("reranker %s at %s: answer has no results: %w", r.Provider, url, err)
		}
		items = out.Results
	}
	for _, it := range items {
		if it.Index < 0 || it.Index >= len(hits) {
			return nil, nil, fmt.Errorf("reranker %s at %s: answer has index %d for %d documents", r.Provider, url, it.Index, len(hits))
		}
		switch {
		case it.Score != nil:
			scores[it.Index] = *it.Score
		case it.RelevanceScore != nil:
			scores[it.Index] = *it.RelevanceScore
		}
	}
	return scores, nil, nil
}

func post(ctx context.Context, client *http.Client, url, key string, body []byte, timeout time.Duration) (int, []byte, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, b, err
}

// sameWord reports whether a word of the text that has a query word's
// stem is a form of it rather than another word the stemmer cut to the
// same stem (activator and activities are both activ): they share all
// but the last two letters of the shorter.
func sameWord(query, text string) bool {
	if query == text {
		return true
	}
	n := 0
	for n < len(query) && n < len(text) && query[n] == text[n] {
		n++
	}
	return n >= min(len(query), len(text))-2
}
