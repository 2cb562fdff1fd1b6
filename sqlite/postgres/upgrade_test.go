package postgres

import (
	"context"
	"testing"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/scrub"
	"coderag/sqlite/postgres/pgtest"
)

// TestUpgradeReanalyzesCJK: a schema 3 database, whose code lexemes of
// Chinese, Japanese and Korean text are whole runs (made stale here by
// hand), is upgraded to lexemes of bigrams, its file and conversation
// documents and its sources' token sums with them; other rows keep theirs.
func TestUpgradeReanalyzesCJK(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/src/ops", Name: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	gate := scrub.New(scrub.Options{})
	write := func(path string, corpus core.CorpusType, texts ...string) {
		var chunks []embed.Chunk
		at := 0
		for i, text := range texts {
			c := core.Chunk{ID: core.ChunkID("ops/"+path, at, at+len(text)), SourceURI: "ops/" + path, ByteStart: at, ByteEnd: at + len(text),
				LineStart: i + 1, LineEnd: i + 1, Corpus: corpus, Text: text, FilePath: path, RepoName: "ops"}
			at += len(text) + 1
			cc, err := gate.Clean(c)
			if err != nil {
				t.Fatal(err)
			}
			chunks = append(chunks, embed.Chunk{Clean: cc})
		}
		if err := w.WriteFile(ctx, core.File{Path: path, Corpus: corpus}, "h-"+path, chunks); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/runbook.md", core.DocRunbook, "# 決済サービスの障害対応", "接続プールを確認する")
	write("docs/restart.md", core.DocRunbook, "restart the payment worker")
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE chunks SET code_tsv = 'staleword'::tsvector, code_len = 1 WHERE text ~ '` + cjkClass + `'`,
		`UPDATE docs SET tsv = 'staleword'::tsvector, len = 1 WHERE file_id = (SELECT id FROM files WHERE path = 'docs/runbook.md')`,
		`UPDATE sources SET code_tokens = 12345`,
		`UPDATE meta SET value = '3' WHERE key = 'schema_version'`,
	} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	up, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open schema 3: %v", err)
	}
	defer up.Close()
	for _, tt := range []struct {
		match string
		want  int
	}{{`"決済"`, 1}, {`"確認"`, 1}, {`"staleword"`, 0}, {`"restart"`, 1}} {
		hits, err := up.BM25(ctx, "code", tt.match, 5, core.Filter{})
		if err != nil || len(hits) != tt.want {
			t.Errorf("BM25 %s after the upgrade: %d hits, %v; want %d", tt.match, len(hits), err, tt.want)
		}
	}
	if hits, err := up.FileBM25(ctx, `"接続"`, `"接続"`, 5, core.Filter{}); err != nil || len(hits) == 0 || hits[0].Chunk.FilePath != "docs/runbook.md" {
		t.Errorf("FileBM25 接続 after the upgrade: %v, %v; want the runbook", hits, err)
	}
	var version string
	var sum, want int64
	if err := up.pool.QueryRow(ctx, `SELECT (SELECT value FROM meta WHERE key = 'schema_version'),
		(SELECT code_tokens FROM sources), (SELECT sum(code_len) FROM chunks)`).Scan(&version, &sum, &want); err != nil {
		t.Fatal(err)
	}
	if version != "4" || sum != want {
		t.Errorf("after the upgrade: schema %s, the source's code tokens %d; want 4, %d", version, sum, want)
	}
}
