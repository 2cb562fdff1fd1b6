package chunk

import (
	"bufio"
	"bytes"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/internal/lazyre"
)

// settingsFormat says whether a config or deploy file holds settings a
// service reads at start-up, and the separator its nested keys are
// written with: appsettings.json ("Services:Catalog"), Helm values and
// Spring application.yml and bootstrap.yml ("upstreams.catalogUrl"), .env and .properties
// files (flat).
func settingsFormat(name string) (kind, sep string, ok bool) {
	switch {
	case strings.HasPrefix(name, "appsettings") && strings.HasSuffix(name, ".json"):
		return core.ResourceSettings, ":", true
	case name == "values.yaml" || name == "values.yml" || strings.HasPrefix(name, "values-") && (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")):
		return core.ResourceHelmValues, ".", true
	case springSettings(name) && (strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")):
		return core.ResourceSettings, ".", true
	case springSettings(name) && strings.HasSuffix(name, ".properties"):
		return core.ResourceSettings, "", true
	case name == ".env.example" || name == ".env.sample" || name == ".env.template" || name == ".env.dist" || name == ".env.defaults" || name == "env.example":
		return core.ResourceSettings, "", true
	case strings.HasSuffix(name, ".env") || strings.HasPrefix(name, ".env."):
		return core.ResourceSettings, "", true
	}
	return "", "", false
}

// springSettings reports whether a file name is one of Spring Boot's
// settings files: application.yml and its profiles, and Spring Cloud's
// bootstrap.yml, read before them (the config server's and the
// registry's addresses).
func springSettings(name string) bool {
	return strings.HasPrefix(name, "application") || strings.HasPrefix(name, "bootstrap")
}

// flatten turns nested maps and lists into "a.b.0.c" keys.
func flatten(v any, prefix, sep string, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			key := k
			if prefix != "" {
				key = prefix + sep + k
			}
			flatten(x, key, sep, out)
		}
	case []any:
		for i, x := range t {
			flatten(x, prefix+sep+strconv.Itoa(i), sep, out)
		}
	case nil:
		out[prefix] = ""
	default:
		out[prefix] = str(t)
	}
}

// flattenLines gives each key flatten makes of the YAML node n the line
// its value is written on (so that an edge a setting makes points at
// it, not at the file's first line).
func flattenLines(n *yaml.Node, prefix, sep string, out map[string]int) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if prefix != "" {
				key = prefix + sep + key
			}
			flattenLines(n.Content[i+1], key, sep, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			flattenLines(c, prefix+sep+strconv.Itoa(i), sep, out)
		}
	default:
		out[prefix] = n.Line
	}
}

var lineKV = lazyre.New(`^\s*(?:export\s+)?([A-Za-z_"][A-Za-z0-9_.\-/"]*)\s*[=:]\s*(.*?)\s*$`)

// maxConfigFile is the largest config file whose addresses are read
// (configFileResource).
const maxConfigFile = 256 << 10

// configFileResource reads the addresses of a YAML or JSON config file of
// no format the crawl knows (a server's config.yml, mounted into its
// container by a compose file): each value that looks like an address,
// under its flattened key, credentials redacted, with its line.
func configFileResource(base core.Chunk, src []byte) (core.Resource, bool) {
	name := strings.ToLower(path.Base(base.FilePath))
	if base.Corpus != core.CodeConfig || len(src) > maxConfigFile || jsonSchema(name, src) {
		return core.Resource{}, false
	}
	data, keys := configAddresses(src, path.Ext(name))
	if len(data) == 0 {
		return core.Resource{}, false
	}
	return core.Resource{Kind: core.ResourceConfigFile, Name: base.FilePath, Data: data, Keys: keys, Line: 1}, true
}

// configAddresses reads the addresses a YAML, JSON or TOML config file
// (by its extension ext) holds: each value that is a network address
// (networkAddress), under its flattened key, credentials redacted, with
// its line in src. Keys of JSON schemas' keywords ($schema, $id) are
// left out. nil for another extension or a file that does not parse.
func configAddresses(src []byte, ext string) (map[string]string, []core.KeyLine) {
	data := map[string]string{}
	var keys []core.KeyLine
	keep := func(key, v string, line int) {
		// Prometheus's scrape targets are what it watches, not what it
		// depends on; so are those of a Prometheus config another
		// program embeds (an OpenTelemetry collector's receiver).
		if strings.HasPrefix(key, "scrape_configs.") || strings.Contains(key, ".scrape_configs.") ||
			uiLinks(key) || exampleKey(key) {
			return
		}
		if v = strings.TrimSpace(v); key != "" && !strings.Contains("."+key, ".$") && (networkAddress(v) || localProductHost(key, v) || productHost(key, v)) {
			data[key] = redactCredentials(v)
			keys = append(keys, core.KeyLine{Key: key, Line: line})
		}
	}
	switch ext {
	case ".toml":
		var v map[string]any
		if err := toml.Unmarshal(src, &v); err != nil {
			return nil, nil
		}
		flat := map[string]string{}
		flatten(v, "", ".", flat)
		// The line of a value is the first that holds it as written.
		lines := strings.Split(string(src), "\n")
		for _, k := range slices.Sorted(maps.Keys(flat)) {
			line := 0
			for i, l := range lines {
				if flat[k] != "" && strings.Contains(l, flat[k]) {
					line = i + 1
					break
				}
			}
			keep(k, flat[k], line)
		}
	case ".yml", ".yaml", ".json":
		docs, err := parseYAMLDocs(src)
		if err != nil || len(docs) == 0 || len(docs[0].Content) == 0 {
			return nil, nil
		}
		var walk func(n *yaml.Node, prefix string)
		walk = func(n *yaml.Node, prefix string) {
			switch n.Kind {
			case yaml.MappingNode:
				// Envoy's socket_address: {address: HOST, port_value: PORT}.
				var host, port *yaml.Node
				for i := 0; i+1 < len(n.Content); i += 2 {
					switch v := n.Content[i+1]; n.Content[i].Value {
					case "address":
						host = v
					case "port_value":
						port = v
					}
				}
				if host != nil && port != nil && host.Kind == yaml.ScalarNode && port.Kind == yaml.ScalarNode {
					keep(prefix, host.Value+":"+port.Value, host.Line)
					return
				}
				// A host and its port under keys of their own
				// (postgresql: {host: db, port: 5432}): one address.
				hostKey, joined := "", ""
				for i := 0; i+1 < len(n.Content); i += 2 {
					switch k := n.Content[i].Value; strings.ToLower(k) {
					case "host", "hostname", "server":
						if v := n.Content[i+1]; v.Kind == yaml.ScalarNode {
							hostKey, host = k, v
						}
					case "port":
						if v := n.Content[i+1]; v.Kind == yaml.ScalarNode && strings.Trim(v.Value, "0123456789") == "" && v.Value != "" {
							port = v
						}
					}
				}
				if hostKey != "" && port != nil && !strings.Contains(host.Value, ":") {
					joined = hostKey
				}
				for i := 0; i+1 < len(n.Content); i += 2 {
					key := n.Content[i].Value
					if prefix != "" {
						key = prefix + "." + key
					}
					if joined != "" && n.Content[i].Value == joined {
						keep(key, host.Value+":"+port.Value, host.Line)
						continue
					}
					walk(n.Content[i+1], key)
				}
			case yaml.SequenceNode:
				for i, c := range n.Content {
					walk(c, prefix+"."+strconv.Itoa(i))
				}
			case yaml.ScalarNode:
				keep(prefix, n.Value, n.Line)
			}
		}
		walk(docs[0].Content[0], "")
	}
	return data, keys
}

// jsonSchema reports whether a config file is a JSON Schema (named
// *.schema.json, or declaring its $schema at the top): it describes a
// configuration, whose example and default addresses configure nothing.
func jsonSchema(name string, src []byte) bool {
	if strings.HasSuffix(name, ".schema.json") || strings.HasSuffix(name, ".schema.yaml") || strings.HasSuffix(name, ".schema.yml") {
		return true
	}
	head := src[:min(len(src), 512)]
	return bytes.Contains(head, []byte(`"$schema"`)) && bytes.Contains(head, []byte("json-schema.org"))
}

// uiLinks reports whether a config key holds the links a UI shows
// (links: [{name, url}]): addresses for people to follow, not ones the
// program calls.
func uiLinks(key string) bool {
	k := "." + strings.ToLower(key) + "."
	return strings.Contains(k, ".links.")
}

// exampleKey reports whether a config key holds examples (examples: [...],
// example: ...), as documentation and OpenAPI files write them.
func exampleKey(key string) bool {
	k := "." + strings.ToLower(key) + "."
	return strings.Contains(k, ".examples.") || strings.Contains(k, ".example.")
}

// networkSchemes are the URL schemes of services a config file may name
// (not file://, a schema's preset://, a registry's oci://).
var networkSchemes = map[string]bool{
	"http": true, "https": true, "ws": true, "wss": true, "grpc": true, "grpcs": true, "tcp": true, "udp": true,
	"amqp": true, "amqps": true, "mqtt": true, "mqtts": true, "nats": true, "kafka": true, "redis": true, "rediss": true,
	"postgres": true, "postgresql": true, "mysql": true, "mariadb": true, "mongodb": true, "mongodb+srv": true,
	"sqlserver": true, "mssql": true, "cockroach": true, "clickhouse": true, "cassandra": true, "memcached": true,
	"smtp": true, "smtps": true, "ldap": true, "ldaps": true, "jdbc": true, "zookeeper": true, "etcd": true,
}

// networkAddress reports whether a config file's value is a service's
// address: a URL of a network scheme (jdbc:postgresql://... too) or
// host:port. A bare word is not, whatever its key (dsn: memory).
func networkAddress(v string) bool {
	if scheme, _, ok := strings.Cut(v, "://"); ok {
		scheme = strings.ToLower(scheme)
		if s, _, ok := strings.Cut(scheme, ":"); ok { // jdbc:mysql
			scheme = s
		}
		return networkSchemes[scheme]
	}
	return hostPortRE.MatchString(v)
}

// localProductHost reports whether v is the machine alone (127.0.0.1,
// localhost) under a key naming a product whose clients know its port
// (cassandra.hosts): an address, that port on the developer's machine.
func localProductHost(key, v string) bool {
	return core.LocalHost(strings.Trim(v, `"'`)) && core.ProductPort(key) != ""
}

// productHost reports whether v is a host name or IP address alone
// (memcached, cache.internal, 10.0.4.12) under a key that says both that it is a host and of
// which product, one whose clients know its port (storage.memcached.host,
// redis.hostname): an address, as memcached:11211 would be. A bare word
// under any other key is not (dsn: memory, backend: s3).
func productHost(key, v string) bool {
	ws := codetok.Words(key)
	if len(ws) < 2 || core.ProductPort(key) == "" {
		return false
	}
	switch ws[len(ws)-1] {
	case "host", "hostname", "server", "address", "addr", "endpoint":
	default:
		return false
	}
	return bareHostRE.MatchString(strings.Trim(v, `"'`))
}

// settingsResource reads the keys and values of a settings file, or the
// addresses of another config file (configFileResource).
func settingsResource(base core.Chunk, src []byte) (core.Resource, bool) {
	name := strings.ToLower(path.Base(base.FilePath))
	kind, sep, ok := settingsFormat(name)
	if !ok {
		return configFileResource(base, src)
	}
	r := core.Resource{Kind: kind, Name: base.FilePath, Data: map[string]string{}, Line: 1}
	if sep == "" {
		// Env and properties files hold credentials beside addresses:
		// only addresses are kept, without their passwords.
		sc := bufio.NewScanner(bytes.NewReader(src))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		line := 0
		for sc.Scan() {
			line++
			l := sc.Text()
			if t := strings.TrimSpace(l); t == "" || t[0] == '#' || t[0] == '!' {
				continue
			}
			if m := lineKV.FindStringSubmatch(l); m != nil {
				if v := strings.Trim(m[2], `"'`); looksLikeAddress(m[1], v) || topicSetting(m[1], v) {
					r.Data[m[1]] = redactCredentials(v)
					r.Keys = append(r.Keys, core.KeyLine{Key: m[1], Line: line})
				}
			}
		}
	} else {
		docs, err := parseYAMLDocs(src)
		if err != nil || len(docs) == 0 || len(docs[0].Content) == 0 {
			return core.Resource{}, false
		}
		var v any
		if err := docs[0].Content[0].Decode(&v); err != nil {
			return core.Resource{}, false
		}
		flatten(v, "", sep, r.Data)
		lines := map[string]int{}
		flattenLines(docs[0].Content[0], "", sep, lines)
		for _, k := range slices.Sorted(maps.Keys(r.Data)) {
			if l := lines[k]; l > 0 {
				r.Keys = append(r.Keys, core.KeyLine{Key: k, Line: l})
			}
		}
	}
	if len(r.Data) == 0 {
		return core.Resource{}, false
	}
	// A Helm values file belongs to the chart in its folder.
	if kind == core.ResourceHelmValues {
		r.Service = path.Base(path.Dir(base.FilePath))
	}
	return r, true
}

var (
	hostPortRE  = lazyre.New(`^[A-Za-z0-9.-]+:[0-9]{2,5}$`)
	bareHostRE  = lazyre.New(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`)
	addrKeyRE   = lazyre.New(`(?i)(host|hostname|addr|address|endpoint|server|servers|url|uri|dsn|broker|brokers|service|svc|upstream|backend|target|connection|connectionstring|gateway)$`)
	userPassRE  = lazyre.New(`://([^:/@\s]*):([^@\s]+)@`)
	adoSecretRE = lazyre.New(`(?i)((?:password|pwd|accountkey|sharedaccesskey)\s*=)[^;]*`)
)

// topicKeyRE names a setting that holds a topic or queue:
// orders.topic, app.kafka.topics.reserved, ORDERS_QUEUE, bindings.out.destination.
var topicKeyRE = lazyre.New(`(?i)(^|[._])(topics?|queues?|destination|exchange)([._]|$)`)

// topicSetting reports whether a flat settings file's line names a topic
// or queue (a name, not a secret): kept beside the addresses, so that a
// topic read from the setting (Spring's @KafkaListener(topics =
// "${orders.topic}")) is known.
func topicSetting(key, v string) bool {
	return topicKeyRE.MatchString(key) && topicNameRE.MatchString(v)
}

var topicNameRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$`)

// looksLikeAddress reports whether a setting holds an address: a URL, a
// DSN or connection string, host:port, or a host under a key named like
// an address (CART_HOST=cart).
func looksLikeAddress(key, v string) bool {
	lv := strings.ToLower(v)
	switch {
	case v == "":
		return false
	case strings.Contains(v, "://"), hostPortRE.MatchString(v):
		return true
	case strings.Contains(v, ";") && strings.Contains(v, "="):
		return strings.Contains(lv, "host=") || strings.Contains(lv, "server=") || strings.Contains(lv, "endpoint=") || strings.Contains(lv, "data source=")
	}
	return bareHostRE.MatchString(v) && addrKeyRE.MatchString(key)
}

// redactCredentials drops the password of a URL's user part and of a
// connection string.
func redactCredentials(v string) string {
	v = userPassRE.ReplaceAllString(v, "://$1:…@")
	return adoSecretRE.ReplaceAllString(v, "${1}…")
}

var (
	helmEnvRE   = lazyre.New(`(?m)^\s*-\s*name:\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*\n\s*value:\s*(.+?)\s*$`)
	helmNameRE  = lazyre.New(`(?m)^metadata:\s*\n(?:\s+.*\n)*?\s+name:\s*["']?([^"'\s{}]+)["']?\s*$`)
	helmAppRE   = lazyre.New(`(?m)^\s+(?:app|app\.kubernetes\.io/name):\s*["']?([A-Za-z0-9][A-Za-z0-9._-]*)["']?\s*$`)
	helmImageRE = lazyre.New(`(?m)^\s*-?\s*image:\s*["']?(.+?)["']?\s*$`)
	// helmNameLineRE is the metadata name as written, templates and all.
	helmNameLineRE = lazyre.New(`(?m)^metadata:\s*\n(?:\s+.*\n)*?\s+name:\s*(.+?)\s*$`)
	// helmIncludeRE is a template line that renders another template:
	// {{- include "common.deployment" (dict ...) }}, {{ template "x" . }}.
	helmIncludeRE = lazyre.New(`(?m)^\s*\{\{-?\s*(?:include|template)\s+"([^"]+)"`)
	// helmChartNameRE is an action that renders a chart's own name as a
	// release named after the chart renders it: helm create's
	// "<chart>.fullname" and "<chart>.name" helpers (the chart in group
	// 1), .Chart.Name and .Release.Name.
	helmChartNameRE = lazyre.New(`\{\{-?[ \t]*(?:(?:include|template)[ \t]+"([^"]+)\.(?:fullname|name)"[ \t]+[.$]|\.Chart\.Name|\.Release\.Name)[ \t]*-?\}\}`)
	helmNsRE        = lazyre.New(`(?m)^metadata:\s*\n(?:\s+.*\n)*?\s+namespace:\s*["']?([^"'\s{}]+)["']?\s*$`)
)

// helmResources reads what a Helm template declares with plain YAML, one
// resource per document: its kind and name, and its env values ("{{
// .Values.upstreams.catalogUrl | quote }}" stays as written; the graph
// renders it with the chart's values). A workload or Service whose name
// or app label is written plainly is its own service (an umbrella chart
// deploys many); otherwise the resource belongs to the chart. partial
// says the file is one Helm does not render (_helpers.tpl).
func helmResources(src []byte, chart string, partial bool) []core.Resource {
	var out []core.Resource
	bounds := []int{0}
	for _, m := range docSepRE.FindAllIndex(src, -1) {
		bounds = append(bounds, m[0])
	}
	bounds = append(bounds, len(src))
	for i := 0; i+1 < len(bounds); i++ {
		raw := src[bounds[i]:bounds[i+1]]
		// doc is the document with the chart's names rendered; raw keeps
		// them as written, for a release of another name.
		doc := raw
		if chart != "" {
			doc = helmChartNameRE.ReplaceAllFunc(raw, func(m []byte) []byte {
				if g := helmChartNameRE.FindSubmatch(m); len(g[1]) > 0 && string(g[1]) != chart {
					return m // another chart's helper
				}
				return []byte(chart)
			})
		}
		r := core.Resource{Kind: core.ResourceHelmTemplate, Service: chart, Line: lineOf(src, bounds[i]) + leadingLines(doc)}
		kind := ""
		if m := helmKindRE.FindSubmatch(doc); m != nil {
			kind = string(m[1])
			r.Name = kind
		}
		if m := helmNameRE.FindSubmatch(doc); m != nil {
			r.Name = string(m[1])
		}
		if m := helmNsRE.FindSubmatch(doc); m != nil {
			r.Namespace = string(m[1])
		}
		if core.IsWorkload(kind) {
			// The workload's kind and its name as the template writes it
			// ({{ include "cart.fullname" . }}-worker): a release's pods
			// are named from it, which a pasted pod name is matched to.
			r.Data = map[string]string{"kind": kind}
			if m := helmNameLineRE.FindSubmatch(raw); m != nil {
				r.Data["name"] = string(m[1])
			}
		}
		if core.IsWorkload(kind) || kind == "Service" {
			own := ""
			if m := helmAppRE.FindSubmatch(doc); m != nil {
				own = string(m[1])
			} else if m := helmNameRE.FindSubmatch(doc); m != nil {
				own = string(m[1])
			}
			if own != "" {
				r.Service = own
				r.Labels = map[string]string{"kind": kind}
			}
			for _, m := range helmImageRE.FindAllSubmatch(doc, -1) {
				r.Images = append(r.Images, string(m[1]))
			}
		}
		if core.IsWorkload(kind) {
			r.Programs = helmPrograms(doc)
		}
		if kind == "" && !partial {
			// A document that only includes another template ({{ include
			// "common.deployment" . }} of a library chart) declares a kind
			// this cannot read: the graph must not take the chart for one
			// that deploys nothing. A partial (_helpers.tpl) is not
			// rendered as a manifest: its includes declare nothing.
			if m := helmIncludeRE.FindSubmatch(doc); m != nil {
				r.Data = map[string]string{"include": string(m[1])}
			}
		}
		for _, m := range helmEnvRE.FindAllSubmatchIndex(doc, -1) {
			v := strings.Trim(string(doc[m[4]:m[5]]), `"'`)
			name := string(doc[m[2]:m[3]])
			r.Env = append(r.Env, core.EnvVar{Name: name, Value: v, Line: lineOf(src, bounds[i]) + bytes.Count(doc[:m[2]], []byte("\n"))})
		}
		if len(r.Env) > 0 || r.Labels != nil || r.Data != nil {
			out = append(out, r)
		}
	}
	return out
}

// attach gives the resource to the file's first chunk.
func attach(r *Result, res core.Resource) {
	if len(r.Chunks) > 0 {
		r.Chunks[0].Resources = append(r.Chunks[0].Resources, res)
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
