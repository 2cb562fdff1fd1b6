package graph

import (
	"fmt"
	"strings"
	"testing"

	"coderag/core"
)

// shop is a small graph: ingress -> web -> api -> db, api -> orders topic
// -> worker, worker -> api (a cycle through the topic is not a
// dependency cycle), audit <-> api (one).
func shop() *Graph {
	g := &Graph{}
	for _, n := range []struct{ name, kind string }{{"ingress:web", KindIngress}, {"web", KindService}, {"api", KindService},
		{"db", KindDatabase}, {"orders", KindQueue}, {"worker", KindService}, {"audit", KindService}} {
		g.Services = append(g.Services, Service{Name: n.name, Kind: n.kind, Aliases: []Alias{{Name: n.name + ".prod.svc.cluster.local", Kind: "dns"}}})
	}
	edge := func(s, t, typ, m, p string) {
		g.Edges = append(g.Edges, Edge{Source: s, Target: t, Type: typ, Method: m, Path: p, Confidence: 0.9,
			Evidence: []Evidence{{Repo: "r", File: s + ".go", Line: len(g.Edges) + 1}}})
	}
	edge("ingress:web", "web", EdgeHTTP, "ANY", "/")
	edge("web", "api", EdgeHTTP, "GET", "/items")
	edge("api", "db", EdgeDB, "", "")
	edge("api", "orders", EdgeQueue, "publish", "orders")
	edge("orders", "worker", EdgeQueue, "subscribe", "orders")
	edge("worker", "api", EdgeHTTP, "POST", "/done")
	edge("api", "audit", EdgeHTTP, "POST", "/log")
	edge("audit", "api", EdgeHTTP, "GET", "/whoami")
	g.Sort()
	return g
}

func hops(hs []Hop) string {
	var parts []string
	for _, h := range hs {
		parts = append(parts, fmt.Sprintf("%d:%s<-%s", h.Depth, h.Service, h.From))
	}
	return strings.Join(parts, " ")
}

func TestQueries(t *testing.T) {
	g := shop()
	tests := []struct {
		name, got, want string
	}{
		{"upstream of api", hops(g.Upstream("api", 1, 0)), "1:audit<-api 1:web<-api 1:worker<-api"},
		{"downstream of api", hops(g.Downstream("api", 1, 0)), "1:audit<-api 1:db<-api 1:orders<-api"},
		{"blast radius of db", hops(g.BlastRadius("db", 5, 0)), "1:api<-db 2:audit<-api 2:web<-api 2:worker<-api 3:ingress:web<-web"},
		{"blast radius of db, depth 2", hops(g.BlastRadius("db", 2, 0)), "1:api<-db 2:audit<-api 2:web<-api 2:worker<-api"},
		{"a topic's consumers depend on it", hops(g.BlastRadius("orders", 1, 0)), "1:api<-orders 1:worker<-orders"},
		{"path from ingress to db", hops(g.Path("ingress:web", "db", 0)), "1:web<-ingress:web 2:api<-web 3:db<-api"},
		{"no path from db to web", hops(g.Path("db", "web", 0)), ""},
		{"high confidence only", hops(g.Upstream("api", 1, 0.95)), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	cycles, err := g.Cycles(0)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cycles) != "[[api audit]]" {
		t.Errorf("Cycles = %v", cycles)
	}
	if name, err := g.Resolve("API.prod.svc.cluster.local"); err != nil || name != "api" {
		t.Errorf("Resolve by alias = %q, %v", name, err)
	}
	if _, err := g.Resolve("ap"); err == nil || !strings.Contains(err.Error(), "did you mean api") {
		t.Errorf("Resolve of a near name: %v", err)
	}
	g.Services = append(g.Services, Service{Name: "shard-placement-server", Kind: KindService, Aliases: []Alias{{Name: "placement", Kind: "directory"}}})
	if _, err := g.Resolve("plcement"); err == nil || !strings.Contains(err.Error(), "did you mean shard-placement-server?") {
		t.Errorf("Resolve of a name near an alias: %v", err)
	}
	g.Services = append(g.Services, Service{Name: "orders-repo-server", Kind: KindService})
	if name, err := g.Resolve("Orders Repo Server"); err != nil || name != "orders-repo-server" {
		t.Errorf("Resolve of the name written with spaces = %q, %v", name, err)
	}
	if _, err := g.Resolve("repo server"); err == nil || !strings.Contains(err.Error(), "did you mean orders-repo-server") {
		t.Errorf("Resolve of a part of a name: %v", err)
	}
}

func TestMatchRoute(t *testing.T) {
	tests := []struct {
		method, path string
		routes       []string
		want         string
	}{
		{"GET", "/users/{userId}/profile", []string{"GET /users/{user_id}/profile", "GET /users/me/profile"}, "/users/{user_id}/profile"},
		{"GET", "/users/me/profile", []string{"GET /users/{user_id}/profile", "GET /users/me/profile"}, "/users/me/profile"},
		{"POST", "/users/{id}/profile", []string{"GET /users/{user_id}/profile"}, ""},
		{"DELETE", "/api/cart/42", []string{"ANY /api/cart/{id}"}, "/api/cart/{id}"},
		{"GET", "/static/js/app.js", []string{"GET /static/{path...}"}, "/static/{path...}"},
		{"GET", "/items?limit=5", []string{"GET /items"}, "/items"},
		{"GET", "/items/{id}/extra", []string{"GET /items/{id}"}, ""},
	}
	for _, tt := range tests {
		var rs []Route
		for _, r := range tt.routes {
			m, p, _ := strings.Cut(r, " ")
			rs = append(rs, Route{})
			rs[len(rs)-1].Method, rs[len(rs)-1].Path = m, p
		}
		var ra []route
		for _, r := range rs {
			ra = append(ra, route{r.RouteAt, core.RouteSegments(r.Path)})
		}
		got, ok := matchRoute(tt.method, tt.path, ra)
		if (ok && got.Path != tt.want) || (!ok && tt.want != "") {
			t.Errorf("matchRoute(%s %s) = %q, %v; want %q", tt.method, tt.path, got.Path, ok, tt.want)
		}
	}
}

func TestParseAddress(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://cart.shop.svc.cluster.local:8080/api", "http cart.shop.svc.cluster.local 8080 /api "},
		{"postgresql://shop:<PASSWORD>@postgres:5432/shopdb", "postgresql postgres 5432  shopdb"},
		{"redis:6379,abortConnect=false", " redis 6379  "},
		{"mysql://root:<PASSWORD>@mysqld:3306/grants&max_conns=20", "mysql mysqld 3306  grants"},
		{"cockroach://root@crdb:26257/identity?sslmode=disable", "cockroach crdb 26257  identity"},
		{"Host=db;Database=orders;Username=x", " db   orders"},
		{"Server=tcp:sql.example.com,1433;Initial Catalog=ledger", " sql.example.com   ledger"},
		{"b-1.kafka:9092,b-2.kafka:9092", " b-1.kafka 9092  "},
		{"shop:<PASSWORD>@tcp(mysql:3306)/shop?parseTime=true", "mysql mysql 3306  shop"},
		{"root@tcp(db.internal)/", "mysql db.internal   "},
		{"tcp(orders-db:3306)/orders", "mysql orders-db 3306  orders"},
		{"{DATABASE_URL}", "none"},
		{"0:7", "none"}, // a number is no host
		{"8080", "none"},
		{"0x80000", "none"}, // UBOOT_KERNEL_ADDR=${UBOOT_KERNEL_ADDR:-0x80000}
		{"0xCAFE:80", "none"},
		{"62s", "none"}, // -idle-timeout-server=62s: a duration
		{"1h30m", "none"},
		{"512Mi", "none"},
		{"s3", " s3   "},
		{"k8s:6443", " k8s 6443  "},
		{"", "none"},
	}
	for _, tt := range tests {
		a, ok := parseAddress(tt.in)
		got := "none"
		if ok {
			got = fmt.Sprintf("%s %s %s %s %s", a.scheme, a.host, a.port, a.path, a.db)
		}
		if got != tt.want {
			t.Errorf("parseAddress(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNameKey(t *testing.T) {
	for in, want := range map[string]string{
		"CART_SERVICE_ADDR": "cart", "cs.cartSvcAddr": "cart", "CartService": "cart", "CartClient": "cart", "Cart": "cart",
		"PRODUCT_CATALOG_SERVICE_ADDR": "productcatalog", "ProductCatalog": "productcatalog", "fe.productCatalogSvcConn": "productcatalog",
		"CATALOG_URL": "catalog", "c.base": "", "HTTPClient": "", "AD_SERVICE_ADDR": "ad", "{PAYMENTS_API_URL}": "payments",
	} {
		if got := nameKey(in); got != want {
			t.Errorf("nameKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDegree (issue 23, item 17): a service's counts have one meaning,
// the one the CLI's graph list and the TUI both show: the services that
// depend on it (up) and the known services it depends on (down), each
// once however many edges join them; a call to an address nothing
// declares is not counted down.
func TestDegree(t *testing.T) {
	g := shop()
	g.Services = append(g.Services, Service{Name: "?env:TALLY_URL", Kind: KindUnresolved})
	g.Edges = append(g.Edges, Edge{Source: "api", Target: "?env:TALLY_URL", Type: EdgeHTTP, Method: "POST", Path: "/entries", Confidence: 0.9},
		// Two more routes of api called by web: still one service each way.
		Edge{Source: "web", Target: "api", Type: EdgeHTTP, Method: "GET", Path: "/orders/{id}", Confidence: 0.9},
		Edge{Source: "web", Target: "api", Type: EdgeHTTP, Method: "DELETE", Path: "/orders/{id}", Confidence: 0.9})
	g.Sort()
	ix := g.Index(0)
	for _, tt := range []struct {
		name     string
		up, down int
	}{
		{"api", 3, 3}, // web, worker, audit -> api; api -> db, orders, audit (not the unresolved address)
		{"db", 1, 0},
		{"orders", 2, 0}, // its publisher and its consumer depend on the topic
		{"ingress:web", 0, 1},
	} {
		if up, down := ix.Degree(tt.name); up != tt.up || down != tt.down {
			t.Errorf("Degree(%s) = %d↑ %d↓, want %d↑ %d↓", tt.name, up, down, tt.up, tt.down)
		}
	}
}

func TestSortPutsDocsAndExamplesLast(t *testing.T) {
	g := &Graph{
		Services: []Service{{Name: "cart", Kind: KindService, Declared: []Evidence{
			{Repo: "shop", File: "docs/install/cart.yaml", Line: 1}, {Repo: "shop", File: "examples/minimal/cart.yaml", Line: 1},
			{Repo: "shop", File: "k8s/cart.yaml", Line: 3}}}},
		Edges: []Edge{{Source: "web", Target: "cart", Type: EdgeHTTP, Evidence: []Evidence{
			{Repo: "shop", File: "docs/operator-manual/cm.yaml", Line: 10}, {Repo: "shop", File: "web/src/api.ts", Line: 7},
			{Repo: "shop", File: "k8s/netpol.yaml", Line: 1}}}},
	}
	g.Sort()
	var got []string
	for _, ev := range g.Services[0].Declared {
		got = append(got, ev.File)
	}
	if want := "k8s/cart.yaml docs/install/cart.yaml examples/minimal/cart.yaml"; strings.Join(got, " ") != want {
		t.Errorf("declared in %q, want %q", got, want)
	}
	got = nil
	for _, ev := range g.Edges[0].Evidence {
		got = append(got, ev.File)
	}
	// The edge's own order otherwise: the call, then what corroborates it.
	if want := "web/src/api.ts k8s/netpol.yaml docs/operator-manual/cm.yaml"; strings.Join(got, " ") != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
}

func TestIsPlaceholderDomain(t *testing.T) {
	for host, want := range map[string]bool{
		"api.example.com": true, "192.0.2.1": true, "198.51.100.7": true, "203.0.113.20": true, "2001:db8::1": true,
		"your-bucket.s3.amazonaws.com": true,
		"10.0.3.17":                    false, "api.stripe.com": false, "192.0.20.1": false, "cart": false,
	} {
		if got := isPlaceholderDomain(host); got != want {
			t.Errorf("isPlaceholderDomain(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestAddressOfReferences: a URL whose scheme names an image or a file
// (ko://, docker://, oci://, file://) is no server's address; a network
// URL is.
// TestKeywordDSN: PostgreSQL's keyword/value connection strings, and
// values with = that are none.
func TestKeywordDSN(t *testing.T) {
	tests := []struct{ in, want string }{
		{"host=grades user=grader password=example port=5432 database=grading", "postgres grades 5432 grading"},
		{"host=db port=5432 dbname=app sslmode=disable", "postgres db 5432 app"},
		{"user=app host='pg.internal' dbname=app connect_timeout=10", "postgres pg.internal  app"},
		{"host=/var/run/postgresql dbname=app", "none"}, // a socket
		{"host=a,b port=5432", "none"},
		{"host=db", "none"},                     // a lone key: could be anything
		{"host=db Password=Secret!", "none"},    // not all lower-case keys
		{"--host=db --port=5432", "none"},       // flags
		{"region=eu host=db retries=3", "none"}, // no port, user or database
		{"HOST=db;Database=orders", "none"},     // ADO.NET's, read elsewhere
	}
	for _, tt := range tests {
		a, ok := keywordDSN(tt.in)
		got := "none"
		if ok {
			got = fmt.Sprintf("%s %s %s %s", a.scheme, a.host, a.port, a.db)
		}
		if got != tt.want {
			t.Errorf("keywordDSN(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAddressOfReferences(t *testing.T) {
	tests := []struct{ name, value, host string }{
		{"entrypoint-image", "ko://github.com/acme/pipeline/cmd/entrypoint", ""},
		{"BUILDER_IMAGE", "docker://registry.acme.io/shop/builder:1.2", ""},
		{"BUNDLE", "oci://ghcr.io/acme/bundles/base:v3", ""},
		{"CA_BUNDLE_URL", "file:///etc/ssl/certs/ca.pem", ""},
		{"HUB_API", "https://api.hub.acme.dev/", "api.hub.acme.dev"},
		{"BROKER_URL", "amqp://rabbit:5672", "rabbit"},
	}
	for _, tt := range tests {
		a, ok := addressOf(tt.name, tt.value)
		got := ""
		if ok {
			got = a.host
		}
		if got != tt.host {
			t.Errorf("addressOf(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.host)
		}
	}
}

func TestHostPlaceholder(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // the placeholder's name; "" for none
	}{
		{"http://{CATALOG_ADDR}/api", "CATALOG_ADDR"},
		{"http://{HOST}:8080", "HOST"},
		{"https://{catalog.addr}", "catalog.addr"},
		{"http://orders:8080/{id}", ""}, // a path's placeholder is no host
		{"http://orders:8080/items?id={id}", ""},
		{"{BASE}/api", ""}, // not absolute
		{"/orders/{id}", ""},
	} {
		m := hostPlaceholder(tt.in)
		got := ""
		if m != nil {
			got = tt.in[m[2]:m[3]]
		}
		if got != tt.want {
			t.Errorf("hostPlaceholder(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFolders: a file's folders, nearest first, and the key a folder
// is known by (a folder whose name begins with a dot keeps it).
func TestFolders(t *testing.T) {
	if got, want := strings.Join(folders("web/src/main/tasks.py"), "|"), "web/src/main|web/src|web|"; got != want {
		t.Errorf("folders = %q, want %q", got, want)
	}
	if got := folders("tasks.py"); len(got) != 1 || got[0] != "" {
		t.Errorf("folders of a root file = %q", got)
	}
	for in, want := range map[string]string{".": "", "./": "", "./app": "app", ".app": ".app", "./.docker/app/": ".docker/app", "src/../web": "web"} {
		if got := folderKey(in); got != want {
			t.Errorf("folderKey(%q) = %q, want %q", in, got, want)
		}
	}
}
