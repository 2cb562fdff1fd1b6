package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
)

// storedCrawl crawls the sources a database holds again, with the
// embedder its vectors come from: incrementally (files whose content
// changed) or whole. args is recorded with the run.
func storedCrawl(dbPath string, incremental bool, args string) func(context.Context, func(core.Event)) (ingest.Summary, error) {
	return func(ctx context.Context, progress func(core.Event)) (ingest.Summary, error) {
		unlock, err := lockCrawl(ctx, dbPath, false)
		if err != nil {
			return ingest.Summary{}, err
		}
		defer unlock()
		db, err := openIndex(ctx, dbPath, false)
		if err != nil {
			return ingest.Summary{}, err
		}
		defer db.Close()
		sources, err := storedSources(ctx, db)
		if err != nil {
			return ingest.Summary{}, err
		}
		if len(sources) == 0 {
			return ingest.Summary{}, fmt.Errorf("%s holds no sources yet: crawl with 'coderag crawl --repo-path DIR' first", dbPath)
		}
		// The summary's embed line says which model embedded them.
		eo, err := storedEmbed(ctx, db, io.Discard)
		if err != nil {
			return ingest.Summary{}, err
		}
		return ingest.New(db, ingest.Options{Progress: progress, Incremental: incremental, Embed: eo, Args: args}).Run(ctx, sources)
	}
}

// storedSources are the sources a database was crawled from.
func storedSources(ctx context.Context, db index) ([]core.Source, error) {
	st, err := db.Stats(ctx)
	if err != nil {
		return nil, err
	}
	var out []core.Source
	for _, s := range st.Sources {
		out = append(out, core.Source{Kind: s.Kind, Path: s.Path, Name: s.Name})
	}
	return out, nil
}

// storedEmbed embeds with the embedder the database's vectors come from.
// An index of a shipped model this coderag no longer ships (an upgrade
// brought a retrained one) is embedded again with the one it ships,
// saying so to note: the index asked for "the shipped model", and
// embedding is seconds.
func storedEmbed(ctx context.Context, db index, note io.Writer) (ingest.EmbedOptions, error) {
	info := db.Embedder()
	if info.ID == "" {
		return ingest.EmbedOptions{}, nil
	}
	if info.ID == embed.CorpusID {
		return ingest.EmbedOptions{Builtin: true}, nil
	}
	if embed.IsStatic(info.ID) {
		m, err := embed.Shipped()
		if err != nil {
			return ingest.EmbedOptions{}, err
		}
		if m.ID() != info.ID {
			fmt.Fprintf(note, "the index holds vectors of %s and this coderag ships %s: embedding every chunk again with it\n", info.ID, m.ID())
			return ingest.EmbedOptions{Embedder: embed.StaticEmbedder{M: m}, Reembed: true}, nil
		}
		return ingest.EmbedOptions{Embedder: embed.StaticEmbedder{M: m}}, nil
	}
	provider, model, _ := strings.Cut(info.ID, ":")
	url, err := db.EmbedderURL(ctx)
	if err != nil {
		return ingest.EmbedOptions{}, err
	}
	h, err := embed.NewHTTP(ctx, embed.HTTPOptions{Provider: provider, URL: url, Model: model, Dim: info.Dim,
		APIKey: os.Getenv("CODERAG_EMBED_API_KEY")})
	if err != nil {
		return ingest.EmbedOptions{}, err
	}
	return ingest.EmbedOptions{Embedder: h, URL: h.Endpoint()}, nil
}
