package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// procStatus returns a field of /proc/self/status in MB (Linux), or 0:
// VmHWM is the peak resident set size, including pages of the database
// file that SQLite memory-maps; RssAnon the anonymous (heap and stack)
// part now.
func procStatus(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field+":" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	return 0
}

// peakAnon samples the anonymous resident memory every 50 ms until stop
// is closed and returns the largest sample.
func peakAnon(stop <-chan struct{}) <-chan float64 {
	out := make(chan float64, 1)
	go func() {
		peak := 0.0
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, procStatus("RssAnon"))
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// BenchmarkCrawl50MB crawls the sample's two repositories replicated into
// one repository of about 50 MB of source (full crawl with the built-in
// embedder), then times an incremental crawl (a new process) after one
// file changed without touching what the graph is built from (a line
// appended), after a line inserted at its top (positions move: the graph
// is rebuilt), and after a service address changed (the graph is rebuilt
// with a new edge).
func BenchmarkCrawl50MB(b *testing.B) {
	dir := b.TempDir()
	repo := filepath.Join(dir, "mono")
	var bytes int64
	for copies := 0; bytes < 50<<20; copies++ {
		for _, r := range []string{"platform", "storefront"} {
			bytes += copyTree(b, filepath.Join(sampleDir, r), filepath.Join(repo, fmt.Sprintf("team%03d", copies), r))
		}
	}
	db := filepath.Join(dir, "bench.db")
	stop := make(chan struct{})
	anon := peakAnon(stop)
	start := time.Now()
	if code, _, errs := coderag(b, "crawl", "--db", db, "--repo-path", repo); code != 0 {
		b.Fatalf("crawl: %s", errs)
	}
	full := time.Since(start)
	close(stop)
	peakAnonMB := <-anon
	_, out, _ := coderag(b, "stats", "--db", db, "--json")
	var st struct{ Files, Chunks int }
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		b.Fatal(err)
	}
	rss := procStatus("VmHWM")
	// Incremental crawls run as their own process, as from cron: nothing
	// (compiled queries, page cache of the database connection) is left
	// from the full crawl in this one. Each is timed 5 times; the median
	// is reported.
	incremental := func(edit func()) time.Duration {
		var times []time.Duration
		for range 5 {
			edit()
			start := time.Now()
			if out, err := binaryCmd("crawl", "--db", db, "--repo-path", repo, "--incremental", "--progress", "none").CombinedOutput(); err != nil {
				b.Fatalf("incremental crawl: %v\n%s", err, out)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		return times[len(times)/2]
	}
	// One changed file.
	edit := filepath.Join(repo, "team000", "storefront", "src", "clients", "cart.ts")
	n := 0
	inc := incremental(func() {
		n++
		data, _ := os.ReadFile(edit)
		os.WriteFile(edit, append(data, fmt.Sprintf("\nexport const changed%d = true;\n", n)...), 0o644)
	})
	// A line inserted at the top of the same file: every position in it
	// moves, so the graph is built again (its services stay).
	incTop := incremental(func() {
		n++
		data, _ := os.ReadFile(edit)
		os.WriteFile(edit, append([]byte(fmt.Sprintf("// edit %d\n", n)), data...), 0o644)
	})
	// One changed address: the graph is built again.
	incGraph := incremental(func() {
		n++
		data, _ := os.ReadFile(edit)
		os.WriteFile(edit, []byte(strings.Replace(string(data), fmt.Sprintf("http://cart:%d", 8079+n-10), fmt.Sprintf("http://cart:%d", 8080+n-10), 1)), 0o644)
	})
	b.ReportMetric(float64(bytes)/1e6, "MB")
	b.ReportMetric(full.Seconds(), "full-s")
	b.ReportMetric(float64(bytes)/1e6/full.Seconds(), "MB/s")
	b.ReportMetric(float64(st.Files), "files")
	b.ReportMetric(float64(st.Chunks), "chunks")
	b.ReportMetric(float64(st.Files)/full.Seconds(), "files/s")
	b.ReportMetric(float64(st.Chunks)/full.Seconds(), "chunks/s")
	b.ReportMetric(rss, "peak-RSS-MB")
	b.ReportMetric(peakAnonMB, "peak-anon-MB")
	b.ReportMetric(inc.Seconds(), "incremental-1-file-s")
	b.ReportMetric(inc.Seconds()/full.Seconds(), "incremental/full")
	b.ReportMetric(incTop.Seconds(), "incremental-top-edit-s")
	b.ReportMetric(incGraph.Seconds(), "incremental-graph-s")
	b.ReportMetric(0, "ns/op")
}
