package chunk

import (
	"path"
	"strings"

	"coderag/core"
)

// FileMount is a mount with the file it was found in.
type FileMount struct {
	File string
	core.Mount
}

// ApplyMounts puts the routes of one repository under the prefixes their
// routers are mounted at (app.use("/api/cart", cartRouter) in server.ts,
// include_router(router, prefix="/v1")). A mount names a router variable
// and the module it was imported from; the routes it applies to are those
// of that module's file registered on a router of that name, or on the
// file's only router. Mounts chain (app.use("/api", api) and
// api.use("/cart", cart)). A router mounted several times yields its routes
// once per mount; routes of routers never mounted are returned unchanged.
func ApplyMounts(routes []core.RouteAt, mounts []FileMount) []core.RouteAt {
	if len(mounts) == 0 {
		return routes
	}
	type target struct{ file, router string }
	// prefixes[target] lists the prefixes the target router is mounted at.
	prefixes := map[target][]string{}
	targetOf := func(m FileMount) (target, bool) {
		files := map[string]bool{m.File: true}
		if m.From != "" {
			files = moduleFiles(m.File, m.From, routes)
		}
		routers := map[target]bool{}
		for _, r := range routes {
			if files[r.File] && r.Router != "" {
				routers[target{r.File, r.Router}] = true
			}
		}
		if t := (target{}); len(routers) > 0 {
			for cand := range routers {
				if cand.router == m.Router {
					return cand, true
				}
				t = cand
			}
			if len(routers) == 1 {
				return t, true // the module's only router (a default export under another name)
			}
		}
		return target{}, false
	}
	type edge struct {
		into   target // where the mount happens: the mounting file and router
		prefix string
	}
	mountedAt := map[target][]edge{}
	for _, m := range mounts {
		t, ok := targetOf(m)
		if !ok {
			continue
		}
		mountedAt[t] = append(mountedAt[t], edge{target{m.File, m.Into}, m.Prefix})
	}
	// Resolve chains: the prefixes of a router are its mount prefixes under
	// each prefix of the router it is mounted into.
	var resolve func(t target, depth int) []string
	resolve = func(t target, depth int) []string {
		if ps, ok := prefixes[t]; ok {
			return ps
		}
		var out []string
		for _, e := range mountedAt[t] {
			outer := []string{""}
			if depth < 8 {
				if ps := resolve(e.into, depth+1); len(ps) > 0 {
					outer = ps
				}
			}
			for _, o := range outer {
				out = append(out, joinPath(o, e.prefix))
			}
		}
		prefixes[t] = out
		return out
	}
	var result []core.RouteAt
	for _, r := range routes {
		ps := resolve(target{r.File, r.Router}, 0)
		if len(ps) == 0 || r.Method == "GRPC" {
			result = append(result, r)
			continue
		}
		for _, p := range ps {
			m := r
			m.Path = joinPath(p, r.Path)
			result = append(result, m)
		}
	}
	return result
}

// moduleFiles returns the files of routes that an import of module from
// file may name: "./routes/cart" (JavaScript and TypeScript, with or
// without an index file), ".routes.cart" or "app.routes.cart" (Python).
func moduleFiles(file, module string, routes []core.RouteAt) map[string]bool {
	var stems []string
	dir := path.Dir(file)
	switch {
	case strings.HasPrefix(module, "./") || strings.HasPrefix(module, "../"):
		p := path.Join(dir, module)
		stems = append(stems, p, p+"/index")
	case strings.HasPrefix(module, "."):
		// Python relative import: one dot is the file's package.
		up := len(module) - len(strings.TrimLeft(module, "."))
		base := dir
		for i := 1; i < up; i++ {
			base = path.Dir(base)
		}
		rest := strings.ReplaceAll(strings.TrimLeft(module, "."), ".", "/")
		p := path.Join(base, rest)
		stems = append(stems, p, p+"/__init__")
	default:
		p := strings.ReplaceAll(module, ".", "/")
		stems = append(stems, "/"+p, "/"+p+"/__init__", "/"+p+"/index")
	}
	out := map[string]bool{}
	for _, r := range routes {
		noExt := strings.TrimSuffix(r.File, path.Ext(r.File))
		for _, s := range stems {
			if noExt == s || strings.HasPrefix(s, "/") && (strings.HasSuffix("/"+noExt, s)) {
				out[r.File] = true
			}
		}
	}
	return out
}
