package chunk

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

// TestDaprRunResources: each app of a multi-app run file, its id (or its
// folder's name), folder, command, env and components folder.
func TestDaprRunResources(t *testing.T) {
	src := []byte(`version: 1
common:
  resourcesPath: ./components
apps:
  - appID: booking
    appDirPath: ./booking-api/
    appPort: 6001
    command: ["python3", "app.py"]
    env:
      SEATS_APP: seats
  - appDirPath: ./notifier
    resourcesPaths: [./notifier/components]
    command: ["celery", "-A", "notify", "worker"]
  - command: ["true"]
`)
	if !isDaprRun(src) {
		t.Fatal("not read as a run file")
	}
	want := []core.Resource{
		{Kind: core.ResourceCompose, Name: "booking", Service: "booking", AppID: "booking", Build: "./booking-api", Ports: []string{"6001"}, Line: 5,
			Labels: map[string]string{"runner": "dapr"}, Programs: []string{"python3"},
			Env: []core.EnvVar{{Name: "SEATS_APP", Value: "seats", Line: 10}}, Volumes: []string{"./components"}},
		{Kind: core.ResourceCompose, Name: "notifier", Service: "notifier", AppID: "notifier", Build: "./notifier", Line: 11,
			Labels: map[string]string{"runner": "dapr"}, Programs: []string{"celery"}, Worker: "celery",
			Volumes: []string{"./notifier/components"}},
	}
	if d := cmp.Diff(want, DaprRunResources(src)); d != "" {
		t.Errorf("resources (-want +got):\n%s", d)
	}
	if isDaprRun([]byte("services:\n  apps:\n    image: x\n")) {
		t.Error("a compose file read as a run file")
	}
}
