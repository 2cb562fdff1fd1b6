package train

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"coderag/core/embed"
)

// ModelOptions configure TrainModel. The zero value uses the defaults.
type ModelOptions struct {
	Dim      int     // vector dimension (default 256)
	MaxVocab int     // most frequent tokens kept (default 50000)
	MinCount int     // a token must be in at least this many texts (default 3)
	Epochs   int     // passes over the pairs (default 4)
	Batch    int     // pairs per step; the others of a batch are its negatives (default 512)
	LR       float64 // Adagrad learning rate (default 0.05)
	Scale    float64 // similarity scale, 1/temperature (default 20)
	Seed     uint64  // shuffling and initialisation (default 1)
	Workers  int     // goroutines (default 2)
	// PPMIInit starts the vectors from a PPMI-SVD model of the pairs'
	// texts (embed.Train) instead of random ones.
	PPMIInit bool
	// Dropout leaves each token out of a text with this probability at
	// every step (default 0: none), so that no pair is learned from one
	// rare token alone.
	Dropout float64
	// PackageBatches, when positive, fills batches with runs of up to
	// this many pairs of one package, so that negatives are hard.
	PackageBatches int
	// LangBatches fills each batch with pairs of one language (what is
	// left over of each language fills the last batches), so that a
	// pair's negatives are not told apart by their syntax alone.
	LangBatches bool
	// Lead weighs the first tokens of every text more, in training and
	// in the model written (embed.Lead; zero: all alike).
	Lead embed.Lead
	// batchHook, in tests, receives each batch's languages.
	batchHook func(langs []string)
	// Log, when set, receives a line per epoch.
	Log func(string) `json:"-"`
}

func (o *ModelOptions) defaults() {
	// The model file keeps the weight as a float32: train with that.
	o.Lead.Weight = float64(float32(o.Lead.Weight))
	if o.Dim <= 0 {
		o.Dim = 256
	}
	if o.MaxVocab <= 0 {
		o.MaxVocab = 50000
	}
	if o.MinCount <= 0 {
		o.MinCount = 3
	}
	if o.Epochs <= 0 {
		o.Epochs = 4
	}
	if o.Batch <= 1 {
		o.Batch = 512
	}
	if o.LR <= 0 {
		o.LR = 0.05
	}
	if o.Scale <= 0 {
		o.Scale = 20
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Log == nil {
		o.Log = func(string) {}
	}
}

// bag is a text as the model sees it: distinct token ids and their
// weights (1 + ln tf), ids ascending.
type bag struct {
	ids []int32
	w   []float32
}

func makeBag(id map[string]int32, text string, lead embed.Lead) bag {
	tf := map[int32]int{}
	toks := embed.Tokens(text)
	for _, t := range toks {
		if i, ok := id[t]; ok {
			tf[i]++
		}
	}
	// As embed's pooling does: the tokens among the first lead.N of a
	// longer text count lead.Weight times.
	var early map[int32]bool
	if lead.N > 0 && lead.Weight > 0 && len(toks) > lead.N {
		early = map[int32]bool{}
		for _, t := range toks[:lead.N] {
			if i, ok := id[t]; ok {
				early[i] = true
			}
		}
	}
	var b bag
	for i := range tf {
		b.ids = append(b.ids, i)
	}
	sort.Slice(b.ids, func(x, y int) bool { return b.ids[x] < b.ids[y] })
	for _, i := range b.ids {
		w := 1 + math.Log(float64(tf[i]))
		if early[i] {
			w *= lead.Weight
		}
		b.w = append(b.w, float32(w))
	}
	return b
}

// ModelStats describe a training run.
type ModelStats struct {
	Pairs, Vocab, Steps int
	Loss                []float64 // mean loss per epoch
	Duration            time.Duration
}

// TrainModel learns a static embedding model from (query, document)
// pairs: a vector per token, a text's vector the normalised weighted sum
// of its tokens' (embed.Static), trained so that a query's vector is
// nearer its own document's than the other documents of its batch
// (symmetric in-batch-negatives contrastive loss, InfoNCE), with Adagrad.
// Training is deterministic for a seed and a worker count.
func TrainModel(ctx context.Context, pairs []TextPair, o ModelOptions) ([]byte, ModelStats, error) {
	o.defaults()
	start := time.Now()
	var st ModelStats
	// Vocabulary: tokens in at least MinCount texts, the MaxVocab most
	// frequent, ties by text.
	df := map[string]int{}
	for _, p := range pairs {
		for _, text := range []string{p.Query, p.Doc} {
			seen := map[string]bool{}
			for _, t := range embed.Tokens(text) {
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
	}
	vocab := embed.Vocabulary(df, df, o.MinCount, o.MaxVocab)
	if len(vocab) == 0 {
		return nil, st, fmt.Errorf("train model: no token is in %d or more of %d pairs' texts", o.MinCount, len(pairs))
	}
	st.Vocab = len(vocab)
	id := make(map[string]int32, len(vocab))
	for i, t := range vocab {
		id[t] = int32(i)
	}
	type ex struct {
		q, d       bag
		qKey, dKey uint64 // hashes of the texts: equal texts are no negatives
		group      int
		lang       string
	}
	var data []ex
	groupID := map[string]int{}
	for _, p := range pairs {
		g, ok := groupID[p.Source+"\x00"+p.Group]
		if !ok {
			g = len(groupID)
			groupID[p.Source+"\x00"+p.Group] = g
		}
		e := ex{q: makeBag(id, p.Query, o.Lead), d: makeBag(id, p.Doc, o.Lead), qKey: hash64(p.Query), dKey: hash64(p.Doc), group: g, lang: p.Lang}
		if len(e.q.ids) > 0 && len(e.d.ids) > 0 {
			data = append(data, e)
		}
	}
	st.Pairs = len(data)
	if len(data) < o.Batch {
		return nil, st, fmt.Errorf("train model: %d usable pairs, fewer than one batch of %d", len(data), o.Batch)
	}

	dim := o.Dim
	rng := rand.New(rand.NewPCG(o.Seed, 0x636f646572616721))
	E := make([]float32, len(vocab)*dim)
	for i := range E {
		E[i] = float32(rng.NormFloat64() * 0.1)
	}
	if o.PPMIInit {
		texts := make([]string, 0, 2*len(pairs))
		for _, p := range pairs {
			texts = append(texts, p.Query, p.Doc)
		}
		pm, _, err := embed.Train(ctx, texts, embed.TrainOptions{Dim: dim, MaxVocab: o.MaxVocab, MinDocs: o.MinCount, Seed: o.Seed})
		if err != nil {
			return nil, st, fmt.Errorf("train model: PPMI start: %w", err)
		}
		// Scale the PPMI rows to the random rows' typical length.
		var norm float64
		for _, v := range pm.Vecs {
			norm += float64(v) * float64(v)
		}
		norm = math.Sqrt(norm / float64(len(pm.Tokens)))
		target := 0.1 * math.Sqrt(float64(dim))
		for i, t := range vocab {
			if v := pm.Vector(t); v != nil {
				for d := range dim {
					E[i*dim+d] = float32(float64(v[d]) / norm * target)
				}
			}
		}
	}
	acc := make([]float32, len(vocab)) // Adagrad, one accumulator per row

	B := o.Batch
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	q := make([][]float32, B)  // normalised query vectors
	d := make([][]float32, B)  // normalised document vectors
	qn := make([]float64, B)   // their lengths before normalising
	dn := make([]float64, B)   //
	gq := make([][]float32, B) // gradients of the normalised vectors
	gd := make([][]float32, B)
	for i := range B {
		q[i], d[i], gq[i], gd[i] = make([]float32, dim), make([]float32, dim), make([]float32, dim), make([]float32, dim)
	}
	bq := make([]bag, B) // the batch's texts after dropout
	bd := make([]bag, B)
	S := make([]float64, B*B)
	G := make([]float64, B*B)
	parallel := func(n int, fn func(lo, hi int)) {
		var wg sync.WaitGroup
		per := (n + o.Workers - 1) / o.Workers
		for lo := 0; lo < n; lo += per {
			wg.Add(1)
			go func(lo, hi int) { defer wg.Done(); fn(lo, hi) }(lo, min(n, lo+per))
		}
		wg.Wait()
	}
	pool := func(b bag, out []float32) float64 {
		clear(out)
		for k, t := range b.ids {
			w := b.w[k]
			row := E[int(t)*dim : (int(t)+1)*dim]
			for x, v := range row {
				out[x] += w * v
			}
		}
		var n float64
		for _, v := range out {
			n += float64(v) * float64(v)
		}
		n = math.Sqrt(n)
		if n > 0 {
			for x := range out {
				out[x] = float32(float64(out[x]) / n)
			}
		}
		return n
	}
	grad := map[int32][]float32{}
	for epoch := 0; epoch < o.Epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		if o.PackageBatches > 0 {
			// Runs of up to PackageBatches pairs of one package, in a
			// random order: a batch's negatives are mostly its own
			// package's neighbours, the hard ones.
			runs := partition(order, func(i int) int { return data[i].group }, o.PackageBatches)
			rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
			order = order[:0]
			for _, r := range runs {
				order = append(order, r...)
			}
		}
		if o.LangBatches {
			// Whole batches of one language, in a random order; each
			// language's remainder fills the last batches.
			var runs [][]int
			var rest []int
			for _, r := range partition(order, func(i int) string { return data[i].lang }, B) {
				if len(r) == B {
					runs = append(runs, r)
				} else {
					rest = append(rest, r...)
				}
			}
			for len(rest) >= B {
				runs = append(runs, rest[:B])
				rest = rest[B:]
			}
			rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
			order = order[:0]
			for _, r := range runs {
				order = append(order, r...)
			}
			order = append(order, rest...)
		}
		var lossSum float64
		var steps int
		for at := 0; at+B <= len(order); at += B {
			if err := ctx.Err(); err != nil {
				return nil, st, err
			}
			batch := order[at : at+B]
			if o.batchHook != nil {
				langs := make([]string, B)
				for i, k := range batch {
					langs[i] = data[k].lang
				}
				o.batchHook(langs)
			}
			parallel(B, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					key := o.Seed ^ uint64(epoch)<<40 ^ uint64(batch[i])<<1
					bq[i] = drop(data[batch[i]].q, o.Dropout, key, bq[i])
					bd[i] = drop(data[batch[i]].d, o.Dropout, key|1, bd[i])
					qn[i] = pool(bq[i], q[i])
					dn[i] = pool(bd[i], d[i])
				}
			})
			parallel(B, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					for j := range B {
						var s float32
						for x, v := range q[i] {
							s += v * d[j][x]
						}
						S[i*B+j] = o.Scale * float64(s)
						if i != j && (data[batch[i]].dKey == data[batch[j]].dKey || data[batch[i]].qKey == data[batch[j]].qKey) {
							S[i*B+j] = math.Inf(-1) // the same text twice: not a negative
						}
					}
				}
			})
			// Symmetric cross-entropy: rows (query to documents) and
			// columns (document to queries).
			clear(G)
			loss := xent(S, G, B, B, 1) + xent(S, G, B, 1, B)
			lossSum += loss / float64(2*B)
			steps++
			// Gradients of the normalised vectors, then through the
			// normalisation: g - (g·v)v, over the length.
			parallel(B, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					clear(gq[i])
					clear(gd[i])
					for j := range B {
						if g := float32(o.Scale * G[i*B+j]); g != 0 {
							for x, v := range d[j] {
								gq[i][x] += g * v
							}
						}
						if g := float32(o.Scale * G[j*B+i]); g != 0 {
							for x, v := range q[j] {
								gd[i][x] += g * v
							}
						}
					}
					project(gq[i], q[i], qn[i])
					project(gd[i], d[i], dn[i])
				}
			})
			clear(grad)
			add := func(b bag, g []float32) {
				for k, t := range b.ids {
					row := grad[t]
					if row == nil {
						row = make([]float32, dim)
						grad[t] = row
					}
					w := b.w[k]
					for x, v := range g {
						row[x] += w * v
					}
				}
			}
			for i := range B {
				add(bq[i], gq[i])
				add(bd[i], gd[i])
			}
			for t, g := range grad {
				var sq float32
				for _, v := range g {
					sq += v * v
				}
				acc[t] += sq / float32(dim)
				step := float32(o.LR) / float32(math.Sqrt(float64(acc[t]))+1e-8)
				row := E[int(t)*dim : (int(t)+1)*dim]
				for x, v := range g {
					row[x] -= step * v
				}
			}
		}
		st.Steps += steps
		st.Loss = append(st.Loss, lossSum/float64(max(1, steps)))
		o.Log(fmt.Sprintf("epoch %d: loss %.4f over %d steps (%s)", epoch+1, lossSum/float64(max(1, steps)), steps, time.Since(start).Round(time.Second)))
	}
	st.Duration = time.Since(start)
	out, err := embed.EncodeStatic(dim, o.Lead, vocab, E)
	return out, st, err
}

// partition splits order into runs of at most n items of one key each,
// a key's items in their order, the keys in the order they first appear.
func partition[K comparable](order []int, key func(int) K, n int) [][]int {
	byKey := map[K][]int{}
	var keys []K
	for _, i := range order {
		k := key(i)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	var runs [][]int
	for _, k := range keys {
		for items := byKey[k]; len(items) > 0; {
			m := min(len(items), n)
			runs = append(runs, items[:m])
			items = items[m:]
		}
	}
	return runs
}

// xent adds to G the gradient of the symmetric loss's half over the B
// rows of S (outer B, inner 1: each query against the documents) or its
// columns (outer 1, inner B: each document against the queries), where
// the diagonal holds the answers, and returns that half's summed loss.
func xent(S, G []float64, B, outer, inner int) float64 {
	var loss float64
	for a := range B {
		at := func(b int) int { return a*outer + b*inner }
		mx := math.Inf(-1)
		for b := range B {
			mx = math.Max(mx, S[at(b)])
		}
		var z float64
		for b := range B {
			z += math.Exp(S[at(b)] - mx)
		}
		loss += -(S[at(a)] - mx - math.Log(z))
		for b := range B {
			G[at(b)] += math.Exp(S[at(b)]-mx) / z / float64(2*B)
		}
		G[at(a)] -= 1 / float64(2*B)
	}
	return loss
}

// drop returns b without each token with probability p, decided by a hash
// of key and the token's place (the same for any number of workers); at
// least one token is kept. into is reused.
func drop(b bag, p float64, key uint64, into bag) bag {
	if p <= 0 {
		return b
	}
	into.ids, into.w = into.ids[:0], into.w[:0]
	for k, t := range b.ids {
		h := splitmix(key*0x9e3779b97f4a7c15 + uint64(k))
		if float64(h>>11)/(1<<53) >= p {
			into.ids = append(into.ids, t)
			into.w = append(into.w, b.w[k])
		}
	}
	if len(into.ids) == 0 {
		into.ids, into.w = append(into.ids, b.ids[0]), append(into.w, b.w[0])
	}
	return into
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// project turns g, the gradient of a normalised vector v whose length
// before normalising was n, into the gradient of the unnormalised one.
func project(g, v []float32, n float64) {
	if n == 0 {
		clear(g)
		return
	}
	var dot float32
	for x := range g {
		dot += g[x] * v[x]
	}
	inv := float32(1 / n)
	for x := range g {
		g[x] = (g[x] - dot*v[x]) * inv
	}
}

// SplitText divides text pairs by package: the (source, group) pairs
// whose name hashes to 0 modulo every are held out, the rest train. A
// held-out pair whose text a training pair also has (the same comment
// copied into another package or source tree) is dropped, not held out:
// the model has seen that query, so asking it would flatter the model.
func SplitText(pairs []TextPair, every int) (train, held []TextPair) {
	var maybe []TextPair
	trained := map[string]bool{}
	for _, p := range pairs {
		h := fnv.New32a()
		h.Write([]byte(p.Source + "\x00" + p.Group))
		if every > 1 && h.Sum32()%uint32(every) == 0 {
			maybe = append(maybe, p)
		} else {
			train = append(train, p)
			trained[p.Query] = true
		}
	}
	for _, p := range maybe {
		if !trained[p.Query] {
			held = append(held, p)
		}
	}
	return train, held
}
