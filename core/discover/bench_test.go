package discover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWalk walks the sample's two repositories copied 100 times
// (about 7,600 files in 6,000 directories).
func BenchmarkWalk(b *testing.B) {
	root := b.TempDir()
	for i := range 100 {
		for _, r := range []string{"platform", "storefront"} {
			if err := os.CopyFS(filepath.Join(root, fmt.Sprintf("team%03d", i), r), os.DirFS(filepath.Join("..", "..", "testdata", "sample", r))); err != nil {
				b.Fatal(err)
			}
		}
	}
	fsys := os.DirFS(root)
	b.ResetTimer()
	var files int
	for range b.N {
		res, err := Walk(context.Background(), fsys, Options{})
		if err != nil {
			b.Fatal(err)
		}
		files = len(res.Files)
	}
	b.ReportMetric(float64(files), "files")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(files), "µs/file")
}
