package chunk

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
	"coderag/core/discover"
)

var update = flag.Bool("update", false, "update golden files")

func newChunker(t testing.TB) *Chunker {
	t.Helper()
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func chunkFile(t testing.TB, c *Chunker, path string, src []byte) Result {
	t.Helper()
	lang, corpus := discover.Classify(path)
	res, ok, err := c.File(src, core.Chunk{SourceURI: "repo/" + path, FilePath: path, Language: lang, Corpus: corpus, RepoName: "repo"})
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("no structural chunker for %s (%s)", path, lang)
	}
	return res
}

// render prints chunks compactly for golden files.
func render(res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "imports: %s\n", strings.Join(res.Imports, ", "))
	if res.Fallback != "" {
		fmt.Fprintf(&b, "fallback: %s\n", res.Fallback)
	}
	for _, c := range res.Chunks {
		fmt.Fprintf(&b, "\nlines %d-%d (%d tokens) %s %q\n  prefix: %s\n", c.LineStart, c.LineEnd,
			core.EstimateTokens(c.Text), c.SymbolKind, c.SymbolName, c.ContextPrefix)
		if c.Signature != "" {
			fmt.Fprintf(&b, "  signature: %s\n", c.Signature)
		}
		first := strings.SplitN(c.Text, "\n", 2)[0]
		fmt.Fprintf(&b, "  first line: %s\n", first)
		for _, r := range c.Routes {
			fmt.Fprintf(&b, "  route: %s %s (%s)\n", r.Method, r.Path, r.Framework)
		}
		if c.Meta["test"] != "" {
			fmt.Fprintf(&b, "  test code\n")
		}
	}
	return b.String()
}

// TestCodeGolden chunks one fixture per language and compares symbols,
// kinds, prefixes, signatures and line ranges with testdata/code/*.golden.
func TestCodeGolden(t *testing.T) {
	c := newChunker(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "code", "*"))
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res := chunkFile(t, c, filepath.Base(f), src)
			checkInvariants(t, string(src), res.Chunks)
			got := render(res)
			golden := f + ".golden"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("chunks of %s differ from %s (-want +got):\n%s", f, golden, d)
			}
			if again := render(chunkFile(t, c, filepath.Base(f), src)); again != got {
				t.Error("re-chunking gave different chunks")
			}
		})
	}
	if n < 7 {
		t.Errorf("found %d fixtures, want one per language (7)", n)
	}
}

// TestCodeChunksOfTheSample checks the invariants on every source file of
// the sample workspace and a few facts the rest of coderag relies on.
func TestCodeChunksOfTheSample(t *testing.T) {
	c := newChunker(t)
	root := filepath.Join("..", "..", "testdata", "sample")
	bySymbol := map[string]core.Chunk{}
	files := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		lang, corpus := discover.Classify(p)
		if corpus != core.CodeLogic || !c.Supports(lang) {
			return nil
		}
		files++
		src, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		res := chunkFile(t, c, rel, src)
		if res.Fallback != "" || res.ErrorBytes > 0 {
			t.Errorf("%s: fallback %q, %d error bytes; the sample is valid code", rel, res.Fallback, res.ErrorBytes)
		}
		checkInvariants(t, string(src), res.Chunks)
		for _, ch := range res.Chunks {
			for _, s := range strings.Split(ch.SymbolName, ", ") {
				bySymbol[s] = ch
			}
		}
		return nil
	})
	if files < 20 {
		t.Fatalf("chunked %d sample files, want at least 20", files)
	}
	tests := []struct {
		symbol, kind, prefix, signature string
	}{
		{"getUserProfile", "function", "storefront/src/clients/accounts.ts > getUserProfile", "async function getUserProfile(userId: string): Promise<UserProfile>"},
		{"GetCart", "method", "platform/services/checkout/clients.go > CartClient > GetCart", "func (c *CartClient) GetCart(ctx context.Context, userID string) (Cart, error)"},
		{"handleCheckout", "method", "platform/services/checkout/handler.go > Server > handleCheckout", "func (s *Server) handleCheckout(w http.ResponseWriter, r *http.Request)"},
		{"user_profile", "function", "platform/services/accounts/accounts/app.py > user_profile", "def user_profile(user_id: str)"},
		{"CartController", "class", "platform/services/cart/Controllers/CartController.cs > CartController", `[ApiController] [Route("api/cart")] public class CartController : ControllerBase`},
		{"CatalogClient", "class", "platform/services/cart/Services/CatalogClient.cs > CatalogClient", "public class CatalogClient"},
	}
	for _, tt := range tests {
		ch, ok := bySymbol[tt.symbol]
		if !ok {
			t.Errorf("no chunk has symbol %s", tt.symbol)
			continue
		}
		if ch.SymbolKind != tt.kind || ch.ContextPrefix != tt.prefix || ch.Signature != tt.signature {
			t.Errorf("chunk of %s: kind %q prefix %q signature %q;\nwant kind %q prefix %q signature %q",
				tt.symbol, ch.SymbolKind, ch.ContextPrefix, ch.Signature, tt.kind, tt.prefix, tt.signature)
		}
	}
}

func TestCodeBadInput(t *testing.T) {
	c := newChunker(t)
	var gen strings.Builder
	gen.WriteString("// Code generated by tables.py. DO NOT EDIT.\npackage tables\n\nvar table = []int{\n")
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&gen, "\t%d, // entry %d\n", i*7, i)
	}
	gen.WriteString("}\n")
	deep := "package deep\n\nfunc f() int {\n\treturn " + strings.Repeat("(", 3000) + "1" + strings.Repeat(")", 3000) + "\n}\n"
	tests := []struct {
		name, path, src string
		fallback        bool
	}{
		{"syntax error in the middle", "a.go", "package a\n\nfunc ok() {}\n\nfunc broken( {\n\tx := \n}\n\nfunc alsoOk() int { return 1 }\n", false},
		{"half-written file", "b.py", "def done():\n    return 1\n\nclass Half(Base:\n    def method(self\n", true},
		{"half-written function at the end", "b.ts", "export function done(): number {\n  return 1;\n}\n\nexport function half(a: number", false},
		{"mostly garbage", "c.ts", "%%%% ))) ((( }}} {{{ <<< >>> !!! ### @@@ \x60\x60\x60 ''' \"\"\" ;;; :: ", true},
		{"ten thousand line generated file", "gen.go", gen.String(), false},
		{"deeply nested", "deep.go", deep, false},
		{"minified one-line js", "min.js", "var a=1;" + strings.Repeat("function f(x){return x&&x.y?x.y.z:null};", 2000), false},
		{"empty", "e.cs", "", false},
		{"only comments", "c.java", "// nothing here\n/* still nothing */\n", false},
		{"binary garbage", "x.go", strings.Repeat("\x00\x01\x02\xff", 500), true},
		{"crlf line endings", "w.cs", "using System;\r\n\r\nclass A\r\n{\r\n    void M() { }\r\n}\r\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := chunkFile(t, c, tt.path, []byte(tt.src))
			checkInvariants(t, tt.src, res.Chunks)
			if (res.Fallback != "") != tt.fallback {
				t.Errorf("fallback = %q, want fallback %v", res.Fallback, tt.fallback)
			}
			for _, ch := range res.Chunks {
				if tok := core.EstimateTokens(ch.Text); tok > 600 {
					t.Errorf("chunk lines %d-%d has %d tokens, budget 512", ch.LineStart, ch.LineEnd, tok)
				}
			}
		})
	}
}

// TestQueriesCompile compiles the queries of every language (they are
// otherwise compiled on first use).
func TestQueriesCompile(t *testing.T) {
	for _, name := range Languages() {
		l, err := language(name)
		if err != nil || l == nil || l.factsQuery == nil {
			t.Errorf("language %s: %v", name, err)
		}
	}
}

// TestRustAttributesAndTests: an attribute belongs to the item below it;
// a type and its small impl blocks name the type once; a #[cfg(test)]
// module is test code and never shares a chunk with other code.
func TestRustAttributesAndTests(t *testing.T) {
	src := []byte(`use std::fmt;

#[derive(Debug)]
pub enum StoreError {
    NotFound(i32),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "not found") }
}

impl std::error::Error for StoreError {}

pub fn find(id: i32) -> Result<(), StoreError> { Err(StoreError::NotFound(id)) }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_fails() { assert!(find(1).is_err()); }
}
`)
	res := chunkFile(t, newChunker(t), "src/store.rs", src)
	var symbols []string
	tests := 0
	for _, c := range res.Chunks {
		symbols = append(symbols, c.SymbolName)
		if c.Meta["test"] == "true" {
			tests++
			if !strings.HasPrefix(c.Text, "#[cfg(test)]") || strings.Contains(c.Text, "pub fn find") {
				t.Errorf("test chunk %q holds other code or misses its attribute:\n%s", c.SymbolName, c.Text)
			}
		} else if strings.Contains(c.Text, "mod tests") {
			t.Errorf("chunk %q holds the test module but is not marked test code", c.SymbolName)
		}
		if strings.Contains(c.SymbolName, "StoreError, StoreError") {
			t.Errorf("symbol %q names the type twice", c.SymbolName)
		}
		if strings.HasSuffix(strings.TrimSpace(c.Text), "#[derive(Debug)]") {
			t.Errorf("chunk %q ends with the next item's attribute", c.SymbolName)
		}
	}
	if tests != 1 {
		t.Errorf("%d test chunks, want 1; symbols %q", tests, symbols)
	}
}

// TestRustLargeTestModule: a #[cfg(test)] module over the budget is cut
// into its members, and every one of them is still test code.
func TestRustLargeTestModule(t *testing.T) {
	var b strings.Builder
	b.WriteString("pub fn total(xs: &[i64]) -> i64 { xs.iter().sum() }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n")
	for i := 0; i < 40; i++ {
		// Helpers have no #[test] of their own: they are test code for
		// the module they are in.
		attr := "#[test]\n    "
		if i%4 == 0 {
			attr = ""
		}
		fmt.Fprintf(&b, "\n    %sfn total_of_%d_items() {\n        let xs: Vec<i64> = (0..%d).collect();\n        assert_eq!(total(&xs), (0..%d).sum::<i64>());\n    }\n", attr, i, i, i)
	}
	b.WriteString("}\n")
	res := chunkFile(t, newChunker(t), "src/total.rs", []byte(b.String()))
	if len(res.Chunks) < 3 {
		t.Fatalf("the module was not cut: %d chunks", len(res.Chunks))
	}
	for _, c := range res.Chunks {
		inTests := strings.Contains(c.Text, "total_of_") || strings.Contains(c.Text, "mod tests")
		if inTests != (c.Meta["test"] == "true") {
			t.Errorf("chunk %q (lines %d-%d): test code %v, marked %q", c.SymbolName, c.LineStart, c.LineEnd, inTests, c.Meta["test"])
		}
	}
}

// TestContainerOpeningBrace: when a class-like definition over the budget
// is cut into its signature and its members, the body's opening brace
// stays with the signature ("impl Certificate {"), even when a member's
// doc comment follows it directly; no member's chunk starts with it.
func TestContainerOpeningBrace(t *testing.T) {
	member := map[string]string{
		"src/tls.rs":          "    /// Parses certificate number %d from DER bytes and checks its chain.\n    pub fn parse_%d(der: &[u8]) -> Result<Certificate, Error> {\n        let chain = verify(der, %d)?;\n        Ok(Certificate { der: der.to_vec(), chain })\n    }\n",
		"Billing/Invoices.cs": "    /// <summary>Totals invoice %d with its taxes and discounts applied.</summary>\n    public decimal Total%d(Invoice invoice) {\n        return invoice.Lines.Sum(l => l.Amount * %d) - invoice.Discount;\n    }\n",
		"src/Invoices.java":   "    /** Totals invoice %d with its taxes and discounts applied. */\n    public BigDecimal total%d(Invoice invoice) {\n        return invoice.lines().stream().map(l -> l.amount().multiply(BigDecimal.valueOf(%d))).reduce(BigDecimal.ZERO, BigDecimal::add);\n    }\n",
		"src/invoices.ts":     "  /** Totals invoice %d with its taxes and discounts applied. */\n  total%d(invoice: Invoice): number {\n    return invoice.lines.reduce((s, l) => s + l.amount * %d, 0) - invoice.discount;\n  }\n",
	}
	head := map[string][2]string{
		"src/tls.rs":          {"impl Certificate {\n", "}\n"},
		"Billing/Invoices.cs": {"public class Invoices {\n", "}\n"},
		"src/Invoices.java":   {"public class Invoices {\n", "}\n"},
		"src/invoices.ts":     {"export class Invoices {\n", "}\n"},
	}
	for path, m := range member {
		t.Run(path, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(head[path][0])
			// The first member's doc comment makes it larger than the
			// members the signature takes along.
			for i := 0; i < 12; i++ {
				b.WriteString(strings.SplitN(m, "%d", 2)[0] + "and the rounding rules of each currency the invoice is billed in\n")
			}
			for i := 0; i < 30; i++ {
				fmt.Fprintf(&b, m, i, i, i)
				b.WriteString("\n")
			}
			b.WriteString(head[path][1])
			res := chunkFile(t, newChunker(t), path, []byte(b.String()))
			if len(res.Chunks) < 3 {
				t.Fatalf("%d chunks: want the container cut into members", len(res.Chunks))
			}
			if first := strings.TrimSpace(res.Chunks[0].Text); !strings.HasSuffix(strings.SplitN(first, "\n", 2)[0], "{") {
				t.Errorf("first chunk starts %q: want the signature with its opening brace", strings.SplitN(first, "\n", 2)[0])
			}
			for _, c := range res.Chunks[1:] {
				if strings.HasPrefix(strings.TrimSpace(c.Text), "{") {
					t.Errorf("chunk %q (lines %d-%d) starts with the body's opening brace", c.SymbolName, c.LineStart, c.LineEnd)
				}
			}
		})
	}
}

// TestKubernetesResourcePerDocument: each document's resource is recorded
// once, on its document's first chunk, at the line of its first key —
// also when a large document before it is cut into windows and a Helm
// comment heads each document (a rendered chart).
func TestKubernetesResourcePerDocument(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\n# Source: shop/templates/sa.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: shop\n")
	b.WriteString("---\n# Source: shop/templates/init.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: shop-init\nstringData:\n  init.sh: |-\n")
	for i := range 400 {
		fmt.Fprintf(&b, "    echo \"configuring setting number %d of the shop installation\"\n", i)
	}
	b.WriteString("---\n# Source: shop/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: shop\nspec:\n  replicas: 2\n")
	src := b.String()
	res := chunkFile(t, newChunker(t), "deploy/shop.yaml", []byte(src))
	var got []string
	for _, c := range res.Chunks {
		for _, r := range c.Resources {
			got = append(got, fmt.Sprintf("%s %s %d", r.Kind, r.Name, r.Line))
		}
	}
	line := func(s string) int { return strings.Count(src[:strings.Index(src, s)], "\n") + 1 }
	want := []string{
		fmt.Sprintf("ServiceAccount shop %d", line("apiVersion: v1\nkind: ServiceAccount")),
		fmt.Sprintf("Secret shop-init %d", line("apiVersion: v1\nkind: Secret")),
		fmt.Sprintf("Deployment shop %d", line("apiVersion: apps/v1")),
	}
	if !slices.Equal(got, want) {
		t.Errorf("resources %q, want %q", got, want)
	}
	if len(res.Chunks) < 4 {
		t.Errorf("%d chunks: the Secret was not cut into windows, the test does not test that", len(res.Chunks))
	}
}

func TestWorkloadImagesAreItsContainers(t *testing.T) {
	src := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger
spec:
  template:
    spec:
      initContainers:
        - name: wait-for-db
          image: busybox:1.36
      containers:
        - name: ledger
          image: ghcr.io/acme/ledger:2.3
        - name: proxy
          image: envoyproxy/envoy:v1.30
`
	res := chunkFile(t, newChunker(t), "k8s/ledger.yaml", []byte(src))
	var images []string
	meta := ""
	for _, c := range res.Chunks {
		for _, r := range c.Resources {
			images = append(images, r.Images...)
		}
		if c.Meta["images"] != "" {
			meta = c.Meta["images"]
		}
	}
	if want := "ghcr.io/acme/ledger:2.3 envoyproxy/envoy:v1.30"; strings.Join(images, " ") != want {
		t.Errorf("workload images %q, want its containers' %q", images, want)
	}
	if want := "ghcr.io/acme/ledger:2.3, envoyproxy/envoy:v1.30, busybox:1.36"; meta != want {
		t.Errorf("meta images %q, want %q", meta, want)
	}
}

// TestBareHeaderJoinsFirstChunk: a file header that is one package or
// namespace line and nothing else, or little more (one import, a short
// comment), is not a chunk of its own (it answered searches by its path
// alone); it joins the first declaration. A header with several imports or
// a longer comment stays a chunk.
func TestBareHeaderJoinsFirstChunk(t *testing.T) {
	decl := map[string]string{
		"queue/pqueue.go": "type inFlightQueue []*Message\n\n// Len reports how many messages are in flight.\nfunc (q inFlightQueue) Len() int { return len(q) }\n",
		"src/Queue.java":  "public class Queue {\n    /** Reports how many messages are in flight. */\n    public int len() { return this.items.size() + this.deferred.size(); }\n}\n",
		"src/main/java/org/example/payments/settlement/reconciliation/Batch.java": "/**\n * A day's card payments, netted per merchant.\n **/\npublic class Batch {\n    private long merchantId;\n    private double net;\n}\n",
		"Billing/Totals.cs": "public static class Totals {\n    /// <summary>Sums the invoice lines.</summary>\n    public static decimal Sum(Invoice i) => i.Lines.Sum(l => l.Amount);\n}\n",
	}
	header := map[string][2]string{
		"queue/pqueue.go": {"package queue\n\nimport \"sync\"\n\n", "package queue\n\nimport (\n\t\"container/heap\"\n\t\"sync\"\n\t\"time\"\n)\n\n"},
		"src/Queue.java":  {"package com.shop.queue;\n\n", "package com.shop.queue;\n\nimport java.util.List;\nimport java.util.concurrent.locks.ReentrantLock;\n\n"},
		"src/main/java/org/example/payments/settlement/reconciliation/Batch.java": {"package org.example.payments.settlement.reconciliation;\n\n", "package org.example.payments.settlement.reconciliation;\n\nimport java.util.Objects;\nimport java.time.Duration;\n\n"},
		"Billing/Totals.cs": {"// Totals.\nnamespace Shop.Billing;\n\n", "// Totals of invoices, summed per line and rounded per currency.\nnamespace Shop.Billing;\n\n"},
	}
	for path, body := range decl {
		for i, h := range header[path] {
			bare := i == 0
			t.Run(fmt.Sprintf("%s/bare=%v", path, bare), func(t *testing.T) {
				res := chunkFile(t, newChunker(t), path, []byte(h+body))
				if len(res.Chunks) == 0 {
					t.Fatal("no chunks")
				}
				first := res.Chunks[0]
				if bare {
					if first.SymbolKind == "header" || first.LineStart != 1 || !strings.Contains(first.Text, strings.TrimSpace(body[:20])) {
						t.Errorf("first chunk %s %q lines %d-%d: want the declaration from line 1, header joined", first.SymbolKind, first.SymbolName, first.LineStart, first.LineEnd)
					}
				} else if first.SymbolKind != "header" {
					t.Errorf("first chunk %s %q: want the header with its imports or comment as a chunk", first.SymbolKind, first.SymbolName)
				}
			})
		}
	}
}

// FuzzCode chunks arbitrary source as each language the fixtures are in:
// the parse, the fact readers and the expression evaluator must not panic
// on any input, and the chunks must stay inside the file.
func FuzzCode(f *testing.F) {
	c := newChunker(f)
	names := []string{"inventory.go", "pricing.py", "orders.ts", "stock.js", "RateShopper.cs", "InvoiceController.java", "tally.rs"}
	for i, name := range names {
		src, err := os.ReadFile(filepath.Join("testdata", "code", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, uint8(i))
	}
	f.Add([]byte("package main\nvar a = b + a\nvar b = a + b\nfunc f() { g(os.Getenv(\"X\") + a) }\n"), uint8(0))
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		if len(src) > 64<<10 {
			return
		}
		name := names[int(which)%len(names)]
		lang, corpus := discover.Classify(name)
		base := core.Chunk{SourceURI: "repo/" + name, FilePath: name, Language: lang, Corpus: corpus, RepoName: "repo"}
		res, _, err := c.File(src, base)
		if err != nil {
			return // a clear error is an answer
		}
		for i, ch := range res.Chunks {
			if ch.ByteStart < 0 || ch.ByteEnd > len(src) || ch.ByteStart > ch.ByteEnd {
				t.Fatalf("chunk %d range [%d,%d) outside %d bytes", i, ch.ByteStart, ch.ByteEnd, len(src))
			}
		}
	})
}

// TestFlowJavaScript: JavaScript with Flow annotations is chunked along
// the TSX grammar's tree, its chunks stay javascript, and a file that
// neither grammar reads is still windowed with the reason.
func TestFlowJavaScript(t *testing.T) {
	c := newChunker(t)
	src, err := os.ReadFile(filepath.Join("testdata", "code", "shipments.js"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		src      []byte
		fallback bool
		symbol   string // a declaration the chunks must find
	}{
		{"flow", src, false, "quoteParcel"},
		{"broken", []byte("function (((( {\n  ]] ) => <<\n}}}} ))\n" + strings.Repeat("@@ ## $$ ((\n", 20)), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := chunkFile(t, c, "src/shipments.js", tt.src)
			if got := res.Fallback != ""; got != tt.fallback {
				t.Fatalf("fallback %q, want fallback %v", res.Fallback, tt.fallback)
			}
			found := tt.symbol == ""
			for _, ch := range res.Chunks {
				if ch.Language != "javascript" {
					t.Errorf("chunk %s:%d is %q, want javascript", ch.FilePath, ch.LineStart, ch.Language)
				}
				found = found || ch.SymbolName == tt.symbol
			}
			if !found {
				t.Errorf("no chunk declares %s: the Flow-typed file was not read along its syntax", tt.symbol)
			}
		})
	}
}

// TestCrumbsJoinNeighbours: a nameless statement of a few tokens (the
// module.exports line after a class, 'use strict' before a function, a
// script's main guard) joins the chunk next to it instead of being a chunk
// that only its file's path could find.
func TestCrumbsJoinNeighbours(t *testing.T) {
	body := strings.Repeat("    total += line.amount * line.quantity;\n", 30)
	tests := []struct {
		path, src string
	}{
		{"lib/invoice.js", "'use strict';\n\nclass Invoice {\n  total(lines) {\n    let total = 0;\n    for (const line of lines) {\n" + body + "    }\n    return total;\n  }\n}\n\nmodule.exports = Invoice;\n"},
		{"lib/generate.js", "'use strict';\nmodule.exports = function generate(lines) {\n  let total = 0;\n  for (const line of lines) {\n" + strings.Repeat(body, 6) + "  }\n  return total;\n};\n"},
		{"tools/reindex.py", "import sys\n\n\ndef main():\n    \"\"\"Rebuilds the search index of every shop.\"\"\"\n    for shop in sys.argv[1:]:\n        print(shop)\n\n\nif __name__ == \"__main__\":\n    main()\n"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := chunkFile(t, newChunker(t), tt.path, []byte(tt.src))
			checkInvariants(t, tt.src, res.Chunks)
			for _, c := range res.Chunks {
				if c.SymbolName == "" && core.EstimateTokens(c.Text) <= crumbTokens {
					t.Errorf("lines %d-%d %q are a chunk of their own", c.LineStart, c.LineEnd, c.Text)
				}
			}
		})
	}
}

// TestBareSignatureTakesFirstMember: a class too big for one chunk whose
// signature has nothing under it (no docstring, no fields) is not a chunk
// of one line: the signature takes its first member, whatever its size,
// and the chunk is named for both.
func TestBareSignatureTakesFirstMember(t *testing.T) {
	doc := strings.Repeat("        :param workspace_sid: the workspace that holds the task queue\n", 12)
	step := strings.Repeat("        this.emit('progress', { step: this.step++, total: this.total });\n", 14)
	tests := []struct {
		path, src, want string
	}{
		{"twilio/task_queues.py", "class TaskQueuesStatisticsList(ListResource):\n\n    def __init__(self, version, workspace_sid):\n        \"\"\"\n        Initialize the TaskQueuesStatisticsList\n\n" + doc + "        \"\"\"\n        super().__init__(version)\n        self._uri = '/Workspaces/{}/TaskQueues/Statistics'.format(workspace_sid)\n\n" +
			strings.Repeat("    def stream_%[1]d(self, limit=None):\n        \"\"\"Streams the statistics of page %[1]d.\"\"\"\n"+doc+"        return self._version.stream(self.page(limit))\n\n", 4),
			"TaskQueuesStatisticsList, __init__"},
		{"lib/api.js", "class Api extends EventEmitter {\n  constructor(token) {\n    super();\n" + step + "  }\n\n" +
			strings.Repeat("  async send(method, params) {\n"+step+"    return this.request(method, params);\n  }\n\n", 5) + "}\n",
			"Api, constructor"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := chunkFile(t, newChunker(t), tt.path, []byte(tt.src))
			checkInvariants(t, tt.src, res.Chunks)
			if len(res.Chunks) < 2 {
				t.Fatalf("%d chunks; want the class cut into several", len(res.Chunks))
			}
			if first := res.Chunks[0]; first.SymbolName != tt.want || first.LineEnd == first.LineStart {
				t.Errorf("first chunk %s %q lines %d-%d; want %q with its first member", first.SymbolKind, first.SymbolName, first.LineStart, first.LineEnd, tt.want)
			}
		})
	}
}

// TestKeepSmall: with Options.KeepSmall (the model's miner) the pieces a
// crawl joins to a neighbour stay chunks of their own: a one-import
// header, a nameless crumb, a package line of more than 8 tokens, a bare
// class signature; a short package line still joins.
func TestKeepSmall(t *testing.T) {
	body := strings.Repeat("    total += line.amount * line.quantity;\n", 30)
	step := strings.Repeat("        this.emit('progress', { step: this.step++, total: this.total });\n", 14)
	tests := []struct {
		path, src string
		joined    string // the first line of a chunk a crawl makes, which KeepSmall's chunks start elsewhere
		alone     string // the text of a chunk KeepSmall keeps apart, "" for none
	}{
		{"src/options.ts", "import type { Tenant } from './tenant';\n\nexport interface ReindexOptions {\n  tenant: Tenant;\n  full: boolean;\n}\n", "import type { Tenant } from './tenant';", "import type { Tenant } from './tenant';"},
		{"lib/invoice.js", "class Invoice {\n  total(lines) {\n    let total = 0;\n    for (const line of lines) {\n" + body + "    }\n    return total;\n  }\n}\n\nmodule.exports = Invoice;\n", "class Invoice {", "module.exports = Invoice;"},
		{"src/main/java/org/example/invoicing/settlement/Batch.java", "package org.example.invoicing.settlement.batch;\n\nclass Batch {\n    long total() { return 0; }\n}\n", "package org.example.invoicing.settlement.batch;", "package org.example.invoicing.settlement.batch;"},
		{"lib/api.js", "class Api extends EventEmitter {\n  constructor(token) {\n    super();\n" + step + "  }\n\n" +
			strings.Repeat("  async send(method, params) {\n"+step+"    return this.request(method, params);\n  }\n\n", 5) + "}\n", "class Api extends EventEmitter {", "class Api extends EventEmitter {"},
		{"invoicing/batch.go", "package invoicing\n\nfunc Total() int { return 0 }\n", "package invoicing", ""},
	}
	kept, err := New(Options{KeepSmall: true})
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			crawl := chunkFile(t, newChunker(t), tt.path, []byte(tt.src))
			if !slices.ContainsFunc(crawl.Chunks, func(c core.Chunk) bool {
				return strings.HasPrefix(c.Text, tt.joined) && strings.TrimSpace(c.Text) != tt.joined
			}) {
				t.Fatalf("a crawl's chunks %q: want %q joined to a neighbour", texts(crawl.Chunks), tt.joined)
			}
			res := chunkFile(t, kept, tt.path, []byte(tt.src))
			checkInvariants(t, tt.src, res.Chunks)
			if tt.alone == "" {
				if len(res.Chunks) != len(crawl.Chunks) {
					t.Errorf("KeepSmall chunks %q; want a crawl's %q", texts(res.Chunks), texts(crawl.Chunks))
				}
				return
			}
			if !slices.ContainsFunc(res.Chunks, func(c core.Chunk) bool { return strings.TrimSpace(c.Text) == tt.alone }) {
				t.Errorf("KeepSmall chunks %q; want %q a chunk of its own", texts(res.Chunks), tt.alone)
			}
		})
	}
}

// TestTimedOutParserNotReused: a parse that runs past the chunker's
// timeout falls back to windows, and the next file of that language still
// parses: tree-sitter 0.25 aborted the process on an assertion when a
// parser whose parse was cancelled was reset and used again.
func TestTimedOutParserNotReused(t *testing.T) {
	c, err := New(Options{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	slow := []byte(strings.Repeat("x => ", 1500)) // error recovery over a lambda chain: seconds to parse
	for i := range 2 {
		res := chunkFile(t, c, "src/main/java/Chain.java", slow)
		if !strings.Contains(res.Fallback, "parse took longer than") {
			t.Fatalf("round %d: fallback %q, want the timeout", i, res.Fallback)
		}
		ok := chunkFile(t, c, "src/main/java/Ledger.java", []byte("class Ledger {\n    long balance() { return 0; }\n}\n"))
		if ok.Fallback != "" || len(ok.Chunks) == 0 || ok.Chunks[0].SymbolName != "Ledger" {
			t.Fatalf("round %d: the next file: fallback %q, %d chunks", i, ok.Fallback, len(ok.Chunks))
		}
	}
}

// TestSlowParseNotWaitedFor: a parse that runs far past the chunker's
// timeout (tree-sitter looks at its clock only between parse actions) is
// not waited for; it runs on and closes its parser when it returns. Past
// the bound on such parses, a parse is waited for. (A real one: a Java
// file of "x =>" lines, seconds after tree-sitter last looks at its
// clock; how long depends on the machine, so the parse here is a
// function that returns when the test lets it.)
func TestSlowParseNotWaitedFor(t *testing.T) {
	settled := func() bool {
		for deadline := time.Now().Add(time.Minute); abandonedParses.Load() != 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				return false
			}
		}
		return true
	}
	if !settled() {
		t.Fatal("a parse another test left running never returned")
	}
	release := make(chan struct{})
	closed := make(chan bool, 1)
	slow := func() *ts.Tree { <-release; return nil }
	tree, done := waitBounded(time.Millisecond, slow, func() { closed <- true })
	if tree != nil || done {
		t.Fatalf("waitBounded = %v, %v; want no tree and not done", tree, done)
	}
	if n := abandonedParses.Load(); n != 1 {
		t.Fatalf("%d parses left running, want 1", n)
	}
	// At the bound the next parse is waited for, however slow.
	saved := maxAbandonedParses
	maxAbandonedParses = 1
	defer func() { maxAbandonedParses = saved }()
	calls := 0
	if _, done := waitBounded(time.Nanosecond, func() *ts.Tree { calls++; return nil }, func() {}); !done || calls != 1 {
		t.Errorf("at the bound: done %v after %d calls, want it waited for", done, calls)
	}
	close(release)
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("the parser of the parse left running was never closed")
	}
	if !settled() {
		t.Fatal("the parse left running is still counted after it returned")
	}
}

// texts returns the chunks' texts, for messages.
func texts(chunks []core.Chunk) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c.Text)
	}
	return out
}
