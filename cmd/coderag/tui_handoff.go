//go:build notui

package main

import (
	"context"

	"coderag/core"
	"coderag/core/ingest"

	"github.com/spf13/cobra"
)

// crawlInTUI is nil in a build without the terminal UI: crawlRun hands a
// crawl --tui to coderag-tui before it starts.
var crawlInTUI func(ctx context.Context, io *ioStreams, o *crawlOptions, db index, opts ingest.Options, sources []core.Source, unlock func()) error

// newTUICmd is `coderag tui` of a build without the terminal UI: every
// invocation, --help included, is handed to coderag-tui as it was typed,
// and so is shell completion of its flags.
func newTUICmd(io *ioStreams, db *string) *cobra.Command {
	return &cobra.Command{
		Use:                "tui [QUERY...]",
		Short:              "Search and browse the service graph in a terminal UI",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return handOffTUI()
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return completeTUI(args, toComplete)
		},
	}
}
