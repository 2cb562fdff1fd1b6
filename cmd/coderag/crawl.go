package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/discover"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/scrub"
)

type crawlOptions struct {
	db          *string
	repoPaths   []string
	repoNames   []string
	slack       []string
	transcripts []string
	runbooks    []string
	gdocs       []string
	exclude     []string
	jobs        int
	maxFileSize string
	maxChunks   int
	json        bool
	verbose     bool
	scrubIPs    bool
	classify    []string
	embed       embedFlags
	reembed     bool
	incremental bool
	wait        bool
	tui         bool
	progress    string
	config      string
	prune       bool
}

const crawlLong = `Crawl indexes repositories, Slack exports, transcripts, runbooks and Google
Docs exports into the database.

Sources:
  --repo-path DIR          a repository: code, deploy, config files and docs
                           (directories given as arguments are the same)
  --slack-export PATH      a Slack export: the export folder (channels.json,
                           users.json, a folder of YYYY-MM-DD.json files per
                           channel), the same as a .zip, or one JSON array
                           of messages. An export folder inside a repository
                           or another directory is read the same way, not
                           as JSON files
  --transcripts-dir DIR    meeting transcripts: WebVTT, SRT, Zoom chat logs,
                           "Speaker: text" files, Markdown with **Speaker**
  --runbooks-dir DIR       a folder of runbooks (Markdown, text, Word and
                           HTML exports)
  --gdocs-dir DIR          Google Docs exports: HTML, DOCX, Markdown, text
Every flag repeats. A source is named after its directory or file (a Go
module cache folder, loki/v3@v3.4.2, after its module: loki); give
another name with NAME=PATH (--repo-path shop=./src, or --repo-name). Names are
unique per database: crawling a name again replaces that source. Without
source flags, crawl crawls the sources of the workspace file (below), or
else re-crawls every source the database already holds, from the paths it
was crawled from (add --incremental to re-index only what changed);
--exclude and --classify given then apply again, earlier ones are not
remembered (put lasting rules in the source's .coderag.yaml or the
workspace file). Sources the database holds that this crawl does not name
are left alone, unless --prune-sources removes them.

Repositories are walked honouring .gitignore and .coderagignore files.
Files are classified by path and content (runbooks by a runbook, playbook or
oncall folder, ADRs by an adr or decisions folder, Kubernetes manifests by
apiVersion and kind, ...). --classify and a .coderag.yaml at the root of a
source add rules of their own:

  classify:
    - path: ops/playbooks/**
      type: runbook
  exclude:
    - fixtures/**

Dependency and cache directories (node_modules, a package manager's
vendor, a virtualenv, ...), lock files, binaries, generated and minified
code, files over --max-file-size and files holding credentials (.env,
*.pem, id_rsa, ...) are skipped, each with a reason you can list with -v or
'coderag stats --skipped'. Deploy files, docs, files git tracks and Go are
kept even inside build-output directories. Word documents where docs live
and Jupyter notebooks (cells, without outputs) are extracted; UTF-16 with a
byte order mark and Latin-1 text are decoded, with a warning.

Code is cut at declarations (tree-sitter), Kubernetes YAML per resource,
compose files per service, Markdown at headings, config files by key, Slack
per thread (other messages in bursts that end at a 30 minute silence),
transcripts in runs of speaker turns. A file whose structure cannot be read
(YAML that does not parse, a VTT cue with a broken time) is indexed as text
with a warning; a file that cannot be read at all is skipped with a reason.
Every chunk passes the scrub gate: secrets are replaced in every source;
personal data (e-mail addresses, phone numbers, card numbers, IBANs, medical
record numbers, the names of the Slack export's members and the
transcripts' speakers, names after honorifics and in "Author:" lists, and
with --scrub-ips IP addresses) in runbooks, ADRs, Slack, transcripts and
Google Docs. Each source is replaced inside one
transaction: a crawl that is killed leaves the previous index of that source
complete, and queries keep working while a crawl runs.

--incremental does not read a file whose size and modification time are the
stored ones (a time is trusted once it is two seconds old); it compares the
others, and each Slack channel's day files, with the stored content hash
and re-indexes only what differs, removing deleted files. Committed,
uncommitted and untracked edits are all seen. A source an older coderag
chunked differently is indexed again whole, once. The service graph is rebuilt
only when calls, routes, resources or deploy files changed. Each source's
git HEAD, content hash (exports) or newest file time (directories) is
recorded: see 'coderag manifest'.

After the sources are written, every chunk without a vector is embedded
(in committed batches: an interrupted crawl leaves the rest for the next
one) with the shipped model, unless the index holds another embedder's
vectors or --embedder names one. The corpus model (--embedder corpus) is
learned first, from up to 20,000 chunks spread over the index, and learned
again when the index has grown or shrunk by half since. An index keeps one
embedder: switching needs --reembed with --embedder, which drops every
vector and embeds the whole index again; --reembed alone embeds it again
with the embedder it holds (the corpus model learned anew). An index of
the shipped model that a newer coderag ships retrained is embedded again
with the new one by its next crawl, which says so.

` + workspaceHelp + `

` + embedHelp + `

The exit status is 1 when a source could not be read at all or embedding
stopped early; files that cannot be indexed never fail the crawl.`

func newCrawlCmd(io *ioStreams, db *string) *cobra.Command {
	o := &crawlOptions{db: db}
	cmd := &cobra.Command{
		Use:   "crawl [DIR...] [--repo-path DIR] [--slack-export PATH] [--transcripts-dir DIR] [--runbooks-dir DIR] [--gdocs-dir DIR]",
		Short: "Index repositories, Slack exports, transcripts, runbooks and docs",
		Long:  crawlLong,
		Example: `  coderag crawl ../platform ../web
  coderag crawl --repo-path ../platform --repo-path ../web
  coderag crawl --repo-path . --slack-export ~/exports/acme-slack.zip --transcripts-dir ~/meetings
  coderag crawl --gdocs-dir design-docs=~/Downloads/gdocs
  coderag crawl --repo-path . --repo-name shop --exclude 'testdata/**'
  coderag crawl --repo-path . --json | jq 'select(.kind == "skip")'`,
		// Directories given as arguments are repositories, as with
		// --repo-path.
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.repoPaths = append(o.repoPaths, args...)
			return crawlRun(cmd, io, o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.repoPaths, "repo-path", nil, "repository directory to index, as PATH or NAME=PATH (repeatable)")
	f.StringArrayVar(&o.repoNames, "repo-name", nil, "name of the matching --repo-path (default: its directory name)")
	f.StringArrayVar(&o.slack, "slack-export", nil, "Slack export folder, .zip or .json to index, as PATH or NAME=PATH (repeatable)")
	f.StringArrayVar(&o.transcripts, "transcripts-dir", nil, "folder of meeting transcripts to index, as DIR or NAME=DIR (repeatable)")
	f.StringArrayVar(&o.runbooks, "runbooks-dir", nil, "folder of runbooks to index, as DIR or NAME=DIR (repeatable)")
	f.StringArrayVar(&o.gdocs, "gdocs-dir", nil, "folder of Google Docs exports (HTML, DOCX, Markdown) to index, as DIR or NAME=DIR (repeatable)")
	f.StringArrayVar(&o.classify, "classify", nil, "give paths a corpus type, as 'PATTERN=TYPE' (e.g. 'ops/playbooks/**=runbook'; repeatable)")
	f.StringArrayVar(&o.exclude, "exclude", nil, "gitignore-style pattern of paths to leave out (repeatable)")
	f.IntVarP(&o.jobs, "jobs", "j", 0, "files processed at once (default: number of CPUs)")
	f.StringVar(&o.maxFileSize, "max-file-size", "2MB", "skip files larger than this (e.g. 512KB, 4MB); files over 2MB are read as a stream and cut into windows")
	f.IntVar(&o.maxChunks, "max-chunks-per-file", ingest.DefaultMaxChunksPerFile, "index at most this many chunks of one file; the rest is skipped with a warning")
	f.BoolVar(&o.scrubIPs, "scrub-ips", false, "also replace IP addresses in Slack, transcripts, runbooks, ADRs and Google Docs with <IP_n>")
	f.BoolVar(&o.json, "json", false, "print progress events and the summary as JSON lines on stdout (same as --progress json)")
	f.StringVar(&o.progress, "progress", "auto", "how progress is shown on stderr: auto (a live bar on a terminal, else lines), bar, lines, json (events and summary as JSON lines on stdout), none")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list every skipped file with its reason")
	f.BoolVar(&o.incremental, "incremental", false, "re-index only files and channels whose content changed since the last crawl; remove deleted ones; leave unchanged sources alone")
	f.BoolVar(&o.wait, "wait", false, "wait for another crawl of the same database (PostgreSQL: of the same source) to finish instead of failing")
	f.StringVar(&o.config, "config", "", "workspace file listing the sources (default: ./"+workspaceFile+" when it exists)")
	f.BoolVar(&o.prune, "prune-sources", false, "remove from the database the sources this crawl does not name (and their chunks)")
	f.BoolVar(&o.tui, "tui", false, "show the crawl in the terminal UI (progress bars per source, rates, ETA, problems); search while it runs")
	o.embed.register(f, false)
	f.BoolVar(&o.reembed, "reembed", false, "drop every vector (and the built-in model) and embed the whole index again; needed to change embedders")
	return cmd
}

func crawlRun(cmd *cobra.Command, io *ioStreams, o *crawlOptions) error {
	ctx := cmd.Context()
	switch o.progress {
	case "auto", "bar", "lines", "none":
	case "json":
		o.json = true
	default:
		return usagef("--progress %q: want auto, bar, lines, json or none", o.progress)
	}
	if o.tui && o.json {
		return usagef("--tui and --json do not go together")
	}
	if o.tui && !io.outTTY {
		return usagef("--tui needs a terminal")
	}
	if o.tui && crawlInTUI == nil {
		return handOffTUI()
	}
	if cmd.Flags().Changed("jobs") {
		if err := positiveInt("jobs", o.jobs); err != nil {
			return err
		}
	}
	if o.maxChunks < 1 {
		return usagef("--max-chunks-per-file must be 1 or more, got %d", o.maxChunks)
	}
	maxSize, err := parseSize(o.maxFileSize)
	if err != nil {
		return usagef("--max-file-size: %v", err)
	}
	ws, err := loadWorkspace(o.config)
	if err != nil {
		return err
	}
	if ws != nil {
		if ws.DB != "" && !cmd.Flag("db").Changed {
			*o.db = ws.DB
		}
		o.exclude = append(append([]string(nil), ws.Exclude...), o.exclude...)
		if ws.Embedder != "" && !cmd.Flags().Changed("embedder") && os.Getenv("CODERAG_EMBEDDER") == "" {
			o.embed.provider = ws.Embedder
		}
	}
	var sources []core.Source
	// again: the sources come from the database (or the workspace file)
	// and keep the index's embedder unless one is asked for.
	again := len(o.repoPaths)+len(o.slack)+len(o.transcripts)+len(o.runbooks)+len(o.gdocs) == 0
	switch {
	case again && ws != nil && len(ws.Sources) > 0:
		if sources, err = ws.sources(); err != nil {
			return err
		}
		if ws.Embedder != "" {
			again = false
		}
	case again:
		if o.prune {
			return usagef("--prune-sources needs the sources to keep: source flags or a workspace file")
		}
		if sources, err = previousSources(ctx, *o.db); err != nil {
			return err
		}
	default:
		if sources, err = o.sources(); err != nil {
			return err
		}
	}
	var rules []discover.Rule
	for _, c := range o.classify {
		r, err := discover.ParseRule(c)
		if err != nil {
			return usagef("--classify: %v", err)
		}
		rules = append(rules, r)
	}

	embedOpts, err := o.embed.crawlEmbed(ctx, o.reembed)
	if err != nil {
		return err
	}
	unlock, err := lockCrawl(ctx, *o.db, o.wait)
	if err != nil {
		return err
	}
	defer unlock()
	db, err := openIndex(ctx, *o.db, true)
	if err != nil {
		return err
	}
	defer db.Close()
	// A shared index locks each source, not the database: --wait says
	// whether a source another crawler is writing is waited for.
	if w, ok := db.(interface{ SetWaitForSources(bool) }); ok {
		w.SetWaitForSources(o.wait)
	}
	if !cmd.Flags().Changed("embedder") && os.Getenv("CODERAG_EMBEDDER") == "" &&
		(again || (ws == nil || ws.Embedder == "") && db.Embedder().ID != "") {
		// an index keeps its embedder unless one is asked for: a
		// re-crawl, a crawl that adds sources to an index made with
		// another embedder than the default, and --reembed (the corpus
		// model learned again, not the index moved to the default)
		if embedOpts, err = storedEmbed(ctx, db, io.err); err != nil {
			return err
		}
		if o.reembed {
			if !embedOpts.Builtin && embedOpts.Embedder == nil {
				return usagef("--reembed: %s holds no vectors to embed again; name an embedder (--embedder builtin, corpus, openai or ollama)", *o.db)
			}
			embedOpts.Reembed = true
		}
	}

	opts := ingest.Options{
		Jobs:        o.jobs,
		Discover:    discover.Options{MaxFileSize: maxSize, Exclude: o.exclude, Rules: rules},
		Scrub:       scrub.Options{IPs: o.scrubIPs},
		Args:        strings.Join(os.Args[1:], " "),
		Embed:       embedOpts,
		Incremental: o.incremental,
		Prune:       o.prune,

		MaxChunksPerFile: o.maxChunks,
	}
	if o.tui {
		return crawlInTUI(ctx, io, o, db, opts, sources, unlock)
	}
	pio := *io
	switch o.progress {
	case "bar":
		pio.errTTY = true
	case "lines":
		pio.errTTY = false
	}
	pr := newProgress(&pio, o.json, o.verbose)
	pr.quiet = o.progress == "none"
	opts.Progress = pr.event
	sum, err := ingest.New(db, opts).Run(ctx, sources)
	pr.finish()
	if o.json {
		printCrawlJSON(io, *o.db, sum, err)
	} else {
		printCrawlSummary(io, *o.db, sum, o.verbose, err)
	}
	if err != nil {
		return err
	}
	if sum.Failed() {
		return errSilent
	}
	return nil
}

// previousSources are the sources the database at path holds, for a crawl
// without source flags.
func previousSources(ctx context.Context, path string) ([]core.Source, error) {
	db, err := openIndex(ctx, path, false)
	if errors.Is(err, core.ErrNoIndex) {
		return nil, usagef("nothing to crawl: pass --repo-path, --slack-export, --transcripts-dir, --runbooks-dir or --gdocs-dir (%s does not exist yet)", path)
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	sources, err := storedSources(ctx, db)
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		return nil, usagef("nothing to crawl: %s holds no sources; pass --repo-path, --slack-export, --transcripts-dir, --runbooks-dir or --gdocs-dir", path)
	}
	return sources, nil
}

// sources turns the source flags into core.Sources with unique names.
func (o *crawlOptions) sources() ([]core.Source, error) {
	var l sourceList
	if len(o.repoNames) > 0 && len(o.repoNames) != len(o.repoPaths) {
		return nil, usagef("%d --repo-name for %d --repo-path: pass one name per path or none", len(o.repoNames), len(o.repoPaths))
	}
	for i, p := range o.repoPaths {
		name := ""
		if len(o.repoNames) > 0 {
			name = o.repoNames[i]
			if name == "" {
				return nil, usagef("repo name %q: must be non-empty and hold no slashes", name)
			}
		} else if n, rest, ok := strings.Cut(p, "="); ok && n != "" && !strings.ContainsAny(n, `/\`) {
			// NAME=PATH, as the other source flags take it, unless a
			// directory is named so.
			if _, err := os.Stat(p); err != nil {
				name, p = n, rest
			}
		}
		if err := l.add(core.SourceRepo, "--repo-path "+p, p, name); err != nil {
			return nil, err
		}
	}
	for _, set := range []struct {
		kind core.SourceKind
		flag string
		args []string
	}{
		{core.SourceSlackExport, "slack-export", o.slack},
		{core.SourceTranscriptDir, "transcripts-dir", o.transcripts},
		{core.SourceRunbookDir, "runbooks-dir", o.runbooks},
		{core.SourceGDocsDir, "gdocs-dir", o.gdocs},
	} {
		for _, a := range set.args {
			name, p := "", a
			if n, rest, ok := strings.Cut(a, "="); ok && n != "" && !strings.ContainsAny(n, `/\`) {
				name, p = n, rest
			}
			if err := l.add(set.kind, "--"+set.flag+" "+p, p, name); err != nil {
				return nil, err
			}
		}
	}
	return l.sources, nil
}

// sourceList collects crawl sources with unique names.
type sourceList struct {
	sources []core.Source
	names   map[string]string // name -> where it was given
}

// add adds the source at p, named name or after its directory or file;
// where says where it was given, for messages.
func (l *sourceList) add(kind core.SourceKind, where, p, name string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", where, err)
	case err != nil:
		// It exists but cannot be read (a symlink loop, no permission):
		// the crawl reports it as that source's failure and indexes the
		// others.
	case !fi.IsDir() && kind != core.SourceSlackExport:
		return usagef("%s is not a directory", where)
	case !fi.IsDir() && !strings.EqualFold(filepath.Ext(abs), ".zip") && !strings.EqualFold(filepath.Ext(abs), ".json"):
		return usagef("%s: want the export's folder, its .zip or a .json file of messages", where)
	}
	if name == "" {
		name = defaultSourceName(abs)
		if kind == core.SourceSlackExport && fi != nil && !fi.IsDir() {
			name = strings.TrimSuffix(name, filepath.Ext(name))
		}
	}
	if name == "" || strings.ContainsAny(name, "/\\") {
		return usagef("%s: source name %q must be non-empty and hold no slashes", where, name)
	}
	if l.names == nil {
		l.names = map[string]string{}
	}
	if other, ok := l.names[name]; ok {
		return usagef("%s and %s would both be named %q: give one another name (NAME=PATH, --repo-name, or name: in coderag.yaml)", other, where, name)
	}
	l.names[name] = where
	l.sources = append(l.sources, core.Source{Kind: kind, Path: abs, Name: name})
	return nil
}

// defaultSourceName is the name of the source at abs when none is given:
// its folder's name, but for a Go module cache folder
// (.../grafana/loki/v3@v3.4.2) the module's name without its version
// (@v3.4.2) or major-version element (v3), as people call it (loki).
func defaultSourceName(abs string) string {
	base := filepath.Base(abs)
	i := strings.LastIndex(base, "@v")
	if i <= 0 || i+2 >= len(base) || base[i+2] < '0' || base[i+2] > '9' {
		return base
	}
	name := base[:i]
	if len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		if parent := filepath.Base(filepath.Dir(abs)); parent != "." && parent != string(filepath.Separator) {
			return parent
		}
	}
	return name
}

// printCrawlSummary prints what a crawl did; runErr is the error that
// ended it, if any, in which case it says that nothing was indexed past
// the failure instead of "indexed".
func printCrawlSummary(io *ioStreams, db string, sum ingest.Summary, verbose bool, runErr error) {
	w := io.out
	files, chunks := 0, 0
	reasons := map[string]int{}
	skipped := 0
	// Names in a column as wide as the longest (folder names can be long).
	nw := 14
	for _, s := range sum.Sources {
		nw = max(nw, len(s.Source.Name))
	}
	for _, n := range sum.Pruned {
		nw = max(nw, len(n))
	}
	for _, s := range sum.Sources {
		files += s.Files
		chunks += s.ChunkCount()
		skipped += len(s.Skips)
		var parts []string
		for _, c := range core.CorpusTypes() {
			if n := s.Chunks[c]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", c.Short(), n))
			}
		}
		byCorpus := "" // " (code 12, docs 3)", none when there are no chunks
		if len(parts) > 0 {
			byCorpus = " (" + strings.Join(parts, ", ") + ")"
		}
		status := ""
		if s.Err != nil {
			status = "  FAILED: " + s.Err.Error()
		}
		warn := ""
		if len(s.Warnings) > 0 {
			warn = ", " + plural(len(s.Warnings), "warning", "warnings")
		}
		switch {
		case s.UpToDate:
			fmt.Fprintf(w, "%-*s unchanged (%s), %s\n", nw, s.Source.Name, plural(s.Unchanged, "file", "files"), s.Duration.Round(time.Millisecond))
		case s.Unchanged > 0 || s.Deleted > 0:
			fmt.Fprintf(w, "%-*s %s re-indexed, %s unchanged, %s removed, %s%s, %s skipped%s, %s%s\n", nw, s.Source.Name,
				plural(s.Files, "file", "files"), thousands(s.Unchanged), thousands(s.Deleted),
				plural(s.ChunkCount(), "chunk", "chunks"), byCorpus, thousands(len(s.Skips)), warn,
				s.Duration.Round(time.Millisecond), status)
		default:
			full := ""
			if s.Full {
				full = " (whole source: " + s.FullReason + ")"
			}
			fmt.Fprintf(w, "%-*s %s, %s%s, %s skipped%s, %s%s%s\n", nw, s.Source.Name, plural(s.Files, "file", "files"),
				plural(s.ChunkCount(), "chunk", "chunks"), byCorpus, thousands(len(s.Skips)), warn,
				s.Duration.Round(time.Millisecond), full, status)
		}
		for _, sk := range s.Skips {
			reasons[reasonKind(sk.Reason)]++
		}
	}
	for _, n := range sum.Pruned {
		fmt.Fprintf(w, "%-*s removed (not crawled any more: --prune-sources)\n", nw, n)
	}
	if runErr != nil {
		recorded := "the run is recorded as failed"
		if sum.RunUnrecorded {
			recorded = "the run's end could not be recorded ('coderag stats' shows it as interrupted)"
		}
		fmt.Fprintf(w, "crawl FAILED after %s (read %s, %s): the step that failed wrote nothing, and %s keeps\n"+
			"  what earlier steps committed (each source, the graph and the vectors commit on their own; unchanged\n"+
			"  chunks keep their vectors); %s, and the next crawl finishes the rest\n",
			sum.Duration.Round(time.Millisecond), plural(files, "file", "files"), plural(chunks, "chunk", "chunks"), db, recorded)
		return
	}
	// Sources that failed are not counted as indexed, and are named.
	var failed []string
	for _, s := range sum.Sources {
		if s.Err != nil {
			failed = append(failed, s.Source.Name)
		}
	}
	fmt.Fprintf(w, "indexed %s, %s, %s into %s in %s", plural(len(sum.Sources)-len(failed), "source", "sources"),
		plural(files, "file", "files"), plural(chunks, "chunk", "chunks"), db, sum.Duration.Round(time.Millisecond))
	if len(failed) > 0 {
		fmt.Fprintf(w, "; %s FAILED (%s), see above", plural(len(failed), "source", "sources"), strings.Join(failed, ", "))
	}
	fmt.Fprintln(w)
	switch g := sum.Graph; {
	case g.Kept:
		fmt.Fprintln(w, "service graph kept: no call, route, deploy file or manifest changed")
	case g.Nodes > 0:
		fmt.Fprintf(w, "service graph: %s in %s\n", g.Counts, g.Duration.Round(time.Millisecond))
	}
	if sum.MentionsChanged > 0 {
		fmt.Fprintf(w, "joined %s to the %s they mention\n", plural(sum.MentionsChanged, "conversation or doc chunk", "conversation and doc chunks"),
			plural(sum.Services, "known service", "known services"))
	}
	if e := sum.Embed; e.Untrained != "" {
		fmt.Fprintf(w, "no vectors: %v; search is BM25-only until the index grows\n", e.Untrained)
	}
	if e := sum.Embed; e.Embedder.ID != "" && (e.Embedded > 0 || e.Trained || e.Err != nil) {
		line := fmt.Sprintf("embedded %s with %s in %s", plural(e.Embedded, "chunk", "chunks"), embed.Label(e.Embedder.ID), e.Duration.Round(time.Millisecond))
		if e.Trained {
			line += fmt.Sprintf(" (model learned from %s: %s, %s)", plural(e.Sample, "chunk", "chunks"),
				plural(e.Vocab, "token", "tokens"), e.TrainDuration.Round(time.Millisecond))
		}
		if e.Empty > 0 {
			verb := "stay"
			if e.Empty == 1 {
				verb = "stays"
			}
			line += fmt.Sprintf("; %s without a known word %s BM25-only", plural(e.Empty, "chunk", "chunks"), verb)
		}
		fmt.Fprintln(w, line)
		if e.Err != nil {
			fmt.Fprintf(w, "embedding stopped early: %v\nthe chunks without vectors are embedded by the next crawl\n", e.Err)
		}
	}
	if sum.UpkeepErr != nil {
		fmt.Fprintf(w, "warning: %v\n", sum.UpkeepErr)
	}
	var times []string
	for _, p := range sum.PhaseTimes() {
		if roundDuration(p.Duration) > 0 {
			times = append(times, fmt.Sprintf("%s %s", p.Phase, roundDuration(p.Duration)))
		}
	}
	if len(times) > 0 {
		fmt.Fprintf(w, "time: %s\n", strings.Join(times, " · "))
	}
	if skipped > 0 && !verbose {
		type kv struct {
			k string
			v int
		}
		var list []kv
		for k, v := range reasons {
			list = append(list, kv{k, v})
		}
		sort.Slice(list, func(i, j int) bool { return list[i].v > list[j].v || list[i].v == list[j].v && list[i].k < list[j].k })
		var parts []string
		for _, e := range list {
			parts = append(parts, fmt.Sprintf("%d %s", e.v, e.k))
		}
		fmt.Fprintf(w, "skipped %s: %s (list them with -v or 'coderag stats --skipped')\n",
			plural(skipped, "path", "paths"), strings.Join(parts, ", "))
	}
}

// roundDuration rounds d for reading: milliseconds under 10 s, tenths of a
// second above.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// reasonKind shortens a skip reason to its kind for the summary.
func reasonKind(r string) string {
	if i := strings.IndexAny(r, "(:"); i > 0 {
		r = r[:i]
	}
	return strings.TrimSpace(r)
}

type jsonSkip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

type jsonSourceSummary struct {
	Name       string         `json:"name"`
	Path       string         `json:"path"`
	Files      int            `json:"files"`
	Bytes      int64          `json:"bytes"`
	Chunks     map[string]int `json:"chunks"`
	ChunkCount int            `json:"chunk_count"`
	Skipped    []jsonSkip     `json:"skipped"`
	Warnings   []jsonSkip     `json:"warnings"`
	Error      string         `json:"error,omitempty"`
	DurationMS int64          `json:"duration_ms"`
	Unchanged  int            `json:"unchanged_files"`
	Deleted    int            `json:"deleted_files"`
	UpToDate   bool           `json:"up_to_date"`
	Commit     string         `json:"git_commit,omitempty"`
}

// jsonGraphSummary is what the crawl did to the service graph: rebuilt
// (with its size) or kept.
type jsonGraphSummary struct {
	Kept        bool  `json:"kept"`
	Nodes       int   `json:"nodes"`
	Edges       int   `json:"edges"`
	EntryPoints int   `json:"entry_points"`
	TopicLinks  int   `json:"topic_links"`
	Unresolved  int   `json:"unresolved"`
	DurationMS  int64 `json:"duration_ms"`
}

type jsonEmbedSummary struct {
	Embedder   string `json:"embedder"`
	Dim        int    `json:"dim"`
	Embedded   int    `json:"embedded"`
	Empty      int    `json:"without_known_words"`
	Trained    bool   `json:"trained"`
	Sample     int    `json:"train_chunks,omitempty"`
	Vocab      int    `json:"vocabulary,omitempty"`
	TrainMS    int64  `json:"train_ms,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
	Untrained  string `json:"untrained,omitempty"`
}

func printCrawlJSON(io *ioStreams, db string, sum ingest.Summary, runErr error) {
	out := struct {
		Kind       string              `json:"kind"`
		RunID      int64               `json:"run_id"`
		Failed     bool                `json:"failed"`
		Error      string              `json:"error,omitempty"`
		Unrecorded bool                `json:"run_unrecorded,omitempty"`
		DB         string              `json:"db"`
		DurationMS int64               `json:"duration_ms"`
		Sources    []jsonSourceSummary `json:"sources"`
		Services   int                 `json:"services"`
		Mentions   int                 `json:"mention_chunks_changed"`
		Pruned     []string            `json:"pruned_sources"`
		Graph      jsonGraphSummary    `json:"graph"`
		PhasesMS   map[string]int64    `json:"phases_ms"`
		Embed      *jsonEmbedSummary   `json:"embed,omitempty"`
		Warning    string              `json:"warning,omitempty"` // upkeep that failed after the run was recorded
	}{Kind: "summary", RunID: sum.RunID, DB: db, DurationMS: sum.Duration.Milliseconds(), Sources: []jsonSourceSummary{},
		Services: sum.Services, Mentions: sum.MentionsChanged, PhasesMS: map[string]int64{}, Pruned: append([]string{}, sum.Pruned...),
		Graph: jsonGraphSummary{Kept: sum.Graph.Kept, Nodes: sum.Graph.Nodes, Edges: sum.Graph.Dependencies, EntryPoints: sum.Graph.EntryPoints,
			TopicLinks: sum.Graph.TopicLinks, Unresolved: sum.Graph.Unresolved, DurationMS: sum.Graph.Duration.Milliseconds()}}
	for _, p := range sum.PhaseTimes() {
		out.PhasesMS[p.Phase] = p.Duration.Milliseconds()
	}
	if sum.UpkeepErr != nil {
		out.Warning = sum.UpkeepErr.Error()
	}
	if runErr != nil {
		out.Failed, out.Error, out.Unrecorded = true, runErr.Error(), sum.RunUnrecorded
	}
	if e := sum.Embed; e.Embedder.ID != "" {
		out.Embed = &jsonEmbedSummary{Embedder: e.Embedder.ID, Dim: e.Embedder.Dim, Embedded: e.Embedded, Empty: e.Empty,
			Trained: e.Trained, Sample: e.Sample, Vocab: e.Vocab, TrainMS: e.TrainDuration.Milliseconds(), DurationMS: e.Duration.Milliseconds()}
		if e.Err != nil {
			out.Embed.Error = e.Err.Error()
		}
		out.Embed.Untrained = e.Untrained
	}
	for _, s := range sum.Sources {
		js := jsonSourceSummary{Name: s.Source.Name, Path: s.Source.Path, Files: s.Files, Bytes: s.Bytes,
			Chunks: map[string]int{}, ChunkCount: s.ChunkCount(), Skipped: []jsonSkip{}, Warnings: []jsonSkip{}, DurationMS: s.Duration.Milliseconds(),
			Unchanged: s.Unchanged, Deleted: s.Deleted, UpToDate: s.UpToDate, Commit: s.Source.Commit}
		for c, n := range s.Chunks {
			js.Chunks[string(c)] = n
		}
		for _, sk := range s.Skips {
			js.Skipped = append(js.Skipped, jsonSkip{sk.Path, sk.Reason})
		}
		for _, w := range s.Warnings {
			js.Warnings = append(js.Warnings, jsonSkip{w.Path, w.Reason})
		}
		if s.Err != nil {
			js.Error = s.Err.Error()
		}
		out.Sources = append(out.Sources, js)
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(io.out, string(b))
}

// parseSize parses sizes like 2MB, 512KB, 1GiB or a plain byte count.
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q (want e.g. 512KB, 2MB)", s)
	}
	return int64(n * float64(mult)), nil
}
