package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBrokerBlastRadiusHoldsItsConsumers: when the broker is down, its
// consumers break as well as its publishers (a consumer's edge to the
// broker is a dependency of the consumer, not of the broker).
func TestBrokerBlastRadiusHoldsItsConsumers(t *testing.T) {
	db := crawlSample(t)
	code, out, stderr := coderag(t, "graph", "--db", db, "--service", "kafka", "--blast-radius", "--depth", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"checkout", "catalog", "notifications"} {
		if !strings.Contains(out, "  "+s+" ") {
			t.Errorf("blast radius of kafka misses %s:\n%s", s, out)
		}
	}
	code, out, _ = coderag(t, "graph", "--db", db, "--service", "kafka", "--downstream")
	if code != 0 || strings.Contains(out, "catalog") || strings.Contains(out, "notifications") {
		t.Errorf("kafka depends on its consumers:\n%s", out)
	}
}

// TestGraphServiceFolders: `graph --service` lists the folders whose code
// is the service's when it has more than one (a program ko builds and the
// packages only it imports), the first eight and how many more, and
// --json gives them all with why.
func TestGraphServiceFolders(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "shop")
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cart\nspec:\n  template:\n    spec:\n      containers:\n" +
		"        - name: cart\n          image: ko://example.com/shop/cmd/cart\n"
	files := map[string]string{
		"go.mod":           "module example.com/shop\n\ngo 1.22\n",
		"cmd/cart/main.go": "package main\n\nimport \"example.com/shop/pkg/cart\"\n\nfunc main() { cart.Serve() }\n",
		"deploy/cart.yaml": deploy,
	}
	// pkg/cart imports nine packages of its own: twelve folders in all.
	cart := "package cart\n\nimport (\n"
	for i := 1; i <= 9; i++ {
		cart += fmt.Sprintf("\t_ \"example.com/shop/pkg/cart/p%d\"\n", i)
		files[fmt.Sprintf("pkg/cart/p%d/p.go", i)] = fmt.Sprintf("package p%d\n\n// Hold holds.\nfunc Hold() {}\n", i)
	}
	files["pkg/cart/cart.go"] = cart + ")\n\n// Serve serves carts.\nfunc Serve() {}\n"
	for name, text := range files {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dir, "x.db")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--progress", "none"); code != 0 {
		t.Fatalf("crawl: %s", errs)
	}
	code, out, errs := coderag(t, "graph", "--db", db, "--service", "cart")
	if code != 0 || !strings.Contains(out, "code in shop, shop/cmd/cart, shop/pkg/cart, shop/pkg/cart/p1, shop/pkg/cart/p2, shop/pkg/cart/p3, shop/pkg/cart/p4, shop/pkg/cart/p5 … 4 more (--json lists them)\n") {
		t.Errorf("graph --service cart: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = coderag(t, "graph", "--db", db, "--service", "cart", "--json")
	var got struct{ Services []jsonService }
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("graph --service cart --json: exit %d\n%s%s", code, out, errs)
	}
	for _, s := range got.Services {
		if s.Name == "cart" && (len(s.Folders) != 12 || !slices.Contains(s.Folders, jsonFolder{"shop", "pkg/cart/p9", "imported by its ko program only"})) {
			t.Errorf("graph --json: the folders of cart are %+v", s.Folders)
		}
	}
}

// TestGraphServiceDeclaredIn: a service that many compose files define
// (one per set-up) lists the first four in `graph --service` and how many
// more; --json lists them all.
func TestGraphServiceDeclaredIn(t *testing.T) {
	files := map[string]string{}
	for i := 1; i <= 6; i++ {
		files[fmt.Sprintf("relay/compose/setup%d.yml", i)] = fmt.Sprintf("services:\n  relay:\n    image: example/relay:1.%d\n  vault:\n    image: example/vault:2.0\n    environment:\n      RELAY_URL: http://relay:8700\n", i)
	}
	db := crawlFiles(t, t.TempDir(), files)
	code, out, errs := coderag(t, "graph", "--db", db, "--service", "relay")
	want := "declared in relay/compose/setup1.yml:2, relay/compose/setup2.yml:2, relay/compose/setup3.yml:2, relay/compose/setup4.yml:2 … 2 more (--json lists them)\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("graph --service relay: exit %d, want %q in\n%s%s", code, want, out, errs)
	}
	code, out, errs = coderag(t, "graph", "--db", db, "--service", "relay", "--json")
	var got struct{ Services []jsonService }
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("graph --service relay --json: exit %d\n%s%s", code, out, errs)
	}
	for _, s := range got.Services {
		if s.Name == "relay" && len(s.Declared) != 6 {
			t.Errorf("graph --json: relay declared in %+v, want 6 files", s.Declared)
		}
	}
}
