package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"

	vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"coderag/core"
	"coderag/sqlite/internal/chunkrow"
)

// placeholders is n comma-separated SQL parameters.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// metaConds turns the filter's metadata parts (corpus, repo, language,
// service) into conditions on columns named prefix+column: the chunks
// table (prefix "c.") and vec0's metadata columns (prefix "") share the
// names.
func metaConds(prefix string, f core.Filter) ([]string, []any) {
	var conds []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		conds = append(conds, prefix+col+" IN ("+placeholders(len(vals))+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	corpus := make([]string, len(f.Corpus))
	for i, c := range f.Corpus {
		corpus[i] = string(c)
	}
	in("corpus_type", corpus)
	in("repo_name", f.Repo)
	in("language", f.Language)
	in("service_name", f.Service)
	return conds, args
}

// filterSQL turns f into conditions on chunk alias c.
func filterSQL(f core.Filter) (string, []any) {
	conds, args := metaConds("c.", f)
	if len(f.Path) > 0 {
		var ors []string
		for _, p := range f.Path {
			ors = append(ors, "c.file_path GLOB ?")
			args = append(args, p)
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	for _, p := range f.NotPath {
		conds = append(conds, "c.file_path NOT GLOB ?")
		args = append(args, p)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(conds, " AND "), args
}

// BM25 runs an FTS5 MATCH expression against one of the two full-text
// indexes ("code" or "prose") and returns the best k hits, best first. The
// hit's score is the negated bm25 rank (higher is better). match must be a
// valid FTS5 expression; core/search builds one from user text.
func (db *DB) BM25(ctx context.Context, index, match string, k int, f core.Filter) ([]core.Hit, error) {
	var table string
	switch index {
	case "code":
		table = "fts_code"
	case "prose":
		table = "fts_prose"
	default:
		return nil, fmt.Errorf("bm25: unknown index %q (want code or prose)", index)
	}
	if k <= 0 {
		return nil, nil
	}
	where, args := filterSQL(f)
	list := "bm25-" + index
	return ranked(ctx, db, table, func(r ranking) ([]core.Hit, bool, error) {
		return db.bm25With(ctx, r, table, match, where, args, k, list)
	})
}

// bm25With is BM25 ranked by r; fresh is false when r's row lengths were
// not those of the index the statement read, and its hits are to be thrown
// away.
func (db *DB) bm25With(ctx context.Context, r ranking, table, match, where string, args []any, k int, list string) (_ []core.Hit, fresh bool, _ error) {
	// The k + tieRoom best rows first, then their chunks: chunk rows are
	// read for those alone.
	from := table
	if where != "" {
		from += ` JOIN chunks c ON c.pk = ` + table + `.rowid`
	}
	q := `SELECT ` + chunkrow.Cols + `, t.r, t.fresh FROM (
		SELECT ` + table + `.rowid AS pk, ` + r.expr + ` AS r, ` + r.fresh + ` AS fresh FROM ` + from + `
		WHERE ` + table + ` MATCH ?` + where + ` ORDER BY r, ` + table + `.rowid LIMIT ?) t
		JOIN chunks c ON c.pk = t.pk ORDER BY t.r, t.pk`
	read := func(limit int) ([]core.Hit, bool, error) {
		rows, err := db.query(ctx, q, append(append([]any{match}, args...), limit)...)
		if err != nil {
			return nil, false, db.bm25Error(match, err)
		}
		defer rows.Close()
		var hits []core.Hit
		for rows.Next() {
			var rank float64
			var ok bool
			c, err := chunkrow.Scan(rows, &rank, &ok)
			if err != nil {
				return nil, false, db.wrap("read bm25 hits from", err)
			}
			if !ok {
				return nil, false, nil
			}
			hits = append(hits, core.Hit{Chunk: c, Score: -rank, Lists: []core.ListRank{{List: list, Rank: len(hits) + 1, Score: -rank}}})
		}
		if err := rows.Err(); err != nil {
			return nil, false, db.bm25Error(match, err)
		}
		return hits, true, nil
	}
	// Rows past k, so that chunks tied with the k-th are chosen among by
	// chunk ID (SettleTies), not by row ID (the order a crawl wrote them
	// in): as many as it takes to hold the k-th's ties whole.
	for limit := k + tieRoom; ; limit = min(4*limit, maxTieRead) {
		hits, fresh, err := read(limit)
		if err != nil || !fresh {
			return nil, fresh, err
		}
		keep, more := wholeTies(len(hits), limit, k, func(i int) bool { return hits[i].Score == hits[i-1].Score })
		if !more || limit >= maxTieRead {
			if more {
				keep = len(hits) // as many copies as that: row order decides the rest
			}
			hits = hits[:keep]
			core.SettleTies(hits)
			return hits[:min(len(hits), k)], true, nil
		}
	}
}

// tieRoom is how many rows past the k wanted a list reads first, to settle
// ties at the k-th by chunk ID.
const tieRoom = 8

// maxTieRead is the most rows a list reads to hold the ties of its k-th
// whole: past it (thousands of copies of one text), the order rows were
// written in chooses among them.
const maxTieRead = 4096

// wholeTies returns how many of the n rows read (best first; limit asked)
// to keep for the want best: want, and past it the rows tied with the
// want-th. more is true when those ties run to the last row and the limit
// was reached: they may go on past it, and more rows are to be read.
// tied(i) is whether row i ties row i-1.
func wholeTies(n, limit, want int, tied func(i int) bool) (keep int, more bool) {
	keep = core.WithTies(n, want, tied)
	return keep, n > want && keep == n && n == limit
}

// List returns up to k chunks the filter admits — code and config first,
// then docs, then conversations, each in repository, file and line order:
// a query that is all filters (service:cart) lists them.
func (db *DB) List(ctx context.Context, f core.Filter, k int) ([]core.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	where, args := filterSQL(f)
	q := `SELECT ` + chunkrow.Cols + `, 0 FROM chunks c WHERE 1 = 1` + where + ` ORDER BY CASE WHEN c.corpus_type LIKE 'CODE%' THEN 0 WHEN c.corpus_type LIKE 'DOC%' THEN 1 ELSE 2 END,
		c.repo_name, c.file_path, c.line_start LIMIT ?`
	rows, err := db.query(ctx, q, append(args, k)...)
	if err != nil {
		return nil, db.wrap("list chunks of", err)
	}
	defer rows.Close()
	var hits []core.Hit
	for rows.Next() {
		var zero float64
		c, err := chunkrow.Scan(rows, &zero)
		if err != nil {
			return nil, db.wrap("list chunks of", err)
		}
		hits = append(hits, core.Hit{Chunk: c, Lists: []core.ListRank{{List: "filter", Rank: len(hits) + 1}}})
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("list chunks of", err)
	}
	return hits, nil
}

// FilterValues returns the distinct values a filter field ("service" or
// "repo") has in the index, sorted.
func (db *DB) FilterValues(ctx context.Context, field string) ([]string, error) {
	col := map[string]string{"service": "service_name", "repo": "repo_name", "language": "language"}[field]
	if col == "" {
		return nil, fmt.Errorf("filter values: unknown field %q (want service, repo or language)", field)
	}
	rows, err := db.query(ctx, `SELECT DISTINCT `+col+` FROM chunks WHERE `+col+` != '' ORDER BY 1`)
	if err != nil {
		return nil, db.wrap("read the "+field+" names of", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, db.wrap("read the "+field+" names of", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (db *DB) bm25Error(match string, err error) error {
	if strings.Contains(err.Error(), "fts5: syntax error") {
		return fmt.Errorf("full-text query %q: %w: %v", match, core.ErrBadQuery, err)
	}
	return db.wrap("full-text search in", err)
}

// KNN returns the k chunks whose vectors are nearest (cosine) to v, best
// first, with the filter applied inside the KNN where vec0 can (corpus,
// repo, language, service) and after it otherwise. The score is
// 1 - cosine distance. An unfiltered search over an index of
// Options.PrefilterFrom vectors or more goes through the sign-bit pages
// instead (knnPaged): exact vec0 KNN reads every float vector.
func (db *DB) KNN(ctx context.Context, v []float32, k int, f core.Filter) ([]core.Hit, error) {
	hits, err := db.knn(ctx, v, k, f)
	if err != nil && ctx.Err() == nil && (missingVectorTable(err) || db.vectorsReplaced(ctx)) {
		return nil, fmt.Errorf("vector search in %s: %w", db.path, core.ErrVectorsReplaced)
	}
	return hits, err
}

// vectorsReplaced reports whether the vector table or the embedder this
// handle opened the index with is gone: a crawl re-embeds.
func (db *DB) vectorsReplaced(ctx context.Context) bool {
	var table int
	var id string
	err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'vec_chunks'),
		coalesce((SELECT value FROM meta WHERE key = 'embedder_id'), '')`).Scan(&table, &id)
	return err == nil && (table == 0 || id != db.Embedder().ID)
}

// missingVectorTable reports whether err is SQLite's "no such table" for
// a vector table: a crawl dropped it while this reader searched it. By the
// time vectorsReplaced looks, a crawl that re-embeds with the same
// embedder may have made the table again.
func missingVectorTable(err error) bool {
	return strings.Contains(err.Error(), "no such table: vec_")
}

func (db *DB) knn(ctx context.Context, v []float32, k int, f core.Filter) ([]core.Hit, error) {
	e := db.Embedder()
	if e.ID == "" {
		return nil, fmt.Errorf("vector search in %s: the index has no vectors (crawl with an embedder)", db.path)
	}
	if len(v) != e.Dim {
		return nil, fmt.Errorf("vector search in %s: query vector has dimension %d, index has %d (%s)", db.path, len(v), e.Dim, e.ID)
	}
	if k <= 0 {
		return nil, nil
	}
	if f.Empty() && db.usePrefilter(ctx) {
		return db.knnPaged(ctx, v, k)
	}
	blob, err := vec.SerializeFloat32(v)
	if err != nil {
		return nil, err
	}
	conds, metaArgs := metaConds("", f)
	where := ""
	if len(conds) > 0 {
		where = " AND " + strings.Join(conds, " AND ")
	}
	pathWhere, pathArgs := filterSQL(core.Filter{Path: f.Path, NotPath: f.NotPath})
	q := `SELECT ` + chunkrow.Cols + `, v.distance FROM (SELECT chunk_pk, distance FROM vec_chunks WHERE embedding MATCH ? AND k = ?` + where + `) v
		JOIN chunks c ON c.pk = v.chunk_pk WHERE 1` + pathWhere + ` ORDER BY v.distance`
	read := func(limit int) ([]core.Hit, []float64, error) {
		rows, err := db.query(ctx, q, append(append([]any{blob, limit}, metaArgs...), pathArgs...)...)
		if err != nil {
			return nil, nil, db.wrap("vector search in", err)
		}
		defer rows.Close()
		var hits []core.Hit
		var dists []float64
		for rows.Next() {
			var dist float64
			c, err := chunkrow.Scan(rows, &dist)
			if err != nil {
				return nil, nil, db.wrap("read vector hits from", err)
			}
			hits = append(hits, core.Hit{Chunk: c, Score: 1 - dist, Lists: []core.ListRank{{List: "dense", Rank: len(hits) + 1, Score: 1 - dist}}})
			dists = append(dists, dist)
		}
		return hits, dists, db.wrap("vector search in", rows.Err())
	}
	// Vectors past k, as for BM25 (bm25With): copies of one text tie, and
	// the vector table would choose among them by row.
	for limit := k + tieRoom; ; limit = min(4*limit, maxTieRead) {
		hits, dists, err := read(limit)
		if err != nil {
			return nil, err
		}
		keep, more := wholeTies(len(hits), limit, k, func(i int) bool { return dists[i] == dists[i-1] })
		if !more || limit >= maxTieRead {
			if more {
				keep = len(hits)
			}
			hits = hits[:keep]
			core.SettleTies(hits)
			return hits[:min(len(hits), k)], nil
		}
	}
}

// usePrefilter reports whether an unfiltered KNN goes through the
// sign-bit pages: they hold at least Options.PrefilterFrom vectors.
func (db *DB) usePrefilter(ctx context.Context) bool {
	return db.opts.PrefilterFrom >= 0 && db.pagedCount(ctx) >= max(db.opts.PrefilterFrom, 1)
}

// ScoresPhrases reports that FTS5 scores a quoted phrase as one term
// (search.PhraseScorer).
func (db *DB) ScoresPhrases() bool { return true }

// ListsAtOnce is how many of a query's retrieval lists run at once
// (search.ListLimiter): as many as the process has cores, for the file
// is searched in this process, on its CPU.
func (db *DB) ListsAtOnce() int { return runtime.GOMAXPROCS(0) }

// TermDocs returns the number of chunks and, for each of the given code
// tokens (lower-case, as codetok emits them), the number of chunks that
// contain it. Tokens in no chunk are absent from the map.
func (db *DB) TermDocs(ctx context.Context, tokens []string) (int, map[string]int, error) {
	var total int
	if err := db.sql.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'chunk_count'`).Scan(&total); err != nil {
		if err == sql.ErrNoRows {
			return 0, map[string]int{}, nil
		}
		return 0, nil, db.wrap("read chunk count of", err)
	}
	df := make(map[string]int, len(tokens))
	for _, t := range tokens {
		if _, ok := df[t]; ok {
			continue
		}
		var n int
		err := db.sql.QueryRowContext(ctx, `SELECT doc FROM fts_code_vocab WHERE term = ?`, t).Scan(&n)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return 0, nil, db.wrap("read term statistics of", err)
		}
		df[t] = n
	}
	return total, df, nil
}

// Chunk returns the chunk with the given id, or core.ErrNotFound.
func (db *DB) Chunk(ctx context.Context, id string) (core.Chunk, error) {
	row := db.sql.QueryRowContext(ctx, `SELECT `+chunkrow.Cols+` FROM chunks c WHERE c.id = ?`, id)
	c, err := chunkrow.Scan(row)
	if err == sql.ErrNoRows {
		return c, fmt.Errorf("chunk %s in %s: %w", id, db.path, core.ErrNotFound)
	}
	return c, db.wrap("read chunk "+id+" from", err)
}

// Routes returns the server routes of the index, ordered by repository,
// file and line.
func (db *DB) Routes(ctx context.Context) ([]core.RouteAt, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT chunk_id, repo_name, file_path, line, method, path, framework, handler, router
		FROM routes ORDER BY repo_name, file_path, line, method, path`)
	if err != nil {
		return nil, db.wrap("read routes from", err)
	}
	defer rows.Close()
	var out []core.RouteAt
	for rows.Next() {
		var r core.RouteAt
		if err := rows.Scan(&r.ChunkID, &r.Repo, &r.File, &r.Line, &r.Method, &r.Path, &r.Framework, &r.Handler, &r.Router); err != nil {
			return nil, db.wrap("read routes from", err)
		}
		out = append(out, r)
	}
	return out, db.wrap("read routes from", rows.Err())
}

// Calls returns the outbound calls of the index with the scope of the
// chunk each is in, ordered by repository, file and line.
func (db *DB) Calls(ctx context.Context) ([]core.CallAt, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT k.chunk_id, k.repo_name, k.file_path, coalesce(c.context_prefix, ''),
		k.line, k.kind, k.system, k.method, k.target, k.origin, k.base, k.env, k.config, k.default_value, k.client, k.text
		FROM calls k LEFT JOIN chunks c ON c.id = k.chunk_id
		ORDER BY k.repo_name, k.file_path, k.line, k.kind, k.target`)
	if err != nil {
		return nil, db.wrap("read calls from", err)
	}
	defer rows.Close()
	var out []core.CallAt
	for rows.Next() {
		var c core.CallAt
		var kind, origin string
		if err := rows.Scan(&c.ChunkID, &c.Repo, &c.File, &c.Scope, &c.Line, &kind, &c.System, &c.Method, &c.Target, &origin,
			&c.Base, &c.Env, &c.Config, &c.Default, &c.Client, &c.Text); err != nil {
			return nil, db.wrap("read calls from", err)
		}
		c.Kind, c.Origin = core.CallKind(kind), core.Origin(origin)
		out = append(out, c)
	}
	return out, db.wrap("read calls from", rows.Err())
}

// Resources returns what the deploy and config files of the index
// declare, ordered by repository, file and line.
func (db *DB) Resources(ctx context.Context) ([]core.ResourceAt, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT chunk_id, repo_name, file_path, body FROM resources
		ORDER BY repo_name, file_path, line, id`)
	if err != nil {
		return nil, db.wrap("read resources from", err)
	}
	defer rows.Close()
	var out []core.ResourceAt
	for rows.Next() {
		var r core.ResourceAt
		var body string
		if err := rows.Scan(&r.ChunkID, &r.Repo, &r.File, &body); err != nil {
			return nil, db.wrap("read resources from", err)
		}
		if err := json.Unmarshal([]byte(body), &r.Resource); err != nil {
			return nil, fmt.Errorf("read resource of %s/%s from %s: %w", r.Repo, r.File, db.path, err)
		}
		out = append(out, r)
	}
	return out, db.wrap("read resources from", rows.Err())
}

// Bindings returns the values code gives fields and constructor
// parameters, ordered by repository, file and line.
func (db *DB) Bindings(ctx context.Context) ([]core.BindingAt, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT chunk_id, repo_name, file_path, body FROM bindings ORDER BY repo_name, file_path, line, id`)
	if err != nil {
		return nil, db.wrap("read bindings from", err)
	}
	defer rows.Close()
	var out []core.BindingAt
	for rows.Next() {
		var b core.BindingAt
		var body string
		if err := rows.Scan(&b.ChunkID, &b.Repo, &b.File, &body); err != nil {
			return nil, db.wrap("read bindings from", err)
		}
		if err := json.Unmarshal([]byte(body), &b.Binding); err != nil {
			return nil, fmt.Errorf("read binding of %s/%s from %s: %w", b.Repo, b.File, db.path, err)
		}
		out = append(out, b)
	}
	return out, db.wrap("read bindings from", rows.Err())
}

// FilePaths returns every indexed file as repo and path, ordered.
func (db *DB) FilePaths(ctx context.Context) ([][2]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT s.repo_name, f.path FROM files f JOIN sources s ON s.id = f.source_id
		ORDER BY 1, 2`)
	if err != nil {
		return nil, db.wrap("read files from", err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var repo, p string
		if err := rows.Scan(&repo, &p); err != nil {
			return nil, db.wrap("read files from", err)
		}
		out = append(out, [2]string{repo, p})
	}
	return out, db.wrap("read files from", rows.Err())
}

// GoImports returns the import paths of the Go files other than tests,
// by repository and path (graph.Input.GoImports).
func (db *DB) GoImports(ctx context.Context) (map[[2]string][]string, error) {
	rows, err := db.sql.QueryContext(ctx, chunkrow.GoImportsSQL)
	if err != nil {
		return nil, db.wrap("read Go imports from", err)
	}
	defer rows.Close()
	out, err := chunkrow.ScanImports(rows)
	return out, db.wrap("read Go imports from", err)
}

// SourceChunks returns every chunk of the named source in file and line
// order.
func (db *DB) SourceChunks(ctx context.Context, source string) ([]core.Chunk, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+chunkrow.Cols+` FROM chunks c
		WHERE c.source_id = (SELECT id FROM sources WHERE repo_name = ?) ORDER BY c.file_path, c.line_start, c.byte_start`, source)
	if err != nil {
		return nil, db.wrap("read chunks of "+source+" from", err)
	}
	defer rows.Close()
	var out []core.Chunk
	for rows.Next() {
		c, err := chunkrow.Scan(rows)
		if err != nil {
			return nil, db.wrap("read chunks of "+source+" from", err)
		}
		out = append(out, c)
	}
	return out, db.wrap("read chunks of "+source+" from", rows.Err())
}

// FileBM25 ranks whole files against an FTS5 MATCH expression (over the
// fts_files index: path, symbols and text of every file but
// conversations) and returns, for each of the best k files, its chunk that
// best matches best (an expression for the code index; "" for the first
// chunk), as a hit of the "bm25-file" list ranked by its file. Filters
// apply to the chunks.
func (db *DB) FileBM25(ctx context.Context, match, best string, k int, f core.Filter) ([]core.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	var ids []any
	var score map[int64]float64
	if err := rankedInto(ctx, db, "fts_files", func(r ranking) (fresh bool, err error) {
		ids, score, fresh, err = db.bestFiles(ctx, r, match, 2*k)
		return fresh, err
	}); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	where, args := filterSQL(f)
	chosen := map[int64]core.Chunk{}
	// Conversation chunks are documents of their own (minus their pk).
	var convo []any
	for _, id := range ids {
		if id.(int64) < 0 {
			convo = append(convo, -id.(int64))
		}
	}
	if len(convo) > 0 {
		rows, err := db.query(ctx, `SELECT `+chunkrow.Cols+`, -c.pk FROM chunks c WHERE c.pk IN (`+placeholders(len(convo))+`)`+where,
			append(convo, args...)...)
		if err != nil {
			return nil, db.wrap("read file hits from", err)
		}
		for rows.Next() {
			var key int64
			c, err := chunkrow.Scan(rows, &key)
			if err != nil {
				rows.Close()
				return nil, db.wrap("read file hits from", err)
			}
			chosen[key] = c
		}
		rows.Close()
	}
	pick := func(q string, qargs []any) error {
		rows, err := db.query(ctx, q, qargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var fid int64
			c, err := chunkrow.Scan(rows, &fid)
			if err != nil {
				return err
			}
			if _, ok := chosen[fid]; !ok {
				chosen[fid] = c
			}
		}
		return rows.Err()
	}
	in := placeholders(len(ids))
	if best != "" {
		pks, err := db.bestChunks(ctx, best, in, where, ids, args)
		if err != nil {
			return nil, err
		}
		if len(pks) > 0 {
			q := `SELECT ` + chunkrow.Cols + `, c.file_id FROM chunks c WHERE c.pk IN (` + placeholders(len(pks)) + `)`
			if err := pick(q, pks); err != nil {
				return nil, db.wrap("read file hits from", err)
			}
		}
	}
	var missing []any
	for _, id := range ids {
		if _, ok := chosen[id.(int64)]; !ok && id.(int64) > 0 {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		// Files whose text matches, but in no chunk the code expression
		// finds (porter stems): their first chunk (the pk beside min() is
		// that row's), read alone rather than every chunk of the file.
		q := `SELECT ` + chunkrow.Cols + `, c.file_id FROM chunks c WHERE c.pk IN (
			SELECT pk FROM (SELECT c.pk AS pk, min(c.byte_start) FROM chunks c WHERE c.file_id IN (` + placeholders(len(missing)) + `)` + where + ` GROUP BY c.file_id))`
		if err := pick(q, append(missing, args...)); err != nil {
			return nil, db.wrap("read file hits from", err)
		}
	}
	var hits []core.Hit
	for _, id := range ids {
		c, ok := chosen[id.(int64)]
		if !ok {
			continue // filtered out
		}
		s := score[id.(int64)]
		hits = append(hits, core.Hit{Chunk: c, Score: s, Lists: []core.ListRank{{List: "bm25-file", Rank: len(hits) + 1, Score: s}}})
	}
	core.SettleTies(hits) // the ties at the cut by content, not by row order
	return hits[:min(len(hits), k)], nil
}

// bestFiles returns the n best rows of fts_files for match by r, best
// first, and their scores, and the rows past them tied with the n-th (so
// that the order files were written in does not choose among copies);
// fresh is false when r's row lengths were not those of the index read.
func (db *DB) bestFiles(ctx context.Context, r ranking, match string, n int) (ids []any, score map[int64]float64, fresh bool, err error) {
	read := func(limit int) (ids []int64, ranks []float64, fresh bool, err error) {
		rows, err := db.query(ctx, `SELECT rowid, `+r.expr+` AS r, `+r.fresh+` FROM fts_files WHERE fts_files MATCH ? ORDER BY r, rowid LIMIT ?`, match, limit)
		if err != nil {
			return nil, nil, false, db.bm25Error(match, err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var rank float64
			var ok bool
			if err := rows.Scan(&id, &rank, &ok); err != nil {
				return nil, nil, false, db.wrap("read file hits from", err)
			}
			if !ok {
				return nil, nil, false, nil
			}
			ids, ranks = append(ids, id), append(ranks, rank)
		}
		if err := rows.Err(); err != nil {
			return nil, nil, false, db.bm25Error(match, err)
		}
		return ids, ranks, true, nil
	}
	for limit := n + tieRoom; ; limit = min(4*limit, maxTieRead) {
		got, ranks, fresh, err := read(limit)
		if err != nil || !fresh {
			return nil, nil, fresh, err
		}
		keep, more := wholeTies(len(got), limit, n, func(i int) bool { return ranks[i] == ranks[i-1] })
		if !more || limit >= maxTieRead {
			if more {
				keep = len(got)
			}
			score = map[int64]float64{}
			for i, id := range got[:keep] {
				ids = append(ids, id)
				score[id] = -ranks[i]
			}
			return ids, score, true, nil
		}
	}
}

// bestChunks returns, for each of the files ids (those whose chunks the
// filter where admits), the primary key of its chunk that ranks first
// against the FTS5 expression best. Only the candidate files' chunks are
// ranked: the unary + keeps the rowid test out of FTS5's plan (driving
// FTS5 by rowid reloads the doclists for every row), and without ORDER BY
// rank FTS5 does not score every match in the index first; rank and the
// file are read for the rows that pass the test alone, and the best of
// each file is picked here. The candidate chunks and their files come
// from the file index of chunks (not a read of each matching chunk's row
// for its file, which faulted in a page of the chunks table per row:
// 1-3 ms of a query).
func (db *DB) bestChunks(ctx context.Context, best, in, where string, ids, args []any) ([]any, error) {
	var best1 map[int64]int64 // file -> its best chunk
	if err := rankedInto(ctx, db, "fts_code", func(r ranking) (fresh bool, err error) {
		best1, fresh, err = db.bestChunksBy(ctx, r, best, in, where, ids, args)
		return fresh, err
	}); err != nil {
		return nil, err
	}
	pks := make([]any, 0, len(best1))
	for _, id := range ids {
		if pk, ok := best1[id.(int64)]; ok {
			pks = append(pks, pk)
		}
	}
	return pks, nil
}

// bestChunksBy is bestChunks ranked by r; fresh is false when r's row
// lengths were not those of the index read.
func (db *DB) bestChunksBy(ctx context.Context, r ranking, best, in, where string, ids, args []any) (_ map[int64]int64, fresh bool, _ error) {
	rows, err := db.query(ctx, `WITH cand(pk, file_id) AS MATERIALIZED (SELECT c.pk, c.file_id FROM chunks c WHERE c.file_id IN (`+in+`)`+where+`)
		SELECT fts_code.rowid, `+r.expr+`, `+r.fresh+`, cand.file_id FROM fts_code, cand
		WHERE fts_code MATCH ? AND cand.pk = +fts_code.rowid`,
		append(append(slices.Clone(ids), args...), best)...)
	if err != nil {
		return nil, false, db.bm25Error(best, err)
	}
	defer rows.Close()
	best1 := map[int64]int64{} // file -> its best chunk
	rank1 := map[int64]float64{}
	for rows.Next() {
		var pk, fid int64
		var rank float64
		var ok bool
		if err := rows.Scan(&pk, &rank, &ok, &fid); err != nil {
			return nil, false, db.wrap("read file hits from", err)
		}
		if !ok {
			return nil, false, nil
		}
		if r, seen := rank1[fid]; !seen || rank < r || rank == r && pk < best1[fid] {
			best1[fid], rank1[fid] = pk, rank
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, db.bm25Error(best, err)
	}
	return best1, true, nil
}

// FileChunks returns the chunks of the files whose path is p or ends in
// "/"+p, in file order, at most k (pack.Store).
func (db *DB) FileChunks(ctx context.Context, p string, k int) ([]core.Chunk, error) {
	p = strings.TrimPrefix(p, "/")
	// Through files, many times smaller than chunks, for the suffix match.
	return db.chunksWhere(ctx, "read chunks of "+p+" from",
		`c.file_id IN (SELECT id FROM files WHERE path = ? OR path LIKE '%/' || ? ESCAPE '\')`, k, p, escapeLike(p))
}

// SymbolChunks returns the chunks of the declaration named name: the
// chunk whose symbol it is, and the chunks of its members when it was cut
// into several (their scope holds it), in file order, at most k
// (pack.Store).
func (db *DB) SymbolChunks(ctx context.Context, name string, k int) ([]core.Chunk, error) {
	e := escapeLike(name)
	return db.chunksWhere(ctx, "read chunks of symbol "+name+" from",
		`c.symbol_name = ? OR c.symbol_name LIKE '%.' || ? ESCAPE '\' OR c.context_prefix LIKE '% > ' || ? || ' > %' ESCAPE '\'
		OR ', ' || c.symbol_name || ', ' LIKE '%, ' || ? || ', %' ESCAPE '\'`, k, name, e, e, e)
}

func (db *DB) chunksWhere(ctx context.Context, what, where string, k int, args ...any) ([]core.Chunk, error) {
	rows, err := db.query(ctx, `SELECT `+chunkrow.Cols+` FROM chunks c WHERE `+where+`
		ORDER BY c.repo_name, c.file_path, c.line_start LIMIT ?`, append(args, k)...)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	defer rows.Close()
	var out []core.Chunk
	for rows.Next() {
		c, err := chunkrow.Scan(rows)
		if err != nil {
			return nil, db.wrap(what, err)
		}
		out = append(out, c)
	}
	return out, db.wrap(what, rows.Err())
}

// escapeLike escapes LIKE's wildcards in s (ESCAPE '\').
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// RefTargets returns, for each of the given chunks, the chunks that
// define a name it calls or refers to (symbol_refs), by declared name;
// names declared by more than maxDefs chunks (get, Close, string) are too
// common to follow (pack.Store).
func (db *DB) RefTargets(ctx context.Context, chunkIDs []string, maxDefs int) (map[string][]core.Chunk, error) {
	out := map[string][]core.Chunk{}
	what := "follow references in"
	for start := 0; start < len(chunkIDs); start += 500 {
		part := chunkIDs[start:min(start+500, len(chunkIDs))]
		args := make([]any, 0, len(part)+1)
		for _, id := range part {
			args = append(args, id)
		}
		args = append(args, maxDefs)
		rows, err := db.query(ctx, `SELECT `+chunkrow.Cols+`, r.chunk_id FROM symbol_refs r
			JOIN chunks c ON c.symbol_name = r.name AND c.symbol_name != ''
			WHERE r.chunk_id IN (`+placeholders(len(part))+`) AND c.id != r.chunk_id
			  AND (SELECT count(*) FROM chunks d WHERE d.symbol_name = r.name AND d.symbol_name != '') <= ?
			ORDER BY r.chunk_id, c.repo_name, c.file_path, c.line_start`, args...)
		if err != nil {
			return nil, db.wrap(what, err)
		}
		for rows.Next() {
			var from string
			c, err := chunkrow.Scan(rows, &from)
			if err != nil {
				rows.Close()
				return nil, db.wrap(what, err)
			}
			out[from] = append(out[from], c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, db.wrap(what, err)
		}
	}
	return out, nil
}

// FilesNamed returns the files (source and path) whose last path
// component is base, at most limit of them, in path order: the candidates
// for a stack trace's frame (search.Locator).
func (db *DB) FilesNamed(ctx context.Context, base string, limit int) ([]core.FileRef, error) {
	if base == "" || limit <= 0 {
		return nil, nil
	}
	like := "%/" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(base)
	rows, err := db.query(ctx, `SELECT s.repo_name, f.path FROM files f JOIN sources s ON s.id = f.source_id
		WHERE f.path = ? OR f.path LIKE ? ESCAPE '\' ORDER BY s.repo_name, f.path LIMIT ?`, base, like, limit)
	if err != nil {
		return nil, db.wrap("look up files named "+base+" in", err)
	}
	defer rows.Close()
	var out []core.FileRef
	for rows.Next() {
		var r core.FileRef
		if err := rows.Scan(&r.Repo, &r.Path); err != nil {
			return nil, db.wrap("look up files named "+base+" in", err)
		}
		// LIKE ignores ASCII case; a trace's file name does not.
		if path.Base(r.Path) == base {
			out = append(out, r)
		}
	}
	return out, db.wrap("look up files named "+base+" in", rows.Err())
}

// ChunksNear returns the chunks of file that overlap lines line-window
// to line+window, in line order, filters applied (search.Locator).
func (db *DB) ChunksNear(ctx context.Context, file core.FileRef, line, window int, f core.Filter) ([]core.Hit, error) {
	where, args := filterSQL(f)
	what := fmt.Sprintf("read the chunks near %s:%d from", file.Path, line)
	rows, err := db.query(ctx, `SELECT `+chunkrow.Cols+`, 0 FROM chunks c
		WHERE c.repo_name = ? AND c.file_path = ? AND c.line_start <= ? AND c.line_end >= ?`+where+`
		ORDER BY c.line_start, c.line_end`, append([]any{file.Repo, file.Path, line + window, line - window}, args...)...)
	if err != nil {
		return nil, db.wrap(what, err)
	}
	defer rows.Close()
	var out []core.Hit
	for rows.Next() {
		var zero float64
		c, err := chunkrow.Scan(rows, &zero)
		if err != nil {
			return nil, db.wrap(what, err)
		}
		out = append(out, core.Hit{Chunk: c})
	}
	return out, db.wrap(what, rows.Err())
}
