package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"coderag/core"
	"coderag/core/discover"
	"coderag/core/ingest"
	"coderag/core/search"
	"coderag/sqlite"
)

func openDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "c.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// faultFS fails to read the files named in bad.
type faultFS struct {
	fs.FS
	bad map[string]error
}

func (f faultFS) Open(name string) (fs.File, error) {
	if err, ok := f.bad[name]; ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.FS.Open(name)
}

func (f faultFS) ReadFile(name string) ([]byte, error) {
	if err, ok := f.bad[name]; ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return fs.ReadFile(f.FS, name)
}

// crawlRepo crawls repoFS as the source "repo" and returns its summary;
// an error or a failed source fails the test.
func crawlRepo(ctx context.Context, t *testing.T, c *ingest.Crawler) ingest.SourceSummary {
	t.Helper()
	sum, err := c.Run(ctx, []core.Source{{Kind: core.SourceRepo, Path: "/repo", Name: "repo"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed() {
		t.Fatalf("crawl failed: %+v", sum.Sources[0].Err)
	}
	return sum.Sources[0]
}

func repoFS() fstest.MapFS {
	return fstest.MapFS{
		"main.go":           {Data: []byte("package main\n\nfunc getUserProfile() {}\n")},
		"secret.go":         {Data: []byte("package main\n\nfunc x() {}\n")},
		"bin.go":            {Data: []byte("\x7fELF\x00\x00\x01")},
		"latin1.py":         {Data: []byte("# caf\xe9\nx = 1\n")},
		"deploy/svc.yaml":   {Data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: cart\n")},
		"docs/runbook.md":   {Data: []byte("# Cart down\n\nPage bob@acme-outfitters.com\n")},
		"node_modules/x.js": {Data: []byte("x")},
	}
}

func TestCrawlRecordsEverySkipAndContinues(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	var mu sync.Mutex
	var events []core.Event
	c := ingest.New(db, ingest.Options{
		Jobs: 2,
		FS: func(string) fs.FS {
			return faultFS{FS: repoFS(), bad: map[string]error{"secret.go": fs.ErrPermission}}
		},
		Progress: func(e core.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
	})
	ss := crawlRepo(ctx, t, c)
	reasons := map[string]string{}
	for _, s := range ss.Skips {
		reasons[s.Path] = s.Reason
	}
	want := map[string]string{
		"secret.go":     "unreadable: permission denied",
		"bin.go":        "binary content",
		"node_modules/": "dependencies (directory not descended)",
	}
	for p, r := range want {
		if reasons[p] != r {
			t.Errorf("skip reason of %s = %q, want %q", p, reasons[p], r)
		}
	}
	if ss.Files != 4 {
		t.Errorf("indexed %d files, want 4 (main.go, latin1.py, svc.yaml, runbook.md)", ss.Files)
	}
	// latin1.py is not UTF-8: read as Windows-1252, with a warning.
	warned := false
	for _, e := range events {
		warned = warned || e.Kind == core.EventWarning && e.Path == "latin1.py" && strings.Contains(e.Reason, "not valid UTF-8 (first bad byte on line 1): read as Windows-1252")
	}
	if !warned {
		t.Errorf("no warning that latin1.py was read as Windows-1252: %+v", events)
	}
	if res, err := search.New(db, search.Options{}).Search(ctx, search.Query{Text: "café"}); err != nil || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Chunk.Text, "# café") {
		t.Errorf("search café: %v, %v", res.Hits, err)
	}
	if ss.Chunks[core.CodeDeploy] != 1 || ss.Chunks[core.DocRunbook] != 1 || ss.Chunks[core.CodeLogic] != 2 { // main.go: its function, its bare package line joined; latin1.py
		t.Errorf("chunks by corpus = %v", ss.Chunks)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 4 || st.Sources[0].Skipped != 3 || st.LastRun.Status != "ok" || st.LastRun.Skipped != 3 {
		t.Errorf("stats = files %d, skipped %d, run %+v", st.Files, st.Sources[0].Skipped, st.LastRun)
	}
	// The runbook's e-mail address was scrubbed before it reached the index.
	res, err := search.New(db, search.Options{}).Search(ctx, search.Query{Text: "cart down"})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %v, %v", res.Hits, err)
	}
	for _, h := range res.Hits {
		if strings.Contains(h.Chunk.Text, "bob@acme-outfitters.com") {
			t.Errorf("e-mail address reached the index: %q", h.Chunk.Text)
		}
	}
	// Progress: a start, per-file progress ending at total, skips, a done.
	var kinds = map[core.EventKind]int{}
	last := core.Event{}
	for _, e := range events {
		kinds[e.Kind]++
		if e.Kind == core.EventProgress && e.Phase == core.PhaseChunk {
			last = e
		}
	}
	if kinds[core.EventSourceStart] != 1 || kinds[core.EventSourceDone] != 1 || kinds[core.EventSkip] != 3 || kinds[core.EventWarning] != 1 {
		t.Errorf("event kinds = %v", kinds)
	}
	if last.FilesDone != last.FilesTotal || last.FilesTotal != 6 {
		t.Errorf("last progress = %d/%d, want 6/6", last.FilesDone, last.FilesTotal)
	}
}

// panicFS panics reading the file named bad, as a decoder, chunker or
// the scrub gate could on input nobody foresaw.
type panicFS struct {
	fs.FS
	bad string
}

func (f panicFS) ReadFile(name string) ([]byte, error) {
	if name == f.bad {
		panic("index out of range [8] with length 8")
	}
	return fs.ReadFile(f.FS, name)
}

// TestCrawlSkipsAFileThatPanics: a panic while reading one file is that
// file's skip, named with the panic; the crawl goes on and indexes the rest.
func TestCrawlSkipsAFileThatPanics(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	c := ingest.New(db, ingest.Options{
		Jobs: 2,
		FS:   func(string) fs.FS { return panicFS{FS: repoFS(), bad: "secret.go"} },
	})
	ss := crawlRepo(ctx, t, c)
	var reason string
	for _, s := range ss.Skips {
		if s.Path == "secret.go" {
			reason = s.Reason
		}
	}
	if want := "internal error, please report it: index out of range [8] with length 8"; reason != want {
		t.Errorf("skip reason of secret.go = %q, want %q", reason, want)
	}
	if ss.Files != 4 {
		t.Errorf("indexed %d files, want 4 (main.go, latin1.py, svc.yaml, runbook.md)", ss.Files)
	}
}

func TestCrawlUnreadableSourceFailsOnlyThatSource(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	c := ingest.New(db, ingest.Options{FS: func(dir string) fs.FS {
		if dir == "/gone" {
			return faultFS{FS: fstest.MapFS{}, bad: map[string]error{".": fs.ErrNotExist}}
		}
		return repoFS()
	}})
	sum, err := c.Run(ctx, []core.Source{
		{Kind: core.SourceRepo, Path: "/gone", Name: "gone"},
		{Kind: core.SourceRepo, Path: "/repo", Name: "repo"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Failed() || sum.Sources[0].Err == nil || sum.Sources[1].Err != nil || sum.Sources[1].Files == 0 {
		t.Fatalf("summary = %+v", sum)
	}
	run, _ := db.LastRun(ctx)
	if run.Status != "partial" {
		t.Errorf("run status = %q, want partial", run.Status)
	}
}

// cancelFS cancels the crawl when a given file is read.
type cancelFS struct {
	fs.FS
	at     string
	cancel context.CancelFunc
}

func (f cancelFS) ReadFile(name string) ([]byte, error) {
	if name == f.at {
		f.cancel()
	}
	return fs.ReadFile(f.FS, name)
}

func TestCancelledCrawlKeepsPreviousIndex(t *testing.T) {
	db := openDB(t)
	src := []core.Source{{Kind: core.SourceRepo, Path: "/repo", Name: "repo"}}
	if _, err := ingest.New(db, ingest.Options{FS: func(string) fs.FS { return repoFS() }}).Run(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	before, _ := db.Stats(context.Background())

	changed := repoFS()
	changed["main.go"] = &fstest.MapFile{Data: []byte("package main\n\nfunc somethingElse() {}\n")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := ingest.New(db, ingest.Options{Jobs: 1, FS: func(string) fs.FS {
		return cancelFS{FS: changed, at: "main.go", cancel: cancel}
	}}).Run(ctx, src)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	after, _ := db.Stats(context.Background())
	if after.Chunks != before.Chunks || after.Files != before.Files {
		t.Errorf("after cancel: %d chunks %d files, want %d %d", after.Chunks, after.Files, before.Chunks, before.Files)
	}
	hits, err := db.BM25(context.Background(), "code", `"getUserProfile"`, 5, core.Filter{})
	if err != nil || len(hits) != 1 {
		t.Errorf("previous content lost: %v, %v", hits, err)
	}
	run, _ := db.LastRun(context.Background())
	if run.Status != "interrupted" {
		t.Errorf("run status = %q, want interrupted", run.Status)
	}
}

// crawlEvents crawls fsys as the repository "repo" and returns the
// summary and every progress event.
func crawlEvents(t *testing.T, db *sqlite.DB, fsys fs.FS) (ingest.Summary, []core.Event) {
	t.Helper()
	var mu sync.Mutex
	var events []core.Event
	c := ingest.New(db, ingest.Options{
		FS:       func(string) fs.FS { return fsys },
		Progress: func(e core.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
	})
	sum, err := c.Run(context.Background(), []core.Source{{Kind: core.SourceRepo, Path: "/repo", Name: "repo"}})
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	return sum, events
}

// TestCrawlDecodesUTF16: a UTF-16 file with a byte order mark (as SQL
// Server tools and Windows editors save) is indexed as UTF-8 with a
// warning; one that does not decode is skipped, saying why.
func TestCrawlDecodesUTF16(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	utf16 := func(s string) []byte {
		b := []byte{0xFF, 0xFE}
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return b
	}
	fsys := fstest.MapFS{
		"db/revenue.sql": {Data: utf16("-- Nightly revenue per customer\r\nSELECT customer_id, SUM(total_cents) FROM invoices GROUP BY customer_id;\r\n")},
		"db/broken.sql":  {Data: append(utf16("SELECT 1"), 'x')},
	}
	sum, events := crawlEvents(t, db, fsys)
	ss := sum.Sources[0]
	if ss.Files != 1 || len(ss.Skips) != 1 || ss.Skips[0].Path != "db/broken.sql" || ss.Skips[0].Reason != "UTF-16 text (only UTF-8 is indexed)" {
		t.Errorf("files %d, skips %+v; want revenue.sql indexed and broken.sql skipped as UTF-16", ss.Files, ss.Skips)
	}
	warned := false
	for _, e := range events {
		warned = warned || e.Kind == core.EventWarning && e.Path == "db/revenue.sql" && e.Reason == "UTF-16 text (byte order mark): decoded to UTF-8"
	}
	if !warned {
		t.Errorf("no warning that revenue.sql was decoded: %+v", events)
	}
	res, err := search.New(db, search.Options{}).Search(ctx, search.Query{Text: "nightly revenue"})
	if err != nil || len(res.Hits) == 0 || !strings.HasPrefix(res.Hits[0].Chunk.Text, "-- Nightly revenue per customer\r\nSELECT") {
		t.Errorf("search nightly revenue: %+v, %v", res.Hits, err)
	}
}

// TestCrawlDropsUTF8Mark: files saved with UTF-8's byte order mark (as
// Visual Studio and PowerShell save them) are read without it, and
// without a warning: a Kubernetes manifest still declares its workload,
// a settings file its keys.
func TestCrawlDropsUTF8Mark(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	bom := "\xef\xbb\xbf"
	fsys := fstest.MapFS{
		"payroll/deploy.yaml":          {Data: []byte(bom + "apiVersion: apps/v1\r\nkind: Deployment\r\nmetadata:\r\n  name: payroll\r\nspec:\r\n  template:\r\n    spec:\r\n      containers:\r\n        - name: payroll\r\n          image: shop/payroll:1.0\r\n")},
		"Payroll.Api/appsettings.json": {Data: []byte(bom + `{"Services": {"Tax": "http://tax:8080"}}`)},
	}
	_, events := crawlEvents(t, db, fsys)
	for _, e := range events {
		if e.Kind == core.EventWarning {
			t.Errorf("warning: %+v", e)
		}
	}
	res, err := db.Resources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, r := range res {
		found[r.Kind+" "+r.Name] = true
		if r.Kind == core.ResourceSettings && r.Data["Services:Tax"] != "http://tax:8080" {
			t.Errorf("settings: %v", r.Data)
		}
	}
	if !found["Deployment payroll"] || !found[core.ResourceSettings+" Payroll.Api/appsettings.json"] {
		t.Errorf("resources %v; want the payroll Deployment and the settings file", found)
	}
}

// TestIncrementalAfterChunkingChange: files chunked by an older coderag
// (another chunking version in their stored hashes) are indexed again by
// an incremental crawl, whole source, saying why; the next incremental
// crawl finds nothing to do.
func TestIncrementalAfterChunkingChange(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	src := []core.Source{{Kind: core.SourceRepo, Path: "/repo", Name: "repo"}}
	fsys := fstest.MapFS{
		"main.go":         {Data: []byte("package main\n\nfunc getUserProfile() {}\n"), ModTime: time.Unix(1700000000, 0)},
		"docs/runbook.md": {Data: []byte("# Cart down\n\nRestart the cart pods.\n"), ModTime: time.Unix(1700000000, 0)},
	}
	crawl := func() ingest.SourceSummary {
		t.Helper()
		sum, err := ingest.New(db, ingest.Options{Incremental: true, FS: func(string) fs.FS { return fsys }}).Run(ctx, src)
		if err != nil || sum.Failed() {
			t.Fatalf("crawl: %v %+v", err, sum)
		}
		return sum.Sources[0]
	}
	restore := ingest.SetChunkingStamp("/chunking-0")
	crawl()
	restore()
	if ss := crawl(); !ss.Full || ss.FullReason != "chunking changed since the last crawl" || ss.Files != 2 {
		t.Errorf("after a chunking change: full %v (%q), %d files re-indexed; want the whole source, 2 files", ss.Full, ss.FullReason, ss.Files)
	}
	if ss := crawl(); !ss.UpToDate || ss.Full || ss.Files != 0 {
		t.Errorf("second incremental crawl: up to date %v, full %v, %d files; want nothing to do", ss.UpToDate, ss.Full, ss.Files)
	}
}

// TestCrawlNotebooks: a Jupyter notebook is indexed by its cells (code
// fenced, outputs left out); one that does not parse, like code the
// grammar cannot read, is indexed as text with a warning.
func TestCrawlNotebooks(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	nb := `{"cells": [
 {"cell_type": "markdown", "metadata": {}, "source": ["# Churn model\n", "Which customers stop ordering."]},
 {"cell_type": "code", "metadata": {}, "outputs": [{"output_type": "stream", "text": ["AUC 0.91 on holdout-7731\n"]}],
  "source": ["model = train_churn(orders_df, horizon_days=30)\n"]}
 ], "metadata": {"kernelspec": {"language": "python"}}, "nbformat": 4, "nbformat_minor": 5}`
	fsys := fstest.MapFS{
		"analysis/churn.ipynb":  {Data: []byte(nb)},
		"analysis/broken.ipynb": {Data: []byte(`{"worksheets": []}`)},
		"tools/half.go":         {Data: []byte("package tools\n\nfunc {{{{ ))) ]]]\nvar = = =\n}}}} func func func\n")},
	}
	var mu sync.Mutex
	var events []core.Event
	c := ingest.New(db, ingest.Options{
		FS:       func(string) fs.FS { return fsys },
		Progress: func(e core.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
	})
	if _, err := c.Run(ctx, []core.Source{{Kind: core.SourceRepo, Path: "/repo", Name: "repo"}}); err != nil {
		t.Fatal(err)
	}
	res, err := search.New(db, search.Options{}).Search(ctx, search.Query{Text: "train churn horizon"})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %v %v", res.Hits, err)
	}
	h := res.Hits[0].Chunk
	if h.FilePath != "analysis/churn.ipynb" || h.Language != "jupyter" || h.Meta["format"] != "ipynb" ||
		!strings.Contains(h.Text, "```python\nmodel = train_churn(") || strings.Contains(h.Text, "holdout-7731") {
		t.Errorf("notebook chunk: %s %s %v\n%s", h.FilePath, h.Language, h.Meta, h.Text)
	}
	warned := false
	for _, e := range events {
		warned = warned || e.Kind == core.EventWarning && e.Path == "analysis/broken.ipynb" && strings.Contains(e.Reason, `indexed as text: not a Jupyter notebook: no "cells"`)
	}
	if !warned {
		t.Errorf("no warning for the broken notebook: %+v", events)
	}
	warned = false
	for _, e := range events {
		warned = warned || e.Kind == core.EventWarning && e.Path == "tools/half.go" && strings.Contains(e.Reason, "indexed as text: syntax errors cover")
	}
	if !warned {
		t.Errorf("no warning for the Go file full of syntax errors: %+v", events)
	}
}

// TestRunbookDirDocuments: a runbook folder's Word and HTML runbooks are
// extracted and indexed as runbooks, not skipped as binary or read as
// HTML code, while a decision record there stays one; a Word runbook in a
// repository's docs is extracted too.
func TestRunbookDirDocuments(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	docx, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample", "gdocs", "Incident 4711 postmortem.docx"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"postmortems/incident-4711.docx":     {Data: docx},
		"wiki/queue-backlog.html":            {Data: []byte("<html><body><h1>Queue backlog</h1><p>When the invoice queue backs up, scale the invoice workers to six replicas.</p></body></html>")},
		"decisions/0007-queue-per-tenant.md": {Data: []byte("# 7. One queue per tenant\n\n## Status\n\nAccepted\n\n## Decision\n\nEach tenant gets its own invoice queue.\n")},
	}
	sum, err := ingest.New(db, ingest.Options{FS: func(string) fs.FS { return fsys }}).Run(ctx,
		[]core.Source{{Kind: core.SourceRunbookDir, Path: "/runbooks", Name: "runbooks"}})
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	ss := sum.Sources[0]
	// The decision record beside them stays one.
	if ss.Files != 3 || len(ss.Skips) != 0 || ss.Chunks[core.DocADR] == 0 || ss.Chunks[core.DocRunbook]+ss.Chunks[core.DocADR] != ss.ChunkCount() {
		t.Errorf("files %d, skips %v, chunks %v; want both documents indexed as runbooks and the decision as an ADR", ss.Files, ss.Skips, ss.Chunks)
	}
	for q, want := range map[string]string{"timeline": "postmortems/incident-4711.docx", "scale invoice workers": "wiki/queue-backlog.html"} {
		res, err := search.New(db, search.Options{}).Search(ctx, search.Query{Text: q})
		if err != nil || len(res.Hits) == 0 || res.Hits[0].Chunk.FilePath != want || strings.Contains(res.Hits[0].Chunk.Text, "<p>") {
			t.Errorf("search %q: %v, %v; want %s's extracted text first", q, res.Hits, err, want)
		}
	}
	// In a repository, a Word document where docs live is extracted too;
	// one among the code is data and stays a binary skip.
	repo := fstest.MapFS{
		"docs/runbooks/incident-4711.docx": {Data: docx},
		"src/templates/invoice.docx":       {Data: docx},
	}
	sum, err = ingest.New(db, ingest.Options{FS: func(string) fs.FS { return repo }}).Run(ctx,
		[]core.Source{{Kind: core.SourceRepo, Path: "/repo", Name: "repo"}})
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	if ss := sum.Sources[0]; ss.Files != 1 || len(ss.Skips) != 1 || ss.Skips[0].Path != "src/templates/invoice.docx" || ss.Chunks[core.DocRunbook] == 0 {
		t.Errorf("repository: files %d, skips %v, chunks %v; want the runbook extracted and the template skipped", ss.Files, ss.Skips, ss.Chunks)
	}
}

// TestRunbookRepository: a repository named for its runbooks makes its
// documents runbooks wherever they are filed (a decision record stays
// one, a classification rule's type stands); the same files in another
// repository are docs.
func TestRunbookRepository(t *testing.T) {
	ctx := context.Background()
	fsys := fstest.MapFS{
		"README.md":                            {Data: []byte("# Payments runbooks\n\nOne page per alert.\n")},
		"docs/redis/failover.md":               {Data: []byte("# Redis failover\n\nWhen sentinel cannot elect a primary, promote the replica by hand.\n")},
		"docs/style.md":                        {Data: []byte("# How we write these pages\n\nShort steps first.\n")},
		"decisions/0002-one-page-per-alert.md": {Data: []byte("# 2. One page per alert\n\n## Status\n\nAccepted\n\n## Decision\n\nOne page.\n")},
	}
	for _, tt := range []struct {
		name     string
		src      core.Source
		runbooks int // files
	}{
		{"named for runbooks", core.Source{Kind: core.SourceRepo, Path: "/src/payments", Name: "payments-runbooks"}, 2},
		{"in a runbooks folder", core.Source{Kind: core.SourceRepo, Path: "/src/oncall-playbooks", Name: "ops"}, 2},
		{"another repository", core.Source{Kind: core.SourceRepo, Path: "/src/payments", Name: "payments"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			rules := []discover.Rule{{Pattern: "docs/style.md", Corpus: core.DocReadme}}
			sum, err := ingest.New(db, ingest.Options{FS: func(string) fs.FS { return fsys }, Discover: discover.Options{Rules: rules}}).Run(ctx, []core.Source{tt.src})
			if err != nil || sum.Failed() {
				t.Fatalf("crawl: %v %+v", err, sum)
			}
			chunks, err := db.SourceChunks(ctx, tt.src.Name)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]core.CorpusType{} // by file
			for _, c := range chunks {
				got[c.FilePath] = c.Corpus
			}
			runbooks := 0
			for _, c := range got {
				if c == core.DocRunbook {
					runbooks++
				}
			}
			if runbooks != tt.runbooks || got["decisions/0002-one-page-per-alert.md"] != core.DocADR || got["docs/style.md"] != core.DocReadme {
				t.Errorf("corpus types %v; want %d runbooks, the decision an ADR and the ruled page docs", got, tt.runbooks)
			}
		})
	}
}

// upkeepFails records the run's end, then fails its upkeep, as the SQLite
// store does when it cannot write the ranking's row lengths.
type upkeepFails struct{ *sqlite.DB }

func (u upkeepFails) FinishRun(ctx context.Context, id int64, r core.CrawlRun) error {
	if err := u.DB.FinishRun(ctx, id, r); err != nil {
		return err
	}
	return fmt.Errorf("write the ranking's row lengths: disk I/O error (%w)", ingest.ErrRunRecorded)
}

// TestUpkeepErrorIsAWarning: upkeep that fails after the run's end is
// recorded does not fail the crawl; the summary carries it.
func TestUpkeepErrorIsAWarning(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	sum, err := ingest.New(upkeepFails{db}, ingest.Options{}).Run(context.Background(), []core.Source{{Kind: core.SourceRepo, Path: dir, Name: "app"}})
	if err != nil || sum.RunUnrecorded || sum.UpkeepErr == nil || !strings.Contains(sum.UpkeepErr.Error(), "row lengths") {
		t.Fatalf("Run = %v, unrecorded %v, upkeep %v; want no error and the upkeep failure in the summary", err, sum.RunUnrecorded, sum.UpkeepErr)
	}
	if last, err := db.LastRun(context.Background()); err != nil || last.Status != "ok" {
		t.Errorf("last run %+v, %v; want ok", last, err)
	}
}
