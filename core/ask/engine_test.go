package ask

import (
	"context"
	"errors"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/llm"
	"coderag/core/pack"
	"coderag/core/search"
)

// scripted is a model that replies from a script, in turn.
type scripted struct {
	replies []string
	n       int
}

func (s *scripted) Chat(_ context.Context, _ []llm.Message, onDelta func(string)) (llm.Reply, error) {
	if s.n >= len(s.replies) {
		return llm.Reply{}, errors.New("script ran out")
	}
	r := s.replies[s.n]
	s.n++
	if onDelta != nil {
		onDelta(r)
	}
	return llm.Reply{Text: r}, nil
}

type noHits struct{}

func (noHits) Search(context.Context, search.Query) (search.Result, error) {
	return search.Result{}, nil
}

type noStore struct{}

func (noStore) FileChunks(context.Context, string, int) ([]core.Chunk, error)   { return nil, nil }
func (noStore) SymbolChunks(context.Context, string, int) ([]core.Chunk, error) { return nil, nil }
func (noStore) RefTargets(context.Context, []string, int) (map[string][]core.Chunk, error) {
	return map[string][]core.Chunk{}, nil
}
func (noStore) Chunk(context.Context, string) (core.Chunk, error) {
	return core.Chunk{}, errors.New("none")
}

func defaultPipeline(t *testing.T) Pipeline {
	p, warnings, err := Load("default", func(string) ([]byte, error) { return DefaultPipeline, nil })
	if err != nil || len(warnings) > 0 {
		t.Fatalf("default pipeline: %v %v", err, warnings)
	}
	return p
}

func TestRunProtocol(t *testing.T) {
	p := defaultPipeline(t)
	tests := []struct {
		name    string
		replies []string
		answer  string // a piece of the answer
		steps   string
		err     string
	}{
		{"direct", []string{"MODE: DIRECT", "ANSWER: HTTP 502 means a bad gateway."}, "bad gateway", "history translate route answer finalize", ""},
		{"a broken router reply is asked again", []string{"I think hybrid", "MODE: BM25", "ANSWER: done"}, "done", "history translate route retrieve fetch gate answer finalize", ""},
		{"broken twice", []string{"hybrid?", "still no prefix"}, "", "", "broke the protocol twice"},
		{"a question in Polish is translated in and out", []string{"LANG: pl\nTRANSLATION: What does HTTP 502 mean?", "MODE: DIRECT",
			"ANSWER: A bad gateway.", "TRANSLATION: Zła brama."}, "Zła brama.", "history translate route answer finalize", ""},
		{"loops run out", []string{"MODE: HYBRID", "NEED_MORE_CONTEXT: a", "NEED_MORE_CONTEXT: b", "NEED_MORE_CONTEXT: c"},
			"does not answer this; the last search was for: c", "history translate route retrieve fetch gate answer guard retrieve fetch gate answer guard retrieve fetch gate answer guard finalize", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var streamed strings.Builder
			d := &Deps{Search: noHits{}, Store: noStore{}, Model: &scripted{replies: tt.replies}, OnAnswer: func(s string) { streamed.WriteString(s) }}
			q := "what is a 502?"
			if strings.Contains(tt.name, "Polish") {
				q = "Co oznacza błąd 502?"
			}
			st, err := Run(context.Background(), p, d, q)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(st.Answer, tt.answer) || strings.Join(st.Steps, " ") != tt.steps {
				t.Errorf("answer %q, steps %s", st.Answer, strings.Join(st.Steps, " "))
			}
			if strings.Contains(streamed.String(), "ANSWER:") || strings.Contains(streamed.String(), "NEED_MORE") {
				t.Errorf("streamed the protocol: %q", streamed.String())
			}
		})
	}
}

func TestRunRefusesUnknownActionsAndOutcomes(t *testing.T) {
	p, err := Parse("x", []byte("pipeline:\n  name: x\n  settings: {entry_step_id: a}\n  steps:\n    - {id: a, action: teleport}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), p, &Deps{}, "q"); err == nil || !strings.Contains(err.Error(), `unknown action "teleport"`) {
		t.Errorf("unknown action: %v", err)
	}
	p, _ = Parse("y", []byte("pipeline:\n  name: y\n  settings: {entry_step_id: a}\n  steps:\n    - {id: a, action: loop_guard, on_exhausted: b}\n    - {id: b, action: finalize}\n"))
	if _, err := Run(context.Background(), p, &Deps{}, "q"); err == nil || !strings.Contains(err.Error(), `ended "ok", and has no on_ok`) {
		t.Errorf("an outcome without a transition: %v", err)
	}
}

func TestLooksEnglish(t *testing.T) {
	for q, want := range map[string]bool{
		"why does checkout return 502?": true,
		"Where is the cart kept":        true,
		"Co oznacza błąd 502?":          false,
		"jak dziala koszyk":             false,
		"Wie lange leben Warenkörbe?":   false,
		"getUserProfile":                false,
		"what does flag cartFailure do": true,
	} {
		if got := looksEnglish(q); got != want {
			t.Errorf("looksEnglish(%q) = %v", q, got)
		}
	}
}

type symbolStore struct{ noStore }

func (symbolStore) SymbolChunks(_ context.Context, name string, _ int) ([]core.Chunk, error) {
	if name == "CartStore" {
		return []core.Chunk{{ID: "cs", FilePath: "cart/store.go", LineStart: 3, LineEnd: 9, Corpus: core.CodeLogic, Text: "type CartStore struct{}"}}, nil
	}
	return nil, nil
}

// TestGraphAndFetchActions: expand_dependency_tree adds the evidence's
// services' neighbours, only the allowed edge types; fetch_node_texts adds
// the declarations the query names; the budget gate and summary.
func TestGraphAndFetchActions(t *testing.T) {
	g := &graph.Graph{
		Services: []graph.Service{{Name: "cart", Kind: graph.KindService}, {Name: "redis", Kind: graph.KindCache}, {Name: "checkout", Kind: graph.KindService}},
		Edges: []graph.Edge{{Source: "cart", Target: "redis", Type: graph.EdgeCache, Confidence: 0.9},
			{Source: "checkout", Target: "cart", Type: graph.EdgeHTTP, Method: "GET", Path: "/cart", Confidence: 0.9}},
	}
	g.Sort()
	p, _ := Parse("x", []byte("pipeline:\n  name: x\n  settings: {entry_step_id: a, graph_edge_allowlist: [cache], max_context_tokens: 30}\n  steps:\n    - {id: a, action: finalize}\n"))
	st := &State{Query: "where does CartStore keep carts", Pack: &pack.Pack{Files: []pack.File{{Path: "cart/api.go", Service: "cart"}}}}
	d := &Deps{Graph: g, Store: symbolStore{}, Model: &scripted{replies: []string{"SUMMARY: carts live in redis (cart/store.go:3)"}}}
	if out, err := expandDependencyTree(context.Background(), d, p, st, Step{}); err != nil || out != "ok" {
		t.Fatalf("expand: %s %v", out, err)
	}
	if e := strings.Join(st.Evidence, "\n"); !strings.Contains(e, "cart depends on redis (cache, depth 1)") || strings.Contains(e, "checkout") {
		t.Errorf("graph evidence (cache edges only):\n%s", e)
	}
	if out, err := fetchNodeTexts(context.Background(), d, p, st, Step{}); err != nil || out != "ok" || !strings.Contains(st.Evidence[len(st.Evidence)-1], "type CartStore struct{}") {
		t.Errorf("fetch: %s %v %v", out, err, st.Evidence)
	}
	if out, _ := checkContextBudget(context.Background(), d, p, st, Step{}); out != "over_limit" {
		t.Errorf("gate over 30 tokens: %s", out)
	}
	if _, err := summarizeContext(context.Background(), d, p, st, Step{}); err != nil || len(st.Evidence) != 1 || !strings.Contains(st.Evidence[0], "carts live in redis") {
		t.Errorf("summary: %v %v", err, st.Evidence)
	}
}
