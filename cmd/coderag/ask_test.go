package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// chatServer is an OpenAI-compatible chat completions server that routes
// every question to hybrid search, asks once for more context, then
// answers from the evidence it was given, streaming.
func chatServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var answers atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		system, user := body.Messages[0].Content, body.Messages[1].Content
		reply := "MODE: HYBRID"
		if strings.HasPrefix(system, "Summarize") {
			reply = "SUMMARY: CartStore keeps carts with TimeSpan.FromDays(30) (services/cart/Services/CartStore.cs:9)."
		}
		if strings.Contains(system, "You answer") {
			switch {
			case answers.Add(1) == 1:
				reply = "NEED_MORE_CONTEXT: CartStore redis ttl"
			case strings.Contains(user, "TimeSpan.FromDays(30)"):
				reply = "ANSWER: Carts live in Redis for 30 days (services/cart/Services/CartStore.cs:9)."
			default:
				reply = "ANSWER: I could not find it."
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range strings.SplitAfter(reply, " ") {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", piece)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &answers
}

// TestAsk runs the default pipeline on the sample against a chat server:
// routed to hybrid, the service graph and named declarations added, a
// follow-up search when the model asks for more, the evidence summarized
// when the second search takes it over the budget, an answer that cites
// the evidence, streamed without its protocol prefix.
func TestAsk(t *testing.T) {
	db := crawlSample(t)
	srv, _ := chatServer(t)
	code, out, errs := coderag(t, "ask", "--db", db, "--llm-url", srv.URL, "--llm-model", "m", "--json", "how long do carts live?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Answer    string `json:"answer"`
		Mode      string `json:"mode"`
		Loops     int    `json:"loops"`
		Citations []struct {
			FilePath string `json:"file_path"`
		} `json:"citations"`
		Steps []string `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(res.Answer, "30 days") || res.Mode != "hybrid" || res.Loops != 1 || len(res.Citations) == 0 {
		t.Errorf("ask = %+v", res)
	}
	if got := strings.Join(res.Steps, " "); got != "history translate route retrieve expand fetch gate answer guard retrieve expand fetch gate summarize answer finalize" {
		t.Errorf("steps = %s", got)
	}
	srv2, _ := chatServer(t)
	code, out, errs = coderag(t, "ask", "--db", db, "--llm-url", srv2.URL, "--llm-model", "m", "how long do carts live?")
	if code != 0 || !strings.HasPrefix(out, "Carts live in Redis for 30 days") || strings.Contains(out, "ANSWER:") || strings.Contains(out, "NEED_MORE") ||
		!strings.Contains(out, "evidence given to the model:") {
		t.Errorf("streamed answer: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := coderag(t, "ask", "--db", db, "--llm-model", "m", "x"); code != 2 || !strings.Contains(errs, "--llm-url") {
		t.Errorf("no server: exit %d, %q", code, errs)
	}
}

// TestAskSession: with --session the second question is asked with the
// first turn before it, and both turns are kept.
func TestAskSession(t *testing.T) {
	db := sampleCopy(t)
	var sawHistory atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		reply := "MODE: DIRECT"
		if strings.Contains(body.Messages[0].Content, "You answer") {
			reply = "ANSWER: first answer"
			for _, m := range body.Messages[1:] {
				if m.Role == "assistant" && m.Content == "first answer" {
					sawHistory.Store(true)
					reply = "ANSWER: second answer"
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"message":{"role":"assistant","content":%q}}]}`, reply)
	}))
	defer srv.Close()
	ask := func(q string) string {
		t.Helper()
		code, out, errs := coderag(t, "ask", "--db", db, "--llm-url", srv.URL, "--llm-model", "m", "--session", "oncall", "--json", q)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var res struct {
			Answer, Session string
		}
		json.Unmarshal([]byte(out), &res)
		if res.Session != "oncall" {
			t.Errorf("session %q", res.Session)
		}
		return res.Answer
	}
	if a := ask("what is a 502?"); a != "first answer" {
		t.Errorf("first turn: %q", a)
	}
	if a := ask("and a 503?"); a != "second answer" || !sawHistory.Load() {
		t.Errorf("second turn did not see the first: %q", a)
	}
}
