package postgres

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/scrub"
	"coderag/sqlite/postgres/pgtest"
)

// writeSource crawls a source of files×10 one-line Go chunks, each with
// the vector vec gives it, and returns the chunk IDs with their vectors.
func writeSource(t *testing.T, db *DB, name string, files int, vec func() []float32) map[string][]float32 {
	t.Helper()
	ctx := context.Background()
	w, err := db.BeginSource(ctx, 0, core.Source{Kind: core.SourceRepo, Path: "/src/" + name, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	gate := scrub.New(scrub.Options{})
	out := map[string][]float32{}
	for f := 0; f < files; f++ {
		var chunks []embed.Chunk
		path := fmt.Sprintf("f%03d.go", f)
		for j := 0; j < 10; j++ {
			text := fmt.Sprintf("func %s%d_%d() {}", name, f, j)
			c := core.Chunk{ID: core.ChunkID(name+"/"+path, j*100, j*100+len(text)), SourceURI: name + "/" + path, ByteStart: j * 100,
				ByteEnd: j*100 + len(text), LineStart: j + 1, LineEnd: j + 1, Corpus: core.CodeLogic, Text: text, FilePath: path, RepoName: name, Language: "go"}
			cc, err := gate.Clean(c)
			if err != nil {
				t.Fatal(err)
			}
			v := vec()
			out[c.ID] = v
			chunks = append(chunks, embed.Chunk{Clean: cc, Vector: v})
		}
		if err := w.WriteFile(ctx, core.File{Path: path, Language: "go", Corpus: core.CodeLogic}, "h", chunks); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// exactTop is the k IDs nearest q by cosine, by brute force.
func exactTop(all map[string][]float32, q []float32, k int) []string {
	type c struct {
		id  string
		cos float64
	}
	var cs []c
	for id, v := range all {
		cs = append(cs, c{id, cos(v, q)})
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].cos > cs[j].cos })
	var out []string
	for _, x := range cs[:k] {
		out = append(out, x.id)
	}
	return out
}

// cos is the cosine similarity of a and b.
func cos(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// TestPGVector: with pgvector on the server, the store makes an HNSW
// index for the embedder's dimension; an unfiltered KNN through it finds
// what brute force finds; vectors a process without it wrote (emb left
// NULL) are still found and UpdateVectorIndex fills them; a new
// dimension rebuilds the column; stats say which path serves.
func TestPGVector(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	db, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.annInfo().version == "" {
		t.Skipf("no pgvector (make pgvector installs it): %s", db.annInfo().why)
	}
	const dim = 64
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:64", Dim: dim}); err != nil {
		t.Fatal(err)
	}
	if got := db.annDim(); got != dim {
		t.Fatalf("annDim = %d after UseEmbedder(%d); %s", got, dim, db.annInfo().why)
	}
	r := rand.New(rand.NewPCG(3, 4))
	centers := make([][]float32, 30)
	for i := range centers {
		centers[i] = make([]float32, dim)
		for j := range centers[i] {
			centers[i][j] = float32(r.NormFloat64())
		}
	}
	vec := func() []float32 { // clustered, as real embeddings are
		c := centers[r.IntN(len(centers))]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + 0.4*float32(r.NormFloat64())
		}
		return v
	}
	all := writeSource(t, db, "acme", 120, vec)

	var found, want int
	for i := 0; i < 20; i++ {
		q := vec()
		exact := exactTop(all, q, 10)
		hits, err := db.KNN(ctx, q, 10, core.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, h := range hits {
			got[h.Chunk.ID] = true
		}
		if len(hits) == 0 || hits[0].Chunk.ID != exact[0] {
			t.Errorf("query %d: first hit is not the nearest vector %s", i, exact[0])
		}
		for _, id := range exact {
			want++
			if got[id] {
				found++
			}
		}
	}
	if recall := float64(found) / float64(want); recall < 0.95 {
		t.Errorf("recall@10 through HNSW = %.3f, want ≥ 0.95", recall)
	}
	st, err := db.Stats(ctx)
	if err != nil || !strings.Contains(st.VectorIndex, "HNSW") {
		t.Errorf("stats vector index %q (%v), want the HNSW index named", st.VectorIndex, err)
	}

	// A process without pgvector writes vectors it does not put in the
	// HNSW index.
	t.Setenv(annEnv, "off")
	off, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if st, err := off.Stats(ctx); err != nil || !strings.Contains(st.VectorIndex, annEnv+"=off") {
		t.Errorf("stats of a process with %s=off: %q (%v)", annEnv, st.VectorIndex, err)
	}
	beta := writeSource(t, off, "beta", 5, vec)
	missing := func() int {
		var n int
		if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM vectors WHERE emb IS NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := missing(); n != len(beta) {
		t.Fatalf("%d vectors without emb, want the %d the process without pgvector wrote", n, len(beta))
	}
	check := func(when string) {
		t.Helper()
		for id, v := range beta {
			hits, err := db.KNN(ctx, v, 3, core.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Chunk.ID != id {
				t.Fatalf("%s: a vector of beta does not find itself first", when)
			}
			break
		}
	}
	check("before UpdateVectorIndex")
	if err := db.UpdateVectorIndex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := missing(); n != 0 {
		t.Errorf("%d vectors without emb after UpdateVectorIndex", n)
	}
	check("after UpdateVectorIndex")

	// Another embedder of another dimension rebuilds the column.
	if err := db.ResetVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.UseEmbedder(ctx, core.EmbedderInfo{ID: "test:32", Dim: 32}); err != nil {
		t.Fatal(err)
	}
	if n, err := embDim(ctx, db.pool); err != nil || n != 32 {
		t.Errorf("emb column dimension %d (%v) after a 32-dimension embedder", n, err)
	}
}

func TestVersionAtLeast(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{{"0.5.0", true}, {"0.8.1", true}, {"1.0", true}, {"0.4.4", false}, {"0.5", true}, {"0.10.0", true}, {"0.4.9-dev", false}} {
		if got := versionAtLeast(c.v, annMinVersion); got != c.want {
			t.Errorf("versionAtLeast(%q) = %v", c.v, got)
		}
	}
}
