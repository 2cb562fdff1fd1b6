package embed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Sparse is a sparse matrix in compressed sparse row form.
type Sparse struct {
	Rows, Cols int
	ptr        []int // row i's entries are col[ptr[i]:ptr[i+1]]
	col        []int32
	val        []float64
}

// Entry is one value of a sparse matrix.
type Entry struct {
	Row, Col int
	Val      float64
}

// NewSparse builds a rows×cols matrix from entries in any order; entries
// at the same position are summed.
func NewSparse(rows, cols int, entries []Entry) (*Sparse, error) {
	m := &Sparse{Rows: rows, Cols: cols, ptr: make([]int, rows+1)}
	for _, e := range entries {
		if e.Row < 0 || e.Row >= rows || e.Col < 0 || e.Col >= cols {
			return nil, fmt.Errorf("sparse matrix %dx%d: entry (%d,%d) out of range", rows, cols, e.Row, e.Col)
		}
		m.ptr[e.Row+1]++
	}
	for i := range rows {
		m.ptr[i+1] += m.ptr[i]
	}
	m.col = make([]int32, len(entries))
	m.val = make([]float64, len(entries))
	next := append([]int(nil), m.ptr[:rows]...)
	for _, e := range entries {
		m.col[next[e.Row]] = int32(e.Col)
		m.val[next[e.Row]] = e.Val
		next[e.Row]++
	}
	// Sort each row by column and merge duplicates, so that products are
	// summed in one fixed order whatever the order of entries.
	w := 0
	for i := range rows {
		start, end := m.ptr[i], m.ptr[i+1]
		row := rowSorter{m.col[start:end], m.val[start:end]}
		sort.Sort(row)
		m.ptr[i] = w
		for k := start; k < end; k++ {
			if w > m.ptr[i] && m.col[w-1] == m.col[k] {
				m.val[w-1] += m.val[k]
				continue
			}
			m.col[w], m.val[w] = m.col[k], m.val[k]
			w++
		}
	}
	m.ptr[rows] = w
	m.col, m.val = m.col[:w], m.val[:w]
	return m, nil
}

type rowSorter struct {
	col []int32
	val []float64
}

func (r rowSorter) Len() int           { return len(r.col) }
func (r rowSorter) Less(i, j int) bool { return r.col[i] < r.col[j] }
func (r rowSorter) Swap(i, j int) {
	r.col[i], r.col[j] = r.col[j], r.col[i]
	r.val[i], r.val[j] = r.val[j], r.val[i]
}

// NNZ is the number of stored values.
func (m *Sparse) NNZ() int { return len(m.val) }

// T returns the transpose.
func (m *Sparse) T() *Sparse {
	entries := make([]Entry, 0, len(m.val))
	for i := range m.Rows {
		for k := m.ptr[i]; k < m.ptr[i+1]; k++ {
			entries = append(entries, Entry{Row: int(m.col[k]), Col: i, Val: m.val[k]})
		}
	}
	t, _ := NewSparse(m.Cols, m.Rows, entries)
	return t
}

// mul returns m·x. Rows are computed in parallel; each output value is
// summed in a fixed order, so the result does not depend on scheduling.
func (m *Sparse) mul(x *mat.Dense) *mat.Dense {
	xr, l := x.Dims()
	if xr != m.Cols {
		panic(fmt.Sprintf("embed: sparse %dx%d times dense %dx%d", m.Rows, m.Cols, xr, l))
	}
	out := mat.NewDense(m.Rows, l, nil)
	xs, os := x.RawMatrix(), out.RawMatrix()
	workers := max(1, min(runtime.GOMAXPROCS(0), m.Rows/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < m.Rows; i += workers {
				dst := os.Data[i*os.Stride : i*os.Stride+l]
				for k := m.ptr[i]; k < m.ptr[i+1]; k++ {
					v := m.val[k]
					src := xs.Data[int(m.col[k])*xs.Stride : int(m.col[k])*xs.Stride+l]
					for j, s := range src {
						dst[j] += v * s
					}
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// SVD is a truncated singular value decomposition M ≈ U·diag(S)·Vᵀ.
type SVD struct {
	U *mat.Dense // Rows × rank, orthonormal columns
	S []float64  // singular values, largest first
}

// RandomizedSVD returns the top rank singular values and left singular
// vectors of m with the randomized range finder of Halko, Martinsson and
// Tropp (2011): a Gaussian test matrix with oversample extra columns (from a
// fixed seed, so the result is deterministic), power iterations to sharpen
// the spectrum, and an exact SVD of the small projected matrix.
//
// Bases are orthonormalised with shifted CholeskyQR2, which needs only the
// small l×l Gram matrix: a full QR of the Rows×l block would build a
// Rows×Rows orthogonal factor.
func RandomizedSVD(m *Sparse, rank, oversample, power int, seed uint64) (SVD, error) {
	if rank <= 0 {
		return SVD{}, fmt.Errorf("randomized svd: rank %d", rank)
	}
	small := min(m.Rows, m.Cols)
	rank = min(rank, small)
	if rank == 0 {
		return SVD{U: mat.NewDense(max(m.Rows, 1), 1, nil), S: []float64{0}}, nil
	}
	l := min(rank+oversample, small)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	omega := mat.NewDense(m.Cols, l, nil)
	raw := omega.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	mt := m.T()
	// Power iterations need a well-conditioned basis, not an exactly
	// orthonormal one: one CholeskyQR pass each; the final basis gets two.
	q, err := orthonormalize(m.mul(omega), power == 0)
	if err != nil {
		return SVD{}, err
	}
	for i := range power {
		z, err := orthonormalize(mt.mul(q), false)
		if err != nil {
			return SVD{}, err
		}
		if q, err = orthonormalize(m.mul(z), i == power-1); err != nil {
			return SVD{}, err
		}
	}
	// B = Qᵀ·M, held as Bᵀ = Mᵀ·Q; B·Bᵀ = W·Λ·Wᵀ gives B's left singular
	// vectors W and values √λ, and M's left singular vectors are Q·W.
	bt := mt.mul(q)
	gram := gramOf(bt)
	var eig mat.EigenSym
	if !eig.Factorize(gram, true) {
		return SVD{}, fmt.Errorf("randomized svd: eigen decomposition of the %dx%d projected matrix did not converge", l, l)
	}
	vals := eig.Values(nil)
	var w mat.Dense
	eig.VectorsTo(&w)
	// Values come in ascending order; take the largest rank.
	order := make([]int, l)
	for i := range order {
		order[i] = l - 1 - i
	}
	sel := mat.NewDense(l, rank, nil)
	s := make([]float64, rank)
	for c := range rank {
		s[c] = math.Sqrt(max(vals[order[c]], 0))
		col := order[c]
		// Fix each vector's sign (largest entry positive) so the result
		// does not depend on the eigen solver's sign choice.
		sign, big := 1.0, 0.0
		for r := range l {
			if v := w.At(r, col); math.Abs(v) > big {
				big, sign = math.Abs(v), math.Copysign(1, v)
			}
		}
		for r := range l {
			sel.Set(r, c, sign*w.At(r, col))
		}
	}
	var u mat.Dense
	u.Mul(q, sel)
	return SVD{U: &u, S: s}, nil
}

// gramOf returns yᵀy. A general matrix product (blocked, parallel in
// gonum) is several times faster than the symmetric rank-k update here.
func gramOf(y *mat.Dense) *mat.SymDense {
	_, c := y.Dims()
	var p mat.Dense
	p.Mul(y.T(), y)
	g := mat.NewSymDense(c, nil)
	for i := range c {
		for j := i; j < c; j++ {
			g.SetSym(i, j, (p.At(i, j)+p.At(j, i))/2)
		}
	}
	return g
}

// orthonormalize returns a basis of y's columns by shifted CholeskyQR
// (Fukaya et al. 2020): Q = Y·R⁻¹ where RᵀR = YᵀY + s·I; with exact, a
// second pass (CholeskyQR2) makes Q orthonormal to machine precision.
// Columns of a rank-deficient y come out small rather than failing.
func orthonormalize(y *mat.Dense, exact bool) (*mat.Dense, error) {
	q := y
	passes := 1
	if exact {
		passes = 2
	}
	for pass := range passes {
		_, c := q.Dims()
		g := gramOf(q)
		trace := 0.0
		for i := range c {
			trace += g.At(i, i)
		}
		if trace == 0 || math.IsNaN(trace) || math.IsInf(trace, 0) {
			return nil, fmt.Errorf("orthonormalize: %d columns with trace %g", c, trace)
		}
		shift := 0.0
		if pass == 0 {
			shift = 1e-13 * trace
		}
		var chol mat.Cholesky
		ok := false
		for try := 0; try < 8 && !ok; try++ {
			gs := mat.NewSymDense(c, nil)
			gs.CopySym(g)
			for i := range c {
				gs.SetSym(i, i, gs.At(i, i)+shift)
			}
			if ok = chol.Factorize(gs); !ok {
				shift = max(shift*100, 1e-13*trace)
			}
		}
		if !ok {
			return nil, fmt.Errorf("orthonormalize: Cholesky factorisation of the %dx%d Gram matrix failed", c, c)
		}
		var r, rinv mat.TriDense
		chol.UTo(&r)
		if err := rinv.InverseTri(&r); err != nil {
			// A condition-number warning still yields a usable inverse.
			if _, cond := err.(mat.Condition); !cond {
				return nil, fmt.Errorf("orthonormalize: %w", err)
			}
		}
		var next mat.Dense
		next.Mul(q, mat.DenseCopyOf(&rinv))
		q = &next
	}
	return q, nil
}
