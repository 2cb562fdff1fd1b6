package main

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"coderag/core"
)

// Shell completion of flag values: cobra's completion command (coderag
// completion bash|zsh|fish|powershell) asks these for --service, --repo,
// --type and --format. Names come from the index --db points at, opened
// read-only; a missing index completes nothing.

// indexValues completes a filter field ("service" or "repo") from the
// index, and for services also the service graph's nodes.
func indexValues(db *string, field string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if _, err := os.Stat(*db); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx := context.Background()
		d, err := openIndex(ctx, *db, false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer d.Close()
		vals, _ := d.FilterValues(ctx, field)
		if field == "service" {
			if g, err := d.Graph(ctx); err == nil && g != nil {
				for _, s := range g.Services {
					if !strings.HasPrefix(s.Name, "?") {
						vals = append(vals, s.Name)
					}
				}
			}
		}
		return prefixed(vals, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// fixedValues completes from a list.
func fixedValues(vals ...string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return prefixed(vals, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// corpusValues completes --type with the corpus types' short names.
func corpusValues() cobra.CompletionFunc {
	var names []string
	for _, c := range core.CorpusTypes() {
		names = append(names, c.Short())
	}
	return fixedValues(append(names, "doc", "convo")...)
}

// prefixed keeps the distinct values that start with prefix, in order.
func prefixed(vals []string, prefix string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vals {
		if strings.HasPrefix(v, prefix) && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
