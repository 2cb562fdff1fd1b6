package chunk

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// ResourceProxy and ResourceDockerfile are the resources NginxResource
// and DockerfileResource read.
const (
	ResourceProxy      = core.ResourceProxy
	ResourceDockerfile = core.ResourceDockerfile
)

// shellRefRE finds $NAME in shell-like text (scripts, Dockerfiles, nginx
// templates filled by envsubst).
var shellRefRE = lazyre.New(`\$([A-Z][A-Z0-9_]{2,})\b`)

// shellLike are the languages whose $NAME is an environment variable.
var shellLike = map[string]bool{"shell": true, "dockerfile": true, "conf": true, "text": true, "makefile": true, "": true}

// AddEnvRefs records, on the chunks of a file that tree-sitter did not
// parse, the environment variables its text names: ${NAME} and
// ${NAME:-default} anywhere, $NAME in shell-like files. They tell the
// service graph which variables a service's scripts, Dockerfiles and
// templates use.
func AddEnvRefs(chunks []core.Chunk, language string) {
	if _, parsed := grammars[language]; parsed {
		return
	}
	for i := range chunks {
		c := &chunks[i]
		if c.Corpus != core.CodeLogic && c.Corpus != core.CodeDeploy && c.Corpus != core.CodeConfig {
			continue
		}
		text := c.Text
		seen := map[string]bool{}
		add := func(off int, name, def string) {
			if seen[name] {
				return
			}
			seen[name] = true
			c.Bindings = append(c.Bindings, core.Binding{Kind: BindEnv, Env: name, Default: def, Line: c.LineStart + strings.Count(text[:off], "\n")})
		}
		for _, m := range placeholderRE.FindAllStringSubmatchIndex(text, -1) {
			add(m[0], text[m[2]:m[3]], placeholderDefault(text, m))
		}
		if shellLike[language] {
			for _, m := range shellRefRE.FindAllStringSubmatchIndex(text, -1) {
				add(m[0], text[m[2]:m[3]], "")
			}
		}
	}
}

// nginxPassRE tells an nginx configuration that proxies from other text.
var nginxPassRE = lazyre.New(`\b(proxy_pass|grpc_pass|uwsgi_pass|fastcgi_pass)\s+[^\s;]+\s*;`)

// IsNginx reports whether src looks like an nginx configuration that
// passes requests on (nginx.conf, default.conf.template).
func IsNginx(src []byte) bool {
	return nginxPassRE.Match(src) && (bytes.Contains(src, []byte("location")) || bytes.Contains(src, []byte("server")))
}

// nginxVarRE finds nginx's own variables ($request_uri, $host), which are
// lower case; ${NAME} is an envsubst template.
var nginxVarRE = lazyre.New(`\$[a-z_]`)

// nginxToken is a word, a quoted string, or one of { } ; of an nginx file.
type nginxToken struct {
	text string
	line int
}

func nginxTokens(src []byte) []nginxToken {
	var out []nginxToken
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '{' || c == '}' || c == ';':
			out = append(out, nginxToken{string(c), line})
			i++
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j, len(src))
			out = append(out, nginxToken{string(src[i+1 : end]), line})
			line += bytes.Count(src[i:end], []byte("\n"))
			i = end + 1
		default:
			j := i
			for j < len(src) && !bytes.ContainsRune([]byte(" \t\r\n{};#"), rune(src[j])) {
				if src[j] == '$' && j+1 < len(src) && src[j+1] == '{' {
					// ${NAME}: an envsubst template, part of the word.
					if k := bytes.IndexByte(src[j:], '}'); k > 0 {
						j += k + 1
						continue
					}
				}
				j++
			}
			out = append(out, nginxToken{string(src[i:j]), line})
			i = j
		}
	}
	return out
}

// NginxResource reads the locations of an nginx configuration and where
// each passes requests: proxy_pass http://cart:8080/ under location
// /api/cart/ is a backend {Path: /api/cart/, Service: cart, Port: 8080}.
// A pass to an upstream block becomes one backend per server of the
// block. The second result is false when nothing is passed anywhere.
func NginxResource(src []byte, file string) (core.Resource, bool) {
	toks := nginxTokens(src)
	type block struct {
		name string
		args []string
	}
	upstreams := map[string][]nginxToken{}
	type pass struct {
		location string
		target   string
		line     int
	}
	var passes []pass
	var stack []block
	var stmt []nginxToken
	for _, t := range toks {
		switch t.text {
		case "{":
			b := block{}
			if len(stmt) > 0 {
				b.name = stmt[0].text
				for _, s := range stmt[1:] {
					b.args = append(b.args, s.text)
				}
			}
			stack = append(stack, b)
			stmt = nil
		case "}":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			stmt = nil
		case ";":
			if len(stmt) >= 2 {
				name := stmt[0].text
				switch {
				case name == "server" && len(stack) > 0 && stack[len(stack)-1].name == "upstream" && len(stack[len(stack)-1].args) > 0:
					up := stack[len(stack)-1].args[0]
					upstreams[up] = append(upstreams[up], stmt[1])
				case strings.HasSuffix(name, "_pass"):
					loc := ""
					for i := len(stack) - 1; i >= 0; i-- {
						if stack[i].name == "location" && len(stack[i].args) > 0 {
							loc = stack[i].args[len(stack[i].args)-1]
							break
						}
					}
					passes = append(passes, pass{loc, stmt[1].text, stmt[0].line})
				}
			}
			stmt = nil
		default:
			stmt = append(stmt, t)
		}
	}
	r := core.Resource{Kind: ResourceProxy, Name: file, Line: 1, Labels: map[string]string{"proxy": "nginx"}}
	for _, p := range passes {
		scheme, rest, ok := strings.Cut(p.target, "://")
		if !ok {
			scheme, rest = "", p.target // fastcgi_pass php:9000, unix sockets
		}
		if strings.HasPrefix(rest, "unix:") || strings.HasPrefix(rest, "$") && !strings.HasPrefix(rest, "${") {
			continue // a socket, or a variable set at request time
		}
		hostport := rest
		if i := strings.IndexByte(hostport, '/'); i >= 0 {
			hostport = hostport[:i]
		}
		if m := nginxVarRE.FindStringIndex(hostport); m != nil && m[0] > 0 {
			hostport = hostport[:m[0]] // cart:8080$request_uri
		}
		loc := p.location
		if loc == "" {
			loc = "/"
		}
		if servers, ok := upstreams[hostport]; ok {
			for _, s := range servers {
				host, port := splitHostPort(s.text)
				r.Backends = append(r.Backends, core.Backend{Host: scheme, Path: loc, Service: host, Port: port, Line: s.line})
			}
			continue
		}
		host, port := splitHostPort(hostport)
		if host == "" {
			continue
		}
		r.Backends = append(r.Backends, core.Backend{Host: scheme, Path: loc, Service: host, Port: port, Line: p.line})
	}
	if len(r.Backends) == 0 {
		return core.Resource{}, false
	}
	return r, true
}

// splitHostPort splits "cart:8080", "${CART_HOST}:8080" and "[::1]:80";
// a bare host has no port.
func splitHostPort(s string) (string, string) {
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i > 0 {
			return s[1:i], strings.TrimPrefix(s[i+1:], ":")
		}
	}
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || strings.Contains(s[i:], "}") {
		return s, ""
	}
	return s[:i], s[i+1:]
}

// dockerEnvRE reads one ENV instruction's assignments: KEY=value pairs
// (quoted or not) or the legacy "ENV KEY value".
var dockerEnvRE = lazyre.New(`([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)`)

// DockerfileResource reads the final stage of a Dockerfile (the one that
// runs): its base image, the environment it sets, each variable with its
// line, and the task queue worker its command runs (core.Resource.Worker).
func DockerfileResource(src []byte, file string) (core.Resource, bool) {
	lines := strings.Split(string(src), "\n")
	r := core.Resource{Kind: ResourceDockerfile, Name: path.Dir(file), Line: 1}
	var entry, cmd []string // the final stage's ENTRYPOINT and CMD
	for i := 0; i < len(lines); i++ {
		start := i
		l := strings.TrimSpace(lines[i])
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[i])
		}
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(l, "#") {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "FROM":
			img := ""
			for _, w := range f[1:] {
				if !strings.HasPrefix(w, "--") {
					img = w
					break
				}
			}
			r.Images, r.Env, r.Line = []string{img}, nil, start+1
			entry, cmd = nil, nil
		case "CMD", "ENTRYPOINT":
			// CMD ["celery", "-A", "tasks", "worker"]: a list, or the
			// shell form's words.
			rest := strings.TrimSpace(l[len(f[0]):])
			var items []string
			if err := json.Unmarshal([]byte(rest), &items); err != nil {
				items = []string{rest}
			}
			if strings.EqualFold(f[0], "CMD") {
				cmd = items
			} else {
				entry = items
			}
		case "ENV":
			rest := strings.TrimSpace(l[len(f[0]):])
			if !strings.Contains(f[1], "=") {
				// ENV KEY value
				r.Env = append(r.Env, core.EnvVar{Name: f[1], Value: strings.Trim(strings.TrimSpace(rest[len(f[1]):]), `"'`), Line: envLine(lines, start, i, f[1])})
				continue
			}
			for _, m := range dockerEnvRE.FindAllStringSubmatch(rest, -1) {
				r.Env = append(r.Env, core.EnvVar{Name: m[1], Value: strings.Trim(m[2], `"'`), Line: envLine(lines, start, i, m[1])})
			}
		}
	}
	if len(r.Images) == 0 {
		return core.Resource{}, false
	}
	r.Worker = taskWorker(append(entry, cmd...))
	return r, true
}

// envLine is the line, among lines[from..to], that sets name.
func envLine(lines []string, from, to int, name string) int {
	for i := from; i <= to && i < len(lines); i++ {
		if strings.Contains(lines[i], name) {
			return i + 1
		}
	}
	return from + 1
}

// IsEnvoy reports whether a YAML file is an Envoy bootstrap configuration
// (static clusters and routes).
func IsEnvoy(src []byte) bool {
	return bytes.Contains(src, []byte("static_resources")) && bytes.Contains(src, []byte("clusters"))
}

// EnvoyResource reads an Envoy configuration: each route's path prefix
// and the endpoints of the cluster it sends to (socket_address address
// and port_value, ${VAR} templates kept as written).
func EnvoyResource(src []byte, file string) (core.Resource, bool) {
	docs, err := parseYAMLDocs(src)
	if err != nil || len(docs) == 0 || len(docs[0].Content) == 0 {
		return core.Resource{}, false
	}
	type endpoint struct {
		host, port string
		line       int
	}
	clusters := map[string][]endpoint{}
	type route struct {
		prefix, cluster string
		line            int
	}
	var routes []route
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.MappingNode:
			m := map[string]*yaml.Node{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				m[n.Content[i].Value] = n.Content[i+1]
			}
			if name, la := m["name"], m["load_assignment"]; name != nil && la != nil {
				var find func(x *yaml.Node)
				find = func(x *yaml.Node) {
					if x.Kind == yaml.MappingNode {
						for i := 0; i+1 < len(x.Content); i += 2 {
							if x.Content[i].Value == "socket_address" {
								sa := x.Content[i+1]
								var ep endpoint
								for j := 0; j+1 < len(sa.Content); j += 2 {
									switch sa.Content[j].Value {
									case "address":
										ep.host, ep.line = sa.Content[j+1].Value, sa.Content[j+1].Line
									case "port_value":
										ep.port = sa.Content[j+1].Value
									}
								}
								if ep.host != "" {
									clusters[name.Value] = append(clusters[name.Value], ep)
								}
								continue
							}
							find(x.Content[i+1])
						}
					}
					if x.Kind == yaml.SequenceNode {
						for _, c := range x.Content {
							find(c)
						}
					}
				}
				find(la)
			}
			if match, rt := m["match"], m["route"]; match != nil && rt != nil && rt.Kind == yaml.MappingNode {
				prefix := "/"
				for i := 0; i+1 < len(match.Content); i += 2 {
					switch match.Content[i].Value {
					case "prefix", "path", "path_separated_prefix":
						prefix = match.Content[i+1].Value
					}
				}
				for i := 0; i+1 < len(rt.Content); i += 2 {
					switch rt.Content[i].Value {
					case "cluster":
						routes = append(routes, route{prefix, rt.Content[i+1].Value, rt.Content[i+1].Line})
					case "weighted_clusters":
						var find func(x *yaml.Node)
						find = func(x *yaml.Node) {
							for j := 0; j+1 < len(x.Content); j += 2 {
								if x.Kind == yaml.MappingNode && x.Content[j].Value == "name" {
									routes = append(routes, route{prefix, x.Content[j+1].Value, x.Content[j+1].Line})
								}
							}
							for _, c := range x.Content {
								if c.Kind != yaml.ScalarNode {
									find(c)
								}
							}
						}
						find(rt.Content[i+1])
					}
				}
			}
			for i := 1; i < len(n.Content); i += 2 {
				walk(n.Content[i])
			}
		case yaml.SequenceNode, yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	walk(docs[0])
	r := core.Resource{Kind: ResourceProxy, Name: file, Line: 1, Labels: map[string]string{"proxy": "envoy"}}
	for _, rt := range routes {
		for _, ep := range clusters[rt.cluster] {
			r.Backends = append(r.Backends, core.Backend{Path: rt.prefix, Service: ep.host, Port: ep.port, Line: ep.line})
		}
	}
	if len(r.Backends) == 0 {
		return core.Resource{}, false
	}
	return r, true
}

// tiltBuildRE reads Tilt's docker_build('image', 'context', ...).
var tiltBuildRE = lazyre.New(`(?m)docker_build\(\s*['"]([^'"]+)['"]\s*,\s*['"]([^'"]+)['"]`)

// TiltResource reads the images a Tiltfile builds and their contexts.
func TiltResource(src []byte) (core.Resource, bool) {
	r := core.Resource{Kind: core.ResourceBuild, Name: "Tiltfile", Data: map[string]string{}, Line: 1}
	for _, m := range tiltBuildRE.FindAllSubmatch(src, -1) {
		r.Data[string(m[1])] = string(m[2])
	}
	return r, len(r.Data) > 0
}
