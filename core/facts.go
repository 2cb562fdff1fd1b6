package core

// CallKind says what an outbound call talks to.
type CallKind string

// The call kinds. A client is not a call but the configuration of one: an
// HTTP client (an axios instance, a typed .NET HttpClient) and where its
// base address comes from; calls made through it name it as their Client.
const (
	CallHTTP      CallKind = "http"
	CallGRPC      CallKind = "grpc"
	CallPublish   CallKind = "publish"
	CallSubscribe CallKind = "subscribe"
	CallDB        CallKind = "db"
	CallCache     CallKind = "cache"
	CallClient    CallKind = "client"
)

// Origin says how a call's target was obtained from the code.
type Origin string

// The origins of a target, from most to least certain.
const (
	FromLiteral    Origin = "literal"    // a string literal
	FromConstant   Origin = "constant"   // a named constant or variable holding a literal
	FromTemplate   Origin = "template"   // an interpolated string, a concatenation, a format string
	FromEnv        Origin = "env"        // an environment variable (Env names it)
	FromConfig     Origin = "config"     // a configuration key (Config names it)
	FromExpression Origin = "expression" // anything else; Target holds the expression
)

// Call is an outbound call, or a client configuration, found in code: the
// raw material of the service graph. Targets keep dynamic parts as
// {placeholders}: "/users/{userId}/profile".
type Call struct {
	Kind CallKind `json:"kind"`
	// System names the library or system: fetch, axios, net/http,
	// HttpClient, requests, kafka, rabbitmq, postgres, redis, ...
	System string `json:"system,omitempty"`
	// Method is the HTTP method (GET, POST, ...) of an HTTP call, or the
	// service of a gRPC client.
	Method string `json:"method,omitempty"`
	// Target is the path or URL, topic or queue, DSN or address.
	Target string `json:"target,omitempty"`
	Origin Origin `json:"origin,omitempty"`
	// Base is where the base address of a relative Target comes from:
	// "env:CART_SERVICE_ADDR", "config:Services:Catalog", "expr:c.base",
	// or a literal URL.
	Base string `json:"base,omitempty"`
	// Env and Config name the environment variable or configuration key
	// the target or its base is read from; Default is the literal used
	// when it is unset.
	Env     string `json:"env,omitempty"`
	Config  string `json:"config,omitempty"`
	Default string `json:"default,omitempty"`
	// Client is the client the call goes through (catalog, c.http,
	// _http), or for a client configuration the name it configures.
	Client string `json:"client,omitempty"`
	Line   int    `json:"line"`
	Text   string `json:"text,omitempty"` // the call's first source line, trimmed
}

// Route is a server route found in code.
type Route struct {
	Method    string `json:"method"` // GET, POST, ..., ANY; GRPC for gRPC services
	Path      string `json:"path"`   // template: /users/{id}/profile; the service name for gRPC
	Framework string `json:"framework,omitempty"`
	Handler   string `json:"handler,omitempty"`
	// Router is the router or app variable the route is registered on;
	// mounts elsewhere in the repository can add a prefix through it.
	Router string `json:"router,omitempty"`
	Line   int    `json:"line"`
}

// RouteAt is a route with the file and chunk it was found in.
type RouteAt struct {
	File    string // slash path in the repository
	ChunkID string
	Route
}

// Mount puts a router under a path prefix: Express app.use("/api", r),
// FastAPI include_router(r, prefix=...), Flask register_blueprint.
type Mount struct {
	Prefix string `json:"prefix"`
	Router string `json:"router"`
	// Into is the app or router the router is mounted into (app, api).
	Into string `json:"into,omitempty"`
	// From is the module the router was imported from, as written in the
	// import ("./routes/cart"); empty when it is defined in the same file.
	From string `json:"from,omitempty"`
	Line int    `json:"line"`
}

// Ref is a name a chunk calls or refers to.
type Ref struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // call, type
}

// Summary is a one-line description of the call for Chunk.CallsOut:
// "http GET /users/{userId}/profile", "publish kafka orders.placed".
func (c Call) Summary() string {
	switch c.Kind {
	case CallClient:
		return ""
	case CallHTTP:
		return "http " + c.Method + " " + c.Target
	case CallGRPC:
		if c.Method != "" {
			return "grpc " + c.Method
		}
		return "grpc " + c.Target
	}
	s := string(c.Kind) + " " + c.System
	if c.Target != "" {
		s += " " + c.Target
	}
	return s
}
