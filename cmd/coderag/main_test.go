package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
	"coderag/core/convo"
	"coderag/core/discover"
	"coderag/core/ingest"
	"coderag/sqlite"
	"coderag/sqlite/postgres/pgtest"
)

var sampleDir = filepath.Join("..", "..", "testdata", "sample")

// coderag runs one command line in-process and returns exit code and output.
func coderag(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := &ioStreams{out: &out, err: &errb, termWidth: func() int { return 80 }}
	code := run(context.Background(), args, io)
	return code, out.String(), errb.String()
}

// runCommand runs cmd with its output captured and returns its exit
// status, stdout and stderr; a command that cannot start fails the test.
func runCommand(t testing.TB, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	return code, out.String(), errb.String()
}

var (
	sampleOnce sync.Once
	sampleDB   string
	sampleErr  string
)

// crawlSample crawls the sample workspace once per test binary.
func crawlSample(t *testing.T) string {
	t.Helper()
	sampleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "coderag-sample")
		if err != nil {
			sampleErr = err.Error()
			return
		}
		sampleDB = filepath.Join(dir, "data", "coderag.db")
		var out, errb bytes.Buffer
		io := &ioStreams{out: &out, err: &errb, termWidth: func() int { return 80 }}
		code := run(context.Background(), []string{"crawl", "--db", sampleDB,
			"--repo-path", filepath.Join(sampleDir, "platform"),
			"--repo-path", filepath.Join(sampleDir, "storefront"),
			"--slack-export", "acme-slack=" + filepath.Join(sampleDir, "slack"),
			"--transcripts-dir", filepath.Join(sampleDir, "transcripts"),
			"--gdocs-dir", filepath.Join(sampleDir, "gdocs")}, io)
		if code != 0 {
			sampleErr = "crawl exit " + strconv.Itoa(code) + ": " + errb.String()
		}
	})
	if sampleErr != "" {
		t.Fatal(sampleErr)
	}
	return sampleDB
}

func TestMain(m *testing.M) {
	// The crash and concurrency tests run this test binary as coderag.
	if os.Getenv("CODERAG_AS_BINARY") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], newIO()))
	}
	code := m.Run()
	pgtest.Stop()
	if sampleDB != "" {
		os.RemoveAll(filepath.Dir(filepath.Dir(sampleDB)))
	}
	// The Go standard library index of the real-corpus benchmarks is
	// ~450 MB; a run must not leave it behind.
	if stdDB != "" {
		os.RemoveAll(filepath.Dir(stdDB))
	}
	os.Exit(code)
}

type queryJSON struct {
	Hits []struct {
		ChunkID    string  `json:"chunk_id"`
		FilePath   string  `json:"file_path"`
		LineStart  int     `json:"line_start"`
		LineEnd    int     `json:"line_end"`
		CorpusType string  `json:"corpus_type"`
		Language   string  `json:"language"`
		RepoName   string  `json:"repo_name"`
		Score      float64 `json:"score"`
		Text       string  `json:"text"`
	} `json:"hits"`
}

func TestSampleGetUserProfileQueries(t *testing.T) {
	db := crawlSample(t)
	// Every spelling of the identifier finds its definition first; the two
	// plain words also match user_profile, Profile and fetchProfile, so
	// the definition only has to be among the first five.
	for q, within := range map[string]int{"getUserProfile": 1, "get_user_profile": 1, "GetUserProfile": 1, "user profile": 5} {
		t.Run(q, func(t *testing.T) {
			code, out, errs := coderag(t, "query", "--db", db, "--json", "-k", "5", q)
			if code != 0 {
				t.Fatalf("query exit %d: %s", code, errs)
			}
			var res queryJSON
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("query --json output is not JSON: %v\n%s", err, out)
			}
			rank := 0
			for i, h := range res.Hits {
				if h.RepoName == "storefront" && h.FilePath == "src/clients/accounts.ts" &&
					strings.Contains(h.Text, "export async function getUserProfile") {
					rank = i + 1
					break
				}
			}
			if rank == 0 || rank > within {
				var got []string
				for _, h := range res.Hits {
					got = append(got, h.RepoName+"/"+h.FilePath)
				}
				t.Fatalf("query %q: the chunk defining getUserProfile is at rank %d, want within %d; got %v", q, rank, within, got)
			}
		})
	}
}

func TestSampleEveryAcceptedFileIsIndexed(t *testing.T) {
	db := crawlSample(t)
	code, out, _ := coderag(t, "stats", "--db", db, "--json")
	if code != 0 {
		t.Fatal(out)
	}
	var st struct {
		Chunks   int            `json:"chunks"`
		Files    int            `json:"files"`
		ByCorpus map[string]int `json:"by_corpus"`
		ByRepo   map[string]int `json:"by_repo"`
		ByLang   map[string]int `json:"by_language"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, dir := range []string{"platform", "storefront", "transcripts", "gdocs"} {
		res, err := discover.Walk(context.Background(), os.DirFS(filepath.Join(sampleDir, dir)), discover.Options{Allow: []string{".docx"}})
		if err != nil {
			t.Fatal(err)
		}
		want += len(res.Files)
	}
	exp, err := convo.OpenSlack(filepath.Join(sampleDir, "slack"), convo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want += len(exp.Channels) // one file row per conversation
	exp.Close()
	if st.Files != want || st.Chunks < want {
		t.Errorf("stats: %d files, %d chunks; discovery accepts %d files", st.Files, st.Chunks, want)
	}
	for _, c := range []string{"CODE_LOGIC", "CODE_DEPLOY", "CODE_CONFIG", "DOC_README", "DOC_RUNBOOK", "DOC_ADR",
		"DOC_GOOGLE", "CONVO_SLACK", "CONVO_TRANSCRIPT"} {
		if st.ByCorpus[c] == 0 {
			t.Errorf("no %s chunks in the sample index: %v", c, st.ByCorpus)
		}
	}
	for _, l := range []string{"go", "csharp", "python", "typescript", "yaml", "hcl", "markdown", "dockerfile"} {
		if st.ByLang[l] == 0 {
			t.Errorf("no %s chunks in the sample index: %v", l, st.ByLang)
		}
	}
	// The dev password of docker-compose.yml was scrubbed.
	code, out, _ = coderag(t, "query", "--db", db, "--json", "POSTGRES_PASSWORD")
	if code != 0 || strings.Contains(out, "shop-dev-password") || !strings.Contains(out, "<SECRET>") {
		t.Errorf("query POSTGRES_PASSWORD: exit %d, output holds the password or no placeholder:\n%s", code, out)
	}
}

func TestSampleQueryTextOutput(t *testing.T) {
	db := crawlSample(t)
	code, out, _ := coderag(t, "query", "--db", db, "-k", "3", "redis maxmemory runbook")
	if code != 0 || !strings.Contains(out, "cart-redis-outage.md") || strings.Contains(out, "\x1b[") {
		t.Errorf("query text output (exit %d) lacks the runbook or has colour codes:\n%s", code, out)
	}
}

// TestEdgesGolden checks that every edge of the sample's golden edge list
// points at a real line that holds the call.
func TestEdgesGolden(t *testing.T) {
	f, err := os.Open(filepath.Join(sampleDir, "edges.golden"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 7 || fields[1] != "->" {
			t.Fatalf("bad golden line %q: want source -> target type method path evidence", line)
		}
		n++
		typ, target, evidence := fields[3], fields[2], fields[6]
		file, lineNo, ok := strings.Cut(evidence, ":")
		if !ok {
			t.Fatalf("evidence %q has no line", evidence)
		}
		data, err := os.ReadFile(filepath.Join(sampleDir, file))
		if err != nil {
			t.Errorf("edge %s: %v", line, err)
			continue
		}
		ln, _ := strconv.Atoi(lineNo)
		lines := strings.Split(string(data), "\n")
		if ln < 1 || ln > len(lines) {
			t.Errorf("edge %q: line %d outside %s", line, ln, file)
			continue
		}
		// The URL may be built on the lines just above the call.
		got := strings.ToLower(strings.Join(lines[max(0, ln-4):ln], "\n"))
		var marker string
		switch typ {
		case "http":
			marker = strings.Split(strings.Trim(fields[5], "/"), "/")[0]
			if marker == "" || marker == "-" || strings.HasPrefix(fields[0], "ingress:") {
				marker = target // an Ingress names its backend
			}
		case "queue":
			marker = "topic"
			if strings.Contains(got, "subscribe") || strings.Contains(got, "consumer") {
				marker = ""
			}
		case "db":
			marker = "" // the connection line; checked below
			if !strings.Contains(got, "open") && !strings.Contains(got, "pool") && !strings.Contains(got, "engine") {
				t.Errorf("edge %q: line %d of %s does not open a database: %q", line, ln, file, lines[ln-1])
			}
		case "cache":
			marker = "connect"
		case "smtp":
			marker = "smtp"
		default:
			t.Errorf("edge %q: unknown type %s", line, typ)
		}
		if marker != "" && !strings.Contains(got, strings.ToLower(marker)) {
			t.Logf("lines %d-%d of %s: %q", max(1, ln-3), ln, file, got)
			t.Errorf("edge %q: line %d of %s is %q, want it to mention %q", line, ln, file, lines[ln-1], marker)
		}
	}
	if n < 20 {
		t.Errorf("golden edge list has %d edges, want at least 20", n)
	}
}

func TestBadInputIsSkippedWithReasons(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(filepath.Join(repo, "src"), 0o755)
	write := func(p string, data []byte) {
		if err := os.WriteFile(filepath.Join(repo, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/main.go", []byte("package main\n\nfunc handleOrder() {}\n"))
	write("src/latin1.go", []byte("package main\n// caf\xe9\n"))
	write("src/elf.go", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00"))
	big, err := os.Create(filepath.Join(repo, "src", "huge.sql"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(50 << 20) // 50 MB, sparse
	big.Close()
	os.Symlink("loop", filepath.Join(repo, "src", "loop"))
	os.Symlink(".", filepath.Join(repo, "src", "cycle"))

	db := filepath.Join(dir, "c.db")
	code, out, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--json")
	if code != 0 {
		t.Fatalf("crawl exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum struct {
		Kind    string `json:"kind"`
		Sources []struct {
			Files    int `json:"files"`
			Skipped  []struct{ Path, Reason string }
			Warnings []struct{ Path, Reason string }
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Kind != "summary" {
		t.Fatalf("last JSON line is not the summary: %v\n%s", err, lines[len(lines)-1])
	}
	reasons := map[string]string{}
	for _, s := range sum.Sources[0].Skipped {
		reasons[s.Path] = s.Reason
	}
	for path, want := range map[string]string{
		"src/elf.go":   "binary content",
		"src/huge.sql": "larger than the size limit (50.0 MB > 2.0 MB)",
		"src/loop":     "symlink",
		"src/cycle":    "symlink",
	} {
		if !strings.Contains(reasons[path], want) {
			t.Errorf("skip reason of %s = %q, want %q", path, reasons[path], want)
		}
	}
	// Latin-1 is read as Windows-1252 and indexed, with a warning.
	warned := false
	for _, w := range sum.Sources[0].Warnings {
		warned = warned || w.Path == "src/latin1.go" && strings.Contains(w.Reason, "not valid UTF-8 (first bad byte on line 2): read as Windows-1252")
	}
	if !warned {
		t.Errorf("no warning for src/latin1.go: %+v", sum.Sources[0].Warnings)
	}
	if sum.Sources[0].Files != 2 {
		t.Errorf("indexed %d files, want 2 (main.go, latin1.go)", sum.Sources[0].Files)
	}
	// Every event line is JSON too.
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("crawl --json printed a non-JSON line: %q", l)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"crawl"}, 2, "nothing to crawl: pass --repo-path, --slack-export"},
		{[]string{"crawl", "--transcripts-dir", "main.go"}, 2, "--transcripts-dir main.go is not a directory"},
		{[]string{"crawl", "--slack-export", "/definitely/not/here.zip"}, 1, "no such file or directory"},
		{[]string{"crawl", "--slack-export", "main.go"}, 2, "--slack-export main.go: want the export's folder, its .zip or a .json file of messages"},
		{[]string{"crawl", "--gdocs-dir", "x=.", "--runbooks-dir", "x=."}, 2, `would both be named "x"`},
		{[]string{"crawl", "--repo-path", "x=.", "--runbooks-dir", "x=."}, 2, `would both be named "x"`},
		{[]string{"crawl", "--repo-path", ".", "--classify", "ops/**=nonsense"}, 2, `unknown corpus type "nonsense"`},
		{[]string{"crawl", "--repo-path", ".", "--repo-name", "a", "--repo-name", "b"}, 2, "one name per path"},
		{[]string{"crawl", "--repo-path", "/definitely/not/here"}, 1, "no such file or directory"},
		{[]string{"crawl", "--repo-path", ".", "--max-file-size", "huge"}, 2, "bad size"},
		{[]string{"query"}, 2, "requires at least 1 arg"},
		{[]string{"query", "--db", "/nonexistent/x.db", "foo"}, 1, "run coderag crawl first"},
		{[]string{"stats", "--db", "/nonexistent/x.db"}, 1, "no index"},
		{[]string{"query", "-k", "0", "x"}, 2, "--limit must be positive"},
		{[]string{"context", " "}, 2, "context needs a QUESTION"},
		{[]string{"nosuchcommand"}, 2, "unknown command"},
		{[]string{"stats", "extra"}, 2, "unknown command \"extra\""},
		{[]string{"crawl", "--transcripts", "x"}, 2, "unknown flag: --transcripts (did you mean --transcripts-dir?)"},
		{[]string{"query", "--jsno", "x"}, 2, "unknown flag: --jsno (did you mean --json?)"},
		{[]string{"query", "-c must be at least 1, got 0"}, 2, `(text that starts with - goes after --: coderag query -- "-c must be at least 1, got 0")`},
		{[]string{"stats", "--bd", "x.db"}, 2, "unknown flag: --bd (did you mean --db?)"},
		{[]string{"query", "--zzzzzz", "x"}, 2, "unknown flag: --zzzzzz\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, errs := coderag(t, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tt.code, tt.msg)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := coderag(t, "version", "--json")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["sqlite"] == "" || v["sqlite_vec"] == "" {
		t.Errorf("version --json = %d %q", code, out)
	}
	for _, cmd := range []string{"crawl", "query", "stats"} {
		code, out, _ := coderag(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "Examples:") && !strings.Contains(out, "Example") {
			t.Errorf("%s --help = %d %q", cmd, code, out)
		}
	}
}

// TestSampleCallsAndRoutes requires every HTTP call, queue publish and
// subscription, database and cache connection and route of the sample to
// be found with the right method, path or topic — and nothing else.
func TestSampleCallsAndRoutes(t *testing.T) {
	dbPath := crawlSample(t)
	db, err := sqlite.Open(context.Background(), dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	calls, err := db.Calls(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var gotCalls []string
	for _, c := range calls {
		s := fmt.Sprintf("%s/%s:%d %s %s %s", c.Repo, c.File, c.Line, c.Kind, c.Method, c.Target)
		if c.Base != "" {
			s += " base=" + c.Base
		}
		gotCalls = append(gotCalls, strings.TrimSpace(s))
	}
	wantCalls := []string{
		"platform/services/accounts/accounts/models.py:8 db  {DATABASE_URL}",
		"platform/services/cart/Program.cs:8 cache  {Redis:Configuration}",
		"platform/services/cart/Program.cs:15 client  {Services:Catalog} base=config:Services:Catalog",
		"platform/services/cart/Services/CatalogClient.cs:23 http GET /products/{productId}",
		"platform/services/catalog/app/db.py:10 db  {DATABASE_URL}",
		"platform/services/catalog/app/stock_worker.py:30 subscribe  orders.placed",
		"platform/services/checkout/clients.go:51 http GET /api/cart/{userID} base=expr:c.base",
		"platform/services/checkout/clients.go:68 http DELETE /api/cart/{userID} base=expr:c.base",
		"platform/services/checkout/clients.go:102 http GET /users/{userID}/profile base=expr:c.base",
		"platform/services/checkout/clients.go:141 http POST /v1/charges base=expr:c.base",
		"platform/services/checkout/events.go:25 publish  orders.placed",
		"platform/services/checkout/main.go:52 db  {DatabaseURL}",
		"platform/services/notifications/src/accounts.ts:13 http GET /users/{userId}/profile base=env:ACCOUNTS_URL",
		"platform/services/notifications/src/consumer.ts:30 subscribe  orders.placed",
		"storefront/src/clients/accounts.ts:23 http GET /users/{userId}/profile base=env:ACCOUNTS_URL",
		"storefront/src/clients/cart.ts:12 http GET /api/cart/{userId} base=env:CART_SERVICE_ADDR",
		"storefront/src/clients/cart.ts:21 http POST /api/cart/{userId}/items base=env:CART_SERVICE_ADDR",
		"storefront/src/clients/catalog.ts:4 client  {CATALOG_URL} base=env:CATALOG_URL",
		"storefront/src/clients/catalog.ts:18 http GET /products base=env:CATALOG_URL",
		"storefront/src/clients/catalog.ts:24 http GET /products/{productId} base=env:CATALOG_URL",
		"storefront/src/clients/checkout.ts:4 client  {CHECKOUT_URL} base=env:CHECKOUT_URL",
		"storefront/src/clients/checkout.ts:17 http POST /v1/checkout base=env:CHECKOUT_URL",
	}
	if d := cmp.Diff(wantCalls, gotCalls); d != "" {
		t.Errorf("calls of the sample (-want +got):\n%s", d)
	}

	routes, err := db.Routes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var gotRoutes []string
	for _, r := range routes {
		gotRoutes = append(gotRoutes, fmt.Sprintf("%s/%s:%d %s %s %s", r.Repo, r.File, r.Line, r.Method, r.Path, r.Framework))
	}
	wantRoutes := []string{
		"platform/services/accounts/accounts/app.py:18 GET /users/{user_id}/profile flask",
		"platform/services/accounts/accounts/app.py:28 POST /users flask",
		"platform/services/accounts/accounts/app.py:43 POST /sessions flask",
		"platform/services/accounts/accounts/app.py:57 GET /healthz flask",
		"platform/services/cart/Controllers/CartController.cs:27 GET /api/cart/{userId} aspnet",
		"platform/services/cart/Controllers/CartController.cs:38 POST /api/cart/{userId}/items aspnet",
		"platform/services/cart/Controllers/CartController.cs:58 DELETE /api/cart/{userId} aspnet",
		"platform/services/cart/Program.cs:24 GET /healthz aspnet-minimal",
		"platform/services/catalog/app/main.py:33 GET /products fastapi",
		"platform/services/catalog/app/main.py:39 GET /products/{product_id} fastapi",
		"platform/services/catalog/app/main.py:48 GET /products/{product_id}/stock fastapi",
		"platform/services/catalog/app/main.py:57 GET /healthz fastapi",
		"platform/services/checkout/main.go:70 POST /v1/checkout net/http",
		"platform/services/checkout/main.go:71 GET /v1/orders/{id} net/http",
		"platform/services/checkout/main.go:72 GET /healthz net/http",
		"storefront/src/routes/account.ts:8 GET /api/me express",
		"storefront/src/routes/cart.ts:7 GET /api/cart express",
		"storefront/src/routes/cart.ts:20 POST /api/cart/items express",
		"storefront/src/routes/checkout.ts:7 POST /api/checkout express",
		"storefront/src/routes/products.ts:6 GET /api/products express",
		"storefront/src/routes/products.ts:14 GET /api/products/{id} express",
		"storefront/src/server.ts:17 GET /healthz express",
	}
	if d := cmp.Diff(wantRoutes, gotRoutes); d != "" {
		t.Errorf("routes of the sample (-want +got):\n%s", d)
	}
}

// TestConversationsAndDocsEndToEnd queries what the Slack export,
// transcripts and Google Docs of the sample say.
func TestConversationsAndDocsEndToEnd(t *testing.T) {
	db := crawlSample(t)
	tests := []struct {
		query, corpus, where string
	}{
		{"RedisConnectionException connection storm", "CONVO_SLACK", "incidents/2024-03-14.json"},
		{"blast radius cart page down product pages fine", "CONVO_TRANSCRIPT", "2024-03-15-checkout-incident-review.vtt"},
		{"read replica profile lookups", "CONVO_TRANSCRIPT", "2024-03-20-platform-sync.txt"},
		{"re-priced stale price priced_at", "DOC_GOOGLE", "Checkout v2 design.html"},
		{"postmortem AOF root cause eviction", "DOC_GOOGLE", "Incident 4711 postmortem.docx"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			code, out, errs := coderag(t, "query", "--db", db, "--json", "-k", "5", tt.query)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var res queryJSON
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				if h.CorpusType == tt.corpus && h.FilePath == tt.where {
					return
				}
			}
			t.Errorf("no %s hit in %s among %s", tt.corpus, tt.where, out)
		})
	}
	// The text output names a Slack hit by channel, author and time.
	_, out, _ := coderag(t, "query", "--db", db, "-k", "5", "RedisConnectionException")
	if !strings.Contains(out, "[slack] #incidents @alice 2024-03-14 14:02") {
		t.Errorf("query text output for a Slack thread:\n%s", out)
	}
}

// TestBadConversationInput crawls a workspace of broken exports: each
// broken part is reported and skipped (or indexed as text with a
// warning), the rest is indexed, and nothing is written outside the
// database.
func TestBadConversationInput(t *testing.T) {
	dir := t.TempDir()
	write := func(p string, data []byte) {
		t.Helper()
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A Slack export with one malformed day file.
	write("slack/users.json", []byte(`[{"id":"U1","name":"ana","real_name":"Ana Silva"}]`))
	write("slack/channels.json", []byte(`[{"id":"C1","name":"ops"}]`))
	write("slack/ops/2024-06-01.json", []byte(`[{"type":"message","user":"U1","text":"kafka-broker-2 disk full again","ts":"1717225200.000100"}]`))
	write("slack/ops/2024-06-02.json", []byte(`[{"type":"message","user":"U1","text":"half a message`))
	// A zipped export with path traversal entries.
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, body := range map[string]string{
		"channels.json":           `[{"id":"C2","name":"deploys"}]`,
		"deploys/2024-06-03.json": `[{"type":"message","user":"U1","text":"rolled out billing-worker 7.2","ts":"1717400000.000100"}]`,
		"../../escape.json":       `[{"type":"message","text":"x","ts":"1.0"}]`,
		"/abs/escape.json":        `[{"type":"message","text":"x","ts":"1.0"}]`,
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	write("exports/deploys.zip", zbuf.Bytes())
	// Transcripts: one fine, one VTT whose every timestamp is broken, one
	// with a single broken cue.
	write("meetings/ok.vtt", []byte("WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana Silva>The kafka-broker-2 disk alert fired twice.\n"))
	write("meetings/broken.vtt", []byte("WEBVTT\n\n00:xx:01.000 --> 00:00:04.000\nAna Silva: broken\n\nsoon --> later\nAna Silva: worse\n"))
	write("meetings/partly.vtt", []byte("WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nAna Silva: first cue is fine\n\n00:0x:05.000 --> 00:00:09.000\nBo Chen: second cue has a bad time but keeps its text\n"))
	// Google Docs: a .docx that is not a zip, and a good HTML export.
	write("gdocs/notes.docx", []byte("this is plain text saved as .docx"))
	write("gdocs/plan.html", []byte("<html><body><h1>Billing plan</h1><p>billing-worker moves to the new queue.</p></body></html>"))
	// A repo with a YAML alias bomb among good manifests.
	bomb := "kind: ConfigMap\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for i, c := 0, 'a'; i < 8; i, c = i+1, c+1 {
		bomb += fmt.Sprintf("%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", c+1, c+1, c, c, c, c, c, c, c, c, c)
	}
	write("repo/deploy/bomb.yaml", []byte(bomb))
	write("repo/deploy/billing.yaml", []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: billing-worker\n"))

	before := listFiles(t, dir)
	db := filepath.Join(dir, "out", "c.db")
	code, out, errs := coderag(t, "crawl", "--db", db, "--json",
		"--slack-export", filepath.Join(dir, "slack"), "--slack-export", filepath.Join(dir, "exports", "deploys.zip"),
		"--transcripts-dir", filepath.Join(dir, "meetings"), "--gdocs-dir", filepath.Join(dir, "gdocs"),
		"--repo-path", filepath.Join(dir, "repo"))
	if code != 0 {
		t.Fatalf("crawl exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum struct {
		Sources []struct {
			Name     string
			Files    int
			Skipped  []struct{ Path, Reason string }
			Warnings []struct{ Path, Reason string }
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range sum.Sources {
		for _, sk := range s.Skipped {
			got[s.Name+":"+sk.Path] = "skip: " + sk.Reason
		}
		for _, w := range s.Warnings {
			got[s.Name+":"+w.Path] = "warning: " + w.Reason
		}
	}
	for key, want := range map[string]string{
		"slack:ops/2024-06-02.json": "skip: invalid JSON at line 1",
		"deploys:../../escape.json": "skip: unsafe path in zip entry",
		"deploys:/abs/escape.json":  "skip: unsafe path in zip entry",
		"meetings:broken.vtt":       "skip: transcript: no cue has a valid timing line (first bad cue at line 3)",
		"meetings:partly.vtt":       "warning: line 6: bad cue timing",
		"gdocs:notes.docx":          "skip: not a DOCX file (not a zip archive",
		"repo:deploy/bomb.yaml":     "warning: document at line 1 indexed as text",
	} {
		if !strings.HasPrefix(got[key], want) {
			t.Errorf("%s: got %q, want %q", key, got[key], want)
		}
	}
	// The good parts are indexed.
	for q, want := range map[string]string{
		"kafka-broker-2 disk": "ops", "billing-worker 7.2": "deploys", "kafka-broker-2 disk alert fired": "ok.vtt",
		"second cue keeps its text": "partly.vtt", "billing-worker new queue": "plan.html", "billing-worker Deployment": "billing.yaml",
	} {
		_, out, _ := coderag(t, "query", "--db", db, "--json", "-k", "10", q)
		if !strings.Contains(out, want) {
			t.Errorf("query %q does not find %s:\n%s", q, want, out)
		}
	}
	// Nothing appeared outside the database's directory.
	after := listFiles(t, dir)
	for p := range after {
		if !before[p] && !strings.HasPrefix(p, "out/") {
			t.Errorf("crawl wrote %s", p)
		}
	}
	for _, p := range []string{"/abs/escape.json", filepath.Join(filepath.Dir(dir), "escape.json")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("crawl wrote %s", p)
		}
	}
}

func listFiles(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return out
}

// TestMentionsJoinWhateverTheOrder crawls the Slack export before the
// repository that deploys the services it talks about: the second crawl
// joins the thread to them.
func TestMentionsJoinWhateverTheOrder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	service := func() string {
		t.Helper()
		_, out, _ := coderag(t, "query", "--db", db, "--json", "-k", "3", "type:slack RedisConnectionException connection storm")
		var res struct {
			Hits []struct {
				CorpusType  string `json:"corpus_type"`
				ServiceName string `json:"service_name"`
			} `json:"hits"`
		}
		json.Unmarshal([]byte(out), &res)
		for _, h := range res.Hits {
			if h.CorpusType == "CONVO_SLACK" {
				return h.ServiceName
			}
		}
		t.Fatalf("no Slack hit: %s", out)
		return ""
	}
	if code, _, errs := coderag(t, "crawl", "--db", db, "--slack-export", filepath.Join(sampleDir, "slack")); code != 0 {
		t.Fatal(errs)
	}
	if s := service(); s != "" {
		t.Errorf("service %q before any deploy file was crawled", s)
	}
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", filepath.Join(sampleDir, "platform")); code != 0 {
		t.Fatal(errs)
	}
	if s := service(); s != "redis" {
		t.Errorf("the incident thread's service is %q after the platform crawl, want redis", s)
	}
}

// goldenEdges reads testdata/sample/edges.golden.
func goldenEdges(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sampleDir, "edges.golden"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{} // edge key -> evidence repo/path:line
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 7 || strings.HasPrefix(f[0], "#") {
			continue
		}
		dash := func(s string) string {
			if s == "-" {
				return ""
			}
			return s
		}
		out[edgeKey(f[0], f[2], f[3], dash(f[4]), dash(f[5]))] = f[6]
	}
	return out
}

func edgeKey(src, dst, typ, method, path string) string {
	return fmt.Sprintf("%s -> %s %s %s %s", src, dst, typ, method, path)
}

// TestGraphMatchesGoldenEdges measures the service graph of the sample
// against its real edges: precision and recall must both be 1.0, and each
// edge must carry the evidence line the golden list names.
func TestGraphMatchesGoldenEdges(t *testing.T) {
	dbPath := crawlSample(t)
	db, err := sqlite.Open(context.Background(), dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := db.Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := goldenEdges(t)
	got := map[string][]string{}
	for _, e := range g.Edges {
		if s := g.Service(e.Target); s != nil && s.Kind == "unresolved" {
			t.Errorf("unresolved edge %s -> %s %s %s: %s", e.Source, e.Target, e.Method, e.Path, e.Via)
			continue
		}
		k := edgeKey(e.Source, e.Target, e.Type, e.Method, e.Path)
		for _, ev := range e.Evidence {
			got[k] = append(got[k], fmt.Sprintf("%s/%s:%d", ev.Repo, ev.File, ev.Line))
		}
	}
	hits := 0
	for k, ev := range want {
		if evs, ok := got[k]; ok {
			hits++
			if !slices.Contains(evs, ev) {
				t.Errorf("edge %s: evidence %v, want %s among it", k, evs, ev)
			}
		} else {
			t.Errorf("missing edge %s (evidence %s)", k, ev)
		}
	}
	for k, evs := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("extra edge %s (evidence %v)", k, evs)
		}
	}
	precision, recall := float64(hits)/float64(max(1, len(got))), float64(hits)/float64(len(want))
	t.Logf("precision %.2f, recall %.2f (%d edges, %d in the golden list)", precision, recall, len(got), len(want))
	if precision != 1 || recall != 1 {
		t.Errorf("precision %.2f, recall %.2f; want 1.0 and 1.0", precision, recall)
	}
}

func TestGraphCommand(t *testing.T) {
	db := crawlSample(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"graph"}, []string{"services (16)", "entry points (2)", "message flow through topics (3)", "checkout         -> api.stripe.com     http POST /v1/charges", "platform/services/checkout/clients.go:141"}},
		{[]string{"graph", "--service", "cart.shop.svc.cluster.local"}, []string{"cart  service  platform/services/cart  csharp",
			"called by (4)", "depends on (2)", "GET     /api/cart/{userId}             GetCart", "<- checkout, storefront",
			"also CART_SERVICE_ADDR, cart.shop", "mentioned in (", "[slack] #incidents @alice 2024-03-14 14:02"}},
		{[]string{"graph", "-s", "redis", "--blast-radius"}, []string{"blast radius of redis (depth 3): 4 services", "depth 1\n  cart",
			"platform/services/cart/Program.cs:8", "depth 2", "via cart", "storefront/src/clients/cart.ts:12", "depth 3\n  ingress:shop"}},
		{[]string{"graph", "-s", "redis", "--blast-radius", "--depth", "1"}, []string{"blast radius of redis (depth 1): 1 service"}},
		{[]string{"graph", "-s", "storefront", "--path-to", "shopdb"}, []string{"accounts", "postgres", "via accounts"}},
		{[]string{"graph", "-s", "shopdb", "--path-to", "storefront"}, []string{"postgres does not depend on storefront"}},
		{[]string{"graph", "--cycles"}, []string{"no services depend on each other in a circle"}},
		{[]string{"graph", "-s", "checkout", "--downstream", "--format", "mermaid"}, []string{"flowchart TB", `-->|"http POST /v1/charges"|`}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := coderag(t, append(tt.args, "--db", db)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			// Column widths follow the longest name: compare with runs of
			// spaces squashed.
			squash := func(s string) string { return regexp.MustCompile(` +`).ReplaceAllString(s, " ") }
			for _, w := range tt.want {
				if !strings.Contains(squash(out), squash(w)) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// The services' counts line up, however deep a service's directory.
	_, out, _ := coderag(t, "graph", "--db", db)
	col := -1
	for _, line := range strings.Split(out, "\n") {
		i := strings.Index(line, "↑ ")
		if i < 0 || strings.Contains(line, "depend on it") {
			continue
		}
		if c := utf8.RuneCountInString(line[:i]); col < 0 {
			col = c
		} else if c != col {
			t.Errorf("graph: a service's ↑ at column %d, the first one's at %d:\n%s", c, col, out)
			break
		}
	}
	// JSON in the documented shape, and DOT that is the same every time.
	_, out, _ = coderag(t, "graph", "--db", db, "-s", "cart", "--upstream", "--format", "json")
	var js struct {
		Services []struct {
			Name    string   `json:"name"`
			Aliases []string `json:"aliases"`
			Repo    string   `json:"repo"`
		} `json:"services"`
		Edges []struct {
			Source, Target, Type, Method, Path string
			Confidence                         float64
			Evidence                           []struct {
				FilePath  string `json:"file_path"`
				LineStart int    `json:"line_start"`
				ChunkID   string `json:"chunk_id"`
			}
		} `json:"edges"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || len(js.Services) != 3 || len(js.Edges) != 5 {
		t.Errorf("graph --format json: %v, %d services, %d edges:\n%s", err, len(js.Services), len(js.Edges), out)
	}
	for _, e := range js.Edges {
		if len(e.Evidence) == 0 || e.Evidence[0].FilePath == "" || e.Evidence[0].LineStart == 0 || e.Evidence[0].ChunkID == "" {
			t.Errorf("edge %+v has no evidence", e)
		}
	}
	_, dot1, _ := coderag(t, "graph", "--db", db, "--format", "dot")
	_, dot2, _ := coderag(t, "graph", "--db", db, "--format", "dot")
	if dot1 != dot2 || !strings.Contains(dot1, `"storefront" -> "cart" [label="http GET /api/cart/{userId}"`) || !strings.Contains(dot1, "subgraph cluster_") {
		t.Errorf("graph --format dot is not stable or lacks edges:\n%s", dot1)
	}
	code, out, errs := coderag(t, "graph", "--db", db, "--format", "svg")
	if _, err := exec.LookPath("dot"); err != nil {
		if code != 1 || !strings.Contains(errs, "needs Graphviz's dot program") {
			t.Errorf("svg without dot: exit %d, %q", code, errs)
		}
	} else if code != 0 || !strings.Contains(out, "<svg") {
		t.Errorf("svg: exit %d, %q", code, errs)
	}
	for _, bad := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"graph", "--upstream"}, 2, "need --service"},
		{[]string{"graph", "-s", "cart", "--upstream", "--downstream"}, 2, "pass one of"},
		{[]string{"graph", "--format", "png"}, 2, `--format "png"`},
		{[]string{"graph", "-s", "carts"}, 1, `service "carts": no such service`},
		{[]string{"graph", "-s", "cat"}, 1, "did you mean catalog"},
		{[]string{"graph", "--min-confidence", "2"}, 2, "between 0 and 1"},
	} {
		code, _, errs := coderag(t, append(bad.args, "--db", db)...)
		if code != bad.code || !strings.Contains(errs, bad.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", bad.args, code, errs, bad.code, bad.msg)
		}
	}
}

// TestStatsSourcesAlign: the sources table keeps its columns under their
// headings whatever the length of a source's name.
func TestStatsSourcesAlign(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"api", "payments-reconciliation-service-monorepo"} {
		dir := filepath.Join(root, name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\n// main starts the service.\nfunc main() {}\n"), 0o644)
	}
	db := filepath.Join(root, "x.db")
	if code, out, errs := coderag(t, "crawl", "--db", db, "--embedder", "none", "--repo-path", filepath.Join(root, "api"),
		"--repo-path", filepath.Join(root, "payments-reconciliation-service-monorepo")); code != 0 {
		t.Fatal(out, errs)
	}
	_, out, _ := coderag(t, "stats", "--db", db)
	_, table, ok := strings.Cut(out, "sources\n")
	if !ok {
		t.Fatalf("no sources table:\n%s", out)
	}
	lines := strings.Split(table, "\n")
	col := func(line, word string) int {
		i := strings.Index(line, word)
		if i < 0 {
			return -1
		}
		return i + len(word)
	}
	head := col(lines[0], "files")
	for _, l := range lines[1:3] {
		fields := strings.Fields(l)
		if len(fields) < 3 || col(l, " "+fields[2]+" ") != head+1 {
			t.Errorf("files column of %q does not end under the heading (at %d):\n%s", l, head, table)
		}
	}
}

// TestQueryJSONCarriesChunkFields: query --json gives what scripts need
// beyond the location: a message's author, channel and time, a document's
// metadata, a declaration's kind.
func TestQueryJSONCarriesChunkFields(t *testing.T) {
	db := crawlSample(t)
	hit := func(q, corpus string) map[string]any {
		t.Helper()
		_, out, errs := coderag(t, "query", "--db", db, "--json", "-k", "20", q)
		var res struct{ Hits []map[string]any }
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("query %q: %v %s", q, err, errs)
		}
		for _, h := range res.Hits {
			if h["corpus_type"] == corpus {
				return h
			}
		}
		t.Fatalf("query %q: no %s hit", q, corpus)
		return nil
	}
	if h := hit("CheckoutHighErrorRate resolved", "CONVO_SLACK"); h["author"] == nil || h["channel"] == nil || h["timestamp"] == nil {
		t.Errorf("slack hit without author, channel or timestamp: %v", h)
	}
	if h := hit("checkout returns 5xx triage", "DOC_RUNBOOK"); h["meta"] == nil || h["section_path"] == nil {
		t.Errorf("runbook hit without meta or section path: %v", h)
	}
	if h := hit("getUserProfile", "CODE_LOGIC"); h["symbol_kind"] == nil {
		t.Errorf("code hit without symbol_kind: %v", h)
	}
}

// TestCrawlSummaryEmbedLine: the embed line of the crawl summary agrees
// its verb with the number of chunks left without a vector.
func TestCrawlSummaryEmbedLine(t *testing.T) {
	for _, tt := range []struct {
		empty int
		want  string
	}{
		{0, "embedded 10 chunks with corpus (learned from this index, builtin:ppmi-svd) in 2s\n"},
		{1, "embedded 10 chunks with corpus (learned from this index, builtin:ppmi-svd) in 2s; 1 chunk without a known word stays BM25-only\n"},
		{3, "embedded 10 chunks with corpus (learned from this index, builtin:ppmi-svd) in 2s; 3 chunks without a known word stay BM25-only\n"},
	} {
		var out bytes.Buffer
		sum := ingest.Summary{Embed: ingest.EmbedSummary{Embedder: core.EmbedderInfo{ID: "builtin:ppmi-svd"}, Embedded: 10, Empty: tt.empty, Duration: 2 * time.Second}}
		printCrawlSummary(&ioStreams{out: &out, err: io.Discard, termWidth: func() int { return 80 }}, "x.db", sum, false, nil)
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%d empty: summary\n%s\nwant a line %q", tt.empty, out.String(), tt.want)
		}
	}
}

// TestCrawlDirArguments: directories given as arguments are repositories,
// as with --repo-path.
func TestCrawlDirArguments(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"orders", "payments", "web"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "main.go"), []byte("package main\n\nfunc handle"+name+"() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dir, "c.db")
	code, out, errs := coderag(t, "crawl", "--db", db, "--json", "--progress", "json",
		filepath.Join(dir, "orders"), filepath.Join(dir, "payments"), "--repo-path", filepath.Join(dir, "web"))
	if code != 0 {
		t.Fatalf("crawl exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum struct {
		Sources []struct {
			Name string `json:"name"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range sum.Sources {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if want := []string{"orders", "payments", "web"}; !slices.Equal(names, want) {
		t.Errorf("sources %v, want %v", names, want)
	}
	if code, _, errs := coderag(t, "crawl", "--db", db, filepath.Join(dir, "missing")); code == 0 || !strings.Contains(errs, "missing") {
		t.Errorf("crawl of a missing directory: exit %d, %q; want an error naming it", code, errs)
	}
}

// TestManifestSummaryLine: the last line of 'coderag manifest' counts in
// words that agree with their numbers ("1 service", not "1 services").
func TestManifestSummaryLine(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "billing")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/billing\n\ngo 1.22\n"), 0o644)
	// One service: its call to an address it is given makes it a node.
	os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n\nimport (\n\t\"net/http\"\n\t\"os\"\n)\n\n"+
		"// main reports each invoice to the ledger.\nfunc main() {\n\thttp.Post(os.Args[1], \"application/json\", nil)\n}\n"), 0o644)
	db := filepath.Join(dir, "m.db")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--embedder", "none", "--progress", "none"); code != 0 {
		t.Fatalf("crawl: %s", errs)
	}
	code, out, errs := coderag(t, "manifest", "--db", db)
	if code != 0 {
		t.Fatalf("manifest: %s", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^\d+ chunks?, 1 source; 1 service, 0 edges; \S+$`).MatchString(last) {
		t.Errorf("summary line %q: want \"N chunks, 1 source; 1 service, 0 edges; TIME\"", last)
	}
}

// TestTextOutputNeverDrivesTheTerminal: a log pasted into a runbook keeps
// its colours and a title sequence; query and context print the text
// without them (a terminal would run them), --json keeps the text as
// indexed.
func TestTextOutputNeverDrivesTheTerminal(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "ops")
	if err := os.MkdirAll(filepath.Join(repo, "runbooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	log := "# Payments outage\n\nThe rollout printed \x1b[31mERROR\x1b[0m connection refused to ledger-db\n\x1b]0;owned\x07then \x1b[2Jcleared the screen\x07\n"
	if err := os.WriteFile(filepath.Join(repo, "runbooks", "payments.md"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "c.db")
	if code, _, errs := coderag(t, "crawl", "--db", db, "--repo-path", repo, "--progress", "none"); code != 0 {
		t.Fatalf("crawl: %s", errs)
	}
	for _, args := range [][]string{
		{"query", "--db", db, "connection refused ledger"},
		{"context", "--db", db, "connection refused ledger"},
	} {
		code, out, errs := coderag(t, args...)
		if code != 0 {
			t.Fatalf("%s: %s", args[0], errs)
		}
		if !strings.Contains(out, "printed ERROR connection refused") {
			t.Errorf("%s: the log's text is not shown: %q", args[0], out)
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s prints the runbook's escape sequences: %q", args[0], out)
		}
		if !strings.Contains(out, "cleared the screen␇") {
			t.Errorf("%s: the bell is not shown as ␇: %q", args[0], out)
		}
	}
	_, out, _ := coderag(t, "query", "--db", db, "--json", "connection refused ledger")
	if !strings.Contains(out, `\u001b[31mERROR`) {
		t.Errorf("query --json does not keep the text as indexed: %q", out)
	}
}
