package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"coderag/core"
)

// crawls runs the crawls the HTTP API starts, one at a time, and keeps
// what they did for GET /v1/crawls/{id}.
type crawls struct {
	path string
	// base is cancelled at shutdown; wg waits for a running crawl to
	// finish its transaction.
	base context.Context
	wg   sync.WaitGroup

	mu      sync.Mutex
	jobs    map[int]*crawlJob
	running *crawlJob
	nextID  int
}

// crawlJob is one crawl the API started.
type crawlJob struct {
	ID          int       `json:"id"`
	Incremental bool      `json:"incremental"`
	Status      string    `json:"status"` // running, ok, failed
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished,omitzero"`
	Phase       string    `json:"phase,omitempty"`
	Source      string    `json:"source,omitempty"`
	FilesDone   int       `json:"files_done"`
	FilesTotal  int       `json:"files_total"`
	Skipped     int       `json:"skipped"`
	Files       int       `json:"files"`
	Chunks      int       `json:"chunks"`
	Error       string    `json:"error,omitempty"`

	// changed is closed and replaced whenever the job moves, so that
	// event streams wake up.
	changed chan struct{}
}

// start begins a crawl of the index's sources, unless one is running.
func (c *crawls) start(incremental bool) (*crawlJob, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running != nil {
		return nil, &apiError{http.StatusConflict, "crawl_running", fmt.Sprintf("crawl %d is running (GET /v1/crawls/%d)", c.running.ID, c.running.ID)}
	}
	if crawlAlive(c.path) {
		return nil, &apiError{http.StatusConflict, "crawl_running", "another process is crawling " + c.path}
	}
	c.nextID++
	j := &crawlJob{ID: c.nextID, Incremental: incremental, Status: "running", Started: time.Now().UTC(), changed: make(chan struct{})}
	c.jobs[j.ID] = j
	c.running = j
	c.wg.Add(1)
	run := storedCrawl(c.path, incremental, "serve: POST /v1/index")
	go func() {
		defer c.wg.Done()
		sum, err := run(c.base, func(e core.Event) { c.event(j, e) })
		c.mu.Lock()
		defer c.mu.Unlock()
		j.Status, j.Finished = "ok", time.Now().UTC()
		for _, s := range sum.Sources {
			j.Files += s.Files
			j.Chunks += s.ChunkCount()
		}
		if err != nil {
			j.Status, j.Error = "failed", err.Error()
		} else if sum.Failed() {
			j.Status = "failed"
			for _, s := range sum.Sources {
				if s.Err != nil {
					j.Error = s.Err.Error()
				}
			}
		}
		c.running = nil
		close(j.changed)
	}()
	return j, nil
}

// event records a crawl's progress.
func (c *crawls) event(j *crawlJob, e core.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	j.Phase, j.Source = string(e.Phase), e.Source
	switch e.Kind {
	case core.EventProgress:
		j.FilesDone, j.FilesTotal = e.FilesDone, e.FilesTotal
	case core.EventSkip:
		j.Skipped++
	}
	close(j.changed)
	j.changed = make(chan struct{})
}

// get returns a copy of a job and the channel its next change closes.
func (c *crawls) get(id int) (crawlJob, <-chan struct{}, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	j, ok := c.jobs[id]
	if !ok {
		return crawlJob{}, nil, false
	}
	return *j, j.changed, true
}

func (a *api) startCrawl(incremental bool) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !a.writable {
			return &apiError{http.StatusForbidden, "token_required", "the write endpoints need a token: start serve with --token-file or CODERAG_TOKEN"}
		}
		j, err := a.crawls.start(incremental)
		if err != nil {
			return err
		}
		w.Header().Set("Location", fmt.Sprintf("/v1/crawls/%d", j.ID))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		json.NewEncoder(w).Encode(map[string]any{"id": j.ID, "status": j.Status, "progress": fmt.Sprintf("/v1/crawls/%d", j.ID)})
		return nil
	}
}

// crawlStatus answers with a crawl's state, or, asked for
// text/event-stream, streams it as server-sent events until it ends.
func (a *api) crawlStatus(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return badRequest("crawl id %q is not a number", r.PathValue("id"))
	}
	j, changed, ok := a.crawls.get(id)
	if !ok {
		return &apiError{http.StatusNotFound, "no_such_crawl", fmt.Sprintf("no crawl %d since this server started", id)}
	}
	if r.Header.Get("Accept") != "text/event-stream" {
		writeJSON(w, j)
		return nil
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("streaming is not supported here")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	http.NewResponseController(w).SetWriteDeadline(time.Time{}) // a stream lasts the crawl
	for {
		b, _ := json.Marshal(j)
		kind := "progress"
		if j.Status != "running" {
			kind = "done"
		}
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", kind, b)
		fl.Flush()
		if kind == "done" {
			return nil
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return nil
		}
		// At most ten events a second.
		select {
		case <-time.After(100 * time.Millisecond):
		case <-r.Context().Done():
			return nil
		}
		j, changed, _ = a.crawls.get(id)
	}
}

// deleteFiles removes files from a source of the index, in one
// transaction under the crawl lock: DELETE /v1/index/files with
// {"source": NAME, "paths": [PATH, ...]}. Paths the source does not hold
// are reported, not an error; the service graph is rebuilt by the next
// crawl when a deleted file mattered to it.
func (a *api) deleteFiles(w http.ResponseWriter, r *http.Request) error {
	if !a.writable {
		return &apiError{http.StatusForbidden, "token_required", "the write endpoints need a token: start serve with --token-file or CODERAG_TOKEN"}
	}
	var in struct {
		Source string   `json:"source"`
		Paths  []string `json:"paths"`
	}
	if err := decode(r, &in); err != nil {
		return err
	}
	if in.Source == "" || len(in.Paths) == 0 {
		return badRequest("source and paths are required")
	}
	ctx := r.Context()
	st, err := a.db.Stats(ctx)
	if err != nil {
		return err
	}
	var src *core.Source
	var names []string
	for _, s := range st.Sources {
		names = append(names, s.Name)
		if s.Name == in.Source {
			src = &core.Source{Kind: s.Kind, Path: s.Path, Name: s.Name}
		}
	}
	if src == nil {
		msg := fmt.Sprintf("no source %q in the index", in.Source)
		if near := core.Closest(in.Source, names, 3); len(near) > 0 {
			msg += " (did you mean " + strings.Join(near, ", ") + "?)"
		}
		return &apiError{http.StatusNotFound, "no_such_source", msg}
	}
	unlock, err := lockCrawl(ctx, a.path, false)
	if err != nil {
		return &apiError{http.StatusConflict, "crawl_running", err.Error()}
	}
	defer unlock()
	run, err := a.db.StartRun(ctx, "serve: DELETE /v1/index/files")
	if err != nil {
		return err
	}
	rec := core.CrawlRun{Status: "failed", Sources: 1}
	defer func() { a.db.FinishRun(context.WithoutCancel(ctx), run, rec) }()
	up, err := a.db.BeginSourceUpdate(ctx, run, *src)
	if err != nil {
		rec.Error = err.Error()
		return err
	}
	stored, err := up.StoredFiles(ctx)
	if err != nil {
		up.Rollback()
		rec.Error = err.Error()
		return err
	}
	deleted, missing := []string{}, []string{}
	for _, p := range in.Paths {
		if _, ok := stored[p]; !ok {
			missing = append(missing, p)
			continue
		}
		if err := up.DeleteFile(ctx, p); err != nil {
			up.Rollback()
			rec.Error = err.Error()
			return err
		}
		deleted = append(deleted, p)
	}
	if err := up.Commit(ctx); err != nil {
		rec.Error = err.Error()
		return err
	}
	rec.Status = "ok"
	writeJSON(w, map[string]any{"source": in.Source, "deleted": deleted, "not_in_index": missing})
	return nil
}
