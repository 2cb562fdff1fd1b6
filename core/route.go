package core

import "strings"

// RouteSegments splits a route template or a request path into its
// segments, the query and fragment left out: "/users/{id}/cart?x=1" is
// users, {id}, cart.
func RouteSegments(p string) []string {
	p = WithoutQuery(p)
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// WithoutQuery is a path or URL without its query and fragment:
// /pods?namespace={ns} is /pods.
func WithoutQuery(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		return p[:i]
	}
	return p
}

// IsRouteParam reports whether a path segment is a placeholder: {id},
// :id, *.
func IsRouteParam(s string) bool {
	return strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") || strings.HasPrefix(s, ":") || s == "*"
}

// IsRouteCatchAll reports whether a route segment takes the rest of the
// path: Go's {path...}, ASP.NET's {*slug} and {**slug}, **, FastAPI's
// {p:path}.
func IsRouteCatchAll(s string) bool {
	return strings.HasSuffix(s, "...}") || strings.HasPrefix(s, "{*") || strings.HasPrefix(s, "{**") || s == "**" || strings.HasSuffix(s, ":path}")
}

// GRPCServiceName normalizes a gRPC service name for matching: the last
// dotted part, lower case, without a Service suffix (cart.v1.CartService,
// CartService and Cart are all "cart").
func GRPCServiceName(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.ToLower(s)
	return strings.TrimSuffix(s, "service")
}
