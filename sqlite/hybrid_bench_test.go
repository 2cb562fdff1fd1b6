package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/search"
	"coderag/core/storetest"
)

// embedded is a database of n rich chunks embedded by the built-in
// embedder, with what building it cost.
type embedded struct {
	db                  *DB
	train, embed        time.Duration
	peakMB              float64
	vocab, sample, vecs int
}

var (
	embeddedMu  sync.Mutex
	embeddedDBs = map[int]*embedded{}
)

// builtinDB builds (once per size) a database of n chunks and runs the
// crawl's embed phase over it, sampling the heap to find its peak.
func builtinDB(b *testing.B, n int) *embedded {
	embeddedMu.Lock()
	defer embeddedMu.Unlock()
	if e, ok := embeddedDBs[n]; ok {
		return e
	}
	ctx := context.Background()
	dir := b.TempDir()
	db, err := Open(ctx, filepath.Join(dir, "bench.db"), Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	storetest.WriteSynth(b, db, "bench", n, 1)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	sum, err := ingest.New(db, ingest.Options{Embed: ingest.EmbedOptions{Builtin: true}}).Run(ctx, nil)
	close(stop)
	<-done
	if err != nil || sum.Embed.Err != nil {
		b.Fatalf("embed: %v %v", err, sum.Embed.Err)
	}
	e := &embedded{db: db, train: sum.Embed.TrainDuration, embed: sum.Embed.Duration - sum.Embed.TrainDuration,
		peakMB: float64(peak.Load()-min(peak.Load(), base.HeapInuse)) / (1 << 20), vocab: sum.Embed.Vocab, sample: sum.Embed.Sample, vecs: sum.Embed.Embedded}
	embeddedDBs[n] = e
	return e
}

// BenchmarkBuiltinEmbedder measures learning the built-in model (from at
// most 20,000 sampled chunks) and embedding every chunk, at 10k and 100k
// chunks, with the peak heap above the baseline.
func BenchmarkBuiltinEmbedder(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			e := builtinDB(b, n)
			b.ReportMetric(e.train.Seconds(), "train-s")
			b.ReportMetric(e.embed.Seconds(), "embed-s")
			b.ReportMetric(float64(e.vecs)/e.embed.Seconds(), "chunks/s")
			b.ReportMetric(e.peakMB, "peak-heap-MB")
			b.ReportMetric(float64(e.vocab), "vocab")
			b.ReportMetric(float64(e.sample), "train-chunks")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkHybrid measures warm query latency with the built-in embedder
// and no reranker at 10k and 100k chunks: BM25 only, dense only, hybrid;
// and the builtin reranker over 50 candidates.
func BenchmarkHybrid(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		e := builtinDB(b, n)
		emb := embed.Stored{Dim: e.db.Embedder().Dim, Load: e.db.LoadModel}
		queries := storetest.NewSynth(99).Queries(200)
		modes := []struct {
			name string
			opts search.Options
		}{
			{"bm25", search.Options{}},
			{"dense", search.Options{Embedder: emb, NoBM25: true}},
			{"hybrid", search.Options{Embedder: emb}},
		}
		for _, m := range modes {
			b.Run(fmt.Sprintf("chunks=%d/%s", n, m.name), func(b *testing.B) {
				eng := search.New(e.db, m.opts)
				for _, q := range queries[:10] { // warm
					eng.Search(ctx, search.Query{Text: q, K: 10})
				}
				storetest.ReportLatencies(b, storetest.Latencies(b, eng, queries))
			})
		}
		// How much of the exact top 10 the fast path (sign-bit pages and
		// int8 rescoring) finds.
		b.Run(fmt.Sprintf("chunks=%d/dense-recall", n), func(b *testing.B) {
			saved := e.db.opts.PrefilterFrom
			defer func() { e.db.opts.PrefilterFrom = saved }()
			found, total, found50 := 0, 0, 0
			for i := 0; i < b.N; i++ {
				for _, q := range queries[:40] {
					vs, err := emb.Embed(ctx, embed.Query, []string{q})
					if err != nil || vs[0] == nil {
						continue
					}
					e.db.opts.PrefilterFrom = -1
					exact, err := e.db.KNN(ctx, vs[0], 10, core.Filter{})
					if err != nil {
						b.Fatal(err)
					}
					e.db.opts.PrefilterFrom = 1
					fast, err := e.db.KNN(ctx, vs[0], 10, core.Filter{})
					if err != nil {
						b.Fatal(err)
					}
					// The engine asks for 50 (its fusion depth): 1,000
					// candidates.
					fast50, err := e.db.KNN(ctx, vs[0], 50, core.Filter{})
					if err != nil {
						b.Fatal(err)
					}
					ids, ids50 := map[string]bool{}, map[string]bool{}
					for _, h := range fast {
						ids[h.Chunk.ID] = true
					}
					for _, h := range fast50[:min(10, len(fast50))] {
						ids50[h.Chunk.ID] = true
					}
					for _, h := range exact {
						total++
						if ids[h.Chunk.ID] {
							found++
						}
						if ids50[h.Chunk.ID] {
							found50++
						}
					}
				}
			}
			b.ReportMetric(float64(found)/float64(max(total, 1)), "recall@10-k10")
			b.ReportMetric(float64(found50)/float64(max(total, 1)), "recall@10-k50")
			b.ReportMetric(0, "ns/op")
		})
		b.Run(fmt.Sprintf("chunks=%d/rerank50", n), func(b *testing.B) {
			eng := search.New(e.db, search.Options{})
			var sets [][]core.Hit
			for _, q := range queries[:50] {
				res, err := eng.Search(ctx, search.Query{Text: q, K: 50})
				if err != nil {
					b.Fatal(err)
				}
				sets = append(sets, res.Hits)
			}
			var lat []time.Duration
			for i := 0; i < b.N; i++ {
				for j, hits := range sets {
					start := time.Now()
					search.BuiltinReranker{}.Rerank(ctx, queries[j], hits)
					lat = append(lat, time.Since(start))
				}
			}
			storetest.ReportLatencies(b, lat)
		})
	}
}

// BenchmarkRefTargets follows the references of the ten best hits, as a
// context pack does (--follow), in an index of 100,000 chunks with eight
// references each.
func BenchmarkRefTargets(b *testing.B) {
	ctx := context.Background()
	e := builtinDB(b, 100_000)
	rows, err := e.db.sql.QueryContext(ctx, `SELECT id FROM chunks ORDER BY pk LIMIT 2000`)
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	found := 0
	i := 0
	for b.Loop() {
		t, err := e.db.RefTargets(ctx, ids[i%190*10:i%190*10+10], 3)
		if err != nil {
			b.Fatal(err)
		}
		for _, cs := range t {
			found += len(cs)
		}
		i++
	}
	b.ReportMetric(float64(found)/float64(b.N), "targets/op")
}
