package main

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"coderag/core"
)

var update = flag.Bool("update", false, "update golden files")

// TestContextGolden packs the sample for three questions, one per format,
// and compares with testdata/context/*.golden (go test -update rewrites
// them). Each pack must be within its budget by the index's estimate.
func TestContextGolden(t *testing.T) {
	db := crawlSample(t)
	tests := []struct {
		name   string
		args   []string
		budget int
	}{
		{"redis-down.xml", []string{"--budget", "1500", "what breaks when redis is down"}, 1500},
		{"cart-store.md", []string{"--budget", "900", "--format", "markdown", "how does the cart store items in redis"}, 900},
		{"checkout-503.json", []string{"--budget", "1200", "--json", "include:docs/runbooks/checkout-5xx.md symbol:CartStore checkout 503"}, 1200},
		// A forced class over the budget: elided to its signature and ends.
		{"cart-controller-elided.xml", []string{"--budget", "450", "symbol:CartController clear the cart after checkout"}, 450},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := coderag(t, append([]string{"context", "--db", db}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if n := core.EstimateTokens(out); n > tt.budget {
				t.Errorf("pack is %d tokens, over its budget of %d", n, tt.budget)
			}
			golden := filepath.Join("testdata", "context", tt.name+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				os.WriteFile(golden, []byte(out), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if string(want) != out {
				t.Errorf("pack differs from %s (go test -update rewrites it):\n%s", golden, out)
			}
		})
	}
}

// TestContextForcedAndJSON: include: and symbol: come first and whole,
// the JSON has the documented fields, and bad flags are usage errors.
func TestContextForcedAndJSON(t *testing.T) {
	db := crawlSample(t)
	_, out, errs := coderag(t, "context", "--db", db, "--json", "--budget", "3000", "--symbol", "CartStore", "include:docs/runbooks/checkout-5xx.md", "checkout 503")
	var p struct {
		Query  string `json:"query"`
		Budget int    `json:"budget"`
		Used   int    `json:"used_tokens"`
		Chunks []struct {
			FilePath   string `json:"file_path"`
			SymbolName string `json:"symbol_name"`
			Forced     bool   `json:"forced"`
			Elided     bool   `json:"elided"`
			Text       string `json:"text"`
		} `json:"chunks"`
		Services []struct {
			Name string `json:"name"`
		} `json:"services"`
		DroppedCount int `json:"dropped_count"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errs)
	}
	if p.Query != "checkout 503" || p.Budget != 3000 || p.Used > 3000 || p.Used == 0 || len(p.Chunks) == 0 {
		t.Fatalf("pack = %+v", p)
	}
	forced := map[string]bool{}
	for i, c := range p.Chunks {
		if c.Forced {
			forced[c.FilePath] = true
			if i > 0 && !p.Chunks[i-1].Forced && p.Chunks[i-1].FilePath != c.FilePath {
				t.Errorf("forced %s comes after a search hit", c.FilePath)
			}
		}
	}
	if !forced["docs/runbooks/checkout-5xx.md"] || !forced["services/cart/Services/CartStore.cs"] {
		t.Errorf("forced files = %v", forced)
	}
	if len(p.Services) == 0 {
		t.Error("no services block")
	}
	for _, args := range [][]string{{"--format", "yaml", "x"}, {"--budget", "0", "x"}} {
		if code, _, _ := coderag(t, append([]string{"context", "--db", db}, args...)...); code != 2 {
			t.Errorf("context %v: exit %d, want 2", args, code)
		}
	}
	if _, out, _ := coderag(t, "context", "--db", db, "--budget", "400", "checkout handler"); !strings.Contains(out, "<codeRag:dropped>") {
		t.Errorf("a small budget lists nothing as dropped:\n%s", out)
	}
}

// TestContextPR: a change to a route handler, made and committed in a
// copy of the sample, packs the handler, the code that calls the route
// in other services (and their evidence lines), and the blast radius of
// the service whose code changed.
func TestContextPR(t *testing.T) {
	dir := t.TempDir()
	for _, repo := range []string{"platform", "storefront"} {
		if out, err := exec.Command("cp", "-r", filepath.Join(sampleDir, repo), filepath.Join(dir, repo)).CombinedOutput(); err != nil {
			t.Fatalf("copy the sample: %v %s", err, out)
		}
	}
	repo := filepath.Join(dir, "platform")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "sample")
	db := filepath.Join(dir, "pr.db")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--repo-path", filepath.Join(dir, "storefront"), "--progress", "none"); code != 0 {
		t.Fatal(errs)
	}
	ctrl := filepath.Join(repo, "services/cart/Controllers/CartController.cs")
	src, err := os.ReadFile(ctrl)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), "public async Task<ActionResult<ShoppingCart>> GetCart(string userId)\n    {\n",
		"public async Task<ActionResult<ShoppingCart>> GetCart(string userId)\n    {\n        if (string.IsNullOrWhiteSpace(userId)) return BadRequest(\"userId is required\");\n", 1)
	if changed == string(src) {
		t.Fatal("the handler to change was not found")
	}
	os.WriteFile(ctrl, []byte(changed), 0o644)
	git("commit", "-q", "-am", "Cart: refuse a blank user id when loading a cart")

	code, out, errs := coderag(t, "context", "--db", db, "--json", "--budget", "6000", "--git", "HEAD~1..HEAD", "--git-repo", repo)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var p struct {
		Query  string `json:"query"`
		Diff   string `json:"diff"`
		Chunks []struct {
			RepoName string `json:"repo_name"`
			FilePath string `json:"file_path"`
			Forced   bool   `json:"forced"`
			Text     string `json:"text"`
		} `json:"chunks"`
		Services []struct {
			Name        string   `json:"name"`
			BlastRadius []string `json:"blast_radius"`
			Callers     []string `json:"callers"`
		} `json:"services"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(p.Query, "refuse a blank user id") {
		t.Errorf("query %q is not the commit's subject", p.Query)
	}
	has := func(repo, file, text string) bool {
		for _, c := range p.Chunks {
			if c.RepoName == repo && c.FilePath == file && c.Forced && strings.Contains(c.Text, text) {
				return true
			}
		}
		return false
	}
	// The change itself, and the handler as the index holds it (the base).
	if !strings.Contains(p.Diff, "+        if (string.IsNullOrWhiteSpace(userId))") || !has("platform", "services/cart/Controllers/CartController.cs", "GetCart(string userId)") {
		t.Errorf("the change or the changed handler is not in the pack:\n%s", out)
	}
	if !has("platform", "services/checkout/clients.go", "/api/cart/") || !has("storefront", "src/clients/cart.ts", "/api/cart/") {
		t.Errorf("the callers of GET /api/cart/{userId} in checkout and storefront are not in the pack:\n%s", out)
	}
	if len(p.Services) == 0 || p.Services[0].Name != "cart" {
		t.Fatalf("services = %+v", p.Services)
	}
	blast := strings.Join(p.Services[0].BlastRadius, "; ")
	callers := strings.Join(p.Services[0].Callers, "; ")
	if !strings.Contains(blast, "checkout") || !strings.Contains(blast, "storefront") {
		t.Errorf("cart's blast radius = %s", blast)
	}
	if !strings.Contains(callers, "checkout calls GET /api/cart/{userId} at platform/services/checkout/clients.go:") {
		t.Errorf("callers = %s", callers)
	}
	// The same change as a diff on standard input's stand-in, a file.
	diff := filepath.Join(dir, "change.diff")
	d, _ := exec.Command("git", "-C", repo, "format-patch", "-1", "--stdout").Output()
	os.WriteFile(diff, d, 0o644)
	if code, out, errs := coderag(t, "context", "--db", db, "--diff", diff, "--format", "markdown"); code != 0 || !strings.Contains(out, "IsNullOrWhiteSpace") || !strings.Contains(out, "refuse a blank user id") {
		t.Errorf("--diff: exit %d %s\n%s", code, errs, out)
	}
	if code, _, errs := coderag(t, "context", "--db", db, "--diff", filepath.Join(dir, "missing.diff")); code == 0 || !strings.Contains(errs, "missing.diff") {
		t.Errorf("a missing diff file: exit %d, %q", code, errs)
	}
}

// TestContextFollowChangesOrder: on the sample, following references and
// service edges (the default) orders a pack differently from the search
// alone (--follow 0), and brings in chunks the search did not rank.
func TestContextFollowChangesOrder(t *testing.T) {
	db := crawlSample(t)
	order := func(follow string) []string {
		_, out, errs := coderag(t, "context", "--db", db, "--json", "--budget", "20000", "--follow", follow, "place an order at checkout")
		var p struct {
			Chunks []struct {
				ChunkID string `json:"chunk_id"`
			} `json:"chunks"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("%v: %s", err, errs)
		}
		var ids []string
		for _, c := range p.Chunks {
			ids = append(ids, c.ChunkID)
		}
		return ids
	}
	plain, followed := order("0"), order("0.3")
	if strings.Join(plain, " ") == strings.Join(followed, " ") {
		t.Error("--follow 0.3 packs the same chunks in the same order as --follow 0")
	}
	if code, _, _ := coderag(t, "context", "--db", db, "--follow", "1.5", "x"); code != 2 {
		t.Errorf("--follow 1.5: exit %d, want 2", code)
	}
}
