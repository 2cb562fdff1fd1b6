package search

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/internal/lazyre"
)

// Request is an HTTP request a pasted text names (an access-log line, a
// curl command, a structured log's method and path, "POST /orders/42", a
// URL) or a gRPC call (/cart.v1.CartService/AddItem, grpc.service=...
// grpc.method=...).
type Request struct {
	// Method is GET, POST, ...; "" when the text does not say; GRPC for a
	// gRPC call.
	Method string
	// Path is the request's path, without host, query and fragment; a
	// gRPC call's is /package.Service/Method.
	Path string
	// Exact is a URL or path written without a method ("why does
	// /v1/feeds/refresh fail", a link in a chat): it is matched to whole
	// routes only, not to a route that lacks a prefix of it, since it
	// may well be another site's.
	Exact bool
}

// RouteFinder is an Index that knows the server routes the crawl found,
// so that a pasted request finds the route that serves it and its
// handler. It needs Locator too, for the chunk at a route's line.
type RouteFinder interface {
	// Routes returns every server route of the index, mount prefixes
	// applied.
	Routes(ctx context.Context) ([]core.RouteAt, error)
}

const httpMethods = `GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS`

// httpMethod holds the methods of httpMethods, and "" (none said).
var httpMethod = func() map[string]bool {
	m := map[string]bool{"": true}
	for _, v := range strings.Split(httpMethods, "|") {
		m[v] = true
	}
	return m
}()

var (
	// An access log's request line, a client's log, a question: GET
	// /orders/42 HTTP/1.1, POST https://shop/api/orders. Upper-case
	// methods only: "get /x" is a word before a path in a sentence.
	methodTargetRE = lazyre.New(`\b(` + httpMethods + `)\s+((?:https?://[^\s"'<>]+)|/[^\s"'<>]*)`)
	// A curl command up to the end of its line or a pipe.
	curlRE       = lazyre.New(`\bcurl\s[^\n|;]*`)
	curlMethodRE = lazyre.New(`(?:\s-X\s*|\s--request[=\s]\s*)['"]?([A-Za-z]+)`)
	curlDataRE   = lazyre.New(`\s(?:-d|--data(?:-\w+)?|--json|-F|--form)[\s=]`)
	curlURLRE    = lazyre.New(`(?:https?://|\b(?:localhost|[\w-]+(?:\.[\w-]+)*):\d+/)[^\s'"<>]*`)
	// Structured logs: a key that ends in method or verb, and one that
	// ends in path, uri, url or target, whatever the log's naming:
	// method=GET path=/x, "http.request.method":"GET", "url.path":"/x"
	// (OpenTelemetry), "RequestMethod"/"RequestPath" (Traefik),
	// "requestMethod"/"requestUrl" (cloud load balancers).
	kvMethodRE = lazyre.New(`(?i)"?\b[\w.-]*?(?:method|verb)"?\s*[=:]\s*"?(` + httpMethods + `)\b`)
	kvPathRE   = lazyre.New(`(?i)"?\b([\w.-]*?)(?:path|uri|url|target)"?\s*[=:]\s*"?((?:https?://[^\s"',}]+)|/[^\s"',}]*)`)
	// notRequestKeyRE are keys of that shape that name no request: a
	// file's path, a referring page, a callback.
	notRequestKeyRE = lazyre.New(`(?i)(file|dir|log|referr?er|redirect|callback|image|avatar|icon|script|socket|cert|key|config|mount|home|tmp|temp)`)
	// A URL anywhere, and the key a structured log gives it.
	urlRE     = lazyre.New(`\bhttps?://[^\s"'<>]+`)
	keyBefore = lazyre.New(`([\w.-]+)"?\s*[=:]\s*"?$`)
	// A gRPC call's full method name: /cart.v1.CartService/AddItem.
	// The service is package-qualified: /Home/Index is a web page's path.
	grpcPathRE = lazyre.New(`(?:^|[\s"'=:(\[])/((?:[A-Za-z_]\w*\.)+[A-Z]\w*)/([A-Z]\w*)\b`)
	// A gRPC interceptor's or OpenTelemetry's fields: grpc.service=...
	// grpc.method=..., rpc.service / rpc.method.
	grpcServiceKVRE = lazyre.New(`(?i)\b(?:grpc|rpc)[._]service"?\s*[=:]\s*"?([A-Za-z_][\w.]*)`)
	grpcMethodKVRE  = lazyre.New(`(?i)\b(?:grpc|rpc)[._]method"?\s*[=:]\s*"?/?([A-Za-z_][\w./]*)`)
	// A path written alone, two segments or more.
	barePathRE = lazyre.New("(?:^|[\\s(`'\"])(/[\\w.~%{}:@-]+(?:/[\\w.~%{}:@-]+)+/?)")
	// fileExtRE is a segment that names a file (views.py, app.js:42).
	fileExtRE = lazyre.New(`\.[A-Za-z][A-Za-z0-9]{0,5}(?::\d+)*$`)
)

// ParseRequests returns the HTTP requests and gRPC calls a text names,
// each once, at most maxRequests: full gRPC method names first, then
// request lines, curl commands, structured logs' fields, URLs and paths
// written alone.
func ParseRequests(text string) []Request {
	var out []Request
	seen := map[string]bool{}
	taken := map[int]bool{} // offsets of targets already read
	// keep adds r, read at offset at, unless a form read earlier took
	// that offset or named r already.
	keep := func(r Request, at int) {
		if taken[at] {
			return
		}
		taken[at] = true
		if key := r.Method + " " + r.Path; !seen[key] && len(out) < maxRequests {
			seen[key] = true
			out = append(out, r)
		}
	}
	add := func(method, target string, at int, exact bool) {
		p, ok := requestPath(target)
		if !ok {
			taken[at] = true
			return
		}
		method = strings.ToUpper(method)
		if !httpMethod[method] {
			method = "" // WebDAV's, a cache's PURGE: no route names them
		}
		keep(Request{Method: method, Path: p, Exact: exact}, at)
	}
	addRPC := func(service, method string, at int) {
		keep(Request{Method: "GRPC", Path: "/" + service + "/" + method}, at)
	}
	for _, m := range grpcPathRE.FindAllStringSubmatchIndex(text, maxMatches) {
		addRPC(text[m[2]:m[3]], text[m[4]:m[5]], m[2]-1)
	}
	for _, m := range methodTargetRE.FindAllStringSubmatchIndex(text, maxMatches) {
		add(text[m[2]:m[3]], text[m[4]:m[5]], m[4], false)
	}
	for _, m := range curlRE.FindAllStringIndex(text, maxMatches) {
		cmd := text[m[0]:m[1]]
		u := curlURLRE.FindStringIndex(cmd)
		if u == nil {
			continue
		}
		method := "GET"
		if mm := curlMethodRE.FindStringSubmatch(cmd); mm != nil {
			method = mm[1]
		} else if curlDataRE.MatchString(cmd) {
			method = "POST"
		}
		target := cmd[u[0]:u[1]]
		if !strings.Contains(target, "://") {
			target = "http://" + target
		}
		add(method, target, m[0]+u[0], false)
	}
	// Structured logs, a line at a time: a gRPC interceptor's service and
	// method, an HTTP request's method and path.
	for off := 0; off < len(text) && len(out) < maxRequests; {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		line := text[off : off+end]
		if sm, mm := grpcServiceKVRE.FindStringSubmatch(line), grpcMethodKVRE.FindStringSubmatchIndex(line); sm != nil && mm != nil {
			rpc := line[mm[2]:mm[3]]
			if i := strings.LastIndexByte(rpc, '/'); i >= 0 {
				rpc = rpc[i+1:] // a full method name in the method field
			}
			if rpc != "" {
				addRPC(sm[1], rpc, off+mm[2])
			}
		}
		method := ""
		if mm := kvMethodRE.FindStringSubmatch(line); mm != nil {
			method = mm[1]
		}
		for _, pm := range kvPathRE.FindAllStringSubmatchIndex(line, maxMatches) {
			if notRequestKeyRE.MatchString(line[pm[2]:pm[3]]) {
				continue
			}
			target := line[pm[4]:pm[5]]
			if method == "" && fileExtRE.MatchString(strings.TrimSuffix(target, "/")) {
				continue // a file, not a request
			}
			add(method, target, off+pm[4], method == "")
		}
		off += end + 1
	}
	for _, m := range urlRE.FindAllStringIndex(text, maxMatches) {
		if k := keyBefore.FindStringSubmatch(text[max(0, m[0]-40):m[0]]); k != nil && notRequestKeyRE.MatchString(k[1]) {
			continue // referrer=https://..., a link to an image
		}
		add("", text[m[0]:m[1]], m[0], true)
	}
	for _, m := range barePathRE.FindAllStringSubmatchIndex(text, maxMatches) {
		p := text[m[2]:m[3]]
		if fileExtRE.MatchString(strings.TrimSuffix(p, "/")) || strings.Contains(p, "//") {
			continue // a file's path, not a request's
		}
		add("", p, m[2], true)
	}
	return out
}

// maxRequests caps the requests one text names.
const maxRequests = 20

// requestPath returns the path of a request target (a path or a URL),
// without query and fragment, percent-decoded where it decodes, and false
// when there is none.
func requestPath(target string) (string, bool) {
	target = strings.TrimRight(target, `.,;:)]}>'"`)
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		u, err := url.Parse(target)
		if err != nil {
			return "", false
		}
		target = u.EscapedPath()
	}
	if i := strings.IndexAny(target, "?#"); i >= 0 {
		target = target[:i]
	}
	if dec, err := url.PathUnescape(target); err == nil {
		target = dec
	}
	segs := core.RouteSegments(target)
	if len(segs) == 0 {
		return "", false // "/" is every service's
	}
	return "/" + strings.Join(segs, "/"), true
}

// maxPrefix is how many leading segments of a request may be a prefix the
// routes do not show: an ingress's or gateway's (/api, /shop), a mount
// the crawl could not follow (/v1).
const maxPrefix = 3

// routeMatch is how well a route serves a request.
type routeMatch struct {
	route    core.RouteAt
	literals int // route segments the request names as written
	skipped  int // request segments before the route's first
	// named are the skipped segments that are directories of the route's
	// file: /api/content/posts/1 and .../endpoints/content/routes.js
	named  int
	method bool // the route names the request's method (not ANY)
	test   bool // the route is in a test file
}

// better orders matches: more literal segments, fewer skipped, more of
// the skipped named by the route's file, the method named, outside tests.
func (m routeMatch) better(o routeMatch) bool {
	if m.literals != o.literals {
		return m.literals > o.literals
	}
	if m.skipped != o.skipped {
		return m.skipped < o.skipped
	}
	if m.named != o.named {
		return m.named > o.named
	}
	if m.method != o.method {
		return m.method
	}
	return !m.test && o.test
}

// same reports whether two matches are as good as each other.
func (m routeMatch) same(o routeMatch) bool { return !m.better(o) && !o.better(m) }

// maxRouteTies is how many routes that serve a request equally well are
// kept; more say the request is ambiguous (a catch-all per service).
const maxRouteTies = 4

// matchRequest returns the routes that serve req best: each literal
// segment of a route equal to the request's, a placeholder taking one
// segment, a catch-all the rest; a route needs a literal segment to
// match, and a request with a method may have a prefix the route lacks.
func matchRequest(req Request, routes []core.RouteAt) []core.RouteAt {
	cs := core.RouteSegments(req.Path)
	var best []routeMatch
	for _, r := range routes {
		m, ok := matchRoute(req, cs, r)
		if !ok {
			continue
		}
		switch {
		case len(best) == 0 || m.better(best[0]):
			best = append(best[:0], m)
		case m.same(best[0]):
			best = append(best, m)
		}
	}
	if len(best) == 0 || len(best) > maxRouteTies {
		return nil
	}
	out := make([]core.RouteAt, len(best))
	for i, m := range best {
		out[i] = m.route
	}
	return out
}

// matchRoute is how well route r serves req, whose path's segments are
// cs (the best of the prefixes it may skip); false when it does not.
func matchRoute(req Request, cs []string, r core.RouteAt) (routeMatch, bool) {
	if (r.Method == "GRPC") != (req.Method == "GRPC") {
		return routeMatch{}, false
	}
	if req.Method == "GRPC" {
		// A service is registered once by its name: RegisterCartServiceServer.
		if len(cs) != 2 || core.GRPCServiceName(cs[0]) != core.GRPCServiceName(r.Path) {
			return routeMatch{}, false
		}
		return routeMatch{route: r, literals: 1, method: true, test: core.IsTestPath(r.File)}, true
	}
	method := r.Method != "ANY" && r.Method != ""
	if method && req.Method != "" && !strings.EqualFold(r.Method, req.Method) &&
		!(req.Method == "HEAD" && strings.EqualFold(r.Method, "GET")) {
		return routeMatch{}, false
	}
	rs := core.RouteSegments(r.Path)
	catchAll := slices.IndexFunc(rs, core.IsRouteCatchAll)
	fixed := rs
	if catchAll >= 0 {
		fixed = rs[:catchAll]
	}
	maxSkip := maxPrefix
	if req.Exact {
		maxSkip = 0
	}
	bestM, found := routeMatch{}, false
	for skip := 0; skip <= maxSkip && skip+len(fixed) <= len(cs); skip++ {
		if catchAll < 0 && skip+len(rs) != len(cs) {
			continue
		}
		lit, ok := 0, true
		for i, seg := range fixed {
			c := cs[skip+i]
			switch {
			case core.IsRouteParam(seg):
			case core.IsRouteParam(c):
				ok = false // a placeholder asked where the route has a word
			case strings.EqualFold(seg, c):
				lit++
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if !ok || lit == 0 {
			continue
		}
		m := routeMatch{route: r, literals: lit, skipped: skip, named: dirsNamed(cs[:skip], r.File), method: method, test: core.IsTestPath(r.File)}
		if !found || m.better(bestM) {
			bestM, found = m, true
		}
	}
	return bestM, found
}

// implements reports whether a chunk's scope (its context prefix: file >
// type > member) or the declarations grouped with it hold a type named
// for the gRPC service: kvServer, CartServiceImpl, CartServicer and
// CartService all serve Cart.
func implements(c core.Chunk, service, method string) bool {
	want := core.GRPCServiceName(service)
	parts := strings.Split(c.ContextPrefix, " > ")
	for _, p := range append(parts[min(1, len(parts)):], strings.Split(c.SymbolName, ", ")...) {
		if strings.EqualFold(p, method) {
			continue // the method itself (etcd's Watch service has a Watch)
		}
		n := strings.ToLower(p)
		for _, suffix := range []string{"impl", "servicer", "server", "service", "handler"} {
			n = strings.TrimSuffix(n, suffix)
		}
		if n != "" && n == want {
			return true
		}
	}
	return false
}

// rpcRequestRE is an rpc's request message in its signature: rpc
// UpdateMemo(UpdateMemoRequest) returns (Memo), rpc Watch(stream
// WatchRequest) returns (stream WatchResponse).
var rpcRequestRE = lazyre.New(`^rpc\s+\w+\s*\(\s*(?:stream\s+)?([\w.]+)\s*\)`)

// lastDotted is the part of a dotted name after its last dot.
func lastDotted(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }

// takes reports whether a declaration's signature names a type as a
// whole identifier, as the code tokenizer reads it:
// *v1pb.UpdateMemoRequest takes UpdateMemoRequest, not
// BatchUpdateMemoRequest.
func takes(signature, typ string) bool {
	want := codetok.QueryTokens(typ)
	if signature == "" || len(want) != 1 {
		return false
	}
	return slices.ContainsFunc(codetok.Tokenize(signature), func(t codetok.Token) bool { return t.Text == want[0].Text })
}

// dirsNamed counts the segments that are directory names of file.
func dirsNamed(segs []string, file string) int {
	if len(segs) == 0 {
		return 0
	}
	dirs := strings.Split(strings.ToLower(path.Dir(file)), "/")
	n := 0
	for _, s := range segs {
		if slices.Contains(dirs, strings.ToLower(s)) {
			n++
		}
	}
	return n
}

// handlerName is the declaration a route's handler expression names:
// handler.refreshFeed is refreshFeed, login(s.ds) is login,
// views.OrderDetail.as_view() is OrderDetail; "" for an inline handler or
// none. built says the expression calls what it names to get the handler
// (login(s.ds) builds it, http(api.posts.read) wraps it): a function then
// declares it, not a variable an import binds.
func handlerName(expr string) (name string, built bool) {
	expr = strings.TrimSpace(expr)
	if i := strings.IndexByte(expr, '('); i >= 0 {
		expr, built = expr[:i], true
	}
	// Django's class-based views: OrderDetail.as_view() is OrderDetail.
	if v, ok := strings.CutSuffix(expr, ".as_view"); ok {
		expr, built = v, false
	} else if v, ok := strings.CutSuffix(expr, ".as_asgi"); ok {
		expr, built = v, false
	}
	switch expr {
	case "", "default":
		return "", false
	}
	if i := strings.LastIndexAny(expr, ".:"); i >= 0 {
		expr = expr[i+1:]
	}
	for _, r := range expr {
		if !(r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127) {
			return "", false
		}
	}
	return expr, built
}

// callable are the symbol kinds that declare functions.
var callable = map[string]bool{"function": true, "method": true, "class": true, "group": true, "constructor": true}

// maxHandlerDecls is how many declarations of a handler's name are read
// to find the one the route means.
const maxHandlerDecls = 200

// declaresExactly reports whether one of a chunk's symbols is name as
// written, whatever its qualifier: a handler's name is the code's, case
// and all (refreshFeed is not the client's RefreshFeed).
func declaresExactly(symbols, name string) bool {
	for _, sym := range strings.Split(symbols, ", ") {
		if i := strings.LastIndexAny(sym, ".:/"); i >= 0 {
			sym = sym[i+1:]
		}
		if sym == name {
			return true
		}
	}
	return false
}

// requestHits returns, for each pasted request, the chunks of the routes
// that serve it (best match first): the chunk that registers the route,
// then its handler's declaration when the index holds one it can tell
// apart. A request that no route serves adds nothing.
func (e *Engine) requestHits(ctx context.Context, reqs []Request, f core.Filter) ([]core.Hit, error) {
	rf, ok := e.idx.(RouteFinder)
	loc, ok2 := e.idx.(Locator)
	if !ok || !ok2 || len(reqs) == 0 {
		return nil, nil
	}
	routes, err := rf.Routes(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the routes for a pasted request: %w", err)
	}
	if len(routes) == 0 {
		return nil, nil
	}
	var out []core.Hit
	seen := map[string]bool{}
	add := func(h core.Hit, route string, line int) {
		if seen[h.Chunk.ID] {
			return
		}
		seen[h.Chunk.ID] = true
		h.Lists = []core.ListRank{{List: "routes", Rank: len(out) + 1}}
		h.Explain.Route, h.Explain.RouteLine = route, line
		out = append(out, h)
	}
	// declared looks a name up in a repository's symbols once: the routes
	// a request matches alike (a service registered by its server and by
	// a proxy) share their handler's name.
	decls := map[[2]string][]core.Hit{}
	declared := func(repo, name string) ([]core.Hit, error) {
		key := [2]string{repo, name}
		if hits, ok := decls[key]; ok || name == "" || len(f.Repo) > 0 && !slices.Contains(f.Repo, repo) {
			return hits, nil
		}
		df := f
		df.Repo = []string{repo}
		hits, err := e.idx.BM25(ctx, "code", "{symbol_name} : "+quote(name), maxHandlerDecls, df)
		decls[key] = hits
		return hits, err
	}
	type served struct {
		name              string
		route, handler    core.Hit
		routed, handled   bool
		handlerInRouteDir bool
	}
	for _, req := range reqs {
		var all []served
		for _, r := range matchRequest(req, routes) {
			sv := served{name: r.Method + " " + r.Path}
			handler, built := handlerName(r.Handler)
			service := ""
			if r.Framework == "grpc-gateway" {
				// An rpc bound to HTTP: its service's implementation.
				service = r.Router
			}
			if req.Method == "GRPC" {
				// The service's implementation of the called method.
				sv.name, handler, built, service = "GRPC "+strings.TrimPrefix(req.Path, "/"), path.Base(req.Path), false, path.Dir(req.Path)[1:]
			}
			near, err := loc.ChunksNear(ctx, core.FileRef{Repo: r.Repo, Path: r.File}, r.Line, 0, f)
			if err != nil {
				return nil, fmt.Errorf("read the route %s at %s:%d: %w", sv.name, r.File, r.Line, err)
			}
			sv.route, sv.routed = routeChunk(near, r)
			sv.route.Explain.RouteLine = r.Line
			decls, err := declared(r.Repo, handler)
			if err != nil {
				return nil, fmt.Errorf("look up the handler %s of %s: %w", handler, sv.name, err)
			}
			sv.handler, sv.handled = handlerHit(decls, r, handler, service, built)
			sv.handlerInRouteDir = sv.handled && path.Dir(sv.handler.Chunk.FilePath) == path.Dir(r.File)
			all = append(all, sv)
		}
		// Of routes alike (a service registered by its server and by a
		// proxy), the one whose folder holds the handler first.
		slices.SortStableFunc(all, func(a, b served) int {
			switch {
			case a.handlerInRouteDir == b.handlerInRouteDir:
				return 0
			case a.handlerInRouteDir:
				return -1
			}
			return 1
		})
		for _, sv := range all {
			if sv.routed {
				add(sv.route, sv.name, sv.route.Explain.RouteLine)
			}
			if sv.handled {
				add(sv.handler, sv.name, 0)
			}
		}
	}
	return out, nil
}

// routeChunk is the chunk the crawl found the route in, else the smallest
// holding its line.
func routeChunk(near []core.Hit, r core.RouteAt) (core.Hit, bool) {
	for _, h := range near {
		if h.Chunk.ID == r.ChunkID {
			return h, true
		}
	}
	return chunkAtFrame(near, r.Line, "")
}

// handlerHit finds the declaration of a route's handler (name, see
// handlerName; a gRPC call's method): for a gRPC method the one declared
// in a type named for the service (kvServer serves KV), else the one that
// takes the rpc's request message (from the .proto); else the one
// declaration of its name in the route's repository's code, or the one in
// the route's directory. hits are the chunks of the route's repository
// whose symbols hold the name (the code index's symbol column, filters
// applied).
func handlerHit(hits []core.Hit, r core.RouteAt, name, service string, built bool) (core.Hit, bool) {
	if name == "" {
		return core.Hit{}, false
	}
	// An rpc's request message, from its declaration in a .proto file:
	// the implementation takes it (UpdateMemo(ctx, *pb.UpdateMemoRequest)).
	request := ""
	if service != "" {
		for _, h := range hits {
			if h.Chunk.Language == "protobuf" && declaresName(h, normIdent(name)) &&
				strings.Contains(h.Chunk.ContextPrefix, " > "+lastDotted(service)+" > ") {
				if m := rpcRequestRE.FindStringSubmatch(h.Chunk.Signature); m != nil {
					request = lastDotted(m[1])
				}
			}
		}
	}
	decl, inDir, ofService, ofRequest := map[string]core.Hit{}, map[string]core.Hit{}, map[string]core.Hit{}, map[string]core.Hit{}
	for _, h := range hits {
		if h.Chunk.Corpus != core.CodeLogic || h.Chunk.Language == "protobuf" {
			continue // a translation key, a config entry, the interface
		}
		if service == "" && !declaresExactly(h.Chunk.SymbolName, name) ||
			service != "" && !declaresName(h, normIdent(name)) { // grpc-java's addItem is AddItem
			continue
		}
		if built && !callable[h.Chunk.SymbolKind] {
			continue // http(api.posts.read): http is a wrapper, const http = require("http") no handler
		}
		if d, ok := decl[h.Chunk.FilePath]; !ok || h.Chunk.LineStart < d.Chunk.LineStart {
			decl[h.Chunk.FilePath] = h
			if path.Dir(h.Chunk.FilePath) == path.Dir(r.File) {
				inDir[h.Chunk.FilePath] = h
			}
			if service != "" && implements(h.Chunk, service, name) {
				ofService[h.Chunk.FilePath] = h
			}
			if request != "" && takes(h.Chunk.Signature, request) {
				ofRequest[h.Chunk.FilePath] = h
			}
		}
	}
	only := func(m map[string]core.Hit) core.Hit {
		for _, h := range m {
			return h
		}
		return core.Hit{}
	}
	var h core.Hit
	switch {
	case len(ofService) == 1:
		h = only(ofService)
	case len(ofRequest) == 1:
		h = only(ofRequest)
	case len(decl) == 1:
		h = only(decl)
	case len(inDir) == 1:
		h = only(inDir)
	default:
		return core.Hit{}, false
	}
	h.Score, h.Lists = 0, nil
	return h, true
}
