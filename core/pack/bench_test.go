package pack

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"coderag/core"
)

// BenchmarkPack packs 40 hits of about 400 tokens each (what a query
// returns whatever the index size) into the default 8,000-token budget:
// the cost packing adds to the query.
func BenchmarkPack(b *testing.B) {
	var hs []core.Hit
	for i := 0; i < 40; i++ {
		var body strings.Builder
		fmt.Fprintf(&body, "// Handle%d serves one kind of request.\nfunc Handle%d(w http.ResponseWriter, r *http.Request) {\n", i, i)
		for k := 0; k < 40; k++ {
			fmt.Fprintf(&body, "\tv%d := load(r.Context(), %d) // retry the upstream call\n", k, k)
		}
		body.WriteString("}")
		text := body.String()
		hs = append(hs, core.Hit{Score: 1 / float64(i+1), Chunk: core.Chunk{ID: fmt.Sprint("c", i), RepoName: "shop",
			FilePath: fmt.Sprintf("svc%d/handler.go", i%12), LineStart: 1 + 50*(i/12), LineEnd: 43 + 50*(i/12),
			Corpus: core.CodeLogic, Language: "go", SymbolName: fmt.Sprint("Handle", i), ServiceName: fmt.Sprint("svc", i%12), Text: text}})
	}
	s := fakeSearch{hs}
	g := tallyGraph()
	for _, format := range []string{"xml", "json"} {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				if _, err := Build(context.Background(), s, fakeStore{}, g, "retry the upstream call", Options{Format: format}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
