package discover

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"coderag/core"
)

func TestClassificationRules(t *testing.T) {
	fsys := fstest.MapFS{
		".coderag.yaml":                  {Data: []byte("classify:\n  - path: ops/playbooks/**\n    type: runbook\n  - path: design/*.md\n    type: adr\nexclude:\n  - fixtures/**\n")},
		"ops/playbooks/restart-cart.md":  {Data: []byte("# Restart cart\n")},
		"ops/playbooks/nested/db.txt":    {Data: []byte("steps\n")},
		"design/0001-queues.md":          {Data: []byte("# Queues\n")},
		"design/notes/other.md":          {Data: []byte("# Other\n")},
		"notes/todo.md":                  {Data: []byte("# Todo\n")},
		"fixtures/big.json":              {Data: []byte("{}")},
		"services/cart/handbook.md":      {Data: []byte("# Cart\n")},
		"services/cart/runbooks/down.md": {Data: []byte("# Down\n")},
	}
	res, err := Walk(context.Background(), fsys, Options{Rules: []Rule{{Pattern: "services/*/handbook.md", Corpus: core.DocRunbook}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]core.CorpusType{}
	ruled := map[string]bool{}
	for _, f := range res.Files {
		got[f.Path] = f.Corpus
		ruled[f.Path] = f.Ruled
	}
	// A rule's type is marked, so that what a file holds never overrides it.
	for p, want := range map[string]bool{"ops/playbooks/restart-cart.md": true, "services/cart/handbook.md": true, "notes/todo.md": false, "services/cart/runbooks/down.md": false} {
		if ruled[p] != want {
			t.Errorf("%s: Ruled %v, want %v", p, ruled[p], want)
		}
	}
	want := map[string]core.CorpusType{
		"ops/playbooks/restart-cart.md":  core.DocRunbook,
		"ops/playbooks/nested/db.txt":    core.DocRunbook,
		"design/0001-queues.md":          core.DocADR,
		"design/notes/other.md":          core.DocReadme, // * does not cross folders
		"notes/todo.md":                  core.DocReadme,
		"services/cart/handbook.md":      core.DocRunbook, // the option's rule
		"services/cart/runbooks/down.md": core.DocRunbook, // built-in path rule
	}
	for p, c := range want {
		if got[p] != c {
			t.Errorf("%s: corpus %q, want %q", p, got[p], c)
		}
	}
	if _, ok := got["fixtures/big.json"]; ok {
		t.Error("the config file's exclude was not applied")
	}
	if _, ok := got[".coderag.yaml"]; ok {
		t.Error("the config file itself was listed")
	}
}

func TestClassificationRuleErrors(t *testing.T) {
	for _, tt := range []struct{ config, want string }{
		{"classify:\n  - path: a/**\n    type: runbook\n  - path: b/**\n    type: runbok\n", `.coderag.yaml line 4: unknown corpus type "runbok"`},
		{"classify:\n  - type: adr\n", ".coderag.yaml line 2: classify rule without a path"},
		{"classify: [\n", ".coderag.yaml: yaml:"},
	} {
		_, err := Walk(context.Background(), fstest.MapFS{".coderag.yaml": {Data: []byte(tt.config)}}, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("config %q: error %v, want %q", tt.config, err, tt.want)
		}
	}
	for _, s := range []string{"noequals", "=runbook", "a/**=", "a/**=nonsense"} {
		if _, err := ParseRule(s); err == nil {
			t.Errorf("ParseRule(%q) succeeded", s)
		}
	}
	if r, err := ParseRule("ops/**=runbook"); err != nil || r.Pattern != "ops/**" || r.Corpus != core.DocRunbook {
		t.Errorf("ParseRule = %+v, %v", r, err)
	}
}
