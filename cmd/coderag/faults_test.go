package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOneChunkSource: a valid source too small to learn the corpus
// model's word vectors from is indexed and searchable (BM25), the crawl
// says why there are no vectors, and a later crawl with more text learns
// them; the shipped model (the default) embeds it at once.
func TestOneChunkSource(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "tiny")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("# Tiny\n\nThe tiny service answers pings.\n"), 0o644)
	db := filepath.Join(dir, "i.db")
	code, out, stderr := coderag(t, "crawl", "--db", filepath.Join(dir, "shipped.db"), "--repo-path", repo, "--progress", "none")
	if code != 0 || !strings.Contains(out, "embedded 1 chunk with builtin (the shipped model") {
		t.Fatalf("crawl of a one-chunk source with the shipped model: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = coderag(t, "crawl", "--db", db, "--repo-path", repo, "--progress", "none", "--json", "--embedder", "corpus")
	if code != 0 {
		t.Fatalf("crawl of a one-chunk source: exit %d: %s", code, stderr)
	}
	var sum struct {
		Embed struct {
			Untrained string `json:"untrained"`
		} `json:"embed"`
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, `"kind":"summary"`) {
			json.Unmarshal([]byte(l), &sum)
		}
	}
	if !strings.Contains(sum.Embed.Untrained, "too little text") {
		t.Errorf("summary does not say why there are no vectors: %q\n%s", sum.Embed.Untrained, out)
	}
	code, out, stderr = coderag(t, "query", "--db", db, "--json", "pings")
	if code != 0 || !strings.Contains(out, "README.md") {
		t.Errorf("query on the one-chunk index: exit %d, %s %s", code, out, stderr)
	}
	// More text: the model is learned.
	for i, s := range []string{"cart", "checkout", "payments"} {
		os.WriteFile(filepath.Join(repo, s+".md"), []byte("# "+s+"\n\nThe "+s+" service answers pings and stores orders in redis.\n"+strings.Repeat("x", i)+"\n"), 0o644)
	}
	code, out, stderr = coderag(t, "crawl", "--db", db, "--repo-path", repo, "--progress", "none")
	if code != 0 || strings.Contains(out, "no vectors") || !strings.Contains(out, "model learned") {
		t.Errorf("second crawl: exit %d\n%s%s", code, out, stderr)
	}
}

// TestFilterOnlyAndMistypedFilters: a query of filters alone lists what
// they admit (code first); a service or repository the index does not
// hold is an error that suggests the closest names, not "no results".
func TestFilterOnlyAndMistypedFilters(t *testing.T) {
	db := crawlSample(t)
	code, out, stderr := coderag(t, "query", "--db", db, "--json", "-k", "5", "service:cart")
	if code != 0 {
		t.Fatalf("query service:cart: exit %d: %s", code, stderr)
	}
	var res struct {
		Lists []string `json:"lists"`
		Hits  []struct {
			Service string `json:"service_name"`
			Corpus  string `json:"corpus_type"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 5 || len(res.Lists) != 1 || res.Lists[0] != "filter" {
		t.Fatalf("service:cart listed %d hits from %v, want 5 from the filter", len(res.Hits), res.Lists)
	}
	for _, h := range res.Hits {
		if h.Service != "cart" || !strings.HasPrefix(h.Corpus, "CODE") {
			t.Errorf("hit of service %q, corpus %s; want cart's code or config first", h.Service, h.Corpus)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--service", "crat", "redis"}, `no service "crat" in the index (did you mean cart?)`},
		{[]string{"service:chekout redis"}, `did you mean checkout`},
		{[]string{"repo:platfrom", "redis"}, `no repo "platfrom" in the index (did you mean platform?)`},
		{[]string{"service:zzzzzz"}, `no service "zzzzzz" in the index`},
		{[]string{"  "}, `the query is empty`},
		{[]string{"lang:cobol", "redis"}, `no language "cobol" in the index (it holds `},
		{[]string{"--lang", "pyhton", "redis"}, `(did you mean python?)`},
	} {
		code, _, stderr := coderag(t, append([]string{"query", "--db", db}, tt.args...)...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("query %v: exit %d, %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestFlagSpellingAndCompletion: graph --json is --format json, query
// --limit is -k (--k still works), and shell completion offers the
// index's services and repositories and the fixed values of --type and
// --format.
func TestFlagSpellingAndCompletion(t *testing.T) {
	db := crawlSample(t)
	_, asJSON, _ := coderag(t, "graph", "--db", db, "--json")
	_, asFormat, _ := coderag(t, "graph", "--db", db, "--format", "json")
	if asJSON == "" || asJSON != asFormat {
		t.Errorf("graph --json differs from --format json")
	}
	if code, _, _ := coderag(t, "graph", "--db", db, "--json", "--format", "dot"); code != 2 {
		t.Errorf("graph --json --format dot: exit %d, want 2", code)
	}
	for _, args := range [][]string{{"--limit", "2"}, {"-k", "2"}, {"--k", "2"}} {
		code, out, stderr := coderag(t, append([]string{"query", "--db", db, "--json"}, append(args, "redis")...)...)
		var res struct{ Hits []any }
		json.Unmarshal([]byte(out), &res)
		if code != 0 || len(res.Hits) != 2 {
			t.Errorf("query %v: exit %d, %d hits: %s", args, code, len(res.Hits), stderr)
		}
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"query", "--db", db, "--service", "c"}, []string{"cart", "checkout"}},
		{[]string{"graph", "--db", db, "--service", "st"}, []string{"storefront"}},
		{[]string{"query", "--db", db, "--repo", ""}, []string{"platform", "storefront"}},
		{[]string{"query", "--db", db, "--type", "run"}, []string{"runbook"}},
		{[]string{"graph", "--db", db, "--format", "m"}, []string{"mermaid"}},
	} {
		_, out, _ := coderag(t, append([]string{"__complete"}, tt.args...)...)
		got := strings.Split(strings.TrimSpace(out), "\n")
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("completion of %v: %q, want %q among them", tt.args, got, w)
			}
		}
	}
}

// TestUnreadableSourceIsSkipped: a source that exists but cannot be read
// (a symlink loop) fails alone: the crawl says so, indexes the others and
// exits 1; a path that does not exist is still refused before anything.
func TestUnreadableSourceIsSkipped(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.MkdirAll(good, 0o755)
	os.WriteFile(filepath.Join(good, "README.md"), []byte("# Good\n\nThe good service answers pings from the load balancer.\n"), 0o644)
	os.Symlink(filepath.Join(dir, "loop2"), filepath.Join(dir, "loop1"))
	os.Symlink(filepath.Join(dir, "loop1"), filepath.Join(dir, "loop2"))
	db := filepath.Join(dir, "i.db")
	code, out, stderr := coderag(t, "crawl", "--db", db, "--repo-path", filepath.Join(dir, "loop1"), "--repo-path", good, "--progress", "none")
	if code != 1 || !strings.Contains(out+stderr, "loop1") || !strings.Contains(out+stderr, "symbolic links") {
		t.Errorf("crawl with a symlink loop: exit %d\n%s%s", code, out, stderr)
	}
	// The summary counts only the source that was indexed, and names the
	// one that failed.
	if !strings.Contains(out, "indexed 1 source, 1 file") || !strings.Contains(out, "; 1 source FAILED (loop1), see above") {
		t.Errorf("crawl summary does not tell the failed source apart:\n%s", out)
	}
	if code, out, _ := coderag(t, "query", "--db", db, "--json", "pings"); code != 0 || !strings.Contains(out, "README.md") {
		t.Errorf("the readable source was not indexed: exit %d %s", code, out)
	}
	if code, _, stderr := coderag(t, "crawl", "--db", db, "--repo-path", filepath.Join(dir, "nope")); code == 0 || !strings.Contains(stderr, "nope") {
		t.Errorf("crawl of a missing path: exit %d %q", code, stderr)
	}
}

// TestGraphMentionsAll: graph --service lists five mentions and says how
// many more there are; --mentions shows them all.
func TestGraphMentionsAll(t *testing.T) {
	db := crawlSample(t)
	_, out, _ := coderag(t, "graph", "--db", db, "--service", "cart")
	if !strings.Contains(out, "more (--mentions ") {
		t.Fatalf("no hint of the mentions left out:\n%s", out)
	}
	_, all, _ := coderag(t, "graph", "--db", db, "--service", "cart", "--mentions", "1000")
	if strings.Contains(all, "more (--mentions") || strings.Count(all, "\n  [") <= strings.Count(out, "\n  [") {
		t.Errorf("--mentions 1000 does not list them all:\n%s", all)
	}
	if code, _, _ := coderag(t, "graph", "--db", db, "--service", "cart", "--mentions", "-1"); code != 2 {
		t.Errorf("--mentions -1: exit %d, want 2", code)
	}
}

// TestReadOnlyDatabase (issue 23, item 7): a database that its reader
// cannot write, in a directory it cannot write, is queried read-only
// (nothing is created beside it), and a crawl into it fails naming it.
// As root the reader runs as nobody, for whom the permissions hold.
func TestReadOnlyDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary as a reader")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "shared")
	os.MkdirAll(dir, 0o755)
	db := filepath.Join(dir, "ro.db")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", filepath.Join(sampleDir, "storefront"), "--progress", "none"); code != 0 {
		t.Fatal(errs)
	}
	for _, p := range []string{db + "-wal", db + "-shm"} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s left after the crawl", p)
		}
	}
	bin := os.Args[0]
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// nobody must reach the binary and the database.
		bin = filepath.Join(root, "coderag.test")
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		for d := root; d != "/" && d != "."; d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o005 != 0o005 {
				os.Chmod(d, st.Mode().Perm()|0o005)
				t.Cleanup(func() { os.Chmod(d, st.Mode().Perm()) })
			}
		}
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	os.Chmod(db, 0o444)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	run := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "CODERAG_AS_BINARY=1", "HOME="+root)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return runCommand(t, cmd)
	}
	code, out, errs := run("query", "--db", db, "--json", "getUserProfile")
	if code != 0 || !strings.Contains(out, "getUserProfile") {
		t.Fatalf("query of a read-only database: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := run("stats", "--db", db); code != 0 || !strings.Contains(out, "chunks") {
		t.Errorf("stats of a read-only database: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := run("graph", "--db", db, "--service", "storefront"); code != 0 {
		t.Errorf("graph of a read-only database: exit %d\n%s\n%s", code, out, errs)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"ro.db"}) {
		t.Errorf("the readers created files beside the database: %v", names)
	}
	code, _, errs = run("crawl", "--db", db, "--repo-path", filepath.Join(sampleDir, "storefront"), "--progress", "none")
	if code == 0 || !strings.Contains(errs, db) {
		t.Errorf("crawl into a read-only database: exit %d, %s", code, errs)
	}
}

// TestMentionsNewestFirst (issue 23, item 13): the conversations and docs
// about a service are ordered by their date: an ADR's "Date:" line, a
// runbook's front matter; undated documents after them by their files'
// modification times; not by path and line. A changelog's newest entry
// keeps its date's place; its older entries come after the rest: a
// changelog names its services in every section and would bury the rest.
func TestMentionsNewestFirst(t *testing.T) {
	repo := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(repo, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docker-compose.yml", "services:\n  tally:\n    image: acme/tally:1.4\n    environment:\n      DB_HOST: tallydb\n  tallydb:\n    image: postgres:16\n")
	write("CHANGELOG.md", "# Changelog\n\n## [3.0.0] - 2024-02-01\n\nThe tally service retries failed postings with backoff.\n\n"+
		"## [0.2.0] - 2021-05-01\n\nFirst release of the tally service.\n")
	write("docs/adr/0002-tally-outbox.md", "# 2. Tally writes through an outbox\n\nDate: 2023-03-10\n\n## Status\n\nAccepted\n\n## Decision\n\nThe tally service writes postings through an outbox table.\n")
	write("runbooks/tally-lag.md", "---\ntitle: Tally lag\ndate: 2022-07-01\n---\n\n# Tally lag\n\nWhen the tally service falls behind, check the outbox table.\n")
	write("docs/notes.md", "# Notes\n\nThe tally service was split from the monolith.\n")
	write("docs/overview.md", "# Overview\n\nThe tally service keeps the postings.\n")
	for rel, year := range map[string]int{"docs/notes.md": 2020, "docs/overview.md": 2021} {
		at := time.Date(year, 1, 2, 0, 0, 0, 0, time.UTC)
		if err := os.Chtimes(filepath.Join(repo, rel), at, at); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "m.db")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--progress", "none"); code != 0 {
		t.Fatal(errs)
	}
	_, out, _ := coderag(t, "graph", "--db", db, "--service", "tally", "--mentions", "20")
	want := []string{"CHANGELOG.md:1-5 2024-02-01", "0002-tally-outbox.md", "tally-lag.md", "overview.md", "notes.md", "CHANGELOG.md:7-9 2021-05-01"}
	last := -1
	for _, w := range want {
		i := strings.Index(out, w)
		if i < 0 {
			t.Fatalf("%q not among the mentions:\n%s", w, out)
		}
		if i < last {
			t.Errorf("%q listed before the mention above it in %q: not newest first:\n%s", w, want, out)
		}
		last = i
	}
}

// TestLargeFilesBoundedMemory (issue 23, item 2): a crawl of a 40 MB
// one-line text file and a 10 MB Markdown file of a million headings,
// let in by --max-file-size, peaks under 400 MB of allocated resident
// memory (it took 1-2 GB when such files were chunked whole) and says
// which file was cut at the chunk limit.
func TestLargeFilesBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB and crawls it")
	}
	repo := t.TempDir()
	line := bytes.Repeat([]byte("retry timeout orders cart payment "), 40<<20/34)
	if err := os.WriteFile(filepath.Join(repo, "dump.txt"), line, 0o644); err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	for i := 0; md.Len() < 10<<20; i++ {
		fmt.Fprintf(&md, "# h%d\n\n", i)
	}
	if err := os.WriteFile(filepath.Join(repo, "headings.md"), md.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "big.db")
	cmd := exec.Command(os.Args[0], "crawl", "--db", db, "--repo-path", repo, "--max-file-size", "300MB", "--progress", "none")
	cmd.Env = append(os.Environ(), "CODERAG_AS_BINARY=1")
	var outBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &outBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The memory the crawl allocates is its anonymous resident memory;
	// the resident peak also counts the pages of the binary and of the
	// database file it maps (SQLite's mmap), which vary from run to run
	// by tens of MB. Where /proc tells it apart, the peak of RssAnon is
	// what is bounded.
	done := make(chan struct{})
	peakAnon := make(chan int64, 1)
	go func() {
		var peak int64
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		for {
			if b, err := os.ReadFile(status); err == nil {
				for _, l := range strings.Split(string(b), "\n") {
					if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
						var kb int64
						fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
						peak = max(peak, kb)
					}
				}
			}
			select {
			case <-done:
				peakAnon <- peak >> 10
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	anon := <-peakAnon
	out := outBuf.Bytes()
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	rss := ru.Maxrss >> 10
	t.Logf("peak resident memory %d MB, of it allocated (RssAnon) %d MB", rss, anon)
	switch {
	case anon > 0 && anon > 400:
		t.Errorf("crawl peaked at %d MB of allocated resident memory, want under 400 MB", anon)
	case anon == 0 && rss > 450:
		// No /proc: the whole resident peak, with room for the maps.
		t.Errorf("crawl peaked at %d MB resident, want under 450 MB", rss)
	}
	if !strings.Contains(string(out), "dump.txt: only the first 5000 chunks indexed") {
		t.Errorf("no warning that dump.txt was cut at the chunk limit:\n%s", out)
	}
}

// TestDiskFull (issue 23, item 1): on a file system that fills up during
// a re-crawl, the crawl exits 1 and says it failed (not "indexed"), the
// index keeps its chunks' vectors, the run is recorded as failed (or shown
// as interrupted), and once there is room again the next crawl succeeds.
// It needs root to mount a small tmpfs.
func TestDiskFull(t *testing.T) {
	if testing.Short() || os.Geteuid() != 0 {
		t.Skip("mounts a tmpfs (root only)")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	// Lazily: the process keeps its lock descriptor of the database.
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	db := filepath.Join(mnt, "full.db")
	repo := filepath.Join(sampleDir, "platform")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--progress", "none"); code != 0 {
		t.Fatal(errs)
	}
	stats := func() (chunks, vectors int, status string) {
		t.Helper()
		_, out, _ := coderag(t, "stats", "--db", db, "--json")
		var st struct {
			Chunks  int `json:"chunks"`
			Vectors int `json:"vectors"`
			LastRun struct {
				Status string `json:"status"`
			} `json:"last_run"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("stats --json: %v\n%s", err, out)
		}
		return st.Chunks, st.Vectors, st.LastRun.Status
	}
	chunks, vectors, _ := stats()
	if vectors != chunks || chunks == 0 {
		t.Fatalf("first crawl: %d vectors for %d chunks", vectors, chunks)
	}
	filler := filepath.Join(mnt, "filler")
	failed := false
	for _, free := range []int64{64 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20} {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(mnt, &fs); err != nil {
			t.Fatal(err)
		}
		size := int64(fs.Bavail)*fs.Bsize - free
		if out, err := exec.Command("fallocate", "-l", fmt.Sprint(size), filler).CombinedOutput(); err != nil {
			t.Skipf("fallocate: %v %s", err, out)
		}
		code, out, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--progress", "none")
		os.Remove(filler)
		if code == 0 {
			continue
		}
		failed = true
		t.Logf("with %d KB free: %s", free>>10, strings.TrimSpace(errs))
		if !strings.Contains(errs, "disk is full") || !strings.Contains(out, "crawl FAILED") || strings.Contains(out, "\nindexed ") {
			t.Errorf("with %d KB free: exit %d, the output does not say the crawl failed:\n%s%s", free>>10, code, out, errs)
		}
		c, v, status := stats()
		if c != chunks || v != vectors {
			t.Errorf("with %d KB free: the failed crawl left %d chunks and %d vectors, want %d and %d", free>>10, c, v, chunks, vectors)
		}
		if status != "failed" && status != "interrupted" {
			t.Errorf("with %d KB free: last run %q, want failed or interrupted", free>>10, status)
		}
		if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--progress", "none"); code != 0 {
			t.Fatalf("the crawl after the space came back: %s", errs)
		}
	}
	if !failed {
		t.Skip("no crawl ran out of space at the sizes tried")
	}
}

// TestMakeSaysFirstBuildTakesMinutes (issue 23, item 23): before the first
// build (no binary yet), make says what it is doing and that it takes
// minutes, once; with a binary it says nothing of it.
func TestMakeSaysFirstBuildTakesMinutes(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	out, err := exec.Command("make", "-s", "-C", root, "deps", "BIN="+filepath.Join(t.TempDir(), "none")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "takes a few minutes, once") {
		t.Errorf("make deps without a binary: %v\n%s", err, out)
	}
	self, _ := os.Executable()
	out, _ = exec.Command("make", "-s", "-C", root, "deps", "BIN="+self).CombinedOutput()
	if strings.Contains(string(out), "minutes") {
		t.Errorf("make deps with a binary still warns:\n%s", out)
	}
}
