package core

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// Hit is one search result.
type Hit struct {
	Chunk Chunk
	// Score is the fused score; higher is better.
	Score float64
	// Lists records the hit's rank (1-based) and raw score in every
	// retrieval list it appeared in: "bm25-code", "bm25-prose", "dense".
	Lists []ListRank
	// Explain says how Score came about.
	Explain Explain
}

// Explain is why a hit ranks where it does: the fused score of its lists,
// what the reranker, freshness and corpus boosts made of it, and the query
// words it holds.
type Explain struct {
	// Fused is the weighted reciprocal rank fusion score of Lists.
	Fused float64 `json:"fused"`
	// Rerank is the reranker's score (Reranker names it) and Features the
	// builtin reranker's features.
	Reranker string             `json:"reranker,omitempty"`
	Rerank   *float64           `json:"rerank,omitempty"`
	Features map[string]float64 `json:"features,omitempty"`
	// Freshness is the recency decay of a conversation chunk (1 = now,
	// 0.5 = one half-life old).
	Freshness *float64 `json:"freshness,omitempty"`
	// Boost multiplies the score for the chunk's corpus type when the
	// query has the signal BoostReason names.
	Boost       float64 `json:"boost,omitempty"`
	BoostReason string  `json:"boost_reason,omitempty"`
	// Matched are the query words found in the chunk.
	Matched []string `json:"matched"`
	// Duplicates are the lower hits from other files that held the same
	// passage (nine words in ten the same), left out of a context pack
	// (search.Collapse).
	Duplicates []string `json:"duplicates,omitempty"`
	// Frame is the place of a pasted stack trace (path:line, as the
	// trace wrote it) that the chunk holds, and FrameLine that line.
	Frame     string `json:"frame,omitempty"`
	FrameLine int    `json:"frame_line,omitempty"`
	// Route is the server route ("PUT /feeds/{id}/refresh") that serves a
	// pasted request, on the chunk that registers it and on its handler's;
	// RouteLine is the registration's line, on the first only.
	Route     string `json:"route,omitempty"`
	RouteLine int    `json:"route_line,omitempty"`
	// Declares is the qualified name (errors.Is) a query asks about whose
	// declaration this chunk is: put first.
	Declares string `json:"declares,omitempty"`
	// Workload is what a pasted text names that this chunk's workload
	// made, serves or runs, or is: "pod checkout-7d9f8c6b5-x2k4p",
	// "container shop-cart-1", "host cart.shop.svc.cluster.local", "image
	// ghcr.io/acme/cart:1.4", "deployment/checkout".
	Workload string `json:"workload,omitempty"`
	// Edge is the service graph's edge whose evidence this chunk is, for a
	// question about a service's callers or dependencies: "web -> cart
	// (http GET /cart/{id})".
	Edge string `json:"edge,omitempty"`
}

// SameIn names, up to n of them, the other places that hold the hit's
// passage, which the search or a pack left out (Duplicates): "the same
// in a.yaml:1-9, b.yaml:4-12 and 3 more"; "" when there are none.
func (e Explain) SameIn(n int) string {
	d := e.Duplicates
	switch {
	case len(d) == 0:
		return ""
	case len(d) <= n:
		return "the same in " + strings.Join(d, ", ")
	}
	return fmt.Sprintf("the same in %s and %d more", strings.Join(d[:n], ", "), len(d)-n)
}

// PinnedKind says why a hit was put first, in one word: "frame" for a
// pasted trace's frame, "route" for the chunk that registers a pasted
// request's route, "handles" for its handler, "workload" for the manifest
// of the workload a pasted pod or container name comes from, "declares"
// for the declaration of the qualified name a query asks about, "edge"
// for the evidence of a graph edge a dependency question asks about; ""
// for a hit ranked by the search.
func (e Explain) PinnedKind() string {
	switch {
	case e.Edge != "":
		return "edge"
	case e.Frame != "":
		return "frame"
	case e.Route != "" && e.RouteLine > 0:
		return "route"
	case e.Route != "":
		return "handles"
	case e.Workload != "":
		return "workload"
	case e.Declares != "":
		return "declares"
	}
	return ""
}

// Pinned says why a hit was put first, in a few words: "frame
// store.go:88", "route PUT /feeds/{id}", "handles PUT /feeds/{id}",
// "workload of pod checkout-7d9f8c6b5-x2k4p", "declares errors.Is"; ""
// for a hit ranked by the search.
func (e Explain) Pinned() string {
	switch k := e.PinnedKind(); k {
	case "frame":
		return k + " " + path.Base(strings.ReplaceAll(e.Frame, `\`, "/"))
	case "route", "handles":
		return k + " " + e.Route
	case "declares":
		return k + " " + e.Declares
	case "edge":
		return k + " " + e.Edge
	case "workload":
		if !strings.Contains(e.Workload, " ") { // a kubectl reference
			return k + " " + e.Workload
		}
		return k + " of " + e.Workload
	}
	return ""
}

// FocusLine is the line of the chunk a hit is about: a pasted trace's
// frame, a route's registration; 0 for the chunk as a whole.
func (e Explain) FocusLine() int {
	if e.FrameLine > 0 {
		return e.FrameLine
	}
	return e.RouteLine
}

// FileRef names a file of the index: its source (repository) and its
// path within it.
type FileRef struct {
	Repo string `json:"repo"`
	Path string `json:"path"`
}

// ListRank is a hit's place in one retrieval list.
type ListRank struct {
	List  string  `json:"list"`
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// Stats describes what an index holds.
type Stats struct {
	Path      string
	FileBytes int64 // database file plus WAL
	// FreeBytes is the part of the file that holds nothing (pages freed
	// by removed chunks and compactions, which later crawls fill first).
	FreeBytes     int64
	SchemaVersion int
	Embedder      EmbedderInfo
	Vectors       int
	// VectorIndex says how a vector search finds its candidates, and why
	// not the faster way when one is missing.
	VectorIndex string
	// TextIndex says how the full-text lists rank, and whether the next
	// crawl has upkeep to do (row lengths to write, indexes to compact).
	TextIndex  string
	Sources    []SourceStats
	Files      int
	Chunks     int
	ByCorpus   map[CorpusType]int
	ByLanguage map[string]int
	ByRepo     map[string]int
	// What code analysis found: server routes, outbound calls by kind,
	// and symbol references.
	Routes int
	Calls  map[CallKind]int
	Refs   int
	// The service graph, counted as coderag graph shows it: Services are
	// its nodes (not the unresolved targets), Edges the dependencies
	// between them, EntryPoints the routes in from outside (Ingress,
	// Gateway API), TopicLinks the publish and subscribe links of topics,
	// and Unresolved the calls whose target nobody could resolve.
	Services, Edges, EntryPoints, TopicLinks, Unresolved int
	// Scrub is what the scrub gate replaced, from the scrub audit.
	Scrub   ScrubStats
	LastRun *CrawlRun
}

// ScrubStats sums the scrub audit: how many chunks the gate changed, how
// many secrets and personal data values it replaced, and in how many
// chunks each placeholder type (AWS_KEY, EMAIL, PERSON, ...) occurs.
type ScrubStats struct {
	Chunks       int
	Secrets      int
	PersonalData int
	Types        map[string]int
}

// SourceStats describes one crawled source.
type SourceStats struct {
	Name       string
	Kind       SourceKind
	Path       string
	Files      int
	Chunks     int
	Skipped    int
	LastIngest time.Time
	// Commit is the git HEAD the source was last crawled at (repositories).
	Commit string
	// ContentHash and NewestMTime identify the content last crawled: an
	// export's hash, a directory's newest file time (see core.Source).
	ContentHash string
	NewestMTime time.Time
	// ByCorpus counts the source's chunks per corpus type.
	ByCorpus map[CorpusType]int
	// ChunkingVersion is the oldest ChunkingVersion its files were
	// chunked by (1 for files stored before versions were recorded, 0 for
	// a source without files).
	ChunkingVersion int
}

// ChunkingVersion numbers the chunks coderag makes of a file's content.
// It changes whenever a change to the chunkers, decoders or scrubbing
// would chunk some unchanged file differently, so that an incremental
// crawl indexes again what an older coderag chunked instead of keeping
// it: each stored file hash ends with ChunkingMarker and it.
const ChunkingVersion = 104

// ChunkingMarker precedes the chunking version at the end of a stored
// file hash ("<sha256>/chunking-4").
const ChunkingMarker = "/chunking-"

// CrawlRun is one recorded crawl.
type CrawlRun struct {
	ID       int64
	Started  time.Time
	Finished time.Time
	Status   string // running, ok, partial, failed, interrupted
	Sources  int
	Files    int
	Chunks   int
	Skipped  int
	Errors   int
	Error    string
}

// Filter narrows a search. Empty fields match everything; several values in
// one field match any of them.
type Filter struct {
	Corpus   []CorpusType
	Repo     []string
	Language []string
	Service  []string
	// Path is a glob over file paths (path:src/api/**); NotPath excludes.
	Path    []string
	NotPath []string
}

// Empty reports whether f matches everything.
func (f Filter) Empty() bool {
	return len(f.Corpus) == 0 && len(f.Repo) == 0 && len(f.Language) == 0 && len(f.Service) == 0 &&
		len(f.Path) == 0 && len(f.NotPath) == 0
}
