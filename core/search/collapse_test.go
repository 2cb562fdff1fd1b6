package search

import (
	"strings"
	"testing"

	"coderag/core"
)

func TestCollapse(t *testing.T) {
	passage := "we don't have to decide the date today, but I wanted to float the idea of a first testnet fork at the end of October and mainnet after"
	edited := strings.Replace(passage, "float", "raise", 1)
	other := "the ledger writer validates every transaction against the balance reader before it commits the row to the ledger database"
	hit := func(repo, path string, line int, text string) core.Hit {
		return core.Hit{Chunk: core.Chunk{RepoName: repo, FilePath: path, LineStart: line, LineEnd: line + 9, Text: text}}
	}
	tests := []struct {
		name string
		hits []core.Hit
		want []string // kept files, with their duplicates
	}{
		{"a corrected copy collapses into the first", []core.Hit{
			hit("pm", "call/transcript.vtt", 607, passage), hit("pm", "call/transcript_corrected.vtt", 607, edited), hit("bank", "ledger.md", 1, other)},
			[]string{"call/transcript.vtt [pm/call/transcript_corrected.vtt:607-616]", "ledger.md []"}},
		{"two chunks of one file stay", []core.Hit{hit("pm", "a.md", 1, passage), hit("pm", "a.md", 40, passage)},
			[]string{"a.md []", "a.md []"}},
		{"short chunks stay", []core.Hit{hit("r", "a.go", 1, "return nil, err"), hit("r", "b.go", 1, "return nil, err")},
			[]string{"a.go []", "b.go []"}},
		{"different passages stay", []core.Hit{hit("r", "a.md", 1, passage), hit("r", "b.md", 1, other)},
			[]string{"a.md []", "b.md []"}},
	}
	for _, tt := range tests {
		var got []string
		for _, h := range Collapse(tt.hits) {
			got = append(got, h.Chunk.FilePath+" ["+strings.Join(h.Explain.Duplicates, ", ")+"]")
		}
		if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCollapseCopies(t *testing.T) {
	// A Deployment in its base manifest and in a rendered install bundle
	// (a namespace and a label more), and the same bundle twice.
	base := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders-worker
spec:
  template:
    spec:
      containers:
        - name: worker
          image: ghcr.io/acme/orders-worker:1.4
          env:
            - name: QUEUE_URL
              value: amqp://rabbitmq:5672
            - name: BATCH_SIZE
              value: "50"`
	rendered := strings.Replace(base, "  name: orders-worker\n", "  name: orders-worker\n  namespace: shop\n  labels:\n    app.kubernetes.io/part-of: shop\n", 1)
	other := "the ledger writer validates every transaction against the balance reader before it commits the row to the ledger database"
	hit := func(svc, path string, text string) core.Hit {
		return core.Hit{Chunk: core.Chunk{RepoName: "shop", ServiceName: svc, FilePath: path, LineStart: 1, LineEnd: 16, Text: text}}
	}
	pinned := hit("orders-worker", "deploy/install.yaml", rendered)
	pinned.Explain.Workload = "pod orders-worker-7d9f8c6b5-x2k4p"
	tests := []struct {
		name string
		hits []core.Hit
		want []string // kept files, with their duplicates
	}{
		{"a resource and its rendered copies collapse", []core.Hit{
			hit("orders-worker", "deploy/base/worker.yaml", base), hit("orders-worker", "deploy/install.yaml", rendered),
			hit("ledger", "ledger.md", other), hit("orders-worker", "deploy/namespace-install.yaml", rendered)},
			[]string{"deploy/base/worker.yaml [shop/deploy/install.yaml:1-16, shop/deploy/namespace-install.yaml:1-16]", "ledger.md []"}},
		{"copies in two services stay", []core.Hit{hit("orders", "orders/util.go", other), hit("ledger", "ledger/util.go", other)},
			[]string{"orders/util.go []", "ledger/util.go []"}},
		{"copies of no service stay", []core.Hit{hit("", "docs/a.md", other), hit("", "docs/b.md", other)},
			[]string{"docs/a.md []", "docs/b.md []"}},
		{"a pinned hit stays", []core.Hit{hit("orders-worker", "deploy/base/worker.yaml", base), pinned},
			[]string{"deploy/base/worker.yaml []", "deploy/install.yaml []"}},
	}
	for _, tt := range tests {
		var got []string
		for _, h := range collapseCopies(tt.hits, 10) {
			got = append(got, h.Chunk.FilePath+" ["+strings.Join(h.Explain.Duplicates, ", ")+"]")
		}
		if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
