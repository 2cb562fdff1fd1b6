package core

import "testing"

func TestSymbolTitle(t *testing.T) {
	errs := "ReasonLabel, MissingLabels, RateLimited, RateLimitedErrorMsg, LineTooLong, StreamLimit, OutOfOrder, TooFarBehind, TooFarInFuture"
	tests := []struct {
		name, names string
		words       []string
		width       int
		want        string
	}{
		{"fits", "Handler, NewHandler", nil, 40, "Handler, NewHandler"},
		{"one long name", "AVeryLongFunctionNameThatRunsPastTheWidth", nil, 10, "AVeryLongFunctionNameThatRunsPastTheWidth"},
		{"cut in order", errs, nil, 40, "ReasonLabel, MissingLabels +7 more"},
		{"query's names first", errs, []string{"behind"}, 40, "TooFarBehind, ReasonLabel +7 more"},
		{"several match", errs, []string{"far", "order"}, 50, "OutOfOrder, TooFarBehind, TooFarInFuture +6 more"},
		{"most words first", errs, []string{"too", "far", "behind"}, 40, "TooFarBehind, TooFarInFuture +7 more"},
		{"a count takes room", "alpha, beta, gamma", nil, 17, "alpha +2 more"},
		{"two and a count", "alpha, beta, gamma, delta", nil, 19, "alpha, beta +2 more"},
		{"exactly the width", "alpha, beta, gamma", nil, 18, "alpha, beta, gamma"},
		{"first kept when nothing fits", errs, nil, 5, "ReasonLabel +8 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			words := map[string]bool{}
			for _, w := range tt.words {
				words[w] = true
			}
			if got := SymbolTitle(tt.names, words, tt.width); got != tt.want {
				t.Errorf("SymbolTitle(%q, %v, %d) = %q, want %q", tt.names, tt.words, tt.width, got, tt.want)
			}
		})
	}
}
