package embed

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sort"

	"coderag/core"
)

// StaticPrefix starts the ID of every static model's vectors in an index:
// "builtin:static-<dim>d-<checksum>", so that an index records exactly
// which model embedded it.
const StaticPrefix = "builtin:static-"

// staticMagic opens a static model file.
var staticMagic = [8]byte{'C', 'R', 'S', 'T', 'A', 'T', 'I', 'C'}

// staticVersion is the newest format: version 2 adds the model's Lead
// after the token count. EncodeStatic writes version 1 for a model
// without a lead (so a model trained again without one is byte-identical
// to one written before version 2), and both are read.
const staticVersion = 2

// ErrBadModel means a static model file is corrupt, truncated or of
// another format version.
var ErrBadModel = errors.New("not a valid static model file")

// Static is a static embedding model: one int8 vector (with a float32
// scale) per token of the code tokenizer, over a sorted token table, read
// in place from the model file's bytes. A text's vector is the
// normalised sum of its distinct tokens' vectors, each weighted by
// 1 + ln(term frequency) and by the model's Lead (the text's first
// tokens count more); the vectors' lengths carry what IDF carries in
// the corpus model, because training learns them. Decoding costs nothing
// at load: a lookup is a binary search over the token table.
type Static struct {
	dim, n  int
	lead    Lead
	offsets []byte // n+1 little-endian uint32 offsets into blob
	blob    []byte
	scales  []byte // n little-endian float32
	vecs    []byte // n*dim int8
	sum     uint32
}

// LoadStatic checks and opens a static model file's bytes (kept, not
// copied). A wrong magic, version, size or checksum is ErrBadModel with
// what is wrong.
func LoadStatic(data []byte) (*Static, error) { return loadStatic(data, true) }

// loadStatic is LoadStatic; without verify the checksum is read, not
// computed (the model embedded in the binary, which the binary's own
// integrity covers and TestShippedModel checks: computing it reads all
// 9.2 MB, ~2 ms of every one-shot query).
func loadStatic(data []byte, verify bool) (*Static, error) {
	head := 8 + 4*3
	if len(data) < head+4 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrBadModel, len(data))
	}
	if !bytes.Equal(data[:8], staticMagic[:]) {
		return nil, fmt.Errorf("%w: bad magic %q", ErrBadModel, data[:8])
	}
	body, tail := data[:len(data)-4], data[len(data)-4:]
	sum := binary.LittleEndian.Uint32(tail)
	if verify {
		if got := crc32.ChecksumIEEE(body); got != sum {
			return nil, fmt.Errorf("%w: checksum %08x, the file says %08x (corrupt or truncated)", ErrBadModel, got, sum)
		}
	}
	le := binary.LittleEndian
	version := le.Uint32(data[8:])
	if version != 1 && version != staticVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads 1 to %d", ErrBadModel, version, staticVersion)
	}
	dim, n := int(le.Uint32(data[12:])), int(le.Uint32(data[16:]))
	if dim <= 0 || dim > 4096 || n <= 0 {
		return nil, fmt.Errorf("%w: dimension %d, %d tokens", ErrBadModel, dim, n)
	}
	var lead Lead
	if version >= 2 {
		if len(body) < head+8 {
			return nil, fmt.Errorf("%w: %d bytes is too short", ErrBadModel, len(data))
		}
		lead = Lead{N: int(le.Uint32(data[head:])), Weight: float64(math.Float32frombits(le.Uint32(data[head+4:])))}
		if lead.N < 0 || lead.N > 1<<20 || math.IsNaN(lead.Weight) || lead.Weight < 0 || lead.Weight > 100 {
			return nil, fmt.Errorf("%w: lead of %d tokens weighing %g", ErrBadModel, lead.N, lead.Weight)
		}
		head += 8
	}
	p := head
	need := func(k int) ([]byte, error) {
		if k < 0 || p+k > len(body) {
			return nil, fmt.Errorf("%w: truncated at byte %d of %d", ErrBadModel, p, len(body))
		}
		b := body[p : p+k]
		p += k
		return b, nil
	}
	m := &Static{dim: dim, n: n, lead: lead, sum: sum}
	var err error
	if m.offsets, err = need(4 * (n + 1)); err != nil {
		return nil, err
	}
	blobLen := int(le.Uint32(m.offsets[4*n:]))
	if m.blob, err = need(blobLen); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		a, b := le.Uint32(m.offsets[4*i:]), le.Uint32(m.offsets[4*i+4:])
		if a > b || int(b) > blobLen {
			return nil, fmt.Errorf("%w: token %d has offsets %d..%d", ErrBadModel, i, a, b)
		}
	}
	if m.scales, err = need(4 * n); err != nil {
		return nil, err
	}
	if m.vecs, err = need(n * dim); err != nil {
		return nil, err
	}
	if p != len(body) {
		return nil, fmt.Errorf("%w: %d bytes after the vectors", ErrBadModel, len(body)-p)
	}
	return m, nil
}

// EncodeStatic writes a model file: the lead it pools texts with, tokens
// (sorted, distinct) and their float vectors, quantized to int8 with one
// scale per token.
func EncodeStatic(dim int, lead Lead, tokens []string, vecs []float32) ([]byte, error) {
	if lead.N < 0 || lead.Weight < 0 || lead.Weight > 100 {
		return nil, fmt.Errorf("encode static model: lead of %d tokens weighing %g", lead.N, lead.Weight)
	}
	if dim <= 0 || len(tokens) == 0 || len(vecs) != len(tokens)*dim {
		return nil, fmt.Errorf("encode static model: %d tokens and %d values do not fit dimension %d", len(tokens), len(vecs), dim)
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i-1] >= tokens[i] {
			return nil, fmt.Errorf("encode static model: tokens not sorted and distinct at %q", tokens[i])
		}
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	put := func(v uint32) { _ = binary.Write(&b, le, v) }
	b.Write(staticMagic[:])
	if lead.N == 0 {
		put(1)
	} else {
		put(staticVersion)
	}
	put(uint32(dim))
	put(uint32(len(tokens)))
	if lead.N > 0 {
		put(uint32(lead.N))
		put(math.Float32bits(float32(lead.Weight)))
	}
	off := uint32(0)
	for _, t := range tokens {
		put(off)
		off += uint32(len(t))
	}
	put(off)
	for _, t := range tokens {
		b.WriteString(t)
	}
	q := make([]byte, len(vecs))
	for i := range tokens {
		row := vecs[i*dim : (i+1)*dim]
		mx := float32(0)
		for _, v := range row {
			mx = max(mx, float32(math.Abs(float64(v))))
		}
		scale := mx / 127
		_ = binary.Write(&b, le, math.Float32bits(scale))
		for d, v := range row {
			if scale > 0 {
				q[i*dim+d] = byte(int8(math.Round(float64(v / scale))))
			}
		}
	}
	b.Write(q)
	put(crc32.ChecksumIEEE(b.Bytes()))
	return b.Bytes(), nil
}

// Dim is the model's dimension.
func (m *Static) Dim() int { return m.dim }

// Len is the number of tokens the model knows.
func (m *Static) Len() int { return m.n }

// ID names the model in an index: its dimension and checksum.
func (m *Static) ID() string { return fmt.Sprintf("%s%dd-%08x", StaticPrefix, m.dim, m.sum) }

// Token returns the i-th token of the sorted table.
func (m *Static) Token(i int) string {
	le := binary.LittleEndian
	return string(m.blob[le.Uint32(m.offsets[4*i:]):le.Uint32(m.offsets[4*i+4:])])
}

// Lookup returns the index of token t, or -1.
func (m *Static) Lookup(t string) int {
	le := binary.LittleEndian
	i := sort.Search(m.n, func(i int) bool {
		return string(m.blob[le.Uint32(m.offsets[4*i:]):le.Uint32(m.offsets[4*i+4:])]) >= t
	})
	if i < m.n && m.Token(i) == t {
		return i
	}
	return -1
}

// Row adds w times token i's vector to dst.
func (m *Static) Row(i int, w float64, dst []float64) {
	s := w * float64(math.Float32frombits(binary.LittleEndian.Uint32(m.scales[4*i:])))
	for d, v := range m.vecs[i*m.dim : (i+1)*m.dim] {
		dst[d] += s * float64(int8(v))
	}
}

// Embed returns text's L2-normalised vector, or nil when the model knows
// none of its tokens.
func (m *Static) Embed(text string) []float32 {
	return pool(text, m.dim, m.Lookup, m.Row, m.lead)
}

// EmbedTokens is Embed of a text whose tokens (Tokens) are toks.
func (m *Static) EmbedTokens(toks []string) []float32 {
	return poolTokens(toks, m.dim, m.Lookup, m.Row, m.lead)
}

// Lead is how much more the model weighs the first tokens of a text.
func (m *Static) Lead() Lead { return m.lead }

// StaticEmbedder embeds with a static model. It needs no network and no
// training at crawl time.
type StaticEmbedder struct{ M *Static }

// Info implements Embedder.
func (s StaticEmbedder) Info() core.EmbedderInfo {
	return core.EmbedderInfo{ID: s.M.ID(), Dim: s.M.dim}
}

// Embed implements Embedder. Queries and documents are embedded alike.
func (s StaticEmbedder) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = s.M.Embed(t)
	}
	return out, nil
}
