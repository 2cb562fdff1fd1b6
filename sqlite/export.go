package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"coderag/core"
	"coderag/core/ingest"
	"coderag/sqlite/internal/chunkrow"
)

var _ ingest.Exporter = (*DB)(nil)

// ExportSource reads the named source back file by file, in path order —
// chunks with their facts and vectors, the files' mounts — for
// ingest.Copy, and returns its routes.
func (db *DB) ExportSource(ctx context.Context, name string, file func(ingest.ExportedFile) error) ([]core.RouteAt, error) {
	what := "export source " + name + " from"
	type fileRow struct {
		id     int64
		f      ingest.ExportedFile
		mounts string
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT f.id, f.path, f.content_hash, f.size, f.language, f.corpus_type, f.mtime, f.mounts
		FROM files f JOIN sources s ON s.id = f.source_id WHERE s.repo_name = ? ORDER BY f.path`, name)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	var files []fileRow
	for rows.Next() {
		var r fileRow
		var corpus string
		if err := rows.Scan(&r.id, &r.f.File.Path, &r.f.Hash, &r.f.File.Size, &r.f.File.Language, &corpus, &r.f.File.ModTime, &r.mounts); err != nil {
			rows.Close()
			return nil, db.wrap(what, err)
		}
		r.f.File.Corpus = core.CorpusType(corpus)
		files = append(files, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.wrap(what, err)
	}
	vectors := db.Embedder().ID != ""
	for _, r := range files {
		f := r.f
		if r.mounts != "[]" {
			if err := json.Unmarshal([]byte(r.mounts), &f.Mounts); err != nil {
				return nil, fmt.Errorf("%s %s: mounts of %s: %w", what, db.path, f.File.Path, err)
			}
		}
		vec := `NULL`
		if vectors {
			vec = `(SELECT v.embedding FROM vec_chunks v WHERE v.chunk_pk = c.pk)`
		}
		crows, err := db.sql.QueryContext(ctx, `SELECT `+chunkrow.Cols+`, `+vec+` FROM chunks c WHERE c.file_id = ? ORDER BY c.byte_start, c.pk`, r.id)
		if err != nil {
			return nil, db.wrap(what, err)
		}
		f.Chunks, f.Vectors, err = chunkrow.ScanWithVectors(crows)
		crows.Close()
		if err != nil {
			return nil, db.wrap(what, err)
		}
		for i := range f.Chunks {
			if err := db.readFacts(ctx, &f.Chunks[i]); err != nil {
				return nil, db.wrap(what, err)
			}
		}
		if err := file(f); err != nil {
			return nil, err
		}
	}
	rows, err = db.sql.QueryContext(ctx, `SELECT chunk_id, repo_name, file_path, line, method, path, framework, handler, router
		FROM routes WHERE repo_name = ? ORDER BY file_path, line, method, path`, name)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	defer rows.Close()
	var routes []core.RouteAt
	for rows.Next() {
		var r core.RouteAt
		if err := rows.Scan(&r.ChunkID, &r.Repo, &r.File, &r.Line, &r.Method, &r.Path, &r.Framework, &r.Handler, &r.Router); err != nil {
			return nil, db.wrap(what, err)
		}
		routes = append(routes, r)
	}
	return routes, db.wrap(what, rows.Err())
}

// readFacts fills c's calls, resources, bindings and references from the
// fact tables.
func (db *DB) readFacts(ctx context.Context, c *core.Chunk) error {
	rows, err := db.sql.QueryContext(ctx, `SELECT line, kind, system, method, target, origin, base, env, config, default_value, client, text
		FROM calls WHERE chunk_id = ? ORDER BY id`, c.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var k core.Call
		var kind, origin string
		if err := rows.Scan(&k.Line, &kind, &k.System, &k.Method, &k.Target, &origin, &k.Base, &k.Env, &k.Config, &k.Default, &k.Client, &k.Text); err != nil {
			rows.Close()
			return err
		}
		k.Kind, k.Origin = core.CallKind(kind), core.Origin(origin)
		c.Calls = append(c.Calls, k)
	}
	rows.Close()
	for _, t := range []string{"resources", "bindings"} {
		rows, err := db.sql.QueryContext(ctx, `SELECT body FROM `+t+` WHERE chunk_id = ? ORDER BY id`, c.ID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var body string
			if err := rows.Scan(&body); err != nil {
				rows.Close()
				return err
			}
			if t == "resources" {
				var r core.Resource
				err = json.Unmarshal([]byte(body), &r)
				c.Resources = append(c.Resources, r)
			} else {
				var b core.Binding
				err = json.Unmarshal([]byte(body), &b)
				c.Bindings = append(c.Bindings, b)
			}
			if err != nil {
				rows.Close()
				return fmt.Errorf("%s of chunk %s: %w", t, c.ID, err)
			}
		}
		rows.Close()
	}
	rows, err = db.sql.QueryContext(ctx, `SELECT name, kind FROM symbol_refs WHERE chunk_id = ? ORDER BY rowid`, c.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r core.Ref
		if err := rows.Scan(&r.Name, &r.Kind); err != nil {
			return err
		}
		c.Refs = append(c.Refs, r)
	}
	return rows.Err()
}
