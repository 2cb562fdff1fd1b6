package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// peakRSS is the process's peak resident set size in MB (Linux), or 0.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	return 0
}

// BenchmarkCrawl50MB crawls the sample's two repositories replicated into
// one repository of about 50 MB of source (full crawl with the built-in
// embedder), then times an incremental crawl after one file changed.
func BenchmarkCrawl50MB(b *testing.B) {
	dir := b.TempDir()
	repo := filepath.Join(dir, "mono")
	var bytes int64
	copies := 0
	for bytes < 50<<20 {
		for _, r := range []string{"platform", "storefront"} {
			dst := filepath.Join(repo, fmt.Sprintf("team%03d", copies), r)
			filepath.WalkDir(filepath.Join(sampleDir, r), func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(filepath.Join(sampleDir, r), p)
				to := filepath.Join(dst, rel)
				if d.IsDir() {
					return os.MkdirAll(to, 0o755)
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				bytes += int64(len(data))
				return os.WriteFile(to, data, 0o644)
			})
		}
		copies++
	}
	db := filepath.Join(dir, "bench.db")
	var files, chunks int
	start := time.Now()
	code, out, errs := coderagB(b, "crawl", "--db", db, "--repo-path", repo, "--json")
	full := time.Since(start)
	if code != 0 {
		b.Fatalf("crawl: %s", errs)
	}
	fmt.Sscanf(jsonField(lastLineB(out), `"files":`), "%d", &files)
	fmt.Sscanf(jsonField(lastLineB(out), `"chunk_count":`), "%d", &chunks)
	rss := peakRSS()
	// One changed file.
	edit := filepath.Join(repo, "team000", "storefront", "src", "clients", "cart.ts")
	data, _ := os.ReadFile(edit)
	os.WriteFile(edit, append(data, []byte("\nexport const changed = true;\n")...), 0o644)
	start = time.Now()
	if code, _, errs := coderagB(b, "crawl", "--db", db, "--repo-path", repo, "--incremental"); code != 0 {
		b.Fatalf("incremental crawl: %s", errs)
	}
	inc := time.Since(start)
	b.ReportMetric(float64(bytes)/1e6, "MB")
	b.ReportMetric(full.Seconds(), "full-s")
	b.ReportMetric(float64(bytes)/1e6/full.Seconds(), "MB/s")
	b.ReportMetric(float64(files)/full.Seconds(), "files/s")
	b.ReportMetric(float64(chunks)/full.Seconds(), "chunks/s")
	b.ReportMetric(rss, "peak-RSS-MB")
	b.ReportMetric(inc.Seconds(), "incremental-1-file-s")
	b.ReportMetric(0, "ns/op")
}

func coderagB(b *testing.B, args ...string) (int, string, string) {
	var out, errb strings.Builder
	io := &ioStreams{out: &out, err: &errb, termWidth: func() int { return 80 }}
	code := run(b.Context(), args, io)
	return code, out.String(), errb.String()
}

func lastLineB(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// jsonField returns the text after the first occurrence of key.
func jsonField(s, key string) string {
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	return s[i+len(key):]
}
