package graph

import (
	"fmt"
	"path"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// composeVarRE finds compose's interpolations: $NAME, ${NAME},
// ${NAME:-default}, ${NAME-default}, ${NAME:?error}.
var composeVarRE = lazyre.New(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\})`)

// settingsByFile are the values of the settings files (.env files,
// properties) of the input, by repository and file: as indexed, so
// secrets are masked ("…").
func settingsByFile(in *Input) map[[2]string]map[string]string {
	out := map[[2]string]map[string]string{}
	for _, r := range in.Resources {
		if r.Kind == core.ResourceSettings {
			out[[2]string{r.Repo, r.File}] = r.Data
		}
	}
	return out
}

// readEnvFiles gives resources the values of the env files they name: a
// compose service's env_file entries become its environment (see
// interpolateCompose), a Kustomize configMapGenerator's envs join its
// literals as the generated ConfigMap's data (literals win: kustomize
// refuses duplicates anyway). The input is changed in place.
func readEnvFiles(in *Input) map[[3]string]envOrigin {
	dotenv := settingsByFile(in)
	written := azdEnvFiles(in, dotenv)
	origins := map[[3]string]envOrigin{}
	for i := range in.Resources {
		r := &in.Resources[i]
		if r.Kind != "ConfigMap" || len(r.EnvFiles) == 0 {
			continue
		}
		data := make(map[string]string, len(r.Data))
		for k, v := range r.Data {
			data[k] = v
		}
		for _, f := range r.EnvFiles {
			repo, at, ok := locate(in.Roots, r.Repo, path.Join(path.Dir(r.File), f))
			if !ok {
				continue
			}
			file := [2]string{repo, at}
			for k, v := range dotenv[file] {
				if _, ok := data[k]; !ok && v != "…" {
					data[k] = v
					if o, ok := written[file][k]; ok {
						origins[[3]string{r.Repo, r.File, k}] = o
					}
				}
			}
		}
		r.Data = data
	}
	interpolateCompose(in, dotenv)
	return origins
}

// envOrigin is where a value of an env file nobody committed comes from
// (one azd writes at deploy time): how, and the line that sets it.
type envOrigin struct {
	via string
	ev  Evidence
}

// azdEnvFiles adds to dotenv the .env files azd writes at deploy time
// for the Kustomize services of an Azure Developer CLI project: each
// variable of k8s.kustomize.env with azd's ${NAME} filled from the
// outputs of the project's Terraform root module (azd keeps them in its
// environment). A variable left with a ${NAME} azd's outputs do not give
// is not written; a file in the repository under that name keeps its own
// values (azd would replace it, but it is what the repository says).
func azdEnvFiles(in *Input, dotenv map[[2]string]map[string]string) map[[2]string]map[string]envOrigin {
	type output struct {
		value string
		at    string // file:line
	}
	outputs, written := map[[2]string]map[string]output{}, map[[2]string]bool{}
	origins := map[[2]string]map[string]envOrigin{}
	for _, r := range in.Resources {
		if r.Kind == core.ResourceTerraformOutputs {
			// A module's outputs may be spread over its files.
			k := [2]string{r.Repo, r.Name}
			if outputs[k] == nil {
				outputs[k] = map[string]output{}
			}
			lines := map[string]int{}
			for _, kl := range r.Keys {
				lines[kl.Key] = kl.Line
			}
			for name, v := range r.Data {
				outputs[k][name] = output{v, fmt.Sprintf("%s:%d", r.File, lines[name])}
			}
		}
	}
	for _, r := range in.Resources {
		if r.Kind != core.ResourceAzd {
			continue
		}
		dir := path.Dir(r.File)
		var vars map[string]output
		if r.Data["provider"] == "terraform" {
			vars = outputs[[2]string{r.Repo, path.Join(dir, r.Data["infra"])}]
		}
		file := [2]string{r.Repo, path.Join(dir, r.Data["env-file"])}
		for _, e := range r.Env {
			var from []string
			v := composeVarRE.ReplaceAllStringFunc(e.Value, func(m string) string {
				g := composeVarRE.FindStringSubmatch(m)
				if out, ok := vars[g[1]+g[2]]; ok {
					from = append(from, "Terraform output "+g[1]+g[2]+" ("+out.at+")")
					return out.value
				}
				return m
			})
			if strings.Contains(v, "$") {
				continue
			}
			if !written[file] {
				// A copy: the map of a file in the repository is its
				// resource's Data.
				m := map[string]string{}
				for k, v := range dotenv[file] {
					m[k] = v
				}
				dotenv[file], written[file] = m, true
			}
			if _, ok := dotenv[file][e.Name]; !ok {
				dotenv[file][e.Name] = v
				via := fmt.Sprintf("written to %s by azd from %s:%d", file[1], r.File, e.Line)
				if len(from) > 0 {
					via += ", " + strings.Join(from, ", ")
				}
				if origins[file] == nil {
					origins[file] = map[string]envOrigin{}
				}
				origins[file][e.Name] = envOrigin{via, Evidence{r.ChunkID, r.Repo, r.File, e.Line}}
			}
		}
	}
	return origins
}

// interpolateCompose fills the ${VAR} of compose services the way docker
// compose does: from the .env file beside the compose file (its values as
// indexed: secrets are masked there), else the default the expression
// gives. A service's env_file entries become its environment. The input
// is changed in place; other resources are left alone.
func interpolateCompose(in *Input, dotenv map[[2]string]map[string]string) {
	for i := range in.Resources {
		r := &in.Resources[i]
		if r.Kind != core.ResourceCompose {
			continue
		}
		dir := path.Dir(r.File)
		vars := dotenv[[2]string{r.Repo, path.Join(dir, ".env")}]
		sub := func(s string) string {
			if !strings.Contains(s, "$") {
				return s
			}
			return composeVarRE.ReplaceAllStringFunc(s, func(m string) string {
				g := composeVarRE.FindStringSubmatch(m)
				name := g[1] + g[2]
				if v, ok := vars[name]; ok && v != "…" && (v != "" || g[3] != ":-") {
					return v
				}
				if strings.HasSuffix(g[3], "-") {
					return g[4]
				}
				return m
			})
		}
		env := append([]core.EnvVar(nil), r.Env...)
		for j := range env {
			env[j].Value = sub(env[j].Value)
		}
		for _, f := range r.EnvFiles {
			repo, at, _ := locate(in.Roots, r.Repo, path.Join(dir, f))
			for k, v := range dotenv[[2]string{repo, at}] {
				if v != "…" && !hasEnv(env, k) {
					env = append(env, core.EnvVar{Name: k, Value: v})
				}
			}
		}
		r.Env = env
		imgs := make([]string, len(r.Images))
		for j, img := range r.Images {
			imgs[j] = sub(img)
		}
		r.Images = imgs
		r.Build, r.Dockerfile = sub(r.Build), sub(r.Dockerfile)
		ports := make([]string, len(r.Ports))
		for j, p := range r.Ports {
			ports[j] = sub(p)
		}
		r.Ports = ports
	}
}

func hasEnv(env []core.EnvVar, name string) bool {
	for _, e := range env {
		if e.Name == name {
			return true
		}
	}
	return false
}
