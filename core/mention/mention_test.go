package mention

import (
	"slices"
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
	m := New([]string{"cart", "checkout", "redis", "orders-api", "billing", "backend"})
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
		{"src/billing/README.md", "billing", "billing keeps invoices in redis; redis holds them for a day", "billing, redis"},
		{"src/api/README.md", "backend", "the backend calls billing", "backend, billing"},
		// A file there named after another service is about that one.
		{"src/billing/docs/redis.md", "billing", "eviction", "redis, billing"},
		{"src/billing/docs/billing.md", "billing", "", "billing"},
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

// TestFindCommonWords checks that a service named by one word common in
// technical prose is found only where the text writes it as a name.
func TestFindCommonWords(t *testing.T) {
	m := New([]string{"search", "profile", "billing", "search-ranking"})
	tests := []struct {
		file, text, want string
	}{
		{"notes.md", "search is slow for users today", ""},
		{"notes.md", "users search their profile", ""},
		{"notes.md", "billing is down", "billing"},
		{"notes.md", "the search service is slow", "search"},
		{"notes.md", "search-api returns 503", "search"},
		{"notes.md", "restart the search pods, then the profile svc", "search, profile"},
		{"notes.md", "delete the jobs of a `search` and `profile`", ""},
		{"notes.md", "GET http://search/q timed out", "search"},
		{"notes.md", "see https://search-images.example.com/a.png", ""},
		{"notes.md", "dial tcp search:8080: connection refused", "search"},
		{"notes.md", "search.prod.svc.cluster.local does not resolve", "search"},
		{"notes.md", "users search.\nfluent.logging.svc is the log sink", ""},
		{"notes.md", "search ranking regressed", "search-ranking"},
		// What on-call engineers write when it is out.
		{"slack/incidents/2024-05-01.json", "search is down again", "search"},
		{"slack/incidents/2024-05-01.json", "looks like search went down at 14:02", "search"},
		{"slack/incidents/2024-05-01.json", "profile keeps crashlooping", "profile"},
		{"slack/incidents/2024-05-01.json", "search outage in eu-west", "search"},
		{"notes.md", "the search is down to 20 ms since the cache", ""},
		{"notes.md", "profile views are down 30 percent", ""},
		{"notes.md", "users search less when the page is down", ""},
		// A file named after the service alone is about it; a file whose
		// name uses the word in a phrase is not.
		{"runbooks/search.md", "restart it", "search"},
		{"runbooks/search-latency.md", "restart it", ""},
		{"slack/search-oncall/2024-05-01.json", "it is back", "search"},
	}
	for _, tt := range tests {
		if got := strings.Join(m.FindIn(tt.file, tt.text), ", "); got != tt.want {
			t.Errorf("FindIn(%q, %q) = %q, want %q", tt.file, tt.text, got, tt.want)
		}
	}
	if !Common("user") || Common("billing") {
		t.Errorf("Common: user %v, billing %v", Common("user"), Common("billing"))
	}
}

// TestCommonList checks the embedded list internal/gencommon writes:
// sorted lower-case words, as many as the real list holds.
func TestCommonList(t *testing.T) {
	var words []string
	for _, l := range strings.Split(commonTxt, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if l != strings.ToLower(strings.TrimSpace(l)) || strings.ContainsAny(l, " -_0123456789") {
			t.Errorf("common.txt: %q is no lower-case word", l)
		}
		words = append(words, l)
	}
	if len(words) < 500 || !slices.IsSorted(words) {
		t.Errorf("common.txt: %d words, sorted %v", len(words), slices.IsSorted(words))
	}
}
