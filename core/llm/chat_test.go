package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// streamServer answers chat completions the way OpenAI-compatible servers
// stream them, after failing the first `fail` requests with status.
func streamServer(t *testing.T, fail int32, status int) (*httptest.Server, *atomic.Int32, *[]map[string]any) {
	var calls atomic.Int32
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, `{"error": {"message": "no such route"}}`, http.StatusNotFound)
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		bodies = append(bodies, body)
		if n <= fail {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(status)
			fmt.Fprint(w, `{"error": {"message": "busy, try again"}}`)
			return
		}
		if body["stream"] != true {
			t.Errorf("request does not ask to stream: %v", body)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i, piece := range []string{"The cart ", "service keeps ", "carts in Redis."} {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", piece)
			if i == 0 {
				fmt.Fprint(w, ": keep-alive\n\n")
			}
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":42,\"completion_tokens\":9}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &calls, &bodies
}

func TestChatStreams(t *testing.T) {
	srv, _, bodies := streamServer(t, 0, 0)
	temp := 0.2
	c, err := New(Options{URL: srv.URL, Model: "qwen2.5-coder", APIKey: "k", Temperature: &temp, MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	reply, err := c.Chat(context.Background(), []Message{{"system", "Answer from the context."}, {"user", "Where are carts kept?"}},
		func(s string) { deltas = append(deltas, s) })
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "The cart service keeps carts in Redis." || reply.FinishReason != "stop" || reply.PromptTokens != 42 || reply.CompletionTokens != 9 {
		t.Errorf("reply = %+v", reply)
	}
	if len(deltas) != 3 {
		t.Errorf("streamed %d pieces, want 3: %q", len(deltas), deltas)
	}
	b := (*bodies)[0]
	msgs := b["messages"].([]any)
	if b["model"] != "qwen2.5-coder" || len(msgs) != 2 || msgs[1].(map[string]any)["role"] != "user" || b["temperature"] != 0.2 || b["max_tokens"] != float64(100) {
		t.Errorf("request body = %v", b)
	}
}

func TestChatRetriesAndErrors(t *testing.T) {
	// Two 503s, then the answer.
	srv, calls, _ := streamServer(t, 2, http.StatusServiceUnavailable)
	c, _ := New(Options{URL: srv.URL + "/v1", Model: "m", Backoff: time.Millisecond})
	if reply, err := c.Chat(context.Background(), []Message{{"user", "hi"}}, nil); err != nil || !strings.Contains(reply.Text, "Redis") || calls.Load() != 3 {
		t.Errorf("after two 503s: %v %q, %d calls", err, reply.Text, calls.Load())
	}
	// A 401 is not retried and says why.
	bad, calls401, _ := streamServer(t, 100, http.StatusUnauthorized)
	c, _ = New(Options{URL: bad.URL, Model: "m", Backoff: time.Millisecond})
	if _, err := c.Chat(context.Background(), []Message{{"user", "hi"}}, nil); err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "CODERAG_LLM_KEY") || calls401.Load() != 1 {
		t.Errorf("401: %v after %d calls", err, calls401.Load())
	}
	// Retries run out on a server that keeps failing.
	busy, callsBusy, _ := streamServer(t, 100, http.StatusTooManyRequests)
	c, _ = New(Options{URL: busy.URL, Model: "m", Retries: 2, Backoff: time.Millisecond})
	if _, err := c.Chat(context.Background(), []Message{{"user", "hi"}}, nil); err == nil || !strings.Contains(err.Error(), "busy, try again") || callsBusy.Load() != 3 {
		t.Errorf("429s: %v after %d calls", err, callsBusy.Load())
	}
	// A server that is down.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c, _ = New(Options{URL: "http://" + addr, Model: "m"})
	if _, err := c.Chat(context.Background(), []Message{{"user", "hi"}}, nil); err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Errorf("server down: %v", err)
	}
	if _, err := New(Options{URL: "http://x"}); err == nil || !strings.Contains(err.Error(), "--llm-model") {
		t.Errorf("no model: %v", err)
	}
}

// TestChatWithoutStreaming: a server that answers with one JSON object.
func TestChatWithoutStreaming(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"Redis."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`)
	}))
	defer srv.Close()
	c, _ := New(Options{URL: srv.URL + "/v1/chat/completions", Model: "m"})
	var got string
	reply, err := c.Chat(context.Background(), []Message{{"user", "hi"}}, func(s string) { got += s })
	if err != nil || reply.Text != "Redis." || got != "Redis." || reply.CompletionTokens != 2 {
		t.Errorf("reply %+v, streamed %q, err %v", reply, got, err)
	}
}
