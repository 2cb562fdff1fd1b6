package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/search"
)

// embedFlags are the embedder flags of crawl and query. Each defaults to an
// environment variable so that a team can configure a server once.
type embedFlags struct {
	provider    string
	url         string
	model       string
	queryPrefix string
	docPrefix   string
	batch       int
	timeout     time.Duration
	flags       *pflag.FlagSet
}

const embedHelp = `Embedders (--embedder, or CODERAG_EMBEDDER):
  builtin  the default; offline, no server, no training at crawl time: a
           static embedding model shipped in the binary, a 256-dimension
           vector per code token trained by 'coderag model' on doc comments
           and the declarations they document in the Go, Python and Java
           standard libraries, Python and npm packages, Go modules and Rust
           crates (core/embed/model/README.md). Its search has two stages:
           the 50 nearest chunks by one vector each are scored again by how
           well their tokens cover the query's, token by token, by the
           query's adjacent word pairs they hold adjacent too and by the
           query's words the model does not know that they hold; its list
           weighs 4 in the fusion for questions that describe code
           (learned, docs/eval.md), 1 for a pasted message or a query
           written as code, and nothing for a question for callers.
  corpus   offline, nothing downloaded; the default before the shipped
           model. Vectors learned from the indexed corpus itself: word
           co-occurrence (PPMI) factorised by a truncated SVD into 256
           dimensions. It knows only the corpus's words and is weaker than
           BM25 on its own, so its list counts at 0.3 weight in the fusion.
  openai   any OpenAI-compatible POST /v1/embeddings server (llama.cpp,
           vLLM, LM Studio, TEI, Infinity, Ollama's /v1); needs --embed-model
           and --embed-url (CODERAG_EMBED_MODEL, CODERAG_EMBED_URL; an API
           key in CODERAG_EMBED_API_KEY).
  ollama   Ollama's POST /api/embed (default URL http://localhost:11434).
  none     no vectors: BM25 only.
An index records which embedder made its vectors and keeps it: a crawl
without --embedder embeds with it, and switching needs 'crawl --reembed'.
Query and document prefixes default to what the model's authors
document (CodeRankEmbed, nomic-embed-text, e5, bge, ...).`

func (e *embedFlags) register(f *pflag.FlagSet, forQuery bool) {
	e.flags = f
	def := env("CODERAG_EMBEDDER", "builtin")
	usage := "embedder: builtin, corpus, openai, ollama or none (env CODERAG_EMBEDDER)"
	if forQuery {
		def = env("CODERAG_EMBEDDER", "auto")
		usage = "embedder for the query: auto (the one the index was built with) or none (env CODERAG_EMBEDDER)"
	}
	f.StringVar(&e.provider, "embedder", def, usage)
	f.StringVar(&e.url, "embed-url", env("CODERAG_EMBED_URL", ""), "embedding server URL (env CODERAG_EMBED_URL)")
	if forQuery {
		return
	}
	f.StringVar(&e.model, "embed-model", env("CODERAG_EMBED_MODEL", ""), "model name for openai and ollama (env CODERAG_EMBED_MODEL)")
	f.StringVar(&e.queryPrefix, "embed-query-prefix", "", "text put before queries (default: the model's documented prefix)")
	f.StringVar(&e.docPrefix, "embed-doc-prefix", "", "text put before documents (default: the model's documented prefix)")
	f.IntVar(&e.batch, "embed-batch", 32, "texts per embedding request")
	f.DurationVar(&e.timeout, "embed-timeout", 60*time.Second, "time limit of one embedding request")
}

func env(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// crawlEmbed turns the flags into the crawl's embed options; a server is
// asked for one probe vector first, so that a wrong URL fails before the
// crawl starts.
func (e *embedFlags) crawlEmbed(ctx context.Context, reembed bool) (ingest.EmbedOptions, error) {
	o := ingest.EmbedOptions{Reembed: reembed}
	switch strings.ToLower(e.provider) {
	case "builtin", "":
		m, err := embed.Shipped()
		if err != nil {
			return o, err
		}
		o.Embedder = embed.StaticEmbedder{M: m}
	case "corpus":
		o.Builtin = true
	case "none":
		if reembed {
			return o, usagef("--reembed needs an embedder (--embedder builtin, corpus, openai or ollama)")
		}
	case "openai", "ollama":
		ho := embed.HTTPOptions{Provider: strings.ToLower(e.provider), URL: e.url, Model: e.model,
			APIKey: os.Getenv("CODERAG_EMBED_API_KEY"), Batch: e.batch, Timeout: e.timeout}
		if e.flags.Changed("embed-query-prefix") || e.flags.Changed("embed-doc-prefix") {
			p := embed.DefaultPrefixes(e.model)
			if e.flags.Changed("embed-query-prefix") {
				p.Query = e.queryPrefix
			}
			if e.flags.Changed("embed-doc-prefix") {
				p.Document = e.docPrefix
			}
			ho.Prefixes = &p
		}
		if e.batch <= 0 {
			return o, usagef("--embed-batch must be at least 1")
		}
		h, err := embed.NewHTTP(ctx, ho)
		if err != nil {
			return o, err
		}
		o.Embedder, o.URL = h, h.Endpoint()
	default:
		return o, usagef("--embedder %q: want builtin, corpus, openai, ollama or none", e.provider)
	}
	return o, nil
}

// queryEmbedder returns the embedder that embeds queries for db: the one
// its vectors came from, unless --embedder none. A server that cannot be
// set up is a warning: BM25 still answers.
func (e *embedFlags) queryEmbedder(ctx context.Context, db index) (embed.Embedder, string, error) {
	info := db.Embedder()
	p := strings.ToLower(e.provider)
	switch p {
	case "none":
		return nil, "", nil
	case "auto", "", "builtin", "corpus", "openai", "ollama":
	default:
		return nil, "", usagef("--embedder %q: want auto or none", e.provider)
	}
	if info.ID == "" {
		return nil, "", nil
	}
	provider, model, _ := strings.Cut(info.ID, ":")
	if info.ID == embed.CorpusID {
		provider = "corpus"
	}
	if p != "auto" && p != "" && p != provider {
		return nil, "", fmt.Errorf("the index holds vectors of %s; --embedder %s cannot search them (use auto or none)", info.ID, e.provider)
	}
	if info.ID == embed.CorpusID {
		return embed.Stored{Dim: info.Dim, Load: db.LoadModel}, "", nil
	}
	if embed.IsStatic(info.ID) {
		m, err := embed.ShippedFor(info.ID)
		if err != nil {
			return nil, fmt.Sprintf("dense search skipped: %v", err), nil
		}
		return embed.StaticEmbedder{M: m}, "", nil
	}
	url := e.url
	if url == "" {
		u, err := db.EmbedderURL(ctx)
		if err != nil {
			return nil, "", err
		}
		url = u
	}
	h, err := embed.NewHTTP(ctx, embed.HTTPOptions{Provider: provider, URL: url, Model: model, Dim: info.Dim,
		APIKey: os.Getenv("CODERAG_EMBED_API_KEY"), Timeout: 10 * time.Second, Retries: 1})
	if err != nil {
		return nil, fmt.Sprintf("dense search skipped: %v", err), nil
	}
	return h, "", nil
}

// rerankFlags choose the reranker of query and eval.
type rerankFlags struct {
	name, url, model string
	pathPriority     bool
	params           string
}

func (r *rerankFlags) register(f *pflag.FlagSet) {
	f.StringVar(&r.name, "rerank", env("CODERAG_RERANK", "builtin"),
		"reranker of the best 50 hits: builtin (exact symbol, signature and path hits, query-word coverage and proximity), tei, cohere (Cohere/Jina-style /v1/rerank) or none (env CODERAG_RERANK)")
	f.StringVar(&r.url, "rerank-url", env("CODERAG_RERANK_URL", ""), "cross-encoder server URL for --rerank tei or cohere (env CODERAG_RERANK_URL)")
	f.StringVar(&r.model, "rerank-model", env("CODERAG_RERANK_MODEL", ""), "model name sent to a cohere-style reranker (env CODERAG_RERANK_MODEL)")
	f.BoolVar(&r.pathPriority, "path-priority", false, "boost code under service/handler/api/auth paths (x1.3) and model/client/util paths (x1.1), lower tests, mocks and fixtures (x0.8)")
	f.StringVar(&r.params, "params", env("CODERAG_PARAMS", ""), "ranking parameters written by 'coderag tune' (default: the built-in ones; env CODERAG_PARAMS)")
}

// loadParams reads --params; nil means the built-in parameters.
func (r *rerankFlags) loadParams() (*search.Params, error) {
	if r.params == "" {
		return nil, nil
	}
	data, err := os.ReadFile(r.params)
	if err != nil {
		return nil, fmt.Errorf("--params: %w", err)
	}
	p, err := search.ParseParams(data)
	if err != nil {
		return nil, fmt.Errorf("--params %s: %w", r.params, err)
	}
	return &p, nil
}

func (r *rerankFlags) reranker() (search.Reranker, error) {
	switch strings.ToLower(r.name) {
	case "builtin", "":
		return search.BuiltinReranker{}, nil
	case "none":
		return nil, nil
	case "tei", "cohere":
		if r.url == "" {
			return nil, usagef("--rerank %s needs --rerank-url", r.name)
		}
		return &search.HTTPReranker{Provider: strings.ToLower(r.name), URL: r.url, Model: r.model, APIKey: os.Getenv("CODERAG_RERANK_API_KEY")}, nil
	}
	return nil, usagef("--rerank %q: want builtin, tei, cohere or none", r.name)
}
