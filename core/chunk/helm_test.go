package chunk

import (
	"testing"
)

// TestHelmChartNames checks that a template's names built from the
// chart's own helpers, .Chart.Name and .Release.Name read as a release
// named after the chart renders them, while the name as written stays in
// Data for pods of a release of another name; another chart's helper
// stays computed.
func TestHelmChartNames(t *testing.T) {
	src := []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "billing.fullname" . }}-api
spec:
  template:
    spec:
      containers:
        - name: api
          env:
            - name: WORKER_URL
              value: "http://{{- template "billing.fullname" $ -}}-worker:9000"
            - name: SELF
              value: "{{ .Chart.Name }}.{{ .Release.Name }}"
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "common.fullname" . }}-cache
`)
	res := helmResources(src, "billing", false)
	// The Service, named by another chart's helper, declares nothing.
	if len(res) != 1 {
		t.Fatalf("%d resources, want 1: %+v", len(res), res)
	}
	dep := res[0]
	if dep.Service != "billing-api" || dep.Name != "billing-api" || dep.Labels["kind"] != "Deployment" {
		t.Errorf("deployment: service %q, name %q, labels %v", dep.Service, dep.Name, dep.Labels)
	}
	if dep.Data["name"] != `{{ include "billing.fullname" . }}-api` {
		t.Errorf("name as written: %q", dep.Data["name"])
	}
	want := map[string]string{"WORKER_URL": "http://billing-worker:9000", "SELF": "billing.billing"}
	for _, e := range dep.Env {
		if e.Value != want[e.Name] {
			t.Errorf("env %s = %q, want %q", e.Name, e.Value, want[e.Name])
		}
	}
	if dep.Env[0].Line != 11 || dep.Env[1].Line != 13 {
		t.Errorf("env lines %d, %d; want 11, 13", dep.Env[0].Line, dep.Env[1].Line)
	}
}
