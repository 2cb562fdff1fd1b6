package postgres

import (
	"context"
	"math/bits"
	"sort"

	"github.com/jackc/pgx/v5/pgtype"

	"coderag/core"
)

// signCache holds every vector's sign bits in memory (32 bytes a vector at
// 256 dimensions: 3.2 MB for 100k chunks), so that an unfiltered KNN
// picks its candidates by Hamming distance here instead of scanning the
// vectors table. It is keyed by the vector_gen sequence, which every
// commit that changes chunks or vectors advances; a reader that finds
// another value loads the bits again.
type signCache struct {
	gen   int64
	words int // 64-bit words per vector
	pks   []int64
	bits  []uint64
}

// vectorGen reads the vectors' generation.
func (db *DB) vectorGen(ctx context.Context) (int64, error) {
	var gen int64
	err := db.pool.QueryRow(ctx, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM vector_gen`).Scan(&gen)
	return gen, err
}

// bumpVectors advances the vectors' generation; call it after a commit
// that changed vectors (or the chunks they belong to).
func (db *DB) bumpVectors(ctx context.Context) error {
	_, err := db.pool.Exec(ctx, `SELECT nextval('vector_gen')`)
	return db.wrap("record a vector change in", err)
}

// signs returns the current sign-bit cache, loading it when the vectors
// changed since it was loaded.
func (db *DB) signs(ctx context.Context, dim int) (*signCache, error) {
	gen, err := db.vectorGen(ctx)
	if err != nil {
		return nil, db.wrap("read the vector generation of", err)
	}
	db.cmu.Lock()
	defer db.cmu.Unlock()
	if c := db.cache; c != nil && c.gen == gen && c.words == (dim+63)/64 {
		return c, nil
	}
	c := &signCache{gen: gen, words: (dim + 63) / 64}
	rows, err := db.pool.Query(ctx, `SELECT chunk_pk, bits FROM vectors`)
	if err != nil {
		return nil, db.wrap("load the vectors' sign bits from", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pk int64
		var b pgtype.Bits
		if err := rows.Scan(&pk, &b); err != nil {
			return nil, db.wrap("load the vectors' sign bits from", err)
		}
		if int(b.Len) != dim {
			continue // written for another dimension; cannot be a neighbour
		}
		c.pks = append(c.pks, pk)
		for w := 0; w < c.words; w++ {
			var x uint64
			for i := 0; i < 8 && w*8+i < len(b.Bytes); i++ {
				x |= uint64(b.Bytes[w*8+i]) << (56 - 8*i)
			}
			c.bits = append(c.bits, x)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("load the vectors' sign bits from", err)
	}
	db.cache = c
	return c, nil
}

// nearest returns the primary keys of the n vectors whose sign bits are
// nearest q's (Hamming), nearest first, ties by key, and those as near as
// the n-th.
func (c *signCache) nearest(q []uint64, n int) []int64 {
	type cand struct {
		d  int
		pk int64
	}
	all := make([]cand, len(c.pks))
	for i, pk := range c.pks {
		d := 0
		for w, x := range c.bits[i*c.words : (i+1)*c.words] {
			d += bits.OnesCount64(x ^ q[w])
		}
		all[i] = cand{d, pk}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].d != all[j].d {
			return all[i].d < all[j].d
		}
		return all[i].pk < all[j].pk
	})
	// The n nearest and those as near as the n-th: a tie broken by pk
	// would be broken by the order a crawl wrote the vectors in.
	n = core.WithTies(len(all), n, func(i int) bool { return all[i].d == all[i-1].d })
	out := make([]int64, 0, n)
	for _, c := range all[:n] {
		out = append(out, c.pk)
	}
	return out
}

// signWords packs v's sign bits as the cache holds them (bit string order:
// the first dimension is the highest bit of the first word).
func signWords(v []float32) []uint64 {
	out := make([]uint64, (len(v)+63)/64)
	for i, x := range v {
		if x > 0 {
			out[i/64] |= 1 << (63 - uint(i%64))
		}
	}
	return out
}
