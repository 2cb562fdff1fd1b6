package chunk

import (
	"bytes"
	"slices"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// railsActions are the actions resources makes routes for, with their
// method and whether the path names a member ({id}). new and edit serve
// HTML forms and are left out.
var railsActions = []struct {
	action, method string
	member         bool
}{
	{"index", "GET", false}, {"create", "POST", false}, {"show", "GET", true},
	{"update", "PATCH", true}, {"update", "PUT", true}, {"destroy", "DELETE", true},
}

// railsResources returns the routes Rails' resources and resource make
// inside a routes.draw block: resources :orders is GET /orders
// (orders#index), POST /orders, GET, PATCH, PUT and DELETE
// /orders/{id}, less what only: or except: leaves out; resource
// :profile the same at /profile without index; a block nests its
// resources under /orders/{order_id}. namespace and scope prefixes
// apply as to the other routes.
func (x *extractor) railsResources(root *ts.Node) []fact {
	if !bytes.Contains(x.src, []byte("resource")) || !bytes.Contains(x.src, []byte("draw")) {
		return nil // walking the tree costs a cgo call a node
	}
	var out []fact
	var walk func(n *ts.Node, parent string, inDraw bool, depth int)
	walk = func(n *ts.Node, parent string, inDraw bool, depth int) {
		if depth > 200 {
			return
		}
		if n.Kind() == "call" {
			m := n.ChildByFieldName("method")
			name := ""
			if m != nil {
				name = m.Utf8Text(x.src)
			}
			if name == "draw" {
				inDraw = true
			}
			if inDraw && n.ChildByFieldName("receiver") == nil && (name == "resources" || name == "resource") {
				if res, actions := x.railsResource(n); res != "" {
					// resource :profile (singular) has no index and no
					// {id}; its controller is still the plural one.
					plural := name == "resources"
					controller := res
					if !plural {
						controller = pluralize(res)
					}
					base := joinPath(parent, "/"+res)
					for _, a := range railsActions {
						if !actions[a.action] || !plural && a.action == "index" {
							continue
						}
						p := base
						if a.member && plural {
							p += "/{id}"
						}
						r := core.Route{Method: a.method, Path: x.prefixed(n, p), Framework: "rails", Handler: controller + "#" + a.action, Line: x.line(n)}
						out = append(out, fact{at: n.StartByte(), route: &r})
					}
					if b := n.ChildByFieldName("block"); b != nil {
						member := base
						if plural {
							member += "/{" + singularize(res) + "_id}"
						}
						walk(b, member, inDraw, depth+1)
					}
					return
				}
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), parent, inDraw, depth+1)
		}
	}
	walk(root, "", false, 0)
	return out
}

// railsResource reads resources :name, only: [...] / except: [...]: the
// name and the actions it routes.
func (x *extractor) railsResource(n *ts.Node) (string, map[string]bool) {
	as := args(n)
	if len(as) == 0 || as[0].Kind() != "simple_symbol" {
		return "", nil
	}
	actions := map[string]bool{}
	for _, a := range railsActions {
		actions[a.action] = true
	}
	for _, a := range as[1:] {
		k, v := a.ChildByFieldName("key"), a.ChildByFieldName("value")
		if a.Kind() != "pair" || k == nil || v == nil {
			continue
		}
		var listed []string
		for _, lv := range x.ev.list(v, 0) {
			listed = append(listed, strings.TrimSpace(lv.text))
		}
		switch strings.TrimSuffix(k.Utf8Text(x.src), ":") {
		case "only":
			for act := range actions {
				actions[act] = slices.Contains(listed, act)
			}
		case "except":
			for _, act := range listed {
				actions[act] = false
			}
		}
	}
	return strings.TrimPrefix(as[0].Utf8Text(x.src), ":"), actions
}

// prefixed puts the prefixes of the scopes enclosing n (namespace :api)
// in front of path p.
func (x *extractor) prefixed(n *ts.Node, p string) string {
	prefix := ""
	for _, ps := range x.prefixes {
		if ps.start <= n.StartByte() && n.EndByte() <= ps.end {
			prefix = joinPath(prefix, ps.path)
		}
	}
	return joinPath(prefix, p)
}

// pluralize and singularize follow English's regular forms, as Rails
// does for most resource names (status -> statuses, category ->
// categories).
func pluralize(w string) string {
	switch {
	case strings.HasSuffix(w, "s") || strings.HasSuffix(w, "x") || strings.HasSuffix(w, "ch") || strings.HasSuffix(w, "sh"):
		return w + "es"
	case strings.HasSuffix(w, "y") && len(w) > 1 && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}

func singularize(w string) string {
	switch {
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	}
	return strings.TrimSuffix(w, "s")
}
