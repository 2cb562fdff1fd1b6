// Package postgres is coderag's index on PostgreSQL, for an organisation
// that shares one index: crawlers on many machines write it, every CLI,
// TUI and server reads it. It implements the store interfaces core
// declares (core/ingest, core/search) like the SQLite file does, with no
// extension: full-text search over tsvector columns whose lexemes come
// from coderag's own code tokenizer (core/codetok), BM25 computed in SQL,
// and vectors as bytea with their sign bits as bit varying.
//
// Each source is written in its own transaction under an advisory lock
// named after it: crawlers of different sources run at once, two of the
// same source take turns.
package postgres

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"coderag/core"
)

//go:embed schema.sql
var schemaSQL string

// schemaVersion is the version schema.sql creates. Version 1 was the
// store's development schema (never released): such a database is
// refused with what to do. Version 2 lacked service_dirs, which opening
// adds (upgrades). Version 3 held the code lexemes of Chinese, Japanese
// and Korean text as whole runs (reanalyzeCJK).
const schemaVersion = 4

// upgrades are the statements that bring a database of the version before
// each (the key) to it, in one transaction.
var upgrades = map[int]string{
	3: `CREATE TABLE service_dirs (
  service_id bigint NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  repo_name  text NOT NULL,
  path       text NOT NULL,
  why        text NOT NULL DEFAULT '',
  PRIMARY KEY (service_id, repo_name, path)
);
CREATE INDEX service_dirs_repo ON service_dirs(repo_name);
INSERT INTO service_dirs(service_id, repo_name, path, why)
  SELECT id, repo_name, directory, 'directory' FROM services WHERE kind = 'service' AND directory <> '';`,
}

// upgradeFuncs are the upgrades made in Go, after upgrades' statements,
// in the same transaction.
var upgradeFuncs = map[int]func(context.Context, pgx.Tx) error{
	4: reanalyzeCJK,
}

// migrateLock is the advisory lock key that serializes schema creation
// between processes opening a new database at once.
const migrateLock = 0x636f64657261 // "codera"

// DB is an open coderag index on PostgreSQL. It is safe for concurrent
// use.
type DB struct {
	pool   *pgxpool.Pool
	search *pgxpool.Pool // full-text searches (see Open)
	name   string        // the address without its password, for messages

	// wait makes a crawler of a source another crawler is writing wait
	// for it instead of failing (SetWaitForSources).
	wait bool

	smu   sync.Mutex
	stats map[string]indexStats // BM25 statistics of each index (search.go)

	cmu   sync.Mutex
	cache *signCache // unfiltered KNN's candidates (knncache.go)

	mu        sync.Mutex
	embedder  core.EmbedderInfo
	ann       annState // pgvector's HNSW index (ann.go)
	dirtySeen string   // the graph_dirty mark GraphDirty saw (graph.go)
	linking   []int64  // the unlinked files GraphDirty saw
}

// IsDSN reports whether s names a PostgreSQL database (postgres:// or
// postgresql://) rather than a SQLite file.
func IsDSN(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to the database at dsn and creates coderag's tables when
// they are missing. A database of a newer schema is refused with
// core.ErrSchemaTooNew.
func Open(ctx context.Context, dsn string) (*DB, error) {
	name := redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	// Other crawlers and the server's views name this process.
	if _, set := cfg.ConnConfig.RuntimeParams["application_name"]; !set {
		host, _ := os.Hostname()
		cfg.ConnConfig.RuntimeParams["application_name"] = fmt.Sprintf("coderag on %s, pid %d", host, os.Getpid())
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	// Full-text searches go through connections that prefer the GIN
	// indexes: the planner does not count what detoasting a tsvector
	// costs, and a table whose tsvectors live in TOAST looks small enough
	// to scan.
	scfg := cfg.Copy()
	scfg.ConnConfig.RuntimeParams["enable_seqscan"] = "off"
	search, err := pgxpool.NewWithConfig(ctx, scfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	db := &DB{pool: pool, search: search, name: name}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.readEmbedder(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.detectANN(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// redact drops the password from a connection address.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// SetWaitForSources says whether a crawler that finds its source being
// written by another waits for it (crawl --wait) or fails naming it.
func (db *DB) SetWaitForSources(wait bool) { db.wait = wait }

// Path returns the database's address (without its password).
func (db *DB) Path() string { return db.name }

// Close closes every connection.
func (db *DB) Close() error {
	db.pool.Close()
	db.search.Close()
	return nil
}

func (db *DB) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w", what, db.name, err)
}

// migrate creates the schema in a new database, under an advisory lock so
// that processes opening it at once do not race.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return db.wrap("connect to", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLock); err != nil {
		return db.wrap("lock the schema of", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLock)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('meta') IS NOT NULL`).Scan(&exists); err != nil {
		return db.wrap("read the schema of", err)
	}
	if exists {
		var v string
		err := conn.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
		if err != nil {
			return db.wrap("read the schema version of", err)
		}
		n, _ := strconv.Atoi(v)
		switch {
		case n > schemaVersion:
			return fmt.Errorf("%s has schema version %d, this coderag knows %d: %w", db.name, n, schemaVersion, core.ErrSchemaTooNew)
		case n < 2:
			return fmt.Errorf("%s was made by a development build of coderag (schema %d): crawl into a new, empty database (CREATE DATABASE) or coderag migrate a SQLite index into one", db.name, n)
		}
		for v := n + 1; v <= schemaVersion; v++ {
			if err := db.upgrade(ctx, conn, v); err != nil {
				return err
			}
		}
		return nil
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return db.wrap("create the schema of", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, schemaSQL); err != nil {
		return db.wrap("create the schema of", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO meta(key, value) VALUES ('schema_version', $1)`, strconv.Itoa(schemaVersion)); err != nil {
		return db.wrap("create the schema of", err)
	}
	return db.wrap("create the schema of", tx.Commit(ctx))
}

// upgrade brings a database of schema version v-1 to v (upgrades[v]).
func (db *DB) upgrade(ctx context.Context, conn *pgxpool.Conn, v int) error {
	what := fmt.Sprintf("upgrade the schema of %s to version %d", db.name, v)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback(ctx)
	if upgrades[v] != "" {
		if _, err := tx.Exec(ctx, upgrades[v]); err != nil {
			return fmt.Errorf("%s (open it once as the role that owns its tables): %w", what, err)
		}
	}
	if fn := upgradeFuncs[v]; fn != nil {
		if err := fn(ctx, tx); err != nil {
			return fmt.Errorf("%s (open it once as the role that owns its tables): %w", what, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE meta SET value = $1 WHERE key = 'schema_version'`, strconv.Itoa(v)); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// meta reads one meta value ("" when absent).
func (db *DB) meta(ctx context.Context, q querier, key string) (string, error) {
	var v string
	err := q.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// querier is a pool, a connection or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (db *DB) readEmbedder(ctx context.Context) error {
	id, err := db.meta(ctx, db.pool, "embedder_id")
	if err != nil {
		return db.wrap("read the embedder of", err)
	}
	dim, err := db.meta(ctx, db.pool, "embedder_dim")
	if err != nil {
		return db.wrap("read the embedder of", err)
	}
	n, _ := strconv.Atoi(dim)
	db.mu.Lock()
	db.embedder = core.EmbedderInfo{ID: id, Dim: n}
	db.mu.Unlock()
	return nil
}

// Embedder returns the embedder whose vectors the index holds (zero when
// it holds none).
func (db *DB) Embedder() core.EmbedderInfo {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.embedder
}

// UseEmbedder records the embedder whose vectors the index holds. An index
// built with another embedder or dimension is refused with
// core.ErrEmbedderMismatch naming both.
func (db *DB) UseEmbedder(ctx context.Context, e core.EmbedderInfo) error {
	if err := db.useEmbedder(ctx, e); err != nil {
		return err
	}
	return db.ensureANN(ctx, e.Dim)
}

// useEmbedder is UseEmbedder without the vector index.
func (db *DB) useEmbedder(ctx context.Context, e core.EmbedderInfo) error {
	if e.ID == "" || e.Dim <= 0 || e.Dim > 8192 {
		return fmt.Errorf("use embedder %q with dimension %d on %s: invalid embedder", e.ID, e.Dim, db.name)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	// Another process may have recorded one since Open.
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.wrap("use embedder on", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE meta IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return db.wrap("use embedder on", err)
	}
	id, err := db.meta(ctx, tx, "embedder_id")
	if err != nil {
		return db.wrap("use embedder on", err)
	}
	if id != "" {
		dim, _ := db.meta(ctx, tx, "embedder_dim")
		n, _ := strconv.Atoi(dim)
		db.embedder = core.EmbedderInfo{ID: id, Dim: n}
		if db.embedder != e {
			return fmt.Errorf("%s was built with embedder %s (dimension %d), this run uses %s (dimension %d): %w; use the same embedder or crawl into a new database",
				db.name, id, n, e.ID, e.Dim, core.ErrEmbedderMismatch)
		}
		return nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO meta(key, value) VALUES ('embedder_id', $1), ('embedder_dim', $2)`, e.ID, strconv.Itoa(e.Dim)); err != nil {
		return db.wrap("use embedder on", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return db.wrap("use embedder on", err)
	}
	db.embedder = e
	return nil
}
