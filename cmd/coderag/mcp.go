package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/pack"
	"coderag/core/search"
)

type mcpOptions struct {
	db     *string
	embed  embedFlags
	rerank rerankFlags
}

const mcpLong = `Mcp serves the index to agents and editors over the Model Context
Protocol, on standard input and output (the official Go SDK): register
'coderag mcp --db FILE' as an MCP server in your agent or editor.

Tools (each with a JSON schema): search, context, graph_service,
blast_radius, path_between, explain_hit, stats. Resources: a chunk as
coderag://chunk/{id}; lines of an indexed file as
coderag://file/{repo}/{path}?lines=10-40 (read from its source). It only
reads the index.`

func newMCPCmd(io *ioStreams, db *string) *cobra.Command {
	o := &mcpOptions{db: db}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the index to agents and editors over MCP (stdio)",
		Long:  mcpLong,
		Example: `  coderag mcp --db data/coderag.db
  claude mcp add coderag -- coderag mcp --db $PWD/data/coderag.db`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			srv, closeFn, err := newMCPServer(ctx, *o.db, &o.embed, &o.rerank)
			if err != nil {
				return err
			}
			defer closeFn()
			return srv.Run(ctx, drainingStdio(os.Stdin, os.Stdout))
		},
	}
	o.embed.register(cmd.Flags(), true)
	o.rerank.register(cmd.Flags())
	return cmd
}

// The tools' inputs and outputs. The jsonschema tags are what a model
// reads about each field.
type (
	searchIn struct {
		Query string `json:"query" jsonschema:"what to look for: words, identifiers, error messages; filters type:runbook service:cart repo:web lang:go path:src/** -path:test; \"a phrase\""`
		Limit int    `json:"limit,omitempty" jsonschema:"how many hits (default 10, at most 100)"`
		K     int    `json:"k,omitempty" jsonschema:"the same as limit (the HTTP API's name for it)"`
	}
	searchOut struct {
		Query    string    `json:"query"`
		Warnings []string  `json:"warnings,omitempty"`
		Hits     []jsonHit `json:"hits"`
	}
	contextIn struct {
		Query  string  `json:"query" jsonschema:"the question; include:PATH symbol:NAME prefer:GLOB force a file, a declaration or a path in"`
		Budget int     `json:"budget,omitempty" jsonschema:"most tokens the pack may take (default 8000)"`
		Format string  `json:"format,omitempty" jsonschema:"xml (default, <codeRag:chunk> markup), markdown or json"`
		Follow float64 `json:"follow,omitempty" jsonschema:"how much references count, 0 to 1 (default 0.3)"`
	}
	contextOut struct {
		Used    int `json:"used_tokens"`
		Files   int `json:"files"`
		Dropped int `json:"dropped"`
	}
	serviceIn struct {
		Name string `json:"name" jsonschema:"a service, database, queue or topic name, or an alias (a DNS name, an env var)"`
	}
	serviceOut struct {
		Name       string   `json:"name"`
		Kind       string   `json:"kind"`
		Repo       string   `json:"repo,omitempty"`
		Directory  string   `json:"directory,omitempty"`
		Language   string   `json:"language,omitempty"`
		Upstream   []string `json:"upstream" jsonschema:"who depends on it, with the edge"`
		Downstream []string `json:"downstream" jsonschema:"what it depends on, with the edge"`
		Routes     []string `json:"routes" jsonschema:"what it serves"`
	}
	blastIn struct {
		Service string `json:"service" jsonschema:"the service that is down"`
		Depth   int    `json:"depth,omitempty" jsonschema:"how many hops of dependents (default 3)"`
	}
	hopOut struct {
		Service string `json:"service"`
		Depth   int    `json:"depth"`
		From    string `json:"from"`
		Edge    string `json:"edge"`
		Where   string `json:"evidence,omitempty"`
	}
	hopsOut struct {
		Hops []hopOut `json:"hops"`
	}
	pathIn struct {
		From string `json:"from" jsonschema:"the service the path starts at"`
		To   string `json:"to" jsonschema:"the service it ends at"`
	}
	explainIn struct {
		Query   string `json:"query" jsonschema:"the query the hit came from"`
		ChunkID string `json:"chunk_id" jsonschema:"the hit's chunk_id"`
	}
	explainOut struct {
		Rank    int             `json:"rank" jsonschema:"its rank in the query's results (0: not in the best 50)"`
		Score   float64         `json:"score"`
		Lists   []core.ListRank `json:"lists"`
		Explain core.Explain    `json:"explain"`
	}
	statsIn  struct{}
	statsOut struct {
		Chunks   int    `json:"chunks"`
		Files    int    `json:"files"`
		Sources  int    `json:"sources"`
		Vectors  int    `json:"vectors"`
		Embedder string `json:"embedder"`
		Services int    `json:"services"`
		Edges    int    `json:"edges"`
		LastRun  string `json:"last_crawl"`
	}
)

// newMCPServer opens the index and returns an MCP server with coderag's
// tools and resources over it, and the function that closes the index.
func newMCPServer(ctx context.Context, path string, ef *embedFlags, rf *rerankFlags) (*mcp.Server, func(), error) {
	env, err := openSearch(ctx, path, ef, rf)
	if err != nil {
		return nil, nil, err
	}
	s, err := mcpServer(ctx, env, path)
	if err != nil {
		env.db.Close()
		return nil, nil, err
	}
	return s, func() { env.db.Close() }, nil
}

// mcpServer is the MCP server over an opened index (coderag mcp, and
// serve's /mcp beside its API on the same index).
func mcpServer(ctx context.Context, env *searchEnv, path string) (*mcp.Server, error) {
	db, eng, warn := env.db, env.eng, env.warn
	graphs := &graphCache{db: db}
	if _, _, err := graphs.get(ctx); err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "coderag", Version: buildVersion()}, nil)
	warnings := func(ws []string) []string {
		if warn != "" {
			return append([]string{warn}, ws...)
		}
		return ws
	}
	resolve := func(g *graph.Graph, name string) (string, error) {
		if len(g.Services) == 0 {
			return "", fmt.Errorf("%s has no service graph: crawl repositories with deploy files", path)
		}
		return g.Resolve(name)
	}

	mcp.AddTool(s, &mcp.Tool{Name: "search", Description: "Search the indexed code, deploy files, docs, runbooks and conversations (hybrid BM25 and vectors, reranked). Returns the best chunks with file, lines, service and text. Ask as a developer would: an identifier (getUserProfile), a qualified name for its declaration (os.ReadFile, CartService.Checkout), an error message pasted as logged, a stack trace or panic as printed (its frames' chunks come first), a failed request as logged (an access-log line, a curl command, a gRPC :path or grpc.service/grpc.method: the route or service registration and its handler come first), a pod or container name as kubectl or compose print it (checkout-7d9f8c6b5-x2k4p, redis-0: its workload's manifest comes first), a Service's host (cart.shop.svc.cluster.local, cart:7070) or an image that fails to pull (its Service and workloads come first), 'who calls X' for its callers (a function's call sites; for a service, the evidence of the service graph's edges into it, marked explain.edge; 'what does X call' for its dependencies), or a plain question; filters in the text: type:runbook service:cart lang:go path:src/**."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
			k := in.Limit
			if k <= 0 {
				k = in.K
			}
			if k <= 0 {
				k = 10
			}
			res, err := eng.Search(ctx, search.Query{Text: in.Query, K: min(k, 100)})
			if err != nil {
				return nil, searchOut{}, err
			}
			out := searchOut{Query: in.Query, Warnings: warnings(res.Warnings), Hits: []jsonHit{}}
			for _, h := range res.Hits {
				out.Hits = append(out.Hits, toJSONHit(h))
			}
			return nil, out, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "context", Description: "Pack the best evidence for a question into a token budget: chunks merged per file, elided to the matching lines when large, with the services involved (neighbours, routes, blast radius when the question asks what breaks). Use it to answer a question about the codebase."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in contextIn) (*mcp.CallToolResult, contextOut, error) {
			g, _, err := graphs.get(ctx)
			if err != nil {
				return nil, contextOut{}, err
			}
			q, include, symbol, prefer := directives(in.Query)
			follow := in.Follow
			if follow == 0 {
				follow = pack.DefaultFollow
			}
			if in.Format != "" && in.Format != "xml" && in.Format != "markdown" && in.Format != "json" {
				return nil, contextOut{}, fmt.Errorf("format must be xml, markdown or json, got %q", in.Format)
			}
			p, err := pack.Build(ctx, eng, db, g, q, pack.Options{Budget: in.Budget, Format: in.Format, Include: include,
				Symbols: symbol, Prefer: prefer, Follow: min(max(follow, 0), 1)})
			if err != nil {
				return nil, contextOut{}, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: p.Render()}}},
				contextOut{Used: p.Used, Files: len(p.Files), Dropped: len(p.Dropped)}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "graph_service", Description: "A service of the service graph: who depends on it, what it depends on (HTTP, gRPC, queues, databases, caches) and the routes it serves."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in serviceIn) (*mcp.CallToolResult, serviceOut, error) {
			g, ix, err := graphs.get(ctx)
			if err != nil {
				return nil, serviceOut{}, err
			}
			name, err := resolve(g, in.Name)
			if err != nil {
				return nil, serviceOut{}, err
			}
			sv := g.Service(name)
			d := pack.Describe(g, ix, name, false)
			return nil, serviceOut{Name: name, Kind: sv.Kind, Repo: sv.Repo, Directory: sv.Directory, Language: sv.Language,
				Upstream: nonEmpty(d.Upstream), Downstream: nonEmpty(d.Downstream), Routes: nonEmpty(d.Routes)}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "blast_radius", Description: "What breaks when a service is down: the services that depend on it, directly or through others, with the edge and its evidence line."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in blastIn) (*mcp.CallToolResult, hopsOut, error) {
			g, ix, err := graphs.get(ctx)
			if err != nil {
				return nil, hopsOut{}, err
			}
			name, err := resolve(g, in.Service)
			if err != nil {
				return nil, hopsOut{}, err
			}
			depth := in.Depth
			if depth <= 0 {
				depth = 3
			}
			return nil, hopsOut{Hops: hops(ix.Upstream(name, depth))}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "path_between", Description: "How one service reaches another through the dependency graph: the shortest chain of calls, with each edge and its evidence."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in pathIn) (*mcp.CallToolResult, hopsOut, error) {
			g, _, err := graphs.get(ctx)
			if err != nil {
				return nil, hopsOut{}, err
			}
			from, err := resolve(g, in.From)
			if err != nil {
				return nil, hopsOut{}, err
			}
			to, err := resolve(g, in.To)
			if err != nil {
				return nil, hopsOut{}, err
			}
			return nil, hopsOut{Hops: hops(g.Path(from, to, 0))}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "explain_hit", Description: "Why a chunk ranks where it does for a query: its rank in each retrieval list, the fused score, reranker features, boosts and matched words."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in explainIn) (*mcp.CallToolResult, explainOut, error) {
			res, err := eng.Search(ctx, search.Query{Text: in.Query, K: 50})
			if err != nil {
				return nil, explainOut{}, err
			}
			for i, h := range res.Hits {
				if h.Chunk.ID == in.ChunkID {
					return nil, explainOut{Rank: i + 1, Score: h.Score, Lists: h.Lists, Explain: h.Explain}, nil
				}
			}
			return nil, explainOut{Lists: []core.ListRank{}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "stats", Description: "What the index holds: chunks, files, sources, vectors and embedder, services and dependencies, the last crawl."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ statsIn) (*mcp.CallToolResult, statsOut, error) {
			g, _, err := graphs.get(ctx)
			if err != nil {
				return nil, statsOut{}, err
			}
			st, err := db.Stats(ctx)
			if err != nil {
				return nil, statsOut{}, err
			}
			out := statsOut{Chunks: st.Chunks, Files: st.Files, Sources: len(st.Sources), Vectors: st.Vectors,
				Embedder: st.Embedder.ID, Services: len(g.Services), Edges: len(g.Edges)}
			if st.LastRun != nil {
				out.LastRun = fmt.Sprintf("#%d %s %s", st.LastRun.ID, st.LastRun.Status, st.LastRun.Started)
			}
			return nil, out, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "chunk", URITemplate: "coderag://chunk/{id}", MIMEType: "text/plain",
		Description: "A chunk's text, by the chunk_id search and context give"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimPrefix(req.Params.URI, "coderag://chunk/")
			c, err := db.Chunk(ctx, id)
			if err != nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain",
				Text: c.Location() + "\n" + c.Text}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "file", URITemplate: "coderag://file/{repo}/{+path}{?lines}", MIMEType: "text/plain",
		Description: "Lines of an indexed file, read from its source: coderag://file/REPO/PATH?lines=10-40 (all lines without ?lines)"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text, err := fileSlice(ctx, db, req.Params.URI)
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
		})
	return s, nil
}

// fileSlice reads the lines a coderag://file/REPO/PATH?lines=A-B URI
// names from the source the index crawled them from; the path must be a
// file the index holds.
func fileSlice(ctx context.Context, db index, uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", mcp.ResourceNotFoundError(uri)
	}
	repo, rel, _ := strings.Cut(strings.TrimPrefix(u.Host+u.Path, "file/"), "/")
	if u.Host != "file" {
		repo, rel, _ = strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	}
	st, err := db.Stats(ctx)
	if err != nil {
		return "", err
	}
	root := ""
	for _, s := range st.Sources {
		if s.Name == repo {
			root = s.Path
		}
	}
	if root == "" || rel == "" {
		return "", mcp.ResourceNotFoundError(uri)
	}
	cs, err := db.FileChunks(ctx, rel, 1)
	if err != nil || len(cs) == 0 || cs[0].FilePath != rel {
		return "", mcp.ResourceNotFoundError(uri) // only files the index holds
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", fmt.Errorf("read %s/%s: %w", repo, rel, err)
	}
	lines := strings.Split(string(data), "\n")
	from, to := 1, len(lines)
	if l := u.Query().Get("lines"); l != "" {
		a, b, _ := strings.Cut(l, "-")
		if from, err = strconv.Atoi(a); err != nil || from < 1 {
			return "", fmt.Errorf("lines=%s: want FROM-TO", l)
		}
		to = from
		if b != "" {
			if to, err = strconv.Atoi(b); err != nil || to < from {
				return "", fmt.Errorf("lines=%s: want FROM-TO", l)
			}
		}
	}
	if from > len(lines) {
		return "", fmt.Errorf("%s/%s has %d lines", repo, rel, len(lines))
	}
	to = min(to, len(lines))
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\t%s\n", i, lines[i-1])
	}
	return b.String(), nil
}

// hops are graph hops as the tools return them.
func hops(hs []graph.Hop) []hopOut {
	out := []hopOut{}
	for _, h := range hs {
		ho := hopOut{Service: h.Service, Depth: h.Depth, From: h.From,
			Edge: strings.Join(strings.Fields(h.Edge.Type+" "+h.Edge.Method+" "+h.Edge.Path), " ")}
		if len(h.Edge.Evidence) > 0 {
			ev := h.Edge.Evidence[0]
			ho.Where = fmt.Sprintf("%s/%s:%d", ev.Repo, ev.File, ev.Line)
		}
		out = append(out, ho)
	}
	return out
}

func nonEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
