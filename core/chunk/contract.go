package chunk

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// IsOpenAPI reports whether a YAML or JSON file is an OpenAPI or Swagger
// document: a top-level openapi or swagger key and paths.
func IsOpenAPI(src []byte) bool {
	head := src
	if len(head) > 4096 {
		head = head[:4096]
	}
	return (bytes.Contains(head, []byte("openapi")) || bytes.Contains(head, []byte("swagger"))) && bytes.Contains(src, []byte("paths"))
}

// Proto chunks a .proto file: a header (syntax, package, imports,
// options), one chunk per message and enum, and per service a chunk with
// its signature and one chunk per rpc, with the service and rpc names as
// symbols and "file > Service > Rpc" scopes.
func (c *Chunker) Proto(src []byte, base core.Chunk) Result {
	b := &builder{c: c, src: src, base: base}
	toks := protoTokens(src)
	pkg := ""
	headerEnd := uint(0)
	var lead uint // start of the comments above the current declaration
	leadSet := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.comment {
			if !leadSet {
				lead, leadSet = t.start, true
			}
			continue
		}
		start := t.start
		if leadSet {
			start = lead
		}
		leadSet = false
		switch t.text {
		case "syntax", "edition", "package", "import", "option":
			end := protoStatementEnd(toks, i)
			if t.text == "package" && i+1 < len(toks) {
				pkg = toks[i+1].text
			}
			if len(b.pieces) == 0 { // the header ends at the first declaration
				headerEnd = toks[end].end
			}
			i = end
		case "message", "enum", "extend":
			if i+1 >= len(toks) {
				continue
			}
			close := protoBlockEnd(toks, i)
			name := toks[i+1].text
			b.emit(start, toks[close].end, meta{symbol: name, kind: t.text, signature: t.text + " " + name})
			i = close
		case "service":
			if i+1 >= len(toks) {
				continue
			}
			name := toks[i+1].text
			close := protoBlockEnd(toks, i)
			// The service's own chunk: its signature and comments up to
			// the first rpc; then one chunk per rpc.
			j := i + 2
			for j < close && toks[j].text != "{" {
				j++
			}
			headStop := toks[j].end
			headDone := false
			var rpcLead uint
			rpcLeadSet := false
			k := j + 1
			for ; k < close; k++ {
				if toks[k].comment {
					if !rpcLeadSet {
						rpcLead, rpcLeadSet = toks[k].start, true
					}
					continue
				}
				if toks[k].text != "rpc" || k+1 >= close {
					rpcLeadSet = false
					continue
				}
				rs := toks[k].start
				if rpcLeadSet {
					rs = rpcLead
				}
				rpcLeadSet = false
				if !headDone {
					b.emit(start, headStop, meta{symbol: name, kind: "service", signature: "service " + name})
					headDone = true
				}
				end := protoRPCEnd(toks, k, close)
				rpc := toks[k+1].text
				sig := protoSignature(src, toks, k, end)
				b.emit(rs, toks[end].end, meta{symbol: rpc, kind: "rpc", signature: sig, scope: []string{name}})
				b.facts = append(b.facts, gatewayRoutes(src, toks[k].start, toks[end].end, name, rpc)...)
				k = end
			}
			if !headDone { // a service without rpcs
				b.emit(start, toks[close].end, meta{symbol: name, kind: "service", signature: "service " + name})
			} else {
				b.pieces[len(b.pieces)-1].end = toks[close].end // the closing brace
			}
			i = close
		}
	}
	if headerEnd > 0 {
		b.emit(0, headerEnd, meta{kind: "header", symbol: pkg})
	}
	b.cover()
	return Result{Chunks: b.chunks}
}

// gatewayBindingRE is an HTTP binding of an rpc's google.api.http option
// (gRPC-Gateway, Google's transcoding): get: "/v1/{name=shelves/*}".
var gatewayBindingRE = lazyre.New(`\b(get|put|post|delete|patch)\s*:\s*"(/[^"]*)"`)

// gatewayRoutes are the HTTP routes an rpc's google.api.http option binds
// (the rpc between start and end in src; additional_bindings too): the
// framework grpc-gateway, the rpc its handler and its service the router,
// so that a request finds the method's implementation.
func gatewayRoutes(src []byte, start, end uint, service, rpc string) []fact {
	text := src[start:end]
	if !bytes.Contains(text, []byte("google.api.http")) {
		return nil
	}
	var out []fact
	for _, m := range gatewayBindingRE.FindAllSubmatchIndex(text, -1) {
		at := start + uint(m[0])
		r := core.Route{Method: strings.ToUpper(string(text[m[2]:m[3]])), Path: normPath(gatewayPath(string(text[m[4]:m[5]]))),
			Framework: "grpc-gateway", Handler: rpc, Router: service, Line: lineOf(src, int(at))}
		out = append(out, fact{at: at, route: &r})
	}
	return out
}

// gatewayPath writes a transcoding template as a route template: each *
// of a variable's pattern is a placeholder named for the variable
// ({name=shelves/*/books/*}: shelves/{name}/books/{name}), ** a catch-all,
// and a custom verb (:archive) is left off.
func gatewayPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); {
		if p[i] != '{' {
			b.WriteByte(p[i])
			i++
			continue
		}
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			b.WriteString(p[i:])
			break
		}
		name, pattern, ok := strings.Cut(p[i+1:i+j], "=")
		switch {
		case !ok:
			b.WriteString("{" + name + "}")
		default:
			parts := strings.Split(pattern, "/")
			for k, part := range parts {
				switch part {
				case "*":
					parts[k] = "{" + name + "}"
				case "**":
					parts[k] = "{" + name + "...}"
				}
			}
			b.WriteString(strings.Join(parts, "/"))
		}
		i += j + 1
	}
	out := b.String()
	if k := strings.LastIndexByte(out, ':'); k > strings.LastIndexByte(out, '/') && k > strings.LastIndexByte(out, '}') {
		out = out[:k] // a custom verb
	}
	return out
}

type protoToken struct {
	text       string
	start, end uint
	comment    bool
}

// protoTokens splits a .proto file into identifiers, punctuation, string
// literals and comments.
func protoTokens(src []byte) []protoToken {
	var out []protoToken
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			out = append(out, protoToken{string(src[i : i+j]), uint(i), uint(i + j), true})
			i += j
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			end := len(src)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			out = append(out, protoToken{string(src[i:end]), uint(i), uint(end), true})
			i = end
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			out = append(out, protoToken{string(src[i:j]), uint(i), uint(j), false})
			i = j
		case c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '.' || src[j] >= '0' && src[j] <= '9' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z') {
				j++
			}
			out = append(out, protoToken{string(src[i:j]), uint(i), uint(j), false})
			i = j
		default:
			out = append(out, protoToken{string(src[i : i+1]), uint(i), uint(i + 1), false})
			i++
		}
	}
	return out
}

// protoStatementEnd returns the index of the ';' ending the statement at i.
func protoStatementEnd(toks []protoToken, i int) int {
	for j := i; j < len(toks); j++ {
		if toks[j].text == ";" {
			return j
		}
	}
	return len(toks) - 1
}

// protoBlockEnd returns the index of the '}' closing the block opened after i.
func protoBlockEnd(toks []protoToken, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].text {
		case "{":
			depth++
		case "}":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks) - 1
}

// protoRPCEnd returns the index of the ';' or '}' ending the rpc at k.
func protoRPCEnd(toks []protoToken, k, limit int) int {
	for j := k; j < limit; j++ {
		switch toks[j].text {
		case ";":
			return j
		case "{":
			return protoBlockEnd(toks, j-1)
		}
	}
	return limit - 1
}

func protoSignature(src []byte, toks []protoToken, k, end int) string {
	stop := toks[end].end
	for j := k; j <= end; j++ {
		if toks[j].text == "{" || toks[j].text == ";" {
			stop = toks[j].start
			break
		}
	}
	return strings.Join(strings.Fields(string(src[toks[k].start:stop])), " ")
}

var openAPIMethods = map[string]bool{"get": true, "post": true, "put": true, "delete": true, "patch": true, "head": true, "options": true, "trace": true}

// OpenAPI chunks an OpenAPI or Swagger document: one chunk and one route
// per operation (with basePath or the first server's path as prefix); the
// rest of the document is covered by other chunks. It reports an error
// for a document that does not parse.
func (c *Chunker) OpenAPI(src []byte, base core.Chunk) (Result, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return Result{}, fmt.Errorf("openapi %s: %w", base.FilePath, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return Result{}, fmt.Errorf("openapi %s: not a mapping", base.FilePath)
	}
	root := doc.Content[0]
	lines := newLineIndex(src)
	lineStart := func(l int) uint { // byte offset of 1-based line l
		if l <= 1 {
			return 0
		}
		if l-2 < len(lines) {
			return lines[l-2] + 1
		}
		return uint(len(src))
	}
	prefix := ""
	var paths *yaml.Node
	nextTop := map[*yaml.Node]int{} // a top-level value -> line of the next top-level key
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if i+2 < len(root.Content) {
			nextTop[v] = root.Content[i+2].Line
		}
		switch k.Value {
		case "basePath":
			prefix = v.Value
		case "servers":
			if len(v.Content) > 0 {
				for j := 0; j+1 < len(v.Content[0].Content); j += 2 {
					if v.Content[0].Content[j].Value == "url" {
						u := v.Content[0].Content[j+1].Value
						if i := strings.Index(u, "://"); i >= 0 {
							u = u[i+3:]
							if s := strings.IndexByte(u, '/'); s >= 0 {
								u = u[s:]
							} else {
								u = ""
							}
						}
						prefix = u
					}
				}
			}
		case "paths":
			paths = v
		}
	}
	b := &builder{c: c, src: src, base: base}
	var facts []fact
	// Everything before the first path is the document's header; every
	// top-level section after paths (components, security, ...) is a chunk.
	var pathsKeyLine int
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if root.Content[i+1] == paths {
			pathsKeyLine = k.Line
			continue
		}
		if pathsKeyLine > 0 {
			to := len(lines) + 2
			if i+2 < len(root.Content) {
				to = root.Content[i+2].Line
			}
			b.emit(lineStart(k.Line), lineStart(to), meta{symbol: k.Value, kind: "section"})
		}
	}
	if paths != nil && len(paths.Content) > 0 {
		b.emit(0, lineStart(paths.Content[0].Line), meta{kind: "header", symbol: base.FilePath})
	}
	if paths != nil && paths.Kind == yaml.MappingNode {
		end := len(lines) + 2
		if l, ok := nextTop[paths]; ok {
			end = l
		}
		for i := 0; i+1 < len(paths.Content); i += 2 {
			pk, pv := paths.Content[i], paths.Content[i+1]
			pathEnd := end
			if i+2 < len(paths.Content) {
				pathEnd = paths.Content[i+2].Line
			}
			if pv.Kind != yaml.MappingNode {
				continue
			}
			var ops []int
			for j := 0; j+1 < len(pv.Content); j += 2 {
				if openAPIMethods[strings.ToLower(pv.Content[j].Value)] {
					ops = append(ops, j)
				}
			}
			for n, j := range ops {
				mk, mv := pv.Content[j], pv.Content[j+1]
				from := mk.Line
				if n == 0 {
					from = pk.Line // the path line joins its first operation
				}
				to := pathEnd
				if n+1 < len(ops) {
					to = pv.Content[ops[n+1]].Line
				}
				method := strings.ToUpper(mk.Value)
				opID := ""
				for k := 0; k+1 < len(mv.Content); k += 2 {
					if mv.Content[k].Value == "operationId" {
						opID = mv.Content[k+1].Value
					}
				}
				full := joinPath(prefix, pk.Value)
				sym := opID
				if sym == "" {
					sym = method + " " + full
				}
				start, stop := lineStart(from), lineStart(to)
				b.emit(start, stop, meta{symbol: sym, kind: "operation", signature: method + " " + full, scope: []string{pk.Value}})
				r := core.Route{Method: method, Path: normPath(full), Framework: "openapi", Handler: opID, Line: mk.Line}
				facts = append(facts, fact{at: lineStart(mk.Line) + uint(mk.Column) - 1, route: &r})
			}
		}
	}
	b.facts = facts
	b.cover()
	return Result{Chunks: b.chunks}, nil
}

// File chunks a file with the structural chunker that fits it: tree-sitter
// for source code, Proto for .proto files, OpenAPI for OpenAPI and Swagger
// documents, Markdown and Paragraphs for docs, Kubernetes, Compose,
// Dockerfile, Helm and Terraform for deploy files, Config for config
// files. It reports false when none fits (the caller uses windows).
func (c *Chunker) File(src []byte, base core.Chunk) (Result, bool, error) {
	r, ok, err := c.file(src, base)
	if ok && err == nil && !IsSecretEnvFile(base.FilePath) {
		if res, found := settingsResource(base, src); found {
			attach(&r, res)
		}
	}
	return r, ok, err
}

func (c *Chunker) file(src []byte, base core.Chunk) (Result, bool, error) {
	lang, name := base.Language, strings.ToLower(path.Base(base.FilePath))
	if lang == "makefile" || lang == "shell" {
		// Windows, as any text, and the Go programs it builds.
		if res, ok := GoBuildResource(src); ok {
			r := c.fallback(src, base, "")
			attach(&r, res)
			return r, true, nil
		}
	}
	if name == "tiltfile" {
		r := c.fallback(src, base, "")
		r.Fallback = ""
		if res, ok := TiltResource(src); ok {
			attach(&r, res)
		}
		return r, true, nil
	}
	docs := base.Corpus.Type().Chunker == core.ChunkMarkdown
	if (lang == "conf" || lang == "text" || lang == "" || strings.Contains(name, "nginx")) && !docs && IsNginx(src) {
		// (A document's example configuration configures nothing.)
		r := c.fallback(src, base, "")
		r.Fallback = ""
		if res, ok := NginxResource(src, base.FilePath); ok {
			attach(&r, res)
		}
		return r, true, nil
	}
	switch {
	case c.Supports(lang):
		r, err := c.Code(src, base)
		return r, true, err
	case lang == "protobuf":
		return c.Proto(src, base), true, nil
	case (lang == "yaml" || lang == "json") && IsOpenAPI(src):
		if r, err := c.OpenAPI(src, base); err == nil {
			return r, true, nil
		}
	}
	switch base.Corpus {
	case core.DocReadme, core.DocRunbook, core.DocADR, core.DocGoogle:
		if lang == "markdown" {
			return c.Markdown(src, base), true, nil
		}
		return c.Paragraphs(src, base), true, nil
	case core.CodeDeploy:
		switch {
		case name == "procfile":
			r := c.Paragraphs(src, base)
			for _, res := range ProcfileResources(src, base.FilePath, base.RepoName) {
				attach(&r, res)
			}
			return r, true, nil
		case lang == "dockerfile":
			r := c.Dockerfile(src, base)
			if res, ok := DockerfileResource(src, base.FilePath); ok {
				attach(&r, res)
			}
			if res, ok := GoBuildResource(src); ok {
				attach(&r, res)
			}
			return r, true, nil
		case lang == "hcl":
			return c.Terraform(src, base), true, nil
		case lang == "yaml" && IsWorkflow(base.FilePath):
			r, warn := c.Config(src, base)
			r.Warning = warn
			if res, ok := WorkflowBuildResource(src, base.FilePath); ok {
				attach(&r, res)
			}
			return r, true, nil
		case lang == "gotemplate" || (lang == "yaml" && (strings.Contains("/"+base.FilePath, "/templates/") || goTemplateActions(src))):
			return c.HelmTemplate(src, base), true, nil
		case lang == "yaml" && IsKustomization(base.FilePath):
			return c.Kustomization(src, base), true, nil
		case lang == "yaml" && (strings.Contains(name, "compose") || composeRootRE.Match(src)):
			return c.Compose(src, base), true, nil
		case lang == "yaml" && kindRE.Match(src):
			return c.Kubernetes(src, base), true, nil
		case lang == "yaml" && IsEnvoy(src):
			r, warn := c.Config(src, base)
			r.Warning = warn
			if res, ok := EnvoyResource(src, base.FilePath); ok {
				attach(&r, res)
			}
			return r, true, nil
		case lang == "yaml" || lang == "json":
			r, warn := c.Config(src, base)
			r.Warning = warn
			if lang == "yaml" {
				attachAzd(&r, base.FilePath, src)
				attachDaprRun(&r, src)
			}
			if name == "chart.yaml" {
				// A Helm chart names the service it deploys.
				if m := chartNameRE.FindSubmatch(src); m != nil {
					for i := range r.Chunks {
						r.Chunks[i].ServiceName = string(m[1])
					}
					attach(&r, core.Resource{Kind: core.ResourceChart, Name: string(m[1]), Service: string(m[1]), Line: lineOf(src, chartNameRE.FindIndex(src)[0])})
				}
			}
			return r, true, nil
		}
	case core.CodeConfig:
		if lang == "dotenv" && IsSecretEnvFile(base.FilePath) {
			return c.DotEnv(src, base), true, nil
		}
		r, warn := c.Config(src, base)
		if lang == "yaml" {
			attachAzd(&r, base.FilePath, src)
			attachDaprRun(&r, src)
		}
		if lang == "yaml" && IsEnvoy(src) {
			if res, ok := EnvoyResource(src, base.FilePath); ok {
				attach(&r, res)
			}
		}
		if r.Fallback == "no config chunker" {
			return Result{}, false, nil
		}
		r.Warning = warn
		return r, true, nil
	}
	return Result{}, false, nil
}

var (
	composeRootRE = lazyre.New(`(?m)^services:\s*$`)
	kindRE        = lazyre.New(`(?m)^kind:\s*[A-Z]`)
	chartNameRE   = lazyre.New(`(?m)^name:\s*["']?([A-Za-z0-9][A-Za-z0-9_.-]*)`)
)

// goTemplateActions reports whether src holds Go template actions ({{ }}),
// not only CI expressions (${{ }} in GitHub Actions and Azure Pipelines).
func goTemplateActions(src []byte) bool {
	for i := bytes.Index(src, []byte("{{")); i >= 0; {
		if i == 0 || src[i-1] != '$' {
			return true
		}
		j := bytes.Index(src[i+2:], []byte("{{"))
		if j < 0 {
			return false
		}
		i += 2 + j
	}
	return false
}
