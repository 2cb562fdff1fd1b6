package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"unicode"

	"coderag/core"
	"coderag/core/codetok"
)

// ErrTooLittleText means the corpus is too small to learn word vectors
// from (no word is in two chunks): not a failure, the index stays
// BM25-only until it grows.
var ErrTooLittleText = errors.New("too little text to learn word vectors from")

// CorpusID names the corpus model's vectors in a database's meta (the
// name is older than the shipped model, whose IDs start StaticPrefix).
const CorpusID = "builtin:ppmi-svd"

// Label is how text output names the embedder whose vectors have ID id:
// the --embedder name a user gives for it, then the ID an index records.
// The corpus model's ID starts "builtin:" for historical reasons while
// --embedder builtin is the shipped model; the label keeps them apart.
func Label(id string) string {
	switch {
	case id == CorpusID:
		return "corpus (learned from this index, " + id + ")"
	case IsStatic(id):
		return "builtin (the shipped model, " + id + ")"
	}
	return id
}

// BuiltinDim is the dimension of the built-in embedder's vectors.
const BuiltinDim = 256

// TrainOptions tune Train. The zero value uses the defaults.
type TrainOptions struct {
	Dim        int     // vector dimension (default BuiltinDim)
	Window     int     // co-occurrence window either side of a token (default 5)
	MaxVocab   int     // most frequent tokens kept (default 8192)
	MinDocs    int     // a token must be in at least this many chunks (default 2)
	Alpha      float64 // context distribution smoothing (default 0.75)
	Oversample int     // extra columns of the randomized SVD (default 10)
	Power      int     // power iterations of the randomized SVD (default 1)
	Seed       uint64  // random test matrix seed (default 1)
}

func (o *TrainOptions) defaults() {
	if o.Dim <= 0 {
		o.Dim = BuiltinDim
	}
	if o.Window <= 0 {
		o.Window = 5
	}
	if o.MaxVocab <= 0 {
		o.MaxVocab = 8192
	}
	if o.MinDocs <= 0 {
		o.MinDocs = 2
	}
	if o.Alpha <= 0 {
		o.Alpha = 0.75
	}
	if o.Oversample <= 0 {
		o.Oversample = 10
	}
	if o.Power <= 0 {
		o.Power = 1
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
}

// Tokens returns the tokens the built-in embedder sees in text: the
// subwords of the code tokenizer (getUserProfile is get, user, profile),
// without stop words, one-letter words and bare numbers.
func Tokens(text string) []string {
	var out []string
	codetok.Each(text, func(t codetok.Token) {
		if Sees(t) {
			out = append(out, t.Text)
		}
	})
	return out
}

// Sees reports whether the built-in embedder sees a token of the code
// tokenizer (Tokens), for callers that tokenize a text once for several
// uses.
func Sees(t codetok.Token) bool {
	if t.Colocated || len(t.Text) < 2 || len(t.Text) > 40 || codetok.IsStopWord(t.Text) {
		return false
	}
	for _, r := range t.Text {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// Model is the built-in embedder's model: a vector and an inverse document
// frequency per token. A model may hold only some tokens of the trained
// vocabulary (a query needs only its own).
type Model struct {
	Dim    int
	Tokens []string
	IDF    []float32
	Vecs   []float32 // len(Tokens)*Dim, token i at [i*Dim:(i+1)*Dim]
	index  map[string]int
}

// NewModel assembles a model from stored parts.
func NewModel(dim int, tokens []string, idf, vecs []float32) (*Model, error) {
	if dim <= 0 || len(idf) != len(tokens) || len(vecs) != len(tokens)*dim {
		return nil, fmt.Errorf("builtin model: %d tokens, %d idf values and %d vector values do not fit dimension %d", len(tokens), len(idf), len(vecs), dim)
	}
	m := &Model{Dim: dim, Tokens: tokens, IDF: idf, Vecs: vecs, index: make(map[string]int, len(tokens))}
	for i, t := range tokens {
		m.index[t] = i
	}
	return m, nil
}

// Vector returns the vector of token t, or nil.
func (m *Model) Vector(t string) []float32 {
	i, ok := m.index[t]
	if !ok {
		return nil
	}
	return m.Vecs[i*m.Dim : (i+1)*m.Dim]
}

// Embed returns the L2-normalised, IDF-weighted mean of the vectors of
// text's tokens ((1 + ln tf) · idf per distinct token), or nil when the
// model knows none of them.
func (m *Model) Embed(text string) []float32 {
	return pool(text, m.Dim, func(t string) int {
		if i, ok := m.index[t]; ok {
			return i
		}
		return -1
	}, func(i int, w float64, sum []float64) {
		w *= float64(m.IDF[i])
		for d, v := range m.Vecs[i*m.Dim : (i+1)*m.Dim] {
			sum[d] += w * float64(v)
		}
	}, Lead{})
}

// pool returns the L2-normalised sum, over the distinct tokens of text
// that lookup knows (an index, or -1), of row(i, (1 + ln tf) × the
// lead's weight) — row adds the weighted vector of token i to sum — in a
// fixed order (the same text, the same bits), or nil when lookup knows
// none of them.
func pool(text string, dim int, lookup func(string) int, row func(i int, w float64, sum []float64), lead Lead) []float32 {
	return poolTokens(Tokens(text), dim, lookup, row, lead)
}

// Lead weighs the first tokens of a text more than the rest: a chunk
// opens with its path, its symbol and its signature, which say most about
// what it is. A distinct token first seen among the first N tokens of a
// text counts Weight times. The zero Lead weighs every token alike; a
// text of at most N tokens is weighed alike whatever the Lead.
type Lead struct {
	N      int
	Weight float64
}

// poolTokens is pool over the tokens Tokens gave. Each distinct token is
// looked up once.
func poolTokens(toks []string, dim int, lookup func(string) int, row func(i int, w float64, sum []float64), lead Lead) []float32 {
	count := make(map[string]int, len(toks))
	for _, t := range toks {
		count[t]++
	}
	var early map[int]bool // the tokens among the first lead.N
	if lead.N > 0 && lead.Weight > 0 && len(toks) > lead.N {
		early = make(map[int]bool, lead.N)
		for _, t := range toks[:lead.N] {
			if i := lookup(t); i >= 0 {
				early[i] = true
			}
		}
	}
	tf := make(map[int]int, len(count))
	for t, n := range count {
		if i := lookup(t); i >= 0 {
			tf[i] += n
		}
	}
	if len(tf) == 0 {
		return nil
	}
	ids := make([]int, 0, len(tf))
	for i := range tf {
		ids = append(ids, i)
	}
	sort.Ints(ids)
	sum := make([]float64, dim)
	for _, i := range ids {
		w := 1 + math.Log(float64(tf[i]))
		if early[i] {
			w *= lead.Weight
		}
		row(i, w, sum)
	}
	norm := 0.0
	for _, v := range sum {
		norm += v * v
	}
	if norm == 0 {
		return nil
	}
	norm = math.Sqrt(norm)
	out := make([]float32, dim)
	for d, v := range sum {
		out[d] = float32(v / norm)
	}
	return out
}

// Vocabulary returns the tokens in at least minDocs texts (df), the max
// most frequent by count, ties by text, sorted.
func Vocabulary(count, df map[string]int, minDocs, max int) []string {
	var vocab []string
	for w, n := range df {
		if n >= minDocs {
			vocab = append(vocab, w)
		}
	}
	sort.Slice(vocab, func(i, j int) bool {
		if count[vocab[i]] != count[vocab[j]] {
			return count[vocab[i]] > count[vocab[j]]
		}
		return vocab[i] < vocab[j]
	})
	if len(vocab) > max {
		vocab = vocab[:max]
	}
	sort.Strings(vocab)
	return vocab
}

// TrainStats describe a training run.
type TrainStats struct {
	Chunks, Vocab, NonZero, Rank int
}

// Train learns a model from chunk texts: a token-token co-occurrence
// matrix over a window of Window tokens either side (weighted 1/distance),
// turned into positive pointwise mutual information with smoothed context
// frequencies (Levy, Goldberg and Dagan 2015), factorised by a randomized
// truncated SVD; a token's vector is its row of U·Σ^½, centred on the mean
// token vector. Training is deterministic: the same texts in the same order
// give the same model.
func Train(ctx context.Context, texts []string, o TrainOptions) (*Model, TrainStats, error) {
	o.defaults()
	var st TrainStats
	st.Chunks = len(texts)
	// Vocabulary: tokens in at least MinDocs chunks, the MaxVocab most
	// frequent, ties by text.
	seqs := make([][]string, len(texts))
	count := map[string]int{}
	df := map[string]int{}
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, st, ctx.Err()
		}
		seqs[i] = Tokens(t)
		seen := map[string]bool{}
		for _, w := range seqs[i] {
			count[w]++
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	vocab := Vocabulary(count, df, o.MinDocs, o.MaxVocab)
	st.Vocab = len(vocab)
	if len(vocab) == 0 {
		return nil, st, fmt.Errorf("train builtin embedder: no token is in %d or more of the %d chunks: %w", o.MinDocs, len(texts), ErrTooLittleText)
	}
	id := make(map[string]int32, len(vocab))
	for i, w := range vocab {
		id[w] = int32(i)
	}
	idf := make([]float32, len(vocab))
	for i, w := range vocab {
		idf[i] = float32(math.Log(1 + float64(len(texts))/float64(df[w])))
	}

	// Co-occurrences, symmetric, stored once per unordered pair.
	cooc := map[uint64]float64{}
	ids := make([]int32, 0, 256)
	for n, seq := range seqs {
		if n%256 == 0 && ctx.Err() != nil {
			return nil, st, ctx.Err()
		}
		ids = ids[:0]
		for _, w := range seq {
			if i, ok := id[w]; ok {
				ids = append(ids, i)
			}
		}
		for p, a := range ids {
			for d := 1; d <= o.Window && p+d < len(ids); d++ {
				b := ids[p+d]
				lo, hi := min(a, b), max(a, b)
				cooc[uint64(lo)<<32|uint64(hi)] += 1 / float64(d)
			}
		}
		seqs[n] = nil
	}
	// Sums in key order, not the map's: float addition is not
	// associative, and the same chunks must train the same model.
	keys := make([]uint64, 0, len(cooc))
	for k := range cooc {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	rowSum := make([]float64, len(vocab))
	for _, k := range keys {
		v := cooc[k]
		a, b := int(k>>32), int(k&0xffffffff)
		rowSum[a] += v
		if a != b {
			rowSum[b] += v
		}
	}
	smooth := make([]float64, len(vocab))
	var smoothTotal float64
	for i, r := range rowSum {
		smooth[i] = math.Pow(r, o.Alpha)
		smoothTotal += smooth[i]
	}
	var entries []Entry
	add := func(a, b int, c float64) {
		// PMI(a,b) = log P(a,b) / (P(a) Pα(b)) with P(a,b) = c/D and
		// P(a) = rowSum[a]/D: the Ds cancel.
		pmi := math.Log(c * smoothTotal / (rowSum[a] * smooth[b]))
		if pmi > 0 {
			entries = append(entries, Entry{Row: a, Col: b, Val: pmi})
		}
	}
	for _, k := range keys {
		a, b := int(k>>32), int(k&0xffffffff)
		c := cooc[k]
		add(a, b, c)
		if a != b {
			add(b, a, c)
		}
	}
	cooc = nil
	st.NonZero = len(entries)
	if len(entries) == 0 {
		return nil, st, fmt.Errorf("train builtin embedder: the %d tokens in 2 or more chunks never occur near each other: %w", len(vocab), ErrTooLittleText)
	}
	m, err := NewSparse(len(vocab), len(vocab), entries)
	if err != nil {
		return nil, st, err
	}
	entries = nil
	if err := ctx.Err(); err != nil {
		return nil, st, err
	}
	svd, err := RandomizedSVD(m, o.Dim, o.Oversample, o.Power, o.Seed)
	if err != nil {
		return nil, st, fmt.Errorf("train builtin embedder: %w", err)
	}
	st.Rank = len(svd.S)
	vecs := make([]float32, len(vocab)*o.Dim)
	mean := make([]float64, o.Dim)
	rows := make([][]float64, len(vocab))
	for i := range vocab {
		row := make([]float64, o.Dim)
		for c, s := range svd.S {
			row[c] = svd.U.At(i, c) * math.Sqrt(s)
			mean[c] += row[c]
		}
		rows[i] = row
	}
	for c := range mean {
		mean[c] /= float64(len(vocab))
	}
	for i, row := range rows {
		for c := range row {
			vecs[i*o.Dim+c] = float32(row[c] - mean[c])
		}
	}
	model, err := NewModel(o.Dim, vocab, idf, vecs)
	return model, st, err
}

// Builtin is the built-in embedder: vectors from a Model learned from the
// indexed corpus itself. It needs no network and no downloaded weights; it
// knows only the words of the corpus it was trained on, and ranks worse
// than BM25 on its own.
type Builtin struct{ M *Model }

// Info implements Embedder.
func (b Builtin) Info() core.EmbedderInfo { return core.EmbedderInfo{ID: CorpusID, Dim: b.M.Dim} }

// Embed implements Embedder. A text with no known token gets a nil vector.
func (b Builtin) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = b.M.Embed(t)
	}
	return out, nil
}
