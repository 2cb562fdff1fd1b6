package graph

import (
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/internal/lazyre"
)

// The tiers of a service's environment, from the value that wins to the
// value of last resort: deploy files (Kubernetes, Helm, compose, settings
// and env files), the image (a Dockerfile's ENV), the code's own default.
const (
	tierDeploy = iota
	tierImage
	tierCode
)

// envVal is one value a service's environment may give a variable, with
// where it is written.
type envVal struct {
	name, value string
	via         string
	ev          Evidence
	tier        int
	// shared says the value comes from a ConfigMap that several workloads
	// load and that names several services: an address book, not a list
	// of dependencies. It counts only for a service whose files read the
	// variable.
	shared bool
	// peers are the other services that mount the config file the value
	// is from: an address of one of them is that one's own (its listen or
	// base URL), not a dependency of the others.
	peers []string
	// onMachine says the value may be read on the developer's machine
	// rather than only inside a container (code's defaults, a service's
	// settings and config files): its localhost:PORT is what a compose
	// file publishes there (machineTarget). localOnly says only such
	// addresses of it count (a config file no deploy file mounts).
	onMachine, localOnly bool
	// flag says the value is a command-line option's: a bare word
	// (-target=querier) is an address only under an address's name.
	flag bool
}

// collectValues gathers, per service, every value its environment may
// give a variable, and the variables each service's own files read.
func (b *builder) collectValues() {
	b.vals = map[string][]envVal{}
	b.reads = map[string]map[string]bool{}
	b.cmHosts, b.replaced = nil, nil // hosts may name new nodes now
	// Who loads each ConfigMap, and how many services its values name.
	loaders := map[string]map[string]bool{}
	for _, r := range b.in.Resources {
		if !core.IsWorkload(r.Kind) {
			continue
		}
		s := b.alias[strings.ToLower(r.Service)]
		for _, cm := range r.EnvFrom {
			if loaders[cm] == nil {
				loaders[cm] = map[string]bool{}
			}
			loaders[cm][s] = true
		}
		for _, e := range r.Env {
			if e.ConfigMap != "" {
				if loaders[e.ConfigMap] == nil {
					loaders[e.ConfigMap] = map[string]bool{}
				}
				loaders[e.ConfigMap][s] = true
			}
		}
	}
	shared := map[string]bool{}
	for name, ls := range loaders {
		if len(ls) < 2 {
			continue
		}
		hosts := map[string]bool{}
		for _, v := range b.cms[name] {
			for k, val := range v.Data {
				if a, ok := addressOf(k, val); ok && !isLocal(a.host) {
					hosts[a.host] = true
				}
			}
		}
		shared[name] = len(hosts) >= 2
	}
	add := func(s string, v envVal) {
		if s != "" && v.value != "" {
			b.vals[s] = append(b.vals[s], v)
		}
	}
	// A service's workloads in many copies of a deployment load the
	// same ConfigMap: its values are gathered once per service and key.
	loaded := map[[4]string]bool{}
	cmValues := func(s, cm, only, as string, at Evidence, isShared bool) {
		if loaded[[4]string{s, cm, only, as}] {
			return
		}
		loaded[[4]string{s, cm, only, as}] = true
		for vi, v := range b.cms[cm] {
			if b.replaces(vi, cm, s) {
				continue
			}
			lines := map[string]int{}
			for _, k := range v.Keys {
				lines[k.Key] = k.Line
			}
			keys := []string{only}
			if only == "" {
				keys = sortedKeys(v.Data)
			} else if _, ok := v.Data[only]; !ok {
				continue
			}
			for _, k := range keys {
				name := k
				if as != "" {
					name = as
				}
				ev := Evidence{v.ChunkID, v.Repo, v.File, lines[k]}
				if ev.Line == 0 {
					ev = at
				}
				via := "ConfigMap " + cm + " (" + v.File + ")"
				if o, ok := b.envOrigins[[3]string{v.Repo, v.File, k}]; ok {
					via, ev = via+", "+o.via, o.ev
				}
				add(s, envVal{name: name, value: v.Data[k], via: via, ev: ev, tier: tierDeploy, shared: isShared})
			}
		}
	}
	// The workloads that mount each ConfigMap as files, by repository.
	cmMounters := map[string][]string{}
	for _, r := range b.in.Resources {
		if core.IsWorkload(r.Kind) {
			if s := b.alias[strings.ToLower(r.Service)]; s != "" {
				for _, v := range r.Volumes {
					if cm, ok := strings.CutPrefix(v, "configmap:"); ok {
						cmMounters[r.Repo+"\x00"+cm] = appendUnique(cmMounters[r.Repo+"\x00"+cm], s)
					}
				}
			}
		}
	}
	// A ConfigMap named after a workload (workflow-controller-configmap)
	// that no workload loads or mounts, and that holds blocks of YAML
	// under keys of no file's name (artifactRepository: |), is the one
	// that workload's program reads through the Kubernetes API, by name
	// and key. (One of files, reports-config's reports.json, is for
	// mounting: unmounted, it configures nobody.)
	readByName := map[string]string{} // repository and ConfigMap -> service
	for _, r := range b.in.Resources {
		if !core.IsWorkload(r.Kind) {
			continue
		}
		s := b.alias[strings.ToLower(r.Service)]
		if s == "" {
			continue
		}
		for _, suffix := range []string{"-configmap", "-config", "-cm"} {
			cm := r.Name + suffix
			if len(loaders[cm]) > 0 || len(cmMounters[r.Repo+"\x00"+cm]) > 0 {
				continue
			}
			if slices.ContainsFunc(b.cms[cm], func(v core.ResourceAt) bool { return v.Repo == r.Repo && keyedBlocks(v.Data) }) {
				readByName[r.Repo+"\x00"+cm] = s
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(readByName)) {
		repo, cm, _ := strings.Cut(k, "\x00")
		for _, v := range b.cms[cm] {
			if v.Repo == repo {
				cmValues(readByName[k], cm, "", "", evidenceOf(v), false)
				break
			}
		}
	}
	for _, r := range b.in.Resources {
		switch {
		case core.IsWorkload(r.Kind):
			s := b.alias[strings.ToLower(r.Service)]
			if s == "" {
				continue
			}
			keyLine := map[string]int{}
			for _, k := range r.Keys {
				keyLine[k.Key] = k.Line
			}
			for _, cm := range r.EnvFrom {
				if strings.HasPrefix(cm, "secret:") {
					continue
				}
				at := evidenceOf(r)
				if l := keyLine["envFrom:"+cm]; l > 0 {
					at.Line = l
				}
				cmValues(s, cm, "", "", at, shared[cm])
			}
			for _, e := range r.Env {
				at := evidenceAt(r, e.Line)
				switch {
				case e.ConfigMap != "":
					cmValues(s, e.ConfigMap, e.Key, e.Name, at, false)
				case e.Value != "":
					add(s, envVal{name: e.Name, value: e.Value, via: r.Kind + " " + r.Name, ev: at, tier: tierDeploy})
				}
			}
			for _, f := range r.Flags {
				add(s, envVal{name: f.Name, value: f.Value, via: r.Kind + " " + r.Name + "'s flag -" + f.Name, ev: evidenceAt(r, f.Line), tier: tierDeploy, flag: true})
			}
		case r.Kind == core.ResourceHelmTemplate:
			s := b.alias[strings.ToLower(r.Service)]
			values := b.helmValues[r.Repo+"/"+path.Dir(path.Dir(r.File))]
			for _, e := range r.Env {
				if v, ok := helmValue(e.Value, values); ok {
					at := evidenceAt(r, e.Line)
					add(s, envVal{name: e.Name, value: v, via: "Helm chart " + r.Service, ev: at, tier: tierDeploy})
				}
			}
		case r.Kind == core.ResourceCompose || r.Kind == core.ResourceAspire:
			via := "compose service " + r.Name + " (" + r.File + ")"
			switch r.Labels["runner"] {
			case "dapr":
				via = "app " + r.Name + " of dapr run -f " + r.File
			case "procfile":
				via = "process " + r.Name + " of " + r.File
			}
			if r.Kind == core.ResourceAspire {
				via = "Aspire WithEnvironment on " + r.Name
			}
			s := b.alias[strings.ToLower(r.Name)]
			for _, e := range r.Env {
				add(s, envVal{name: e.Name, value: e.Value, via: via, ev: evidenceAt(r, e.Line), tier: tierDeploy})
			}
			for _, f := range r.Flags {
				add(s, envVal{name: f.Name, value: f.Value, via: "flag -" + f.Name + " of " + via, ev: evidenceAt(r, f.Line), tier: tierDeploy, flag: true})
			}
		case r.Kind == core.ResourceSettings:
			s := b.ownerOf(r.Repo, r.File)
			keyed(r, func(k, v string, at Evidence) {
				add(s, envVal{name: k, value: v, via: path.Base(r.File), ev: at, tier: tierDeploy, onMachine: true})
			})
		case r.Kind == core.ResourceConfigFile:
			// A config file is the settings of the services that mount it
			// (the file, or a folder above it unless the service's command
			// names other files of that folder or another service mounts
			// the file itself; a ConfigMap's file, the workloads that
			// mount the ConfigMap), each of them.
			var mounters []string
			via := path.Base(r.File)
			if rest, ok := strings.CutPrefix(r.Name, "configmap:"); ok {
				cm, key, _ := strings.Cut(rest, "/")
				mounters, via = cmMounters[r.Repo+"\x00"+cm], key+" of ConfigMap "+cm
				if s, ok := readByName[r.Repo+"\x00"+cm]; ok && len(mounters) == 0 {
					mounters, via = []string{s}, key+" of ConfigMap "+cm+" (read by name)"
				}
			} else {
				// A file a service mounts on its own is that service's,
				// not also the config of one mounting a folder above it
				// (Grafana's provisioning folder holding Tempo's file).
				own := slices.ContainsFunc(b.mounts, func(m mount) bool { return m.repo == r.Repo && m.path == r.File })
				for _, m := range b.mounts {
					if m.holds(r.Repo, r.File) && (!own || m.path == r.File) {
						mounters = appendUnique(mounters, m.service)
					}
				}
			}
			for _, svc := range mounters {
				keyed(r, func(k, v string, at Evidence) {
					add(svc, envVal{name: k, value: v, via: via + " mounted by " + svc, ev: at, tier: tierDeploy, peers: mounters})
				})
			}
			// A config file no container mounts, in a service's code:
			// the code's, read where it runs, which for its addresses
			// on the machine (a development config's 127.0.0.1:3306)
			// is the developer's machine.
			if s := b.ownerOf(r.Repo, r.File); len(mounters) == 0 && s != "" && b.nodes[s] != nil && b.nodes[s].Language != "" && !core.IsTestPath(r.File) && !exampleName(r.File) {
				keyed(r, func(k, v string, at Evidence) {
					add(s, envVal{name: k, value: v, via: via, ev: at, tier: tierDeploy, onMachine: true, localOnly: true})
				})
			}
		case r.Kind == "Component" && r.Data["type"] != "":
			// A Dapr component (a state store, a pub/sub broker): the
			// settings of the apps whose sidecars load it.
			via := "Dapr component " + r.Name + " (" + r.File + ")"
			for _, svc := range b.daprLoaders(r) {
				keyed(r, func(k, v string, at Evidence) {
					if k != "type" {
						add(svc, envVal{name: k, value: v, via: via, ev: at, tier: tierDeploy})
					}
				})
			}
		case r.Kind == core.ResourceDockerfile:
			s := b.ownerOf(r.Repo, r.File)
			for _, e := range r.Env {
				at := evidenceAt(r, e.Line)
				add(s, envVal{name: e.Name, value: e.Value, via: "Dockerfile " + r.File, ev: at, tier: tierImage})
			}
		}
	}
	b.fields = map[string]map[string]string{}
	for _, bd := range b.in.Bindings {
		if bd.Kind != core.BindEnv && bd.Kind != core.BindAddress || core.IsTestPath(bd.File) || core.IsToolingPath(bd.File) {
			continue
		}
		s := b.ownerOf(bd.Repo, bd.File)
		if s == "" {
			continue
		}
		if bd.Kind == core.BindAddress {
			name := first(bd.Field, "address")
			add(s, envVal{name: name, value: bd.Value, via: "address in code", ev: Evidence{bd.ChunkID, bd.Repo, bd.File, bd.Line}, tier: tierCode, onMachine: true})
			continue
		}
		if bd.Field != "" {
			if b.fields[s] == nil {
				b.fields[s] = map[string]string{}
			}
			b.fields[s][bd.Field] = bd.Env
		}
		if b.reads[s] == nil {
			b.reads[s] = map[string]bool{}
		}
		b.reads[s][bd.Env] = true
		if bd.Default != "" {
			add(s, envVal{name: bd.Env, value: bd.Default, via: "default in code", ev: Evidence{bd.ChunkID, bd.Repo, bd.File, bd.Line}, tier: tierCode, onMachine: true})
		}
	}
}

// replaces reports whether variant vi of ConfigMap cm describes a
// deployment without service s: another variant of it gives one of its
// keys s's own address, and v points that key elsewhere (an alternative
// that replaces s with another service). Such a variant gives s nothing.
func (b *builder) replaces(vi int, cm, s string) bool {
	return b.replacedVariants(cm, s)[vi]
}

// replacedVariants returns the indexes of the variants of ConfigMap cm
// that replace service s's own address (see replaces), computed once per
// ConfigMap and service: a repository with many copies of a ConfigMap
// makes the pairwise comparison too slow to repeat per workload.
func (b *builder) replacedVariants(cm, s string) map[int]bool {
	vs := b.cms[cm]
	if len(vs) < 2 {
		return nil
	}
	key := [2]string{cm, s}
	if r, ok := b.replaced[key]; ok {
		return r
	}
	if b.cmHosts == nil {
		b.cmHosts = map[string][]map[string]string{}
		b.replaced = map[[2]string]map[int]bool{}
	}
	hosts, ok := b.cmHosts[cm]
	if !ok {
		hosts = make([]map[string]string, len(vs))
		for i, v := range vs {
			hosts[i] = map[string]string{}
			for k, val := range v.Data {
				if a, ok := addressOf(k, val); ok {
					n, _, _ := b.lookupHost(a.host)
					hosts[i][k] = n
				}
			}
		}
		b.cmHosts[cm] = hosts
	}
	// The keys some variant sends to s.
	toS := map[string]bool{}
	for _, h := range hosts {
		for k, n := range h {
			if n == s {
				toS[k] = true
			}
		}
	}
	var out map[int]bool
	for i, h := range hosts {
		for k, n := range h {
			if n != s && toS[k] {
				if out == nil {
					out = map[int]bool{}
				}
				out[i] = true
				break
			}
		}
	}
	b.replaced[key] = out
	return out
}

// telemetryWords mark the variables and nodes of tracing, metrics and log
// shipping: an exporter is not a dependency (nothing breaks when the
// collector is down), so they make no edge.
var telemetryWords = map[string]bool{"otel": true, "otlp": true, "jaeger": true, "zipkin": true, "trace": true, "tracing": true,
	"tracer": true, "traces": true, "instana": true, "datadog": true, "dd": true, "newrelic": true, "sentry": true, "honeycomb": true,
	"collector": true, "telemetry": true, "metrics": true, "statsd": true, "prometheus": true, "apm": true, "eum": true,
	"fluentd": true, "fluentbit": true, "logstash": true, "loki": true, "splunk": true, "log": true, "logs": true, "logging": true,
	"syslog": true, "profiler": true, "pyroscope": true, "grafana": true}

// addressWords end the names of variables that hold an address.
var addressWords = map[string]bool{"host": true, "hostname": true, "addr": true, "address": true, "endpoint": true,
	"server": true, "servers": true, "url": true, "uri": true, "dsn": true, "broker": true, "brokers": true, "service": true,
	"svc": true, "upstream": true, "backend": true, "target": true, "bootstrap": true, "connection": true, "connectionstring": true,
	"gateway": true, "api": true, "origin": true}

// words splits a variable or key name into lower-case words, as the code
// tokenizer does: ORDER_QUEUE_URI, spring.datasource.url,
// ConnectionStrings:Catalog.
func words(name string) []string { return codetok.Words(name) }

func isTelemetry(name string) bool {
	for _, w := range words(name) {
		if telemetryWords[w] {
			return true
		}
	}
	return false
}

// telemetryVar reports whether variable name of service s is named for
// telemetry (isTelemetry) by a word other than the service's own name: a
// tracing product's own settings (jaeger_storage.backends... of the
// jaeger service) are its configuration, not an exporter's; and a
// database, cache or broker named after the telemetry word is what the
// variable addresses (storage.trace.memcached.host, a tracing store's
// cache), a dependency like any other.
func telemetryVar(s, name string) bool {
	own := words(s)
	telemetry := false
	for _, w := range words(name) {
		switch {
		case telemetryWords[w] && !slices.Contains(own, w):
			telemetry = true
		case telemetry && core.ProductPort(w) != "":
			telemetry = false
		}
	}
	return telemetry
}

// telemetryBackend reports whether node t is telemetry infrastructure
// named so (an OpenTelemetry collector, Jaeger, Prometheus, a log
// shipper) rather than a service whose code the index holds: a
// metrics-api built from the repository's ./metrics-api is a dependency
// like any other, whatever its name says.
func (b *builder) telemetryBackend(t string) bool {
	if !isTelemetry(t) {
		return false
	}
	n := b.nodes[t]
	return n == nil || n.Language == ""
}

// hostLabelRE is what a host name (or its first label) looks like.
var hostLabelRE = lazyre.New(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// placeholderHosts are host names examples and templates use.
var placeholderHosts = map[string]bool{"example": true, "your": true, "changeme": true, "host": true, "hostname": true,
	"server": true, "myhost": true, "xxx": true, "localhost": true, "none": true, "null": true, "true": true, "false": true,
	"todo": true, "placeholder": true, "default": true, "unknown": true}

// placeholderURLHost reports whether h, a URL's host, was written to be
// replaced (http://unknown/hooks, https://example:8443): a placeholder
// host but for the words a service (or this machine) may well be named.
func placeholderURLHost(h string) bool {
	switch h {
	case "host", "hostname", "server", "localhost", "default":
		return false
	}
	return placeholderHosts[h]
}

// referenceSchemes name what a URL of theirs refers to, not a server to
// connect to: an image ko builds from an import path
// (ko://github.com/acme/cmd/entrypoint), an OCI or Docker image, a file.
var referenceSchemes = map[string]bool{"ko": true, "oci": true, "docker": true, "docker-image": true, "file": true, "data": true, "mailto": true}

// pdoRE reads a PDO-style DSN: mysql:host=db;dbname=shop.
var pdoRE = lazyre.New(`^(?i)([a-z]+):(.*\b(?:host|server)=.*)$`)

// addressOf reads the address a variable's value holds, if it holds one:
// a URL or DSN whatever the name, host:port, or a bare host when the
// name says it is an address (BILLING_HOST=billing).
func addressOf(name, value string) (addr, bool) {
	v := strings.Trim(strings.TrimSpace(value), `"'`)
	if a, ok := keywordDSN(v); ok {
		return a, true
	}
	if v == "" || strings.Contains(v, "${") || strings.Contains(v, "{{") || strings.ContainsAny(v, " \t\n") && !strings.Contains(v, ";") {
		return addr{}, false
	}
	if m := pdoRE.FindStringSubmatch(v); m != nil && !strings.Contains(v, "://") {
		a, ok := parseAddress(m[2])
		if ok {
			a.scheme = strings.ToLower(m[1])
		}
		return a, ok
	}
	if strings.HasPrefix(strings.ToLower(v), "jdbc:") {
		v = v[5:]
	}
	if strings.Contains(v, "://") || strings.Contains(v, "=") && strings.Contains(v, ";") {
		a, ok := parseAddress(v)
		if ok && a.host != "" && !placeholderURLHost(a.host) && !referenceSchemes[a.scheme] {
			return a, true
		}
		return addr{}, false
	}
	if goMySQLDSN.MatchString(v) {
		return parseAddress(v)
	}
	if strings.ContainsAny(v, "/@") {
		return addr{}, false
	}
	a, ok := parseAddress(v)
	if !ok || a.host == "" {
		return addr{}, false
	}
	if a.port != "" {
		for _, c := range a.port {
			if c < '0' || c > '9' {
				return addr{}, false
			}
		}
		return a, true
	}
	ws := words(name)
	// A host alone under a word of address (DB_HOST), or the machine's
	// under a key naming a product whose clients know its port
	// (cassandra.hosts: 127.0.0.1; machineTarget), or under libpq's
	// PGHOST, which every PostgreSQL client library reads.
	if libpqHost(name) {
		ws = []string{"host"}
	}
	if len(ws) == 0 || !addressWords[ws[len(ws)-1]] && !(isLocal(a.host) && core.ProductPort(name) != "") {
		return addr{}, false
	}
	label := strings.SplitN(a.host, ".", 2)[0]
	if !isLocal(a.host) && (!hostLabelRE.MatchString(label) || placeholderHosts[label]) {
		return addr{}, false
	}
	return a, true
}

// libpqHost reports whether an environment variable is libpq's host
// (PGHOST, PGHOSTADDR), read by psql, pgx, node-postgres, psycopg and
// the other PostgreSQL clients when the code gives none.
func libpqHost(name string) bool {
	return strings.EqualFold(name, "PGHOST") || strings.EqualFold(name, "PGHOSTADDR")
}

// bareName reports whether address a, the value of the variable name,
// is a bare name (no scheme, port or domain) under a variable that says
// no more than "address" (ADDRESS, HOST) and no known service's: such a
// name is as often an event hub's, a bucket's or a queue's as a host's,
// so it makes no node, while BILLING_HOST=billing may be a service of another
// repository.
//
// A name that ends in a word of choice (PLOT_BACKEND=agg,
// CACHE_BACKEND=memory, BUILD_TARGET=release) is held to the same: its
// bare value is as often an implementation's as a host's.
func (b *builder) bareName(name string, a addr) bool {
	if a.scheme != "" || a.port != "" || strings.Contains(a.host, ".") {
		return false
	}
	if ws := words(name); len(ws) > 1 && !choiceWords[ws[len(ws)-1]] {
		return false
	}
	n, _, _ := b.lookupHost(a.host)
	return n == ""
}

// choiceWords end the variable names whose bare value may choose an
// implementation rather than name a host.
var choiceWords = map[string]bool{"backend": true, "target": true}

// machineTarget is the node that an address on the machine (a.host is
// local) of a value of service s reaches. A development compose file runs
// a repository's databases and publishes their ports on the developer's
// machine, where the code runs and reaches them at localhost:PORT; a
// container reaches that machine as host.docker.internal. So the address
// is the one compose service of s's repository that publishes its port
// there; failing that, host.docker.internal:PORT is the repository's own
// code, when it has one service of code (running on the machine). A
// localhost address read only inside a container (onMachine false: a
// compose or Kubernetes environment, a mounted file) is the container
// itself, or a sidecar: none.
//
// Where several publish the port (alternative set-ups: Elasticsearch or
// OpenSearch on 9200), the one the variable's name names is meant
// (...elasticsearch.server_urls).
func (b *builder) machineTarget(s string, a addr, name string, onMachine bool) (string, float64, string) {
	n := b.nodes[s]
	docker := a.host == "host.docker.internal"
	if a.port == "" && a.scheme == "" {
		// A client's default: cassandra.hosts: 127.0.0.1 is port 9042.
		a.port = core.ProductPort(name)
	}
	if n == nil || a.port == "" || !docker && !onMachine {
		return "", 0, "localhost"
	}
	pubs := b.publishers(n.Repo, a.port)
	if len(pubs) > 1 {
		ws := words(name)
		var named []string
		for _, p := range pubs {
			if slices.Contains(ws, strings.ToLower(p)) {
				named = append(named, p)
			}
		}
		if len(named) == 1 {
			pubs = named
		}
	}
	switch {
	case len(pubs) == 1 && !docker && !b.infrastructure(pubs[0], a):
		// A repository often holds several development set-ups: an
		// application port (8080) one of them publishes is no sign the
		// code means that one; a database's, cache's or broker's is.
		return "", 0, "port " + a.port + " of the machine is published by compose service " + pubs[0] + ", no database, cache or broker"
	case len(pubs) == 1:
		return pubs[0], 0.8, "port " + a.port + " of the machine is published by compose service " + pubs[0]
	case len(pubs) > 1:
		return "", 0, "port " + a.port + " of the machine is published by several compose services"
	}
	if docker {
		var code []string
		for _, m := range b.nodes {
			if m.Repo == n.Repo && m.Language != "" && m.Kind == KindService && m.Name != s {
				code = append(code, m.Name)
			}
		}
		if len(code) == 1 {
			return code[0], 0.7, "host.docker.internal is the machine running compose, where the repository's code " + code[0] + " runs"
		}
	}
	return "", 0, "localhost"
}

// migrationJob reports whether service s is a database migration job:
// a compose service or Kubernetes workload of it migrates
// (core.Resource.Migrates) and none runs another program. One that names
// no program says nothing (a compose override file that sets only the
// job's database address).
func (b *builder) migrationJob(s string) bool {
	if b.migrating == nil {
		b.migrating = map[string]bool{}
		runs := map[string]bool{} // services some workload of which does not migrate
		for _, r := range b.in.Resources {
			if r.Kind != core.ResourceCompose && !core.IsWorkload(r.Kind) {
				continue
			}
			n := b.alias[strings.ToLower(r.Service)]
			if r.Migrates {
				b.migrating[n] = true
			} else if len(r.Programs) > 0 {
				runs[n] = true
			}
		}
		for n := range runs {
			delete(b.migrating, n)
		}
	}
	return b.migrating[s]
}

// keyedBlocks reports whether a ConfigMap's data holds a block of lines
// under a key of no file's name (persistence: |), as a program reading it
// by key expects, rather than files to mount (config.yaml: |).
func keyedBlocks(data map[string]string) bool {
	for k, v := range data {
		if core.KeyedBlock(k, v) {
			return true
		}
	}
	return false
}

// modeWord reports whether v is a flag whose value a is a bare word
// under a name that says no address (-target=querier): a mode, not a
// host.
func (v envVal) modeWord(a addr) bool {
	return v.flag && a.port == "" && a.scheme == "" && !addressName(v.name)
}

// addressName reports whether an option's name says its value is an
// address (-master.host, --redis-addr, -filer.url), so that a bare host
// name is one; -target=querier picks a mode.
func addressName(name string) bool {
	ws := words(name)
	if len(ws) == 0 {
		return false
	}
	switch ws[len(ws)-1] {
	case "host", "hostname", "addr", "address", "server", "servers", "url", "uri", "endpoint", "broker", "brokers":
		return true
	}
	return false
}

// exampleName reports whether a file is named as an example of a config
// (example-config.yaml, config.sample.yml), not the one a program reads.
func exampleName(file string) bool {
	base := strings.ToLower(path.Base(file))
	return strings.Contains(base, "example") || strings.Contains(base, "sample")
}

// ownAddress reports whether a variable names the address a service
// listens on (listenAddress, BIND_ADDR, server.listener): its own, even
// where a compose file publishes that port for another.
func ownAddress(name string) bool {
	for _, w := range words(name) {
		switch w {
		case "listen", "listener", "bind":
			return true
		}
	}
	return false
}

// infrastructure reports whether node t, reached at address a, is a
// database, cache or message broker: by its image, or by the address's
// well-known port.
func (b *builder) infrastructure(t string, a addr) bool {
	switch b.nodes[t].Kind {
	case KindDatabase, KindCache, KindQueue:
		return true
	}
	switch wellKnownPorts[a.port] {
	case EdgeDB, EdgeCache, EdgeQueue:
		return true
	}
	return false
}

// publishers returns the compose services of repo that publish port on
// the machine running them (ports: "3306:3306", "127.0.0.1:9200:9200",
// {published: 19090, target: 9090}, ranges "9000-9002:9000-9002"), in
// name order.
func (b *builder) publishers(repo, port string) []string {
	if b.published == nil {
		b.published = map[[2]string][]string{}
		for _, r := range b.in.Resources {
			if r.Kind != core.ResourceCompose {
				continue
			}
			name := b.alias[strings.ToLower(r.Name)]
			if name == "" {
				continue
			}
			for _, p := range r.Ports {
				for _, hp := range hostPorts(p) {
					k := [2]string{r.Repo, hp}
					if !slices.Contains(b.published[k], name) {
						b.published[k] = append(b.published[k], name)
						slices.Sort(b.published[k])
					}
				}
			}
		}
	}
	return b.published[[2]string{repo, port}]
}

// hostPorts are the ports of the machine a compose port mapping publishes:
// none for a container port alone (the machine's port is chosen at
// random), at most 64 of a range.
func hostPorts(mapping string) []string {
	m, _, _ := strings.Cut(strings.TrimSpace(mapping), "/") // 53:53/udp
	parts := strings.Split(m, ":")
	if len(parts) < 2 {
		return nil
	}
	host := parts[len(parts)-2] // [IP:]HOST:CONTAINER
	lo, hi, isRange := strings.Cut(host, "-")
	if !isRange {
		hi = lo
	}
	from, err1 := strconv.Atoi(lo)
	to, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || from <= 0 || to < from || to-from >= 64 {
		return nil
	}
	var out []string
	for p := from; p <= to; p++ {
		out = append(out, strconv.Itoa(p))
	}
	return out
}

// isLocal reports whether a host is this machine.
func isLocal(host string) bool { return core.LocalHost(host) }

// wellKnownPorts say what protocol an address with no scheme speaks. Not
// 8086 (InfluxDB's, and as often an application's next to 8080): InfluxDB
// is known by its image or the variable's name.
var wellKnownPorts = map[string]string{"5672": EdgeQueue, "5671": EdgeQueue, "9092": EdgeQueue, "4222": EdgeQueue,
	"1883": EdgeQueue, "61616": EdgeQueue, "6379": EdgeCache, "6380": EdgeCache, "11211": EdgeCache, "27017": EdgeDB,
	"5432": EdgeDB, "3306": EdgeDB, "1433": EdgeDB, "9042": EdgeDB, "26257": EdgeDB, "1521": EdgeDB,
	"9200": EdgeDB, "7687": EdgeDB, "25": EdgeSMTP, "465": EdgeSMTP, "587": EdgeSMTP, "1025": EdgeSMTP, "2525": EdgeSMTP}

// edgeType says what kind of dependency an address is: by what the
// target is, the address's scheme, its port, and the variable's name.
func edgeType(target *Service, a addr, name string) string {
	if target != nil {
		switch target.Kind {
		case KindDatabase:
			return EdgeDB
		case KindCache:
			return EdgeCache
		case KindQueue:
			return EdgeQueue
		}
	}
	switch s := a.scheme; {
	case s == "amqp" || s == "amqps" || s == "kafka" || s == "nats" || s == "mqtt" || s == "sb" || s == "stomp" || s == "pulsar":
		return EdgeQueue
	case s == "redis" || s == "rediss" || s == "memcached":
		return EdgeCache
	case strings.HasPrefix(s, "mongodb") || strings.HasPrefix(s, "postgres") || strings.HasPrefix(s, "mysql") || s == "mariadb" ||
		s == "sqlserver" || s == "mssql" || s == "cockroachdb" || s == "cassandra" || s == "bolt" || s == "neo4j" || s == "pgsql" ||
		s == "oracle" || s == "sqlite":
		return EdgeDB
	case s == "grpc" || s == "grpcs" || s == "dns":
		return EdgeGRPC
	case s == "smtp" || s == "smtps":
		return EdgeSMTP
	case s == "http" || s == "https" || s == "ws" || s == "wss":
		return EdgeHTTP
	}
	if t, ok := wellKnownPorts[a.port]; ok {
		return t
	}
	for _, w := range words(name) {
		switch w {
		case "redis", "cache", "memcache", "memcached", "valkey":
			return EdgeCache
		case "db", "database", "mongo", "mongodb", "sql", "postgres", "postgresql", "pg", "mysql", "datasource", "mariadb", "influx", "influxdb":
			return EdgeDB
		case "amqp", "rabbit", "rabbitmq", "kafka", "queue", "broker", "brokers", "nats", "bus", "servicebus", "mq":
			return EdgeQueue
		case "grpc":
			return EdgeGRPC
		case "smtp", "mail", "mailer", "email":
			return EdgeSMTP
		}
	}
	return EdgeHTTP
}

// kindOfType is the node kind a new node reached by an edge of type t has.
func kindOfType(t string) string {
	switch t {
	case EdgeDB:
		return KindDatabase
	case EdgeCache:
		return KindCache
	case EdgeQueue:
		return KindQueue
	}
	return KindService
}

// target finds or makes the node an address's host is: a known name or
// alias; a database by its name when the server is this machine; an
// external host; or a new node for a cluster-internal name no deploy
// file declares (an address is evidence enough that it exists). "" when
// the host is this machine or a placeholder.
func (b *builder) target(a addr, typ string) (string, float64, string) {
	if isLocal(a.host) {
		if a.db != "" {
			if n, ok := b.databases[strings.ToLower(a.db)]; ok {
				return n, 0.8, "database " + a.db + " on this machine"
			}
		}
		return "", 0, "localhost"
	}
	if isPlaceholderDomain(a.host) {
		return "", 0, "host " + a.host + " is an example"
	}
	if n, f, how := b.hostNode(a.host); n != "" {
		return n, f, how
	}
	label := strings.SplitN(a.host, ".", 2)[0]
	if !hostLabelRE.MatchString(label) || placeholderHosts[label] || isTelemetry(label) {
		return "", 0, "host " + a.host + " is a placeholder"
	}
	n := b.node(label, kindOfType(typ))
	if stripped := genericAffix.ReplaceAllString(label, ""); stripped != label && stripped != "" {
		b.addAlias(n, stripped, "dns")
	}
	if a.host != label {
		b.addAlias(n, a.host, "dns")
	}
	return n.Name, 0.9, "host " + a.host + " is declared by no deploy file"
}

// hostedServices are cloud services reached at hosts of their own, by
// the node their SDK's calls make (sdkCall) and the edge's type.
var hostedServices = []struct {
	re        *lazyre.Regexp
	node, typ string
}{
	{lazyre.New(`^sqs[.-]([a-z0-9-]+\.)?amazonaws\.com(\.cn)?$`), "aws-sqs", EdgeQueue},
	{lazyre.New(`^sns[.-]([a-z0-9-]+\.)?amazonaws\.com(\.cn)?$`), "aws-sns", EdgeQueue},
	{lazyre.New(`\.servicebus\.windows\.net$`), "azure-service-bus", EdgeQueue},
}

// hostedService is the node and edge type of a cloud service's host,
// "" for another host.
func hostedService(host string) (string, string) {
	host = strings.ToLower(host)
	for _, h := range hostedServices {
		if h.re.MatchString(host) {
			return h.node, h.typ
		}
	}
	return "", ""
}

// isPlaceholderDomain reports whether a host is one documentation uses
// (RFC 2606 names, RFC 5737's and RFC 3849's documentation addresses,
// "your-…").
func isPlaceholderDomain(host string) bool {
	for _, pre := range []string{"192.0.2.", "198.51.100.", "203.0.113.", "2001:db8:", "[2001:db8:"} {
		if strings.HasPrefix(host, pre) {
			return true
		}
	}
	for _, suf := range []string{"example.com", "example.org", "example.net", ".example", ".test", ".invalid"} {
		if host == strings.TrimPrefix(suf, ".") || strings.HasSuffix(host, suf) {
			return true
		}
	}
	return strings.HasPrefix(host, "your") || strings.Contains(host, "<") || strings.Contains(host, "xxx")
}

// configured adds the dependencies a service's configuration names: every
// address its environment gives it (a URL, a DSN, host:port, BILLING_HOST=billing)
// is an edge, even where no traced call uses it (SDK clients read their
// address themselves). Values of one variable come from the highest tier
// that sets it; an address from a shared ConfigMap counts only for the
// services whose files read the variable.
func (b *builder) configured() {
	for _, s := range b.sortedNodes() {
		vals := b.vals[s]
		if len(vals) == 0 || b.nodes[s].Kind != KindService {
			continue
		}
		// A variable's values come from the highest tier that gives it
		// an address we can read.
		best := map[string]int{}
		for _, v := range vals {
			if _, isAddr := addressOf(v.name, v.value); isAddr || strings.Contains(v.value, "${") && v.tier == tierDeploy {
				if t, ok := best[v.name]; !ok || v.tier < t {
					best[v.name] = v.tier
				}
			}
		}
		for _, v := range vals {
			if v.via == "address in code" {
				b.codeAddress(s, v)
				continue
			}
			if t, ok := best[v.name]; !ok || v.tier != t {
				continue
			}
			if v.shared && !b.reads[s][v.name] {
				continue
			}
			b.configuredEdge(s, v, v.value)
		}
	}
}

// keywordDSN reads a PostgreSQL keyword/value connection string, libpq's
// and pgx's "host=db port=5432 user=app dbname=app sslmode=disable":
// words of key=value only, one of them host and another a port, user or
// database.
func keywordDSN(v string) (addr, bool) {
	words := strings.Fields(v)
	if len(words) < 2 || !strings.HasPrefix(v, "host=") && !strings.Contains(v, " host=") {
		return addr{}, false
	}
	a, other := addr{scheme: "postgres"}, false
	for _, w := range words {
		k, val, ok := strings.Cut(w, "=")
		if !ok || k == "" || strings.Trim(k, "abcdefghijklmnopqrstuvwxyz_") != "" {
			return addr{}, false
		}
		val = strings.Trim(val, `'`)
		switch k {
		case "host":
			a.host = val
		case "port":
			a.port, other = val, true
		case "dbname", "database":
			a.db, other = val, true
		case "user":
			other = true
		}
	}
	if a.host == "" || !other || strings.ContainsAny(a.host, "${}/,") {
		return addr{}, false
	}
	return a, true
}

// daprLoaders are the apps whose Dapr sidecars load component r: the
// app ids it is scoped to; without scopes, the apps whose sidecars mount
// its folder (docker compose: -resources-path /components), or where
// none does, the workloads of its repository and namespace that run a
// sidecar (dapr.io/app-id).
func (b *builder) daprLoaders(r core.ResourceAt) []string {
	var out []string
	svc := func(name string) {
		if s := b.alias[strings.ToLower(name)]; s != "" && b.nodes[s] != nil && b.nodes[s].Kind == KindService {
			out = appendUnique(out, s)
		}
	}
	if len(r.Scopes) > 0 {
		for _, id := range r.Scopes {
			svc(id)
		}
		return out
	}
	for _, m := range b.mounts {
		if m.holds(r.Repo, r.File) {
			svc(m.service)
		}
	}
	if len(out) > 0 {
		return out // docker compose's
	}
	for _, w := range b.in.Resources {
		if core.IsWorkload(w.Kind) && w.AppID != "" && w.Repo == r.Repo && (w.Namespace == r.Namespace || w.Namespace == "" || r.Namespace == "") {
			svc(first(w.Service, w.Name))
		}
	}
	return out
}

// keyed calls fn with each key of a settings resource, in order, its
// value and the evidence of the line it is on (the resource's when the
// key's is not known).
func keyed(r core.ResourceAt, fn func(k, v string, at Evidence)) {
	lines := map[string]int{}
	for _, k := range r.Keys {
		lines[k.Key] = k.Line
	}
	for _, k := range sortedKeys(r.Data) {
		at := evidenceOf(r)
		if l := lines[k]; l > 0 {
			at.Line = l
		}
		fn(k, r.Data[k], at)
	}
}

// speaksGRPC reports whether a service serves gRPC and no HTTP routes.
func (b *builder) speaksGRPC(s string) bool {
	grpc := false
	for _, rt := range b.routes[s] {
		if rt.Method != "GRPC" {
			return false
		}
		grpc = true
	}
	return grpc
}

// codeAddress adds the edge of an address the code builds, its host
// filled from the service's environment.
func (b *builder) codeAddress(s string, v envVal) {
	for _, val := range b.expandHost(s, v.value) {
		b.configuredEdge(s, v, val)
	}
}

// configuredEdge adds the edge from s that the value val of v names.
func (b *builder) configuredEdge(s string, v envVal, val string) {
	if strings.Contains(val, "${") && v.tier == tierDeploy {
		// A settings value that reads the environment (Spring's
		// jdbc:mysql://${DB_HOST:mysql}/shop, compose's ${HOST:-db}).
		for _, x := range b.substitute(s, val) {
			if !strings.Contains(x, "${") {
				b.configuredEdge(s, v, x)
			}
		}
		return
	}
	a, ok := addressOf(v.name, val)
	if !ok || v.localOnly && !isLocal(a.host) || downloadHosts[a.host] {
		return
	}
	if b.bareName(v.name, a) || v.modeWord(a) {
		return
	}
	typ := edgeType(nil, a, v.name)
	// A variable for telemetry (OTEL_EXPORTER_OTLP_ENDPOINT, METRICS_HOST)
	// names a backend to report to, no dependency, unless the index holds
	// that service's code (a metrics-api of the company's own).
	if telemetryVar(s, v.name) {
		if n, _, _ := b.lookupHost(a.host); n == "" || b.nodes[n] == nil || b.nodes[n].Language == "" {
			return
		}
	}
	t, factor, how := b.target(a, typ)
	hosted, hostedTyp := hostedService(a.host)
	if hosted != "" {
		// A queue URL's host is the cloud's queue service, the node its
		// SDK's calls go to.
		n := b.node(hosted, KindExternal)
		b.addAlias(n, a.host, "dns")
		t, factor, how, typ = hosted, 1, "host of "+hosted, hostedTyp
	}
	if t == "" && isLocal(a.host) && !ownAddress(v.name) {
		t, factor, how = b.machineTarget(s, a, v.name, v.onMachine)
	}
	if t == "" || t == s || b.nodes[t].Kind == KindIngress || b.nodes[t].Kind == KindUnresolved || b.telemetryBackend(t) || slices.Contains(v.peers, t) {
		return
	}
	if hosted == "" {
		typ = edgeType(b.nodes[t], a, v.name)
	}
	method := ""
	if typ == EdgeHTTP && a.scheme == "" && b.speaksGRPC(t) {
		typ = EdgeGRPC // host:port of a service that serves gRPC only
		if len(b.routes[t]) == 1 {
			method = b.routes[t][0].Path // the one gRPC service it serves
		}
	}
	conf := map[int]float64{tierDeploy: 0.75, tierImage: 0.7, tierCode: 0.65}[v.tier]
	via := fmt.Sprintf("configured: %s = %s (%s)", v.name, val, v.via)
	if strings.Contains(val, "@") || strings.Contains(strings.ToLower(val), "password") {
		via = fmt.Sprintf("configured: %s (%s)", v.name, v.via) // never repeat credentials
	}
	if typ != EdgeDB && b.migrationJob(s) {
		return // the application's config it mounts, but it only migrates the database
	}
	e := Edge{Source: s, Target: t, Type: typ, Method: method, URL: redactURL(val), Confidence: round(conf * factor), Via: join(via, how), configured: true}
	if typ == EdgeDB && a.db != "" {
		e.Path = a.db
		b.addDatabase(b.nodes[t], a.db)
	}
	b.addEdge(e, v.ev)
}

// hostPlaceholderRE finds the {NAME} placeholders of an address's host
// and port part.
var hostPlaceholderRE = lazyre.New(`\{([A-Za-z_][A-Za-z0-9_.]*)\}`)

// expandHost fills the {NAME} placeholders in the host and port of an
// address the code builds (http://{USERS_HOST}:8080/x, or {MEMBERS}
// where MEMBERS holds os.getenv("MEMBERS_HOST", "members")) from service
// s's environment: one address per combination; none when a placeholder
// has no value.
func (b *builder) expandHost(s, addr string) []string {
	scheme, rest, ok := strings.Cut(addr, "://")
	if !ok {
		return []string{addr}
	}
	host, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host, tail = rest[:i], rest[i:]
	}
	out := []string{host}
	for range 3 {
		var next []string
		for _, h := range out {
			m := hostPlaceholderRE.FindStringSubmatchIndex(h)
			if m == nil {
				next = append(next, h)
				continue
			}
			name := h[m[2]:m[3]]
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:] // self.HOST, cfg.Host
			}
			vals := b.valuesOf(s, name)
			if len(vals) == 0 {
				if env, ok := b.fields[s][name]; ok {
					vals = b.valuesOf(s, env)
				}
			}
			if len(vals) == 0 && m[0] > 0 && h[m[0]-1] != ':' && b.reads[s][name] {
				// {HOST}{DOMAIN}: a part after the host's name that the
				// code reads from a variable nothing sets and gives no
				// default is empty (an optional domain suffix).
				vals = []string{""}
			}
			for _, v := range vals {
				if strings.Contains(v, "://") || strings.ContainsAny(v, "/ ") {
					continue // a URL or a path is no host: http://{address} with address = "http://relay:9000"
				}
				next = append(next, h[:m[0]]+v+h[m[1]:])
			}
		}
		out = next
	}
	var res []string
	for _, h := range out {
		if !strings.Contains(h, "{") {
			res = append(res, scheme+"://"+h+tail)
		}
	}
	return res
}

// declareHosts makes a node for every cluster-internal host a service's
// configuration names that no deploy file declares (a VM reached by its
// internal DNS name, a model server deployed by an operator), so that the
// folder holding its code can be found. It reports whether it made any.
func (b *builder) declareHosts() bool {
	made := false
	for _, s := range b.sortedNodes() {
		for _, v := range b.vals[s] {
			// Of a config file only its local addresses count
			// (localOnly), and a flag's bare word is a mode, not a host,
			// unless its name says address: no node for either.
			if v.shared && !b.reads[s][v.name] || telemetryVar(s, v.name) || v.localOnly {
				continue
			}
			a, ok := addressOf(v.name, v.value)
			if !ok || isLocal(a.host) || isPlaceholderDomain(a.host) || b.bareName(v.name, a) ||
				v.modeWord(a) {
				continue
			}
			n, _, how := b.lookupHost(a.host)
			if n == "" && how != "" {
				before := len(b.nodes)
				n, _, _ = b.target(a, edgeType(nil, a, v.name))
				made = made || len(b.nodes) > before
			}
			if n != "" && a.db != "" && edgeType(b.nodes[n], a, v.name) == EdgeDB {
				b.addDatabase(b.nodes[n], a.db) // before any DSN on localhost names it
			}
		}
	}
	return made
}

// addDatabase records that the server n holds the database named db: an
// alias, and the server a DSN on the same machine naming db reaches.
func (b *builder) addDatabase(n *Service, db string) {
	b.addAlias(n, db, "database")
	if b.databases == nil {
		b.databases = map[string]string{}
	}
	if _, ok := b.databases[strings.ToLower(db)]; !ok {
		b.databases[strings.ToLower(db)] = n.Name
	}
}

// redactURL drops the password of a URL's user part.
func redactURL(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.User == nil {
		return v
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
		return strings.Replace(u.String(), "xxxxx", "…", 1)
	}
	return v
}

// mergeConfigured folds a configured edge into a traced edge between the
// same two nodes: the call is the better evidence, the configuration
// corroborates it.
func (b *builder) mergeConfigured() {
	traced := map[[2]string]*Edge{}
	keys := make([]string, 0, len(b.edges))
	for k := range b.edges {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := b.edges[k]
		if !e.configured {
			if _, ok := traced[[2]string{e.Source, e.Target}]; !ok {
				traced[[2]string{e.Source, e.Target}] = e
			}
		}
	}
	// Among configured edges of one pair, those that say more (a database
	// name, a path) take the evidence of those that say less.
	detailed := map[[2]string]*Edge{}
	for _, k := range keys {
		if e := b.edges[k]; e.configured && e.Path != "" {
			if _, ok := detailed[[2]string{e.Source, e.Target}]; !ok {
				detailed[[2]string{e.Source, e.Target}] = e
			}
		}
	}
	for _, k := range keys {
		e := b.edges[k]
		if !e.configured {
			continue
		}
		t, ok := traced[[2]string{e.Source, e.Target}]
		if !ok && e.Path == "" {
			t, ok = detailed[[2]string{e.Source, e.Target}]
		}
		if ok {
			for _, ev := range e.Evidence {
				if !containsEvidence(t.Evidence, ev) {
					t.Evidence = append(t.Evidence, ev)
				}
			}
			delete(b.edges, k)
		}
	}
}

func containsEvidence(list []Evidence, ev Evidence) bool {
	for _, x := range list {
		if x == ev {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// substitute fills the ${NAME} and $NAME of a template (an nginx
// proxy_pass filled by envsubst) from service s's environment: one result
// per combination of the values each variable may have; none when a
// variable has no value.
func (b *builder) substitute(s, tmpl string) []string {
	out := []string{tmpl}
	for range 4 {
		var next []string
		changed := false
		for _, t := range out {
			m := envRefRE.FindStringSubmatchIndex(t)
			if m == nil {
				next = append(next, t)
				continue
			}
			changed = true
			var name string
			if m[2] >= 0 {
				name = t[m[2]:m[3]]
			} else {
				name = t[m[4]:m[5]]
			}
			vals := b.valuesOf(s, name)
			if len(vals) == 0 && m[6] >= 0 && m[7] > m[6] {
				vals = []string{t[m[6]:m[7]]} // ${NAME:-default}, Spring's ${NAME:default}
			}
			for _, v := range vals {
				next = append(next, t[:m[0]]+v+t[m[1]:])
			}
		}
		out = next
		if !changed || len(out) > 16 {
			break
		}
	}
	var done []string
	for _, t := range out {
		if !strings.Contains(t, "$") {
			done = append(done, t)
		}
	}
	return done
}

// envRefRE finds $NAME, ${NAME} and ${NAME:-default}.
var envRefRE = lazyre.New(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_.]*)(?::-?|-)?([^}]*)\})`)

// valuesOf lists the values service s's environment gives a variable,
// from the highest tier that sets it.
func (b *builder) valuesOf(s, name string) []string {
	best := -1
	for _, v := range b.vals[s] {
		if v.name == name && (best < 0 || v.tier < best) {
			best = v.tier
		}
	}
	var out []string
	for _, v := range b.vals[s] {
		if v.name == name && v.tier == best && !contains(out, v.value) {
			out = append(out, v.value)
		}
	}
	return out
}

// proxies adds the routes a proxy passes on: nginx's proxy_pass under a
// location is an edge from the service that owns the configuration to
// the backend, with the location as its path; ${HOST} templates are
// filled from that service's environment (Dockerfile ENV, compose,
// Kubernetes).
func (b *builder) proxies() {
	b.traefik()
	for _, r := range b.in.Resources {
		if r.Kind == core.ResourceSettings && !core.IsTestPath(r.File) {
			b.yarp(r)
		}
		if r.Kind != core.ResourceProxy || core.IsTestPath(r.File) {
			continue
		}
		s := b.ownerOf(r.Repo, r.File)
		if s == "" {
			continue
		}
		kind := r.Labels["proxy"]
		for _, be := range r.Backends {
			hostport := be.Service
			if be.Port != "" {
				hostport += ":" + be.Port
			}
			scheme := be.Host
			if scheme == "" {
				scheme = "http"
			}
			for _, hp := range b.substitute(s, hostport) {
				a, ok := parseAddress(scheme + "://" + hp)
				if !ok {
					continue
				}
				typ := EdgeHTTP
				if strings.HasPrefix(scheme, "grpc") {
					typ = EdgeGRPC
				}
				t, factor, how := b.target(a, typ)
				if t == "" || t == s || b.telemetryBackend(t) {
					continue
				}
				ev := Evidence{r.ChunkID, r.Repo, r.File, be.Line}
				via := fmt.Sprintf("%s passes %s to %s", kind, be.Path, hp)
				if hp != hostport {
					via = fmt.Sprintf("%s passes %s to %s (%s)", kind, be.Path, hostport, hp)
				}
				b.addEdge(Edge{Source: s, Target: t, Type: typ, Method: "ANY", Path: be.Path, URL: scheme + "://" + hp,
					Confidence: round(0.9 * factor), Via: join(via, how)}, ev)
			}
		}
	}
}

// yarpRouteRE and yarpDestRE read the flattened keys of a YARP reverse
// proxy's settings (appsettings.json "ReverseProxy").
var (
	yarpRouteRE = lazyre.New(`^ReverseProxy:Routes:([^:]+):(ClusterId|Match:Path)$`)
	yarpDestRE  = lazyre.New(`^ReverseProxy:Clusters:([^:]+):Destinations:[^:]+:Address$`)
)

// yarp adds the routes of a YARP reverse proxy configured in a service's
// settings: each route's path to the destinations of its cluster.
func (b *builder) yarp(r core.ResourceAt) {
	s := b.ownerOf(r.Repo, r.File)
	if s == "" {
		return
	}
	type route struct{ cluster, path string }
	routes := map[string]*route{}
	dests := map[string][]string{}
	for _, k := range sortedKeys(r.Data) {
		if m := yarpRouteRE.FindStringSubmatch(k); m != nil {
			rt := routes[m[1]]
			if rt == nil {
				rt = &route{path: "/"}
				routes[m[1]] = rt
			}
			if m[2] == "ClusterId" {
				rt.cluster = r.Data[k]
			} else {
				rt.path = r.Data[k]
			}
		}
		if m := yarpDestRE.FindStringSubmatch(k); m != nil {
			dests[m[1]] = append(dests[m[1]], r.Data[k])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(routes)) {
		rt := routes[name]
		for _, d := range dests[rt.cluster] {
			for _, addr := range b.expandHost(s, d) {
				a, ok := addressOf("url", addr)
				if !ok {
					continue
				}
				t, factor, how := b.target(a, EdgeHTTP)
				if t == "" || t == s {
					continue
				}
				b.addEdge(Edge{Source: s, Target: t, Type: EdgeHTTP, Method: "ANY", Path: strings.TrimSuffix(rt.path, "/{**catch-all}"), URL: addr,
					Confidence: round(0.9 * factor), Via: join("YARP route "+name+" to cluster "+rt.cluster, how)}, evidenceOf(r))
			}
		}
	}
}

// traefikRuleRE reads the path of a Traefik router rule: PathPrefix(`/api`).
var traefikRuleRE = lazyre.New("(?:PathPrefix|Path)\\(\\s*[`'\"]([^`'\"]+)[`'\"]")

// traefik adds the routes Traefik takes to the compose services whose
// labels enable it: an edge from the compose service that runs Traefik
// (in the same file) to each, with the path of its router rule.
func (b *builder) traefik() {
	proxy := map[[2]string]string{} // repo, compose file -> the Traefik service
	for _, r := range b.in.Resources {
		if r.Kind == core.ResourceCompose {
			for _, img := range r.Images {
				if strings.Contains(core.ImageName(img), "traefik") {
					proxy[[2]string{r.Repo, r.File}] = first(b.alias[strings.ToLower(r.Name)], r.Name)
				}
			}
		}
	}
	for _, r := range b.in.Resources {
		p := proxy[[2]string{r.Repo, r.File}]
		if r.Kind != core.ResourceCompose || p == "" || r.Labels["traefik.enable"] == "false" {
			continue
		}
		t := first(b.alias[strings.ToLower(r.Name)], r.Name)
		if t == p {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
			if !strings.HasPrefix(k, "traefik.http.routers.") || !strings.HasSuffix(k, ".rule") {
				continue
			}
			path := "/"
			if m := traefikRuleRE.FindStringSubmatch(r.Labels[k]); m != nil {
				path = m[1]
			}
			b.addEdge(Edge{Source: p, Target: t, Type: EdgeHTTP, Method: "ANY", Path: path, Confidence: 0.9,
				Via: "Traefik router " + strings.TrimSuffix(strings.TrimPrefix(k, "traefik.http.routers."), ".rule")}, evidenceOf(r))
		}
	}
}
