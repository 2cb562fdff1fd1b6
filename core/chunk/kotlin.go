package chunk

import (
	"bytes"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// kotlinClassPrefixes adds the path prefix of each Kotlin class whose
// @RequestMapping("/x") the grammar reads as an expression before the
// class (annotations on lines of their own above a class parse as
// annotated_expression siblings: @RestController @RequestMapping("/x")
// is annotation, annotation, ("/x")).
func (x *extractor) kotlinClassPrefixes(root *ts.Node) {
	if !bytes.Contains(x.src, []byte("RequestMapping")) {
		return
	}
	for i := uint(0); i < root.NamedChildCount(); i++ {
		c := root.NamedChild(i)
		if c.Kind() != "class_declaration" {
			continue
		}
		if a := kotlinAnnotation(c, "RequestMapping", x.src); a != nil && a.Parent().Kind() == "annotated_expression" {
			if pos, _ := kotlinAnnotationArgs(a, x.src); pos != nil {
				if p := strings.TrimSpace(x.ev.eval(pos, 0).text); strings.HasPrefix(p, "/") {
					x.prefixes = append(x.prefixes, prefixScope{c.StartByte(), c.EndByte(), p})
				}
			}
		}
	}
}

// kotlinAnnotationName is the simple name of a Kotlin annotation
// (@RequestMapping, @org.springframework...RequestMapping(...)).
func kotlinAnnotationName(a *ts.Node, src []byte) string {
	if a.Kind() != "annotation" || a.NamedChildCount() == 0 {
		return ""
	}
	t := a.NamedChild(0)
	if t.Kind() == "constructor_invocation" && t.NamedChildCount() > 0 {
		t = t.NamedChild(0)
	}
	return lastPart(t.Utf8Text(src))
}

// kotlinAnnotation returns the annotation named name of a Kotlin
// declaration: among its modifiers, or for a class one the grammar read
// as an expression before it.
func kotlinAnnotation(decl *ts.Node, name string, src []byte) *ts.Node {
	for i := uint(0); i < decl.NamedChildCount(); i++ {
		mods := decl.NamedChild(i)
		if mods.Kind() != "modifiers" {
			continue
		}
		for j := uint(0); j < mods.NamedChildCount(); j++ {
			if a := mods.NamedChild(j); kotlinAnnotationName(a, src) == name {
				return a
			}
		}
	}
	for prev := decl.PrevNamedSibling(); decl.Kind() == "class_declaration" && prev != nil && prev.Kind() == "annotated_expression" && prev.NamedChildCount() == 2; prev = prev.NamedChild(1) {
		if a := prev.NamedChild(0); kotlinAnnotationName(a, src) == name {
			return a
		}
	}
	return nil
}

// kotlinAnnotationArgs returns a Kotlin annotation's positional argument
// and its named ones (name = "x"); for one the grammar read as an
// expression before a class, the parenthesized expression after it.
func kotlinAnnotationArgs(a *ts.Node, src []byte) (*ts.Node, map[string]*ts.Node) {
	pairs := map[string]*ts.Node{}
	var pos *ts.Node
	if a.NamedChildCount() > 0 && a.NamedChild(0).Kind() == "constructor_invocation" {
		ci := a.NamedChild(0)
		for i := uint(0); i < ci.NamedChildCount(); i++ {
			args := ci.NamedChild(i)
			if args.Kind() != "value_arguments" {
				continue
			}
			for j := uint(0); j < args.NamedChildCount(); j++ {
				v := args.NamedChild(j)
				switch {
				case v.Kind() != "value_argument" || v.NamedChildCount() == 0:
				case v.NamedChildCount() == 2 && v.NamedChild(0).Kind() == "identifier":
					pairs[v.NamedChild(0).Utf8Text(src)] = v.NamedChild(1)
				case pos == nil:
					pos = v.NamedChild(v.NamedChildCount() - 1)
				}
			}
		}
	} else if next := a.NextNamedSibling(); next != nil && next.Kind() == "parenthesized_expression" && next.NamedChildCount() > 0 {
		pos = next.NamedChild(0)
	}
	return pos, pairs
}

// kotlinSpringValues returns the field bindings Spring's @Value makes in
// a Kotlin file: a constructor property
// (class C(@Value("\${orders.url}") private val ordersUrl: String)) or
// a property (@Value("\${orders.url}") lateinit var ordersUrl: String)
// holds that setting, as springValues reads Java's.
func (x *extractor) kotlinSpringValues(root *ts.Node) []fact {
	if !bytes.Contains(x.src, []byte("@Value")) {
		return nil // walking the tree costs a cgo call a node
	}
	var out []fact
	var walk func(n *ts.Node, class string, depth int)
	walk = func(n *ts.Node, class string, depth int) {
		if depth > 200 {
			return
		}
		var name *ts.Node
		switch n.Kind() {
		case "class_declaration", "object_declaration":
			if c := n.ChildByFieldName("name"); c != nil {
				class = c.Utf8Text(x.src)
			}
		case "class_parameter":
			for i := uint(0); i < n.NamedChildCount(); i++ {
				if c := n.NamedChild(i); c.Kind() == "identifier" {
					name = c
					break
				}
			}
		case "property_declaration":
			for i := uint(0); i < n.NamedChildCount(); i++ {
				if c := n.NamedChild(i); c.Kind() == "variable_declaration" && c.NamedChildCount() > 0 {
					name = c.NamedChild(0)
				}
			}
		}
		if name != nil {
			if ann := kotlinAnnotation(n, "Value", x.src); ann != nil {
				if pos, pairs := kotlinAnnotationArgs(ann, x.src); pos != nil || pairs["value"] != nil {
					if pairs["value"] != nil {
						pos = pairs["value"]
					}
					b := core.Binding{Kind: "field", Type: class, Field: name.Utf8Text(x.src), Expr: x.firstLine(ann), Line: x.line(n)}
					if pos.Kind() == "string_literal" && springPlaceholder(&b, x.ev.eval(pos, 0).text) {
						out = append(out, fact{at: n.StartByte(), binding: &b})
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
