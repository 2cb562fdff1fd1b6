package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"coderag/core"
	"coderag/core/embed"
)

// VectorStore is what the embed phase needs of the store; sqlite.DB
// implements it.
type VectorStore interface {
	Embedder() core.EmbedderInfo
	UseEmbedder(ctx context.Context, e core.EmbedderInfo) error
	SetEmbedderURL(ctx context.Context, url string) error
	ResetVectors(ctx context.Context) error
	ChunkTotal(ctx context.Context) (int, error)
	VectorCount(ctx context.Context) (int, error)
	SampleTexts(ctx context.Context, n int) ([]string, error)
	BuiltinModelInfo(ctx context.Context) (tokens, trainedChunks int, err error)
	SaveModel(ctx context.Context, m *embed.Model, trainedChunks int) error
	LoadModel(ctx context.Context, tokens []string) (*embed.Model, error)
	PendingVectors(ctx context.Context, after int64, limit int) ([]embed.Pending, error)
	// PendingAfter returns a primary key at or below which every chunk
	// has a vector (0 when it cannot tell cheaply), where PendingVectors
	// can start.
	PendingAfter(ctx context.Context) (int64, error)
	WriteVectors(ctx context.Context, vs []embed.Vector) error
	// UpdateVectorIndex refreshes the store's fast KNN structures after
	// the vectors of the chunks added were written.
	UpdateVectorIndex(ctx context.Context, added []int64) error
}

// EmbedOptions say how a crawl embeds chunks. With neither Builtin nor
// Embedder set, chunks get no vectors and search is BM25 only.
type EmbedOptions struct {
	// Builtin learns the built-in embedder from the index (after every
	// source is written) and embeds with it.
	Builtin bool
	// Embedder embeds with a server (openai, ollama); URL is recorded so
	// that queries reach the same server.
	Embedder embed.Embedder
	URL      string
	// Reembed drops every vector (and the built-in model) and embeds the
	// whole index again; needed to switch embedders.
	Reembed bool
	// Train tunes the built-in embedder's training.
	Train embed.TrainOptions
	// MaxTrainChunks is the largest sample the built-in embedder learns
	// from (default 20000 chunks, spread over the index).
	MaxTrainChunks int
	// Retrain: the built-in model is learned again when the index has
	// grown or shrunk by more than this share since it was trained
	// (default 0.5); otherwise it is reused and only new chunks embedded.
	Retrain float64
	// Batch is the number of chunks embedded and written at once
	// (default 256).
	Batch int
}

// Info is the embedder the options ask for (zero for none).
func (o EmbedOptions) Info() core.EmbedderInfo {
	switch {
	case o.Builtin:
		dim := o.Train.Dim
		if dim <= 0 {
			dim = embed.BuiltinDim
		}
		return core.EmbedderInfo{ID: embed.CorpusID, Dim: dim}
	case o.Embedder != nil:
		return o.Embedder.Info()
	}
	return core.EmbedderInfo{}
}

// EmbedSummary is what the embed phase did.
type EmbedSummary struct {
	Embedder core.EmbedderInfo
	// Trained says the built-in model was (re)learned, from Sample chunks,
	// with Vocab tokens, in TrainDuration.
	Trained       bool
	Sample, Vocab int
	TrainDuration time.Duration
	// Embedded chunks got a vector; Empty ones have no word the built-in
	// model knows and stay BM25-only.
	Embedded, Empty int
	Duration        time.Duration
	// Err is why embedding stopped early; the chunks without vectors are
	// embedded by the next crawl.
	Err error
	// Untrained says why no built-in model could be learned (the index
	// holds too little text): every chunk stays BM25-only and the next
	// crawl tries again. Not a failure.
	Untrained string
}

// ErrEmbedderChange means the crawl asks for another embedder than the
// index holds, without Reembed.
var ErrEmbedderChange = errors.New("embedder change needs --reembed")

// checkEmbedder refuses, before anything is crawled, an embedder other than
// the one whose vectors the index holds.
func (c *Crawler) checkEmbedder() error {
	want := c.opts.Embed.Info()
	vs, ok := c.store.(VectorStore)
	if !ok {
		if want.ID != "" {
			return fmt.Errorf("embed: the store cannot hold vectors")
		}
		return nil
	}
	have := vs.Embedder()
	switch {
	case have.ID == "" || c.opts.Embed.Reembed:
		return nil
	case want.ID == "":
		return fmt.Errorf("the index holds vectors of %s and this crawl asks for none: the new chunks would have no vectors; crawl with the same embedder, or into a new --db",
			have.ID)
	case have != want:
		return fmt.Errorf("the index holds vectors of %s (dimension %d) and this crawl asks for %s (dimension %d): %w (it re-embeds every chunk) or keep the same embedder",
			have.ID, have.Dim, want.ID, want.Dim, ErrEmbedderChange)
	}
	return nil
}

// embedChunks gives every chunk without a vector one: it learns or loads
// the built-in model, or calls the embedding server, in batches that are
// each committed, so that an interrupted phase is finished by the next
// crawl.
func (c *Crawler) embedChunks(ctx context.Context, sum *Summary) error {
	o := c.opts.Embed
	want := o.Info()
	if want.ID == "" {
		return nil
	}
	start := time.Now()
	vs := c.store.(VectorStore)
	es := &sum.Embed
	es.Embedder = want
	defer func() { es.Duration = time.Since(start) }()
	wctx := context.WithoutCancel(ctx)
	have := vs.Embedder()
	if have.ID != "" && (have != want || o.Reembed) {
		if err := vs.ResetVectors(wctx); err != nil {
			return err
		}
		have = core.EmbedderInfo{}
	}
	if have.ID == "" {
		if err := vs.UseEmbedder(wctx, want); err != nil {
			return err
		}
		if err := vs.SetEmbedderURL(wctx, o.URL); err != nil {
			return err
		}
	}
	emb := o.Embedder
	if o.Builtin {
		m, err := c.builtinModel(ctx, vs, es)
		if err != nil {
			return err
		}
		if m != nil {
			emb = embed.Builtin{M: m}
		}
	}
	batch := o.Batch
	if batch <= 0 {
		batch = 256
	}
	// Progress counts chunks in FilesDone/FilesTotal: the embed phase has
	// no files.
	total, err := vs.ChunkTotal(wctx)
	if err != nil {
		return err
	}
	embedded, err := vs.VectorCount(wctx)
	if err != nil {
		return err
	}
	todo := total - embedded
	progress := func() {
		c.event(core.Event{Kind: core.EventProgress, Phase: core.PhaseEmbed, Source: "embedding",
			FilesDone: es.Embedded + es.Empty, FilesTotal: todo, Chunks: es.Embedded})
	}
	progress()
	var added []int64 // pks of the vectors written
	if todo == 0 {
		return vs.UpdateVectorIndex(wctx, added)
	}
	if emb == nil {
		return fmt.Errorf("embed %d chunks: no model loaded", todo)
	}
	after, err := vs.PendingAfter(wctx)
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			es.Err = err
			if rerr := vs.UpdateVectorIndex(wctx, added); rerr != nil {
				return rerr
			}
			return err
		}
		pend, err := vs.PendingVectors(wctx, after, batch)
		if err != nil {
			return err
		}
		if len(pend) == 0 {
			return vs.UpdateVectorIndex(wctx, added)
		}
		texts := make([]string, len(pend))
		for i, p := range pend {
			texts[i] = embed.DocumentText(p)
		}
		vecs, err := emb.Embed(ctx, embed.Document, texts)
		if err != nil {
			es.Err = err
			// The chunks stay BM25-only until the next crawl; those
			// embedded so far join the fast KNN path now.
			return vs.UpdateVectorIndex(wctx, added)
		}
		var out []embed.Vector
		for i, v := range vecs {
			if v == nil {
				es.Empty++
				continue
			}
			out = append(out, embed.Vector{PK: pend[i].PK, Vec: v})
		}
		if err := vs.WriteVectors(wctx, out); err != nil {
			return err
		}
		es.Embedded += len(out)
		for _, v := range out {
			added = append(added, v.PK)
		}
		after = pend[len(pend)-1].PK
		progress()
	}
}

// builtinModel loads the stored built-in model, or learns a new one when
// there is none, the index changed size by more than Retrain, or Reembed.
// A new model replaces the old one and drops every vector in one
// transaction. It returns nil when the stored model stays and every chunk
// has its vector: there is nothing to embed, so nothing to load.
func (c *Crawler) builtinModel(ctx context.Context, vs VectorStore, es *EmbedSummary) (*embed.Model, error) {
	o := c.opts.Embed
	if o.MaxTrainChunks <= 0 {
		o.MaxTrainChunks = 20000
	}
	if o.Retrain <= 0 {
		o.Retrain = 0.5
	}
	wctx := context.WithoutCancel(ctx)
	tokens, trained, err := vs.BuiltinModelInfo(wctx)
	if err != nil {
		return nil, err
	}
	total, err := vs.ChunkTotal(wctx)
	if err != nil {
		return nil, err
	}
	drift := float64(total-trained) / float64(max(trained, 1))
	if tokens > 0 && !o.Reembed && drift <= o.Retrain && drift >= -o.Retrain {
		if n, err := vs.VectorCount(wctx); err != nil || n == total {
			return nil, err
		}
		return vs.LoadModel(wctx, nil)
	}
	if total == 0 {
		return embed.NewModel(o.Info().Dim, nil, nil, nil)
	}
	start := time.Now()
	texts, err := vs.SampleTexts(wctx, o.MaxTrainChunks)
	if err != nil {
		return nil, err
	}
	m, st, err := embed.Train(ctx, texts, o.Train)
	if errors.Is(err, embed.ErrTooLittleText) {
		// Nothing to learn from yet: no vectors, and the next crawl
		// tries again.
		es.Untrained = err.Error()
		return embed.NewModel(o.Info().Dim, nil, nil, nil)
	}
	if err != nil {
		return nil, err
	}
	if err := vs.SaveModel(wctx, m, total); err != nil {
		return nil, err
	}
	es.Trained, es.Sample, es.Vocab, es.TrainDuration = true, st.Chunks, st.Vocab, time.Since(start)
	return m, nil
}
