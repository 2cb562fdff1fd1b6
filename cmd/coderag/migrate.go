package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"coderag/core/ingest"
)

type migrateOptions struct {
	from, to string
	json     bool
}

func newMigrateCmd(io *ioStreams) *cobra.Command {
	o := &migrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate --from FILE|postgres://... --to postgres://...|FILE",
		Short: "Copy an index into another store (a SQLite file into PostgreSQL, or back)",
		Long: `Migrate copies every source of an index into another one — files, chunks with
the calls, routes, resources and references found in them, vectors, the
corpus-learned embedder's model and the embedder's name — without reading
any source file again. Each source is copied in one transaction. The
service graph, chunk owners and mentions are then built in the target from
the copied facts. Sources of the target with other names are kept.

Either side is a SQLite file or a PostgreSQL database (created with CREATE
DATABASE beforehand; coderag creates its tables). Copying out of
PostgreSQL reads each source in one read-only snapshot, so crawlers may
keep writing meanwhile; a laptop copy of the shared index is a migrate
away.`,
		Example: `  coderag migrate --from data/coderag.db --to postgres://coderag@db.internal/coderag
  coderag migrate --from postgres://reader@db.internal/coderag --to ~/coderag-shared.db
  coderag migrate --from data/coderag.db --to /tmp/copy.db --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if o.from == "" || o.to == "" {
				return usagef("migrate needs --from and --to")
			}
			if sameIndex(o.from, o.to) {
				return usagef("migrate --from and --to name the same index (%s): it cannot be copied into itself", o.from)
			}
			from, err := openIndex(ctx, o.from, false)
			if err != nil {
				return err
			}
			defer from.Close()
			exp, ok := from.(ingest.Exporter)
			if !ok {
				return usagef("migrate --from %s: this store cannot be read back", o.from)
			}
			unlock, err := lockCrawl(ctx, o.to, false)
			if err != nil {
				return err
			}
			defer unlock()
			to, err := openIndex(ctx, o.to, true)
			if err != nil {
				return err
			}
			defer to.Close()
			sum, err := ingest.Copy(ctx, exp, to, func(source string, files, chunks int) {
				if !o.json {
					fmt.Fprintf(io.err, "copied %-14s %d files, %d chunks\n", source, files, chunks)
				}
			})
			if err != nil {
				return fmt.Errorf("migrate %s to %s: %w", o.from, to.Path(), err)
			}
			if o.json {
				return json.NewEncoder(io.out).Encode(map[string]any{"from": o.from, "to": to.Path(), "sources": sum.Sources,
					"files": sum.Files, "chunks": sum.Chunks, "vectors": sum.Vectors, "embedder": sum.Embedder.ID,
					"seconds": sum.Duration.Seconds()})
			}
			fmt.Fprintf(io.out, "copied %d sources, %d files, %d chunks and %d vectors (%s) from %s to %s in %s\n",
				sum.Sources, sum.Files, sum.Chunks, sum.Vectors, orNone(sum.Embedder.ID), o.from, to.Path(), sum.Duration.Round(1e6))
			return nil
		},
	}
	cmd.Flags().StringVar(&o.from, "from", "", "the index to copy (a SQLite file or postgres://...)")
	cmd.Flags().StringVar(&o.to, "to", "", "the index to copy into (postgres://... or a SQLite file)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print the summary as JSON")
	return cmd
}

// sameIndex reports whether two --db values name the same index: the same
// PostgreSQL URL, or paths of the same file.
func sameIndex(a, b string) bool {
	if a == b {
		return true
	}
	if !isFilePath(a) || !isFilePath(b) {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

func orNone(s string) string {
	if s == "" {
		return "no embedder"
	}
	return s
}
