package postgres

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/search"
	"coderag/core/storetest"
	"coderag/sqlite/internal/chunkrow"
	"coderag/sqlite/postgres/pgtest"
)

// BenchmarkQuery measures warm query latency on PostgreSQL with the
// corpus-learned embedder at 10k and 100k chunks — BM25 only, dense only,
// hybrid — over the corpus and queries of the SQLite store's
// BenchmarkHybrid, so the two read side by side. It reports what
// building the index cost too. With pgvector on the server, dense and
// hybrid run twice: through the HNSW index, and through the sign bits
// (-signbits, a process with CODERAG_PGVECTOR=off), with the share of
// the sign bits' top 10 that the HNSW search finds.
func BenchmarkQuery(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes() {
		dsn := pgtest.DSN(b)
		db, err := Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		storetest.WriteSynth(b, db, "bench", n, 1)
		write := time.Since(start)
		sum, err := ingest.New(db, ingest.Options{Embed: ingest.EmbedOptions{Builtin: true}}).Run(ctx, nil)
		if err != nil || sum.Embed.Err != nil {
			b.Fatalf("embed: %v %v", err, sum.Embed.Err)
		}
		b.Run(fmt.Sprintf("chunks=%d/build", n), func(b *testing.B) {
			b.ReportMetric(float64(n)/write.Seconds(), "written-chunks/s")
			b.ReportMetric(float64(sum.Embed.Embedded)/sum.Embed.Duration.Seconds(), "embedded-chunks/s")
			b.ReportMetric(0, "ns/op")
		})
		emb := embed.Stored{Dim: db.Embedder().Dim, Load: db.LoadModel}
		queries := storetest.NewSynth(99).Queries(200)
		for _, m := range []struct {
			name string
			opts search.Options
		}{
			{"bm25", search.Options{}},
			{"dense", search.Options{Embedder: emb, NoBM25: true}},
			{"hybrid", search.Options{Embedder: emb}},
		} {
			b.Run(fmt.Sprintf("chunks=%d/%s", n, m.name), func(b *testing.B) {
				eng := search.New(db, m.opts)
				for _, q := range queries[:10] { // warm
					eng.Search(ctx, search.Query{Text: q, K: 10})
				}
				storetest.ReportLatencies(b, storetest.Latencies(b, eng, queries))
				if m.name == "dense" {
					b.ReportMetric(knnRecall(ctx, b, db, emb, queries[:50]), "knn-recall@10")
				}
			})
		}
		if db.annDim() > 0 {
			b.Setenv(annEnv, "off")
			off, err := Open(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			for _, m := range []string{"dense", "hybrid"} {
				b.Run(fmt.Sprintf("chunks=%d/%s-signbits", n, m), func(b *testing.B) {
					opts := search.Options{Embedder: emb, NoBM25: m == "dense"}
					eng := search.New(off, opts)
					for _, q := range queries[:10] {
						eng.Search(ctx, search.Query{Text: q, K: 10})
					}
					storetest.ReportLatencies(b, storetest.Latencies(b, eng, queries))
					if m == "dense" {
						b.ReportMetric(knnRecall(ctx, b, off, emb, queries[:50]), "knn-recall@10")
					}
				})
			}
			off.Close()
			os.Unsetenv(annEnv)
		}
		db.Close()
	}
}

// benchSizes are the index sizes of BenchmarkQuery; CODERAG_BENCH_SMALL=1
// runs only the smaller.
func benchSizes() []int {
	if os.Getenv("CODERAG_BENCH_SMALL") != "" {
		return []int{10_000}
	}
	return []int{10_000, 100_000}
}

// BenchmarkCrawlers measures write throughput with 1, 2 and 4 crawlers of
// different sources writing 20,000 chunks between them at once (each
// source in its own transaction).
func BenchmarkCrawlers(b *testing.B) {
	const total = 20_000
	for _, c := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("crawlers=%d", c), func(b *testing.B) {
			db, err := Open(context.Background(), pgtest.DSN(b))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			start := time.Now()
			var wg sync.WaitGroup
			for i := range c {
				wg.Add(1)
				go func() {
					defer wg.Done()
					storetest.WriteSynth(b, db, fmt.Sprintf("src%d", i), total/c, uint64(i+1))
				}()
			}
			wg.Wait()
			b.ReportMetric(total/time.Since(start).Seconds(), "chunks/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// knnRecall is the share of the exact top 10 (cosine, by brute force
// over every stored vector) that db.KNN finds, over the queries.
func knnRecall(ctx context.Context, t testing.TB, db *DB, emb embed.Embedder, queries []string) float64 {
	rows, err := db.pool.Query(ctx, `SELECT c.id, v.vec FROM vectors v JOIN chunks c ON c.pk = v.chunk_pk`)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string][]float32{}
	for rows.Next() {
		var id string
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			t.Fatal(err)
		}
		all[id] = chunkrow.Floats(raw)
	}
	rows.Close()
	vecs, err := emb.Embed(ctx, embed.Query, queries)
	if err != nil {
		t.Fatal(err)
	}
	var found, total int
	for _, q := range vecs {
		if len(q) == 0 {
			continue // no word the model knows
		}
		hits, err := db.KNN(ctx, q, 10, core.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		// Ties (chunks of equal text) make the exact top 10 ambiguous:
		// a hit counts when it is at least as near as the exact 10th.
		top := exactTop(all, q, 10)
		tenth := cos(all[top[len(top)-1]], q)
		total += len(top)
		for _, h := range hits {
			if cos(all[h.Chunk.ID], q) >= tenth-1e-6 {
				found++
			}
		}
	}
	return float64(found) / float64(total)
}
