package chunk

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWorkflowBuildResource reads the images a GitHub Actions workflow
// builds and their folders (relative to the workflow file): a matrix of
// build-push-action steps, tags from docker/metadata-action, a Dockerfile
// given by file, and docker build in a run step.
func TestWorkflowBuildResource(t *testing.T) {
	const wf = `name: images
on: [push]
jobs:
  services:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        service: [cart, checkout]
    steps:
      - uses: actions/checkout@v4
      - uses: docker/build-push-action@v5
        with:
          context: ./src/${{ matrix.service }}
          push: true
          tags: ghcr.io/acme/${{ matrix.service }}:${{ github.sha }}
  frontend:
    runs-on: ubuntu-latest
    steps:
      - id: meta
        uses: docker/metadata-action@v5
        with:
          images: |
            ghcr.io/acme/storefront
          tags: type=sha
      - uses: docker/build-push-action@v5
        with:
          context: .
          file: web/storefront/Dockerfile
          tags: ${{ steps.meta.outputs.tags }}
  tools:
    runs-on: ubuntu-latest
    steps:
      - run: |
          docker build --build-arg VERSION=1 -t registry.example.com/loadgen:latest -f tools/loadgen/Dockerfile tools
          echo done
      - run: docker build -t "${{ env.IMAGE }}" .
`
	res, ok := WorkflowBuildResource([]byte(wf), ".github/workflows/images.yml")
	if !ok {
		t.Fatal("no build resource")
	}
	want := map[string]string{
		"ghcr.io/acme/cart:${{ github.sha }}":     "../../src/cart",
		"ghcr.io/acme/checkout:${{ github.sha }}": "../../src/checkout",
		"ghcr.io/acme/storefront":                 "../../web/storefront",
		"registry.example.com/loadgen:latest":     "../../tools/loadgen",
	}
	if d := cmp.Diff(want, res.Data); d != "" {
		t.Errorf("images (-want +got):\n%s", d)
	}
	if _, ok := WorkflowBuildResource([]byte("name: lint\non: push\njobs:\n  lint:\n    steps:\n      - run: go vet ./...\n"), ".github/workflows/lint.yml"); ok {
		t.Error("a workflow that builds no image has a build resource")
	}
	for name, want := range map[string]bool{".github/workflows/ci.yml": true, "svc/.github/workflows/a.yaml": true, ".github/dependabot.yml": false, "workflows/ci.yml": false} {
		if IsWorkflow(name) != want {
			t.Errorf("IsWorkflow(%q) = %v", name, !want)
		}
	}
}
