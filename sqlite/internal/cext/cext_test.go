package cext

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"coderag/core/codetok"
)

// TestHeaderMatchesLibrary checks that the C code was compiled against the
// header of the SQLite it links with (the Makefile arranges this).
func TestHeaderMatchesLibrary(t *testing.T) {
	if h, l := HeaderVersion(), LibVersion(); h != l {
		t.Fatalf("C code compiled against SQLite %s header but linked with SQLite %s: build through make (it sets CGO_CFLAGS)", h, l)
	}
}

// TestTokenizeGolden runs the C tokenizer over the shared table written by
// core/codetok's TestTokenizeGolden and requires identical tokens.
func TestTokenizeGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "core", "codetok", "testdata", "tokens.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name   string          `json:"name"`
		Bytes  []byte          `json:"bytes"`
		Tokens []codetok.Token `json:"tokens"`
		Query  []codetok.Token `json:"query"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 40 {
		t.Fatalf("shared table has %d cases, want at least 40", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := Tokenize(string(c.Bytes))
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				got = []codetok.Token{}
			}
			if d := cmp.Diff(c.Tokens, got); d != "" {
				t.Errorf("C Tokenize(%q) mismatch (-want +got):\n%s", c.Bytes, d)
			}
			q, err := QueryTokens(string(c.Bytes))
			if err != nil {
				t.Fatal(err)
			}
			if q == nil {
				q = []codetok.Token{}
			}
			if d := cmp.Diff(c.Query, q); d != "" {
				t.Errorf("C QueryTokens(%q) mismatch (-want +got):\n%s", c.Bytes, d)
			}
		})
	}
}

// FuzzTokenizeAgree is a differential fuzz test: the C and Go tokenizers must
// produce the same tokens for any input, and every token must lie inside it.
func FuzzTokenizeAgree(f *testing.F) {
	for _, s := range []string{
		"getUserProfile", "HTTPServer", "URLs", "v1.2.3", "a..b", "__init__.py",
		"ÜberService", "配置ファイル", "bad\xffbyte", "x\xed\xa0\x80y", "deploy🚀prod",
		"CART_SERVICE_ADDR=cart:7070", "parseURLsFast", "IDsAndNames",
		"API呼び出し失敗", "get用户Name", "결제 서비스", "ｻｰﾋﾞｽ", "値", "𠀀x𠀁ä¸",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Tokenize(in)
		if err != nil {
			t.Fatal(err)
		}
		g := codetok.Tokenize(in)
		if d := cmp.Diff(g, c); d != "" {
			t.Fatalf("Go and C tokenizers disagree on %q (-go +c):\n%s", in, d)
		}
		cq, err := QueryTokens(in)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(codetok.QueryTokens(in), cq); d != "" {
			t.Fatalf("Go and C query tokenizers disagree on %q (-go +c):\n%s", in, d)
		}
		for i, tk := range c {
			if tk.Start < 0 || tk.End > len(in) || tk.Start >= tk.End {
				t.Fatalf("token %d %+v outside input of %d bytes", i, tk, len(in))
			}
		}
	})
}

// BenchmarkTokenizeC times the C tokenizer alone (tokens are counted, not
// copied to Go).
func BenchmarkTokenizeC(b *testing.B) {
	src := strings.Repeat("func (s *CartServer) GetUserProfile(ctx context.Context, req *pb.GetUserProfileRequest) (*pb.Profile, error) {\n\treturn s.store.Load(ctx, req.UserId)\n}\n", 100)
	b.SetBytes(int64(len(src)))
	n := 0
	for b.Loop() {
		n = Count(src)
	}
	b.ReportMetric(float64(n)/float64(len(src))*1000, "tokens/KB")
}
