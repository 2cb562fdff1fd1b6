// Package ingest runs a crawl: for every source it discovers the files,
// reads, inspects, chunks and scrubs them on a worker pool, and writes the
// results through one writer inside one store transaction per source, so
// that a crawl killed at any point leaves every source's previous content
// in place. It reports progress as core.Events.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"coderag/core"
	"coderag/core/chunk"
	"coderag/core/convo"
	"coderag/core/discover"
	"coderag/core/embed"
	"coderag/core/graph"
	"coderag/core/mention"
	"coderag/core/scrub"
)

// Store is where a crawl writes; sqlite.DB implements it.
type Store interface {
	StartRun(ctx context.Context, args string) (int64, error)
	FinishRun(ctx context.Context, id int64, r core.CrawlRun) error
	BeginSource(ctx context.Context, runID int64, src core.Source) (SourceWriter, error)
	// BeginSourceUpdate changes a source file by file (incremental crawl).
	BeginSourceUpdate(ctx context.Context, runID int64, src core.Source) (SourceUpdater, error)
	// ServiceNames returns the services the index knows (from deploy
	// files and the graph).
	ServiceNames(ctx context.Context) ([]string, error)
	// UpdateMentions records, for every chunk of the corpus types in
	// scope, the services find returns for its file's path and its text.
	UpdateMentions(ctx context.Context, corpora []core.CorpusType, scope LinkScope, find func(repo, file, text string) []string) (int, error)
	// The facts the service graph is built from, and the graph.
	Resources(ctx context.Context) ([]core.ResourceAt, error)
	Calls(ctx context.Context) ([]core.CallAt, error)
	Routes(ctx context.Context) ([]core.RouteAt, error)
	FilePaths(ctx context.Context) ([][2]string, error)
	Bindings(ctx context.Context) ([]core.BindingAt, error)
	// RepoRoots returns where each repository the store holds was
	// crawled from, by name (graph.Input.Roots).
	RepoRoots(ctx context.Context) (map[string]string, error)
	// GoImports returns the import paths of the Go files other than
	// tests, by repository and path (graph.Input.GoImports).
	GoImports(ctx context.Context) (map[[2]string][]string, error)
	WriteGraph(ctx context.Context, g *graph.Graph) error
	// AssignOwners gives code and config chunks in scope, and
	// Dockerfiles', the service whose directory holds them.
	AssignOwners(ctx context.Context, scope LinkScope) (int, error)
	// GraphDirty reports whether a committed source changed what the
	// graph is built from since it was written (a new index starts dirty);
	// Unlinked whether some files' chunks have no owners and mentions yet.
	GraphDirty(ctx context.Context) (bool, error)
	Unlinked(ctx context.Context) (bool, error)
	// LinkKey returns a digest of what owners and mentions depend on
	// besides a chunk's own content (the services and service names), now
	// and at the last MarkLinked; MarkLinked records that the graph,
	// owners and mentions are up to date with every file, under key.
	LinkKey(ctx context.Context) (current, last string, err error)
	MarkLinked(ctx context.Context, key string) error
	// SourceNames are the names of the sources the store holds;
	// DeleteSource removes one with everything it holds.
	SourceNames(ctx context.Context) ([]string, error)
	DeleteSource(ctx context.Context, name string) error
}

// ErrRunRecorded marks an error of Store.FinishRun that came after the
// run's end was recorded (the index upkeep it does at the end).
var ErrRunRecorded = errors.New("the crawl run itself is recorded")

// ErrGraphSuperseded is what Store.WriteGraph returns when it did not
// write the graph because a source committed after GraphDirty looked: the
// graph was built from facts that miss it, and that source's crawler
// builds and links it again. The crawl leaves owners and mentions to it.
var ErrGraphSuperseded = errors.New("a later commit's crawler writes the graph")

// LinkLocker is a Store that several crawlers write at once (PostgreSQL):
// a crawl's link phase — graph, owners, mentions — runs under its lock, so
// that one built from older facts never overwrites a newer one's owners
// and mentions. unlock releases it.
type LinkLocker interface {
	LockLink(ctx context.Context) (unlock func(), err error)
}

// Compacter is a Store whose indexes a crawl compacts at its end (the
// SQLite file's full-text indexes, when much was removed from them).
type Compacter interface {
	// Compact compacts what is worth it and reports whether it did;
	// starting is called first when it will.
	Compact(ctx context.Context, starting func()) (bool, error)
}

// LinkScope says which chunks the link passes (owners, mentions) visit.
type LinkScope int

const (
	// LinkAll visits every chunk: the graph or the service names changed.
	LinkAll LinkScope = iota
	// LinkNew visits the chunks of files written since the last link.
	LinkNew
)

// mentionCorpora are the corpus types whose chunks are joined to the
// services they mention.
var mentionCorpora = []core.CorpusType{core.DocReadme, core.DocRunbook, core.DocADR, core.DocGoogle,
	core.ConvoSlack, core.ConvoTranscript, core.ConvoOther}

// SourceWriter replaces one source's content atomically.
type SourceWriter interface {
	WriteFile(ctx context.Context, f core.File, hash string, chunks []embed.Chunk) error
	// WriteRoutes stores the routes of the source, after their chunks.
	WriteRoutes(ctx context.Context, routes []core.RouteAt) error
	// WriteMounts records the router mounts of a written file.
	WriteMounts(ctx context.Context, path string, mounts []core.Mount) error
	Skip(ctx context.Context, path, reason string) error
	// Warn records that a file was indexed in a weaker way than its type
	// asks for (as text), and why.
	Warn(ctx context.Context, path, reason string) error
	// SetFingerprint records what identifies the source's content, for
	// the manifest: an export's content hash, a directory's newest file
	// modification time. Commit stores it.
	SetFingerprint(contentHash string, newestMTime int64)
	Commit(ctx context.Context) error
	// Rollback abandons the changes; it is a no-op after Commit.
	Rollback() error
}

// SourceUpdater changes a source file by file: WriteFile replaces one
// file, DeleteFile removes one, the others stay.
type SourceUpdater interface {
	SourceWriter
	// StoredFiles returns what the store holds of each file, by path.
	StoredFiles(ctx context.Context) (map[string]StoredFile, error)
	DeleteFile(ctx context.Context, path string) error
	// Touch records the size and modification time of an unchanged file.
	Touch(ctx context.Context, f core.File) error
	// Outdated reports whether the source's git commit or fingerprint
	// differ from the stored ones: an update without changed files still
	// commits then, to record them.
	Outdated() bool
}

// StoredFile is what the store holds of one file: its content hash, its
// router mounts, and the size and modification time it had when read
// (ModTime 0: not to be trusted, read the file).
type StoredFile struct {
	Hash    string
	Mounts  []core.Mount
	Size    int64
	ModTime int64
}

// Options configure a Crawler. The zero value uses the defaults.
type Options struct {
	// Jobs is the number of files read and chunked at once
	// (default: the number of CPUs).
	Jobs int
	// Discover configures discovery (size limit, excludes).
	Discover discover.Options
	// Window configures the sliding-window chunker.
	Window chunk.WindowOptions
	// Code configures the syntax-tree chunker of source code.
	Code chunk.Options
	// Convo configures the Slack and transcript chunkers.
	Convo convo.Options
	// Scrub configures the scrub gate (IP addresses, extra names).
	Scrub scrub.Options
	// Progress receives events. It is called from several goroutines and
	// must not block; nil discards events.
	Progress func(core.Event)
	// Args is recorded with the crawl run (the command line).
	Args string
	// Embed says how chunks get vectors (none by default).
	Embed EmbedOptions
	// Prune removes the sources the store holds that are not crawled.
	Prune bool
	// Incremental re-chunks only the files (and Slack channels) whose
	// content hash changed since the last crawl, adds new ones and removes
	// deleted ones; a source with no change is left as it is.
	Incremental bool
	// FS opens a source's directory; default os.DirFS. Tests inject faults.
	FS func(dir string) fs.FS
	// MaxChunksPerFile is how many chunks one file yields at most
	// (default DefaultMaxChunksPerFile); the rest of the file is skipped
	// with a warning.
	MaxChunksPerFile int
}

// Crawler crawls sources into a Store. It is safe to call Run once at a
// time per Store.
type Crawler struct {
	store   Store
	opts    Options
	gate    *scrub.Gate
	chunker *chunk.Chunker // set during Run
}

// New returns a Crawler writing to store.
func New(store Store, opts Options) *Crawler {
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	if opts.Progress == nil {
		opts.Progress = func(core.Event) {}
	}
	if opts.FS == nil {
		opts.FS = os.DirFS
	}
	return &Crawler{store: store, opts: opts, gate: scrub.New(opts.Scrub)}
}

// SourceSummary is the outcome of crawling one source.
type SourceSummary struct {
	Source   core.Source
	Files    int
	Bytes    int64
	Chunks   map[core.CorpusType]int
	Skips    []discover.Skip
	Warnings []discover.Skip // files indexed as text although their type has a chunker
	Routes   []core.RouteAt  // server routes found, with mount prefixes applied
	Errors   []error
	Err      error // the source could not be crawled at all
	// Incremental crawls: files whose content had not changed, files
	// removed because they are gone, and whether nothing changed at all
	// (UpToDate: the source was left as it was). Full says an incremental
	// crawl re-indexed the whole source, and FullReason why (router mounts
	// changed, or an older coderag chunked it).
	Unchanged, Deleted int
	UpToDate, Full     bool
	FullReason         string
	Duration           time.Duration
	Phases             map[core.Phase]time.Duration
}

// ChunkCount is the total number of chunks written for the source.
func (s SourceSummary) ChunkCount() int {
	n := 0
	for _, c := range s.Chunks {
		n += c
	}
	return n
}

// Summary is the outcome of a crawl.
type Summary struct {
	RunID int64
	// RunUnrecorded: the run's end could not be written (a full disk);
	// stats shows it as interrupted once the crawl's process is gone.
	RunUnrecorded bool
	Sources       []SourceSummary
	// Pruned are the sources removed (Options.Prune).
	Pruned   []string
	Duration time.Duration
	// Services is how many services the index knows; MentionsChanged how
	// many conversation and doc chunks were (re)joined to the services
	// they mention; LinkDuration the time of the link phase (owners and
	// mentions) without the graph's.
	Services        int
	MentionsChanged int
	LinkDuration    time.Duration
	// Graph is what the crawl did to the service graph.
	Graph GraphSummary
	// Embed is what the embed phase did.
	Embed EmbedSummary
	// CompactDuration is the time compacting the indexes took (Compacter;
	// 0 when not worth it).
	CompactDuration time.Duration
	// UpkeepErr is what failed after the run's end was recorded (the
	// ranking's row lengths not written): the index is complete, and the
	// next crawl does it again.
	UpkeepErr error
}

// GraphSummary counts the rebuilt service graph. Kept says the graph was
// not rebuilt: nothing it is built from changed.
type GraphSummary struct {
	graph.Counts
	Duration time.Duration
	Kept     bool
}

// PhaseTime is the time one phase of a crawl took, over all sources.
type PhaseTime struct {
	Phase    string
	Duration time.Duration
}

// PhaseTimes are the crawl's phases in order with their times: discover
// (walking the sources), chunk (reading, chunking, scrubbing and writing
// files, which overlap), write (removals, routes and the commit), graph,
// link (owners and mentions), embed and compact.
func (s Summary) PhaseTimes() []PhaseTime {
	var out []PhaseTime
	for _, p := range []core.Phase{core.PhaseDiscover, core.PhaseChunk, core.PhaseWrite} {
		var d time.Duration
		for _, src := range s.Sources {
			d += src.Phases[p]
		}
		out = append(out, PhaseTime{string(p), d})
	}
	return append(out, PhaseTime{"graph", s.Graph.Duration}, PhaseTime{string(core.PhaseLink), s.LinkDuration},
		PhaseTime{string(core.PhaseEmbed), s.Embed.Duration}, PhaseTime{"compact", s.CompactDuration})
}

// Failed reports whether any source could not be crawled at all.
func (s Summary) Failed() bool {
	for _, src := range s.Sources {
		if src.Err != nil {
			return true
		}
	}
	return s.Embed.Err != nil
}

// Run crawls every source in order. Errors in single files are reported
// and skipped; a source that cannot be read at all is reported in its
// summary and the other sources are still crawled. Run returns an error
// only when the store fails or ctx is cancelled; sources committed before
// that keep their new content, the others their previous one.
func (c *Crawler) Run(ctx context.Context, sources []core.Source) (Summary, error) {
	start := time.Now()
	chunker, err := chunk.New(c.opts.Code)
	if err != nil {
		return Summary{}, err
	}
	if err := c.checkEmbedder(); err != nil {
		chunker.Close()
		return Summary{}, err
	}
	c.chunker = chunker
	defer func() {
		chunker.Close()
		c.chunker = nil
	}()
	// The people of every Slack export — a source, or kept in a
	// directory source — are known before anything is scrubbed, so that
	// every source is scrubbed for them whatever the order of the
	// sources. The first source's own export folders are read when it is
	// opened, before its files: only the sources after it are walked
	// here.
	for i, src := range sources {
		if src.Kind == core.SourceSlackExport || i > 0 {
			c.gate.AddNames(c.exportNames(ctx, src)...)
		}
	}
	runID, err := c.store.StartRun(ctx, c.opts.Args)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{RunID: runID}
	var runErr error
	for _, src := range sources {
		ss, err := c.crawlSource(ctx, runID, src)
		sum.Sources = append(sum.Sources, ss)
		if err != nil {
			runErr = err
			break
		}
	}
	if runErr == nil && c.opts.Prune {
		runErr = c.prune(ctx, sources, &sum)
	}
	if runErr == nil {
		runErr = c.link(ctx, &sum)
	}
	if runErr == nil {
		runErr = c.embedChunks(ctx, &sum)
	}
	if cp, ok := c.store.(Compacter); ok && runErr == nil {
		t := time.Now()
		did, err := cp.Compact(ctx, func() {
			c.event(core.Event{Kind: core.EventProgress, Phase: core.PhaseCompact})
		})
		if did {
			sum.CompactDuration = time.Since(t)
		}
		runErr = err
	}
	sum.Duration = time.Since(start)

	rec := core.CrawlRun{Status: "ok", Sources: len(sum.Sources)}
	for _, s := range sum.Sources {
		rec.Files += s.Files
		rec.Chunks += s.ChunkCount()
		rec.Skipped += len(s.Skips)
		rec.Errors += len(s.Errors)
		if s.Err != nil {
			rec.Errors++
			rec.Status = "partial"
			rec.Error = s.Err.Error()
		}
	}
	if sum.Embed.Err != nil {
		rec.Status, rec.Error = "partial", "embedding: "+sum.Embed.Err.Error()
	}
	if runErr != nil {
		rec.Status, rec.Error = "failed", runErr.Error()
		if errors.Is(runErr, context.Canceled) {
			rec.Status = "interrupted"
		}
	}
	// Record the run's end even when ctx was cancelled.
	if err := c.store.FinishRun(context.WithoutCancel(ctx), runID, rec); errors.Is(err, ErrRunRecorded) {
		sum.UpkeepErr = err // the index is complete; only its upkeep waits for the next crawl
	} else if err != nil {
		sum.RunUnrecorded = true
		if runErr == nil {
			runErr = err
		}
	}
	return sum, runErr
}

// prune removes the stored sources that are not among sources.
func (c *Crawler) prune(ctx context.Context, sources []core.Source, sum *Summary) error {
	keep := map[string]bool{}
	for _, s := range sources {
		keep[s.Name] = true
	}
	wctx := context.WithoutCancel(ctx)
	names, err := c.store.SourceNames(wctx)
	if err != nil {
		return err
	}
	for _, n := range names {
		if keep[n] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.store.DeleteSource(wctx, n); err != nil {
			return err
		}
		sum.Pruned = append(sum.Pruned, n)
	}
	return nil
}

// link brings the service graph, the chunks' owning services and the
// services conversations and docs mention up to date. When no source
// changed what the graph is built from, the graph is kept; otherwise it is
// rebuilt. Owners and mentions are computed for the chunks of files
// written since the last link, or for every chunk when the services or
// their names changed (LinkKey). MarkLinked at the end makes a crawl
// killed before it redo the work next time.
func (c *Crawler) link(ctx context.Context, sum *Summary) error {
	start := time.Now()
	defer func() { sum.LinkDuration = time.Since(start) - sum.Graph.Duration }()
	wctx := context.WithoutCancel(ctx)
	if l, ok := c.store.(LinkLocker); ok {
		unlock, err := l.LockLink(wctx)
		if err != nil {
			return err
		}
		defer unlock()
	}
	dirty, err := c.store.GraphDirty(wctx)
	if err != nil {
		return err
	}
	// The link key recorded with the graph starts with the builder's
	// version: a graph an older builder made is made again.
	_, last, err := c.store.LinkKey(wctx)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(last, graphStamp) {
		dirty = true // an older builder's graph, or none
	}
	sum.Graph.Kept = !dirty
	var g *graph.Graph // the graph built now; nil when the stored one is kept
	if dirty {
		if g, err = c.buildGraph(ctx, sum); errors.Is(err, ErrGraphSuperseded) {
			return nil // the later commit's crawler links, after this one
		} else if err != nil {
			return err
		}
	} else {
		unlinked, err := c.store.Unlinked(wctx)
		if err != nil || !unlinked {
			return err
		}
	}
	key, _, err := c.store.LinkKey(wctx)
	if err != nil {
		return err
	}
	key = graphStamp + key
	scope := LinkNew
	if key != last {
		scope = LinkAll
	}
	if _, err := c.store.AssignOwners(wctx, scope); err != nil {
		return err
	}
	if err := c.linkMentions(ctx, sum, scope, g); err != nil {
		return err
	}
	return c.store.MarkLinked(wctx, key)
}

// graphStamp begins the link key MarkLinked records: the version of the
// graph builder that made the graph the owners and mentions follow from,
// and of the rules that join chunks to services (mentionRules).
var graphStamp = "graph-" + strconv.Itoa(graph.BuilderVersion) + "-m" + strconv.Itoa(mentionRules) + "/"

// mentionRules numbers the rules that join documents and conversations
// to the services they mention (mention.Matcher.FindAbout and the names it
// is given). It changes whenever those rules would join some unchanged
// chunk differently, so that the next crawl of an existing index joins
// all of them again. 2: a file named after a service is about it;
// unresolved targets and Kubernetes' own words are no services. 3: nor
// are the workloads of a test's manifests (core.DeclaresSystem). 4: a
// chart deploying one service names that service. 5: a document in a
// service's folder is about that service (graph.Owners.About); a name of
// one word common in technical prose counts only where it is written as
// a name (mention.Common).
const mentionRules = 5

// GraphOutdated reports whether linkKey, the link key an index records,
// says an older graph builder made its graph: the next crawl makes it
// again. An index never linked ("") is not outdated.
func GraphOutdated(linkKey string) bool {
	return linkKey != "" && !strings.HasPrefix(linkKey, graphStamp)
}

// buildGraph rebuilds the service graph from every fact the index holds
// (not only this crawl's sources), writes it and returns it.
func (c *Crawler) buildGraph(ctx context.Context, sum *Summary) (*graph.Graph, error) {
	start := time.Now()
	wctx := context.WithoutCancel(ctx)
	// The facts are read concurrently (each read decodes tens of
	// thousands of rows in a large index).
	var in graph.Input
	var reads errgroup.Group
	reads.Go(func() (err error) { in.Resources, err = c.store.Resources(wctx); return })
	reads.Go(func() (err error) { in.Calls, err = c.store.Calls(wctx); return })
	reads.Go(func() (err error) { in.Routes, err = c.store.Routes(wctx); return })
	reads.Go(func() (err error) { in.Files, err = c.store.FilePaths(wctx); return })
	reads.Go(func() (err error) { in.Bindings, err = c.store.Bindings(wctx); return })
	reads.Go(func() (err error) { in.Roots, err = c.store.RepoRoots(wctx); return })
	if err := reads.Wait(); err != nil {
		return nil, err
	}
	if graph.NeedsGoImports(in.Resources) {
		var err error
		if in.GoImports, err = c.store.GoImports(wctx); err != nil {
			return nil, err
		}
	}
	g := graph.Build(in)
	if err := c.store.WriteGraph(wctx, g); err != nil {
		return nil, err
	}
	sum.Graph = GraphSummary{Counts: g.Counts(), Duration: time.Since(start)}
	c.event(core.Event{Kind: core.EventProgress, Phase: core.PhaseLink, Chunks: len(g.Edges)})
	return g, nil
}

// linkMentions joins conversations and docs of the whole index (not only
// this crawl's sources) to the services they mention, so that the order
// of sources and crawls does not matter. g is the graph this crawl built,
// nil when it kept the stored one (read then, if the store can).
func (c *Crawler) linkMentions(ctx context.Context, sum *Summary, scope LinkScope, g *graph.Graph) error {
	names, err := c.store.ServiceNames(ctx)
	if err != nil {
		return err
	}
	m := mention.New(names)
	if gr, ok := c.store.(interface {
		Graph(context.Context) (*graph.Graph, error)
	}); ok && g == nil {
		if g, err = gr.Graph(ctx); err != nil {
			return err
		}
	}
	find := func(_, file, text string) []string { return m.FindIn(file, text) }
	if g != nil {
		// A document in a service's folder is about that service; a
		// subchart's name (its files' service) is a name of the one
		// service it deploys, so a document naming it is about that
		// service.
		owners, canon := g.Owners(), chartServices(g)
		find = func(repo, file, text string) []string {
			var out []string
			for _, n := range m.FindAbout(file, owners.About(repo, file), text) {
				if s, ok := canon[n]; ok {
					n = s
				}
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
			return out
		}
	}
	n, err := c.store.UpdateMentions(context.WithoutCancel(ctx), mentionCorpora, scope, find)
	if err != nil {
		return err
	}
	sum.Services, sum.MentionsChanged = len(names), n
	c.event(core.Event{Kind: core.EventProgress, Phase: core.PhaseLink, Chunks: n})
	return nil
}

// chartServices maps the names of charts that deploy one service (graph
// aliases of kind chart), where no service has that name, to the service.
func chartServices(g *graph.Graph) map[string]string {
	out := map[string]string{}
	for _, s := range g.Services {
		for _, a := range s.Aliases {
			if a.Kind == "chart" && g.Service(a.Name) == nil {
				out[a.Name] = s.Name
			}
		}
	}
	return out
}

// fileResult is what a worker hands the writer for one file.
type fileResult struct {
	file    core.File
	hash    string
	chunks  []embed.Chunk
	mounts  []core.Mount
	skip    string
	warning string
	bytes   int64
	// unchanged: an incremental crawl found the stored content hash;
	// touch: read to find that out, as its modification time changed.
	unchanged, touch bool
	// problems are parts of the unit that could not be read (a day file
	// of a Slack channel); the rest of the unit is indexed.
	problems []discover.Skip
}

func (c *Crawler) event(e core.Event) {
	e.Time = time.Now()
	c.opts.Progress(e)
}

func (c *Crawler) crawlSource(ctx context.Context, runID int64, src core.Source) (ss SourceSummary, err error) {
	return c.crawlSourceMode(ctx, runID, src, c.opts.Incremental)
}

func (c *Crawler) crawlSourceMode(ctx context.Context, runID int64, src core.Source, update bool) (ss SourceSummary, err error) {
	start := time.Now()
	ss = SourceSummary{Source: src, Chunks: map[core.CorpusType]int{}, Phases: map[core.Phase]time.Duration{}}
	defer func() { ss.Duration = time.Since(start) }()
	c.event(core.Event{Kind: core.EventSourceStart, Phase: core.PhaseDiscover, Source: src.Name, Path: src.Path})

	// Store calls get a context that is never cancelled: a cancelled crawl
	// stops between files and rolls back itself, instead of having the
	// driver interrupt a write half-way (which database/sql answers with an
	// asynchronous rollback on a discarded connection).
	wctx := context.WithoutCancel(ctx)
	if src.Kind == core.SourceRepo {
		src.Commit = discover.GitHead(src.Path)
		ss.Source = src
	}
	// The source is walked while its transaction begins and, in an
	// update, the stored file list is read.
	type walked struct {
		u   *sourceReader
		err error
	}
	walk := make(chan walked, 1)
	warm := newWarmer(update)
	go func() {
		u, err := c.open(ctx, src, warm)
		walk <- walked{u, err}
	}()
	var w SourceWriter
	var up SourceUpdater
	var stored map[string]StoredFile
	if update {
		up, err = c.store.BeginSourceUpdate(wctx, runID, src)
		w = up
		if err == nil {
			stored, err = up.StoredFiles(wctx)
		}
		warm.setStored(stored)
	} else {
		w, err = c.store.BeginSource(wctx, runID, src)
	}
	wk := <-walk
	ss.Phases[core.PhaseDiscover] = time.Since(start)
	if wk.u != nil {
		defer wk.u.close()
	}
	if err != nil {
		return ss, err
	}
	defer w.Rollback()
	if wk.err != nil {
		w.Rollback()
		if ctx.Err() != nil {
			return ss, ctx.Err()
		}
		ss.Err = fmt.Errorf("source %s (%s): %w", src.Name, src.Path, wk.err)
		c.event(core.Event{Kind: core.EventError, Phase: core.PhaseDiscover, Source: src.Name, Path: src.Path, Err: ss.Err})
		return ss, nil
	}
	u := wk.u
	if update && !stampedAll(stored) {
		// An older coderag chunked this source: index all of it again.
		w.Rollback()
		full, err := c.crawlSourceMode(ctx, runID, src, false)
		full.Full, full.FullReason = true, "chunking changed since the last crawl"
		return full, err
	}
	u.stored = stored
	found := u.found
	total := len(found.Files)
	c.event(core.Event{Kind: core.EventProgress, Phase: core.PhaseDiscover, Source: src.Name, FilesTotal: total})
	for _, s := range found.Skips {
		if err := w.Skip(wctx, s.Path, s.Reason); err != nil {
			return ss, err
		}
		ss.Skips = append(ss.Skips, s)
		c.event(core.Event{Kind: core.EventSkip, Phase: core.PhaseDiscover, Source: src.Name, Path: s.Path, Reason: s.Reason})
	}

	// Files with their stored size and modification time are unchanged
	// without reading them; the others go to the workers.
	var routes []core.RouteAt
	var mounts []chunk.FileMount
	done := 0
	todo := found.Files
	if u.src.Kind != core.SourceSlackExport && len(u.stored) > 0 {
		todo = nil
		for _, f := range found.Files {
			sf, ok := u.statUnchanged(f)
			if !ok {
				todo = append(todo, f)
				continue
			}
			ss.Unchanged++
			done++
			for _, m := range sf.Mounts {
				mounts = append(mounts, chunk.FileMount{File: f.Path, Mount: m})
			}
		}
		c.event(core.Event{Kind: core.EventProgress, Phase: core.PhaseChunk, Source: src.Name, FilesDone: done, FilesTotal: total})
	}

	chunkStart := time.Now()
	jobs := make(chan core.File)
	results := make(chan fileResult, c.opts.Jobs)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		for _, f := range todo {
			select {
			case jobs <- f:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	var workers sync.WaitGroup
	for range c.opts.Jobs {
		workers.Add(1)
		g.Go(func() error {
			defer workers.Done()
			for f := range jobs {
				r := u.processSafely(f)
				select {
				case results <- r:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	go func() {
		workers.Wait()
		close(results)
	}()

	// The one writer. Routes wait for the end of the source: mounts in
	// one file put the routes of another under a prefix.
	var werr error
	var units []unitHash // of the units indexed (exports: the content hash)
	mountsChanged := false
	touched := 0
	for r := range results {
		if werr == nil && gctx.Err() != nil {
			werr = gctx.Err()
		}
		if werr != nil {
			continue // drain so that workers exit
		}
		done++
		for _, p := range r.problems {
			ss.Skips = append(ss.Skips, p)
			if werr == nil {
				werr = w.Skip(wctx, p.Path, p.Reason)
			}
			c.event(core.Event{Kind: core.EventSkip, Phase: core.PhaseChunk, Source: src.Name, Path: p.Path, Reason: p.Reason})
		}
		switch {
		case werr != nil:
		case r.unchanged:
			ss.Unchanged++
			units = append(units, unitHash{r.file.Path, r.hash})
			if r.touch {
				touched++
				werr = up.Touch(wctx, r.file)
			}
			for _, m := range u.stored[r.file.Path].Mounts {
				mounts = append(mounts, chunk.FileMount{File: r.file.Path, Mount: m})
			}
		case r.skip != "":
			ss.Skips = append(ss.Skips, discover.Skip{Path: r.file.Path, Reason: r.skip})
			werr = w.Skip(wctx, r.file.Path, r.skip)
			c.event(core.Event{Kind: core.EventSkip, Phase: core.PhaseChunk, Source: src.Name, Path: r.file.Path, Reason: r.skip})
		default:
			units = append(units, unitHash{r.file.Path, r.hash})
			werr = w.WriteFile(wctx, r.file, r.hash, r.chunks)
			if werr == nil {
				werr = w.WriteMounts(wctx, r.file.Path, r.mounts)
			}
			if up != nil && !sameMounts(u.stored[r.file.Path].Mounts, r.mounts) {
				mountsChanged = true
			}
			ss.Files++
			ss.Bytes += r.bytes
			for _, ch := range r.chunks {
				ss.Chunks[ch.Clean.Corpus()]++
				for _, rt := range ch.Clean.Routes() {
					routes = append(routes, core.RouteAt{Repo: src.Name, File: r.file.Path, ChunkID: ch.Clean.ID(), Route: rt})
				}
			}
			for _, m := range r.mounts {
				mounts = append(mounts, chunk.FileMount{File: r.file.Path, Mount: m})
			}
			if r.warning != "" && werr == nil {
				ss.Warnings = append(ss.Warnings, discover.Skip{Path: r.file.Path, Reason: r.warning})
				werr = w.Warn(wctx, r.file.Path, r.warning)
				c.event(core.Event{Kind: core.EventWarning, Phase: core.PhaseChunk, Source: src.Name, Path: r.file.Path, Reason: r.warning})
			}
		}
		c.event(core.Event{Kind: core.EventProgress, Phase: core.PhaseChunk, Source: src.Name, Path: r.file.Path,
			FilesDone: done, FilesTotal: total, Chunks: ss.ChunkCount(), Bytes: ss.Bytes})
	}
	if err := g.Wait(); err != nil && werr == nil {
		werr = err
	}
	ss.Phases[core.PhaseChunk] = time.Since(chunkStart)
	if werr == nil {
		werr = ctx.Err()
	}
	if werr != nil {
		w.Rollback()
		if ctx.Err() != nil {
			return ss, ctx.Err()
		}
		return ss, werr
	}

	w.SetFingerprint(u.fingerprint(units))
	writeStart := time.Now()
	if up != nil {
		// Stored files the walk did not find are deleted; when it found
		// them all, there is nothing to look for.
		kept := 0
		for _, f := range found.Files {
			if _, ok := u.stored[f.Path]; ok {
				kept++
			}
		}
		seen := map[string]bool{}
		if kept < len(u.stored) {
			for _, f := range found.Files {
				seen[f.Path] = true
			}
		}
		for p, sf := range u.stored {
			if kept == len(u.stored) {
				break
			}
			if seen[p] {
				continue
			}
			if err := up.DeleteFile(wctx, p); err != nil {
				return ss, err
			}
			ss.Deleted++
			if len(sf.Mounts) > 0 {
				mountsChanged = true
			}
		}
		switch {
		case mountsChanged:
			// Routes of unchanged files live under the old prefixes:
			// index the whole source again.
			w.Rollback()
			full, err := c.crawlSourceMode(ctx, runID, src, false)
			full.Full, full.FullReason = true, "router mounts changed"
			return full, err
		case ss.Files == 0 && ss.Deleted == 0:
			ss.UpToDate = true
			if touched > 0 || up.Outdated() {
				err = w.Commit(wctx)
			}
			w.Rollback()
			if err != nil {
				return ss, err
			}
			ss.Phases[core.PhaseWrite] = time.Since(writeStart)
			c.event(core.Event{Kind: core.EventSourceDone, Phase: core.PhaseDone, Source: src.Name, FilesDone: done, FilesTotal: total})
			return ss, nil
		}
	}
	c.event(core.Event{Kind: core.EventProgress, Phase: core.PhaseWrite, Source: src.Name, FilesDone: done, FilesTotal: total, Chunks: ss.ChunkCount(), Bytes: ss.Bytes})
	ss.Routes = chunk.ApplyMounts(routes, mounts)
	if err := w.WriteRoutes(wctx, ss.Routes); err != nil {
		return ss, err
	}
	if err := w.Commit(wctx); err != nil {
		return ss, err
	}
	ss.Phases[core.PhaseWrite] = time.Since(writeStart)
	sort.Slice(ss.Skips, func(i, j int) bool { return ss.Skips[i].Path < ss.Skips[j].Path })
	c.event(core.Event{Kind: core.EventSourceDone, Phase: core.PhaseDone, Source: src.Name, FilesDone: done, FilesTotal: total,
		Chunks: ss.ChunkCount(), Bytes: ss.Bytes})
	return ss, nil
}

// sameMounts reports whether two mount lists are equal, ignoring lines.
func sameMounts(a, b []core.Mount) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Line, y.Line = 0, 0
		if x != y {
			return false
		}
	}
	return true
}

func (c *Crawler) maxSize() int64 {
	if c.opts.Discover.MaxFileSize > 0 {
		return c.opts.Discover.MaxFileSize
	}
	return discover.DefaultMaxFileSize
}

func unwrapPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return strings.TrimSpace(err.Error())
}
