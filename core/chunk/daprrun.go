package chunk

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"

	"coderag/core"
)

// Dapr's multi-app run file (dapr run -f dapr.yaml) starts several apps,
// each beside its own sidecar, on a developer's machine:
//
//	version: 1
//	common:
//	  resourcesPath: ./components
//	apps:
//	  - appID: order-processor
//	    appDirPath: ./order-processor/
//	    command: ["python3", "app.py"]
//	    env: {ORDERS_TIMEOUT: "30"}
//
// Each app is read as a compose service is: its name and app id the
// appID, its code the folder it runs in (Build), its command's programs,
// its environment, and the components folder its sidecar loads (a
// mounted folder, Volumes). Labels["runner"] is "dapr" to tell it from a
// compose service.

// isDaprRun reports whether a YAML file is a Dapr multi-app run file: a
// version and a list of apps with an appID or appDirPath.
func isDaprRun(src []byte) bool {
	return bytes.Contains(src, []byte("apps:")) && (bytes.Contains(src, []byte("appDirPath")) || bytes.Contains(src, []byte("appID")))
}

// DaprRunResources reads the apps of a Dapr multi-app run file, one
// core.ResourceCompose each; none for a file that does not parse as one.
func DaprRunResources(src []byte) []core.Resource {
	docs, err := parseYAMLDocs(src)
	if err != nil || len(docs) == 0 || len(docs[0].Content) == 0 {
		return nil
	}
	root := docs[0].Content[0]
	apps := yamlChild(root, "apps")
	if apps == nil || apps.Kind != yaml.SequenceNode {
		return nil
	}
	common := yamlChild(root, "common")
	commonResources := daprResourcesPaths(common)
	var out []core.Resource
	for _, app := range apps.Content {
		var a struct {
			AppID      string            `yaml:"appID"`
			AppDirPath string            `yaml:"appDirPath"`
			AppPort    string            `yaml:"appPort"`
			Command    []string          `yaml:"command"`
			Env        map[string]string `yaml:"env"`
		}
		if app.Decode(&a) != nil || a.AppID == "" && a.AppDirPath == "" {
			continue
		}
		dir := strings.TrimSuffix(a.AppDirPath, "/")
		id := a.AppID
		if id == "" {
			id = dir[strings.LastIndexByte(dir, '/')+1:] // Dapr names it after its folder
		}
		r := core.Resource{Kind: core.ResourceCompose, Name: id, Service: id, AppID: id, Build: dir, Line: app.Line,
			Labels: map[string]string{"runner": "dapr"}}
		if a.AppPort != "" {
			r.Ports = []string{a.AppPort}
		}
		r.Programs = programWords(nil, a.Command, true)
		r.Worker = taskWorker(a.Command)
		for _, k := range sortedKeys(a.Env) {
			r.Env = append(r.Env, core.EnvVar{Name: k, Value: a.Env[k], Line: yamlKeyLine(yamlChild(app, "env"), k)})
		}
		paths := daprResourcesPaths(app)
		if len(paths) == 0 {
			paths = commonResources
		}
		for _, p := range paths {
			if strings.HasPrefix(p, ".") {
				r.Volumes = append(r.Volumes, p)
			}
		}
		out = append(out, r)
	}
	return out
}

// daprResourcesPaths are the components folders a run file's app or
// common section names: resourcesPath, resourcesPaths, or the older
// componentsPath.
func daprResourcesPaths(n *yaml.Node) []string {
	var out []string
	for _, k := range []string{"resourcesPath", "componentsPath"} {
		if v := yamlChild(n, k); v != nil && v.Value != "" {
			out = append(out, v.Value)
		}
	}
	if v := yamlChild(n, "resourcesPaths"); v != nil && v.Kind == yaml.SequenceNode {
		for _, p := range v.Content {
			out = append(out, p.Value)
		}
	}
	return out
}

// yamlKeyLine is the line of key in a mapping node, 0 for none.
func yamlKeyLine(n *yaml.Node, key string) int {
	if i := yamlKeyIndex(n, key); i >= 0 {
		return n.Content[i].Line
	}
	return 0
}

// attachDaprRun attaches the apps of a Dapr multi-app run file.
func attachDaprRun(r *Result, src []byte) {
	if isDaprRun(src) {
		for _, res := range DaprRunResources(src) {
			attach(r, res)
		}
	}
}
