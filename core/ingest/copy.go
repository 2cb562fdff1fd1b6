package ingest

import (
	"context"
	"fmt"
	"time"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/scrub"
)

// ExportedFile is one file of an index as an Exporter reads it back: what
// the crawl wrote for it, vectors included (nil for a chunk without one).
type ExportedFile struct {
	File    core.File
	Hash    string
	Mounts  []core.Mount
	Chunks  []core.Chunk // with their calls, resources, bindings and references
	Vectors [][]float32
}

// Exporter reads an index back, source by source, for Copy.
type Exporter interface {
	Stats(ctx context.Context) (core.Stats, error)
	// ExportSource calls file for every file of the named source in path
	// order and returns the source's routes.
	ExportSource(ctx context.Context, name string, file func(ExportedFile) error) ([]core.RouteAt, error)
	Embedder() core.EmbedderInfo
	EmbedderURL(ctx context.Context) (string, error)
	BuiltinModelInfo(ctx context.Context) (tokens, trainedChunks int, err error)
	LoadModel(ctx context.Context, tokens []string) (*embed.Model, error)
}

// Target is a store Copy writes: what a crawl writes through and the
// vector store.
type Target interface {
	Store
	VectorStore
}

// CopySummary says what Copy copied.
type CopySummary struct {
	Sources, Files, Chunks, Vectors int
	Embedder                        core.EmbedderInfo
	Duration                        time.Duration
}

// Copy copies every source of from into to — files, chunks with their
// facts, vectors, the corpus model and the embedder's name — each source
// in one transaction, then builds the service graph, owners and mentions
// in to from the copied facts (they are derived, not copied). progress,
// when set, is called after each source.
func Copy(ctx context.Context, from Exporter, to Target, progress func(source string, files, chunks int)) (CopySummary, error) {
	start := time.Now()
	var sum CopySummary
	st, err := from.Stats(ctx)
	if err != nil {
		return sum, err
	}
	if e := from.Embedder(); e.ID != "" {
		if err := to.UseEmbedder(ctx, e); err != nil {
			return sum, err
		}
		sum.Embedder = e
		u, err := from.EmbedderURL(ctx)
		if err != nil {
			return sum, err
		}
		if u != "" {
			if err := to.SetEmbedderURL(ctx, u); err != nil {
				return sum, err
			}
		}
		// The corpus model first: saving a model drops the vectors.
		if tokens, trained, err := from.BuiltinModelInfo(ctx); err != nil {
			return sum, err
		} else if tokens > 0 {
			m, err := from.LoadModel(ctx, nil)
			if err != nil {
				return sum, err
			}
			if err := to.SaveModel(ctx, m, trained); err != nil {
				return sum, err
			}
		}
	}
	run, err := to.StartRun(ctx, "copy")
	if err != nil {
		return sum, err
	}
	// The scrub gate admits what the source index admitted: its chunks
	// were cleaned when they were crawled (cleaning again finds nothing
	// new to remove).
	gate := scrub.New(scrub.Options{})
	for _, src := range st.Sources {
		var newest int64
		if !src.NewestMTime.IsZero() {
			newest = src.NewestMTime.UnixNano()
		}
		w, err := to.BeginSource(ctx, run, core.Source{Kind: src.Kind, Path: src.Path, Name: src.Name, Commit: src.Commit, ContentHash: src.ContentHash, NewestMTime: newest})
		if err != nil {
			return sum, err
		}
		files, chunks := 0, 0
		routes, err := from.ExportSource(ctx, src.Name, func(f ExportedFile) error {
			ecs := make([]embed.Chunk, len(f.Chunks))
			for i, c := range f.Chunks {
				cc, err := gate.Clean(c)
				if err != nil {
					return fmt.Errorf("copy %s/%s: %w", src.Name, f.File.Path, err)
				}
				ecs[i] = embed.Chunk{Clean: cc, Vector: f.Vectors[i]}
				if f.Vectors[i] != nil {
					sum.Vectors++
				}
			}
			if err := w.WriteFile(ctx, f.File, f.Hash, ecs); err != nil {
				return err
			}
			files++
			chunks += len(ecs)
			return w.WriteMounts(ctx, f.File.Path, f.Mounts)
		})
		if err == nil {
			err = w.WriteRoutes(ctx, routes)
		}
		if err == nil {
			w.SetFingerprint(src.ContentHash, newest)
			err = w.Commit(ctx)
		}
		if err != nil {
			w.Rollback()
			return sum, fmt.Errorf("copy source %s: %w", src.Name, err)
		}
		sum.Sources++
		sum.Files += files
		sum.Chunks += chunks
		if progress != nil {
			progress(src.Name, files, chunks)
		}
	}
	// The graph, owners and mentions from the copied facts (the crawl's
	// link phase; the vectors came with the chunks).
	if err := New(to, Options{}).link(ctx, &Summary{}); err != nil {
		return sum, err
	}
	if err := to.FinishRun(ctx, run, core.CrawlRun{Status: "ok", Sources: sum.Sources, Files: sum.Files, Chunks: sum.Chunks}); err != nil {
		return sum, err
	}
	sum.Duration = time.Since(start)
	return sum, nil
}
