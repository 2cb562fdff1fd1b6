package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/sqlite/internal/chunkrow"
)

var (
	_ ingest.SourceUpdater = (*SourceTx)(nil)
)

// StartRun records the start of a crawl and returns its id. Unlike the
// SQLite file, other crawlers may be running: their runs stay "running".
func (db *DB) StartRun(ctx context.Context, args string) (int64, error) {
	var id int64
	err := db.pool.QueryRow(ctx, `INSERT INTO crawl_runs(started, status, args) VALUES ($1, 'running', $2) RETURNING id`,
		time.Now().UTC().Format(time.RFC3339), args).Scan(&id)
	return id, db.wrap("start crawl run in", err)
}

// FinishRun records the end of crawl run id.
func (db *DB) FinishRun(ctx context.Context, id int64, r core.CrawlRun) error {
	_, err := db.pool.Exec(ctx, `UPDATE crawl_runs SET finished = $1, status = $2, sources = $3, files = $4,
		chunks = $5, skipped = $6, errors = $7, error = $8 WHERE id = $9`,
		time.Now().UTC().Format(time.RFC3339), r.Status, r.Sources, r.Files, r.Chunks, r.Skipped, r.Errors, r.Error, id)
	return db.wrap("finish crawl run in", err)
}

// SourceTx replaces or updates what one source holds inside one
// transaction, under an advisory lock named after the source: readers
// see the previous state until Commit, a crawler killed before Commit
// leaves it untouched, and a second crawler of the same source waits for
// the first. It is not safe for concurrent use.
type SourceTx struct {
	db       *DB
	tx       pgx.Tx
	src      core.Source
	prev     core.Source
	sourceID int64
	runID    int64
	update   bool
	dirty    bool // the graph's input changed
	files    int
	chunks   map[core.CorpusType]int
	done     bool
	// kept are the vectors of the source's chunks before a replace, by
	// chunk id: a chunk written again with the same text gets its vector
	// back in the same transaction.
	kept map[string]keptVector
}

type keptVector struct {
	sum  [32]byte
	vec  []byte
	bits string
}

// lockSource takes the advisory lock of source name for the transaction:
// crawlers of one source take turns, crawlers of different sources do not
// wait for each other. Unless the store waits (SetWaitForSources), a
// source held by another crawler is an error naming that crawler.
func (db *DB) lockSource(ctx context.Context, tx pgx.Tx, name string) error {
	what := "lock source " + name + " in"
	if db.wait {
		_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('coderag source'), hashtext($1))`, name)
		return db.wrap(what, err)
	}
	var ok bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtext('coderag source'), hashtext($1))`, name).Scan(&ok); err != nil {
		return db.wrap(what, err)
	}
	if ok {
		return nil
	}
	holder := "another crawler"
	var app, addr string
	var pid int
	var since time.Time
	err := tx.QueryRow(ctx, `SELECT a.application_name, coalesce(host(a.client_addr), 'a local socket'), a.pid, a.xact_start
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
		  AND l.classid::bigint = (hashtext('coderag source')::bigint & 4294967295)
		  AND l.objid::bigint = (hashtext($1)::bigint & 4294967295) LIMIT 1`, name).Scan(&app, &addr, &pid, &since)
	if err == nil {
		holder = fmt.Sprintf("%q (from %s, server pid %d, since %s)", app, addr, pid, since.UTC().Format(time.RFC3339))
	}
	return fmt.Errorf("source %s in %s is being written by %s; wait with crawl --wait", name, db.name, holder)
}

// BeginSource starts replacing the stored content of src for crawl run
// runID. It waits while another crawler writes the same source.
func (db *DB) BeginSource(ctx context.Context, runID int64, src core.Source) (ingest.SourceWriter, error) {
	return db.begin(ctx, runID, src, false)
}

// BeginSourceUpdate starts changing the stored content of src file by
// file: files not written or deleted keep their chunks.
func (db *DB) BeginSourceUpdate(ctx context.Context, runID int64, src core.Source) (ingest.SourceUpdater, error) {
	return db.begin(ctx, runID, src, true)
}

func (db *DB) begin(ctx context.Context, runID int64, src core.Source, update bool) (*SourceTx, error) {
	what := "begin source " + src.Name + " in"
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	s := &SourceTx{db: db, tx: tx, src: src, runID: runID, update: update, chunks: map[core.CorpusType]int{}}
	if err := s.begin(ctx); err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

func (s *SourceTx) begin(ctx context.Context) error {
	db, tx := s.db, s.tx
	what := "begin source " + s.src.Name + " in"
	if err := db.lockSource(ctx, tx, s.src.Name); err != nil {
		return err
	}
	var other string
	err := tx.QueryRow(ctx, `SELECT uri FROM sources WHERE repo_name = $1 AND uri <> $2`, s.src.Name, s.src.Path).Scan(&other)
	switch {
	case err == nil:
		return fmt.Errorf("source %s: the name %q is already used by %s in %s; pass another --repo-name", s.src.Path, s.src.Name, other, db.name)
	case !errors.Is(err, pgx.ErrNoRows):
		return db.wrap(what, err)
	}
	err = tx.QueryRow(ctx, `INSERT INTO sources(kind, uri, repo_name) VALUES ($1, $2, $3)
		ON CONFLICT (uri) DO UPDATE SET kind = excluded.kind, repo_name = excluded.repo_name
		RETURNING id, coalesce(git_commit, ''), coalesce(content_hash, ''), coalesce(newest_mtime, 0)`,
		string(s.src.Kind), s.src.Path, s.src.Name).Scan(&s.sourceID, &s.prev.Commit, &s.prev.ContentHash, &s.prev.NewestMTime)
	if err != nil {
		return db.wrap(what, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM crawl_skips WHERE source_id = $1`, s.sourceID); err != nil {
		return db.wrap(what, err)
	}
	if s.update {
		return nil
	}
	s.dirty = true
	if err := s.keepVectors(ctx); err != nil {
		return db.wrap("read vectors of source "+s.src.Name+" from", err)
	}
	// Chunks go with their files (cascade), facts and vectors with their
	// chunks.
	for _, q := range []string{`DELETE FROM docs WHERE source_id = $1`, `DELETE FROM chunks WHERE source_id = $1`, `DELETE FROM files WHERE source_id = $1`} {
		if _, err := tx.Exec(ctx, q, s.sourceID); err != nil {
			return db.wrap("clear source "+s.src.Name+" in", err)
		}
	}
	return nil
}

func (s *SourceTx) keepVectors(ctx context.Context) error {
	rows, err := s.tx.Query(ctx, `SELECT c.id, c.context_prefix, c.text, v.vec, v.bits::text FROM chunks c
		JOIN vectors v ON v.chunk_pk = c.pk WHERE c.source_id = $1`, s.sourceID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, prefix, text string
		var kv keptVector
		if err := rows.Scan(&id, &prefix, &text, &kv.vec, &kv.bits); err != nil {
			return err
		}
		kv.sum = embed.TextSum(prefix, text)
		if s.kept == nil {
			s.kept = map[string]keptVector{}
		}
		s.kept[id] = kv
	}
	return rows.Err()
}

// SetFingerprint records the source's content hash or newest file time;
// Commit stores them.
func (s *SourceTx) SetFingerprint(contentHash string, newestMTime int64) {
	s.src.ContentHash, s.src.NewestMTime = contentHash, newestMTime
}

// Outdated reports whether the stored git commit, content hash or newest
// file time differ from this crawl's.
func (s *SourceTx) Outdated() bool {
	return s.src.Commit != s.prev.Commit || s.src.ContentHash != s.prev.ContentHash || s.src.NewestMTime != s.prev.NewestMTime
}

// StoredFiles returns the files the source holds, by path.
func (s *SourceTx) StoredFiles(ctx context.Context) (map[string]ingest.StoredFile, error) {
	what := "read files of " + s.src.Name + " from"
	rows, err := s.tx.Query(ctx, `SELECT path, content_hash, size, mtime, mounts FROM files WHERE source_id = $1`, s.sourceID)
	if err != nil {
		return nil, s.db.wrap(what, err)
	}
	defer rows.Close()
	out := map[string]ingest.StoredFile{}
	for rows.Next() {
		var path, mounts string
		var sf ingest.StoredFile
		if err := rows.Scan(&path, &sf.Hash, &sf.Size, &sf.ModTime, &mounts); err != nil {
			return nil, s.db.wrap(what, err)
		}
		if mounts != "[]" {
			if err := json.Unmarshal([]byte(mounts), &sf.Mounts); err != nil {
				return nil, fmt.Errorf("%s %s: mounts of %s: %w", what, s.db.name, path, err)
			}
		}
		out[path] = sf
	}
	return out, s.db.wrap(what, rows.Err())
}

// DeleteFile removes a file with its chunks, documents, facts and vectors.
func (s *SourceTx) DeleteFile(ctx context.Context, path string) error {
	found, facts, err := s.deleteFile(ctx, path)
	if ingest.ChangesGraph(path, found, facts, false, "") {
		s.dirty = true
	}
	return err
}

func (s *SourceTx) deleteFile(ctx context.Context, path string) (found bool, facts string, err error) {
	err = s.tx.QueryRow(ctx, `DELETE FROM files WHERE source_id = $1 AND path = $2 RETURNING facts`, s.sourceID, path).Scan(&facts)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, "", nil
	}
	if err != nil {
		return false, "", s.db.wrap(fmt.Sprintf("delete %s/%s from", s.src.Name, path), err)
	}
	return true, facts, nil
}

// Touch records the size and modification time of an unchanged file.
func (s *SourceTx) Touch(ctx context.Context, f core.File) error {
	_, err := s.tx.Exec(ctx, `UPDATE files SET size = $1, mtime = $2 WHERE source_id = $3 AND path = $4`,
		f.Size, ingest.TrustedMTime(f.ModTime, time.Now()), s.sourceID, f.Path)
	return s.db.wrap(fmt.Sprintf("update %s/%s in", s.src.Name, f.Path), err)
}

const insChunkSQL = `INSERT INTO chunks(id, source_id, file_id, source_uri, byte_start, byte_end, line_start, line_end,
	corpus_type, text, context_prefix, language, symbol_name, symbol_kind, signature, file_path, git_hash,
	section_path, author, "timestamp", channel, thread_id, service_name, repo_name, imports, calls_out,
	called_by, k8s_labels, meta, sensitivity, scrubbed, code_tsv, code_len, prose_tsv, prose_len)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
	$23, $24, $25, $26, $27, $28, $29, $30, $31, $32::tsvector, $33, $34::tsvector, $35) RETURNING pk`

// WriteFile stores one file with its chunks, their facts and the file's
// whole-file document, in three round trips (the file, its chunks, the
// rest). A chunk may carry a vector of the index's dimension (UseEmbedder
// first); the others are embedded later.
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
		found, old, err := s.deleteFile(ctx, f.Path)
		if err != nil {
			return err
		}
		if ingest.ChangesGraph(f.Path, found, old, true, facts) {
			s.dirty = true
		}
	}
	now := time.Now()
	var fileID int64
	if err := s.tx.QueryRow(ctx, `INSERT INTO files(source_id, path, content_hash, size, language, corpus_type, chunk_count,
		indexed_at, facts, mtime, shape, positions) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
		s.sourceID, f.Path, hash, f.Size, f.Language, string(f.Corpus), len(chunks), now.UTC().Format(time.RFC3339), facts,
		ingest.TrustedMTime(f.ModTime, now), shape, string(posJSON)).Scan(&fileID); err != nil {
		return s.db.wrap(fmt.Sprintf("write file %s/%s to", s.src.Name, f.Path), err)
	}
	// The chunks, in one round trip.
	var rows pgx.Batch
	textToks := make([][]token, len(chunks)) // each chunk's text as code tokens, for the file's document
	for i, ec := range chunks {
		if !ec.Clean.Valid() {
			return fmt.Errorf("write %s/%s: chunk did not pass the scrub gate", s.src.Name, f.Path)
		}
		c := ec.Clean.Chunk()
		fields := []field{{c.SymbolName, 'A'}, {c.FilePath, 'B'}, {c.ContextPrefix, 'C'}, {c.Text, 'D'}}
		textToks[i] = codeText.tokens(c.Text)
		codeTSV, codeLen := tsvectorOf(analyzed{codeText.tokens(c.SymbolName), 'A'}, analyzed{codeText.tokens(c.FilePath), 'B'},
			analyzed{codeText.tokens(c.ContextPrefix), 'C'}, analyzed{textToks[i], 'D'})
		proseTSV, proseLen := proseText.tsvector(fields...)
		rows.Queue(insChunkSQL, c.ID, s.sourceID, fileID, c.SourceURI, c.ByteStart, c.ByteEnd,
			c.LineStart, c.LineEnd, string(c.Corpus), c.Text, c.ContextPrefix, c.Language, c.SymbolName,
			c.SymbolKind, c.Signature, c.FilePath, c.GitHash, c.SectionPath, c.Author, c.Timestamp, c.Channel,
			c.ThreadID, c.ServiceName, c.RepoName, chunkrow.List(c.Imports), chunkrow.List(c.CallsOut), chunkrow.List(c.CalledBy),
			chunkrow.Map(c.K8sLabels), chunkrow.Map(c.Meta), string(ec.Clean.Sensitivity()), ec.Clean.Scrubbed(),
			codeTSV, codeLen, proseTSV, proseLen)
	}
	pks := make([]int64, len(chunks))
	br := s.tx.SendBatch(ctx, &rows)
	for i, ec := range chunks {
		if err := br.QueryRow().Scan(&pks[i]); err != nil {
			br.Close()
			c := ec.Clean.Chunk()
			return s.db.wrap(fmt.Sprintf("write chunk %s:%d-%d to", c.SourceURI, c.LineStart, c.LineEnd), err)
		}
	}
	if err := br.Close(); err != nil {
		return s.db.wrap(fmt.Sprintf("write the chunks of %s/%s to", s.src.Name, f.Path), err)
	}
	// Their facts, audits, vectors and documents, in another.
	var rest pgx.Batch
	dim := s.db.Embedder().Dim
	ann := dim > 0 && s.db.annDim() == dim // fill pgvector's column too (ann.go)
	var symbols []string
	var fileToks []token // the file's text as the docs analyzer's tokens: the chunks' code tokens, stemmed
	for i, ec := range chunks {
		c, pk := ec.Clean.Chunk(), pks[i]
		where := fmt.Sprintf("%s:%d-%d", c.SourceURI, c.LineStart, c.LineEnd)
		if err := s.queueFacts(&rest, c); err != nil {
			return err
		}
		if a := ec.Clean.Audit(); a != nil {
			rest.Queue(`INSERT INTO scrub_audit(chunk_id, tier, entities_found, entity_types, secrets_found, scrubbed)
				VALUES ($1, $2, $3, $4, $5, $6)`, a.ChunkID, string(a.Tier), a.EntitiesFound, chunkrow.List(a.EntityTypes), a.SecretsFound, a.Scrubbed)
		}
		kv, keep := s.kept[c.ID]
		switch {
		case len(ec.Vector) == 0 && keep && kv.sum == embed.TextSum(c.ContextPrefix, c.Text) && ann && len(kv.vec) == 4*dim:
			rest.Queue(`INSERT INTO vectors(chunk_pk, vec, bits, emb) VALUES ($1, $2, $3::bit varying, $4::vector)`, pk, kv.vec, kv.bits, vectorText(chunkrow.Floats(kv.vec)))
		case len(ec.Vector) == 0 && keep && kv.sum == embed.TextSum(c.ContextPrefix, c.Text):
			rest.Queue(`INSERT INTO vectors(chunk_pk, vec, bits) VALUES ($1, $2, $3::bit varying)`, pk, kv.vec, kv.bits)
		case len(ec.Vector) == 0:
		case dim == 0:
			return fmt.Errorf("write chunk %s: %s has no embedder recorded; call UseEmbedder first", where, s.db.name)
		case len(ec.Vector) != dim:
			return fmt.Errorf("write chunk %s: vector has dimension %d, %s expects %d", where, len(ec.Vector), s.db.name, dim)
		case ann:
			rest.Queue(`INSERT INTO vectors(chunk_pk, vec, bits, emb) VALUES ($1, $2, $3::bit varying, $4::vector)`, pk, floatBytes(ec.Vector), signBits(ec.Vector), vectorText(ec.Vector))
		default:
			rest.Queue(`INSERT INTO vectors(chunk_pk, vec, bits) VALUES ($1, $2, $3::bit varying)`, pk, floatBytes(ec.Vector), signBits(ec.Vector))
		}
		if strings.HasPrefix(string(c.Corpus), "CONVO") {
			// A thread or a stretch of a meeting is a document of its own.
			tsv, n := docText.tsvector(field{c.FilePath, 'A'}, field{c.SymbolName, 'B'}, field{c.ContextPrefix + "\n" + c.Text, 'D'})
			rest.Queue(`INSERT INTO docs(source_id, chunk_pk, tsv, len) VALUES ($1, $2, $3::tsvector, $4)`, s.sourceID, pk, tsv, n)
		} else {
			symbols = append(symbols, c.SymbolName)
			fileToks = append(fileToks, stemmed(textToks[i], lastPos(fileToks))...)
		}
		s.chunks[c.Corpus]++
	}
	if len(symbols) > 0 {
		// As docText.tsvector of the path, the symbols and the chunks'
		// texts joined by newlines, without tokenizing the texts again.
		tsv, n := tsvectorOf(analyzed{docText.tokens(f.Path), 'A'}, analyzed{docText.tokens(strings.Join(symbols, " ")), 'B'}, analyzed{fileToks, 'D'})
		rest.Queue(`INSERT INTO docs(source_id, file_id, tsv, len) VALUES ($1, $2, $3::tsvector, $4)`, s.sourceID, fileID, tsv, n)
	}
	if rest.Len() > 0 {
		if err := s.tx.SendBatch(ctx, &rest).Close(); err != nil {
			return s.db.wrap(fmt.Sprintf("write the facts, vectors and document of %s/%s to", s.src.Name, f.Path), err)
		}
	}
	s.files++
	return nil
}

// queueFacts queues what the service graph is built from in chunk c.
func (s *SourceTx) queueFacts(b *pgx.Batch, c core.Chunk) error {
	for _, cl := range c.Calls {
		b.Queue(`INSERT INTO calls(chunk_id, repo_name, file_path, line, kind, system, method, target, origin, base,
			env, config, default_value, client, text) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
			c.ID, s.src.Name, c.FilePath, cl.Line, string(cl.Kind), cl.System, cl.Method, cl.Target, string(cl.Origin), cl.Base,
			cl.Env, cl.Config, cl.Default, cl.Client, cl.Text)
	}
	for _, r := range c.Resources {
		body, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("write resources of %s:%d: %w", c.SourceURI, r.Line, err)
		}
		b.Queue(`INSERT INTO resources(chunk_id, repo_name, file_path, line, kind, name, namespace, service, body)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, c.ID, s.src.Name, c.FilePath, r.Line, r.Kind, r.Name, r.Namespace, r.Service, string(body))
	}
	for _, bnd := range c.Bindings {
		body, err := json.Marshal(bnd)
		if err != nil {
			return fmt.Errorf("write bindings of %s:%d: %w", c.SourceURI, bnd.Line, err)
		}
		b.Queue(`INSERT INTO bindings(chunk_id, repo_name, file_path, line, body) VALUES ($1, $2, $3, $4, $5)`,
			c.ID, s.src.Name, c.FilePath, bnd.Line, string(body))
	}
	for _, r := range c.Refs {
		b.Queue(`INSERT INTO symbol_refs(chunk_id, name, kind) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, c.ID, r.Name, r.Kind)
	}
	return nil
}

// WriteRoutes stores the routes of the source; their chunks must have been
// written.
func (s *SourceTx) WriteRoutes(ctx context.Context, routes []core.RouteAt) error {
	for _, r := range routes {
		if _, err := s.tx.Exec(ctx, `INSERT INTO routes(chunk_id, repo_name, file_path, line, method, path, framework, handler, router)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, r.ChunkID, s.src.Name, r.File, r.Line, r.Method, r.Path, r.Framework, r.Handler, r.Router); err != nil {
			return s.db.wrap(fmt.Sprintf("write route %s %s of %s/%s to", r.Method, r.Path, s.src.Name, r.File), err)
		}
	}
	return nil
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
	_, err = s.tx.Exec(ctx, `UPDATE files SET mounts = $1 WHERE source_id = $2 AND path = $3`, string(b), s.sourceID, path)
	return s.db.wrap(fmt.Sprintf("write mounts of %s/%s to", s.src.Name, path), err)
}

// Skip records that path was not indexed and why.
func (s *SourceTx) Skip(ctx context.Context, path, reason string) error {
	_, err := s.tx.Exec(ctx, `INSERT INTO crawl_skips(run_id, source_id, path, reason, kind) VALUES ($1, $2, $3, $4, 'skip')`,
		s.runID, s.sourceID, path, reason)
	return s.db.wrap("record skip of "+path+" in", err)
}

// Warn records that path was indexed in a weaker way than its type asks
// for, and why.
func (s *SourceTx) Warn(ctx context.Context, path, reason string) error {
	_, err := s.tx.Exec(ctx, `INSERT INTO crawl_skips(run_id, source_id, path, reason, kind) VALUES ($1, $2, $3, $4, 'warning')`,
		s.runID, s.sourceID, path, reason)
	return s.db.wrap("record warning for "+path+" in", err)
}

// Commit makes the source's new content visible: its totals (counts per
// corpus type, the token sums BM25 averages over) are computed from what
// it holds now, and the graph is marked for rebuilding when its input
// changed.
func (s *SourceTx) Commit(ctx context.Context) error {
	if s.done {
		return fmt.Errorf("commit source %s: already finished", s.src.Name)
	}
	what := "commit source " + s.src.Name + " to"
	chunks := map[core.CorpusType]int{}
	rows, err := s.tx.Query(ctx, `SELECT corpus_type, count(*) FROM chunks WHERE source_id = $1 GROUP BY 1`, s.sourceID)
	if err != nil {
		return s.db.wrap(what, err)
	}
	for rows.Next() {
		var c string
		var n int
		if err := rows.Scan(&c, &n); err != nil {
			rows.Close()
			return s.db.wrap(what, err)
		}
		chunks[core.CorpusType(c)] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s.db.wrap(what, err)
	}
	counts, _ := json.Marshal(chunks)
	if _, err := s.tx.Exec(ctx, `UPDATE sources SET last_ingest = $1, chunk_counts = $2, git_commit = $3, content_hash = $4, newest_mtime = $5,
		file_count = (SELECT count(*) FROM files WHERE source_id = $6),
		chunk_total = c.n, code_tokens = c.code, prose_tokens = c.prose, doc_count = d.n, doc_tokens = d.len
		FROM (SELECT count(*) n, coalesce(sum(code_len), 0) code, coalesce(sum(prose_len), 0) prose FROM chunks WHERE source_id = $6) c,
		     (SELECT count(*) n, coalesce(sum(len), 0) len FROM docs WHERE source_id = $6) d
		WHERE id = $6`,
		time.Now().UTC().Format(time.RFC3339), string(counts), s.src.Commit, s.src.ContentHash, s.src.NewestMTime, s.sourceID); err != nil {
		return s.db.wrap(what, err)
	}
	if err := setMeta(ctx, s.tx, "updated_at", time.Now().UTC().Format(time.RFC3339)); err != nil {
		return s.db.wrap(what, err)
	}
	if s.dirty {
		if err := setMeta(ctx, s.tx, "graph_dirty", newDirtyMark()); err != nil {
			return s.db.wrap(what, err)
		}
	}
	s.done = true
	if err := s.tx.Commit(ctx); err != nil {
		return s.db.wrap(what, err)
	}
	if err := s.db.bumpVectors(ctx); err != nil {
		return err
	}
	// Merge the GIN indexes' pending lists now (they fill fast during a
	// crawl): every query would otherwise scan them. After a large write,
	// refresh the planner's statistics too: with a new table's, it scans
	// whole tables instead of using the indexes.
	// Both need the tables' owner; another role's crawls leave it to
	// autovacuum.
	if _, err := s.db.pool.Exec(ctx, `SELECT gin_clean_pending_list('chunks_code_tsv'::regclass),
		gin_clean_pending_list('chunks_prose_tsv'::regclass), gin_clean_pending_list('docs_tsv'::regclass)`); err != nil && !notOwner(err) {
		return s.db.wrap("merge the full-text indexes of", err)
	}
	written := 0
	for _, n := range s.chunks {
		written += n
	}
	if written >= analyzeAfter {
		if _, err := s.db.pool.Exec(ctx, `ANALYZE chunks, docs, files, vectors`); err != nil && !notOwner(err) {
			return s.db.wrap("analyze", err)
		}
	}
	return nil
}

// notOwner reports whether err is PostgreSQL refusing an operation that
// only a table's owner may run.
func notOwner(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501"
}

// analyzeAfter is how many chunks a commit writes before it refreshes the
// planner's statistics (autovacuum does it too, later).
const analyzeAfter = 500

func setMeta(ctx context.Context, tx pgx.Tx, key, value string) error {
	_, err := tx.Exec(ctx, `INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// Rollback abandons the source's changes; the previous content stays. It
// is a no-op after Commit.
func (s *SourceTx) Rollback() error {
	if s.done {
		return nil
	}
	s.done = true
	return s.tx.Rollback(context.Background())
}

// SourceNames returns the names of the sources the index holds, sorted.
func (db *DB) SourceNames(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT repo_name FROM sources ORDER BY repo_name`)
	if err != nil {
		return nil, db.wrap("read sources of", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return names, db.wrap("read sources of", err)
}

// RepoRoots returns the path each repository source was crawled from,
// by name.
func (db *DB) RepoRoots(ctx context.Context) (map[string]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT repo_name, uri FROM sources WHERE kind = $1`, string(core.SourceRepo))
	if err != nil {
		return nil, db.wrap("read repository paths of", err)
	}
	out := map[string]string{}
	var name, uri string
	_, err = pgx.ForEachRow(rows, []any{&name, &uri}, func() error {
		out[name] = uri
		return nil
	})
	return out, db.wrap("read repository paths of", err)
}

// DeleteSource removes the source named name with everything it holds, in
// one transaction under the source's lock, and marks the service graph
// for rebuilding.
func (db *DB) DeleteSource(ctx context.Context, name string) error {
	what := "remove source " + name + " from"
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return db.wrap(what, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := db.lockSource(ctx, tx, name); err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `DELETE FROM sources WHERE repo_name = $1`, name)
	if err != nil {
		return db.wrap(what, err)
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	if err := setMeta(ctx, tx, "graph_dirty", newDirtyMark()); err != nil {
		return db.wrap(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return db.wrap(what, err)
	}
	return db.bumpVectors(ctx)
}
