package core

import (
	"slices"
	"testing"
)

func TestSettleTies(t *testing.T) {
	hit := func(id string, score float64) Hit {
		return Hit{Chunk: Chunk{ID: id, FilePath: "svc/" + id + ".go"}, Score: score, Lists: []ListRank{{List: "bm25-code", Score: score}}}
	}
	for _, tt := range []struct {
		name string
		in   []Hit
		want []string
	}{
		{"ties by file", []Hit{hit("c", 3), hit("b", 2), hit("a", 2), hit("d", 1)}, []string{"c", "a", "b", "d"}},
		{"distinct scores keep their order", []Hit{hit("z", 3), hit("a", 2), hit("m", 1)}, []string{"z", "a", "m"}},
		{"empty", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			SettleTies(tt.in)
			var got []string
			for i, h := range tt.in {
				got = append(got, h.Chunk.ID)
				if h.Lists[0].Rank != i+1 {
					t.Errorf("%s: rank %d at position %d", h.Chunk.ID, h.Lists[0].Rank, i+1)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWithTies(t *testing.T) {
	for _, tc := range []struct {
		scores []int
		want   int
		keep   int
	}{
		{[]int{9, 8, 7}, 5, 3},
		{[]int{9, 8, 7, 6}, 2, 2},
		{[]int{9, 8, 8, 8, 6}, 2, 4},
		{[]int{8, 8, 8}, 1, 3},
		{[]int{8, 8}, 0, 0},
		{nil, 3, 0},
	} {
		if got := WithTies(len(tc.scores), tc.want, func(i int) bool { return tc.scores[i] == tc.scores[i-1] }); got != tc.keep {
			t.Errorf("WithTies(%v, %d) = %d, want %d", tc.scores, tc.want, got, tc.keep)
		}
	}
}
