package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"coderag/core"
	"coderag/core/graph"
)

// graphCache keeps a long-lived server's service graph, read again only
// when a crawl (this process's or another's) has ended since: the graph
// changes with crawls alone.
type graphCache struct {
	db  index
	mu  sync.Mutex
	key string
	g   *graph.Graph
	ix  *graph.Index
}

// get returns the graph and its index as of the last crawl.
func (c *graphCache) get(ctx context.Context) (*graph.Graph, *graph.Index, error) {
	run, err := c.db.LastRun(ctx)
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		return nil, nil, err
	}
	key := fmt.Sprint(run.ID, run.Status, run.Finished)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.g != nil && key == c.key {
		return c.g, c.ix, nil
	}
	g, err := c.db.Graph(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.g, c.ix, c.key = g, g.Index(0), key
	return c.g, c.ix, nil
}
