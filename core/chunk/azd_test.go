package chunk

import (
	"reflect"
	"strings"
	"testing"

	"coderag/core"
)

func TestTemplateAddress(t *testing.T) {
	lit := func(s string) templatePart { return templatePart{lit: s} }
	in := func(s string) templatePart { return templatePart{interp: s} }
	tests := []struct {
		name  string
		parts []templatePart
		want  string
		ok    bool
	}{
		{"literal", []templatePart{lit("https://api.example.com/v1")}, "https://api.example.com/v1", true},
		{"no url", []templatePart{lit("mongodb")}, "mongodb", true},
		{"path", []templatePart{lit("https://api.example.com/accounts/"), in("id"), lit("/keys")}, "https://api.example.com/accounts/{id}/keys", true},
		{"query", []templatePart{lit("https://api.example.com/list?version="), in("version")}, "https://api.example.com/list?version={version}", true},
		{"after the host", []templatePart{lit("https://control.cloudhost.net"), in("id"), lit("/listKeys?api-version=1")}, "https://control.cloudhost.net/{id}/listKeys?api-version=1", true},
		{"at the end", []templatePart{lit("https://control.cloudhost.net"), in("id")}, "https://control.cloudhost.net/{id}", true},
		{"port", []templatePart{lit("http://search.example.net:"), in("port"), lit("/v1")}, "http://search.example.net/v1", true},
		{"whole host", []templatePart{lit("https://"), in("name"), lit(".blob.core.windows.net")}, "", false},
		{"part of the host", []templatePart{lit("https://sb-"), in("name"), lit(".bus.cloudhost.net")}, "", false},
		{"host suffix", []templatePart{lit("https://api."), in("zone")}, "", false},
		{"no scheme", []templatePart{lit("sb-"), in("name"), lit(".bus.cloudhost.net")}, "", false},
		{"computed first", []templatePart{in("endpoint"), lit("/v1")}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := templateAddress(tt.parts)
			if got != tt.want || ok != tt.ok {
				t.Errorf("templateAddress = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestTerraformOutputs(t *testing.T) {
	src := []byte(`variable "premium" {
  type = bool
}

output "KEYS_URL" {
  value = local.enabled ? "https://control.cloudhost.net${azurerm_storage_account.main.id}/listKeys?api-version=2023-01-01" : ""
}

output "ENDPOINT" {
  value = module.search.endpoint
}

output "PLAN_URL" {
  value = var.premium ? "https://plans.example.net/premium" : "https://plans.example.net/basic"
}

output "REGION" {
  value = "westeurope"
}

output "HOST" {
  value = "${cloud_bus.main.name}.bus.cloudhost.net"
}
`)
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Terraform(src, core.Chunk{FilePath: "infra/outputs.tf", Language: "hcl", Corpus: core.CodeDeploy})
	var got *core.Resource
	for _, c := range r.Chunks {
		for i := range c.Resources {
			if c.Resources[i].Kind == core.ResourceTerraformOutputs {
				got = &c.Resources[i]
			}
		}
	}
	if got == nil {
		t.Fatal("no terraform-outputs resource")
	}
	want := map[string]string{
		"KEYS_URL": "https://control.cloudhost.net/{id}/listKeys?api-version=2023-01-01",
		"REGION":   "westeurope",
	}
	if got.Name != "infra" || !reflect.DeepEqual(got.Data, want) {
		t.Errorf("outputs of %s = %v, want %v", got.Name, got.Data, want)
	}
	if !reflect.DeepEqual(got.Keys, []core.KeyLine{{Key: "KEYS_URL", Line: 5}, {Key: "REGION", Line: 17}}) || got.Line != 5 {
		t.Errorf("keys %v, line %d", got.Keys, got.Line)
	}
}

func TestAzdResources(t *testing.T) {
	src := []byte(`# yaml-language-server: $schema=https://raw.githubusercontent.com/Azure/azure-dev/main/schemas/v1.0/azure.yaml.json
name: shop
infra:
  provider: terraform
  path: deploy/terraform
services:
  web:
    project: src/web
    host: containerapp
  api:
    project: ./src/api
    host: aks
    k8s:
      kustomize:
        dir: ../../k8s/overlays/azd/api
        env:
          DB_URL: ${AZURE_DB_URL}
          RETRIES: 3
          LEVELS: [a, b]
`)
	if !IsAzdProject("azure-from-source.yaml", src) || !IsAzdProject("azure.yaml", []byte("name: x\n")) || IsAzdProject("deploy.yaml", []byte("services:\n  a: {}\n")) {
		t.Error("IsAzdProject")
	}
	got := AzdResources(src)
	want := []core.Resource{{
		Kind: core.ResourceAzd, Name: "api", Line: 10,
		Env:  []core.EnvVar{{Name: "DB_URL", Value: "${AZURE_DB_URL}", Line: 17}, {Name: "RETRIES", Value: "3", Line: 18}},
		Data: map[string]string{"env-file": "k8s/overlays/azd/api/.env", "infra": "deploy/terraform", "provider": "terraform"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AzdResources = %+v\nwant %+v", got, want)
	}
	if got := AzdResources([]byte("services: [")); got != nil {
		t.Errorf("bad YAML: %+v", got)
	}
}

// FuzzTerraformOutputs feeds arbitrary Terraform to the chunker's output
// reader: it must not panic, and every value it records must be one the
// graph can read (no interpolation left).
func FuzzTerraformOutputs(f *testing.F) {
	f.Add(`output "A" { value = "https://h.example${x.id}/p?v=${y}" }`)
	f.Add(`output "B" { value = c ? "http://h:${p}/x" : (d ? "" : "https://${n}.example") }`)
	f.Add(`output "C" { value = <<EOT
https://h.example/${x}
EOT
}`)
	c, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		r := c.Terraform([]byte(src), core.Chunk{FilePath: "infra/outputs.tf", Language: "hcl", Corpus: core.CodeDeploy})
		for _, ch := range r.Chunks {
			for _, res := range ch.Resources {
				for k, v := range res.Data {
					if strings.Contains(v, "${") && !strings.Contains(src, "$${") { // $${ writes a literal ${
						t.Errorf("output %s = %q keeps an interpolation", k, v)
					}
				}
			}
		}
		AzdResources([]byte(src))
	})
}
