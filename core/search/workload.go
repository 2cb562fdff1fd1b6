package search

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"

	"coderag/core"
	"coderag/core/internal/lazyre"
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

// PodName is a name in pasted text that leads to a workload: one
// Kubernetes or Compose made from the workload's name (a pod such as
// checkout-7d9f8c6b5-x2k4p or redis-0, a ReplicaSet, a Job's pod, a
// Compose container such as shop-cart-1), a kubectl reference
// (deployment/checkout), a Service's host (cart.shop.svc.cluster.local,
// cart:7070) or an image (ghcr.io/acme/cart:1.4).
type PodName struct {
	// Text is the name as written, Object what it names: "pod",
	// "replicaset", "host", "image", or the kind a kubectl reference
	// gave ("deployment").
	Text, Object string
	// Workloads are the names of the workloads that may have made it,
	// each with the kinds that make names of its shape, most likely
	// first.
	Workloads []workloadName
	// image is an image's repository without its tag or digest
	// (normalized: imageRepo), for an image reference; port the port a
	// host was written with.
	image, port string
}

type workloadName struct {
	name  string
	kinds []string
	// namespace is the one a Service's DNS name gives.
	namespace string
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
	podNameRE = lazyre.New(`^[a-z0-9][a-z0-9._-]*[a-z0-9]$`)
	// kubectlRefRE is a kubectl reference: deployment/checkout,
	// statefulset.apps/redis, pod/checkout-7d9f8c6b5-x2k4p.
	kubectlRefRE = lazyre.New(`(?i)^(deployments?|deploy|statefulsets?|sts|daemonsets?|ds|jobs?|cronjobs?|cj|replicasets?|rs|pods?|po|rollouts?)(?:\.(?:apps|batch|argoproj\.io))?/([a-z0-9][a-z0-9._-]*[a-z0-9])$`)
	// Generated suffixes, in the order they are tried.
	deploymentPodRE = lazyre.New(`^(.+)-` + safe + `{6,10}-` + safe + `{5}$`) // Deployment > ReplicaSet > pod
	cronJobPodRE    = lazyre.New(`^(.+)-[0-9]{8,10}-` + safe + `{5}$`)        // CronJob > Job > pod
	replicaSetRE    = lazyre.New(`^(.+)-` + safe + `{6,10}$`)                 // Deployment > ReplicaSet
	shortSuffixRE   = lazyre.New(`^(.+)-` + safe + `{5}$`)                    // DaemonSet or Job > pod
	ordinalRE       = lazyre.New(`^(.+)-([0-9]{1,3})$`)                       // StatefulSet > pod
	containerRE     = lazyre.New(`^(.+)[-_]([0-9]{1,3})$`)                    // Compose: project-service-1
	// A Service's cluster DNS name (cart.shop.svc.cluster.local, cart.shop.svc),
	// with its port if written.
	serviceDNSRE = lazyre.New(`^([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)\.([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)\.svc(?:\.cluster\.local)?\.?(?::([0-9]{2,5}))?$`)
	// A host and port (redis:6379, http://cart:7070/x): a Service's or
	// Compose service's name when the index has one so named.
	hostPortRE = lazyre.New(`^([a-z][-a-z0-9]*[a-z0-9]):([0-9]{2,5})$`)
	// An image reference with a registry or a tag: quay.io/org/app:v1.2,
	// ghcr.io/org/app@sha256:..., redis:7.2, org/app:latest.
	imageRE = lazyre.New(`^((?:[a-z0-9][-a-z0-9.]*(?::[0-9]+)?/)?[a-z0-9][-a-z0-9._]*(?:/[a-z0-9][-a-z0-9._]*)*)(?::([\w][\w.-]{0,127}))?(?:@sha256:[0-9a-f]{12,64})?$`)
)

var (
	podKinds      = []string{"Deployment", "Rollout", "DeploymentConfig"}
	cronJobKinds  = []string{"CronJob"}
	shortKinds    = []string{"DaemonSet", "Job", "ReplicaSet"}
	statefulKinds = []string{"StatefulSet"}
	refKinds      = map[string][]string{"deployment": podKinds, "deploy": podKinds, "statefulset": statefulKinds, "sts": statefulKinds, "daemonset": {"DaemonSet"}, "ds": {"DaemonSet"}, "job": {"Job"}, "cronjob": cronJobKinds, "cj": cronJobKinds, "rollout": {"Rollout"}}
	hostKinds     = []string{"Service", core.ResourceCompose}
)

const (
	maxPodNames     = 10 // names read from one text
	maxWorkloadHits = 3  // manifests pinned for one name
)

// ParsePodNames returns the names in text that lead to a workload (at
// most 10, each once), with the workload names they may come from: a pod
// of a Deployment (NAME-HASH-XXXXX), of a CronJob (NAME-TIMESTAMP-XXXXX),
// of a DaemonSet or Job (NAME-XXXXX), of a StatefulSet (NAME-0), a
// ReplicaSet (NAME-HASH), a Compose container (PROJECT-SERVICE-1,
// PROJECT_SERVICE_1), kubectl references (deployment/NAME, pod/NAME), a
// Service's host (NAME.NS.svc.cluster.local, NAME:PORT) and an image
// (quay.io/org/app:v1, after "image" or "pull" also app:v1). A name with
// no generated suffix is not one: the workload's own name is searched as
// any word is.
func ParsePodNames(text string) []PodName {
	var out []PodName
	seen := map[string]bool{}
	add := func(p PodName) {
		key := p.Text
		if p.image != "" {
			key = "image " + p.image // one image, whatever its tags
		}
		if len(p.Workloads) > 0 && !seen[key] && len(out) < maxPodNames {
			seen[key] = true
			out = append(out, p)
		}
	}
	// One pass over the text's words, each distinct word read once: a
	// long paste (a log's last thousand lines) repeats its pods.
	tried := map[string]bool{}
	for start := 0; start < len(text) && len(out) < maxPodNames; {
		end := start
		for end < len(text) && !wordSep(text[end]) {
			end++
		}
		w := strings.TrimRight(text[start:end], ".,;:!?")
		if w != "" && !tried[w] {
			tried[w] = true
			readWord(w, imageContext(text[:start]), add)
		}
		start = end + 1
	}
	return out
}

// readWord adds what one word of pasted text names: a kubectl reference,
// a Service's host, an image, or a pod or container name (alone or after
// a namespace's '/'). imageWord says the words before it announce an
// image ("pull image").
func readWord(w string, imageWord bool, add func(PodName)) {
	// A URL: its host.
	if _, rest, ok := strings.Cut(w, "://"); ok {
		w, _, _ = strings.Cut(rest, "/")
	}
	if m := kubectlRefRE.FindStringSubmatch(w); m != nil && m[0] == w {
		kind := strings.ToLower(m[1])
		if len(kind) > 3 {
			kind = strings.TrimSuffix(kind, "s")
		}
		switch kind {
		case "pod", "po", "replicaset", "rs":
			p := podName(m[2])
			if kind == "replicaset" || kind == "rs" {
				p.Object = "replicaset"
			}
			add(p)
		default:
			// The name as the kind's, then as a pod's (an alert's
			// namespace/pod, where the namespace is named like a kind).
			add(PodName{Text: m[2], Object: kind, Workloads: append([]workloadName{{name: m[2], kinds: refKinds[kind]}}, podName(m[2]).Workloads...)})
		}
		return
	}
	if m := serviceDNSRE.FindStringSubmatch(w); m != nil && m[0] == w {
		add(PodName{Text: strings.TrimSuffix(w, "."), Object: "host", port: m[3], Workloads: []workloadName{{name: m[1], kinds: hostKinds, namespace: m[2]}}})
		return
	}
	if m := hostPortRE.FindStringSubmatch(w); m != nil {
		add(PodName{Text: w, Object: "host", port: m[2], Workloads: []workloadName{{name: m[1], kinds: hostKinds}}})
		return
	}
	if strings.ContainsAny(w, "/:@") {
		if m := imageRE.FindStringSubmatchIndex(w); m != nil {
			repo, tagged := w[m[2]:m[3]], m[4] >= 0
			switch {
			case !strings.Contains(repo, "/") && !(tagged && imageWord):
			case !imageWord && !strings.Contains(w, "@") && (!tagged || !registry(repo) && allDigits(w[m[4]:m[5]])):
				// a path (src/app/main.go:42), not an image
			default:
				// Matched by the images workloads run (core.IsWorkload), not by name.
				add(PodName{Text: w, Object: "image", image: imageRepo(repo), Workloads: []workloadName{{name: repo, kinds: []string{"image"}}}})
				return
			}
		}
	}
	// A pod or container name, alone or after a namespace (ns/pod).
	for _, part := range strings.Split(w, "/") {
		if !strings.ContainsAny(part, "-_") || !podNameRE.MatchString(part) {
			continue
		}
		p := podName(part)
		if before, _, ok := strings.Cut(part, "_"); ok && len(p.Workloads) == 0 {
			p = podName(before) // the kubelet's pod_namespace(uid)
		}
		add(p)
	}
}

// wordSep reports whether c ends a word of pasted text.
func wordSep(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '=', ',', '(', ')', '[', ']', '<', '>', '{', '}', '|':
		return true
	}
	return false
}

// registry reports whether an image repository starts with a registry's
// host (quay.io/..., localhost:5000/...).
func registry(repo string) bool {
	first, _, ok := strings.Cut(repo, "/")
	return ok && (strings.ContainsAny(first, ".:") || first == "localhost")
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// imageContext reports whether the text before a reference says an image
// follows ("image", "pull", "Image:", "FROM").
func imageContext(before string) bool {
	before = before[max(0, len(before)-24):] // the words just before
	before = strings.ToLower(strings.TrimRight(before, " \t\"'=:"))
	return strings.HasSuffix(before, "image") || strings.HasSuffix(before, "pull") || strings.HasSuffix(before, "pulling") ||
		strings.HasSuffix(before, "from") || strings.HasSuffix(before, "images")
}

// imageRepo normalizes an image's repository as Docker reads it:
// docker.io/library/redis, docker.io/redis and redis are one.
func imageRepo(repo string) string {
	repo = strings.TrimPrefix(repo, "docker.io/")
	repo = strings.TrimPrefix(repo, "index.docker.io/")
	return strings.TrimPrefix(repo, "library/")
}

// imageRepoOf is imageRepo of a full reference (tag and digest cut); ""
// for one a template writes ({{ .Values.image }}).
func imageRepoOf(ref string) string {
	if strings.Contains(ref, "{{") || strings.Contains(ref, "${") {
		return ""
	}
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		ref = ref[:i]
	}
	return imageRepo(ref)
}

// podName reads one name's generated suffixes.
func podName(w string) PodName {
	p := PodName{Text: w, Object: "pod"}
	for _, s := range []struct {
		re    *lazyre.Regexp
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
			if (name[i] == '-' || name[i] == '_') && i > 0 && i+1 < len(name) {
				p.Workloads = append(p.Workloads, workloadName{name: name[i+1:], kinds: []string{core.ResourceCompose}, project: name[:i]})
			}
		}
	}
	return p
}

// workloadHits returns, for each pasted pod or container name, the chunks
// of the manifests of the workloads that may have made it (at most three
// each): the kinds its shape points at first, then those in the
// namespace the text gives it (a/b of an alert, b_a of an event, or
// Namespace:, -n for all it shows), then by path. A name no indexed
// workload has adds nothing. renames pairs each name that found a
// manifest, in the text's order, with the workload's name when the
// manifest writes it, for the lists to search instead
// (checkout-7d9f8c6b5-x2k4p: checkout).
func (e *Engine) workloadHits(ctx context.Context, pods []PodName, text string, f core.Filter) (hits []core.Hit, renames [][2]string, err error) {
	wf, ok := e.idx.(WorkloadFinder)
	if !ok || len(pods) == 0 {
		return nil, nil, nil
	}
	all, err := wf.Resources(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read the workloads for a pasted pod name: %w", err)
	}
	textNS := sync.OnceValue(func() string { return textNamespace(text) }) // one scan of a long paste
	byName := map[string][]core.ResourceAt{}
	byImage := map[string][]core.ResourceAt{}
	byService := map[string][]core.ResourceAt{} // workloads by the service they belong to
	var charts []core.ResourceAt                // Helm templates of workloads
	for _, r := range all {
		if len(f.Repo) > 0 && !slices.Contains(f.Repo, r.Repo) || r.Name == "" {
			continue
		}
		if r.Kind == core.ResourceHelmTemplate && r.Data["kind"] != "" {
			charts = append(charts, r)
			continue
		}
		// Workloads that make pods (a bare Pod manifest is a one-off,
		// most often a test's) and Compose services.
		workload := core.IsWorkload(r.Kind) && r.Kind != "Pod" || r.Kind == core.ResourceCompose
		if workload || r.Kind == "Service" {
			byName[r.Name] = append(byName[r.Name], r)
		}
		if workload {
			for _, img := range r.Images {
				if repo := imageRepoOf(img); repo != "" && !slices.ContainsFunc(byImage[repo], func(x core.ResourceAt) bool { return x.ChunkID == r.ChunkID }) {
					byImage[repo] = append(byImage[repo], r)
				}
			}
			if r.Service != "" {
				byService[r.Service] = append(byService[r.Service], r)
			}
		}
	}
	seen := map[string]bool{}
	for _, p := range pods {
		var found []core.ResourceAt
		// rank is a chunk's place: the shape its name was read by (x100),
		// its kind among the shape's and for a Compose service whether
		// its file's folder is the container's project (x10), and a
		// Service's workloads after it (+5); via the workload name it was
		// found by.
		rank, via := map[string]int{}, map[string]string{}
		take := func(r core.ResourceAt, at int, name string) {
			if _, dup := rank[r.ChunkID]; !dup && !seen[r.ChunkID] {
				rank[r.ChunkID], via[r.ChunkID] = at, name
				found = append(found, r)
			}
		}
		ns := podNamespace(text, p.Text)
		if ns == "" {
			ns = textNS()
		}
		switch {
		case p.image != "":
			for _, r := range byImage[p.image] {
				take(r, 0, p.Workloads[0].name)
			}
		default:
			for wi, w := range p.Workloads {
				if w.namespace != "" {
					ns = w.namespace
				}
				for _, r := range charts {
					if ki := slices.Index(w.kinds, r.Data["kind"]); ki >= 0 && releaseOf(w.name, r) {
						take(r, wi*100+ki*10+2, w.name) // after manifests of that very name
					}
				}
				for _, r := range byName[w.name] {
					ki := slices.Index(w.kinds, r.Kind)
					if ki < 0 || p.Object == "host" && p.port != "" && len(r.Ports) > 0 && !hasPort(r.Ports, p.port) {
						continue
					}
					at := wi*100 + ki*10
					if w.project != "" && composeProject(r.File) != w.project {
						at += 10 // after the services of the container's project
					}
					take(r, at, w.name)
					// A Service: the workloads behind it follow.
					if r.Kind == "Service" && r.Service != "" {
						for _, wr := range byService[r.Service] {
							if wr.Kind != core.ResourceCompose && (wr.Namespace == r.Namespace || wr.Namespace == "" || r.Namespace == "") {
								take(wr, at+5, w.name)
							}
						}
					}
				}
			}
		}
		// By the shape and kind that found it, the namespace, Service
		// before the workloads behind it, then the file (shallower
		// first).
		slices.SortStableFunc(found, func(a, b core.ResourceAt) int {
			if d := rank[a.ChunkID]/10 - rank[b.ChunkID]/10; d != 0 {
				return d
			}
			if am, bm := ns != "" && a.Namespace == ns, ns != "" && b.Namespace == ns; am != bm {
				if am {
					return -1
				}
				return 1
			}
			if d := rank[a.ChunkID]%10 - rank[b.ChunkID]%10; d != 0 {
				return d // a Service before the workloads behind it
			}
			if d := strings.Count(a.File, "/") - strings.Count(b.File, "/"); d != 0 {
				return d
			}
			if d := strings.Compare(a.File, b.File); d != 0 {
				return d
			}
			return 0
		})
		n := 0
		for _, r := range found {
			if n == maxWorkloadHits {
				break
			}
			c, err := wf.Chunk(ctx, r.ChunkID)
			if err != nil {
				return nil, nil, fmt.Errorf("read the manifest of %s %s in %s: %w", r.Kind, r.Name, r.File, err)
			}
			if !admits(f, c) {
				continue
			}
			if n == 0 && strings.Contains(c.Text, via[r.ChunkID]) {
				renames = append(renames, [2]string{p.Text, via[r.ChunkID]})
			}
			seen[c.ID] = true
			n++
			h := core.Hit{Chunk: c, Lists: []core.ListRank{{List: "workloads", Rank: len(hits) + 1}}}
			h.Explain.Workload = p.describe(r.Kind)
			hits = append(hits, h)
		}
	}
	return hits, renames, nil
}

// helperRE is a chart's name helper in a template ("redis.fullname").
var helperRE = lazyre.New(`"([a-z0-9][-a-z0-9]*)\.(?:fullname|name)"`)

// releaseOf reports whether a Helm release could have named a workload
// name from chart template r: its name template's literal end
// ({{ include "redis.fullname" . }}-master: -master) ends it, and the
// rest is the chart's full name (RELEASE-CHART, or RELEASE when it holds
// the chart's name). A template named by the release alone, or not by
// the chart's full name, cannot be told from a name.
func releaseOf(name string, r core.ResourceAt) bool {
	tmpl := strings.Trim(r.Data["name"], `"'`)
	chart := path.Base(path.Dir(path.Dir(r.File)))
	if m := helperRE.FindStringSubmatch(tmpl); m != nil {
		chart = m[1] // the chart's name as its helpers write it
	}
	if !strings.Contains(tmpl, "{{") {
		return tmpl != "" && name == tmpl
	}
	if !strings.Contains(tmpl, "fullname") && !strings.Contains(tmpl, ".Chart.Name") && !strings.Contains(tmpl, ".name\"") {
		return false
	}
	tail := strings.Trim(tmpl[strings.LastIndex(tmpl, "}}")+2:], `"'`)
	if strings.Contains(tail, "{{") || !strings.HasSuffix(name, tail) {
		return false
	}
	base := strings.TrimSuffix(name, tail)
	return base == chart || strings.HasSuffix(base, "-"+chart) || strings.HasPrefix(base, chart+"-")
}

// describe says what was pasted, for Explain.Workload: "pod NAME",
// "container NAME" (a Compose service's), "replicaset NAME", "host
// NAME:PORT", "image REF", or a kubectl reference as written
// ("deployment/NAME").
func (p PodName) describe(kind string) string {
	switch {
	case p.Object == "host" || p.Object == "image":
		return p.Object + " " + p.Text
	case kind == core.ResourceCompose:
		return "container " + p.Text
	case p.Object == "pod" || p.Object == "replicaset":
		return p.Object + " " + p.Text
	}
	return p.Object + "/" + p.Text
}

// hasPort reports whether a resource's ports ("8081", "7070:7070",
// "8080/tcp") hold port.
func hasPort(ports []string, port string) bool {
	for _, p := range ports {
		for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == ':' || r == '/' || r == '-' }) {
			if part == port {
				return true
			}
		}
	}
	return false
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
		j := i
		for j > 0 && (text[j-1] >= 'a' && text[j-1] <= 'z' || text[j-1] >= '0' && text[j-1] <= '9' || text[j-1] == '-') {
			j--
		}
		if j < i {
			return text[j:i]
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

// namespaceRE is a namespace a text names for all it shows: kubectl
// describe's "Namespace: shop", a structured log's namespace=shop, a
// command's -n shop or --namespace shop.
var namespaceRE = lazyre.New(`(?m)(?:^|[\s,{])(?:Namespace:[ \t]+|"?namespace"?[=:][ \t]*"?|-n[ \t]+|--namespace[= ])([a-z0-9][-a-z0-9]*[a-z0-9])`)

// textNamespace is the namespace a text names for all it shows (the first
// of namespaceRE's), "" for none.
func textNamespace(text string) string {
	if m := namespaceRE.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// workloadText replaces each pasted name in text with the workload name
// it found (workloadHits' renames).
func workloadText(text string, renames [][2]string) string {
	for _, r := range renames {
		text = strings.ReplaceAll(text, r[0], r[1])
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
