package search

import (
	"strings"
	"testing"

	"coderag/core"
)

func TestCollapse(t *testing.T) {
	passage := "we don't have to decide the date today, but I wanted to float the idea of a first testnet fork at the end of October and mainnet after"
	edited := strings.Replace(passage, "float", "raise", 1)
	other := "the ledger writer validates every transaction against the balance reader before it commits the row to the ledger database"
	hit := func(repo, path string, line int, text string) core.Hit {
		return core.Hit{Chunk: core.Chunk{RepoName: repo, FilePath: path, LineStart: line, LineEnd: line + 9, Text: text}}
	}
	tests := []struct {
		name string
		hits []core.Hit
		want []string // kept files, with their duplicates
	}{
		{"a corrected copy collapses into the first", []core.Hit{
			hit("pm", "call/transcript.vtt", 607, passage), hit("pm", "call/transcript_corrected.vtt", 607, edited), hit("bank", "ledger.md", 1, other)},
			[]string{"call/transcript.vtt [pm/call/transcript_corrected.vtt:607-616]", "ledger.md []"}},
		{"two chunks of one file stay", []core.Hit{hit("pm", "a.md", 1, passage), hit("pm", "a.md", 40, passage)},
			[]string{"a.md []", "a.md []"}},
		{"short chunks stay", []core.Hit{hit("r", "a.go", 1, "return nil, err"), hit("r", "b.go", 1, "return nil, err")},
			[]string{"a.go []", "b.go []"}},
		{"different passages stay", []core.Hit{hit("r", "a.md", 1, passage), hit("r", "b.md", 1, other)},
			[]string{"a.md []", "b.md []"}},
	}
	for _, tt := range tests {
		var got []string
		for _, h := range Collapse(tt.hits) {
			got = append(got, h.Chunk.FilePath+" ["+strings.Join(h.Explain.Duplicates, ", ")+"]")
		}
		if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
