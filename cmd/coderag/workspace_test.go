package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWorkspaceFile crawls the sources a coderag.yaml lists (found in the
// current directory, paths relative to it, its db and embedder used), then
// prunes a source the file no longer lists; bad files are usage errors
// that name the line.
func TestWorkspaceFile(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join(sampleDir, "storefront"), filepath.Join(dir, "web"))
	slack, err := filepath.Abs(filepath.Join(sampleDir, "slack"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("coderag.yaml", `# the shop's sources
db: out/ws.db
embedder: none
exclude: ["src/session.ts"]
sources:
  - repo: web
    name: shop
  - slack: `+slack+`
    name: acme-slack
`)
	t.Chdir(dir)
	type summary struct {
		Sources []struct{ Name string }
		Pruned  []string `json:"pruned_sources"`
	}
	crawl := func(args ...string) summary {
		t.Helper()
		code, out, errs := coderag(t, append([]string{"crawl", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("crawl %v: exit %d: %s", args, code, errs)
		}
		var s summary
		if err := json.Unmarshal([]byte(lastLine(out)), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := crawl()
	var names []string
	for _, src := range s.Sources {
		names = append(names, src.Name)
	}
	if !slices.Equal(names, []string{"shop", "acme-slack"}) {
		t.Errorf("crawled %v, want the file's shop and acme-slack", names)
	}
	db := filepath.Join(dir, "out", "ws.db")
	ids := chunkIDs(t, db) // the file's db was used
	if len(ids["shop/src/clients/cart.ts"]) == 0 || len(ids["shop/src/session.ts"]) != 0 {
		t.Errorf("want shop's cart.ts indexed and the excluded session.ts not")
	}
	_, out, _ := coderag(t, "stats", "--db", db, "--json")
	if !strings.Contains(out, `"embedder_id": ""`) {
		t.Errorf("embedder: none not applied: %s", out)
	}

	// The file drops the Slack export: --prune-sources removes it.
	other := write("other.yaml", "db: out/ws.db\nembedder: none\nsources:\n  - repo: web\n    name: shop\n")
	if s := crawl("--config", other, "--incremental"); len(s.Pruned) != 0 {
		t.Errorf("pruned %v without --prune-sources", s.Pruned)
	}
	if s := crawl("--config", other, "--incremental", "--prune-sources"); !slices.Equal(s.Pruned, []string{"acme-slack"}) {
		t.Errorf("pruned %v, want [acme-slack]", s.Pruned)
	}
	for f := range chunkIDs(t, db) {
		if strings.HasPrefix(f, "acme-slack/") {
			t.Fatalf("pruned source still has chunks: %s", f)
		}
	}

	for _, tc := range []struct {
		name, body string
		args       []string
		want       string
	}{
		{"unknown key", "sources:\n  - repo: web\n    nmae: x\n", nil, "line 3"},
		{"two kinds", "sources:\n  - repo: web\n    slack: web\n", nil, "line 2: a source needs exactly one of"},
		{"missing path", "sources:\n  - runbooks: nowhere\n", nil, "line 2 (runbooks: nowhere)"},
		{"prune without sources", "db: out/ws.db\n", []string{"--prune-sources"}, "--prune-sources needs the sources to keep"},
	} {
		p := write("bad.yaml", tc.body)
		code, _, errs := coderag(t, append([]string{"crawl", "--config", p}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error with %q", tc.name, code, errs, tc.want)
		}
	}
	if code, _, errs := coderag(t, "crawl", "--config", "missing.yaml"); code == 0 || !strings.Contains(errs, "missing.yaml") {
		t.Errorf("missing --config file: exit %d %s", code, errs)
	}
}
