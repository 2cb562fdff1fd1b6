package tui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/scrub"
	"coderag/core/search"
	"coderag/sqlite"
)

// The TUI benchmarks run the app on a real 100k-chunk database with
// built-in vectors (built once per run, ~1 min): start to first frame,
// and keystroke to results on screen.

var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
	benchDir  string
)

var benchWords = strings.Fields(`cart checkout order payment invoice user profile account session token
	redis kafka postgres queue topic consumer producer retry timeout backoff circuit breaker cache
	stock inventory catalog product price discount coupon shipping rate warehouse refund ledger
	notify email webhook signature config deploy rollout replica health probe metric alert latency`)

func benchIdent(r *rand.Rand) string {
	a, b := benchWords[r.IntN(len(benchWords))], benchWords[r.IntN(len(benchWords))]
	return a + strings.ToUpper(b[:1]) + b[1:]
}

func benchText(r *rand.Rand, n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		if r.IntN(3) == 0 {
			sb.WriteString(benchIdent(r))
		} else {
			sb.WriteString(benchWords[r.IntN(len(benchWords))])
		}
		sb.WriteByte(' ')
		if r.IntN(12) == 0 {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// benchDB writes 100k code chunks in 10k files and embeds them with the
// built-in embedder, as a crawl would.
func benchDB(b *testing.B) string {
	benchOnce.Do(func() {
		ctx := context.Background()
		benchDir, benchErr = os.MkdirTemp("", "coderag-tui-bench")
		if benchErr != nil {
			return
		}
		benchPath = filepath.Join(benchDir, "bench.db")
		db, err := sqlite.Open(ctx, benchPath, sqlite.Options{Create: true})
		if err != nil {
			benchErr = err
			return
		}
		defer db.Close()
		r := rand.New(rand.NewPCG(1, 2))
		gate := scrub.New(scrub.Options{})
		run, _ := db.StartRun(ctx, "bench")
		tx, err := db.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/bench", Name: "bench"})
		if err != nil {
			benchErr = err
			return
		}
		for f := 0; f < 10_000; f++ {
			path := fmt.Sprintf("svc%02d/pkg%02d/file%05d.go", f/500, (f/50)%10, f)
			var chunks []embed.Chunk
			off := 0
			for j := 0; j < 10; j++ {
				text := benchText(r, 800)
				uri := "bench/" + path
				c := core.Chunk{ID: core.ChunkID(uri, off, off+len(text)), SourceURI: uri, ByteStart: off, ByteEnd: off + len(text),
					LineStart: j*30 + 1, LineEnd: j*30 + 30, Corpus: core.CodeLogic, Text: text, FilePath: path,
					RepoName: "bench", Language: "go", SymbolName: benchIdent(r), ContextPrefix: path}
				off += len(text)
				cc, err := gate.Clean(c)
				if err != nil {
					benchErr = err
					return
				}
				chunks = append(chunks, embed.Chunk{Clean: cc})
			}
			if err := tx.WriteFile(ctx, core.File{Path: path, Language: "go", Corpus: core.CodeLogic}, "h", chunks); err != nil {
				benchErr = err
				return
			}
		}
		if err := tx.Commit(ctx); err != nil {
			benchErr = err
			return
		}
		if _, err := ingest.New(db, ingest.Options{Embed: ingest.EmbedOptions{Builtin: true}}).Run(ctx, nil); err != nil {
			benchErr = err
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func reportPercentiles(b *testing.B, name string, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), name+"-p50-ms")
	b.ReportMetric(pct(0.95), name+"-p95-ms")
}

// loop is a minimal Bubble Tea loop: Cmds run on goroutines, messages are
// applied in order on the caller's goroutine until done says stop.
type loop struct {
	m   *Model
	msg chan tea.Msg
}

func (l *loop) spawn(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { l.msg <- cmd() }()
}

func (l *loop) until(deadline time.Duration, done func() bool) bool {
	timeout := time.After(deadline)
	for !done() {
		select {
		case msg := <-l.msg:
			switch msg := msg.(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					l.spawn(c)
				}
			case nil:
			default:
				_, cmd := l.m.Update(msg)
				l.spawn(cmd)
			}
		case <-timeout:
			return false
		}
	}
	return true
}

// BenchmarkStartup: opening the 100k-chunk database and drawing the first
// frame (first-frame), and until the status bar shows its counts (stats).
func BenchmarkStartup(b *testing.B) {
	path := benchDB(b)
	ctx := context.Background()
	var first, stats []time.Duration
	for i := 0; i < 20; i++ {
		t0 := time.Now()
		db, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		m := New(Options{Backend: db, Fast: search.New(db, search.Options{}), DB: path, Styles: DefaultStyles(true, false)})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		init := m.Init()
		if frame := m.Render(); !strings.Contains(frame, "Type to search") {
			b.Fatalf("first frame:\n%s", frame)
		}
		first = append(first, time.Since(t0))
		l := &loop{m: m, msg: make(chan tea.Msg, 16)}
		l.spawn(init)
		if !l.until(30*time.Second, func() bool { return m.stats != nil && m.graph.g != nil }) {
			b.Fatal("stats and graph never arrived")
		}
		m.Render()
		stats = append(stats, time.Since(t0))
		db.Close()
	}
	reportPercentiles(b, "first-frame", first)
	reportPercentiles(b, "stats", stats)
	b.ReportMetric(0, "ns/op")
}

// BenchmarkKeystroke: from the last keystroke of a query to its results
// drawn, through the default 30 ms debounce: the BM25 answer (bm25) and
// the hybrid one with built-in vectors and reranking (hybrid).
func BenchmarkKeystroke(b *testing.B) {
	path := benchDB(b)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	info := db.Embedder()
	emb := embed.Stored{Dim: info.Dim, Load: db.LoadModel}
	fast := search.New(db, search.Options{Reranker: search.BuiltinReranker{}})
	full := search.New(db, search.Options{Embedder: emb, Reranker: search.BuiltinReranker{}})
	m := New(Options{Backend: db, Fast: fast, Full: full, DB: path, Styles: DefaultStyles(true, false)})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	l := &loop{m: m, msg: make(chan tea.Msg, 16)}
	l.spawn(m.Init())
	l.until(30*time.Second, func() bool { return m.stats != nil })
	r := rand.New(rand.NewPCG(3, 4))
	var bm25, hybrid []time.Duration
	for i := 0; i < 60; i++ {
		q := benchIdent(r)
		if i%2 == 1 {
			q = benchWords[r.IntN(len(benchWords))] + " " + benchWords[r.IntN(len(benchWords))] + " timeout"
		}
		m.input.SetValue(q[:len(q)-1])
		last := rune(q[len(q)-1])
		t0 := time.Now()
		_, cmd := m.Update(tea.KeyPressMsg{Code: last, Text: string(last)})
		seq := m.seq
		l.spawn(cmd)
		if !l.until(10*time.Second, func() bool { return m.resSeq == seq }) {
			b.Fatalf("query %q: no result", q)
		}
		m.Render()
		bm25 = append(bm25, time.Since(t0))
		if !l.until(10*time.Second, func() bool { return m.resSeq == seq && m.resStage == "hybrid" || m.pending == 0 }) {
			b.Fatalf("query %q: no hybrid result", q)
		}
		m.Render()
		hybrid = append(hybrid, time.Since(t0))
		if len(m.res.Hits) == 0 {
			b.Fatalf("query %q found nothing", q)
		}
	}
	reportPercentiles(b, "bm25", bm25)
	reportPercentiles(b, "hybrid", hybrid)
	b.ReportMetric(0, "ns/op")
}
