package sqlite

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"coderag/core"
	"coderag/sqlite/internal/chunkrow"
)

// pageSize is the number of vectors in one vec_pages row.
const pageSize = 1024

// quantize encodes v as its largest magnitude (float32) and one signed
// byte per dimension.
func quantize(v []float32) []byte {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	out := make([]byte, 4+len(v))
	binary.LittleEndian.PutUint32(out, math.Float32bits(m))
	if m == 0 {
		return out
	}
	for i, x := range v {
		out[4+i] = byte(int8(math.Round(float64(x / m * 127))))
	}
	return out
}

// dequantize decodes a quantize blob into dst (len = dimension).
func dequantize(b []byte, dst []float64) bool {
	if len(b) != 4+len(dst) {
		return false
	}
	m := float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) / 127
	for i := range dst {
		dst[i] = float64(int8(b[4+i])) * m
	}
	return true
}

// signBits sets bit i of the result when v[i] > mean[i].
func signBits(v, mean []float64) []uint64 {
	out := make([]uint64, (len(v)+63)/64)
	for i, x := range v {
		if x > mean[i] {
			out[i/64] |= 1 << (i % 64)
		}
	}
	return out
}

// pages is the sign-bit index in memory: kept by the DB between searches
// (the TUI, eval) and read again when a crawl rebuilt it (gen changed).
type pages struct {
	gen string
	// pks and bits are the pages as stored, one slice each per page: a
	// little-endian int64 chunk pk per vector, and words little-endian
	// uint64 sign words per vector in pks order. Read in place, neither
	// decoded nor copied (at 183k vectors, decoding 7 MB cost a one-shot
	// query ~5 ms, and copying them into one array ~4 ms).
	pks   [][]byte
	bits  [][]byte
	words int
	total int // vectors
}

// vectorMeta returns the generation of the stored sign-bit pages and the
// mean vector their bits are taken against; a nil mean when there are none.
func (db *DB) vectorMeta(ctx context.Context, dim int) (gen string, mean []float64, err error) {
	var genN, meanN sql.NullString
	err = db.sql.QueryRowContext(ctx, `SELECT
		(SELECT value FROM meta WHERE key = 'vec_pages_gen'),
		(SELECT value FROM meta WHERE key = 'vec_mean')`).Scan(&genN, &meanN)
	if err != nil {
		return "", nil, db.wrap("vector search in", err)
	}
	if !genN.Valid || !meanN.Valid {
		return "", nil, nil
	}
	mean, ok := decodeMean(meanN.String, dim)
	if !ok {
		return "", nil, fmt.Errorf("read vector mean from %s: bad value in meta", db.path)
	}
	return genN.String, mean, nil
}

// candidates returns the chunk pks of the want vectors nearest to the
// query's sign bits qb by Hamming distance, and of every vector as near as
// the last of them (at 104k vectors and 1,000 wanted, 120-420 lie at the
// cut), in page order. The first search of a handle scans the pages
// where SQLite reads them (coderag_prefilter, sqlite/internal/cext/
// hamming.c): a one-shot query reads them once and copying them into Go
// would cost it more than the scan. A handle that searches again keeps
// them in memory (loadPages) and scans them there.
func (db *DB) candidates(ctx context.Context, gen string, mean []float64, qb []uint64, want int) ([]int64, error) {
	db.pmu.Lock()
	defer db.pmu.Unlock()
	if pg := db.pcache; pg != nil && pg.gen == gen && 64*pg.words == len(mean) {
		return pg.nearest(qb, want), nil
	}
	if !db.scanned {
		db.scanned = true
		return db.nearestInSQL(ctx, qb, want)
	}
	pg, err := db.loadPages(ctx, gen, len(mean))
	if err != nil {
		return nil, err
	}
	db.pcache = pg
	return pg.nearest(qb, want), nil
}

// nearestInSQL is candidates scanning the pages inside SQLite.
func (db *DB) nearestInSQL(ctx context.Context, qb []uint64, want int) ([]int64, error) {
	q := make([]byte, 0, 8*len(qb))
	for _, w := range qb {
		q = binary.LittleEndian.AppendUint64(q, w)
	}
	var out []byte
	err := db.sql.QueryRowContext(ctx, `SELECT coderag_prefilter(pks, bits, ?, ?) FROM (SELECT pks, bits FROM vec_pages ORDER BY page)`, q, want).Scan(&out)
	if err != nil {
		if strings.Contains(err.Error(), "does not fit") {
			return nil, fmt.Errorf("vector search in %s: a vector page does not fit dimension %d; re-crawl", db.path, 64*len(qb))
		}
		return nil, db.wrap("vector search in", err)
	}
	cand := make([]int64, len(out)/8)
	for i := range cand {
		cand[i] = int64(binary.LittleEndian.Uint64(out[8*i:]))
	}
	return cand, nil
}

// loadPages reads the sign-bit pages of generation gen, of vectors of
// dimension dim, into memory.
func (db *DB) loadPages(ctx context.Context, gen string, dim int) (*pages, error) {
	p := &pages{gen: gen, words: dim / 64}
	rows, err := db.sql.QueryContext(ctx, `SELECT pks, bits FROM vec_pages ORDER BY page`)
	if err != nil {
		return nil, db.wrap("vector search in", err)
	}
	defer rows.Close()
	for rows.Next() {
		// The driver gives each row's blobs in slices of their own
		// (go-sqlite3 copies them out of SQLite, row by row), so they are
		// kept rather than copied again; TestPagesKeepRowBytes holds the
		// driver to it.
		var pks, bs sql.RawBytes
		if err := rows.Scan(&pks, &bs); err != nil {
			return nil, db.wrap("vector search in", err)
		}
		n := len(pks) / 8
		if len(bs) != n*p.words*8 {
			return nil, fmt.Errorf("vector search in %s: a vector page does not fit dimension %d; re-crawl", db.path, dim)
		}
		p.pks = append(p.pks, pks[:8*n])
		p.bits = append(p.bits, bs)
		p.total += n
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("vector search in", err)
	}
	return p, nil
}

// nearest is candidates over the pages in memory.
func (p *pages) nearest(qb []uint64, want int) []int64 {
	stride := p.words * 8
	dist := make([]uint16, 0, p.total)
	le := binary.LittleEndian
	for _, b := range p.bits {
		for o := 0; o+stride <= len(b); o += stride {
			v := b[o : o+stride]
			d := 0
			for w, q := range qb {
				d += bits.OnesCount64(q ^ le.Uint64(v[8*w:]))
			}
			dist = append(dist, uint16(d))
		}
	}
	// The want nearest by Hamming distance: a histogram gives the cut.
	want = min(len(dist), want)
	dim := 64 * p.words
	hist := make([]int, dim+1)
	for _, d := range dist {
		hist[d]++
	}
	cut, acc := 0, 0
	for cut = 0; cut <= dim && acc+hist[cut] < want; cut++ {
		acc += hist[cut]
	}
	// Every vector at the cut, not the first of them in page order: the
	// order a crawl wrote the vectors in would choose which are scored.
	var cand []int64
	i := 0
	for _, pks := range p.pks {
		for o := 0; o+8 <= len(pks); o += 8 {
			d := dist[i]
			i++
			if int(d) <= cut {
				cand = append(cand, int64(le.Uint64(pks[o:])))
			}
		}
	}
	return cand
}

// decodeMean reads the stored mean vector (base64 of little-endian
// float64s); false when it is missing or not of dimension dim.
func decodeMean(text string, dim int) ([]float64, bool) {
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil || dim == 0 || len(raw) != 8*dim {
		return nil, false
	}
	mean := make([]float64, dim)
	for i := range mean {
		mean[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return mean, true
}

// UpdateVectorIndex brings the sign-bit pages up to date after the vectors
// of the chunks added were written: their bits (against the stored mean)
// go into one new page when they are few next to the pages' vectors;
// otherwise, or when pages added this way reach a fifth of the index, the
// pages are rebuilt (RebuildVectorIndex). Vectors of deleted chunks stay in
// their pages until then and drop out at the join with vec_quant.
func (db *DB) UpdateVectorIndex(ctx context.Context, added []int64) error {
	if len(added) == 0 {
		return nil
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("update vector index of", err)
	}
	defer tx.Rollback()
	if err := db.updateVectorIndex(ctx, tx, added); err != nil {
		return err
	}
	return db.wrap("update vector index of", tx.Commit())
}

// updateVectorIndex is UpdateVectorIndex inside tx.
func (db *DB) updateVectorIndex(ctx context.Context, tx *sql.Tx, added []int64) error {
	dim := db.Embedder().Dim
	var paged, appended int
	var meanText sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vec_paged'), 0),
		coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vec_appended'), 0),
		(SELECT value FROM meta WHERE key = 'vec_mean')`).Scan(&paged, &appended, &meanText)
	if err != nil {
		return db.wrap("update vector index of", err)
	}
	mean, ok := decodeMean(meanText.String, dim)
	if !ok || dim%64 != 0 || len(added) > paged/10 || appended+len(added) > paged/5 {
		return db.rebuildVectorIndex(ctx, tx)
	}
	var pks, bitsBuf []byte
	v := make([]float64, dim)
	n := 0
	for start := 0; start < len(added); start += 900 {
		part := added[start:min(start+900, len(added))]
		args := make([]any, len(part))
		for i, pk := range part {
			args[i] = pk
		}
		rows, err := tx.QueryContext(ctx, `SELECT chunk_pk, i8 FROM vec_quant WHERE chunk_pk IN (`+placeholders(len(part))+`) ORDER BY chunk_pk`, args...)
		if err != nil {
			return db.wrap("update vector index of", err)
		}
		for rows.Next() {
			var pk int64
			var b []byte
			if err := rows.Scan(&pk, &b); err != nil {
				rows.Close()
				return db.wrap("update vector index of", err)
			}
			if !dequantize(b, v) {
				continue
			}
			pks = binary.LittleEndian.AppendUint64(pks, uint64(pk))
			for _, w := range signBits(v, mean) {
				bitsBuf = binary.LittleEndian.AppendUint64(bitsBuf, w)
			}
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return db.wrap("update vector index of", err)
		}
	}
	if n == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO vec_pages(page, pks, bits) VALUES ((SELECT coalesce(max(page), -1) + 1 FROM vec_pages), ?, ?)`,
		pks, bitsBuf); err != nil {
		return db.wrap("update vector index of", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('vec_paged', ?), ('vec_appended', ?), ('vec_pages_gen', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
		strconv.Itoa(paged+n), strconv.Itoa(appended+n), strconv.FormatInt(time.Now().UnixNano(), 36)); err != nil {
		return db.wrap("update vector index of", err)
	}
	return nil
}

// RebuildVectorIndex rebuilds the sign-bit pages of the fast KNN path from
// vec_quant: the mean vector first, then the bits of each vector minus the
// mean, in one transaction. The crawl calls it after embedding.
func (db *DB) RebuildVectorIndex(ctx context.Context) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("rebuild vector index of", err)
	}
	defer tx.Rollback()
	if err := db.rebuildVectorIndex(ctx, tx); err != nil {
		return err
	}
	return db.wrap("rebuild vector index of", tx.Commit())
}

// rebuildVectorIndex is RebuildVectorIndex inside tx.
func (db *DB) rebuildVectorIndex(ctx context.Context, tx *sql.Tx) error {
	dim := db.Embedder().Dim
	if _, err := tx.ExecContext(ctx, `DELETE FROM vec_pages`); err != nil {
		return db.wrap("rebuild vector index of", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN ('vec_mean', 'vec_paged', 'vec_pages_gen', 'vec_appended')`); err != nil {
		return db.wrap("rebuild vector index of", err)
	}
	if dim == 0 || dim%64 != 0 {
		return nil
	}
	each := func(fn func(pk int64, v []float64)) error {
		rows, err := tx.QueryContext(ctx, `SELECT chunk_pk, i8 FROM vec_quant ORDER BY chunk_pk`)
		if err != nil {
			return err
		}
		defer rows.Close()
		v := make([]float64, dim)
		for rows.Next() {
			var pk int64
			var b []byte
			if err := rows.Scan(&pk, &b); err != nil {
				return err
			}
			if dequantize(b, v) {
				fn(pk, v)
			}
		}
		return rows.Err()
	}
	mean := make([]float64, dim)
	n := 0
	if err := each(func(_ int64, v []float64) {
		n++
		for i, x := range v {
			mean[i] += x
		}
	}); err != nil {
		return db.wrap("rebuild vector index of", err)
	}
	if n == 0 {
		return nil
	}
	for i := range mean {
		mean[i] /= float64(n)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO vec_pages(page, pks, bits) VALUES (?, ?, ?)`)
	if err != nil {
		return db.wrap("rebuild vector index of", err)
	}
	defer ins.Close()
	var pks, bitsBuf []byte
	page, inPage := 0, 0
	flush := func() error {
		if inPage == 0 {
			return nil
		}
		_, err := ins.ExecContext(ctx, page, pks, bitsBuf)
		page, inPage, pks, bitsBuf = page+1, 0, nil, nil
		return err
	}
	var werr error
	if err := each(func(pk int64, v []float64) {
		if werr != nil {
			return
		}
		pks = binary.LittleEndian.AppendUint64(pks, uint64(pk))
		for _, w := range signBits(v, mean) {
			bitsBuf = binary.LittleEndian.AppendUint64(bitsBuf, w)
		}
		if inPage++; inPage == pageSize {
			werr = flush()
		}
	}); err != nil {
		return db.wrap("rebuild vector index of", err)
	}
	if werr == nil {
		werr = flush()
	}
	if werr != nil {
		return db.wrap("rebuild vector index of", werr)
	}
	rawMean := make([]byte, 0, 8*dim)
	for _, x := range mean {
		rawMean = binary.LittleEndian.AppendUint64(rawMean, math.Float64bits(x))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('vec_mean', ?), ('vec_paged', ?), ('vec_pages_gen', ?)`,
		base64.StdEncoding.EncodeToString(rawMean), strconv.Itoa(n), strconv.FormatInt(time.Now().UnixNano(), 36)); err != nil {
		return db.wrap("rebuild vector index of", err)
	}
	return nil
}

// pagedCount is the number of vectors in the sign-bit pages (0 if none).
func (db *DB) pagedCount(ctx context.Context) int {
	var n int
	db.sql.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vec_paged'`).Scan(&n)
	return n
}

// knnPaged is KNN through the sign-bit pages: Hamming distance to every
// vector picks k·PrefilterFactor candidates, their int8 vectors are scored
// by cosine, and the best k are read. The score is the cosine of the int8
// vectors (within about 1% of the exact one).
func (db *DB) knnPaged(ctx context.Context, v []float32, k int) ([]core.Hit, error) {
	dim := len(v)
	gen, mean, err := db.vectorMeta(ctx, dim)
	if err != nil || mean == nil {
		return nil, err
	}
	q := make([]float64, dim)
	var qn float64
	for i, x := range v {
		q[i] = float64(x)
		qn += q[i] * q[i]
	}
	qn = math.Sqrt(qn)
	cand, err := db.candidates(ctx, gen, mean, signBits(q, mean), k*db.opts.PrefilterFactor)
	if err != nil {
		return nil, err
	}
	// A chunk pk can be in two pages (a deleted chunk's pk reused by a
	// chunk added since the last rebuild): score it once.
	slices.Sort(cand)
	cand = slices.Compact(cand)
	if len(cand) == 0 {
		return nil, nil
	}
	// Rescore by cosine of the int8 vectors.
	type scored struct {
		pk  int64
		cos float64
	}
	var res []scored
	vec := make([]float64, dim)
	for start := 0; start < len(cand); start += 900 {
		part := cand[start:min(start+900, len(cand))]
		args := make([]any, len(part))
		for i, pk := range part {
			args[i] = pk
		}
		rows, err := db.sql.QueryContext(ctx, `SELECT chunk_pk, i8 FROM vec_quant WHERE chunk_pk IN (`+placeholders(len(part))+`)`, args...)
		if err != nil {
			return nil, db.wrap("vector search in", err)
		}
		for rows.Next() {
			var pk int64
			var b []byte
			if err := rows.Scan(&pk, &b); err != nil {
				rows.Close()
				return nil, db.wrap("vector search in", err)
			}
			if !dequantize(b, vec) {
				continue
			}
			var dot, vn float64
			for i, x := range vec {
				dot += x * q[i]
				vn += x * x
			}
			if vn > 0 && qn > 0 {
				res = append(res, scored{pk, dot / math.Sqrt(vn) / qn})
			}
		}
		rows.Close()
	}
	sort.Slice(res, func(i, j int) bool {
		return res[i].cos > res[j].cos || res[i].cos == res[j].cos && res[i].pk < res[j].pk
	})
	// Read the best k chunks, and those tied with the k-th: SettleTies
	// chooses among them by chunk ID, not by row ID.
	n := min(len(res), k)
	for n > 0 && n < len(res) && res[n].cos == res[n-1].cos {
		n++
	}
	top := res[:n]
	if len(top) == 0 {
		return nil, nil
	}
	args := make([]any, len(top))
	score := map[int64]float64{}
	for i, s := range top {
		args[i] = s.pk
		score[s.pk] = s.cos
	}
	crow, err := db.sql.QueryContext(ctx, `SELECT `+chunkrow.Cols+`, c.pk FROM chunks c WHERE c.pk IN (`+placeholders(len(top))+`)`, args...)
	if err != nil {
		return nil, db.wrap("vector search in", err)
	}
	defer crow.Close()
	byPK := map[int64]core.Chunk{}
	for crow.Next() {
		var pk int64
		c, err := chunkrow.Scan(crow, &pk)
		if err != nil {
			return nil, db.wrap("read vector hits from", err)
		}
		byPK[pk] = c
	}
	var hits []core.Hit
	for _, s := range top {
		c, ok := byPK[s.pk]
		if !ok {
			continue
		}
		hits = append(hits, core.Hit{Chunk: c, Score: s.cos, Lists: []core.ListRank{{List: "dense", Rank: len(hits) + 1, Score: s.cos}}})
	}
	core.SettleTies(hits)
	return hits[:min(len(hits), k)], db.wrap("vector search in", crow.Err())
}
