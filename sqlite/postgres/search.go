package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"coderag/core"
	"coderag/core/search"
	"coderag/sqlite/internal/chunkrow"
)

var _ search.Index = (*DB)(nil)

// args collects positional parameters and names them $1, $2, ...
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// filterSQL turns f into conditions on chunk alias c (" AND ..." or "").
func filterSQL(f core.Filter, a *args) string {
	var conds []string
	in := func(col string, vals []string) {
		if len(vals) > 0 {
			conds = append(conds, "c."+col+" = ANY("+a.add(vals)+"::text[])")
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
	if len(f.Path) > 0 {
		var ors []string
		for _, p := range f.Path {
			ors = append(ors, "c.file_path ~ "+a.add(globRegexp(p)))
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	for _, p := range f.NotPath {
		conds = append(conds, "c.file_path !~ "+a.add(globRegexp(p)))
	}
	if len(conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(conds, " AND ")
}

// globRegexp turns an SQLite GLOB (what core.Filter's paths hold: *, ?,
// [...] with ^ negating) into an anchored POSIX regular expression.
func globRegexp(g string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(g[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(g[i : i+j+1])
			i += j
		default:
			if strings.ContainsRune(`\.+()|{}^$`, rune(c)) {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	b.WriteString("$")
	return b.String()
}

// BM25 parameters, FTS5's: k1 1.2, b 0.75; column weights 10/4/2/1 for
// symbol, path, scope and text (tsvector weights A..D).
const (
	k1 = 1.2
	b  = 0.75
)

// index names the tsvector and length columns of an FTS index.
type index struct {
	table, tsv, length, tokens string // tokens: the sources column summing lengths
	count                      string // the sources column counting documents
	analyzer                   analyzer
}

var (
	codeIndex  = index{"chunks", "code_tsv", "code_len", "code_tokens", "chunk_total", codeText}
	proseIndex = index{"chunks", "prose_tsv", "prose_len", "prose_tokens", "chunk_total", proseText}
	docIndex   = index{"docs", "tsv", "len", "doc_tokens", "doc_count", docText}
)

// planned is a match expression translated for one index: the tsquery,
// and each lexeme with the columns (weights) it may count in and its IDF.
type planned struct {
	query   string
	lexemes []string
	weights []string
	idf     []float64
	avgLen  float64
}

// plan parses match, translates it for ix and reads the statistics BM25
// needs. ok is false when the expression can match nothing.
func (db *DB) plan(ctx context.Context, ix index, match string) (p planned, ok bool, err error) {
	m, err := parseMatch(match)
	if err != nil {
		return p, false, fmt.Errorf("%w: %v", core.ErrBadQuery, err)
	}
	lex := map[string]string{}
	p.query, ok = ix.analyzer.tsquery(m, "", lex)
	if !ok {
		return p, false, nil
	}
	st, err := db.indexStats(ctx, ix)
	if err != nil {
		return p, false, err
	}
	n := st.total
	p.avgLen = float64(st.tokens) / math.Max(float64(n), 1)
	for l := range lex {
		p.lexemes = append(p.lexemes, l)
	}
	sort.Strings(p.lexemes)
	df, err := db.docFreqs(ctx, ix, p.lexemes)
	if err != nil {
		return p, false, err
	}
	for _, l := range p.lexemes {
		p.weights = append(p.weights, lex[l])
		// A commit between the two reads can make a count exceed the
		// total: keep the ratio defined.
		d := float64(df[l])
		idf := math.Log((math.Max(float64(n), d) - d + 0.5) / (d + 0.5))
		p.idf = append(p.idf, math.Max(idf, 1e-6))
	}
	return p, true, nil
}

// docFreqs returns the number of documents of ix holding each lexeme.
// The most common lexemes — those whose count would visit most rows —
// are estimated from PostgreSQL's statistics (the element frequencies
// ANALYZE samples, times the documents the index holds); the others are
// counted through the GIN index, in one round trip.
func (db *DB) docFreqs(ctx context.Context, ix index, lexemes []string) (map[string]int, error) {
	st, err := db.indexStats(ctx, ix)
	if err != nil {
		return nil, err
	}
	df := make(map[string]int, len(lexemes))
	var batch pgx.Batch
	var counted []string
	for _, l := range lexemes {
		if f, ok := st.common[l]; ok {
			df[l] = int(math.Round(f * float64(st.total)))
			continue
		}
		counted = append(counted, l)
		batch.Queue(`SELECT count(*) FROM `+ix.table+` WHERE `+ix.tsv+` @@ $1::tsquery`, quoteLexeme(l))
	}
	if len(counted) == 0 {
		return df, nil
	}
	br := db.search.SendBatch(ctx, &batch)
	defer br.Close()
	for _, l := range counted {
		var n int
		if err := br.QueryRow().Scan(&n); err != nil {
			return nil, db.wrap("read term statistics of", err)
		}
		df[l] = n
	}
	return df, br.Close()
}

// indexStats are what BM25 needs of an index besides the query's rare
// lexemes, as of the generation gen (which every commit advances): the
// documents it holds, their tokens, and its most common lexemes with the
// share of documents holding each (from pg_stats; empty before the first
// ANALYZE).
type indexStats struct {
	gen           int64
	total, tokens int64
	common        map[string]float64
}

// indexStats returns ix's statistics, read again only after a commit.
func (db *DB) indexStats(ctx context.Context, ix index) (indexStats, error) {
	gen, err := db.vectorGen(ctx)
	if err != nil {
		return indexStats{}, db.wrap("read term statistics of", err)
	}
	key := ix.table + "." + ix.tsv
	db.smu.Lock()
	st, ok := db.stats[key]
	db.smu.Unlock()
	if ok && st.gen == gen {
		return st, nil
	}
	st = indexStats{gen: gen, common: map[string]float64{}}
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(sum(`+ix.count+`), 0), coalesce(sum(`+ix.tokens+`), 0) FROM sources`).Scan(&st.total, &st.tokens); err != nil {
		return st, db.wrap("read term statistics of", err)
	}
	var elems []string
	var freqs []float32
	err = db.pool.QueryRow(ctx, `SELECT coalesce(most_common_elems::text::text[], '{}'), coalesce(most_common_elem_freqs, '{}')
		FROM pg_stats WHERE schemaname = current_schema() AND tablename = $1 AND attname = $2`, ix.table, ix.tsv).Scan(&elems, &freqs)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return st, db.wrap("read term statistics of", err)
	}
	for i, e := range elems {
		if i < len(freqs) {
			st.common[e] = float64(freqs[i])
		}
	}
	db.smu.Lock()
	if db.stats == nil {
		db.stats = map[string]indexStats{}
	}
	db.stats[key] = st
	db.smu.Unlock()
	return st, nil
}

// scoreSQL ranks the rows of ix matching the planned query by BM25 (FTS5's
// formula: IDF log((N - n + 0.5) / (n + 0.5)), term frequency weighted by
// column, k1 1.2, b 0.75, lengths in tokens): an expression over the
// candidate table alias "d" whose key column is keyCol, best first, at
// most limit (0: all). where filters the candidates.
//
// With a limit, the candidates are first cut to the best
// max(4 × limit, 100) by ts_rank with the same column weights (a C
// function that looks up only the query's lexemes); BM25 then ranks
// those. Without one, every matching row is ranked. Both cuts keep the
// rows tied with the last one (WITH TIES): a tie broken by the key would
// be broken by the order a crawl happened to write the rows in, so two
// crawls of the same sources answered differently (ts_rank is a float4,
// and ties at the cut are common); the caller orders ties by content
// (core.SettleTies) and cuts to its k.
func scoreSQL(ix index, p planned, keyCol, join, where string, limit int, a *args) string {
	query := a.add(p.query) + `::tsquery`
	cand := `SELECT d.` + keyCol + `, d.` + ix.tsv + `, d.` + ix.length + ` FROM ` + ix.table + ` d ` + join + ` WHERE d.` + ix.tsv + ` @@ ` + query + where
	if limit > 0 {
		cand += ` ORDER BY ts_rank('{0.1, 0.2, 0.4, 1.0}', d.` + ix.tsv + `, ` + query + `) DESC FETCH FIRST ` + strconv.Itoa(max(4*limit, 100)) + ` ROWS WITH TIES`
	}
	q := `SELECT d.` + keyCol + ` AS key, sum(q.idf * t.tf * ` + ftoa(k1+1) + ` / (t.tf + ` + ftoa(k1) + ` * (` + ftoa(1-b) + ` + ` + ftoa(b) +
		` * d.` + ix.length + ` / ` + a.add(math.Max(p.avgLen, 1)) + `::float8))) AS score
		FROM (` + cand + `) d
		CROSS JOIN LATERAL unnest(d.` + ix.tsv + `) u
		JOIN unnest(` + a.add(p.lexemes) + `::text[], ` + a.add(p.weights) + `::text[], ` + a.add(p.idf) + `::float8[]) AS q(lex, w, idf) ON q.lex = u.lexeme
		CROSS JOIN LATERAL (SELECT sum(CASE wt WHEN 'A' THEN 10 WHEN 'B' THEN 4 WHEN 'C' THEN 2 ELSE 1 END)::float8 AS tf
			FROM unnest(u.weights) wt WHERE q.w = '' OR strpos(q.w, wt::text) > 0) t
		WHERE t.tf > 0
		GROUP BY d.` + keyCol + ` ORDER BY score DESC`
	if limit > 0 {
		q += ` FETCH FIRST ` + strconv.Itoa(limit) + ` ROWS WITH TIES`
	}
	return q
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// BM25 runs an FTS5-style match expression against the "code" or "prose"
// index and returns the best k hits, best first; the score is BM25
// (higher is better).
func (db *DB) BM25(ctx context.Context, indexName, match string, k int, f core.Filter) ([]core.Hit, error) {
	var ix index
	switch indexName {
	case "code":
		ix = codeIndex
	case "prose":
		ix = proseIndex
	default:
		return nil, fmt.Errorf("bm25: unknown index %q (want code or prose)", indexName)
	}
	if k <= 0 {
		return nil, nil
	}
	p, ok, err := db.plan(ctx, ix, match)
	if err != nil || !ok {
		return nil, err
	}
	var a args
	where := filterSQL(f, &a)
	// The filter's conditions name c: the candidates are chunks here.
	where = strings.ReplaceAll(where, "c.", "d.")
	q := `SELECT ` + chunkrow.Cols + `, s.score FROM (` + scoreSQL(ix, p, "pk", "", where, k, &a) + `) s
		JOIN chunks c ON c.pk = s.key ORDER BY s.score DESC, c.pk`
	rows, err := db.search.Query(ctx, q, a...)
	if err != nil {
		return nil, db.wrap("search", err)
	}
	defer rows.Close()
	var hits []core.Hit
	list := "bm25-" + indexName
	for rows.Next() {
		var score float64
		c, err := chunkrow.Scan(rows, &score)
		if err != nil {
			return nil, db.wrap("read bm25 hits from", err)
		}
		hits = append(hits, core.Hit{Chunk: c, Score: score, Lists: []core.ListRank{{List: list, Rank: len(hits) + 1, Score: score}}})
	}
	core.SettleTies(hits) // the ties at the cut by content, not by row order
	return hits[:min(k, len(hits))], db.wrap("search", rows.Err())
}

// TermDocs returns the number of chunks and the number of chunks that
// hold each of the given code tokens.
func (db *DB) TermDocs(ctx context.Context, tokens []string) (int, map[string]int, error) {
	st, err := db.indexStats(ctx, codeIndex)
	if err != nil {
		return 0, nil, err
	}
	uniq := map[string]bool{}
	var ls []string
	for _, t := range tokens {
		if !uniq[t] && t != "" {
			uniq[t] = true
			ls = append(ls, t)
		}
	}
	df, err := db.docFreqs(ctx, codeIndex, ls)
	if err != nil {
		return 0, nil, err
	}
	for t, n := range df {
		if n == 0 {
			delete(df, t)
		}
	}
	return int(st.total), df, nil
}

// FileBM25 ranks whole files (and conversation chunks, documents of their
// own) against match, and returns for each file its chunk that ranks
// first against best in the code index (its first chunk when none
// matches), at most k, best first.
func (db *DB) FileBM25(ctx context.Context, match, best string, k int, f core.Filter) ([]core.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	p, ok, err := db.plan(ctx, docIndex, match)
	if err != nil || !ok {
		return nil, err
	}
	var a args
	rows, err := db.search.Query(ctx, `SELECT s.key, s.score, d.file_id, d.chunk_pk FROM (`+scoreSQL(docIndex, p, "id", "", "", 2*k, &a)+`) s
		JOIN docs d ON d.id = s.key ORDER BY s.score DESC, s.key`, a...)
	if err != nil {
		return nil, db.wrap("search files in", err)
	}
	type doc struct {
		id          int64
		score       float64
		file, chunk *int64 // a file's document, or a conversation chunk's
	}
	var docs []*doc
	for rows.Next() {
		d := &doc{}
		if err := rows.Scan(&d.id, &d.score, &d.file, &d.chunk); err != nil {
			rows.Close()
			return nil, db.wrap("read file hits from", err)
		}
		docs = append(docs, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.wrap("search files in", err)
	}
	var files, convo []int64
	for _, d := range docs {
		if d.file != nil {
			files = append(files, *d.file)
		} else if d.chunk != nil {
			convo = append(convo, *d.chunk)
		}
	}
	byFile := map[int64]core.Chunk{}
	byChunk := map[int64]core.Chunk{}
	read := func(q string, qa args, into map[int64]core.Chunk) error {
		rows, err := db.search.Query(ctx, q, qa...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key int64
			c, err := chunkrow.Scan(rows, &key)
			if err != nil {
				return err
			}
			if _, ok := into[key]; !ok {
				into[key] = c
			}
		}
		return rows.Err()
	}
	if len(convo) > 0 {
		var qa args
		q := `SELECT ` + chunkrow.Cols + `, c.pk FROM chunks c WHERE c.pk = ANY(` + qa.add(convo) + `::bigint[])`
		q += filterSQL(f, &qa)
		if err := read(q, qa, byChunk); err != nil {
			return nil, db.wrap("read file hits from", err)
		}
	}
	if len(files) > 0 && best != "" {
		bp, ok, err := db.plan(ctx, codeIndex, best)
		if err != nil {
			return nil, err
		}
		if ok {
			// The best chunk of each file by ts_rank (the same column
			// weights; cheaper than BM25 over every matching chunk of the
			// files).
			var qa args
			query := qa.add(bp.query) + `::tsquery`
			q := `SELECT DISTINCT ON (c.file_id) ` + chunkrow.Cols + `, c.file_id FROM chunks c
				WHERE c.file_id = ANY(` + qa.add(files) + `::bigint[]) AND c.code_tsv @@ ` + query + filterSQL(f, &qa) + `
				ORDER BY c.file_id, ts_rank('{0.1, 0.2, 0.4, 1.0}', c.code_tsv, ` + query + `) DESC, c.id`
			if err := read(q, qa, byFile); err != nil {
				return nil, db.wrap("read file hits from", err)
			}
		}
	}
	if len(byFile) < len(files) {
		// Files whose text matches in no chunk the code expression finds
		// (stems): their first chunk, read for those files only.
		var missing []int64
		for _, id := range files {
			if _, ok := byFile[id]; !ok {
				missing = append(missing, id)
			}
		}
		var qa args
		q := `SELECT DISTINCT ON (c.file_id) ` + chunkrow.Cols + `, c.file_id FROM chunks c WHERE c.file_id = ANY(` + qa.add(missing) + `::bigint[])` +
			filterSQL(f, &qa) + ` ORDER BY c.file_id, c.byte_start`
		if err := read(q, qa, byFile); err != nil {
			return nil, db.wrap("read file hits from", err)
		}
	}
	var hits []core.Hit
	for _, d := range docs {
		var c core.Chunk
		var ok bool
		if d.file != nil {
			c, ok = byFile[*d.file]
		} else if d.chunk != nil {
			c, ok = byChunk[*d.chunk]
		}
		if !ok {
			continue // filtered out
		}
		hits = append(hits, core.Hit{Chunk: c, Score: d.score, Lists: []core.ListRank{{List: "bm25-file", Rank: len(hits) + 1, Score: d.score}}})
	}
	core.SettleTies(hits) // the ties at the cut by content, not by row order
	return hits[:min(k, len(hits))], nil
}

// knnCandidates is how many candidates per wanted hit the Hamming pass,
// or the HNSW search, keeps for exact rescoring (at least 400).
const knnCandidates = 8

// KNN returns the k chunks whose vectors are nearest (cosine) to v, best
// first, filters applied: pgvector's HNSW index (when there is one, for
// an unfiltered search) or the sign bits (by Hamming distance, in memory
// without filters, in PostgreSQL with them) pick candidates, their
// float vectors rank them exactly here. Through the sign bits, an index
// of at most max(8k, 400) vectors is thus ranked exactly.
func (db *DB) KNN(ctx context.Context, v []float32, k int, f core.Filter) ([]core.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	if dim := db.Embedder().Dim; dim != len(v) {
		return nil, fmt.Errorf("knn: query vector has dimension %d, %s holds %d", len(v), db.name, dim)
	}
	n := max(knnCandidates*k, 400)
	var q string
	var a args
	var rows pgx.Rows
	if f.Empty() && db.annDim() == len(v) {
		// Candidates from pgvector's HNSW index (ann.go).
		r, done, err := db.annCandidates(ctx, v, n)
		if err != nil {
			return nil, err
		}
		defer done()
		rows = r
	} else if f.Empty() {
		// Candidates from the sign bits in memory.
		c, err := db.signs(ctx, len(v))
		if err != nil {
			return nil, err
		}
		q = `SELECT v.chunk_pk, v.vec FROM vectors v WHERE v.chunk_pk = ANY(` + a.add(c.nearest(signWords(v), n)) + `::bigint[])`
	} else {
		bits := a.add(signBits(v))
		where := filterSQL(f, &a)
		q = `SELECT v.chunk_pk, v.vec FROM vectors v JOIN chunks c ON c.pk = v.chunk_pk WHERE true` + where +
			` ORDER BY bit_count(v.bits # ` + bits + `::bit varying) FETCH FIRST ` + strconv.Itoa(n) + ` ROWS WITH TIES`
	}
	if rows == nil {
		r, err := db.pool.Query(ctx, q, a...)
		if err != nil {
			return nil, db.wrap("search vectors in", err)
		}
		rows = r
	}
	type cand struct {
		pk  int64
		cos float64
	}
	var cands []cand
	seen := map[int64]bool{}
	qn := norm(v)
	for rows.Next() {
		var pk int64
		var raw []byte
		if err := rows.Scan(&pk, &raw); err != nil {
			rows.Close()
			return nil, db.wrap("read vectors from", err)
		}
		if !seen[pk] {
			seen[pk] = true
			cands = append(cands, cand{pk, cosine(v, qn, raw)})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, db.wrap("search vectors in", err)
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].cos != cands[j].cos {
			return cands[i].cos > cands[j].cos
		}
		return cands[i].pk < cands[j].pk
	})
	// The best k and those tied with the k-th (copies of one text):
	// SettleTies chooses among them by content, not by row order.
	cands = cands[:core.WithTies(len(cands), k, func(i int) bool { return cands[i].cos == cands[i-1].cos })]
	pks := make([]int64, len(cands))
	for i, c := range cands {
		pks[i] = c.pk
	}
	rows, err := db.pool.Query(ctx, `SELECT `+chunkrow.Cols+`, c.pk FROM chunks c WHERE c.pk = ANY($1::bigint[])`, pks)
	if err != nil {
		return nil, db.wrap("read vector hits from", err)
	}
	byPK := map[int64]core.Chunk{}
	for rows.Next() {
		var pk int64
		c, err := chunkrow.Scan(rows, &pk)
		if err != nil {
			rows.Close()
			return nil, db.wrap("read vector hits from", err)
		}
		byPK[pk] = c
	}
	rows.Close()
	var hits []core.Hit
	for _, c := range cands {
		ch, ok := byPK[c.pk]
		if !ok {
			continue // deleted meanwhile
		}
		hits = append(hits, core.Hit{Chunk: ch, Score: c.cos, Lists: []core.ListRank{{List: "dense", Rank: len(hits) + 1, Score: c.cos}}})
	}
	core.SettleTies(hits)
	return hits[:min(k, len(hits))], db.wrap("read vector hits from", rows.Err())
}

// floatBytes is v as little-endian float32s.
func floatBytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// signBits is the text form of v's sign bits (1: positive) as a bit
// string.
func signBits(v []float32) string {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = '0'
		if x > 0 {
			b[i] = '1'
		}
	}
	return string(b)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// cosine is the cosine similarity of v (with norm vn) and the stored
// vector raw.
func cosine(v []float32, vn float64, raw []byte) float64 {
	if len(raw) != 4*len(v) || vn == 0 {
		return 0
	}
	var dot, n float64
	for i, x := range v {
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		dot += float64(x) * y
		n += y * y
	}
	if n == 0 {
		return 0
	}
	return dot / (vn * math.Sqrt(n))
}
