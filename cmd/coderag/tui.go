//go:build !notui

package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"coderag/core"
	"coderag/core/ask"
	"coderag/core/ingest"
	"coderag/core/search"
	"coderag/tui"
)

// crawlInTUI runs a crawl --tui in the terminal UI's crawl view.
var crawlInTUI = crawlTUI

var _ tui.Backend = index(nil)

type tuiOptions struct {
	db               *string
	light            bool
	llmURL, llmModel string
	embed            embedFlags
	rerank           rerankFlags
}

const tuiLong = `Tui opens the terminal UI: type to search code, deploy files, runbooks, ADRs,
Slack and transcripts at once; read a hit highlighted in its file; walk the
service graph, a service's blast radius and the conversations about it.

Searches run as you type. The BM25 answer shows first and the hybrid one
(with the index's embedder and the reranker) refines it; the query syntax of
'coderag query' works in the box (type:runbook service:cart lang:go
path:src/** -path:test "a phrase"). Number keys toggle corpus-type filters.

ctrl+r re-crawls the index's sources incrementally (only changed files) and
shows the crawl; searches keep working while it runs and see the new index
when it ends.

Keys:
` + "%s" + `
Colours follow the terminal's background; NO_COLOR=1 turns them off.`

func newTUICmd(io *ioStreams, db *string) *cobra.Command {
	o := &tuiOptions{db: db}
	cmd := &cobra.Command{
		Use:   "tui [QUERY...]",
		Short: "Search and browse the service graph in a terminal UI",
		Long:  fmt.Sprintf(tuiLong, keyReference()),
		Example: `  coderag tui
  coderag tui "redis OOMKilled"
  coderag tui --db /srv/coderag/prod.db`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return tuiRun(cmd.Context(), io, o, strings.Join(args, " "), nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.llmURL, "llm-url", os.Getenv("CODERAG_LLM_URL"), "an OpenAI-compatible server for the ask pane (a), as coderag ask")
	f.StringVar(&o.llmModel, "llm-model", os.Getenv("CODERAG_LLM_MODEL"), "the model the ask pane uses")
	f.BoolVar(&o.light, "light", false, "start with colours for a light background (the terminal's is detected when it answers)")
	o.embed.register(f, true)
	o.rerank.register(f)
	return cmd
}

// keyReference lists the default key map, for --help and the README.
func keyReference() string {
	var b strings.Builder
	for _, k := range tui.DefaultKeyMap().Bindings() {
		h := k.Help()
		fmt.Fprintf(&b, "  %-14s %s\n", h.Key, h.Desc)
	}
	return b.String()
}

// tuiRun opens the database and runs the app; start, when set, is a
// crawl the app runs first in its crawl view (and the database is created
// for it). Without one, a missing database is an error naming the path,
// as for query: a mistyped --db creates nothing.
func tuiRun(ctx context.Context, io *ioStreams, o *tuiOptions, query string, start tui.CrawlFunc) error {
	db, err := openIndex(ctx, *o.db, start != nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if !io.outTTY {
		return usagef("the TUI needs a terminal; use 'coderag query' in scripts")
	}
	rr, err := o.rerank.reranker()
	if err != nil {
		return err
	}
	params, err := o.rerank.loadParams()
	if err != nil {
		return err
	}
	s := &searchers{db: db, flags: &o.embed, rerank: rr, pathPriority: o.rerank.pathPriority, params: params}
	noColor := os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb"
	var askFn tui.AskFunc
	if o.llmURL != "" && o.llmModel != "" {
		chat, err := newChat(o.llmURL, o.llmModel)
		if err != nil {
			return err
		}
		emb, _, err := o.embed.queryEmbedder(ctx, db) // the semantic modes' vectors
		if err != nil {
			return err
		}
		env := &searchEnv{db: db, eng: s, emb: emb, params: params, rr: rr, pathPriority: o.rerank.pathPriority}
		p, d, _, err := askSetup(ctx, env, chat, "")
		if err != nil {
			return err
		}
		askFn = func(ctx context.Context, q string, onDelta func(string)) (tui.AskResult, error) {
			run := *d
			run.OnAnswer = onDelta
			st, err := ask.Run(ctx, p, &run, q)
			if err != nil {
				return tui.AskResult{}, err
			}
			return tui.AskResult{Answer: st.Answer, Citations: st.Chunks()}, nil
		}
	}
	app := tui.New(tui.Options{
		Backend:    db,
		Fast:       s.fast(),
		Full:       s,
		Recrawl:    recrawl(*o.db),
		StartCrawl: start,
		Ask:        askFn,
		DB:         *o.db,
		Styles:     tui.DefaultStyles(!o.light, noColor),
		Query:      query,
	})
	_, err = tea.NewProgram(app, tea.WithContext(ctx)).Run()
	app.Stop() // a crawl still running gives up (its sources stay as they were) before the database closes
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("tui: %w", err)
	}
	return ctx.Err()
}

// searchers gives the app its two searchers over one database: BM25 with
// the reranker (fast) and, as a Searcher itself, hybrid search with the
// index's embedder. The hybrid engine is rebuilt after every crawl (the
// embedder or its model may have changed); it answers with the fast
// engine's result when the index has no vectors.
type searchers struct {
	db           index
	flags        *embedFlags
	rerank       search.Reranker
	pathPriority bool
	params       *search.Params

	mu     sync.Mutex
	run    int64
	built  bool
	full   *search.Engine
	warn   string
	bm25   *search.Engine
	loaded time.Time
}

func (s *searchers) fast() tui.Searcher {
	s.bm25 = search.New(s.db, search.Options{Params: s.params, Reranker: s.rerank, PathPriority: s.pathPriority})
	return s.bm25
}

// Search runs a hybrid search.
func (s *searchers) Search(ctx context.Context, q search.Query) (search.Result, error) {
	eng, warn, err := s.engine(ctx)
	if err != nil {
		return search.Result{}, err
	}
	res, err := eng.Search(ctx, q)
	if warn != "" {
		res.Warnings = append([]string{warn}, res.Warnings...)
	}
	return res, err
}

// engine returns the hybrid engine, rebuilt when a crawl ran since.
func (s *searchers) engine(ctx context.Context) (*search.Engine, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.built && time.Since(s.loaded) < time.Second {
		return s.full, s.warn, nil
	}
	run, err := s.db.Refresh(ctx)
	if err != nil {
		return nil, "", err
	}
	s.loaded = time.Now()
	if s.built && run == s.run {
		return s.full, s.warn, nil
	}
	emb, warn, err := s.flags.queryEmbedder(ctx, s.db)
	if err != nil {
		return nil, "", err
	}
	s.full = search.New(s.db, search.Options{Params: s.params, Embedder: emb, Reranker: s.rerank, PathPriority: s.pathPriority})
	s.warn, s.run, s.built = warn, run, true
	return s.full, s.warn, nil
}

// recrawl is the app's incremental re-crawl of the sources the index
// holds, with the embedder it was built with.
func recrawl(dbPath string) tui.CrawlFunc {
	return storedCrawl(dbPath, true, "tui re-crawl")
}

// crawlTUI runs the crawl inside the terminal UI's crawl view; the
// summary is printed when the app is left.
func crawlTUI(ctx context.Context, io *ioStreams, o *crawlOptions, db index, opts ingest.Options, sources []core.Source, unlock func()) error {
	var (
		sum  ingest.Summary
		cerr error
		ran  bool
	)
	var once sync.Once
	release := func() { once.Do(unlock) }
	defer release()
	start := func(ctx context.Context, progress func(core.Event)) (ingest.Summary, error) {
		defer release() // the app's own re-crawl may run after this one
		opts.Progress = progress
		sum, cerr = ingest.New(db, opts).Run(ctx, sources)
		ran = true
		return sum, cerr
	}
	t := &tuiOptions{db: o.db}
	fs := pflag.NewFlagSet("tui", pflag.ContinueOnError)
	t.embed.register(fs, true)
	t.rerank.register(fs)
	err := tuiRun(ctx, io, t, "", start)
	if ran {
		printCrawlSummary(io, *o.db, sum, o.verbose, cerr)
	}
	if err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if sum.Failed() {
		return errSilent
	}
	return nil
}
