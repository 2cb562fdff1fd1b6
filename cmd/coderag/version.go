package main

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"coderag/sqlite"
)

func newVersionCmd(io *ioStreams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of coderag and of the SQLite it embeds",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := sqlite.Versions()
			if asJSON {
				return json.NewEncoder(io.out).Encode(map[string]any{
					"coderag": buildVersion(), "schema": sqlite.SchemaVersion(), "sqlite": v.SQLite,
					"sqlite_vec": v.Vec, "go": runtime.Version(),
				})
			}
			fmt.Fprintf(io.out, "coderag %s (schema %d, SQLite %s, sqlite-vec %s, %s)\n",
				buildVersion(), sqlite.SchemaVersion(), v.SQLite, v.Vec, runtime.Version())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
