package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/sqlite/internal/cext"
	"coderag/sqlite/internal/chunkrow"
)

var _ ingest.Store = (*DB)(nil)

// StartRun records the start of a crawl and returns its id. Runs left in
// "running" by a crawl that died are marked "interrupted" first.
func (db *DB) StartRun(ctx context.Context, args string) (int64, error) {
	now := time.Now().UTC().Format(time.RFC3339)
	if _, err := db.sql.ExecContext(ctx,
		`UPDATE crawl_runs SET status = 'interrupted', finished = ? WHERE status = 'running'`, now); err != nil {
		return 0, db.wrap("start crawl run in", err)
	}
	res, err := db.sql.ExecContext(ctx,
		`INSERT INTO crawl_runs(started, status, args) VALUES (?, 'running', ?)`, now, args)
	if err != nil {
		return 0, db.wrap("start crawl run in", err)
	}
	return res.LastInsertId()
}

// FinishRun records the end of crawl run id and writes the row lengths
// of the index it leaves, for the ranking (lengths.go).
//
// A crawl that failed because the disk is full must still be recorded as
// failed: when the update does not fit, the WAL is checkpointed and
// truncated, which frees the space the failed transactions took, and the
// update is tried once more.
func (db *DB) FinishRun(ctx context.Context, id int64, r core.CrawlRun) error {
	finish := func() error {
		_, err := db.sql.ExecContext(ctx, `UPDATE crawl_runs SET finished = ?, status = ?, sources = ?, files = ?,
			chunks = ?, skipped = ?, errors = ?, error = ? WHERE id = ?`,
			time.Now().UTC().Format(time.RFC3339), r.Status, r.Sources, r.Files, r.Chunks, r.Skipped, r.Errors, r.Error, id)
		return err
	}
	err := finish()
	if cext.DiskFull(err) {
		if _, cerr := db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); cerr == nil {
			err = finish()
		}
	}
	if err != nil {
		return db.wrap("finish crawl run in", err)
	}
	// The ranking's row lengths, for the index the run leaves. Without
	// them search ranks by bm25() reading each row's length, until the
	// next crawl writes them.
	if err := db.writeLengths(ctx); err != nil {
		return fmt.Errorf("write the ranking's row lengths to %s (search reads each row's length until the next crawl writes them): %w (%w)", db.path, err, ingest.ErrRunRecorded)
	}
	return nil
}

// SourceTx replaces everything stored for one source inside one
// transaction: readers see the previous state until Commit, and a crawl
// killed before Commit leaves it untouched. It is not safe for concurrent
// use; the crawl's single writer goroutine owns it.
type SourceTx struct {
	db       *DB
	tx       *sql.Tx
	src      core.Source
	sourceID int64
	runID    int64
	maxPK    int64 // largest chunk pk before this transaction's writes
	vectors  bool
	// unindexed counts the chunks this transaction removed from the FTS
	// indexes, added to the index's count at Commit (Compact).
	unindexed int64
	// prev is what the source row held before an update.
	prev core.Source
	// routeServices are the services to give the routes of files whose
	// facts only moved (moveFacts), when WriteRoutes writes them.
	routeServices map[routeKey]int64
	// update: the source's other files stay; each written file replaces
	// its previous version and is indexed at once (BeginSourceUpdate).
	update bool
	// graphDirty: the facts or the file list changed in a way that can
	// change the service graph (see ingest.FactsDigest, graph.PathMatters).
	graphDirty bool

	insFile, insChunk, insVec, insQuant, insAudit, insSkip, insCall, insRef, insRoute, insRes, insBind *sql.Stmt

	files  int
	chunks map[core.CorpusType]int
	done   bool

	// kept are the vectors the source's chunks had before a replace, by
	// chunk id; a chunk written again with the same text and context
	// prefix gets its vector back in the same transaction (carried), so
	// that a crawl that fails after the replace loses no vectors.
	kept    map[string]keptVector
	carried []int64
}

// keptVector is a stored vector and what it was computed from.
type keptVector struct {
	sum       [32]byte // SHA-256 of the context prefix and text
	embedding []byte   // vec_chunks row
	i8        []byte   // vec_quant row
}

// BeginSource starts replacing the stored content of src for crawl run
// runID. The source's name must not be used by another source path.
func (db *DB) BeginSource(ctx context.Context, runID int64, src core.Source) (ingest.SourceWriter, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, db.wrap("begin source "+src.Name+" in", err)
	}
	s := &SourceTx{db: db, tx: tx, src: src, runID: runID, chunks: map[core.CorpusType]int{}}
	if err := s.begin(ctx); err != nil {
		tx.Rollback()
		return nil, err
	}
	return s, nil
}

// BeginSourceUpdate starts changing the stored content of src file by
// file, inside one transaction: files not written or deleted keep their
// chunks. Readers see the previous state until Commit.
func (db *DB) BeginSourceUpdate(ctx context.Context, runID int64, src core.Source) (ingest.SourceUpdater, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, db.wrap("begin source "+src.Name+" in", err)
	}
	s := &SourceTx{db: db, tx: tx, src: src, runID: runID, chunks: map[core.CorpusType]int{}, update: true}
	if err := s.begin(ctx); err != nil {
		tx.Rollback()
		return nil, err
	}
	return s, nil
}

// SetFingerprint records the source's content hash (exports) or newest
// file time (directories); Commit stores them.
func (s *SourceTx) SetFingerprint(contentHash string, newestMTime int64) {
	s.src.ContentHash, s.src.NewestMTime = contentHash, newestMTime
}

// Outdated reports whether the stored git commit, content hash or newest
// file time differ from this crawl's (ingest.SourceUpdater).
func (s *SourceTx) Outdated() bool {
	return s.src.Commit != s.prev.Commit || s.src.ContentHash != s.prev.ContentHash || s.src.NewestMTime != s.prev.NewestMTime
}

// StoredFiles returns the files the source holds, by path.
func (s *SourceTx) StoredFiles(ctx context.Context) (map[string]ingest.StoredFile, error) {
	what := "read files of " + s.src.Name + " from"
	// One text column per file instead of four: the per-column cost of
	// the driver, not SQLite, dominates for tens of thousands of rows.
	// The path comes last, so it may hold any character.
	var n int
	if err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE source_id = ?`, s.sourceID).Scan(&n); err != nil {
		return nil, s.db.wrap(what, err)
	}
	rows, err := s.tx.QueryContext(ctx, `SELECT size || ' ' || mtime || ' ' || content_hash || ' ' || path FROM files NOT INDEXED WHERE source_id = ?`, s.sourceID)
	if err != nil {
		return nil, s.db.wrap(what, err)
	}
	defer rows.Close()
	out := make(map[string]ingest.StoredFile, n)
	for rows.Next() {
		var line sql.RawBytes
		if err := rows.Scan(&line); err != nil {
			return nil, s.db.wrap(what, err)
		}
		var sf ingest.StoredFile
		var hash, path []byte
		var ok1, ok2, ok3 bool
		sf.Size, line, ok1 = cutInt(line)
		sf.ModTime, line, ok2 = cutInt(line)
		hash, path, ok3 = bytes.Cut(line, []byte(" "))
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("%s %s: bad file row %q", what, s.db.path, line)
		}
		sf.Hash = string(hash)
		out[string(path)] = sf
	}
	if err := rows.Err(); err != nil {
		return nil, s.db.wrap(what, err)
	}
	rows.Close()
	// Few files mount routers: their mounts are read apart.
	rows, err = s.tx.QueryContext(ctx, `SELECT path, mounts FROM files WHERE source_id = ? AND mounts <> '[]'`, s.sourceID)
	if err != nil {
		return nil, s.db.wrap(what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var path, mounts string
		if err := rows.Scan(&path, &mounts); err != nil {
			return nil, s.db.wrap(what, err)
		}
		sf := out[path]
		if err := json.Unmarshal([]byte(mounts), &sf.Mounts); err != nil {
			return nil, fmt.Errorf("%s %s: mounts of %s: %w", what, s.db.path, path, err)
		}
		out[path] = sf
	}
	return out, s.db.wrap(what, rows.Err())
}

// cutInt parses the decimal integer that b starts with, up to a space,
// and returns it with what follows the space.
func cutInt(b []byte) (int64, []byte, bool) {
	i := bytes.IndexByte(b, ' ')
	if i <= 0 {
		return 0, b, false
	}
	neg := b[0] == '-'
	digits := b[:i]
	if neg {
		digits = digits[1:]
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, b, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, b[i+1:], true
}

// DeleteFile removes a file and its chunks (with their FTS entries,
// vectors and facts).
func (s *SourceTx) DeleteFile(ctx context.Context, path string) error {
	old, err := s.deleteFile(ctx, path, "")
	if ingest.ChangesGraph(path, old.found, old.facts, false, "") {
		s.graphDirty = true
	}
	return err
}

// storedFile is what deleteFile found of a file: whether it was there,
// the digest and shape of its facts with their positions, and (when its
// new version's facts differ) its routes with the services the graph gave
// them.
type storedFile struct {
	found                   bool
	facts, shape, positions string
	routes                  []storedRoute
}

type storedRoute struct {
	pos          ingest.FactPos
	method, path string
	service      int64
}

// deleteFile removes a file and reports what it held. newFacts is the
// facts digest of the version replacing it ("" when it is deleted): when
// it differs and the graph may still be kept, the routes are read for
// moveFacts.
func (s *SourceTx) deleteFile(ctx context.Context, path, newFacts string) (storedFile, error) {
	var old storedFile
	var id int64
	what := fmt.Sprintf("delete %s/%s from", s.src.Name, path)
	err := s.tx.QueryRowContext(ctx, `SELECT id, facts, shape, positions FROM files WHERE source_id = ? AND path = ?`, s.sourceID, path).
		Scan(&id, &old.facts, &old.shape, &old.positions)
	if errors.Is(err, sql.ErrNoRows) {
		return old, nil
	}
	if err != nil {
		return old, s.db.wrap(what, err)
	}
	old.found = true
	if newFacts != "" && newFacts != old.facts && old.facts != ingest.NoFacts && !s.graphDirty {
		rows, err := s.tx.QueryContext(ctx, `SELECT r.chunk_id, r.line, r.method, r.path, r.service_id FROM routes r
			JOIN chunks c ON c.id = r.chunk_id WHERE c.file_id = ? AND r.service_id IS NOT NULL`, id)
		if err != nil {
			return old, s.db.wrap(what, err)
		}
		for rows.Next() {
			var r storedRoute
			if err := rows.Scan(&r.pos.Chunk, &r.pos.Line, &r.method, &r.path, &r.service); err != nil {
				rows.Close()
				return old, s.db.wrap(what, err)
			}
			old.routes = append(old.routes, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return old, s.db.wrap(what, err)
		}
	}
	n, err := unindexFTS(ctx, s.tx, "file_id = ?", id)
	if err != nil {
		return old, s.db.wrap(what, err)
	}
	s.unindexed += n
	if _, err := s.tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, id); err != nil {
		return old, s.db.wrap(what, err)
	}
	return old, nil
}

// moveFacts keeps the service graph when a file's facts only moved: its
// shape is the stored one and the positions pair up one to one. The
// graph's evidence and declarations at the old positions move to the new
// ones now; the services of the file's routes are given back when the
// routes are written. It reports false when the facts did not only move
// (or the pairing is not one to one, or evidence is left at an old
// position): the graph must be built again, which rewrites any evidence
// moved before that was found.
func (s *SourceTx) moveFacts(ctx context.Context, old storedFile, shape string, positions []ingest.FactPos) (bool, error) {
	if old.shape == "" || old.shape != shape || shape == ingest.NoFacts {
		return false, nil
	}
	var before []ingest.FactPos
	if err := json.Unmarshal([]byte(old.positions), &before); err != nil || len(before) != len(positions) {
		return false, nil
	}
	to := map[ingest.FactPos]ingest.FactPos{}
	from := map[ingest.FactPos]ingest.FactPos{}
	for i, o := range before {
		n := positions[i]
		if m, ok := to[o]; ok && m != n {
			return false, nil
		}
		if m, ok := from[n]; ok && m != o {
			return false, nil
		}
		to[o], from[n] = n, o
	}
	for o, n := range to {
		if o == n {
			continue
		}
		if back, ok := to[n]; ok && back != n {
			return false, nil // a new position is also an old one that moves
		}
	}
	what := fmt.Sprintf("move the graph evidence of %s in", s.src.Name)
	var moves []*sql.Stmt
	for _, t := range []string{"edge_evidence", "service_declarations"} {
		st, err := s.tx.PrepareContext(ctx, `UPDATE OR IGNORE `+t+` SET chunk_id = ?, line = ? WHERE chunk_id = ? AND line = ?`)
		if err != nil {
			return false, s.db.wrap(what, err)
		}
		defer st.Close()
		moves = append(moves, st)
	}
	moved := map[string]bool{} // old chunks whose evidence moved
	for o, n := range to {
		if o == n {
			continue
		}
		moved[o.Chunk] = true
		for _, st := range moves {
			if _, err := st.ExecContext(ctx, n.Chunk, n.Line, o.Chunk, o.Line); err != nil {
				return false, s.db.wrap(what, err)
			}
		}
	}
	// Evidence left at an old chunk (a row the move would have
	// duplicated, a line no fact of the file had) means the graph does not
	// match: build it again.
	for c := range moved {
		var left int
		if err := s.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM edge_evidence WHERE chunk_id = ?)
			OR EXISTS (SELECT 1 FROM service_declarations WHERE chunk_id = ?)`, c, c).Scan(&left); err != nil {
			return false, s.db.wrap(what, err)
		}
		if left == 1 {
			return false, nil
		}
	}
	for _, r := range old.routes {
		n, ok := to[r.pos]
		if !ok {
			return false, nil
		}
		if s.routeServices == nil {
			s.routeServices = map[routeKey]int64{}
		}
		s.routeServices[routeKey{n, r.method, r.path}] = r.service
	}
	return true, nil
}

// routeKey identifies a route row by position, method and path.
type routeKey struct {
	pos          ingest.FactPos
	method, path string
}

// clearSource removes everything a source holds but its row: chunks with
// their FTS entries first (external-content FTS5 needs the old values to
// delete them; the vec0 trigger and foreign keys clean vectors and facts),
// files and skips. It returns how many chunks it removed.
func clearSource(ctx context.Context, tx *sql.Tx, sourceID int64) (int64, error) {
	n, err := unindexFTS(ctx, tx, "source_id = ?", sourceID)
	if err != nil {
		return 0, err
	}
	for _, q := range []string{
		`DELETE FROM chunks WHERE source_id = ?`,
		`DELETE FROM files WHERE source_id = ?`,
		`DELETE FROM crawl_skips WHERE source_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, sourceID); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Touch records the size and modification time of a file whose content did
// not change.
func (s *SourceTx) Touch(ctx context.Context, f core.File) error {
	_, err := s.tx.ExecContext(ctx, `UPDATE files SET size = ?, mtime = ? WHERE source_id = ? AND path = ?`,
		f.Size, ingest.TrustedMTime(f.ModTime, time.Now()), s.sourceID, f.Path)
	return s.db.wrap(fmt.Sprintf("update %s/%s in", s.src.Name, f.Path), err)
}

// SourceNames returns the names of the sources the database holds, sorted.
func (db *DB) SourceNames(ctx context.Context) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT repo_name FROM sources ORDER BY repo_name`)
	if err != nil {
		return nil, db.wrap("read sources of", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, db.wrap("read sources of", err)
		}
		out = append(out, n)
	}
	return out, db.wrap("read sources of", rows.Err())
}

// RepoRoots returns the path each repository source was crawled from,
// by name.
func (db *DB) RepoRoots(ctx context.Context) (map[string]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT repo_name, uri FROM sources WHERE kind = ?`, string(core.SourceRepo))
	if err != nil {
		return nil, db.wrap("read repository paths of", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, uri string
		if err := rows.Scan(&name, &uri); err != nil {
			return nil, db.wrap("read repository paths of", err)
		}
		out[name] = uri
	}
	return out, db.wrap("read repository paths of", rows.Err())
}

// DeleteSource removes the source named name with its files, chunks (and
// their FTS entries, vectors and facts) and skips, in one transaction, and
// marks the service graph for rebuilding.
func (db *DB) DeleteSource(ctx context.Context, name string) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("remove source "+name+" from", err)
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM sources WHERE repo_name = ?`, name).Scan(&id); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return db.wrap("remove source "+name+" from", err)
	}
	n, err := clearSource(ctx, tx, id)
	if err != nil {
		return db.wrap("remove source "+name+" from", err)
	}
	if err := addUnindexed(ctx, tx, n); err != nil {
		return db.wrap("remove source "+name+" from", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sources WHERE id = ?`, id); err != nil {
		return db.wrap("remove source "+name+" from", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('graph_dirty', '1'), ('chunk_count', (SELECT count(*) FROM chunks))
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`); err != nil {
		return db.wrap("remove source "+name+" from", err)
	}
	return db.wrap("remove source "+name+" from", tx.Commit())
}

// WriteMounts records the router mounts a written file declares.
func (s *SourceTx) WriteMounts(ctx context.Context, path string, mounts []core.Mount) error {
	if len(mounts) == 0 {
		return nil
	}
	b, err := json.Marshal(mounts)
	if err != nil {
		return err
	}
	_, err = s.tx.ExecContext(ctx, `UPDATE files SET mounts = ? WHERE source_id = ? AND path = ?`, string(b), s.sourceID, path)
	return s.db.wrap(fmt.Sprintf("write mounts of %s/%s to", s.src.Name, path), err)
}

func (s *SourceTx) begin(ctx context.Context) error {
	tx := s.tx
	var otherURI string
	err := tx.QueryRowContext(ctx, `SELECT uri FROM sources WHERE repo_name = ? AND uri <> ?`, s.src.Name, s.src.Path).Scan(&otherURI)
	switch {
	case err == nil:
		return fmt.Errorf("source %s: the name %q is already used by %s in %s; pass another --repo-name",
			s.src.Path, s.src.Name, otherURI, s.db.path)
	case !errors.Is(err, sql.ErrNoRows):
		return s.db.wrap("begin source "+s.src.Name+" in", err)
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO sources(kind, uri, repo_name) VALUES (?, ?, ?)
		ON CONFLICT(uri) DO UPDATE SET kind = excluded.kind, repo_name = excluded.repo_name
		RETURNING id`, string(s.src.Kind), s.src.Path, s.src.Name).Scan(&s.sourceID)
	if err != nil {
		return s.db.wrap("begin source "+s.src.Name+" in", err)
	}
	var vecTable int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'vec_chunks'`).Scan(&vecTable); err != nil {
		return s.db.wrap("begin source "+s.src.Name+" in", err)
	}
	s.vectors = vecTable > 0
	// Replace: drop what the source had, its FTS entries first (they need
	// the old column values). The vec0 trigger cleans vectors. An update
	// keeps the files and replaces them one by one.
	if s.update {
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(git_commit, ''), coalesce(content_hash, ''), coalesce(newest_mtime, 0) FROM sources WHERE id = ?`,
			s.sourceID).Scan(&s.prev.Commit, &s.prev.ContentHash, &s.prev.NewestMTime); err != nil {
			return s.db.wrap("begin source "+s.src.Name+" in", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM crawl_skips WHERE source_id = ?`, s.sourceID); err != nil {
			return s.db.wrap("clear source "+s.src.Name+" in", err)
		}
	} else {
		s.graphDirty = true
		if err := s.keepVectors(ctx); err != nil {
			return s.db.wrap("read vectors of source "+s.src.Name+" from", err)
		}
		n, err := clearSource(ctx, tx, s.sourceID)
		if err != nil {
			return s.db.wrap("clear source "+s.src.Name+" in", err)
		}
		s.unindexed += n
	}
	// Every chunk this transaction writes gets a pk above this one
	// (INTEGER PRIMARY KEY assigns max+1); Commit indexes them in one go.
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(pk), 0) FROM chunks`).Scan(&s.maxPK); err != nil {
		return s.db.wrap("begin source "+s.src.Name+" in", err)
	}

	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, q)
		return st
	}
	s.insFile = prep(`INSERT INTO files(source_id, path, content_hash, size, language, corpus_type, chunk_count, indexed_at, facts, mtime, shape, positions)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`)
	s.insChunk = prep(`INSERT INTO chunks(id, source_id, file_id, source_uri, byte_start, byte_end, line_start, line_end,
		corpus_type, text, context_prefix, language, symbol_name, symbol_kind, signature, file_path, git_hash,
		section_path, author, timestamp, channel, thread_id, service_name, repo_name, imports, calls_out,
		called_by, k8s_labels, meta, sensitivity, scrubbed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`)
	s.insAudit = prep(`INSERT INTO scrub_audit(chunk_id, tier, entities_found, entity_types, secrets_found, scrubbed)
		VALUES (?, ?, ?, ?, ?, ?)`)
	s.insSkip = prep(`INSERT INTO crawl_skips(run_id, source_id, path, reason, kind) VALUES (?, ?, ?, ?, ?)`)
	s.insCall = prep(`INSERT INTO calls(chunk_id, repo_name, file_path, line, kind, system, method, target, origin, base,
		env, config, default_value, client, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	s.insRef = prep(`INSERT OR IGNORE INTO symbol_refs(chunk_id, name, kind) VALUES (?, ?, ?)`)
	s.insBind = prep(`INSERT INTO bindings(chunk_id, repo_name, file_path, line, body) VALUES (?, ?, ?, ?, ?)`)
	s.insRes = prep(`INSERT INTO resources(chunk_id, repo_name, file_path, line, kind, name, namespace, service, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	s.insRoute = prep(`INSERT INTO routes(chunk_id, repo_name, file_path, line, method, path, framework, handler, router, service_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if s.vectors {
		s.insVec = prep(`INSERT INTO vec_chunks(chunk_pk, embedding, corpus_type, repo_name, language, service_name)
			VALUES (?, ?, ?, ?, ?, ?)`)
		s.insQuant = prep(insQuantSQL)
	}
	if err != nil {
		return s.db.wrap("prepare writes to", err)
	}
	return nil
}

// WriteFile stores one file and its chunks. A chunk may carry a vector of
// the database's dimension when the database has a vector table; chunks
// without one are embedded later (PendingVectors, WriteVectors).
func (s *SourceTx) WriteFile(ctx context.Context, f core.File, hash string, chunks []embed.Chunk) error {
	if s.done {
		return fmt.Errorf("write %s/%s: source transaction already finished", s.src.Name, f.Path)
	}
	facts := ingest.FactsDigest(chunks)
	shape, positions := ingest.FactsShape(chunks)
	posJSON, err := json.Marshal(positions)
	if err != nil {
		return fmt.Errorf("write %s/%s: %w", s.src.Name, f.Path, err)
	}
	if s.update {
		old, err := s.deleteFile(ctx, f.Path, facts)
		if err != nil {
			return err
		}
		if ingest.ChangesGraph(f.Path, old.found, old.facts, true, facts) {
			moved := false
			if !s.graphDirty && old.found {
				if moved, err = s.moveFacts(ctx, old, shape, positions); err != nil {
					return err
				}
			}
			if !moved {
				s.graphDirty = true
			}
		}
	}
	now := time.Now()
	mtime := ingest.TrustedMTime(f.ModTime, now)
	var fileID int64
	if err := s.insFile.QueryRowContext(ctx, s.sourceID, f.Path, hash, f.Size, f.Language, string(f.Corpus), len(chunks),
		now.UTC().Format(time.RFC3339), facts, mtime, shape, string(posJSON)).Scan(&fileID); err != nil {
		return s.db.wrap(fmt.Sprintf("write file %s/%s to", s.src.Name, f.Path), err)
	}
	dim := s.db.Embedder().Dim
	for _, ec := range chunks {
		if !ec.Clean.Valid() {
			return fmt.Errorf("write %s/%s: chunk did not pass the scrub gate", s.src.Name, f.Path)
		}
		c := ec.Clean.Chunk()
		var pk int64
		err := s.insChunk.QueryRowContext(ctx, c.ID, s.sourceID, fileID, c.SourceURI, c.ByteStart, c.ByteEnd,
			c.LineStart, c.LineEnd, string(c.Corpus), c.Text, c.ContextPrefix, c.Language, c.SymbolName,
			c.SymbolKind, c.Signature, c.FilePath, c.GitHash, c.SectionPath, c.Author, c.Timestamp, c.Channel,
			c.ThreadID, c.ServiceName, c.RepoName, chunkrow.List(c.Imports), chunkrow.List(c.CallsOut), chunkrow.List(c.CalledBy),
			chunkrow.Map(c.K8sLabels), chunkrow.Map(c.Meta), string(ec.Clean.Sensitivity()), ec.Clean.Scrubbed()).Scan(&pk)
		if err != nil {
			return s.db.wrap(fmt.Sprintf("write chunk %s:%d-%d to", c.SourceURI, c.LineStart, c.LineEnd), err)
		}
		for _, cl := range c.Calls {
			if _, err := s.insCall.ExecContext(ctx, c.ID, s.src.Name, c.FilePath, cl.Line, string(cl.Kind), cl.System, cl.Method,
				cl.Target, string(cl.Origin), cl.Base, cl.Env, cl.Config, cl.Default, cl.Client, cl.Text); err != nil {
				return s.db.wrap(fmt.Sprintf("write call of %s:%d to", c.SourceURI, cl.Line), err)
			}
		}
		for _, r := range c.Resources {
			body, err := json.Marshal(r)
			if err != nil {
				return fmt.Errorf("write resources of %s:%d: %w", c.SourceURI, r.Line, err)
			}
			if _, err := s.insRes.ExecContext(ctx, c.ID, s.src.Name, c.FilePath, r.Line, r.Kind, r.Name, r.Namespace, r.Service, string(body)); err != nil {
				return s.db.wrap(fmt.Sprintf("write resource of %s:%d to", c.SourceURI, r.Line), err)
			}
		}
		for _, bnd := range c.Bindings {
			body, err := json.Marshal(bnd)
			if err != nil {
				return fmt.Errorf("write bindings of %s:%d: %w", c.SourceURI, bnd.Line, err)
			}
			if _, err := s.insBind.ExecContext(ctx, c.ID, s.src.Name, c.FilePath, bnd.Line, string(body)); err != nil {
				return s.db.wrap(fmt.Sprintf("write binding of %s:%d to", c.SourceURI, bnd.Line), err)
			}
		}
		for _, r := range c.Refs {
			if _, err := s.insRef.ExecContext(ctx, c.ID, r.Name, r.Kind); err != nil {
				return s.db.wrap(fmt.Sprintf("write references of %s:%d to", c.SourceURI, c.LineStart), err)
			}
		}
		if a := ec.Clean.Audit(); a != nil {
			if _, err := s.insAudit.ExecContext(ctx, a.ChunkID, string(a.Tier), a.EntitiesFound,
				chunkrow.List(a.EntityTypes), a.SecretsFound, a.Scrubbed); err != nil {
				return s.db.wrap("write scrub audit to", err)
			}
		}
		kv, keep := s.kept[c.ID]
		switch {
		case len(ec.Vector) == 0 && keep && kv.sum == embed.TextSum(c.ContextPrefix, c.Text):
			// Unchanged: its vector carries over.
			if _, err := s.insVec.ExecContext(ctx, pk, kv.embedding, string(c.Corpus), c.RepoName, c.Language, c.ServiceName); err != nil {
				return s.db.wrap(fmt.Sprintf("keep vector of %s:%d in", c.SourceURI, c.LineStart), err)
			}
			if _, err := s.insQuant.ExecContext(ctx, pk, kv.i8); err != nil {
				return s.db.wrap(fmt.Sprintf("keep vector of %s:%d in", c.SourceURI, c.LineStart), err)
			}
			s.carried = append(s.carried, pk)
		case len(ec.Vector) == 0:
			// embedded after the crawl (ingest's embed phase)
		case !s.vectors && len(ec.Vector) > 0:
			return fmt.Errorf("write chunk %s:%d: %s has no embedder recorded; call UseEmbedder first", c.SourceURI, c.LineStart, s.db.path)
		default:
			if len(ec.Vector) != dim {
				return fmt.Errorf("write chunk %s:%d: vector has dimension %d, %s expects %d", c.SourceURI, c.LineStart, len(ec.Vector), s.db.path, dim)
			}
			blob, err := vec.SerializeFloat32(ec.Vector)
			if err != nil {
				return err
			}
			if _, err := s.insVec.ExecContext(ctx, pk, blob, string(c.Corpus), c.RepoName, c.Language, c.ServiceName); err != nil {
				return s.db.wrap(fmt.Sprintf("write vector of %s:%d to", c.SourceURI, c.LineStart), err)
			}
			if _, err := s.insQuant.ExecContext(ctx, pk, quantize(ec.Vector)); err != nil {
				return s.db.wrap(fmt.Sprintf("write vector of %s:%d to", c.SourceURI, c.LineStart), err)
			}
		}
		s.chunks[c.Corpus]++
	}
	if s.update {
		// New chunks may reuse the pks of deleted ones: index this file's
		// chunks now rather than "pk > maxPK" at Commit.
		if err := indexFTS(ctx, s.tx, "file_id = ?", fileID); err != nil {
			return s.db.wrap(fmt.Sprintf("index %s/%s in", s.src.Name, f.Path), err)
		}
	}
	s.files++
	return nil
}

// WriteRoutes stores the routes of the source; their chunks must have been
// written.
func (s *SourceTx) WriteRoutes(ctx context.Context, routes []core.RouteAt) error {
	for _, r := range routes {
		var service any
		if id, ok := s.routeServices[routeKey{ingest.FactPos{Chunk: r.ChunkID, Line: r.Line}, r.Method, r.Path}]; ok {
			service = id
		}
		if _, err := s.insRoute.ExecContext(ctx, r.ChunkID, s.src.Name, r.File, r.Line, r.Method, r.Path, r.Framework,
			r.Handler, r.Router, service); err != nil {
			return s.db.wrap(fmt.Sprintf("write route %s %s of %s/%s to", r.Method, r.Path, s.src.Name, r.File), err)
		}
	}
	return nil
}

// Skip records that path was not indexed and why.
func (s *SourceTx) Skip(ctx context.Context, path, reason string) error {
	_, err := s.insSkip.ExecContext(ctx, s.runID, s.sourceID, path, reason, "skip")
	return s.db.wrap("record skip of "+path+" in", err)
}

// Warn records that path was indexed in a weaker way than its type asks
// for, and why.
func (s *SourceTx) Warn(ctx context.Context, path, reason string) error {
	_, err := s.insSkip.ExecContext(ctx, s.runID, s.sourceID, path, reason, "warning")
	return s.db.wrap("record warning for "+path+" in", err)
}

// Commit makes the source's new content visible.
func (s *SourceTx) Commit(ctx context.Context) error {
	if s.done {
		return fmt.Errorf("commit source %s: already finished", s.src.Name)
	}
	files, chunks := s.files, s.chunks
	if !s.update {
		if err := indexFTS(ctx, s.tx, "pk > ?", s.maxPK); err != nil {
			return s.db.wrap("index source "+s.src.Name+" in", err)
		}
	} else {
		// The source's totals, not this update's.
		if err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE source_id = ?`, s.sourceID).Scan(&files); err != nil {
			return s.db.wrap("commit source "+s.src.Name+" to", err)
		}
		chunks = map[core.CorpusType]int{}
		rows, err := s.tx.QueryContext(ctx, `SELECT corpus_type, count(*) FROM chunks WHERE source_id = ? GROUP BY 1`, s.sourceID)
		if err != nil {
			return s.db.wrap("commit source "+s.src.Name+" to", err)
		}
		for rows.Next() {
			var c string
			var n int
			rows.Scan(&c, &n)
			chunks[core.CorpusType(c)] = n
		}
		rows.Close()
	}
	counts, _ := json.Marshal(chunks)
	if _, err := s.tx.ExecContext(ctx, `UPDATE sources SET last_ingest = ?, file_count = ?, chunk_counts = ?, git_commit = ?,
		content_hash = ?, newest_mtime = ? WHERE id = ?`,
		time.Now().UTC().Format(time.RFC3339), files, string(counts), s.src.Commit, s.src.ContentHash, s.src.NewestMTime, s.sourceID); err != nil {
		return s.db.wrap("commit source "+s.src.Name+" to", err)
	}
	if _, err := s.tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('updated_at', ?), ('chunk_count', (SELECT count(*) FROM chunks))
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return s.db.wrap("commit source "+s.src.Name+" to", err)
	}
	if err := addUnindexed(ctx, s.tx, s.unindexed); err != nil {
		return s.db.wrap("commit source "+s.src.Name+" to", err)
	}
	if s.graphDirty {
		if _, err := s.tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('graph_dirty', '1')
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`); err != nil {
			return s.db.wrap("commit source "+s.src.Name+" to", err)
		}
	}
	if len(s.carried) > 0 {
		// The fast KNN pages must hold the carried vectors too.
		if err := s.db.updateVectorIndex(ctx, s.tx, s.carried); err != nil {
			return err
		}
	}
	s.done = true
	if err := s.tx.Commit(); err != nil {
		return s.db.wrap("commit source "+s.src.Name+" to", err)
	}
	return nil
}

// keepVectors reads the vectors of the source's chunks before a replace
// deletes them (see SourceTx.kept).
func (s *SourceTx) keepVectors(ctx context.Context) error {
	if !s.vectors {
		return nil
	}
	rows, err := s.tx.QueryContext(ctx, `SELECT c.id, c.context_prefix, c.text, q.i8, v.embedding
		FROM chunks c JOIN vec_quant q ON q.chunk_pk = c.pk JOIN vec_chunks v ON v.chunk_pk = c.pk
		WHERE c.source_id = ?`, s.sourceID)
	if err != nil {
		return err
	}
	defer rows.Close()
	s.kept = map[string]keptVector{}
	for rows.Next() {
		var id, prefix, text string
		var kv keptVector
		if err := rows.Scan(&id, &prefix, &text, &kv.i8, &kv.embedding); err != nil {
			return err
		}
		kv.sum = embed.TextSum(prefix, text)
		s.kept[id] = kv
	}
	return rows.Err()
}

// Rollback abandons the source's changes; the previous content stays. It
// is a no-op after Commit.
func (s *SourceTx) Rollback() error {
	if s.done {
		return nil
	}
	s.done = true
	return s.tx.Rollback()
}

// ftsTables are the full-text indexes every chunk is in.
var ftsTables = []string{"fts_code", "fts_prose"}

// indexFTS adds the chunks matching where to both FTS5 indexes with one
// statement each, so that FTS5 builds few large segments.
func indexFTS(ctx context.Context, tx *sql.Tx, where string, args ...any) error {
	for _, t := range ftsTables {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+`(rowid, symbol_name, file_path, context_prefix, text)
			SELECT pk, symbol_name, file_path, context_prefix, text FROM chunks WHERE `+where, args...); err != nil {
			return fmt.Errorf("index %s: %w", t, err)
		}
	}
	// The whole files of those chunks, one row each (rowid: the file's
	// id); a conversation's chunks (a thread, a stretch of a meeting) are
	// documents of their own (rowid: minus the chunk's pk).
	if _, err := tx.ExecContext(ctx, `INSERT INTO fts_files(rowid, path, symbols, text)
		SELECT c.file_id, f.path, group_concat(c.symbol_name, ' '), group_concat(c.text, char(10))
		FROM (SELECT file_id, symbol_name, text, corpus_type FROM chunks WHERE `+where+` ORDER BY file_id, byte_start) c
		JOIN files f ON f.id = c.file_id
		WHERE c.corpus_type NOT LIKE 'CONVO%' GROUP BY c.file_id`, args...); err != nil {
		return fmt.Errorf("index fts_files: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO fts_files(rowid, path, symbols, text)
		SELECT -pk, file_path, symbol_name, context_prefix || char(10) || text FROM chunks
		WHERE (`+where+`) AND corpus_type LIKE 'CONVO%'`, args...); err != nil {
		return fmt.Errorf("index fts_files: %w", err)
	}
	return nil
}

// unindexFTS removes the chunks matching where from the FTS5 indexes and
// returns how many it removed; it must run before the chunks are deleted
// (external-content FTS5 needs the indexed values to delete them).
func unindexFTS(ctx context.Context, tx *sql.Tx, where string, args ...any) (int64, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM fts_files WHERE rowid IN (SELECT DISTINCT file_id FROM chunks WHERE `+where+`)
		OR rowid IN (SELECT -pk FROM chunks WHERE (`+where+`) AND corpus_type LIKE 'CONVO%')`, append(append([]any{}, args...), args...)...); err != nil {
		return 0, fmt.Errorf("unindex fts_files: %w", err)
	}
	var n int64
	for _, t := range ftsTables {
		res, err := tx.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`, rowid, symbol_name, file_path, context_prefix, text)
			SELECT 'delete', pk, symbol_name, file_path, context_prefix, text FROM chunks WHERE `+where, args...)
		if err != nil {
			return 0, fmt.Errorf("unindex %s: %w", t, err)
		}
		if n, err = res.RowsAffected(); err != nil {
			return 0, fmt.Errorf("unindex %s: %w", t, err)
		}
	}
	return n, nil
}

// addUnindexed adds n chunks removed from the FTS5 indexes to the count
// that says when they are worth compacting (Compact): FTS5 keeps a removed
// row's entries until its segments merge.
func addUnindexed(ctx context.Context, tx *sql.Tx, n int64) error {
	if n == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('fts_unindexed', ?)
		ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)`, n)
	return err
}
