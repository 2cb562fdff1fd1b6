package graph

import (
	"encoding/json"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// Input is what the graph is built from: the facts a crawl stored.
type Input struct {
	Resources []core.ResourceAt
	Calls     []core.CallAt
	Routes    []core.RouteAt
	// Files are every indexed file as repository and path; they tell
	// which directories hold a service's code (a Dockerfile, a .csproj).
	Files [][2]string
	// Bindings are values code gives fields and constructor parameters.
	Bindings []core.BindingAt
	// GoImports are the import paths of Go files other than tests, by
	// repository and path: they tell which packages a program a service
	// runs is made of. Read only when a workload's image is ko:// or a
	// workload names its programs (NeedsGoImports).
	GoImports map[[2]string][]string
	// Roots are the folders the repositories were crawled from, by name:
	// a path one repository's deploy files give outside it (a compose
	// build context ../inventory beside a deploy repository) is in the
	// repository crawled from there.
	Roots map[string]string
}

// dropExampleDeploys leaves out the deploy files under an examples
// directory (core.IsExamplePath: a controller's sample applications, a
// gateway's demo backends) of a repository that deploys services from
// elsewhere: they show how the product is used, not the system. A
// repository deployed only from there (a demo application under
// samples/) keeps them.
func dropExampleDeploys(resources []core.ResourceAt) []core.ResourceAt {
	deploysElsewhere := map[string]bool{}
	for _, r := range resources {
		if declaresNode(r) && !core.IsExamplePath(r.File) {
			deploysElsewhere[r.Repo] = true
		}
	}
	kept := resources[:0]
	for _, r := range resources {
		if !deploysElsewhere[r.Repo] || !core.IsExamplePath(r.File) {
			kept = append(kept, r)
		}
	}
	return kept
}

// declaresNode reports whether a resource declares a service of its own:
// a workload or Kubernetes Service, a compose service, a Helm chart or
// one of its workloads, an Aspire resource.
func declaresNode(r core.ResourceAt) bool {
	switch {
	case core.IsWorkload(r.Kind), r.Kind == "Service", r.Kind == core.ResourceCompose, r.Kind == core.ResourceChart, r.Kind == core.ResourceAspire:
		return true
	case r.Kind == core.ResourceHelmTemplate:
		return r.Labels["kind"] != ""
	}
	return false
}

// NeedsGoImports reports whether Build reads in.GoImports: a workload's
// image is built by ko from an import path, or a workload names the
// programs it runs.
func NeedsGoImports(resources []core.ResourceAt) bool {
	for _, r := range resources {
		if len(r.Programs) > 0 {
			return true
		}
		for _, img := range r.Images {
			if strings.HasPrefix(img, "ko://") {
				return true
			}
		}
	}
	return false
}

// owner says that the code under Dir of Repo belongs to Service.
type owner struct {
	repo, dir, service string
	why                string
}

// envSource is one place a service's environment comes from, in order of
// precedence: Kubernetes and Helm (production) before compose (local
// development) before example files.
type envSource struct {
	vars map[string]string
	// unknown are variables set from a Secret: set, but not readable here.
	unknown map[string]string
	via     string
	conf    float64
}

// dedupeEnv drops the environments that repeat an earlier one's variables
// (the same manifest in several overlays or copies). Lookups take the
// first environment that has a variable, so the answers do not change;
// they only stop scanning copies.
func dedupeEnv(list []envSource) []envSource {
	if len(list) < 2 {
		return list
	}
	seen := make(map[string]bool, len(list))
	out := list[:0:0]
	for _, e := range list {
		k, _ := json.Marshal(struct {
			V, U map[string]string
			C    float64
		}{e.vars, e.unknown, e.conf})
		if !seen[string(k)] {
			seen[string(k)] = true
			out = append(out, e)
		}
	}
	return out
}

type builder struct {
	in     Input
	nodes  map[string]*Service
	alias  map[string]string // lower-case alias -> node name
	owners []owner
	// ownerAt indexes owners by repository and directory.
	ownerAt map[[2]string]string
	env     map[string][]envSource
	config  map[string][]envSource      // settings files (appsettings.json) by service
	routes  map[string][]route          // by service, with their path segments
	clients map[string][]core.CallAt    // client registrations by service
	params  map[string][]core.BindingAt // constructors' parameters by service, with their files
	// fieldBinds and argBinds are the field and argument bindings by
	// service and then by field name, or by constructor and parameter
	// index ("NewClient\x000"), in input order: trace looks them up for
	// every step of every call.
	fieldBinds map[string]map[string][]core.BindingAt
	argBinds   map[string]map[string][]core.BindingAt
	traced     map[string]traceResult // trace's answers, by what they depend on
	// families are brokerFamily's answers, by service and broker: every
	// queue call of a service asks for each of its brokers.
	families map[[2]string]string
	// grpcByChunk are the gRPC calls of each chunk (dials and clients).
	grpcByChunk map[string][]core.CallAt
	edges       map[string]*Edge
	// configMaps by "namespace/name" and by name.
	configMaps map[string]map[string]string
	// helmValues by "repo/chart-directory".
	helmValues map[string]map[string]string
	// cms are the ConfigMaps by name: every variant (overlays, alternative
	// deployments) with where it is written.
	cms map[string][]core.ResourceAt
	// cmHosts are, per ConfigMap name and variant, the service each
	// address key names ("" for none); replaced caches replacedVariants.
	cmHosts  map[string][]map[string]string
	replaced map[[2]string]map[int]bool
	// vals are the values each service's environment may give each
	// variable (collectValues); reads the variables its files read.
	vals  map[string][]envVal
	reads map[string]map[string]bool
	// fields map, per service, the variables code assigns an environment
	// read to (CART = os.getenv("CART_HOST")) to the variable it reads.
	fields map[string]map[string]string
	// databases are the servers by the names of the databases they hold.
	databases map[string]string
	// declaring are the repositories whose deploy files declare services:
	// their code outside every service's folder belongs to none.
	declaring map[string]bool
	// mounts are the files and folders compose services mount
	// (composeMounts, found by ownership).
	mounts []mount
	// published are the compose services of each repository that publish
	// each port of the machine (publishers).
	published map[[2]string][]string
	// migrating are the services that only migrate a database
	// (migrationJob).
	migrating map[string]bool
	// sharedBuilds are the compose services built from, or mounting,
	// each folder that several are built from or mount (a folder that is
	// none of theirs), by repository and folder ("" for the root).
	sharedBuilds map[[2]string][]string
	// tasks are the background jobs the code defines (taskIndex).
	tasks *taskIndex
	// envOrigins say where a ConfigMap's value read from an env file
	// nobody committed comes from, by repository, ConfigMap file and key.
	envOrigins map[[3]string]envOrigin
}

// BuilderVersion numbers the graphs Build makes. It changes whenever a
// change to Build would make another graph of the same facts, so that
// the next crawl of an index an older coderag linked rebuilds its graph
// (and the owners and mentions that follow from it) instead of keeping
// it because no file changed.
const BuilderVersion = 90

// Build builds the graph. The result depends only on the input, in a
// stable order.
func Build(in Input) *Graph {
	// Deploy files in test folders (fixtures, e2e set-ups, test images)
	// declare what tests run, not the system, and those of a development
	// container (.devcontainer/: the editor's image, its GOPROXY, its
	// database) the developer's machine: no nodes, no wiring. The rest
	// are copied, to be interpolated.
	resources := make([]core.ResourceAt, 0, len(in.Resources))
	for _, r := range in.Resources {
		if core.DeclaresSystem(r.File) {
			resources = append(resources, r)
		}
	}
	in.Resources = dropExampleDeploys(resources)
	if dev := devStacks(in); len(dev) > 0 {
		kept := in.Resources[:0:0]
		for _, r := range in.Resources {
			if r.Kind != core.ResourceCompose || !dev[r.Repo] {
				kept = append(kept, r)
			}
		}
		in.Resources = kept
	}
	b := newBuilder(in)
	b.services()
	b.ownership()
	b.collectValues()
	if b.declareHosts() {
		// New nodes can own folders named after them: decide again.
		b.owners, b.ownerAt = nil, nil
		b.ownership()
		b.collectValues()
	}
	b.environments()
	for s, list := range b.env {
		b.env[s] = dedupeEnv(list)
	}
	for s, list := range b.config {
		b.config[s] = dedupeEnv(list)
	}
	g := &Graph{}
	seen := map[[3]string]bool{}
	for _, r := range in.Routes {
		if s := b.ownerOf(r.Repo, r.File); s != "" && !core.IsTestPath(r.File) && !b.exampleCode(r.Repo, r.File) {
			// Matching takes the first best route: a later copy of the
			// same method and path (a service's code copied across a
			// monorepo) never wins, and is left out of the list.
			if k := [3]string{s, r.Method, r.Path}; !seen[k] {
				seen[k] = true
				b.routes[s] = append(b.routes[s], route{r, core.RouteSegments(r.Path)})
			}
			g.Routes = append(g.Routes, Route{s, r})
		}
	}
	for _, c := range in.Calls {
		if c.Kind == core.CallGRPC {
			b.grpcByChunk[c.ChunkID] = append(b.grpcByChunk[c.ChunkID], c)
		}
		if c.Kind == core.CallClient {
			if s := b.ownerOf(c.Repo, c.File); s != "" {
				b.clients[s] = append(b.clients[s], c)
			}
		}
	}
	for _, bd := range in.Bindings {
		// What tests and examples give a constructor is not what the
		// service is deployed with.
		if core.IsTestPath(bd.File) || b.exampleCode(bd.Repo, bd.File) {
			continue
		}
		if s := b.ownerOf(bd.Repo, bd.File); s != "" {
			switch bd.Kind {
			case "field":
				b.fieldBinds[s] = appendIndexed(b.fieldBinds[s], bd.Field, bd)
			case "arg":
				b.argBinds[s] = appendIndexed(b.argBinds[s], argKey(bd.Func, bd.Index), bd)
			}
			if bd.Kind == core.BindParam {
				if b.params == nil {
					b.params = map[string][]core.BindingAt{}
				}
				b.params[s] = append(b.params[s], bd)
			}
		}
	}
	b.deployEdges()
	b.configured()
	b.taskIndex()
	for _, c := range in.Calls {
		b.call(c)
	}
	b.proxies()
	b.mergeConfigured()
	b.networkPolicies()
	for _, o := range b.owners {
		if n := b.nodes[o.service]; n != nil && n.Kind == KindService {
			n.Dirs = append(n.Dirs, Dir{Repo: o.repo, Path: first(o.dir, "."), Why: o.why})
		}
	}
	for _, n := range b.nodes {
		g.Services = append(g.Services, *n)
	}
	for _, e := range b.edges {
		g.Edges = append(g.Edges, *e)
	}
	g.Sort()
	return g
}

// newBuilder returns a builder of the graph of in, its env files read
// and compose files interpolated (in.Resources' elements in place).
func newBuilder(in Input) *builder {
	origins := readEnvFiles(&in)
	return &builder{in: in, envOrigins: origins, nodes: map[string]*Service{}, alias: map[string]string{}, env: map[string][]envSource{},
		config: map[string][]envSource{}, routes: map[string][]route{}, clients: map[string][]core.CallAt{},
		fieldBinds: map[string]map[string][]core.BindingAt{}, argBinds: map[string]map[string][]core.BindingAt{}, traced: map[string]traceResult{}, families: map[[2]string]string{}, grpcByChunk: map[string][]core.CallAt{},
		edges: map[string]*Edge{}, configMaps: map[string]map[string]string{}, helmValues: map[string]map[string]string{}}
}

// devStacks returns the repositories whose compose files run a service
// on a developer's machine (with its database) while another repository
// deploys it: the repository is the code of a workload declared
// elsewhere — it builds that workload's image from its root (a CI
// workflow's or build tool's artifact), or it holds a Dockerfile at its
// root and is named after the image — and its compose file builds its
// root. Like a .devcontainer's, such a compose file makes no nodes and
// no wiring: its service is the deployed workload, whose repository the
// graph then finds its code in.
func devStacks(in Input) map[string]bool {
	composeRoot := map[string]bool{} // repositories a compose file of theirs builds the root of
	for _, r := range in.Resources {
		if r.Kind == core.ResourceCompose && r.Build != "" && !strings.Contains(r.Build, "://") {
			if repo, dir, ok := locate(in.Roots, r.Repo, path.Join(path.Dir(r.File), r.Build)); ok && repo == r.Repo && dir == "." {
				composeRoot[r.Repo] = true
			}
		}
	}
	if len(composeRoot) == 0 {
		return nil
	}
	pre := in
	pre.Resources = slices.Clone(in.Resources) // interpolated by the builder
	b := newBuilder(pre)
	b.services()
	elsewhere := func(repo, s string) bool {
		n := b.nodes[s]
		return n != nil && n.Kind == KindService && len(n.Declared) > 0 &&
			!slices.ContainsFunc(n.Declared, func(ev Evidence) bool { return ev.Repo == repo })
	}
	dev := map[string]bool{}
	for _, r := range in.Resources {
		switch {
		case !composeRoot[r.Repo]:
		case r.Kind == core.ResourceBuild:
			for img, from := range r.Data {
				repo, dir, ok := locate(in.Roots, r.Repo, path.Join(path.Dir(r.File), from))
				if ok && repo == r.Repo && dir == "." && elsewhere(repo, b.alias[strings.ToLower(core.ImageName(img))]) {
					dev[repo] = true
				}
			}
		case r.Kind == core.ResourceDockerfile && path.Dir(r.File) == ".":
			if s := b.alias[strings.ToLower(r.Repo)]; s != r.Repo && elsewhere(r.Repo, s) {
				dev[r.Repo] = true
			}
		}
	}
	return dev
}

// node returns the named node, creating it with kind.
func (b *builder) node(name, kind string) *Service {
	if n, ok := b.nodes[name]; ok {
		if n.Kind == KindService && kind != KindService && kind != "" {
			n.Kind = kind
		}
		return n
	}
	n := &Service{Name: name, Kind: kind}
	b.nodes[name] = n
	// A node's own name is its own, though another node took it as an
	// alias first (tekton's controller, labelled controller, before
	// knative's Deployment named controller).
	b.alias[strings.ToLower(name)] = name
	b.addAlias(n, name, "name")
	return n
}

func (b *builder) addAlias(n *Service, alias, kind string) {
	if alias == "" {
		return
	}
	l := strings.ToLower(alias)
	if _, taken := b.alias[l]; !taken {
		b.alias[l] = n.Name
	}
	if alias == n.Name && kind != "name" {
		return
	}
	for _, a := range n.Aliases {
		if a.Name == alias && a.Kind == kind {
			return
		}
	}
	if alias != n.Name {
		n.Aliases = append(n.Aliases, Alias{alias, kind})
	}
}

func evidenceOf(r core.ResourceAt) Evidence {
	return Evidence{ChunkID: r.ChunkID, Repo: r.Repo, File: r.File, Line: r.Line}
}

// evidenceAt is r's evidence at one of its lines (the resource's own line
// when it is 0).
func evidenceAt(r core.ResourceAt, line int) Evidence {
	ev := evidenceOf(r)
	if line > 0 {
		ev.Line = line
	}
	return ev
}

// imageKind says what well-known infrastructure an image runs.
func imageKind(images []string) string {
	for _, img := range images {
		b := strings.ToLower(core.ImageName(img))
		switch {
		case containsAny(b, "postgres", "mysql", "mariadb", "mongo", "mssql", "sqlserver", "cockroach", "cassandra", "oracle", "timescale", "clickhouse",
			"influxdb", "neo4j", "scylla", "couchdb", "couchbase", "yugabyte", "tidb", "arangodb", "ravendb", "surrealdb", "dynamodb"):
			return KindDatabase
		case containsAny(b, "redis", "memcached", "valkey", "keydb", "dragonfly", "garnet", "hazelcast"):
			return KindCache
		case containsAny(b, "kafka", "rabbitmq", "nats", "redpanda", "activemq", "pulsar", "mosquitto", "emqx", "nsqd", "hivemq"):
			return KindQueue
		}
	}
	return KindService
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// services makes the nodes: Kubernetes workloads and Services, compose
// services, Helm charts, Aspire resources, Ingresses.
func (b *builder) services() {
	// A workload that says it is part of another service and runs that
	// service's image (a worker of its code base) joins it. The label
	// names an application: its components with images of their own (a
	// front end, an API, their Redis) stay services of their own, and an
	// application nothing runs as (a platform's name) is no node.
	images := map[string]map[string]bool{} // workload service -> image names
	for _, r := range b.in.Resources {
		if core.IsWorkload(r.Kind) && r.Service != "" {
			for _, img := range r.Images {
				if images[r.Service] == nil {
					images[r.Service] = map[string]bool{}
				}
				images[r.Service][core.ImageName(img)] = true
			}
		}
	}
	partOf := map[string]string{}
	for _, r := range b.in.Resources {
		p := r.Labels["app.kubernetes.io/part-of"]
		if p == "" || p == r.Service || !core.IsWorkload(r.Kind) {
			continue
		}
		for _, img := range r.Images {
			if images[p][core.ImageName(img)] {
				partOf[r.Service] = p
				break
			}
		}
	}
	canonical := func(name string) string {
		if p, ok := partOf[name]; ok {
			return p
		}
		return name
	}
	// compose services built from the same context as another service
	// whose name is the context's folder are that service.
	buildOf := map[string]string{} // repo/context dir -> compose service named after it
	for _, r := range b.in.Resources {
		if r.Kind == core.ResourceCompose && r.Build != "" {
			dir := path.Clean(path.Join(path.Dir(r.File), r.Build))
			if path.Base(dir) == r.Name {
				buildOf[r.Repo+"/"+dir] = r.Name
			}
		}
	}
	sidecars := daprSidecars(b.in.Resources)
	// An image several services run (one image with a tag per service,
	// an unfilled ${IMAGE_NAME}) names none of them.
	imageUsers := map[string]map[string]bool{}
	for _, r := range b.in.Resources {
		if r.Kind == core.ResourceHelmValues {
			b.helmValues[r.Repo+"/"+path.Dir(r.File)] = r.Data
		}
	}
	// A Helm workload's images as its chart's values render them
	// ({{ .Values.api.image.repository }}:{{ .Values.api.image.tag }}).
	helmImages := func(r core.ResourceAt) []string {
		var out []string
		for _, img := range r.Images {
			if v, ok := helmValue(img, b.helmValues[r.Repo+"/"+path.Dir(path.Dir(r.File))]); ok {
				img = v
			}
			out = append(out, img)
		}
		return out
	}
	for _, r := range b.in.Resources {
		helmWorkload := r.Kind == core.ResourceHelmTemplate && core.IsWorkload(r.Labels["kind"])
		if core.IsWorkload(r.Kind) || r.Kind == core.ResourceCompose || helmWorkload {
			name := canonical(first(r.Service, r.Name))
			imgs := r.Images
			if helmWorkload {
				imgs = helmImages(r)
			}
			for _, img := range imgs {
				ib := core.ImageName(img)
				if strings.ContainsAny(ib, "${}") {
					continue
				}
				if imageUsers[ib] == nil {
					imageUsers[ib] = map[string]bool{}
				}
				imageUsers[ib][name] = true
			}
		}
	}
	// A chart whose templates declare services of their own names is an
	// umbrella: it is not a service itself.
	umbrella := map[string]bool{} // repo/chart directory
	for _, r := range b.in.Resources {
		if r.Kind == core.ResourceHelmTemplate && r.Labels["kind"] != "" {
			umbrella[r.Repo+"/"+path.Dir(path.Dir(r.File))] = true
		}
	}
	// A chart whose templates declare no workload and no Service (only
	// RBAC, CRDs, configuration) deploys no service of its own. A
	// template whose kind the chunker could not read (one that includes a
	// library chart's template) may deploy one.
	chartDeploys := map[string]bool{} // repo/chart directory -> a workload or Service among its templates
	for _, r := range b.in.Resources {
		if r.Kind == core.ResourceHelmTemplate && (r.Labels["kind"] != "" || r.Data["kind"] != "" || r.Data["include"] != "") {
			if d, ok := chartDirOf(r.File); ok {
				chartDeploys[r.Repo+"/"+d] = true
			}
		}
	}
	chartTemplates := map[string]bool{} // repo/chart directory -> it has manifest templates
	for _, f := range b.in.Files {
		if ext := path.Ext(f[1]); ext != ".yaml" && ext != ".yml" {
			continue // NOTES.txt, _helpers.tpl: an umbrella chart's own templates
		}
		if d, ok := chartDirOf(f[1]); ok {
			chartTemplates[f[0]+"/"+d] = true
		}
	}
	// A Service is the workload whose pods it selects: one whose pod
	// selector holds all of the Service's (an events Service selects
	// app.kubernetes.io/name: events, which the events-controller
	// Deployment's pods carry beside their own name).
	selects := func(r core.ResourceAt) string {
		if len(r.Selector) == 0 {
			return ""
		}
		found := ""
		for _, w := range b.in.Resources {
			if !core.IsWorkload(w.Kind) || w.Repo != r.Repo || len(w.Selector) == 0 || w.Service == "" ||
				r.Namespace != "" && w.Namespace != "" && w.Namespace != r.Namespace {
				continue
			}
			all := true
			for k, v := range r.Selector {
				if w.Selector[k] != v {
					all = false
					break
				}
			}
			if all {
				if found != "" && found != canonical(w.Service) {
					return "" // it selects several workloads' pods
				}
				found = canonical(w.Service)
			}
		}
		return found
	}
	chartNodes := map[string]map[string]bool{} // repo/chart directory -> the services its own templates declare
	for _, r := range b.in.Resources {
		switch {
		case core.IsWorkload(r.Kind) || r.Kind == "Service":
			name := canonical(r.Service)
			if r.Kind == "Service" {
				if w := selects(r); w != "" {
					name = w
				}
			}
			if name == "" {
				continue
			}
			n := b.node(name, imageKind(r.Images))
			n.Namespace = first(n.Namespace, r.Namespace)
			n.Repo = first(n.Repo, r.Repo)
			n.Ports = appendUnique(n.Ports, r.Ports...)
			n.Declared = append(n.Declared, evidenceOf(r))
			if r.Service != name {
				b.addAlias(n, r.Service, "workload")
			}
			if r.Name != name {
				b.addAlias(n, r.Name, "workload")
			}
			if r.Kind == "Service" {
				b.dnsAliases(n, r.Name, r.Namespace)
			}
			if r.AppID != "" && r.AppID != name {
				b.addAlias(n, r.AppID, "dapr app id")
			}
			for _, img := range r.Images {
				if ib := core.ImageName(img); ib != name && len(imageUsers[ib]) == 1 {
					b.addAlias(n, ib, "image")
				}
			}
		case r.Kind == core.ResourceCompose && sidecars[sidecarKey(r)] != "":
			// Its app's node takes its names, below.
		case r.Kind == core.ResourceCompose:
			name := r.Name
			if r.Build != "" {
				if other, ok := buildOf[r.Repo+"/"+path.Clean(path.Join(path.Dir(r.File), r.Build))]; ok && other != name && strings.HasPrefix(name, other+"-") {
					name = other
				}
			}
			name = canonical(name)
			n := b.node(name, imageKind(r.Images))
			n.Repo = first(n.Repo, r.Repo)
			n.Declared = append(n.Declared, evidenceOf(r))
			b.addAlias(n, r.Name, "container")
			if cn := r.Labels["container_name"]; cn != "" {
				b.addAlias(n, cn, "container")
			}
			for _, img := range r.Images {
				if ib := core.ImageName(img); ib != name && len(imageUsers[ib]) == 1 {
					b.addAlias(n, ib, "image")
				}
			}
		case r.Kind == core.ResourceHelmTemplate && r.Labels["kind"] != "":
			// A workload or Service of an umbrella chart, named plainly.
			name := canonical(r.Service)
			if d, ok := chartDirOf(r.File); ok {
				if chartNodes[r.Repo+"/"+d] == nil {
					chartNodes[r.Repo+"/"+d] = map[string]bool{}
				}
				chartNodes[r.Repo+"/"+d][name] = true
			}
			n := b.node(name, imageKind(r.Images))
			n.Namespace = first(n.Namespace, r.Namespace)
			n.Repo = first(n.Repo, r.Repo)
			n.Declared = append(n.Declared, evidenceOf(r))
			if r.Name != name {
				b.addAlias(n, r.Name, "workload")
			}
			if r.Labels["kind"] == "Service" {
				b.dnsAliases(n, r.Name, r.Namespace)
			}
			// Its image's name, as a workload's: the folder it is built
			// from may be named so (billing-api runs .../billing/api).
			for _, img := range helmImages(r) {
				if ib := core.ImageName(img); ib != name && len(imageUsers[ib]) == 1 && !strings.ContainsAny(ib, "${}") {
					b.addAlias(n, ib, "image")
				}
			}
		case r.Kind == core.ResourceChart:
			if umbrella[r.Repo+"/"+path.Dir(r.File)] {
				continue // its templates declare the services
			}
			if d := r.Repo + "/" + path.Dir(r.File); chartTemplates[d] && !chartDeploys[d] {
				continue // roles, CRDs or configuration only
			}
			n := b.node(canonical(r.Name), KindService)
			n.Repo = first(n.Repo, r.Repo)
			n.Declared = append(n.Declared, evidenceOf(r))
		case r.Kind == core.ResourceAspire:
			kind := r.Labels["node"]
			if kind == "" {
				kind = KindService
			}
			n := b.node(r.Name, kind)
			n.Repo = first(n.Repo, r.Repo)
			n.Declared = append(n.Declared, evidenceOf(r))
		case r.Kind == "Ingress" || r.Kind == "HTTPRoute" || r.Kind == "GRPCRoute":
			n := b.node("ingress:"+r.Name, KindIngress)
			n.Repo = first(n.Repo, r.Repo)
			n.Namespace = first(n.Namespace, r.Namespace)
			n.Declared = append(n.Declared, evidenceOf(r))
		case r.Kind == "ConfigMap":
			if b.cms == nil {
				b.cms = map[string][]core.ResourceAt{}
			}
			b.cms[r.Name] = append(b.cms[r.Name], r)
			b.configMaps[r.Namespace+"/"+r.Name] = r.Data
			if _, ok := b.configMaps[r.Name]; !ok {
				b.configMaps[r.Name] = r.Data
			}
		}
	}
	// A Dapr sidecar is its app: its name and the app id it gives it
	// are the app's.
	for _, r := range b.in.Resources {
		if app := sidecars[sidecarKey(r)]; app != "" && r.Kind == core.ResourceCompose {
			if n := b.nodes[b.alias[strings.ToLower(app)]]; n != nil {
				b.addAlias(n, r.Name, "dapr sidecar")
				if r.AppID != "" && r.AppID != n.Name {
					b.addAlias(n, r.AppID, "dapr app id")
				}
			}
		}
	}
	// A chart whose own templates declare one service (an umbrella's
	// subchart per component: quota_engine deploys
	// quota-engine-server) is another name of it, as its values and
	// docs call it.
	for _, r := range b.in.Resources {
		if r.Kind != core.ResourceChart {
			continue
		}
		if names := chartNodes[r.Repo+"/"+path.Dir(r.File)]; len(names) == 1 {
			for name := range names {
				b.addAlias(b.nodes[name], r.Name, "chart")
			}
		}
	}
}

// sidecarKey identifies a compose service: its repository, file and
// name.
func sidecarKey(r core.ResourceAt) [3]string { return [3]string{r.Repo, r.File, r.Name} }

// daprSidecars maps the compose services that run Dapr's sidecar
// (daprd, or the daprio/daprd image) to their app, a service of the same
// file: the one whose network the sidecar joins (network_mode:
// "service:orders"), else the one its name is with -dapr or -sidecar
// after it (orders-dapr), else the one named by its app id, else the one
// service it depends on.
func daprSidecars(rs []core.ResourceAt) map[[3]string]string {
	isSidecar := func(r core.ResourceAt) bool {
		return slices.ContainsFunc(r.Programs, func(p string) bool { return path.Base(p) == "daprd" }) ||
			slices.ContainsFunc(r.Images, func(img string) bool { return core.ImageName(img) == "daprd" })
	}
	apps := map[[2]string]bool{} // repo/file, service: the compose services that are no sidecar
	for _, r := range rs {
		if r.Kind == core.ResourceCompose && !isSidecar(r) {
			apps[[2]string{r.Repo + "/" + r.File, r.Name}] = true
		}
	}
	out := map[[3]string]string{}
	for _, r := range rs {
		if r.Kind != core.ResourceCompose || !isSidecar(r) {
			continue
		}
		app := func(name string) bool { return name != "" && apps[[2]string{r.Repo + "/" + r.File, name}] }
		cands := []string{r.NetworkOf}
		for _, suffix := range []string{"-dapr", "_dapr", "-daprd", "-sidecar", "_sidecar"} {
			if base, ok := strings.CutSuffix(r.Name, suffix); ok {
				cands = append(cands, base)
			}
		}
		cands = append(cands, r.AppID)
		if len(r.DependsOn) == 1 {
			cands = append(cands, r.DependsOn[0])
		}
		for _, c := range cands {
			if app(c) {
				out[sidecarKey(r)] = c
				break
			}
		}
	}
	return out
}

// chartDirOf returns the directory of the Helm chart a file under its
// templates/ is in ("charts/cart" for charts/cart/templates/deploy.yaml).
func chartDirOf(file string) (string, bool) {
	if strings.HasPrefix(file, "templates/") {
		return ".", true
	}
	i := strings.LastIndex(file, "/templates/")
	if i < 0 {
		return "", false
	}
	return file[:i], true
}

// dnsAliases adds the names a Kubernetes Service is reached by.
func (b *builder) dnsAliases(n *Service, name, ns string) {
	b.addAlias(n, name, "dns")
	if ns == "" {
		ns = "default"
	}
	for _, a := range []string{name + "." + ns, name + "." + ns + ".svc", name + "." + ns + ".svc.cluster.local"} {
		b.addAlias(n, a, "dns")
	}
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func appendUnique(list []string, xs ...string) []string {
	for _, x := range xs {
		found := false
		for _, y := range list {
			if x == y {
				found = true
				break
			}
		}
		if !found && x != "" {
			list = append(list, x)
		}
	}
	return list
}

// PathMatters reports whether adding or removing the file at p (relative
// to its source) can change the graph by itself, whatever it holds: a
// manifest marks a service's code directory and code files decide a
// service's language. Other files count only through their facts.
func PathMatters(p string) bool {
	return isManifest(path.Base(p)) || codeLanguage(p) != ""
}

// manifests mark the root of a program's code.
func isManifest(name string) bool {
	switch name {
	case "go.mod", "package.json", "requirements.txt", "pyproject.toml", "setup.py", "pom.xml", "build.gradle",
		"build.gradle.kts", "Cargo.toml", "Gemfile", "Dockerfile", "Containerfile":
		return true
	}
	return strings.HasSuffix(name, ".csproj") || strings.HasSuffix(name, ".fsproj")
}

// locate returns the repository and path that p, a path relative to the
// root of repository repo, names: p itself while it stays inside repo,
// else the path in the repository crawled from the folder it reaches (a
// compose build context ../inventory of a deploy repository crawled beside the
// inventory repository), the deepest such. ok is false when it reaches no
// repository of the index.
func locate(roots map[string]string, repo, p string) (string, string, bool) {
	p = path.Clean(p)
	if p != ".." && !strings.HasPrefix(p, "../") {
		return repo, p, true
	}
	root := roots[repo]
	if root == "" {
		return "", "", false
	}
	abs := filepath.Join(root, filepath.FromSlash(p))
	best, bestRoot, bestRel := "", "", ""
	for _, name := range slices.Sorted(maps.Keys(roots)) {
		r := roots[name]
		rel, err := filepath.Rel(r, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if len(r) > len(bestRoot) {
			best, bestRoot, bestRel = name, r, filepath.ToSlash(rel)
		}
	}
	return best, bestRel, best != ""
}

// filePaths is every file of the index and every folder above one, by
// repository.
func (b *builder) filePaths() map[[2]string]bool {
	paths := map[[2]string]bool{}
	for _, f := range b.in.Files {
		for p := f[1]; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			k := [2]string{f[0], p}
			if paths[k] {
				break
			}
			paths[k] = true
		}
	}
	return paths
}

// codeDirs returns the folders, by repository, that hold code (not
// tests) at any depth.
func (b *builder) codeDirs() map[[2]string]bool {
	out := map[[2]string]bool{}
	for _, f := range b.in.Files {
		if codeLanguage(f[1]) == "" || core.IsTestPath(f[1]) {
			continue
		}
		for d := path.Dir(f[1]); d != "." && d != "/"; d = path.Dir(d) {
			k := [2]string{f[0], d}
			if out[k] {
				break
			}
			out[k] = true
		}
	}
	return out
}

// Why a service owns a file or folder. whyMounted: its compose service
// mounts it; whyBuilt: its compose service is built from it.
const (
	whyMounted = "compose volume"
	whyBuilt   = "compose build"
	// whyArtifact: a build tool builds the service's image from it;
	// whyAspireApp: an Aspire AppHost runs it; whyRepository: the
	// repository is the service's code.
	whyArtifact   = "build artifact"
	whyAspireApp  = "aspire app"
	whyRepository = "repository"
)

// ownership decides which service the code in each directory belongs to:
// compose build contexts, folders named after a service that hold a
// Dockerfile or a project manifest, Aspire projects, and repositories
// that hold exactly one service.
func (b *builder) ownership() {
	mountedDir := map[string]bool{} // service -> its Directory is a mount
	add := func(repo, dir, service, why string) {
		dir = folderKey(dir)
		if b.ownerAt == nil {
			b.ownerAt = map[[2]string]string{}
		}
		if _, ok := b.ownerAt[[2]string{repo, dir}]; ok {
			return
		}
		b.ownerAt[[2]string{repo, dir}] = service
		b.owners = append(b.owners, owner{repo, dir, service, why})
		if n := b.nodes[service]; n != nil {
			// A file or folder the service mounts (its nginx.conf, a
			// docs example's certificates) is where its code is only
			// until a folder of its code is found. A folder its deploy
			// file builds it from is its code in whichever repository
			// (../inventory, beside the deploy repository).
			built := why == whyBuilt || why == whyArtifact || why == whyAspireApp || why == whyRepository
			if n.Directory == "" && (n.Repo == repo || built) || n.Repo == "" || mountedDir[service] && (n.Repo == repo || built) && why != whyMounted {
				// "." is the whole repository: "" says no folder is known.
				n.Repo, n.Directory = repo, first(dir, ".")
				mountedDir[service] = why == whyMounted
			}
			// A package a program imports is named for what it does
			// (net, handler), not after the service; a folder it mounts
			// for what it holds (certs, conf).
			if dir != "" && why != whyImported && why != whyCommandImported && why != whyMounted {
				b.addAlias(n, path.Base(dir), "directory")
			}
		}
	}
	// Compose builds: the folder of the Dockerfile a service builds with
	// (context ./ with dockerfile src/cart/Dockerfile is src/cart), or its
	// context, also where the Dockerfile's folder holds no code (a
	// .docker/ or docker/ folder of Dockerfiles). Where the index holds no
	// such folder (a nested module a snapshot leaves out), the code is
	// unknown: the context is only what the Dockerfile copies from. A
	// folder several services build from belongs to none, but to the one
	// web application among job workers built from it.
	builds := map[[2]string][]string{}
	jobRoles := map[string]bool{} // services that run a job worker, scheduler or dashboard, or migrate
	var codeDirs, paths map[[2]string]bool
	for _, r := range b.in.Resources {
		if r.Kind == core.ResourceCompose && r.Build != "" && !strings.Contains(r.Build, "://") {
			dir := path.Join(path.Dir(r.File), r.Build)
			if r.Dockerfile != "" && !strings.HasPrefix(r.Dockerfile, "-") {
				if codeDirs == nil {
					codeDirs, paths = b.codeDirs(), b.filePaths()
				}
				df := path.Dir(path.Join(dir, r.Dockerfile))
				if codeDirs[[2]string{r.Repo, df}] {
					dir = df
				} else if df != dir && !paths[[2]string{r.Repo, df}] {
					if _, _, ok := locate(b.in.Roots, r.Repo, df); ok {
						continue
					}
				}
			}
			repo, dir, ok := locate(b.in.Roots, r.Repo, dir)
			if !ok {
				continue // outside every repository of the index
			}
			k := [2]string{repo, dir}
			name := first(b.alias[strings.ToLower(r.Name)], r.Name)
			builds[k] = appendUnique(builds[k], name)
			if b.composeRole(r) != "" || r.Migrates {
				jobRoles[name] = true
			}
		}
	}
	b.sharedBuilds = map[[2]string][]string{}
	for _, k := range sortedPairs(builds) {
		names := builds[k]
		if len(names) == 1 {
			add(k[0], k[1], names[0], whyBuilt)
			continue
		}
		b.sharedBuilds[[2]string{k[0], folderKey(k[1])}] = names
		// A web application built with its job workers (celery,
		// sidekiq), scheduler and migration from one folder: the one
		// service of them that runs no job role and does not migrate owns
		// it.
		var app []string
		for _, n := range names {
			if !jobRoles[n] {
				app = append(app, n)
			}
		}
		if len(app) == 1 {
			add(k[0], k[1], app[0], whyBuilt)
		}
	}
	// Build tools: a Skaffold artifact, a Tilt docker_build or a CI
	// workflow's image build names the image of a service and the folder
	// it is built from. The root of a repository is the service's when
	// the build file is elsewhere (a deploy repository's skaffold.yaml
	// building ../inventory), or when the repository declares no service of
	// its own and builds only that service's image from its root (a
	// service's own repository, deployed from another one); a
	// repository's root several images are built from is none of theirs.
	// The services each repository declares (no rule below adds one
	// before the repositories that declare none are made services).
	declared := map[string][]string{}
	for _, name := range b.sortedNodes() {
		n := b.nodes[name]
		if n.Kind != KindService {
			continue
		}
		for _, ev := range n.Declared {
			declared[ev.Repo] = appendUnique(declared[ev.Repo], name)
		}
	}
	rootBuilds := map[string][]string{}
	for _, r := range b.in.Resources {
		if r.Kind != core.ResourceBuild {
			continue
		}
		for _, img := range slices.Sorted(maps.Keys(r.Data)) {
			repo, dir, ok := locate(b.in.Roots, r.Repo, path.Join(path.Dir(r.File), r.Data[img]))
			s := b.alias[strings.ToLower(core.ImageName(img))]
			switch {
			case s == "" || !ok || b.nodes[s].Kind != KindService:
			case dir != ".":
				add(repo, dir, s, whyArtifact)
			case repo != r.Repo || len(declared[repo]) == 0:
				rootBuilds[repo] = appendUnique(rootBuilds[repo], s)
			}
		}
	}
	for _, repo := range slices.Sorted(maps.Keys(rootBuilds)) {
		if names := rootBuilds[repo]; len(names) == 1 {
			add(repo, "", names[0], whyArtifact)
		}
	}
	// ko builds a Go program from its import path: a workload whose image
	// is ko://example.com/shop/cmd/cart runs the main package in its
	// repository's folder the import path ends in (cmd/cart), the longest
	// such folder that holds Go files.
	goDirs := map[[2]string]bool{}
	for _, f := range b.in.Files {
		if strings.HasSuffix(f[1], ".go") {
			goDirs[[2]string{f[0], path.Dir(f[1])}] = true
		}
	}
	var programs []goProgram
	for _, r := range b.in.Resources {
		s := b.alias[strings.ToLower(r.Name)]
		if s == "" || b.nodes[s].Kind != KindService {
			continue
		}
		for _, img := range r.Images {
			imp, ok := strings.CutPrefix(img, "ko://")
			if !ok {
				continue
			}
			els := strings.Split(strings.SplitN(imp, "@", 2)[0], "/")
			for i := 1; i < len(els); i++ {
				if dir := strings.Join(els[i:], "/"); goDirs[[2]string{r.Repo, dir}] {
					add(r.Repo, dir, s, "ko image")
					programs = append(programs, goProgram{r.Repo, dir, strings.Join(els[:i], "/"), s, whyImported})
					break
				}
			}
		}
	}
	// A workload whose container runs /usr/local/bin/cart (its command,
	// or the args a wrapper entrypoint runs) runs the Go program in the
	// folder of its repository named cart that no package imports: the
	// main package cmd/cart, not the library pkg/cart. One image often
	// holds several programs, each deployed as its own service.
	modules, imported := b.goModules(goDirs)
	programs = append(programs, b.commandPrograms(goDirs, modules, imported, func(repo, dir, service string) {
		add(repo, dir, service, "container command")
	})...)
	// The packages of the repository a program imports, directly or
	// through others, and no other program does, are its code too
	// (pkg/activator/net of cmd/activator); those several import are
	// shared, and nobody's.
	// A package whose sub-packages are shared (pkg/operator holding the
	// client other programs import) owns its own files, not the folder.
	pkgs, shared := b.programPackages(programs, goDirs, imported)
	var filesIn map[[2]string][]string // a folder's files, made when a package needs them
	for _, k := range pkgs {
		if !slices.ContainsFunc(shared, func(d [2]string) bool { return d[0] == k.repo && strings.HasPrefix(d[1], k.dir+"/") }) {
			add(k.repo, k.dir, k.service, k.why)
			continue
		}
		if filesIn == nil {
			filesIn = map[[2]string][]string{}
			for _, f := range b.in.Files {
				d := [2]string{f[0], path.Dir(f[1])}
				filesIn[d] = append(filesIn[d], f[1])
			}
		}
		for _, f := range filesIn[[2]string{k.repo, k.dir}] {
			add(k.repo, f, k.service, k.why)
		}
	}
	// Files a compose service mounts (an nginx.conf) are its own; what
	// several services mount (a shared config folder, the whole project
	// for live reload) is none of theirs.
	b.mounts = b.composeMounts()
	mounters := map[[2]string][]string{}
	for _, m := range b.mounts {
		k := [2]string{m.repo, m.path}
		mounters[k] = appendUnique(mounters[k], m.service)
	}
	for _, m := range b.mounts {
		if names := mounters[[2]string{m.repo, m.path}]; len(names) == 1 {
			add(m.repo, m.path, m.service, whyMounted)
		} else {
			// The project mounted into a web server and its worker for
			// live reload: code they both run (codeRunners).
			k := [2]string{m.repo, folderKey(m.path)}
			for _, s := range names {
				b.sharedBuilds[k] = appendUnique(b.sharedBuilds[k], s)
			}
		}
	}
	// Aspire projects: AddProject<Projects.Cart_Api>("cart") runs Cart.Api.csproj;
	// AddNpmApp("web", "../Web") and its kind run the folder they name.
	projects := map[string]string{} // project name -> service
	for _, r := range b.in.Resources {
		if r.Kind == core.ResourceAspire && r.Labels["project"] != "" {
			projects[strings.ToLower(r.Labels["project"])] = r.Name
		}
		if r.Kind == core.ResourceAspire && r.Labels["dir"] != "" {
			if repo, dir, ok := locate(b.in.Roots, r.Repo, path.Join(path.Dir(r.File), r.Labels["dir"])); ok && (dir != "." || repo != r.Repo) {
				add(repo, dir, r.Name, whyAspireApp)
			}
		}
	}
	manifestDirs := map[[2]string]bool{}
	for _, f := range b.in.Files {
		base := path.Base(f[1])
		if !isManifest(base) {
			continue
		}
		dir := path.Dir(f[1])
		manifestDirs[[2]string{f[0], dir}] = true
		if strings.HasSuffix(base, ".csproj") {
			if s, ok := projects[strings.ToLower(strings.TrimSuffix(base, ".csproj"))]; ok {
				add(f[0], dir, s, "aspire project")
			}
		}
	}
	// Folders named after a service (or an alias) that hold a manifest.
	dirs := make([][2]string, 0, len(manifestDirs))
	for d := range manifestDirs {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i][0]+"/"+dirs[i][1] < dirs[j][0]+"/"+dirs[j][1] })
	for _, d := range dirs {
		if d[1] == "." {
			continue
		}
		// A test's image of the service (test/conformance/cart) is not
		// its code.
		if s, ok := b.alias[strings.ToLower(path.Base(d[1]))]; ok && b.nodes[s].Kind == KindService && !core.IsTestPath(d[1]+"/") && !b.runsRepoImage(s, d[0]) {
			add(d[0], d[1], s, "folder")
		}
	}
	// A repository named after a service, or holding the only service
	// declared in it (declared, above), is that service's code.
	repos := map[string]bool{}
	for _, f := range b.in.Files {
		repos[f[0]] = true
	}
	b.declaring = map[string]bool{}
	for repo, names := range declared {
		b.declaring[repo] = len(names) > 0
	}
	// A repository that declares no service but builds an image from
	// its root (a Dockerfile there) is one, named after it: it stands for
	// its code, as a repository whose code calls out does (call), and is
	// a node though it calls nothing, for its callers to reach.
	for _, r := range b.in.Resources {
		if _, owned := b.ownerAt[[2]string{r.Repo, ""}]; owned {
			continue // built by a service another repository declares
		}
		if s, ok := b.alias[strings.ToLower(r.Repo)]; ok && s != r.Repo && b.nodes[s].Kind == KindService {
			continue // named after a service's image or host: its code (below)
		}
		if r.Kind == core.ResourceDockerfile && path.Dir(r.File) == "." && !b.declaring[r.Repo] {
			if n, ok := b.nodes[r.Repo]; !ok || n.Kind == KindService {
				n := b.node(r.Repo, KindService)
				n.Repo = first(n.Repo, r.Repo)
				n.Declared = append(n.Declared, evidenceOf(r))
			}
		}
	}
	for repo := range repos {
		if s, ok := b.alias[strings.ToLower(repo)]; ok && b.nodes[s].Kind == KindService {
			add(repo, "", s, whyRepository)
		} else if len(declared[repo]) == 1 && !b.exampleDeployed(declared[repo][0]) && !b.infraImageOnly(declared[repo][0]) {
			add(repo, "", declared[repo][0], whyRepository)
		}
	}
	b.standForCode(repos, add)
	// Deepest directory first.
	sort.SliceStable(b.owners, func(i, j int) bool {
		if b.owners[i].repo != b.owners[j].repo {
			return b.owners[i].repo < b.owners[j].repo
		}
		return len(b.owners[i].dir) > len(b.owners[j].dir)
	})
	// A service's language is the language most of its code is in.
	count := map[string]map[string]int{}
	for _, f := range b.in.Files {
		lang := codeLanguage(f[1])
		if lang == "" || core.IsTestPath(f[1]) {
			continue
		}
		if s := b.ownerOf(f[0], f[1]); s != "" {
			if count[s] == nil {
				count[s] = map[string]int{}
			}
			count[s][lang]++
		}
	}
	for s, langs := range count {
		best := mostCommon(langs)
		if n := b.nodes[s]; n != nil && n.Kind == KindService {
			n.Language = best
		}
	}
}

// exampleDeployed reports whether every deploy file that declares
// service s is an example's (examples/operator/operator.yaml): an example
// deploys something, often another project's image, and says nothing of
// which service the repository's code is.
func (b *builder) exampleDeployed(s string) bool {
	n := b.nodes[s]
	if n == nil || len(n.Declared) == 0 {
		return false
	}
	for _, ev := range n.Declared {
		if !core.IsExamplePath(ev.File) {
			return false
		}
	}
	return true
}

// infraImageOnly reports whether every deploy file that declares service
// s runs a well-known infrastructure product's image (a database, cache
// or broker by imageKind, a telemetry backend, a search engine, object
// store, proxy or mail catcher) and builds nothing: a repository's
// development compose file that runs one such image alone runs what its
// code uses, not its code.
func (b *builder) infraImageOnly(s string) bool {
	return b.onlyImages(s, func(img string) bool {
		base := strings.ToLower(core.ImageName(img))
		return imageKind([]string{img}) != KindService || isTelemetry(base) || infraProducts[base]
	})
}

// runsRepoImage reports whether service s, named otherwise than
// repository repo, runs only the image named after it (chrislusf/seaweedfs
// in seaweedfs, each service one of its binary's commands) and builds
// none: its code is the repository's program, found by its command, not a
// folder named like the service (a crate called server in a sub-project).
// A service named after the repository is that program (cmd/cortex).
func (b *builder) runsRepoImage(s, repo string) bool {
	return !strings.EqualFold(s, repo) && b.onlyImages(s, func(img string) bool { return strings.EqualFold(core.ImageName(img), repo) })
}

// onlyImages reports whether service s is declared by some deploy file,
// and every one that declares it builds nothing and runs only images ok
// accepts.
func (b *builder) onlyImages(s string, ok func(img string) bool) bool {
	found := false
	for _, r := range b.in.Resources {
		if !declaresNode(r) || b.alias[strings.ToLower(r.Service)] != s {
			continue
		}
		if r.Build != "" || len(r.Images) == 0 {
			return false
		}
		for _, img := range r.Images {
			if !ok(img) {
				return false
			}
		}
		found = true
	}
	return found
}

// infraProducts are images of infrastructure a repository's code uses
// (by their name without registry, namespace or tag), beside the
// databases, caches, brokers and telemetry backends named elsewhere.
var infraProducts = map[string]bool{"elasticsearch": true, "opensearch": true, "kibana": true, "minio": true, "nginx": true,
	"traefik": true, "haproxy": true, "envoy": true, "consul": true, "vault": true, "etcd": true, "zookeeper": true,
	"keycloak": true, "localstack": true, "mailhog": true, "mailpit": true, "wiremock": true, "azurite": true}

// standForCode makes a service of each repository that stands for its
// code: one that declares no service, or whose deploy files declare only
// what its code uses (a development compose file of databases and
// dashboards) so that no service owns any of its code. It is a service
// named after the repository, that owns all of it, when its code serves
// routes or calls out (a library of functions is none).
func (b *builder) standForCode(repos map[string]bool, add func(repo, dir, service, why string)) {
	owned, code := map[string]bool{}, map[string]bool{} // repositories with code some service owns, and with code
	for _, f := range b.in.Files {
		if codeLanguage(f[1]) == "" || core.IsTestPath(f[1]) {
			continue
		}
		code[f[0]] = true
		if b.ownerOf(f[0], f[1]) != "" {
			owned[f[0]] = true
		}
	}
	active := map[string]bool{}
	for _, r := range b.in.Routes {
		if !core.IsTestPath(r.File) && !b.exampleCode(r.Repo, r.File) {
			active[r.Repo] = true
		}
	}
	// Background jobs, and the calls of their bodies, in a folder
	// several services are built from are theirs (codeRunners), not a
	// reason for the repository to stand for its code.
	taskChunks := map[string]bool{}
	for _, c := range b.in.Calls {
		if _, ok := taskSystems[c.System]; ok && c.Kind == core.CallSubscribe {
			taskChunks[c.ChunkID] = true
		}
	}
	for _, c := range b.in.Calls {
		_, task := taskSystems[c.System]
		if c.Kind != core.CallClient && !core.IsTestPath(c.File) && !b.exampleCode(c.Repo, c.File) &&
			(!task && !taskChunks[c.ChunkID] || !b.sharedBuilt(c.Repo, c.File)) {
			active[c.Repo] = true
		}
	}
	for _, repo := range slices.Sorted(maps.Keys(repos)) {
		if owned[repo] || !code[repo] || !active[repo] {
			continue
		}
		if n, ok := b.nodes[repo]; ok && n.Kind != KindService {
			continue
		}
		b.declaring[repo] = false
		n := b.node(repo, KindService)
		n.Repo = first(n.Repo, repo)
		add(repo, "", repo, whyRepository) // its language follows from the code it owns
	}
}

// sharedBuilt reports whether file is in a folder several compose
// services are built from or mount: theirs, though none of them owns it.
func (b *builder) sharedBuilt(repo, file string) bool {
	return slices.ContainsFunc(folders(file), func(d string) bool {
		_, ok := b.sharedBuilds[[2]string{repo, d}]
		return ok
	})
}

// mostCommon returns the key of m with the largest count, ties by the
// smaller key: the language most files are in, the module most imports
// are under.
func mostCommon(m map[string]int) string {
	best := ""
	for k, n := range m {
		if best == "" || n > m[best] || n == m[best] && k < best {
			best = k
		}
	}
	return best
}

// sortedPairs returns the repository-and-path keys of m, sorted.
func sortedPairs[V any](m map[[2]string]V) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"/"+keys[i][1] < keys[j][0]+"/"+keys[j][1] })
	return keys
}

// codeLanguage is the programming language of a source file by extension.
func codeLanguage(p string) string {
	switch path.Ext(p) {
	case ".go":
		return "go"
	case ".py":
		return "python"
	case ".cs":
		return "csharp"
	case ".ts", ".tsx", ".mts", ".cts":
		return "typescript"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "javascript"
	case ".java":
		return "java"
	case ".kt":
		return "kotlin"
	case ".rb":
		return "ruby"
	case ".rs":
		return "rust"
	case ".php":
		return "php"
	}
	return ""
}

func (b *builder) sortedNodes() []string {
	names := make([]string, 0, len(b.nodes))
	for n := range b.nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// whyImported and whyCommandImported say a folder is a service's
// because its program, and no other, imports the package in it.
const (
	whyImported        = "imported by its ko program only"
	whyCommandImported = "imported by its program only"
)

// goProgram is a Go program a service runs: its folder in repo, the
// import path of the module that holds it, and why its imports are the
// service's.
type goProgram struct {
	repo, dir, module, service string
	why                        string
}

// commandPrograms finds the Go program each workload's Programs name in
// the workload's repository (see ownership), calls add for its folder
// and returns the programs found. modules and imported are goModules'.
func (b *builder) commandPrograms(goDirs map[[2]string]bool, modules map[string]string, imported map[[2]string]bool, add func(repo, dir, service string)) []goProgram {
	var withPrograms, builds []core.ResourceAt
	for _, r := range b.in.Resources {
		if len(r.Programs) > 0 {
			withPrograms = append(withPrograms, r)
		}
		if r.Kind == core.ResourceGoBuild {
			builds = append(builds, r)
		}
	}
	if len(withPrograms) == 0 {
		return nil
	}
	// Folders by name: those holding Go code, at or above a package.
	byName := map[[2]string][]string{} // repo, base name -> folders
	seen := map[[2]string]bool{}
	for _, d := range sortedPairs(goDirs) {
		for dir := d[1]; dir != "." && dir != "/" && !seen[[2]string{d[0], dir}]; dir = path.Dir(dir) {
			seen[[2]string{d[0], dir}] = true
			if core.IsTestPath(dir+"/x.go") || core.InExampleDir(dir) || strings.Contains("/"+dir+"/", "/vendor/") {
				continue
			}
			k := [2]string{d[0], path.Base(dir)}
			byName[k] = append(byName[k], dir)
		}
	}
	folderOK := map[[2]string]bool{} // programFolder's answers: many workloads name one program
	isProgramFolder := func(repo, dir string) bool {
		k := [2]string{repo, dir}
		ok, seen := folderOK[k]
		if !seen {
			ok = b.programFolder(repo, dir, imported, modules[repo])
			folderOK[k] = ok
		}
		return ok
	}
	var out []goProgram
	for _, r := range withPrograms {
		s := b.alias[strings.ToLower(r.Name)]
		if s == "" || b.nodes[s].Kind != KindService {
			continue
		}
		// candidates returns the main packages (packages no other
		// imports) and the folders of packages named name whose packages
		// only main packages import (cmd/cart/commands, imported by a
		// multi-call cmd/main.go; not apis/cart/v1, whose types the
		// repository's libraries import).
		candidates := func(name string) (mains, folders []string) {
			for _, dir := range byName[[2]string{r.Repo, name}] {
				switch k := [2]string{r.Repo, dir}; {
				case imported[k]:
				case goDirs[k]:
					mains = append(mains, dir)
				case isProgramFolder(r.Repo, dir):
					folders = append(folders, dir)
				}
			}
			return mains, folders
		}
		for _, p := range r.Programs {
			// What a build script says it builds under that name (go
			// build -o bin/keda ./cmd/operator), then a main package
			// before a folder of packages (cmd/cart holding
			// cmd/cart/commands).
			name := path.Base(p)
			s := s
			if other := b.alias[strings.ToLower(name)]; other != "" && other != s && b.nodes[other].Kind == KindService {
				// A program named after another service is that
				// service's, run here for one of its commands (a
				// certgen Job running "gateway certgen").
				s = other
			}
			if dir := builtAs(builds, r.Repo, name, goDirs, modules[r.Repo]); dir != "" {
				add(r.Repo, dir, s)
				out = append(out, goProgram{r.Repo, dir, modules[r.Repo], s, whyCommandImported})
				break
			}
			mains, folders := candidates(name)
			found := mains
			if len(found) == 0 {
				found = folders
			}
			// A binary named with the project's prefix
			// (shop-admission-webhooks) built from the main package
			// named by the rest (cmd/webhooks), the longest rest that is
			// one.
			for i := strings.IndexByte(name, '-'); len(found) == 0 && i > 0 && i < len(name)-1; i = nextByte(name, i, '-') {
				if m, _ := candidates(name[i+1:]); len(m) == 1 {
					found = m
				}
			}
			if len(found) != 1 {
				continue
			}
			add(r.Repo, found[0], s)
			out = append(out, goProgram{r.Repo, found[0], modules[r.Repo], s, whyCommandImported})
			break
		}
	}
	return out
}

// goModules returns the module each repository's Go files import its
// packages under (the most common prefix of an import path that ends in
// a folder of it) and the packages imported under it.
func (b *builder) goModules(goDirs map[[2]string]bool) (modules map[string]string, imported map[[2]string]bool) {
	keys := sortedPairs(b.in.GoImports)
	prefixes := map[string]map[string]int{}
	for _, k := range keys {
		for _, imp := range b.in.GoImports[k] {
			for i := strings.IndexByte(imp, '/'); i > 0; i = nextByte(imp, i, '/') {
				if goDirs[[2]string{k[0], imp[i+1:]}] {
					if prefixes[k[0]] == nil {
						prefixes[k[0]] = map[string]int{}
					}
					prefixes[k[0]][imp[:i]]++
					break
				}
			}
		}
	}
	modules = map[string]string{}
	imported = map[[2]string]bool{}
	for _, k := range keys {
		if _, ok := modules[k[0]]; !ok {
			modules[k[0]] = mostCommon(prefixes[k[0]])
		}
		for _, imp := range b.in.GoImports[k] {
			if rel, ok := strings.CutPrefix(imp, modules[k[0]]+"/"); ok && modules[k[0]] != "" {
				imported[[2]string{k[0], rel}] = true
			}
		}
	}
	return modules, imported
}

// builtAs returns the folder of the Go package the build scripts of repo
// build as name (ResourceGoBuild), or "" when none does or they disagree.
// A package is written relative to its script's folder or to the
// repository, as a file of the package or as an import path.
func builtAs(builds []core.ResourceAt, repo, name string, goDirs map[[2]string]bool, module string) string {
	found := ""
	for _, r := range builds {
		pkg, ok := r.Data[name]
		if r.Repo != repo || !ok {
			continue
		}
		if rel, ok := strings.CutPrefix(pkg, module+"/"); ok && module != "" {
			pkg = rel
		}
		if strings.HasSuffix(pkg, ".go") {
			pkg = path.Dir(pkg)
		}
		dir := ""
		for _, d := range []string{path.Join(path.Dir(r.File), pkg), path.Clean(pkg)} {
			if goDirs[[2]string{repo, d}] {
				dir = d
				break
			}
		}
		if dir == "" || dir == "." {
			continue
		}
		if found != "" && found != dir {
			return ""
		}
		found = dir
	}
	return found
}

// programFolder reports whether the packages in folder dir of repo
// (which holds none itself) are imported only from inside it or by main
// packages (those no package imports), and some of them are imported: a
// folder of main packages alone (tools/s3/presign) holds programs of
// other names, not the one named like the folder.
func (b *builder) programFolder(repo, dir string, imported map[[2]string]bool, module string) bool {
	if module == "" {
		return false
	}
	used := false
	for k := range imported {
		if k[0] == repo && strings.HasPrefix(k[1], dir+"/") {
			used = true
			break
		}
	}
	if !used {
		return false
	}
	for k, imps := range b.in.GoImports {
		from := path.Dir(k[1])
		if k[0] != repo || from == dir || strings.HasPrefix(from, dir+"/") || !imported[[2]string{repo, from}] {
			continue
		}
		for _, imp := range imps {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok && strings.HasPrefix(rel, dir+"/") {
				return false // a library imports it
			}
		}
	}
	return true
}

// nextByte returns the index of the first c in s after i, or -1.
func nextByte(s string, i int, c byte) int {
	j := strings.IndexByte(s[i+1:], c)
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// programPackages returns, sorted by folder, the packages of each
// program's repository that the program imports (directly or through
// other packages of it) and no other program does, as owners, and the
// packages several import. A program's own folder and the packages below
// it start the walk. The repository's other packages that no package
// imports (imported, from goModules) count as programs of no service.
func (b *builder) programPackages(programs []goProgram, goDirs, imported map[[2]string]bool) (owned []owner, shared [][2]string) {
	if len(programs) == 0 || len(b.in.GoImports) == 0 {
		return nil, nil
	}
	imports := map[[2]string][]string{} // a package's folder -> its imports
	for k, paths := range b.in.GoImports {
		d := [2]string{k[0], path.Dir(k[1])}
		imports[d] = append(imports[d], paths...)
	}
	// The other packages no package imports (main packages no workload
	// names: a sidecar injected at run time, a command-line tool) share
	// what they import with the programs: it is not only theirs. Tests
	// and examples do not count.
	modules := map[string]string{}
	for _, p := range programs {
		modules[p.repo] = first(modules[p.repo], p.module)
	}
	inProgram := func(repo, dir string) bool {
		return slices.ContainsFunc(programs, func(p goProgram) bool {
			return p.repo == repo && (p.dir == dir || strings.HasPrefix(dir, p.dir+"/"))
		})
	}
	dirs := sortedPairs(goDirs)
	var others []goProgram
	for _, d := range dirs {
		if modules[d[0]] != "" && !imported[d] && !core.IsTestPath(d[1]+"/x.go") && !core.InExampleDir(d[1]) && !inProgram(d[0], d[1]) {
			others = append(others, goProgram{repo: d[0], dir: d[1], module: modules[d[0]]})
		}
	}
	why := map[[2]string]string{}
	reached := map[[2]string][]string{} // a package's folder -> the services importing it
	byOthers := map[[2]string]bool{}
	for _, p := range append(slices.Clip(programs), others...) {
		if p.module == "" {
			continue
		}
		seen := map[string]bool{p.dir: true}
		queue := []string{p.dir}
		if p.service != "" {
			for _, d := range dirs {
				if d[0] == p.repo && strings.HasPrefix(d[1], p.dir+"/") {
					seen[d[1]] = true
					queue = append(queue, d[1])
				}
			}
		}
		for len(queue) > 0 {
			d := queue[0]
			queue = queue[1:]
			for _, imp := range imports[[2]string{p.repo, d}] {
				rel, ok := strings.CutPrefix(imp, p.module+"/")
				if !ok || seen[rel] || !goDirs[[2]string{p.repo, rel}] {
					continue
				}
				seen[rel] = true
				// A multi-call main (cmd/main.go switching on its name
				// to cmd/gateway/commands) reaches a program's packages
				// through the program, which holds them.
				if p.service == "" && inProgram(p.repo, rel) {
					continue
				}
				queue = append(queue, rel)
				k := [2]string{p.repo, rel}
				if p.service == "" {
					byOthers[k] = true
					continue
				}
				reached[k] = appendUnique(reached[k], p.service)
				if why[k] == "" {
					why[k] = p.why
				}
			}
		}
	}
	for _, k := range sortedPairs(reached) {
		if names := reached[k]; len(names) == 1 && !byOthers[k] {
			owned = append(owned, owner{k[0], k[1], names[0], why[k]})
		} else {
			shared = append(shared, k)
		}
	}
	for _, k := range sortedPairs(byOthers) {
		if len(reached[k]) == 0 {
			shared = append(shared, k)
		}
	}
	return owned, shared
}

// ownerOf returns the service whose code file is, or "": the owner of
// the deepest directory holding it (or of the file itself).
func (b *builder) ownerOf(repo, file string) string {
	s, _ := b.owner(repo, file)
	return s
}

// owner is ownerOf with the directory the service owns file from.
func (b *builder) owner(repo, file string) (service, dir string) {
	for d := file; ; {
		if s, ok := b.ownerAt[[2]string{repo, d}]; ok {
			return s, d
		}
		if d == "" {
			return "", ""
		}
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			d = ""
		} else {
			d = d[:i]
		}
	}
}

// exampleCode reports whether file is example or tutorial code of a
// service that lives outside the examples (a library's examples/, a
// service's samples/): its calls, queues and routes are not the
// service's. A service deployed from inside an examples directory (a
// demo application under samples/) keeps its own.
func (b *builder) exampleCode(repo, file string) bool {
	if !core.IsExamplePath(file) {
		return false
	}
	_, dir := b.owner(repo, file)
	return !core.InExampleDir(dir)
}

// environments collects, per service, the environment variables its
// deploy files set and the settings files in its code.
func (b *builder) environments() {
	// The values collectValues found, one source per place they are
	// written: a workload's own env list, each ConfigMap variant it loads
	// (not one that replaces it), Helm, compose, an Aspire AppHost's
	// WithEnvironment, the Dockerfile.
	for _, name := range b.sortedNodes() {
		bySrc := map[string]*envSource{}
		var order []string
		for _, v := range b.vals[name] {
			if v.tier == tierCode {
				continue // a call's own default is in the call
			}
			src := bySrc[v.via]
			if src == nil {
				conf := 0.95
				switch {
				case strings.HasPrefix(v.via, "compose"), strings.HasPrefix(v.via, "Aspire"):
					conf = 0.9
				case v.tier == tierImage:
					conf = 0.85
				case !strings.HasPrefix(v.via, "ConfigMap") && !strings.HasPrefix(v.via, "Helm") && !core.IsWorkload(strings.SplitN(v.via, " ", 2)[0]):
					continue // settings files: b.config
				}
				src = &envSource{vars: map[string]string{}, via: v.via, conf: conf}
				bySrc[v.via] = src
				order = append(order, v.via)
			}
			if _, ok := src.vars[v.name]; !ok {
				src.vars[v.name] = v.value
			}
		}
		for _, via := range order {
			b.env[name] = append(b.env[name], *bySrc[via])
		}
	}
	// Variables set from a Secret: set, but not readable here.
	for _, r := range b.in.Resources {
		if !core.IsWorkload(r.Kind) {
			continue
		}
		name := b.alias[strings.ToLower(r.Service)]
		if name == "" {
			continue
		}
		src := envSource{vars: map[string]string{}, unknown: map[string]string{}, via: r.Kind + " " + r.Name, conf: 0.95}
		for _, e := range r.Env {
			if e.Secret != "" {
				src.unknown[e.Name] = "Secret " + e.Secret
			}
		}
		if len(src.unknown) > 0 {
			b.env[name] = append(b.env[name], src)
		}
	}
	for _, r := range b.in.Resources {
		if r.Kind != core.ResourceSettings {
			continue
		}
		name := b.ownerOf(r.Repo, r.File)
		if name == "" {
			continue
		}
		src := envSource{vars: r.Data, via: path.Base(r.File), conf: 0.85}
		b.config[name] = append(b.config[name], src)
	}
	// An environment variable whose value names a service is another name
	// of that service (CART_SERVICE_ADDR for cart), unless its values name
	// several.
	targets := map[string][]string{}
	for _, name := range b.sortedNodes() {
		for _, src := range b.env[name] {
			for k, v := range src.vars {
				if a, ok := addressOf(k, v); ok {
					if t, ok := b.alias[a.host]; ok && b.nodes[t].Kind != KindExternal {
						targets[k] = appendUnique(targets[k], t)
					}
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(targets)) {
		if len(targets[k]) == 1 {
			b.addAlias(b.nodes[targets[k][0]], k, "env")
		}
	}
	// Kubernetes before Helm before compose: sort the sources of each
	// service by confidence, keeping file order among equals.
	for _, m := range []map[string][]envSource{b.env, b.config} {
		for k := range m {
			sort.SliceStable(m[k], func(i, j int) bool { return m[k][i].conf > m[k][j].conf })
		}
	}
}

func (b *builder) configMap(ns, name string) map[string]string {
	if d, ok := b.configMaps[ns+"/"+name]; ok {
		return d
	}
	return b.configMaps[name]
}

// helmActionRE finds a template action: {{ .Values.a.b | quote }},
// {{- default "x" .Values.a -}}.
var helmActionRE = lazyre.New(`\{\{-?\s*(.*?)\s*-?\}\}`)

// helmValue renders a template value with the chart's values: every
// action must be a value (.Values.a.b), optionally through quote,
// squote, toString, trim, lower, upper or default "x" (as a pipe or a
// call); "" and false when an action is anything else or a value is
// missing.
func helmValue(v string, values map[string]string) (string, bool) {
	ok := true
	out := helmActionRE.ReplaceAllStringFunc(v, func(a string) string {
		expr := helmActionRE.FindStringSubmatch(a)[1]
		val, found := helmExpr(expr, values)
		if !found {
			ok = false
		}
		return val
	})
	if !ok || strings.Contains(out, "{{") {
		return "", false
	}
	return strings.Trim(out, `"'`), true
}

// helmExpr evaluates one action's pipeline.
func helmExpr(expr string, values map[string]string) (string, bool) {
	stages := strings.Split(expr, "|")
	val, have := "", false
	for i, st := range stages {
		f := strings.Fields(strings.TrimSpace(st))
		if len(f) == 0 {
			return "", false
		}
		switch {
		case i == 0 && strings.HasPrefix(f[0], ".Values.") && len(f) == 1:
			val, have = values[strings.TrimPrefix(f[0], ".Values.")]
		case f[0] == "default" && (len(f) == 2 && i > 0 || len(f) == 3 && i == 0):
			def := strings.Trim(f[1], `"'`)
			if i == 0 {
				if strings.HasPrefix(f[2], ".Values.") {
					val, have = values[strings.TrimPrefix(f[2], ".Values.")]
				}
			}
			if !have || val == "" {
				val, have = def, true
			}
		case i > 0 && len(f) == 1 && (f[0] == "quote" || f[0] == "squote" || f[0] == "toString" || f[0] == "trim"):
		case i > 0 && len(f) == 1 && f[0] == "lower":
			val = strings.ToLower(val)
		case i > 0 && len(f) == 1 && f[0] == "upper":
			val = strings.ToUpper(val)
		default:
			return "", false
		}
	}
	return val, have
}

// mount is a file or folder of a repository a compose service mounts;
// reads, the files of the folder its command names (core.Resource.Reads).
type mount struct {
	repo, path, service string
	reads               []string
}

// holds reports whether the service reads file through the mount: the
// file mounted, or a file of the folder mounted that its command names
// when it names any.
func (m mount) holds(repo, file string) bool {
	if m.repo != repo {
		return false
	}
	if m.path == file {
		return true
	}
	return strings.HasPrefix(file, m.path+"/") && (len(m.reads) == 0 || slices.Contains(m.reads, file))
}

// composeMounts are the files and folders compose services mount that
// the index holds, in the compose files' order. A relative path is the
// compose file's folder's, or, in a file given after another (docker
// compose -f base.yml -f extra/override.yml), the first file's: the
// folder above where the path exists.
func (b *builder) composeMounts() []mount {
	var out []mount
	var paths map[[2]string]bool // repo and path of every file and folder
	for _, r := range b.in.Resources {
		if r.Kind != core.ResourceCompose {
			continue
		}
		for _, v := range r.Volumes {
			if !strings.HasPrefix(v, ".") {
				continue
			}
			if paths == nil {
				paths = b.filePaths()
			}
			at := path.Join(path.Dir(r.File), v)
			for dir := path.Dir(r.File); !paths[[2]string{r.Repo, at}] && dir != "."; {
				dir = path.Dir(dir)
				if p := path.Join(dir, v); paths[[2]string{r.Repo, p}] {
					at = p
				}
			}
			repo, at, ok := locate(b.in.Roots, r.Repo, at)
			// A folder the repository does not hold is made when the
			// service runs (./.data/minio, ignored by git), and a
			// test's data (./testdata/certs) is a test's: no place of
			// the service's.
			if !ok || at != "." && (!paths[[2]string{repo, at}] || core.IsTestPath(at+"/")) {
				continue
			}
			var reads []string
			for _, rd := range r.Reads {
				if rel, ok := strings.CutPrefix(rd, path.Clean(v)+"/"); ok {
					reads = append(reads, path.Join(at, rel))
				}
			}
			out = append(out, mount{repo, at, first(b.alias[strings.ToLower(r.Name)], r.Name), reads})
		}
	}
	return out
}
