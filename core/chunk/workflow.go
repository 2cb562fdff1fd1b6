package chunk

import (
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// IsWorkflow reports whether name is a GitHub Actions workflow.
func IsWorkflow(name string) bool {
	dir, base := path.Split(name)
	return strings.HasSuffix(strings.TrimSuffix(dir, "/"), ".github/workflows") &&
		(strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".yaml"))
}

type workflow struct {
	Jobs map[string]struct {
		Strategy struct {
			Matrix map[string]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Defaults struct {
			Run struct {
				WorkingDirectory string `yaml:"working-directory"`
			} `yaml:"run"`
		} `yaml:"defaults"`
		Steps []struct {
			ID               string            `yaml:"id"`
			Uses             string            `yaml:"uses"`
			Run              string            `yaml:"run"`
			WorkingDirectory string            `yaml:"working-directory"`
			With             map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// checkoutPath is where a job's actions/checkout step puts the
// repository the workflow belongs to, relative to the workspace ("." for
// the workspace itself), and whether step uses actions/checkout for it:
// a path the job's steps name is under it.
func checkoutPath(uses, repository, dir string) (string, bool) {
	if !strings.HasPrefix(uses, "actions/checkout@") && uses != "actions/checkout" {
		return "", false
	}
	if r := strings.TrimSpace(repository); r != "" && !strings.Contains(r, "github.repository") {
		return "", false // another repository
	}
	return path.Clean("./" + dir), true
}

var (
	ghExprRE     = lazyre.New(`\$\{\{\s*([^}]*?)\s*\}\}`)
	dockerBuild  = lazyre.New(`(?m)\bdocker\s+(?:buildx\s+)?build\b([^\n]*(?:\\\n[^\n]*)*)`)
	metaOutputRE = lazyre.New(`^steps\.([A-Za-z0-9_-]+)\.outputs\.tags$`)
)

// WorkflowBuildResource reads the images a GitHub Actions workflow builds
// and the folders it builds them from: docker/build-push-action steps
// (context, file, tags — or the images of the docker/metadata-action step
// whose tags they use) and `docker build -t IMAGE [-f FILE] CONTEXT` in run
// steps, each once per value of the job's matrix. The result is a build
// resource (image -> folder, relative to the workflow file), so that a
// Kubernetes, Helm or Kustomize workload running the image owns the
// folder's code.
func WorkflowBuildResource(src []byte, file string) (core.Resource, bool) {
	var wf workflow
	if err := yaml.Unmarshal(src, &wf); err != nil {
		return core.Resource{}, false
	}
	up := strings.Repeat("../", strings.Count(path.Dir(file), "/")+1)
	if path.Dir(file) == "." {
		up = ""
	}
	res := core.Resource{Kind: core.ResourceBuild, Name: file, Data: map[string]string{}, Line: 1}
	for _, job := range wf.Jobs {
		for _, vars := range matrixRows(job.Strategy.Matrix) {
			fill := func(s string) string {
				return ghExprRE.ReplaceAllStringFunc(s, func(m string) string {
					expr := ghExprRE.FindStringSubmatch(m)[1]
					if k, ok := strings.CutPrefix(expr, "matrix."); ok {
						if v, ok := vars[k]; ok {
							return v
						}
					}
					return m
				})
			}
			metaImages := map[string][]string{}
			root := "." // where the workspace holds the repository
			for _, st := range job.Steps {
				if strings.HasPrefix(st.Uses, "docker/metadata-action") && st.ID != "" {
					metaImages[st.ID] = splitList(fill(st.With["images"]))
				}
				if p, ok := checkoutPath(st.Uses, st.With["repository"], fill(st.With["path"])); ok && root == "." {
					root = p
				}
			}
			add := func(images []string, dir string) {
				dir = path.Clean(dir)
				if root != "." {
					// Checked out into a folder of the workspace
					// (actions/checkout's path): the repository's
					// paths are under it, and nothing outside it is.
					rel, ok := strings.CutPrefix(dir+"/", root+"/")
					if !ok {
						return
					}
					dir = path.Clean("./" + rel)
				}
				if strings.Contains(dir, "${{") || strings.HasPrefix(dir, "..") || dir == "/" {
					return
				}
				for _, img := range images {
					img = strings.TrimSpace(img)
					if i := strings.IndexByte(img, ','); i >= 0 {
						img = img[:i]
					}
					if base := core.ImageName(img); base != "" && !strings.Contains(base, "${{") {
						res.Data[img] = path.Join(up, dir)
					}
				}
			}
			for _, st := range job.Steps {
				switch {
				case strings.HasPrefix(st.Uses, "docker/build-push-action"):
					ctx := fill(st.With["context"])
					if ctx == "" || strings.HasPrefix(ctx, "{{") {
						ctx = "."
					}
					dir := ctx
					if f := fill(st.With["file"]); f != "" {
						dir = path.Dir(f)
					}
					var images []string
					for _, t := range splitList(fill(st.With["tags"])) {
						if e := ghExprRE.FindStringSubmatch(t); e != nil && e[0] == t {
							if m := metaOutputRE.FindStringSubmatch(e[1]); m != nil {
								images = append(images, metaImages[m[1]]...)
								continue
							}
						}
						images = append(images, t)
					}
					add(images, dir)
				case st.Run != "":
					wd := st.WorkingDirectory
					if wd == "" {
						wd = job.Defaults.Run.WorkingDirectory
					}
					wd = fill(wd)
					for _, m := range dockerBuild.FindAllStringSubmatch(fill(st.Run), -1) {
						if img, dir, ok := dockerBuildArgs(m[1]); ok && !strings.Contains(wd, "${{") {
							add([]string{img}, path.Join(wd, dir))
						}
					}
				}
			}
		}
	}
	if len(res.Data) == 0 {
		return core.Resource{}, false
	}
	return res, true
}

// splitList splits a list written one per line or comma-separated.
func splitList(s string) []string {
	var out []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ',' }) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "type=") {
			out = append(out, l)
		}
	}
	return out
}

// dockerBuildArgs reads `docker build` arguments: the image of -t/--tag
// and the folder of the context (or of -f/--file).
func dockerBuildArgs(args string) (img, dir string, ok bool) {
	f := strings.Fields(strings.ReplaceAll(args, "\\\n", " "))
	var file, ctx string
	for i := 0; i < len(f); i++ {
		a := f[i]
		val := func() string {
			if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
				return v
			}
			if i+1 < len(f) {
				i++
				return f[i]
			}
			return ""
		}
		switch {
		case a == "-t" || a == "--tag" || strings.HasPrefix(a, "--tag="):
			if img == "" {
				img = strings.Trim(val(), `"'`)
			}
		case a == "-f" || a == "--file" || strings.HasPrefix(a, "--file="):
			file = strings.Trim(val(), `"'`)
		case a == "&&" || a == ";" || a == "|":
			i = len(f)
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") && i+2 < len(f):
			i++ // a flag with a value: --build-arg X=1, --platform linux/amd64
		case strings.HasPrefix(a, "-"):
		default:
			ctx = strings.Trim(a, `"'`)
		}
	}
	if img == "" || ctx == "" {
		return "", "", false
	}
	dir = ctx
	if file != "" {
		dir = path.Dir(file)
	}
	return img, dir, true
}

// matrixRows expands a job's matrix into its rows: every combination of
// its list-valued keys (include and exclude are not read); one empty row
// without a matrix.
func matrixRows(m map[string]any) []map[string]string {
	rows := []map[string]string{{}}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		list, ok := m[k].([]any)
		if !ok || k == "include" || k == "exclude" {
			continue
		}
		var next []map[string]string
		for _, r := range rows {
			for _, v := range list {
				s, ok := v.(string)
				if !ok {
					continue
				}
				nr := map[string]string{k: s}
				for kk, vv := range r {
					nr[kk] = vv
				}
				next = append(next, nr)
			}
		}
		if len(next) > 0 && len(next) <= 256 {
			rows = next
		}
	}
	return rows
}
