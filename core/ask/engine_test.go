package ask

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"coderag/core"
	"coderag/core/graph"
	"coderag/core/llm"
	"coderag/core/pack"
	"coderag/core/search"
)

// scripted is a chat completions server (httptest, the OpenAI wire
// format, streaming as server-sent events) that replies from a script,
// in turn; a request past the script's end is an HTTP 500. The engine
// talks to it through llm.Client, as to a real server.
func scripted(t *testing.T, replies ...string) *llm.Client {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(replies) {
			http.Error(w, `{"error": {"message": "script ran out"}}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range strings.SplitAfter(replies[i], " ") {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", piece)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Options{URL: srv.URL, Model: "scripted", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
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
			d := &Deps{Search: noHits{}, Store: noStore{}, Model: scripted(t, tt.replies...), OnAnswer: func(s string) { streamed.WriteString(s) }}
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
	d := &Deps{Graph: g, Store: symbolStore{}, Model: scripted(t, "SUMMARY: carts live in redis (cart/store.go:3)")}
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

// memHistory keeps sessions in memory.
type memHistory struct{ turns []Turn }

func (m *memHistory) Turns(_ context.Context, _ string, n int) ([]Turn, error) {
	return m.turns[max(len(m.turns)-n, 0):], nil
}
func (m *memHistory) AddTurn(_ context.Context, _ string, t Turn) error {
	m.turns = append(m.turns, t)
	return nil
}

// TestHistorySummarized: once a session's turns are over
// max_history_tokens, all but the last two are summarized against the new
// question, the summary is kept, and the next load starts from it with
// the two turns it left whole.
func TestHistorySummarized(t *testing.T) {
	p, _ := Parse("x", []byte("pipeline:\n  name: x\n  settings: {entry_step_id: a, max_history_tokens: 70}\n  steps:\n    - {id: a, action: finalize}\n"))
	h := &memHistory{}
	for i := 1; i <= 5; i++ {
		h.AddTurn(context.Background(), "s", Turn{Question: fmt.Sprintf("question %d about the cart service", i), Answer: fmt.Sprintf("answer %d: carts live in redis for thirty days", i)})
	}
	model := scripted(t, "SUMMARY: carts live in redis (turns 1-3)")
	d := &Deps{History: h, Session: "s", Model: model}
	st := &State{Question: "and the ttl?"}
	if out, err := loadHistory(context.Background(), d, p, st, Step{}); err != nil || out != "ok" {
		t.Fatalf("load: %s %v", out, err)
	}
	if len(st.History) != 3 || st.History[0].Mode != "summary" || !strings.Contains(st.History[1].Question, "question 4") || !strings.Contains(st.History[2].Question, "question 5") {
		t.Fatalf("history = %+v", st.History)
	}
	if len(h.turns) != 6 || h.turns[5].Mode != "summary" {
		t.Errorf("the summary was not kept: %+v", h.turns)
	}
	// The next turn is recorded; loading again starts from the summary.
	h.AddTurn(context.Background(), "s", Turn{Question: "q6", Answer: "a6"})
	st = &State{Question: "next"}
	d.Model = scripted(t) // under the budget now: no model call
	if _, err := loadHistory(context.Background(), d, p, st, Step{}); err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, tt := range st.History {
		qs = append(qs, tt.Question)
	}
	if got := strings.Join(qs, " | "); got != "(the conversation so far) | question 4 about the cart service | question 5 about the cart service | q6" {
		t.Errorf("second load = %s", got)
	}
}

// recordingSearch remembers that it was asked.
type recordingSearch struct {
	name  string
	asked *[]string
}

func (r recordingSearch) Search(_ context.Context, q search.Query) (search.Result, error) {
	*r.asked = append(*r.asked, r.name)
	return search.Result{}, nil
}

// TestModes: the router's mode picks the search that runs.
func TestModes(t *testing.T) {
	p := defaultPipeline(t)
	for _, mode := range []string{"HYBRID", "BM25", "SEMANTIC", "SEMANTIC_RERANK"} {
		var asked []string
		d := &Deps{Search: recordingSearch{"hybrid", &asked}, Store: noStore{},
			Searchers: map[string]pack.Searcher{"bm25": recordingSearch{"bm25", &asked}, "semantic": recordingSearch{"semantic", &asked},
				"semantic_rerank": recordingSearch{"semantic_rerank", &asked}},
			Model: scripted(t, "MODE: "+mode, "ANSWER: ok")}
		if _, err := Run(context.Background(), p, d, "where is the cart kept?"); err != nil {
			t.Fatal(err)
		}
		if strings.Join(asked, " ") != strings.ToLower(mode) {
			t.Errorf("MODE: %s ran %v", mode, asked)
		}
	}
}
