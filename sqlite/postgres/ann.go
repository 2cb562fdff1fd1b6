package postgres

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"coderag/sqlite/internal/chunkrow"
)

// pgvector: when the server has the extension (0.5.0 or later), the
// vectors table gains a column emb of pgvector's vector type and an HNSW
// index over it (cosine), and an unfiltered KNN takes its candidates from
// that index instead of the sign bits held in memory. Nothing else
// changes: vec stays the record, candidates are still rescored exactly
// from it, filtered searches keep the Hamming pass in SQL, and a server
// without the extension keeps working as before.
//
// The column is added when the embedder's dimension is first known (it
// must be fixed for an index) and rebuilt when it changes. Writers fill
// emb as they insert; a row that a writer left without one (a process
// that started before the column existed) is still a KNN candidate
// through a partial index of the rows whose emb is NULL, and the next
// UpdateVectorIndex fills it.

// annMinVersion is the first pgvector release with HNSW.
var annMinVersion = [3]int{0, 5, 0}

// annMaxDim is the most dimensions pgvector's HNSW indexes for vector.
const annMaxDim = 2000

// annEnv turns the extension off for a process (CODERAG_PGVECTOR=off),
// for comparing the two paths or when the HNSW index's write cost is
// unwanted.
const annEnv = "CODERAG_PGVECTOR"

// annState is what the process knows of pgvector on this database.
type annState struct {
	version string // the installed extension's version; "" when unusable
	why     string // why it is unusable, for coderag stats
	dim     int    // the emb column's dimension; 0 when there is none
}

// detectANN finds pgvector at Open: installed in the database, or
// available on the server and created here (which needs the right to
// create extensions; without it the sign bits serve). It then makes sure
// the column matches the recorded embedder.
func (db *DB) detectANN(ctx context.Context) error {
	st, err := db.findANN(ctx)
	if err != nil {
		return err
	}
	db.mu.Lock()
	db.ann = st
	db.mu.Unlock()
	if e := db.Embedder(); e.Dim > 0 {
		return db.ensureANN(ctx, e.Dim)
	}
	return nil
}

// findANN looks for a usable pgvector and the emb column's dimension.
func (db *DB) findANN(ctx context.Context) (annState, error) {
	if v := os.Getenv(annEnv); v == "off" || v == "0" || v == "false" {
		return annState{why: "turned off by " + annEnv + "=" + v}, nil
	}
	var installed, available string
	if err := db.pool.QueryRow(ctx, `SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), ''),
		coalesce((SELECT default_version FROM pg_available_extensions WHERE name = 'vector'), '')`).Scan(&installed, &available); err != nil {
		return annState{}, db.wrap("look for pgvector on", err)
	}
	if installed == "" && available == "" {
		return annState{why: "pgvector is not installed on the server"}, nil
	}
	if installed == "" {
		if err := db.createExtension(ctx); err != nil {
			if ctx.Err() != nil {
				return annState{}, db.wrap("create extension vector in", err)
			}
			return annState{why: fmt.Sprintf("pgvector %s is on the server but not in this database, and CREATE EXTENSION vector failed (%v); a superuser can run it once", available, err)}, nil
		}
		if err := db.pool.QueryRow(ctx, `SELECT extversion FROM pg_extension WHERE extname = 'vector'`).Scan(&installed); err != nil {
			return annState{}, db.wrap("look for pgvector on", err)
		}
	}
	if !versionAtLeast(installed, annMinVersion) {
		return annState{why: fmt.Sprintf("pgvector %s has no HNSW index (0.5.0 or later has)", installed)}, nil
	}
	dim, err := embDim(ctx, db.pool)
	if err != nil {
		return annState{}, db.wrap("read the vector index of", err)
	}
	return annState{version: installed, dim: dim}, nil
}

// createExtension runs CREATE EXTENSION under the migration lock: two
// processes creating it at once would otherwise collide.
func (db *DB) createExtension(ctx context.Context) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLock)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// embDim is the dimension of the vectors table's emb column (pgvector
// keeps it as the type modifier), 0 when there is none.
func embDim(ctx context.Context, q querier) (int, error) {
	var dim int
	err := q.QueryRow(ctx, `SELECT coalesce((SELECT atttypmod FROM pg_attribute
		WHERE attrelid = 'vectors'::regclass AND attname = 'emb' AND NOT attisdropped), 0)`).Scan(&dim)
	return max(dim, 0), err
}

// versionAtLeast reports whether the dotted version v is at least min.
func versionAtLeast(v string, min [3]int) bool {
	parts := strings.SplitN(v, ".", 3)
	for i := 0; i < 3; i++ {
		n := 0
		if i < len(parts) {
			n, _ = strconv.Atoi(strings.TrimFunc(parts[i], func(r rune) bool { return r < '0' || r > '9' }))
		}
		if n != min[i] {
			return n > min[i]
		}
	}
	return true
}

// annInfo returns what the process knows of pgvector.
func (db *DB) annInfo() annState {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.ann
}

// annDim is the dimension of the vectors the HNSW index holds, 0 when
// there is none.
func (db *DB) annDim() int {
	a := db.annInfo()
	if a.version == "" {
		return 0
	}
	return a.dim
}

// ensureANN gives the vectors table an emb column and HNSW index of
// dimension dim, replacing one of another dimension, and fills it from
// the stored vectors. It does nothing when pgvector is unusable; when
// the index cannot be made (a role without the right to alter the
// table), the sign bits serve and coderag stats says why.
func (db *DB) ensureANN(ctx context.Context, dim int) error {
	a := db.annInfo()
	if a.version == "" || a.dim == dim {
		return nil
	}
	why := ""
	if dim > annMaxDim {
		why = fmt.Sprintf("pgvector's HNSW index holds at most %d dimensions, the embedder has %d", annMaxDim, dim)
	} else if err := db.createANN(ctx, dim); err != nil {
		if ctx.Err() != nil {
			return err
		}
		why = fmt.Sprintf("the HNSW index of dimension %d could not be made: %v", dim, err)
	}
	if why != "" {
		db.mu.Lock()
		db.ann.version, db.ann.why = "", why
		db.mu.Unlock()
	}
	return nil
}

// createANN makes the emb column and its index under the migration lock
// (serialized with schema changes and other processes doing the same).
func (db *DB) createANN(ctx context.Context, dim int) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.wrap("create the vector index of", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLock)); err != nil {
		return db.wrap("lock the vector index of", err)
	}
	n, err := embDim(ctx, tx)
	if err != nil {
		return db.wrap("create the vector index of", err)
	}
	if n != dim {
		for _, q := range []string{
			`ALTER TABLE vectors DROP COLUMN IF EXISTS emb`,
			`ALTER TABLE vectors ADD COLUMN emb vector(` + strconv.Itoa(dim) + `)`,
			`CREATE INDEX vectors_emb_hnsw ON vectors USING hnsw (emb vector_cosine_ops)`,
			`CREATE INDEX vectors_emb_missing ON vectors (chunk_pk) WHERE emb IS NULL`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return db.wrap("create the vector index of", err)
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return db.wrap("create the vector index of", err)
	}
	db.mu.Lock()
	db.ann.dim = dim
	db.mu.Unlock()
	return db.fillANN(ctx)
}

// annFillBatch is how many vectors fillANN converts per transaction.
const annFillBatch = 1000

// fillANN sets emb on every row that lacks it, from the stored float32
// record, a batch per transaction.
func (db *DB) fillANN(ctx context.Context) error {
	dim := db.annDim()
	if dim == 0 {
		return nil
	}
	for {
		rows, err := db.pool.Query(ctx, `SELECT chunk_pk, vec FROM vectors WHERE emb IS NULL ORDER BY chunk_pk LIMIT `+strconv.Itoa(annFillBatch))
		if err != nil {
			return db.wrap("fill the vector index of", err)
		}
		var b pgx.Batch
		for rows.Next() {
			var pk int64
			var raw []byte
			if err := rows.Scan(&pk, &raw); err != nil {
				rows.Close()
				return db.wrap("fill the vector index of", err)
			}
			if len(raw) != 4*dim {
				rows.Close()
				return fmt.Errorf("fill the vector index of %s: chunk %d has a vector of %d bytes, the index %d dimensions", db.name, pk, len(raw), dim)
			}
			b.Queue(`UPDATE vectors SET emb = $2::vector WHERE chunk_pk = $1 AND emb IS NULL`, pk, vectorText(chunkrow.Floats(raw)))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return db.wrap("fill the vector index of", err)
		}
		if b.Len() == 0 {
			return nil
		}
		if err := db.pool.SendBatch(ctx, &b).Close(); err != nil {
			return db.wrap("fill the vector index of", err)
		}
	}
}

// vectorText is v in pgvector's text form, [1,-0.5,...].
func vectorText(v []float32) string {
	b := make([]byte, 0, 12*len(v)+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return string(append(b, ']'))
}

// annCandidates returns the primary keys and stored vectors of the n
// vectors nearest v by the HNSW index, plus any row not yet in it.
func (db *DB) annCandidates(ctx context.Context, v []float32, n int) (pgx.Rows, func(), error) {
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, db.wrap("search the vector index of", err)
	}
	done := func() { tx.Rollback(context.WithoutCancel(ctx)) }
	// The search visits ef_search candidates and returns at most as many.
	if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.ef_search', $1, true)`, strconv.Itoa(min(max(n, 100), 1000))); err != nil {
		done()
		return nil, nil, db.wrap("search the vector index of", err)
	}
	rows, err := tx.Query(ctx, `(SELECT chunk_pk, vec FROM vectors ORDER BY emb <=> $1::vector LIMIT `+strconv.Itoa(n)+`)
		UNION ALL (SELECT chunk_pk, vec FROM vectors WHERE emb IS NULL)`, vectorText(v))
	if err != nil {
		done()
		return nil, nil, db.wrap("search the vector index of", err)
	}
	return rows, done, nil
}

// annDescription says how an unfiltered KNN finds its candidates, for
// coderag stats.
func (db *DB) annDescription() string {
	a := db.annInfo()
	if a.version != "" && a.dim > 0 {
		return fmt.Sprintf("pgvector %s HNSW index (cosine, dimension %d), float32 rescoring; filtered searches by sign bits", a.version, a.dim)
	}
	s := "sign bits (Hamming) in memory, float32 rescoring"
	if a.why != "" {
		s += "; no HNSW index: " + a.why
	}
	return s
}
