package chunk

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// goBindings finds, in a Go file, the values struct fields are given in
// composite literals (&CartClient{base: base}, Config{CartURL:
// envOr("CART_URL", "http://cart")}) and the arguments constructors are
// called with (NewCartClient(cfg.CartURL)): what the service graph needs
// to trace an address held in a field back to its configuration.
func goBindings(root *ts.Node, ev *evaluator) []fact {
	imports := goImportNames(root, ev.src)
	var out []fact
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 400 {
			return
		}
		switch n.Kind() {
		case "composite_literal":
			out = append(out, goLiteral(n, ev)...)
		case "call_expression":
			out = append(out, goCtorArgs(n, ev, imports)...)
		case "function_declaration":
			out = append(out, goCtorParams(n, ev)...)
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(root, 0)
	return out
}

// typeName is the name of a composite literal's type: CartClient,
// kafka.Writer -> Writer.
func typeName(n *ts.Node, src []byte) string {
	t := n.ChildByFieldName("type")
	if t == nil {
		return ""
	}
	switch t.Kind() {
	case "type_identifier":
		return t.Utf8Text(src)
	case "qualified_type":
		if name := t.ChildByFieldName("name"); name != nil {
			return name.Utf8Text(src)
		}
	case "generic_type":
		if name := t.ChildByFieldName("type"); name != nil {
			return name.Utf8Text(src)
		}
	}
	return ""
}

func goLiteral(n *ts.Node, ev *evaluator) []fact {
	typ := typeName(n, ev.src)
	body := n.ChildByFieldName("body")
	if typ == "" || body == nil {
		return nil
	}
	_, fn, params := enclosingFunction(n, ev.src)
	var out []fact
	for i := uint(0); i < body.NamedChildCount(); i++ {
		kv := body.NamedChild(i)
		if kv.Kind() != "keyed_element" || kv.NamedChildCount() < 2 {
			continue
		}
		key, val := kv.NamedChild(0), kv.NamedChild(1)
		if key.Kind() == "literal_element" && key.NamedChildCount() > 0 {
			key = key.NamedChild(0)
		}
		if val.Kind() == "literal_element" && val.NamedChildCount() > 0 {
			val = val.NamedChild(0)
		}
		if key.Kind() != "identifier" && key.Kind() != "field_identifier" {
			continue
		}
		b := core.Binding{Kind: "field", Type: typ, Field: key.Utf8Text(ev.src), Func: fn, Line: int(kv.StartPosition().Row) + 1}
		expr := val.Utf8Text(ev.src)
		b.Expr = expr
		if val.Kind() == "identifier" {
			for pi, p := range params {
				if p == expr {
					b.Param, b.Index = p, pi
				}
			}
		}
		if b.Param == "" {
			setValue(&b, ev.eval(val, 0))
			if b.Origin == core.FromExpression && !strings.Contains(expr, ".") {
				continue // a local variable nobody can follow
			}
		}
		out = append(out, fact{at: kv.StartByte(), binding: &b})
	}
	return out
}

func setValue(b *core.Binding, v value) {
	b.Value, b.Origin, b.Env, b.Config, b.Default = strings.TrimSpace(v.text), v.origin, v.env, v.config, v.def
}

// isCtor reports whether name is a constructor's: New and a capital.
func isCtor(name string) bool {
	return strings.HasPrefix(name, "New") && len(name) >= 4 && name[3] >= 'A' && name[3] <= 'Z'
}

// goCtorParams records the parameters of a constructor (New...), so that
// a call whose address is one of them can be traced to what callers pass.
func goCtorParams(n *ts.Node, ev *evaluator) []fact {
	nm := n.ChildByFieldName("name")
	body := n.ChildByFieldName("body")
	if nm == nil || body == nil || !isCtor(nm.Utf8Text(ev.src)) {
		return nil
	}
	_, name, params := enclosingFunction(body, ev.src)
	var out []fact
	for i, p := range params {
		if p == "_" || p == "" {
			continue
		}
		out = append(out, fact{at: n.StartByte(), binding: &core.Binding{Kind: core.BindParam, Func: name, Field: p, Index: i,
			Line: int(n.StartPosition().Row) + 1, End: int(n.EndPosition().Row) + 1}})
	}
	return out
}

// goCtorArgs records the arguments of calls to constructors (New...),
// and which package's constructor is called: imports maps the names the
// file's imports are used by to their paths.
func goCtorArgs(n *ts.Node, ev *evaluator, imports map[string]string) []fact {
	f := n.ChildByFieldName("function")
	if f == nil {
		return nil
	}
	name, pkg := "", ""
	switch f.Kind() {
	case "identifier":
		name, pkg = f.Utf8Text(ev.src), "."
	case "selector_expression":
		if fld := f.ChildByFieldName("field"); fld != nil {
			name = fld.Utf8Text(ev.src)
		}
		if op := f.ChildByFieldName("operand"); op != nil && op.Kind() == "identifier" {
			pkg = imports[op.Utf8Text(ev.src)]
		}
	}
	if !isCtor(name) {
		return nil
	}
	var out []fact
	for i, a := range args(n) {
		b := core.Binding{Kind: "arg", Func: name, Pkg: pkg, Index: i, Expr: a.Utf8Text(ev.src), Line: int(a.StartPosition().Row) + 1}
		setValue(&b, ev.eval(a, 0))
		out = append(out, fact{at: a.StartByte(), binding: &b})
	}
	return out
}
