package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"coderag/core"
	"coderag/core/ingest"
	"coderag/sqlite"
)

// writeSlackExport writes an export of channels × days × perDay messages,
// a third of them in threads, with users and channels files. It returns
// the number of messages and bytes.
func writeSlackExport(b *testing.B, dir string, channels, days, perDay int) (int, int64) {
	b.Helper()
	var users []map[string]any
	for u := 0; u < 200; u++ {
		users = append(users, map[string]any{"id": fmt.Sprintf("U%03d", u), "name": fmt.Sprintf("user%d", u),
			"real_name": fmt.Sprintf("Person%03d Surname%03d", u, u)})
	}
	write := func(p string, v any) int64 {
		data, _ := json.MarshalIndent(v, "", "  ")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		return int64(len(data))
	}
	write(filepath.Join(dir, "users.json"), users)
	var chans []map[string]any
	msgs, size := 0, int64(0)
	start := time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC)
	for c := 0; c < channels; c++ {
		name := fmt.Sprintf("team-%02d", c)
		chans = append(chans, map[string]any{"id": fmt.Sprintf("C%02d", c), "name": name})
		for d := 0; d < days; d++ {
			var day []map[string]any
			thread := ""
			for m := 0; m < perDay; m++ {
				at := start.AddDate(0, 0, d).Add(time.Duration(m) * 3 * time.Minute)
				ts := fmt.Sprintf("%d.%06d", at.Unix(), m)
				msg := map[string]any{"type": "message", "user": fmt.Sprintf("U%03d", (c*7+m)%200), "ts": ts,
					"text": fmt.Sprintf("checkout-%d answers 502 again, <@U%03d> can you look at the cart pods? see <https://grafana.example.com/d/%d|dashboard>", m, m%200, m)}
				switch {
				case m%3 == 0:
					thread = ts
					msg["thread_ts"] = ts
				case m%3 == 1 && thread != "":
					msg["thread_ts"] = thread
				}
				day = append(day, msg)
				msgs++
			}
			size += write(filepath.Join(dir, name, start.AddDate(0, 0, d).Format("2006-01-02")+".json"), day)
		}
	}
	write(filepath.Join(dir, "channels.json"), chans)
	return msgs, size
}

// BenchmarkCrawlSlack crawls a generated Slack export (20 channels × 30
// days × 40 messages = 24,000 messages) into a fresh database: read,
// thread, chunk, scrub (names of 200 members), write and index.
func BenchmarkCrawlSlack(b *testing.B) {
	dir := b.TempDir()
	msgs, size := writeSlackExport(b, filepath.Join(dir, "export"), 20, 30, 40)
	ctx := context.Background()
	var chunks int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dbPath := filepath.Join(dir, fmt.Sprintf("s%d.db", i))
		db, err := sqlite.Open(ctx, dbPath, sqlite.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := ingest.New(db, ingest.Options{}).Run(ctx, []core.Source{{Kind: core.SourceSlackExport, Path: filepath.Join(dir, "export"), Name: "slack"}})
		if err != nil || sum.Failed() {
			b.Fatal(err, sum)
		}
		chunks = sum.Sources[0].ChunkCount()
		b.StopTimer()
		db.Close()
		os.Remove(dbPath)
		b.StartTimer()
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(msgs)/sec, "msgs/s")
	b.ReportMetric(float64(size)/sec/1e6, "MB/s")
	b.ReportMetric(float64(chunks), "chunks")
}
