package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/scrub"
	"coderag/core/search"
	"coderag/core/storetest"
)

const benchDim = 256

// synth makes deterministic code-like chunks: identifiers drawn from a
// Zipf distribution over a vocabulary of camelCase and snake_case names,
// so that posting lists have the long tail real code has.
type synth struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

// newSynth draws from one fixed vocabulary with the given seed, so that
// query generators (other seeds) ask for words the corpus has.
func newSynth(seed uint64) *synth {
	r := rand.New(rand.NewPCG(1, 1^0x9e3779b97f4a7c15))
	parts := strings.Fields(`get set load save user profile cart order item product price stock checkout
		payment charge account session token client server handler request response config cache redis
		kafka topic event publish consume retry timeout error status health ready metric trace span db
		query row insert update delete list find by id name email address ship total currency amount`)
	vocab := make([]string, 0, 20000)
	for len(vocab) < 20000 {
		n := 2 + r.IntN(3)
		var b strings.Builder
		snake := r.IntN(4) == 0
		for i := 0; i < n; i++ {
			p := parts[r.IntN(len(parts))]
			switch {
			case snake && i > 0:
				b.WriteString("_" + p)
			case !snake && i > 0:
				b.WriteString(strings.ToUpper(p[:1]) + p[1:])
			default:
				b.WriteString(p)
			}
		}
		b.WriteString(fmt.Sprint(len(vocab) % 97))
		vocab = append(vocab, b.String())
	}
	r = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &synth{r: r, zipf: rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1)), vocab: vocab}
}

func (s *synth) word() string { return s.vocab[s.zipf.Uint64()] }

// text returns about n bytes of code-like lines.
func (s *synth) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		switch s.r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "func (s *%s) %s(ctx context.Context, %s string) error {\n", s.word(), s.word(), s.word())
		case 1:
			fmt.Fprintf(&b, "\t%s, err := s.%s.%s(ctx, %s)\n", s.word(), s.word(), s.word(), s.word())
		case 2:
			fmt.Fprintf(&b, "\tif err != nil {\n\t\treturn fmt.Errorf(\"%s %%s: %%w\", %s, err)\n\t}\n", s.word(), s.word())
		default:
			fmt.Fprintf(&b, "// %s calls %s when %s is %s.\n", s.word(), s.word(), s.word(), s.word())
		}
	}
	return b.String()
}

func (s *synth) vector() []float32 {
	v := make([]float32, benchDim)
	var norm float64
	for i := range v {
		x := s.r.NormFloat64()
		v[i] = float32(x)
		norm += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

// fill writes n synthetic chunks (10 per file, ~900 bytes each, with
// vectors) as one source and returns how long the writes took.
func fill(tb testing.TB, db *DB, n int, s *synth) time.Duration {
	tb.Helper()
	if err := db.UseEmbedder(context.Background(), core.EmbedderInfo{ID: "bench:random", Dim: benchDim}); err != nil {
		tb.Fatal(err)
	}
	return fillChunks(tb, db, n, s, true)
}

// fillNoVec is fill without vectors.
func fillNoVec(tb testing.TB, db *DB, n int, s *synth) time.Duration {
	return fillChunks(tb, db, n, s, false)
}

func fillChunks(tb testing.TB, db *DB, n int, s *synth, vectors bool) time.Duration {
	tb.Helper()
	ctx := context.Background()
	gate := scrub.New(scrub.Options{})
	// Prepare outside the timed part: text generation and scrubbing are not
	// what this measures.
	type file struct {
		f      core.File
		chunks []embed.Chunk
	}
	var files []file
	for i := 0; i < n; i += 10 {
		path := fmt.Sprintf("svc%03d/pkg%02d/file%05d.go", i/1000, (i/100)%10, i/10)
		var chunks []embed.Chunk
		off := 0
		for j := 0; j < 10 && i+j < n; j++ {
			text := s.text(900)
			uri := "bench/" + path
			c := core.Chunk{ID: core.ChunkID(uri, off, off+len(text)), SourceURI: uri, ByteStart: off, ByteEnd: off + len(text),
				LineStart: j*30 + 1, LineEnd: j*30 + 30, Corpus: core.CodeLogic, Text: text, FilePath: path,
				RepoName: "bench", Language: "go", SymbolName: s.word(), ContextPrefix: path}
			off += len(text)
			cc, err := gate.Clean(c)
			if err != nil {
				tb.Fatal(err)
			}
			ec := embed.Chunk{Clean: cc}
			if vectors {
				ec.Vector = s.vector()
			}
			chunks = append(chunks, ec)
		}
		files = append(files, file{core.File{Path: path, Language: "go", Corpus: core.CodeLogic}, chunks})
	}
	start := time.Now()
	run, err := db.StartRun(ctx, "bench")
	if err != nil {
		tb.Fatal(err)
	}
	tx, err := db.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/bench", Name: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range files {
		if err := tx.WriteFile(ctx, f.f, "h", f.chunks); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkInsert measures chunk writes with both FTS5 indexes and vec0.
func BenchmarkInsert(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				db := openTemp(b)
				total += fill(b, db, n, newSynth(1))
				db.Close()
			}
			b.ReportMetric(float64(n*b.N)/total.Seconds(), "chunks/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

var (
	bench100kOnce sync.Once
	bench100k     *DB
	bench100kDir  string
)

// db100k builds one 100k-chunk database for the latency benchmarks.
func db100k(b *testing.B) *DB {
	bench100kOnce.Do(func() {
		dir, err := os.MkdirTemp("", "coderag-bench")
		if err != nil {
			b.Fatal(err)
		}
		bench100kDir = dir
		db, err := Open(context.Background(), filepath.Join(dir, "bench.db"), Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		fill(b, db, 100_000, newSynth(1))
		bench100k = db
	})
	if bench100k == nil {
		b.Skip("100k database could not be built")
	}
	return bench100k
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench100k != nil {
		bench100k.Close()
		os.RemoveAll(bench100kDir)
	}
	os.Exit(code)
}

// BenchmarkFTSQuery measures user queries over both FTS5 indexes with rank
// fusion (search.Engine) at 100k chunks: single identifiers, identifier
// pairs and three-word phrases, drawn like the corpus.
func BenchmarkFTSQuery(b *testing.B) {
	db := db100k(b)
	eng := search.New(db, search.Options{})
	s := newSynth(7)
	queries := make([]string, 300)
	for i := range queries {
		switch i % 3 {
		case 0:
			queries[i] = s.word()
		case 1:
			queries[i] = s.word() + " " + s.word()
		default:
			queries[i] = strings.Join(strings.Fields(s.text(20))[:3], " ")
		}
	}
	storetest.ReportLatencies(b, storetest.Latencies(b, eng, queries))
}

// BenchmarkKNN measures exact cosine KNN over 100k 256-dimensional vectors
// in vec0, without and with a metadata filter inside the KNN.
func BenchmarkKNN(b *testing.B) {
	db := db100k(b)
	s := newSynth(9)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		f    core.Filter
	}{{"nofilter", core.Filter{}}, {"filter=language", core.Filter{Language: []string{"go"}}}} {
		b.Run(tc.name, func(b *testing.B) {
			var lat []time.Duration
			for i := 0; i < b.N; i++ {
				for q := 0; q < 50; q++ {
					v := s.vector()
					start := time.Now()
					hits, err := db.KNN(ctx, v, 10, tc.f)
					if err != nil || len(hits) != 10 {
						b.Fatalf("KNN = %d hits, %v", len(hits), err)
					}
					lat = append(lat, time.Since(start))
				}
			}
			storetest.ReportLatencies(b, lat)
		})
	}
}

// BenchmarkCompactVectors measures the vector table's rebuild at the end
// of a crawl that rewrote every chunk of a 100k-chunk index (256
// dimensions): half its slots hold removed vectors.
func BenchmarkCompactVectors(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := openTemp(b)
		fill(b, db, 100_000, newSynth(1))
		fill(b, db, 100_000, newSynth(1))
		live, slots, due, err := db.vectorsDue(ctx)
		if err != nil || !due {
			b.Fatalf("vectorsDue = %d of %d slots, %v, %v", live, slots, due, err)
		}
		b.StartTimer()
		if err := db.compactVectors(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
	}
}
