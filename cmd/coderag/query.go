package main

import (
	"context"
	"encoding/json"
	"fmt"
	goio "io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/embed"
	"coderag/core/pack"
	"coderag/core/search"
)

type queryOptions struct {
	db      *string
	k       int
	json    bool
	explain bool
	types   []string
	service []string
	repo    []string
	lang    []string
	path    []string
	embed   embedFlags
	rerank  rerankFlags
}

const queryLong = `Query searches the index and prints the best chunks, best first.

Five lists are searched at once and fused with weighted reciprocal rank
fusion (k=60): BM25 over a code-aware full-text index, BM25 over a stemmed
one for prose, BM25 over whole files (a file's best chunk stands for it),
BM25 of the query's words with their software synonyms (database: db,
postgres, ...; half weight), and the nearest vectors of the index's
embedder (the shipped model's at weight 4, learned on questions that
describe code, 1 for a pasted message (or a text the index holds word
for word) or a query written as code, none for a question for callers; the corpus-learned model's at 0.3; an
embedding server's at 1). A qualified name
(os.ReadFile, CartService.Checkout, Cart::Checkout) adds a sixth, at
double weight: the declarations of its last part, those under
its package's path or its type's scope first, for its callers write the
whole name and its declaration does not; the best-ranked declaration
directly under the qualifier (in the type it names, or at the top level
of a file in the package or module it names) is put first, marked
"declares os.ReadFile". A text of three words or more
is also searched as one phrase, so that a pasted error message finds the
line that writes it (a log's extra first or last word, "error: ...", is
forgiven). A message as a log shows it, its values filled in (failed to
connect to redis at 10.0.3.17:6379: i/o timeout), is not a question:
its runs of three words without a number are also searched, a list of
their own (bm25-message), and the reranker counts the share of them a
chunk writes as exact, for the format string that wrote it holds them
(failed to connect to redis at %s: %w). A question for the places that use something (who calls X,
callers of X, where is X used) gets no declarations list, and the
reranker's symbol credit goes from the chunk that declares X to those that
hold it.

A pasted stack trace, panic or compiler message (Python, Go, Java and
Kotlin, .NET, Node, PHP, Ruby, or any file.ext:LINE) puts the chunks its
frames point at first, the frame where it failed first. A frame's file is
the indexed one whose path ends the most like it (/srv/app/.venv/.../
django/db/models/query.py is db/models/query.py of a crawled django, a
version in a directory name aside), and its chunk the one holding the
line, or the frame's function nearby when the code changed since; frames
of files the index does not hold (the runtime's) are left out. The lists
search the trace's messages and function names. TEXT "-" reads standard
input: coderag query - < trace.txt.

A pasted request (an access-log line, a curl command, a structured log's
method and path, GET https://host/x -> 503) puts the chunk that registers
the route that serves it first and its handler's declaration second
(route ... and handles ... beside them); the routes are those the crawl
found, a request with a method may carry up to three leading segments
they lack (an ingress's /api). A gRPC call (/pkg.CartService/AddItem as
Envoy logs :path, or grpc.service= grpc.method=) does the same with the
service's registration and the method's implementation.

A pasted pod or container name (kubectl get pods, a kubelet event, an
alert's namespace/pod, docker compose ps) puts first the manifest of the
workload that made it, read from its generated suffix: a Deployment's
pod (checkout-7d9f8c6b5-x2k4p), a StatefulSet's (redis-0), a DaemonSet's
or Job's (NAME-x7kq2), a CronJob's (NAME-29401200-8zq5n), a Compose
container (PROJECT-SERVICE-1), or a kubectl reference (deployment/NAME),
a Helm chart's workload template for a release's pods (RELEASE-CHART-...);
the namespace the text gives and the compose file's folder choose among
workloads of one name ("workload of pod ..." beside it), and the lists
search the workload's name. A name with no generated suffix is a word
like any other. A Service's host (cart.shop.svc.cluster.local, or
cart:7070 where a Service or Compose service so named has that port)
puts the Service first and the workloads behind it next; an image
(ghcr.io/acme/cart:1.5.0, or redis:7.2 after "image" or "pull") the
workloads that run it, whatever their tag.

A question about a service's callers or dependencies (who calls cart,
which services depend on payments, callers of invoice-api, what does
checkout call, dependencies of checkout) puts first, for each edge of
the service graph into or out of that service, a chunk of its evidence
(the call, or the deploy file that wires the two), by the edge's
confidence, "edge checkout -> cart (http GET /api/cart/{userId})" beside
it; what breaks if X is down has the chunks of its blast radius (three
levels of dependents, nearest first) as a list fused with the others,
for a runbook or design document may answer it better.

A verb and its particle are also searched joined ("timing out": timeout)
and an HTTP status code by its reason ("503": unavailable). Overlapping
chunks of one file count once. The best 50 are then reranked (--rerank),
conversations get a recency term (90-day half-life, 10% of the score),
and corpus types the query's words point at get a 1.15 boost
(identifiers: code and config; deploy words: deploy files and runbooks;
incident words: Slack and runbooks; how-to words: runbooks and docs).
--explain shows all of it.

An identifier matches itself in any naming convention (getUserProfile,
GetUserProfile, get_user_profile and GET-USER-PROFILE are one token) and,
when that is cheap, longer identifiers containing its words (UserProfile
finds getUserProfile). "double quotes" keep a phrase together. In a large
index, words found in most chunks (err, ctx, return) are left out of longer
queries; the result says so.

Filters, in the text or as flags (several values of one filter are
alternatives):
  type:runbook     corpus type: code deploy config docs runbook adr gdoc
                   slack transcript convo, or doc (all docs), convo (all
                   conversations)
  service:cart     chunks of a service: its code and config (by the
                   directory its deploy files build), its deploy files, and
                   the conversations and docs that mention it
  repo:platform    a source by name
  lang:go          a language (go, csharp, python, typescript, yaml, ...)
  path:src/api/**  a path glob; a plain word matches paths containing it
  -path:test       leave such paths out

With --json the result is
  {"query","text","took_ms","lists":[...],"reranker","warnings":[...],
   "hits":[{"chunk_id","file_path","line_start","line_end","corpus_type",
            "language","symbol_name","repo_name","service_name","score","text",
            "context_prefix","lists":[{"list","rank","score"}],"explain":{"fused",
            "rerank","features","freshness","boost","boost_reason","matched"},
            and when known "symbol_kind","section_path","timestamp","author",
            "channel","meta":{...}}]}`

func newQueryCmd(io *ioStreams, db *string) *cobra.Command {
	o := &queryOptions{db: db}
	cmd := &cobra.Command{
		Use:   "query [flags] TEXT...",
		Short: "Search the index",
		Long:  queryLong,
		Example: `  coderag query getUserProfile
  coderag query "checkout service returns 503"
  kubectl logs deploy/cart | tail -40 | coderag query -
  coderag query -k 3 --json http.Get | jq '.hits[].file_path'`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := argText(cmd, args)
			if err != nil {
				return err
			}
			return queryRun(cmd, io, o, text)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.k, "limit", "k", 10, "number of results")
	f.IntVar(&o.k, "k", 10, "number of results")
	f.MarkHidden("k") // the old spelling; scripts keep working
	f.BoolVar(&o.json, "json", false, "print the result as JSON")
	f.BoolVar(&o.explain, "explain", false, "show why each hit matched: its rank in each list, reranker features, freshness, boosts")
	f.StringArrayVar(&o.types, "type", nil, "only this corpus type (repeatable; as type:)")
	f.StringArrayVar(&o.service, "service", nil, "only this service (repeatable)")
	f.StringArrayVar(&o.repo, "repo", nil, "only this source (repeatable)")
	f.StringArrayVar(&o.lang, "lang", nil, "only this language (repeatable)")
	f.StringArrayVar(&o.path, "path", nil, "only paths matching this glob (repeatable; prefix with - to exclude)")
	o.embed.register(f, true)
	o.rerank.register(f)
	cmd.RegisterFlagCompletionFunc("service", indexValues(db, "service"))
	cmd.RegisterFlagCompletionFunc("repo", indexValues(db, "repo"))
	cmd.RegisterFlagCompletionFunc("type", corpusValues())
	return cmd
}

// searchEnv is an opened index and what searching it takes: the
// database, the hybrid engine the flags ask for, its embedder (nil
// without dense search; warn says why), reranker and ranking parameters.
// The commands that search, pack, ask or serve open it once and share it.
type searchEnv struct {
	db           index
	eng          pack.Searcher
	emb          embed.Embedder
	params       *search.Params
	rr           search.Reranker
	pathPriority bool
	warn         string
}

// openSearch opens the database at path for reading and the search engine
// the query flags ask for. The caller closes env.db.
func openSearch(ctx context.Context, path string, ef *embedFlags, rf *rerankFlags) (*searchEnv, error) {
	db, err := openIndex(ctx, path, false)
	if err != nil {
		return nil, err
	}
	env := &searchEnv{db: db, pathPriority: rf.pathPriority}
	if env.emb, env.warn, err = ef.queryEmbedder(ctx, db); err == nil {
		if env.rr, err = rf.reranker(); err == nil {
			env.params, err = rf.loadParams()
		}
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	env.eng = search.New(db, search.Options{Params: env.params, Embedder: env.emb, Reranker: env.rr, PathPriority: env.pathPriority})
	return env, nil
}

// jsonHit is one hit of `coderag query --json`. Fields are only ever added.
type jsonHit struct {
	ChunkID       string          `json:"chunk_id"`
	FilePath      string          `json:"file_path"`
	LineStart     int             `json:"line_start"`
	LineEnd       int             `json:"line_end"`
	CorpusType    string          `json:"corpus_type"`
	Language      string          `json:"language"`
	SymbolName    string          `json:"symbol_name"`
	RepoName      string          `json:"repo_name"`
	ServiceName   string          `json:"service_name"`
	Score         float64         `json:"score"`
	Text          string          `json:"text"`
	ContextPrefix string          `json:"context_prefix"`
	Lists         []core.ListRank `json:"lists"`
	Explain       core.Explain    `json:"explain"`
	// What a chunker knows beyond the fields above, when it knows it.
	SymbolKind  string            `json:"symbol_kind,omitempty"`  // function, section, resource, ...
	SectionPath string            `json:"section_path,omitempty"` // a document's headings
	Timestamp   string            `json:"timestamp,omitempty"`    // a message's or a dated section's time
	Author      string            `json:"author,omitempty"`       // a message's author
	Channel     string            `json:"channel,omitempty"`      // a Slack channel
	Meta        map[string]string `json:"meta,omitempty"`         // front matter, format, test code, ...
}

// queryResultJSON is a search result as query --json prints it (and the HTTP
// API's /v1/search answers).
func queryResultJSON(full string, res search.Result) any {
	out := struct {
		Query    string    `json:"query"`
		Text     string    `json:"text"`
		TookMS   float64   `json:"took_ms"`
		Lists    []string  `json:"lists"`
		Reranker string    `json:"reranker,omitempty"`
		Warnings []string  `json:"warnings,omitempty"`
		Dropped  []string  `json:"dropped_terms,omitempty"`
		Hits     []jsonHit `json:"hits"`
	}{Query: full, Text: res.Text, TookMS: float64(res.Took.Microseconds()) / 1000, Lists: res.Lists, Reranker: res.Reranker,
		Warnings: res.Warnings, Dropped: res.Dropped, Hits: []jsonHit{}}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, toJSONHit(h))
	}
	return out
}

// toJSONHit is a hit as query --json (and the MCP search tool) print it.
func toJSONHit(h core.Hit) jsonHit {
	c := h.Chunk
	return jsonHit{ChunkID: c.ID, FilePath: c.FilePath, LineStart: c.LineStart, LineEnd: c.LineEnd,
		CorpusType: string(c.Corpus), Language: c.Language, SymbolName: c.SymbolName, RepoName: c.RepoName,
		ServiceName: c.ServiceName, Score: h.Score, Text: c.Text, ContextPrefix: c.ContextPrefix, Lists: h.Lists, Explain: h.Explain,
		SymbolKind: c.SymbolKind, SectionPath: c.SectionPath, Timestamp: c.Timestamp, Author: c.Author, Channel: c.Channel, Meta: c.Meta}
}

// filterFlags turns the filter flags into query syntax, so that flags and
// text go through one parser and one set of error messages.
func (o *queryOptions) filterText() string {
	var parts []string
	add := func(key string, vals []string) {
		for _, v := range vals {
			neg := ""
			if key == "path" && strings.HasPrefix(v, "-") {
				neg, v = "-", v[1:]
			}
			parts = append(parts, fmt.Sprintf("%s%s:%q", neg, key, v))
		}
	}
	add("type", o.types)
	add("service", o.service)
	add("repo", o.repo)
	add("lang", o.lang)
	add("path", o.path)
	return strings.Join(parts, " ")
}

func queryRun(cmd *cobra.Command, io *ioStreams, o *queryOptions, text string) error {
	if err := positiveInt("limit", o.k); err != nil {
		return err
	}
	full := strings.TrimSpace(text + " " + o.filterText())
	if full == "" {
		return usagef("the query is empty: give words to search for, or a filter (service:cart) to list")
	}
	ctx := cmd.Context()
	if os.Getenv("GOGC") == "" {
		// A query allocates ~100 MB in ~50 ms and the process ends:
		// collecting as it goes (from a 4 MB heap) costs more than the
		// memory would (~6 ms of a one-shot query's p50 on the Go
		// standard library for ~10 MB of RSS).
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	env, err := openSearch(ctx, *o.db, &o.embed, &o.rerank)
	if err != nil {
		return err
	}
	defer env.db.Close()
	warn := env.warn
	res, err := env.eng.Search(ctx, search.Query{Text: full, K: o.k})
	if err != nil {
		return err
	}
	if warn != "" {
		res.Warnings = append([]string{warn}, res.Warnings...)
	}
	if o.json {
		out := queryResultJSON(full, res)
		enc := json.NewEncoder(io.out)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(io.err, "coderag: warning: %s\n", w)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(io.out, "no results for %q\n", full)
		return nil
	}
	st := styles(io.color)
	words := map[string]bool{}
	for _, w := range codetok.Words(res.Text) {
		words[w] = true
	}
	for i, h := range res.Hits {
		c := h.Chunk.Printable() // a pasted log's colours never reach the terminal
		loc := c.Location()
		sym := ""
		if c.SymbolName != "" {
			sym = "  " + core.SymbolTitle(c.SymbolName, words, symbolWidth)
		}
		if why := h.Explain.Pinned(); why != "" {
			sym += "  " + st.dim(why)
		}
		fmt.Fprintf(io.out, "%2d. %s %s%s  %s\n", i+1, st.badge(c.Corpus), st.bold(loc), sym, st.dim(fmt.Sprintf("%.4f", h.Score)))
		for _, l := range excerpt(c, words, 3, h.Explain.FocusLine()) {
			n := "      │"
			if c.Verbatim() {
				n = fmt.Sprintf("%5d │", l.n)
			}
			fmt.Fprintf(io.out, "    %s %s\n", st.dim(n), l.text)
		}
		if same := h.Explain.SameIn(3); same != "" {
			fmt.Fprintf(io.out, "    %s\n", st.dim(same))
		}
		if o.explain {
			for _, l := range explainLines(h) {
				fmt.Fprintf(io.out, "    %s %s\n", st.dim("why"), l)
			}
		}
	}
	summary := fmt.Sprintf("%s in %.1f ms (%s", plural(len(res.Hits), "result", "results"), float64(res.Took.Microseconds())/1000, strings.Join(res.Lists, " + "))
	if res.Reranker != "" {
		summary += ", rerank " + res.Reranker
	}
	summary += ")"
	if len(res.Dropped) > 0 {
		summary += fmt.Sprintf("; ignored terms found in most chunks: %s", strings.Join(res.Dropped, " "))
	}
	fmt.Fprintln(io.out, st.dim(summary))
	return nil
}

// symbolWidth is about the most columns a result's symbol names take on
// its title line; --json keeps them all.
const symbolWidth = 60

type excerptLine struct {
	n    int
	text string
}

// excerpt picks up to n lines of the chunk around the line that matches
// the most query words, or around line at of the file (a pasted trace's
// frame) when the chunk holds it.
func excerpt(c core.Chunk, words map[string]bool, n, at int) []excerptLine {
	lines := strings.Split(c.Text, "\n")
	best, bestScore := 0, -1
	if i := at - c.LineStart; at > 0 && i >= 0 && i < len(lines) {
		best, bestScore = i, 1
	} else {
		for i, l := range lines {
			score := 0
			for _, w := range codetok.Words(l) {
				if words[w] {
					score++
				}
			}
			if score > bestScore && strings.TrimSpace(l) != "" {
				best, bestScore = i, score
			}
		}
	}
	from := max(0, best-1)
	if bestScore <= 0 {
		from = 0
	}
	for from < best && strings.TrimSpace(lines[from]) == "" {
		from++
	}
	var out []excerptLine
	for i := from; i < len(lines) && len(out) < n; i++ {
		// At most 160 columns: a CJK character takes two.
		t := ansi.Truncate(strings.TrimRight(lines[i], "\r"), 160, "...")
		out = append(out, excerptLine{c.LineStart + i, t})
	}
	return out
}

// textStyles renders with ANSI codes, or plainly when colour is off.
type textStyles struct{ on bool }

func styles(on bool) textStyles { return textStyles{on} }

func (s textStyles) wrap(code, t string) string {
	if !s.on {
		return t
	}
	return "\x1b[" + code + "m" + t + "\x1b[0m"
}

func (s textStyles) bold(t string) string { return s.wrap("1", t) }
func (s textStyles) dim(t string) string  { return s.wrap("2", t) }

func (s textStyles) badge(c core.CorpusType) string {
	t := fmt.Sprintf("[%s]", c.Short())
	switch c {
	case core.CodeLogic:
		return s.wrap("36", t)
	case core.CodeDeploy, core.CodeConfig:
		return s.wrap("35", t)
	case core.DocRunbook:
		return s.wrap("31", t)
	case core.ConvoSlack, core.ConvoTranscript, core.ConvoOther:
		return s.wrap("33", t)
	}
	return s.wrap("32", t)
}

// explainLines says why a hit ranks where it does, for --explain.
func explainLines(h core.Hit) []string {
	e := h.Explain
	var lists []string
	for _, l := range h.Lists {
		lists = append(lists, fmt.Sprintf("%s #%d (%.3f)", l.List, l.Rank, l.Score))
	}
	out := []string{fmt.Sprintf("lists: %s; fused %.4f", strings.Join(lists, ", "), e.Fused)}
	if e.Rerank != nil {
		line := fmt.Sprintf("rerank %s: %.3f", e.Reranker, *e.Rerank)
		if len(e.Features) > 0 {
			keys := make([]string, 0, len(e.Features))
			for k := range e.Features {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var fs []string
			for _, k := range keys {
				fs = append(fs, fmt.Sprintf("%s %.2f", k, e.Features[k]))
			}
			line += " (" + strings.Join(fs, ", ") + ")"
		}
		out = append(out, line)
	}
	if e.Freshness != nil {
		out = append(out, fmt.Sprintf("freshness %.2f", *e.Freshness))
	}
	if e.Boost != 0 {
		out = append(out, fmt.Sprintf("boost x%.2f for %s", e.Boost, e.BoostReason))
	}
	m := "none"
	if len(e.Matched) > 0 {
		m = strings.Join(e.Matched, " ")
	}
	if e.Frame != "" {
		out = append(out, "frame of the pasted trace: "+e.Frame)
	}
	if e.Edge != "" {
		out = append(out, "evidence of the service graph's "+e.Edge)
	}
	out = append(out, "matched: "+m)
	return out
}

// maxStdinText is the most of standard input a TEXT of "-" reads.
const maxStdinText = 1 << 20

// argText is a command's TEXT arguments joined, or standard input when
// the one argument is "-" (a stack trace pasted into a pipe or a here
// document, whose lines a shell argument would need quoting for).
func argText(cmd *cobra.Command, args []string) (string, error) {
	if len(args) != 1 || args[0] != "-" {
		return strings.Join(args, " "), nil
	}
	data, err := goio.ReadAll(goio.LimitReader(cmd.InOrStdin(), maxStdinText+1))
	if err != nil {
		return "", fmt.Errorf("read the text from standard input: %w", err)
	}
	if len(data) > maxStdinText {
		return "", usagef("the text on standard input is over %d bytes: paste the part that matters (the error and its frames)", maxStdinText)
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", usagef("standard input is empty: give the text to search for (- reads it from standard input)")
	}
	return string(data), nil
}
