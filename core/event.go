package core

import (
	"errors"
	"time"
)

// Phase is a step of a crawl.
type Phase string

// The crawl phases, in the order a source goes through them.
const (
	PhaseDiscover Phase = "discover"
	PhaseChunk    Phase = "chunk"
	PhaseEmbed    Phase = "embed"
	PhaseWrite    Phase = "write"
	PhaseLink     Phase = "link"    // after all sources: conversations and docs joined to the services they mention
	PhaseCompact  Phase = "compact" // at the end: the full-text indexes and vectors compacted after many removals
	PhaseDone     Phase = "done"
)

// EventKind says what an Event reports.
type EventKind string

// The event kinds.
const (
	EventProgress    EventKind = "progress"     // counters moved
	EventSkip        EventKind = "skip"         // a file was not indexed; Path and Reason say which and why
	EventWarning     EventKind = "warning"      // a file was indexed with a caveat (as plain text, decoded, cut); Reason says which
	EventError       EventKind = "error"        // a file or source failed; Err says why, the crawl goes on
	EventSourceStart EventKind = "source_start" // a source begins
	EventSourceDone  EventKind = "source_done"  // a source was committed
)

// Event is one progress report of a crawl. Counters are cumulative for the
// source named by Source.
type Event struct {
	Time       time.Time
	Kind       EventKind
	Phase      Phase
	Source     string
	FilesDone  int
	FilesTotal int
	Chunks     int
	Bytes      int64
	Path       string
	Reason     string
	Err        error
}

// Sentinel errors shared by the store and its callers; test with errors.Is.
var (
	// ErrNoIndex means the database file does not exist yet.
	ErrNoIndex = errors.New("no index")
	// ErrSchemaTooNew means the file was written by a newer coderag.
	ErrSchemaTooNew = errors.New("database schema is newer than this coderag")
	// ErrEmbedderMismatch means the file was built with another embedder.
	ErrEmbedderMismatch = errors.New("embedder mismatch")
	// ErrNotFound means a looked-up item does not exist.
	ErrNotFound = errors.New("not found")
	// ErrVectorsReplaced says that a crawl dropped the vectors a reader
	// opened the index with (a new embedder or --reembed) while it read.
	ErrVectorsReplaced = errors.New("the index's vectors are being replaced by a crawl")
	// ErrBadQuery means a query could not be parsed.
	ErrBadQuery = errors.New("bad query")
)

// EmbedderInfo identifies the embedder a database's vectors come from.
type EmbedderInfo struct {
	// ID names the provider and model, e.g. "builtin:ppmi-svd" or
	// "openai:nomic-embed-code".
	ID  string
	Dim int
}
