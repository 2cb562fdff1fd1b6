package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// linkState dumps what the link phase derives from the chunks — the
// service graph, the services of routes, and every chunk's owning and
// mentioned services — as sorted lines.
func linkState(t *testing.T, db string) []string {
	t.Helper()
	h := openRO(t, db)
	var out []string
	for _, q := range []string{
		`SELECT 'service', name, kind, repo_name, directory, language, namespace, ports FROM services`,
		`SELECT 'alias', s.name, a.alias, a.kind FROM service_aliases a JOIN services s ON s.id = a.service_id`,
		`SELECT 'declared', s.name, d.chunk_id, d.file_path, d.line FROM service_declarations d JOIN services s ON s.id = d.service_id`,
		`SELECT 'edge', s.name, d.name, e.type, e.method, e.path, e.url, e.confidence, e.handler, e.via,
			(SELECT group_concat(file_path || ':' || line || ':' || chunk_id, ' ') FROM
				(SELECT * FROM edge_evidence v WHERE v.edge_id = e.id ORDER BY file_path, line, chunk_id))
			FROM edges e JOIN services s ON s.id = e.source_id JOIN services d ON d.id = e.target_id`,
		`SELECT 'route', r.repo_name, r.file_path, r.line, r.method, r.path, coalesce(s.name, '') FROM routes r LEFT JOIN services s ON s.id = r.service_id`,
		`SELECT 'chunk', id, service_name, meta FROM chunks`,
	} {
		rows, err := h.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = fmt.Sprint(v)
				if b, ok := v.([]byte); ok {
					parts[i] = string(b)
				}
			}
			out = append(out, strings.Join(parts, " | "))
		}
		rows.Close()
	}
	slices.Sort(out)
	return out
}

// diffLines describes how two sorted line lists differ (at most a few
// lines each way).
func diffLines(got, want []string) string {
	in := func(list []string, s string) bool { _, ok := slices.BinarySearch(list, s); return ok }
	var b strings.Builder
	n := 0
	for _, s := range got {
		if !in(want, s) && n < 8 {
			fmt.Fprintf(&b, "+ %s\n", s)
			n++
		}
	}
	n = 0
	for _, s := range want {
		if !in(got, s) && n < 8 {
			fmt.Fprintf(&b, "- %s\n", s)
			n++
		}
	}
	return b.String()
}

// ageTree sets every file's modification time an hour back, as files
// that were not just written.
func ageTree(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return err
	})
}

// TestIncrementalLinkState checks that an incremental crawl leaves the
// service graph, the owners and the mentions exactly as a full crawl of
// the same files does, whether it keeps the graph (nothing the graph is
// built from changed) or rebuilds it; and that unchanged files are
// recognised by size and modification time without being read.
func TestIncrementalLinkState(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "src")
	for _, r := range []string{"platform", "storefront"} {
		copyTree(t, filepath.Join(sampleDir, r), filepath.Join(tree, r))
	}
	ageTree(t, tree)
	platform, storefront := filepath.Join(tree, "platform"), filepath.Join(tree, "storefront")
	slack := "acme-slack=" + filepath.Join(sampleDir, "slack")
	db := filepath.Join(dir, "inc.db")
	crawl := func(db string, extra ...string) (kept bool) {
		t.Helper()
		args := append([]string{"crawl", "--db", db, "--embedder", "none", "--json", "--repo-path", platform,
			"--repo-path", storefront, "--slack-export", slack}, extra...)
		code, out, errs := coderag(t, args...)
		if code != 0 {
			t.Fatalf("crawl %v: %s", extra, errs)
		}
		var sum struct {
			Graph struct{ Kept bool }
		}
		if err := json.Unmarshal([]byte(lastLine(out)), &sum); err != nil {
			t.Fatal(err)
		}
		return sum.Graph.Kept
	}
	crawl(db)
	cart := filepath.Join(storefront, "src", "clients", "cart.ts")
	steps := []struct {
		name     string
		change   func()
		wantKept bool
	}{
		{"nothing changed", func() {}, true},
		{"comment appended to a client", func() { appendFile(t, cart, "\n// retries are the caller's job\n") }, true},
		{"same-size edit of an address", func() { replaceInFile(t, cart, "http://cart:8080", "http://cart:8081") }, false},
		// Linked by a coderag whose graph builder was older: the graph
		// is made again though no file changed.
		{"graph made by an older builder", func() {
			h, err := sql.Open("sqlite3", "file:"+db)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if r, err := h.Exec(`UPDATE meta SET value = substr(value, instr(value, '/') + 1) WHERE key = 'link_key' AND value LIKE 'graph-%'`); err != nil {
				t.Fatal(err)
			} else if n, _ := r.RowsAffected(); n != 1 {
				t.Fatalf("link_key without a builder version: %d rows", n)
			}
			if _, out, _ := coderag(t, "stats", "--db", db, "--json"); !strings.Contains(out, `"graph_outdated": true`) {
				t.Errorf("stats --json of a graph an older builder made: %s", out)
			}
		}, false},
		{"stats after that crawl", func() {
			if _, out, _ := coderag(t, "stats", "--db", db); strings.Contains(out, "older coderag") {
				t.Errorf("stats after the rebuild still says the graph is outdated:\n%s", out)
			}
		}, true},
		{"nothing changed since", func() {}, true},
		{"runbook added", func() {
			os.WriteFile(filepath.Join(platform, "docs", "runbooks", "cart-latency.md"),
				[]byte("# Cart latency\n\nWhen cart answers slowly, check the checkout dashboards and the cart Redis.\n"), 0o644)
		}, true},
		{"code file removed", func() { os.Remove(filepath.Join(storefront, "src", "clients", "catalog.ts")) }, false},
		// Positions move, nothing else: the graph is kept and its
		// evidence moves with the facts.
		{"line inserted at the top of a client", func() {
			b, _ := os.ReadFile(cart)
			os.WriteFile(cart, append([]byte("// cart client\n"), b...), 0o644)
		}, true},
		{"lines inserted above a service's routes", func() {
			for _, p := range []string{filepath.Join(platform, "services", "checkout", "main.go"),
				filepath.Join(platform, "services", "cart", "Controllers", "CartController.cs")} {
				b, _ := os.ReadFile(p)
				os.WriteFile(p, append([]byte("// routes below\n\n"), b...), 0o644)
			}
		}, true},
		{"line inserted in the middle of a Go client", func() {
			p := filepath.Join(platform, "services", "checkout", "clients.go")
			replaceInFile(t, p, "\nfunc ", "\n// moved down a line\nfunc ")
		}, true},
		// A runbook names a service before it exists; when it is
		// deployed, every chunk's mentions are computed again.
		{"runbook naming a service not deployed yet", func() {
			os.WriteFile(filepath.Join(platform, "docs", "runbooks", "audit-export.md"),
				[]byte("# Audit export\n\nThe audit service writes the nightly export; restart audit when it stalls.\n"), 0o644)
		}, true},
		{"that service deployed", func() {
			os.WriteFile(filepath.Join(platform, "deploy", "k8s", "audit.yaml"), []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: audit
  namespace: shop
spec:
  selector:
    matchLabels:
      app: audit
  template:
    metadata:
      labels:
        app: audit
    spec:
      containers:
        - name: audit
          image: ghcr.io/acme-outfitters/audit:1.0.0
          ports:
            - containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: audit
  namespace: shop
spec:
  selector:
    app: audit
  ports:
    - port: 8080
`), 0o644)
		}, false},
	}
	for i, st := range steps {
		st.change()
		if kept := crawl(db, "--incremental"); kept != st.wantKept {
			t.Errorf("%s: graph kept = %v, want %v", st.name, kept, st.wantKept)
		}
		fresh := filepath.Join(dir, fmt.Sprintf("fresh%d.db", i))
		crawl(fresh)
		got, want := linkState(t, db), linkState(t, fresh)
		if !slices.Equal(got, want) {
			t.Errorf("%s: incremental state differs from a full crawl's:\n%s", st.name, diffLines(got, want))
		}
	}

	// A file whose size and modification time are the stored ones is not
	// read (like git's index): an edit that keeps both goes unseen, one
	// that changes the time is found.
	readme := filepath.Join(storefront, "README.md")
	ageTree(t, tree)
	crawl(db, "--incremental") // records the new times
	before := chunkIDs(t, db)["storefront/README.md"]
	fi, _ := os.Stat(readme)
	replaceInFile(t, readme, "Outfitters", "Outfittery")
	os.Chtimes(readme, fi.ModTime(), fi.ModTime())
	crawl(db, "--incremental")
	if after := chunkIDs(t, db)["storefront/README.md"]; !slices.Equal(before, after) {
		t.Errorf("a file with its stored size and time was read again")
	}
	os.Chtimes(readme, time.Now(), time.Now())
	crawl(db, "--incremental")
	_, out, _ := coderag(t, "query", "--db", db, "--json", "-k", "3", "Outfittery")
	if !strings.Contains(out, "README.md") {
		t.Errorf("the same-size edit with a new time was not indexed: %s", out)
	}
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(b, s...), 0o644); err != nil {
		t.Fatal(err)
	}
}

func replaceInFile(t *testing.T, p, old, new string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", p, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
