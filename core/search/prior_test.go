package search

import (
	"testing"

	"coderag/core"
	"coderag/core/codetok"
)

func TestFilePrior(t *testing.T) {
	p := Params{TestPrior: 0.6, BoilerplatePrior: 0.3}
	tests := []struct {
		name    string
		chunk   core.Chunk
		query   string
		want    float64
		wantWhy string
	}{
		{"service code", core.Chunk{FilePath: "src/orders/handler.go"}, "how are orders stored", 1, ""},
		{"go test file", core.Chunk{FilePath: "src/orders/handler_test.go"}, "how are orders stored", 0.6, "test code"},
		{"test file asked about tests", core.Chunk{FilePath: "src/orders/handler_test.go"}, "which tests cover orders", 1, ""},
		{"tests directory", core.Chunk{FilePath: "tests/e2e/checkout.py"}, "checkout flow", 0.6, "test code"},
		// .NET test projects: every file of Cart.UnitTests is test code.
		{"dotnet test project", core.Chunk{FilePath: "src/Cart.UnitTests/Fixtures/RedisFixture.cs"}, "cart redis", 0.6, "test code"},
		{"dotnet tests project", core.Chunk{FilePath: "services/Cart.Tests/Builders.cs"}, "cart", 0.6, "test code"},
		{"kebab tests folder", core.Chunk{FilePath: "cart-e2e-tests/helpers.ts"}, "cart", 0.6, "test code"},
		{"a word ending in test", core.Chunk{FilePath: "src/latest/feed.go"}, "feed", 1, ""},
		{"a project named for contests", core.Chunk{FilePath: "src/Contests.Api/Controller.cs"}, "contest", 1, ""},
		// A Locust load test or a k6 script is test code wherever it
		// lives; asking about Locust lifts it.
		{"locust file", core.Chunk{FilePath: "tools/traffic/main.py", Imports: []string{"json", "locust"}}, "how is an invoice emailed", 0.6, "test code"},
		{"locust asked for", core.Chunk{FilePath: "tools/traffic/main.py", Imports: []string{"locust"}}, "which locust tasks run", 1, ""},
		{"k6 script", core.Chunk{FilePath: "perf/checkout.js", Imports: []string{"k6/http", "k6"}}, "checkout latency", 0.6, "test code"},
		{"unittest submodule", core.Chunk{FilePath: "app/helpers.py", Imports: []string{"unittest.mock"}}, "helpers", 0.6, "test code"},
		{"a module that only shares a prefix", core.Chunk{FilePath: "app/load.py", Imports: []string{"locustlike", "pytestify"}}, "load", 1, ""},
		// A Rust #[cfg(test)] module lives in the file it tests.
		{"rust test module", core.Chunk{FilePath: "src/store.rs", Meta: map[string]string{"test": "true"}}, "where are products stored", 0.6, "test code"},
		{"rust test module asked for", core.Chunk{FilePath: "src/store.rs", Meta: map[string]string{"test": "true"}}, "which tests cover the store", 1, ""},
		// CI pipelines are about building and releasing, unless asked.
		{"github workflow", core.Chunk{FilePath: ".github/workflows/ci.yaml"}, "what happens when a customer checks out", 0.6, "CI pipeline"},
		{"github workflow asked for", core.Chunk{FilePath: ".github/workflows/ci.yaml"}, "which workflow publishes the images", 1, ""},
		{"gitlab ci", core.Chunk{FilePath: "services/cart/.gitlab-ci.yml"}, "cart timeout", 0.6, "CI pipeline"},
		{"jenkinsfile asked about builds", core.Chunk{FilePath: "Jenkinsfile"}, "how is the cart built", 1, ""},
		{"a workflows folder elsewhere", core.Chunk{FilePath: "docs/workflows/ordering.yaml"}, "ordering", 1, ""},
		{"lint config", core.Chunk{FilePath: ".eslintrc.json"}, "how is the cart rendered", 0.3, "repository boilerplate or tool configuration"},
		{"lint config named", core.Chunk{FilePath: ".eslintrc.json"}, "which eslintrc rules apply", 1, ""},
		{"conversation", core.Chunk{FilePath: "slack/ops.json", Corpus: core.CorpusType("CONVO_SLACK")}, "tests", 1, ""},
	}
	for _, tt := range tests {
		got, why := filePrior(tt.chunk, set(codetok.Words(tt.query)), p)
		if got != tt.want || why != tt.wantWhy {
			t.Errorf("%s: filePrior(%s, %q) = %v %q, want %v %q", tt.name, tt.chunk.FilePath, tt.query, got, why, tt.want, tt.wantWhy)
		}
	}
}
