package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"coderag/core"
	"coderag/core/ask"
	"coderag/sqlite/internal/chunkrow"
)

var _ ask.History = (*DB)(nil)

// Meta reads one value of the index's meta table ("" when absent).
func (db *DB) Meta(ctx context.Context, key string) (string, error) {
	v, err := db.meta(ctx, db.pool, key)
	return v, db.wrap("read meta of", err)
}

// Refresh reads again what another process may have changed (the
// embedder) and returns the newest crawl run's id.
func (db *DB) Refresh(ctx context.Context) (int64, error) {
	var run int64
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM crawl_runs`).Scan(&run); err != nil {
		return 0, db.wrap("read crawl runs of", err)
	}
	return run, db.readEmbedder(ctx)
}

// collectChunks reads chunk rows (chunkrow.Cols, then extra columns per row
// handled by scan).
func (db *DB) chunks(ctx context.Context, what, q string, args ...any) ([]core.Chunk, error) {
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Chunk, error) { return chunkrow.Scan(r) })
	return out, db.wrap(what, err)
}

// Chunk returns the chunk with the given id, or core.ErrNotFound.
func (db *DB) Chunk(ctx context.Context, id string) (core.Chunk, error) {
	c, err := chunkrow.Scan(db.pool.QueryRow(ctx, `SELECT `+chunkrow.Cols+` FROM chunks c WHERE c.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, fmt.Errorf("chunk %s in %s: %w", id, db.name, core.ErrNotFound)
	}
	return c, db.wrap("read chunk "+id+" from", err)
}

// SourceChunks returns every chunk of the named source in file and line
// order.
func (db *DB) SourceChunks(ctx context.Context, source string) ([]core.Chunk, error) {
	return db.chunks(ctx, "read chunks of "+source+" from", `SELECT `+chunkrow.Cols+` FROM chunks c
		WHERE c.source_id = (SELECT id FROM sources WHERE repo_name = $1) ORDER BY c.file_path, c.line_start, c.byte_start`, source)
}

// List lists the chunks a filter admits: code first, then docs, then
// conversations, in file order, at most k.
func (db *DB) List(ctx context.Context, f core.Filter, k int) ([]core.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	var a args
	where := filterSQL(f, &a)
	cs, err := db.chunks(ctx, "list chunks of", `SELECT `+chunkrow.Cols+` FROM chunks c WHERE true`+where+`
		ORDER BY CASE WHEN c.corpus_type LIKE 'CODE%' THEN 0 WHEN c.corpus_type LIKE 'DOC%' THEN 1 ELSE 2 END,
		c.repo_name, c.file_path, c.line_start LIMIT `+fmt.Sprint(k), a...)
	var hits []core.Hit
	for _, c := range cs {
		hits = append(hits, core.Hit{Chunk: c, Lists: []core.ListRank{{List: "filter", Rank: len(hits) + 1}}})
	}
	return hits, err
}

// FilterValues returns the distinct values a filter field ("service" or
// "repo") has in the index, sorted.
func (db *DB) FilterValues(ctx context.Context, field string) ([]string, error) {
	col := map[string]string{"service": "service_name", "repo": "repo_name", "language": "language"}[field]
	if col == "" {
		return nil, fmt.Errorf("filter values: unknown field %q (want service, repo or language)", field)
	}
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT `+col+` FROM chunks WHERE `+col+` <> '' ORDER BY 1`)
	if err != nil {
		return nil, db.wrap("read the "+field+" names of", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, db.wrap("read the "+field+" names of", err)
}

// FileChunks returns the chunks of the files whose path is p or ends in
// "/"+p, in file order, at most k.
func (db *DB) FileChunks(ctx context.Context, p string, k int) ([]core.Chunk, error) {
	p = strings.TrimPrefix(p, "/")
	return db.chunks(ctx, "read chunks of "+p+" from", `SELECT `+chunkrow.Cols+` FROM chunks c
		WHERE c.file_id IN (SELECT id FROM files WHERE path = $1 OR right(path, length($1) + 1) = '/' || $1)
		ORDER BY c.repo_name, c.file_path, c.line_start LIMIT $2`, p, k)
}

// SymbolChunks returns the chunks of the declaration named name and of
// its members when it was cut into several, in file order, at most k.
func (db *DB) SymbolChunks(ctx context.Context, name string, k int) ([]core.Chunk, error) {
	return db.chunks(ctx, "read chunks of symbol "+name+" from", `SELECT `+chunkrow.Cols+` FROM chunks c
		WHERE c.symbol_name = $1 OR right(c.symbol_name, length($1) + 1) = '.' || $1
		   OR strpos(c.context_prefix, ' > ' || $1 || ' > ') > 0
		   OR strpos(', ' || c.symbol_name || ', ', ', ' || $1 || ', ') > 0
		ORDER BY c.repo_name, c.file_path, c.line_start LIMIT $2`, name, k)
}

// RefTargets returns, for each of the given chunks, the chunks that
// define a name it calls or refers to; names declared by more than
// maxDefs chunks are too common to follow.
func (db *DB) RefTargets(ctx context.Context, chunkIDs []string, maxDefs int) (map[string][]core.Chunk, error) {
	what := "follow references in"
	rows, err := db.pool.Query(ctx, `SELECT `+chunkrow.Cols+`, r.chunk_id FROM symbol_refs r
		JOIN chunks c ON c.symbol_name = r.name AND c.symbol_name <> ''
		WHERE r.chunk_id = ANY($1::text[]) AND c.id <> r.chunk_id
		  AND (SELECT count(*) FROM chunks d WHERE d.symbol_name = r.name) <= $2
		ORDER BY r.chunk_id, c.repo_name, c.file_path, c.line_start`, chunkIDs, maxDefs)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	defer rows.Close()
	out := map[string][]core.Chunk{}
	for rows.Next() {
		var from string
		c, err := chunkrow.Scan(rows, &from)
		if err != nil {
			return nil, db.wrap(what, err)
		}
		out[from] = append(out[from], c)
	}
	return out, db.wrap(what, rows.Err())
}

// mentionCorpora are the corpus types whose chunks mention services.
var mentionCorpora = []string{string(core.DocReadme), string(core.DocRunbook), string(core.DocADR), string(core.DocGoogle),
	string(core.ConvoSlack), string(core.ConvoTranscript), string(core.ConvoOther)}

// Mentions returns the conversation and doc chunks that mention a service
// (or are about it), dated ones newest first, at most limit, and how many
// there are in all.
func (db *DB) Mentions(ctx context.Context, service string, limit int) ([]core.Chunk, int, error) {
	what := "find mentions of " + service + " in"
	where := `c.corpus_type = ANY($1::text[]) AND (c.service_name = $2 OR
		strpos(',' || replace(coalesce(c.meta::jsonb ->> 'services', ''), ', ', ',') || ',', ',' || $2 || ',') > 0)`
	var total int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM chunks c WHERE `+where, mentionCorpora, service).Scan(&total); err != nil {
		return nil, 0, db.wrap(what, err)
	}
	// Newest first, each changelog's older entries after the rest (the
	// SQLite store's Mentions says why).
	out, err := db.chunks(ctx, what, `WITH m AS (
			SELECT c.pk, (c.meta::jsonb ->> 'release_notes') IS NOT NULL
				AND row_number() OVER (PARTITION BY c.file_id ORDER BY c."timestamp" DESC, c.line_start) > 1 AS older
			FROM chunks c WHERE `+where+`)
		SELECT `+chunkrow.Cols+` FROM chunks c JOIN m ON m.pk = c.pk LEFT JOIN files f ON f.id = c.file_id
		ORDER BY m.older, c."timestamp" = '', c."timestamp" DESC, coalesce(f.mtime, 0) DESC, c.source_id, c.file_path, c.line_start
		LIMIT $3`, mentionCorpora, service, limit)
	return out, total, err
}

// Stats counts what the index holds.
func (db *DB) Stats(ctx context.Context) (core.Stats, error) {
	st := core.Stats{
		Path:          db.name,
		SchemaVersion: schemaVersion,
		Embedder:      db.Embedder(),
		VectorIndex:   db.annDescription(),
		ByCorpus:      map[core.CorpusType]int{},
		ByLanguage:    map[string]int{},
		ByRepo:        map[string]int{},
		Calls:         map[core.CallKind]int{},
		Scrub:         core.ScrubStats{Types: map[string]int{}},
	}
	if err := db.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM files), (SELECT count(*) FROM vectors),
		pg_database_size(current_database())`).Scan(&st.Chunks, &st.Files, &st.Vectors, &st.FileBytes); err != nil {
		return st, db.wrap("count chunks in", err)
	}
	group := func(q string, add func(string, int)) error {
		rows, err := db.pool.Query(ctx, q)
		if err != nil {
			return db.wrap("count chunks in", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				return db.wrap("count chunks in", err)
			}
			add(k, n)
		}
		return db.wrap("count chunks in", rows.Err())
	}
	for _, g := range []struct {
		q   string
		add func(string, int)
	}{
		{`SELECT corpus_type, count(*) FROM chunks GROUP BY 1`, func(k string, n int) { st.ByCorpus[core.CorpusType(k)] = n }},
		{`SELECT language, count(*) FROM chunks GROUP BY 1`, func(k string, n int) { st.ByLanguage[k] = n }},
		{`SELECT repo_name, count(*) FROM chunks GROUP BY 1`, func(k string, n int) { st.ByRepo[k] = n }},
		{`SELECT kind, count(*) FROM calls GROUP BY 1`, func(k string, n int) { st.Calls[core.CallKind(k)] = n }},
		{`SELECT t, count(*) FROM scrub_audit a, jsonb_array_elements_text(a.entity_types::jsonb) t GROUP BY 1`, func(k string, n int) { st.Scrub.Types[k] = n }},
	} {
		if err := group(g.q, g.add); err != nil {
			return st, err
		}
	}
	if err := db.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM routes), (SELECT count(*) FROM symbol_refs),
		(SELECT count(*) FROM services WHERE kind <> 'unresolved'),
		count(*) FILTER (WHERE t.kind <> 'unresolved' AND s.kind <> 'ingress' AND s.kind <> 'topic' AND t.kind <> 'topic'),
		count(*) FILTER (WHERE t.kind <> 'unresolved' AND s.kind = 'ingress'),
		count(*) FILTER (WHERE t.kind <> 'unresolved' AND s.kind <> 'ingress' AND (s.kind = 'topic' OR t.kind = 'topic')),
		count(*) FILTER (WHERE t.kind = 'unresolved')
		FROM edges e JOIN services s ON s.id = e.source_id JOIN services t ON t.id = e.target_id`).Scan(
		&st.Routes, &st.Refs, &st.Services, &st.Edges, &st.EntryPoints, &st.TopicLinks, &st.Unresolved); err != nil {
		return st, db.wrap("count routes in", err)
	}
	if err := db.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(secrets_found), 0), coalesce(sum(entities_found), 0)
		FROM scrub_audit WHERE scrubbed`).Scan(&st.Scrub.Chunks, &st.Scrub.Secrets, &st.Scrub.PersonalData); err != nil {
		return st, db.wrap("sum the scrub audit of", err)
	}
	// The oldest chunking version of a source's files: the number after
	// the marker that ends each file hash, 1 for hashes without one.
	rows, err := db.pool.Query(ctx, `SELECT s.repo_name, s.kind, s.uri, s.file_count, s.chunk_total,
		(SELECT count(*) FROM crawl_skips k WHERE k.source_id = s.id AND k.kind = 'skip'), coalesce(s.last_ingest, ''),
		coalesce(s.git_commit, ''), s.chunk_counts, coalesce(s.content_hash, ''), coalesce(s.newest_mtime, 0),
		(SELECT coalesce(min(CASE WHEN strpos(f.content_hash, $1) > 0
			THEN (regexp_match(split_part(f.content_hash, $1, 2), '^[0-9]+'))[1]::int ELSE 1 END), 0)
			FROM files f WHERE f.source_id = s.id)
		FROM sources s ORDER BY s.repo_name`, core.ChunkingMarker)
	if err != nil {
		return st, db.wrap("list sources in", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s core.SourceStats
		var kind, last, counts string
		var newest int64
		if err := rows.Scan(&s.Name, &kind, &s.Path, &s.Files, &s.Chunks, &s.Skipped, &last, &s.Commit, &counts, &s.ContentHash, &newest, &s.ChunkingVersion); err != nil {
			return st, db.wrap("list sources in", err)
		}
		s.Kind = core.SourceKind(kind)
		s.LastIngest, _ = time.Parse(time.RFC3339, last)
		if newest != 0 {
			s.NewestMTime = time.Unix(0, newest)
		}
		json.Unmarshal([]byte(counts), &s.ByCorpus)
		st.Sources = append(st.Sources, s)
	}
	if err := rows.Err(); err != nil {
		return st, db.wrap("list sources in", err)
	}
	run, err := db.LastRun(ctx)
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		return st, err
	}
	if err == nil {
		st.LastRun = &run
	}
	return st, nil
}

// LastRun returns the newest crawl run, or core.ErrNotFound.
func (db *DB) LastRun(ctx context.Context) (core.CrawlRun, error) {
	var r core.CrawlRun
	var started, finished string
	err := db.pool.QueryRow(ctx, `SELECT id, started, coalesce(finished, ''), status, sources, files, chunks,
		skipped, errors, error FROM crawl_runs ORDER BY id DESC LIMIT 1`).Scan(&r.ID, &started, &finished, &r.Status,
		&r.Sources, &r.Files, &r.Chunks, &r.Skipped, &r.Errors, &r.Error)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, core.ErrNotFound
	}
	if err != nil {
		return r, db.wrap("read last crawl run from", err)
	}
	r.Started, _ = time.Parse(time.RFC3339, started)
	r.Finished, _ = time.Parse(time.RFC3339, finished)
	return r, nil
}

// Skips returns the files the latest crawl of each source did not index
// (EventSkip) or indexed as plain text (EventWarning).
func (db *DB) Skips(ctx context.Context) ([]core.Event, error) {
	rows, err := db.pool.Query(ctx, `SELECT s.repo_name, k.path, k.reason, k.kind FROM crawl_skips k
		JOIN sources s ON s.id = k.source_id ORDER BY s.repo_name, k.path`)
	if err != nil {
		return nil, db.wrap("list skipped files in", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.Event, error) {
		e := core.Event{Kind: core.EventSkip}
		var kind string
		err := r.Scan(&e.Source, &e.Path, &e.Reason, &kind)
		if kind == "warning" {
			e.Kind = core.EventWarning
		}
		return e, err
	})
	return out, db.wrap("list skipped files in", err)
}

// Turns returns the turns of an ask session, oldest first, at most the
// last n.
func (db *DB) Turns(ctx context.Context, session string, n int) ([]ask.Turn, error) {
	rows, err := db.pool.Query(ctx, `SELECT question, answer, mode FROM (
		SELECT id, question, answer, mode FROM ask_turns WHERE session = $1 ORDER BY id DESC LIMIT $2) t ORDER BY id`, session, n)
	if err != nil {
		return nil, db.wrap("read session "+session+" from", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ask.Turn, error) {
		var t ask.Turn
		err := r.Scan(&t.Question, &t.Answer, &t.Mode)
		return t, err
	})
	return out, db.wrap("read session "+session+" from", err)
}

// AddTurn records a turn of an ask session.
func (db *DB) AddTurn(ctx context.Context, session string, t ask.Turn) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO ask_turns(session, asked, question, answer, mode) VALUES ($1, $2, $3, $4, $5)`,
		session, time.Now().UTC().Format(time.RFC3339), t.Question, t.Answer, t.Mode)
	return db.wrap("record a turn of session "+session+" in", err)
}

// FilesNamed returns the files (source and path) whose last path
// component is base, at most limit of them, in path order: the candidates
// for a stack trace's frame (search.Locator).
func (db *DB) FilesNamed(ctx context.Context, base string, limit int) ([]core.FileRef, error) {
	if base == "" || limit <= 0 {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, `SELECT s.repo_name, f.path FROM files f JOIN sources s ON s.id = f.source_id
		WHERE f.path = $1 OR right(f.path, length($1) + 1) = '/' || $1 ORDER BY s.repo_name, f.path LIMIT $2`, base, limit)
	if err != nil {
		return nil, db.wrap("look up files named "+base+" in", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (core.FileRef, error) {
		var f core.FileRef
		err := r.Scan(&f.Repo, &f.Path)
		return f, err
	})
	return out, db.wrap("look up files named "+base+" in", err)
}

// ChunksNear returns the chunks of file that overlap lines line-window
// to line+window, in line order, filters applied (search.Locator).
func (db *DB) ChunksNear(ctx context.Context, file core.FileRef, line, window int, f core.Filter) ([]core.Hit, error) {
	var a args
	q := `SELECT ` + chunkrow.Cols + ` FROM chunks c WHERE c.repo_name = ` + a.add(file.Repo) + ` AND c.file_path = ` + a.add(file.Path) +
		` AND c.line_start <= ` + a.add(line+window) + ` AND c.line_end >= ` + a.add(line-window)
	q += filterSQL(f, &a) + ` ORDER BY c.line_start, c.line_end`
	cs, err := db.chunks(ctx, fmt.Sprintf("read the chunks near %s:%d from", file.Path, line), q, a...)
	hits := make([]core.Hit, len(cs))
	for i, c := range cs {
		hits[i] = core.Hit{Chunk: c}
	}
	return hits, err
}
