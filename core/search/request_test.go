package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"coderag/core"
)

func TestParseRequests(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       string // "METHOD path" or "path!" (exact), joined by "; "
	}{
		{"access log", `10.2.0.7 - - [24/Nov/2026:07:59:01 +0000] "GET /api/v1/orders/8812/items?page=2 HTTP/1.1" 502 0 "-" "curl/8.5.0"`, "GET /api/v1/orders/8812/items"},
		{"nginx error log", `upstream timed out (110) while reading response header from upstream, request: "POST /checkout/confirm HTTP/1.1", upstream: "http://10.0.3.17:8080/checkout/confirm"`, "POST /checkout/confirm; /checkout/confirm!"},
		{"client log", "POST https://payments.internal:8443/v2/charges/ch_123/refund -> 503 Service Unavailable", "POST /v2/charges/ch_123/refund"},
		{"curl -X", "curl -s -X DELETE 'https://shop.example.com/api/carts/42?force=1' -H 'Authorization: Bearer x'", "DELETE /api/carts/42"},
		{"curl --request=", "curl --request=PATCH http://localhost:8080/users/7", "PATCH /users/7"},
		{"curl data is POST", `curl -sf localhost:3000/orders -d '{"sku":"A1"}' | jq .`, "POST /orders"},
		{"curl GET", "curl http://cart:8080/cart/items/9", "GET /cart/items/9"},
		{"curl, another method", "curl -X PURGE https://cdn.example.com/assets/app.css", "/assets/app.css"},
		{"logfmt", `level=error msg="request failed" method=PUT path=/feeds/42/refresh status=500 duration=3.2s`, "PUT /feeds/42/refresh"},
		{"json log", `{"level":"error","http.method":"GET","http.target":"/reports/2026-11/export","status":504}`, "GET /reports/2026-11/export"},
		{"traefik json", `{"ClientHost":"10.0.0.3","RequestMethod":"DELETE","RequestPath":"/api/sessions/abc","DownstreamStatus":502}`, "DELETE /api/sessions/abc"},
		{"cloud load balancer", `httpRequest: {requestMethod: "POST", requestUrl: "https://shop.example.com/cart/checkout?x=1", status: 504}`, "POST /cart/checkout"},
		{"otel semconv", `http.request.method=PATCH url.path=/v2/profiles/42 http.response.status_code=500`, "PATCH /v2/profiles/42"},
		{"caddy", `{"request":{"method":"GET","uri":"/downloads/latest?os=linux"},"status":503}`, "GET /downloads/latest"},
		{"file keys are not requests", `level=warn msg="rotate" log_path=/var/log/app/current file_path=/srv/data/x referrer=https://news.example.com/item/1`, ""},
		{"a path key holding a file", `{"path":"/etc/app/settings.yaml","error":"permission denied"}`, ""},
		{"grpc full method", `rpc error: code = Unavailable desc = upstream connect error; :path=/shop.cart.v1.CartService/AddItem grpc-status 14`, "GRPC /shop.cart.v1.CartService/AddItem"},
		{"grpc interceptor log", `level=error msg="finished call" grpc.service=shop.cart.v1.CartService grpc.method=EmptyCart grpc.code=Internal`, "GRPC /shop.cart.v1.CartService/EmptyCart"},
		{"otel rpc fields", `{"rpc.system":"grpc","rpc.service":"payments.Charger","rpc.method":"/payments.Charger/Charge"}`, "GRPC /payments.Charger/Charge"},
		{"a web page is not grpc", `"GET /Home/Index HTTP/1.1" 500`, "GET /Home/Index"},
		{"url in a sentence", "users see 500s on https://app.example.com/settings/billing since the deploy", "/settings/billing!"},
		{"bare path", "why does /v1/feeds/refresh return 404?", "/v1/feeds/refresh!"},
		{"percent-encoded", `"GET /files/report%20q3/download HTTP/1.1" 500`, "GET /files/report q3/download"},
		{"template in a question", "which handler serves GET /users/{id}/profile", "GET /users/{id}/profile"},
		{"twice, once", "GET /a/b 500\nGET /a/b 500\nGET /a/c 200", "GET /a/b; GET /a/c"},
		// Not requests.
		{"lower-case verb", "how do we get /tmp cleaned", ""},
		{"file paths", `File "/srv/app/orders/views.py", line 6, in checkout; see /etc/nginx/nginx.conf`, ""},
		{"root only", `"GET / HTTP/1.1" 200`, ""},
		{"node frame", "at Router.handle (/app/node_modules/express/lib/router/index.js:284:7)", ""},
		{"plain question", "where is the cart total computed", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range ParseRequests(tt.text) {
				s := strings.TrimSpace(r.Method + " " + r.Path)
				if r.Exact {
					s += "!"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, "; "); g != tt.want {
				t.Errorf("ParseRequests(%q) = %q, want %q", tt.text, g, tt.want)
			}
		})
	}
}

// TestParseRequestsLarge: a large paste parses in bounded work and names
// at most maxRequests requests.
func TestParseRequestsLarge(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "10.0.0.1 - - [24/Nov/2026:07:59:01 +0000] \"GET /items/%d/x%d HTTP/1.1\" 500 0\n", i, i)
	}
	if got := ParseRequests(b.String()); len(got) != maxRequests {
		t.Errorf("ParseRequests(1 MB of log) = %d requests, want %d", len(got), maxRequests)
	}
}

func TestMatchRequest(t *testing.T) {
	routes := []core.RouteAt{
		{File: "api/routes.go", Route: core.Route{Method: "GET", Path: "/feeds/{feedID}"}},
		{File: "api/routes.go", Route: core.Route{Method: "PUT", Path: "/feeds/{feedID}/refresh"}},
		{File: "api/routes.go", Route: core.Route{Method: "GET", Path: "/feeds/counters"}},
		{File: "api/routes.go", Route: core.Route{Method: "ANY", Path: "/static/{path...}"}},
		{File: "api/routes.go", Route: core.Route{Method: "GET", Path: "/{slug}"}},
		{File: "api/routes.go", Route: core.Route{Method: "ANY", Path: "/{path...}"}},
		{File: "api/routes.go", Route: core.Route{Method: "GRPC", Path: "feeds.v1.FeedService"}},
		{File: "cmd/server/main.go", Route: core.Route{Method: "GRPC", Path: "CartService"}},
		{File: "api/routes_test.go", Route: core.Route{Method: "GET", Path: "/users/{id}"}},
		{File: "users/routes.go", Route: core.Route{Method: "GET", Path: "/users/{id}"}},
		{File: "web/admin/routes.js", Route: core.Route{Method: "GET", Path: "/posts/{id}"}},
		{File: "web/content/routes.js", Route: core.Route{Method: "GET", Path: "/posts/{id}"}},
		{File: "a/x.go", Route: core.Route{Method: "GET", Path: "/dup/{a}"}},
		{File: "b/x.go", Route: core.Route{Method: "GET", Path: "/dup/{b}"}},
		{File: "c/x.go", Route: core.Route{Method: "GET", Path: "/dup/{c}"}},
		{File: "d/x.go", Route: core.Route{Method: "GET", Path: "/dup/{d}"}},
		{File: "e/x.go", Route: core.Route{Method: "GET", Path: "/dup/{e}"}},
	}
	for _, tt := range []struct {
		req  Request
		want string
	}{
		{Request{Method: "GET", Path: "/feeds/42"}, "GET /feeds/{feedID}"},
		{Request{Method: "GET", Path: "/feeds/counters"}, "GET /feeds/counters"}, // the literal beats the placeholder
		{Request{Method: "PUT", Path: "/feeds/42/refresh"}, "PUT /feeds/{feedID}/refresh"},
		{Request{Method: "POST", Path: "/feeds/42/refresh"}, ""}, // another method
		{Request{Path: "/feeds/42/refresh", Exact: true}, "PUT /feeds/{feedID}/refresh"},
		{Request{Method: "HEAD", Path: "/feeds/42"}, "GET /feeds/{feedID}"},
		{Request{Method: "PUT", Path: "/v1/feeds/42/refresh"}, "PUT /feeds/{feedID}/refresh"}, // a prefix the route lacks
		{Request{Path: "/v1/feeds/42/refresh", Exact: true}, ""},                              // not without a method
		{Request{Method: "PUT", Path: "/a/b/c/d/feeds/42/refresh"}, ""},                       // too long a prefix
		{Request{Method: "GET", Path: "/feeds/{id}"}, "GET /feeds/{feedID}"},                  // a template asked
		{Request{Method: "GET", Path: "/{x}/counters"}, ""},                                   // a placeholder where the route has a word
		{Request{Method: "GET", Path: "/static/css/site.css"}, "ANY /static/{path...}"},       // a catch-all after a literal
		{Request{Method: "GET", Path: "/about"}, ""},                                          // placeholders and catch-alls alone name nothing
		{Request{Method: "GET", Path: "/users/7"}, "GET /users/{id}"},                         // the test file's copy loses
		{Request{Method: "GET", Path: "/dup/1"}, ""},
		{Request{Method: "GET", Path: "/api/content/posts/1"}, "GET /posts/{id}"},      // the prefix names content/routes.js's folder
		{Request{Method: "GET", Path: "/posts/1"}, "GET /posts/{id}; GET /posts/{id}"}, // five as good: ambiguous
		{Request{Method: "GET", Path: "/feeds.v1.FeedService"}, ""},                    // gRPC services are not paths
	} {
		var got []string
		for _, r := range matchRequest(tt.req, routes) {
			got = append(got, r.Method+" "+r.Path)
		}
		if g := strings.Join(got, "; "); g != tt.want {
			t.Errorf("matchRequest(%+v) = %q, want %q", tt.req, g, tt.want)
		}
	}
}

// TestMatchRequestPrefixDirs: of two routes alike, the one whose file
// sits in a folder a skipped prefix segment names serves the request.
func TestMatchRequestPrefixDirs(t *testing.T) {
	routes := []core.RouteAt{
		{File: "web/admin/routes.js", Route: core.Route{Method: "GET", Path: "/posts/{id}"}},
		{File: "web/content/routes.js", Route: core.Route{Method: "GET", Path: "/posts/{id}"}},
	}
	for p, want := range map[string]string{"/api/content/posts/1": "web/content/routes.js", "/blog/api/admin/posts/1": "web/admin/routes.js"} {
		got := matchRequest(Request{Method: "GET", Path: p}, routes)
		if len(got) != 1 || got[0].File != want {
			t.Errorf("matchRequest(GET %s) = %+v, want the route of %s", p, got, want)
		}
	}
}

// TestImplements: a chunk implements a gRPC service's method when its
// scope or the declarations beside it hold a type named for the service,
// whatever the language's suffix; the method's own name does not count.
func TestImplements(t *testing.T) {
	for _, tt := range []struct {
		scope, symbols, service, method string
		want                            bool
	}{
		{"cart/server.go > cartServer > AddItem", "AddItem", "shop.v1.CartService", "AddItem", true},
		{"src/CartServiceImpl.java > CartServiceImpl > addItem", "addItem", "shop.v1.CartService", "AddItem", true},
		{"cart/servicer.py > CartServicer > AddItem", "AddItem", "shop.CartService", "AddItem", true},
		{"v3rpc/lease.go", "LeaseServer, NewLeaseServer, LeaseGrant, LeaseRevoke", "etcdserverpb.Lease", "LeaseGrant", true},
		{"v3rpc/watch.go > watchServer > Watch", "Watch", "etcdserverpb.Watch", "Watch", true},
		{"mock/store_recorder.go", "StoreRecorder, Watch, Get", "etcdserverpb.Watch", "Watch", false}, // the method is not the type
		{"proxy/kv.go > kvProxy > Range", "Range", "etcdserverpb.KV", "Range", false},
		{"client/cart_client.go > CartClient > AddItem", "AddItem", "shop.CartService", "AddItem", false},
	} {
		c := core.Chunk{ContextPrefix: tt.scope, SymbolName: tt.symbols}
		if got := implements(c, tt.service, tt.method); got != tt.want {
			t.Errorf("implements(%q, %q, %s/%s) = %v, want %v", tt.scope, tt.symbols, tt.service, tt.method, got, tt.want)
		}
	}
}

func TestHandlerName(t *testing.T) {
	for in, want := range map[string]string{
		"handler.refreshFeed":    "refreshFeed",
		"s.getLinkStatus":        "getLinkStatus",
		"login(s.ds)":            "login",
		"rest.GetAll(ctor)":      "GetAll",
		"OrdersController::show": "show",
		"view_origin":            "view_origin",
		"(inline)":               "",
		"default":                "",
		"":                       "",
		"[auth, create]":         "",
	} {
		if got, _ := handlerName(in); got != want {
			t.Errorf("handlerName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"login(s.ds)": true, "http(api.posts.read)": true, "views.RefundList.as_view()": false,
		"handler.refreshFeed": false, "(inline)": false} {
		if _, built := handlerName(in); built != want {
			t.Errorf("handlerName(%q) built = %v, want %v", in, built, want)
		}
	}
}

// FuzzParseRequests: any text parses without panicking into at most
// maxRequests requests, each with a path of one segment or more and a
// method that is one of HTTP's or none.
func FuzzParseRequests(f *testing.F) {
	for _, s := range []string{
		`"GET /a/b?x=1 HTTP/1.1" 500`,
		"curl -X PUT http://h:1/a/%zz",
		"curl localhost:8080/a -d x",
		`{"method":"POST","path":"/a/b"}`,
		"see https://h/a/b#c and /x/y/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		reqs := ParseRequests(s)
		if len(reqs) > maxRequests {
			t.Fatalf("ParseRequests(%q) = %d requests", s, len(reqs))
		}
		for _, r := range reqs {
			if len(core.RouteSegments(r.Path)) == 0 || !strings.HasPrefix(r.Path, "/") {
				t.Fatalf("ParseRequests(%q) gave path %q", s, r.Path)
			}
			switch r.Method {
			case "", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "GRPC":
			default:
				t.Fatalf("ParseRequests(%q) gave method %q", s, r.Method)
			}
		}
	})
}

func TestTakes(t *testing.T) {
	for _, tt := range []struct {
		sig, typ string
		want     bool
	}{
		{"func (s *APIV1Service) UpdateMemo(ctx context.Context, request *v1pb.UpdateMemoRequest) (*v1pb.Memo, error)", "UpdateMemoRequest", true},
		{"func (s *APIV1Service) BatchUpdateMemo(ctx context.Context, r *v1pb.BatchUpdateMemoRequest) error", "UpdateMemoRequest", false},
		{"public void updateMemo(UpdateMemoRequest request, StreamObserver<Memo> out)", "UpdateMemoRequest", true},
		{"", "UpdateMemoRequest", false},
	} {
		if got := takes(tt.sig, tt.typ); got != tt.want {
			t.Errorf("takes(%q, %q) = %v, want %v", tt.sig, tt.typ, got, tt.want)
		}
	}
	if m := rpcRequestRE.FindStringSubmatch("rpc Watch(stream etcdserverpb.WatchRequest) returns (stream WatchResponse)"); m == nil || lastDotted(m[1]) != "WatchRequest" {
		t.Errorf("rpcRequestRE on a streaming rpc = %v", m)
	}
}

// TestCondense: a long text is searched by its most telling terms, words
// before values, the most repeated first, in the text's order; a short
// one as it is.
func TestCondense(t *testing.T) {
	if got, ok := condense("why does checkout time out"); ok || got != "why does checkout time out" {
		t.Errorf("condense(short) = %q, %v", got, ok)
	}
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "10.0.0.%d GET /orders/%d upstream timeout cart-service ", i%250, i)
	}
	got, ok := condense(b.String())
	if !ok {
		t.Fatal("condense(long) did not condense")
	}
	ts := Terms(got)
	if len(ts) > maxQueryTerms || len(ts) == 0 {
		t.Fatalf("condense(long) = %d terms", len(ts))
	}
	for _, want := range []string{"GET", "upstream", "timeout", "cart-service"} {
		if !slices.Contains(ts, want) {
			t.Errorf("condense(long) = %q, want %s kept", got, want)
		}
	}
	if values := len(ts) - 4; values > maxQueryTerms/4 {
		t.Errorf("condense(long) = %q: %d values, want a quarter at most", got, values)
	}
	if !strings.Contains(got, "GET upstream timeout cart-service") {
		t.Errorf("condense(long) = %q, want the words in the text's order", got)
	}
	// Few distinct terms said many times: each once.
	if got, ok := condense(strings.Repeat("connection refused ", 100)); !ok || got != "connection refused" {
		t.Errorf("condense(repeats) = %q, %v", got, ok)
	}
}
