package ingest_test

import (
	"slices"
	"testing"

	"coderag/core"
	"coderag/core/embed"
	"coderag/core/ingest"
	"coderag/core/scrub"
)

// TestFactsShape checks that moving facts (new chunk ids and lines)
// keeps the shape and changes the digest, that the positions pair up in
// order, and that changing a fact changes the shape.
func TestFactsShape(t *testing.T) {
	gate := scrub.New(scrub.Options{})
	chunks := func(id string, shift int, target string) []embed.Chunk {
		t.Helper()
		c := core.Chunk{ID: id, SourceURI: "web/a.ts", Corpus: core.CodeLogic, Text: "fetch(x)", FilePath: "a.ts",
			Calls: []core.Call{{Kind: core.CallHTTP, Method: "GET", Target: target, Line: 3 + shift}},
			Resources: []core.Resource{{Kind: "Ingress", Name: "web", Line: 10 + shift,
				Backends: []core.Backend{{Path: "/", Service: "cart", Line: 12 + shift}}}},
		}
		cc, err := gate.Clean(c)
		if err != nil {
			t.Fatal(err)
		}
		return []embed.Chunk{{Clean: cc}}
	}
	a, b := chunks("c1", 0, "http://cart/api"), chunks("c2", 1, "http://cart/api")
	shapeA, posA := ingest.FactsShape(a)
	shapeB, posB := ingest.FactsShape(b)
	if shapeA != shapeB || ingest.FactsDigest(a) == ingest.FactsDigest(b) {
		t.Errorf("moved facts: shapes %s, %s (want equal); digests equal = %v", shapeA, shapeB, ingest.FactsDigest(a) == ingest.FactsDigest(b))
	}
	// Keys in sorted order: a resource's backends come before its line.
	wantA := []ingest.FactPos{{Chunk: "c1", Line: 3}, {Chunk: "c1", Line: 12}, {Chunk: "c1", Line: 10}}
	wantB := []ingest.FactPos{{Chunk: "c2", Line: 4}, {Chunk: "c2", Line: 13}, {Chunk: "c2", Line: 11}}
	if !slices.Equal(posA, wantA) || !slices.Equal(posB, wantB) {
		t.Errorf("positions %v and %v, want %v and %v", posA, posB, wantA, wantB)
	}
	if shapeC, _ := ingest.FactsShape(chunks("c1", 0, "http://cart/v2")); shapeC == shapeA {
		t.Error("a changed call target kept the shape")
	}
	if shape, pos := ingest.FactsShape(nil); shape != ingest.NoFacts || pos != nil {
		t.Errorf("no facts: %q %v", shape, pos)
	}
}
