package chunk

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"coderag/core"
	"coderag/core/discover"
)

var realCode = flag.String("realcode", "", "directory of real source code to chunk (TestRealCode)")

// TestRealCode chunks every supported source file under -realcode, checks
// the invariants on each and reports throughput, chunks per file and the
// share of files with syntax errors per language. It is skipped without
// the flag:
//
//	go test ./core/chunk -run TestRealCode -realcode=/usr/local/go/src -v
func TestRealCode(t *testing.T) {
	if *realCode == "" {
		t.Skip("pass -realcode=DIR to chunk real code")
	}
	c := newChunker(t)
	type stat struct {
		files, chunks, errFiles, fallbacks int
		bytes                              int64
		took                               time.Duration
	}
	stats := map[string]*stat{}
	filepath.WalkDir(*realCode, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		lang, _ := discover.Classify(p)
		if !c.Supports(lang) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > discover.DefaultMaxFileSize {
			return nil
		}
		if _, why := discover.Inspect(core.File{Path: p, Language: lang, Corpus: core.CodeLogic}, src); why != "" && !strings.HasPrefix(why, "generated") {
			return nil // binary, not UTF-8, minified: discovery would skip it
		}
		st := stats[lang]
		if st == nil {
			st = &stat{}
			stats[lang] = st
		}
		start := time.Now()
		res, err := c.Code(src, core.Chunk{SourceURI: p, FilePath: p, Language: lang, Corpus: core.CodeLogic})
		st.took += time.Since(start)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		t.Run(p, func(t *testing.T) { checkInvariants(t, string(src), res.Chunks) })
		st.files++
		st.bytes += int64(len(src))
		st.chunks += len(res.Chunks)
		if res.ErrorBytes > 0 {
			st.errFiles++
		}
		if res.Fallback != "" {
			st.fallbacks++
		}
		return nil
	})
	var langs []string
	for l := range stats {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("%-11s %7s %8s %9s %8s %11s %10s %9s\n", "language", "files", "MB", "files/s", "MB/s", "chunks/file", "err files", "fallback")
	for _, l := range langs {
		s := stats[l]
		fmt.Printf("%-11s %7d %8.1f %9.0f %8.2f %11.1f %9.1f%% %8.1f%%\n", l, s.files, float64(s.bytes)/1e6,
			float64(s.files)/s.took.Seconds(), float64(s.bytes)/1e6/s.took.Seconds(), float64(s.chunks)/float64(s.files),
			100*float64(s.errFiles)/float64(s.files), 100*float64(s.fallbacks)/float64(s.files))
	}
}
