package search

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"coderag/core"
)

// WorkloadFinder is an Index that knows the deploy resources the crawl
// found, so that a pasted pod or container name finds the manifest of the
// workload that made it.
type WorkloadFinder interface {
	// Resources returns what the deploy and config files of the index
	// declare.
	Resources(ctx context.Context) ([]core.ResourceAt, error)
	// Chunk returns the chunk with the given id.
	Chunk(ctx context.Context, id string) (core.Chunk, error)
}

// PodName is a name in pasted text that Kubernetes or Compose made from a
// workload's name: a pod (checkout-7d9f8c6b5-x2k4p, redis-0), a
// ReplicaSet, a Job's pod, a Compose container (shop-cart-1), or a kubectl
// reference (deployment/checkout).
type PodName struct {
	// Text is the name as written, Object what it names: "pod",
	// "replicaset", or the kind a kubectl reference gave ("deployment").
	Text, Object string
	// Workloads are the names of the workloads that may have made it,
	// each with the kinds that make names of its shape, most likely
	// first.
	Workloads []workloadName
}

type workloadName struct {
	name  string
	kinds []string
	// project is a Compose container's project (the folder of its
	// compose file, by default).
	project string
}

// safe is the alphabet of the random suffixes Kubernetes gives the names
// it generates (no vowels, no 0, 1 or 3: k8s.io/apimachinery's
// rand.String), so that a word is not read as one.
const safe = `[bcdfghjklmnpqrstvwxz2456789]`

var (
	// podNameRE is a name as Kubernetes and Compose write them.
	podNameRE = regexp.MustCompile(`[a-z0-9][a-z0-9._-]*[a-z0-9]`)
	// kubectlRefRE is a kubectl reference: deployment/checkout,
	// statefulset.apps/redis, pod/checkout-7d9f8c6b5-x2k4p.
	kubectlRefRE = regexp.MustCompile(`(?i)\b(deployments?|deploy|statefulsets?|sts|daemonsets?|ds|jobs?|cronjobs?|cj|replicasets?|rs|pods?|po|rollouts?)(?:\.(?:apps|batch|argoproj\.io))?/([a-z0-9][a-z0-9._-]*[a-z0-9])`)
	// Generated suffixes, in the order they are tried.
	deploymentPodRE = regexp.MustCompile(`^(.+)-` + safe + `{6,10}-` + safe + `{5}$`) // Deployment > ReplicaSet > pod
	cronJobPodRE    = regexp.MustCompile(`^(.+)-[0-9]{8,10}-` + safe + `{5}$`)        // CronJob > Job > pod
	replicaSetRE    = regexp.MustCompile(`^(.+)-` + safe + `{6,10}$`)                 // Deployment > ReplicaSet
	shortSuffixRE   = regexp.MustCompile(`^(.+)-` + safe + `{5}$`)                    // DaemonSet or Job > pod
	ordinalRE       = regexp.MustCompile(`^(.+)-([0-9]{1,3})$`)                       // StatefulSet > pod
	containerRE     = regexp.MustCompile(`^(.+)[-_]([0-9]{1,3})$`)                    // Compose: project-service-1
)

var (
	podKinds        = []string{"Deployment", "Rollout", "DeploymentConfig"}
	cronJobKinds    = []string{"CronJob"}
	shortKinds      = []string{"DaemonSet", "Job", "ReplicaSet"}
	statefulKinds   = []string{"StatefulSet"}
	refKinds        = map[string][]string{"deployment": podKinds, "deploy": podKinds, "statefulset": statefulKinds, "sts": statefulKinds, "daemonset": {"DaemonSet"}, "ds": {"DaemonSet"}, "job": {"Job"}, "cronjob": cronJobKinds, "cj": cronJobKinds, "rollout": {"Rollout"}}
	workloadKinds   = []string{"Deployment", "Rollout", "DeploymentConfig", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicaSet", core.ResourceCompose}
	maxPodNames     = 10
	maxWorkloadHits = 3
)

// ParsePodNames returns the names in text that Kubernetes or Compose made
// from a workload's name (at most 10, each once), with the workload
// names they may come from: a pod of a Deployment (NAME-HASH-XXXXX), of a
// CronJob (NAME-TIMESTAMP-XXXXX), of a DaemonSet or Job (NAME-XXXXX), of a
// StatefulSet (NAME-0), a ReplicaSet (NAME-HASH), a Compose container
// (PROJECT-SERVICE-1, PROJECT_SERVICE_1), and kubectl references
// (deployment/NAME, pod/NAME). A name with no generated suffix is not one:
// the workload's own name is searched as any word is.
func ParsePodNames(text string) []PodName {
	var out []PodName
	seen := map[string]bool{}
	add := func(p PodName) {
		if len(p.Workloads) > 0 && !seen[p.Text] && len(out) < maxPodNames {
			seen[p.Text] = true
			out = append(out, p)
		}
	}
	refs := map[string]bool{}
	for _, m := range kubectlRefRE.FindAllStringSubmatch(text, -1) {
		kind := strings.ToLower(m[1])
		if len(kind) > 3 {
			kind = strings.TrimSuffix(kind, "s")
		}
		refs[m[2]] = true
		switch kind {
		case "pod", "po", "replicaset", "rs":
			p := podName(m[2])
			p.Object = "pod"
			if kind != "pod" && kind != "po" {
				p.Object = "replicaset"
			}
			add(p)
		default:
			// The name as the kind's, then as a pod's (an alert's
			// namespace/pod, where the namespace is named like a kind).
			add(PodName{Text: m[2], Object: kind, Workloads: append([]workloadName{{name: m[2], kinds: refKinds[kind]}}, podName(m[2]).Workloads...)})
		}
	}
	for _, loc := range podNameRE.FindAllStringIndex(text, -1) {
		// A whole name, not the lower-case end of a word (Back-off).
		if w := text[loc[0]:loc[1]]; !refs[w] && !nameByte(text, loc[0]-1) && !nameByte(text, loc[1]) {
			p := podName(w)
			if before, _, ok := strings.Cut(w, "_"); ok && len(p.Workloads) == 0 {
				p = podName(before) // the kubelet's pod_namespace(uid)
			}
			add(p)
		}
	}
	return out
}

// nameByte reports whether text[i] is a letter, digit, '.', '_' or '-'
// (false out of range).
func nameByte(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// podName reads one name's generated suffixes.
func podName(w string) PodName {
	p := PodName{Text: w, Object: "pod"}
	for _, s := range []struct {
		re    *regexp.Regexp
		kinds []string
	}{{deploymentPodRE, podKinds}, {cronJobPodRE, cronJobKinds}, {replicaSetRE, podKinds}, {shortSuffixRE, shortKinds}, {ordinalRE, statefulKinds}} {
		if m := s.re.FindStringSubmatch(w); m != nil {
			p.Workloads = append(p.Workloads, workloadName{name: m[1], kinds: s.kinds})
		}
	}
	// A Compose container: its project's name (the folder of the compose
	// file), then the service's, then a number; either may hold '-'.
	if m := containerRE.FindStringSubmatch(w); m != nil {
		name := m[1]
		for i := range len(name) {
			if name[i] == '-' || name[i] == '_' {
				p.Workloads = append(p.Workloads, workloadName{name: name[i+1:], kinds: []string{core.ResourceCompose}, project: name[:i]})
			}
		}
	}
	return p
}

// workloadHits returns, for each pasted pod or container name, the chunks
// of the manifests of the workloads that may have made it (at most three
// each): the kinds its shape points at first, then those in the
// namespace the text gives it (a/b of an alert, b_a of an event), then by
// path. A name no indexed workload has adds nothing.
func (e *Engine) workloadHits(ctx context.Context, pods []PodName, text string, f core.Filter) ([]core.Hit, error) {
	wf, ok := e.idx.(WorkloadFinder)
	if !ok || len(pods) == 0 {
		return nil, nil
	}
	all, err := wf.Resources(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the workloads for a pasted pod name: %w", err)
	}
	byName := map[string][]core.ResourceAt{}
	for _, r := range all {
		if slices.Contains(workloadKinds, r.Kind) && r.Name != "" && (len(f.Repo) == 0 || slices.Contains(f.Repo, r.Repo)) {
			byName[r.Name] = append(byName[r.Name], r)
		}
	}
	var out []core.Hit
	seen := map[string]bool{}
	for _, p := range pods {
		var found []core.ResourceAt
		// rank is a chunk's place: the shape its name was read by, its
		// kind among the shape's, and for a Compose service whether its
		// file's folder is the container's project.
		rank := map[string]int{}
		for wi, w := range p.Workloads {
			for _, r := range byName[w.name] {
				if ki := slices.Index(w.kinds, r.Kind); ki >= 0 && !seen[r.ChunkID] {
					if _, dup := rank[r.ChunkID]; !dup {
						rank[r.ChunkID] = wi*100 + ki*10
						if w.project != "" && composeProject(r.File) != w.project {
							rank[r.ChunkID]++
						}
						found = append(found, r)
					}
				}
			}
		}
		ns := podNamespace(text, p.Text)
		slices.SortStableFunc(found, func(a, b core.ResourceAt) int {
			if d := rank[a.ChunkID] - rank[b.ChunkID]; d != 0 {
				return d
			}
			if am, bm := ns != "" && a.Namespace == ns, ns != "" && b.Namespace == ns; am != bm {
				if am {
					return -1
				}
				return 1
			}
			if d := strings.Count(a.File, "/") - strings.Count(b.File, "/"); d != 0 {
				return d
			}
			return strings.Compare(a.File, b.File)
		})
		n := 0
		for _, r := range found {
			if n == maxWorkloadHits {
				break
			}
			c, err := wf.Chunk(ctx, r.ChunkID)
			if err != nil {
				return nil, fmt.Errorf("read the manifest of %s %s in %s: %w", r.Kind, r.Name, r.File, err)
			}
			if !admits(f, c) {
				continue
			}
			seen[c.ID] = true
			n++
			h := core.Hit{Chunk: c, Lists: []core.ListRank{{List: "workloads", Rank: len(out) + 1}}}
			h.Explain.Workload = p.describe(r.Kind)
			out = append(out, h)
		}
	}
	return out, nil
}

// describe says what was pasted, for Explain.Workload: "pod NAME",
// "container NAME" (a Compose service's), "replicaset NAME", or a kubectl
// reference as written ("deployment/NAME").
func (p PodName) describe(kind string) string {
	switch {
	case kind == core.ResourceCompose:
		return "container " + p.Text
	case p.Object == "pod" || p.Object == "replicaset":
		return p.Object + " " + p.Text
	}
	return p.Object + "/" + p.Text
}

// composeProject is the project name Compose gives the containers of the
// compose file at p by default: its folder's name, lower-cased, with
// characters other than letters, digits, '-' and '_' left out.
func composeProject(p string) string {
	dir := path.Base(path.Dir(p))
	if dir == "." || dir == "/" {
		return ""
	}
	return strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, dir)
}

// podNamespace is the namespace text gives a pod: ns/pod (an alert,
// kubectl) or pod_ns( (a kubelet event); "" for none.
func podNamespace(text, pod string) string {
	if i := strings.Index(text, "/"+pod); i > 0 {
		if m := podNameRE.FindAllString(text[:i], -1); len(m) > 0 && strings.HasSuffix(text[:i], m[len(m)-1]) {
			return m[len(m)-1]
		}
	}
	if i := strings.Index(text, pod+"_"); i >= 0 {
		rest := text[i+len(pod)+1:]
		if j := strings.IndexAny(rest, "( \t\n"); j > 0 {
			return rest[:j]
		}
	}
	return ""
}

// workloadText replaces each pod or container name in text with the name
// of the workload it most likely comes from, so that the lists search
// the service's own name (checkout-7d9f8c6b5-x2k4p: checkout).
func workloadText(text string, pods []PodName, hits []core.Hit) string {
	for _, p := range pods {
		for _, h := range hits {
			if strings.HasSuffix(h.Explain.Workload, " "+p.Text) || strings.HasSuffix(h.Explain.Workload, "/"+p.Text) {
				for _, w := range p.Workloads {
					if strings.Contains(h.Chunk.Text, w.name) {
						text = strings.ReplaceAll(text, p.Text, w.name)
						break
					}
				}
				break
			}
		}
	}
	return text
}

// admits reports whether the filter lets chunk c in, as the stores' SQL
// does (filterSQL).
func admits(f core.Filter, c core.Chunk) bool {
	in := func(vals []string, v string) bool { return len(vals) == 0 || slices.Contains(vals, v) }
	if len(f.Corpus) > 0 && !slices.Contains(f.Corpus, c.Corpus) ||
		!in(f.Repo, c.RepoName) || !in(f.Language, c.Language) || !in(f.Service, c.ServiceName) {
		return false
	}
	match := func(glob string) bool {
		m, err := PathMatcher(glob)
		return err == nil && m(c.FilePath)
	}
	return (len(f.Path) == 0 || slices.ContainsFunc(f.Path, match)) && !slices.ContainsFunc(f.NotPath, match)
}
