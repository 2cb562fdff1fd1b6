package chunk

import (
	"testing"

	"coderag/core"
)

// TestSettingsResource reads Spring's, ASP.NET's and Helm's settings
// files: which files are settings, and the line each key's value is on
// (the evidence an edge a setting makes points at).
func TestSettingsResource(t *testing.T) {
	for _, tt := range []struct {
		file, src string
		want      map[string]int // key -> line
	}{
		{"svc/src/main/resources/bootstrap.yml", "spring:\n  application:\n    name: ledger\n  cloud:\n    config:\n      uri: http://config:8888\n",
			map[string]int{"spring.application.name": 3, "spring.cloud.config.uri": 6}},
		{"svc/src/main/resources/application-prod.yaml", "routes:\n  - id: a\n    uri: lb://orders\n  - id: b\n    uri: lb://stock\n",
			map[string]int{"routes.0.id": 2, "routes.0.uri": 3, "routes.1.uri": 5}},
		{"api/appsettings.json", "{\n  \"Services\": {\n    \"Catalog\": \"http://catalog:5000\"\n  }\n}\n",
			map[string]int{"Services:Catalog": 3}},
		{"svc/src/main/resources/bootstrap.properties", "spring.application.name=ledger\nspring.cloud.config.uri=http://config:8888\n",
			map[string]int{"spring.cloud.config.uri": 2, "spring.application.name": 0}},
		// A flat file keeps addresses and topic names, nothing else.
		{"svc/src/main/resources/application.properties", "orders.topic=orders.created\ndb.password=s3cret\nORDERS_QUEUE=orders\nfeature.queue-depth=10 items\n",
			map[string]int{"orders.topic": 1, "ORDERS_QUEUE": 3, "db.password": 0, "feature.queue-depth": 0}},
	} {
		r, ok := settingsResource(core.Chunk{FilePath: tt.file, Corpus: core.CodeConfig}, []byte(tt.src))
		if !ok || r.Kind != core.ResourceSettings {
			t.Errorf("%s: kind %q, ok %v; want settings", tt.file, r.Kind, ok)
			continue
		}
		lines := map[string]int{}
		for _, k := range r.Keys {
			lines[k.Key] = k.Line
		}
		for k, l := range tt.want {
			if _, kept := r.Data[k]; kept != (l > 0) {
				t.Errorf("%s: key %s kept %v, want %v", tt.file, k, kept, l > 0)
			}
			if lines[k] != l {
				t.Errorf("%s: key %s on line %d, want %d (data %v)", tt.file, k, lines[k], l, r.Data)
			}
		}
	}
}
