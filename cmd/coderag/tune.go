package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/search"
	"coderag/core/train"
)

type tuneOptions struct {
	out       string
	work      string
	questions int
	heldOut   int
	rounds    int
	embedder  string
	json      bool
}

const tuneLong = `Tune learns the numbers of ranking — the fusion's list weights and k, the
builtin reranker's feature weights and share, the prior of tests — from
source code, and writes them as JSON for 'query --params' and 'eval
--params' (make tune learns a set from open-source code into
data/params.tuned.json; docs/eval.md compares it with the built-in one).

It mines (doc comment, declaration) pairs from the given source trees with
the tree-sitter chunker (Go, Python, Java, JavaScript, TypeScript, C#, PHP, Rust)
and (heading, section) pairs from their Markdown files (descriptive
headings over sections of 40 words or more), writes a copy of the trees
with those comments and headings blanked, indexes the copy with
--embedder (the shipped model, as crawls do by default, or the corpus
model; the dense list's weight learned is that embedder's: dense-static
or dense), and asks each comment — less the declaration's name —
or heading as a question whose answer is its file. One package
in --held-out is kept out of the fit; the report gives MRR@10 on the
training and held-out questions before and after. Questions about test
files are not asked (tests stay in the index as competitors).`

func newTuneCmd(io *ioStreams) *cobra.Command {
	o := &tuneOptions{}
	cmd := &cobra.Command{
		Use:     "tune [flags] DIR...",
		Short:   "Learn ranking parameters from doc comments and doc headings in source trees",
		Long:    tuneLong,
		Example: "  coderag tune --out params.json $(go env GOROOT)/src/net/http /usr/lib/python3.11/email",
		Args:    usageArgs(cobra.MinimumNArgs(1)),
		RunE:    func(cmd *cobra.Command, args []string) error { return tuneRun(cmd, io, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "write the learned parameters to this file (default: standard output)")
	f.StringVar(&o.work, "work", "", "keep the mined copy, its index and the questions in this directory (default: a temporary one, removed)")
	f.IntVar(&o.questions, "questions", 1500, "at most this many training questions (spread over the packages)")
	f.IntVar(&o.heldOut, "held-out", 5, "hold out one package in this many from the fit, for the report")
	f.IntVar(&o.rounds, "rounds", 3, "passes of coordinate ascent over the parameters")
	f.StringVar(&o.embedder, "embedder", "builtin", "embedder of the mined copy's index, whose list weight is learned: builtin (the shipped model) or corpus")
	f.BoolVar(&o.json, "json", false, "print the report as JSON (the parameters go to --out)")
	return cmd
}

// tuneReport is what tune measured.
type tuneReport struct {
	Sources       []string      `json:"sources"`
	Pairs         int           `json:"pairs"`
	Train         int           `json:"train_questions"`
	HeldOut       int           `json:"held_out_questions"`
	Chunks        int           `json:"chunks"`
	TrainBefore   float64       `json:"train_mrr10_before"`
	TrainAfter    float64       `json:"train_mrr10_after"`
	HeldOutBefore float64       `json:"held_out_mrr10_before"`
	HeldOutAfter  float64       `json:"held_out_mrr10_after"`
	Params        search.Params `json:"params"`
	Took          string        `json:"took"`
}

func tuneRun(cmd *cobra.Command, io *ioStreams, o *tuneOptions, dirs []string) error {
	ctx := cmd.Context()
	start := time.Now()
	if o.questions < 10 || o.heldOut < 2 || o.rounds < 1 {
		return usagef("--questions must be 10 or more, --held-out 2 or more, --rounds 1 or more")
	}
	var eo ingest.EmbedOptions
	switch o.embedder {
	case "builtin":
		m, err := embed.Shipped()
		if err != nil {
			return err
		}
		eo.Embedder = embed.StaticEmbedder{M: m}
	case "corpus":
		eo.Builtin = true
	default:
		return usagef("--embedder %q: want builtin or corpus", o.embedder)
	}
	work := o.work
	if work == "" {
		tmp, err := os.MkdirTemp("", "coderag-tune-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	corpus := filepath.Join(work, "corpus")
	if err := os.RemoveAll(corpus); err != nil {
		return err
	}
	logf := func(format string, args ...any) {
		if !o.json {
			fmt.Fprintf(io.err, format+"\n", args...)
		}
	}
	// Mine every tree into corpus/<name>.
	var pairs []train.Pair
	rep := tuneReport{}
	names := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return usagef("%s is not a directory", d)
		}
		name := filepath.Base(abs)
		for i := 2; names[name]; i++ {
			name = fmt.Sprintf("%s-%d", filepath.Base(abs), i)
		}
		names[name] = true
		found, err := train.Mine(ctx, abs, filepath.Join(corpus, name), train.MineOptions{})
		if err != nil {
			return err
		}
		logf("mined %d pairs (doc comments, Markdown headings) from %s", len(found), abs)
		for _, p := range found {
			p.File, p.Group = name+"/"+p.File, name+"/"+p.Group
			pairs = append(pairs, p)
		}
		rep.Sources = append(rep.Sources, abs)
	}
	if len(pairs) == 0 {
		return train.ErrNoPairs
	}
	rep.Pairs = len(pairs)
	if err := writeJSONL(filepath.Join(work, "pairs.jsonl"), pairs); err != nil {
		return err
	}
	// Index the copy.
	dbPath := filepath.Join(work, "tune.db")
	for _, p := range []string{dbPath, dbPath + "-wal", dbPath + "-shm"} {
		os.Remove(p)
	}
	db, err := openIndex(ctx, dbPath, true)
	if err != nil {
		return err
	}
	defer db.Close()
	logf("indexing the mined copy (%s) with %s ...", corpus, o.embedder)
	sum, err := ingest.New(db, ingest.Options{Embed: eo}).Run(ctx,
		[]core.Source{{Kind: core.SourceRepo, Path: corpus, Name: "corpus"}})
	if err != nil {
		return err
	}
	if sum.Failed() {
		return fmt.Errorf("tune: indexing %s failed", corpus)
	}
	for _, s := range sum.Sources {
		rep.Chunks += s.ChunkCount()
	}
	var emb embed.Embedder
	switch info := db.Embedder(); {
	case info.ID == embed.CorpusID:
		emb = embed.Stored{Dim: info.Dim, Load: db.LoadModel}
	case embed.IsStatic(info.ID):
		emb = eo.Embedder
	}
	trainPairs, heldPairs := train.Split(pairs, o.heldOut)
	trainQs := train.Sample(train.Questions("corpus", trainPairs), o.questions)
	heldQs := train.Sample(train.Questions("corpus", heldPairs), max(o.questions/3, 10))
	rep.Train, rep.HeldOut = len(trainQs), len(heldQs)
	if len(trainQs) < 10 || len(heldQs) < 5 {
		return fmt.Errorf("tune: %d training and %d held-out questions are too few to learn from (give more source)", len(trainQs), len(heldQs))
	}
	logf("fitting on %d questions (%d held out) over %d chunks", len(trainQs), len(heldQs), rep.Chunks)
	trainEv := train.NewEvaluator(db, emb, trainQs, 2)
	heldEv := train.NewEvaluator(db, emb, heldQs, 2)
	startParams := search.DefaultParams()
	if rep.HeldOutBefore, err = heldEv.MRR(ctx, startParams); err != nil {
		return err
	}
	learned, mrr, err := train.Fit(ctx, trainEv, startParams, train.FitOptions{Rounds: o.rounds, Log: logf})
	if err != nil {
		return err
	}
	rep.TrainAfter = mrr
	if rep.TrainBefore, err = trainEv.MRR(ctx, startParams); err != nil {
		return err
	}
	if rep.HeldOutAfter, err = heldEv.MRR(ctx, learned); err != nil {
		return err
	}
	learned.Source = fmt.Sprintf("coderag tune on %d questions (doc comments, doc headings) from %s (%d held out: MRR@10 %.3f -> %.3f)",
		rep.Train, strings.Join(baseNames(rep.Sources), ", "), rep.HeldOut, rep.HeldOutBefore, rep.HeldOutAfter)
	rep.Params = learned
	rep.Took = time.Since(start).Round(time.Second).String()
	out := learned.MarshalIndent()
	if o.out != "" {
		if err := os.WriteFile(o.out, out, 0o644); err != nil {
			return err
		}
	} else if !o.json {
		io.out.Write(out)
	}
	if o.json {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(io.err, "MRR@10 training %.3f -> %.3f, held out %.3f -> %.3f (%d + %d questions, %s)\n",
		rep.TrainBefore, rep.TrainAfter, rep.HeldOutBefore, rep.HeldOutAfter, rep.Train, rep.HeldOut, rep.Took)
	return nil
}

// writeJSONL writes items as JSON lines.
func writeJSONL[T any](path string, items []T) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(filepath.Dir(p)) + "/" + filepath.Base(p)
	}
	return out
}
