package chunk

import (
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"coderag/core"
)

// IsKustomization reports whether name is a Kustomize file
// (kustomization.yaml, kustomization.yml or Kustomization).
func IsKustomization(name string) bool {
	switch path.Base(name) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// kustomization is the part of a Kustomize file the service graph reads.
type kustomization struct {
	Namespace  string `yaml:"namespace"`
	Generators []struct {
		Name      string   `yaml:"name"`
		Namespace string   `yaml:"namespace"`
		Literals  []string `yaml:"literals"`
		Envs      []string `yaml:"envs"`
		Env       string   `yaml:"env"` // the deprecated single form
	} `yaml:"configMapGenerator"`
}

// Kustomization chunks a Kustomize file as configuration and declares the
// ConfigMaps its configMapGenerator makes: a ConfigMap resource per
// generator, its literals (KEY=VALUE) as data — values that could be
// secrets are left out, as in env files — and its env files (envs,
// relative to the file) in EnvFiles, for the graph to read from their
// settings resources. Workloads name the generated ConfigMap by its
// generator's name (Kustomize adds the hash suffix to both), so the
// ConfigMap joins them as a written one does. secretGenerator is not read.
func (c *Chunker) Kustomization(src []byte, base core.Chunk) Result {
	r, warn := c.Config(src, base)
	r.Warning = warn
	var k kustomization
	if err := yaml.Unmarshal(src, &k); err != nil {
		return r
	}
	for _, g := range k.Generators {
		if g.Name == "" {
			continue
		}
		res := core.Resource{Kind: "ConfigMap", Name: g.Name, Namespace: g.Namespace, Data: map[string]string{}, Line: 1}
		if res.Namespace == "" {
			res.Namespace = k.Namespace
		}
		if line := lineMatching(src, `(?m)^\s*-?\s*name:\s*["']?`+regexp.QuoteMeta(g.Name)+`["']?\s*$`); line > 0 {
			res.Line = line
		}
		for _, lit := range g.Literals {
			key, val, ok := strings.Cut(lit, "=")
			if !ok || key == "" {
				continue
			}
			if v, kept := maskEnvValue(key, val); kept {
				res.Data[key] = strings.Trim(strings.TrimSpace(v), `"'`)
				if line := lineMatching(src, `(?m)^\s*-\s*["']?`+regexp.QuoteMeta(key)+`=`); line > 0 {
					res.Keys = append(res.Keys, core.KeyLine{Key: key, Line: line})
				}
			}
		}
		res.EnvFiles = append(res.EnvFiles, g.Envs...)
		if g.Env != "" {
			res.EnvFiles = append(res.EnvFiles, g.Env)
		}
		attach(&r, res)
	}
	return r
}

// lineMatching is the line of the first match of the pattern in src
// (where its first non-blank character is), 0 for none.
func lineMatching(src []byte, pattern string) int {
	if m := regexp.MustCompile(pattern).FindIndex(src); m != nil {
		return lineOf(src, m[0]+leadingSpace(src[m[0]:m[1]]))
	}
	return 0
}
