package main

import (
	"database/sql"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"coderag/sqlite"
)

// copyTree copies the directory src to dst and returns the bytes of the
// files copied.
func copyTree(t testing.TB, src, dst string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n += int64(len(b))
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// openRO opens the database file read-only with the plain driver (the
// extensions registered), closed when the test ends.
func openRO(t *testing.T, db string) *sql.DB {
	t.Helper()
	if err := sqlite.SetupC(); err != nil {
		t.Fatal(err)
	}
	h, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// chunkIDs returns the chunk ids of the database by file path.
func chunkIDs(t *testing.T, db string) map[string][]string {
	t.Helper()
	h := openRO(t, db)
	rows, err := h.Query(`SELECT repo_name || '/' || file_path, id FROM chunks ORDER BY 1, byte_start`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var f, id string
		rows.Scan(&f, &id)
		out[f] = append(out[f], id)
	}
	return out
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestIncrementalCrawl edits, adds, deletes and renames files of a git
// repository, committed and not, and checks that --incremental changes
// exactly the chunks of those files.
func TestIncrementalCrawl(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "storefront")
	copyTree(t, filepath.Join(sampleDir, "storefront"), repo)
	hasGit := exec.Command("git", "version").Run() == nil
	if hasGit {
		git(t, repo, "init", "-q")
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-qm", "initial")
	}
	db := filepath.Join(dir, "i.db")
	slack := "acme-slack=" + filepath.Join(sampleDir, "slack")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--slack-export", slack); code != 0 {
		t.Fatal(errs)
	}
	before := chunkIDs(t, db)

	// Nothing changed: every source is left alone.
	code, out, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--slack-export", slack, "--incremental", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, `"up_to_date":true`) || strings.Contains(out, `"up_to_date":false`) {
		t.Errorf("unchanged crawl: %s", lastLine(out))
	}
	if after := chunkIDs(t, db); !maps.EqualFunc(before, after, slices.Equal) {
		t.Fatal("an unchanged incremental crawl changed chunks")
	}

	// Edit (committed), delete, rename, and an uncommitted edit and a new
	// untracked file.
	edit := filepath.Join(repo, "src", "clients", "cart.ts")
	b, _ := os.ReadFile(edit)
	os.WriteFile(edit, append(b, []byte("\nexport const cartVersion = 2;\n")...), 0o644)
	os.Remove(filepath.Join(repo, "src", "session.ts"))
	os.Rename(filepath.Join(repo, "src", "clients", "catalog.ts"), filepath.Join(repo, "src", "clients", "products.ts"))
	if hasGit {
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-qm", "change")
	}
	dirty := filepath.Join(repo, "src", "routes", "account.ts")
	b, _ = os.ReadFile(dirty)
	os.WriteFile(dirty, append(b, []byte("\n// uncommitted\n")...), 0o644)
	os.WriteFile(filepath.Join(repo, "src", "health.ts"), []byte("export function healthz(): string {\n  return 'ok';\n}\n"), 0o644)

	code, out, errs = coderag(t, "crawl", "--db", db, "--repo-path", repo, "--slack-export", slack, "--incremental", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	after := chunkIDs(t, db)
	changed := map[string]bool{}
	for f := range before {
		if !slices.Equal(before[f], after[f]) {
			changed[f] = true
		}
	}
	for f := range after {
		if !slices.Equal(before[f], after[f]) {
			changed[f] = true
		}
	}
	want := map[string]bool{
		"storefront/src/clients/cart.ts":     true, // edited
		"storefront/src/session.ts":          true, // deleted
		"storefront/src/clients/catalog.ts":  true, // renamed from
		"storefront/src/clients/products.ts": true, // renamed to
		"storefront/src/routes/account.ts":   true, // uncommitted edit
		"storefront/src/health.ts":           true, // untracked
	}
	if !maps.Equal(changed, want) {
		t.Errorf("changed files = %v\nwant %v", slices.Sorted(maps.Keys(changed)), slices.Sorted(maps.Keys(want)))
	}
	// The renamed file's chunks moved: same text, new path.
	if len(after["storefront/src/clients/products.ts"]) != len(before["storefront/src/clients/catalog.ts"]) {
		t.Errorf("renamed file has %d chunks, had %d", len(after["storefront/src/clients/products.ts"]), len(before["storefront/src/clients/catalog.ts"]))
	}
	var sum struct {
		Sources []struct {
			Name      string
			Files     int
			Unchanged int    `json:"unchanged_files"`
			Deleted   int    `json:"deleted_files"`
			UpToDate  bool   `json:"up_to_date"`
			Commit    string `json:"git_commit"`
		}
	}
	json.Unmarshal([]byte(lastLine(out)), &sum)
	if len(sum.Sources) != 2 || sum.Sources[0].Files != 4 || sum.Sources[0].Deleted != 2 || !sum.Sources[1].UpToDate {
		t.Errorf("summary %+v", sum.Sources)
	}
	if hasGit && len(sum.Sources[0].Commit) != 40 {
		t.Errorf("git commit %q not recorded", sum.Sources[0].Commit)
	}
	// The manifest records the commit and the source's totals.
	mf := filepath.Join(dir, "out", "manifest.json")
	if code, _, errs := coderag(t, "manifest", "--db", db, "--write", mf); code != 0 {
		t.Fatal(errs)
	}
	var m struct {
		ChunkCount int `json:"chunk_count"`
		Repos      map[string]struct {
			LastGitHash string `json:"last_git_hash"`
			ContentHash string `json:"content_hash"`
			NewestMTime string `json:"newest_mtime"`
			ChunkCount  int    `json:"chunk_count"`
		}
	}
	raw, err := os.ReadFile(mf)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(raw, &m)
	total := 0
	for _, ids := range after {
		total += len(ids)
	}
	if m.ChunkCount != total || m.Repos["storefront"].ChunkCount+m.Repos["acme-slack"].ChunkCount != total {
		t.Errorf("manifest counts %+v, want %d chunks", m, total)
	}
	if newest, err := time.Parse(time.RFC3339, m.Repos["storefront"].NewestMTime); err != nil || time.Since(newest) > time.Hour {
		t.Errorf("manifest newest file time of the repository %q (%v), want the edit's", m.Repos["storefront"].NewestMTime, err)
	}
	if len(m.Repos["acme-slack"].ContentHash) != 64 || m.Repos["storefront"].ContentHash != "" {
		t.Errorf("manifest content hashes: export %q, repository %q", m.Repos["acme-slack"].ContentHash, m.Repos["storefront"].ContentHash)
	}
	if hasGit && m.Repos["storefront"].LastGitHash != sum.Sources[0].Commit {
		t.Errorf("manifest commit %q, crawl said %q", m.Repos["storefront"].LastGitHash, sum.Sources[0].Commit)
	}
	// Search finds the new code, and not the deleted.
	_, out, _ = coderag(t, "query", "--db", db, "--json", "-k", "3", "healthz")
	if !strings.Contains(out, "src/health.ts") {
		t.Errorf("new file not found: %s", out)
	}
	_, out, _ = coderag(t, "query", "--db", db, "--json", "-k", "20", "currentUserId")
	if strings.Contains(out, `"file_path":"src/session.ts"`) {
		t.Errorf("deleted file still found")
	}
	// Every chunk has its vector again.
	_, out, _ = coderag(t, "stats", "--db", db, "--json")
	var st struct{ Chunks, Vectors int }
	json.Unmarshal([]byte(out), &st)
	if st.Chunks == 0 || st.Vectors != st.Chunks {
		t.Errorf("stats: %d chunks, %d vectors", st.Chunks, st.Vectors)
	}
	if !hasGit {
		return
	}
	// Committing the indexed uncommitted changes moves HEAD without
	// changing a file: the source is up to date, its commit recorded.
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "commit the dirty tree")
	head, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs = coderag(t, "crawl", "--db", db, "--repo-path", repo, "--incremental", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, `"up_to_date":true`) {
		t.Errorf("crawl after a commit of indexed changes: %s", lastLine(out))
	}
	if code, _, errs := coderag(t, "manifest", "--db", db, "--write", mf); code != 0 {
		t.Fatal(errs)
	}
	raw, _ = os.ReadFile(mf)
	json.Unmarshal(raw, &m)
	if got, want := m.Repos["storefront"].LastGitHash, strings.TrimSpace(string(head)); got != want {
		t.Errorf("manifest commit after a commit = %q, want HEAD %q", got, want)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestIncrementalSlack checks an export's incremental crawl: unchanged,
// it is up to date with the same content hash in the manifest; a renamed
// user (whose name every channel's chunks carry) re-indexes every
// channel and changes the hash.
func TestIncrementalSlack(t *testing.T) {
	dir := t.TempDir()
	export := filepath.Join(dir, "slack")
	copyTree(t, filepath.Join(sampleDir, "slack"), export)
	db := filepath.Join(dir, "s.db")
	crawl := func() (files int, upToDate bool) {
		t.Helper()
		code, out, errs := coderag(t, "crawl", "--db", db, "--slack-export", "acme="+export, "--incremental", "--json", "--embedder", "none")
		if code != 0 {
			t.Fatal(errs)
		}
		var sum struct {
			Sources []struct {
				Files    int
				UpToDate bool `json:"up_to_date"`
			}
		}
		json.Unmarshal([]byte(lastLine(out)), &sum)
		if len(sum.Sources) != 1 {
			t.Fatalf("summary: %s", lastLine(out))
		}
		return sum.Sources[0].Files, sum.Sources[0].UpToDate
	}
	contentHash := func() string {
		t.Helper()
		_, out, _ := coderag(t, "manifest", "--db", db, "--json")
		var m struct {
			Repos map[string]struct {
				ContentHash string `json:"content_hash"`
				NewestMTime string `json:"newest_mtime"`
			}
		}
		json.Unmarshal([]byte(out), &m)
		if m.Repos["acme"].NewestMTime != "" {
			t.Errorf("an export has a newest file time: %s", out)
		}
		return m.Repos["acme"].ContentHash
	}
	channels, _ := crawl()
	first := contentHash()
	if channels != 3 || len(first) != 64 {
		t.Fatalf("first crawl: %d channels, content hash %q", channels, first)
	}
	if files, upToDate := crawl(); files != 0 || !upToDate || contentHash() != first {
		t.Errorf("unchanged export: %d files re-indexed, up to date %v, hash %s (was %s)", files, upToDate, contentHash(), first)
	}
	replaceInFile(t, filepath.Join(export, "users.json"), `"display_name": "alice"`, `"display_name": "alice.m"`)
	if files, upToDate := crawl(); files != channels || upToDate {
		t.Errorf("after a user was renamed: %d of %d channels re-indexed, up to date %v", files, channels, upToDate)
	}
	if contentHash() == first {
		t.Error("content hash unchanged after a user was renamed")
	}
}
