package embed

import (
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

// HTTPOptions configure a client of an embedding server.
type HTTPOptions struct {
	// Provider is "openai" (POST /v1/embeddings, any OpenAI-compatible
	// server) or "ollama" (POST /api/embed).
	Provider string
	// URL is the server's base URL (http://localhost:11434) or the full
	// endpoint URL.
	URL    string
	Model  string
	APIKey string // sent as a bearer token when set
	// Prefixes default to DefaultPrefixes(Model) when nil.
	Prefixes *Prefixes
	// Batch is the number of texts per request (default 32).
	Batch int
	// Timeout bounds one request (default 60s).
	Timeout time.Duration
	// Retries is how often a request that got 429, a 5xx or timed out is
	// retried (default 4), after Backoff doubling each time (default
	// 500ms) or the server's Retry-After.
	Retries int
	Backoff time.Duration
	// Dim is the expected dimension; 0 learns it from the first answer.
	Dim    int
	Client *http.Client
}

// HTTP is an Embedder that calls an embedding server.
type HTTP struct {
	o        HTTPOptions
	endpoint string
	prefixes Prefixes
	dim      int
}

// NewHTTP returns a client for the server o names. With o.Dim zero it
// embeds one probe text to learn the dimension, so that a server that is
// down or misconfigured is reported before any work is done.
func NewHTTP(ctx context.Context, o HTTPOptions) (*HTTP, error) {
	if o.Batch <= 0 {
		o.Batch = 32
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Retries < 0 {
		o.Retries = 0
	} else if o.Retries == 0 {
		o.Retries = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	if o.Model == "" {
		return nil, fmt.Errorf("embedder %s: no model given (--embed-model)", o.Provider)
	}
	h := &HTTP{o: o, dim: o.Dim}
	base := strings.TrimRight(o.URL, "/")
	switch o.Provider {
	case "openai":
		if base == "" {
			base = "http://localhost:8080"
		}
		switch {
		case strings.HasSuffix(base, "/embeddings"):
			h.endpoint = base
		case strings.HasSuffix(base, "/v1"):
			h.endpoint = base + "/embeddings"
		default:
			h.endpoint = base + "/v1/embeddings"
		}
	case "ollama":
		if base == "" {
			base = "http://localhost:11434"
		}
		if strings.HasSuffix(base, "/api/embed") {
			h.endpoint = base
		} else {
			h.endpoint = base + "/api/embed"
		}
	default:
		return nil, fmt.Errorf("embedder %q: unknown provider (want builtin, openai or ollama)", o.Provider)
	}
	if o.Prefixes != nil {
		h.prefixes = *o.Prefixes
	} else {
		h.prefixes = DefaultPrefixes(o.Model)
	}
	if h.dim == 0 {
		v, err := h.request(ctx, []string{"dimension probe"})
		if err != nil {
			return nil, err
		}
		h.dim = len(v[0])
	}
	return h, nil
}

// Endpoint is the URL requests go to.
func (h *HTTP) Endpoint() string { return h.endpoint }

// Info implements Embedder.
func (h *HTTP) Info() core.EmbedderInfo {
	return core.EmbedderInfo{ID: h.o.Provider + ":" + h.o.Model, Dim: h.dim}
}

// Embed implements Embedder: texts go in batches of o.Batch with the
// prefix of their kind.
func (h *HTTP) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	prefix := h.prefixes.Document
	if kind == Query {
		prefix = h.prefixes.Query
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += h.o.Batch {
		batch := texts[start:min(start+h.o.Batch, len(texts))]
		in := make([]string, len(batch))
		for i, t := range batch {
			in[i] = prefix + t
		}
		vecs, err := h.request(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// request embeds one batch. Inputs the server left out of its answer (a
// server that caps its batch size) are asked for again.
func (h *HTTP) request(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	missing := make([]int, len(texts))
	for i := range missing {
		missing[i] = i
	}
	for len(missing) > 0 {
		in := make([]string, len(missing))
		for i, m := range missing {
			in[i] = texts[m]
		}
		got, err := h.roundTrip(ctx, in)
		if err != nil {
			return nil, err
		}
		var still []int
		for i, m := range missing {
			if i < len(got) && got[i] != nil {
				out[m] = got[i]
			} else {
				still = append(still, m)
			}
		}
		if len(still) == len(missing) {
			return nil, fmt.Errorf("embedder %s at %s: the answer held no embeddings for %d inputs", h.o.Provider, h.endpoint, len(missing))
		}
		missing = still
	}
	for _, v := range out {
		if h.dim != 0 && len(v) != h.dim {
			return nil, fmt.Errorf("embedder %s at %s: model %s returned vectors of dimension %d, expected %d (did the model change? re-crawl with --reembed)",
				h.o.Provider, h.endpoint, h.o.Model, len(v), h.dim)
		}
		if len(v) == 0 {
			return nil, fmt.Errorf("embedder %s at %s: model %s returned an empty vector", h.o.Provider, h.endpoint, h.o.Model)
		}
	}
	return out, nil
}

// roundTrip sends one request with retries and returns the vectors by
// input position (nil where the answer had none).
func (h *HTTP) roundTrip(ctx context.Context, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{h.o.Model, texts})
	var vecs [][]float32
	err := core.Retry(ctx, h.o.Retries, h.o.Backoff, func() (time.Duration, error) {
		var retryAfter time.Duration
		var err error
		vecs, retryAfter, err = h.once(ctx, body, len(texts))
		return retryAfter, err
	})
	if err != nil {
		return nil, err
	}
	return vecs, nil
}

func (h *HTTP) once(ctx context.Context, body []byte, n int) ([][]float32, time.Duration, error) {
	rctx, cancel := context.WithTimeout(ctx, h.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, h.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, fmt.Errorf("embedder %s: bad URL %q: %w", h.o.Provider, h.endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if h.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.o.APIKey)
	}
	resp, err := h.o.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, 0, fmt.Errorf("embedder %s at %s is not reachable (%v); start the server, or use --embedder builtin", h.o.Provider, h.endpoint, op.Err)
		}
		if rctx.Err() != nil {
			return nil, 0, core.Retryable{Err: fmt.Errorf("embedder %s at %s: no answer within %s", h.o.Provider, h.endpoint, h.o.Timeout)}
		}
		return nil, 0, core.Retryable{Err: fmt.Errorf("embedder %s at %s: %w", h.o.Provider, h.endpoint, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 512<<20))
	if err != nil {
		return nil, 0, core.Retryable{Err: fmt.Errorf("embedder %s at %s: reading the answer: %w", h.o.Provider, h.endpoint, err)}
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("embedder %s at %s: HTTP %d: %s", h.o.Provider, h.endpoint, resp.StatusCode, core.ErrorText(data))
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			return nil, time.Duration(ra) * time.Second, core.Retryable{Err: err}
		}
		return nil, 0, err
	}
	vecs, err := h.decode(data, n)
	if err != nil {
		return nil, 0, fmt.Errorf("embedder %s at %s: %w", h.o.Provider, h.endpoint, err)
	}
	return vecs, 0, nil
}

// decode reads an answer in the provider's wire format.
func (h *HTTP) decode(data []byte, n int) ([][]float32, error) {
	out := make([][]float32, n)
	switch h.o.Provider {
	case "openai":
		var r struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("answer is not an embeddings response: %w", err)
		}
		for _, d := range r.Data {
			if d.Index < 0 || d.Index >= n {
				return nil, fmt.Errorf("answer has index %d for %d inputs", d.Index, n)
			}
			out[d.Index] = d.Embedding
		}
	case "ollama":
		var r struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("answer is not an /api/embed response: %w", err)
		}
		if len(r.Embeddings) > n {
			return nil, fmt.Errorf("answer has %d embeddings for %d inputs", len(r.Embeddings), n)
		}
		copy(out, r.Embeddings)
	}
	return out, nil
}
