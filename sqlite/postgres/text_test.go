package postgres

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// tsvectorRef is the first, plain implementation of analyzer.tsvector: a
// string per position. The packed one must build the same text.
func tsvectorRef(a analyzer, fields ...field) (string, int) {
	type entry struct {
		pos []string
	}
	lex := map[string]*entry{}
	base, n, size := 0, 0, 0
	for _, f := range fields {
		last := 0
		for _, t := range a.tokens(f.text) {
			n++
			last = t.pos
			if len(t.text) > maxLexeme || t.text == "" {
				continue
			}
			e := lex[t.text]
			if e == nil {
				if size > maxTSVector {
					continue
				}
				e = &entry{}
				lex[t.text] = e
				size += len(t.text) + 4
			}
			if len(e.pos) < maxPositions && size < maxTSVector {
				e.pos = append(e.pos, strconv.Itoa(min(base+t.pos, maxPos))+string(f.weight))
				size += 8
			}
		}
		base += last + 1
	}
	keys := make([]string, 0, len(lex))
	for k := range lex {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(k))
		if p := lex[k].pos; len(p) > 0 {
			b.WriteByte(':')
			b.WriteString(strings.Join(p, ","))
		}
	}
	return b.String(), n
}

// sampleTexts reads every file of the sample workspace.
func sampleTexts(t *testing.T) []string {
	t.Helper()
	var texts []string
	filepath.WalkDir(filepath.Join("..", "..", "testdata", "sample"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil {
				texts = append(texts, string(b))
			}
		}
		return nil
	})
	if len(texts) < 20 {
		t.Fatalf("read %d sample files", len(texts))
	}
	return texts
}

// TestTSVectorMatchesReference: for every file of the sample workspace and
// for edge cases (quotes and backslashes in lexemes, a lexeme past 256
// positions, text past the size bound), the three analyzers' tsvectors are
// what the reference implementation builds.
func TestTSVectorMatchesReference(t *testing.T) {
	texts := append(sampleTexts(t),
		`it's a "quoted" \back\slash O'Brien's path C:\temp\x`,
		strings.Repeat("retry ", 400),
		strings.Repeat("getUserProfile get_user_profile ", 20000),
		fmt.Sprint(strings.Repeat("é ", 50), "naïve café"),
	)
	for _, a := range []analyzer{codeText, proseText, docText} {
		for i, s := range texts {
			fields := []field{{"handleCheckout", 'A'}, {"services/checkout/handler.go", 'B'}, {"handler.go > Checkout", 'C'}, {s, 'D'}}
			got, gn := a.tsvector(fields...)
			want, wn := tsvectorRef(a, fields...)
			if got != want || gn != wn {
				t.Fatalf("analyzer %d, text %d: tsvector differs (%d vs %d tokens)\ngot  %.300s\nwant %.300s", a, i, gn, wn, got, want)
			}
		}
	}
}

// benchFields are one sample file's fields, as WriteFile analyzes them.
func benchFields(b *testing.B) []field {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sample", "platform", "services", "checkout", "clients.go"))
	if err != nil {
		b.Fatal(err)
	}
	return []field{{"CartClient", 'A'}, {"services/checkout/clients.go", 'B'}, {"clients.go > CartClient", 'C'}, {string(src), 'D'}}
}

func BenchmarkTSVector(b *testing.B) {
	fields := benchFields(b)
	for b.Loop() {
		codeText.tsvector(fields...)
		proseText.tsvector(fields...)
		docText.tsvector(fields...)
	}
}

func BenchmarkTSVectorRef(b *testing.B) {
	fields := benchFields(b)
	for b.Loop() {
		tsvectorRef(codeText, fields...)
		tsvectorRef(proseText, fields...)
		tsvectorRef(docText, fields...)
	}
}

// TestFileDocumentFromChunkTokens: a file's document built from its
// chunks' code tokens, stemmed and moved on (as WriteFile builds it), is
// the docs analyzer's tsvector of the chunks' texts joined by newlines.
func TestFileDocumentFromChunkTokens(t *testing.T) {
	files := append(sampleTexts(t), "one\n\n\n\ntwo", "\n\n", "a.b\n\nc_d.e\n\n  \n\nf()")
	for i, src := range files {
		texts := strings.Split(src, "\n\n") // chunks, roughly as a chunker cuts
		var toks []token
		for _, x := range texts {
			toks = append(toks, stemmed(codeText.tokens(x), lastPos(toks))...)
		}
		got, gn := tsvectorOf(analyzed{docText.tokens("svc/a.go"), 'A'}, analyzed{docText.tokens("Run Stop"), 'B'}, analyzed{toks, 'D'})
		want, wn := docText.tsvector(field{"svc/a.go", 'A'}, field{"Run Stop", 'B'}, field{strings.Join(texts, "\n"), 'D'})
		if got != want || gn != wn {
			t.Fatalf("file %d: %d vs %d tokens\ngot  %.400s\nwant %.400s", i, gn, wn, got, want)
		}
	}
}
