package embed

import (
	"context"
	"errors"
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
