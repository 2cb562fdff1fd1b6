// Package ask holds the question-answering pipeline of seed 002: a YAML
// pipeline of steps, each an action with a deterministic transition,
// started at settings.entry_step_id. This file is its loader: parsing,
// inheritance (extends) and validation.
package ask

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Pipeline is a loaded pipeline, its inheritance resolved.
type Pipeline struct {
	Name string
	// Extends names the parent pipeline; empty once resolved.
	Extends  string
	Settings map[string]any
	// Steps in the order the files list them (readability only:
	// execution follows the transitions from the entry step).
	Steps []Step
}

// Step is one node of the step graph.
type Step struct {
	ID     string
	Action string
	// Next is the unconditional transition; On the conditional ones, by
	// outcome ("on_ok: answer" is On["ok"] = "answer").
	Next string
	On   map[string]string
	// Params are the step's other keys, for its action.
	Params map[string]any
}

// EntryStep is settings.entry_step_id.
func (p Pipeline) EntryStep() string {
	s, _ := p.Settings["entry_step_id"].(string)
	return s
}

// Step returns the step with the given id.
func (p Pipeline) Step(id string) (Step, bool) {
	for _, s := range p.Steps {
		if s.ID == id {
			return s, true
		}
	}
	return Step{}, false
}

// targets are the step ids a step can go to, in a stable order.
func (s Step) targets() []string {
	var out []string
	if s.Next != "" {
		out = append(out, s.Next)
	}
	keys := make([]string, 0, len(s.On))
	for k := range s.On {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, s.On[k])
	}
	return out
}

// Parse reads one pipeline file (its extends unresolved). name says
// where it comes from, for errors.
func Parse(name string, data []byte) (Pipeline, error) {
	var doc struct {
		Pipeline struct {
			Name     string           `yaml:"name"`
			Extends  string           `yaml:"extends"`
			Settings map[string]any   `yaml:"settings"`
			Steps    []map[string]any `yaml:"steps"`
		} `yaml:"pipeline"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Pipeline{}, fmt.Errorf("pipeline %s: %w", name, err)
	}
	pd := doc.Pipeline
	if pd.Name == "" {
		return Pipeline{}, fmt.Errorf("pipeline %s: no pipeline.name", name)
	}
	p := Pipeline{Name: pd.Name, Extends: pd.Extends, Settings: pd.Settings}
	if p.Settings == nil {
		p.Settings = map[string]any{}
	}
	seen := map[string]bool{}
	for i, raw := range pd.Steps {
		s := Step{On: map[string]string{}, Params: map[string]any{}}
		for k, v := range raw {
			switch {
			case k == "id" || k == "action" || k == "next":
				str, ok := v.(string)
				if !ok {
					return p, fmt.Errorf("pipeline %s: step %d: %s must be a string, not %v", name, i+1, k, v)
				}
				switch k {
				case "id":
					s.ID = str
				case "action":
					s.Action = str
				default:
					s.Next = str
				}
			case strings.HasPrefix(k, "on_"):
				str, ok := v.(string)
				if !ok {
					return p, fmt.Errorf("pipeline %s: step %d: %s must name a step, not %v", name, i+1, k, v)
				}
				s.On[strings.TrimPrefix(k, "on_")] = str
			default:
				s.Params[k] = v
			}
		}
		switch {
		case s.ID == "":
			return p, fmt.Errorf("pipeline %s: step %d has no id", name, i+1)
		case s.Action == "":
			return p, fmt.Errorf("pipeline %s: step %s has no action", name, s.ID)
		case seen[s.ID]:
			return p, fmt.Errorf("pipeline %s: two steps have the id %s", name, s.ID)
		case s.Next != "" && len(s.On) > 0:
			return p, fmt.Errorf("pipeline %s: step %s has both next and on_ transitions: give one", name, s.ID)
		}
		seen[s.ID] = true
		p.Steps = append(p.Steps, s)
	}
	return p, nil
}

// Load reads the pipeline called name through read (which returns a
// pipeline file by name: a path, or an embedded default), resolves its
// extends chain from the root parent down (seed 002 §11) and validates
// the result. It returns warnings for steps no transition reaches.
func Load(name string, read func(name string) ([]byte, error)) (Pipeline, []string, error) {
	var chain []Pipeline
	seen := map[string]bool{}
	for n := name; n != ""; {
		if seen[n] {
			return Pipeline{}, nil, fmt.Errorf("pipeline %s: extends goes round in a circle through %s", name, n)
		}
		seen[n] = true
		data, err := read(n)
		if err != nil {
			return Pipeline{}, nil, fmt.Errorf("pipeline %s: read %s: %w", name, n, err)
		}
		p, err := Parse(n, data)
		if err != nil {
			return Pipeline{}, nil, err
		}
		chain = append(chain, p)
		n = p.Extends
	}
	p := chain[len(chain)-1]
	for i := len(chain) - 2; i >= 0; i-- {
		p = merge(p, chain[i])
	}
	warnings, err := p.Validate()
	return p, warnings, err
}

// merge applies child over parent: settings deep-merged (the child's
// values win, nested maps merged), steps merged by id (a child step
// replaces the parent's of that id; new ones are added after).
func merge(parent, child Pipeline) Pipeline {
	out := Pipeline{Name: child.Name, Settings: mergeMaps(parent.Settings, child.Settings)}
	childSteps := map[string]Step{}
	for _, s := range child.Steps {
		childSteps[s.ID] = s
	}
	for _, s := range parent.Steps {
		if c, ok := childSteps[s.ID]; ok {
			out.Steps = append(out.Steps, c)
			delete(childSteps, s.ID)
			continue
		}
		out.Steps = append(out.Steps, s)
	}
	for _, s := range child.Steps {
		if _, ok := childSteps[s.ID]; ok {
			out.Steps = append(out.Steps, s)
		}
	}
	return out
}

func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		am, aok := out[k].(map[string]any)
		bm, bok := v.(map[string]any)
		if aok && bok {
			out[k] = mergeMaps(am, bm)
			continue
		}
		out[k] = v
	}
	return out
}

// ErrInvalid marks a pipeline that cannot run.
var ErrInvalid = errors.New("invalid pipeline")

// Validate checks that the pipeline can run deterministically: the entry
// step exists and every transition names a step. Steps no transition
// from the entry reaches are returned as warnings.
func (p Pipeline) Validate() ([]string, error) {
	var problems []string
	entry := p.EntryStep()
	if entry == "" {
		problems = append(problems, "settings.entry_step_id is not set")
	} else if _, ok := p.Step(entry); !ok {
		problems = append(problems, fmt.Sprintf("settings.entry_step_id %s is not a step", entry))
	}
	for _, s := range p.Steps {
		for _, t := range s.targets() {
			if _, ok := p.Step(t); !ok {
				problems = append(problems, fmt.Sprintf("step %s goes to %s, which is not a step", s.ID, t))
			}
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("pipeline %s: %w: %s", p.Name, ErrInvalid, strings.Join(problems, "; "))
	}
	reached := map[string]bool{entry: true}
	todo := []string{entry}
	for len(todo) > 0 {
		s, _ := p.Step(todo[0])
		todo = todo[1:]
		for _, t := range s.targets() {
			if !reached[t] {
				reached[t] = true
				todo = append(todo, t)
			}
		}
	}
	var warnings []string
	for _, s := range p.Steps {
		if !reached[s.ID] {
			warnings = append(warnings, fmt.Sprintf("pipeline %s: step %s is never reached from %s", p.Name, s.ID, entry))
		}
	}
	return warnings, nil
}
