package core

import (
	"path"
	"strings"
)

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
	// CallSDK is a client of a hosted service made with its SDK (Azure
	// Service Bus, Cosmos DB, OpenAI): System names the service, Method
	// the kind of dependency (http, queue, db), Target the address the
	// code gives it, if any.
	CallSDK CallKind = "sdk"
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

// RouteAt is a route with the repository, file and chunk it was found in.
type RouteAt struct {
	Repo    string
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
	case CallSDK:
		return "sdk " + c.System
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

// Resource is what a deploy or config file declares about a service: a
// Kubernetes object, a compose service, a Helm chart or values file, an
// Aspire resource, a settings file. The service graph is built from them.
type Resource struct {
	// Kind is the Kubernetes kind (Deployment, Service, Ingress,
	// ConfigMap, NetworkPolicy, ...) or one of ResourceCompose,
	// ResourceChart, ResourceHelmValues, ResourceHelmTemplate,
	// ResourceSettings, ResourceAspire.
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// Service is the service the resource belongs to, "" for none (a
	// ConfigMap, an Ingress).
	Service  string            `json:"service,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Selector map[string]string `json:"selector,omitempty"`
	Images   []string          `json:"images,omitempty"`
	Ports    []string          `json:"ports,omitempty"`
	Env      []EnvVar          `json:"env,omitempty"`
	// EnvFrom names the ConfigMaps (and Secrets, as "secret:NAME") whose
	// keys all become environment variables.
	EnvFrom []string `json:"env_from,omitempty"`
	// Data holds a ConfigMap's data, a Helm values file or a settings
	// file's keys, flattened with "." ("upstreams.catalogUrl") or ":"
	// ("Services:Catalog") as the format writes them.
	Data map[string]string `json:"data,omitempty"`
	// Backends are an Ingress's paths and the services behind them.
	Backends []Backend `json:"backends,omitempty"`
	// Build is a compose service's build context, relative to the file;
	// Dockerfile the Dockerfile it builds with, relative to the context.
	Build      string `json:"build,omitempty"`
	Dockerfile string `json:"dockerfile,omitempty"`
	// Volumes are the host paths a compose service mounts, and the
	// ConfigMaps a Kubernetes workload's pods mount as files
	// ("configmap:NAME"); EnvFiles the env files a compose service loads
	// (env_file), relative to the compose file.
	Volumes  []string `json:"volumes,omitempty"`
	EnvFiles []string `json:"env_files,omitempty"`
	// Reads are the files of folders a compose service mounts that its
	// command or entrypoint names, as host paths relative to the compose
	// file: ./config/app.yaml for -config.file=/etc/app/app.yaml with
	// ./config mounted at /etc/app. Of such a folder, the service reads
	// those.
	Reads     []string `json:"reads,omitempty"`
	DependsOn []string `json:"depends_on,omitempty"`
	// Programs are what a workload's containers (not its init
	// containers) or a compose service run, as written: the first word
	// of a command or of the script a shell runs (sh -c "exec cart"), and
	// every word of a command or its args written as the path of a
	// program (/usr/local/bin/cart, ./server; not /etc/app.yaml). The
	// graph finds the program's code by its name.
	Programs []string `json:"programs,omitempty"`
	// Flags are the NAME=VALUE options a workload's containers' (not its
	// init containers') or a compose service's command and args pass
	// (volume -master="master:9333", --redis-url redis://cache:6379), a
	// list's items one each (-peers=a:9333,b:9333): read as its
	// environment is.
	Flags []EnvVar `json:"flags,omitempty"`
	// Migrates says the workload's containers (not its init containers)
	// run a database migration and exit: their command or args say
	// migrate (kratos migrate sql, manage.py migrate, rails db:migrate,
	// prisma migrate deploy, alembic upgrade). Such a job mounts its
	// application's whole configuration but talks to the database only.
	Migrates bool `json:"migrates,omitempty"`
	// Worker is the task queue whose worker a workload's containers (not
	// its init containers) or a compose service's command run: "celery"
	// for celery -A proj worker, "celery-beat" for Celery's scheduler
	// (celery -A proj beat), "celery-flower" for its dashboard; Ruby's
	// "sidekiq", "good_job", "solid_queue", "resque", "delayed_job". A
	// worker runs the tasks its code defines, the scheduler sends those
	// its schedule names, the dashboard neither.
	Worker string `json:"worker,omitempty"`
	// From lists the services a NetworkPolicy lets in (their app labels).
	From []string `json:"from,omitempty"`
	// References are the resources an Aspire resource is wired to
	// (WithReference).
	References []string `json:"references,omitempty"`
	// AppID is the Dapr app id a workload's pods are annotated with
	// (dapr.io/app-id), or a compose service running Dapr's sidecar
	// (daprd -app-id orders) gives its app: the name other services
	// invoke it by.
	AppID string `json:"app_id,omitempty"`
	// NetworkOf is the compose service whose network this one joins
	// (network_mode: "service:orders"): a sidecar's app.
	NetworkOf string `json:"network_of,omitempty"`
	// Scopes are the Dapr app ids a Dapr Subscription delivers its
	// topic (Data["topic"]) to.
	Scopes []string `json:"scopes,omitempty"`
	// Keys are the lines of a ConfigMap's data keys and of the ConfigMaps
	// and Secrets an env list or envFrom names.
	Keys []KeyLine `json:"keys,omitempty"`
	Line int       `json:"line"`
}

// KeyLine is the line a key of a resource is written on.
type KeyLine struct {
	Key  string `json:"key"`
	Line int    `json:"line"`
}

// The resource kinds that are not Kubernetes kinds. A proxy routes
// requests to backends (nginx proxy_pass, Envoy clusters): its Backends
// hold each path prefix and the address it passes to, as written. A
// dockerfile resource is a Dockerfile's final stage: its base image and
// the ENV its container starts with.
const (
	ResourceProxy      = "proxy"
	ResourceDockerfile = "dockerfile"
	// ResourceBuild maps the images a build tool makes (Skaffold
	// artifacts, Tilt docker_build) to the folders they are built from,
	// in Data (image -> folder, relative to the file).
	ResourceBuild = "build"
	// ResourceGoBuild maps the Go programs a build script compiles
	// (go build -o bin/keda ./cmd/operator in a Dockerfile, Makefile or
	// shell script) to the packages they are built from, in Data (the
	// output's name -> the package as written: a folder or file relative
	// to the script or the repository, or an import path).
	ResourceGoBuild = "go-build"
	// ResourceCompose is a docker compose service, an app of a Dapr
	// multi-app run file (dapr run -f dapr.yaml; Labels["runner"] is
	// "dapr") or a process of a Procfile (Labels["runner"] "procfile"),
	// which the graph reads alike.
	ResourceCompose      = "compose"
	ResourceChart        = "chart"
	ResourceHelmValues   = "helm-values"
	ResourceHelmTemplate = "helm-template"
	ResourceSettings     = "settings"
	ResourceAspire       = "aspire"
	// ResourceAzd is a service of an Azure Developer CLI project file
	// (azure.yaml) whose Kustomize deployment azd gives environment
	// variables: Env as written (${NAME} for azd's environment, which
	// holds the infrastructure's outputs), Data "env-file" (the .env
	// file azd writes them to, relative to the project file), "infra"
	// and "provider" (where the infrastructure's outputs come from).
	ResourceAzd = "azd-service"
	// ResourceTerraformOutputs are the outputs of a Terraform file whose
	// value is a string written in it, in Data (name -> value; see
	// chunk.terraformOutputs for interpolations); Name is the file's
	// folder (the module).
	ResourceTerraformOutputs = "terraform-outputs"
	// ResourceConfigFile is a YAML or JSON config file of no format the
	// crawl knows (a server's config.yml): the addresses it holds, in
	// Data (flattened key -> value, credentials redacted). It is the
	// settings of the services that mount it (a compose volume), and of
	// no other.
	ResourceConfigFile = "config-file"
)

// EnvVar is an environment variable a resource sets: a value, or a
// reference to a ConfigMap or Secret key.
type EnvVar struct {
	Name      string `json:"name"`
	Value     string `json:"value,omitempty"`
	ConfigMap string `json:"configmap,omitempty"`
	Secret    string `json:"secret,omitempty"`
	Key       string `json:"key,omitempty"`
	// Line is the line that sets it, when known.
	Line int `json:"line,omitempty"`
}

// Backend is an Ingress path and the service that answers it.
type Backend struct {
	Host    string `json:"host,omitempty"`
	Path    string `json:"path"`
	Service string `json:"service"`
	Port    string `json:"port,omitempty"`
	// Line is the line naming the backend service.
	Line int `json:"line,omitempty"`
}

// ResourceAt is a resource with where it was declared.
type ResourceAt struct {
	Repo    string
	File    string // slash path in the repository
	ChunkID string
	Resource
}

// CallAt is an outbound call with where it was found: the repository,
// file, chunk and the chunk's scope ("clients.go > CartClient > GetCart").
type CallAt struct {
	Repo    string
	File    string
	ChunkID string
	Scope   string
	Call
}

// Binding is a value the code gives a struct field or a constructor
// parameter. The service graph follows them when a call's address is a
// field (c.base): from the field to the constructor parameter that set it,
// to the argument a caller passed, to the configuration that holds it.
type Binding struct {
	// Kind is "field" (Type.Field is set to the value, or to parameter
	// Index of Func), "arg" (Func is called with the value as argument
	// Index) or BindParam.
	Kind  string `json:"kind"`
	Type  string `json:"type,omitempty"`
	Field string `json:"field,omitempty"`
	Func  string `json:"func,omitempty"`
	Index int    `json:"index"`
	// Param names the parameter of Func a field is set from; "" when the
	// value is an expression.
	Param string `json:"param,omitempty"`
	// Expr is the value as written; the rest is what it evaluates to.
	Expr    string `json:"expr,omitempty"`
	Value   string `json:"value,omitempty"`
	Origin  Origin `json:"origin,omitempty"`
	Env     string `json:"env,omitempty"`
	Config  string `json:"config,omitempty"`
	Default string `json:"default,omitempty"`
	Line    int    `json:"line"`
	// End is the last line of Func, for a BindParam (Line is its first).
	End int `json:"end,omitempty"`
	// Pkg, for an "arg" binding, says which package's Func is called: the
	// import path of the package it is qualified by (cart.NewClient),
	// "." for an unqualified call (the caller's own package), "" when
	// unknown (a method called on a value).
	Pkg string `json:"pkg,omitempty"`
}

// BindEnv is the Kind of a Binding that records an environment variable a
// file reads: Env names it, Default is the literal used when it is unset,
// Field the variable it is assigned to. The service graph uses them twice:
// a code default is an address of last resort, and a variable a service's
// files read is one its deploy files give it on purpose (a shared
// ConfigMap is not a list of dependencies).
const BindEnv = "env"

// BindAddress is the Kind of a Binding that records an address the code
// builds: a DSN or URL in Value, its host a literal or a {placeholder}
// (jdbc:mysql://{DB_HOST}/shop, http://{USERS}:8080/users); Field is the
// variable it is assigned to. The service graph fills the placeholders
// from the service's environment.
const BindAddress = "address"

// BindParam is the Kind of a Binding that records a constructor's
// parameter: Field is its name, Index its place in Func's parameters. A
// call whose address is that parameter (http.NewRequest(ctx, "POST", url,
// nil) inside NewClient(url string)) is traced through it to the
// arguments callers pass.
const BindParam = "param"

// BindingAt is a binding with where it was found.
type BindingAt struct {
	Repo    string
	File    string
	ChunkID string
	Binding
}

// GoImportBase is the last element of a Go import path, before a major
// version suffix: example.com/store/v2 -> store, go-redis/v9 -> go-redis.
func GoImportBase(p string) string {
	els := strings.Split(p, "/")
	last := els[len(els)-1]
	if len(els) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		return els[len(els)-2]
	}
	return last
}

// ImageName is a container image's name without registry, path, tag and
// digest: ghcr.io/acme/cart:1.2 -> cart.
func ImageName(img string) string {
	img = strings.SplitN(img, "@", 2)[0]
	if i := strings.LastIndexByte(img, '/'); i >= 0 {
		img = img[i+1:]
	}
	if i := strings.IndexByte(img, ':'); i >= 0 {
		img = img[:i]
	}
	return img
}

// IsWorkload reports whether a Kubernetes kind runs a service's code.
func IsWorkload(kind string) bool {
	switch kind {
	case "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Rollout", "Pod", "ReplicaSet", "DeploymentConfig":
		return true
	}
	return false
}

// KeyedBlock reports whether a ConfigMap's data key holds a block of
// lines under a key of no file's name (persistence: |): configuration a
// program reads by key through the Kubernetes API, rather than a file to
// mount (config.yaml: |).
func KeyedBlock(key, value string) bool {
	return path.Ext(key) == "" && strings.Contains(strings.TrimSpace(value), "\n")
}
