// Package llm talks to language models over the OpenAI-compatible chat
// completions API (POST /v1/chat/completions), which llama.cpp's server,
// vLLM, Ollama (/v1), LM Studio and hosted APIs speak: answers stream as
// server-sent events, failures that may pass (429, 5xx, timeouts before
// the first byte) are retried with backoff, and a server that is down is
// an error saying so.
package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"coderag/core"
)

// Options configure a Client.
type Options struct {
	// URL is the server's base URL (http://localhost:8080, .../v1) or the
	// full endpoint (.../v1/chat/completions).
	URL    string
	Model  string
	APIKey string // sent as a bearer token when set
	// Timeout bounds a request until its first byte (default 60s); an
	// answer then streams for as long as the context allows.
	Timeout time.Duration
	// Retries is how often a request that got 429, a 5xx or no answer is
	// retried (default 3), after Backoff doubling each time (default 1s)
	// or the server's Retry-After.
	Retries int
	Backoff time.Duration
	// Temperature, when set, is sent; MaxTokens bounds the answer when
	// positive.
	Temperature *float64
	MaxTokens   int
	Client      *http.Client
}

// Message is one message of a chat.
type Message struct {
	Role    string `json:"role"` // system, user, assistant
	Content string `json:"content"`
}

// Reply is a model's answer.
type Reply struct {
	Text         string
	FinishReason string
	// PromptTokens and CompletionTokens are the server's counts, when it
	// gives them.
	PromptTokens, CompletionTokens int
}

// Client calls one model of one server.
type Client struct {
	o        Options
	endpoint string
}

// New returns a client for the model o names.
func New(o Options) (*Client, error) {
	if o.URL == "" {
		return nil, errors.New("llm: no server URL (--llm-url or CODERAG_LLM_URL)")
	}
	if o.Model == "" {
		return nil, errors.New("llm: no model (--llm-model or CODERAG_LLM_MODEL)")
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Retries < 0 {
		o.Retries = 0
	} else if o.Retries == 0 {
		o.Retries = 3
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	base := strings.TrimRight(o.URL, "/")
	endpoint := base
	switch {
	case strings.HasSuffix(base, "/chat/completions"):
	case strings.HasSuffix(base, "/v1"):
		endpoint = base + "/chat/completions"
	default:
		endpoint = base + "/v1/chat/completions"
	}
	return &Client{o: o, endpoint: endpoint}, nil
}

// Endpoint is the URL requests go to.
func (c *Client) Endpoint() string { return c.endpoint }

// Chat sends the messages and returns the answer; onDelta, when not nil,
// receives the answer's text as it streams.
func (c *Client) Chat(ctx context.Context, msgs []Message, onDelta func(string)) (Reply, error) {
	req := map[string]any{"model": c.o.Model, "messages": msgs, "stream": true}
	if c.o.Temperature != nil {
		req["temperature"] = *c.o.Temperature
	}
	if c.o.MaxTokens > 0 {
		req["max_tokens"] = c.o.MaxTokens
	}
	body, _ := json.Marshal(req)
	var reply Reply
	err := core.Retry(ctx, c.o.Retries, c.o.Backoff, func() (time.Duration, error) {
		var retryAfter time.Duration
		var err error
		reply, retryAfter, err = c.once(ctx, body, onDelta)
		return retryAfter, err
	})
	return reply, err
}

func (c *Client) once(ctx context.Context, body []byte, onDelta func(string)) (Reply, time.Duration, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The timeout holds until the answer starts.
	first := time.AfterFunc(c.o.Timeout, cancel)
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return Reply{}, 0, fmt.Errorf("llm: bad URL %q: %w", c.endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if c.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.APIKey)
	}
	resp, err := c.o.Client.Do(req)
	timedOut := !first.Stop()
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, 0, ctx.Err()
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return Reply{}, 0, fmt.Errorf("llm server at %s is not reachable (%v): start it, or check --llm-url", c.endpoint, op.Err)
		}
		if timedOut {
			return Reply{}, 0, core.Retryable{Err: fmt.Errorf("llm server at %s: no answer within %s", c.endpoint, c.o.Timeout)}
		}
		return Reply{}, 0, core.Retryable{Err: fmt.Errorf("llm server at %s: %w", c.endpoint, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		err := fmt.Errorf("llm server at %s: HTTP %d: %s", c.endpoint, resp.StatusCode, core.ErrorText(data))
		switch {
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			return Reply{}, time.Duration(ra) * time.Second, core.Retryable{Err: err}
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			return Reply{}, 0, fmt.Errorf("%w (is the key in CODERAG_LLM_KEY right?)", err)
		case resp.StatusCode == http.StatusNotFound:
			return Reply{}, 0, fmt.Errorf("%w (is %s an OpenAI-compatible server, and %q a model it serves?)", err, c.o.URL, c.o.Model)
		}
		return Reply{}, 0, err
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// A server that does not stream answers in one JSON object.
		data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return Reply{}, 0, core.Retryable{Err: fmt.Errorf("llm server at %s: reading the answer: %w", c.endpoint, err)}
		}
		var r struct {
			Choices []struct {
				Message      Message `json:"message"`
				FinishReason string  `json:"finish_reason"`
			} `json:"choices"`
			Usage usage `json:"usage"`
		}
		if err := json.Unmarshal(data, &r); err != nil || len(r.Choices) == 0 {
			return Reply{}, 0, fmt.Errorf("llm server at %s: the answer is not a chat completion: %s", c.endpoint, core.ErrorText(data))
		}
		reply := Reply{Text: r.Choices[0].Message.Content, FinishReason: r.Choices[0].FinishReason,
			PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens}
		if onDelta != nil {
			onDelta(reply.Text)
		}
		return reply, 0, nil
	}
	var reply Reply
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // event names, comments, blank separators
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			break
		}
		var ev struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *usage    `json:"usage"`
			Error *apiError `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return Reply{}, 0, fmt.Errorf("llm server at %s: a streamed event is not JSON: %.200s", c.endpoint, data)
		}
		if ev.Error != nil {
			return Reply{}, 0, fmt.Errorf("llm server at %s: %s", c.endpoint, ev.Error.Message)
		}
		for _, ch := range ev.Choices {
			if ch.Delta.Content != "" {
				text.WriteString(ch.Delta.Content)
				if onDelta != nil {
					onDelta(ch.Delta.Content)
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				reply.FinishReason = *ch.FinishReason
			}
		}
		if ev.Usage != nil {
			reply.PromptTokens, reply.CompletionTokens = ev.Usage.PromptTokens, ev.Usage.CompletionTokens
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return Reply{}, 0, ctx.Err()
		}
		return Reply{}, 0, fmt.Errorf("llm server at %s: the stream broke off: %w", c.endpoint, err)
	}
	reply.Text = text.String()
	return reply, 0, nil
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

type apiError struct {
	Message string `json:"message"`
}
