package chunk

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"gopkg.in/yaml.v3"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

var docSepRE = lazyre.New(`(?m)^---[ \t]*(#.*)?\r?$`)

// Kubernetes chunks multi-document Kubernetes YAML: one chunk per
// resource, with its kind and name as symbol, its labels in K8sLabels,
// its service (the app label, else the name of a workload or Service) in
// ServiceName, and kind, namespace, selector, images, ports, env values
// and ConfigMap/Secret references in Meta. A document that does not parse
// is indexed as text and reported as a warning.
func (c *Chunker) Kubernetes(src []byte, base core.Chunk) Result {
	b := &builder{c: c, src: src, base: base}
	var warnings []string
	bounds := []int{0}
	for _, m := range docSepRE.FindAllIndex(src, -1) {
		bounds = append(bounds, m[0])
	}
	bounds = append(bounds, len(src))
	// The resource of each emitted piece, in order, with the start of the
	// document it is a piece of (a large document is cut into windows).
	type pieceOf struct {
		start, doc int
		ri         resourceInfo
	}
	var pieces []pieceOf
	for i := 0; i+1 < len(bounds); i++ {
		s, e := bounds[i], bounds[i+1]
		seg := src[s:e]
		if len(bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(seg), []byte("---")))) == 0 {
			continue
		}
		docs, err := parseYAMLDocs(seg)
		if err != nil || len(docs) == 0 || len(docs[0].Content) == 0 {
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("document at line %d indexed as text: %v", lineOf(src, s), err))
			}
			b.windows(uint(s), uint(e), meta{})
			continue
		}
		var obj map[string]any
		if err := docs[0].Content[0].Decode(&obj); err != nil {
			warnings = append(warnings, fmt.Sprintf("document at line %d indexed as text: %v", lineOf(src, s), err))
			b.windows(uint(s), uint(e), meta{})
			continue
		}
		ri := resource(obj)
		backendLines(src, s, e, ri.res.Backends)
		keyLines(src, s, e, &ri.res)
		m := meta{symbol: ri.name, kind: ri.kind}
		if ri.kind == "" {
			m = meta{}
		}
		before := len(b.pieces)
		if b.tokens(uint(s), uint(e)) > c.opts.Budget {
			b.windows(uint(s), uint(e), m)
		} else {
			b.emit(uint(s), uint(e), m)
		}
		for _, p := range b.pieces[before:] {
			pieces = append(pieces, pieceOf{int(p.start), s, ri})
		}
	}
	b.cover()
	// A chunk is of the last piece that starts at or before it; the
	// resource goes with the first chunk of its document only, at the
	// line of the document's first key.
	attached := map[int]bool{}
	for i := range b.chunks {
		ch := &b.chunks[i]
		j := sort.Search(len(pieces), func(j int) bool { return pieces[j].start > ch.ByteStart }) - 1
		if j < 0 {
			continue
		}
		p := pieces[j]
		if p.ri.kind == "" || ch.SymbolName != p.ri.name || ch.SymbolKind != p.ri.kind {
			continue
		}
		ch.K8sLabels, ch.ServiceName, ch.Meta = p.ri.labels, p.ri.service, mergeMeta(ch.Meta, p.ri.meta)
		if !attached[p.doc] {
			attached[p.doc] = true
			r := p.ri.res
			r.Line = lineOf(src, p.doc) + leadingLines(src[p.doc:])
			ch.Resources = append(ch.Resources, r)
			// A ConfigMap's config files: their lines follow the key's.
			for _, f := range p.ri.files {
				key := strings.TrimPrefix(f.Name, "configmap:"+p.ri.name+"/")
				at := r.Line
				for _, kl := range r.Keys {
					if kl.Key == key {
						at = kl.Line
					}
				}
				f.Line = at
				f.Keys = slices.Clone(f.Keys)
				for i := range f.Keys {
					f.Keys[i].Line += at
				}
				ch.Resources = append(ch.Resources, f)
			}
		}
	}
	return Result{Chunks: b.chunks, Warning: strings.Join(warnings, "; ")}
}

func lineOf(src []byte, off int) int { return bytes.Count(src[:off], []byte("\n")) + 1 }

// leadingLines counts the blank, comment and "---" lines a document
// starts with, so that a resource's line is the line of its first key.
func leadingLines(doc []byte) int {
	n := 0
	for len(doc) > 0 {
		i := bytes.IndexByte(doc, '\n')
		if i < 0 {
			return n
		}
		l := bytes.TrimSpace(doc[:i])
		if len(l) > 0 && l[0] != '#' && !bytes.Equal(l, []byte("---")) {
			return n
		}
		n++
		doc = doc[i+1:]
	}
	return n
}

// resourceInfo is what a Kubernetes resource says about itself.
type resourceInfo struct {
	kind, name, service string
	labels              map[string]string
	meta                map[string]string
	res                 core.Resource
	// files are the config files a ConfigMap's data holds (a key named
	// like app.yaml): the addresses of each (configAddresses), named
	// "configmap:NAME/KEY", their lines within the value.
	files []core.Resource
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

func obj(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func strMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k] = str(x)
	}
	return out
}

func joinMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ", ")
}

// backendLines finds the line naming each Ingress backend's service in
// src[start:end], in order.
func backendLines(src []byte, start, end int, backends []core.Backend) {
	cur := start
	for i := range backends {
		be := &backends[i]
		pathRE := regexp.MustCompile(`(?m)^\s*-?\s*path:\s*["']?` + regexp.QuoteMeta(be.Path) + `["']?\s*$`)
		if m := pathRE.FindIndex(src[cur:end]); m != nil {
			cur += m[1]
		}
		nameRE := regexp.MustCompile(`(?m)^\s*(?:-\s*)?(?:name|serviceName):\s*["']?` + regexp.QuoteMeta(be.Service) + `["']?\s*$`)
		if m := nameRE.FindIndex(src[cur:end]); m != nil {
			be.Line = lineOf(src, cur+m[0]+len(src[cur+m[0]:cur+m[1]])-len(bytes.TrimLeft(src[cur+m[0]:cur+m[1]], " \t\n")))
			cur += m[1]
		}
	}
}

// keyLines finds, in src[start:end], the line of each env variable a
// workload sets, of each ConfigMap or Secret its envFrom names
// ("envFrom:NAME"), and of each key of a ConfigMap's data: the evidence
// of the edges they make.
func keyLines(src []byte, start, end int, r *core.Resource) {
	seg := src[start:end]
	find := func(re *regexp.Regexp, from int) (int, int) {
		if m := re.FindIndex(seg[from:]); m != nil {
			at := from + m[0] + len(seg[from+m[0]:from+m[1]]) - len(bytes.TrimLeft(seg[from+m[0]:from+m[1]], " \t\n"))
			return lineOf(src, start+at), from + m[1]
		}
		return 0, from
	}
	cur := 0
	for i := range r.Env {
		re := regexp.MustCompile(`(?m)^\s*-\s*name:\s*["']?` + regexp.QuoteMeta(r.Env[i].Name) + `["']?\s*$`)
		line, next := find(re, cur)
		if line == 0 {
			line, next = find(re, 0)
		}
		r.Env[i].Line, cur = line, max(cur, next)
	}
	for _, ef := range r.EnvFrom {
		name := strings.TrimPrefix(ef, "secret:")
		re := regexp.MustCompile(`(?m)^\s*(?:-\s*)?(?:name:\s*)?["']?` + regexp.QuoteMeta(name) + `["']?\s*$`)
		if line, _ := find(re, 0); line > 0 {
			r.Keys = append(r.Keys, core.KeyLine{Key: "envFrom:" + ef, Line: line})
		}
	}
	for _, k := range sortedKeys(r.Data) {
		re := regexp.MustCompile(`(?m)^\s+["']?` + regexp.QuoteMeta(k) + `["']?\s*:`)
		if line, _ := find(re, 0); line > 0 {
			r.Keys = append(r.Keys, core.KeyLine{Key: k, Line: line})
		}
	}
}

// serviceLabels are the labels that name a workload's service, first
// the most telling.
var serviceLabels = []string{"app", "app.kubernetes.io/name", "k8s-app", "service", "component"}

// appLabel is the service a label set names.
func appLabel(l map[string]string) string {
	for _, k := range serviceLabels {
		if l[k] != "" {
			return l[k]
		}
	}
	return ""
}

// resource extracts kind, name, labels, service and the wiring of a
// Kubernetes object.
func resource(o map[string]any) resourceInfo {
	ri := resourceInfo{kind: str(o["kind"]), name: str(obj(o, "metadata", "name")), meta: map[string]string{}}
	ri.labels = strMap(obj(o, "metadata", "labels"))
	res := &ri.res
	res.Kind, res.Name, res.Labels = ri.kind, ri.name, ri.labels
	if ri.kind != "" {
		ri.meta["kind"] = ri.kind
	}
	if ns := str(obj(o, "metadata", "namespace")); ns != "" {
		ri.meta["namespace"] = ns
		res.Namespace = ns
	}
	// The pod template of workloads, or the pod itself.
	pod := obj(o, "spec", "template", "spec")
	if pod == nil {
		pod = obj(o, "spec", "jobTemplate", "spec", "template", "spec")
	}
	if pod == nil && ri.kind == "Pod" {
		pod = obj(o, "spec")
	}
	podLabels := strMap(obj(o, "spec", "template", "metadata", "labels"))
	if id := strMap(obj(o, "spec", "template", "metadata", "annotations"))["dapr.io/app-id"]; id != "" {
		res.AppID = id
	}
	switch ri.kind {
	case "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicaSet", "Pod", "Service", "Rollout", "DeploymentConfig":
		// The pods' labels first: they are what Services select, where
		// the object's own may be a chart's for all its objects (a cache
		// chart's proxy Deployment says app: cache, its pods app:
		// cache-proxy).
		sets := []map[string]string{podLabels, ri.labels, strMap(obj(o, "spec", "selector"))}
		if ri.kind == "Service" {
			// A Service is the workload its selector picks; its own
			// labels may name the whole application (a Service labelled
			// app.kubernetes.io/name: platform that selects app:
			// gateway).
			sets = []map[string]string{sets[2], ri.labels}
		}
		named := false // a label other than component says the object's own name
		for i, l := range sets {
			for _, k := range serviceLabels {
				if ri.service == "" && l[k] != "" {
					ri.service = l[k]
				}
				// A Service's own labels do not outweigh the pods it
				// selects (server-metrics selects app: server).
				if ri.kind == "Service" && i > 0 && ri.service != "" {
					continue
				}
				named = named || k != "component" && l[k] != "" && l[k] == ri.name
			}
		}
		// The first label names the service unless another says the
		// object's own name: labels that name a whole application or a
		// role are shared by its programs (a platform's scaler and
		// webhook both say app.kubernetes.io/name: platform beside app:
		// scaler; a Deployment named pipelines-controller says
		// app.kubernetes.io/name: controller beside app:
		// pipelines-controller). A canary Deployment whose pods say
		// service: ledger still joins ledger.
		if ri.service == "" || named {
			ri.service = ri.name
		}
	}
	res.Service = ri.service
	if sel := strMap(obj(o, "spec", "selector", "matchLabels")); sel != nil {
		ri.meta["selector"] = joinMap(sel)
		res.Selector = sel
	} else if sel := strMap(obj(o, "spec", "selector")); sel != nil && ri.kind == "Service" {
		ri.meta["selector"] = joinMap(sel)
		res.Selector = sel
	}
	var images, initImages, ports, env, envFrom []string
	// The ConfigMaps its pods mount as files ("configmap:NAME").
	for _, v := range list(obj(pod, "volumes")) {
		if cm := str(obj(v, "configMap", "name")); cm != "" {
			res.Volumes = append(res.Volumes, "configmap:"+cm)
		}
		for _, src := range list(obj(v, "projected", "sources")) {
			if cm := str(obj(src, "configMap", "name")); cm != "" {
				res.Volumes = append(res.Volumes, "configmap:"+cm)
			}
		}
	}
	containers := list(obj(pod, "containers"))
	res.Migrates = len(containers) > 0
	for i, ct := range append(containers, list(obj(pod, "initContainers"))...) {
		if img := str(obj(ct, "image")); img != "" && i < len(containers) {
			images = append(images, img)
		} else if img != "" {
			initImages = append(initImages, img)
		}
		if i < len(containers) {
			// The args are the command's arguments: one command line
			// (or the image's entrypoint's, without a command).
			cmd := commandItems(obj(ct, "command"))
			line := append(cmd, commandItems(obj(ct, "args"))...)
			res.Programs = programWords(res.Programs, line, len(cmd) > 0)
			res.Migrates = res.Migrates && migrationCommand(line)
			if w := taskWorker(line); w != "" {
				res.Worker = w
			}
			res.Flags = append(res.Flags, commandFlags(line)...)
		}
		for _, p := range list(obj(ct, "ports")) {
			ports = append(ports, str(obj(p, "containerPort")))
		}
		for _, e := range list(obj(ct, "env")) {
			name := str(obj(e, "name"))
			switch {
			case obj(e, "value") != nil:
				env = append(env, name+"="+str(obj(e, "value")))
				res.Env = append(res.Env, core.EnvVar{Name: name, Value: str(obj(e, "value"))})
			case obj(e, "valueFrom", "configMapKeyRef") != nil:
				r := obj(e, "valueFrom", "configMapKeyRef")
				env = append(env, name+" from configmap "+str(obj(r, "name"))+"/"+str(obj(r, "key")))
				res.Env = append(res.Env, core.EnvVar{Name: name, ConfigMap: str(obj(r, "name")), Key: str(obj(r, "key"))})
			case obj(e, "valueFrom", "secretKeyRef") != nil:
				r := obj(e, "valueFrom", "secretKeyRef")
				env = append(env, name+" from secret "+str(obj(r, "name"))+"/"+str(obj(r, "key")))
				res.Env = append(res.Env, core.EnvVar{Name: name, Secret: str(obj(r, "name")), Key: str(obj(r, "key"))})
			default:
				env = append(env, name)
				res.Env = append(res.Env, core.EnvVar{Name: name})
			}
		}
		for _, ef := range list(obj(ct, "envFrom")) {
			if r := str(obj(ef, "configMapRef", "name")); r != "" {
				envFrom = append(envFrom, "configmap "+r)
				res.EnvFrom = append(res.EnvFrom, r)
			}
			if r := str(obj(ef, "secretRef", "name")); r != "" {
				envFrom = append(envFrom, "secret "+r)
				res.EnvFrom = append(res.EnvFrom, "secret:"+r)
			}
		}
	}
	if ri.kind == "Service" {
		for _, p := range list(obj(o, "spec", "ports")) {
			ports = append(ports, str(obj(p, "port")))
		}
	}
	var backends []string
	for _, r := range list(obj(o, "spec", "rules")) {
		for _, p := range list(obj(r, "http", "paths")) {
			svc := str(obj(p, "backend", "service", "name"))
			port := str(obj(p, "backend", "service", "port", "number"))
			if port == "" {
				port = str(obj(p, "backend", "service", "port", "name"))
			}
			if svc == "" {
				svc = str(obj(p, "backend", "serviceName"))
				port = str(obj(p, "backend", "servicePort"))
			}
			if svc != "" {
				path := str(obj(p, "path"))
				if path == "" {
					path = "/"
				}
				backends = append(backends, path+" -> "+svc)
				res.Backends = append(res.Backends, core.Backend{Host: str(obj(r, "host")), Path: path, Service: svc, Port: port})
			}
		}
	}
	// Gateway API routes: rules' backendRefs behind their path matches.
	if ri.kind == "HTTPRoute" || ri.kind == "GRPCRoute" {
		for _, rule := range list(obj(o, "spec", "rules")) {
			paths := []string{}
			for _, m := range list(obj(rule, "matches")) {
				if p := str(obj(m, "path", "value")); p != "" {
					paths = append(paths, p)
				}
			}
			if len(paths) == 0 {
				paths = []string{"/"}
			}
			for _, ref := range list(obj(rule, "backendRefs")) {
				svc := str(obj(ref, "name"))
				if svc == "" || str(obj(ref, "kind")) != "" && str(obj(ref, "kind")) != "Service" {
					continue
				}
				for _, p := range paths {
					backends = append(backends, p+" -> "+svc)
					res.Backends = append(res.Backends, core.Backend{Path: p, Service: svc, Port: str(obj(ref, "port"))})
				}
			}
		}
	}
	if svc := str(obj(o, "spec", "defaultBackend", "service", "name")); svc != "" {
		backends = append(backends, "* -> "+svc)
		res.Backends = append(res.Backends, core.Backend{Path: "/", Service: svc})
	}
	if ri.kind == "ConfigMap" {
		if data := strMap(obj(o, "data")); data != nil {
			ri.meta["data"] = joinMap(data)
			res.Data = data
			for _, k := range sortedKeys(data) {
				if len(data[k]) > maxConfigFile {
					continue
				}
				ext := strings.ToLower(path.Ext(k))
				if core.KeyedBlock(k, data[k]) {
					// A block of YAML under a key of no file's name (a
					// controller's artifactRepository: |, persistence: |),
					// but for the links a UI shows (links: |).
					if uiLinks(k) {
						continue
					}
					ext = ".yaml"
				}
				if fd, fk := configAddresses([]byte(data[k]), ext); len(fd) > 0 {
					ri.files = append(ri.files, core.Resource{Kind: core.ResourceConfigFile, Name: "configmap:" + ri.name + "/" + k, Data: fd, Keys: fk})
				}
			}
		}
	}
	if ri.kind == "NetworkPolicy" {
		if sel := strMap(obj(o, "spec", "podSelector", "matchLabels")); sel != nil {
			res.Selector = sel
			res.Service = appLabel(sel)
		}
		for _, in := range list(obj(o, "spec", "ingress")) {
			for _, f := range list(obj(in, "from")) {
				if app := appLabel(strMap(obj(f, "podSelector", "matchLabels"))); app != "" {
					res.From = append(res.From, app)
				}
			}
		}
		if len(res.From) > 0 {
			ri.meta["from"] = strings.Join(res.From, ", ")
		}
	}
	// Dapr: a declarative Subscription delivers a topic to the apps it
	// is scoped to.
	if ri.kind == "Subscription" && strings.HasPrefix(str(o["apiVersion"]), "dapr.io/") {
		if t := str(obj(o, "spec", "topic")); t != "" {
			res.Data = map[string]string{"topic": t, "pubsubname": str(obj(o, "spec", "pubsubname"))}
			for _, sc := range list(o["scopes"]) {
				if id := str(sc); id != "" {
					res.Scopes = append(res.Scopes, id)
				}
			}
		}
	}
	// Dapr: a Component is a state store, pub/sub broker or binding the
	// apps' sidecars connect to: its type and its metadata's plain values
	// (a secretKeyRef is none), scoped to some app ids or to every app.
	if ri.kind == "Component" && strings.HasPrefix(str(o["apiVersion"]), "dapr.io/") {
		if t := str(obj(o, "spec", "type")); t != "" {
			res.Data = map[string]string{"type": t}
			for _, m := range list(obj(o, "spec", "metadata")) {
				if k, v := str(obj(m, "name")), str(obj(m, "value")); k != "" && k != "type" && v != "" {
					res.Data[k] = v
				}
			}
			for _, sc := range list(o["scopes"]) {
				if id := str(sc); id != "" {
					res.Scopes = append(res.Scopes, id)
				}
			}
		}
	}
	// Skaffold: each artifact's image and the folder it is built from.
	if ri.kind == "Config" && strings.HasPrefix(str(o["apiVersion"]), "skaffold/") {
		res.Kind, res.Data = core.ResourceBuild, map[string]string{}
		for _, a := range list(obj(o, "build", "artifacts")) {
			img, ctx := str(obj(a, "image")), str(obj(a, "context"))
			if ctx == "" {
				ctx = "."
			}
			dir := ctx
			if p := str(obj(a, "jib", "project")); p != "" {
				dir = path.Join(ctx, p)
			} else if df := str(obj(a, "docker", "dockerfile")); df != "" {
				dir = path.Join(ctx, path.Dir(df))
			}
			if img != "" {
				res.Data[img] = dir
			}
		}
	}
	// The workload's images are its containers'; an init container's
	// (busybox, a migration job's) says what prepares it, not what it is.
	res.Images, res.Ports = images, ports
	for k, v := range map[string][]string{"images": append(slices.Clone(images), initImages...), "ports": ports, "env": env, "env_from": envFrom, "backends": backends} {
		if len(v) > 0 {
			ri.meta[k] = strings.Join(v, ", ")
		}
	}
	return ri
}

// Compose chunks a docker-compose file: one chunk per service (image,
// build, ports, environment, depends_on and links in Meta, the service in
// ServiceName), and one per other top-level key but the tiny ones, which
// join the service next to them.
func (c *Chunker) Compose(src []byte, base core.Chunk) Result {
	docs, err := parseYAMLDocs(src)
	if err != nil || len(docs) == 0 || len(docs[0].Content) == 0 || docs[0].Content[0].Kind != yaml.MappingNode {
		why := "no mapping"
		if err != nil {
			why = err.Error()
		}
		r := c.fallback(src, base, why)
		r.Warning = "indexed as text: " + why
		return r
	}
	b := &builder{c: c, src: src, base: base}
	ls := lineStarter(src)
	root := docs[0].Content[0]
	end := len(newLineIndex(src)) + 2
	svcInfo := map[string]map[string]string{}
	composeRes := map[string]core.Resource{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		to := end
		if i+2 < len(root.Content) {
			to = root.Content[i+2].Line
		}
		if k.Value != "services" || v.Kind != yaml.MappingNode {
			// A key of a line or two (version: "3.8", a trailing
			// networks: or volumes: list) answers no search on its own
			// (it ranked by the file's path alone): cover joins it to
			// the service next to it.
			if b.tokens(ls(k.Line), ls(to)) > composeTinyKey {
				b.emit(ls(k.Line), ls(to), meta{symbol: k.Value, kind: "key"})
			}
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			sk, sv := v.Content[j], v.Content[j+1]
			sto := to
			if j+2 < len(v.Content) {
				sto = v.Content[j+2].Line
			}
			start := ls(sk.Line)
			if j == 0 {
				start = ls(k.Line) // "services:" joins the first service
			}
			var s map[string]any
			sv.Decode(&s)
			svcInfo[sk.Value] = composeMeta(s)
			cr := composeResource(sk.Value, s, sk.Line)
			composeEnvLines(sv, &cr)
			composeRes[sk.Value] = cr
			m := meta{symbol: sk.Value, kind: "compose service"}
			if b.tokens(start, ls(sto)) > c.opts.Budget {
				b.windows(start, ls(sto), m)
			} else {
				b.emit(start, ls(sto), m)
			}
		}
	}
	b.cover()
	for i := range b.chunks {
		ch := &b.chunks[i]
		if ch.SymbolKind == "compose service" {
			ch.ServiceName = ch.SymbolName
			ch.Meta = mergeMeta(ch.Meta, svcInfo[ch.SymbolName])
			if r, ok := composeRes[ch.SymbolName]; ok {
				ch.Resources = append(ch.Resources, r)
				delete(composeRes, ch.SymbolName) // first chunk only
			}
		}
	}
	return Result{Chunks: b.chunks}
}

// composeTinyKey is the most tokens of a top-level compose key other than
// services that joins the chunk next to it instead of making its own.
const composeTinyKey = 16

// composeResource is the wiring of one compose service.
func composeResource(name string, s map[string]any, line int) core.Resource {
	r := core.Resource{Kind: core.ResourceCompose, Name: name, Service: name, Line: line}
	if img := str(s["image"]); img != "" {
		r.Images = []string{img}
	}
	if bld := s["build"]; bld != nil {
		if m, ok := bld.(map[string]any); ok {
			r.Build = str(m["context"])
			if r.Build == "" {
				r.Build = "."
			}
			r.Dockerfile = str(m["dockerfile"])
		} else {
			r.Build = str(bld)
		}
	}
	for _, p := range list(s["ports"]) {
		if m, ok := p.(map[string]any); ok {
			// The long syntax ({target: 80, published: 8080}), written
			// as the short one: PUBLISHED:TARGET, or TARGET alone.
			p = str(m["target"])
			if pub := str(m["published"]); pub != "" {
				p = pub + ":" + str(m["target"])
			}
		}
		r.Ports = append(r.Ports, str(p))
	}
	switch d := s["depends_on"].(type) {
	case []any:
		for _, x := range d {
			r.DependsOn = append(r.DependsOn, str(x))
		}
	case map[string]any:
		for k := range d {
			r.DependsOn = append(r.DependsOn, k)
		}
		sort.Strings(r.DependsOn)
	}
	switch ef := s["env_file"].(type) {
	case string:
		r.EnvFiles = []string{ef}
	case []any:
		for _, f := range ef {
			if m, ok := f.(map[string]any); ok {
				r.EnvFiles = append(r.EnvFiles, str(m["path"]))
			} else {
				r.EnvFiles = append(r.EnvFiles, str(f))
			}
		}
	}
	var mounted [][2]string // host folder or file, where the container sees it
	for _, v := range list(s["volumes"]) {
		src, target := str(v), ""
		if m, ok := v.(map[string]any); ok {
			src, target = str(m["source"]), str(m["target"])
		} else if i := strings.IndexByte(src, ':'); i > 0 {
			src, target, _ = strings.Cut(src, ":")
			target, _, _ = strings.Cut(target, ":")
		}
		if strings.HasPrefix(src, ".") {
			r.Volumes = append(r.Volumes, src)
			mounted = append(mounted, [2]string{src, target})
		}
	}
	// The entrypoint, when set, runs the command as its arguments.
	// The command is the entrypoint's arguments when it has one: one
	// command line (an entrypoint ["/bin/sh"] and a command -c "...").
	cmdline := append(commandItems(s["entrypoint"]), commandItems(s["command"])...)
	r.Programs = programWords(r.Programs, cmdline, true)
	r.Reads = mountedReads(mounted, cmdline)
	r.Migrates = migrationCommand(cmdline)
	r.Worker = taskWorker(cmdline)
	r.Flags = commandFlags(cmdline)
	if slices.ContainsFunc(r.Programs, func(p string) bool { return path.Base(p) == "daprd" }) {
		r.AppID = daprAppID(cmdline) // a Dapr sidecar: ./daprd -app-id orders
	}
	if nm, ok := strings.CutPrefix(str(s["network_mode"]), "service:"); ok {
		r.NetworkOf = nm
	}
	for _, l := range list(s["links"]) {
		r.DependsOn = append(r.DependsOn, strings.SplitN(str(l), ":", 2)[0])
	}
	switch env := s["environment"].(type) {
	case map[string]any:
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r.Env = append(r.Env, core.EnvVar{Name: k, Value: str(env[k])})
		}
	case []any:
		for _, e := range env {
			k, v, _ := strings.Cut(str(e), "=")
			r.Env = append(r.Env, core.EnvVar{Name: k, Value: v})
		}
	}
	if cn := str(s["container_name"]); cn != "" {
		r.Labels = map[string]string{"container_name": cn}
	}
	// Traefik routes traffic by the labels of the services it fronts.
	addLabel := func(k, v string) {
		if strings.HasPrefix(k, "traefik.") {
			if r.Labels == nil {
				r.Labels = map[string]string{}
			}
			r.Labels[k] = v
		}
	}
	switch l := s["labels"].(type) {
	case map[string]any:
		for k, v := range l {
			addLabel(k, str(v))
		}
	case []any:
		for _, x := range l {
			k, v, _ := strings.Cut(str(x), "=")
			addLabel(k, v)
		}
	}
	return r
}

// composeEnvLines gives each environment variable of a compose service
// the line that sets it.
func composeEnvLines(svc *yaml.Node, r *core.Resource) {
	if svc.Kind != yaml.MappingNode {
		return
	}
	lines := map[string]int{}
	for i := 0; i+1 < len(svc.Content); i += 2 {
		if svc.Content[i].Value != "environment" {
			continue
		}
		env := svc.Content[i+1]
		switch env.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(env.Content); j += 2 {
				lines[env.Content[j].Value] = env.Content[j].Line
			}
		case yaml.SequenceNode:
			for _, item := range env.Content {
				k, _, _ := strings.Cut(item.Value, "=")
				lines[k] = item.Line
			}
		}
	}
	for i := range r.Env {
		r.Env[i].Line = lines[r.Env[i].Name]
	}
	// A flag is on the line of the command's item that holds it.
	for i := 0; i+1 < len(svc.Content); i += 2 {
		if k := svc.Content[i].Value; k != "command" && k != "entrypoint" {
			continue
		}
		cmd := svc.Content[i+1]
		items := []*yaml.Node{cmd}
		if cmd.Kind == yaml.SequenceNode {
			items = cmd.Content
		}
		for j := range r.Flags {
			for _, it := range items {
				if r.Flags[j].Line == 0 && strings.Contains(it.Value, r.Flags[j].Name) && strings.Contains(it.Value, r.Flags[j].Value) {
					r.Flags[j].Line = it.Line
				}
			}
		}
	}
}

func composeMeta(s map[string]any) map[string]string {
	m := map[string]string{}
	if img := str(s["image"]); img != "" {
		m["image"] = img
	}
	if bld := s["build"]; bld != nil {
		if ctx := str(obj(bld, "context")); ctx != "" {
			m["build"] = ctx
		} else {
			m["build"] = str(bld)
		}
	}
	join := func(v any) string {
		switch t := v.(type) {
		case []any:
			parts := make([]string, len(t))
			for i, x := range t {
				parts[i] = str(x)
			}
			return strings.Join(parts, ", ")
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return strings.Join(keys, ", ")
		}
		return str(v)
	}
	for _, k := range []string{"ports", "depends_on", "links", "command", "container_name"} {
		if v := s[k]; v != nil {
			m[k] = join(v)
		}
	}
	switch env := s["environment"].(type) {
	case map[string]any:
		m["environment"] = joinMap(strMap(env))
	case []any:
		m["environment"] = join(env)
	}
	return m
}

var fromRE = lazyre.New(`(?im)^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?`)

// Dockerfile chunks a Dockerfile by build stage (FROM lines), with the
// base image, exposed ports and env keys of each stage in Meta.
func (c *Chunker) Dockerfile(src []byte, base core.Chunk) Result {
	b := &builder{c: c, src: src, base: base}
	locs := fromRE.FindAllSubmatchIndex(src, -1)
	type stage struct {
		start int
		meta  map[string]string
		name  string
	}
	var stages []stage
	for i, l := range locs {
		start := l[0]
		if i == 0 {
			start = 0 // ARGs and comments before the first FROM join it
		}
		img := string(src[l[2]:l[3]])
		name := img
		if l[4] >= 0 {
			name = string(src[l[4]:l[5]])
		}
		stages = append(stages, stage{start: start, name: name, meta: map[string]string{"from": img}})
	}
	if len(stages) == 0 {
		return c.fallback(src, base, "no FROM")
	}
	for i, st := range stages {
		end := len(src)
		if i+1 < len(stages) {
			end = stages[i+1].start
		}
		var expose, env []string
		for _, line := range strings.Split(string(src[st.start:end]), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			switch strings.ToUpper(f[0]) {
			case "EXPOSE":
				expose = append(expose, f[1:]...)
			case "ENV":
				for _, kv := range f[1:] {
					env = append(env, strings.SplitN(kv, "=", 2)[0])
				}
			}
		}
		if len(expose) > 0 {
			st.meta["expose"] = strings.Join(expose, ", ")
		}
		if len(env) > 0 {
			st.meta["env"] = strings.Join(env, ", ")
		}
		stages[i] = st
		m := meta{symbol: st.name, kind: "stage", signature: "FROM " + st.meta["from"]}
		if b.tokens(uint(st.start), uint(end)) > c.opts.Budget {
			b.windows(uint(st.start), uint(end), m)
		} else {
			b.emit(uint(st.start), uint(end), m)
		}
	}
	b.cover()
	for i := range b.chunks {
		for _, st := range stages {
			if b.chunks[i].SymbolName == st.name && b.chunks[i].SymbolKind == "stage" {
				b.chunks[i].Meta = mergeMeta(b.chunks[i].Meta, st.meta)
			}
		}
	}
	return Result{Chunks: b.chunks}
}

// Terraform chunks HCL (Terraform, tfvars) by top-level block, with the
// comments above each block: resource "aws_db_instance" "shopdb" has
// symbol aws_db_instance.shopdb and kind resource. A file that does not
// parse is indexed as text with a warning.
func (c *Chunker) Terraform(src []byte, base core.Chunk) Result {
	f, diags := hclsyntax.ParseConfig(src, base.FilePath, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() || f == nil {
		r := c.fallback(src, base, diags.Error())
		r.Warning = "indexed as text: " + diags.Error()
		return r
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return c.fallback(src, base, "unexpected HCL body")
	}
	b := &builder{c: c, src: src, base: base}
	for _, blk := range body.Blocks {
		r := blk.Range()
		start := withComments(src, r.Start.Byte, "#", "//")
		sym := strings.Join(blk.Labels, ".")
		sig := blk.Type
		for _, l := range blk.Labels {
			sig += fmt.Sprintf(" %q", l)
		}
		m := meta{symbol: sym, kind: blk.Type, signature: sig}
		if b.tokens(uint(start), uint(r.End.Byte)) > c.opts.Budget {
			b.windows(uint(start), uint(r.End.Byte), m)
		} else {
			b.emit(uint(start), uint(r.End.Byte), m)
		}
	}
	// Top-level attributes (tfvars) are grouped by the coverage pass.
	b.cover()
	r := Result{Chunks: b.chunks}
	if res, ok := terraformOutputs(body, src, base.FilePath); ok {
		attach(&r, res)
	}
	return r
}

// withComments moves start back over the comment lines directly above it.
func withComments(src []byte, start int, markers ...string) int {
	for start > 0 {
		prevEnd := start - 1 // the newline before the line at start
		prevStart := bytes.LastIndexByte(src[:prevEnd], '\n') + 1
		line := strings.TrimSpace(string(src[prevStart:prevEnd]))
		isComment := false
		for _, m := range markers {
			isComment = isComment || strings.HasPrefix(line, m)
		}
		if !isComment {
			break
		}
		start = prevStart
	}
	return start
}

var (
	helmKindRE   = lazyre.New(`(?m)^kind:\s*([A-Za-z]+)`)
	helmDefineRE = lazyre.New(`\{\{-?\s*define\s+"([^"]+)"`)
)

// HelmTemplate indexes a Helm template as one chunk (windows when big):
// templates are not YAML until rendered. The resource kind is read from
// the text when it is plain.
func (c *Chunker) HelmTemplate(src []byte, base core.Chunk) Result {
	kind := "helm template"
	if m := helmKindRE.FindSubmatch(src); m != nil {
		kind = string(m[1])
	}
	name := strings.TrimSuffix(path.Base(base.FilePath), path.Ext(base.FilePath))
	b := &builder{c: c, src: src, base: base}
	if locs := helmDefineRE.FindAllSubmatchIndex(src, -1); strings.HasPrefix(path.Base(base.FilePath), "_") && len(locs) > 0 {
		for i, l := range locs {
			start := withComments(src, lineStartOf(src, l[0]), "{{/*", "*/", "#")
			if i == 0 {
				start = 0
			}
			end := len(src)
			if i+1 < len(locs) {
				end = withComments(src, lineStartOf(src, locs[i+1][0]), "{{/*", "*/", "#")
			}
			b.emit(uint(start), uint(end), meta{symbol: string(src[l[2]:l[3]]), kind: "define"})
		}
	} else if b.tokens(0, uint(len(src))) > c.opts.Budget {
		b.windows(0, uint(len(src)), meta{symbol: name, kind: kind})
	} else {
		b.emit(0, uint(len(src)), meta{symbol: name, kind: kind})
	}
	b.cover()
	// The chart a template belongs to is the folder above templates/; a
	// template that deploys one service by a plain name (an umbrella
	// chart's cart-deployment.yaml) belongs to that service.
	r := Result{Chunks: b.chunks}
	if dir := path.Dir(base.FilePath); path.Base(dir) == "templates" && base.ServiceName == "" {
		if chart := path.Base(path.Dir(dir)); chart != "." && chart != "/" {
			res := helmResources(src, chart, strings.HasPrefix(path.Base(base.FilePath), "_"))
			owner := chart
			owners := map[string]bool{}
			for _, x := range res {
				if x.Labels != nil { // a workload or Service named plainly
					owners[x.Service] = true
				}
			}
			if len(owners) == 1 {
				for s := range owners {
					owner = s
				}
			}
			for i := range b.chunks {
				b.chunks[i].ServiceName = owner
			}
			for _, x := range res {
				attach(&r, x)
			}
		}
	}
	return r
}

func lineStartOf(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// mountedReads returns the files of mounted folders that a command names,
// as host paths: -config.file=/etc/app/app.yaml with ./config mounted
// at /etc/app/ is ./config/app.yaml (core.Resource.Reads).
func mountedReads(mounted [][2]string, items []string) []string {
	var out []string
	for _, it := range items {
		for _, w := range strings.Fields(it) {
			w = strings.Trim(w, `"'`)
			if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
				w = v
			}
			if !strings.HasPrefix(w, "/") {
				continue
			}
			w = path.Clean(w)
			for _, m := range mounted {
				target := path.Clean(m[1])
				if rest, ok := strings.CutPrefix(w, target+"/"); ok && m[1] != "" && target != "/" {
					if p := path.Join(m[0], rest); !slices.Contains(out, p) {
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}
