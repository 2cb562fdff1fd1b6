package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"coderag/core"
)

// Stats counts what the index holds.
func (db *DB) Stats(ctx context.Context) (core.Stats, error) {
	st := core.Stats{
		Path:          db.path,
		SchemaVersion: SchemaVersion(),
		Embedder:      db.Embedder(),
		VectorIndex:   "sign-bit pages in memory, int8 rescoring (sqlite-vec vec0 holds the float vectors)",
		ByCorpus:      map[core.CorpusType]int{},
		ByLanguage:    map[string]int{},
		ByRepo:        map[string]int{},
		Calls:         map[core.CallKind]int{},
		Scrub:         core.ScrubStats{Types: map[string]int{}},
	}
	for _, p := range []string{db.path, db.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st.FileBytes += fi.Size()
		}
	}
	var freePages, pageSize int64
	if err := db.sql.QueryRowContext(ctx, `SELECT freelist_count, page_size FROM pragma_freelist_count, pragma_page_size`).Scan(&freePages, &pageSize); err != nil {
		return st, db.wrap("read the free pages of", err)
	}
	st.FreeBytes = freePages * pageSize
	if err := db.sql.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM files)`).Scan(&st.Chunks, &st.Files); err != nil {
		return st, db.wrap("count chunks in", err)
	}
	text, err := db.textIndex(ctx)
	if err != nil {
		return st, err
	}
	st.TextIndex = text
	if st.Embedder.ID != "" {
		if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM vec_chunks`).Scan(&st.Vectors); err != nil {
			return st, db.wrap("count vectors in", err)
		}
		live, slots, due, err := db.vectorsDue(ctx)
		if err != nil {
			return st, err
		}
		if due {
			st.VectorIndex += fmt.Sprintf("; %d of its %d vector slots unused (vec0 reuses no removed vector's slot): the next crawl compacts", slots-live, slots)
		}
	}
	group := func(col string, add func(string, int)) error {
		rows, err := db.sql.QueryContext(ctx, `SELECT `+col+`, count(*) FROM chunks GROUP BY 1 ORDER BY 1`)
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
	if err := group("corpus_type", func(k string, n int) { st.ByCorpus[core.CorpusType(k)] = n }); err != nil {
		return st, err
	}
	if err := group("language", func(k string, n int) { st.ByLanguage[k] = n }); err != nil {
		return st, err
	}
	if err := group("repo_name", func(k string, n int) { st.ByRepo[k] = n }); err != nil {
		return st, err
	}
	// The parts of the graph as graph.Partition makes them.
	if err := db.sql.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM routes), (SELECT count(*) FROM symbol_refs),
		(SELECT count(*) FROM services WHERE kind <> 'unresolved'),
		coalesce(sum(t.kind <> 'unresolved' AND s.kind <> 'ingress' AND s.kind <> 'topic' AND t.kind <> 'topic'), 0),
		coalesce(sum(t.kind <> 'unresolved' AND s.kind = 'ingress'), 0),
		coalesce(sum(t.kind <> 'unresolved' AND s.kind <> 'ingress' AND (s.kind = 'topic' OR t.kind = 'topic')), 0),
		coalesce(sum(t.kind = 'unresolved'), 0)
		FROM edges e JOIN services s ON s.id = e.source_id JOIN services t ON t.id = e.target_id`).Scan(
		&st.Routes, &st.Refs, &st.Services, &st.Edges, &st.EntryPoints, &st.TopicLinks, &st.Unresolved); err != nil {
		return st, db.wrap("count routes in", err)
	}
	crows, err := db.sql.QueryContext(ctx, `SELECT kind, count(*) FROM calls GROUP BY kind`)
	if err != nil {
		return st, db.wrap("count calls in", err)
	}
	for crows.Next() {
		var k string
		var n int
		if err := crows.Scan(&k, &n); err != nil {
			crows.Close()
			return st, db.wrap("count calls in", err)
		}
		st.Calls[core.CallKind(k)] = n
	}
	crows.Close()

	if err := db.sql.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(secrets_found), 0), coalesce(sum(entities_found), 0)
		FROM scrub_audit WHERE scrubbed`).Scan(&st.Scrub.Chunks, &st.Scrub.Secrets, &st.Scrub.PersonalData); err != nil {
		return st, db.wrap("sum the scrub audit of", err)
	}
	trows, err := db.sql.QueryContext(ctx, `SELECT t.value, count(*) FROM scrub_audit a, json_each(a.entity_types) t GROUP BY 1`)
	if err != nil {
		return st, db.wrap("sum the scrub audit of", err)
	}
	for trows.Next() {
		var k string
		var n int
		if err := trows.Scan(&k, &n); err != nil {
			trows.Close()
			return st, db.wrap("sum the scrub audit of", err)
		}
		st.Scrub.Types[k] = n
	}
	trows.Close()

	// The oldest chunking version of a source's files: the number after
	// the marker that ends each file hash, 1 for hashes without one.
	rows, err := db.sql.QueryContext(ctx, `SELECT s.repo_name, s.kind, s.uri, s.file_count,
		(SELECT count(*) FROM chunks c WHERE c.source_id = s.id),
		(SELECT count(*) FROM crawl_skips k WHERE k.source_id = s.id AND k.kind = 'skip'), coalesce(s.last_ingest, ''),
		coalesce(s.git_commit, ''), s.chunk_counts, coalesce(s.content_hash, ''), coalesce(s.newest_mtime, 0),
		(SELECT coalesce(min(CASE WHEN instr(f.content_hash, ?1) > 0
			THEN CAST(substr(f.content_hash, instr(f.content_hash, ?1) + length(?1)) AS INTEGER) ELSE 1 END), 0)
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
	err := db.sql.QueryRowContext(ctx, `SELECT id, started, coalesce(finished, ''), status, sources, files, chunks,
		skipped, errors, error FROM crawl_runs ORDER BY id DESC LIMIT 1`).Scan(&r.ID, &started, &finished, &r.Status,
		&r.Sources, &r.Files, &r.Chunks, &r.Skipped, &r.Errors, &r.Error)
	if errors.Is(err, sql.ErrNoRows) {
		return r, core.ErrNotFound
	}
	if err != nil {
		return r, db.wrap("read last crawl run from", err)
	}
	r.Started, _ = time.Parse(time.RFC3339, started)
	r.Finished, _ = time.Parse(time.RFC3339, finished)
	if r.Status == "running" && !CrawlAlive(db.path) {
		// Its process is gone (killed, crashed, the machine rebooted):
		// the next crawl records it so; say it now.
		r.Status = "interrupted"
	}
	return r, nil
}

// Skips returns the files the latest crawl of each source did not index
// (EventSkip) or indexed as plain text (EventWarning).
func (db *DB) Skips(ctx context.Context) ([]core.Event, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT s.repo_name, k.path, k.reason, k.kind FROM crawl_skips k
		JOIN sources s ON s.id = k.source_id ORDER BY s.repo_name, k.path`)
	if err != nil {
		return nil, db.wrap("list skipped files in", err)
	}
	defer rows.Close()
	var out []core.Event
	for rows.Next() {
		e := core.Event{Kind: core.EventSkip}
		var kind string
		if err := rows.Scan(&e.Source, &e.Path, &e.Reason, &kind); err != nil {
			return nil, db.wrap("list skipped files in", err)
		}
		if kind == "warning" {
			e.Kind = core.EventWarning
		}
		out = append(out, e)
	}
	return out, db.wrap("list skipped files in", rows.Err())
}
