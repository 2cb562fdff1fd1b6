package postgres

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/search"
	"coderag/core/storetest"
	"coderag/sqlite/postgres/pgtest"
)

// BenchmarkQuery measures warm query latency on PostgreSQL with the
// corpus-learned embedder at 10k and 100k chunks — BM25 only, dense only,
// hybrid — over the corpus and queries of the SQLite store's
// BenchmarkHybrid, so the two read side by side. It reports what
// building the index cost too.
func BenchmarkQuery(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes() {
		db, err := Open(ctx, pgtest.DSN(b))
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
			})
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
