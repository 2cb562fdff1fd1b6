package core

import (
	"slices"
	"testing"
)

func TestIsTestPath(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"services/checkout/handler_test.go", true},
		{"src/cart.spec.ts", true},
		{"app/tests/test_orders.py", true},
		{"src/Cart.UnitTests/Fixtures/RedisFixture.cs", true},
		{"src/Cart.IntegrationTests/CheckoutClient.cs", true},
		{"web/cypress/support/commands.js", true},
		{"cart-e2e-tests/helpers.ts", true},
		{"internal/testhelpers/http.go", true},
		{"pkg/testutil/server.go", true},
		{"reposerver/cache/mocks/cache.go", true},
		{"src/__mocks__/axios.js", true},
		{"ui/mirage/config.js", true},
		{"web/app/mirage/factories/job.js", true},
		{"src/components/__snapshots__/InvoiceRow.test.tsx.snap", true},
		{"client/.snapshots/TestHandler-case=fetch.json", true},
		{"backup/snapshots/restore.go", false},
		{"pkg/clientset/fake/clientset.go", true},
		{"reposerver/repository/testdata2/chart/Chart.yaml", true},
		{"pkg/parser/testdata_v1/input.go", true},
		{"integration/resources/compose/redis.yml", true},
		{"integration/fixtures_test.go", true},
		{"src/hamcrest/library/integration/match_equality.py", false},
		{"pkg/integrations/slack/client.go", false},
		{"ml/testdatasets/load.py", false},
		{"services/mock-payments/main.go", false},
		{"internal/httputil/server.go", false},
		{"services/checkout/handler.go", false},
		{"src/latest/feed.go", false},
		{"src/Contests.Api/Controller.cs", false},
		{"docs/testing-strategy.md", false},
	} {
		if got := IsTestPath(tt.path); got != tt.want {
			t.Errorf("IsTestPath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestIsExamplePath(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"examples/tutorials/send.js", true},
		{"sdk/python/samples/publish.py", true},
		{"docs/Tutorial/consumer.go", true},
		{"examples.go", false},
		{"services/example-api/main.go", false},
		{"src/orders/sample.go", false},
		{"billing/src/main/java/com/example/billing/InvoiceClient.java", false},
		{"app/src/test/kotlin/com/example/app/AppTest.kt", false},
		{"examples/billing/src/main/java/com/acme/Main.java", true},
		{"docs/src/main/java/example/Main.java", false},
	} {
		if got := IsExamplePath(tt.path); got != tt.want {
			t.Errorf("IsExamplePath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestIsToolingPath(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{".github/scripts/validate_sidecar_resources.py", true},
		{"hack/verify-codegen.sh", true},
		{"scripts/release/mac-remote-build", true},
		{"services/cart/.circleci/check.sh", true},
		{"scripts/entrypoint.sh", false},
		{"release/notes.go", false},       // a package named release
		{"pkg/release/channel.go", false}, // likewise
		{"cmd/hack/main.go", true},        // hack/ is tooling wherever it is
		{"docker/docker-entrypoint.sh", false},
	} {
		if got := IsToolingPath(tt.path); got != tt.want {
			t.Errorf("IsToolingPath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestSystemNames(t *testing.T) {
	got := SystemNames([]NameAt{
		{"orders", "deploy/orders.yaml"},
		{"runtime", "tests/apps/runtime/service.yaml"},
		{"postgres", ".devcontainer/docker-compose.yml"},
		{"billing", ""}, // a graph node
		{"orders", ""},
		{"stub-api", "e2e/compose.yaml"},
		{"gateway", "charts/gateway/templates/deployment.yaml"},
	})
	if want := []string{"billing", "gateway", "orders"}; !slices.Equal(got, want) {
		t.Errorf("SystemNames = %q, want %q", got, want)
	}
}
