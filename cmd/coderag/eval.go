package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"coderag/core/eval"
	"coderag/core/search"
)

type evalOptions struct {
	db        *string
	questions string
	modes     []string
	json      bool
	dense     float64
	anyGold   bool
	verbose   bool
	embed     embedFlags
	rerank    rerankFlags
}

const evalLong = `Eval runs a file of questions with known answers against the index and
prints how well each search mode finds them.

The questions file has one JSON object a line:
  {"q": "where does checkout charge the card", "kind": "natural",
   "gold_files": ["platform/services/checkout/handler.go"],
   "gold_symbols": ["handleCheckout"]}
gold_files are "source/path" as shown by coderag query, or paths relative
to the source in an index of one repository; gold_symbols are optional; an
"id" is allowed. Each question asks for 40 chunks and ranks their first 10
distinct files. With --gold-any the gold files are alternatives (any one
answers): recall@k is 1 when one is in the top k and MRR@10 counts the
first, as ../shared/eval/score.py does. Modes:
  bm25           both BM25 lists, fused; no vectors, no reranker
  dense          the index's embedder alone
  hybrid         BM25 and dense, fused (the shipped model's list at weight 4,
                 the corpus model's at 0.3, a server's at 1)
  hybrid+rerank  hybrid, then the reranker (--rerank, default builtin)
Metrics over the top 10: Recall@1/5/10 (share of the gold files found),
MRR@10, nDCG@10, at file level and at symbol level, overall and per question
kind, with latency percentiles. 'make eval' runs it on the bundled sample.`

func newEvalCmd(io *ioStreams, db *string) *cobra.Command {
	o := &evalOptions{db: db}
	cmd := &cobra.Command{
		Use:     "eval --questions FILE",
		Short:   "Measure search quality on questions with known answers",
		Long:    evalLong,
		Example: "  coderag eval --db data/coderag.db --questions testdata/eval/questions.jsonl",
		Args:    usageArgs(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, args []string) error { return evalRun(cmd, io, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.questions, "questions", "", "JSON-lines file of questions (required)")
	f.StringSliceVar(&o.modes, "modes", []string{"bm25", "dense", "hybrid", "hybrid+rerank"}, "modes to run, comma-separated")
	f.BoolVar(&o.json, "json", false, "print the report as JSON")
	f.Float64Var(&o.dense, "dense-weight", 0, "fusion weight of the dense list (default: 4 for the shipped model, 0.3 for the corpus model, 1 for a server's)")
	f.BoolVar(&o.anyGold, "gold-any", false, "gold files are alternatives: a question is found at its first gold file (the ../shared/eval files; score.py's R@k and MRR@10)")
	f.BoolVar(&o.verbose, "verbose", false, "list each question that is missed or found below rank 5, with its first 5 files")
	o.embed.register(f, true)
	o.rerank.register(f)
	return cmd
}

func evalRun(cmd *cobra.Command, io *ioStreams, o *evalOptions) error {
	if o.questions == "" {
		return usagef("--questions FILE is required")
	}
	ctx := cmd.Context()
	fh, err := os.Open(o.questions)
	if err != nil {
		return fmt.Errorf("questions: %w", err)
	}
	qs, err := eval.ReadQuestions(fh, o.questions)
	fh.Close()
	if err != nil {
		return err
	}
	db, err := openIndex(ctx, *o.db, false)
	if err != nil {
		return err
	}
	defer db.Close()
	emb, warn, err := o.embed.queryEmbedder(ctx, db)
	if err != nil {
		return err
	}
	if warn != "" {
		fmt.Fprintf(io.err, "coderag: warning: %s\n", warn)
	}
	rr, err := o.rerank.reranker()
	if err != nil {
		return err
	}
	params, err := o.rerank.loadParams()
	if err != nil {
		return err
	}
	var modes []eval.Mode
	for _, m := range o.modes {
		var opts search.Options
		switch strings.TrimSpace(m) {
		case "bm25":
		case "dense":
			opts = search.Options{Embedder: emb, NoBM25: true}
		case "hybrid":
			opts = search.Options{Embedder: emb}
		case "hybrid+rerank":
			opts = search.Options{Embedder: emb, Reranker: rr}
		default:
			return usagef("--modes: unknown mode %q (want bm25, dense, hybrid, hybrid+rerank)", m)
		}
		if m == "dense" && emb == nil {
			fmt.Fprintf(io.err, "coderag: warning: mode dense skipped: %s holds no vectors\n", *o.db)
			continue
		}
		opts.PathPriority = o.rerank.pathPriority
		opts.Params = params
		if o.dense > 0 {
			opts.Weights = map[string]float64{"dense": o.dense}
		}
		modes = append(modes, eval.Mode{Name: m, Engine: search.New(db, opts)})
	}
	if len(modes) == 0 {
		return usagef("--modes: nothing to run")
	}
	rep, err := eval.Run(ctx, modes, qs, eval.Options{AnyGold: o.anyGold})
	if err != nil {
		return err
	}
	if o.verbose {
		rep.Misses(io.out, qs)
	}
	if o.json {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.Markdown(io.out)
	return nil
}
