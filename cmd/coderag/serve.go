package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"coderag/core/embed"
	"coderag/core/pack"
	"coderag/core/search"
)

type serveOptions struct {
	db        *string
	addr      string
	tokenFile string
	embed     embedFlags
	rerank    rerankFlags
}

const serveLong = `Serve answers over HTTP: a JSON API over the same core as the CLI, and
the MCP tools of 'coderag mcp' over streamable HTTP at /mcp.

  GET  /health                           index, schema, counts, last crawl
  POST /v1/search                        {"query", "k"}: what query --json prints
  POST /v1/context                       {"query", "budget", "format", "follow"}
  POST /v1/pr-context                    {"diff", "title", "budget", "format"}
  GET  /v1/graph?service=&depth=         the graph, or a service's neighbourhood
  GET  /v1/services/{name}/blast-radius  what breaks when it is down (?depth=)
  POST /v1/index                         crawl the index's sources again (202)
  POST /v1/index/update                  crawl the files that changed (202)
  DELETE /v1/index/files                 {"source", "paths"}: remove files
  GET  /v1/crawls/{id}                   progress and result (SSE with
                                         Accept: text/event-stream)
  GET  /v1/openapi.json                  this API as OpenAPI 3.1
  *    /mcp                              MCP, streamable HTTP

Errors are JSON: {"error": {"code": "bad_request", "message": "..."}}.
It binds to loopback by default. A bearer token (--token-file, or
CODERAG_TOKEN) is required for any other address; when one is set every
request but /health must carry 'Authorization: Bearer TOKEN'. The write
endpoints (the crawls) need a token to be set; one crawl runs at a time
(409 while one runs, or while a CLI crawl holds the index), and stopping
the server cancels it at a transaction's end. Request bodies are limited
to 8 MB and requests to 60 s; queries keep working while a crawl writes
the index (WAL).`

func newServeCmd(io *ioStreams, db *string) *cobra.Command {
	o := &serveOptions{db: db}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the index over HTTP: a JSON API and MCP (streamable HTTP)",
		Long:  serveLong,
		Example: `  coderag serve --db data/coderag.db
  curl -s localhost:7474/v1/search -d '{"query": "redis timeout", "k": 3}' | jq '.hits[].file_path'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return serveRun(cmd.Context(), io, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:7474", "address to listen on (loopback unless a token is set)")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token requests must carry (or CODERAG_TOKEN)")
	o.embed.register(f, true)
	o.rerank.register(f)
	return cmd
}

func serveRun(ctx context.Context, io *ioStreams, o *serveOptions) error {
	token := strings.TrimSpace(os.Getenv("CODERAG_TOKEN"))
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return fmt.Errorf("read the token: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return fmt.Errorf("read the token: %s is empty", o.tokenFile)
		}
	}
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usagef("--addr %q: %v", o.addr, err)
	}
	if ip := net.ParseIP(host); token == "" && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usagef("--addr %s is not a loopback address: set a token (--token-file or CODERAG_TOKEN) to serve beyond this machine", o.addr)
	}
	h, closeFn, err := newAPI(ctx, *o.db, &o.embed, &o.rerank, token)
	if err != nil {
		return err
	}
	defer closeFn()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second, WriteTimeout: 90 * time.Second}
	fmt.Fprintf(io.err, "coderag: serving %s on http://%s (API /v1, MCP /mcp)\n", *o.db, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return srv.Shutdown(sctx) // lets running requests finish
	}
}

// apiRoute is one endpoint: the mux pattern, what the OpenAPI document
// says of it, and its handler. The mux and the document are made from the
// same list, so they cannot disagree.
type apiRoute struct {
	method, path, summary string
	body                  string // the request body's fields, for the document
	handle                func(w http.ResponseWriter, r *http.Request) error
}

// apiError is an error with an HTTP status and a code for programs.
type apiError struct {
	status        int
	code, message string
}

func (e *apiError) Error() string { return e.message }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, "bad_request", fmt.Sprintf(format, args...)}
}

// newAPI opens the index and returns the HTTP handler of serve. Crawls it
// starts run under ctx; the close function cancels a running one and
// waits for it to end its transaction.
func newAPI(ctx context.Context, path string, ef *embedFlags, rf *rerankFlags, token string) (http.Handler, func(), error) {
	env, err := openSearch(ctx, path, ef, rf)
	if err != nil {
		return nil, nil, err
	}
	mcpSrv, err := mcpServer(ctx, env, path) // the same index for /mcp
	if err != nil {
		env.db.Close()
		return nil, nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	a := &api{db: env.db, eng: env.eng, emb: env.emb, warn: env.warn, path: path, writable: token != "", graphs: &graphCache{db: env.db},
		crawls: &crawls{path: path, base: cctx, jobs: map[int]*crawlJob{}}}
	routes := a.routes()
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.HandleFunc(rt.method+" "+rt.path, func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, 8<<20)
			ctx, cancel := r.Context(), context.CancelFunc(func() {})
			if r.Header.Get("Accept") != "text/event-stream" { // a stream lasts the crawl
				ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
			}
			defer cancel()
			if err := rt.handle(w, r.WithContext(ctx)); err != nil {
				writeError(w, err)
			}
		})
	}
	mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, openAPI(routes)) })
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpSrv }, nil))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// A known path asked with another method says which it takes.
		var allow []string
		for _, m := range []string{"GET", "POST", "DELETE"} {
			r2 := r.Clone(r.Context())
			r2.Method = m
			if _, pat := mux.Handler(r2); pat != "/" && pat != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, &apiError{http.StatusMethodNotAllowed, "method_not_allowed", r.Method + " " + r.URL.Path + ": this endpoint takes " +
				strings.Join(allow, " or ") + " (GET /v1/openapi.json describes it)"})
			return
		}
		writeError(w, &apiError{http.StatusNotFound, "not_found", "no such endpoint: " + r.Method + " " + r.URL.Path + " (GET /v1/openapi.json lists them)"})
	})
	var h http.Handler = mux
	if token != "" {
		h = requireToken(token, mux)
	}
	return h, func() { cancel(); a.crawls.wg.Wait(); env.db.Close() }, nil
}

// requireToken lets through requests carrying the bearer token, and
// /health.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="coderag"`)
			writeError(w, &apiError{http.StatusUnauthorized, "unauthorized", "this server needs 'Authorization: Bearer TOKEN'"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

type api struct {
	db   index
	eng  pack.Searcher
	emb  embed.Embedder // nil without dense search
	warn string
	path string
	// writable: a token is set, so the write endpoints are open to
	// whoever holds it.
	writable bool
	crawls   *crawls
	graphs   *graphCache
}

func (a *api) routes() []apiRoute {
	return []apiRoute{
		{"GET", "/health", "the index: schema, counts, embedder, last crawl", "", a.health},
		{"POST", "/v1/search", "search, as coderag query --json", `query (string, required), k (integer, default 10); filters as arrays of strings: type, service, repo, lang, path`, a.search},
		{"POST", "/v1/context", "a context pack for a question", `query (string, required), budget (integer), format (xml|markdown|json), follow (0..1)`, a.context},
		{"POST", "/v1/pr-context", "a context pack for a change", `diff (string, a unified diff, required), title (string), budget, format`, a.prContext},
		{"GET", "/v1/graph", "the service graph, or a service's neighbourhood (?service=&depth=)", "", a.graph},
		{"GET", "/v1/services/{name}/blast-radius", "what breaks when a service is down (?depth=)", "", a.blast},
		{"POST", "/v1/index", "crawl the index's sources again, whole (202; one at a time; needs the token)", "", a.startCrawl(false)},
		{"POST", "/v1/index/update", "crawl the files that changed (202; one at a time; needs the token)", "", a.startCrawl(true)},
		{"DELETE", "/v1/index/files", "remove files of a source from the index (needs the token)", `source (string, required), paths (array of strings, required)`, a.deleteFiles},
		{"GET", "/v1/crawls/{id}", "a crawl's progress and result; server-sent events with Accept: text/event-stream", "", a.crawlStatus},
	}
}

// decode reads a JSON body into v, refusing unknown fields.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return &apiError{http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the body is over %d bytes", mb.Limit)}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Not Go's type names: what the field wants and what came.
			if te.Field == "" {
				return badRequest("the body is not the JSON this endpoint takes: want an object, got %s", te.Value)
			}
			return badRequest("the body is not the JSON this endpoint takes: %q wants %s, got %s", te.Field, jsonKind(te.Type), te.Value)
		}
		if errors.Is(err, io.EOF) {
			return badRequest("the body is empty: this endpoint takes a JSON object (GET /v1/openapi.json describes it)")
		}
		return badRequest("the body is not the JSON this endpoint takes: %v", err)
	}
	return nil
}

// jsonKind names a Go type as JSON does.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

func (a *api) health(w http.ResponseWriter, r *http.Request) error {
	st, err := a.db.Stats(r.Context())
	if err != nil {
		return err
	}
	out := map[string]any{"status": "ok", "db": a.path, "schema": st.SchemaVersion, "chunks": st.Chunks, "files": st.Files,
		"sources": len(st.Sources), "vectors": st.Vectors, "embedder": st.Embedder.ID, "dense_search": a.warn == "" && a.emb != nil}
	if a.warn != "" {
		out["dense_search_off"] = a.warn
	}
	if a.emb != nil {
		// Embed a word, as a query would: a server that is down says so.
		pctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		_, err := a.emb.Embed(pctx, embed.Query, []string{"health"})
		cancel()
		out["embedder_reachable"] = err == nil
		if err != nil {
			out["embedder_error"] = err.Error()
		}
	}
	if st.LastRun != nil {
		out["last_crawl"] = map[string]any{"id": st.LastRun.ID, "status": st.LastRun.Status, "started": st.LastRun.Started, "finished": st.LastRun.Finished}
	}
	writeJSON(w, out)
	return nil
}

func (a *api) search(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Query string `json:"query"`
		K     int    `json:"k"`
		Limit int    `json:"limit"` // the same as k (the MCP tool's and the CLI's name for it)
		// Filters, as query's flags: alternatives within one.
		Type    []string `json:"type"`
		Service []string `json:"service"`
		Repo    []string `json:"repo"`
		Lang    []string `json:"lang"`
		Path    []string `json:"path"`
	}
	if err := decode(r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Query) == "" {
		return badRequest("query is required")
	}
	filters := (&queryOptions{types: in.Type, service: in.Service, repo: in.Repo, lang: in.Lang, path: in.Path}).filterText()
	in.Query = strings.TrimSpace(in.Query + " " + filters)
	if in.K == 0 {
		in.K = in.Limit
	}
	if in.K < 0 || in.K > 200 {
		return badRequest("k must be between 1 and 200, got %d", in.K)
	}
	if in.K == 0 {
		in.K = 10
	}
	res, err := a.eng.Search(r.Context(), search.Query{Text: in.Query, K: in.K})
	if err != nil {
		return badRequest("%v", err)
	}
	if a.warn != "" {
		res.Warnings = append([]string{a.warn}, res.Warnings...)
	}
	writeJSON(w, queryResultJSON(in.Query, res))
	return nil
}

// packIn are the fields /v1/context and /v1/pr-context share.
type packIn struct {
	Budget int     `json:"budget"`
	Format string  `json:"format"`
	Follow float64 `json:"follow"`
}

func (in packIn) options() (pack.Options, error) {
	if in.Format == "" {
		in.Format = "json"
	}
	switch in.Format {
	case "xml", "markdown", "json":
	default:
		return pack.Options{}, badRequest("format must be xml, markdown or json, got %q", in.Format)
	}
	if in.Budget < 0 || in.Follow < 0 || in.Follow > 1 {
		return pack.Options{}, badRequest("budget must be positive and follow between 0 and 1")
	}
	if in.Follow == 0 {
		in.Follow = pack.DefaultFollow
	}
	return pack.Options{Budget: in.Budget, Format: in.Format, Follow: in.Follow}, nil
}

// writePack answers with the pack: its JSON form, or the rendered text
// with its size.
func writePack(w http.ResponseWriter, p pack.Pack) {
	if p.Format == "json" {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(p.JSON()))
		return
	}
	writeJSON(w, map[string]any{"format": p.Format, "budget": p.Budget, "used_tokens": p.Used, "text": p.Render()})
}

func (a *api) context(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Query string `json:"query"`
		packIn
	}
	if err := decode(r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Query) == "" {
		return badRequest("query is required")
	}
	opts, err := in.options()
	if err != nil {
		return err
	}
	q, include, symbol, prefer := directives(in.Query)
	opts.Include, opts.Symbols, opts.Prefer = include, symbol, prefer
	g, _, err := a.graphs.get(r.Context())
	if err != nil {
		return err
	}
	p, err := pack.Build(r.Context(), a.eng, a.db, g, q, opts)
	if err != nil {
		return badRequest("%v", err)
	}
	writePack(w, p)
	return nil
}

func (a *api) prContext(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Diff  string `json:"diff"`
		Title string `json:"title"`
		packIn
	}
	if err := decode(r, &in); err != nil {
		return err
	}
	opts, err := in.options()
	if err != nil {
		return err
	}
	ch, err := pack.ParseDiff(strings.NewReader(in.Diff))
	if err != nil {
		return badRequest("diff: %v", err)
	}
	if in.Title != "" {
		ch.Title = in.Title
	}
	g, _, err := a.graphs.get(r.Context())
	if err != nil {
		return err
	}
	p, err := pack.BuildPR(r.Context(), a.eng, a.db, g, ch, opts)
	if err != nil {
		return badRequest("%v", err)
	}
	writePack(w, p)
	return nil
}

// intParam reads an optional positive integer query parameter.
func intParam(r *http.Request, name string) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 20 {
		return 0, badRequest("%s must be an integer from 1 to 20, got %q", name, v)
	}
	return n, nil
}

func (a *api) graph(w http.ResponseWriter, r *http.Request) error {
	return a.serviceGraph(w, r, r.URL.Query().Get("service"), graphOptions{})
}

func (a *api) blast(w http.ResponseWriter, r *http.Request) error {
	return a.serviceGraph(w, r, r.PathValue("name"), graphOptions{blast: true})
}

// serviceGraph answers with the graph (service empty) or a service's
// view as graph --json prints it, at ?depth=.
func (a *api) serviceGraph(w http.ResponseWriter, r *http.Request, service string, o graphOptions) error {
	depth, err := intParam(r, "depth")
	if err != nil {
		return err
	}
	g, _, err := a.graphs.get(r.Context())
	if err != nil {
		return err
	}
	v := view{g: g}
	if service != "" {
		name, err := g.Resolve(service)
		if err != nil {
			return &apiError{http.StatusNotFound, "no_such_service", err.Error()}
		}
		o.depth = depth
		if v, err = serviceView(g, name, &o); err != nil {
			return err
		}
	}
	return writeViewJSON(w, v)
}

func writeViewJSON(w http.ResponseWriter, v view) error {
	var b bytes.Buffer
	if err := writeGraphJSON(&b, v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(b.Bytes())
	return err
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// writeError answers with a JSON error: the status and code of an
// apiError, else 500.
func writeError(w http.ResponseWriter, err error) {
	ae := &apiError{http.StatusInternalServerError, "internal", err.Error()}
	errors.As(err, &ae)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ae.status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": ae.code, "message": ae.message}})
}

// openAPI is the OpenAPI 3.1 document of the routes.
func openAPI(routes []apiRoute) map[string]any {
	paths := map[string]any{}
	errResp := map[string]any{"description": "an error: {\"error\": {\"code\", \"message\"}}"}
	for _, rt := range routes {
		op := map[string]any{"summary": rt.summary, "responses": map[string]any{
			"200": map[string]any{"description": "JSON"}, "400": errResp, "401": errResp, "404": errResp}}
		if rt.body != "" {
			op["requestBody"] = map[string]any{"required": true, "description": rt.body,
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}}
		}
		for _, param := range []string{"name", "id"} {
			if strings.Contains(rt.path, "{"+param+"}") {
				op["parameters"] = []any{map[string]any{"name": param, "in": "path", "required": true, "schema": map[string]any{"type": "string"}}}
			}
		}
		item, _ := paths[rt.path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.path] = item
		}
		item[strings.ToLower(rt.method)] = op
	}
	paths["/v1/openapi.json"] = map[string]any{"get": map[string]any{"summary": "this document",
		"responses": map[string]any{"200": map[string]any{"description": "JSON"}}}}
	return map[string]any{"openapi": "3.1.0", "info": map[string]any{"title": "coderag", "version": buildVersion()},
		"components": map[string]any{"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}}},
		"paths":      paths}
}
