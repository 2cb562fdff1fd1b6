package main

import (
	"database/sql"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"coderag/sqlite"
)

// binaryCmd runs this test binary as coderag (see TestMain).
func binaryCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "CODERAG_AS_BINARY=1")
	return cmd
}

func sampleCrawlArgs(db string) []string {
	return []string{"crawl", "--db", db,
		"--repo-path", filepath.Join(sampleDir, "platform"),
		"--repo-path", filepath.Join(sampleDir, "storefront"),
		"--slack-export", "acme-slack=" + filepath.Join(sampleDir, "slack"),
		"--transcripts-dir", filepath.Join(sampleDir, "transcripts"),
		"--gdocs-dir", filepath.Join(sampleDir, "gdocs")}
}

// dbState reads what the crash test checks: integrity, chunks per source
// and vectors.
func dbState(t *testing.T, db string) (integrity string, perSource map[string]int, chunks, vectors int) {
	t.Helper()
	if err := sqlite.SetupC(); err != nil {
		t.Fatal(err)
	}
	h, err := sql.Open("sqlite3", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []string{"fts_code", "fts_prose"} {
		if _, err := h.Exec(`INSERT INTO ` + tbl + `(` + tbl + `) VALUES ('integrity-check')`); err != nil {
			integrity += "; " + tbl + ": " + err.Error()
		}
	}
	perSource = map[string]int{}
	rows, err := h.Query(`SELECT repo_name, count(*) FROM chunks GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var n int
		rows.Scan(&name, &n)
		perSource[name] = n
		chunks += n
	}
	rows.Close()
	h.QueryRow(`SELECT count(*) FROM vec_chunks`).Scan(&vectors)
	return integrity, perSource, chunks, vectors
}

// TestKilledCrawlsNeverCorrupt kills crawls of the sample with SIGKILL at
// random points of every phase, 20 times, and checks after each that the
// database passes integrity checks, holds each source whole (the crawl
// rewrites the same content, so each source's chunk count is the
// reference's), and answers a query. Then one crawl finishes what the
// killed ones left (vectors).
func TestKilledCrawlsNeverCorrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 crawls")
	}
	db := filepath.Join(t.TempDir(), "k.db")
	start := time.Now()
	if out, err := binaryCmd(sampleCrawlArgs(db)...).CombinedOutput(); err != nil {
		t.Fatalf("reference crawl: %v\n%s", err, out)
	}
	full := time.Since(start)
	okIntegrity, ref, refChunks, _ := dbState(t, db)
	if okIntegrity != "ok" || refChunks == 0 {
		t.Fatalf("reference: integrity %q, %d chunks", okIntegrity, refChunks)
	}
	rng := rand.New(rand.NewPCG(42, 7))
	variants := [][]string{nil, {"--incremental"}, {"--reembed"}}
	for i := range 20 {
		args := append(sampleCrawlArgs(db), variants[i%len(variants)]...)
		cmd := binaryCmd(args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(full + full/2)))
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		integrity, per, _, vectors := dbState(t, db)
		if integrity != "ok" {
			t.Fatalf("kill %d after %s (%v): integrity %q", i, delay, variants[i%len(variants)], integrity)
		}
		for name, n := range ref {
			if per[name] != n {
				t.Errorf("kill %d after %s: source %s has %d chunks, want %d (all or nothing)", i, delay, name, per[name], n)
			}
		}
		if vectors > refChunks {
			t.Errorf("kill %d: %d vectors for %d chunks", i, vectors, refChunks)
		}
		code, out, errs := coderag(t, "query", "--db", db, "--json", "-k", "1", "getUserProfile")
		if code != 0 || !strings.Contains(out, "getUserProfile") {
			t.Fatalf("kill %d after %s: query exit %d: %s %s", i, delay, code, out, errs)
		}
	}
	// The next crawl completes the index.
	if out, err := binaryCmd(append(sampleCrawlArgs(db), "--incremental")...).CombinedOutput(); err != nil {
		t.Fatalf("crawl after the kills: %v\n%s", err, out)
	}
	integrity, _, chunks, vectors := dbState(t, db)
	if integrity != "ok" || chunks != refChunks || vectors != chunks {
		t.Errorf("after recovery: integrity %q, %d chunks (want %d), %d vectors", integrity, chunks, refChunks, vectors)
	}
	// The graph, owners and mentions are those of an uninterrupted crawl:
	// a crawl killed between a source's commit and the link phase left the
	// graph marked dirty for this one.
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	if out, err := binaryCmd(sampleCrawlArgs(fresh)...).CombinedOutput(); err != nil {
		t.Fatalf("fresh crawl: %v\n%s", err, out)
	}
	if got, want := linkState(t, db), linkState(t, fresh); !slices.Equal(got, want) {
		t.Errorf("after recovery the link state differs from a fresh crawl's:\n%s", diffLines(got, want))
	}
}

// TestQueriesDuringCrawl queries in a loop while crawls run: zero errors.
// A second crawl of the same database at the same time fails clearly.
func TestQueriesDuringCrawl(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	if out, err := binaryCmd(sampleCrawlArgs(db)...).CombinedOutput(); err != nil {
		t.Fatalf("first crawl: %v\n%s", err, out)
	}
	crawl := binaryCmd(append(sampleCrawlArgs(db), "--reembed")...)
	if err := crawl.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- crawl.Wait() }()
	// A second writer is refused while the first holds the lock.
	time.Sleep(100 * time.Millisecond)
	second, _ := binaryCmd(sampleCrawlArgs(db)...).CombinedOutput()
	queries, failures := 0, 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("crawl: %v", err)
			}
			running = false
		default:
		}
		code, out, errs := coderag(t, "query", "--db", db, "--json", "-k", "3", "redis OOMKilled cart")
		queries++
		if code != 0 || !strings.Contains(out, `"hits":[{`) {
			failures++
			t.Logf("query %d: exit %d %s %s", queries, code, out, errs)
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d queries during a crawl failed", failures, queries)
	}
	if queries < 3 {
		t.Logf("only %d queries ran during the crawl", queries)
	}
	if s := string(second); !strings.Contains(s, "another crawl is writing this database") && !strings.Contains(s, "indexed") {
		t.Errorf("second crawl: %s", s)
	}
}
