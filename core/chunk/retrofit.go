package chunk

import (
	"bytes"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// Retrofit (Java and Kotlin) declares an HTTP client as an interface
// whose methods say the request they make:
//
//	interface ParcelApi {
//	    @GET("parcels/{id}") Call<Parcel> parcel(@Path("id") String id);
//	    @HTTP(method = "DELETE", path = "parcels/{id}", hasBody = true) ...
//	}
//
// made with new Retrofit.Builder().baseUrl(URL)....build().create(
// ParcelApi.class) (Kotlin: create(ParcelApi::class.java)). Each method is
// a call through the client named after the interface; the registration
// is that client's base address (a CallClient fact), in whichever file of
// the service it is made.

// retrofitVerbs are Retrofit's request annotations and their methods
// (@HTTP names its own).
var retrofitVerbs = []struct{ annotation, method string }{
	{"GET", "GET"}, {"POST", "POST"}, {"PUT", "PUT"}, {"DELETE", "DELETE"}, {"PATCH", "PATCH"}, {"HEAD", "HEAD"},
	{"OPTIONS", "OPTIONS"}, {"HTTP", ""},
}

// retrofit returns the calls of a Java or Kotlin file's Retrofit
// interfaces and its Retrofit clients' base addresses: none unless the
// file imports Retrofit.
func (x *extractor) retrofit(root *ts.Node) []fact {
	if !bytes.Contains(x.src, []byte("retrofit2")) || !x.importsAny("retrofit2") {
		return nil
	}
	var out []fact
	var bases []*ts.Node // baseUrl(...) arguments
	var creates []*ts.Node
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 200 {
			return
		}
		if x.isInterface(n) {
			out = append(out, x.retrofitCalls(n)...) // and its static methods' builders, below
		}
		switch n.Kind() {
		case "method_invocation", "call_expression":
			switch x.calledName(n) {
			case "baseUrl":
				if a := firstArg(n); a != nil {
					bases = append(bases, a)
				}
			case "create":
				creates = append(creates, n)
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(root, 0)
	for _, n := range creates {
		a := firstArg(n)
		if a == nil {
			continue
		}
		// Foo.class (Java), Foo::class.java (Kotlin)
		api := strings.TrimSuffix(strings.TrimSuffix(a.Utf8Text(x.src), ".class"), "::class.java")
		if api == a.Utf8Text(x.src) || identRE.FindString(lastPart(api)) != lastPart(api) {
			continue
		}
		// The baseUrl of the same builder chain, else the file's one.
		var base *ts.Node
		for _, b := range bases {
			if b.StartByte() >= n.StartByte() && b.EndByte() <= n.EndByte() {
				base = b
			}
		}
		if base == nil && len(bases) == 1 {
			base = bases[0]
		}
		if base == nil {
			continue
		}
		v := x.ev.eval(base, 0)
		c := core.Call{Kind: core.CallClient, System: "Retrofit", Client: lastPart(api), Line: x.line(n), Text: x.firstLine(n)}
		target(&c, v)
		switch {
		case v.env != "":
			c.Base = "env:" + v.env
		case v.config != "":
			c.Base = "config:" + v.config
		default:
			c.Base = strings.TrimSpace(v.text)
		}
		out = append(out, fact{at: n.StartByte(), call: &c})
	}
	return out
}

// calledName is the name of the method a Java method_invocation or a
// Kotlin call_expression calls.
func (x *extractor) calledName(n *ts.Node) string {
	if f := n.ChildByFieldName("name"); f != nil && n.Kind() == "method_invocation" {
		return f.Utf8Text(x.src)
	}
	if c := callee(n); c != nil {
		return lastPart(c.Utf8Text(x.src))
	}
	return ""
}

// firstArg is the first argument of a call, nil for none.
func firstArg(n *ts.Node) *ts.Node {
	if as := args(n); len(as) > 0 {
		return as[0]
	}
	return nil
}

// retrofitCalls makes one HTTP call of each method of interface decl
// that has a Retrofit request annotation: its path relative to the
// client's base address (Retrofit resolves "parcels" against
// http://host/api/ as http://host/api/parcels).
func (x *extractor) retrofitCalls(decl *ts.Node) []fact {
	name := decl.ChildByFieldName("name")
	if name == nil {
		for i := uint(0); i < decl.NamedChildCount(); i++ {
			if c := decl.NamedChild(i); c.Kind() == "type_identifier" { // Kotlin
				name = c
				break
			}
		}
	}
	if name == nil {
		return nil
	}
	var out []fact
	for _, m := range interfaceMethods(decl) {
		for _, rv := range retrofitVerbs {
			ann, verb := rv.annotation, rv.method
			a := x.annotation(m, ann)
			if a == nil {
				continue
			}
			pos, pairs := x.annotationArgs(a)
			pathNode := pos
			if ann == "HTTP" {
				pathNode = pairs["path"]
				if mv := pairs["method"]; mv != nil {
					verb = verbOf(x.ev.eval(mv, 0).text)
				}
			}
			if verb == "" {
				continue
			}
			path := ""
			if pathNode != nil {
				if v := x.ev.eval(pathNode, 0); v.origin == core.FromLiteral || v.origin == core.FromConstant {
					path = strings.TrimSpace(v.text)
				}
			}
			c := core.Call{Kind: core.CallHTTP, System: "Retrofit", Method: verb, Client: name.Utf8Text(x.src),
				Target: "/" + strings.TrimPrefix(path, "/"), Origin: core.FromLiteral, Line: x.line(m), Text: x.firstLine(a)}
			if strings.Contains(path, "://") {
				c.Target, c.Client = path, "" // an absolute URL: not through the client's base
			}
			out = append(out, fact{at: m.StartByte(), call: &c})
			break
		}
	}
	return out
}
