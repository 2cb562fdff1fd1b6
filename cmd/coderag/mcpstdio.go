package main

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long stdin's end waits for the answers to the
// requests read before it.
const drainTimeout = 2 * time.Minute

// drainingStdio is MCP over stdin and stdout that answers every request
// it read before stdin ended. The SDK's stdio transport stops writing as
// soon as its input ends (go-sdk issue 1061), so a client that pipes its
// requests and closes stdin — echo ... | coderag mcp — got no answers.
// Here the end of stdin is passed on only once as many responses as
// requests have been written (or after drainTimeout).
func drainingStdio(in io.ReadCloser, out io.Writer) mcp.Transport {
	d := &drain{}
	d.cond = sync.NewCond(&d.mu)
	return &mcp.IOTransport{Reader: &drainReader{r: in, d: d}, Writer: &drainWriter{w: out, d: d}}
}

// drain counts requests read and responses written.
type drain struct {
	mu                 sync.Mutex
	cond               *sync.Cond
	requests, answered int
}

// message is what tells a request (id and method) from a response (id,
// no method) and a notification (no id).
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (m message) hasID() bool    { return len(m.ID) > 0 && string(m.ID) != "null" }
func (m message) request() bool  { return m.hasID() && m.Method != "" }
func (m message) response() bool { return m.hasID() && m.Method == "" }

// wait blocks, with d.mu held, until every request read has an answer
// written, or drainTimeout has passed.
func (d *drain) wait() {
	deadline := time.AfterFunc(drainTimeout, func() {
		d.mu.Lock()
		d.answered = d.requests
		d.cond.Broadcast()
		d.mu.Unlock()
	})
	defer deadline.Stop()
	for d.answered < d.requests {
		d.cond.Wait()
	}
}

// count calls fn with each complete line of p after what partial holds,
// and keeps the incomplete end in partial.
func count(partial *[]byte, p []byte, fn func(message)) {
	*partial = append(*partial, p...)
	for {
		i := bytes.IndexByte(*partial, '\n')
		if i < 0 {
			return
		}
		line := bytes.TrimSpace((*partial)[:i])
		*partial = (*partial)[i+1:]
		var m message
		if len(line) > 0 && json.Unmarshal(line, &m) == nil {
			fn(m)
		}
	}
}

type drainReader struct {
	r       io.ReadCloser
	d       *drain
	partial []byte
}

func (r *drainReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	in := p[:n]
	if err == io.EOF {
		in = append(slices.Clone(in), '\n') // a last request without a newline
	}
	r.d.mu.Lock()
	defer r.d.mu.Unlock()
	count(&r.partial, in, func(m message) {
		if m.request() {
			r.d.requests++
		}
	})
	if err == io.EOF {
		r.d.wait()
	}
	return n, err
}

func (r *drainReader) Close() error { return r.r.Close() }

type drainWriter struct {
	w       io.Writer
	d       *drain
	partial []byte
}

func (w *drainWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.d.mu.Lock()
	count(&w.partial, p[:n], func(m message) {
		if m.response() {
			w.d.answered++
		}
	})
	w.d.cond.Broadcast()
	w.d.mu.Unlock()
	return n, err
}

// Close leaves stdout open: the process writes its last words there.
func (w *drainWriter) Close() error { return nil }
