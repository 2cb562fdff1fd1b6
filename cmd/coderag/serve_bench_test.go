package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkServeSearch is the HTTP API under load: 8 concurrent clients
// POST /v1/search against an index of about 100,000 chunks (500 copies of
// the sample's two repositories), and it reports requests per second and
// the 95th-percentile latency.
func BenchmarkServeSearch(b *testing.B) {
	dir := b.TempDir()
	repo := filepath.Join(dir, "mono")
	for i := 0; i < 500; i++ {
		for _, r := range []string{"platform", "storefront"} {
			copyTree(b, filepath.Join(sampleDir, r), filepath.Join(repo, fmt.Sprintf("team%03d", i), r))
		}
	}
	db := filepath.Join(dir, "bench.db")
	if code, _, errs := coderag(b, "crawl", "--db", db, "--repo-path", repo, "--progress", "none"); code != 0 {
		b.Fatalf("crawl: %s", errs)
	}
	srv := startAPI(b, db, "")
	queries := []string{"redis connection timeout", "checkout 502 cart unavailable", "getUserProfile", "kafka orders placed consumer",
		"how are carts stored", "stripe charge failed", "type:runbook redis", "service:catalog stock"}
	const clients = 8
	for b.Loop() {
		var mu sync.Mutex
		var lat []time.Duration
		var errs []string
		var wg sync.WaitGroup
		start := time.Now()
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 25; i++ {
					q := queries[(c+i)%len(queries)]
					t0 := time.Now()
					resp, err := srv.Client().Post(srv.URL+"/v1/search", "application/json", strings.NewReader(fmt.Sprintf(`{"query": %q, "k": 10}`, q)))
					d := time.Since(t0)
					mu.Lock()
					if err != nil {
						errs = append(errs, err.Error())
					} else {
						if resp.StatusCode != http.StatusOK {
							errs = append(errs, resp.Status)
						}
						resp.Body.Close()
					}
					lat = append(lat, d)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		if len(errs) > 0 {
			b.Fatalf("%d of %d requests failed: %v", len(errs), len(lat), errs[0])
		}
		slices.Sort(lat)
		b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
		b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	}
}
