package embed

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestTrainTooLittleText: texts too small to learn from (no shared token,
// or shared tokens that never occur together) are ErrTooLittleText, which
// the crawl reports as an index without vectors, not as a failure.
func TestTrainTooLittleText(t *testing.T) {
	for name, texts := range map[string][]string{
		"no shared token":    {"alpha", "beta"},
		"never side by side": {"alpha", "alpha", "# h1\n\n# h2"},
	} {
		_, _, err := Train(context.Background(), texts, TrainOptions{})
		if !errors.Is(err, ErrTooLittleText) {
			t.Errorf("%s: err %v, want ErrTooLittleText", name, err)
		}
	}
}

// TestTrainDeterministicSums: the same texts train the same model, bit for
// bit, however Go orders a map's keys (the co-occurrence sums were made
// in map order, and two crawls of the same sources embedded differently).
func TestTrainDeterministicSums(t *testing.T) {
	// Words drawn from a fixed generator: many pairs at many distances,
	// so that sums in another order round differently.
	words := make([]string, 2000)
	for i := range words {
		words[i] = string([]byte{'a' + byte(i%26), 'e', 'a' + byte(i/26%26), 'o', 'a' + byte(i/676%26), 'r'}) // aeaoar, beaoar, ...
	}
	state := uint32(7)
	next := func() int { state = state*1664525 + 1013904223; return int(state>>8) % len(words) }
	var texts []string
	for range 4000 {
		var b []string
		for range 40 {
			b = append(b, words[next()%(1+next()%len(words))])
		}
		texts = append(texts, strings.Join(b, " "))
	}
	train := func() *Model {
		m, _, err := Train(context.Background(), texts, TrainOptions{Dim: 64})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := train()
	for range 3 {
		if m := train(); !slices.Equal(m.Vecs, first.Vecs) {
			t.Fatal("a second training on the same texts learned other vectors")
		}
	}
}
