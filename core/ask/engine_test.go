package ask

import (
	"context"
	"errors"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/llm"
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
		{"a broken router reply is asked again", []string{"I think hybrid", "MODE: BM25", "ANSWER: done"}, "done", "history translate route retrieve answer finalize", ""},
		{"broken twice", []string{"hybrid?", "still no prefix"}, "", "", "broke the protocol twice"},
		{"a question in Polish is translated in and out", []string{"LANG: pl\nTRANSLATION: What does HTTP 502 mean?", "MODE: DIRECT",
			"ANSWER: A bad gateway.", "TRANSLATION: Zła brama."}, "Zła brama.", "history translate route answer finalize", ""},
		{"loops run out", []string{"MODE: HYBRID", "NEED_MORE_CONTEXT: a", "NEED_MORE_CONTEXT: b", "NEED_MORE_CONTEXT: c"},
			"does not answer this; the last search was for: c", "history translate route retrieve answer guard retrieve answer guard retrieve answer guard finalize", ""},
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
