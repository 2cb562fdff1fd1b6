package chunk

import (
	ts "github.com/tree-sitter/go-tree-sitter"
)

// chainRoot is the name a chain of calls starts from: client of
// client.R().SetBody(b).Post(url); "" when it starts from a call
// (resty.New().R().Get(url) starts from the package: resty).
func chainRoot(n *ts.Node, src []byte) string {
	cur := n
	for depth := 0; cur != nil && depth < 64; depth++ {
		switch cur.Kind() {
		case "identifier":
			return cur.Utf8Text(src)
		case "call_expression":
			cur = cur.ChildByFieldName("function")
		case "selector_expression":
			cur = cur.ChildByFieldName("operand")
		default:
			return ""
		}
	}
	return ""
}

// okhttpMethod reads the method of an OkHttp request from the builder
// chain its .url(...) call n is in (new Request.Builder().url(u).post(b)
// or .post(b).url(u), .method("PATCH", b)): GET when the chain sets none.
func okhttpMethod(n *ts.Node, src []byte) string {
	verb := func(m *ts.Node) string {
		name := methodName(m, src)
		if name == "method" {
			if as := args(m); len(as) > 0 {
				return verbOf(as[0].Utf8Text(src))
			}
		}
		return builderVerb(name)
	}
	// the calls after .url(...), up to build()
	for p := chainNext(n); p != nil; p = chainNext(p) {
		if v := verb(p); v != "" {
			return v
		}
	}
	// and before it
	for cur, depth := n.ChildByFieldName("object"), 0; cur != nil && cur.Kind() == "method_invocation" && depth < 32; depth++ {
		if v := verb(cur); v != "" {
			return v
		}
		cur = cur.ChildByFieldName("object")
	}
	return "GET"
}
