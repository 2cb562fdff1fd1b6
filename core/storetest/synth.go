package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/scrub"
	"coderag/core/search"
)

// Synth makes code-like chunks over a large vocabulary, for the stores'
// benchmarks: 30,000 word parts (as many distinct subwords as a big
// company's code has), Zipf distributed, joined into camelCase
// identifiers, with topical locality (each file draws most words from its
// own slice of the vocabulary) so that co-occurrence has structure to
// learn.
type Synth struct {
	R     *rand.Rand
	Parts []string
	zipf  *rand.Zipf
}

// NewSynth returns a generator; the vocabulary is the same for every
// seed, the draws differ.
func NewSynth(seed uint64) *Synth {
	r := rand.New(rand.NewPCG(3, 3))
	const letters = "abcdefghiklmnoprstuvwy"
	seen := map[string]bool{}
	var parts []string
	for len(parts) < 30000 {
		n := 3 + r.IntN(7)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			parts = append(parts, string(b))
		}
	}
	r = rand.New(rand.NewPCG(seed, seed^0x51))
	return &Synth{R: r, Parts: parts, zipf: rand.NewZipf(r, 1.05, 2, uint64(len(parts)-1))}
}

// Ident draws an identifier near topic (an offset into the vocabulary).
func (s *Synth) Ident(topic int) string {
	n := 1 + s.R.IntN(3)
	var b strings.Builder
	for i := range n {
		k := int(s.zipf.Uint64())
		if s.R.IntN(3) > 0 { // two thirds of the words come from the topic
			k = (topic + k%500) % len(s.Parts)
		}
		p := s.Parts[k]
		if i > 0 {
			p = strings.ToUpper(p[:1]) + p[1:]
		}
		b.WriteString(p)
	}
	return b.String()
}

// Text is about n bytes of Go-like code on topic.
func (s *Synth) Text(topic, n int) string {
	var b strings.Builder
	for b.Len() < n {
		switch s.R.IntN(3) {
		case 0:
			fmt.Fprintf(&b, "func (s *%s) %s(ctx context.Context, %s string) error {\n", s.Ident(topic), s.Ident(topic), s.Ident(topic))
		case 1:
			fmt.Fprintf(&b, "\t%s, err := s.%s.%s(ctx, %s)\n", s.Ident(topic), s.Ident(topic), s.Ident(topic), s.Ident(topic))
		default:
			fmt.Fprintf(&b, "// %s calls %s when %s is %s.\n", s.Ident(topic), s.Ident(topic), s.Ident(topic), s.Ident(topic))
		}
	}
	return b.String()
}

// Queries draws n queries like users type them: an identifier, two
// identifiers, three words.
func (s *Synth) Queries(n int) []string {
	out := make([]string, n)
	for i := range out {
		topic := s.R.IntN(len(s.Parts))
		switch i % 3 {
		case 0:
			out[i] = s.Ident(topic)
		case 1:
			out[i] = s.Ident(topic) + " " + s.Ident(topic)
		default:
			w := func() string { return s.Parts[(topic+s.R.IntN(500))%len(s.Parts)] }
			out[i] = w() + " " + w() + " " + w()
		}
	}
	return out
}

// Writer is what WriteSynth writes through.
type Writer interface {
	StartRun(ctx context.Context, args string) (int64, error)
	BeginSource(ctx context.Context, runID int64, src core.Source) (ingest.SourceWriter, error)
}

// WriteSynth writes n synthetic chunks (ten a file, 100 files a
// directory) as the source name, in one transaction, with seed's draws.
func WriteSynth(tb testing.TB, w Writer, name string, n int, seed uint64) {
	tb.Helper()
	ctx := context.Background()
	s := NewSynth(seed)
	gate := scrub.New(scrub.Options{})
	run, err := w.StartRun(ctx, "bench")
	if err != nil {
		tb.Fatal(err)
	}
	tx, err := w.BeginSource(ctx, run, core.Source{Kind: core.SourceRepo, Path: "/bench/" + name, Name: name})
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	for i := 0; i < n; i += 10 {
		path := fmt.Sprintf("svc%03d/pkg%02d/file%05d.go", i/1000, (i/100)%10, i/10)
		topic := (i / 10) * 37 % len(s.Parts)
		var chunks []embed.Chunk
		off := 0
		for j := 0; j < 10 && i+j < n; j++ {
			text := s.Text(topic, 900)
			uri := name + "/" + path
			c := core.Chunk{ID: core.ChunkID(uri, off, off+len(text)), SourceURI: uri, ByteStart: off, ByteEnd: off + len(text),
				LineStart: j*30 + 1, LineEnd: j*30 + 30, Corpus: core.CodeLogic, Text: text, FilePath: path,
				RepoName: name, Language: "go", SymbolName: s.Ident(topic), ContextPrefix: path}
			for k := 0; k < 8; k++ { // what it calls: names of its topic
				c.Refs = append(c.Refs, core.Ref{Name: s.Ident(topic), Kind: "call"})
			}
			off += len(text)
			cc, err := gate.Clean(c)
			if err != nil {
				tb.Fatal(err)
			}
			chunks = append(chunks, embed.Chunk{Clean: cc})
		}
		if err := tx.WriteFile(ctx, core.File{Path: path, Language: "go", Corpus: core.CodeLogic}, "h", chunks); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		tb.Fatal(err)
	}
}

// Latencies runs every query b.N times through eng and returns each
// search's time.
func Latencies(b *testing.B, eng *search.Engine, queries []string) []time.Duration {
	ctx := context.Background()
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		for _, q := range queries {
			start := time.Now()
			if _, err := eng.Search(ctx, search.Query{Text: q, K: 10}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
	}
	return lat
}

// ReportLatencies reports the 50th, 95th and 99th percentiles of lat.
func ReportLatencies(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}
