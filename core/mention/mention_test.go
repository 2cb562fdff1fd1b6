package mention

import (
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	m := New([]string{"cart", "checkout", "catalog", "catalog-stock-worker", "redis", "api", "db", "stripe-mock", "helm-chart", "?{client}"})
	tests := []struct {
		text string
		want string
	}{
		{"checkout answers 502 because cart cannot reach Redis; cart pods are up", "cart, checkout, redis"},
		{"scaled catalog-stock-worker to 2, catalog itself is fine", "catalog-stock-worker, catalog"},
		{"the catalog stock worker lags", "catalog-stock-worker"},
		{"CatalogStockWorker restarted", "catalog-stock-worker"},
		{"GET http://cart:8080/api/cart/42 and cart.shop.svc.cluster.local", "cart"},
		{"the api and the db are slow", ""},
		{"carts and checkouts", ""},
		{"stripe-mock returned 500", "stripe-mock"},
		{"install the helm chart with the client", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := strings.Join(m.Find(tt.text), ", "); got != tt.want {
			t.Errorf("Find(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	if got := New(nil).Find("cart"); got != nil {
		t.Errorf("empty matcher found %v", got)
	}
}

func BenchmarkFind(b *testing.B) {
	var names []string
	for i := 0; i < 300; i++ {
		names = append(names, "service-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"-worker")
	}
	names = append(names, "cart", "checkout")
	m := New(names)
	text := strings.Repeat("checkout answers 502 because cart cannot reach redis; the worker lags behind. ", 50)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		m.Find(text)
	}
}

func TestFindIn(t *testing.T) {
	m := New([]string{"cart", "checkout", "redis", "orders-api", "frontend"})
	tests := []struct {
		file, owner, text string
		want              string
	}{
		// The file's name says what the section is about, though another
		// service is mentioned more.
		{"docs/server-commands/orders-api.md", "", "--redis string: the redis address; --redis-db int: the redis database", "orders-api, redis"},
		{"runbooks/cart-restarts.md", "", "restart checkout, then cart", "cart, checkout"},
		{"slack/checkout-oncall/2024-05-01.json", "", "redis is down again", "checkout, redis"},
		{"#cart", "", "checkout fails", "cart, checkout"},
		{"docs/2024-05-01.md", "", "checkout fails", "checkout"},
		{"docs/overview.md", "", "cart calls checkout; checkout calls redis", "checkout, cart, redis"},
		{`runbooks\orders-api.md`, "", "", "orders-api"},
		// A README in a service's folder is about that service, before
		// the store it mentions more and though its name is too common a
		// word to count as a mention.
		{"src/cart/README.md", "cart", "cart keeps baskets in redis; redis holds them for a day", "cart, redis"},
		{"src/web/README.md", "frontend", "the frontend calls checkout", "frontend, checkout"},
		// A file there named after another service is about that one.
		{"src/cart/docs/redis.md", "cart", "eviction", "redis, cart"},
		{"src/cart/docs/cart.md", "cart", "", "cart"},
	}
	for _, tt := range tests {
		if got := strings.Join(m.FindAbout(tt.file, tt.owner, tt.text), ", "); got != tt.want {
			t.Errorf("FindAbout(%q, %q, %q) = %q, want %q", tt.file, tt.owner, tt.text, got, tt.want)
		}
		if tt.owner == "" {
			if got := strings.Join(m.FindIn(tt.file, tt.text), ", "); got != tt.want {
				t.Errorf("FindIn(%q, %q) = %q, want %q", tt.file, tt.text, got, tt.want)
			}
		}
	}
}
