package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockFileError: an index that cannot be created says which file and
// why, without the path twice.
func TestLockFileError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notadir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "x.db")
	_, _, err := lockFile(path)
	want := "open the index " + path + " for writing: not a directory"
	if err == nil || err.Error() != want {
		t.Fatalf("lockFile(%s) = %v, want %q", path, err, want)
	}
	if strings.Count(err.Error(), path) != 1 {
		t.Errorf("the path is named more than once: %v", err)
	}
}
