package chunk_test

import (
	"os"
	"testing"

	"coderag/sqlite"
)

// TestMain sets up the C libraries as the crawler does (sqlite.Open),
// so that benchmarks measure tree-sitter with the C library's allocator.
func TestMain(m *testing.M) {
	if os.Getenv("CODERAG_TS_GO_ALLOCATOR") == "" {
		if err := sqlite.SetupC(); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
