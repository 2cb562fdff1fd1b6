package chunk

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// jaxrsSteps are the builder methods between a target and its request
// that neither add to the path nor send it.
var jaxrsSteps = map[string]bool{"request": true, "header": true, "headers": true, "accept": true, "acceptLanguage": true,
	"acceptEncoding": true, "queryParam": true, "matrixParam": true, "property": true, "cookie": true, "cacheControl": true,
	"register": true, "async": true, "rx": true, "resolveTemplate": true, "resolveTemplates": true}

// jaxrs reads the rest of a JAX-RS client call (javax.ws.rs.client,
// jakarta.ws.rs.client) from its client.target(url): the segments its
// .path(...) calls add, and the method that sends it (.get(), .post(e),
// .method("PATCH")), chained or called on the variables the target and
// its request builder are held in, within the same method. ok is false
// when no method was found; the segments of the chain are still given.
func (x *extractor) jaxrs(cur *ts.Node, hops int) (segments []*ts.Node, method string, ok bool) {
	for p := chainNext(cur); p != nil; p = chainNext(cur) {
		name := methodName(p, x.src)
		as := args(p)
		switch {
		case name == "path" && len(as) > 0:
			segments = append(segments, as[0])
		case builderVerb(name) != "":
			return segments, builderVerb(name), true
		case name == "method" && len(as) > 0:
			return segments, verbOf(x.ev.eval(as[0], 0).text), true
		case !jaxrsSteps[name]:
			return segments, "", false
		}
		cur = p
	}
	// WebTarget t = client.target(url); ... t.request().get()
	d := cur.Parent()
	if hops >= 2 || d == nil || d.Kind() != "variable_declarator" {
		return segments, "", false
	}
	nm := d.ChildByFieldName("name")
	if nm == nil {
		return segments, "", false
	}
	for _, use := range x.usesAfter(d, nm.Utf8Text(x.src)) {
		if more, m, ok := x.jaxrs(use, hops+1); ok {
			return append(segments, more...), m, true
		}
	}
	return segments, "", false
}

// usesAfter lists the identifiers named name after declarator d, in the
// method around it, that are the object of a method call.
func (x *extractor) usesAfter(d *ts.Node, name string) []*ts.Node {
	body := d.Parent()
	for body != nil && body.Kind() != "method_declaration" && body.Kind() != "constructor_declaration" {
		body = body.Parent()
	}
	if body == nil {
		return nil
	}
	var out []*ts.Node
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 200 || len(out) >= 8 {
			return
		}
		if n.Kind() == "method_invocation" && n.StartByte() > d.EndByte() {
			if o := n.ChildByFieldName("object"); o != nil && o.Kind() == "identifier" && o.Utf8Text(x.src) == name {
				out = append(out, o)
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(body, 0)
	return out
}

// chainNext is the method call made on the result of call n
// (b.request() of b.path("x") in b.path("x").request()), nil when none is.
func chainNext(n *ts.Node) *ts.Node {
	p := n.Parent()
	if p == nil || p.Kind() != "method_invocation" {
		return nil
	}
	if o := p.ChildByFieldName("object"); o == nil || keyOf(o) != keyOf(n) {
		return nil
	}
	return p
}

// methodName is the name a Java method invocation calls.
func methodName(m *ts.Node, src []byte) string {
	if nm := m.ChildByFieldName("name"); nm != nil {
		return nm.Utf8Text(src)
	}
	return ""
}

// builderVerb is the HTTP method a request builder's method of that name
// sets (get, post, ... of JAX-RS's Invocation.Builder and OkHttp's
// Request.Builder), "" for any other.
func builderVerb(name string) string {
	if v := verbWords[name]; v != "ANY" {
		return v
	}
	return ""
}

// joinSegments appends path segments to an address, one slash between.
func joinSegments(base string, segs []string) string {
	for _, s := range segs {
		base = strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(s, "/")
	}
	return base
}
