package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"coderag/core"
	"coderag/core/ask"
	"coderag/core/ingest"
	"coderag/core/pack"
	"coderag/core/search"
	"coderag/sqlite"
	"coderag/sqlite/postgres"
)

// index is what the commands use of an index, whichever store holds it:
// the SQLite file (sqlite.DB, the default) or a shared PostgreSQL
// database (postgres.DB, --db postgres://...). openIndex is the one place
// that tells them apart.
type index interface {
	search.Index
	search.Lister
	search.FilterValuer
	search.WorkloadFinder
	ingest.Store
	ingest.VectorStore
	pack.Store
	Stats(ctx context.Context) (core.Stats, error)
	// Mentions returns the conversation and doc chunks that mention a
	// service, newest first (older release notes last), and how many there are in all.
	Mentions(ctx context.Context, service string, limit int) ([]core.Chunk, int, error)
	ask.History
	search.GraphReader
	LastRun(ctx context.Context) (core.CrawlRun, error)
	Skips(ctx context.Context) ([]core.Event, error)
	Refresh(ctx context.Context) (int64, error)
	EmbedderURL(ctx context.Context) (string, error)
	Meta(ctx context.Context, key string) (string, error)
	Path() string
	Close() error
}

var (
	_ index = (*sqlite.DB)(nil)
	_ index = (*postgres.DB)(nil)
)

// openIndex opens the index at dsn: a PostgreSQL address
// (postgres://...) or a SQLite file path, created when create is set
// (a PostgreSQL database must exist; its tables are created).
func openIndex(ctx context.Context, dsn string, create bool) (index, error) {
	if postgres.IsDSN(dsn) {
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(ctx, dsn, sqlite.Options{Create: create, OnUpgrade: func(version int, name string) {
		fmt.Fprintf(os.Stderr, "upgrading %s to schema %d (%s); this runs once\n", dsn, version, name)
	}})
}

// isFilePath reports whether an index address is a SQLite file path (a
// workspace file's relative path is resolved) rather than a database
// server's address.
func isFilePath(dsn string) bool { return !postgres.IsDSN(dsn) }

// lockCrawl takes the crawl lock of a SQLite file (one crawl at a time,
// wait or fail naming the holder), creating the file's directory first.
// A PostgreSQL index needs none: each source is written under its own
// advisory lock in the database, so crawlers of different sources run at
// once.
func lockCrawl(ctx context.Context, dsn string, wait bool) (func(), error) {
	if postgres.IsDSN(dsn) {
		return func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(dsn), 0o755); err != nil {
		return nil, err
	}
	return sqlite.LockCrawl(ctx, dsn, wait)
}

// crawlAlive reports whether a crawl of this machine holds the SQLite
// file's lock (false for PostgreSQL, where crawls run side by side).
func crawlAlive(dsn string) bool {
	return !postgres.IsDSN(dsn) && sqlite.CrawlAlive(dsn)
}
