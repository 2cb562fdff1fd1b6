package mention

import (
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	m := New([]string{"cart", "checkout", "catalog", "catalog-stock-worker", "redis", "api", "db", "stripe-mock"})
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
