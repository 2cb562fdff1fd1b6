package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"coderag/sqlite/internal/cext"
)

// FTS5's bm25() reads each matching row's length in tokens from the
// table's %_docsize, a statement per row: on an index of 180k chunks an OR
// of common words matches 20k rows, and those lookups were four fifths of
// the statement. The crawl writes every row's length packed into
// fts_lengths (writeLengths); a process reads a table's once, hands them
// to the C function coderag_bm25 (internal/cext/rank.c), which computes
// bm25()'s very score from them, and checks in each statement that the
// index is still the one they were written for.

// rankedTables are the full-text tables ranked with coderag_bm25.
var rankedTables = []string{"fts_code", "fts_prose", "fts_files"}

// rowLengths is one table's row lengths as the process holds them.
type rowLengths struct {
	mu      sync.RWMutex
	stamp   []byte // the structure record they hold for
	totals  []byte // and the averages record
	handle  int    // cext.RegisterLengths's handle; 0: none held
	weights string // the table's bm25 weights, "10.0, 4.0, 2.0, 1.0"
}

// ranking is how a statement ranks one table's rows.
type ranking struct {
	// expr is the SQL of a row's rank, bm25 negated (lower is better).
	expr string
	// fresh is an SQL expression true when the lengths expr reads hold
	// for the index the statement reads ("1" for FTS5's own rank).
	fresh string
	done  func()
}

// indexRecords are SQL expressions of table's FTS5 structure record and
// averages record (row count and column totals), which every write to the
// index changes: the row lengths hold while both are what they were when
// the lengths were written.
func indexRecords(table string) (structure, averages string) {
	return "(SELECT block FROM " + table + "_data WHERE id = 10)", "(SELECT block FROM " + table + "_data WHERE id = 1)"
}

// plainRanking ranks with FTS5's configured rank, bm25() with the table's
// weights.
func plainRanking(table string) ranking {
	return ranking{expr: table + ".rank", fresh: "1", done: func() {}}
}

// newLengths makes the per-table holders of a DB.
func newLengths() map[string]*rowLengths {
	m := make(map[string]*rowLengths, len(rankedTables))
	for _, t := range rankedTables {
		m[t] = &rowLengths{}
	}
	return m
}

// freeLengths releases the lengths the process holds for db.
func (db *DB) freeLengths() {
	for _, l := range db.lengths {
		l.mu.Lock()
		if l.handle != 0 {
			cext.FreeLengths(l.handle)
			l.handle = 0
		}
		l.mu.Unlock()
	}
}

// rankingOf returns the ranking of table: coderag_bm25 with the row
// lengths when fts_lengths holds them for the index as it is, else FTS5's
// own. Call done when the statement has finished.
func (db *DB) rankingOf(ctx context.Context, table string) ranking {
	l := db.lengths[table]
	if l == nil {
		return plainRanking(table)
	}
	var stamp, totals []byte
	structure, averages := indexRecords(table)
	err := db.sql.QueryRowContext(ctx, `SELECT `+structure+`, `+averages).Scan(&stamp, &totals)
	if err != nil || stamp == nil || totals == nil {
		return plainRanking(table)
	}
	l.mu.RLock()
	if l.handle == 0 || !bytes.Equal(l.stamp, stamp) || !bytes.Equal(l.totals, totals) {
		l.mu.RUnlock()
		if !db.loadLengths(ctx, table, l, stamp, totals) {
			return plainRanking(table)
		}
		l.mu.RLock()
		if l.handle == 0 || !bytes.Equal(l.stamp, stamp) || !bytes.Equal(l.totals, totals) {
			l.mu.RUnlock() // replaced meanwhile by another index state
			return plainRanking(table)
		}
	}
	args := strconv.Itoa(l.handle)
	if l.weights != "" {
		args += ", " + l.weights
	}
	return ranking{
		expr:  "coderag_bm25(" + table + ", " + args + ")",
		fresh: "(" + structure + " = X'" + hex.EncodeToString(l.stamp) + "' AND " + averages + " = X'" + hex.EncodeToString(l.totals) + "')",
		done:  l.mu.RUnlock,
	}
}

// ranked runs fn with table's ranking (rankingOf) and, when fn reports
// that the lengths it used were not those of the index it read, again with
// FTS5's own, whose result always stands.
func ranked[T any](ctx context.Context, db *DB, table string, fn func(ranking) (T, bool, error)) (T, error) {
	run := func(r ranking) (T, bool, error) {
		defer r.done()
		return fn(r)
	}
	v, fresh, err := run(db.rankingOf(ctx, table))
	if err != nil || fresh {
		return v, err
	}
	v, _, err = run(plainRanking(table))
	return v, err
}

// rankedInto is ranked for an fn that stores its results itself.
func rankedInto(ctx context.Context, db *DB, table string, fn func(ranking) (fresh bool, err error)) error {
	_, err := ranked(ctx, db, table, func(r ranking) (struct{}, bool, error) {
		fresh, err := fn(r)
		return struct{}{}, fresh, err
	})
	return err
}

// loadLengths reads table's lengths from fts_lengths into l when they were
// written for the index state stamp and totals name; false when they were
// not (a crawl still running, or an index no crawl of this version wrote).
func (db *DB) loadLengths(ctx context.Context, table string, l *rowLengths, stamp, totals []byte) bool {
	weights, ok := db.rankWeights(ctx, table)
	if !ok {
		return false
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT stamp, totals, base, width, lens FROM fts_lengths WHERE tbl = ?`, table)
	if err != nil {
		return false
	}
	defer rows.Close()
	if !rows.Next() {
		return false
	}
	var st, tot, packed sql.RawBytes // RegisterLengths copies them
	var base int64
	var width int
	if err := rows.Scan(&st, &tot, &base, &width, &packed); err != nil || !bytes.Equal(st, stamp) || !bytes.Equal(tot, totals) {
		return false
	}
	h := cext.RegisterLengths(base, width, packed)
	if h == 0 {
		return false
	}
	l.mu.Lock()
	if l.handle != 0 {
		cext.FreeLengths(l.handle)
	}
	l.stamp, l.totals, l.handle, l.weights = stamp, totals, h, weights
	l.mu.Unlock()
	return true
}

// rankWeights returns the column weights of table's configured rank,
// bm25(w0, w1, ...): "" for bm25() with none; false for another rank
// function, which coderag_bm25 does not compute.
func (db *DB) rankWeights(ctx context.Context, table string) (string, bool) {
	var rank string
	err := db.sql.QueryRowContext(ctx, `SELECT v FROM `+table+`_config WHERE k = 'rank'`).Scan(&rank)
	if errors.Is(err, sql.ErrNoRows) {
		return "", true
	}
	if err != nil {
		return "", false
	}
	args, ok := strings.CutPrefix(strings.TrimSpace(rank), "bm25(")
	args, ok2 := strings.CutSuffix(args, ")")
	if !ok || !ok2 {
		return "", false
	}
	if strings.TrimSpace(args) == "" {
		return "", true
	}
	var ws []string
	for _, a := range strings.Split(args, ",") {
		a = strings.TrimSpace(a)
		if _, err := strconv.ParseFloat(a, 64); err != nil {
			return "", false
		}
		ws = append(ws, a)
	}
	return strings.Join(ws, ", "), true
}

// writeLengths writes into fts_lengths the row lengths of each full-text
// table whose index changed since they were last written. The crawl calls
// it at its end (FinishRun).
func (db *DB) writeLengths(ctx context.Context) error {
	if db.readOnly {
		return nil
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, table := range rankedTables {
		current, err := lengthsCurrent(ctx, tx, table)
		if err != nil {
			return fmt.Errorf("row lengths of %s: %w", table, err)
		}
		if current {
			continue
		}
		var stamp, totals []byte
		structure, averages := indexRecords(table)
		if err := tx.QueryRowContext(ctx, `SELECT `+structure+`, `+averages).Scan(&stamp, &totals); err != nil {
			return fmt.Errorf("row lengths of %s: %w", table, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM fts_lengths WHERE tbl = ?`, table); err != nil {
			return fmt.Errorf("row lengths of %s: %w", table, err)
		}
		if stamp == nil || totals == nil {
			continue
		}
		base, width, packed, err := packLengths(ctx, tx, table)
		if err != nil {
			return fmt.Errorf("row lengths of %s: %w", table, err)
		}
		if packed == nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO fts_lengths(tbl, stamp, totals, base, width, lens) VALUES (?, ?, ?, ?, ?, ?)`,
			table, stamp, totals, base, width, packed); err != nil {
			return fmt.Errorf("row lengths of %s: %w", table, err)
		}
	}
	return tx.Commit()
}

// packLengths reads table's row lengths from its %_docsize (each row's
// column sizes, varints; the length bm25 uses is their sum) and packs
// them by rowid from the first positive one. nil when the rowids are too
// sparse for a packed array (more than four slots a row) or none.
func packLengths(ctx context.Context, tx *sql.Tx, table string) (base int64, width int, packed []byte, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, sz FROM `+table+`_docsize WHERE id > 0 ORDER BY id`)
	if err != nil {
		return 0, 0, nil, err
	}
	defer rows.Close()
	var ids []int64
	var lens []uint32
	wide := false
	for rows.Next() {
		var id int64
		var sz sql.RawBytes
		if err := rows.Scan(&id, &sz); err != nil {
			return 0, 0, nil, err
		}
		var total uint64
		for len(sz) > 0 {
			v, n := sqliteVarint(sz)
			if n == 0 {
				return 0, 0, nil, fmt.Errorf("row %d: bad size record", id)
			}
			total += v
			sz = sz[n:]
		}
		if total >= 1<<31-1 {
			continue // not held: bm25 reads it from the table
		}
		ids = append(ids, id)
		lens = append(lens, uint32(total)+1)
		wide = wide || total+1 > 0xffff
	}
	if err := rows.Err(); err != nil {
		return 0, 0, nil, err
	}
	if len(ids) == 0 {
		return 0, 0, nil, nil
	}
	base = ids[0]
	span := ids[len(ids)-1] - base + 1
	if span > 4*int64(len(ids))+4096 {
		return 0, 0, nil, nil
	}
	width = 2
	if wide {
		width = 4
	}
	packed = make([]byte, span*int64(width))
	for i, id := range ids {
		off := (id - base) * int64(width)
		if width == 2 {
			binary.LittleEndian.PutUint16(packed[off:], uint16(lens[i]))
		} else {
			binary.LittleEndian.PutUint32(packed[off:], lens[i])
		}
	}
	return base, width, packed, nil
}

// sqliteVarint decodes SQLite's big-endian varint, which FTS5's records
// use; n is 0 when b ends inside it.
func sqliteVarint(b []byte) (v uint64, n int) {
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// compactShare is the share of the indexed chunks that must have been
// removed from the full-text indexes since they were last compacted for
// Compact to compact them.
const compactShare = 0.25

// Compact merges each full-text index into one segment (FTS5's
// 'optimize') when chunks removed since the last time (a re-crawl that
// rewrote files, a chunking change that rewrote them all, removed
// sources) reach a quarter of the chunks indexed: FTS5 keeps a removed
// row's entries until its segments merge, and every query reads past
// them. On the Go toolchain and modules (183k chunks) rewritten once, the
// code index held 2.3 times its live size, a one-shot query's p50 went
// from 58 to 78 ms, and compacting took 9 s. It rebuilds the vector table
// when a quarter of its slots are dead (vectorsDue). It reports whether it
// compacted, and calls starting (when set) before it starts. The crawl
// calls it at its end, before FinishRun.
func (db *DB) Compact(ctx context.Context, starting func()) (bool, error) {
	if db.readOnly {
		return false, nil
	}
	_, ftsDue, err := db.compactDue(ctx)
	if err != nil {
		return false, err
	}
	_, _, vecDue, err := db.vectorsDue(ctx)
	if err != nil || !ftsDue && !vecDue {
		return false, err
	}
	if starting != nil {
		starting()
	}
	if ftsDue {
		for _, t := range rankedTables {
			if _, err := db.sql.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`) VALUES ('optimize')`); err != nil {
				return false, db.wrap("compact "+t+" in", err)
			}
		}
		if _, err := db.sql.ExecContext(ctx, `DELETE FROM meta WHERE key = 'fts_unindexed'`); err != nil {
			return false, db.wrap("compact the full-text indexes of", err)
		}
	}
	if vecDue {
		if err := db.compactVectors(ctx); err != nil {
			return false, err
		}
	}
	return true, nil
}

// compactDue returns how many chunks were removed from the full-text
// indexes since they were last compacted, and whether that is enough for
// Compact (a quarter of the chunks indexed).
func (db *DB) compactDue(ctx context.Context) (removed int64, due bool, err error) {
	var chunks int64
	err = db.sql.QueryRowContext(ctx, `SELECT
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'fts_unindexed'), 0),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'chunk_count'), 0)`).Scan(&removed, &chunks)
	if err != nil {
		return 0, false, db.wrap("read the compaction state of", err)
	}
	return removed, removed > 0 && float64(removed) >= compactShare*float64(chunks), nil
}

// lengthsCurrent reports whether fts_lengths holds table's row lengths
// for its index as it is.
func lengthsCurrent(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, table string) (bool, error) {
	structure, averages := indexRecords(table)
	var ok bool
	err := q.QueryRowContext(ctx, `SELECT coalesce((SELECT stamp = `+structure+` AND totals = `+averages+` FROM fts_lengths WHERE tbl = ?), 0)`, table).Scan(&ok)
	return ok, err
}

// textIndex describes for stats how the full-text lists rank: with the
// row lengths of every table current, or by bm25() until the next crawl
// writes them; and how many chunks were removed since the indexes were
// last compacted.
func (db *DB) textIndex(ctx context.Context) (string, error) {
	s := "FTS5, ranked with the row lengths in memory"
	for _, t := range rankedTables {
		ok, err := lengthsCurrent(ctx, db.sql, t)
		if err != nil {
			return "", db.wrap("read row lengths of", err)
		}
		if !ok {
			s = "FTS5, ranked by bm25() reading each row's length (the row lengths are written at the end of the next crawl)"
			break
		}
	}
	removed, due, err := db.compactDue(ctx)
	if err != nil {
		return "", err
	}
	switch {
	case due:
		s += fmt.Sprintf("; %d chunks removed since the last compaction: the next crawl compacts", removed)
	case removed > 0:
		s += fmt.Sprintf("; %d chunks removed since the last compaction (compacted at a quarter of the chunks)", removed)
	}
	return s, nil
}
