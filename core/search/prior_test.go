package search

import (
	"strings"
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
		{"go test helper", core.Chunk{FilePath: "internal/cachetest/server.go", Imports: []string{"net/http", "testing"}}, "how are entries cached", 0.6, "test code"},
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
		// Translation catalogs: one copy of the interface's text per
		// language, answers to questions about that text only.
		{"i18next locale", core.Chunk{FilePath: "web/public/locales/de/common.json"}, "how are orders refreshed in the background", 0.3, "translation catalog"},
		{"gettext catalog", core.Chunk{FilePath: "shop/locale/fr/LC_MESSAGES/django.po"}, "how are refunds approved", 0.3, "translation catalog"},
		{"rails locale", core.Chunk{FilePath: "config/locales/en.yml"}, "where are sessions stored", 0.3, "translation catalog"},
		{"java bundle", core.Chunk{FilePath: "src/main/resources/messages_de.properties"}, "checkout flow", 0.3, "translation catalog"},
		{"resx of a culture", core.Chunk{FilePath: "Shop.Web/Resources/Strings.fr-CA.resx"}, "checkout flow", 0.3, "translation catalog"},
		{"asked about translations", core.Chunk{FilePath: "web/public/locales/de/common.json"}, "which languages are translated", 1, ""},
		{"asked about a label", core.Chunk{FilePath: "config/locales/en.yml"}, "change the label of the refund button", 1, ""},
		{"a pasted message", core.Chunk{FilePath: "internal/locale/translations/en_US.json"}, "error: unable to refresh feed: 404", 1, ""},
		{"a question with a status code", core.Chunk{FilePath: "internal/locale/translations/uk_UA.json"}, "why does the proxy return 503", 0.3, "translation catalog"},
		{"a question with a contraction", core.Chunk{FilePath: "web/public/locales/de/common.json"}, "why doesn't the feed refresh", 0.3, "translation catalog"},
		{"a question quoting a message", core.Chunk{FilePath: "web/public/locales/de/common.json"}, "why does it say 'feed not found'", 1, ""},
		{"code in a lang package", core.Chunk{FilePath: "internal/lang/parse.go"}, "how are expressions parsed", 1, ""},
		{"plain settings json", core.Chunk{FilePath: "config/settings.json"}, "checkout flow", 1, ""},
	}
	for _, tt := range tests {
		got, why := filePrior(tt.chunk, set(codetok.Words(tt.query)), messageSigns(tt.query), p)
		if got != tt.want || why != tt.wantWhy {
			t.Errorf("%s: filePrior(%s, %q) = %v %q, want %v %q", tt.name, tt.chunk.FilePath, tt.query, got, why, tt.want, tt.wantWhy)
		}
	}
}

func TestCatalogGlob(t *testing.T) {
	for in, want := range map[string]string{
		"web/public/locales/de/common.json":         "web/public/locales/*/*.json",
		"shop/locale/pt_BR/LC_MESSAGES/django.po":   "shop/locale/*/LC_MESSAGES/*.po",
		"internal/locale/translations/ja_JP.json":   "internal/locale/translations/*.json",
		"config/locales/en.yml":                     "config/locales/*.yml",
		"src/main/resources/messages_de.properties": "src/main/resources/*.properties",
		"app/i18n/zh-Hans/strings.json":             "app/i18n/*/*.json",
		"de.po":                                     "*.po",
		"odd/[x]/locales/de.json":                   "",
	} {
		if got := catalogGlob(in); got != want {
			t.Errorf("catalogGlob(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCatalogFlood: catalogs that hold half the candidates of a question
// about the system are left out by their folders; not when the query
// asks about text or translations, is a pasted message, or the catalogs
// are a few.
func TestCatalogFlood(t *testing.T) {
	var flooded, few []core.Hit
	for _, lang := range []string{"de", "fr", "ja", "pt_BR", "es", "it"} {
		flooded = append(flooded, core.Hit{Chunk: core.Chunk{FilePath: "web/locales/" + lang + "/common.json"}})
	}
	flooded = append(flooded, core.Hit{Chunk: core.Chunk{FilePath: "worker/refresh.go"}}, core.Hit{Chunk: core.Chunk{FilePath: "po/x.po"}})
	few = append(few, flooded[0], flooded[6], flooded[6], flooded[6])
	for _, tt := range []struct {
		hits  []core.Hit
		query string
		want  string
	}{
		{flooded, "how are feeds refreshed in the background", "web/locales/*/*.json po/*.po"},
		{flooded, "which languages is the refresh button translated into", ""},
		{flooded, "change the label of the refresh button", ""},
		{flooded, "error: refresh failed: 502", ""},
		{few, "how are feeds refreshed in the background", ""},
		{nil, "how are feeds refreshed", ""},
	} {
		if got := strings.Join(catalogFlood(tt.hits, 50, tt.query, messageSigns(tt.query)), " "); got != tt.want {
			t.Errorf("catalogFlood(%d hits, %q) = %q, want %q", len(tt.hits), tt.query, got, tt.want)
		}
	}
}

func TestMessageSigns(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"dial tcp 10.0.3.17:6379: connection refused", true},
		{"upstream returned 503", true},
		{"GET /api/orders", true},
		{`failed to parse "amount"`, true},
		{"error: unable to refresh feed", true},
		{"why does the proxy return 503", false},
		{"How is /healthz served", false},
		{"why doesn't the cart empty after checkout", false},
		{"what happens on a 404?", false},
		{"the cart's total is wrong", false},
		{"why does it say 'feed not found'", true},
		{"orders are slow", false},
	} {
		if got := messageSigns(tt.text); got != tt.want {
			t.Errorf("messageSigns(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
