package chunk

import (
	"bytes"
	"cmp"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// Facts are found by queries/<language>.facts.scm. Its captures name
// roles; core/chunk turns matches into core.Call, core.Route, core.Mount
// and core.Ref values. Pattern properties (#set! key "value") carry what
// the pattern knows: system, framework, method.
//
//	@http        an HTTP call; @http.verb, @http.url, @http.client, @http.options
//	@client      an HTTP client configuration; @client.name, @client.base
//	@dapr.invoke a Dapr service invocation; @dapr.app, @dapr.method, @dapr.verb
//	@grpc        a gRPC client or channel; @grpc.service, @grpc.target
//	@publish     a message sent; @topic
//	@subscribe   a subscription; @topic
//	@db, @cache  a database or cache connection; @dsn, @db.driver
//	@route       a server route; @route.verb, @route.path, @route.handler,
//	             @route.router, @route.grpc (a gRPC service registration)
//	@router      a router with a prefix; @router.name, @router.prefix, @router.parent
//	@prefix      a prefix for the routes inside @prefix.scope; @prefix.path
//	@mount       a router mounted under a prefix; @mount.prefix, @mount.router
//	@bind.name   a name bound to @bind.value (constants, variables)
//	@bind.import a name imported from module @bind.from
//	@ref.call, @ref.type  references
//
// Captures starting with _ only serve predicates.

// fact is a call or route found at a byte offset, before it is assigned
// to the chunk that contains it.
type fact struct {
	at      uint
	key     uint // offset+1 of the node holding an HTTP call's URL or a route's path
	call    *core.Call
	route   *core.Route
	ref     *core.Ref
	binding *core.Binding
}

// factSet is everything the facts query found in a file.
type factSet struct {
	facts  []fact
	mounts []core.Mount
}

// match is one query match with its captures by role.
type match struct {
	pattern uint
	caps    map[string][]ts.Node
	props   map[string]string
}

func (m *match) first(role string) *ts.Node {
	if ns := m.caps[role]; len(ns) > 0 {
		n := &ns[0]
		// A comment between arguments ("ctx, //nolint:staticcheck")
		// takes the place a positional pattern counts: the argument is
		// the next node that is not a comment.
		for strings.HasSuffix(n.Kind(), "comment") {
			next := n.NextNamedSibling()
			if next == nil {
				return &ns[0]
			}
			n = next
		}
		return n
	}
	return nil
}

func (m *match) has(role string) bool { return len(m.caps[role]) > 0 }

var verbWords = map[string]string{
	"get": "GET", "post": "POST", "put": "PUT", "delete": "DELETE", "patch": "PATCH",
	"head": "HEAD", "options": "OPTIONS", "all": "ANY", "any": "ANY",
}

// verbOf finds the HTTP method in names like GetAsync, MapPost, HttpGet,
// GetMapping, getForObject, http.MethodGet, HttpMethod.Delete, "PUT".
func verbOf(s string) string {
	s = strings.Trim(s, "\"'`")
	for _, w := range splitWords(s) {
		if v, ok := verbWords[w]; ok {
			return v
		}
	}
	return ""
}

// splitWords splits an identifier or expression into lower-case words.
func splitWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		upper := r >= 'A' && r <= 'Z'
		alnum := upper || r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		if !alnum {
			flush()
			continue
		}
		if upper && len(cur) > 0 {
			prevLower := cur[len(cur)-1] >= 'a' && cur[len(cur)-1] <= 'z'
			nextLower := i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z'
			if prevLower || nextLower && cur[len(cur)-1] >= 'A' && cur[len(cur)-1] <= 'Z' {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

var (
	// httpLibRE names HTTP libraries and clients used as the receiver of
	// a call: such calls are kept whatever their target looks like.
	httpLibRE = lazyre.New(`(?i)^(axios|requests|httpx|aiohttp|http|got|superagent|ky|httpclient|httpservice|resttemplate|webclient|restclient|\$http|httparty|faraday|excon|typhoeus)$`)
	// sessionRE names a client that may be an HTTP session or client of
	// a library not in httpLibRE (self.session, self._client, api).
	sessionRE = lazyre.New(`(?i)(session|client|http|api)$`)
	grpcSvcRE = lazyre.New(`^(?:New)?([A-Za-z0-9]+?)(?:Service)?(?:Client|Stub|Grpc)$`)
)

var systemWords = []struct{ word, system string }{
	{"postgres", "postgres"}, {"npgsql", "postgres"}, {"pgx", "postgres"}, {"mysql", "mysql"}, {"mariadb", "mysql"},
	{"sqlserver", "sqlserver"}, {"mssql", "sqlserver"}, {"sqlconnection", "sqlserver"}, {"sqlite", "sqlite"},
	{"oracle", "oracle"}, {"mongo", "mongodb"}, {"redis", "redis"}, {"cosmos", "cosmosdb"},
}

// systemOf names the database behind a driver, method or DSN:
// UseNpgsql, NpgsqlConnection, postgresql://..., jdbc:mysql://...
func systemOf(s string) string {
	l := strings.ToLower(s)
	for _, w := range systemWords {
		if strings.Contains(l, w.word) {
			return w.system
		}
	}
	return ""
}

// lastPart returns the last dotted component of an expression.
func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".>"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// facts runs the language's facts query over the tree.
func (l *lang) facts(root *ts.Node, src []byte, imports []string) factSet {
	if l.factsQuery == nil {
		return factSet{}
	}
	qc := ts.NewQueryCursor()
	defer qc.Close()
	var ms []match
	it := qc.Matches(l.factsQuery, root, src)
	for m := it.Next(); m != nil; m = it.Next() {
		mm := match{pattern: m.PatternIndex, caps: map[string][]ts.Node{}, props: l.props[m.PatternIndex]}
		for _, c := range m.Captures {
			name := l.factsCaptures[c.Index]
			if strings.HasPrefix(name, "_") {
				continue
			}
			mm.caps[name] = append(mm.caps[name], c.Node)
		}
		ms = append(ms, mm)
	}

	x := &extractor{l: l, src: src, ev: &evaluator{src: src, binds: map[string][]binding{}}, clients: map[string]value{},
		routers: map[string]routerDef{}, imports: map[string]string{}, fileImports: imports}
	// Bindings, clients, routers and prefixes first: calls and routes
	// resolve through them.
	for i := range ms {
		x.collect(&ms[i])
	}
	if l.name == "kotlin" {
		x.kotlinClassPrefixes(root)
	}
	var fs factSet
	for i := range ms {
		fs.facts = append(fs.facts, x.extract(&ms[i])...)
	}
	// gorilla/mux: r.HandleFunc("/x", h).Methods("GET") is also matched as
	// the bare HandleFunc (ANY); the routes with methods win.
	specific := map[string]bool{}
	for _, f := range fs.facts {
		if f.route != nil && f.route.Method != "ANY" {
			specific[fmt.Sprint(f.route.Line, f.route.Path, f.route.Handler)] = true
		}
	}
	dedup := fs.facts[:0]
	for _, f := range fs.facts {
		if f.route == nil || f.route.Method != "ANY" || !specific[fmt.Sprint(f.route.Line, f.route.Path, f.route.Handler)] {
			dedup = append(dedup, f)
		}
	}
	fs.facts = dedup
	// A route registration (router.post("/", h), @router.get("/x")) is not
	// an outbound call: drop HTTP calls whose URL is a route's path.
	routePath := map[uint]bool{}
	for _, f := range fs.facts {
		if f.route != nil && f.key != 0 {
			routePath[f.key] = true
		}
	}
	notRoute := func(facts []fact) []fact {
		kept := facts[:0]
		for _, f := range facts {
			if f.call == nil || f.call.Kind != core.CallHTTP || !routePath[f.key] {
				kept = append(kept, f)
			}
		}
		return kept
	}
	// A helper's callers are followed from the calls left (and what they
	// give is no route's path either).
	fs.facts = notRoute(x.helperCalls(root, notRoute(fs.facts), x.sites))
	fs.mounts = x.mounts
	if l.name == "go" {
		fs.facts = append(fs.facts, goBindings(root, x.ev)...)
	}
	if l.name == "csharp" {
		fs.facts = append(fs.facts, x.refitClients(root)...)
	}
	if l.name == "ruby" {
		fs.facts = append(fs.facts, x.railsResources(root)...)
		fs.facts = append(fs.facts, x.rubyJobs(root)...)
	}
	if l.name == "python" {
		fs.facts = append(fs.facts, x.celeryTasks(root)...)
	}
	if l.name == "java" || l.name == "kotlin" {
		fs.facts = x.withClientInterfaces(root, fs.facts)
		fs.facts = append(fs.facts, x.retrofit(root)...)
	}
	if l.name == "java" {
		fs.facts = append(fs.facts, x.springValues(root)...)
	}
	if l.name == "kotlin" {
		fs.facts = append(fs.facts, x.kotlinSpringValues(root)...)
	}
	daprHeaderCalls(src, fs.facts)
	fs.facts = append(fs.facts, envReads(root, x.ev)...)
	sort.SliceStable(fs.facts, func(i, j int) bool { return fs.facts[i].at < fs.facts[j].at })
	return fs
}

type routerDef struct {
	prefix, parent string
}

type prefixScope struct {
	start, end uint
	path       string
}

type extractor struct {
	l           *lang
	src         []byte
	ev          *evaluator
	clients     map[string]value
	routers     map[string]routerDef
	prefixes    []prefixScope
	imports     map[string]string // local name -> module it is imported from
	fileImports []string
	goImports   map[string]string // Go: the name an import is used by -> its path
	mounts      []core.Mount
	sites       []httpSite // the HTTP calls found, for helperCalls
}

func (x *extractor) collect(m *match) {
	switch {
	case m.has("bind.name") && m.has("bind.value"):
		n, v := m.first("bind.name"), m.first("bind.value")
		name := n.Utf8Text(x.src)
		x.ev.binds[name] = append(x.ev.binds[name], binding{value: *v, name: *n})
	case m.has("bind.config") && m.has("bind.value"):
		// app.config["KEY"] = value: the key's value in the whole file.
		k := x.ev.eval(m.first("bind.config"), 0)
		if k.origin == core.FromLiteral || k.origin == core.FromConstant {
			if x.ev.configs == nil {
				x.ev.configs = map[string]ts.Node{}
			}
			if _, ok := x.ev.configs[k.text]; !ok {
				x.ev.configs[k.text] = *m.first("bind.value")
			}
		}
	case m.has("bind.import") && m.has("bind.from"):
		x.imports[m.first("bind.import").Utf8Text(x.src)] = strings.Trim(m.first("bind.from").Utf8Text(x.src), "\"'`")
	case m.has("router.name"):
		r := routerDef{}
		if p := m.first("router.prefix"); p != nil {
			r.prefix = strings.TrimSpace(x.ev.eval(p, 0).text)
		}
		if p := m.first("router.parent"); p != nil {
			r.parent = p.Utf8Text(x.src)
		}
		x.routers[m.first("router.name").Utf8Text(x.src)] = r
	case m.has("prefix") && m.has("prefix.path") && m.has("prefix.scope"):
		sc := m.first("prefix.scope")
		path := strings.TrimSpace(x.ev.eval(m.first("prefix.path"), 0).text)
		if strings.Contains(path, "[controller]") {
			if n := sc.ChildByFieldName("name"); n != nil {
				path = strings.ReplaceAll(path, "[controller]", strings.ToLower(strings.TrimSuffix(n.Utf8Text(x.src), "Controller")))
			}
		}
		x.prefixes = append(x.prefixes, prefixScope{sc.StartByte(), sc.EndByte(), path})
	case m.has("client") && m.has("client.base"):
		base := x.ev.eval(m.first("client.base"), 0)
		if m.props["system"] == "dapr" && base.known() && !strings.Contains(base.text, "://") {
			base.text = "http://" + strings.TrimSpace(base.text) // DaprClient.CreateInvokeHttpClient("orders")
		}
		name := clientName(m.first("client.name"), x.src)
		if name != "" {
			x.clients[name] = base
		}
	}
}

// clientName names the client a base address configures: the variable,
// or for a .NET typed client (AddHttpClient<T>(c => c.BaseAddress = ...),
// AddHttpClient<T>().ConfigureHttpClient(c => ...), Refit's
// AddRefitClient<T>().ConfigureHttpClient(c => ...)) the type T.
func clientName(n *ts.Node, src []byte) string {
	if n == nil {
		return ""
	}
	name := strings.TrimSuffix(n.Utf8Text(src), ".BaseAddress")
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() != "invocation_expression" {
			continue
		}
		f := p.ChildByFieldName("function")
		if f == nil {
			continue
		}
		g := f.ChildByFieldName("name")
		if g != nil && g.Utf8Text(src) == "ConfigureHttpClient" {
			// The registration it configures is the call it is made on.
			if r := f.ChildByFieldName("expression"); r != nil && r.Kind() == "invocation_expression" {
				if rf := r.ChildByFieldName("function"); rf != nil {
					p, g = r, rf.ChildByFieldName("name")
				}
			}
		}
		if g == nil || !strings.HasPrefix(g.Utf8Text(src), "AddHttpClient") && !strings.HasPrefix(g.Utf8Text(src), "AddRefitClient<") {
			continue
		}
		if g.Kind() == "generic_name" { // AddHttpClient<CatalogClient>(...)
			t := g.Utf8Text(src)
			t = strings.TrimSuffix(t[strings.IndexByte(t, '<')+1:], ">")
			if i := strings.LastIndex(t, ","); i >= 0 {
				t = t[i+1:]
			}
			return strings.TrimSpace(t)
		}
		if as := args(p); len(as) > 0 { // AddHttpClient("pricing", ...)
			if t := strings.Trim(strings.TrimSpace(as[0].Utf8Text(src)), "\""); t != "" && !strings.ContainsAny(t, " ()=>") {
				return t
			}
		}
	}
	return name
}

func (x *extractor) line(n *ts.Node) int { return int(n.StartPosition().Row) + 1 }

func (x *extractor) firstLine(n *ts.Node) string {
	t := n.Utf8Text(x.src)
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	if len(t) > 200 {
		t = t[:200]
	}
	return t
}

// target fills a call's target fields from an evaluated value, splitting
// a leading dynamic part (a base address) from the path.
func target(c *core.Call, v value) {
	t := strings.TrimSpace(v.text)
	c.Origin, c.Env, c.Config, c.Default = v.origin, v.env, v.config, v.def
	if strings.HasPrefix(t, "{") {
		// {base}/x, or {baseUrl}{id}: a base whose name says it is an
		// address, an id after it.
		if i := strings.Index(t, "}"); i > 0 && i+1 < len(t) && (t[i+1] == '/' || t[i+1] == '{' && addrNameRE.MatchString(t[1:i])) {
			switch {
			case v.env != "":
				c.Base = "env:" + v.env
			case v.config != "":
				c.Base = "config:" + v.config
			case v.lead != "":
				c.Base = "expr:" + v.lead
			default:
				c.Base = "expr:" + t[1:i]
			}
			t = t[i+1:]
			if c.Origin == core.FromEnv || c.Origin == core.FromConfig {
				c.Origin = core.FromTemplate
			}
		}
	}
	c.Target = t
}

// goStubConstructor reports whether call, pkg.NewFooClient(...), can be
// the constructor protoc-gen-go-grpc writes for a service's client: it
// takes a connection alone (a variable or a field), and pkg is generated
// protobuf code (its import path or the name it is imported by says grpc,
// proto or ...pb), or the file imports gRPC, or pkg is not known and the
// file imports generated code. Other libraries name
// constructors so too (redis.NewClusterClient(options), a Datadog
// NewAPIClient(config), a Google Cloud NewMetricClient(ctx)) and are no
// gRPC call.
func (x *extractor) goStubConstructor(call *ts.Node) bool {
	args := call.ChildByFieldName("arguments")
	if args == nil || args.NamedChildCount() != 1 {
		return false
	}
	// The connection is a variable or a field (conn, s.cc), not options
	// built in place (&redis.ClusterOptions{...}, NewConfiguration()) and
	// not a context.
	arg := args.NamedChild(0)
	if k := arg.Kind(); k != "identifier" && k != "selector_expression" {
		return false
	}
	if a := arg.Utf8Text(x.src); a == "ctx" || strings.HasPrefix(a, "context.") {
		return false
	}
	fn := call.ChildByFieldName("function")
	op := fn.ChildByFieldName("operand")
	if op == nil || op.Kind() != "identifier" {
		return false // a method of a value, not a package's function
	}
	if x.goImports == nil {
		x.goImports = goImportNames(call, x.src)
	}
	name := op.Utf8Text(x.src)
	path, known := x.goImports[name]
	if known && (generatedPath(path) || generatedPath(name)) {
		return true // notifypb "example.com/notify/gen/notify" too
	}
	for _, imp := range x.fileImports {
		if imp == "google.golang.org/grpc" || !known && generatedPath(imp) {
			// A package whose path says nothing (a service's own
			// historyservice) makes a stub of a connection: grpcConn,
			// c.conn, cc; s3.NewPresignClient(client) and
			// esclient.NewSignedHttpClient(cfg) beside gRPC code do not.
			return !known || connectionName(arg.Utf8Text(x.src))
		}
	}
	return false
}

// connectionName reports whether an argument is named as a connection
// is: conn, grpcConn, s.connection, cc.
func connectionName(arg string) bool {
	if i := strings.LastIndexByte(arg, '.'); i >= 0 {
		arg = arg[i+1:]
	}
	arg = strings.ToLower(arg)
	return strings.Contains(arg, "conn") || arg == "cc"
}

// jsStub reports whether the constructor of new FooClient(...) in
// JavaScript or TypeScript, service, can be a gRPC stub: one imported
// from gRPC or generated protobuf code (./gen/cart_grpc_pb,
// ../proto/cart), or, where the file does not say where it comes from
// (a package a loaded proto defines, a namespace import), one of a file
// that imports such code. new QueryClient({...}) of a React library and
// an app's own SearchClient class are no gRPC calls.
func (x *extractor) jsStub(service *ts.Node) bool {
	root, _, _ := strings.Cut(service.Utf8Text(x.src), ".")
	if mod, ok := x.imports[root]; ok {
		return generatedPath(strings.TrimSuffix(mod, path.Ext(mod)))
	}
	return slices.ContainsFunc(x.fileImports, func(imp string) bool {
		return generatedPath(strings.TrimSuffix(imp, path.Ext(imp)))
	})
}

// generatedPath reports whether a Go import path looks like generated
// protobuf or gRPC code (.../genproto, .../cartpb, .../grpc_health_v1).
func generatedPath(p string) bool {
	for _, el := range strings.Split(strings.ToLower(p), "/") {
		if strings.Contains(el, "grpc") || strings.Contains(el, "proto") || strings.HasSuffix(el, "pb") {
			return true
		}
	}
	return false
}

// goImportNames maps the names a Go file's imports are used by to their
// paths, from the file's import specs (the tree n is in): the alias, else
// the last element of the path (before a /vN suffix, without a go- prefix
// or -go suffix: go-redis/v9 is redis).
func goImportNames(n *ts.Node, src []byte) map[string]string {
	root := n
	for p := root.Parent(); p != nil; p = p.Parent() {
		root = p
	}
	names := map[string]string{}
	add := func(spec *ts.Node) {
		pn := spec.ChildByFieldName("path")
		if pn == nil {
			return
		}
		p := strings.Trim(pn.Utf8Text(src), "\"`")
		alias := ""
		if an := spec.ChildByFieldName("name"); an != nil {
			alias = an.Utf8Text(src)
		}
		switch alias {
		case "_", ".":
			return
		case "":
			alias = strings.TrimSuffix(strings.TrimPrefix(core.GoImportBase(p), "go-"), "-go")
			alias = strings.ReplaceAll(alias, "-", "_")
		}
		names[alias] = p
	}
	for i := uint(0); i < root.NamedChildCount(); i++ {
		decl := root.NamedChild(i)
		if decl.Kind() != "import_declaration" {
			continue
		}
		for j := uint(0); j < decl.NamedChildCount(); j++ {
			switch c := decl.NamedChild(j); c.Kind() {
			case "import_spec":
				add(c)
			case "import_spec_list":
				for k := uint(0); k < c.NamedChildCount(); k++ {
					if spec := c.NamedChild(k); spec.Kind() == "import_spec" {
						add(spec)
					}
				}
			}
		}
	}
	return names
}

// urlish reports whether a target is a path or a URL.
func urlish(t string) bool {
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://")
}

// clientKey normalizes a receiver expression: this.http, self._client,
// _httpClient -> httpclient.
func clientKey(s string) string {
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:] // Ruby's Net::HTTP
	}
	s = strings.ToLower(lastPart(s))
	return strings.TrimPrefix(strings.TrimPrefix(s, "m_"), "_")
}

func (x *extractor) extract(m *match) []fact {
	switch {
	case m.has("http"):
		return x.http(m)
	case m.has("dapr.invoke"):
		return x.daprInvoke(m)
	case m.has("client") && m.has("client.base"):
		n := m.first("client")
		c := core.Call{Kind: core.CallClient, System: m.props["system"], Client: clientName(m.first("client.name"), x.src), Line: x.line(n), Text: x.firstLine(n)}
		v := x.ev.eval(m.first("client.base"), 0)
		if c.System == "dapr" && v.known() && !strings.Contains(v.text, "://") {
			v.text = "http://" + strings.TrimSpace(v.text) // DaprClient.CreateInvokeHttpClient("orders")
		}
		target(&c, v)
		if v.env != "" {
			c.Base = "env:" + v.env
		} else if v.config != "" {
			c.Base = "config:" + v.config
		} else {
			c.Base = strings.TrimSpace(v.text)
		}
		return []fact{{at: n.StartByte(), call: &c}}
	case m.has("grpc"):
		n := m.first("grpc")
		if x.l.name == "go" && m.has("grpc.service") && !x.goStubConstructor(n) {
			return nil
		}
		if x.l.js() && m.has("grpc.service") && !x.jsStub(m.first("grpc.service")) {
			return nil
		}
		if x.l.name == "csharp" && m.has("grpc.service") && !m.has("grpc.target") {
			// A generated client takes a channel; new PrinterClient(url)
			// given a string (an address, a setting) is a class of the
			// application's own.
			if as := args(n); len(as) > 0 && x.ev.eval(as[0], 0).origin != core.FromExpression {
				return nil
			}
		}
		c := core.Call{Kind: core.CallGRPC, System: "grpc", Line: x.line(n), Text: x.firstLine(n)}
		if s := m.first("grpc.service"); s != nil {
			name := lastPart(s.Utf8Text(x.src))
			if sm := grpcSvcRE.FindStringSubmatch(name); sm != nil {
				name = sm[1]
			}
			c.Method = name
		}
		if t := m.first("grpc.target"); t != nil {
			target(&c, x.ev.eval(t, 0))
		}
		return []fact{{at: n.StartByte(), call: &c}}
	case m.has("publish") || m.has("subscribe"):
		kind, n := core.CallPublish, m.first("publish")
		if n == nil {
			kind, n = core.CallSubscribe, m.first("subscribe")
		}
		var out []fact
		if t := m.first("topic.type"); t != nil {
			// The message's type is the topic: integration events on an
			// event bus are routed by their type's name.
			c := core.Call{Kind: kind, System: m.props["system"], Target: lastPart(t.Utf8Text(x.src)), Origin: core.FromLiteral,
				Line: x.line(t), Text: x.firstLine(n)}
			return []fact{{at: n.StartByte(), call: &c}}
		}
		t := m.first("topic")
		if t == nil {
			return nil
		}
		if m.props["system"] == "dapr" && !x.usesDaprSDK() {
			return nil
		}
		kinds := []core.CallKind{kind}
		if m.props["system"] == "bullmq" {
			if kinds = x.bullQueue(n, kind); len(kinds) == 0 {
				return nil
			}
		}
		for _, v := range x.ev.list(t, 0) {
			for _, kind := range kinds {
				// The evidence is the line that names the topic.
				c := core.Call{Kind: kind, System: m.props["system"], Line: x.line(t), Text: x.firstLine(n)}
				target(&c, v)
				if x.l.name == "java" || x.l.name == "kotlin" {
					springTopic(&c)
				}
				out = append(out, fact{at: n.StartByte(), call: &c})
			}
		}
		return out
	case m.has("db") || m.has("cache"):
		kind, n := core.CallDB, m.first("db")
		if n == nil {
			kind, n = core.CallCache, m.first("cache")
		}
		c := core.Call{Kind: kind, System: m.props["system"], Line: x.line(n), Text: x.firstLine(n)}
		if d := m.first("db.driver"); d != nil {
			if v := x.ev.eval(d, 0); v.origin == core.FromLiteral || v.origin == core.FromConstant {
				c.System = strings.TrimSpace(v.text)
			}
		}
		if k := m.first("db.kind"); k != nil {
			if sys := systemOf(k.Utf8Text(x.src)); sys != "" {
				c.System = sys
			}
		}
		if d := m.first("dsn"); d != nil {
			target(&c, x.ev.eval(d, 0))
		}
		if sys := systemOf(c.Target + " " + c.Default); sys != "" && (c.System == "sql" || c.System == "jdbc" || c.System == "") {
			c.System = sys
		}
		return []fact{{at: n.StartByte(), call: &c}}
	case m.has("sdk"):
		return x.sdk(m)
	case m.has("route"):
		return x.route(m)
	case m.has("mount") && m.has("mount.prefix") && m.has("mount.from"):
		// Django's include("shop.api.urls"): that module's urlpatterns.
		if !x.django() {
			return nil
		}
		n := m.first("mount")
		mt := core.Mount{Prefix: normPath(x.ev.eval(m.first("mount.prefix"), 0).text), Router: "urlpatterns",
			From: x.ev.eval(m.first("mount.from"), 0).text, Into: m.first("mount.into").Utf8Text(x.src), Line: x.line(n)}
		x.mounts = append(x.mounts, mt)
	case m.has("mount") && m.has("mount.prefix") && m.has("mount.router"):
		n := m.first("mount")
		r := m.first("mount.router").Utf8Text(x.src)
		mt := core.Mount{Prefix: normPath(x.ev.eval(m.first("mount.prefix"), 0).text), Router: r, From: x.imports[r], Line: x.line(n)}
		if in := m.first("mount.into"); in != nil {
			mt.Into = in.Utf8Text(x.src)
		}
		x.mounts = append(x.mounts, mt)
	case m.has("ctorp.class") && m.has("ctorp.param"):
		return x.ctorField(m)
	case m.has("ctor.name") && m.has("ctor.args"):
		return x.ctorArgs(m)
	case m.has("ref.call"):
		n := m.first("ref.call")
		return []fact{{at: n.StartByte(), ref: &core.Ref{Name: n.Utf8Text(x.src), Kind: "call"}}}
	case m.has("ref.type"):
		n := m.first("ref.type")
		return []fact{{at: n.StartByte(), ref: &core.Ref{Name: n.Utf8Text(x.src), Kind: "type"}}}
	}
	return nil
}

// sdk reads a cloud SDK client: the service it is for (the pattern's
// system), and the address the code gives it, by keyword (kw: Python
// keyword arguments, JavaScript option objects) or as the first
// argument; with none, the SDK's default address (default), if any.
func (x *extractor) sdk(m *match) []fact {
	n := m.first("sdk")
	c := core.Call{Kind: core.CallSDK, System: m.props["system"], Method: m.props["kind"], Line: x.line(n), Text: x.firstLine(n)}
	if s := m.first("sdk.service"); s != nil {
		svc := strings.Trim(x.ev.eval(s, 0).text, " ")
		c.System = "aws-" + svc
		switch svc {
		case "sqs", "sns", "kinesis", "firehose":
			c.Method = "queue"
		case "dynamodb", "rds", "rds-data":
			c.Method = "db"
		}
	}
	var addr *ts.Node
	if a := m.first("sdk.args"); a != nil {
		kws := strings.Split(m.props["kw"], ",")
		var positional []*ts.Node
		for i := uint(0); i < a.NamedChildCount(); i++ {
			arg := a.NamedChild(i)
			if arg.Kind() == "argument" && arg.NamedChildCount() > 0 && arg.ChildByFieldName("name") == nil {
				arg = arg.NamedChild(arg.NamedChildCount() - 1)
			}
			switch arg.Kind() {
			case "comment":
				continue
			case "keyword_argument", "argument":
				if k := arg.ChildByFieldName("name"); k != nil && addr == nil && slices.Contains(kws, strings.TrimSuffix(x.ev.text(k), ":")) {
					addr = arg.ChildByFieldName("value")
					if addr == nil {
						addr = lastNamed(arg)
					}
				}
				if arg.ChildByFieldName("name") != nil {
					continue
				}
			case "object":
				for j := uint(0); j < arg.NamedChildCount(); j++ {
					p := arg.NamedChild(j)
					if k := p.ChildByFieldName("key"); p.Kind() == "pair" && k != nil && addr == nil && slices.Contains(kws, x.ev.text(k)) {
						addr = p.ChildByFieldName("value")
					}
					if p.Kind() == "shorthand_property_identifier" && addr == nil && slices.Contains(kws, x.ev.text(p)) {
						addr = p
					}
				}
				continue
			}
			positional = append(positional, arg)
		}
		if addr == nil && len(positional) > 0 && m.props["pos"] != "none" && m.props["default"] == "" {
			addr = positional[0]
		}
	}
	switch {
	case addr != nil:
		target(&c, x.ev.eval(addr, 0))
	case m.props["default"] != "":
		c.Target, c.Origin = m.props["default"], core.FromLiteral
	}
	return []fact{{at: n.StartByte(), call: &c}}
}

func (x *extractor) http(m *match) []fact {
	n := m.first("http")
	c := core.Call{Kind: core.CallHTTP, System: m.props["system"], Line: x.line(n), Text: x.firstLine(n)}
	if cl := m.first("http.client"); cl != nil {
		c.Client = cl.Utf8Text(x.src)
	}
	if v := m.first("http.verb"); v != nil {
		c.Method = x.verbArg(v)
	}
	var url *ts.Node = m.first("http.url")
	if o := m.first("http.options"); o != nil {
		if val := x.ev.objectKey(o, "method"); val != nil {
			c.Method = verbOf(x.ev.eval(val, 0).text)
		}
		if val := x.ev.objectKey(o, "url"); val != nil {
			url = val
		}
	}
	if c.Method == "" {
		c.Method = "GET"
	}
	if url == nil {
		return nil
	}
	if url.Kind() == "keyword_argument" {
		// requests.post(url=..., json=...)
		if k := url.ChildByFieldName("name"); k == nil || k.Utf8Text(x.src) != "url" {
			return nil
		}
		if url = url.ChildByFieldName("value"); url == nil {
			return nil
		}
	}
	v := x.ev.eval(url, 0)
	switch c.System {
	case "resty":
		c.Client = chainRoot(n, x.src) // client of client.R().Post(url)
	case "okhttp":
		if !x.importsAny("okhttp3") {
			return nil
		}
		c.Method = okhttpMethod(n, x.src)
	case "jax-rs":
		if !x.importsAny("javax.ws.rs", "jakarta.ws.rs") {
			return nil
		}
		segs, method, _ := x.jaxrs(n, 0)
		var texts []string
		for _, s := range segs {
			texts = append(texts, x.ev.eval(s, 0).text)
		}
		v.text = joinSegments(v.text, texts)
		c.Method = cmp.Or(method, "GET")
	}
	target(&c, v)
	_, known := x.clients[c.Client]
	// An HTTP library (or fetch, or http.NewRequest: no client) may call a
	// dynamic URL; anything else must show a path or a URL, or be a known
	// client: map.get("key"), session.get(User, id), _store.DeleteAsync(id)
	// are not HTTP calls.
	site := httpSite{call: *n, verb: m.first("http.verb"), v: v, at: n.StartByte()}
	if !urlish(c.Target) && !known && c.Client != "" && !x.ownVerb(m, c.System) && !httpLibRE.MatchString(clientKey(c.Client)) {
		if sessionRE.MatchString(clientKey(c.Client)) {
			// self.session.post(url) in a helper is an HTTP call if its
			// callers give it an address (helperCalls).
			site.c, site.tentative = c, true
			x.sites = append(x.sites, site)
		}
		return nil
	}
	x.clientBase(&c)
	site.c = c
	x.sites = append(x.sites, site)
	return []fact{{at: n.StartByte(), key: url.StartByte() + 1, call: &c}}
}

// ownVerb reports whether an HTTP pattern's method is one no other
// library has (RestTemplate's getForObject, resty's R().Post): any
// client that calls it is an HTTP client (map.put is no RestTemplate
// put).
func (x *extractor) ownVerb(m *match, system string) bool {
	switch system {
	case "resty":
		return true
	case "RestTemplate":
		v := m.first("http.verb")
		return v != nil && strings.Contains(v.Utf8Text(x.src), "For")
	}
	return false
}

// clientBase gives c the base address of its client (a variable holding
// an axios.create or httpx.Client instance, a typed .NET client) when
// its URL holds none.
func (x *extractor) clientBase(c *core.Call) {
	base, known := x.clients[c.Client]
	if !known || c.Base != "" {
		return
	}
	switch {
	case base.env != "":
		c.Base, c.Env, c.Default = "env:"+base.env, base.env, base.def
	case base.config != "":
		c.Base, c.Config, c.Default = "config:"+base.config, base.config, base.def
	default:
		c.Base = strings.TrimSpace(base.text)
	}
}

// daprInvoke reads a Dapr SDK's service invocation (InvokeMethod(ctx,
// "orders", "orders/1", "get")) as the HTTP call its sidecar makes:
// /v1.0/invoke/APP/method/METHOD, which the service graph reads as a
// call to the app.
func (x *extractor) daprInvoke(m *match) []fact {
	if !x.usesDaprSDK() {
		return nil // another InvokeMethod (the Dapr runtime's own actors)
	}
	n := m.first("dapr.invoke")
	app, meth := x.ev.eval(m.first("dapr.app"), 0), x.ev.eval(m.first("dapr.method"), 0)
	if !app.known() || !meth.known() {
		return nil
	}
	c := core.Call{Kind: core.CallHTTP, System: "dapr", Method: "POST", Origin: core.FromTemplate, Line: x.line(n), Text: x.firstLine(n)}
	if v := m.first("dapr.verb"); v != nil {
		if w := verbOf(v.Utf8Text(x.src)); w != "" {
			c.Method = w
		} else if w := verbOf(x.ev.eval(v, 0).text); w != "" {
			c.Method = w
		}
	} else if p := m.props["method"]; p != "" {
		c.Method = p
	}
	c.Target = "/v1.0/invoke/" + strings.TrimSpace(app.text) + "/method/" + strings.TrimPrefix(strings.TrimSpace(meth.text), "/")
	if app.env != "" {
		c.Env, c.Default = app.env, app.def // invoke_method(os.getenv("SEATS_APP", "seats"), ...)
	}
	return []fact{{at: n.StartByte(), call: &c}}
}

// bullQueue checks a job queue match (system "bullmq") against the
// file's imports and returns the kinds it is: BullMQ's new Queue adds
// jobs and new Worker runs them; a Bull or Bee-Queue queue adds them
// where the file calls .add( or .createJob( on one and runs them where it
// calls .process(; NestJS's @Processor and @InjectQueue need @nestjs/bull
// or @nestjs/bullmq. No match counts in a file that imports none of them
// (new Worker of worker_threads, a Queue class of the project's own).
func (x *extractor) bullQueue(n *ts.Node, kind core.CallKind) []core.CallKind {
	has := x.importsAny
	switch {
	case n.Kind() == "decorator":
		if has("@nestjs/bull", "@nestjs/bullmq") {
			return []core.CallKind{kind}
		}
	case has("bullmq"):
		return []core.CallKind{kind}
	case kind == core.CallSubscribe: // new Worker: BullMQ's only
	case has("bull", "bee-queue"):
		var kinds []core.CallKind
		if bytes.Contains(x.src, []byte(".add(")) || bytes.Contains(x.src, []byte(".createJob(")) {
			kinds = append(kinds, core.CallPublish)
		}
		if bytes.Contains(x.src, []byte(".process(")) {
			kinds = append(kinds, core.CallSubscribe)
		}
		return kinds
	}
	return nil
}

// daprAppHeaderRE finds the app id a request to the Dapr sidecar names
// in its dapr-app-id header: {'dapr-app-id': 'orders'} (Python, a
// JavaScript object), Header.Add("dapr-app-id", "orders") (Go, .NET).
var daprAppHeaderRE = lazyre.New(`["']dapr-app-id["']\s*[:,]\s*["']([A-Za-z0-9._-]+)["']`)

// daprHeaderCalls rewrites the HTTP calls of a file that sends its
// requests to the Dapr sidecar with a dapr-app-id header (Dapr's
// quickstarts: POST http://localhost:3500/orders, dapr-app-id:
// order-processor) as the sidecar invocation they are,
// /v1.0/invoke/APP/method/PATH: calls to this machine (localhost, the
// sidecar's port 3500, DAPR_HTTP_PORT) in a file whose header names one
// app id.
func daprHeaderCalls(src []byte, facts []fact) {
	if !bytes.Contains(src, []byte("dapr-app-id")) {
		return
	}
	app := ""
	for _, m := range daprAppHeaderRE.FindAllSubmatch(src, -1) {
		if app != "" && app != string(m[1]) {
			return // several apps: which call goes where is not written
		}
		app = string(m[1])
	}
	if app == "" {
		return
	}
	for _, f := range facts {
		c := f.call
		if c == nil || c.Kind != core.CallHTTP {
			continue
		}
		if strings.Contains(c.Target, "/v1.0/") {
			continue // the sidecar's own API (/v1.0/invoke/APP/method/...)
		}
		where := strings.ToLower(c.Target + " " + c.Base + " " + c.Env + " " + c.Default)
		if !strings.Contains(where, "localhost") && !strings.Contains(where, "127.0.0.1") && !strings.Contains(where, "dapr_http_port") && !strings.Contains(where, ":3500") {
			continue
		}
		p := c.Target
		if _, rest, ok := strings.Cut(p, "://"); ok {
			p = rest
		}
		if i := strings.IndexByte(p, '/'); i >= 0 {
			p = p[i:]
		} else {
			p = "/"
		}
		c.System, c.Target, c.Origin = "dapr", "/v1.0/invoke/"+app+"/method"+p, core.FromTemplate
		c.Base, c.Env, c.Config, c.Default = "", "", "", ""
	}
}

// daprSDKs are the imports of Dapr's client SDKs: Go, Python, .NET,
// JavaScript.
var daprSDKs = []string{"github.com/dapr/go-sdk", "dapr.clients", "dapr.aio.clients", "dapr.ext", "Dapr.Client", "Dapr", "Dapr.AspNetCore", "@dapr/dapr", "dapr-client"}

// usesDaprSDK reports whether the file imports a Dapr client SDK.
func (x *extractor) usesDaprSDK() bool { return x.importsAny(daprSDKs...) }

// importsAny reports whether the file imports one of mods or a module
// under one (Refit.Http under Refit, retrofit2.http under retrofit2,
// @nestjs/bull/x under @nestjs/bull; bullmq is not under bull).
func (x *extractor) importsAny(mods ...string) bool {
	return slices.ContainsFunc(x.fileImports, func(imp string) bool {
		for _, m := range mods {
			if imp == m || strings.HasPrefix(imp, m+"/") || strings.HasPrefix(imp, m+".") {
				return true
			}
		}
		return false
	})
}

var (
	flaskParamRE   = lazyre.New(`<(?:[a-zA-Z_]+:)?([A-Za-z_][A-Za-z0-9_]*)>`)
	expressParamRE = lazyre.New(`:([A-Za-z_][A-Za-z0-9_]*)\??`)
	typedParamRE   = lazyre.New(`\{\*?([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*|\.\.\.)?\??\}`)
)

// django reports whether the file imports Django (a URL configuration
// imports path or re_path from django.urls).
func (x *extractor) django() bool {
	return x.importsAny("django")
}

// regexPath writes a regular-expression route (Django's re_path and url,
// "^list/(?P<fqdn>[^/@]+)/thread/(\\w+)/$") as a template: named groups
// are {name} placeholders, other groups {param}, escapes their
// character, anchors and a slash's ? dropped.
func regexPath(p string) string {
	p = strings.TrimSuffix(strings.TrimPrefix(p, "^"), "$")
	var b strings.Builder
	for i := 0; i < len(p); {
		switch {
		case p[i] == '(':
			end := closeParen(p, i)
			name := "param"
			if strings.HasPrefix(p[i:], "(?P<") {
				if j := strings.IndexByte(p[i:end], '>'); j > 4 {
					name = p[i+4 : i+j]
				}
			}
			b.WriteString("{" + name + "}")
			i = end
		case p[i] == '\\' && i+1 < len(p):
			b.WriteByte(p[i+1])
			i += 2
		case p[i] == '?' && i > 0 && p[i-1] == '/':
			i++ // an optional trailing slash
		default:
			b.WriteByte(p[i])
			i++
		}
	}
	return b.String()
}

// closeParen returns the index after the parenthesis that closes the one
// at i (escapes and character classes skipped), or len(p).
func closeParen(p string, i int) int {
	depth, class := 0, false
	for ; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(p)
}

// normPath writes a route template in one form: {name} parameters, one
// leading slash, no trailing slash.
func normPath(p string) string {
	p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), "\"'`"))
	if strings.HasPrefix(p, "^") || strings.Contains(p, "(?P<") {
		p = regexPath(p)
	}
	p = typedParamRE.ReplaceAllString(p, "{$1}") // before :param, which would eat {id:int}
	p = flaskParamRE.ReplaceAllString(p, "{$1}")
	p = expressParamRE.ReplaceAllString(p, "{$1}")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// joinPath puts a prefix in front of a route path.
func joinPath(prefix, p string) string {
	if prefix == "" {
		return normPath(p)
	}
	return normPath(normPath(prefix) + "/" + strings.TrimPrefix(normPath(p), "/"))
}

// pythonFramework tells FastAPI from Flask by what the router is bound to
// (FastAPI(), APIRouter(), Flask(), Blueprint()), else by the imports.
func (x *extractor) pythonFramework(router *ts.Node) string {
	if router != nil {
		if v, ok := x.ev.lookup(router.Utf8Text(x.src), router.StartByte()); ok {
			t := v.Utf8Text(x.src)
			switch {
			case strings.Contains(t, "APIRouter") || strings.Contains(t, "FastAPI"):
				return "fastapi"
			case strings.Contains(t, "Blueprint") || strings.Contains(t, "Flask"):
				return "flask"
			}
		}
	}
	for _, imp := range x.fileImports {
		if imp == "flask" || strings.HasPrefix(imp, "flask.") {
			return "flask"
		}
	}
	return "fastapi"
}

// inlineGroups reads a router written as a chain of calls
// (g.Group("/user").Use(auth)): the router it starts from and the
// prefixes of the Group, Route and PathPrefix calls on the way, outermost
// first; "" and none for a router that is not such a chain.
func (x *extractor) inlineGroups(n *ts.Node) (string, []string) {
	var prefixes []string
	for n != nil && n.Kind() == "call_expression" {
		fn := n.ChildByFieldName("function")
		if fn == nil || fn.Kind() != "selector_expression" {
			return "", nil
		}
		field, args := fn.ChildByFieldName("field"), n.ChildByFieldName("arguments")
		switch f := field.Utf8Text(x.src); f {
		case "Group", "Route", "PathPrefix":
			if args == nil || args.NamedChildCount() == 0 {
				return "", nil
			}
			a := args.NamedChild(0)
			if k := a.Kind(); k != "interpreted_string_literal" && k != "raw_string_literal" {
				return "", nil
			}
			prefixes = append([]string{x.ev.eval(a, 0).text}, prefixes...)
		}
		n = fn.ChildByFieldName("operand")
	}
	if n == nil || n.Kind() != "identifier" || len(prefixes) == 0 {
		return "", nil
	}
	return n.Utf8Text(x.src), prefixes
}

// importsPrefix reports whether the file imports a package whose path
// starts with p (any major version).
func (x *extractor) importsPrefix(p string) bool {
	for _, imp := range x.fileImports {
		if strings.HasPrefix(imp, p) {
			return true
		}
	}
	return false
}

func (x *extractor) route(m *match) []fact {
	n := m.first("route")
	fw := m.props["framework"]
	if fw == "python" {
		fw = x.pythonFramework(m.first("route.router"))
	}
	if fw == "django" && !x.django() {
		return nil // a list of calls to some other path()
	}
	base := core.Route{Framework: fw, Line: x.line(n)}
	if h := m.first("route.handler"); h != nil {
		if h.Kind() == "argument" && h.NamedChildCount() > 0 {
			h = h.NamedChild(h.NamedChildCount() - 1)
		}
		base.Handler = h.Utf8Text(x.src)
		if fw == "django" && strings.HasPrefix(base.Handler, "include(") {
			return nil // a mount (see the mount patterns), not a route
		}
		switch h.Kind() {
		case "func_literal", "arrow_function", "function_expression", "lambda_expression", "lambda", "function", "annotated_lambda",
			"do_block", "block":
			base.Handler = "(inline)"
		case "string": // Rails: to: 'orders#show'
			base.Handler = strings.Trim(base.Handler, `"'`)
		}
	}
	if g := m.first("route.grpc"); g != nil {
		// RegisterCartServiceServer, add_CartServiceServicer_to_server,
		// MapGrpcService<CartService>, new CartServiceImpl(): CartService.
		name := lastPart(g.Utf8Text(x.src))
		name = strings.TrimSuffix(strings.TrimPrefix(name, "Register"), "Server")
		name = strings.TrimSuffix(strings.TrimPrefix(name, "add_"), "Servicer_to_server")
		base.Method, base.Path, base.Framework = "GRPC", strings.TrimSuffix(name, "Impl"), "grpc"
		return []fact{{at: n.StartByte(), route: &base}}
	}
	path, key := "", uint(0)
	if p := m.first("route.path"); p != nil {
		if (p.Kind() == "collection_literal" || p.Kind() == "element_value_array_initializer") && p.NamedChildCount() > 0 {
			p = p.NamedChild(0) // value = ["/a", "/b"]: the first
		}
		path, key = x.ev.eval(p, 0).text, p.StartByte()+1
	}
	if fw == "router" {
		// Go's routers: a relative path ("", "current/user") is a route
		// on a known group only, not a Get("key", v) of a cache or
		// slog.Any("error", err); the handler is the last argument after
		// gin's, chi's and fiber's middleware, the first before echo's.
		rn := m.first("route.router")
		_, group := x.routers[rn.Utf8Text(x.src)]
		if _, inline := x.inlineGroups(rn); !strings.HasPrefix(path, "/") && !group && len(inline) == 0 {
			return nil
		}
		if a := m.first("route.args"); a != nil && a.NamedChildCount() > 2 && !x.importsPrefix("github.com/labstack/echo") {
			h := a.NamedChild(a.NamedChildCount() - 1)
			base.Handler = h.Utf8Text(x.src)
			if h.Kind() == "func_literal" {
				base.Handler = "(inline)"
			}
		}
	}
	// Go 1.22 patterns carry the method: "POST /v1/checkout".
	methods := []string{}
	if i := strings.IndexByte(path, ' '); i > 0 && verbOf(path[:i]) != "" && strings.ToUpper(path[:i]) == path[:i] {
		methods = append(methods, verbOf(path[:i]))
		path = strings.TrimSpace(path[i+1:])
	}
	if v := m.first("route.verb"); v != nil && len(methods) == 0 {
		if w := verbOf(v.Utf8Text(x.src)); w != "" && v.Kind() != "list" && v.Kind() != "argument_list" && v.Kind() != "array_creation_expression" && v.Kind() != "composite_literal" {
			methods = append(methods, w)
		} else {
			for _, lv := range x.ev.list(v, 0) {
				if w := verbOf(lv.text); w != "" {
					methods = append(methods, w)
				}
			}
		}
	}
	if len(methods) == 0 && m.props["method"] != "" {
		methods = append(methods, m.props["method"])
	}
	if len(methods) == 0 {
		methods = append(methods, "ANY")
	}
	// Prefixes: enclosing scopes (outermost first), then the router's chain.
	var prefix []string
	for _, ps := range x.prefixes {
		if ps.start <= n.StartByte() && n.EndByte() <= ps.end {
			prefix = append(prefix, ps.path)
		}
	}
	if fw == "ktor" && path == "" && len(prefix) == 0 {
		return nil // get { } outside a route("/x") { } is no route anyone can name
	}
	if r := m.first("route.router"); r != nil {
		base.Router = r.Utf8Text(x.src)
		// g.Group("/user").Use(auth).POST("", h): the groups made on the
		// way come after the chain of the router they start from.
		name, inline := x.inlineGroups(r)
		if name != "" {
			base.Router = name
		}
		var chain []string
		for name, seen := base.Router, 0; seen < 8; seen++ {
			def, ok := x.routers[name]
			if !ok {
				break
			}
			chain = append([]string{def.prefix}, chain...)
			name = def.parent
		}
		prefix = append(append(prefix, chain...), inline...)
	}
	full := path
	for i := len(prefix) - 1; i >= 0; i-- {
		full = strings.TrimRight(prefix[i], "/") + "/" + strings.TrimLeft(full, "/")
	}
	var out []fact
	for _, meth := range methods {
		r := base
		r.Method, r.Path = meth, normPath(full)
		out = append(out, fact{at: n.StartByte(), key: key, route: &r})
	}
	return out
}
