package main

import (
	"path/filepath"
	"testing"
)

func TestDefaultSourceName(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/src/platform", "platform"},
		{"/root/go/pkg/mod/github.com/hashicorp/nomad@v1.9.7", "nomad"},
		{"/root/go/pkg/mod/github.com/grafana/loki/v3@v3.4.2", "loki"},
		{"/root/go/pkg/mod/istio.io/istio@v0.0.0-20260827124520-eed52ebb66ad", "istio"},
		{"/root/go/pkg/mod/github.com/goharbor/harbor@v2.12.2+incompatible", "harbor"},
		{"/src/user@vendor.example", "user@vendor.example"}, // no version after @v
		{"/src/v2", "v2"},
	}
	for _, tt := range tests {
		if got := defaultSourceName(filepath.FromSlash(tt.path)); got != tt.want {
			t.Errorf("defaultSourceName(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
