package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/graph"
	"coderag/core/ingest"
)

type statsOptions struct {
	db      *string
	json    bool
	skipped bool
}

func newStatsCmd(io *ioStreams, db *string) *cobra.Command {
	o := &statsOptions{db: db}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show what the index holds",
		Long: `Stats prints the number of chunks per corpus type, language and repository,
the sources and when they were crawled, the size of the database file and
the last crawl run. --skipped lists every path the last crawls did not index
and why.`,
		Example: `  coderag stats
  coderag stats --json | jq .chunks
  coderag stats --skipped`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return statsRun(cmd, io, o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the statistics as JSON")
	cmd.Flags().BoolVar(&o.skipped, "skipped", false, "list skipped paths and their reasons")
	return cmd
}

func statsRun(cmd *cobra.Command, io *ioStreams, o *statsOptions) error {
	ctx := cmd.Context()
	db, err := openIndex(ctx, *o.db, false)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := db.Stats(ctx)
	if err != nil {
		return err
	}
	var skips []core.Event
	if o.skipped {
		if skips, err = db.Skips(ctx); err != nil {
			return err
		}
	}
	linkKey, err := db.Meta(ctx, "link_key")
	if err != nil {
		return err
	}
	outdated := ingest.GraphOutdated(linkKey)
	if o.json {
		return printStatsJSON(io, st, skips, o.skipped, outdated)
	}
	s := styles(io.color)
	w := io.out
	size := humanSize(st.FileBytes)
	if st.FreeBytes*10 >= st.FileBytes && st.FreeBytes > 0 {
		// A full re-crawl or a compaction frees pages; SQLite keeps them
		// in the file for the next writes instead of shrinking it.
		size += fmt.Sprintf(" (%s of it free, reused by later crawls)", humanSize(st.FreeBytes))
	}
	fmt.Fprintf(w, "%s  %s, schema %d\n", s.bold(st.Path), size, st.SchemaVersion)
	emb := "none (BM25 only)"
	if st.Embedder.ID != "" {
		emb = fmt.Sprintf("%s, dimension %d, %s vectors", embed.Label(st.Embedder.ID), st.Embedder.Dim, thousands(st.Vectors))
	}
	fmt.Fprintf(w, "chunks %s   files %s   sources %d   embedder %s\n", thousands(st.Chunks), thousands(st.Files), len(st.Sources), emb)
	if st.TextIndex != "" {
		fmt.Fprintf(w, "text search: %s\n", st.TextIndex)
	}
	if st.Embedder.ID != "" && st.VectorIndex != "" {
		fmt.Fprintf(w, "vector search: %s\n", st.VectorIndex)
	}
	if st.Embedder.ID == embed.CorpusID {
		// The default before the shipped model: an index keeps it until
		// asked to move (docs/eval.md, "The shipped model as the default").
		fmt.Fprintln(w, s.dim("the default embedder is now the shipped model (builtin); 'coderag crawl --embedder builtin --reembed' moves this index to it"))
	}
	if len(st.ByCorpus) > 0 {
		fmt.Fprintln(w, s.bold("\nby corpus type"))
		for _, c := range core.CorpusTypes() {
			if n := st.ByCorpus[c]; n > 0 {
				fmt.Fprintf(w, "  %-18s %8s\n", c, thousands(n))
			}
		}
		printCounts(w, s, "by language", st.ByLanguage)
		printCounts(w, s, "by repository", st.ByRepo)
		calls := map[string]int{}
		for k, n := range st.Calls {
			calls[string(k)] = n
		}
		fmt.Fprintf(w, "%s\n  routes %s   references %s\n", s.bold("\ncode analysis"), thousands(st.Routes), thousands(st.Refs))
		fmt.Fprintf(w, "%s\n  %s; see coderag graph\n", s.bold("\nservice graph"), graph.Counts{Nodes: st.Services, Dependencies: st.Edges,
			EntryPoints: st.EntryPoints, TopicLinks: st.TopicLinks, Unresolved: st.Unresolved})
		if outdated {
			fmt.Fprintln(w, "  made by an older coderag: the next crawl (--incremental too) makes it again")
		}
		if len(calls) > 0 {
			printCounts(w, s, "outbound calls by kind", calls)
		}
		sc := st.Scrub
		fmt.Fprintf(w, "%s\n  %s and %s replaced in %s\n", s.bold("\nscrub gate"), plural(sc.Secrets, "secret", "secrets"),
			plural(sc.PersonalData, "personal data value", "personal data values"), plural(sc.Chunks, "chunk", "chunks"))
		if len(sc.Types) > 0 {
			printCounts(w, s, "chunks by placeholder type", sc.Types)
		}
	}
	if len(st.Sources) > 0 {
		fmt.Fprintln(w, s.bold("\nsources"))
		// The name and kind columns are as wide as their widest cell:
		// source names are folder names, often long. The path is last.
		nw, kw := len("name"), len("kind")
		for _, src := range st.Sources {
			nw, kw = max(nw, len(src.Name)), max(kw, len(src.Kind))
		}
		fmt.Fprintf(w, "  %-*s  %-*s  %7s  %8s  %7s  %s\n", nw, "name", kw, "kind", "files", "chunks", "skipped", "crawled")
		var older []string
		for _, src := range st.Sources {
			fmt.Fprintf(w, "  %-*s  %-*s  %7s  %8s  %7s  %s  %s\n", nw, src.Name, kw, src.Kind,
				thousands(src.Files), thousands(src.Chunks), thousands(src.Skipped), ago(src.LastIngest), s.dim(src.Path))
			if src.ChunkingVersion > 0 && src.ChunkingVersion < core.ChunkingVersion {
				older = append(older, src.Name)
			}
		}
		switch {
		case len(older) == 1:
			fmt.Fprintf(w, "  %s was chunked by an older coderag: the next crawl (--incremental too) indexes it again\n", older[0])
		case len(older) == len(st.Sources):
			fmt.Fprintf(w, "  all %d sources were chunked by an older coderag: the next crawl (--incremental too) indexes them again\n", len(older))
		case len(older) > 1:
			fmt.Fprintf(w, "  %s were chunked by an older coderag: the next crawl (--incremental too) indexes them again\n", strings.Join(older, ", "))
		}
	}
	if r := st.LastRun; r != nil {
		fmt.Fprintf(w, "\nlast crawl #%d %s %s: %s, %s, %s skipped, %d errors\n", r.ID, r.Status, ago(r.Started),
			plural(r.Files, "file", "files"), plural(r.Chunks, "chunk", "chunks"), thousands(r.Skipped), r.Errors)
		if r.Error != "" {
			fmt.Fprintf(w, "  %s\n", r.Error)
		}
	} else {
		fmt.Fprintln(w, "\nnothing crawled yet: run coderag crawl --repo-path DIR")
	}
	if o.skipped {
		fmt.Fprintln(w, s.bold("\nskipped"))
		for _, e := range skips {
			fmt.Fprintf(w, "  %s/%s: %s\n", e.Source, e.Path, e.Reason)
		}
	}
	return nil
}

func printCounts(w interface{ Write([]byte) (int, error) }, s textStyles, title string, m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	fmt.Fprintln(w, s.bold("\n"+title))
	width := 18
	for _, k := range keys {
		width = max(width, len(k))
	}
	for _, k := range keys {
		name := k
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(w, "  %-*s %8s\n", width, name, thousands(m[k]))
	}
}

func printStatsJSON(io *ioStreams, st core.Stats, skips []core.Event, withSkips, graphOutdated bool) error {
	type source struct {
		Name       string `json:"name"`
		Kind       string `json:"kind"`
		Path       string `json:"path"`
		Files      int    `json:"files"`
		Chunks     int    `json:"chunks"`
		Skipped    int    `json:"skipped"`
		LastIngest string `json:"last_ingest"`
		// The oldest chunking version of its files; less than
		// chunking_version (the top level) means the next crawl indexes it
		// again.
		ChunkingVersion int `json:"chunking_version"`
	}
	type run struct {
		ID       int64  `json:"id"`
		Started  string `json:"started"`
		Finished string `json:"finished,omitempty"`
		Status   string `json:"status"`
		Files    int    `json:"files"`
		Chunks   int    `json:"chunks"`
		Skipped  int    `json:"skipped"`
		Errors   int    `json:"errors"`
		Error    string `json:"error,omitempty"`
	}
	out := struct {
		DB            string         `json:"db"`
		FileBytes     int64          `json:"file_bytes"`
		FreeBytes     int64          `json:"free_bytes"`
		SchemaVersion int            `json:"schema_version"`
		Chunks        int            `json:"chunks"`
		Files         int            `json:"files"`
		Vectors       int            `json:"vectors"`
		EmbedderID    string         `json:"embedder_id"`
		EmbedderDim   int            `json:"embedder_dim"`
		VectorIndex   string         `json:"vector_index,omitempty"`
		TextIndex     string         `json:"text_index,omitempty"`
		ByCorpus      map[string]int `json:"by_corpus"`
		ByLanguage    map[string]int `json:"by_language"`
		ByRepo        map[string]int `json:"by_repo"`
		Routes        int            `json:"routes"`
		Calls         map[string]int `json:"calls"`
		Refs          int            `json:"refs"`
		Services      int            `json:"services"`
		Edges         int            `json:"edges"`
		EntryPoints   int            `json:"entry_points"`
		TopicLinks    int            `json:"topic_links"`
		Unresolved    int            `json:"unresolved_edges"`
		GraphOutdated bool           `json:"graph_outdated"` // an older coderag made it; the next crawl makes it again
		Scrub         scrubJSON      `json:"scrub"`
		Sources       []source       `json:"sources"`
		Chunking      int            `json:"chunking_version"` // what this coderag chunks by
		LastRun       *run           `json:"last_run"`
		Skipped       []jsonSkip     `json:"skipped,omitempty"`
	}{DB: st.Path, FileBytes: st.FileBytes, FreeBytes: st.FreeBytes, SchemaVersion: st.SchemaVersion, Chunks: st.Chunks, Files: st.Files,
		Vectors: st.Vectors, EmbedderID: st.Embedder.ID, EmbedderDim: st.Embedder.Dim, VectorIndex: st.VectorIndex, TextIndex: st.TextIndex, ByCorpus: map[string]int{},
		ByLanguage: st.ByLanguage, ByRepo: st.ByRepo, Routes: st.Routes, Calls: map[string]int{}, Refs: st.Refs, Sources: []source{}, Chunking: core.ChunkingVersion,
		Services: st.Services, Edges: st.Edges, EntryPoints: st.EntryPoints, TopicLinks: st.TopicLinks, Unresolved: st.Unresolved,
		GraphOutdated: graphOutdated,
		Scrub:         scrubJSON{st.Scrub.Chunks, st.Scrub.Secrets, st.Scrub.PersonalData, st.Scrub.Types}}
	for k, n := range st.Calls {
		out.Calls[string(k)] = n
	}
	for c, n := range st.ByCorpus {
		out.ByCorpus[string(c)] = n
	}
	for _, s := range st.Sources {
		out.Sources = append(out.Sources, source{s.Name, string(s.Kind), s.Path, s.Files, s.Chunks, s.Skipped, rfc3339(s.LastIngest), s.ChunkingVersion})
	}
	if r := st.LastRun; r != nil {
		out.LastRun = &run{r.ID, rfc3339(r.Started), rfc3339(r.Finished), r.Status, r.Files, r.Chunks, r.Skipped, r.Errors, r.Error}
	}
	if withSkips {
		out.Skipped = []jsonSkip{}
		for _, e := range skips {
			out.Skipped = append(out.Skipped, jsonSkip{e.Source + "/" + e.Path, e.Reason})
		}
	}
	enc := json.NewEncoder(io.out)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

type scrubJSON struct {
	Chunks       int            `json:"chunks"`
	Secrets      int            `json:"secrets"`
	PersonalData int            `json:"personal_data"`
	Types        map[string]int `json:"chunks_by_type"`
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func ago(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Local().Format("2006-01-02")
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
