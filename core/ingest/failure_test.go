package ingest_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/sqlite"
)

// failingOwners is the store with AssignOwners failing, as it does when
// the disk fills up after a source was committed.
type failingOwners struct {
	*sqlite.DB
}

var errDiskFull = errors.New("database or disk is full")

func (f failingOwners) AssignOwners(ctx context.Context, scope ingest.LinkScope) (int, error) {
	return 0, errDiskFull
}

// TestFailedCrawlKeepsVectors (issue 23, item 1): a re-crawl that fails
// after replacing a source (the link phase cannot write) leaves every
// unchanged chunk its vector, the search by vector still finds them, and
// the run is recorded as failed; the next crawl finishes the work.
func TestFailedCrawlKeepsVectors(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	m, err := embed.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	src := []core.Source{{Kind: core.SourceRepo, Path: "/repo", Name: "repo"}}
	files := fstest.MapFS{
		"tally/post.go":   {Data: []byte("package tally\n\n// Post records a transfer between two accounts after checking the balance.\nfunc Post(from, to string, cents int64) error {\n\treturn nil\n}\n")},
		"tally/refund.go": {Data: []byte("package tally\n\n// Refund reverses a posting and notifies the customer by e-mail.\nfunc Refund(id int64) error {\n\treturn nil\n}\n")},
		"docs/runbook.md": {Data: []byte("# Tally lag\n\nWhen postings queue up, restart the tally worker.\n")},
	}
	opts := func() ingest.Options {
		return ingest.Options{
			FS:    func(string) fs.FS { return files },
			Embed: ingest.EmbedOptions{Embedder: embed.StaticEmbedder{M: m}},
		}
	}
	if _, err := ingest.New(db, opts()).Run(ctx, src); err != nil {
		t.Fatal(err)
	}
	total, _ := db.ChunkTotal(ctx)
	if n, _ := db.VectorCount(ctx); n != total || n == 0 {
		t.Fatalf("first crawl: %d vectors for %d chunks", n, total)
	}
	// One file changes; the re-crawl replaces the source, then fails.
	files["tally/refund.go"] = &fstest.MapFile{Data: []byte("package tally\n\n// Refund reverses a posting and credits the sender's account at once.\nfunc Refund(id int64) error {\n\treturn nil\n}\n")}
	sum, err := ingest.New(failingOwners{db}, opts()).Run(ctx, src)
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("Run = %v, want the store's failure", err)
	}
	if sum.RunUnrecorded {
		t.Error("the run's end was not recorded")
	}
	run, _ := db.LastRun(ctx)
	if run.Status != "failed" || !strings.Contains(run.Error, "disk is full") {
		t.Errorf("last run %q (%s), want failed", run.Status, run.Error)
	}
	total, _ = db.ChunkTotal(ctx)
	if n, _ := db.VectorCount(ctx); n != total-1 {
		t.Errorf("after the failed crawl: %d vectors for %d chunks, want all but the changed chunk's", n, total)
	}
	q, err := embed.StaticEmbedder{M: m}.Embed(ctx, embed.Query, []string{"record a transfer between two accounts"})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := db.KNN(ctx, q[0], 1, core.Filter{})
	if err != nil || len(hits) == 0 || hits[0].Chunk.FilePath != "tally/post.go" {
		t.Errorf("vector search after the failed crawl: %v, %v; want tally/post.go", hits, err)
	}
	// The next crawl, with a working store, embeds the changed chunk.
	if _, err := ingest.New(db, opts()).Run(ctx, src); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.VectorCount(ctx); n != total {
		t.Errorf("after the next crawl: %d vectors for %d chunks", n, total)
	}
}
