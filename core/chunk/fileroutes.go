package chunk

import (
	"sort"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// File-system routers serve a file's handlers at a path its location
// gives:
//
//   - Next.js pages router: pages/api/cart/[id].ts serves /api/cart/{id}
//     (any method) from its default export;
//   - Next.js app router: app/api/cart/route.ts serves /api/cart with the
//     methods it exports (export async function GET, export const POST);
//     route groups "(shop)" and parallel slots "@modal" add nothing;
//   - SvelteKit: src/routes/api/cart/+server.ts, methods as exported;
//   - Nuxt and Nitro: server/api/cart/[id].get.ts serves GET
//     /api/cart/{id} (server/routes/... without the /api prefix).
//
// Dynamic segments ([id], [...slug], [[...slug]], [param=matcher])
// become {id} placeholders; index files serve their directory.
var (
	nextPagesRE  = lazyre.New(`(?:^|/)(?:src/)?pages/(api(?:/.*)?)\.(?:js|jsx|ts|tsx|mjs)$`)
	nextAppRE    = lazyre.New(`(?:^|/)(?:src/)?app((?:/.*)?)/route\.(?:js|ts|mjs)$`)
	svelteKitRE  = lazyre.New(`(?:^|/)src/routes((?:/.*)?)/\+server\.(?:js|ts)$`)
	nitroRE      = lazyre.New(`(?:^|/)server/(api|routes)(/.*?)(?:\.(get|post|put|patch|delete|head|options))?\.(?:js|ts|mjs)$`)
	exportVerbRE = lazyre.New(`(?m)^\s*export\s+(?:async\s+function\s*\*?|function\s*\*?|const|let|var)\s*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b`)
	exportAsRE   = lazyre.New(`(?m)^\s*export\s*\{[^}]*\}`)
	asVerbRE     = lazyre.New(`\bas\s+(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b|^\s*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s*$`)
	exportDefRE  = lazyre.New(`(?m)^\s*export\s+default\b`)
	cjsExportRE  = lazyre.New(`(?m)^\s*module\.exports\s*=`)
	dynSegRE     = lazyre.New(`^\[{1,2}(?:\.\.\.)?([A-Za-z_][A-Za-z0-9_]*)(?:=[A-Za-z_]+)?\]{1,2}$`)
)

// fileRoutes returns the routes a JavaScript or TypeScript file serves by
// its place in a file-system router.
func fileRoutes(filePath string, src []byte) []fact {
	p := strings.ReplaceAll(filePath, "\\", "/")
	var (
		dir, framework string
		method         = ""
		byExport       = false
	)
	switch {
	case nextPagesRE.MatchString(p):
		dir, framework = nextPagesRE.FindStringSubmatch(p)[1], "nextjs"
		method = "ANY"
	case nextAppRE.MatchString(p):
		dir, framework, byExport = nextAppRE.FindStringSubmatch(p)[1], "nextjs", true
	case svelteKitRE.MatchString(p):
		dir, framework, byExport = svelteKitRE.FindStringSubmatch(p)[1], "sveltekit", true
	case nitroRE.MatchString(p):
		m := nitroRE.FindStringSubmatch(p)
		dir, framework, method = m[2], "nitro", strings.ToUpper(m[3])
		if m[1] == "api" {
			dir = "api" + dir
		}
		if method == "" {
			method = "ANY"
		}
	default:
		return nil
	}
	route := routePath(dir)
	if !byExport {
		// A handler file default-exports its handler (Next.js also takes
		// CommonJS's module.exports); a file that exports none is a
		// module that happens to sit under an api folder (an Express
		// app's server/api/endpoints/posts.js), not a route.
		loc := exportDefRE.FindIndex(src)
		if loc == nil && framework == "nextjs" {
			loc = cjsExportRE.FindIndex(src)
		}
		if loc == nil {
			return nil
		}
		at := loc[0] + leadingSpace(src[loc[0]:loc[1]])
		return []fact{{at: uint(at), route: &core.Route{Method: method, Path: route, Framework: framework, Handler: "default", Line: lineOf(src, at)}}}
	}
	type verb struct {
		name string
		at   int
	}
	var verbs []verb
	for _, m := range exportVerbRE.FindAllSubmatchIndex(src, -1) {
		verbs = append(verbs, verb{string(src[m[2]:m[3]]), m[2]})
	}
	for _, m := range exportAsRE.FindAllIndex(src, -1) {
		list := string(src[m[0]:m[1]])
		list = list[strings.IndexByte(list, '{')+1 : len(list)-1]
		off := m[0] + strings.IndexByte(string(src[m[0]:m[1]]), '{') + 1
		for _, item := range strings.Split(list, ",") {
			if sm := asVerbRE.FindStringSubmatch(item); sm != nil {
				verbs = append(verbs, verb{sm[1] + sm[2], off})
			}
			off += len(item) + 1
		}
	}
	sort.SliceStable(verbs, func(i, j int) bool { return verbs[i].at < verbs[j].at })
	var out []fact
	seen := map[string]bool{}
	for _, v := range verbs {
		if seen[v.name] {
			continue
		}
		seen[v.name] = true
		out = append(out, fact{at: uint(v.at), route: &core.Route{Method: v.name, Path: route, Framework: framework, Handler: v.name, Line: lineOf(src, v.at)}})
	}
	return out
}

// routePath turns a router directory ("/api/(shop)/cart/[id]/index") into
// a route ("/api/cart/{id}").
func routePath(dir string) string {
	var parts []string
	for _, seg := range strings.Split(dir, "/") {
		switch {
		case seg == "" || seg == "index":
		case strings.HasPrefix(seg, "(") && strings.HasSuffix(seg, ")"), strings.HasPrefix(seg, "@"):
			// Next.js route groups and parallel-route slots.
		case dynSegRE.MatchString(seg):
			parts = append(parts, "{"+dynSegRE.FindStringSubmatch(seg)[1]+"}")
		default:
			parts = append(parts, seg)
		}
	}
	return "/" + strings.Join(parts, "/")
}

func leadingSpace(b []byte) int {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t' || b[n] == '\n' || b[n] == '\r') {
		n++
	}
	return n
}
