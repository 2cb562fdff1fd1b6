package chunk

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

// TestKustomization checks the ConfigMaps a Kustomize file's generators
// declare: literals as data with secrets left out, env files kept for the
// graph, the file's namespace unless the generator has its own, and no
// resource for secretGenerator.
func TestKustomization(t *testing.T) {
	c := newChunker(t)
	const file = "k8s/overlays/staging/kustomization.yaml"
	src, err := os.ReadFile(filepath.Join("testdata", "files", file))
	if err != nil {
		t.Fatal(err)
	}
	res := chunkFile(t, c, file, src)
	var got []core.Resource
	for _, ch := range res.Chunks {
		got = append(got, ch.Resources...)
	}
	want := []core.Resource{
		{Kind: "ConfigMap", Name: "checkout-config", Namespace: "staging", Line: 11,
			Data: map[string]string{
				"CART_URL":     "http://cart.staging.svc.cluster.local:8080",
				"REDIS_ADDR":   "redis-staging:6379",
				"DATABASE_URL": "postgres://checkout-db:5432/checkout",
			},
			Keys:     []core.KeyLine{{Key: "CART_URL", Line: 14}, {Key: "REDIS_ADDR", Line: 15}, {Key: "DATABASE_URL", Line: 17}},
			EnvFiles: []string{"checkout.env"}},
		{Kind: "ConfigMap", Name: "feature-flags", Namespace: "flags", Line: 20, Data: map[string]string{}, EnvFiles: []string{"flags.env"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("resources (-want +got):\n%s", d)
	}
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"kustomization.yaml", true}, {"a/b/kustomization.yml", true}, {"overlays/Kustomization", true},
		{"kustomization.json", false}, {"my-kustomization.yaml", false},
	} {
		if got := IsKustomization(tt.name); got != tt.want {
			t.Errorf("IsKustomization(%q) = %v", tt.name, got)
		}
	}
}

func TestGoTemplateActions(t *testing.T) {
	for src, want := range map[string]bool{
		"image: {{ .Values.image }}":                         true,
		"run: echo ${{ github.sha }}":                        false,
		"a: ${{ parameters.env }}\nb: {{ include \"x\" . }}": true,
		"no actions here":                                    false,
	} {
		if got := goTemplateActions([]byte(src)); got != want {
			t.Errorf("goTemplateActions(%q) = %v, want %v", src, got, want)
		}
	}
}
