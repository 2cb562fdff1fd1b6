package main

import (
	"encoding/json"
	"flag"
	"os"
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
