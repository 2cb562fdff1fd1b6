package search

import (
	"fmt"
	"strings"
	"testing"

	"coderag/core"
)

func TestParsePodNames(t *testing.T) {
	render := func(ps []PodName) string {
		var out []string
		for _, p := range ps {
			var ws []string
			for _, w := range p.Workloads {
				ws = append(ws, w.kinds[0]+":"+w.name)
			}
			out = append(out, p.Object+" "+p.Text+" <- "+strings.Join(ws, " "))
		}
		return strings.Join(out, "; ")
	}
	for _, tt := range []struct{ name, in, want string }{
		{"kubectl get pods", "checkout-7d9f8c6b5-x2k4p   0/1     CrashLoopBackOff   7 (2m ago)   15m",
			"pod checkout-7d9f8c6b5-x2k4p <- Deployment:checkout DaemonSet:checkout-7d9f8c6b5"},
		{"kubelet event", "Back-off restarting failed container server in pod cart-api-5c8d7f6b9d-q4z2w_shop(0b1c)",
			"pod cart-api-5c8d7f6b9d-q4z2w <- Deployment:cart-api DaemonSet:cart-api-5c8d7f6b9d"},
		{"statefulset pod", "redis-0 OOMKilled", "pod redis-0 <- StatefulSet:redis"},
		{"daemonset or job pod", "fluent-bit-x7kq2 0/1 Error", "pod fluent-bit-x7kq2 <- DaemonSet:fluent-bit"},
		{"cronjob pod", "report-29401200-8zq5n Error", "pod report-29401200-8zq5n <- CronJob:report DaemonSet:report-29401200"},
		{"kubectl references", "kubectl rollout restart deployment/checkout && kubectl logs pod/checkout-7d9f8c6b5-x2k4p",
			"deployment checkout <- Deployment:checkout; pod checkout-7d9f8c6b5-x2k4p <- Deployment:checkout DaemonSet:checkout-7d9f8c6b5"},
		{"compose container", "shop-cart-api-1 exited with code 137", "pod shop-cart-api-1 <- StatefulSet:shop-cart-api compose:cart-api compose:api"},
		{"compose v1 container", "shop_cart_1 exited", "pod shop_cart_1 <- compose:cart"},
		{"words are not suffixes", "the cart-service restarts; see deploy-notes and api-v2", ""},
		{"the end of a word is not a name", "Back-off restarting", ""},
		{"a workload's own name is not a pod", "why is checkout slow", ""},
		{"service DNS name", "dial tcp: lookup cart.shop.svc.cluster.local on 10.96.0.10:53: no such host",
			"host cart.shop.svc.cluster.local <- Service:cart"},
		{"service DNS name with a port", "upstream connect error to cart.shop.svc:7070", "host cart.shop.svc:7070 <- Service:cart"},
		{"host and port", "dial tcp 10.96.4.7:6379: connect: connection refused (redis:6379)", "host redis:6379 <- Service:redis"},
		{"image with a registry", `Failed to pull image "ghcr.io/acme/cart:1.4.2": not found`, "image ghcr.io/acme/cart:1.4.2 <- image:ghcr.io/acme/cart"},
		{"short image after image", "Back-off pulling image redis:7.2", "image redis:7.2 <- image:redis"},
		{"paths and times are not images or hosts", "panic at src/app/main.go:42 at 14:02:11, see docs/faq.md", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Every shape a name has is read (a Job may be named
			// checkout-7d9f8c6b5); only workloads the index holds match.
			got := render(ParsePodNames(tt.in))
			if got != tt.want {
				t.Errorf("ParsePodNames(%q) =\n  %s\nwant\n  %s", tt.in, got, tt.want)
			}
		})
	}
	var many []string
	for i := range 30 {
		many = append(many, fmt.Sprintf("svc%d-7d9f8c6b5-x2k4p", i))
	}
	if n := len(ParsePodNames(strings.Join(many, "\n"))); n != maxPodNames {
		t.Errorf("%d names read from 30 pods, want at most %d", n, maxPodNames)
	}
}

func TestPodNamespace(t *testing.T) {
	for _, tt := range []struct{ text, pod, want string }{
		{"KubePodCrashLooping: Pod shop/cart-7d9f8c6b5-x2k4p is in waiting state", "cart-7d9f8c6b5-x2k4p", "shop"},
		{"failed container in pod cart-7d9f8c6b5-x2k4p_payments(0b1c)", "cart-7d9f8c6b5-x2k4p", "payments"},
		{"cart-7d9f8c6b5-x2k4p 0/1 Error", "cart-7d9f8c6b5-x2k4p", ""},
	} {
		if got := podNamespace(tt.text, tt.pod); got != tt.want {
			t.Errorf("podNamespace(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	for _, tt := range []struct{ text, want string }{
		{"Name:         cart-7d9f8c6b5-x2k4p\nNamespace:    payments\nPriority:     0", "payments"},
		{`{"level":"error","namespace":"shop","pod":"cart-7d9f8c6b5-x2k4p"}`, "shop"},
		{"kubectl logs -n staging cart-7d9f8c6b5-x2k4p", "staging"},
		{"kubectl rollout restart deployment/cart --namespace shop", "shop"},
		{"cart-7d9f8c6b5-x2k4p 0/1 Error", ""},
	} {
		if got := textNamespace(tt.text); got != tt.want {
			t.Errorf("textNamespace(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestImageRepoOf(t *testing.T) {
	for ref, want := range map[string]string{
		"docker.io/library/redis:7.2": "redis", "redis": "redis", "ghcr.io/acme/cart:1.4@sha256:0123456789abcdef": "ghcr.io/acme/cart",
		"localhost:5000/cart:dev": "localhost:5000/cart", "{{ .Values.image.repository }}:{{ .Values.image.tag }}": "",
	} {
		if got := imageRepoOf(ref); got != want {
			t.Errorf("imageRepoOf(%q) = %q, want %q", ref, got, want)
		}
	}
}

func TestComposeProject(t *testing.T) {
	for p, want := range map[string]string{"deploy/Shop App/compose.yaml": "shopapp", "docker-compose.yml": "", "contrib/docker-compose/basic.yml": "docker-compose"} {
		if got := composeProject(p); got != want {
			t.Errorf("composeProject(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestAdmits(t *testing.T) {
	c := core.Chunk{FilePath: "deploy/k8s/cart.yaml", RepoName: "shop", Corpus: core.CodeDeploy, Language: "yaml"}
	for _, tt := range []struct {
		f    core.Filter
		want bool
	}{
		{core.Filter{}, true},
		{core.Filter{Repo: []string{"shop"}}, true},
		{core.Filter{Repo: []string{"web"}}, false},
		{core.Filter{Path: []string{"*k8s*"}}, true},
		{core.Filter{NotPath: []string{"*k8s*"}}, false},
		{core.Filter{Corpus: []core.CorpusType{core.CodeLogic}}, false},
		{core.Filter{Language: []string{"yaml"}}, true},
	} {
		if got := admits(tt.f, c); got != tt.want {
			t.Errorf("admits(%+v) = %v, want %v", tt.f, got, tt.want)
		}
	}
}

// BenchmarkParsePodNames reads a 1 MB log of structured lines, each with a
// pod, a host, an image and a path (a long paste): every distinct word
// once, no expression over the whole text.
func BenchmarkParsePodNames(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "2026-11-24T07:59:%02d.%03dZ level=error msg=\"upstream failed\" pod=checkout-7d9f8c6b5-x2k4p host=redis:6379 image=ghcr.io/acme/cart:1.4.%d path=/v1/orders/%d trace=%x\n", i%60, i%1000, i%10, i, i*7919)
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if ps := ParsePodNames(text); len(ps) == 0 {
			b.Fatal("no names read")
		}
	}
}

// FuzzParsePodNames: any text reads without a panic into at most
// maxPodNames names, each found in the text with a workload name to look
// up, and a namespace, if any, is a word of the text.
func FuzzParsePodNames(f *testing.F) {
	for _, s := range []string{
		"checkout-7d9f8c6b5-x2k4p   0/1   CrashLoopBackOff",
		"Back-off restarting failed container in pod cart-5c8d7f6b9d-q4z2w_shop(0b1c)",
		"KubePodCrashLooping: Pod shop/redis-0 is waiting",
		`Failed to pull image "ghcr.io/acme/cart:1.5.0@sha256:0123456789abcdef"`,
		"dial tcp: lookup cart.shop.svc.cluster.local:7070: no such host; upstream cart:7070",
		"kubectl rollout restart deployment.apps/cart -n shop && shop_cart_1 exited",
		"http://cart:7070/x pull image redis:7.2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps := ParsePodNames(s)
		if len(ps) > maxPodNames {
			t.Fatalf("ParsePodNames(%q) = %d names", s, len(ps))
		}
		for _, p := range ps {
			if !strings.Contains(s, p.Text) || len(p.Workloads) == 0 {
				t.Fatalf("ParsePodNames(%q) gave %+v", s, p)
			}
			for _, w := range p.Workloads {
				if w.name == "" || len(w.kinds) == 0 {
					t.Fatalf("ParsePodNames(%q) gave workload %+v of %q", s, w, p.Text)
				}
			}
		}
		if ns := textNamespace(s); ns != "" && !strings.Contains(s, ns) {
			t.Fatalf("textNamespace(%q) = %q", s, ns)
		}
	})
}

func TestReleaseOf(t *testing.T) {
	tmpl := func(file, name string) core.ResourceAt {
		return core.ResourceAt{File: file, Resource: core.Resource{Kind: core.ResourceHelmTemplate, Data: map[string]string{"kind": "Deployment", "name": name}}}
	}
	full := tmpl("charts/cart/templates/deployment.yaml", `{{ include "cart.fullname" . }}`)
	worker := tmpl("charts/cart/templates/worker.yaml", `{{ include "cart.fullname" . }}-worker`)
	named := tmpl("deploy/exclude-guestbook/templates/d.yaml", `{{ template "guestbook.name" . }}`)
	release := tmpl("charts/cart/templates/job.yaml", `{{ .Release.Name }}-migrate`)
	literal := tmpl("charts/cart/templates/x.yaml", `cart-exporter`)
	for _, tt := range []struct {
		name string
		r    core.ResourceAt
		want bool
	}{
		{"prod-cart", full, true},
		{"cart", full, true},
		{"cart-prod", full, true}, // a release named after the chart
		{"prod-carts", full, false},
		{"prod-cart-worker", worker, true},
		{"prod-cart", worker, false},
		{"guestbook", named, true}, // the helper's name, not the folder's
		{"prod-migrate", release, false},
		{"cart-exporter", literal, true},
		{"prod-cart-exporter", literal, false},
	} {
		if got := releaseOf(tt.name, tt.r); got != tt.want {
			t.Errorf("releaseOf(%q, %s) = %v, want %v", tt.name, tt.r.Data["name"], got, tt.want)
		}
	}
}
