package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
)

type manifestOptions struct {
	db    *string
	json  bool
	write string
}

// manifest is seed 001's data/manifest.json, with every source (not only
// repositories) and its kind, path and per-type counts.
type manifest struct {
	IndexedAt    string                    `json:"indexed_at"`
	ChunkCount   int                       `json:"chunk_count"`
	Repos        map[string]manifestSource `json:"repos"`
	CorpusCounts map[string]int            `json:"corpus_counts"`
	ServiceCount int                       `json:"service_count"`
	EdgeCount    int                       `json:"edge_count"`
	Embedder     string                    `json:"embedder,omitempty"`
	Vectors      int                       `json:"vectors"`
}

type manifestSource struct {
	Kind         string         `json:"kind"`
	Path         string         `json:"path"`
	LastGitHash  string         `json:"last_git_hash,omitempty"`
	ContentHash  string         `json:"content_hash,omitempty"` // exports
	NewestMTime  string         `json:"newest_mtime,omitempty"` // directories, RFC 3339
	LastIngest   string         `json:"last_ingest"`
	Files        int            `json:"file_count"`
	ChunkCount   int            `json:"chunk_count"`
	CorpusCounts map[string]int `json:"corpus_counts"`
}

func newManifestCmd(io *ioStreams, db *string) *cobra.Command {
	o := &manifestOptions{db: db}
	cmd := &cobra.Command{
		Use:   "manifest [--json] [--write FILE]",
		Short: "Show what each source was last indexed at",
		Long: `Manifest lists every crawled source: its kind and path, the git commit a
repository was last crawled at, what its content was (an export's content
hash, a directory's newest file modification time), when, and its files
and chunks per corpus type; then the totals and the service graph's size. --json prints it in the
shape of data/manifest.json (indexed_at, chunk_count, repos, corpus_counts,
service_count, edge_count); --write FILE writes that file for tools that
want it.`,
		Example: "  coderag manifest\n  coderag manifest --write data/manifest.json",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			d, err := openIndex(ctx, *o.db, false)
			if err != nil {
				return err
			}
			defer d.Close()
			st, err := d.Stats(ctx)
			if err != nil {
				return err
			}
			m := manifest{ChunkCount: st.Chunks, Repos: map[string]manifestSource{}, CorpusCounts: map[string]int{},
				ServiceCount: st.Services, EdgeCount: st.Edges, Embedder: st.Embedder.ID, Vectors: st.Vectors}
			var newest time.Time
			for _, s := range st.Sources {
				ms := manifestSource{Kind: string(s.Kind), Path: s.Path, LastGitHash: s.Commit, ContentHash: s.ContentHash,
					Files: s.Files, ChunkCount: s.Chunks, CorpusCounts: map[string]int{}}
				if !s.NewestMTime.IsZero() {
					ms.NewestMTime = s.NewestMTime.UTC().Format(time.RFC3339)
				}
				if !s.LastIngest.IsZero() {
					ms.LastIngest = s.LastIngest.UTC().Format(time.RFC3339)
					if s.LastIngest.After(newest) {
						newest = s.LastIngest
					}
				}
				for c, n := range s.ByCorpus {
					ms.CorpusCounts[string(c)] = n
				}
				m.Repos[s.Name] = ms
			}
			for c, n := range st.ByCorpus {
				m.CorpusCounts[string(c)] = n
			}
			if !newest.IsZero() {
				m.IndexedAt = newest.UTC().Format(time.RFC3339)
			}
			if o.write != "" {
				b, _ := json.MarshalIndent(m, "", "  ")
				if err := os.MkdirAll(filepath.Dir(o.write), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(o.write, append(b, '\n'), 0o644); err != nil {
					return fmt.Errorf("write manifest: %w", err)
				}
			}
			if o.json {
				enc := json.NewEncoder(io.out)
				enc.SetIndent("", "  ")
				return enc.Encode(m)
			}
			if o.write != "" {
				fmt.Fprintf(io.out, "wrote %s\n", o.write)
				return nil
			}
			nw, kw := 14, 14
			for _, s := range st.Sources {
				nw, kw = max(nw, len(s.Name)), max(kw, len(s.Kind))
			}
			fmt.Fprintf(io.out, "%-*s %-*s %-10s %-19s %-19s %6s %7s  %s\n", nw, "SOURCE", kw, "KIND", "COMMIT", "CONTENT", "INDEXED", "FILES", "CHUNKS", "PATH")
			for _, s := range st.Sources {
				commit := s.Commit
				if len(commit) > 10 {
					commit = commit[:10]
				}
				if commit == "" {
					commit = "-"
				}
				// What the content was: an export's hash, a directory's
				// newest file time.
				content := "-"
				switch {
				case s.ContentHash != "":
					content = "sha256:" + s.ContentHash[:min(len(s.ContentHash), 12)]
				case !s.NewestMTime.IsZero():
					content = s.NewestMTime.UTC().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(io.out, "%-*s %-*s %-10s %-19s %-19s %6d %7d  %s\n", nw, s.Name, kw, s.Kind, commit, content,
					s.LastIngest.UTC().Format("2006-01-02 15:04:05"), s.Files, s.Chunks, s.Path)
			}
			fmt.Fprintf(io.out, "%s, %s; %s, %s; %s\n", plural(st.Chunks, "chunk", "chunks"),
				plural(len(st.Sources), "source", "sources"), plural(st.Services, "service", "services"),
				plural(st.Edges, "edge", "edges"), m.IndexedAt)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the manifest as JSON")
	cmd.Flags().StringVar(&o.write, "write", "", "also write the JSON manifest to this file")
	return cmd
}
