package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"coderag/core"
)

const rootLong = `coderag indexes a company's services into one SQLite file (or a shared
PostgreSQL database) and searches all of it at once: source code (Go, C#,
Python, TypeScript, JavaScript, Java, Kotlin, PHP, Ruby, Rust), the
deploy and config files that wire services together, READMEs, runbooks
and ADRs, Slack exports, meeting transcripts and Google Docs exports. The index holds the
chunks, two full-text indexes (a code-aware one that splits
getUserProfile, get_user_profile and user-profile alike, and a stemmed one
for prose), the service graph built from the code and deploy files, and the
vectors.

Start with
  coderag crawl --repo-path ./platform --repo-path ./web --slack-export slack.zip
  coderag query "where do we call the payment provider"
  coderag graph --service cart --blast-radius
  coderag stats

For language models and agents
  coderag context "what breaks when redis is down"   (a context pack)
  coderag mcp                                        (MCP on stdio)
  coderag serve                                      (HTTP API and MCP)`

func newRootCmd(io *ioStreams) *cobra.Command {
	var dbPath string
	root := &cobra.Command{
		Use:           "coderag",
		Short:         "Search a company's code, deploy files and docs from one SQLite file",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.SetOut(io.out)
	root.SetErr(io.err)
	if io.in != nil {
		root.SetIn(io.in)
	}
	root.SetVersionTemplate("coderag {{.Version}}\n")
	root.PersistentFlags().StringVar(&dbPath, "db", "data/coderag.db", "the index: a SQLite file, or a shared PostgreSQL database (postgres://user@host/db)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{flagHint(c, err.Error())} })

	root.AddCommand(
		newCrawlCmd(io, &dbPath),
		newQueryCmd(io, &dbPath),
		newContextCmd(io, &dbPath),
		newMCPCmd(io, &dbPath),
		newServeCmd(io, &dbPath),
		newAskCmd(io, &dbPath),
		newStatsCmd(io, &dbPath),
		newGraphCmd(io, &dbPath),
		newEvalCmd(io, &dbPath),
		newTuneCmd(io),
		newModelCmd(io),
		newManifestCmd(io, &dbPath),
		newMigrateCmd(io),
		newTUICmd(io, &dbPath),
		newVersionCmd(io),
	)
	return root
}

// buildVersion is the version set at link time, else the module version.
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// usageArgs turns cobra's argument validation errors into usage errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &usageError{err.Error()}
		}
		return nil
	}
}

// positiveInt validates an integer flag.
func positiveInt(name string, v int) error {
	if v <= 0 {
		return usagef("--%s must be positive, got %d", name, v)
	}
	return nil
}

// plural formats a count with its noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%s %s", thousands(n), many)
}

// thousands formats n with thousands separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// flagHint adds to pflag's "unknown flag: --name" the command's flags
// nearest name (--transcripts: did you mean --transcripts-dir?).
func flagHint(c *cobra.Command, msg string) string {
	if _, arg, ok := strings.Cut(msg, " in -"); ok && strings.ContainsAny(arg, " \t") {
		// "-c must be at least 1": a pasted message read as flags.
		return msg + fmt.Sprintf(" (text that starts with - goes after --: %s -- %q)", c.CommandPath(), "-"+arg)
	}
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok || name == "" {
		return msg
	}
	var names []string
	seen := map[string]bool{}
	add := func(f *pflag.Flag) {
		if !seen[f.Name] {
			seen[f.Name] = true
			names = append(names, f.Name)
		}
	}
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	near := core.Closest(name, names, 3)
	if len(near) == 0 {
		return msg
	}
	for i, n := range near {
		near[i] = "--" + n
	}
	return msg + " (did you mean " + strings.Join(near, " or ") + "?)"
}
