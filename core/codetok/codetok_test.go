package codetok

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "update golden files")

// render writes tokens compactly: colocated tokens get a leading '+'.
func render(toks []Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		if t.Colocated {
			b.WriteByte('+')
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// Cases is the shared table: the C tokenizer's test reads its inputs from the
// golden file this test writes.
var cases = []struct {
	name, in, want string
}{
	{"camel", "getUserProfile", "get +getuserprofile user profile"},
	{"japanese run", "決済サービス", "決済 済サ サー ービ ビス"},
	{"japanese sentence", "データベースの接続を確認", "デー ータ タベ ベー ース スの の接 接続 続を を確 確認"},
	{"cjk one character", "値 = 1", "値 1"},
	{"cjk after an identifier", "API呼び出し", "api 呼び び出 出し"},
	{"cjk inside an identifier", "get用户Name", "get 用户 name"},
	{"chinese with full-width punctuation", "支付服务，数据库。", "支付 付服 服务 数据 据库"},
	{"korean words", "결제 서비스", "결제 서비 비스"},
	{"half-width katakana", "ｻｰﾋﾞｽ", "ｻｰ ｰﾋ ﾋﾞ ﾞｽ"},
	{"cjk extension b", "𠀀𠀁", "𠀀𠀁"},
	{"pascal", "GetUserProfile", "get +getuserprofile user profile"},
	{"snake", "get_user_profile", "get +getuserprofile user profile"},
	{"screaming snake", "MAX_RETRY_COUNT", "max +maxretrycount retry count"},
	{"kebab", "user-profile", "user +userprofile profile"},
	{"dotted call", "http.Get", "http +http.get get"},
	{"dotted chain", "api.getUserProfile", "api +api.getuserprofile get +getuserprofile user profile"},
	{"acronym leading", "HTTPServer", "http +httpserver server"},
	{"acronym trailing", "parseJSON", "parse +parsejson json"},
	{"acronym middle", "newHTTPClientFor", "new +newhttpclientfor http client for"},
	{"acronym two letters", "IOError", "io +ioerror error"},
	{"acronym run", "HTTPSServer", "https +httpsserver server"},
	{"plural acronym", "URLs", "urls"},
	{"plural acronym inside", "parseURLsFast", "parse +parseurlsfast urls fast"},
	{"plural ids", "userIDs", "user +userids ids"},
	{"all caps", "HTTP", "http"},
	{"digits trailing", "sha256", "sha +sha256 256"},
	{"digits inside", "v1beta1", "v +v1beta1 1 beta 1"},
	{"digits leading", "2fa", "2 +2fa fa"},
	{"digits in camel", "base64Encode", "base +base64encode 64 encode"},
	{"number", "8080", "8080"},
	{"namespace default", "namespace: default", "default"},
	{"version", "v1.2.3", "v +v1.2.3 +v1 1 2 3"},
	{"ip address", "10.0.0.12", "10 +10.0.0.12 0 0 12"},
	{"dns name", "cart.default.svc.cluster.local", "cart +cart.default.svc.cluster.local default svc cluster local"},
	{"url", "http://catalog:8000/products/{id}", "http catalog 8000 products id"},
	{"env var", "CART_SERVICE_ADDR=cart:7070", "cart +cartserviceaddr service addr cart 7070"},
	{"dunder", "__init__", "init"},
	{"dunder file", "__init__.py", "init +init.py py"},
	{"leading underscore", "_privateField", "private +privatefield field"},
	{"lone underscore", "_", ""},
	{"stop word alone", "return", ""},
	{"stop words in code", "func (s *Server) Start() error { return nil }", "s server start error"},
	{"stop word inside identifier", "forEach", "for +foreach each"},
	{"stop word capitalized", "None", ""},
	{"python keywords at the end", "x = True, False\nreturn None", "x"},
	{"go method named by a keyword", "func (m *Map) Range(f func(key, value any) bool)", "m map range f key value any bool"},
	{"go constructor named New", "func New[T any]() *List[T] { return new(List[T]) }", "new t any list t list t"},
	{"csharp method named by a keyword", "public static void Import(string path)", "import string path"},
	{"symbol list of keyword names", "Do, Is, Reader", "do is reader"},
	{"symbol named by a keyword", "Range", "range"},
	{"article before a parenthesis", "Plan A (the default), B", "plan default b"},
	{"sentence starting with a keyword", "Do not restart the cart. If it fails, page", "restart cart it fails page"},
	{"stop word in snake", "is_valid", "is +isvalid valid"},
	{"sentence", "The cart service is down.", "cart service down"},
	{"trailing dot", "restart cart.", "restart cart"},
	{"double dot", "a..b", "b"},
	{"leading dash", "--dry-run", "dry +dryrun run"},
	{"mixed separators", "foo.bar-baz_qux", "foo +foo.barbazqux bar baz +bazqux qux"},
	{"punctuation run", "!!!???;;;", ""},
	{"operators", "a+=b*c", "b c"},
	{"empty", "", ""},
	{"whitespace only", " \t\n\r ", ""},
	{"latin1 capitals", "ÜberService", "über +überservice service"},
	{"accents lower", "naïveParser", "naïve +naïveparser parser"},
	{"greek", "ΑλφαBeta", "αλφα +αλφαbeta beta"},
	{"cyrillic", "ПриветМир", "привет +приветмир мир"},
	{"cjk", "配置ファイル", "配置 置フ ファ ァイ イル"},
	{"emoji separator", "deploy🚀prod", "deploy prod"},
	{"em dash separator", "cart—checkout", "cart checkout"},
	{"nbsp separator", "cart\u00a0checkout", "cart checkout"},
	{"invalid utf8", "bad\xffbyte", "bad byte"},
	{"truncated utf8", "end\xc3", "end"},
	{"overlong utf8", "x\xc0\xafy", "x y"},
	{"surrogate utf8", "x\xed\xa0\x80y", "x y"},
	{"slack mention", "<@U024BE7LH> restarted checkout", "u +u024be7lh 024 be 7 lh restarted checkout"},
	{"hashtag", "#incident-cart", "incident +incidentcart cart"},
	{"csharp generic", "IRepository<Order>", "i +irepository repository order"},
	{"go qualified", "pb.NewCartServiceClient(conn)", "pb +pb.newcartserviceclient new +newcartserviceclient cart service client conn"},
	{"python decorator", "@app.get(\"/products/{product_id}\")", "app +app.get get products product +productid id"},
	{"ts arrow", "const getUser = async (id: string) =>", "get +getuser user id string"},
	{"yaml key", "containerPort: 8080", "container +containerport port 8080"},
	{"path", "services/checkout/internal/handler.go", "services checkout internal handler +handler.go go"},
}

func TestTokenize(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := render(Tokenize(c.in))
			if got != c.want {
				t.Errorf("Tokenize(%q) mismatch (-want +got):\n%s", c.in, cmp.Diff(c.want, got))
			}
		})
	}
}

func TestQueryTokens(t *testing.T) {
	tests := []struct{ in, want string }{
		{"getUserProfile", "getuserprofile"},
		{"GetUserProfile", "getuserprofile"},
		{"get_user_profile", "getuserprofile"},
		{"GET-USER-PROFILE", "getuserprofile"},
		{"http.Get", "http.get"},
		{"api.getUserProfile", "api.getuserprofile"},
		{"user profile", "user profile"},
		{"get user profile", "get user profile"},
		{"return", ""},
		{"Range", "range"},
		{"New(", "new"},
		{"New client", "client"},
		{"forEach", "foreach"},
		{"cart.default.svc", "cart.default.svc"},
		{"8080", "8080"},
		{strings.Repeat("PartOne", 30), strings.TrimSpace(strings.Repeat("part one ", 30))},
	}
	for _, tt := range tests {
		if got := render(QueryTokens(tt.in)); got != tt.want {
			t.Errorf("QueryTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// goldenCase is one entry of testdata/tokens.golden.json.
// In is for reading; Bytes is the exact input (JSON cannot hold invalid UTF-8
// in a string).
type goldenCase struct {
	Name   string  `json:"name"`
	In     string  `json:"in"`
	Bytes  []byte  `json:"bytes"`
	Tokens []Token `json:"tokens"`
	Query  []Token `json:"query"`
}

// TestTokenizeGolden pins the full output (texts, offsets, colocation) of
// every case; sqlite/internal/cext checks the C tokenizer against this file.
func TestTokenizeGolden(t *testing.T) {
	var got []goldenCase
	for _, c := range cases {
		toks := Tokenize(c.in)
		if toks == nil {
			toks = []Token{}
		}
		q := QueryTokens(c.in)
		if q == nil {
			q = []Token{}
		}
		got = append(got, goldenCase{Name: c.name, In: c.in, Bytes: []byte(c.in), Tokens: toks, Query: q})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "tokens.golden.json")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	if d := cmp.Diff(string(want), buf.String()); d != "" {
		t.Errorf("golden mismatch (-want +got):\n%s", d)
	}
}

func TestLongIdentifiers(t *testing.T) {
	long := strings.Repeat("a", 300)
	toks := Tokenize(long)
	if len(toks) != 1 || len(toks[0].Text) != MaxTokenBytes || toks[0].Start != 0 || toks[0].End != 300 {
		t.Fatalf("Tokenize(300 x a) = %+v, want one token cut to %d bytes covering [0,300)", toks, MaxTokenBytes)
	}
	// A long camel-case identifier keeps its subwords but drops the whole token.
	camel := strings.Repeat("PartOne", 30)
	toks = Tokenize(camel)
	for _, tk := range toks {
		if tk.Colocated {
			t.Fatalf("Tokenize(%d-byte identifier) emitted whole token %q longer than the limit", len(camel), tk.Text)
		}
	}
	if len(toks) != 60 {
		t.Fatalf("Tokenize(30 x PartOne) = %d tokens, want 60", len(toks))
	}
	// Multi-byte text is cut on a code point boundary.
	cut := Tokenize(strings.Repeat("é", 100))
	if len(cut) != 1 || !utf8.ValidString(cut[0].Text) || len(cut[0].Text) != MaxTokenBytes {
		t.Fatalf("Tokenize(100 x é) = %+v, want one valid %d-byte token", cut, MaxTokenBytes)
	}
}

func TestWords(t *testing.T) {
	got := Words("api.getUserProfile(id)")
	want := []string{"api", "get", "user", "profile", "id"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Words mismatch (-want +got):\n%s", d)
	}
}

// checkInvariants verifies what every tokenizer output must satisfy.
func checkInvariants(t *testing.T, in string, toks []Token) {
	t.Helper()
	for i, tk := range toks {
		if tk.Start < 0 || tk.End > len(in) || tk.Start >= tk.End {
			t.Fatalf("token %d %+v has offsets outside [0,%d)", i, tk, len(in))
		}
		if tk.Text == "" || len(tk.Text) > MaxTokenBytes {
			t.Fatalf("token %d %+v has bad length", i, tk)
		}
		if i == 0 && tk.Colocated {
			t.Fatalf("first token %+v is colocated", tk)
		}
		if !utf8.ValidString(tk.Text) {
			t.Fatalf("token %d %q is not valid UTF-8", i, tk.Text)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, c := range cases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkInvariants(t, in, Tokenize(in))
		checkInvariants(t, in, QueryTokens(in))
	})
}

func BenchmarkTokenize(b *testing.B) {
	src := strings.Repeat("func (s *CartServer) GetUserProfile(ctx context.Context, req *pb.GetUserProfileRequest) (*pb.Profile, error) {\n\treturn s.store.Load(ctx, req.UserId)\n}\n", 100)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Each(src, func(Token) {})
	}
}
