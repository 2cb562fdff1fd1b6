package chunk

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/discover"
)

// megabyteOf builds a ~1 MB file of the language from its fixture: the
// header once, then the rest repeated.
func megabyteOf(t testing.TB, c *Chunker, fixture string) ([]byte, core.Chunk) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "code", fixture))
	if err != nil {
		t.Fatal(err)
	}
	lang, _ := discover.Classify(fixture)
	base := core.Chunk{SourceURI: "r/" + fixture, FilePath: fixture, Language: lang, Corpus: core.CodeLogic}
	res, err := c.Code(src, base)
	if err != nil {
		t.Fatal(err)
	}
	cut := 0
	if res.Chunks[0].SymbolKind == "header" {
		cut = res.Chunks[0].ByteEnd
	}
	var b bytes.Buffer
	b.Write(src[:cut])
	for b.Len() < 1<<20 {
		b.WriteString("\n")
		b.Write(src[cut:])
	}
	return b.Bytes(), base
}

var benchFixtures = map[string]string{
	"go": "inventory.go", "python": "pricing.py", "typescript": "orders.ts", "tsx": "ProfileCard.tsx",
	"javascript": "stock.js", "csharp": "RateShopper.cs", "java": "InvoiceController.java",
	"kotlin": "TariffService.kt", "ruby": "shipments_controller.rb",
}

// BenchmarkChunk measures chunking throughput per language on a 1 MB file.
func BenchmarkChunk(b *testing.B) {
	c := newChunker(b)
	langs := make([]string, 0, len(benchFixtures))
	for l := range benchFixtures {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			src, base := megabyteOf(b, c, benchFixtures[lang])
			b.SetBytes(int64(len(src)))
			var n int
			for b.Loop() {
				res, err := c.Code(src, base)
				if err != nil || res.Fallback != "" {
					b.Fatalf("chunk: %v %s", err, res.Fallback)
				}
				n = len(res.Chunks)
			}
			b.ReportMetric(float64(n), "chunks/MB")
		})
	}
}

// BenchmarkChunkPeakMemory reports the process's peak resident memory
// while chunking one 1 MB Go file, measured by the kernel (tree-sitter
// allocates outside the Go heap).
func BenchmarkChunkPeakMemory(b *testing.B) {
	c := newChunker(b)
	src, base := megabyteOf(b, c, "inventory.go")
	runtime.GC()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skip("cannot reset the peak RSS:", err)
	}
	before := peakRSS(b)
	for b.Loop() {
		if _, err := c.Code(src, base); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peakRSS(b)-before)/(1<<20), "peak-MB-above-baseline")
	b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MB")
}

func peakRSS(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb << 10
		}
	}
	b.Skip("no VmHWM")
	return 0
}
