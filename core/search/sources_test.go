package search

import (
	"context"
	"slices"
	"strings"
	"testing"

	"coderag/core"
)

// sourcesIndex is a listIndex that names its sources.
type sourcesIndex struct {
	*listIndex
	names []string
}

func (x sourcesIndex) SourceNames(context.Context) ([]string, error) { return x.names, nil }

func TestNamedSources(t *testing.T) {
	for _, tt := range []struct {
		text  string
		names []string
		want  string
	}{
		{"OOMKilled argocd repo server", []string{"argocd", "keda", "tekton"}, "argocd"},
		{"why is Metrics Server slow", []string{"metrics-server", "keda"}, "metrics-server"},
		{"metrics_server scrape interval", []string{"metrics-server", "keda"}, "metrics-server"},
		{"kedacore operator", []string{"argocd", "keda"}, ""},
		{"the api is slow", []string{"api", "web"}, ""}, // too short to tell
		{"argocd sync", []string{"argocd"}, ""},         // one source: naming it says nothing
	} {
		e := New(sourcesIndex{&listIndex{}, tt.names}, Options{})
		got, err := e.namedSources(context.Background(), tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("namedSources(%q, %q) = %q, want %q", tt.text, tt.names, got, tt.want)
		}
	}
}

func TestNamedSourceBoost(t *testing.T) {
	other := chunkAt("other", "pkg/pod/status.go", 1, 10, core.CodeLogic)
	other.RepoName = "tekton"
	mine := chunkAt("mine", "manifests/repo-server.yaml", 1, 10, core.CodeDeploy)
	mine.RepoName = "argocd"
	// The two rank alike in every list but the other's first.
	idx := sourcesIndex{&listIndex{code: ranked("bm25-code", other, mine), prose: ranked("bm25-prose", mine, other)}, []string{"argocd", "tekton"}}
	res, err := New(idx, Options{CorpusBoost: 1.15}).Search(context.Background(), Query{Text: "repo server memory limits in argocd", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Hits); !slices.Equal(got, []string{"mine", "other"}) || !strings.Contains(res.Hits[0].Explain.BoostReason, "source argocd named") {
		t.Errorf("hits %v, first explain %+v: want the named source's chunk first", got, res.Hits[0].Explain)
	}
}
