package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/graph"
	"coderag/core/ingest"
	"coderag/core/scrub"

	"coderag/core/storetest"
	"coderag/sqlite/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestContract runs the store contract (core/storetest) that the SQLite
// store passes too, against a real PostgreSQL server.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return openTest(t) })
}

// TestKNNCacheMatchesSQL: an unfiltered KNN (candidates from the sign
// bits in memory) returns what the same search through PostgreSQL's
// Hamming pass returns (a filter that admits everything), on more vectors
// than the candidate count; and a replace reloads the bits.
func TestKNNCacheMatchesSQL(t *testing.T) {
	t.Setenv(annEnv, "off") // the sign bits, not pgvector, pick candidates
	ctx := context.Background()
	db := openTest(t)
	const dim, n = 96, 900
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:96", Dim: dim}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	write := func() { writeSource(t, db, "acme", n/10, vec) }
	ids := func(hits []core.Hit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Chunk.ID)
		}
		return out
	}
	for round := 0; round < 2; round++ {
		write() // the second replaces every vector: the cache must reload
		for i := 0; i < 20; i++ {
			q := vec()
			mem, err := db.KNN(ctx, q, 10, core.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			sql, err := db.KNN(ctx, q, 10, core.Filter{Repo: []string{"acme"}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(mem), ids(sql)) || len(mem) != 10 {
				t.Fatalf("round %d query %d: in memory %v, through SQL %v", round, i, ids(mem), ids(sql))
			}
		}
	}
}

// TestOpenSchemaVersions: a database of a newer schema is refused with
// core.ErrSchemaTooNew, one of the development schema with what to do;
// opening twice creates nothing twice.
func TestOpenSchemaVersions(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db2, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("second open: %v", err)
	}
	db2.Close()
	for _, tc := range []struct {
		version string
		want    string
	}{
		{"99", "newer than this coderag"},
		{"1", "development build"},
	} {
		if _, err := db.pool.Exec(ctx, `UPDATE meta SET value = $1 WHERE key = 'schema_version'`, tc.version); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, dsn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("schema %s: %v, want an error saying %q", tc.version, err, tc.want)
		}
	}
	// Schema 2 (before service_dirs): opening upgrades it, each service's
	// directory its first folder.
	for _, q := range []string{`UPDATE meta SET value = '2' WHERE key = 'schema_version'`, `DROP TABLE service_dirs`,
		`INSERT INTO services(name, kind, repo_name, directory) VALUES ('cart', 'service', 'shop', 'src/cart'), ('redis', 'cache', '', '')`} {
		if _, err := db.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	up, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open schema 2: %v", err)
	}
	up.Close()
	var version, dirs string
	if err := db.pool.QueryRow(ctx, `SELECT (SELECT value FROM meta WHERE key = 'schema_version'),
		(SELECT string_agg(s.name || ' ' || d.repo_name || '/' || d.path, ',') FROM service_dirs d JOIN services s ON s.id = d.service_id)`).Scan(&version, &dirs); err != nil {
		t.Fatal(err)
	}
	if version != "4" || dirs != "cart shop/src/cart" {
		t.Errorf("schema 2 opened: version %s, service folders %q; want 4, %q", version, dirs, "cart shop/src/cart")
	}
	if _, err := Open(ctx, "postgres://nobody@127.0.0.1:1/x"); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("an unreachable server: %v", err)
	}
	db.Close()
}

// TestWriterRole: a role that may write the tables but does not own them
// (a CI job's) crawls; a read-only role searches and cannot write.
func TestWriterRole(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	owner, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	for _, q := range []string{
		`CREATE ROLE crawler LOGIN`, `CREATE ROLE reader LOGIN`,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO crawler`,
		`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO crawler`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader`,
		`GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO reader`,
	} {
		if _, err := owner.pool.Exec(ctx, q); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("%s: %v", q, err)
		}
	}
	as := func(role string) *DB {
		db, err := Open(ctx, strings.Replace(dsn, "coderag@", role+"@", 1))
		if err != nil {
			t.Fatalf("open as %s: %v", role, err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	crawler := as("crawler")
	gate := scrub.New(scrub.Options{})
	w, err := crawler.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/src/acme", Name: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []embed.Chunk
	for i := 0; i < 600; i++ { // enough for the commit to ANALYZE
		text := fmt.Sprintf("func handleCheckout%d() {}", i)
		c := core.Chunk{ID: core.ChunkID("acme/a.go", i*100, i*100+len(text)), SourceURI: "acme/a.go", ByteStart: i * 100, ByteEnd: i*100 + len(text),
			LineStart: i + 1, LineEnd: i + 1, Corpus: core.CodeLogic, Text: text, FilePath: "a.go", RepoName: "acme", Language: "go"}
		cc, err := gate.Clean(c)
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, embed.Chunk{Clean: cc})
	}
	if err := w.WriteFile(ctx, core.File{Path: "a.go", Language: "go", Corpus: core.CodeLogic}, "h", chunks); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatalf("commit as a role that does not own the tables: %v", err)
	}
	reader := as("reader")
	hits, err := reader.BM25(ctx, "code", `"handlecheckout7"`, 5, core.Filter{})
	if err != nil || len(hits) != 1 {
		t.Errorf("search as reader: %d hits, %v", len(hits), err)
	}
	if _, err := reader.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/src/other", Name: "other"}); err == nil {
		t.Error("the read-only role began writing a source")
	}
}

// TestLinkUnderNewerCommit: a graph built before another source committed
// is not written (ingest.ErrGraphSuperseded), so its crawler leaves the
// link to the committer's; and two link phases never run at once.
func TestLinkUnderNewerCommit(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	open := func() *DB {
		db, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open()
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:4", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	vec := func() []float32 { return []float32{1, 0, 0, 0} }
	writeSource(t, db, "first", 1, vec)
	if _, err := db.GraphDirty(ctx); err != nil {
		t.Fatal(err)
	}
	writeSource(t, db, "second", 1, vec) // commits after this crawl looked
	if err := db.WriteGraph(ctx, &graph.Graph{}); !errors.Is(err, ingest.ErrGraphSuperseded) {
		t.Fatalf("WriteGraph of a graph older than the last commit = %v, want ErrGraphSuperseded", err)
	}
	if dirty, err := db.GraphDirty(ctx); err != nil || !dirty {
		t.Fatalf("GraphDirty after a superseded write = %v, %v; want dirty", dirty, err)
	}
	if err := db.WriteGraph(ctx, &graph.Graph{}); err != nil {
		t.Fatalf("WriteGraph after looking again = %v", err)
	}

	unlock, err := db.LockLink(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := open() // another crawler's handle: a session of its own
	got := make(chan struct{})
	go func() {
		u, err := other.LockLink(ctx)
		if err == nil {
			u()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a second link phase took the lock while the first held it")
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the second link phase never got the lock")
	}
}
