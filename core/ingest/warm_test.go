package ingest

import (
	"reflect"
	"sort"
	"testing"
	"time"

	"coderag/core"
)

// TestWarmer checks which languages an update compiles during the walk:
// those of files that changed by size or modification time, once each,
// and none before the stored list is known.
func TestWarmer(t *testing.T) {
	stored := map[string]StoredFile{
		"a.go": {Size: 10, ModTime: 100},
		"b.ts": {Size: 10, ModTime: 100},
		"c.py": {Size: 10}, // mtime not trusted: read, so compiled
	}
	compiled := make(chan string, 10)
	w := newWarmer(true)
	w.prepare = func(l string) { compiled <- l }
	w.found(core.File{Path: "a.go", Language: "go", Size: 10, ModTime: 100})
	w.found(core.File{Path: "b.ts", Language: "typescript", Size: 11, ModTime: 100})
	select {
	case l := <-compiled:
		t.Fatalf("compiled %s before the stored files were known", l)
	case <-time.After(20 * time.Millisecond):
	}
	w.setStored(stored)
	w.found(core.File{Path: "d.ts", Language: "typescript", Size: 1, ModTime: 1})
	w.found(core.File{Path: "c.py", Language: "python", Size: 10})
	w.found(core.File{Path: "README.md", Language: ""})
	var got []string
	for range 2 {
		select {
		case l := <-compiled:
			got = append(got, l)
		case <-time.After(5 * time.Second):
			t.Fatalf("compiled only %v", got)
		}
	}
	sort.Strings(got)
	if want := []string{"python", "typescript"}; !reflect.DeepEqual(got, want) {
		t.Errorf("compiled %v, want %v", got, want)
	}
	select {
	case l := <-compiled:
		t.Errorf("also compiled %s", l)
	case <-time.After(20 * time.Millisecond):
	}
	// A full crawl compiles each language at its first file.
	full := newWarmer(false)
	full.prepare = func(l string) { compiled <- l }
	full.found(core.File{Path: "a.go", Language: "go"})
	if l := <-compiled; l != "go" {
		t.Errorf("full crawl compiled %s, want go", l)
	}
}
