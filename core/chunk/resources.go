package chunk

import (
	"bufio"
	"bytes"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"coderag/core"
)

// settingsFormat says whether a config or deploy file holds settings a
// service reads at start-up, and the separator its nested keys are
// written with: appsettings.json ("Services:Catalog"), Helm values and
// Spring application.yml ("upstreams.catalogUrl"), .env and .properties
// files (flat).
func settingsFormat(name string) (kind, sep string, ok bool) {
	switch {
	case strings.HasPrefix(name, "appsettings") && strings.HasSuffix(name, ".json"):
		return core.ResourceSettings, ":", true
	case name == "values.yaml" || name == "values.yml" || strings.HasPrefix(name, "values-") && (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")):
		return core.ResourceHelmValues, ".", true
	case strings.HasPrefix(name, "application") && (strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")):
		return core.ResourceSettings, ".", true
	case strings.HasPrefix(name, "application") && strings.HasSuffix(name, ".properties"):
		return core.ResourceSettings, "", true
	case name == ".env.example" || name == ".env.sample" || name == ".env.template" || name == ".env.dist" || name == ".env.defaults" || name == "env.example":
		return core.ResourceSettings, "", true
	}
	return "", "", false
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

var lineKV = regexp.MustCompile(`^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.\-]*)\s*[=:]\s*(.*?)\s*$`)

// settingsResource reads the keys and values of a settings file.
func settingsResource(base core.Chunk, src []byte) (core.Resource, bool) {
	name := strings.ToLower(path.Base(base.FilePath))
	kind, sep, ok := settingsFormat(name)
	if !ok {
		return core.Resource{}, false
	}
	r := core.Resource{Kind: kind, Name: base.FilePath, Data: map[string]string{}, Line: 1}
	if sep == "" {
		sc := bufio.NewScanner(bytes.NewReader(src))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			if t := strings.TrimSpace(l); t == "" || t[0] == '#' || t[0] == '!' {
				continue
			}
			if m := lineKV.FindStringSubmatch(l); m != nil {
				r.Data[m[1]] = strings.Trim(m[2], `"'`)
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
	helmEnvRE  = regexp.MustCompile(`(?m)^\s*-\s*name:\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*\n\s*value:\s*(.+?)\s*$`)
	helmNameRE = regexp.MustCompile(`(?m)^metadata:\s*\n(?:\s+.*\n)*?\s+name:\s*["']?([^"'\s{}]+)`)
)

// helmResource reads what a Helm template declares with plain YAML: its
// kind and name, and its env values ("{{ .Values.upstreams.catalogUrl |
// quote }}" stays as written; the graph substitutes the chart's values).
func helmResource(base core.Chunk, src []byte, service string) (core.Resource, bool) {
	r := core.Resource{Kind: core.ResourceHelmTemplate, Service: service, Line: 1}
	if m := kindRE.Find(src); m != nil {
		r.Name = strings.TrimSpace(strings.TrimPrefix(string(m), "kind:"))
	}
	if m := helmNameRE.FindSubmatch(src); m != nil {
		r.Name = string(m[1])
	}
	for _, m := range helmEnvRE.FindAllSubmatch(src, -1) {
		v := strings.Trim(string(m[2]), `"'`)
		r.Env = append(r.Env, core.EnvVar{Name: string(m[1]), Value: v})
	}
	if len(r.Env) == 0 {
		return core.Resource{}, false
	}
	return r, true
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
