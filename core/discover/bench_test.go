package discover

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkWalk walks the sample's two repositories copied 100 times
// (about 7,600 files in 6,000 directories).
func BenchmarkWalk(b *testing.B) {
	root := b.TempDir()
	for i := range 100 {
		for _, r := range []string{"platform", "storefront"} {
			copyDir(b, filepath.Join("..", "..", "testdata", "sample", r), filepath.Join(root, fmt.Sprintf("team%03d", i), r))
		}
	}
	fsys := os.DirFS(root)
	b.ResetTimer()
	var files int
	for range b.N {
		res, err := Walk(context.Background(), fsys, Options{Workers: benchWorkers()})
		if err != nil {
			b.Fatal(err)
		}
		files = len(res.Files)
	}
	b.ReportMetric(float64(files), "files")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(files), "µs/file")
}

func copyDir(b *testing.B, from, to string) {
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(dst)
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

func benchWorkers() int {
	n, _ := strconv.Atoi(os.Getenv("W"))
	return n
}
