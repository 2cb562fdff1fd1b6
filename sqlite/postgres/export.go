package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"coderag/core"
	"coderag/core/ingest"
	"coderag/sqlite/internal/chunkrow"
)

var _ ingest.Exporter = (*DB)(nil)

// ExportSource reads the named source back file by file, in path order —
// chunks with their facts and vectors, the files' mounts — for
// ingest.Copy (coderag migrate from PostgreSQL), and returns its routes.
// It reads in one repeatable-read transaction, so a crawler committing
// meanwhile does not tear the copy.
func (db *DB) ExportSource(ctx context.Context, name string, file func(ingest.ExportedFile) error) ([]core.RouteAt, error) {
	what := "export source " + name + " from"
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, db.wrap(what, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	type fileRow struct {
		id     int64
		f      ingest.ExportedFile
		mounts string
	}
	rows, err := tx.Query(ctx, `SELECT f.id, f.path, f.content_hash, f.size, f.language, f.corpus_type, f.mtime, f.mounts
		FROM files f JOIN sources s ON s.id = f.source_id WHERE s.repo_name = $1 ORDER BY f.path`, name)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	files, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (fileRow, error) {
		var fr fileRow
		var corpus string
		err := r.Scan(&fr.id, &fr.f.File.Path, &fr.f.Hash, &fr.f.File.Size, &fr.f.File.Language, &corpus, &fr.f.File.ModTime, &fr.mounts)
		fr.f.File.Corpus = core.CorpusType(corpus)
		return fr, err
	})
	if err != nil {
		return nil, db.wrap(what, err)
	}
	for _, r := range files {
		f := r.f
		if r.mounts != "[]" && r.mounts != "" {
			if err := json.Unmarshal([]byte(r.mounts), &f.Mounts); err != nil {
				return nil, fmt.Errorf("%s %s: mounts of %s: %w", what, db.name, f.File.Path, err)
			}
		}
		crows, err := tx.Query(ctx, `SELECT `+chunkrow.Cols+`, v.vec FROM chunks c LEFT JOIN vectors v ON v.chunk_pk = c.pk
			WHERE c.file_id = $1 ORDER BY c.byte_start, c.pk`, r.id)
		if err != nil {
			return nil, db.wrap(what, err)
		}
		f.Chunks, f.Vectors, err = chunkrow.ScanWithVectors(crows)
		crows.Close()
		if err != nil {
			return nil, db.wrap(what, err)
		}
		if err := readFacts(ctx, tx, f.Chunks); err != nil {
			return nil, fmt.Errorf("%s %s: %s: %w", what, db.name, f.File.Path, err)
		}
		if err := file(f); err != nil {
			return nil, err
		}
	}
	rows, err = tx.Query(ctx, `SELECT chunk_id, repo_name, file_path, line, method, path, framework, handler, router
		FROM routes WHERE repo_name = $1 ORDER BY file_path, line, method, path`, name)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	routes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.RouteAt, error) {
		var ra core.RouteAt
		err := r.Scan(&ra.ChunkID, &ra.Repo, &ra.File, &ra.Line, &ra.Method, &ra.Path, &ra.Framework, &ra.Handler, &ra.Router)
		return ra, err
	})
	return routes, db.wrap(what, err)
}

// readFacts fills the chunks' calls, resources, bindings and references
// from the fact tables, one query per table for all of them.
func readFacts(ctx context.Context, tx pgx.Tx, chunks []core.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	ids := make([]string, len(chunks))
	at := make(map[string]int, len(chunks))
	for i, c := range chunks {
		ids[i], at[c.ID] = c.ID, i
	}
	// each runs q (its first column the chunk ID), scans the other columns
	// of every row into dest and hands the row's chunk to use.
	each := func(what, q string, dest []any, use func(c *core.Chunk) error) error {
		rows, err := tx.Query(ctx, q, ids)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		defer rows.Close()
		var id string
		for rows.Next() {
			if err := rows.Scan(append([]any{&id}, dest...)...); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			i, ok := at[id]
			if !ok {
				return fmt.Errorf("%s: a row of chunk %s, not in the file", what, id)
			}
			if err := use(&chunks[i]); err != nil {
				return fmt.Errorf("%s of chunk %s: %w", what, id, err)
			}
		}
		return rows.Err()
	}
	var k core.Call
	var kind, origin string
	err := each("calls", `SELECT chunk_id, line, kind, system, method, target, origin, base, env, config, default_value, client, text
		FROM calls WHERE chunk_id = ANY($1::text[]) ORDER BY id`,
		[]any{&k.Line, &kind, &k.System, &k.Method, &k.Target, &origin, &k.Base, &k.Env, &k.Config, &k.Default, &k.Client, &k.Text},
		func(c *core.Chunk) error {
			k.Kind, k.Origin = core.CallKind(kind), core.Origin(origin)
			c.Calls = append(c.Calls, k)
			return nil
		})
	if err != nil {
		return err
	}
	var body string
	err = each("resources", `SELECT chunk_id, body FROM resources WHERE chunk_id = ANY($1::text[]) ORDER BY id`, []any{&body},
		func(c *core.Chunk) error {
			var r core.Resource
			err := json.Unmarshal([]byte(body), &r)
			c.Resources = append(c.Resources, r)
			return err
		})
	if err != nil {
		return err
	}
	err = each("bindings", `SELECT chunk_id, body FROM bindings WHERE chunk_id = ANY($1::text[]) ORDER BY id`, []any{&body},
		func(c *core.Chunk) error {
			var b core.Binding
			err := json.Unmarshal([]byte(body), &b)
			c.Bindings = append(c.Bindings, b)
			return err
		})
	if err != nil {
		return err
	}
	var ref core.Ref
	return each("symbol references", `SELECT chunk_id, name, kind FROM symbol_refs WHERE chunk_id = ANY($1::text[]) ORDER BY chunk_id, name, kind`,
		[]any{&ref.Name, &ref.Kind}, func(c *core.Chunk) error {
			c.Refs = append(c.Refs, ref)
			return nil
		})
}
