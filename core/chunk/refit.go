package chunk

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// Refit declares a .NET service's HTTP client as an interface whose
// methods say the request they make:
//
//	public interface ICatalogApi {
//	    [Get("/api/items/{id}")] Task<Item> GetItemAsync(int id);
//	}
//
// registered with AddRefitClient<ICatalogApi>().ConfigureHttpClient(c =>
// c.BaseAddress = ...) or made with RestService.For<ICatalogApi>(url);
// the base address is the registration's (clientName names it after the
// interface).

// refitVerbs are Refit's request attributes.
var refitVerbs = map[string]string{
	"Get": "GET", "Post": "POST", "Put": "PUT", "Delete": "DELETE", "Patch": "PATCH", "Head": "HEAD", "Options": "OPTIONS",
}

// refitClients returns the calls of a C# file's Refit interfaces: none
// unless the file uses Refit.
func (x *extractor) refitClients(root *ts.Node) []fact {
	if !x.importsAny("Refit") {
		return nil
	}
	var out []fact
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 200 {
			return
		}
		if n.Kind() == "interface_declaration" {
			out = append(out, x.refitCalls(n)...)
			return
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(root, 0)
	return out
}

// refitCalls makes one HTTP call of each method of interface decl that
// has a Refit request attribute.
func (x *extractor) refitCalls(decl *ts.Node) []fact {
	name := decl.ChildByFieldName("name")
	body := decl.ChildByFieldName("body")
	if name == nil || body == nil {
		return nil
	}
	var out []fact
	for i := uint(0); i < body.NamedChildCount(); i++ {
		m := body.NamedChild(i)
		if m.Kind() != "method_declaration" {
			continue
		}
		for j := uint(0); j < m.NamedChildCount(); j++ {
			al := m.NamedChild(j)
			if al.Kind() != "attribute_list" {
				continue
			}
			for k := uint(0); k < al.NamedChildCount(); k++ {
				a := al.NamedChild(k)
				an := a.ChildByFieldName("name")
				if a.Kind() != "attribute" || an == nil {
					continue
				}
				verb, ok := refitVerbs[strings.TrimSuffix(lastPart(an.Utf8Text(x.src)), "Attribute")]
				if !ok {
					continue
				}
				c := core.Call{Kind: core.CallHTTP, System: "Refit", Method: verb, Client: name.Utf8Text(x.src),
					Line: x.line(m), Text: x.firstLine(a)}
				path := "/"
				if args := attributeArgs(a); len(args) > 0 {
					if v := x.ev.eval(args[0], 0); v.origin == core.FromLiteral || v.origin == core.FromConstant {
						path = strings.TrimSpace(v.text)
					}
				}
				c.Target, c.Origin = path, core.FromLiteral
				out = append(out, fact{at: m.StartByte(), call: &c})
			}
		}
	}
	return out
}

// attributeArgs returns the expressions of a C# attribute's arguments.
func attributeArgs(a *ts.Node) []*ts.Node {
	return listedArgs(a, "attribute_argument_list", "attribute_argument")
}
