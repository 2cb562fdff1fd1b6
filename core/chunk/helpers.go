package chunk

import (
	"bytes"
	"strings"
	"unicode"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// httpSite is an HTTP call the facts query found, kept for helperCalls:
// the call, its URL's value and the node its method was read from.
// A tentative site is a call the query matched whose client is no known
// HTTP client and whose address is no URL or path (session.post(url)):
// no call of its own, but one where a caller gives it an address.
type httpSite struct {
	call      ts.Node
	verb      *ts.Node
	v         value
	c         core.Call
	at        uint
	tentative bool
}

// helper is a function of the file whose HTTP call takes its address
// from a parameter: send(url, **kw) around requests.get(url), api(path)
// around fetch(BASE + path), do(method, path) around http.NewRequest.
type helper struct {
	name   string
	fn     ts.Node
	params []string
	url    int // the parameter the address holds
	method int // the parameter the method is, or -1
	init   int // fetch's: the parameter the options object is, or -1
	site   httpSite
}

// maxHelperDepth bounds helpers calling helpers (get_json(url) calling
// send(url)), maxFollows the calls of helpers followed in one file.
const (
	maxHelperDepth = 3
	maxFollows     = 2000
)

// helperCalls follows the HTTP calls whose address is a parameter of the
// function around them to the calls of that function in the same file:
// each call whose argument evaluates to an address or a path is an HTTP
// call of its own, at the caller's line, with the helper's method or the
// one it is given. A helper's own call is left out when every call of
// the helper in the file was followed; a helper some call gives nothing
// known keeps it (an address the file cannot tell).
func (x *extractor) helperCalls(root *ts.Node, facts []fact, sites []httpSite) []fact {
	if len(sites) == 0 {
		return facts
	}
	live := map[uint]bool{}
	for _, f := range facts {
		if f.call != nil && f.call.Kind == core.CallHTTP {
			live[f.at] = true
		}
	}
	var calls map[string][]callRef
	var defs map[string]int
	drop := map[uint]bool{}
	budget := maxFollows
	for depth := 0; depth < maxHelperDepth && len(sites) > 0; depth++ {
		var helpers []helper
		for _, s := range sites {
			if !live[s.at] && !s.tentative {
				continue
			}
			// The file must name the function again, followed by its
			// arguments, before its calls are looked for.
			if h, ok := x.helperOf(s); ok && bytes.Count(x.src, []byte(h.name)) >= 2 && bytes.Contains(x.src, []byte(h.name+"(")) {
				helpers = append(helpers, h)
			}
		}
		if len(helpers) == 0 {
			break
		}
		if calls == nil {
			calls, defs = x.callsByName(root)
		}
		sites = nil
		for _, h := range helpers {
			if defs[h.name] != 1 || budget < len(calls[h.name]) {
				continue // several functions of the name: which one a call calls is not known
			}
			budget -= len(calls[h.name])
			n, followed := 0, 0
			for _, c := range calls[h.name] {
				if !x.calls(c, h) {
					continue
				}
				n++
				f, s, ok := x.follow(c.node, h)
				if !ok {
					continue
				}
				followed++
				facts = append(facts, f)
				live[f.at] = true
				sites = append(sites, s)
			}
			if n > 0 && followed == n {
				drop[h.site.at] = true
			}
		}
	}
	if len(drop) == 0 {
		return facts
	}
	kept := facts[:0]
	for _, f := range facts {
		if f.call == nil || f.call.Kind != core.CallHTTP || !drop[f.at] {
			kept = append(kept, f)
		}
	}
	return kept
}

// helperOf reports whether s's address is a parameter of the function
// around it, and that function.
func (x *extractor) helperOf(s httpSite) (helper, bool) {
	if !leadingPlaceholder(s.v.text) {
		return helper{}, false
	}
	fn, name, params := enclosingFunction(&s.call, x.src)
	if name == "" || len(params) == 0 {
		return helper{}, false
	}
	h := helper{name: name, fn: *fn, params: params, url: -1, method: -1, init: -1, site: s}
	var init string
	if as := args(&s.call); s.c.System == "fetch" && len(as) > 1 && as[1].Kind() == "identifier" {
		init = as[1].Utf8Text(x.src) // fetch(BASE + path, init)
	}
	for i, p := range params {
		if p == "" || p == "self" || p == "cls" || p == "this" {
			continue
		}
		if at := strings.Index(s.v.text, "{"+p+"}"); at >= 0 && !strings.HasSuffix(s.v.text[:at], "/") {
			// (a parameter after a slash is a path segment, an id:
			// "/orders/{id}")
			if h.url >= 0 {
				return helper{}, false // two parameters: base and path are both given; not followed
			}
			h.url = i
		}
		if s.verb != nil && s.verb.Kind() == "identifier" && s.verb.Utf8Text(x.src) == p {
			h.method = i
		}
		if init == p {
			h.init = i
		}
	}
	return h, h.url >= 0
}

// leadingPlaceholder reports whether an address holds a placeholder that
// does not follow a slash (one that can be a parameter helperOf takes).
func leadingPlaceholder(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] == '{' && (i == 0 || t[i-1] != '/') {
			return true
		}
	}
	return false
}

// calls reports whether call c, named as h's function, calls it, not
// from within it.
func (x *extractor) calls(c callRef, h helper) bool {
	if c.node.StartByte() >= h.fn.StartByte() && c.node.EndByte() <= h.fn.EndByte() {
		return false
	}
	// A function is called by its name, a method on an object (a helper
	// named get is not every d.get(key) of the file); Java and C# call
	// their own methods either way.
	if methodKind(&h.fn) == "function" {
		return !c.qualified
	}
	return c.qualified || x.l.name == "java" || x.l.name == "csharp"
}

// methodKind says whether fn is a "method" (of a class, or with a Go
// receiver) or a plain "function".
func methodKind(fn *ts.Node) string {
	switch fn.Kind() {
	case "method_declaration", "method_definition":
		return "method"
	case "function_definition": // Python: a method when a class holds it
		for p := fn.Parent(); p != nil; p = p.Parent() {
			switch p.Kind() {
			case "class_definition":
				return "method"
			case "function_definition":
				return "function"
			}
		}
	}
	return "function"
}

// follow makes the HTTP call of c, a call of helper h, when the argument
// h's address is given evaluates to an address or a path.
func (x *extractor) follow(c *ts.Node, h helper) (fact, httpSite, bool) {
	arg := x.argFor(c, h, h.url)
	if arg == nil {
		return fact{}, httpSite{}, false
	}
	av := x.ev.eval(arg, 0)
	if !addressLike(av) {
		return fact{}, httpSite{}, false
	}
	p := "{" + h.params[h.url] + "}"
	v := h.site.v
	switch {
	case v.text == p:
		v = av
	case strings.HasPrefix(v.text, p):
		rest := v.text[len(p):]
		v = av
		v.text += rest
	default:
		v.text = strings.Replace(v.text, p, av.text, 1)
	}
	call := h.site.c
	call.Line, call.Text, call.Base = x.line(c), x.firstLine(c), ""
	if h.method >= 0 {
		call.Method = x.verbArg(x.argFor(c, h, h.method))
	}
	if h.init >= 0 {
		call.Method = "GET"
		if o := x.argFor(c, h, h.init); o != nil && o.Kind() == "object" {
			call.Method = x.verbArg(x.ev.objectKey(o, "method"))
		}
	}
	target(&call, v)
	if h.site.tentative && !urlish(call.Target) {
		return fact{}, httpSite{}, false
	}
	x.clientBase(&call)
	f := fact{at: c.StartByte(), key: arg.StartByte() + 1, call: &call}
	return f, httpSite{call: *c, verb: nil, v: v, c: call, at: c.StartByte()}, true
}

// verbArg is the HTTP method a node names: a method's name (post,
// PostAsync), "POST", http.MethodPost, HttpMethod.Delete, or a constant
// holding one; GET for none.
func (x *extractor) verbArg(n *ts.Node) string {
	if n == nil {
		return "GET"
	}
	if v := verbOf(n.Utf8Text(x.src)); v != "" {
		return v
	}
	if v := x.ev.eval(n, 0); v.origin == core.FromLiteral || v.origin == core.FromConstant {
		if verb := verbOf(v.text); verb != "" {
			return verb
		}
	}
	return "GET"
}

// addressLike reports whether v is worth a call: a path or URL written
// out (a slash and a word outside its placeholders: "/quotes/{id}", not
// "{root}/{id}"), or an address from the environment or configuration.
func addressLike(v value) bool {
	if !v.known() {
		return false
	}
	if v.env != "" || v.config != "" {
		return true
	}
	t := strings.TrimSpace(v.text)
	// the text outside placeholders must hold a path or a scheme
	var lit strings.Builder
	depth := 0
	for _, r := range t {
		switch {
		case r == '{':
			depth++
		case r == '}' && depth > 0:
			depth--
		case depth == 0:
			lit.WriteRune(r)
		}
	}
	l := lit.String()
	return strings.Contains(l, "/") && strings.IndexFunc(l, unicode.IsLetter) >= 0
}

// argFor returns the argument call c gives h's parameter i: by position
// (a method called on its object skips Python's self), or by keyword
// (Python's name=value).
func (x *extractor) argFor(c *ts.Node, h helper, i int) *ts.Node {
	want := h.params[i]
	as := args(c)
	pos := 0
	if len(h.params) > 0 && (h.params[0] == "self" || h.params[0] == "cls") {
		if f := callee(c); f != nil && f.Kind() == "attribute" {
			pos = 1
		}
	}
	for _, a := range as {
		if a.Kind() == "keyword_argument" {
			if n := a.ChildByFieldName("name"); n != nil && n.Utf8Text(x.src) == want {
				return a.ChildByFieldName("value")
			}
			continue
		}
		e, ok := positional(a)
		if !ok {
			return nil // positions after it are unknown
		}
		if pos == i {
			return e
		}
		pos++
	}
	return nil
}

// callRef is a call node with the name it calls (the last part of the
// callee: do of c.do) and whether that name was qualified.
type callRef struct {
	node      *ts.Node
	qualified bool
}

// callsByName lists the call nodes of a tree by the name they call, and
// counts the functions and methods defined under each name.
func (x *extractor) callsByName(root *ts.Node) (map[string][]callRef, map[string]int) {
	out, defs := map[string][]callRef{}, map[string]int{}
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 400 {
			return
		}
		switch n.Kind() {
		case "call", "call_expression", "method_invocation", "invocation_expression":
			if name, qualified := calledName(n, x.src); name != "" {
				out[name] = append(out[name], callRef{n, qualified})
			}
		case "function_definition", "function_declaration", "method_declaration", "method_definition", "local_function_statement":
			if nm := n.ChildByFieldName("name"); nm != nil {
				defs[nm.Utf8Text(x.src)]++
			}
		case "arrow_function", "function_expression", "function":
			if d := n.Parent(); d != nil && d.Kind() == "variable_declarator" {
				if nm := d.ChildByFieldName("name"); nm != nil {
					defs[nm.Utf8Text(x.src)]++
				}
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(root, 0)
	return out, defs
}

// calledName is the name a call calls, the last part of its callee (do
// of c.do(...), get of self.get(...)), and whether it was qualified by
// an object; "" for a callee that is no name (a function expression).
func calledName(n *ts.Node, src []byte) (string, bool) {
	if n.Kind() == "method_invocation" { // Java
		if nm := n.ChildByFieldName("name"); nm != nil {
			return nm.Utf8Text(src), n.ChildByFieldName("object") != nil
		}
		return "", false
	}
	f := callee(n)
	if f == nil {
		return "", false
	}
	switch f.Kind() {
	case "identifier":
		return f.Utf8Text(src), false
	case "member_expression", "attribute", "selector_expression", "member_access_expression", "field_access":
		for _, field := range []string{"property", "attribute", "field", "name"} {
			if c := f.ChildByFieldName(field); c != nil {
				return c.Utf8Text(src), true
			}
		}
	}
	return "", false
}

// enclosingFunction returns the named function or method around n, its
// name and its parameters' names in order (Python's self included; a
// parameter without a simple name, such as a destructured one, is "").
// An anonymous function is named after the variable it is assigned to.
func enclosingFunction(n *ts.Node, src []byte) (*ts.Node, string, []string) {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Kind() {
		case "function_definition", "function_declaration", "method_declaration", "method_definition",
			"arrow_function", "function_expression", "function", "local_function_statement":
		default:
			continue
		}
		name := ""
		if nm := p.ChildByFieldName("name"); nm != nil {
			name = nm.Utf8Text(src)
		} else if d := p.Parent(); d != nil && d.Kind() == "variable_declarator" {
			if nm := d.ChildByFieldName("name"); nm != nil && nm.Kind() == "identifier" {
				name = nm.Utf8Text(src)
			}
		}
		pl := p.ChildByFieldName("parameters")
		if pl == nil {
			pl = p.ChildByFieldName("parameter") // x => fetch(x)
		}
		return p, name, paramNames(pl, src)
	}
	return nil, "", nil
}

// paramNames lists the names of a parameter list's parameters.
func paramNames(pl *ts.Node, src []byte) []string {
	if pl == nil {
		return nil
	}
	if pl.Kind() == "identifier" {
		return []string{pl.Utf8Text(src)}
	}
	var out []string
	for i := uint(0); i < pl.NamedChildCount(); i++ {
		d := pl.NamedChild(i)
		switch d.Kind() {
		case "comment":
			continue
		case "identifier":
			out = append(out, d.Utf8Text(src))
		case "parameter_declaration", "variadic_parameter_declaration": // Go: a, b string
			named := false
			for j := uint(0); j < d.NamedChildCount(); j++ {
				if c := d.NamedChild(j); c.Kind() == "identifier" {
					out = append(out, c.Utf8Text(src))
					named = true
				}
			}
			if !named {
				out = append(out, "")
			}
		case "list_splat_pattern", "dictionary_splat_pattern", "rest_pattern", "spread_parameter":
			return out // nothing positional after it
		default:
			out = append(out, simpleParam(d, src))
		}
	}
	return out
}

// simpleParam is the name of one parameter node: Python's typed and
// default parameters, TypeScript's required and optional ones,
// JavaScript's defaults, Java's and C#'s formal parameters.
func simpleParam(d *ts.Node, src []byte) string {
	for _, f := range []string{"name", "pattern", "left"} {
		if c := d.ChildByFieldName(f); c != nil {
			if c.Kind() == "identifier" {
				return c.Utf8Text(src)
			}
			return ""
		}
	}
	if d.Kind() == "class_parameter" { // Kotlin: the identifier among modifiers and type
		for i := uint(0); i < d.NamedChildCount(); i++ {
			if c := d.NamedChild(i); c.Kind() == "identifier" {
				return c.Utf8Text(src)
			}
		}
	}
	if d.Kind() == "typed_parameter" && d.NamedChildCount() > 0 {
		if c := d.NamedChild(0); c.Kind() == "identifier" {
			return c.Utf8Text(src)
		}
	}
	return ""
}
