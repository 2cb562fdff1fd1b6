package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"coderag/core"
	"coderag/core/embed"
	"coderag/sqlite/internal/chunkrow"
)

// insQuantSQL writes a chunk's int8 vector (quantize) for the fast KNN
// path.
const insQuantSQL = `INSERT INTO vec_quant(chunk_pk, i8) VALUES (?, ?)`

// vectorTriggerSQL creates the trigger that drops a chunk's vectors with
// it (vec0 has no foreign keys).
const vectorTriggerSQL = `CREATE TRIGGER chunks_vec_ad AFTER DELETE ON chunks BEGIN
		DELETE FROM vec_chunks WHERE chunk_pk = old.pk;
		DELETE FROM vec_quant WHERE chunk_pk = old.pk;
	END`

// vecTableSQL creates the vec0 table of the vectors of dimension dim.
func vecTableSQL(dim int) string {
	return fmt.Sprintf(`CREATE VIRTUAL TABLE vec_chunks USING vec0(
			chunk_pk INTEGER PRIMARY KEY,
			embedding float[%d] distance_metric=cosine,
			corpus_type text,
			repo_name text,
			language text,
			service_name text)`, dim)
}

// vecCompactShare is the share of the vector table's slots that must be
// dead for Compact to rebuild it.
const vecCompactShare = 0.25

// vectorsDue reports whether the vec0 table holds enough dead slots for
// Compact to rebuild it: vec0 stores vectors in blocks of 1,024 slots and
// never reuses a deleted vector's slot nor frees an emptied block, so
// every chunk a crawl rewrites (a full re-crawl rewrites them all, keeping
// their vectors) adds a vector's bytes to the file for good. live and
// slots are the vectors and the slots allocated.
func (db *DB) vectorsDue(ctx context.Context) (live, slots int64, due bool, err error) {
	if db.Embedder().ID == "" {
		return 0, 0, false, nil
	}
	err = db.sql.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM vec_chunks_rowids),
		(SELECT coalesce(sum(size), 0) FROM vec_chunks_chunks)`).Scan(&live, &slots)
	if err != nil {
		return 0, 0, false, db.wrap("read the vector table's slots of", err)
	}
	dead := slots - live
	// One block is always partly empty: a rebuild is due when whole blocks'
	// worth of slots are dead and they are a quarter of the table.
	return live, slots, dead >= 1024 && float64(dead) >= vecCompactShare*float64(slots), nil
}

// compactVectors rebuilds the vec0 table with its live vectors only, in
// one transaction (a crawl killed during it leaves the table as it was).
func (db *DB) compactVectors(ctx context.Context) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	const cols = `chunk_pk, embedding, corpus_type, repo_name, language, service_name`
	return db.execTx(ctx, "compact the vectors of",
		`CREATE TEMP TABLE vec_keep AS SELECT `+cols+` FROM vec_chunks`,
		`DROP TRIGGER IF EXISTS chunks_vec_ad`,
		`DROP TABLE vec_chunks`,
		vecTableSQL(db.embedder.Dim),
		`INSERT INTO vec_chunks(`+cols+`) SELECT `+cols+` FROM temp.vec_keep ORDER BY chunk_pk`,
		`DROP TABLE temp.vec_keep`,
		vectorTriggerSQL)
}

// execTx runs the statements in one transaction; what says what failed
// on which file ("compact the vectors of").
func (db *DB) execTx(ctx context.Context, what string, stmts ...string) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap(what, err)
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return db.wrap(what, err)
		}
	}
	return db.wrap(what, tx.Commit())
}

// EmbedderURL is the server URL recorded with an HTTP embedder ("" for
// the built-in one or when none was recorded).
func (db *DB) EmbedderURL(ctx context.Context) (string, error) {
	var u string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'embedder_url'`).Scan(&u)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return u, db.wrap("read embedder URL from", err)
}

// SetEmbedderURL records the server URL of an HTTP embedder, so that
// queries reach the server the vectors came from.
func (db *DB) SetEmbedderURL(ctx context.Context, u string) error {
	_, err := db.sql.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder_url', ?)`, u)
	return db.wrap("record embedder URL in", err)
}

// ResetVectors forgets the embedder: its vectors, its model and its name,
// in one transaction, so that another embedder can be used (--reembed).
func (db *DB) ResetVectors(ctx context.Context) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.execTx(ctx, "reset vectors in",
		`DROP TRIGGER IF EXISTS chunks_vec_ad`,
		`DROP TABLE IF EXISTS vec_chunks`,
		`DROP TABLE IF EXISTS vec_bits`,
		`DELETE FROM embed_vocab`,
		`DELETE FROM vec_quant`,
		`DELETE FROM vec_pages`,
		`DELETE FROM meta WHERE key IN ('embedder_id', 'embedder_dim', 'embedder_url', 'embed_trained_chunks', 'vec_mean', 'vec_paged', 'vec_appended')`,
	); err != nil {
		return err
	}
	db.embedder = core.EmbedderInfo{}
	return nil
}

// VectorCount is the number of chunks that have a vector.
func (db *DB) VectorCount(ctx context.Context) (int, error) {
	if db.Embedder().ID == "" {
		return 0, nil
	}
	// vec_quant has a row for every vec0 row (written and deleted
	// together) and counts without scanning vec0's chunks.
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM vec_quant`).Scan(&n)
	return n, db.wrap("count vectors in", err)
}

// ChunkTotal is the number of chunks in the index.
func (db *DB) ChunkTotal(ctx context.Context) (int, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&n)
	return n, db.wrap("count chunks in", err)
}

// SampleTexts returns the embedding texts of at most n chunks spread
// evenly over the index (every k-th chunk by ID), in ID order: chunk IDs
// hash their content, so two crawls of the same sources sample the same
// chunks in the same order and train the same model (primary keys follow
// the order parallel workers wrote in).
func (db *DB) SampleTexts(ctx context.Context, n int) ([]string, error) {
	total, err := db.ChunkTotal(ctx)
	if err != nil || total == 0 || n <= 0 {
		return nil, err
	}
	stride := (total + n - 1) / n
	rows, err := db.sql.QueryContext(ctx, `SELECT context_prefix, text FROM (
			SELECT id, context_prefix, text, row_number() OVER (ORDER BY id) AS r FROM chunks)
		WHERE (r - 1) % ? = 0 ORDER BY id`, stride)
	if err != nil {
		return nil, db.wrap("sample chunks of", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p embed.Pending
		if err := rows.Scan(&p.ContextPrefix, &p.Text); err != nil {
			return nil, db.wrap("sample chunks of", err)
		}
		out = append(out, embed.DocumentText(p))
	}
	return out, db.wrap("sample chunks of", rows.Err())
}

// BuiltinModelInfo returns the number of tokens of the stored built-in
// model and the index size it was trained on (zeros if none).
func (db *DB) BuiltinModelInfo(ctx context.Context) (tokens, trainedChunks int, err error) {
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM embed_vocab`).Scan(&tokens); err != nil {
		return 0, 0, db.wrap("read model of", err)
	}
	var s string
	err = db.sql.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'embed_trained_chunks'`).Scan(&s)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, 0, db.wrap("read model of", err)
	}
	trainedChunks, _ = strconv.Atoi(s)
	return tokens, trainedChunks, nil
}

// SaveModel replaces the built-in model and drops every stored vector (they
// came from the old model) in one transaction; PendingVectors then lists
// every chunk. trainedChunks is the index size the model was learned from.
func (db *DB) SaveModel(ctx context.Context, m *embed.Model, trainedChunks int) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("save model to", err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM embed_vocab`, `DELETE FROM vec_chunks`, `DELETE FROM vec_quant`, `DELETE FROM vec_pages`,
		`DELETE FROM meta WHERE key IN ('vec_mean', 'vec_paged', 'vec_appended')`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return db.wrap("save model to", err)
		}
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO embed_vocab(token, idf, vec) VALUES (?, ?, ?)`)
	if err != nil {
		return db.wrap("save model to", err)
	}
	defer ins.Close()
	for i, t := range m.Tokens {
		blob, err := vec.SerializeFloat32(m.Vecs[i*m.Dim : (i+1)*m.Dim])
		if err != nil {
			return err
		}
		if _, err := ins.ExecContext(ctx, t, float64(m.IDF[i]), blob); err != nil {
			return db.wrap("save model to", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('embed_trained_chunks', ?)`, strconv.Itoa(trainedChunks)); err != nil {
		return db.wrap("save model to", err)
	}
	return db.wrap("save model to", tx.Commit())
}

// LoadModel reads the built-in model: all of it when tokens is nil, else
// only the rows of the given tokens (what a query needs). It returns nil
// when no model is stored.
func (db *DB) LoadModel(ctx context.Context, tokens []string) (*embed.Model, error) {
	dim := db.Embedder().Dim
	if dim == 0 {
		return nil, nil
	}
	q := `SELECT token, idf, vec FROM embed_vocab ORDER BY token`
	var args []any
	if tokens != nil {
		if len(tokens) == 0 {
			return embed.NewModel(dim, nil, nil, nil)
		}
		q = `SELECT token, idf, vec FROM embed_vocab WHERE token IN (` + placeholders(len(tokens)) + `) ORDER BY token`
		for _, t := range tokens {
			args = append(args, t)
		}
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, db.wrap("load model from", err)
	}
	defer rows.Close()
	var toks []string
	var idf, vecs []float32
	for rows.Next() {
		var t string
		var w float64
		var blob []byte
		if err := rows.Scan(&t, &w, &blob); err != nil {
			return nil, db.wrap("load model from", err)
		}
		if len(blob) != 4*dim {
			return nil, fmt.Errorf("load model from %s: token %q has a vector of %d bytes, want %d", db.path, t, len(blob), 4*dim)
		}
		toks = append(toks, t)
		idf = append(idf, float32(w))
		vecs = append(vecs, chunkrow.Floats(blob)...)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("load model from", err)
	}
	if tokens == nil && len(toks) == 0 {
		return nil, nil
	}
	return embed.NewModel(dim, toks, idf, vecs)
}

// PendingVectors returns up to limit chunks with a primary key above after
// that have no vector, in key order.
func (db *DB) PendingVectors(ctx context.Context, after int64, limit int) ([]embed.Pending, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT c.pk, c.context_prefix, c.text FROM chunks c
		WHERE c.pk > ? AND NOT EXISTS (SELECT 1 FROM vec_quant v WHERE v.chunk_pk = c.pk)
		ORDER BY c.pk LIMIT ?`, after, limit)
	if err != nil {
		return nil, db.wrap("list chunks to embed in", err)
	}
	defer rows.Close()
	var out []embed.Pending
	for rows.Next() {
		var p embed.Pending
		if err := rows.Scan(&p.PK, &p.ContextPrefix, &p.Text); err != nil {
			return nil, db.wrap("list chunks to embed in", err)
		}
		out = append(out, p)
	}
	return out, db.wrap("list chunks to embed in", rows.Err())
}

// PendingAfter returns the largest chunk key with a vector when every
// chunk below it has one too, else 0: chunks written since the last
// embedding come after it (new keys exceed the largest existing one), so
// a crawl that changed a few files does not scan every chunk for missing
// vectors. Vectors only exist for existing chunks (a trigger deletes
// them with their chunk), so equal counts up to that key mean none is
// missing.
func (db *DB) PendingAfter(ctx context.Context) (int64, error) {
	// Each count on its own so that SQLite answers it from a b-tree's
	// structure or a small index: the chunk rows are never read.
	vecs, err := db.VectorCount(ctx)
	if err != nil {
		return 0, err
	}
	chunks, err := db.ChunkTotal(ctx)
	if err != nil {
		return 0, err
	}
	var top int64
	var above int
	err = db.sql.QueryRowContext(ctx, `SELECT coalesce(max(chunk_pk), 0) FROM vec_quant`).Scan(&top)
	if err == nil {
		err = db.sql.QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE pk > ?`, top).Scan(&above)
	}
	if err != nil {
		return 0, db.wrap("find chunks to embed in", err)
	}
	if chunks-above != vecs {
		return 0, nil
	}
	return top, nil
}

// WriteVectors stores vectors of existing chunks in one transaction, with
// the chunks' filter columns. Chunks deleted meanwhile are skipped.
func (db *DB) WriteVectors(ctx context.Context, vs []embed.Vector) error {
	e := db.Embedder()
	if e.ID == "" {
		return fmt.Errorf("write vectors to %s: no embedder recorded; call UseEmbedder first", db.path)
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("write vectors to", err)
	}
	defer tx.Rollback()
	sel := `SELECT pk, ?, corpus_type, repo_name, language, service_name FROM chunks WHERE pk = ?`
	insVec, err := tx.PrepareContext(ctx, `INSERT INTO vec_chunks(chunk_pk, embedding, corpus_type, repo_name, language, service_name) `+sel)
	if err != nil {
		return db.wrap("write vectors to", err)
	}
	defer insVec.Close()
	insQuant, err := tx.PrepareContext(ctx, insQuantSQL)
	if err != nil {
		return db.wrap("write vectors to", err)
	}
	defer insQuant.Close()
	for _, v := range vs {
		if len(v.Vec) != e.Dim {
			return fmt.Errorf("write vectors to %s: chunk %d has dimension %d, the index %d (%s)", db.path, v.PK, len(v.Vec), e.Dim, e.ID)
		}
		blob, err := vec.SerializeFloat32(v.Vec)
		if err != nil {
			return err
		}
		if _, err := insVec.ExecContext(ctx, blob, v.PK); err != nil {
			return db.wrap(fmt.Sprintf("write vector of chunk %d to", v.PK), err)
		}
		if _, err := insQuant.ExecContext(ctx, v.PK, quantize(v.Vec)); err != nil {
			return db.wrap(fmt.Sprintf("write vector of chunk %d to", v.PK), err)
		}
	}
	return db.wrap("write vectors to", tx.Commit())
}
