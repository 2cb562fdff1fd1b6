package ask

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", name+".yaml"))
}

// TestLoadExtends resolves a three-level chain (seed 002 §11): settings
// deep-merged with the child winning, steps merged by id (replaced or
// added), the entry step from the merged settings, unreachable steps
// warned about.
func TestLoadExtends(t *testing.T) {
	p, warnings, err := Load("shop-develop", readTestdata)
	if err != nil {
		t.Fatal(err)
	}
	budgets := p.Settings["budgets"].(map[string]any)
	if p.Name != "shop-develop" || p.Settings["repository"] != "shop" || p.Settings["active_index"] != "develop" ||
		budgets["max_context_tokens"] != 4000 || budgets["max_history_tokens"] != 2000 || p.Settings["max_turn_loops"] != 3 {
		t.Errorf("merged settings = %v", p.Settings)
	}
	var ids []string
	for _, s := range p.Steps {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, " "); got != "route retrieve gate summarize answer finalize expand orphan" {
		t.Errorf("steps = %s", got)
	}
	r, _ := p.Step("retrieve")
	if r.Params["mode"] != "bm25" || r.Next != "expand" {
		t.Errorf("the child's retrieve step did not replace the parent's: %+v", r)
	}
	g, _ := p.Step("gate")
	if g.On["ok"] != "answer" || g.On["over_limit"] != "summarize" {
		t.Errorf("gate transitions = %v", g.On)
	}
	if p.EntryStep() != "route" {
		t.Errorf("entry = %s", p.EntryStep())
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "orphan is never reached") {
		t.Errorf("warnings = %v", warnings)
	}
}

func TestLoadErrors(t *testing.T) {
	files := map[string]string{
		"loop-a":    "pipeline:\n  name: loop-a\n  extends: loop-b\n",
		"loop-b":    "pipeline:\n  name: loop-b\n  extends: loop-a\n",
		"no-entry":  "pipeline:\n  name: no-entry\n  steps:\n    - {id: a, action: finalize}\n",
		"bad-entry": "pipeline:\n  name: bad-entry\n  settings: {entry_step_id: b}\n  steps:\n    - {id: a, action: finalize}\n",
		"bad-next":  "pipeline:\n  name: bad-next\n  settings: {entry_step_id: a}\n  steps:\n    - {id: a, action: call_model, on_ok: b}\n",
		"dup":       "pipeline:\n  name: dup\n  steps:\n    - {id: a, action: x}\n    - {id: a, action: y}\n",
		"both":      "pipeline:\n  name: both\n  steps:\n    - {id: a, action: x, next: a, on_ok: a}\n",
		"no-action": "pipeline:\n  name: no-action\n  steps:\n    - {id: a}\n",
		"bad-yaml":  "pipeline: [\n",
		"orphan":    "pipeline:\n  name: orphan\n  extends: missing\n",
	}
	read := func(n string) ([]byte, error) {
		if s, ok := files[n]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	for name, want := range map[string]string{
		"loop-a":    "circle",
		"no-entry":  "entry_step_id is not set",
		"bad-entry": "entry_step_id b is not a step",
		"bad-next":  "step a goes to b, which is not a step",
		"dup":       "two steps have the id a",
		"both":      "both next and on_",
		"no-action": "step a has no action",
		"bad-yaml":  "pipeline bad-yaml",
		"orphan":    "read missing",
	} {
		_, _, err := Load(name, read)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, want)
		}
	}
	if _, _, err := Load("bad-next", read); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad-next is not ErrInvalid: %v", err)
	}
}
