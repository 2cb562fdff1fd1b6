package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildLean builds coderag as make build builds bin/coderag: without the
// terminal UI (-tags notui).
func buildLean(t *testing.T, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds coderag (a cgo link)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	bin := filepath.Join(dir, "coderag")
	cmd := exec.Command(goBin, "build", "-tags", "sqlite_fts5,notui", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags sqlite_fts5,notui: %v\n%s", err, out)
	}
	return bin
}

// TestTUIHandOff: a coderag built without the terminal UI works as
// coderag, and hands `tui` (its --help included) to coderag-tui beside it;
// without one it says where it looked and how to get it.
func TestTUIHandOff(t *testing.T) {
	dir := t.TempDir()
	lean := buildLean(t, dir)
	empty := t.TempDir()
	runLean := func(env []string, args ...string) (int, string, string) {
		cmd := exec.Command(lean, args...)
		cmd.Env = append(append(os.Environ(), "PATH="+empty), env...)
		return runCommand(t, cmd)
	}

	// The lean program is coderag: it crawls and searches.
	repo := filepath.Join(dir, "cart")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package main\n\n// ReserveStock holds items for a cart until checkout.\nfunc ReserveStock(cartID string) error { return nil }\n"
	if err := os.WriteFile(filepath.Join(repo, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "x.db")
	if code, _, errs := runLean(nil, "crawl", "--db", db, "--repo-path", repo, "--progress", "none"); code != 0 {
		t.Fatalf("crawl: exit %d: %s", code, errs)
	}
	if code, out, errs := runLean(nil, "query", "--db", db, "-k", "1", "ReserveStock"); code != 0 || !strings.Contains(out, "main.go") {
		t.Fatalf("query: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// No coderag-tui: the error names it, where it looked, and make build.
	code, _, errs := runLean(nil, "tui", "--db", db)
	if code != 1 || !strings.Contains(errs, "coderag-tui") || !strings.Contains(errs, "beside "+lean) || !strings.Contains(errs, "make build") {
		t.Errorf("tui without coderag-tui: exit %d, stderr %q", code, errs)
	}
	// crawl --tui checks its flags itself, then hands off.
	code, _, errs = runLean(nil, "crawl", "--tui", "--db", db)
	if code != 2 || !strings.Contains(errs, "--tui needs a terminal") {
		t.Errorf("crawl --tui without a terminal: exit %d, stderr %q", code, errs)
	}

	// coderag-tui beside it (this test binary, run as coderag): tui --help
	// is the full program's, key reference included.
	if err := os.Symlink(os.Args[0], filepath.Join(dir, "coderag-tui")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runLean([]string{"CODERAG_AS_BINARY=1"}, "tui", "--help")
	if code != 0 || !strings.Contains(out, "Tui opens the terminal UI") || !strings.Contains(out, "Keys:") || !strings.Contains(out, "--llm-url") {
		t.Errorf("tui --help through coderag-tui: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Shell completion of its flags comes from coderag-tui too.
	code, out, errs = runLean([]string{"CODERAG_AS_BINARY=1"}, "__complete", "tui", "--llm")
	if code != 0 || !strings.Contains(out, "--llm-url") || !strings.Contains(out, "\n:4\n") {
		t.Errorf("completing tui --llm through coderag-tui: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Its exit status is the helper's.
	code, _, errs = runLean([]string{"CODERAG_AS_BINARY=1"}, "tui", "--db", filepath.Join(dir, "missing.db"))
	if code != 1 || !strings.Contains(errs, "missing.db") {
		t.Errorf("tui on a missing index through coderag-tui: exit %d, stderr %q", code, errs)
	}
}
