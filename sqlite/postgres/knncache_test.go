package postgres

import (
	"slices"
	"testing"
)

// TestSignCacheNearest: sign bits packed across 64-bit words order
// vectors by Hamming distance, ties by key, those tied with the last
// kept; the packing matches the bit string PostgreSQL stores (signBits).
func TestSignCacheNearest(t *testing.T) {
	const dim = 130 // three words, the last one partial
	vec := func(flip ...int) []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = 1
		}
		for _, i := range flip {
			v[i] = -1
		}
		return v
	}
	stored := map[int64][]float32{
		10: vec(0, 64, 129),     // 3 from q
		11: vec(),               // 0
		12: vec(5),              // 1
		13: vec(63, 64, 65, 66), // 4
		14: vec(128),            // 1, ties with 12
	}
	c := &signCache{words: (dim + 63) / 64}
	for _, pk := range []int64{10, 11, 12, 13, 14} {
		c.pks = append(c.pks, pk)
		c.bits = append(c.bits, signWords(stored[pk])...)
	}
	for _, tc := range []struct {
		n    int
		want []int64
	}{
		{1, []int64{11}},
		{2, []int64{11, 12, 14}}, // 14 ties the second: kept
		{3, []int64{11, 12, 14}},
		{5, []int64{11, 12, 14, 10, 13}},
		{9, []int64{11, 12, 14, 10, 13}},
	} {
		if got := c.nearest(signWords(vec()), tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("nearest(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	// signWords agrees with the text bit string: dimension i is character
	// i, the highest bit first.
	v := vec(1, 70)
	s := signBits(v)
	w := signWords(v)
	for i := 0; i < dim; i++ {
		bit := w[i/64]>>(63-uint(i%64))&1 == 1
		if bit != (s[i] == '1') {
			t.Fatalf("dimension %d: word bit %v, string %c", i, bit, s[i])
		}
	}
}
