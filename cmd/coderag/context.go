package main

import (
	"fmt"
	goio "io"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/pack"
)

type contextOptions struct {
	db                      *string
	budget, k               int
	follow                  float64
	format                  string
	json, noServices        bool
	include, symbol, prefer []string
	diff, gitRange, gitRepo string
	embed                   embedFlags
	rerank                  rerankFlags
}

const contextLong = `Context packs the best evidence for a question into a token budget, for a
language model: the search's best chunks (as 'coderag query' finds them),
merged per file in file order under one header, with the services they
belong to.

Each file is a <codeRag:chunk> (seed 004) with <codeRag:metadata> (repo,
file, lines, symbols, type, language, service), <codeRag:commentary> (each
piece's scope and signature, from the index; no model is asked) and
<codeRag:content>. A chunk that does not fit whole keeps its doc comment's
first line, its signature, the lines holding a question word with one line
around them and its last line; ". . ." stands for the rest. A chunk that
does not fit even so is listed under <codeRag:dropped>. The budget bounds
the whole output, measured with the index's token estimate (a token per
four bytes, runs of blanks as one).

The candidates are reranked by personalized PageRank over references
(--follow, default 0.3): the walk restarts at a hit in proportion to its
score (one of the best ten) and moves to the chunks defining the names it
calls or refers to, or to the handler of another service's route it
calls, so
a function several hits call rises above a hit that only matches words, and
joins the pack though the search did not find it. --follow 0 keeps the
search's order.

The <codeRag:services> block lists, for the services the question names
(by name, or by an alias only that service has: its folder, image or
subchart) and those of the evidence, who depends on each, what it depends
on (known services first, at most four targets nothing declares named)
and the routes it serves; when the question asks what breaks (down,
outage, impact, fail, ...), the named service's blast radius too.

Boost directives, in the text or as flags, come first, subject to the
budget:
  include:README.md     a whole file (its path, or the end of its path)
  symbol:CartStore      a whole declaration (with its members)
  prefer:src/auth/**    hits under this path glob rank first
(path: keeps its meaning of a filter, as in 'coderag query'.)

PR context: --diff FILE (or - for standard input; git diff, git
format-patch) or --git RANGE (git diff RANGE in --git-repo, a crawled
repository; HEAD~3..HEAD, or HEAD for the working tree) packs the context
of a change instead of a question: the chunks it changes, the callers of
the routes those chunks serve (in other services, with their evidence
lines), then the best hits of the queries the change is decomposed into
(its title or commit subjects, weight 1.0; per directory, the title within
that directory, 0.8; per hunk, the identifiers of its changed lines, 1.2),
run concurrently, fused and reranked by seed 003's path priorities
(service, handler, api, auth code x1.3; tests, mocks, fixtures x0.8); the
services block gives the services whose
code changed, their blast radius and the callers of the changed routes. A
QUESTION given with it is the change's intent.

--format json prints
  {"query","budget","used_tokens","chunks":[{"chunk_id","repo_name","file_path",
   "line_start","line_end","symbol_name","service_name","corpus_type","score",
   "forced","elided","text","why"}],"services":[{"name","upstream","downstream",
   "routes","blast_radius"}],"dropped":[{"chunk_id","location","reason"}],
   "dropped_count"}
score is what the pack ordered by: the search's score, or with --follow
the PageRank share.`

func newContextCmd(io *ioStreams, db *string) *cobra.Command {
	o := &contextOptions{db: db}
	cmd := &cobra.Command{
		Use:   "context [flags] QUESTION...",
		Short: "Pack the best evidence for a question into a token budget, for a language model",
		Long:  contextLong,
		Example: `  coderag context "why does checkout return 503 when redis is down?"
  coderag context --budget 2000 --format markdown "how are carts stored"
  coderag context "include:docs/architecture.md symbol:CartStore what breaks if redis is down"
  coderag context - < traceback.txt    (the question from standard input: a pasted stack trace)`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(strings.Join(args, " ")) == "" && o.diff == "" && o.gitRange == "" {
				return usagef("context needs a QUESTION, --diff FILE or --git RANGE")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := argText(cmd, args)
			if err != nil {
				return err
			}
			return contextRun(cmd, io, o, text)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.budget, "budget", pack.DefaultBudget, "most tokens the pack may take")
	f.StringVar(&o.format, "format", "xml", "xml (seed 004's <codeRag:chunk> markup), markdown or json")
	f.BoolVar(&o.json, "json", false, "same as --format json")
	f.IntVarP(&o.k, "candidates", "k", 40, "search hits considered")
	f.StringArrayVar(&o.include, "include", nil, "a file to include whole, as include: (repeatable)")
	f.StringArrayVar(&o.symbol, "symbol", nil, "a declaration to include whole, as symbol: (repeatable)")
	f.StringArrayVar(&o.prefer, "prefer", nil, "a path glob whose hits rank first, as prefer: (repeatable)")
	f.BoolVar(&o.noServices, "no-services", false, "leave the services block out")
	f.StringVar(&o.diff, "diff", "", "pack the context of a change: a unified diff FILE, or - for standard input (git diff, git format-patch)")
	f.StringVar(&o.gitRange, "git", "", "pack the context of the commits in a git RANGE (HEAD~1..HEAD; HEAD for the working tree's changes) of --git-repo")
	f.StringVar(&o.gitRepo, "git-repo", ".", "the crawled repository --git reads")
	f.Float64Var(&o.follow, "follow", pack.DefaultFollow, "how much references count (0: the search's order; 1: references alone)")
	o.embed.register(f, true)
	o.rerank.register(f)
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"xml", "markdown", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// change reads the change --diff or --git names.
func (o *contextOptions) change() (pack.Change, error) {
	if o.diff != "" && o.gitRange != "" {
		return pack.Change{}, usagef("--diff and --git: give one")
	}
	if o.diff != "" {
		var r goio.Reader = os.Stdin
		if o.diff != "-" {
			f, err := os.Open(o.diff)
			if err != nil {
				return pack.Change{}, fmt.Errorf("read the diff: %w", err)
			}
			defer f.Close()
			r = f
		}
		ch, err := pack.ParseDiff(r)
		if err != nil {
			return ch, fmt.Errorf("%s: %w", o.diff, err)
		}
		return ch, nil
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", o.gitRepo}, args...)...)
		var errb strings.Builder
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s in %s: %v: %s", strings.Join(args, " "), o.gitRepo, err, strings.TrimSpace(errb.String()))
		}
		return string(out), nil
	}
	d, err := git("diff", "--no-color", "--no-ext-diff", o.gitRange)
	if err != nil {
		return pack.Change{}, err
	}
	ch, err := pack.ParseDiff(strings.NewReader(d))
	if err != nil {
		return ch, fmt.Errorf("git diff %s: %w", o.gitRange, err)
	}
	if strings.Contains(o.gitRange, "..") {
		if log, err := git("log", "--format=%s", o.gitRange); err == nil {
			ch.Title = strings.TrimSpace(strings.Join(strings.Fields(strings.ReplaceAll(log, "\n", "; ")), " "))
		}
	}
	return ch, nil
}

// directives takes include:, symbol: and prefer: out of a question.
func directives(text string) (rest string, include, symbol, prefer []string) {
	var words []string
	for _, w := range strings.Fields(text) {
		switch {
		case strings.HasPrefix(w, "include:") && len(w) > len("include:"):
			include = append(include, strings.TrimPrefix(w, "include:"))
		case strings.HasPrefix(w, "symbol:") && len(w) > len("symbol:"):
			symbol = append(symbol, strings.TrimPrefix(w, "symbol:"))
		case strings.HasPrefix(w, "prefer:") && len(w) > len("prefer:"):
			prefer = append(prefer, strings.TrimPrefix(w, "prefer:"))
		default:
			words = append(words, w)
		}
	}
	return strings.Join(words, " "), include, symbol, prefer
}

func contextRun(cmd *cobra.Command, io *ioStreams, o *contextOptions, text string) error {
	if o.json {
		o.format = "json"
	}
	switch o.format {
	case "xml", "markdown", "json":
	default:
		return usagef("--format must be xml, markdown or json, got %q", o.format)
	}
	if err := positiveInt("budget", o.budget); err != nil {
		return err
	}
	if err := positiveInt("candidates", o.k); err != nil {
		return err
	}
	if o.follow < 0 || o.follow > 1 {
		return usagef("--follow must be between 0 and 1, got %g", o.follow)
	}
	ctx := cmd.Context()
	env, err := openSearch(ctx, *o.db, &o.embed, &o.rerank)
	if err != nil {
		return err
	}
	defer env.db.Close()
	db, eng, warn := env.db, env.eng, env.warn
	g, err := db.Graph(ctx)
	if err != nil {
		return err
	}
	question, include, symbol, prefer := directives(text)
	opts := pack.Options{Budget: o.budget, Format: o.format, Candidates: o.k,
		Include: append(include, o.include...), Symbols: append(symbol, o.symbol...), Prefer: append(prefer, o.prefer...),
		NoServices: o.noServices, Follow: o.follow}
	var p pack.Pack
	if o.diff != "" || o.gitRange != "" {
		ch, err := o.change()
		if err != nil {
			return err
		}
		if question != "" {
			ch.Title = question // the question, if any, is the change's intent
		}
		p, err = pack.BuildPR(ctx, eng, db, g, ch, opts)
		if err != nil {
			return err
		}
	} else if p, err = pack.Build(ctx, eng, db, g, question, opts); err != nil {
		return err
	}
	if warn != "" {
		p.Warnings = append([]string{warn}, p.Warnings...)
	}
	out := p.Render()
	if o.format != "json" {
		out = core.Printable(out) // the pack's text, shown on a terminal, never drives it
	}
	fmt.Fprint(io.out, out)
	if o.format != "json" {
		for _, w := range p.Warnings {
			fmt.Fprintln(io.err, "warning: "+w)
		}
		fmt.Fprintf(io.err, "%d of %d tokens, %d files, %d dropped\n", p.Used, p.Budget, len(p.Files), len(p.Dropped))
	}
	return nil
}
