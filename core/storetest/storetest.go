// Package storetest is the contract every implementation of coderag's
// store passes: the SQLite file (sqlite) and PostgreSQL (sqlite/postgres)
// run the same tests against their own Open. It checks behaviour through
// the interfaces core declares (ingest's writers, search.Index), never a
// store's own tables.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/graph"
	"coderag/core/ingest"
	"coderag/core/scrub"
	"coderag/core/search"
)

// Store is what the contract exercises: what a crawl writes through,
// what search reads, and the service graph.
type Store interface {
	search.Index
	ingest.Store
	ingest.VectorStore
	search.GraphReader
}

// Open returns a new, empty store; the test closes nothing (Open registers
// its own cleanup).
type Open func(t *testing.T) Store

// Run runs the contract against stores made by open.
func Run(t *testing.T, open Open) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Store)
	}{
		{"CodeTokens", testCodeTokens},
		{"ProseStems", testProseStems},
		{"ColumnsAndWeights", testColumnsAndWeights},
		{"Filters", testFilters},
		{"TermDocs", testTermDocs},
		{"FileBM25", testFileBM25},
		{"ReplaceAndRollback", testReplaceAndRollback},
		{"Update", testUpdate},
		{"DeleteSource", testDeleteSource},
		{"Vectors", testVectors},
		{"Engine", testEngine},
		{"Locator", testLocator},
		{"Requests", testRequests},
		{"Workloads", testWorkloads},
		{"OddText", testOddText},
		{"CrawlSample", testCrawlSample},
		{"Export", testExport},
		{"ChunkingVersion", testChunkingVersion},
		{"ServiceNames", testServiceNames},
		{"ChartMentions", testChartMentions},
		{"MentionOrder", testMentionOrder},
		{"OwnedFolders", testOwnedFolders},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
	t.Run("WriteOrder", func(t *testing.T) { testWriteOrder(t, open(t), open(t)) })
}

// testWriteOrder: two crawls of the same sources write their files in
// whatever order the workers finish, so rows get other keys; the answers
// must not change with them. Copies of one file (a vendored helper, a
// generated client) tie in every list; with fewer wanted than copies,
// the ones returned are chosen by content (core.SettleTies: by path),
// whichever order they were written in.
func testWriteOrder(t *testing.T, forward, backward Store) {
	ctx := context.Background()
	const copies = 12
	text := "// Backoff waits between attempts, doubling the delay up to a cap.\nfunc Backoff(attempt int) time.Duration { return base << attempt }"
	vec := []float32{0.6, 0.8, 0, 0}
	var files []file
	for i := range copies {
		files = append(files, file{fmt.Sprintf("svc%02d/retry/backoff.go", i), "go", core.CodeLogic, []chunk{{"Backoff", text, vec}}})
	}
	reversed := slices.Clone(files)
	slices.Reverse(reversed)
	for s, fs := range map[Store][]file{forward: files, backward: reversed} {
		if err := s.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:4d", Dim: 4}); err != nil {
			t.Fatal(err)
		}
		write(t, s, "mono", fs)
	}
	answers := func(s Store) map[string][]string {
		out := map[string][]string{}
		add := func(name string, hits []core.Hit, err error) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name] = []string{}
			for _, h := range hits {
				out[name] = append(out[name], h.Chunk.FilePath)
			}
		}
		for _, f := range []core.Filter{{}, {Repo: []string{"mono"}}} {
			hits, err := s.BM25(ctx, "code", `"backoff" OR "delay"`, 3, f)
			add(fmt.Sprint("bm25 ", f.Repo), hits, err)
			hits, err = s.FileBM25(ctx, `"backoff" OR "delay"`, `"backoff" OR "delay"`, 3, f)
			add(fmt.Sprint("files ", f.Repo), hits, err)
			hits, err = s.KNN(ctx, vec, 3, f)
			add(fmt.Sprint("knn ", f.Repo), hits, err)
		}
		return out
	}
	a, b := answers(forward), answers(backward)
	want := []string{files[0].path, files[1].path, files[2].path}
	for name, got := range a {
		if !slices.Equal(got, want) || !slices.Equal(b[name], want) {
			t.Errorf("%s: written forward %v, backward %v, want %v in both", name, got, b[name], want)
		}
	}
	if len(a) != 6 {
		t.Errorf("lists answered: %v, want six", a)
	}
}

// file is a fixture file: its path, language, corpus type and chunks
// (symbol, text, and an optional vector).
type file struct {
	path, lang string
	corpus     core.CorpusType
	chunks     []chunk
}

type chunk struct {
	symbol, text string
	vec          []float32
}

// acme is a small service repository: Go and Python code, a runbook, a
// deploy file.
var acme = []file{
	{"services/profile/handler.go", "go", core.CodeLogic, []chunk{
		{"getUserProfile", "func getUserProfile(ctx context.Context, id string) (*Profile, error) {\n\treturn store.Load(ctx, id)\n}", nil},
		{"renderAvatar", "func renderAvatar(w http.ResponseWriter, p *Profile) {\n\t// the user profile picture, resized\n\tw.Write(p.Avatar)\n}", nil},
	}},
	{"services/profile/client.py", "python", core.CodeLogic, []chunk{
		{"get_user_profile", "def get_user_profile(session, user_id):\n    return session.get(f\"/profiles/{user_id}\").json()", nil},
	}},
	{"services/cart/cart.go", "go", core.CodeLogic, []chunk{
		{"AddItem", "func (c *Cart) AddItem(item Item) error {\n\tc.items = append(c.items, item)\n\treturn c.redis.Save(c)\n}", nil},
		{"Checkout", "func (c *Cart) Checkout(ctx context.Context) error {\n\t// retries the payment twice before giving up\n\treturn c.pay(ctx)\n}", nil},
	}},
	{"docs/runbooks/cart-redis.md", "markdown", core.DocRunbook, []chunk{
		{"Restarting the cart cache", "When Redis is OOMKilled the cart service loses sessions. Restart the pods and raise the memory limit.", nil},
	}},
	{"deploy/cart.yaml", "yaml", core.CodeDeploy, []chunk{
		{"cart", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cart\nspec:\n  replicas: 3", nil},
	}},
}

// write stores files as source name (replacing it) and commits.
func write(t *testing.T, s Store, name string, files []file) {
	t.Helper()
	ctx := context.Background()
	run, err := s.StartRun(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/src/" + name, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	for _, f := range files {
		writeFile(t, w, name, f)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, run, core.CrawlRun{Status: "ok", Sources: 1, Files: len(files)}); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, w ingest.SourceWriter, repo string, f file) {
	t.Helper()
	gate := scrub.New(scrub.Options{})
	var chunks []embed.Chunk
	off := 0
	for i, c := range f.chunks {
		uri := repo + "/" + f.path
		ch := core.Chunk{ID: core.ChunkID(uri, off, off+len(c.text)), SourceURI: uri, ByteStart: off, ByteEnd: off + len(c.text),
			LineStart: i*10 + 1, LineEnd: i*10 + 5, Corpus: f.corpus, Text: c.text, FilePath: f.path, RepoName: repo,
			Language: f.lang, SymbolName: c.symbol, ContextPrefix: f.path + " > " + c.symbol}
		off += len(c.text) + 1
		cc, err := gate.Clean(ch)
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, embed.Chunk{Clean: cc, Vector: c.vec})
	}
	if err := w.WriteFile(context.Background(), core.File{Path: f.path, Language: f.lang, Corpus: f.corpus, Size: int64(off)}, "hash-"+f.path, chunks); err != nil {
		t.Fatal(err)
	}
}

// symbols are the symbols of hits, in order.
func symbols(hits []core.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Chunk.SymbolName)
	}
	return out
}

func bm25(t *testing.T, s Store, index, match string, f core.Filter) []string {
	t.Helper()
	hits, err := s.BM25(context.Background(), index, match, 20, f)
	if err != nil {
		t.Fatalf("BM25(%s, %s): %v", index, match, err)
	}
	for i, h := range hits {
		if len(h.Lists) != 1 || h.Lists[0].List != "bm25-"+index || h.Lists[0].Rank != i+1 {
			t.Errorf("BM25(%s, %s) hit %d lists = %+v", index, match, i, h.Lists)
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("BM25(%s, %s): scores not descending: %v", index, match, symbols(hits))
		}
	}
	return symbols(hits)
}

func wantSet(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	g := slices.Clone(got)
	slices.Sort(g)
	w := slices.Clone(want)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("%s = %v, want %v (any order)", what, got, want)
	}
}

// testCodeTokens: identifiers meet across naming styles, subwords and
// phrases of subwords match, as the code tokenizer splits them.
func testCodeTokens(t *testing.T, s Store) {
	write(t, s, "acme", acme)
	wantSet(t, `code "getUserProfile"`, bm25(t, s, "code", `"getUserProfile"`, core.Filter{}), "getUserProfile", "get_user_profile")
	wantSet(t, `code "get-user-profile"`, bm25(t, s, "code", `"get-user-profile"`, core.Filter{}), "getUserProfile", "get_user_profile")
	// A subword alone: in identifiers and in prose.
	wantSet(t, `code "avatar"`, bm25(t, s, "code", `"avatar"`, core.Filter{}), "renderAvatar")
	// The phrase "user profile": in the identifiers (subwords are
	// adjacent) and in the comment.
	wantSet(t, `code "user profile"`, bm25(t, s, "code", `"user profile"`, core.Filter{}), "getUserProfile", "get_user_profile", "renderAvatar")
	wantSet(t, `code OR`, bm25(t, s, "code", `"OOMKilled" OR "replicas"`, core.Filter{}), "Restarting the cart cache", "cart")
	wantSet(t, `code AND`, bm25(t, s, "code", `"cart" AND "redis"`, core.Filter{}), "AddItem", "Restarting the cart cache")
	wantSet(t, `code nested`, bm25(t, s, "code", `("payment" OR "avatar") AND "ctx"`, core.Filter{}), "Checkout")
	if got := bm25(t, s, "code", `"nosuchwordanywhere"`, core.Filter{}); len(got) != 0 {
		t.Errorf("an unknown word found %v", got)
	}
	if got := bm25(t, s, "code", `"..."`, core.Filter{}); len(got) != 0 {
		t.Errorf("a string of no tokens found %v", got)
	}
	if _, err := s.BM25(context.Background(), "nope", `"cart"`, 5, core.Filter{}); err == nil {
		t.Error("an unknown index is not an error")
	}
}

// testProseStems: the prose index stems English words.
func testProseStems(t *testing.T, s Store) {
	write(t, s, "acme", acme)
	wantSet(t, `prose "restart"`, bm25(t, s, "prose", `"restart"`, core.Filter{}), "Restarting the cart cache")
	wantSet(t, `prose "retry"`, bm25(t, s, "prose", `"retry"`, core.Filter{}), "Checkout")
	wantSet(t, `prose "losing sessions"`, bm25(t, s, "prose", `"losing session"`, core.Filter{}), "Restarting the cart cache")
}

// testColumnsAndWeights: a column filter restricts where a word may be; a
// word in a symbol outranks the same word in a body.
func testColumnsAndWeights(t *testing.T, s Store) {
	write(t, s, "acme", acme)
	got := bm25(t, s, "code", `{symbol_name file_path context_prefix} : ("profile")`, core.Filter{})
	wantSet(t, "profile in symbol, path or scope", got, "getUserProfile", "renderAvatar", "get_user_profile")
	got = bm25(t, s, "code", `{symbol_name} : ("cart")`, core.Filter{})
	wantSet(t, "cart in the symbol", got, "Restarting the cart cache", "cart")
	got = bm25(t, s, "code", `"checkout" OR "payment"`, core.Filter{})
	if len(got) == 0 || got[0] != "Checkout" {
		t.Errorf(`"checkout" OR "payment" = %v, want Checkout first`, got)
	}
	// "cart" is the symbol of the deployment, a word of the runbook's
	// title (its symbol too) and in the path of cart.go's chunks.
	got = bm25(t, s, "code", `"replicas" OR "items"`, core.Filter{})
	wantSet(t, "replicas or items", got, "cart", "AddItem")
}

// testFilters: corpus, repository, language and path filters apply.
func testFilters(t *testing.T, s Store) {
	write(t, s, "acme", acme)
	write(t, s, "other", []file{{"lib/cart.go", "go", core.CodeLogic, []chunk{{"cartTotal", "func cartTotal(c *Cart) int { return len(c.items) }", nil}}}})
	all := bm25(t, s, "code", `"cart"`, core.Filter{})
	if !slices.Contains(all, "cartTotal") || !slices.Contains(all, "AddItem") {
		t.Fatalf(`"cart" over both sources = %v`, all)
	}
	for _, tc := range []struct {
		name string
		f    core.Filter
		want []string
	}{
		{"repo", core.Filter{Repo: []string{"other"}}, []string{"cartTotal"}},
		{"corpus", core.Filter{Corpus: []core.CorpusType{core.DocRunbook}}, []string{"Restarting the cart cache"}},
		{"language", core.Filter{Language: []string{"yaml"}}, []string{"cart"}},
		{"path glob", core.Filter{Path: []string{"services/*"}}, []string{"AddItem", "Checkout"}},
		{"path glob any", core.Filter{Path: []string{"*cart.go*"}}, []string{"AddItem", "Checkout", "cartTotal"}},
		{"not path", core.Filter{Repo: []string{"acme"}, NotPath: []string{"services/*", "docs/*"}}, []string{"cart"}},
		{"two repos", core.Filter{Repo: []string{"acme", "other"}, Language: []string{"go"}}, []string{"AddItem", "Checkout", "cartTotal"}},
	} {
		wantSet(t, tc.name, bm25(t, s, "code", `"cart"`, tc.f), tc.want...)
	}
}

// testTermDocs: chunk counts per code token.
func testTermDocs(t *testing.T, s Store) {
	write(t, s, "acme", acme)
	total, df, err := s.TermDocs(context.Background(), []string{"getuserprofile", "profile", "cart", "nosuchword", "cart"})
	if err != nil {
		t.Fatal(err)
	}
	if total != 7 {
		t.Errorf("TermDocs total = %d, want 7", total)
	}
	want := map[string]int{"getuserprofile": 2, "profile": 3, "cart": 4}
	for k, v := range want {
		if df[k] != v {
			t.Errorf("TermDocs df[%s] = %d, want %d (all: %v)", k, df[k], v, df)
		}
	}
	if n, ok := df["nosuchword"]; ok && n != 0 {
		t.Errorf("TermDocs df[nosuchword] = %d", n)
	}
}

// testFileBM25: whole files rank by all their text, and each names its
// chunk that best matches.
func testFileBM25(t *testing.T, s Store) {
	write(t, s, "acme", acme)
	ctx := context.Background()
	// "redis" is in AddItem, "payment" in Checkout: only the whole file
	// holds both.
	hits, err := s.FileBM25(ctx, `"redis" AND "payment"`, `"redis" OR "payment"`, 10, core.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Chunk.FilePath != "services/cart/cart.go" {
		t.Fatalf("FileBM25(redis AND payment) = %v", symbols(hits))
	}
	if l := hits[0].Lists; len(l) != 1 || l[0].List != "bm25-file" || l[0].Rank != 1 {
		t.Errorf("FileBM25 lists = %+v", l)
	}
	hits, err = s.FileBM25(ctx, `"profile"`, `"avatar"`, 10, core.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, h := range hits {
		files[h.Chunk.FilePath] = h.Chunk.SymbolName
	}
	if files["services/profile/handler.go"] != "renderAvatar" {
		t.Errorf("handler.go's best chunk for avatar = %q (hits %v)", files["services/profile/handler.go"], files)
	}
	if files["services/profile/client.py"] != "get_user_profile" {
		t.Errorf("client.py's chunk (none matches avatar: its first) = %q", files["services/profile/client.py"])
	}
	// Stemmed: "retrying" meets "retries" in the file; no chunk holds the
	// code token "retrying": the file's first chunk stands for it.
	hits, err = s.FileBM25(ctx, `"retrying"`, `"retrying"`, 10, core.Filter{})
	if err != nil || len(hits) != 1 || hits[0].Chunk.SymbolName != "AddItem" {
		t.Errorf("FileBM25(retrying) = %v, %v; want cart.go's first chunk AddItem", symbols(hits), err)
	}
	hits, err = s.FileBM25(ctx, `"cart"`, `"cart"`, 10, core.Filter{Language: []string{"yaml"}})
	if err != nil || len(hits) != 1 || hits[0].Chunk.SymbolName != "cart" {
		t.Errorf("FileBM25(cart, yaml only) = %v, %v", symbols(hits), err)
	}
}

// testReplaceAndRollback: a source is replaced whole at Commit; a
// rolled-back replace leaves the previous content.
func testReplaceAndRollback(t *testing.T, s Store) {
	ctx := context.Background()
	write(t, s, "acme", acme)
	w, err := s.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/src/acme", Name: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, w, "acme", file{"new.go", "go", core.CodeLogic, []chunk{{"brandNew", "func brandNew() {}", nil}}})
	if err := w.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := bm25(t, s, "code", `"brandnew"`, core.Filter{}); len(got) != 0 {
		t.Errorf("rolled back chunk found: %v", got)
	}
	if got := bm25(t, s, "code", `"checkout"`, core.Filter{}); len(got) != 1 {
		t.Errorf("after a rollback, checkout = %v", got)
	}
	write(t, s, "acme", []file{{"new.go", "go", core.CodeLogic, []chunk{{"brandNew", "func brandNew() {}", nil}}}})
	if got := bm25(t, s, "code", `"checkout"`, core.Filter{}); len(got) != 0 {
		t.Errorf("replaced chunk still found: %v", got)
	}
	if got := bm25(t, s, "code", `"brandnew"`, core.Filter{}); len(got) != 1 {
		t.Errorf("new chunk = %v", got)
	}
	total, _, err := s.TermDocs(ctx, nil)
	if err != nil || total != 1 {
		t.Errorf("chunks after the replace = %d, %v; want 1", total, err)
	}
	// A second path cannot take a name in use.
	if _, err := s.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/elsewhere/acme", Name: "acme"}); err == nil {
		t.Error("a second path under the name acme was accepted")
	}
}

// testUpdate: an update replaces and deletes single files; the others
// stay; what the store holds of each file is reported.
func testUpdate(t *testing.T, s Store) {
	ctx := context.Background()
	write(t, s, "acme", acme)
	u, err := s.BeginSourceUpdate(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/src/acme", Name: "acme", Commit: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Rollback()
	stored, err := u.StoredFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(acme) || stored["services/cart/cart.go"].Hash != "hash-services/cart/cart.go" {
		t.Fatalf("StoredFiles = %v", stored)
	}
	if !u.Outdated() {
		t.Error("a new commit is not Outdated")
	}
	writeFile(t, u, "acme", file{"services/cart/cart.go", "go", core.CodeLogic, []chunk{{"RemoveItem", "func (c *Cart) RemoveItem(id string) error { return nil }", nil}}})
	if err := u.DeleteFile(ctx, "deploy/cart.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wantSet(t, "cart after the update", bm25(t, s, "code", `"cart"`, core.Filter{}), "RemoveItem", "Restarting the cart cache")
	wantSet(t, "profile after the update", bm25(t, s, "code", `"getuserprofile"`, core.Filter{}), "getUserProfile", "get_user_profile")
	hits, err := s.FileBM25(ctx, `"removeitem"`, `"removeitem"`, 5, core.Filter{})
	if err != nil || len(hits) != 1 {
		t.Errorf("the updated file's document: %v, %v", symbols(hits), err)
	}
	total, _, _ := s.TermDocs(ctx, nil)
	if total != 5 {
		t.Errorf("chunks after the update = %d, want 5", total)
	}
}

// testDeleteSource: a deleted source leaves nothing behind.
func testDeleteSource(t *testing.T, s Store) {
	ctx := context.Background()
	write(t, s, "acme", acme)
	write(t, s, "other", []file{{"lib/cart.go", "go", core.CodeLogic, []chunk{{"cartTotal", "func cartTotal() int { return 0 }", nil}}}})
	names, err := s.SourceNames(ctx)
	if err != nil || !slices.Equal(names, []string{"acme", "other"}) {
		t.Fatalf("SourceNames = %v, %v", names, err)
	}
	roots, err := s.RepoRoots(ctx)
	if err != nil || !maps.Equal(roots, map[string]string{"acme": "/src/acme", "other": "/src/other"}) {
		t.Errorf("RepoRoots = %v, %v", roots, err)
	}
	if err := s.DeleteSource(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSource(ctx, "never-was"); err != nil {
		t.Errorf("deleting an unknown source: %v", err)
	}
	names, _ = s.SourceNames(ctx)
	if !slices.Equal(names, []string{"other"}) {
		t.Errorf("SourceNames after delete = %v", names)
	}
	if roots, _ = s.RepoRoots(ctx); !maps.Equal(roots, map[string]string{"other": "/src/other"}) {
		t.Errorf("RepoRoots after delete = %v", roots)
	}
	wantSet(t, "cart after delete", bm25(t, s, "code", `"cart"`, core.Filter{}), "cartTotal")
	hits, _ := s.FileBM25(ctx, `"profile"`, `"profile"`, 5, core.Filter{})
	if len(hits) != 0 {
		t.Errorf("a deleted source's files still rank: %v", symbols(hits))
	}
}

// testVectors: vectors written with chunks are searched by cosine, with
// filters; a different embedder is refused; a replace keeps the vectors
// of unchanged chunks.
func testVectors(t *testing.T, s Store) {
	ctx := context.Background()
	info := core.EmbedderInfo{ID: "test:4d", Dim: 4}
	if err := s.UseEmbedder(ctx, info); err != nil {
		t.Fatal(err)
	}
	if s.Embedder() != info {
		t.Errorf("Embedder = %+v", s.Embedder())
	}
	if err := s.UseEmbedder(ctx, core.EmbedderInfo{ID: "other", Dim: 8}); !errors.Is(err, core.ErrEmbedderMismatch) {
		t.Errorf("another embedder: %v, want ErrEmbedderMismatch", err)
	}
	files := []file{
		{"a.go", "go", core.CodeLogic, []chunk{{"east", "func east() {}", []float32{1, 0, 0, 0}}, {"northeast", "func northeast() {}", []float32{1, 1, 0, 0}}}},
		{"b.py", "python", core.CodeLogic, []chunk{{"north", "def north(): pass", []float32{0, 1, 0, 0}}, {"west", "def west(): pass", []float32{-1, 0, 0.1, 0}}}},
	}
	write(t, s, "acme", files)
	hits, err := s.KNN(ctx, []float32{0.9, 0.2, 0, 0}, 3, core.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := symbols(hits); !slices.Equal(got, []string{"east", "northeast", "north"}) {
		t.Errorf("KNN = %v, want east northeast north", got)
	}
	for i, h := range hits {
		if h.Lists[0].List != "dense" || h.Lists[0].Rank != i+1 || h.Score > 1.0001 || h.Score < -1.0001 {
			t.Errorf("KNN hit %d: score %v lists %+v", i, h.Score, h.Lists)
		}
	}
	if hits[0].Score < 0.97 || hits[0].Score > 0.98 { // 0.9 / sqrt(0.85)
		t.Errorf("KNN cosine of east = %v, want 0.976", hits[0].Score)
	}
	hits, err = s.KNN(ctx, []float32{0.9, 0.2, 0, 0}, 3, core.Filter{Language: []string{"python"}})
	if err != nil || !slices.Equal(symbols(hits), []string{"north", "west"}) {
		t.Errorf("KNN python only = %v, %v", symbols(hits), err)
	}
	if _, err := s.KNN(ctx, []float32{1, 0}, 3, core.Filter{}); err == nil {
		t.Error("a query vector of the wrong dimension is not an error")
	}
	// A replace with the same chunks (no vectors given) keeps their
	// vectors; a changed chunk loses its own.
	files[0].chunks[0].vec, files[0].chunks[1].vec = nil, nil
	files[1].chunks[0].vec, files[1].chunks[1].vec = nil, nil
	files[1].chunks[1].text = "def west(): return 'changed'"
	write(t, s, "acme", files)
	hits, err = s.KNN(ctx, []float32{-1, 0, 0, 0}, 10, core.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	wantSet(t, "vectors kept by a replace", symbols(hits), "east", "northeast", "north")
}

// testEngine: core/search's engine runs on the store: identifiers, plain
// words and whole-file evidence.
func testEngine(t *testing.T, s Store) {
	write(t, s, "acme", acme)
	eng := search.New(s, search.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		q, first string
	}{
		{"getUserProfile", "getUserProfile|get_user_profile"},
		{"where does the cart retry the payment", "Checkout"},
		{"redis OOMKilled", "Restarting the cart cache"},
		{"how many replicas does cart run", "cart"},
	} {
		res, err := eng.Search(ctx, search.Query{Text: tc.q, K: 5})
		if err != nil {
			t.Fatalf("Search(%q): %v", tc.q, err)
		}
		if len(res.Hits) == 0 || !slices.Contains(strings.Split(tc.first, "|"), res.Hits[0].Chunk.SymbolName) {
			t.Errorf("Search(%q) = %v, want %s first", tc.q, symbols(res.Hits), tc.first)
		}
	}
}

// testLocator: files are found by their last path component (exactly:
// case and LIKE's wildcards count as written), the chunks near a line
// with filters applied, and a pasted trace's frame comes first.
func testLocator(t *testing.T, s Store) {
	write(t, s, "acme", acme)
	loc, ok := s.(search.Locator)
	if !ok {
		t.Fatalf("%T does not implement search.Locator", s)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		base string
		want []core.FileRef
	}{
		{"cart.go", []core.FileRef{{Repo: "acme", Path: "services/cart/cart.go"}}},
		{"client.py", []core.FileRef{{Repo: "acme", Path: "services/profile/client.py"}}},
		{"Cart.go", nil},
		{"client_py", nil},
		{"%.go", nil},
		{"cart.yaml", []core.FileRef{{Repo: "acme", Path: "deploy/cart.yaml"}}},
	} {
		got, err := loc.FilesNamed(ctx, tc.base, 10)
		if err != nil {
			t.Fatalf("FilesNamed(%q): %v", tc.base, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("FilesNamed(%q) = %v, want %v", tc.base, got, tc.want)
		}
	}
	cart := core.FileRef{Repo: "acme", Path: "services/cart/cart.go"}
	for _, tc := range []struct {
		line, window int
		f            core.Filter
		want         []string
	}{
		{12, 0, core.Filter{}, []string{"Checkout"}},
		{3, 0, core.Filter{}, []string{"AddItem"}},
		{8, 3, core.Filter{}, []string{"AddItem", "Checkout"}},
		{8, 1, core.Filter{}, nil},
		{12, 0, core.Filter{Language: []string{"python"}}, nil},
	} {
		got, err := loc.ChunksNear(ctx, cart, tc.line, tc.window, tc.f)
		if err != nil {
			t.Fatalf("ChunksNear(%d, %d): %v", tc.line, tc.window, err)
		}
		if !slices.Equal(symbols(got), tc.want) {
			t.Errorf("ChunksNear(cart.go, %d, %d, %v) = %v, want %v", tc.line, tc.window, tc.f, symbols(got), tc.want)
		}
	}
	eng := search.New(s, search.Options{})
	trace := "panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 7 [running]:\n" +
		"acme/services/cart.(*Cart).Checkout(0xc000123000, {0x7b6e40, 0xc000010030})\n\t/app/services/cart/cart.go:13 +0x3a1\n" +
		"main.main()\n\t/app/main.go:42 +0x1d\n"
	res, err := eng.Search(ctx, search.Query{Text: trace, K: 3})
	if err != nil {
		t.Fatalf("Search(trace): %v", err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Chunk.SymbolName != "Checkout" || res.Hits[0].Explain.Frame != "/app/services/cart/cart.go:13" {
		t.Errorf("Search(trace) = %v, want Checkout first, as the frame /app/services/cart/cart.go:13", symbols(res.Hits))
	}
}

// testRequests: the routes a source's writer stored are read back, and a
// pasted request finds the chunk that registers its route first and its
// handler's declaration second, filters applied.
func testRequests(t *testing.T, s Store) {
	ctx := context.Background()
	run, err := s.StartRun(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/src/acme", Name: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	routes := file{"services/profile/routes.go", "go", core.CodeLogic, []chunk{
		{"Register", "func Register(mux *http.ServeMux, h *Handlers) {\n\tmux.HandleFunc(\"GET /users/{id}/profile\", h.getUserProfile)\n\tmux.HandleFunc(\"GET /users/{id}/avatar\", h.renderAvatar)\n}", nil},
	}}
	for _, f := range append([]file{routes}, acme...) {
		writeFile(t, w, "acme", f)
	}
	uri := "acme/" + routes.path
	reg := core.ChunkID(uri, 0, len(routes.chunks[0].text))
	want := []core.RouteAt{
		{Repo: "acme", File: routes.path, ChunkID: reg, Route: core.Route{Method: "GET", Path: "/users/{id}/profile", Framework: "net/http", Handler: "h.getUserProfile", Line: 2}},
		{Repo: "acme", File: routes.path, ChunkID: reg, Route: core.Route{Method: "GET", Path: "/users/{id}/avatar", Framework: "net/http", Handler: "h.renderAvatar", Line: 3}},
	}
	if err := w.WriteRoutes(ctx, want); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, run, core.CrawlRun{Status: "ok", Sources: 1}); err != nil {
		t.Fatal(err)
	}
	rf, ok := s.(search.RouteFinder)
	if !ok {
		t.Fatalf("%T does not implement search.RouteFinder", s)
	}
	got, err := rf.Routes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b core.RouteAt) int { return a.Line - b.Line })
	if !slices.Equal(got, want) {
		t.Errorf("Routes() = %+v, want %+v", got, want)
	}
	eng := search.New(s, search.Options{})
	for _, tc := range []struct {
		text string
		f    core.Filter
		want []string // symbols, then the routes they show
	}{
		{`10.0.0.9 - - [24/Nov/2026:08:00:00 +0000] "GET /api/users/42/profile HTTP/1.1" 500 0`, core.Filter{},
			[]string{"Register GET /users/{id}/profile", "getUserProfile GET /users/{id}/profile"}},
		{"curl https://shop.example.com/users/7/avatar", core.Filter{},
			[]string{"Register GET /users/{id}/avatar", "renderAvatar GET /users/{id}/avatar"}},
		{`"GET /api/users/42/profile HTTP/1.1" 500`, core.Filter{Language: []string{"python"}}, nil},
		{`"DELETE /users/42/profile HTTP/1.1" 500`, core.Filter{}, nil},
	} {
		res, err := eng.Search(ctx, search.Query{Text: tc.text, K: 5, Filter: tc.f})
		if err != nil {
			t.Fatalf("Search(%q): %v", tc.text, err)
		}
		var routed []string
		for _, h := range res.Hits {
			if h.Explain.Route != "" {
				routed = append(routed, h.Chunk.SymbolName+" "+h.Explain.Route)
			}
		}
		if !slices.Equal(routed, tc.want) || len(tc.want) > 0 && (len(res.Hits) < 2 || res.Hits[0].Explain.RouteLine == 0 ||
			res.Hits[0].Explain.Route == "" || res.Hits[1].Explain.Route == "") {
			t.Errorf("Search(%q, %v): routed hits %q (first %v), want %q first", tc.text, tc.f, routed, symbols(res.Hits), tc.want)
		}
	}
}

// testWorkloads: the resources a deploy chunk declares are read back, and
// a pasted pod name, a Service's host and an image put the manifests
// first, filters applied.
func testWorkloads(t *testing.T, s Store) {
	ctx := context.Background()
	w, err := s.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/src/shop", Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	gate := scrub.New(scrub.Options{})
	manifest := func(path, kind, text string, r core.Resource) {
		uri := "shop/" + path
		c := core.Chunk{ID: core.ChunkID(uri, 0, len(text)), SourceURI: uri, ByteEnd: len(text), LineStart: 1, LineEnd: strings.Count(text, "\n") + 1,
			Corpus: core.CodeDeploy, Text: text, FilePath: path, RepoName: "shop", Language: "yaml", SymbolName: r.Name, SymbolKind: kind,
			ContextPrefix: path, Resources: []core.Resource{r}}
		cc, err := gate.Clean(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFile(ctx, core.File{Path: path, Language: "yaml", Corpus: core.CodeDeploy, Size: int64(len(text))}, "hash-"+path, []embed.Chunk{{Clean: cc}}); err != nil {
			t.Fatal(err)
		}
	}
	manifest("deploy/cart.yaml", "Deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cart\nspec:\n  template:\n    spec:\n      containers:\n        - image: ghcr.io/acme/cart:1.4.2",
		core.Resource{Kind: "Deployment", Name: "cart", Namespace: "shop", Service: "cart", Images: []string{"ghcr.io/acme/cart:1.4.2"}, Ports: []string{"7070"}, Line: 1})
	manifest("deploy/cart-svc.yaml", "Service", "apiVersion: v1\nkind: Service\nmetadata:\n  name: cart\nspec:\n  ports:\n    - port: 7070",
		core.Resource{Kind: "Service", Name: "cart", Namespace: "shop", Service: "cart", Ports: []string{"7070"}, Line: 1})
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wf, ok := s.(search.WorkloadFinder)
	if !ok {
		t.Fatalf("%T does not implement search.WorkloadFinder", s)
	}
	rs, err := wf.Resources(ctx)
	if err != nil || len(rs) != 2 {
		t.Fatalf("Resources() = %d, %v; want the Deployment and the Service", len(rs), err)
	}
	eng := search.New(s, search.Options{})
	for _, tc := range []struct {
		text  string
		f     core.Filter
		first string // the first hit's file, "" for no pinned hit
	}{
		{"cart-7d9f8c6b5-x2k4p   0/1   CrashLoopBackOff   4   3m", core.Filter{}, "deploy/cart.yaml"},
		{"dial tcp: lookup cart.shop.svc.cluster.local: no such host", core.Filter{}, "deploy/cart-svc.yaml"},
		{`Failed to pull image "ghcr.io/acme/cart:1.5.0": not found`, core.Filter{}, "deploy/cart.yaml"},
		{"cart-7d9f8c6b5-x2k4p CrashLoopBackOff", core.Filter{NotPath: []string{"deploy/*"}}, ""},
	} {
		res, err := eng.Search(ctx, search.Query{Text: tc.text, K: 3, Filter: tc.f})
		if err != nil {
			t.Fatalf("Search(%q): %v", tc.text, err)
		}
		got := ""
		if len(res.Hits) > 0 && res.Hits[0].Explain.Workload != "" {
			got = res.Hits[0].Chunk.FilePath
		}
		if got != tc.first {
			t.Errorf("Search(%q, %v): first pinned %q, want %q", tc.text, tc.f, got, tc.first)
		}
	}
}

// testOddText: a chunk holding a NUL character (a Slack message's
// \u0000), in its text and its metadata, is stored and found; the
// source is not lost.
func testOddText(t *testing.T, s Store) {
	ctx := context.Background()
	w, err := s.BeginSource(ctx, 0, core.Source{Kind: core.SourceSlackExport, Path: "/src/slack", Name: "slack"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	gate := scrub.New(scrub.Options{})
	text := "[14:02] @alice: the cart pods log \x00 garbage after the redis failover"
	c := core.Chunk{ID: core.ChunkID("slack/#incidents/t1", 0, len(text)), SourceURI: "slack/#incidents/t1", ByteEnd: len(text),
		LineStart: 1, LineEnd: 1, Corpus: core.ConvoSlack, Text: text, FilePath: "#incidents", RepoName: "slack",
		Channel: "incidents", Author: "alice", Meta: map[string]string{"topic": "fail\x00over"}}
	cc, err := gate.Clean(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile(ctx, core.File{Path: "incidents/2024-03-14.json", Corpus: core.ConvoSlack}, "h", []embed.Chunk{{Clean: cc}}); err != nil {
		t.Fatalf("a chunk holding a NUL: %v", err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got := bm25(t, s, "prose", `"failover"`, core.Filter{})
	if len(got) != 1 {
		t.Errorf("the chunk holding a NUL is not found: %v", got)
	}
	hits, err := s.FileBM25(ctx, `"garbage"`, `"garbage"`, 5, core.Filter{})
	if err != nil || len(hits) != 1 || !strings.Contains(hits[0].Chunk.Text, "garbage after") {
		t.Errorf("FileBM25 of the chunk holding a NUL: %v, %v", hits, err)
	}
}

// sampleDir is testdata/sample of this repository.
func sampleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "sample")
}

// goldenEdges reads the edges testdata/sample really has.
func goldenEdges(t *testing.T) []string {
	data, err := os.ReadFile(filepath.Join(sampleDir(), "edges.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 7 || strings.HasPrefix(f[0], "#") {
			continue
		}
		dash := func(s string) string {
			if s == "-" {
				return ""
			}
			return s
		}
		out = append(out, edgeKey(f[0], f[2], f[3], dash(f[4]), dash(f[5])))
	}
	return out
}

func edgeKey(src, dst, typ, method, path string) string {
	return fmt.Sprintf("%s -> %s %s %s %s", src, dst, typ, method, path)
}

// testCrawlSample: the crawler writes the bundled sample (two
// repositories, a Slack export, transcripts, Google Docs) with the
// corpus-learned embedder; the service graph is the sample's real one,
// hybrid search answers, and a second crawl of unchanged sources keeps
// everything.
func testCrawlSample(t *testing.T, s Store) {
	ctx := context.Background()
	dir := sampleDir()
	sources := []core.Source{
		{Kind: core.SourceRepo, Path: filepath.Join(dir, "platform"), Name: "platform"},
		{Kind: core.SourceRepo, Path: filepath.Join(dir, "storefront"), Name: "storefront"},
		{Kind: core.SourceSlackExport, Path: filepath.Join(dir, "slack"), Name: "acme-slack"},
		{Kind: core.SourceTranscriptDir, Path: filepath.Join(dir, "transcripts"), Name: "transcripts"},
		{Kind: core.SourceGDocsDir, Path: filepath.Join(dir, "gdocs"), Name: "gdocs"},
	}
	opts := ingest.Options{Embed: ingest.EmbedOptions{Builtin: true}}
	sum, err := ingest.New(s, opts).Run(ctx, sources)
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	if sum.Embed.Embedded == 0 {
		t.Errorf("the crawl embedded no chunk: %+v", sum.Embed)
	}
	g, err := s.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range g.Edges {
		got[edgeKey(e.Source, e.Target, e.Type, e.Method, e.Path)] = true
	}
	want := goldenEdges(t)
	for _, k := range want {
		if !got[k] {
			t.Errorf("edge missing: %s", k)
		}
		delete(got, k)
	}
	for k := range got {
		t.Errorf("edge not in the sample: %s", k)
	}
	if len(want) < 10 {
		t.Fatalf("read %d golden edges", len(want))
	}
	emb := embed.Stored{Dim: s.Embedder().Dim, Load: s.LoadModel}
	eng := search.New(s, search.Options{Embedder: emb, Reranker: search.BuiltinReranker{}})
	for _, tc := range []struct{ q, file string }{
		{"getUserProfile", "src/clients/accounts.ts"},
		{"redis OOMKilled cart", ""},
		{"kafka topic for order events", ""},
	} {
		res, err := eng.Search(ctx, search.Query{Text: tc.q, K: 10})
		if err != nil {
			t.Fatalf("Search(%q): %v", tc.q, err)
		}
		if len(res.Hits) == 0 || !slices.Contains(res.Lists, "dense") {
			t.Errorf("Search(%q): %d hits, lists %v", tc.q, len(res.Hits), res.Lists)
			continue
		}
		if tc.file != "" && !strings.HasSuffix(res.Hits[0].Chunk.FilePath, tc.file) {
			t.Errorf("Search(%q) first = %s, want %s", tc.q, res.Hits[0].Chunk.FilePath, tc.file)
		}
	}
	total, err := s.ChunkTotal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing changed: an incremental crawl keeps the graph and every
	// vector.
	opts.Incremental = true
	sum, err = ingest.New(s, opts).Run(ctx, sources)
	if err != nil || sum.Failed() {
		t.Fatalf("second crawl: %v %+v", err, sum)
	}
	if !sum.Graph.Kept {
		t.Error("a crawl of unchanged sources rebuilt the graph")
	}
	if n, _ := s.ChunkTotal(ctx); n != total {
		t.Errorf("chunks after the second crawl = %d, want %d", n, total)
	}
	if n, _ := s.VectorCount(ctx); n != total {
		t.Errorf("vectors after the second crawl = %d, want %d", n, total)
	}
}

// testExport: a crawled source reads back (ingest.Exporter, what coderag
// migrate copies) with every chunk in file order, its facts and vector,
// and the source's routes.
func testExport(t *testing.T, s Store) {
	exp, ok := s.(ingest.Exporter)
	if !ok {
		t.Skip("the store cannot be read back")
	}
	ctx := context.Background()
	src := core.Source{Kind: core.SourceRepo, Path: filepath.Join(sampleDir(), "storefront"), Name: "storefront"}
	if sum, err := ingest.New(s, ingest.Options{Embed: ingest.EmbedOptions{Builtin: true}}).Run(ctx, []core.Source{src}); err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	st, err := exp.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, so := range st.Sources {
		if so.Name == "storefront" {
			stored = so.Chunks
		}
	}
	var files, chunks, calls, resources, refs int
	seen := map[string]bool{}
	routes, err := exp.ExportSource(ctx, "storefront", func(f ingest.ExportedFile) error {
		files++
		if f.Hash == "" || f.File.Path == "" || f.File.Corpus == "" || len(f.Chunks) != len(f.Vectors) {
			t.Errorf("file %+v: hash %q, %d chunks, %d vectors", f.File, f.Hash, len(f.Chunks), len(f.Vectors))
		}
		for i, c := range f.Chunks {
			chunks++
			seen[c.ID] = true
			if c.FilePath != f.File.Path || i > 0 && c.ByteStart < f.Chunks[i-1].ByteStart {
				t.Errorf("%s: chunk %s (%s at %d) out of place", f.File.Path, c.ID, c.FilePath, c.ByteStart)
			}
			if len(f.Vectors[i]) != s.Embedder().Dim {
				t.Errorf("%s: chunk %s has a vector of %d, the index %d", f.File.Path, c.ID, len(f.Vectors[i]), s.Embedder().Dim)
			}
			calls += len(c.Calls)
			resources += len(c.Resources)
			refs += len(c.Refs)
			for _, k := range c.Calls {
				if k.Kind == "" || k.Line < c.LineStart || k.Line > c.LineEnd {
					t.Errorf("%s: call %+v outside its chunk %d-%d", f.File.Path, k, c.LineStart, c.LineEnd)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if chunks != stored || len(seen) != stored || stored == 0 {
		t.Errorf("exported %d chunks (%d distinct), the source holds %d", chunks, len(seen), stored)
	}
	if files < 5 || calls == 0 || resources == 0 || refs == 0 || len(routes) == 0 {
		t.Errorf("exported %d files, %d calls, %d resources, %d references, %d routes: facts missing", files, calls, resources, refs, len(routes))
	}
	for _, r := range routes {
		if !seen[r.ChunkID] || r.Repo != "storefront" || r.Path == "" {
			t.Errorf("route %+v not of an exported chunk", r)
		}
	}
	if _, err := exp.ExportSource(ctx, "no-such-source", func(ingest.ExportedFile) error {
		t.Error("a file of a source the index does not hold")
		return nil
	}); err != nil {
		t.Errorf("export of an unknown source: %v", err)
	}
}

// testChunkingVersion: a source's stats give the oldest chunking version
// its stored file hashes end with, 1 for hashes without one.
func testChunkingVersion(t *testing.T, s Store) {
	st, ok := s.(interface {
		Stats(ctx context.Context) (core.Stats, error)
	})
	if !ok {
		t.Skip("the store has no Stats")
	}
	ctx := context.Background()
	for _, src := range []struct {
		name   string
		hashes []string
	}{
		{"stamped", []string{"aa" + core.ChunkingMarker + "12", "bb" + core.ChunkingMarker + "9"}},
		{"mixed", []string{"cc" + core.ChunkingMarker + "12", "dd"}},
	} {
		w, err := s.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/src/" + src.name, Name: src.name})
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range src.hashes {
			text := fmt.Sprintf("func f%d() {}", i)
			c := core.Chunk{ID: core.ChunkID(src.name+"/f.go", i*100, i*100+len(text)), SourceURI: src.name + "/f.go", ByteStart: i * 100,
				ByteEnd: i*100 + len(text), LineStart: i + 1, LineEnd: i + 1, Corpus: core.CodeLogic, Text: text,
				FilePath: fmt.Sprintf("f%d.go", i), RepoName: src.name, Language: "go"}
			cc, err := scrub.New(scrub.Options{}).Clean(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteFile(ctx, core.File{Path: c.FilePath, Language: "go", Corpus: core.CodeLogic}, h, []embed.Chunk{{Clean: cc}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, src := range stats.Sources {
		got[src.Name] = src.ChunkingVersion
	}
	if got["stamped"] != 9 || got["mixed"] != 1 {
		t.Errorf("chunking versions %v, want stamped 9 and mixed 1", got)
	}
}

// testServiceNames: the names mentions are looked for are the graph's
// services, never an unresolved call's target (?{target}: its words are
// any text's) nor a workload a test's manifest deploys (an e2e suite's
// app named "runtime"), and a document is not joined to one.
func testServiceNames(t *testing.T, s Store) {
	ctx := context.Background()
	g := crawlShop(t, s, map[string]string{
		"docker-compose.yml": "services:\n  cart:\n    build: ./cart\n",
		"cart/main.go":       "package main\n\nimport \"net/http\"\n\n// fetch gets the target.\nfunc fetch(target string) {\n\thttp.Get(target)\n}\n",
		"docs/notes.md":      "# Notes\n\nPick the target, then the target's owner; the target decides. The runtime retries.\n",
		"tests/apps/runtime/service.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: runtime\nspec:\n  template:\n    spec:\n" +
			"      containers:\n        - name: runtime\n          image: e2e/runtime:dev\n",
	})
	if !slices.ContainsFunc(g.Services, func(sv graph.Service) bool { return sv.Kind == graph.KindUnresolved }) {
		t.Fatalf("the fixture made no unresolved node: %+v", g.Services)
	}
	names, err := s.ServiceNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, " ") != "cart" {
		t.Errorf("ServiceNames = %q, want cart", names)
	}
	docsJoinedTo(t, s, "")
}

// docsJoinedTo checks that every chunk under docs/ is joined to the
// service want ("" for none), in a store that lists chunks.
func docsJoinedTo(t *testing.T, s Store, want string) {
	t.Helper()
	l, ok := s.(search.Lister)
	if !ok {
		return
	}
	hits, err := l.List(context.Background(), core.Filter{Path: []string{"docs/*"}}, 10)
	if err != nil || len(hits) == 0 {
		t.Fatalf("docs: %v, %v", hits, err)
	}
	for _, h := range hits {
		if h.Chunk.ServiceName != want {
			t.Errorf("%s joined to %q, want %q", h.Chunk.FilePath, h.Chunk.ServiceName, want)
		}
	}
}

// testChartMentions: a document naming a subchart that deploys one
// service (its values key, quota_engine.replicas) is joined to that
// service, not to the chart's name.
func testChartMentions(t *testing.T, s Store) {
	g := crawlShop(t, s, map[string]string{
		"charts/platform/Chart.yaml":                      "apiVersion: v2\nname: platform\nversion: 1.0.0\n",
		"charts/platform/charts/quota_engine/Chart.yaml":  "apiVersion: v2\nname: quota_engine\nversion: 1.0.0\n",
		"charts/platform/charts/quota_engine/values.yaml": "replicas: 3\n",
		"charts/platform/charts/quota_engine/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: quota-engine-server\n" +
			"spec:\n  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      containers:\n        - name: quota\n          image: example/quota:1.0\n",
		"docs/scaling.md": "# Scaling\n\nRaise quota_engine.replicas when the quota checks queue up.\n",
	})
	if sv := g.Lookup("quota_engine"); sv == nil || sv.Name != "quota-engine-server" {
		t.Fatalf("the subchart is no name of its service: %+v", sv)
	}
	docsJoinedTo(t, s, "quota-engine-server")
}

// testMentionOrder: what mentions a service lists a changelog's newest
// entry by its date, its older entries after the rest (an undated
// runbook).
func testMentionOrder(t *testing.T, s Store) {
	m, ok := s.(interface {
		Mentions(ctx context.Context, service string, limit int) ([]core.Chunk, int, error)
	})
	if !ok {
		t.Skip("the store lists no mentions")
	}
	crawlShop(t, s, map[string]string{
		"docker-compose.yml": "services:\n  invoicing:\n    build: ./invoicing\n",
		"invoicing/main.go":  "package main\n\nfunc main() {}\n",
		"CHANGELOG.md": "# Changelog\n\n## 2.1.0 (2026-05-02)\n\n- invoicing: totals rounded per line, not per invoice.\n\n" +
			"## 2.0.0 (2026-03-11)\n\n- invoicing: the tax rules moved to their own table.\n",
		"runbooks/invoicing-stuck.md": "# Invoices stuck in pending\n\nRestart invoicing after the tax table migration.\n",
	})
	got, total, err := m.Mentions(context.Background(), "invoicing", 10)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, c := range got {
		files = append(files, c.FilePath)
	}
	if total != 3 || len(files) != 3 || files[0] != "CHANGELOG.md" || files[1] != "runbooks/invoicing-stuck.md" || files[2] != "CHANGELOG.md" {
		t.Errorf("Mentions = %v (%d in all), want the changelog's newest entry, the runbook, the older entry", files, total)
	}
	if len(got) == 3 && (!strings.Contains(got[0].Text, "2.1.0") || !strings.Contains(got[2].Text, "2.0.0")) {
		t.Errorf("the changelog's entries out of order: %q, then %q", got[0].Text, got[2].Text)
	}
}

// testOwnedFolders: a service owns every folder the graph gives it, not
// only its first: the program ko builds for it or its container command
// runs and the packages only that program imports, and a file its compose
// service mounts from elsewhere.
// The store keeps the folders with the graph, and chunks belong to the
// service of the deepest one holding them.
func testOwnedFolders(t *testing.T, s Store) {
	ctx := context.Background()
	deploy := func(name, image string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  template:\n    spec:\n      containers:\n        - name: " +
			name + "\n          image: " + image + "\n"
	}
	g := crawlShop(t, s, map[string]string{
		"go.mod":                 "module example.com/shop\n\ngo 1.22\n",
		"cmd/cart/main.go":       "package main\n\nimport \"example.com/shop/pkg/cart\"\n\nfunc main() { cart.Serve() }\n",
		"cmd/orders/main.go":     "package main\n\nimport \"example.com/shop/pkg/log\"\n\nfunc main() { log.Print() }\n",
		"pkg/cart/cart.go":       "package cart\n\nimport \"example.com/shop/pkg/log\"\n\n// Serve serves carts.\nfunc Serve() { log.Print() }\n",
		"pkg/log/log.go":         "package log\n\n// Print prints.\nfunc Print() {}\n",
		"deploy/cart.yaml":       deploy("cart", "ko://example.com/shop/cmd/cart"),
		"deploy/orders.yaml":     deploy("orders", "ko://example.com/shop/cmd/orders"),
		"cmd/billing/main.go":    "package main\n\nimport \"example.com/shop/pkg/billing\"\n\nfunc main() { billing.Run() }\n",
		"pkg/billing/billing.go": "package billing\n\nimport \"example.com/shop/pkg/log\"\n\n// Run bills.\nfunc Run() { log.Print() }\n",
		"deploy/billing.yaml":    deploy("billing", "registry.example.com/shop-programs") + "          command: [\"/usr/local/bin/billing\"]\n",
		"web/docker-compose.yml": "services:\n  web:\n    image: nginx:1.27\n    volumes:\n      - ../conf/nginx.conf:/etc/nginx/nginx.conf:ro\n",
		"conf/nginx.conf":        "events {}\nhttp {\n  server {\n    listen 80;\n    location / { root /srv; }\n  }\n}\n",
	})
	folders := map[string][]string{}
	for _, sv := range g.Services {
		for _, d := range sv.Dirs {
			folders[sv.Name] = append(folders[sv.Name], d.Repo+"/"+d.Path+" ("+d.Why+")")
		}
	}
	want := map[string][]string{
		"cart":    {"shop/cmd/cart (ko image)", "shop/pkg/cart (imported by its ko program only)"},
		"orders":  {"shop/cmd/orders (ko image)"},
		"billing": {"shop/cmd/billing (container command)", "shop/pkg/billing (imported by its program only)"},
		"web":     {"shop/conf/nginx.conf (compose volume)"},
	}
	for name, w := range want {
		if !slices.Equal(folders[name], w) {
			t.Errorf("folders of %s = %q, want %q", name, folders[name], w)
		}
	}
	l, ok := s.(search.Lister)
	if !ok {
		return
	}
	hits, err := l.List(ctx, core.Filter{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]string{}
	for _, h := range hits {
		owner[h.Chunk.FilePath] = h.Chunk.ServiceName
	}
	for file, w := range map[string]string{"cmd/cart/main.go": "cart", "pkg/cart/cart.go": "cart", "cmd/orders/main.go": "orders",
		"cmd/billing/main.go": "billing", "pkg/billing/billing.go": "billing", "pkg/log/log.go": "", "conf/nginx.conf": "web"} {
		if got, ok := owner[file]; !ok || got != w {
			t.Errorf("%s belongs to %q (listed: %v), want %q", file, got, ok, w)
		}
	}
	hits, err = l.List(ctx, core.Filter{Service: []string{"cart"}}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, h := range hits {
		files = append(files, h.Chunk.FilePath)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	// Its code, and the manifest that declares it.
	if strings.Join(files, " ") != "cmd/cart/main.go deploy/cart.yaml pkg/cart/cart.go" {
		t.Errorf("service:cart lists %q", files)
	}
}

// crawlShop writes files (path: content) into a new folder, crawls it as
// the repository "shop" into s and returns the service graph.
func crawlShop(t *testing.T, s Store, files map[string]string) *graph.Graph {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := ingest.New(s, ingest.Options{}).Run(ctx, []core.Source{{Kind: core.SourceRepo, Path: dir, Name: "shop"}})
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	g, err := s.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
