// Package sqlite is coderag's one-file store: chunks, two FTS5 indexes (the
// custom `code` tokenizer and porter/unicode61), sqlite-vec vectors, the
// service graph and the crawl history, in one SQLite database in WAL mode.
//
// It implements the store interfaces declared by core/ingest and
// core/search. The only C it needs lives in sqlite/internal/cext.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"coderag/core"
	"coderag/sqlite/internal/cext"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order. Their numbers must
// run 1..n without gaps.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and '_'", name)
		}
		b, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected number %d", m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the schema version this build of coderag writes.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		panic(err) // embedded at build time; a test covers it
	}
	return len(ms)
}

// DB is an open coderag database. It is safe for concurrent use; writes are
// serialized by SQLite (one writer), reads run concurrently (WAL).
type DB struct {
	sql  *sql.DB
	path string

	opts     Options
	readOnly bool // opened read-only: the file or its directory cannot be written

	mu       sync.Mutex
	embedder core.EmbedderInfo // zero until UseEmbedder or read from meta

	pmu     sync.Mutex
	pcache  *pages // the sign-bit KNN index in memory (quant.go)
	scanned bool   // a KNN has scanned the pages in SQLite (quant.go)

	lengths map[string]*rowLengths // full-text tables' row lengths (lengths.go)
}

// Options configure Open.
type Options struct {
	// Create makes Open create the file and its directory when missing.
	// Without it a missing file is core.ErrNoIndex.
	Create bool
	// PrefilterFrom is the index size (chunks) from which KNN first picks
	// candidates by the Hamming distance of sign bits and ranks only those
	// by cosine (default 20000; negative: never).
	PrefilterFrom int
	// PrefilterFactor is how many candidates per wanted hit the prefilter
	// keeps (default 20).
	PrefilterFactor int
	// OnUpgrade, when set, is told before each migration of a file an
	// older coderag wrote (not of a new file): the schema version it
	// upgrades to and the migration's name ("declared names"). Some
	// rebuild an index and take seconds; a command says so.
	OnUpgrade func(version int, name string)
	// targetVersion, when non-zero, stops migrations at that version (tests).
	targetVersion int
}

// SetupC prepares the C libraries of the process: the SQLite extensions
// every connection loads, and tree-sitter's allocator. Open calls it; call
// it yourself before parsing when no database is opened first.
func SetupC() error { return cext.Register() }

// Open opens the database at path, creating it (with Options.Create) and
// migrating it to the current schema. A file written by a newer coderag is
// refused with core.ErrSchemaTooNew.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if err := SetupC(); err != nil {
		return nil, err
	}
	if scheme, _, ok := strings.Cut(path, "://"); ok && !strings.ContainsAny(scheme, `/\`) {
		return nil, fmt.Errorf("open %s: %s:// databases are not supported: give a SQLite file's path or a postgres:// address", path, scheme)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if !opts.Create {
			return nil, fmt.Errorf("open %s: %w (run coderag crawl first)", path, core.ErrNoIndex)
		}
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("open %s: %w", path, err)
			}
		}
	} else if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}

	q := url.Values{}
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "on")
	q.Set("_cache_size", "-32000")
	readOnly := !opts.Create && !writable(path)
	if readOnly {
		// A reader of a file it cannot write (a shared, read-only copy)
		// opens it read-only; when the WAL's -shm cannot be created
		// either, as immutable, which SQLite reads without one.
		q.Set("mode", "ro")
		if !walReadable(path) {
			q.Set("immutable", "1")
		}
	} else {
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "NORMAL")
		q.Set("_txlock", "immediate")
	}
	dsn := "file:" + path + "?" + q.Encode()
	sdb, err := sql.Open(cext.Driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if opts.PrefilterFrom == 0 {
		opts.PrefilterFrom = 20000
	}
	if opts.PrefilterFactor <= 0 {
		opts.PrefilterFactor = 20
	}
	// A query runs its lists at once, each on a connection of its own
	// (up to eight): kept open between queries, a connection keeps its
	// page cache, its map of the file and its parsed schema. database/sql
	// keeps two by default, and a warm query then opened the rest again
	// (p50 16 -> 14.5 ms, p95 25 -> 22 at 76,000 chunks).
	sdb.SetMaxIdleConns(8)
	db := &DB{sql: sdb, path: path, opts: opts, readOnly: readOnly, lengths: newLengths()}
	if err := db.init(ctx, opts); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) init(ctx context.Context, opts Options) error {
	var fts5 int
	rows, err := db.query(ctx, "SELECT sqlite_compileoption_used('ENABLE_FTS5')")
	if err != nil {
		return db.wrap("open", err)
	}
	if rows.Next() {
		rows.Scan(&fts5)
	}
	if err := rows.Close(); err != nil {
		return db.wrap("open", err)
	}
	if fts5 == 0 {
		return fmt.Errorf("open %s: this coderag binary was built without FTS5: build with -tags sqlite_fts5 (make build does)", db.path)
	}
	var version int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return db.wrap("read schema version of", err)
	}
	ms, err := migrations()
	if err != nil {
		return err
	}
	if version > len(ms) {
		return fmt.Errorf("open %s: schema version %d, this coderag supports up to %d: %w; upgrade coderag or crawl into a new --db",
			db.path, version, len(ms), core.ErrSchemaTooNew)
	}
	target := len(ms)
	if opts.targetVersion > 0 {
		target = opts.targetVersion
	}
	if db.readOnly && version < target {
		return fmt.Errorf("open %s: schema version %d needs upgrading to %d, and the file (or its directory) is read-only: run coderag once where it can write the file", db.path, version, target)
	}
	for _, m := range ms[version:target] {
		if version > 0 && opts.OnUpgrade != nil {
			name := strings.TrimSuffix(m.name, ".sql")
			_, name, _ = strings.Cut(name, "_")
			opts.OnUpgrade(m.version, strings.ReplaceAll(name, "_", " "))
		}
		if err := db.migrate(ctx, m); err != nil {
			return err
		}
	}
	if version > 0 && version < target {
		// A migration that rebuilt a full-text table (0014, 0018) made
		// its row lengths stale: written again now, not at the next crawl,
		// so that searches until then rank from memory.
		if err := db.writeLengths(ctx); err != nil {
			return fmt.Errorf("open %s: after migrating: %w", db.path, err)
		}
	}
	return db.loadEmbedder(ctx)
}

func (db *DB) migrate(ctx context.Context, m migration) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("migrate", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migrate %s to schema %d (%s): %w", db.path, m.version, m.name, err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	if m.version == 1 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('created_at', ?)`, now); err != nil {
			return db.wrap("migrate", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('schema_version', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, strconv.Itoa(m.version)); err != nil {
		return db.wrap("migrate", err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return db.wrap("migrate", err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("migrate", err)
	}
	return nil
}

// writable reports whether this process can write the database at path
// and create its WAL files beside it (or they exist and are writable).
func writable(path string) bool {
	const w = 2 // W_OK
	if syscall.Access(path, w) != nil {
		return false
	}
	if syscall.Access(filepath.Dir(path), w) == nil {
		return true
	}
	return syscall.Access(path+"-wal", w) == nil && syscall.Access(path+"-shm", w) == nil
}

// walReadable reports whether SQLite can read the database at path
// read-only with its WAL: the -wal and -shm files exist and are readable.
func walReadable(path string) bool {
	const r = 4 // R_OK
	return syscall.Access(path+"-wal", r) == nil && syscall.Access(path+"-shm", r) == nil
}

// ReadOnly reports whether the database was opened read-only (the file or
// its directory cannot be written).
func (db *DB) ReadOnly() bool { return db.readOnly }

// Path is the file the database lives in.
func (db *DB) Path() string { return db.path }

// Close closes the database; it checkpoints the WAL when no other process
// has the file open.
func (db *DB) Close() error {
	err := db.sql.Close()
	db.freeLengths()
	return err
}

// query runs a read, trying again a few times when it fails only because a
// crawl changed the schema or held a lock at that moment (cext.Transient).
func (db *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	for attempt := 1; ; attempt++ {
		rows, err := db.sql.QueryContext(ctx, q, args...)
		if err == nil || attempt == 5 || !cext.Transient(err) {
			return rows, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt) * 25 * time.Millisecond):
		}
	}
}

// wrap names the operation and file in a driver error.
func (db *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if strings.Contains(err.Error(), "file is not a database") {
		return fmt.Errorf("%s %s: not a coderag database (%w)", op, db.path, err)
	}
	return fmt.Errorf("%s %s: %w", op, db.path, err)
}

// Meta returns the value of a meta key, or "" when unset.
func (db *DB) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := db.sql.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, db.wrap("read meta of", err)
}

func (db *DB) loadEmbedder(ctx context.Context) error {
	id, err := db.Meta(ctx, "embedder_id")
	if err != nil {
		return err
	}
	if id == "" {
		db.mu.Lock()
		db.embedder = core.EmbedderInfo{}
		db.mu.Unlock()
		return nil
	}
	ds, err := db.Meta(ctx, "embedder_dim")
	if err != nil {
		return err
	}
	dim, err := strconv.Atoi(ds)
	if err != nil {
		return fmt.Errorf("open %s: bad embedder_dim %q in meta", db.path, ds)
	}
	db.mu.Lock()
	db.embedder = core.EmbedderInfo{ID: id, Dim: dim}
	db.mu.Unlock()
	return nil
}

// Refresh re-reads what Open cached from the file (the embedder), for a
// long-lived reader after another process crawled: it returns the id of
// the newest crawl run, which changes with every crawl.
func (db *DB) Refresh(ctx context.Context) (int64, error) {
	var run sql.NullInt64
	if err := db.sql.QueryRowContext(ctx, `SELECT max(id) FROM crawl_runs`).Scan(&run); err != nil {
		return 0, db.wrap("read crawl runs of", err)
	}
	return run.Int64, db.loadEmbedder(ctx)
}

// Embedder returns the embedder recorded in the file (zero if none).
func (db *DB) Embedder() core.EmbedderInfo {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.embedder
}

// UseEmbedder records the embedder whose vectors the file holds and creates
// the vec0 table for its dimension. A file built with another embedder or
// dimension is refused with core.ErrEmbedderMismatch naming both.
func (db *DB) UseEmbedder(ctx context.Context, e core.EmbedderInfo) error {
	if e.ID == "" || e.Dim <= 0 || e.Dim > 8192 {
		return fmt.Errorf("use embedder %q with dimension %d on %s: invalid embedder", e.ID, e.Dim, db.path)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.embedder.ID != "" {
		if db.embedder != e {
			return fmt.Errorf("%s was built with embedder %s (dimension %d), this run uses %s (dimension %d): %w; use the same embedder or crawl into a new --db",
				db.path, db.embedder.ID, db.embedder.Dim, e.ID, e.Dim, core.ErrEmbedderMismatch)
		}
		return nil
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("use embedder on", err)
	}
	defer tx.Rollback()
	stmts := []string{
		vecTableSQL(e.Dim),
		vectorTriggerSQL,
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return db.wrap("create vector table in", err)
		}
	}
	for k, v := range map[string]string{"embedder_id": e.ID, "embedder_dim": strconv.Itoa(e.Dim)} {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, k, v); err != nil {
			return db.wrap("use embedder on", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("use embedder on", err)
	}
	db.embedder = e
	return nil
}

// LibVersions names the versions of the C libraries in the binary.
type LibVersions struct {
	SQLite string
	Vec    string
}

// Versions reports the SQLite and sqlite-vec versions linked into coderag.
func Versions() LibVersions {
	v := LibVersions{SQLite: cext.LibVersion()}
	if err := cext.Register(); err != nil {
		return v
	}
	db, err := sql.Open(cext.Driver, ":memory:")
	if err != nil {
		return v
	}
	defer db.Close()
	db.QueryRow("SELECT vec_version()").Scan(&v.Vec)
	return v
}
