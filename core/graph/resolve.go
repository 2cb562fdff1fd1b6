package graph

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// addEdge adds e, or merges its evidence into the edge with the same key.
func (b *builder) addEdge(e Edge, ev Evidence) {
	k := e.Key()
	if old, ok := b.edges[k]; ok {
		if old.configured && !e.configured {
			// A traced call of an edge the configuration named: the call
			// is the evidence that comes first.
			old.configured = false
			old.Confidence, old.Via, old.URL = e.Confidence, e.Via, first(e.URL, old.URL)
			var rest []Evidence
			for _, x := range old.Evidence {
				if x != ev {
					rest = append(rest, x)
				}
			}
			old.Evidence = append([]Evidence{ev}, rest...)
			return
		}
		for _, x := range old.Evidence {
			if x == ev {
				return
			}
		}
		old.Evidence = append(old.Evidence, ev)
		if e.Confidence > old.Confidence {
			old.Confidence, old.Via, old.URL = e.Confidence, e.Via, e.URL
		}
		if old.Handler == "" {
			old.Handler = e.Handler
		}
		return
	}
	e.Evidence = []Evidence{ev}
	b.edges[k] = &e
}

// deployEdges adds the edges deploy files declare: an Ingress to its
// backends, an Aspire resource to what it references.
func (b *builder) deployEdges() {
	for _, r := range b.in.Resources {
		switch r.Kind {
		case "Ingress", "HTTPRoute", "GRPCRoute":
			for _, be := range r.Backends {
				target := b.alias[strings.ToLower(be.Service)]
				if target == "" {
					target = b.node(be.Service, KindService).Name
				}
				line := be.Line
				if line == 0 {
					line = r.Line
				}
				u := be.Host + be.Path
				typ := EdgeHTTP
				if r.Kind == "GRPCRoute" {
					typ = EdgeGRPC
				}
				b.addEdge(Edge{Source: "ingress:" + r.Name, Target: target, Type: typ, Method: "ANY", Path: be.Path, URL: u,
					Confidence: 1, Via: r.Kind + " " + r.Name}, Evidence{r.ChunkID, r.Repo, r.File, line})
			}
		case "Subscription": // Dapr's: the topic goes to the apps it is scoped to
			topic := r.Data["topic"]
			if topic == "" {
				continue
			}
			for _, app := range r.Scopes {
				svc, _, _ := b.hostNode(app)
				if svc == "" || b.nodes[svc].Kind != KindService {
					continue
				}
				t := b.node(topic, KindTopic).Name
				b.addEdge(Edge{Source: t, Target: svc, Type: EdgeQueue, Method: "subscribe", Path: topic, Confidence: 0.9,
					Via: "Dapr Subscription " + r.Name}, evidenceOf(r))
			}
		case core.ResourceAspire:
			for _, ref := range r.References {
				t := b.nodes[ref]
				if t == nil {
					continue
				}
				typ := map[string]string{KindCache: EdgeCache, KindDatabase: EdgeDB, KindQueue: EdgeQueue}[t.Kind]
				if typ == "" {
					typ = EdgeHTTP
				}
				b.addEdge(Edge{Source: r.Name, Target: ref, Type: typ, Confidence: 0.9, Via: "Aspire WithReference"},
					Evidence{r.ChunkID, r.Repo, r.File, r.Line})
			}
		}
	}
}

// networkPolicies corroborate edges: a NetworkPolicy that lets the caller
// into the target is evidence of the edge (and raises its confidence). A
// policy creates no edge: it allows, it does not call.
func (b *builder) networkPolicies() {
	for _, r := range b.in.Resources {
		if r.Kind != "NetworkPolicy" || r.Service == "" {
			continue
		}
		target := b.alias[strings.ToLower(r.Service)]
		for _, from := range r.From {
			src := b.alias[strings.ToLower(from)]
			for _, e := range b.edges {
				if e.Source == src && e.Target == target && (e.Type == EdgeHTTP || e.Type == EdgeGRPC) {
					e.Evidence = append(e.Evidence, Evidence{r.ChunkID, r.Repo, r.File, r.Line})
					if e.Confidence < 0.95 {
						e.Confidence = 0.95
					}
					e.Via = join(e.Via, "allowed by NetworkPolicy "+r.Name)
				}
			}
		}
	}
}

// resolved is an address found for a call, and how.
type resolved struct {
	value string
	via   string
	conf  float64
}

// call turns one outbound call into an edge.
func (b *builder) call(c core.CallAt) {
	if c.Kind == core.CallClient || b.skipCall(c) {
		return
	}
	ev := Evidence{c.ChunkID, c.Repo, c.File, c.Line}
	if _, ok := taskSystems[c.System]; ok {
		b.taskCall(c, ev)
		return
	}
	// A background job's body runs on the workers that run its code.
	srcs := b.taskWorkers(c)
	if len(srcs) == 0 {
		src := b.ownerOf(c.Repo, c.File)
		if src == "" {
			if src = b.standIn(c.Repo); src == "" {
				return // scripts, tools and shared code outside every service's folder
			}
		}
		srcs = []string{src}
	}
	for _, src := range srcs {
		switch c.Kind {
		case core.CallHTTP:
			b.httpCall(src, c, ev)
		case core.CallGRPC:
			b.grpcCall(src, c, ev)
		case core.CallPublish, core.CallSubscribe:
			b.queueCall(src, c, ev)
		case core.CallDB, core.CallCache:
			b.storeCall(src, c, ev)
		case core.CallSDK:
			b.sdkCall(src, c, ev)
		}
	}
}

// standIn is the node that stands for the code of a repository that
// declares no service (the repository itself), "" for a repository that
// declares services: its code outside their folders belongs to none.
func (b *builder) standIn(repo string) string {
	if b.declaring[repo] {
		return ""
	}
	n := b.node(repo, KindService)
	n.Repo = first(n.Repo, repo)
	if n.Repo == repo {
		n.Directory = first(n.Directory, ".")
	}
	return n.Name
}

// scopeNames are the names of a chunk's scope after its file:
// "clients.go > CartClient > GetCart" -> CartClient, GetCart.
func scopeNames(scope string) []string {
	parts := strings.Split(scope, " > ")
	if len(parts) < 2 {
		return nil
	}
	return parts[1:]
}

// origin is where a call's address comes from: its own fields, or those
// of the client it goes through.
type origin struct {
	base, env, config, def string
}

func (b *builder) originOf(src string, c core.CallAt) origin {
	o := origin{c.Base, c.Env, c.Config, c.Default}
	if o.base == "" && o.env == "" && o.config == "" && o.def == "" {
		names := scopeNames(c.Scope)
		for _, reg := range b.clients[src] {
			if reg.Client == "" {
				continue
			}
			if reg.Client == c.Client {
				return origin{reg.Base, reg.Env, reg.Config, reg.Default}
			}
			for _, n := range names {
				// A typed client: the class the call is made in.
				if reg.Client == n {
					return origin{reg.Base, reg.Env, reg.Config, reg.Default}
				}
			}
		}
	}
	return o
}

// trace follows an expression that holds an address (c.base,
// cfg.DatabaseURL) through the service's field and constructor bindings:
// c.base of a CartClient was set from parameter 0 of NewCartClient, which
// main passes cfg.CartURL, which configFromEnv sets to
// envOr("CART_URL", "http://cart:8080"). An expression that is a
// parameter of the constructor the call is made in (at, the call's file
// and line; nil when tracing an argument) is traced to the arguments its
// callers pass. site is the file the expression is read in: only
// bindings of its language are followed, a receiver's fields (types) are
// those of its package, and a constructor's arguments are those of calls
// to its own package's constructor (cart.NewClient, not store.NewClient).
func (b *builder) trace(src, expr string, types []string, at *core.CallAt, site core.BindingAt, depth int) (origin, string, bool) {
	if depth > 4 {
		return origin{}, "", false
	}
	// The same expression is traced again and again (every call through
	// one client, every branch that reaches one field): what it depends
	// on is the key.
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d", src, expr, strings.Join(types, ","), site.Repo,
		path.Dir(site.File), langFamily(site.File), depth)
	if at != nil {
		key += fmt.Sprintf("\x00%s\x00%s\x00%d", at.Repo, at.File, at.Line)
	}
	if r, ok := b.traced[key]; ok {
		return r.o, r.via, r.ok
	}
	o, via, ok := b.traceOnce(src, expr, types, at, site, depth)
	b.traced[key] = traceResult{o, via, ok}
	return o, via, ok
}

// traceResult is what trace returned for one expression.
type traceResult struct {
	o   origin
	via string
	ok  bool
}

// traceOnce is trace without its memory.
func (b *builder) traceOnce(src, expr string, types []string, at *core.CallAt, site core.BindingAt, depth int) (origin, string, bool) {
	expr = strings.Trim(strings.TrimPrefix(expr, "expr:"), "{}")
	field := expr
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		field = field[i+1:]
	}
	if field == "" || strings.ContainsAny(field, "()[] +") {
		return origin{}, "", false
	}
	lang := langFamily(site.File)
	// args follows parameter index of the constructor decl is in to the
	// arguments its callers pass.
	args := func(step string, decl core.BindingAt) (origin, string, bool) {
		for _, arg := range b.argBinds[src][argKey(decl.Func, decl.Index)] {
			if langFamily(arg.File) != lang || !callsPackageOf(arg, decl) {
				continue
			}
			call := fmt.Sprintf("%s(%s)", arg.Func, arg.Expr)
			if o, ok := bindingOrigin(arg.Binding); ok {
				return o, step + " <- " + call, true
			}
			if o, via, ok := b.trace(src, arg.Expr, nil, nil, arg, depth+1); ok {
				return o, step + " <- " + call + " <- " + via, true
			}
		}
		return origin{}, "", false
	}
	// Every value the field is given. A field several places give
	// different addresses (each OAuth provider's constructor its own
	// user-info URL on a shared base type) is the one given in the
	// calling file, if one is there; else it is not known.
	type found struct {
		o    origin
		via  string
		here bool
	}
	var all []found
	for _, bd := range b.fieldBinds[src][field] {
		if langFamily(bd.File) != lang {
			continue
		}
		// A field of a known type, and any Go field (link.URL of an
		// API's response is not a payload's ProgrammingLanguage.URL in
		// another package), is set in the reading package.
		if (len(types) > 0 || lang == "go") && !samePackage(bd, site) || len(types) > 0 && !contains(types, bd.Type) {
			continue
		}
		here := at != nil && bd.Repo == at.Repo && bd.File == at.File
		step := bd.Type + "." + bd.Field
		if bd.Param != "" {
			if o, via, ok := args(step, bd); ok {
				all = append(all, found{o, via, here})
			}
			continue
		}
		if o, ok := bindingOrigin(bd.Binding); ok {
			all = append(all, found{o, step + " = " + bd.Expr, here})
		} else if o, via, ok := b.trace(src, bd.Expr, nil, nil, bd, depth+1); ok {
			all = append(all, found{o, step + " <- " + via, here})
		}
	}
	if len(all) > 0 {
		// one reports whether fs give a single origin.
		one := func(fs []found) bool {
			return len(fs) > 0 && !slices.ContainsFunc(fs, func(f found) bool { return f.o != fs[0].o })
		}
		local := slices.DeleteFunc(slices.Clone(all), func(f found) bool { return !f.here })
		switch {
		case one(all):
			return all[0].o, all[0].via, true
		case one(local):
			return local[0].o, local[0].via, true
		}
		return origin{}, "", false
	}
	if field == expr && at != nil { // a plain name: a parameter?
		for _, bd := range b.params[src] {
			if bd.Field == field && bd.Repo == at.Repo && bd.File == at.File && bd.Line <= at.Line && at.Line <= bd.End {
				if o, via, ok := args("parameter "+field+" of "+bd.Func, bd); ok {
					return o, via, true
				}
			}
		}
	}
	return origin{}, "", false
}

// argKey keys the argument bindings of parameter index of constructor fn.
func argKey(fn string, index int) string {
	return fn + "\x00" + strconv.Itoa(index)
}

// appendIndexed appends bd to m[key], making m when it is nil.
func appendIndexed(m map[string][]core.BindingAt, key string, bd core.BindingAt) map[string][]core.BindingAt {
	if m == nil {
		m = map[string][]core.BindingAt{}
	}
	m[key] = append(m[key], bd)
	return m
}

// langFamily names the language a file's bindings are in, by its
// extension; TypeScript and JavaScript are one.
func langFamily(file string) string {
	switch l := codeLanguage(file); l {
	case "typescript":
		return "javascript"
	case "":
		return strings.ToLower(path.Ext(file))
	default:
		return l
	}
}

// samePackage reports whether two files are in one directory of one
// repository (one Go package).
func samePackage(a, b core.BindingAt) bool {
	return a.Repo == b.Repo && path.Dir(a.File) == path.Dir(b.File)
}

// callsPackageOf reports whether the constructor call arg may be a call
// of the constructor decl is in: an unqualified call from decl's own
// package, or a call qualified by an import path that ends in decl's
// directory (.../integration/cart for integration/cart/client.go). A
// call whose package is unknown (a method of a value) may be any.
func callsPackageOf(arg, decl core.BindingAt) bool {
	switch arg.Pkg {
	case "":
		return true
	case ".":
		return samePackage(arg, decl)
	}
	dir := path.Dir(decl.File)
	if dir == "." {
		dir = decl.Repo // the repository's root package
	}
	return path.Base(dir) == core.GoImportBase(arg.Pkg)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// bindingOrigin is where a binding's evaluated value comes from, if the
// evaluation got anywhere.
func bindingOrigin(bd core.Binding) (origin, bool) {
	switch bd.Origin {
	case core.FromEnv:
		return origin{env: bd.Env, def: bd.Default}, bd.Env != ""
	case core.FromConfig:
		return origin{config: bd.Config, def: bd.Default}, bd.Config != ""
	case core.FromTemplate:
		// An address around one setting (Spring's
		// @Value("http://${CATALOG_ADDR}/api")): resolveOrigin fills it.
		if strings.Count(bd.Value, "{") == 1 && hostPlaceholder(bd.Value) != nil {
			return origin{base: bd.Value, def: bd.Default}, true
		}
	case core.FromLiteral, core.FromConstant:
		if isAbsolute(bd.Value) {
			return origin{base: bd.Value}, true
		}
		if _, ok := parseAddress(bd.Value); ok && strings.Contains(bd.Value, ":") {
			return origin{base: bd.Value}, true
		}
	}
	return origin{}, false
}

// address finds the URL, DSN or address a call talks to.
func (b *builder) address(src string, c core.CallAt) (resolved, string) {
	if isAbsolute(c.Target) {
		if host := strings.SplitN(strings.SplitN(c.Target, "://", 2)[1], "/", 2)[0]; strings.Contains(host, "{") {
			// http://{USERS_HOST}:8080/x: the host from the environment.
			if vals := b.expandHost(src, c.Target); len(vals) > 0 {
				return resolved{vals[0], "host " + host + " from the service's environment", 0.9}, ""
			}
			return resolved{}, "host " + host + " is computed"
		}
		return resolved{c.Target, "literal in code", 0.95}, ""
	}
	o := b.originOf(src, c)
	t, traced, ok := b.traceCall(src, c, o)
	if ok {
		o = t
	}
	r, why := b.resolveOrigin(src, o)
	if why == "" && traced != "" {
		r.via, r.conf = traced+"; "+r.via, round(r.conf*0.95)
	}
	return r, why
}

// traceCall follows the expression a call's address is (c.base, a
// constructor's parameter) to where it comes from, when o, the call's
// own origin, is such an expression.
func (b *builder) traceCall(src string, c core.CallAt, o origin) (origin, string, bool) {
	expr := ""
	switch {
	case strings.HasPrefix(o.base, "expr:"):
		expr = o.base
	case o.base == "" && o.env == "" && o.config == "" && o.def == "" && c.Origin == core.FromExpression && strings.HasPrefix(c.Target, "{"):
		expr = c.Target
	}
	if expr == "" {
		return origin{}, "", false
	}
	var types []string
	if strings.HasPrefix(expr, "expr:") && strings.Contains(expr, ".") {
		types = scopeNames(c.Scope) // c.base: a field of the receiver
	}
	t, via, ok := b.trace(src, expr, types, &c, core.BindingAt{Repo: c.Repo, File: c.File}, 0)
	if !ok {
		return origin{}, "", false
	}
	return t, "traced " + strings.Trim(strings.TrimPrefix(expr, "expr:"), "{}") + ": " + via, true
}

// unresolvedTarget names the unresolved node of a call whose address was
// not found: after the environment variable or configuration key its
// expression was traced to (?env:ORDERS_URL rather than ?{ordersURL}),
// and says how it was traced.
func (b *builder) unresolvedTarget(src string, c core.CallAt, why string) (string, string) {
	if o, traced, ok := b.traceCall(src, c, b.originOf(src, c)); ok {
		switch {
		case o.env != "":
			return b.unresolved("env:" + o.env), traced + "; " + why
		case o.config != "":
			return b.unresolved("config:" + o.config), traced + "; " + why
		}
	}
	raw := rawTarget(c)
	if p := core.WithoutQuery(raw); p != "" {
		raw = p // the query is no part of what is called
	}
	return b.unresolved(raw), why
}

// genericWords say nothing about which service a name is for.
var genericWords = map[string]bool{"svc": true, "service": true, "services": true, "addr": true, "address": true, "url": true,
	"uri": true, "host": true, "hostname": true, "endpoint": true, "conn": true, "connection": true, "client": true,
	"base": true, "api": true, "port": true, "target": true, "server": true, "grpc": true, "http": true, "stub": true,
	"channel": true, "the": true, "new": true, "get": true, "fe": true, "cs": true, "c": true, "s": true}

// nameKey reduces a name to the words that say which service it is for:
// cartSvcAddr, CART_SERVICE_ADDR, CartClient and Cart all give "cart";
// PRODUCT_CATALOG_SERVICE_ADDR and ProductCatalog give "productcatalog".
func nameKey(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := strings.ToLower(string(cur))
			if !genericWords[w] {
				words = append(words, w)
			}
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '{' || r == '}':
			flush()
		case i > 0 && r >= 'A' && r <= 'Z' && (rs[i-1] >= 'a' && rs[i-1] <= 'z' || i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z' && rs[i-1] >= 'A' && rs[i-1] <= 'Z'):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return strings.Join(words, "")
}

// envByName finds the environment variable of src named after hint (a
// client, a gRPC service, a field holding an address): CURRENCY_SERVICE_ADDR
// for the Currency client. Only a variable whose value parses as an
// address counts.
func (b *builder) envByName(src, hint string) (resolved, bool) {
	key := nameKey(hint)
	if len(key) < 3 {
		return resolved{}, false
	}
	for _, s := range b.env[src] {
		names := make([]string, 0, len(s.vars))
		for k := range s.vars {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if nameKey(k) == key {
				if _, ok := parseAddress(s.vars[k]); ok {
					return resolved{s.vars[k], "env " + k + " from " + s.via + " (named like " + hint + ")", round(s.conf * 0.8)}, true
				}
			}
		}
	}
	return resolved{}, false
}

// resolveOrigin finds the address an origin names.
func (b *builder) resolveOrigin(src string, o origin) (resolved, string) {
	env := o.env
	if env == "" && strings.HasPrefix(o.base, "env:") {
		env = o.base[4:]
	}
	key := o.config
	if key == "" && strings.HasPrefix(o.base, "config:") {
		key = o.base[7:]
	}
	var missing []string
	if m := hostPlaceholder(o.base); m != nil && env == "" && key == "" {
		// http://{CATALOG_ADDR}/api: the setting is the host (and port).
		name := o.base[m[2]:m[3]]
		if r, ok := b.configValue(src, name); ok && !strings.Contains(r.value, "://") {
			return resolved{o.base[:m[0]] + r.value + o.base[m[1]:], r.via, r.conf}, ""
		}
		if o.def != "" {
			return resolved{o.base[:m[0]] + o.def + o.base[m[1]:], "default in code", 0.8}, ""
		}
		return resolved{}, "the host of " + o.base + " is set by no deploy or settings file of " + src
	}
	if env != "" {
		if r, ok, why := b.envValue(src, env); ok {
			return r, ""
		} else if why != "" {
			missing = append(missing, why)
		}
	}
	if key != "" {
		if r, ok := b.configValue(src, key); ok {
			return r, ""
		}
	}
	if isAbsolute(o.base) {
		return resolved{o.base, "literal base address in code", 0.95}, ""
	}
	if o.def != "" {
		return resolved{o.def, "default in code", 0.8}, ""
	}
	switch {
	case env != "":
		missing = append(missing, "env "+env+" is set by no deploy file of "+src)
	case key != "":
		missing = append(missing, "config key "+key+" is set nowhere for "+src)
	case o.base != "":
		missing = append(missing, "base address "+o.base+" is computed")
	default:
		missing = append(missing, "no base address")
	}
	return resolved{}, strings.Join(missing, "; ")
}

// hostPlaceholder finds the {NAME} placeholder in the host part of an
// absolute address (http://{CATALOG_ADDR}/api): the submatch indexes of
// hostPlaceholderRE, nil when the host holds none.
func hostPlaceholder(u string) []int {
	if !isAbsolute(u) {
		return nil
	}
	m := hostPlaceholderRE.FindStringSubmatchIndex(u)
	if m == nil {
		return nil
	}
	hostStart := strings.Index(u, "://") + 3
	hostEnd := len(u)
	if i := strings.IndexAny(u[hostStart:], "/?#"); i >= 0 {
		hostEnd = hostStart + i
	}
	if m[0] < hostStart || m[1] > hostEnd {
		return nil
	}
	return m
}

func isAbsolute(s string) bool {
	return strings.Contains(s, "://") && !strings.HasPrefix(s, "{")
}

// envValue reads an environment variable of src from its deploy files, in
// order of precedence. why says why it was not found when one source sets
// it from a Secret.
func (b *builder) envValue(src, name string) (resolved, bool, string) {
	why := ""
	for _, s := range b.env[src] {
		if v, ok := lookupFold(s.vars, name); ok && v != "" {
			return resolved{v, "env " + name + " from " + s.via, s.conf}, true, ""
		}
		if sec, ok := s.unknown[name]; ok && why == "" {
			why = "env " + name + " comes from " + sec + " in " + s.via
		}
	}
	for _, s := range b.config[src] {
		if v, ok := lookupFold(s.vars, name); ok && v != "" {
			return resolved{v, "env " + name + " from " + s.via, s.conf}, true, ""
		}
	}
	return resolved{}, false, why
}

// configValue reads a configuration key of src: from the environment first
// (Services:Catalog is Services__Catalog there, spring.a.b is SPRING_A_B),
// then from its settings files.
func (b *builder) configValue(src, key string) (resolved, bool) {
	for _, name := range []string{strings.ReplaceAll(key, ":", "__"), strings.ToUpper(strings.NewReplacer(".", "_", "-", "", ":", "__").Replace(key))} {
		if r, ok, _ := b.envValue(src, name); ok {
			r.via = "config " + key + " from " + strings.TrimPrefix(r.via, "env ")
			return r, true
		}
	}
	for _, k := range configAliases(key) {
		for _, s := range b.config[src] {
			if v, ok := lookupFold(s.vars, k); ok && v != "" {
				return resolved{v, "config " + k + " from " + s.via, s.conf}, true
			}
		}
	}
	return resolved{}, false
}

// pathNameRE is a name that says it holds a path or an address, not
// one segment.
var pathNameRE = lazyre.New(`(?i)(path|url|uri|route|endpoint)`)

// configAliases lists the keys a configuration key may be written as:
// itself, and for a MicroProfile Rest Client's address
// (quarkus.rest-client.KEY.url) the .uri spelling and MicroProfile's
// KEY/mp-rest/url and KEY/mp-rest/uri.
func configAliases(key string) []string {
	rest, ok := strings.CutPrefix(key, "quarkus.rest-client.")
	if !ok || !strings.HasSuffix(rest, ".url") {
		return []string{key}
	}
	name := strings.TrimSuffix(rest, ".url")
	bare := strings.Trim(name, `"`)
	return []string{key, "quarkus.rest-client." + name + ".uri", bare + "/mp-rest/url", bare + "/mp-rest/uri"}
}

func lookupFold(m map[string]string, k string) (string, bool) {
	if v, ok := m[k]; ok {
		return v, true
	}
	for mk, v := range m {
		if strings.EqualFold(mk, k) {
			return v, true
		}
	}
	return "", false
}

// address parts
type addr struct {
	scheme, host, port, path, db string
}

var adoKey = lazyre.New(`(?i)(?:^|;)\s*(host|server|data source|address|database|initial catalog|dbname)\s*=\s*([^;]*)`)

// goMySQLDSN is go-sql-driver/mysql's DSN,
// [user[:password]@]tcp(host:port)/dbname[?params]: the user part up to
// the last @, the address in the parentheses, the database after them.
var goMySQLDSN = lazyre.New(`^(?:\S*@)?(?:tcp6?|udp)?\(([^()/]+)\)/([^?/\s]*)`)

// parseAddress reads a URL, a DSN, "host:port[,options]" or an ADO.NET
// connection string.
func parseAddress(v string) (addr, bool) {
	v = strings.TrimSpace(v)
	if v == "" || strings.HasPrefix(v, "{") {
		return addr{}, false
	}
	if strings.Contains(v, "://") {
		// Several brokers or hosts: the first.
		if i := strings.IndexByte(v, ','); i > 0 && !strings.Contains(v[:i], "?") {
			v = v[:i]
		}
		u, err := url.Parse(v)
		if err != nil || u.Hostname() == "" {
			// Placeholders the parser refuses (<PASSWORD>): cut the user part.
			if at := strings.LastIndexByte(v, '@'); at > 0 {
				scheme := v[:strings.Index(v, "://")]
				u, err = url.Parse(scheme + "://" + v[at+1:])
			}
			if err != nil || u == nil || u.Hostname() == "" {
				return addr{}, false
			}
		}
		a := addr{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Hostname()), port: u.Port(), path: u.Path}
		switch {
		case strings.HasPrefix(a.scheme, "postgres"), strings.HasPrefix(a.scheme, "mysql"), strings.HasPrefix(a.scheme, "mongodb"),
			a.scheme == "sqlserver", a.scheme == "mariadb", a.scheme == "cockroachdb", a.scheme == "cockroach", strings.HasPrefix(a.scheme, "jdbc"):
			// Options joined with & where ? was meant (/mysql&max_conns=20)
			// are no part of the database's name.
			a.db, _, _ = strings.Cut(strings.Trim(u.Path, "/"), "&")
			a.path = ""
		}
		return a, true
	}
	if m := goMySQLDSN.FindStringSubmatch(v); m != nil {
		host, port, _ := strings.Cut(m[1], ":")
		return addr{scheme: "mysql", host: strings.ToLower(host), port: port, db: m[2]}, host != ""
	}
	if m := adoKey.FindAllStringSubmatch(v, -1); len(m) > 0 {
		var a addr
		for _, kv := range m {
			switch strings.ToLower(kv[1]) {
			case "host", "server", "data source", "address":
				h := strings.TrimPrefix(strings.TrimSpace(kv[2]), "tcp:")
				h = strings.SplitN(strings.SplitN(h, ",", 2)[0], ":", 2)[0]
				a.host = strings.ToLower(h)
			case "database", "initial catalog", "dbname":
				a.db = strings.TrimSpace(kv[2])
			}
		}
		return a, a.host != ""
	}
	// host:port[,options]
	h := strings.SplitN(v, ",", 2)[0]
	h = strings.SplitN(h, "/", 2)[0]
	host, port, _ := strings.Cut(h, ":")
	if host == "" || strings.ContainsAny(host, " ={}$") || strings.Trim(host, "0123456789") == "" || hexNumber.MatchString(host) ||
		port == "" && quantity.MatchString(host) {
		// A number (0x80000, a load address) is no host's name, nor a
		// duration or a size alone (-read-timeout-server=5m, 512Mi).
		return addr{}, false
	}
	return addr{host: strings.ToLower(host), port: port}, true
}

var hexNumber = lazyre.New(`^0[xX][0-9a-fA-F]+$`)

// quantity is a duration or a size as settings write them: 62s, 1h30m,
// 100ms, 512Mi, 10GB.
var quantity = lazyre.New(`^(?i)([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h|d|w|k|kb|kib|ki|mb|mib|mi|g|gb|gib|gi|t|tb|ti)?)+$`)

var genericAffix = lazyre.New(`^(?:svc-)|(?:-service|-svc|-api|-server|-srv|-app|-http|-grpc)$`)

// hostNode finds the node a host is: a name or alias, a cluster DNS name
// by its first label, a name without -service/-api; an external host
// otherwise. It returns the node, how sure the match is (a factor), and
// how it matched.
func (b *builder) hostNode(host string) (string, float64, string) {
	n, f, how := b.lookupHost(host)
	if n == "" && how == "" {
		return b.node(host, KindExternal).Name, 1, ""
	}
	return n, f, how
}

// cloudMetadataHosts are the names of clouds' instance metadata servers
// (where a workload asks for its identity token): external hosts, though
// they end in .internal.
var cloudMetadataHosts = map[string]bool{"metadata.google.internal": true, "metadata.goog": true}

// lookupHost is hostNode without making a node: for an external host it
// returns "" and no reason.
func (b *builder) lookupHost(host string) (string, float64, string) {
	if n, ok := b.alias[host]; ok {
		return n, 1, ""
	}
	// astronomy_db and astronomy-db: compose resolves either spelling.
	for _, alt := range []string{strings.ReplaceAll(host, "_", "-"), strings.ReplaceAll(host, "-", "_")} {
		if n, ok := b.alias[alt]; ok && alt != host {
			return n, 0.95, "host matched with - and _ exchanged"
		}
	}
	label := strings.SplitN(host, ".", 2)[0]
	internal := (!strings.Contains(host, ".") || strings.HasSuffix(host, ".svc.cluster.local") || strings.HasSuffix(host, ".svc") ||
		strings.HasSuffix(host, ".local") || strings.HasSuffix(host, ".internal")) && !cloudMetadataHosts[host]
	if internal {
		if n, ok := b.alias[label]; ok {
			return n, 0.85, "host matched by its first label"
		}
		if stripped := genericAffix.ReplaceAllString(label, ""); stripped != label {
			if n, ok := b.alias[stripped]; ok {
				return n, 0.7, "host matched without its -service/-api affix"
			}
		}
	}
	if isLocal(host) {
		return "", 0, "localhost"
	}
	if strings.Contains(host, ".") && !internal {
		return "", 0, ""
	}
	return "", 0, "host " + host + " is no known service"
}

// downloadHosts serve toolchains and packages: a script or tool that
// fetches kubectl or a Go release from them is a developer's or a build's
// step, never a dependency of the running service.
var downloadHosts = map[string]bool{"dl.k8s.io": true, "go.dev": true, "golang.org": true, "dl.google.com": true,
	"get.helm.sh": true, "releases.hashicorp.com": true, "nodejs.org": true, "registry.npmjs.org": true,
	"pypi.org": true, "files.pythonhosted.org": true, "proxy.golang.org": true, "sh.rustup.rs": true,
	"static.rust-lang.org": true, "download.docker.com": true, "get.docker.com": true, "deb.debian.org": true,
	"archive.ubuntu.com": true, "dl-cdn.alpinelinux.org": true, "objects.githubusercontent.com": true,
	"repo1.maven.org": true, "repo.maven.apache.org": true, "services.gradle.org": true, "api.nuget.org": true,
	"dot.net": true, "dotnetcli.azureedge.net": true}

// unresolved makes the node that stands for what could not be resolved.
func (b *builder) unresolved(raw string) string {
	return b.node("?"+raw, KindUnresolved).Name
}

func (b *builder) httpCall(src string, c core.CallAt, ev Evidence) {
	if b.daprCall(src, c, ev) {
		return
	}
	r, why := b.address(src, c)
	method := strings.ToUpper(c.Method)
	clientPath := c.Target
	if t := c.Target; strings.HasPrefix(t, "{") && strings.Index(t, "}") == len(t)-1 && (!strings.HasPrefix(c.Base, "expr:") || pathNameRE.MatchString(t)) {
		// The whole address is an expression ({ledgerURL}): no path of
		// its own beyond what the address it resolves to holds. After a
		// base expression ({baseUrl}{id}) it is the path's last segment,
		// unless its name says it is a whole path ({urlPath}, {route}).
		clientPath = ""
	}
	clientPath = core.WithoutQuery(clientPath) // /pods?namespace={ns} calls /pods
	if isAbsolute(c.Target) {
		if _, rest, _ := strings.Cut(c.Target, "://"); strings.Contains(rest, "/") {
			clientPath = "/" + core.WithoutQuery(strings.SplitN(rest, "/", 2)[1])
		} else {
			clientPath = ""
		}
	}
	if why == "" {
		a, ok := parseAddress(r.value)
		if ok && downloadHosts[a.host] {
			return // a tool fetching a release: no dependency
		}
		if !ok {
			why = "address " + r.value + " does not parse"
		} else {
			target, factor, how := b.hostNode(a.host)
			if target != "" {
				full := clientPath
				if !isAbsolute(c.Target) && a.path != "" && a.path != "/" {
					// The address's path, and the call's after it, if any
					// (a field holding the whole URL adds none).
					full = strings.TrimRight(a.path, "/")
					if rest := strings.TrimLeft(clientPath, "/"); rest != "" {
						full += "/" + rest
					}
				}
				e := Edge{Source: src, Target: target, Type: EdgeHTTP, Method: method, Path: full, URL: r.value,
					Confidence: round(r.conf * factor), Via: join(r.via, how)}
				if rt, ok := matchRoute(method, full, b.routes[target]); ok {
					e.Path, e.Handler = rt.Path, rt.Handler
				}
				b.addEdge(e, ev)
				return
			}
			why = join(r.via, how)
		}
	}
	// An environment variable named after the client or the field that
	// holds the address (CatalogClient, c.catalogURL -> CATALOG_URL).
	if why != "" {
		hints := []string{c.Client, strings.TrimPrefix(c.Base, "expr:")}
		hints = append(hints, scopeNames(c.Scope)...)
		for _, hint := range hints {
			if hint == "" {
				continue
			}
			if r2, ok := b.envByName(src, hint); ok {
				if a, ok := parseAddress(r2.value); ok {
					if target, factor, how := b.hostNode(a.host); target != "" {
						e := Edge{Source: src, Target: target, Type: EdgeHTTP, Method: method, Path: clientPath, URL: r2.value,
							Confidence: round(r2.conf * factor), Via: join(r2.via, how)}
						if rt, ok := matchRoute(method, clientPath, b.routes[target]); ok {
							e.Path, e.Handler = rt.Path, rt.Handler
						}
						b.addEdge(e, ev)
						return
					}
				}
			}
		}
	}
	// The base address is unknown: a route that only one other service
	// serves says who is called.
	if svc, rt, ok := b.routeOwner(src, method, clientPath); ok {
		b.addEdge(Edge{Source: src, Target: svc, Type: EdgeHTTP, Method: method, Path: rt.Path, Handler: rt.Handler,
			Confidence: 0.6, Via: "route match (" + why + ")"}, ev)
		return
	}
	// A path with no base at all from a service whose configuration names
	// one HTTP service (a load generator given its target host). A host
	// outside the system it names (an ACME CA's directory, a webhook) is
	// called at the address configured, not at the code's paths (a web
	// UI's, which go to the page's own origin).
	if c.Base == "" && c.Env == "" && c.Config == "" && strings.HasPrefix(c.Target, "/") {
		if t := b.oneConfigured(src, EdgeHTTP); t != "" && b.nodes[t].Kind != KindExternal {
			e := Edge{Source: src, Target: t, Type: EdgeHTTP, Method: method, Path: clientPath, Confidence: 0.6,
				Via: "relative path; the one HTTP service the service's configuration names"}
			if rt, ok := matchRoute(method, clientPath, b.routes[t]); ok {
				e.Path, e.Handler = rt.Path, rt.Handler
			}
			b.addEdge(e, ev)
			return
		}
	}
	target, why := b.unresolvedTarget(src, c, why)
	b.addEdge(Edge{Source: src, Target: target, Type: EdgeHTTP, Method: method, Path: clientPath,
		Confidence: 0, Via: why}, ev)
}

func rawTarget(c core.CallAt) string {
	switch {
	case c.Env != "":
		return "env:" + c.Env
	case c.Config != "":
		return "config:" + c.Config
	case c.Base != "":
		return c.Base
	}
	return c.Target
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "; " + b
}

func round(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// routeOwner finds the one service other than src that serves method and
// path.
func (b *builder) routeOwner(src, method, p string) (string, core.RouteAt, bool) {
	literal := false
	for _, seg := range core.RouteSegments(p) {
		literal = literal || !core.IsRouteParam(seg)
	}
	if !literal {
		return "", core.RouteAt{}, false // a path of placeholders matches anything
	}
	var found string
	var route core.RouteAt
	for _, name := range b.sortedNodes() {
		if name == src {
			continue
		}
		if rt, ok := matchRoute(method, p, b.routes[name]); ok && !isGeneric(rt.Path) && literalsMet(p, rt.Path) {
			if found != "" {
				return "", core.RouteAt{}, false // ambiguous
			}
			found, route = name, rt
		}
	}
	return found, route, found != ""
}

// literalsMet reports whether every literal segment of the client's path
// p meets a literal segment of the route: with no address to go by, a
// route whose parameter or catch-all takes the client's words (/{id} for
// /render, /api/v1/{name} for /api/v1/query) is any service's.
func literalsMet(p, routePath string) bool {
	cs, rs := core.RouteSegments(p), core.RouteSegments(routePath)
	for i, seg := range cs {
		if core.IsRouteParam(seg) {
			continue
		}
		if i >= len(rs) || core.IsRouteParam(rs[i]) || core.IsRouteCatchAll(rs[i]) {
			return false
		}
	}
	return true
}

// isGeneric reports whether a route is one every service has.
func isGeneric(p string) bool {
	switch strings.Trim(p, "/") {
	case "", "healthz", "health", "ready", "readyz", "livez", "metrics", "ping", "status", "version":
		return true
	}
	return false
}

// route is a server route with its path split into segments.
type route struct {
	core.RouteAt
	segs []string
}

// matchRoute finds the route that serves method and path: literal
// segments equal, a route parameter takes any one segment, a catch-all the
// rest; the most literal match wins.
func matchRoute(method, p string, routes []route) (core.RouteAt, bool) {
	cs := core.RouteSegments(p)
	best, bestScore := core.RouteAt{}, -1
	for _, rt := range routes {
		if rt.Method != "ANY" && method != "" && !strings.EqualFold(rt.Method, method) {
			continue
		}
		rs := rt.segs
		score, ok := 0, true
		i := 0
		for ; i < len(rs); i++ {
			if core.IsRouteCatchAll(rs[i]) {
				i = len(cs)
				break
			}
			if i >= len(cs) {
				ok = false
				break
			}
			switch {
			case core.IsRouteParam(rs[i]):
				score++
			case core.IsRouteParam(cs[i]):
				ok = false // the client's value is dynamic, the route's literal
			case strings.EqualFold(rs[i], cs[i]):
				score += 2
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok && i == len(cs) && score > bestScore {
			best, bestScore = rt.RouteAt, score
		}
	}
	return best, bestScore >= 0
}

// normName reduces a service name to the letters and digits that tell it
// apart: payment-service, PaymentService and payment_svc give "payment".
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	n := b.String()
	for _, suf := range []string{"service", "svc"} {
		if strings.HasSuffix(n, suf) && len(n) > len(suf) {
			return strings.TrimSuffix(n, suf)
		}
	}
	return n
}

// standardGRPC reports whether a gRPC service is one gRPC itself defines
// and any server may register (health checking, reflection, channelz): who
// registers it does not say who a client of it calls.
func standardGRPC(service string) bool {
	switch core.GRPCServiceName(service) {
	case "health", "serverreflection", "channelz":
		return true
	}
	return false
}

// grpcCall links a gRPC client to the service it talks to: through the
// address it dials (a dial earlier in the same chunk for a generated
// client: grpc.NewClient(addr) then pb.NewCartServiceClient(conn)), or
// else to the one service that registers the same gRPC service.
func (b *builder) grpcCall(src string, c core.CallAt, ev Evidence) {
	if c.Method == "" {
		// A dial: it becomes an edge through the client that uses it, or
		// on its own when no client in its chunk names a service.
		for _, other := range b.grpcByChunk[c.ChunkID] {
			if other.Method != "" && other.Line >= c.Line {
				return
			}
		}
	}
	service := c.Method
	registered := ""
	var owners []string
	self := false // the caller's own code registers the service
	if service != "" && !standardGRPC(service) {
		for _, name := range b.sortedNodes() {
			for _, rt := range b.routes[name] {
				if rt.Method == "GRPC" && core.GRPCServiceName(rt.Path) == core.GRPCServiceName(service) {
					if name == src {
						self = true
						continue
					}
					owners = appendUnique(owners, name)
					registered = rt.Path
				}
			}
		}
	}
	if len(owners) == 1 {
		service = registered
	}
	dial := c
	if c.Method != "" {
		// The closest dial above the client in the same chunk.
		var best *core.CallAt
		for i, d := range b.grpcByChunk[c.ChunkID] {
			if d.Method == "" && d.Line <= c.Line && (best == nil || d.Line > best.Line) {
				best = &b.grpcByChunk[c.ChunkID][i]
			}
		}
		if best != nil {
			dial = *best
		}
	}
	if dial.Target != "" || dial.Env != "" || dial.Base != "" {
		if r, why := b.address(src, dial); why == "" {
			if a, ok := parseAddress(r.value); ok {
				if target, factor, how := b.hostNode(a.host); target != "" {
					b.addEdge(Edge{Source: src, Target: target, Type: EdgeGRPC, Method: service, URL: r.value,
						Confidence: round(r.conf * factor), Via: join(r.via, how)}, ev)
					return
				}
			}
		}
	}
	if len(owners) == 1 {
		b.addEdge(Edge{Source: src, Target: owners[0], Type: EdgeGRPC, Method: service, Confidence: 0.85,
			Via: "gRPC service " + service + " is registered by " + owners[0]}, ev)
		return
	}
	// An environment variable named after the dialled field or the
	// service: cs.cartSvcAddr, CartService -> CART_SERVICE_ADDR.
	for _, hint := range []string{strings.Trim(dial.Target, "{}"), service} {
		if hint == "" {
			continue
		}
		if r, ok := b.envByName(src, hint); ok {
			if a, ok := parseAddress(r.value); ok {
				if target, factor, how := b.hostNode(a.host); target != "" {
					b.addEdge(Edge{Source: src, Target: target, Type: EdgeGRPC, Method: service, URL: r.value,
						Confidence: round(r.conf * factor), Via: join(r.via, how)}, ev)
					return
				}
			}
		}
	}
	// The one service named like the gRPC service (Payment -> payment,
	// paymentservice, payment-service).
	if service != "" {
		key := normName(core.GRPCServiceName(service))
		var named []string
		for _, name := range b.sortedNodes() {
			n := b.nodes[name]
			if n.Kind != KindService || name == src {
				continue
			}
			if normName(name) == key {
				named = appendUnique(named, name)
				continue
			}
			for _, a := range n.Aliases {
				if normName(a.Name) == key {
					named = appendUnique(named, name)
				}
			}
		}
		if len(named) == 1 {
			b.addEdge(Edge{Source: src, Target: named[0], Type: EdgeGRPC, Method: service, Confidence: 0.6,
				Via: "gRPC service " + service + " matched by name (no address found)"}, ev)
			return
		}
	}
	// The gRPC framework's own services, which a server answers besides
	// its own (health checking, reflection), name no dependency when the
	// address they are asked at is not known: a probe or a tool.
	if grpcFrameworkService(service, c.Text) {
		return
	}
	raw := service
	if raw == "" {
		raw = rawTarget(dial)
	}
	via := "no address and no service registers " + raw
	if self && len(owners) == 0 {
		// A client of its own service, or code another program runs too.
		via = "no address, and only " + src + "'s own code registers " + raw
	}
	b.addEdge(Edge{Source: src, Target: b.unresolved("grpc:" + raw), Type: EdgeGRPC, Method: service, Via: via}, ev)
}

// grpcFrameworkService reports whether a client of gRPC service, made
// by code text, is one of gRPC's own: reflection, channelz, and the
// health service of grpc.health.v1 (grpc_health_v1.NewHealthClient, not
// an application's own HealthService).
func grpcFrameworkService(service, text string) bool {
	switch service {
	case "ServerReflection", "Channelz":
		return true
	case "Health":
		t := strings.ToLower(text)
		return strings.Contains(t, "health_v1") || strings.Contains(t, "healthpb") || strings.Contains(t, "health.v1") ||
			strings.Contains(t, "healthgrpc") || strings.Contains(t, "health_pb")
	}
	return false
}

func (b *builder) queueCall(src string, c core.CallAt, ev Evidence) {
	topic, via, conf := c.Target, "topic in code", 0.95
	why := "the topic is computed"
	if c.Origin == core.FromEnv || c.Origin == core.FromConfig || strings.HasPrefix(topic, "{") {
		// From the environment, a setting, or a field that holds one
		// (Spring's @Value("${orders.topic}") String topic).
		o, traced := origin{env: c.Env, config: c.Config, def: c.Default}, ""
		if t, how, ok := b.traceCall(src, c, o); ok {
			o, traced = t, how
		}
		topic = ""
		if r, ok, _ := b.envValue(src, o.env); ok && o.env != "" {
			topic, via, conf = r.value, r.via, r.conf
		} else if r, ok := b.configValue(src, o.config); ok && o.config != "" {
			topic, via, conf = r.value, r.via, r.conf
		} else if o.def != "" {
			topic, via, conf = o.def, "default in code", 0.8
		}
		switch {
		case o.env != "":
			why = "the topic is environment variable " + o.env + ", which no deploy file of " + src + " sets"
		case o.config != "":
			why = "the topic is setting " + o.config + ", which no settings file of " + src + " gives"
		}
		via = join(traced, via)
	}
	if u, err := url.Parse(topic); err == nil && u.Host != "" {
		if h, _ := hostedService(u.Host); h != "" {
			// An SQS queue URL (https://sqs.REGION.amazonaws.com/ACCOUNT/NAME)
			// names its queue last.
			topic = path.Base(u.Path)
		}
	}
	// The service's own edges (to a broker, to what is unresolved) run
	// from it and say "consume" for a consumer: only a topic's edge to
	// its consumer is a "subscribe" edge, the one dependency that runs
	// against its arrow.
	own := string(c.Kind)
	if c.Kind == core.CallSubscribe {
		own = "consume"
	}
	if topic == "" {
		b.addEdge(Edge{Source: src, Target: b.unresolved(string(c.Kind) + ":" + rawTarget(c)), Type: EdgeQueue, Method: own,
			Via: why}, ev)
		return
	}
	t := b.node(topic, KindTopic).Name
	if c.Kind == core.CallPublish {
		b.addEdge(Edge{Source: src, Target: t, Type: EdgeQueue, Method: "publish", Path: topic, Confidence: conf, Via: join(c.System, via)}, ev)
	} else {
		b.addEdge(Edge{Source: t, Target: src, Type: EdgeQueue, Method: "subscribe", Path: topic, Confidence: conf, Via: join(c.System, via)}, ev)
	}
	// The broker the service's configuration names carries the topic: the
	// service depends on it, publisher and consumer alike.
	for _, broker := range b.brokersFor(src, c.System) {
		b.addEdge(Edge{Source: src, Target: broker, Type: EdgeQueue, Method: own, Path: topic, Confidence: conf,
			Via: join(c.System, via+"; broker from the service's configuration")}, ev)
	}
}

// redisJobs reports whether system is a job system whose broker may be
// a Redis the configuration names as a cache: the task systems and the
// Node.js job queues (system "bullmq": BullMQ, Bull, Bee-Queue).
func redisJobs(system string) bool {
	_, task := taskSystems[system]
	return task || system == "bullmq"
}

// brokerFamilies name the messaging products by the words of their
// images, node names and URL schemes: a Kafka producer's topic is on the
// service's Kafka, not on the RabbitMQ or NATS its configuration also
// names.
var brokerFamilies = []struct {
	family string
	words  []string
}{
	{"kafka", []string{"kafka", "redpanda"}},
	{"rabbitmq", []string{"rabbitmq", "rabbit", "amqp", "amqps"}},
	{"nats", []string{"nats", "jetstream"}},
	{"redis", []string{"redis", "valkey"}},
	{"pulsar", []string{"pulsar"}},
	{"activemq", []string{"activemq", "artemis"}},
	{"mqtt", []string{"mqtt", "mosquitto", "emqx", "hivemq"}},
	{"aws", []string{"sqs", "sns", "aws", "kinesis"}},
	{"azure", []string{"servicebus", "azure-service-bus", "eventhub", "eventhubs"}},
	{"gcp", []string{"pubsub"}},
}

// speaksLike are the brokers a family's clients also talk to by
// protocol: Azure Service Bus's SDK speaks AMQP 1.0, which RabbitMQ (4
// and its plugin) and ActiveMQ Artemis serve too.
var speaksLike = map[string][]string{"azure": {"rabbitmq", "activemq"}}

// messagingFamily is the family a word list names, "" for none.
func messagingFamily(words ...string) string {
	for _, w := range words {
		w = strings.ToLower(w)
		for _, f := range brokerFamilies {
			for _, x := range f.words {
				if strings.Contains(w, x) {
					return f.family
				}
			}
		}
	}
	return ""
}

// brokersFor are the brokers of src a call of the given system goes
// through: those of its family; when none is, those of no known family;
// every one when the system's family is not known.
func (b *builder) brokersFor(src, system string) []string {
	all := b.brokersOf(src)
	if redisJobs(system) && len(all) == 0 {
		// A job system's broker is often Redis (Sidekiq's and BullMQ's
		// always), which the configuration names as the service's cache.
		all = b.configuredTargets(src, EdgeCache)
	}
	fam := messagingFamily(system)
	if fam == "" || len(all) == 0 {
		return all
	}
	var same, unknown []string
	for _, br := range all {
		switch f := b.brokerFamily(src, br); {
		case f == fam || slices.Contains(speaksLike[fam], f):
			same = append(same, br)
		case f == "":
			unknown = append(unknown, br)
		}
	}
	if len(same) > 0 {
		return same
	}
	return unknown
}

// brokerFamily is the messaging family of broker node br: by the URL src
// is configured with, the images that run it, or its name.
func (b *builder) brokerFamily(src, br string) string {
	if f, ok := b.families[[2]string{src, br}]; ok {
		return f
	}
	var words []string
	for _, e := range b.edges {
		if e.Source == src && e.Target == br && e.configured {
			if scheme, _, ok := strings.Cut(e.URL, "://"); ok {
				words = append(words, scheme)
			}
		}
	}
	for _, r := range b.in.Resources {
		if core.IsWorkload(r.Kind) || r.Kind == core.ResourceCompose {
			if b.alias[strings.ToLower(r.Service)] == br {
				for _, img := range r.Images {
					words = append(words, core.ImageName(img))
				}
			}
		}
	}
	f := messagingFamily(append(words, br)...)
	b.families[[2]string{src, br}] = f
	return f
}

// sdkCall links a cloud SDK client to the service it is for: the host
// its address resolves to; with an address nobody can resolve, the
// hosted service itself (an Azure Service Bus namespace, a Cosmos DB
// account: the address is surely one of theirs), named after it with the
// variable that would hold the address as alias; with no address at all,
// the SDK's default. A client given an address that is not the default
// (OpenAI(base_url=...)) and that nobody can resolve is unresolved.
func (b *builder) sdkCall(src string, c core.CallAt, ev Evidence) {
	typ := c.Method
	if typ == "" {
		typ = EdgeHTTP
	}
	if !strings.Contains(c.System, ".") {
		// A hosted service's own SDK talks to that service only, wherever
		// its address comes from.
		n := b.node(c.System, KindExternal)
		if c.Env != "" && !strings.Contains(c.Target, "://") {
			b.addAlias(n, c.Env, "env")
		}
		b.addEdge(Edge{Source: src, Target: n.Name, Type: typ, Confidence: 0.8, Via: c.System + " client"}, ev)
		return
	}
	// An SDK whose default is a host (api.openai.com): given another
	// address, that address.
	r, why := b.address(src, c)
	if why == "" {
		if a, ok := addressOf("url", r.value); ok {
			if t, factor, how := b.target(a, typ); t != "" && t != src {
				b.addEdge(Edge{Source: src, Target: t, Type: typ, URL: redactURL(r.value), Confidence: round(r.conf * factor),
					Via: join(c.System+" client", join(r.via, how))}, ev)
				return
			}
			why = "address " + r.value + " is this machine or an example"
		}
	}
	b.addEdge(Edge{Source: src, Target: b.unresolved(c.System + ":" + rawTarget(c)), Type: typ, Via: c.System + " client; " + why}, ev)
}

// oneConfigured returns the one node src's configuration connects it to
// with an edge of type typ, or "" when there are none or several.
func (b *builder) oneConfigured(src, typ string) string {
	if ts := b.configuredTargets(src, typ); len(ts) == 1 {
		return ts[0]
	}
	return ""
}

// brokersOf lists the brokers a service's configuration connects it to
// (its configured queue edges).
func (b *builder) brokersOf(src string) []string {
	var out []string
	for _, e := range b.edges {
		if e.Source == src && e.Type == EdgeQueue && e.configured && b.nodes[e.Target].Kind != KindTopic {
			out = appendUnique(out, e.Target)
		}
	}
	sort.Strings(out)
	return out
}

// configuredTargets are the nodes src's configuration connects it to
// with edges of type typ.
func (b *builder) configuredTargets(src, typ string) []string {
	var out []string
	for _, e := range b.edges {
		if e.Source == src && e.Type == typ && e.configured {
			out = appendUnique(out, e.Target)
		}
	}
	sort.Strings(out)
	return out
}

var (
	dsnEnvRE   = lazyre.New(`(?i)(database|db|postgres|pg|mysql|mongo|sql|mariadb).*(url|uri|dsn|connection)|connectionstrings`)
	cacheEnvRE = lazyre.New(`(?i)(redis|cache|memcache|valkey).*(url|uri|addr|host|connection|configuration)?`)
)

// storeCall links a service to the database or cache it connects to.
func (b *builder) storeCall(src string, c core.CallAt, ev Evidence) {
	typ, kind, re := EdgeDB, KindDatabase, dsnEnvRE
	if c.Kind == core.CallCache {
		typ, kind, re = EdgeCache, KindCache, cacheEnvRE
	}
	r, why := b.address(src, c)
	if why != "" {
		// The address is an expression: a DSN-like variable of the
		// service's environment says where it goes.
		if v, ok := b.envMatching(src, re); ok {
			r, why = v, ""
			r.conf = round(r.conf * 0.8)
			r.via += " (the call's address is " + rawTarget(c) + ")"
		}
	}
	if why == "" {
		if a, ok := addressOf("url", r.value); ok {
			// The server is the node (what goes down); the database it
			// holds is its alias and the edge's path.
			target, factor, how := b.target(a, typ)
			if target != "" && target != src {
				t := b.nodes[target]
				if t.Kind == KindService && (kind == KindCache || kind == KindDatabase) && len(t.Declared) == 0 {
					t.Kind = kind
				}
				if a.db != "" {
					b.addDatabase(t, a.db)
				}
				b.addEdge(Edge{Source: src, Target: t.Name, Type: typ, Path: a.db, URL: redactURL(r.value), Confidence: round(r.conf * factor),
					Via: join(c.System, join(r.via, how))}, ev)
				return
			}
			why = join(r.via, how)
		} else {
			why = "address " + r.value + " does not parse"
		}
	}
	if t := b.oneConfigured(src, typ); t != "" {
		b.addEdge(Edge{Source: src, Target: t, Type: typ, Confidence: 0.7, Via: join(c.System, why+"; the one "+typ+" the service's configuration names")}, ev)
		return
	}
	b.addEdge(Edge{Source: src, Target: b.unresolved(typ + ":" + rawTarget(c)), Type: typ, Via: why}, ev)
}

// envMatching returns the first variable of src's environment whose name
// matches re and whose value parses as an address.
func (b *builder) envMatching(src string, re *lazyre.Regexp) (resolved, bool) {
	for _, group := range [][]envSource{b.env[src], b.config[src]} {
		for _, s := range group {
			keys := make([]string, 0, len(s.vars))
			for k := range s.vars {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if re.MatchString(k) {
					if _, ok := parseAddress(s.vars[k]); ok {
						return resolved{s.vars[k], fmt.Sprintf("env %s from %s", k, s.via), s.conf}, true
					}
				}
			}
		}
	}
	return resolved{}, false
}

// daprInvokeRE and daprPublishRE are a Dapr sidecar's API paths: service
// invocation (/v1.0/invoke/APP/method/PATH) and a publish
// (/v1.0/publish/PUBSUB/TOPIC).
var (
	daprInvokeRE  = lazyre.New(`^/v1\.0/invoke/([^/?]+)/method(/[^?]*)?`)
	daprPublishRE = lazyre.New(`^/v1\.0/publish/[^/?]+/([^/?]+)`)
)

// daprCall turns a call to a Dapr sidecar, wherever its address comes
// from (localhost:3500, DAPR_HTTP_ENDPOINT), into the dependency it
// stands for: service invocation is an HTTP call to the app whose id it
// names (a service's name, or the dapr.io/app-id its pods carry) at the
// path after method/; a publish puts a message on the topic. It reports
// whether c was such a call.
func (b *builder) daprCall(src string, c core.CallAt, ev Evidence) bool {
	p := c.Target
	if isAbsolute(p) {
		_, rest, _ := strings.Cut(p, "://")
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false
		}
		p = rest[i:]
	}
	if m := daprPublishRE.FindStringSubmatch(p); m != nil {
		topic := m[1]
		pc := c
		pc.Kind, pc.System, pc.Target, pc.Origin = core.CallPublish, "dapr", topic, core.FromLiteral
		if strings.HasPrefix(topic, "{") {
			pc.Origin = core.FromExpression
		}
		b.queueCall(src, pc, ev)
		return true
	}
	m := daprInvokeRE.FindStringSubmatch(p)
	if m == nil {
		return false
	}
	app, rest := m[1], m[2]
	if rest == "" {
		rest = "/"
	}
	if i := strings.IndexByte(app, '.'); i > 0 {
		app = app[:i] // APP.NAMESPACE
	}
	method := strings.ToUpper(c.Method)
	if name, ok := strings.CutPrefix(app, "{"); ok {
		// An app id from the environment: the service's value, or the
		// code's default.
		name = strings.TrimSuffix(name, "}")
		if vals := b.valuesOf(src, name); len(vals) == 1 {
			app = vals[0]
		} else if len(vals) == 0 && c.Env == name && c.Default != "" {
			app = c.Default
		}
	}
	var target string
	if !strings.HasPrefix(app, "{") {
		target, _, _ = b.hostNode(app)
	}
	if target == "" || target == src {
		if target == "" {
			b.addEdge(Edge{Source: src, Target: b.unresolved("dapr:" + app), Type: EdgeHTTP, Method: method, Path: rest,
				Via: "Dapr app id " + app + " is no service's name or app id"}, ev)
		}
		return true
	}
	e := Edge{Source: src, Target: target, Type: EdgeHTTP, Method: method, Path: rest, Confidence: 0.9,
		Via: "Dapr service invocation of app id " + app}
	if rt, ok := matchRoute(method, rest, b.routes[target]); ok {
		e.Path, e.Handler = rt.Path, rt.Handler
	}
	b.addEdge(e, ev)
	return true
}
