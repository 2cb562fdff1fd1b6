package chunk

import (
	"bytes"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// Spring Cloud OpenFeign declares a service's HTTP client as an
// interface:
//
//	@FeignClient(name = "billing", path = "/api")
//	interface BillingClient {
//	    @GetMapping("/invoices/{id}") Invoice get(@PathVariable String id);
//	}
//
// Its methods carry the same mapping annotations a controller's do, but
// each is a call to the named service (found by service discovery, or at
// the url attribute's address), not a route the caller serves.

// springMappings are the annotations that map a method to an HTTP
// method and path.
var springMappings = []struct{ annotation, method string }{
	{"GetMapping", "GET"}, {"PostMapping", "POST"}, {"PutMapping", "PUT"}, {"DeleteMapping", "DELETE"},
	{"PatchMapping", "PATCH"}, {"RequestMapping", ""},
}

// feignClients returns the calls of the Feign client interfaces in a
// Java file and the byte spans of those interfaces (what the route
// patterns found inside them is no route).
func (x *extractor) feignClients(root *ts.Node) ([]fact, [][2]uint) {
	return x.clientInterfaces(root, "FeignClient", x.feignCalls)
}

// clientInterfaces returns the calls calls reads from each interface of
// a Java or Kotlin file annotated ann, and the interfaces' byte spans.
func (x *extractor) clientInterfaces(root *ts.Node, ann string, calls func(decl, a *ts.Node) []fact) ([]fact, [][2]uint) {
	if !bytes.Contains(x.src, []byte(ann)) {
		return nil, nil // walking the tree costs a cgo call a node
	}
	var out []fact
	var spans [][2]uint
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 200 {
			return
		}
		if x.isInterface(n) {
			if a := x.annotation(n, ann); a != nil {
				spans = append(spans, [2]uint{n.StartByte(), n.EndByte()})
				out = append(out, calls(n, a)...)
				return
			}
		}
		switch n.Kind() {
		case "method_declaration", "constructor_declaration", "field_declaration", "function_declaration", "property_declaration", "block":
			return // no interface is declared in there
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(root, 0)
	return out, spans
}

// feignCalls makes one HTTP call of each mapped method of the Feign
// client interface decl, annotated fc.
func (x *extractor) feignCalls(decl, fc *ts.Node) []fact {
	ev := x.ev
	pos, pairs := x.annotationArgs(fc)
	// name, value (an alias of name) or the one argument: the service's
	// name in discovery; url, when given, is where it is called instead.
	var name *ts.Node
	for _, k := range []string{"name", "value", "serviceId"} {
		if pairs[k] != nil {
			name = pairs[k]
			break
		}
	}
	if name == nil {
		name = pos
	}
	var c0 core.Call
	c0.Kind, c0.System, c0.Origin = core.CallHTTP, "feign", core.FromLiteral
	switch u := pairs["url"]; {
	case u != nil && strings.TrimSpace(ev.eval(u, 0).text) != "":
		feignBase(&c0, ev.eval(u, 0).text)
	case name != nil:
		feignBase(&c0, "http://"+strings.TrimSpace(ev.eval(name, 0).text))
	default:
		return nil
	}
	if c0.Base == "" && c0.Config == "" {
		return nil
	}
	prefix := ""
	if p := pairs["path"]; p != nil {
		prefix = ev.eval(p, 0).text
	}
	if rm := x.annotation(decl, "RequestMapping"); rm != nil {
		prefix = joinPath(prefix, x.mappingPath(rm))
	}
	if n := decl.ChildByFieldName("name"); n != nil {
		c0.Client = n.Utf8Text(x.src)
	}
	var out []fact
	for _, m := range interfaceMethods(decl) {
		for _, sm := range springMappings {
			verb := sm.method
			a := x.annotation(m, sm.annotation)
			if a == nil {
				continue
			}
			c := c0
			c.Method = verb
			if verb == "" {
				c.Method = "GET"
				if _, ps := x.annotationArgs(a); ps["method"] != nil {
					if v := verbOf(ps["method"].Utf8Text(x.src)); v != "" {
						c.Method = v
					}
				}
			}
			c.Target = joinPath(prefix, x.mappingPath(a))
			if c.Target == "" {
				c.Target = "/"
			}
			if c.Base != "" && !strings.HasPrefix(c.Base, "config:") {
				c.Target = strings.TrimSuffix(c.Base, "/") + c.Target
				c.Base = ""
			}
			c.Line, c.Text = x.line(m), x.firstLine(a)
			out = append(out, fact{at: m.StartByte(), call: &c})
			break
		}
	}
	return out
}

// interfaceMethods returns the methods declared in the body of a Java
// or Kotlin interface.
func interfaceMethods(decl *ts.Node) []*ts.Node {
	body := decl.ChildByFieldName("body")
	for i := uint(0); body == nil && i < decl.NamedChildCount(); i++ {
		if c := decl.NamedChild(i); c.Kind() == "class_body" { // Kotlin
			body = c
		}
	}
	if body == nil {
		return nil
	}
	var out []*ts.Node
	for i := uint(0); i < body.NamedChildCount(); i++ {
		if m := body.NamedChild(i); m.Kind() == "method_declaration" || m.Kind() == "function_declaration" {
			out = append(out, m)
		}
	}
	return out
}

// feignBase sets a Feign client's address: a literal URL, or a Spring
// placeholder ${key} or ${key:default} read from the service's settings.
func feignBase(c *core.Call, s string) {
	s = strings.TrimSpace(s)
	if key, def, ok := springSetting(s); ok {
		c.Config, c.Default, c.Base, c.Origin = key, def, "config:"+key, core.FromConfig
		return
	}
	if strings.Contains(s, "${") || strings.Contains(s, "{") && !strings.Contains(s, "://") {
		return // built from parts this reader does not follow
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	c.Base = s
}

// mappingPath is the path of a mapping annotation: its one argument,
// or its value or path; the first of a list.
func (x *extractor) mappingPath(a *ts.Node) string {
	pos, pairs := x.annotationArgs(a)
	n := pos
	if pairs["value"] != nil {
		n = pairs["value"]
	} else if pairs["path"] != nil {
		n = pairs["path"]
	}
	if n == nil {
		return ""
	}
	if n.Kind() == "element_value_array_initializer" || n.Kind() == "collection_literal" {
		if n.NamedChildCount() == 0 {
			return ""
		}
		n = n.NamedChild(0)
	}
	v := x.ev.eval(n, 0)
	if v.origin != core.FromLiteral && v.origin != core.FromConstant {
		return ""
	}
	return strings.TrimSpace(v.text)
}

// isInterface reports whether n declares an interface (Java's
// interface_declaration, Kotlin's class_declaration with interface).
func (x *extractor) isInterface(n *ts.Node) bool {
	switch {
	case n.Kind() == "interface_declaration":
		return true
	case n.Kind() == "class_declaration" && x.l.name == "kotlin":
		for i := uint(0); i < n.ChildCount(); i++ {
			if n.Child(i).Kind() == "interface" {
				return true
			}
		}
	}
	return false
}

// annotation returns decl's annotation named name, in the file's
// language.
func (x *extractor) annotation(decl *ts.Node, name string) *ts.Node {
	if x.l.name == "kotlin" {
		return kotlinAnnotation(decl, name, x.src)
	}
	return javaAnnotation(decl, name, x.src)
}

// annotationArgs returns an annotation's positional argument and its
// named ones, in the file's language.
func (x *extractor) annotationArgs(a *ts.Node) (*ts.Node, map[string]*ts.Node) {
	if x.l.name == "kotlin" {
		return kotlinAnnotationArgs(a, x.src)
	}
	return annotationArgs(a, x.src)
}

// javaAnnotation returns the annotation of a declaration whose simple
// name is name (@FeignClient or @org.springframework...FeignClient).
func javaAnnotation(decl *ts.Node, name string, src []byte) *ts.Node {
	for i := uint(0); i < decl.NamedChildCount(); i++ {
		mods := decl.NamedChild(i)
		if mods.Kind() != "modifiers" {
			continue
		}
		for j := uint(0); j < mods.NamedChildCount(); j++ {
			a := mods.NamedChild(j)
			if a.Kind() != "annotation" && a.Kind() != "marker_annotation" {
				continue
			}
			n := a.ChildByFieldName("name")
			if n != nil && lastPart(n.Utf8Text(src)) == name {
				return a
			}
		}
	}
	return nil
}

// annotationArgs returns an annotation's positional argument and its
// named ones.
func annotationArgs(a *ts.Node, src []byte) (*ts.Node, map[string]*ts.Node) {
	pairs := map[string]*ts.Node{}
	args := a.ChildByFieldName("arguments")
	if args == nil {
		return nil, pairs
	}
	var pos *ts.Node
	for i := uint(0); i < args.NamedChildCount(); i++ {
		c := args.NamedChild(i)
		switch c.Kind() {
		case "comment":
		case "element_value_pair":
			if k, v := c.ChildByFieldName("key"), c.ChildByFieldName("value"); k != nil && v != nil {
				pairs[k.Utf8Text(src)] = v
			}
		default:
			if pos == nil {
				pos = c
			}
		}
	}
	return pos, pairs
}

// withClientInterfaces replaces the routes the mapping patterns found
// in a Java or Kotlin file's client interfaces (Feign's, MicroProfile
// Rest Client's) by the calls they declare.
func (x *extractor) withClientInterfaces(root *ts.Node, facts []fact) []fact {
	calls, spans := x.feignClients(root)
	rc, rs := x.restClients(root)
	calls, spans = append(calls, rc...), append(spans, rs...)
	if len(spans) == 0 {
		return facts
	}
	kept := facts[:0]
	for _, f := range facts {
		inside := false
		for _, sp := range spans {
			if f.route != nil && sp[0] <= f.at && f.at < sp[1] {
				inside = true
				break
			}
		}
		if !inside {
			kept = append(kept, f)
		}
	}
	return append(kept, calls...)
}

// springValues returns the field bindings Spring's @Value makes in a
// Java file: a field annotated @Value("${catalog.url}"), or one a
// constructor sets from a parameter so annotated
// (this.catalogUrl = catalogUrl), holds that setting; the service graph
// follows a call's base address (catalogUrl + "/items") to it.
func (x *extractor) springValues(root *ts.Node) []fact {
	if !bytes.Contains(x.src, []byte("@Value")) {
		return nil
	}
	var out []fact
	bind := func(class, field string, ann *ts.Node, at *ts.Node) {
		pos, pairs := annotationArgs(ann, x.src)
		if pairs["value"] != nil {
			pos = pairs["value"]
		}
		if pos == nil || pos.Kind() != "string_literal" {
			return
		}
		b := core.Binding{Kind: "field", Type: class, Field: field, Expr: x.firstLine(ann), Line: x.line(at)}
		if !springPlaceholder(&b, x.ev.eval(pos, 0).text) {
			return
		}
		out = append(out, fact{at: at.StartByte(), binding: &b})
	}
	var walk func(n *ts.Node, class string, depth int)
	walk = func(n *ts.Node, class string, depth int) {
		if depth > 200 {
			return
		}
		switch n.Kind() {
		case "class_declaration":
			if name := n.ChildByFieldName("name"); name != nil {
				class = name.Utf8Text(x.src)
			}
		case "field_declaration":
			if ann := javaAnnotation(n, "Value", x.src); ann != nil {
				for i := uint(0); i < n.NamedChildCount(); i++ {
					if d := n.NamedChild(i); d.Kind() == "variable_declarator" {
						if name := d.ChildByFieldName("name"); name != nil {
							bind(class, name.Utf8Text(x.src), ann, n)
						}
					}
				}
			}
			return
		case "method_declaration", "block", "lambda_expression":
			return // fields and constructors are members, not in bodies
		case "constructor_declaration":
			annotated := map[string]*ts.Node{}
			if ps := n.ChildByFieldName("parameters"); ps != nil {
				for i := uint(0); i < ps.NamedChildCount(); i++ {
					p := ps.NamedChild(i)
					name := p.ChildByFieldName("name")
					if p.Kind() != "formal_parameter" || name == nil {
						continue
					}
					if ann := javaAnnotation(p, "Value", x.src); ann != nil {
						annotated[name.Utf8Text(x.src)] = ann
					}
				}
			}
			if body := n.ChildByFieldName("body"); body != nil && len(annotated) > 0 {
				for i := uint(0); i < body.NamedChildCount(); i++ {
					st := body.NamedChild(i)
					if st.Kind() != "expression_statement" || st.NamedChildCount() == 0 || st.NamedChild(0).Kind() != "assignment_expression" {
						continue
					}
					as := st.NamedChild(0)
					l, r := as.ChildByFieldName("left"), as.ChildByFieldName("right")
					if l == nil || r == nil || r.Kind() != "identifier" || annotated[r.Utf8Text(x.src)] == nil {
						continue
					}
					field := strings.TrimPrefix(l.Utf8Text(x.src), "this.")
					if identRE.FindString(field) == field {
						bind(class, field, annotated[r.Utf8Text(x.src)], st)
					}
				}
			}
			return
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), class, depth+1)
		}
	}
	walk(root, "", 0)
	return out
}

// springPlaceholder sets a binding from a Spring value expression: a
// setting "${key}" or "${key:default}" (read from the service's settings
// files, or its environment: SPRING_A_B for spring.a.b), an address with
// one such placeholder in it ("http://${CATALOG_ADDR}/api"), or a
// literal address. It reports whether the value is one of those.
func springPlaceholder(b *core.Binding, s string) bool {
	s = strings.TrimSpace(s)
	i := strings.Index(s, "${")
	if i < 0 {
		b.Value, b.Origin = s, core.FromLiteral
		return strings.Contains(s, "://")
	}
	j := strings.IndexByte(s[i:], '}')
	if j < 0 || strings.Contains(s[i+j+1:], "${") {
		return false
	}
	if key, def, ok := springSetting(s); ok {
		b.Config, b.Default, b.Origin = key, def, core.FromConfig
		return true
	}
	key, def, _ := strings.Cut(s[i+2:i+j], ":")
	// An address built around the setting: its host from the
	// environment, as in http://{CATALOG_ADDR}/api.
	b.Value, b.Default, b.Origin = s[:i]+"{"+key+"}"+s[i+j+1:], def, core.FromTemplate
	return key != "" && strings.Contains(s, "://")
}

// springTopic reads a topic or queue written as a Spring placeholder
// (@KafkaListener(topics = "${orders.topic}")) as the setting it names.
func springTopic(c *core.Call) {
	if key, def, ok := springSetting(c.Target); ok && c.Origin == core.FromLiteral {
		c.Target, c.Origin, c.Config, c.Default = "{"+key+"}", core.FromConfig, key, def
	}
}

// springSetting parses a Spring placeholder that is the whole value:
// ${key} or ${key:default}.
func springSetting(s string) (key, def string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "${") || !strings.HasSuffix(s, "}") || strings.Count(s, "${") != 1 {
		return "", "", false
	}
	key, def, _ = strings.Cut(s[2:len(s)-1], ":")
	return key, def, key != ""
}
