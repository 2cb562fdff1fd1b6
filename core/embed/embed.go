// Package embed holds the last stage type of the crawl pipeline, the
// embedded chunk, and (as they land) the embedding providers.
package embed

import "coderag/core/scrub"

// Chunk is a clean chunk with its vector: what the store writes. Vector is
// nil when the crawl runs without an embedder; the chunk is then searchable
// by BM25 only.
type Chunk struct {
	Clean  scrub.CleanChunk
	Vector []float32
}
