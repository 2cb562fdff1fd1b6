package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"coderag/core/embed"
	"coderag/core/train"
)

type modelOptions struct {
	out       string
	pairs     string
	load      string
	heldOut   int
	evalQ     int
	opts      train.ModelOptions
	json      bool
	namePairs bool
	crawl     bool
}

const modelLong = `Model trains the built-in embedding model (--embedder builtin) from source
trees given as NAME=DIR, and reports how it ranks on packages held out of
training.

It mines (doc comment or docstring, the declaration's chunk) and (heading,
section) pairs with the tree-sitter chunker — the comment is blanked out
of the chunk and the declaration's name out of the comment — and learns a
vector per token of the code tokenizer so that a comment's vector is
nearest its own chunk's (in-batch-negatives contrastive loss). One package
in --held-out is kept out of training; on those pairs the report gives
MRR@10 of the model alone (its two stages, as a query runs them: the
nearest 50 by one vector per text, scored again token by token and by
adjacent word pairs; "one vector" is the first stage alone), of BM25
alone and of the two fused,
each query ranking every held-out chunk (a held-out comment that a
training package also holds, copied, is not asked: the model has seen
it), over all queries and by the language of each pair ("markdown" is
heading -> section). With
--name-pairs, every function, method or type that no comment documents
adds a pair of its name's words ("parse header") and its chunk without the
name; they train, and are not asked in the report. With --evaluate and
--crawl-chunks, the report's documents are chunked as a crawl chunks them
(an import line or a bare class line joined to its neighbour), as
questions search them; the held-out packages are the same. 'make model'
runs it on the sources listed in core/embed/model/README.md.`

func newModelCmd(io *ioStreams) *cobra.Command {
	o := &modelOptions{}
	cmd := &cobra.Command{
		Use:     "model [flags] NAME=DIR...",
		Short:   "Train the built-in embedding model from doc comments in source trees",
		Long:    modelLong,
		Example: "  coderag model --out static.bin go=$(go env GOROOT)/src python=/usr/lib/python3.11",
		Args:    usageArgs(cobra.ArbitraryArgs),
		RunE:    func(cmd *cobra.Command, args []string) error { return modelRun(cmd, io, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "write the model here (default: train and report only)")
	f.StringVar(&o.load, "evaluate", "", "report on this model file instead of training one")
	f.StringVar(&o.pairs, "pairs", "", "read mined pairs from this JSONL file when it exists, else mine and write them to it")
	f.IntVar(&o.heldOut, "held-out", 10, "hold out one package in this many from training, for the report")
	f.IntVar(&o.evalQ, "eval-queries", 0, "held-out queries asked in the report, spread evenly (0: every one; a sample of 2,000 can be 0.01 off in MRR@10)")
	f.IntVar(&o.opts.Dim, "dim", 256, "vector dimension")
	f.IntVar(&o.opts.MaxVocab, "vocab", 50000, "most tokens kept")
	f.IntVar(&o.opts.Epochs, "epochs", 4, "passes over the training pairs")
	f.IntVar(&o.opts.Batch, "batch", 512, "pairs per step (each pair's negatives are the others)")
	f.Float64Var(&o.opts.LR, "lr", 0.05, "Adagrad learning rate")
	f.Float64Var(&o.opts.Scale, "scale", 20, "similarity scale (1/temperature)")
	f.Float64Var(&o.opts.Dropout, "dropout", 0, "probability of leaving a token out of a text at each step")
	f.IntVar(&o.opts.PackageBatches, "package-runs", 0, "fill batches with runs of up to N pairs of one package (hard negatives); 0: random batches")
	f.BoolVar(&o.opts.LangBatches, "lang-batches", false, "fill each batch with pairs of one language")
	f.IntVar(&o.opts.Lead.N, "lead", 0, "weigh a text's first N tokens (a chunk's path, symbol and signature) more, in training and in the model written")
	f.Float64Var(&o.opts.Lead.Weight, "lead-weight", 1.5, "how much more --lead's tokens weigh")
	f.BoolVar(&o.opts.PPMIInit, "ppmi-init", false, "start from PPMI-SVD vectors of the training texts instead of random ones")
	f.Uint64Var(&o.opts.Seed, "seed", 1, "random seed")
	f.BoolVar(&o.json, "json", false, "print the report as JSON")
	f.BoolVar(&o.namePairs, "name-pairs", false, "also mine (name, body without the name) pairs of undocumented functions, methods and types")
	f.BoolVar(&o.crawl, "crawl-chunks", false, "with --evaluate: mine the documents as a crawl chunks them (small pieces joined), as questions search them")
	return cmd
}

// modelReport is what model measured.
type modelReport struct {
	Sources  map[string]int      `json:"sources"` // pairs per source
	Train    int                 `json:"train_pairs"`
	Names    int                 `json:"name_pairs,omitempty"` // of the training pairs, those of names
	HeldOut  train.HeldOutReport `json:"held_out"`
	Vocab    int                 `json:"vocab"`
	Loss     []float64           `json:"loss"`
	ModelID  string              `json:"model_id,omitempty"`
	Bytes    int                 `json:"bytes"`
	Took     string              `json:"took"`
	Settings train.ModelOptions  `json:"settings,omitzero"`
}

func modelRun(cmd *cobra.Command, io *ioStreams, o *modelOptions, args []string) error {
	ctx := cmd.Context()
	start := time.Now()
	if o.heldOut < 2 {
		return usagef("--held-out must be 2 or more")
	}
	if o.evalQ < 0 {
		return usagef("--eval-queries must be 0 (every held-out query) or more")
	}
	if o.opts.Lead.N < 0 || o.opts.Lead.Weight <= 0 || o.opts.Lead.Weight > 100 {
		return usagef("--lead must be 0 or more and --lead-weight above 0 and at most 100")
	}
	if o.crawl && o.load == "" {
		// Models trained on joined documents lost on questions
		// (docs/eval.md, "The documents of the pairs").
		return usagef("--crawl-chunks is for a report (--evaluate FILE), not for training")
	}
	var logMu sync.Mutex // sources are mined concurrently
	logf := func(format string, a ...any) {
		if !o.json {
			logMu.Lock()
			fmt.Fprintf(io.err, format+"\n", a...)
			logMu.Unlock()
		}
	}
	rep := modelReport{Sources: map[string]int{}}
	var pairs []train.TextPair
	if o.pairs != "" {
		if p, err := readTextPairs(o.pairs); err == nil {
			pairs = p
			logf("read %d pairs from %s", len(pairs), o.pairs)
			names := 0
			for _, p := range pairs {
				if p.Kind != "" {
					names++
				}
			}
			if (names > 0) != o.namePairs {
				return usagef("%s holds %d name pairs, and --name-pairs is %v: delete it to mine the sources again, or match the flag", o.pairs, names, o.namePairs)
			}
			if len(pairs) > 0 && (pairs[0].Chunks == "crawl") != o.crawl {
				return usagef("%s was mined with --crawl-chunks %v, and it is %v now: name another --pairs file, or match the flag", o.pairs, !o.crawl, o.crawl)
			}
		} else if !os.IsNotExist(err) {
			return err
		}
	}
	if pairs == nil {
		if len(args) == 0 {
			return usagef("give source trees as NAME=DIR (or --pairs with a mined file)")
		}
		type source struct{ name, dir string }
		srcs := make([]source, 0, len(args))
		for _, a := range args {
			name, dir, ok := strings.Cut(a, "=")
			if !ok || name == "" || dir == "" {
				return usagef("%q: want NAME=DIR", a)
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return usagef("%s is not a directory", dir)
			}
			srcs = append(srcs, source{name, dir})
		}
		// Sources are mined concurrently, one per core; their pairs are
		// kept in the order the sources were given, so the mined file is
		// the same whatever the machine.
		found := make([][]train.TextPair, len(srcs))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(runtime.GOMAXPROCS(0))
		for i, s := range srcs {
			g.Go(func() error {
				t0 := time.Now()
				f, err := train.MineText(gctx, s.name, s.dir, train.MineOptions{NamePairs: o.namePairs, CrawlChunks: o.crawl})
				if err != nil {
					return err
				}
				found[i] = f
				logf("mined %d pairs from %s (%s)", len(f), s.dir, time.Since(t0).Round(time.Second))
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for i, s := range srcs {
			// A comment found twice in a tree (compiled copies of a
			// package's sources, overloads) is learned once, a function
			// name once per package.
			seen := map[string]bool{}
			kept := 0
			for _, p := range found[i] {
				key := p.Query
				if p.Kind != "" {
					key = p.Kind + "\x00" + p.Group + "\x00" + p.Query
				}
				if !seen[key] {
					seen[key] = true
					pairs = append(pairs, p)
					kept++
				}
			}
			logf("%s: %d distinct pairs of %d", s.name, kept, len(found[i]))
		}
		if o.pairs != "" {
			if err := writeJSONL(o.pairs, pairs); err != nil {
				return err
			}
		}
	}
	for _, p := range pairs {
		rep.Sources[p.Source]++
	}
	trainP, held := train.SplitText(pairs, o.heldOut)
	// Only doc comment and heading pairs are asked in the report.
	kept := held[:0]
	for _, p := range held {
		if p.Kind == "" {
			kept = append(kept, p)
		}
	}
	held = kept
	rep.Train = len(trainP)
	for _, p := range trainP {
		if p.Kind != "" {
			rep.Names++
		}
	}
	opts := o.opts
	opts.Log = func(s string) { logf("%s", s) }
	var data []byte
	if o.load != "" {
		b, err := os.ReadFile(o.load)
		if err != nil {
			return err
		}
		data = b
	} else {
		logf("training on %d pairs (%d held out)", len(trainP), len(held))
		d, st, err := train.TrainModel(ctx, trainP, opts)
		if err != nil {
			return err
		}
		data = d
		rep.Loss, rep.Settings = st.Loss, o.opts
	}
	rep.Bytes = len(data)
	m, err := embed.LoadStatic(data)
	if err != nil {
		return fmt.Errorf("%s: %w", o.load, err)
	}
	rep.ModelID, rep.Vocab = m.ID(), m.Len()
	if rep.HeldOut, err = train.EvalHeldOut(ctx, held, embed.StaticEmbedder{M: m}, o.evalQ); err != nil {
		return err
	}
	if o.out != "" {
		if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(o.out, data, 0o644); err != nil {
			return err
		}
	}
	rep.Took = time.Since(start).Round(time.Second).String()
	if o.json {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	h := rep.HeldOut
	fmt.Fprintf(io.out, "model %s: %d tokens, %d dimensions, %d bytes\n", rep.ModelID, rep.Vocab, m.Dim(), rep.Bytes)
	if o.load == "" {
		fmt.Fprintf(io.out, "trained on %d pairs (%d of names) in %s\n", rep.Train, rep.Names, rep.Took)
	}
	fmt.Fprintf(io.out, "held-out MRR@10 (%d queries over %d chunks): model %.3f (one vector %.3f)  BM25 %.3f  fused %.3f\n",
		h.Queries, h.Docs, h.Model, h.Pooled, h.BM25, h.Fused)
	langs := make([]string, 0, len(h.ByLang))
	for l := range h.ByLang {
		langs = append(langs, l)
	}
	sort.Slice(langs, func(i, j int) bool {
		a, b := h.ByLang[langs[i]], h.ByLang[langs[j]]
		if a.Queries != b.Queries {
			return a.Queries > b.Queries
		}
		return langs[i] < langs[j]
	})
	for _, l := range langs {
		s, name := h.ByLang[l], l
		if name == "" {
			name = "(no language)" // pairs files written before pairs had one
		}
		fmt.Fprintf(io.out, "  %-12s %6d queries: model %.3f (one vector %.3f)  BM25 %.3f  fused %.3f  model-BM25 %+.3f\n",
			name, s.Queries, s.Model, s.Pooled, s.BM25, s.Fused, s.Model-s.BM25)
	}
	if o.out != "" {
		fmt.Fprintf(io.out, "wrote %s\n", o.out)
	}
	return nil
}

func readTextPairs(path string) ([]train.TextPair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []train.TextPair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var p train.TextPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}
