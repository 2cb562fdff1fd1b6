package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/graph"
	"coderag/core/ingest"
	"coderag/core/scrub"
	"coderag/core/search"
)

func openTemp(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "coderag.db"), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenCreatesFileWithSchema(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	if _, err := os.Stat(db.Path()); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	var mode string
	if err := db.sql.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
	for _, table := range []string{"meta", "sources", "files", "chunks", "fts_code", "fts_prose", "services",
		"service_aliases", "routes", "edges", "edge_evidence", "symbol_refs", "scrub_audit", "crawl_runs", "crawl_skips"} {
		var n int
		if err := db.sql.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = ?", table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s missing", table)
		}
	}
	// Columns named as in seed 000 §3.3.
	for _, col := range []string{"id", "source_uri", "byte_start", "byte_end", "line_start", "line_end", "corpus_type",
		"text", "context_prefix", "language", "symbol_name", "symbol_kind", "signature", "file_path", "git_hash",
		"section_path", "author", "timestamp", "channel", "thread_id", "service_name", "repo_name", "imports",
		"calls_out", "called_by", "k8s_labels", "sensitivity", "scrubbed"} {
		var n int
		if err := db.sql.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('chunks') WHERE name = ?", col).Scan(&n); err != nil || n != 1 {
			t.Errorf("chunks.%s missing", col)
		}
	}
	if v, _ := db.Meta(ctx, "schema_version"); v != fmt.Sprint(SchemaVersion()) {
		t.Errorf("meta schema_version = %q, want %d", v, SchemaVersion())
	}
}

func TestOpenMissingWithoutCreate(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "nope.db"), Options{})
	if !errors.Is(err, core.ErrNoIndex) {
		t.Fatalf("Open(missing) error = %v, want ErrNoIndex", err)
	}
}

func TestOpenNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(path, []byte(strings.Repeat("this is not sqlite\n", 200)), 0o644)
	_, err := Open(context.Background(), path, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a coderag database") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open(junk) error = %v, want one naming the file as not a database", err)
	}
}

// TestMigrateOlderFile builds a file at every older schema version, puts
// data in it, and checks that Open migrates it and keeps the data.
func TestMigrateOlderFile(t *testing.T) {
	ctx := context.Background()
	for v := 1; v < SchemaVersion(); v++ {
		t.Run(fmt.Sprintf("from_v%d", v), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			old, err := Open(ctx, path, Options{Create: true, targetVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := old.sql.ExecContext(ctx, `INSERT INTO sources(kind, uri, repo_name) VALUES ('repo', '/x', 'x')`); err != nil {
				t.Fatal(err)
			}
			if _, err := old.sql.ExecContext(ctx, `INSERT INTO chunks(id, source_id, source_uri, byte_start, byte_end, line_start, line_end,
				corpus_type, text, sensitivity) VALUES ('c1', 1, 'x/a.go', 0, 10, 1, 1, 'CODE_LOGIC', 'func getUserProfile()', 'clean')`); err != nil {
				t.Fatal(err)
			}
			if _, err := old.sql.ExecContext(ctx, `INSERT INTO fts_code(rowid, text) SELECT pk, text FROM chunks`); err != nil {
				t.Fatal(err)
			}
			if v >= 5 {
				if _, err := old.sql.ExecContext(ctx, `INSERT INTO embed_vocab(token, idf, vec) VALUES ('invoice', 1.5, zeroblob(1024))`); err != nil {
					t.Fatal(err)
				}
			}
			var got int
			old.sql.QueryRowContext(ctx, "PRAGMA user_version").Scan(&got)
			if got != v {
				t.Fatalf("old file at version %d, want %d", got, v)
			}
			old.Close()

			db, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatalf("Open(v%d file): %v", v, err)
			}
			defer db.Close()
			db.sql.QueryRowContext(ctx, "PRAGMA user_version").Scan(&got)
			if got != SchemaVersion() {
				t.Errorf("migrated file at version %d, want %d", got, SchemaVersion())
			}
			hits, err := db.BM25(ctx, "code", `"user profile"`, 5, core.Filter{})
			if err != nil || len(hits) != 1 || hits[0].Chunk.ID != "c1" {
				t.Errorf("search after migration = %v, %v; want chunk c1", hits, err)
			}
			if _, err := db.StartRun(ctx, "test"); err != nil {
				t.Errorf("table of a later migration unusable: %v", err)
			}
			// The corpus model's rows survive, in a rowid table (0017).
			var idf float64
			var n int
			var ddl string
			err = db.sql.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM embed_vocab), coalesce((SELECT idf FROM embed_vocab WHERE token = 'invoice'), 0),
				(SELECT sql FROM sqlite_master WHERE name = 'embed_vocab')`).Scan(&n, &idf, &ddl)
			if want := map[bool]int{true: 1, false: 0}[v >= 5]; err != nil || n != want || v >= 5 && idf != 1.5 || strings.Contains(ddl, "WITHOUT ROWID") {
				t.Errorf("embed_vocab after migration: %d rows, idf %v, %q, %v", n, idf, ddl, err)
			}
		})
	}
}

// TestMigrateRebuildsCodeIndex: schema 14 rebuilds the indexes the code
// tokenizer feeds, so that an index written before the tokenizer kept
// keyword-named declarations finds them, and deleting its rows (which
// tokenizes their values again) leaves it consistent.
func TestMigrateRebuildsCodeIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := Open(ctx, path, Options{Create: true, targetVersion: 13})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sources(kind, uri, repo_name) VALUES ('repo', '/x', 'x')`,
		`INSERT INTO files(source_id, path, content_hash, size, corpus_type) VALUES (1, 'sync/map.go', 'h', 60, 'CODE_LOGIC')`,
		`INSERT INTO chunks(id, source_id, file_id, source_uri, byte_start, byte_end, line_start, line_end, corpus_type, text, symbol_name, file_path, sensitivity)
			VALUES ('c1', 1, 1, 'x/sync/map.go', 0, 60, 1, 3, 'CODE_LOGIC', 'func (m *Map) Range(f func(key, value any) bool) {}', 'Range', 'sync/map.go', 'clean')`,
		// What the tokenizer before schema 14 indexed: no standalone range.
		`INSERT INTO fts_code(rowid, symbol_name, file_path, context_prefix, text) VALUES (1, '', 'sync/map.go', '', 'func (m *Map) (f func(key, value any) bool) {}')`,
		`INSERT INTO fts_files(rowid, path, symbols, text) VALUES (1, 'sync/map.go', '', 'func (m *Map) (f func(key, value any) bool) {}')`,
	} {
		if _, err := old.sql.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.Close()

	var told []string
	db, err := Open(ctx, path, Options{OnUpgrade: func(v int, name string) { told = append(told, fmt.Sprint(v, " ", name)) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if want := []string{"14 declared names", "15 rank lengths", "16 service dirs", "17 vocab rows", "18 cjk bigrams"}; !slices.Equal(told, want) {
		t.Errorf("OnUpgrade told %q, want %q", told, want)
	}
	told = nil
	fresh, err := Open(ctx, filepath.Join(t.TempDir(), "new.db"), Options{Create: true, OnUpgrade: func(v int, name string) { told = append(told, name) }})
	if err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	if len(told) > 0 {
		t.Errorf("OnUpgrade told %q for a new file, want nothing", told)
	}
	for _, tt := range []struct{ index, match string }{{"code", `"Range"`}, {"code", `{symbol_name} : "Range"`}} {
		if hits, err := db.BM25(ctx, tt.index, tt.match, 5, core.Filter{}); err != nil || len(hits) != 1 {
			t.Errorf("BM25 %s %s after migration = %d hits, %v; want the chunk", tt.index, tt.match, len(hits), err)
		}
	}
	if hits, err := db.FileBM25(ctx, `"Range"`, `"Range"`, 5, core.Filter{}); err != nil || len(hits) != 1 {
		t.Errorf("FileBM25 Range after migration = %d hits, %v; want the file", len(hits), err)
	}
	for _, q := range []string{
		`INSERT INTO fts_code(fts_code, rowid, symbol_name, file_path, context_prefix, text) SELECT 'delete', pk, symbol_name, file_path, context_prefix, text FROM chunks`,
		`DELETE FROM chunks`,
		`INSERT INTO fts_code(fts_code) VALUES ('integrity-check')`,
	} {
		if _, err := db.sql.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestMigrateCutsCJK: schema 18 rebuilds the code-tokenized indexes of
// an index that holds Chinese, Japanese or Korean text, which the
// tokenizer now cuts into bigrams, and leaves an index without any as it
// is.
func TestMigrateCutsCJK(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, text string
		rebuilt    bool
	}{
		{"japanese", "決済サービスが応答しない場合は接続プールを確認する", true},
		{"korean", "결제 서비스 장애 대응", true},
		{"latin only", "Wenn der Zahlungsdienst nicht antwortet, prüfen", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			old, err := Open(ctx, path, Options{Create: true, targetVersion: 17})
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				`INSERT INTO sources(kind, uri, repo_name) VALUES ('repo', '/x', 'x')`,
				`INSERT INTO files(source_id, path, content_hash, size, corpus_type) VALUES (1, 'docs/runbook.md', 'h', 60, 'DOC_RUNBOOK')`,
				`INSERT INTO chunks(id, source_id, file_id, source_uri, byte_start, byte_end, line_start, line_end, corpus_type, text, symbol_name, file_path, sensitivity)
					VALUES ('c1', 1, 1, 'x/docs/runbook.md', 0, 60, 1, 3, 'DOC_RUNBOOK', ?, '', 'docs/runbook.md', 'clean')`,
				// What the tokenizer before schema 18 indexed differs from
				// what it gives now (a run read as one word): here, the
				// text without it.
				`INSERT INTO fts_code(rowid, symbol_name, file_path, context_prefix, text) VALUES (1, '', 'docs/runbook.md', '', 'staleword')`,
				`INSERT INTO fts_files(rowid, path, symbols, text) VALUES (1, 'docs/runbook.md', '', 'staleword')`,
			} {
				var args []any
				if strings.Contains(q, "?") {
					args = append(args, tt.text)
				}
				if _, err := old.sql.ExecContext(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			old.Close()

			db, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// A rebuilt table holds the chunk's tokens, no longer the stale
			// word; one left alone still holds it.
			stale, err := db.BM25(ctx, "code", `"staleword"`, 5, core.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if rebuilt := len(stale) == 0; rebuilt != tt.rebuilt {
				t.Fatalf("fts_code rebuilt: %v, want %v", rebuilt, tt.rebuilt)
			}
			if !tt.rebuilt {
				return
			}
			for _, table := range []string{"fts_code", "fts_files"} { // the rebuilt ones
				if ok, err := lengthsCurrent(ctx, db.sql, table); err != nil || !ok {
					t.Errorf("%s's row lengths after the migration: current %v, %v", table, ok, err)
				}
			}
			bigram := string([]rune(tt.text)[:2])
			if hits, err := db.BM25(ctx, "code", quoteFTS(bigram), 5, core.Filter{}); err != nil || len(hits) != 1 {
				t.Errorf("BM25 %q after migration = %d hits, %v; want the chunk", bigram, len(hits), err)
			}
			if hits, err := db.FileBM25(ctx, quoteFTS(bigram), quoteFTS(bigram), 5, core.Filter{}); err != nil || len(hits) != 1 {
				t.Errorf("FileBM25 %q after migration = %d hits, %v; want the file", bigram, len(hits), err)
			}
			for _, q := range []string{
				`INSERT INTO fts_code(fts_code, rowid, symbol_name, file_path, context_prefix, text) SELECT 'delete', pk, symbol_name, file_path, context_prefix, text FROM chunks`,
				`DELETE FROM chunks`,
				`INSERT INTO fts_code(fts_code) VALUES ('integrity-check')`,
			} {
				if _, err := db.sql.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
		})
	}
}

func quoteFTS(s string) string { return `"` + s + `"` }

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	newer := SchemaVersion() + 3
	if _, err := db.sql.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", newer)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(ctx, db.Path(), Options{})
	if !errors.Is(err, core.ErrSchemaTooNew) {
		t.Fatalf("Open(newer file) error = %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprint(newer)) || !strings.Contains(err.Error(), "upgrade coderag") {
		t.Errorf("error %q should name the version and say to upgrade", err)
	}
}

func TestUseEmbedderRefusesMismatch(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	a := core.EmbedderInfo{ID: "builtin:ppmi-svd", Dim: 8}
	if err := db.UseEmbedder(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := db.UseEmbedder(ctx, a); err != nil {
		t.Fatalf("same embedder again: %v", err)
	}
	db.Close()
	db2, err := Open(ctx, db.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if got := db2.Embedder(); got != a {
		t.Fatalf("reopened embedder = %+v, want %+v", got, a)
	}
	for _, b := range []core.EmbedderInfo{{ID: "openai:nomic-embed-code", Dim: 8}, {ID: "builtin:ppmi-svd", Dim: 16}} {
		err := db2.UseEmbedder(ctx, b)
		if !errors.Is(err, core.ErrEmbedderMismatch) {
			t.Fatalf("UseEmbedder(%+v) error = %v, want ErrEmbedderMismatch", b, err)
		}
		if !strings.Contains(err.Error(), a.ID) || !strings.Contains(err.Error(), b.ID) {
			t.Errorf("mismatch error %q should name both embedders", err)
		}
	}
}

// writeSource writes files of chunks (path -> texts) as one source.
func writeSource(t testing.TB, db *DB, name string, files map[string][]string, vecs func(text string) []float32) {
	t.Helper()
	ctx := context.Background()
	run, err := db.StartRun(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/src/" + name, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	gate := scrub.New(scrub.Options{})
	for path, texts := range files {
		var chunks []embed.Chunk
		off := 0
		for i, text := range texts {
			uri := name + "/" + path
			c := core.Chunk{ID: core.ChunkID(uri, off, off+len(text)), SourceURI: uri, ByteStart: off, ByteEnd: off + len(text),
				LineStart: i + 1, LineEnd: i + 1, Corpus: core.CodeLogic, Text: text, FilePath: path, RepoName: name, Language: "go",
				ContextPrefix: path}
			off += len(text)
			cc, err := gate.Clean(c)
			if err != nil {
				t.Fatal(err)
			}
			ec := embed.Chunk{Clean: cc}
			if vecs != nil {
				ec.Vector = vecs(text)
			}
			chunks = append(chunks, ec)
		}
		if err := tx.WriteFile(ctx, core.File{Path: path, Corpus: core.CodeLogic, Language: "go"}, "hash", chunks); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestWriteSearchReplace(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	writeSource(t, db, "web", map[string][]string{
		"src/profile.ts": {"export async function getUserProfile(id: string) { return http.get(`/users/${id}`) }", "// unrelated"},
		"src/cart.ts":    {"function addToCart(item) { cart.push(item) }"},
	}, nil)
	for _, q := range []string{"getUserProfile", "user profile", "get_user_profile", "GetUserProfile", "getuserprofile"} {
		hits, err := search.New(db, search.Options{}).Search(ctx, search.Query{Text: q})
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		if len(hits.Hits) == 0 || hits.Hits[0].Chunk.SymbolName != "" && !strings.Contains(hits.Hits[0].Chunk.Text, "getUserProfile") {
			t.Fatalf("Search(%q) = %v, want the getUserProfile chunk first", q, hits.Hits)
		}
		if !strings.Contains(hits.Hits[0].Chunk.Text, "getUserProfile") {
			t.Errorf("Search(%q) top hit = %q", q, hits.Hits[0].Chunk.Text)
		}
	}
	// Re-crawling the source replaces its chunks, FTS rows included.
	writeSource(t, db, "web", map[string][]string{"src/other.ts": {"function somethingElse() {}"}}, nil)
	hits, err := db.BM25(ctx, "code", `"getUserProfile"`, 5, core.Filter{})
	if err != nil || len(hits) != 0 {
		t.Fatalf("after replace, BM25 = %v, %v; want nothing", hits, err)
	}
	var n int
	db.sql.QueryRowContext(ctx, "SELECT count(*) FROM chunks").Scan(&n)
	if n != 1 {
		t.Errorf("chunks after replace = %d, want 1", n)
	}
	// FTS indexes are consistent with their content table.
	for _, tbl := range []string{"fts_code", "fts_prose"} {
		if _, err := db.sql.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s(%s) VALUES ('integrity-check')", tbl, tbl)); err != nil {
			t.Errorf("%s integrity-check: %v", tbl, err)
		}
	}
}

func TestSourceNameMustBeUnique(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	writeSource(t, db, "web", map[string][]string{"a.go": {"package a"}}, nil)
	_, err := db.BeginSource(ctx, 1, core.Source{Kind: core.SourceRepo, Path: "/elsewhere/web", Name: "web"})
	if err == nil || !strings.Contains(err.Error(), "--repo-name") {
		t.Fatalf("BeginSource with a taken name: %v, want an error suggesting --repo-name", err)
	}
}

func TestRollbackKeepsPreviousState(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	writeSource(t, db, "web", map[string][]string{"a.go": {"func keepMe() {}"}}, nil)
	tx, err := db.BeginSource(ctx, 1, core.Source{Kind: core.SourceRepo, Path: "/src/web", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	// Inside the transaction the old chunks are gone; a reader still sees them.
	hits, err := db.BM25(ctx, "code", `"keepMe"`, 5, core.Filter{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("reader during write = %v, %v; want the old chunk", hits, err)
	}
	tx.Rollback()
	hits, err = db.BM25(ctx, "code", `"keepMe"`, 5, core.Filter{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("after rollback = %v, %v; want the old chunk", hits, err)
	}
}

// TestUserTextIsAlwaysAValidMatch runs hostile user text through the query
// builder and the real FTS5 tables.
func TestUserTextIsAlwaysAValidMatch(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	writeSource(t, db, "web", map[string][]string{"a.go": {"resp, err := http.Get(url) // user-profile NEAR x"}}, nil)
	eng := search.New(db, search.Options{})
	for _, q := range []string{
		`http.Get`, `user-profile`, `"`, `""`, `"""`, `*`, `a*`, `NEAR`, `NEAR(a b)`, `x AND`, `OR`, `NOT x`,
		`(`, `)`, `^x`, `col:x`, `{a b}`, `+-`, `'`, `\`, `-x`, ` `, ``, `😀`, "\x00", "a\x00b", `""http.Get""`,
		`"unterminated`, `text:"x"`, `:`, `user profile`, `'; DROP TABLE chunks; --`,
	} {
		if _, err := eng.Search(ctx, search.Query{Text: q}); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
	}
	res, _ := eng.Search(ctx, search.Query{Text: "http.Get"})
	if len(res.Hits) != 1 {
		t.Errorf("Search(http.Get) = %d hits, want 1", len(res.Hits))
	}
}

func TestFilters(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	writeSource(t, db, "web", map[string][]string{"src/a.go": {"func checkout() {}"}, "test/a_test.go": {"func checkout() {}"}}, nil)
	writeSource(t, db, "api", map[string][]string{"b.go": {"func checkout() {}"}}, nil)
	tests := []struct {
		f    core.Filter
		want int
	}{
		{core.Filter{}, 3},
		{core.Filter{Repo: []string{"web"}}, 2},
		{core.Filter{Repo: []string{"web"}, NotPath: []string{"test/*"}}, 1},
		{core.Filter{Path: []string{"src/*", "b.go"}}, 2},
		{core.Filter{Corpus: []core.CorpusType{core.DocRunbook}}, 0},
		{core.Filter{Language: []string{"go"}}, 3},
	}
	for _, tt := range tests {
		hits, err := db.BM25(ctx, "code", `"checkout"`, 10, tt.f)
		if err != nil || len(hits) != tt.want {
			t.Errorf("BM25(checkout, %+v) = %d hits, %v; want %d", tt.f, len(hits), err, tt.want)
		}
	}
}

func TestVectors(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:onehot", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	onehot := func(text string) []float32 {
		v := make([]float32, 4)
		v[len(text)%4] = 1
		return v
	}
	writeSource(t, db, "web", map[string][]string{"a.go": {"aaaa", "bbbbb", "cccccc"}}, onehot)
	hits, err := db.KNN(ctx, []float32{0, 1, 0, 0}, 2, core.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Chunk.Text != "bbbbb" || hits[0].Score < 0.999 {
		t.Fatalf("KNN = %+v, want bbbbb first with score 1", hits)
	}
	hits, err = db.KNN(ctx, []float32{0, 1, 0, 0}, 2, core.Filter{Repo: []string{"nope"}})
	if err != nil || len(hits) != 0 {
		t.Fatalf("KNN with filter = %v, %v; want none", hits, err)
	}
	if _, err := db.KNN(ctx, []float32{1, 0}, 2, core.Filter{}); err == nil {
		t.Error("KNN with a wrong dimension succeeded")
	}
	// Replacing the source drops its vectors too.
	writeSource(t, db, "web", map[string][]string{"b.go": {"dddd"}}, onehot)
	var n int
	db.sql.QueryRowContext(ctx, "SELECT count(*) FROM vec_chunks").Scan(&n)
	if n != 1 {
		t.Errorf("vectors after replace = %d, want 1", n)
	}
	// A chunk without a vector waits for the embed phase: PendingVectors
	// lists it, WriteVectors gives it one.
	run, _ := db.StartRun(ctx, "t")
	tx, _ := db.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/src/web", Name: "web"})
	cc, _ := scrub.New(scrub.Options{}).Clean(core.Chunk{ID: "x", SourceURI: "web/x", Corpus: core.CodeLogic, Text: "x", ContextPrefix: "x.go"})
	if err := tx.WriteFile(ctx, core.File{Path: "x"}, "h", []embed.Chunk{{Clean: cc}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	pend, err := db.PendingVectors(ctx, 0, 10)
	if err != nil || len(pend) != 1 || pend[0].Text != "x" || pend[0].ContextPrefix != "x.go" {
		t.Fatalf("PendingVectors = %+v, %v", pend, err)
	}
	if after, err := db.PendingAfter(ctx); err != nil || after >= pend[0].PK {
		t.Errorf("PendingAfter = %d, %v; want below the new chunk %d", after, err, pend[0].PK)
	}
	xPK := pend[0].PK
	if err := db.WriteVectors(ctx, []embed.Vector{{PK: xPK, Vec: []float32{0, 0, 0, 1}}}); err != nil {
		t.Fatal(err)
	}
	if pend, _ := db.PendingVectors(ctx, 0, 10); len(pend) != 0 {
		t.Errorf("still pending after WriteVectors: %+v", pend)
	}
	if err := db.WriteVectors(ctx, []embed.Vector{{PK: 1, Vec: []float32{1}}}); err == nil {
		t.Error("WriteVectors with a wrong dimension succeeded")
	}
	hits, err = db.KNN(ctx, []float32{0, 0, 0, 1}, 1, core.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID != "x" {
		t.Fatalf("KNN after WriteVectors = %+v, %v", hits, err)
	}
	// PendingAfter: every chunk up to the last vector has one; a chunk
	// below it without one makes it 0 (scan everything).
	if after, err := db.PendingAfter(ctx); err != nil || after != xPK {
		t.Errorf("PendingAfter with every chunk embedded = %d, %v; want %d", after, err, xPK)
	}
	var lowest int64
	db.sql.QueryRowContext(ctx, "SELECT min(pk) FROM chunks").Scan(&lowest)
	db.sql.ExecContext(ctx, "DELETE FROM vec_quant WHERE chunk_pk = ?", lowest)
	if after, err := db.PendingAfter(ctx); err != nil || after != 0 {
		t.Errorf("PendingAfter with chunk %d unembedded = %d, %v; want 0", lowest, after, err)
	}
	db.sql.ExecContext(ctx, "DELETE FROM vec_chunks WHERE chunk_pk = ?", lowest)
	if pend, _ := db.PendingVectors(ctx, 0, 10); len(pend) != 1 || pend[0].PK != lowest {
		t.Errorf("pending after deleting the vector of %d: %+v", lowest, pend)
	}
}

// TestPrefilterKNN checks that the sign-bit pages plus int8 rescoring find
// the exact nearest neighbours of clustered vectors (the prefilter keeps
// 20 candidates per hit), with scores within 1% of the exact ones.
func TestPrefilterKNN(t *testing.T) {
	ctx := context.Background()
	exact := openTemp(t)
	pre, err := Open(ctx, exact.path, Options{PrefilterFrom: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pre.Close()
	const dim, n = 256, 1000
	if err := exact.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:random", Dim: dim}); err != nil {
		t.Fatal(err)
	}
	// Embeddings of real text cluster by topic; so do these: 40 topic
	// centres, each vector a centre plus noise.
	rng := rand.New(rand.NewPCG(1, 2))
	centres := make([][]float32, 40)
	for c := range centres {
		centres[c] = make([]float32, dim)
		for i := range centres[c] {
			centres[c][i] = float32(rng.NormFloat64())
		}
	}
	vec := func() []float32 {
		c := centres[rng.IntN(len(centres))]
		v := make([]float32, dim)
		for i := range v {
			v[i] = c[i] + 0.7*float32(rng.NormFloat64())
		}
		return v
	}
	files := map[string][]string{}
	for i := range n {
		files[fmt.Sprintf("f%03d.go", i)] = []string{fmt.Sprintf("chunk %d", i)}
	}
	writeSource(t, exact, "web", files, nil)
	pend, err := exact.PendingVectors(ctx, 0, n)
	if err != nil || len(pend) != n {
		t.Fatalf("pending = %d, %v", len(pend), err)
	}
	var vs []embed.Vector
	for _, p := range pend {
		vs = append(vs, embed.Vector{PK: p.PK, Vec: vec()})
	}
	if err := exact.WriteVectors(ctx, vs); err != nil {
		t.Fatal(err)
	}
	if err := exact.RebuildVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if n := exact.pagedCount(ctx); n != 1000 {
		t.Fatalf("paged %d vectors, want 1000", n)
	}
	exact.opts.PrefilterFrom = -1
	pre.embedder = exact.Embedder()
	found, total := 0, 0
	for range 20 {
		q := vec()
		want, err := exact.KNN(ctx, q, 5, core.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := pre.KNN(ctx, q, 5, core.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, h := range got {
			ids[h.Chunk.ID] = true
		}
		for _, h := range want {
			total++
			if ids[h.Chunk.ID] {
				found++
			}
		}
		if len(got) > 0 && len(want) > 0 && got[0].Chunk.ID == want[0].Chunk.ID && math.Abs(got[0].Score-want[0].Score) > 0.01 {
			t.Errorf("prefilter score %v, exact %v", got[0].Score, want[0].Score)
		}
	}
	if recall := float64(found) / float64(total); recall < 0.9 {
		t.Errorf("prefilter recall@5 = %.2f, want >= 0.9", recall)
	}

	// A few vectors more (an incremental crawl) go into one new page
	// against the stored mean, and are found; many more rebuild the pages.
	add := func(name string, n int) []embed.Vector {
		files := map[string][]string{}
		for i := range n {
			files[fmt.Sprintf("g%03d.go", i)] = []string{fmt.Sprintf("more %d", i)}
		}
		writeSource(t, exact, name, files, nil)
		pend, err := exact.PendingVectors(ctx, 0, n)
		if err != nil || len(pend) != n {
			t.Fatalf("pending = %d, %v", len(pend), err)
		}
		var vs []embed.Vector
		var pks []int64
		for _, p := range pend {
			vs = append(vs, embed.Vector{PK: p.PK, Vec: vec()})
			pks = append(pks, p.PK)
		}
		if err := exact.WriteVectors(ctx, vs); err != nil {
			t.Fatal(err)
		}
		if err := exact.UpdateVectorIndex(ctx, pks); err != nil {
			t.Fatal(err)
		}
		return vs
	}
	pages := func() (n int) {
		exact.sql.QueryRow(`SELECT count(*) FROM vec_pages`).Scan(&n)
		return n
	}
	before := pages()
	more := add("more", 50)
	if got := exact.pagedCount(ctx); got != 1050 || pages() != before+1 {
		t.Errorf("after 50 more: paged %d vectors in %d pages, want 1050 in %d", got, pages(), before+1)
	}
	var id string
	exact.sql.QueryRow(`SELECT id FROM chunks WHERE pk = ?`, more[7].PK).Scan(&id)
	hits, err := pre.KNN(ctx, more[7].Vec, 1, core.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID != id {
		t.Errorf("an appended vector is not its own nearest neighbour: %+v, %v", hits, err)
	}
	add("many", 300)
	if got := exact.pagedCount(ctx); got != 1350 || pages() != 2 {
		t.Errorf("after 300 more: paged %d vectors in %d pages, want 1350 in 2 (rebuilt)", got, pages())
	}
}

func TestBuiltinModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: embed.CorpusID, Dim: 2}); err != nil {
		t.Fatal(err)
	}
	m, _ := embed.NewModel(2, []string{"cart", "redis"}, []float32{1.5, 2}, []float32{1, 0, 0, 1})
	if err := db.SaveModel(ctx, m, 10); err != nil {
		t.Fatal(err)
	}
	tokens, trained, err := db.BuiltinModelInfo(ctx)
	if err != nil || tokens != 2 || trained != 10 {
		t.Fatalf("BuiltinModelInfo = %d, %d, %v", tokens, trained, err)
	}
	all, err := db.LoadModel(ctx, nil)
	if err != nil || !slices.Equal(all.Tokens, m.Tokens) || !slices.Equal(all.Vecs, m.Vecs) || !slices.Equal(all.IDF, m.IDF) {
		t.Fatalf("LoadModel = %+v, %v", all, err)
	}
	part, err := db.LoadModel(ctx, []string{"redis", "nope"})
	if err != nil || !slices.Equal(part.Tokens, []string{"redis"}) || !slices.Equal(part.Vector("redis"), []float32{0, 1}) {
		t.Fatalf("LoadModel(redis) = %+v, %v", part, err)
	}
	if err := db.ResetVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if db.Embedder().ID != "" {
		t.Error("embedder still recorded after ResetVectors")
	}
	if tokens, _, _ := db.BuiltinModelInfo(ctx); tokens != 0 {
		t.Error("model kept after ResetVectors")
	}
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: "openai:m", Dim: 8}); err != nil {
		t.Fatalf("UseEmbedder after reset: %v", err)
	}
}

func TestStats(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	unlock, err := LockCrawl(ctx, db.path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	writeSource(t, db, "web", map[string][]string{"a.go": {"x", "y"}, "b.go": {"z"}}, nil)
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks != 3 || st.Files != 2 || st.ByCorpus[core.CodeLogic] != 3 || st.ByRepo["web"] != 3 || len(st.Sources) != 1 || st.FileBytes == 0 {
		t.Errorf("Stats = %+v", st)
	}
	if st.LastRun == nil || st.LastRun.Status != "running" {
		t.Errorf("LastRun = %+v", st.LastRun)
	}
}

func TestScrubAuditWritten(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	run, _ := db.StartRun(ctx, "t")
	tx, err := db.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/r", Name: "r"})
	if err != nil {
		t.Fatal(err)
	}
	text := `token := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"`
	cc, _ := scrub.New(scrub.Options{}).Clean(core.Chunk{ID: "s1", SourceURI: "r/a.go", Corpus: core.CodeLogic, Text: text})
	if err := tx.WriteFile(ctx, core.File{Path: "a.go", Corpus: core.CodeLogic}, "h", []embed.Chunk{{Clean: cc}}); err != nil {
		t.Fatal(err)
	}
	tx.Commit(ctx)
	var secrets, scrubbed int
	if err := db.sql.QueryRowContext(ctx, "SELECT secrets_found, scrubbed FROM scrub_audit WHERE chunk_id = 's1'").Scan(&secrets, &scrubbed); err != nil {
		t.Fatal(err)
	}
	var stored string
	db.sql.QueryRowContext(ctx, "SELECT text FROM chunks WHERE id = 's1'").Scan(&stored)
	if secrets != 1 || scrubbed != 1 || strings.Contains(stored, "ghp_") {
		t.Errorf("audit secrets=%d scrubbed=%d text=%q", secrets, scrubbed, stored)
	}
}

var _ = sql.ErrNoRows

// TestColumnWeights checks that a symbol hit outranks a path hit, which
// outranks a mention in the body, in both FTS indexes.
func TestColumnWeights(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	run, _ := db.StartRun(ctx, "t")
	tx, err := db.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/w", Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	gate := scrub.New(scrub.Options{})
	mk := func(path, symbol, text string) embed.Chunk {
		uri := "w/" + path
		cc, err := gate.Clean(core.Chunk{ID: core.ChunkID(uri, 0, len(text)), SourceURI: uri, ByteEnd: len(text),
			Corpus: core.CodeLogic, FilePath: path, SymbolName: symbol, Text: text, ContextPrefix: path})
		if err != nil {
			t.Fatal(err)
		}
		return embed.Chunk{Clean: cc}
	}
	filler := strings.Repeat("other words about orders and carts ", 5)
	for _, c := range []struct{ path, symbol, text string }{
		{"a/mention.go", "", filler + "reconcile"},
		{"b/reconcile.go", "", filler},
		{"c/defs.go", "reconcile", filler},
	} {
		if err := tx.WriteFile(ctx, core.File{Path: c.path, Corpus: core.CodeLogic}, "h", []embed.Chunk{mk(c.path, c.symbol, c.text)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, index := range []string{"code", "prose"} {
		hits, err := db.BM25(ctx, index, `"reconcile"`, 5, core.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Chunk.FilePath)
		}
		want := []string{"c/defs.go", "b/reconcile.go", "a/mention.go"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s index order = %v, want symbol, then path, then body: %v", index, got, want)
		}
	}
}

func TestAssignOwners(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:onehot", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	onehot := func(text string) []float32 { return []float32{1, 0, 0, 0} }
	writeSource(t, db, "platform", map[string][]string{
		"services/cart/Store.cs":   {"cart store"},
		"services/cart2/Other.cs":  {"other"},
		"tools/gen.go":             {"gen"},
		"services/cart/Dockerfile": {"FROM node:20"},
		"deploy/cart-db.yaml":      {"kind: StatefulSet"},
	}, onehot)
	// A Dockerfile is deploy code of no service of its own: its folder's
	// service builds it. A manifest is its declared service's, or none.
	if _, err := db.sql.ExecContext(ctx, `UPDATE chunks SET corpus_type = 'CODE_DEPLOY', language = 'dockerfile' WHERE file_path = 'services/cart/Dockerfile'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE chunks SET corpus_type = 'CODE_DEPLOY', language = 'yaml', service_name = 'cart-db' WHERE file_path = 'deploy/cart-db.yaml'`); err != nil {
		t.Fatal(err)
	}
	g := &graph.Graph{Services: []graph.Service{
		{Name: "cart", Kind: graph.KindService, Repo: "platform", Directory: "services/cart"},
		{Name: "platform-root", Kind: graph.KindService, Repo: "platform", Directory: "."},
		// Declared in the repository, no code known to be its: owns none
		// (it sorts first, and once took every file no folder held).
		{Name: "aaa-sidecar", Kind: graph.KindService, Repo: "platform"},
	}}
	if err := db.WriteGraph(ctx, g); err != nil {
		t.Fatal(err)
	}
	n, err := db.AssignOwners(ctx, ingest.LinkAll)
	if err != nil || n != 4 {
		t.Fatalf("AssignOwners = %d, %v; want 4 changes", n, err)
	}
	want := map[string]string{"services/cart/Store.cs": "cart", "services/cart2/Other.cs": "platform-root", "tools/gen.go": "platform-root",
		"services/cart/Dockerfile": "cart", "deploy/cart-db.yaml": "cart-db"}
	for path, owner := range want {
		var got string
		db.sql.QueryRowContext(ctx, `SELECT service_name FROM chunks WHERE file_path = ?`, path).Scan(&got)
		if got != owner {
			t.Errorf("%s owned by %q, want %q", path, got, owner)
		}
	}
	// The vectors' filter column follows: KNN with service:cart finds it.
	hits, err := db.KNN(ctx, []float32{1, 0, 0, 0}, 5, core.Filter{Service: []string{"cart"}})
	if err != nil || len(hits) != 2 {
		t.Fatalf("KNN service:cart = %+v, %v; want Store.cs and the Dockerfile", hits, err)
	}
	if n, _ := db.AssignOwners(ctx, ingest.LinkAll); n != 0 {
		t.Errorf("second AssignOwners changed %d chunks", n)
	}
}

func TestCutInt(t *testing.T) {
	tests := []struct {
		in   string
		v    int64
		rest string
		ok   bool
	}{
		{"12 34 x", 12, "34 x", true},
		{"-5 a b", -5, "a b", true},
		{"0 ", 0, "", true},
		{"1763800000123456789 h p", 1763800000123456789, "h p", true},
		{"12x 3", 0, "12x 3", false},
		{" 1", 0, " 1", false},
		{"12", 0, "12", false},
	}
	for _, tt := range tests {
		v, rest, ok := cutInt([]byte(tt.in))
		if v != tt.v || string(rest) != tt.rest || ok != tt.ok {
			t.Errorf("cutInt(%q) = %d, %q, %v; want %d, %q, %v", tt.in, v, rest, ok, tt.v, tt.rest, tt.ok)
		}
	}
}

// TestKNNWhileVectorsReplaced checks that a reader whose vectors a crawl
// dropped (re-embedding) gets ErrVectorsReplaced, which search turns into
// a warning, rather than "no such table".
func TestKNNWhileVectorsReplaced(t *testing.T) {
	ctx := context.Background()
	writer := openTemp(t)
	if err := writer.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:onehot", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	onehot := func(string) []float32 { return []float32{1, 0, 0, 0} }
	writeSource(t, writer, "web", map[string][]string{"a.go": {"alpha"}}, onehot)
	reader, err := Open(ctx, writer.path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if hits, err := reader.KNN(ctx, []float32{1, 0, 0, 0}, 1, core.Filter{}); err != nil || len(hits) != 1 {
		t.Fatalf("KNN before = %v, %v", hits, err)
	}
	if err := writer.ResetVectors(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = reader.KNN(ctx, []float32{1, 0, 0, 0}, 1, core.Filter{})
	if !errors.Is(err, core.ErrVectorsReplaced) {
		t.Errorf("KNN after the vectors were dropped: %v, want ErrVectorsReplaced", err)
	}
}

// TestMissingVectorTable: a reader that searched the vector table in the
// moment a re-embedding crawl had dropped it, and found it made again when
// it looked why, still reports ErrVectorsReplaced (CI saw "no such table:
// vec_chunks" reach a user once in 26 queries during a crawl).
func TestMissingVectorTable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{errors.New("no such table: vec_chunks"), true},
		{fmt.Errorf("vector search in c.db: %w", errors.New("no such table: vec_bits")), true},
		{errors.New("no such table: chunks"), false},
		{errors.New("database is locked"), false},
	}
	for _, tt := range tests {
		if got := missingVectorTable(tt.err); got != tt.want {
			t.Errorf("missingVectorTable(%q) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestLastRunOfAKilledCrawl: a run left "running" by a crawl whose
// process is gone (its lock went with it) reads as interrupted; one whose
// process holds the lock on the database file reads as running. No file
// is made beside the database.
func TestLastRunOfAKilledCrawl(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if _, err := db.StartRun(ctx, "crawl"); err != nil {
		t.Fatal(err)
	}
	status := func() string {
		t.Helper()
		r, err := db.LastRun(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	if s := status(); s != "interrupted" {
		t.Errorf("no lock held: %q, want interrupted", s)
	}
	unlock, err := LockCrawl(ctx, db.path, false)
	if err != nil {
		t.Fatal(err)
	}
	if s := status(); s != "running" {
		t.Errorf("lock held by this process: %q, want running", s)
	}
	if _, err := LockCrawl(ctx, db.path, false); !errors.Is(err, ErrCrawlRunning) {
		t.Errorf("second lock in one process: %v, want ErrCrawlRunning", err)
	}
	unlock()
	if s := status(); s != "interrupted" {
		t.Errorf("lock released: %q, want interrupted", s)
	}
	// Another process holds the lock (util-linux flock(1), as a crawl
	// would), then dies.
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1)")
	}
	holder := exec.Command("flock", "-x", db.path, "sleep", "30")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // sleep inherits the locked descriptor
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	kill := func() { syscall.Kill(-holder.Process.Pid, syscall.SIGKILL) }
	defer kill()
	for i := 0; i < 100 && lockHolder(db.path) <= 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if s := status(); s != "running" {
		t.Errorf("lock held by pid %d: %q, want running", holder.Process.Pid, s)
	}
	_, err = LockCrawl(ctx, db.path, false)
	if !errors.Is(err, ErrCrawlRunning) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", lockHolder(db.path))) {
		t.Errorf("lock held elsewhere: %v, want ErrCrawlRunning naming pid %d", err, lockHolder(db.path))
	}
	kill()
	holder.Wait()
	for i := 0; i < 100 && lockHolder(db.path) > 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if s := status(); s != "interrupted" {
		t.Errorf("holder killed: %q, want interrupted", s)
	}
	entries, _ := os.ReadDir(filepath.Dir(db.path))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("lock file %s beside the database", e.Name())
		}
	}
}

// TestPagesKeepRowBytes: loadPages keeps the blobs the driver scans into
// sql.RawBytes instead of copying them, which holds only while the driver
// hands each row's blobs in memory of their own.
func TestPagesKeepRowBytes(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if _, err := db.sql.ExecContext(ctx, `CREATE TEMP TABLE blobs(b BLOB)`); err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for i := range 4 {
		b := bytes.Repeat([]byte{byte(i + 1)}, 40000) // overflow pages, as a vector page
		want = append(want, b)
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO temp.blobs(b) VALUES (?)`, b); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT b FROM temp.blobs ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	var kept []sql.RawBytes
	for rows.Next() {
		var b sql.RawBytes
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, b)
	}
	rows.Close()
	for i, b := range kept {
		if !bytes.Equal(b, want[i]) {
			t.Fatalf("row %d's bytes changed after the next rows were read: the driver reuses its buffers, and loadPages must copy", i)
		}
	}
}

// TestPrefilterInSQL: the sign-bit scan inside SQLite (coderag_prefilter,
// a one-shot query's) picks the very candidates the scan of the pages in
// memory does: the want nearest and every vector as near as the last of
// them (not those of them a page comes first), and refuses a page that
// does not fit the query's width.
func TestPrefilterInSQL(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	const dim, n = 256, 2500 // three pages, the last one short
	words := dim / 64
	rng := rand.New(rand.NewPCG(3, 4))
	// Few distinct patterns with few flipped bits: many equal distances.
	patterns := make([][]uint64, 6)
	for i := range patterns {
		patterns[i] = make([]uint64, words)
		for w := range patterns[i] {
			patterns[i][w] = rng.Uint64()
		}
	}
	for page := 0; page*pageSize < n; page++ {
		var pks, bs []byte
		for i := page * pageSize; i < min(n, (page+1)*pageSize); i++ {
			pks = binary.LittleEndian.AppendUint64(pks, uint64(3*i+7))
			p := patterns[rng.IntN(len(patterns))]
			for w := range words {
				x := p[w]
				if rng.IntN(4) == 0 {
					x ^= 1 << rng.IntN(64)
				}
				bs = binary.LittleEndian.AppendUint64(bs, x)
			}
		}
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO vec_pages(page, pks, bits) VALUES (?, ?, ?)`, page, pks, bs); err != nil {
			t.Fatal(err)
		}
	}
	pg, err := db.loadPages(ctx, "test", dim)
	if err != nil {
		t.Fatal(err)
	}
	// nearBy is every vector within the want-th smallest distance, by
	// brute force, in page order.
	nearBy := func(qb []uint64, want int) []int64 {
		type v struct {
			pk int64
			d  int
		}
		var all []v
		for p, bs := range pg.bits {
			for i := 0; 8*words*(i+1) <= len(bs); i++ {
				d := 0
				for w := range words {
					d += bits.OnesCount64(qb[w] ^ binary.LittleEndian.Uint64(bs[8*(words*i+w):]))
				}
				all = append(all, v{int64(binary.LittleEndian.Uint64(pg.pks[p][8*i:])), d})
			}
		}
		ds := make([]int, len(all))
		for i, x := range all {
			ds[i] = x.d
		}
		slices.Sort(ds)
		var out []int64
		for _, x := range all {
			if x.d <= ds[min(want, len(ds))-1] {
				out = append(out, x.pk)
			}
		}
		return out
	}
	for _, want := range []int{1, 20, 333, 1000, n, n + 10} {
		for trial := range 5 {
			qb := slices.Clone(patterns[trial%len(patterns)])
			qb[trial%words] ^= rng.Uint64()
			inGo := pg.nearest(qb, want)
			inSQL, err := db.nearestInSQL(ctx, qb, want)
			if err != nil {
				t.Fatal(err)
			}
			if exp := nearBy(qb, want); !slices.Equal(inGo, exp) || len(inGo) < min(want, n) {
				t.Fatalf("want %d, query %d: %d candidates in memory, want the %d within the %d-th distance", want, trial, len(inGo), len(exp), want)
			}
			if !slices.Equal(inGo, inSQL) {
				t.Fatalf("want %d, query %d: SQLite picked %d candidates %v..., memory %d %v...", want, trial,
					len(inSQL), inSQL[:min(5, len(inSQL))], len(inGo), inGo[:min(5, len(inGo))])
			}
		}
	}
	// A page of another width: the error says what to do.
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO vec_pages(page, pks, bits) VALUES (99, ?, ?)`,
		make([]byte, 16), make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.nearestInSQL(ctx, patterns[0], 10); err == nil || !strings.Contains(err.Error(), "does not fit dimension 256; re-crawl") {
		t.Errorf("a page of another width: err = %v", err)
	}
	// No pages: no candidates.
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM vec_pages`); err != nil {
		t.Fatal(err)
	}
	if got, err := db.nearestInSQL(ctx, patterns[0], 10); err != nil || len(got) != 0 {
		t.Errorf("no pages: %v, %v", got, err)
	}
}

// TestConnectionsKeptBetweenQueries: the connections a query's lists ran
// on at once stay open for the next query (each keeps its page cache and
// its map of the file), up to eight; database/sql alone keeps two.
func TestConnectionsKeptBetweenQueries(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tt := range []struct{ busy, idle int }{{6, 6}, {12, 8}} {
		// busy statements at once, each holding its connection until all
		// have started
		var started, done sync.WaitGroup
		release := make(chan struct{})
		for range tt.busy {
			started.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				conn, err := db.sql.Conn(ctx)
				started.Done()
				if err != nil {
					t.Error(err)
					return
				}
				<-release
				conn.Close()
			}()
		}
		started.Wait()
		close(release)
		done.Wait()
		if st := db.sql.Stats(); st.Idle != tt.idle {
			t.Errorf("%d connections used at once: %d kept idle, want %d", tt.busy, st.Idle, tt.idle)
		}
	}
}
