// Package eval measures retrieval quality: it runs a set of questions with
// known answers through search engines and reports recall, MRR and nDCG at
// file and symbol level, per question kind and per engine, with latency
// percentiles.
package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"coderag/core"
	"coderag/core/search"
)

// Question is one line of a questions file.
type Question struct {
	ID          string   `json:"id,omitempty"`
	Q           string   `json:"q"`
	Kind        string   `json:"kind"`
	GoldFiles   []string `json:"gold_files"`   // "repo/path" of the files that answer it
	GoldSymbols []string `json:"gold_symbols"` // symbols that answer it (may be empty)
}

// ReadQuestions reads JSON lines; blank lines and lines starting with # are
// skipped. An error names the line.
func ReadQuestions(r io.Reader, name string) ([]Question, error) {
	var qs []Question
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var q Question
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if q.Q == "" || len(q.GoldFiles) == 0 {
			return nil, fmt.Errorf("%s:%d: a question needs \"q\" and \"gold_files\"", name, n)
		}
		if q.Kind == "" {
			q.Kind = "other"
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return qs, nil
}

// Options say how answers are matched.
type Options struct {
	// AnyGold counts a question found at the rank of its first gold file,
	// and recall@k as 0 or 1: the gold files are alternatives, each of
	// which answers the question (the ../shared/eval files, scored as
	// score.py does). Without it recall@k is the share of the gold files
	// found.
	AnyGold bool
}

// Mode is a named search configuration.
type Mode struct {
	Name   string
	Engine *search.Engine
}

// Metrics are averages over questions.
type Metrics struct {
	N                 int
	R1, R5, R10       float64 // share of gold items in the top 1, 5, 10
	MRR10, NDCG10     float64
	SymN              int // questions with gold symbols
	SymR1, SymR5      float64
	SymR10, SymMRR10  float64
	SymNDCG10         float64
	P50, P95, P99, Mx time.Duration
}

// Report is the result of Run: metrics per mode, overall ("all") and per
// question kind, and each question's first gold rank per mode.
type Report struct {
	Modes     []string
	Kinds     []string
	Questions int
	Metrics   map[string]map[string]*Metrics // mode -> kind (or "all") -> metrics
	Ranks     map[string][]int               // mode -> per question: rank of the first gold file (0: not in top 10)
	Top       map[string][][]string          // mode -> per question: its first 5 files
}

// K is the depth of every metric.
const K = 10

// Hits is how many chunks each question asks for: the first K distinct
// files among them are ranked (as score.py does with query -k 40).
const Hits = 40

// Run asks every question in every mode.
func Run(ctx context.Context, modes []Mode, qs []Question, opts Options) (*Report, error) {
	r := &Report{Questions: len(qs), Metrics: map[string]map[string]*Metrics{}, Ranks: map[string][]int{}, Top: map[string][][]string{}}
	kinds := map[string]bool{}
	for _, q := range qs {
		kinds[q.Kind] = true
	}
	for k := range kinds {
		r.Kinds = append(r.Kinds, k)
	}
	sort.Strings(r.Kinds)
	for _, m := range modes {
		r.Modes = append(r.Modes, m.Name)
		byKind := map[string]*Metrics{"all": {}}
		for _, k := range r.Kinds {
			byKind[k] = &Metrics{}
		}
		lat := map[string][]time.Duration{}
		for _, q := range qs {
			start := time.Now()
			res, err := m.Engine.Search(ctx, search.Query{Text: q.Q, K: Hits})
			took := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("mode %s, question %q: %w", m.Name, q.Q, err)
			}
			files := RankedFiles(res.Hits)
			fr := score(files, q.GoldFiles, fileMatch)
			if opts.AnyGold {
				fr = anyGold(fr)
			}
			r.Ranks[m.Name] = append(r.Ranks[m.Name], fr.first)
			r.Top[m.Name] = append(r.Top[m.Name], files[:min(len(files), 5)])
			var sr *scored
			if len(q.GoldSymbols) > 0 {
				s := score(rankedSymbols(res.Hits), q.GoldSymbols, symbolMatch)
				sr = &s
			}
			for _, key := range []string{"all", q.Kind} {
				add(byKind[key], fr, sr)
				lat[key] = append(lat[key], took)
			}
		}
		for key, mt := range byKind {
			finish(mt, lat[key])
		}
		r.Metrics[m.Name] = byKind
	}
	return r, nil
}

// RankedFiles lists the distinct files ("source/path") of hits in rank
// order.
func RankedFiles(hits []core.Hit) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range hits {
		f := h.Chunk.RepoName + "/" + h.Chunk.FilePath
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// fileMatch reports whether a hit's "source/path" answers gold: the same
// "source/path", or a path relative to the source (the ../shared/eval
// files, one repository each).
func fileMatch(got, gold string) bool {
	if got == gold {
		return true
	}
	_, rel, ok := strings.Cut(got, "/")
	return ok && rel == gold
}

// anyGold rescores one question with its gold files as alternatives:
// found at the rank of the first one, recall 0 or 1.
func anyGold(s scored) scored {
	one := func(v float64) float64 {
		if v > 0 {
			return 1
		}
		return 0
	}
	s.r1, s.r5, s.r10 = one(s.r1), one(s.r5), one(s.r10)
	if s.first > 0 {
		s.ndcg = 1 / math.Log2(float64(s.first)+1)
	}
	return s
}

// rankedSymbols lists the symbols of hits in rank order; a chunk that
// declares several symbols ("User, engine") holds them all at its rank.
func rankedSymbols(hits []core.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Chunk.SymbolName)
	}
	return out
}

// symbolMatch reports whether a chunk's symbol list names gold: exactly,
// or as the last part of a qualified name (CartService.GetCart).
func symbolMatch(got, gold string) bool {
	for _, s := range strings.Split(got, ",") {
		s = strings.TrimSpace(s)
		if s == gold || strings.HasSuffix(s, "."+gold) {
			return true
		}
	}
	return false
}

type scored struct {
	r1, r5, r10, mrr, ndcg float64
	first                  int
}

// score computes the metrics of one ranked list against its gold items:
// recall@k is the share of gold items matched in the top k, MRR@10 the
// reciprocal rank of the first match, nDCG@10 with binary gains (a gold
// item counts once, at its best rank).
func score(ranked, gold []string, match func(got, gold string) bool) scored {
	var s scored
	found := map[int]bool{}
	dcg := 0.0
	for i, got := range ranked {
		if i >= K {
			break
		}
		hit := false
		for g, gv := range gold {
			if !found[g] && match(got, gv) {
				found[g] = true
				hit = true
			}
		}
		if !hit {
			continue
		}
		dcg += 1 / math.Log2(float64(i)+2)
		if s.first == 0 {
			s.first = i + 1
			s.mrr = 1 / float64(i+1)
		}
		n := float64(len(found)) / float64(len(gold))
		if i < 1 {
			s.r1 = n
		}
		if i < 5 {
			s.r5 = n
		}
		s.r10 = n
	}
	ideal := 0.0
	for i := range min(len(gold), K) {
		ideal += 1 / math.Log2(float64(i)+2)
	}
	s.ndcg = dcg / ideal
	return s
}

func add(m *Metrics, f scored, s *scored) {
	m.N++
	m.R1 += f.r1
	m.R5 += f.r5
	m.R10 += f.r10
	m.MRR10 += f.mrr
	m.NDCG10 += f.ndcg
	if s != nil {
		m.SymN++
		m.SymR1 += s.r1
		m.SymR5 += s.r5
		m.SymR10 += s.r10
		m.SymMRR10 += s.mrr
		m.SymNDCG10 += s.ndcg
	}
}

func finish(m *Metrics, lat []time.Duration) {
	if m.N > 0 {
		n := float64(m.N)
		m.R1, m.R5, m.R10, m.MRR10, m.NDCG10 = m.R1/n, m.R5/n, m.R10/n, m.MRR10/n, m.NDCG10/n
	}
	if m.SymN > 0 {
		n := float64(m.SymN)
		m.SymR1, m.SymR5, m.SymR10, m.SymMRR10, m.SymNDCG10 = m.SymR1/n, m.SymR5/n, m.SymR10/n, m.SymMRR10/n, m.SymNDCG10/n
	}
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(math.Ceil(p*float64(len(lat))))-1)] }
	m.P50, m.P95, m.P99, m.Mx = pct(0.5), pct(0.95), pct(0.99), lat[len(lat)-1]
}

// Markdown writes the report as Markdown tables: overall per mode, then
// file-level MRR@10 and Recall@10 per kind and mode.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "%d questions. File level: recall@k is the share of a question's gold files among the top k distinct files; MRR@10 and nDCG@10 (binary gains) over the same list. Symbol level: the same over chunks' symbols, for the %d questions that name gold symbols.\n\n",
		r.Questions, r.Metrics[r.Modes[0]]["all"].SymN)
	fmt.Fprintln(w, "| mode | R@1 | R@5 | R@10 | MRR@10 | nDCG@10 | sym R@1 | sym R@5 | sym R@10 | sym MRR@10 | sym nDCG@10 | p50 ms | p95 ms | p99 ms |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, mode := range r.Modes {
		m := r.Metrics[mode]["all"]
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s | %s |\n", mode,
			m.R1, m.R5, m.R10, m.MRR10, m.NDCG10, m.SymR1, m.SymR5, m.SymR10, m.SymMRR10, m.SymNDCG10, ms(m.P50), ms(m.P95), ms(m.P99))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "File MRR@10 / Recall@10 per question kind:\n\n| kind | n |")
	for _, mode := range r.Modes {
		fmt.Fprintf(w, " %s |", mode)
	}
	fmt.Fprint(w, "\n|---|---|")
	for range r.Modes {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, k := range r.Kinds {
		fmt.Fprintf(w, "| %s | %d |", k, r.Metrics[r.Modes[0]][k].N)
		for _, mode := range r.Modes {
			m := r.Metrics[mode][k]
			fmt.Fprintf(w, " %.3f / %.3f |", m.MRR10, m.R10)
		}
		fmt.Fprintln(w)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

// Misses writes, per mode, the questions whose first gold file is not in
// the top 5, with their first 5 files.
func (r *Report) Misses(w io.Writer, qs []Question) {
	for _, mode := range r.Modes {
		for i, q := range qs {
			rank := r.Ranks[mode][i]
			if rank > 0 && rank <= 5 {
				continue
			}
			tag := "MISS"
			if rank > 0 {
				tag = fmt.Sprintf("rank %d", rank)
			}
			fmt.Fprintf(w, "[%s] %s %s (%s) %s\n   gold: %s\n", mode, tag, q.ID, q.Kind, q.Q, strings.Join(q.GoldFiles, ", "))
			for j, f := range r.Top[mode][i] {
				fmt.Fprintf(w, "   %2d. %s\n", j+1, f)
			}
		}
	}
}
