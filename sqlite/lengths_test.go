package sqlite

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/ingest"
	"coderag/sqlite/internal/cext"
)

// lengthsFixture writes services whose chunks differ in length and repeat
// words, so that bm25's length normalisation and ties matter.
func lengthsFixture(t *testing.T, db *DB) {
	t.Helper()
	long := strings.Repeat("retry the request after a timeout ", 14000) // 70k tokens: lengths 4 bytes wide
	writeSource(t, db, "orders", map[string][]string{
		"internal/retry/retry.go": {"// Retry runs fn until it succeeds or the context is done, with exponential backoff.\nfunc Retry(ctx context.Context, fn func() error) error {",
			"func backoff(attempt int) time.Duration { return base << attempt }"},
		"internal/http/client.go": {"// Do sends the request and retries on a timeout.\nfunc (c *Client) Do(req *http.Request) (*http.Response, error) {",
			"func (c *Client) timeout() time.Duration { return c.cfg.Timeout }", long},
		"README.md": {"# Orders\nThe orders service retries payment requests with exponential backoff when the payment service times out."},
		"docs/runbook.md": {"## Payment timeouts\nIf payment requests time out, check the payment service's health and the retry budget.",
			"## Retry storms\nA retry storm: every client retries at once; lower the retry budget."},
	}, nil)
	writeSource(t, db, "payments", map[string][]string{
		"handler.py": {"def charge(request):\n    \"\"\"Charge the card; the caller retries on timeout.\"\"\"",
			"def refund(request):\n    return gateway.refund(request.amount)", "def timeout():\n    return 30"},
	}, nil)
}

// TestRankLengths: coderag_bm25 with the crawl's row lengths ranks exactly
// as FTS5's bm25(), and a ranking whose lengths are not those of the index
// read is not used.
func TestRankLengths(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	lengthsFixture(t, db)
	if r := db.rankingOf(ctx, "fts_code"); r.expr != "fts_code.rank" {
		r.done()
		t.Fatalf("before any crawl finished: ranking %q, want FTS5's own", r.expr)
	}
	if err := db.FinishRun(ctx, 1, core.CrawlRun{Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	var widths []string
	rows, err := db.sql.QueryContext(ctx, `SELECT tbl || ':' || width FROM fts_lengths ORDER BY tbl`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		widths = append(widths, s)
	}
	rows.Close()
	// The prose index counts every word of the long chunk: 4 bytes a length.
	if want := []string{"fts_code:2", "fts_files:2", "fts_prose:4"}; !reflect.DeepEqual(widths, want) {
		t.Errorf("fts_lengths = %v, want %v", widths, want)
	}
	matches := []string{
		`"retry" OR "timeout" OR "request"`,
		`"retry"`,
		`{symbol_name file_path context_prefix} : ("retry" OR "backoff" OR "timeout")`,
		`"payment" OR "timeouts" OR "payment timeouts"`,
		`("Retry" OR "retry") OR "exponential backoff"`,
		`"retry" AND "budget"`,
		`"nothing" OR "matches"`,
	}
	for _, table := range []string{"fts_code", "fts_prose"} {
		for _, m := range matches {
			r := db.rankingOf(ctx, table)
			if !strings.HasPrefix(r.expr, "coderag_bm25(") {
				r.done()
				t.Fatalf("%s: ranking %q after the crawl, want coderag_bm25", table, r.expr)
			}
			got, fresh, err := db.bm25With(ctx, r, table, m, "", nil, 20, "x")
			r.done()
			if err != nil || !fresh {
				t.Fatalf("%s %s: %v (fresh %v)", table, m, err, fresh)
			}
			want, _, err := db.bm25With(ctx, plainRanking(table), table, m, "", nil, 20, "x")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(hitScores(got), hitScores(want)) {
				t.Errorf("%s %s:\n got %v\nwant %v", table, m, hitScores(got), hitScores(want))
			}
			// With a filter, the rows it admits.
			where, args := filterSQL(core.Filter{Repo: []string{"orders"}})
			r = db.rankingOf(ctx, table)
			got, _, err = db.bm25With(ctx, r, table, m, where, args, 20, "x")
			r.done()
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ = db.bm25With(ctx, plainRanking(table), table, m, where, args, 20, "x")
			if !reflect.DeepEqual(hitScores(got), hitScores(want)) {
				t.Errorf("%s %s repo:orders:\n got %v\nwant %v", table, m, hitScores(got), hitScores(want))
			}
		}
	}
	for _, m := range matches {
		if strings.HasPrefix(m, "{") {
			continue // the files' columns are others
		}
		r := db.rankingOf(ctx, "fts_files")
		gotIDs, gotScores, fresh, err := db.bestFiles(ctx, r, m, 20)
		r.done()
		if err != nil || !fresh {
			t.Fatalf("files %s: %v (fresh %v)", m, err, fresh)
		}
		wantIDs, wantScores, _, _ := db.bestFiles(ctx, plainRanking("fts_files"), m, 20)
		if !reflect.DeepEqual(gotIDs, wantIDs) || !reflect.DeepEqual(gotScores, wantScores) {
			t.Errorf("files %s: got %v %v, want %v %v", m, gotIDs, gotScores, wantIDs, wantScores)
		}
	}
	// Lengths for part of the rows: the others are read from the table.
	var base int64
	var width int
	var packed []byte
	db.sql.QueryRowContext(ctx, `SELECT base, width, lens FROM fts_lengths WHERE tbl = 'fts_code'`).Scan(&base, &width, &packed)
	n := len(packed) / width
	h := cext.RegisterLengths(base+int64(n/2), width, packed[n/2*width:])
	if h == 0 {
		t.Fatal("RegisterLengths: no handle")
	}
	defer cext.FreeLengths(h)
	if cext.RegisterLengths(base, 3, packed[:3*(n/3)]) != 0 {
		t.Error("RegisterLengths of width 3: a handle, want none")
	}
	partial := ranking{expr: "coderag_bm25(fts_code, " + strconv.Itoa(h) + ", 10.0, 4.0, 2.0, 1.0)", fresh: "1", done: func() {}}
	got, _, _ := db.bm25With(ctx, partial, "fts_code", matches[0], "", nil, 20, "x")
	want, _, _ := db.bm25With(ctx, plainRanking("fts_code"), "fts_code", matches[0], "", nil, 20, "x")
	if !reflect.DeepEqual(hitScores(got), hitScores(want)) {
		t.Errorf("half the lengths held:\n got %v\nwant %v", hitScores(got), hitScores(want))
	}

	// A ranking made for the index before a write, used after it.
	stale := db.rankingOf(ctx, "fts_code")
	writeSource(t, db, "cart", map[string][]string{"cart.go": {"func retryCheckout() { retry(timeout) }"}}, nil)
	_, fresh, err := db.bm25With(ctx, stale, "fts_code", matches[0], "", nil, 20, "x")
	stale.done()
	if err != nil || fresh {
		t.Errorf("ranking of the index before a write: fresh %v, %v; want not fresh", fresh, err)
	}
	// Until the crawl ends, FTS5's own ranking; the hits are right either way.
	if r := db.rankingOf(ctx, "fts_code"); r.expr != "fts_code.rank" {
		r.done()
		t.Errorf("index written since the lengths: ranking %q, want FTS5's own", r.expr)
	}
	hits, err := db.BM25(ctx, "code", `"retryCheckout"`, 5, core.Filter{})
	if err != nil || len(hits) != 1 {
		t.Errorf("BM25 after the write = %v, %v; want the new chunk", hits, err)
	}
	if err := db.FinishRun(ctx, 2, core.CrawlRun{Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	r := db.rankingOf(ctx, "fts_code")
	r.done()
	if !strings.HasPrefix(r.expr, "coderag_bm25(") {
		t.Errorf("after the next crawl: ranking %q, want coderag_bm25", r.expr)
	}

	// A damaged row is not used.
	if _, err := db.sql.ExecContext(ctx, `UPDATE fts_lengths SET width = 3`); err != nil {
		t.Fatal(err)
	}
	db2, err := Open(ctx, db.path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if r := db2.rankingOf(ctx, "fts_code"); r.expr != "fts_code.rank" {
		r.done()
		t.Errorf("damaged lengths: ranking %q, want FTS5's own", r.expr)
	}
}

func hitScores(hits []core.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s=%v", h.Chunk.ID, h.Score))
	}
	return out
}

func TestRankWeights(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	for _, tc := range []struct {
		rank, want string
		ok         bool
	}{
		{"bm25(10.0, 4.0, 2.0, 1.0)", "10.0, 4.0, 2.0, 1.0", true},
		{"bm25()", "", true},
		{"bm25(1, 2)", "1, 2", true},
		{"myrank(1)", "", false},
		{"bm25(1); DROP TABLE chunks", "", false},
	} {
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO fts_prose_config(k, v) VALUES ('rank', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v`, tc.rank); err != nil {
			t.Fatal(err)
		}
		got, ok := db.rankWeights(ctx, "fts_prose")
		if got != tc.want || ok != tc.ok {
			t.Errorf("rankWeights(%q) = %q, %v; want %q, %v", tc.rank, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSQLiteVarint(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want uint64
		n    int
	}{
		{[]byte{0x05}, 5, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0x8B, 0x94, 0x63}, 182883, 3},
		{[]byte{0x81}, 0, 0},
		{nil, 0, 0},
	} {
		v, n := sqliteVarint(tc.in)
		if v != tc.want || n != tc.n {
			t.Errorf("sqliteVarint(% x) = %d, %d; want %d, %d", tc.in, v, n, tc.want, tc.n)
		}
	}
}

// TestCompact: removing chunks from the full-text indexes leaves their
// entries until the segments merge; once a quarter of the chunks were
// removed, Compact merges them, and search answers the same.
func TestCompact(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	files := map[string][]string{}
	for i := range 40 {
		files[fmt.Sprintf("svc/handler%d.go", i)] = []string{
			fmt.Sprintf("func Handle%d(w http.ResponseWriter, r *http.Request) { retry(timeout%d) }", i, i),
			fmt.Sprintf("// Handler %d checks the payment before the order is written.", i),
		}
	}
	writeSource(t, db, "orders", files, nil)
	if did, err := db.Compact(ctx, nil); err != nil || did {
		t.Fatalf("Compact after a first crawl = %v, %v; want nothing to do", did, err)
	}
	size := func() int64 {
		var n int64
		db.sql.QueryRowContext(ctx, `SELECT sum(length(block)) FROM fts_code_data`).Scan(&n)
		return n
	}
	fresh := size()
	// The same source written again: every chunk removed and added.
	writeSource(t, db, "orders", files, nil)
	before, _ := db.BM25(ctx, "code", `"retry" OR "payment"`, 20, core.Filter{})
	bloated := size()
	if bloated <= fresh {
		t.Fatalf("index after a rewrite %d bytes, fresh %d: want the removed rows' entries kept", bloated, fresh)
	}
	text := func() string {
		t.Helper()
		st, err := db.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.TextIndex
	}
	if s := text(); !strings.Contains(s, "bm25() reading") || !strings.Contains(s, "80 chunks removed since the last compaction: the next crawl compacts") {
		t.Errorf("stats before the crawl's end: %q", s)
	}
	did, err := db.Compact(ctx, nil)
	if err != nil || !did {
		t.Fatalf("Compact after every chunk was rewritten = %v, %v; want it done", did, err)
	}
	if err := db.FinishRun(ctx, 2, core.CrawlRun{Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if s := text(); s != "FTS5, ranked with the row lengths in memory" {
		t.Errorf("stats after the crawl's end: %q", s)
	}
	if got := size(); got >= bloated {
		t.Errorf("index after Compact %d bytes, before %d", got, bloated)
	}
	after, _ := db.BM25(ctx, "code", `"retry" OR "payment"`, 20, core.Filter{})
	if !reflect.DeepEqual(hitScores(before), hitScores(after)) {
		t.Errorf("hits before Compact %v, after %v", hitScores(before), hitScores(after))
	}
	for _, tbl := range rankedTables {
		if _, err := db.sql.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s(%s) VALUES ('integrity-check')", tbl, tbl)); err != nil {
			t.Errorf("%s integrity-check: %v", tbl, err)
		}
	}
	if did, err := db.Compact(ctx, nil); err != nil || did {
		t.Errorf("Compact again = %v, %v; want nothing to do", did, err)
	}
}

// TestRankedFallsBack: a statement that finds its lengths were not the
// index's is run again with FTS5's own ranking, whose answer stands.
func TestRankedFallsBack(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	lengthsFixture(t, db)
	if err := db.FinishRun(ctx, 1, core.CrawlRun{Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	var used []string
	got, err := ranked(ctx, db, "fts_code", func(r ranking) (int, bool, error) {
		used = append(used, r.expr)
		return len(used), len(used) > 1, nil // the first ranking's lengths were stale
	})
	if err != nil || got != 2 || len(used) != 2 || !strings.HasPrefix(used[0], "coderag_bm25(") || used[1] != "fts_code.rank" {
		t.Errorf("ranked = %d, %v after %q; want the second answer, from coderag_bm25 then FTS5's rank", got, err, used)
	}
	// The lengths were released: loading them again does not wait.
	r := db.rankingOf(ctx, "fts_code")
	r.done()
	if !db.loadLengths(ctx, "fts_code", db.lengths["fts_code"], db.lengths["fts_code"].stamp, db.lengths["fts_code"].totals) {
		t.Error("lengths not loaded again")
	}
}

// TestFinishRunLengthsFail: when the row lengths cannot be written, the
// run's end is still recorded, and the error says so (the crawl does not
// report its run as unrecorded); search ranks with FTS5's own bm25().
func TestFinishRunLengthsFail(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	lengthsFixture(t, db)
	run, err := db.StartRun(ctx, "crawl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, `DROP TABLE fts_lengths`); err != nil {
		t.Fatal(err)
	}
	err = db.FinishRun(ctx, run, core.CrawlRun{Status: "ok"})
	if !errors.Is(err, ingest.ErrRunRecorded) || !strings.Contains(err.Error(), "row lengths") {
		t.Fatalf("FinishRun = %v; want an error about the row lengths, marked as after the run's end", err)
	}
	if last, err := db.LastRun(ctx); err != nil || last.Status != "ok" {
		t.Errorf("last run %+v, %v; want it recorded as ok", last, err)
	}
	if hits, err := db.BM25(ctx, "code", `"retry"`, 5, core.Filter{}); err != nil || len(hits) == 0 {
		t.Errorf("BM25 without lengths = %v, %v", hits, err)
	}
}

// TestCompactVectors: vec0 never reuses a removed vector's slot, so a
// source written again grows the vector table by its vectors; once a
// quarter of the slots are dead, Compact rebuilds it with the live ones,
// KNN answers the same, and removing a chunk still removes its vector.
func TestCompactVectors(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:hash", Dim: 8}); err != nil {
		t.Fatal(err)
	}
	vecOf := func(text string) []float32 {
		v := make([]float32, 8)
		for i, c := range text {
			v[(i+int(c))%8] += float32(c % 7)
		}
		return v
	}
	files := map[string][]string{}
	for i := range 600 {
		files[fmt.Sprintf("svc/handler%d.go", i)] = []string{
			fmt.Sprintf("func Handle%d() { retry(%d) }", i, i*i),
			fmt.Sprintf("// Handler %d writes order %d.", i, i*7),
		}
	}
	writeSource(t, db, "orders", files, vecOf)
	slots := func() (live, all int64, due bool) {
		t.Helper()
		live, all, due, err := db.vectorsDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return live, all, due
	}
	if live, all, due := slots(); live != 1200 || all != 2048 || due {
		t.Fatalf("after a first write: %d vectors in %d slots, due %v; want 1200 in 2048, not due", live, all, due)
	}
	writeSource(t, db, "orders", files, vecOf)
	live, all, due := slots()
	if live != 1200 || all <= 2048 || !due {
		t.Fatalf("after a rewrite: %d vectors in %d slots, due %v; want 1200 in more than 2048, due", live, all, due)
	}
	if st, err := db.Stats(ctx); err != nil || !strings.HasSuffix(st.VectorIndex, "; 1872 of its 3072 vector slots unused (vec0 reuses no removed vector's slot): the next crawl compacts") {
		t.Errorf("stats before Compact: %q, %v", st.VectorIndex, err)
	}
	q := vecOf("func Handle42() { retry(1764) }")
	before, err := db.KNN(ctx, q, 5, core.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if did, err := db.Compact(ctx, nil); err != nil || !did {
		t.Fatalf("Compact = %v, %v; want it done", did, err)
	}
	if live, all, due := slots(); live != 1200 || all != 2048 || due {
		t.Errorf("after Compact: %d vectors in %d slots, due %v; want 1200 in 2048", live, all, due)
	}
	if st, err := db.Stats(ctx); err != nil || strings.Contains(st.VectorIndex, "unused") || st.FreeBytes <= 0 || st.FreeBytes >= st.FileBytes {
		t.Errorf("stats after Compact: %q, %d of %d bytes free, %v; want the old table's pages free", st.VectorIndex, st.FreeBytes, st.FileBytes, err)
	}
	after, err := db.KNN(ctx, q, 5, core.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(hitScores(before), hitScores(after)) {
		t.Errorf("KNN before Compact %v, after %v", hitScores(before), hitScores(after))
	}
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM chunks WHERE file_path = 'svc/handler42.go'`); err != nil {
		t.Fatal(err)
	}
	if live, _, _ := slots(); live != 1198 {
		t.Errorf("vectors after removing a file's two chunks = %d, want 1198 (the trigger lost)", live)
	}
	if did, err := db.Compact(ctx, nil); err != nil || did {
		t.Errorf("Compact again = %v, %v; want nothing to do", did, err)
	}
}

// TestWholeTies: a list keeps the rows it wants and those tied with the
// last of them, and reads more when the ties may go on past what it read.
func TestWholeTies(t *testing.T) {
	for _, tc := range []struct {
		scores      []int // best first, as read
		limit, want int
		keep        int
		more        bool
	}{
		{[]int{9, 8, 7}, 5, 3, 3, false},                       // fewer than the limit: all there are
		{[]int{9, 8, 7, 6, 5}, 5, 3, 3, false},                 // no tie at the third
		{[]int{9, 8, 7, 7, 5}, 5, 3, 4, false},                 // the fourth ties the third
		{[]int{9, 8, 7, 7, 7}, 5, 3, 5, true},                  // the ties reach the limit: read more
		{[]int{9, 7, 7, 7, 7}, 5, 2, 5, true},                  // likewise from the second
		{[]int{7, 7, 7, 7}, 5, 2, 4, false},                    // all tie, all read
		{[]int{}, 5, 3, 0, false},                              // nothing matched
		{[]int{9, 8, 7, 6, 6, 6, 6, 6, 6, 1}, 10, 4, 9, false}, // the ties end before the limit
	} {
		keep, more := wholeTies(len(tc.scores), tc.limit, tc.want, func(i int) bool { return tc.scores[i] == tc.scores[i-1] })
		if keep != tc.keep || more != tc.more {
			t.Errorf("wholeTies(%v, limit %d, want %d) = %d, %v; want %d, %v", tc.scores, tc.limit, tc.want, keep, more, tc.keep, tc.more)
		}
	}
}
