package chunk

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWorkflowBuildResource reads the images a GitHub Actions workflow
// builds and their folders (relative to the workflow file): a matrix of
// build-push-action steps, tags from docker/metadata-action, a Dockerfile
// given by file, docker build in a run step (in its working directory),
// and a repository checked out into a folder of the workspace.
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
  analyzer:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          path: shop
      - uses: actions/checkout@v4
        with:
          repository: acme/deploy-tools
          path: tools
      - uses: docker/build-push-action@v6
        with:
          context: shop
          file: shop/cmd/analyzer/Dockerfile
          tags: ghcr.io/acme/analyzer:latest
      - uses: docker/build-push-action@v6
        with:
          context: tools/updater
          tags: ghcr.io/acme/updater:latest
  mailer:
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: services
    steps:
      - uses: actions/checkout@v4
      - run: docker build -t ghcr.io/acme/mailer:1 mailer
      - working-directory: web
        run: docker build -t ghcr.io/acme/admin:1 -f admin/Dockerfile admin
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
		// Checked out into shop/: shop/cmd/analyzer is the
		// repository's cmd/analyzer; another repository's folder is
		// none of this one's.
		"ghcr.io/acme/analyzer:latest": "../../cmd/analyzer",
		// docker build in a step's working directory.
		"ghcr.io/acme/mailer:1": "../../services/mailer",
		"ghcr.io/acme/admin:1":  "../../web/admin",
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
