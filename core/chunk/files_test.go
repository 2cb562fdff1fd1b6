package chunk

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
	"coderag/core/discover"
)

// renderFile prints what the crawler would store for one non-code file:
// the chunker used, any warning, and each chunk with its metadata.
func renderFile(res Result, structural bool) string {
	var b strings.Builder
	if !structural {
		b.WriteString("chunker: windows\n")
	}
	if res.Warning != "" {
		fmt.Fprintf(&b, "warning: %s\n", res.Warning)
	}
	if res.Fallback != "" {
		fmt.Fprintf(&b, "fallback: %s\n", res.Fallback)
	}
	for _, c := range res.Chunks {
		fmt.Fprintf(&b, "\nlines %d-%d (%d tokens) %s %q\n  prefix: %s\n", c.LineStart, c.LineEnd,
			core.EstimateTokens(c.Text), c.SymbolKind, c.SymbolName, c.ContextPrefix)
		if c.ServiceName != "" {
			fmt.Fprintf(&b, "  service: %s\n", c.ServiceName)
		}
		keys := make([]string, 0, len(c.Meta))
		for k := range c.Meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  meta %s: %s\n", k, c.Meta[k])
		}
		fmt.Fprintf(&b, "  first line: %s\n", strings.SplitN(c.Text, "\n", 2)[0])
		for _, r := range c.Routes {
			fmt.Fprintf(&b, "  route: %s %s (%s)\n", r.Method, r.Path, r.Framework)
		}
	}
	return b.String()
}

// TestFilesGolden chunks the docs, deploy and config fixtures under
// testdata/files the way the crawler does (classify, inspect, File, else
// windows) and compares the result with the .golden file next to each.
func TestFilesGolden(t *testing.T) {
	c := newChunker(t)
	root := filepath.Join("testdata", "files")
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		n++
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lang, corpus := discover.Classify(rel)
			f, why := discover.Inspect(core.File{Path: rel, Language: lang, Corpus: corpus, Size: int64(len(src))}, src)
			if why != "" {
				t.Fatalf("inspect skipped the fixture: %s", why)
			}
			base := core.Chunk{SourceURI: "repo/" + rel, FilePath: rel, Language: f.Language, Corpus: f.Corpus, RepoName: "repo"}
			res, ok, err := c.File(src, base)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				res = Result{Chunks: Window(string(src), base, WindowOptions{})}
			}
			checkInvariants(t, string(src), res.Chunks)
			got := fmt.Sprintf("file: %s (%s, %s)\n", rel, f.Language, f.Corpus) + renderFile(res, ok)
			golden := p + ".golden"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("chunks of %s differ from %s (-want +got):\n%s", p, golden, d)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 15 {
		t.Errorf("found %d fixtures, want at least 15", n)
	}
}

// TestConfigLargeKeys checks that a config file over the budget is cut by
// key, deeper for big values, with key scopes, and never over budget.
func TestConfigLargeKeys(t *testing.T) {
	c := newChunker(t)
	var y, j strings.Builder
	y.WriteString("replicaCount: 3\nservices:\n")
	j.WriteString("{\n  \"replicaCount\": 3,\n  \"services\": {\n")
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&y, "  svc%03d:\n    url: http://svc%03d.shop.svc.cluster.local:8080\n    timeout: 5s\n", i, i)
		sep := ","
		if i == 119 {
			sep = ""
		}
		fmt.Fprintf(&j, "    \"svc%03d\": {\"url\": \"http://svc%03d:8080\", \"timeout\": \"5s\"}%s\n", i, i, sep)
	}
	j.WriteString("  }\n}\n")
	for _, tt := range []struct{ path, src string }{{"values.yaml", y.String()}, {"settings.json", j.String()}} {
		t.Run(tt.path, func(t *testing.T) {
			res := chunkFile(t, c, tt.path, []byte(tt.src))
			checkInvariants(t, tt.src, res.Chunks)
			if len(res.Chunks) < 3 {
				t.Fatalf("%d chunks, want the big services key cut by its children", len(res.Chunks))
			}
			for _, ch := range res.Chunks[1:] {
				if !strings.HasPrefix(ch.ContextPrefix, tt.path+" > services") || ch.SymbolKind != "keys" {
					t.Errorf("chunk lines %d-%d: prefix %q kind %q, want under services, kind keys", ch.LineStart, ch.LineEnd, ch.ContextPrefix, ch.SymbolKind)
				}
				if tok := core.EstimateTokens(ch.Text); tok > 512 {
					t.Errorf("chunk lines %d-%d has %d tokens", ch.LineStart, ch.LineEnd, tok)
				}
			}
		})
	}
}

// TestConfigCommentsOnly: a YAML file holding only comments is a file
// with no keys, indexed as its text without a warning, and so is a stream
// of JSON values (JSON Lines) and a template (Go, Jinja) that does not
// parse until rendered (a JSON file with an envsubst placeholder as a
// value too); one that does not parse still warns, a JSON file
// in JSON's terms.
func TestConfigCommentsOnly(t *testing.T) {
	c := newChunker(t)
	for _, tt := range []struct {
		path, lang, src string
		warn            string // "" none, else a part of it
	}{
		{"config.yml", "yaml", "# settings live in the environment now\n# see docs/config.md\n", ""},
		{"values.yaml", "yaml", "\n# nothing to override\n\n", ""},
		{"broken.yaml", "yaml", "a: [1, 2\nb: }\n", "indexed as text: yaml: line"},
		{"appsettings.json", "json", "{\n  \"Logging\": {\n    \"LogLevel\": \"Debug\",\n  ]\n}\n", "indexed as text: json: line 4: invalid character ']'"},
		{"truncated.json", "json", "{\"a\":", "indexed as text: json: line 1: unexpected end of JSON input"},
		{"events.json", "json", "{\"level\":\"info\",\"msg\":\"order placed\"}\n{\"level\":\"error\",\"msg\":\"payment declined\"}\n", ""},
		{"fixtures.json", "json", "{\n  \"id\": 1\n}\n{\n  \"id\": 2\n}\n", ""},
		{"half-stream.json", "json", "{\"id\": 1}\n{\"id\":\n", "indexed as text: json: line 2"},
		// Templates are text until rendered: no fault of the file.
		{"mapping-7.json", "json", "{\n  \"settings\": {\n    \"number_of_shards\": {{ .Shards }}\n  }\n}\n", ""},
		{"job.yml", "yaml", "consul:\n  host: {{ env \"NODE_IP\" }}:8500\n", ""},
		{"inventory.yml", "yaml", "{% for h in hosts %}\n- {{ h }}\n{% endfor %}\n", ""},
		{"reindex.json", "json", "{\n  \"script\": {\n    \"source\": \"${SCRIPT}\",\n    \"params\": ${PARAMS}\n  }\n}\n", ""},
		{"broken-env.json", "json", "{\n  \"home\": \"${HOME}\",\n  ]\n}\n", "indexed as text: json: line 3: invalid character ']'"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			base := core.Chunk{SourceURI: "repo/" + tt.path, FilePath: tt.path, Language: tt.lang, Corpus: core.CodeConfig, RepoName: "repo"}
			res, warn := c.Config([]byte(tt.src), base)
			if tt.warn == "" && warn != "" || !strings.Contains(warn, tt.warn) {
				t.Errorf("warning %q, want %q", warn, tt.warn)
			}
			if len(res.Chunks) != 1 || res.Chunks[0].Text != strings.TrimSpace(tt.src) {
				t.Errorf("chunks %+v, want the file as one chunk", res.Chunks)
			}
		})
	}
}

// TestBlankJSONC: comments and trailing commas become spaces, strings
// that hold // or /* and escaped quotes are left alone, and every byte
// keeps its line and column.
func TestBlankJSONC(t *testing.T) {
	for _, tt := range []struct {
		name, src, want string
		ok              bool
	}{
		{"plain JSON", `{"a": 1}`, `{"a": 1}`, false},
		{"line comment", "{\n  // the port\n  \"port\": 8080\n}", "{\n" + strings.Repeat(" ", 13) + "\n  \"port\": 8080\n}", true},
		{"block comment over lines", "{/* a\nb */\"a\": 1}", "{    \n    \"a\": 1}", true},
		{"trailing commas", `{"a": [1, 2,], "b": 3,}`, `{"a": [1, 2 ], "b": 3 }`, true},
		{"comma then comment", "{\"a\": 1, // last\n}", "{\"a\": 1         \n}", true},
		{"slashes in strings", `{"url": "http://x/*y*/", "q": "a\"//b"}`, `{"url": "http://x/*y*/", "q": "a\"//b"}`, false},
		{"unclosed comment", `{"a": 1 /* oops`, `{"a": 1 /* oops`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := blankJSONC([]byte(tt.src))
			if string(got) != tt.want || ok != tt.ok {
				t.Errorf("blankJSONC(%q) = %q, %v; want %q, %v", tt.src, got, ok, tt.want, tt.ok)
			}
			if len(got) != len(tt.src) {
				t.Errorf("length %d, want %d", len(got), len(tt.src))
			}
		})
	}
}

// TestManyAliases: a YAML file that merges its anchors hundreds of times
// (fixtures, CI matrices) is chunked by its keys; an alias bomb is still
// refused (testdata/files/k8s/bomb.yaml).
func TestManyAliases(t *testing.T) {
	var b strings.Builder
	b.WriteString("base: &base\n  region: eu-west-1\n  retries: 3\n")
	for i := range 300 {
		fmt.Fprintf(&b, "share_%03d:\n  <<: *base\n  name: share-%d\n", i, i)
	}
	res, warn := newChunker(t).Config([]byte(b.String()), core.Chunk{SourceURI: "repo/mocked.yaml", FilePath: "mocked.yaml", Language: "yaml", Corpus: core.CodeConfig, RepoName: "repo"})
	if warn != "" || len(res.Chunks) < 2 || res.Chunks[0].SymbolKind == "" {
		t.Errorf("warning %q, %d chunks; want it chunked by its keys", warn, len(res.Chunks))
	}
}

// TestYAMLEscapes: JSON's surrogate pairs become YAML's \U escapes
// (a lone half \ufffd), \/ a slash and a raw DEL \x7f; escaped backslashes
// and text outside strings are left alone, and a JSON file holding them
// is chunked by its keys.
func TestYAMLEscapes(t *testing.T) {
	for _, tt := range []struct {
		name, src, want string
		ok              bool
	}{
		{"none", `{"g": "\u00e9"}`, `{"g": "\u00e9"}`, false},
		{"pair", `{"glyph": "\ud834\udd1e", "n": 1}`, `{"glyph": "\U0001d11e", "n": 1}`, true},
		{"upper-case hex", `["\uD83D\uDE00"]`, `["\U0001f600"]`, true},
		{"lone halves", `["\ud834x", "\udc00"]`, `["\ufffdx", "\ufffd"]`, true},
		{"escaped backslash", `["\\ud834\\udd1e"]`, `["\\ud834\\udd1e"]`, false},
		{"escaped quote", `["a\"\ud834\udd1e"]`, `["a\"\U0001d11e"]`, true},
		{"escaped slash", `{"$schema": "http:\/\/json-schema.org\/draft-04\/schema#"}`, `{"$schema": "http://json-schema.org/draft-04/schema#"}`, true},
		{"raw DEL", "[\"a \x7f delete\"]", `["a \x7f delete"]`, true},
		{"DEL outside strings", "[1]\x7f", "[1]\x7f", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := yamlEscapes([]byte(tt.src))
			if !ok {
				got = []byte(tt.src)
			}
			if string(got) != tt.want || ok != tt.ok {
				t.Errorf("yamlEscapes(%s) = %s, %v; want %s, %v", tt.src, got, ok, tt.want, tt.ok)
			}
		})
	}
	src := "{\n  \"$schema\": \"http:\\/\\/json-schema.org\\/schema#\",\n  \"fonts\": {\"music\": \"\\ud834\\udd1e\"},\n  \"widths\": {\"a\": 7}\n}\n"
	res, warn := newChunker(t).Config([]byte(src), core.Chunk{SourceURI: "repo/glyphs.json", FilePath: "glyphs.json", Language: "json", Corpus: core.CodeConfig, RepoName: "repo"})
	if warn != "" || len(res.Chunks) == 0 || res.Chunks[0].SymbolKind == "" {
		t.Errorf("glyphs.json: warning %q, chunks %+v; want it chunked by its keys", warn, res.Chunks)
	}
}

// TestHashPinnedRequirements: the hashes of a pip-compile
// --generate-hashes file are left out of its text (they were most of a
// real index's chunks); packages, versions and line numbers stay.
func TestHashPinnedRequirements(t *testing.T) {
	c := newChunker(t)
	var b strings.Builder
	b.WriteString("#\n# This file is autogenerated by pip-compile with Python 3.11\n#\n")
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&b, "package%03d==1.%d.0 \\\n    --hash=sha256:%064x \\\n    --hash=sha256:%064x\n    # via -r requirements.in\n", i, i, i*7919, i*104729)
	}
	src := b.String()
	res := chunkFile(t, c, "services/api/requirements.txt", []byte(src))
	if len(res.Chunks) == 0 {
		t.Fatal("no chunks")
	}
	var text strings.Builder
	for _, ch := range res.Chunks {
		if strings.Contains(ch.Text, "--hash") || strings.Contains(ch.Text, "sha256") {
			t.Errorf("chunk lines %d-%d holds hashes", ch.LineStart, ch.LineEnd)
		}
		if ch.Meta["format"] == "" {
			t.Errorf("chunk lines %d-%d does not say its text is not the file's", ch.LineStart, ch.LineEnd)
		}
		text.WriteString(ch.Text + "\n")
	}
	for _, want := range []string{"package000==1.0.0", "package119==1.119.0"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("%s left out", want)
		}
	}
	last := res.Chunks[len(res.Chunks)-1]
	if wantLine := strings.Count(src, "\n") - 1; last.LineEnd < wantLine-1 {
		t.Errorf("last chunk ends on line %d, the file's last package is on line %d", last.LineEnd, wantLine)
	}
	if len(res.Chunks) > 8 {
		t.Errorf("%d chunks for 120 packages, want a few", len(res.Chunks))
	}
}

// TestHeadingKeepsItsLongSection: a heading followed by more than one
// chunk holds (a runbook's forty links under "Troubleshooting Pointers")
// starts the first window of its section, whether the section before it
// is a chunk of its own or tiny (which would join the next section): it
// is neither a chunk of one line nor the last line of the chunk before.
func TestHeadingKeepsItsLongSection(t *testing.T) {
	for _, intro := range []string{
		"Gitaly serves Git over gRPC to the web and API fleets.\n",
		strings.Repeat("Gitaly serves Git over gRPC to the web and API fleets; every repository lives on one shard.\n", 4),
	} {
		var b strings.Builder
		b.WriteString("# Gitaly\n\n" + intro + "\n## Troubleshooting Pointers\n\n")
		for i := range 45 {
			fmt.Fprintf(&b, "* [Gitaly error rate is too high on shard %d of the fleet](gitaly-error-rate-%d.md)\n", i, i)
		}
		b.WriteString("\n## Logging\n\n* [Gitaly logs](https://logs.example.com/gitaly)\n")
		src := b.String()
		res := newChunker(t).Markdown([]byte(src), core.Chunk{SourceURI: "repo/docs/gitaly/README.md", FilePath: "docs/gitaly/README.md", Language: "markdown", Corpus: core.DocRunbook, RepoName: "repo"})
		checkInvariants(t, src, res.Chunks)
		var first *core.Chunk
		for i, c := range res.Chunks {
			if strings.HasSuffix(strings.TrimSpace(c.Text), "## Troubleshooting Pointers") {
				t.Errorf("intro of %d bytes: chunk %d ends with the heading: %q", len(intro), i, c.Text)
			}
			if first == nil && c.SymbolName == "Troubleshooting Pointers" {
				first = &res.Chunks[i]
			}
		}
		if first == nil || !strings.HasPrefix(first.Text, "## Troubleshooting Pointers\n\n* [Gitaly error rate") {
			t.Errorf("intro of %d bytes: the section's first chunk %+v; want the heading and the first links", len(intro), first)
		}
	}
}

// TestEmptyLastHeading: a heading that ends its file with nothing under
// it joins the chunk before it rather than being a chunk of one line.
func TestEmptyLastHeading(t *testing.T) {
	src := "# PrometheusOperatorListErrors\n\n## Meaning\n\nErrors while performing list operations in the controller.\n\n" +
		"## Diagnosis\n\n- Check the logs of the Prometheus Operator pod for list errors.\n- Check that the service account's token is mounted and valid.\n- Check the operator's RBAC: it must list the resources it watches in every namespace.\n\n## Mitigation\n"
	res := newChunker(t).Markdown([]byte(src), core.Chunk{SourceURI: "repo/runbooks/ListErrors.md", FilePath: "runbooks/ListErrors.md", Language: "markdown", Corpus: core.DocRunbook, RepoName: "repo"})
	checkInvariants(t, src, res.Chunks)
	last := res.Chunks[len(res.Chunks)-1]
	if strings.TrimSpace(last.Text) == "## Mitigation" || !strings.HasSuffix(last.Text, "## Mitigation") {
		t.Errorf("last chunk %q; want the section before it, ending with the empty heading", last.Text)
	}
}

// FuzzDocsAndConfig chunks arbitrary text as Markdown and as each config
// format: no input may panic the chunkers, JSON's escape rewriting
// included, and the chunks must stay inside the file and cover it.
func FuzzDocsAndConfig(f *testing.F) {
	c := newChunker(f)
	f.Add([]byte("# T\n\n## Troubleshooting Pointers\n\n* [a](b.md)\n\n## Mitigation\n"), uint8(0))
	f.Add([]byte(`{"s": "\ud834\udd1e \/ \u00e9", "lone": "\udc00"}`+"\n"), uint8(1))
	f.Add([]byte("{\"a\":1}\n{\"a\":2}\n"), uint8(1))
	f.Add([]byte("base: &b\n  x: 1\nc:\n  <<: *b\n"), uint8(2))
	f.Add([]byte("<project><groupId>a</groupId><name>n</name></project>\n"), uint8(3))
	f.Add([]byte("[package]\nname = \"a\"\n[dependencies]\n"), uint8(4))
	langs := []string{"markdown", "json", "yaml", "xml", "toml", "ini"}
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		if len(src) > 32<<10 || !utf8.Valid(src) {
			return
		}
		lang := langs[int(which)%len(langs)]
		base := core.Chunk{SourceURI: "repo/f", FilePath: "f", Language: lang, Corpus: core.CodeConfig, RepoName: "repo"}
		var res Result
		if lang == "markdown" {
			base.Corpus = core.DocReadme
			res = c.Markdown(src, base)
		} else {
			res, _ = c.Config(src, base)
		}
		checkInvariants(t, string(src), res.Chunks)
	})
}
