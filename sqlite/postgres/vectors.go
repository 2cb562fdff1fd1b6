package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/sqlite/internal/chunkrow"
)

var _ ingest.VectorStore = (*DB)(nil)

// EmbedderURL is the server URL recorded with an HTTP embedder ("" for
// the built-in ones or when none was recorded).
func (db *DB) EmbedderURL(ctx context.Context) (string, error) {
	u, err := db.meta(ctx, db.pool, "embedder_url")
	return u, db.wrap("read embedder URL from", err)
}

// SetEmbedderURL records the server URL of an HTTP embedder.
func (db *DB) SetEmbedderURL(ctx context.Context, u string) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO meta(key, value) VALUES ('embedder_url', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, u)
	return db.wrap("record embedder URL in", err)
}

// ResetVectors forgets the embedder: its vectors, its model and its name,
// in one transaction.
func (db *DB) ResetVectors(ctx context.Context) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.wrap("reset vectors in", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for _, q := range []string{`DELETE FROM vectors`, `DELETE FROM embed_vocab`,
		`DELETE FROM meta WHERE key IN ('embedder_id', 'embedder_dim', 'embedder_url', 'embed_trained_chunks')`} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return db.wrap("reset vectors in", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return db.wrap("reset vectors in", err)
	}
	db.embedder = core.EmbedderInfo{}
	return db.bumpVectors(ctx)
}

// VectorCount is the number of chunks that have a vector.
func (db *DB) VectorCount(ctx context.Context) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, `SELECT count(*) FROM vectors`).Scan(&n)
	return n, db.wrap("count vectors in", err)
}

// ChunkTotal is the number of chunks in the index.
func (db *DB) ChunkTotal(ctx context.Context) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, `SELECT count(*) FROM chunks`).Scan(&n)
	return n, db.wrap("count chunks in", err)
}

// SampleTexts returns the embedding texts of at most n chunks spread
// evenly over the index, in ID order (as the SQLite store's: the same
// sources give the same sample).
func (db *DB) SampleTexts(ctx context.Context, n int) ([]string, error) {
	total, err := db.ChunkTotal(ctx)
	if err != nil || total == 0 || n <= 0 {
		return nil, err
	}
	stride := (total + n - 1) / n
	rows, err := db.pool.Query(ctx, `SELECT context_prefix, text FROM (
			SELECT id, context_prefix, text, row_number() OVER (ORDER BY id) AS r FROM chunks) s
		WHERE (r - 1) % $1 = 0 ORDER BY id`, stride)
	if err != nil {
		return nil, db.wrap("sample chunks of", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var p embed.Pending
		err := r.Scan(&p.ContextPrefix, &p.Text)
		return embed.DocumentText(p), err
	})
	return out, db.wrap("sample chunks of", err)
}

// BuiltinModelInfo returns the number of tokens of the stored corpus
// model and the index size it was trained on (zeros if none).
func (db *DB) BuiltinModelInfo(ctx context.Context) (tokens, trainedChunks int, err error) {
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM embed_vocab`).Scan(&tokens); err != nil {
		return 0, 0, db.wrap("read model of", err)
	}
	s, err := db.meta(ctx, db.pool, "embed_trained_chunks")
	if err != nil {
		return 0, 0, db.wrap("read model of", err)
	}
	trainedChunks, _ = strconv.Atoi(s)
	return tokens, trainedChunks, nil
}

// SaveModel replaces the corpus model and drops every stored vector (they
// came from the old model) in one transaction.
func (db *DB) SaveModel(ctx context.Context, m *embed.Model, trainedChunks int) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.wrap("save model to", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for _, q := range []string{`DELETE FROM embed_vocab`, `DELETE FROM vectors`} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return db.wrap("save model to", err)
		}
	}
	rows := make([][]any, len(m.Tokens))
	for i, t := range m.Tokens {
		rows[i] = []any{t, float64(m.IDF[i]), floatBytes(m.Vecs[i*m.Dim : (i+1)*m.Dim])}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"embed_vocab"}, []string{"token", "idf", "vec"}, pgx.CopyFromRows(rows)); err != nil {
		return db.wrap("save model to", err)
	}
	if err := setMeta(ctx, tx, "embed_trained_chunks", strconv.Itoa(trainedChunks)); err != nil {
		return db.wrap("save model to", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return db.wrap("save model to", err)
	}
	return db.bumpVectors(ctx)
}

// LoadModel reads the corpus model: all of it when tokens is nil, else
// only the rows of the given tokens. It returns nil when none is stored.
func (db *DB) LoadModel(ctx context.Context, tokens []string) (*embed.Model, error) {
	dim := db.Embedder().Dim
	if dim == 0 {
		return nil, nil
	}
	q, args := `SELECT token, idf, vec FROM embed_vocab ORDER BY token`, []any{}
	if tokens != nil {
		if len(tokens) == 0 {
			return embed.NewModel(dim, nil, nil, nil)
		}
		q, args = `SELECT token, idf, vec FROM embed_vocab WHERE token = ANY($1::text[]) ORDER BY token`, []any{tokens}
	}
	rows, err := db.pool.Query(ctx, q, args...)
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
			return nil, fmt.Errorf("load model from %s: token %q has a vector of %d bytes, want %d", db.name, t, len(blob), 4*dim)
		}
		toks, idf = append(toks, t), append(idf, float32(w))
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
	rows, err := db.pool.Query(ctx, `SELECT c.pk, c.context_prefix, c.text FROM chunks c
		WHERE c.pk > $1 AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_pk = c.pk)
		ORDER BY c.pk LIMIT $2`, after, limit)
	if err != nil {
		return nil, db.wrap("list chunks to embed in", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (embed.Pending, error) {
		var p embed.Pending
		err := r.Scan(&p.PK, &p.ContextPrefix, &p.Text)
		return p, err
	})
	return out, db.wrap("list chunks to embed in", err)
}

// PendingAfter returns 0: PendingVectors finds the chunks without vectors
// through the vectors' primary key index, with no scan to save. (With
// concurrent crawlers, keys are not assigned in commit order, so a
// high-water mark could skip a chunk.)
func (db *DB) PendingAfter(ctx context.Context) (int64, error) { return 0, nil }

// WriteVectors stores vectors of existing chunks in one transaction.
// Chunks deleted meanwhile, and chunks another crawler embedded first,
// are skipped.
func (db *DB) WriteVectors(ctx context.Context, vs []embed.Vector) error {
	e := db.Embedder()
	if e.ID == "" {
		return fmt.Errorf("write vectors to %s: no embedder recorded; call UseEmbedder first", db.name)
	}
	var b pgx.Batch
	ann := db.annDim() == e.Dim
	for _, v := range vs {
		if len(v.Vec) != e.Dim {
			return fmt.Errorf("write vectors to %s: chunk %d has dimension %d, the index %d (%s)", db.name, v.PK, len(v.Vec), e.Dim, e.ID)
		}
		if ann {
			b.Queue(`INSERT INTO vectors(chunk_pk, vec, bits, emb) SELECT pk, $2, $3::bit varying, $4::vector FROM chunks WHERE pk = $1
				ON CONFLICT (chunk_pk) DO NOTHING`, v.PK, floatBytes(v.Vec), signBits(v.Vec), vectorText(v.Vec))
			continue
		}
		b.Queue(`INSERT INTO vectors(chunk_pk, vec, bits) SELECT pk, $2, $3::bit varying FROM chunks WHERE pk = $1
			ON CONFLICT (chunk_pk) DO NOTHING`, v.PK, floatBytes(v.Vec), signBits(v.Vec))
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.wrap("write vectors to", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return db.wrap("write vectors to", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return db.wrap("write vectors to", err)
	}
	return db.bumpVectors(ctx)
}

// UpdateVectorIndex fills pgvector's column for vectors written without
// it (ann.go); without pgvector it does nothing, the vectors table being
// its own index (the Hamming pass reads it directly).
func (db *DB) UpdateVectorIndex(ctx context.Context, added []int64) error { return db.fillANN(ctx) }
