package chunk

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

func TestApplyMounts(t *testing.T) {
	r := func(file, router, method, p string) core.RouteAt {
		return core.RouteAt{File: file, Route: core.Route{Method: method, Path: p, Router: router}}
	}
	m := func(file, into, prefix, router, from string) FileMount {
		return FileMount{File: file, Mount: core.Mount{Prefix: prefix, Router: router, From: from, Into: into}}
	}
	tests := []struct {
		name   string
		routes []core.RouteAt
		mounts []FileMount
		want   []string
	}{
		{
			"express named routers",
			[]core.RouteAt{r("src/routes/cart.ts", "cartRouter", "GET", "/"), r("src/routes/cart.ts", "cartRouter", "POST", "/items"),
				r("src/routes/account.ts", "accountRouter", "GET", "/me"), r("src/server.ts", "app", "GET", "/healthz")},
			[]FileMount{m("src/server.ts", "app", "/api/cart", "cartRouter", "./routes/cart"), m("src/server.ts", "app", "/api", "accountRouter", "./routes/account")},
			[]string{"GET /api/cart", "GET /api/me", "GET /healthz", "POST /api/cart/items"},
		},
		{
			"default export under another name, index file",
			[]core.RouteAt{r("src/routes/orders/index.js", "router", "GET", "/:id")},
			[]FileMount{m("src/app.js", "app", "/orders", "orders", "./routes/orders")},
			[]string{"GET /orders/{id}"},
		},
		{
			"chained mounts",
			[]core.RouteAt{r("src/api.ts", "api", "GET", "/ping"), r("src/cart.ts", "cart", "GET", "/")},
			[]FileMount{m("src/server.ts", "app", "/api", "api", "./api"), m("src/api.ts", "api", "/cart", "cart", "./cart")},
			[]string{"GET /api/cart", "GET /api/ping"},
		},
		{
			"python include_router with a relative import",
			[]core.RouteAt{r("app/routers/users.py", "router", "GET", "/users/{id}")},
			[]FileMount{m("app/main.py", "app", "/v1", "users_router", ".routers.users")},
			[]string{"GET /v1/users/{id}"},
		},
		{
			"router mounted twice",
			[]core.RouteAt{r("src/r.ts", "r", "GET", "/x")},
			[]FileMount{m("src/server.ts", "app", "/a", "r", "./r"), m("src/server.ts", "app", "/b", "r", "./r")},
			[]string{"GET /a/x", "GET /b/x"},
		},
		{
			"mount of an unknown module changes nothing",
			[]core.RouteAt{r("src/r.ts", "r", "GET", "/x")},
			[]FileMount{m("src/server.ts", "app", "/a", "other", "./other")},
			[]string{"GET /x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, fr := range ApplyMounts(tt.routes, tt.mounts) {
				got = append(got, fr.Method+" "+fr.Path)
			}
			sort.Strings(got)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ApplyMounts mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestNormPath(t *testing.T) {
	for in, want := range map[string]string{
		`"/users/<user_id>/profile"`: "/users/{user_id}/profile",
		"/users/<int:id>":            "/users/{id}",
		"/products/:id":              "/products/{id}",
		"api/cart/{userId:int}":      "/api/cart/{userId}",
		"/files/{path...}":           "/files/{path}",
		"/api/":                      "/api",
		"/":                          "/",
		"":                           "/",
		"//a//b/":                    "/a/b",
		"{*slug}":                    "/{slug}",
		"/items/:id?":                "/items/{id}",
	} {
		if got := normPath(in); got != want {
			t.Errorf("normPath(%q) = %q, want %q", in, got, want)
		}
	}
}
