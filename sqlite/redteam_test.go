package sqlite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/ingest"
	"coderag/sqlite"
)

// redTeamValue is one value planted in testdata/redteam.
type redTeamValue struct {
	Value  string `json:"value"`
	Source string `json:"source"`
	File   string `json:"file"`
	Secret bool   `json:"secret"`
}

// loadRedTeam reads testdata/redteam/planted.json.
func loadRedTeam(t testing.TB) (string, []redTeamValue) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "testdata", "redteam"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "planted.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []redTeamValue
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 120 {
		t.Fatalf("%d planted values, want at least 120", len(vs))
	}
	return root, vs
}

// fragments are the 8-character pieces of a secret: none may be stored.
// Values shorter than 8 characters are checked whole.
func fragments(v string) []string {
	if len(v) <= 8 {
		return []string{v}
	}
	var out []string
	for i := 0; i+8 <= len(v); i++ {
		out = append(out, v[i:i+8])
	}
	return out
}

// alnumFragments are the lower-case 8-character pieces of a secret's runs
// of letters and digits: what a full-text index could hold of it.
func alnumFragments(v string) []string {
	var out []string
	for _, run := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		for i := 0; i+8 <= len(run); i++ {
			out = append(out, run[i:i+8])
		}
	}
	return out
}

// TestRedTeamNothingStored crawls testdata/redteam (code in five
// languages, every deploy and config format, a runbook, a Slack export,
// transcripts and Google Docs exports with 120+ planted secrets and
// personal data values) and looks for them everywhere the index keeps
// text: the database file and its WAL, every row of every table, and the
// terms of the full-text indexes. No value may be there, and no
// 8-character fragment of a secret.
func TestRedTeamNothingStored(t *testing.T) {
	root, planted := loadRedTeam(t)
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "redteam.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.New(db, ingest.Options{}).Run(ctx, []core.Source{
		{Kind: core.SourceRepo, Path: filepath.Join(root, "repo"), Name: "shop"},
		{Kind: core.SourceSlackExport, Path: filepath.Join(root, "slack"), Name: "slack"},
		{Kind: core.SourceTranscriptDir, Path: filepath.Join(root, "transcripts"), Name: "meetings"},
		{Kind: core.SourceGDocsDir, Path: filepath.Join(root, "gdocs"), Name: "gdocs"},
	})
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	// Every planted file was indexed (a value can only be missed in a file
	// that was read).
	files := map[string]bool{}
	chunks := 0
	for _, src := range []string{"shop", "slack", "meetings", "gdocs"} {
		cs, err := db.SourceChunks(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		chunks += len(cs)
		for _, c := range cs {
			files[src+"/"+c.FilePath] = true
			if c.Channel != "" {
				files[src+"/"+c.Channel] = true
			}
		}
	}
	for _, p := range planted {
		src := map[string]string{"repo": "shop", "slack": "slack", "transcripts": "meetings", "gdocs": "gdocs"}[p.Source]
		name := p.File
		if p.Source == "slack" {
			name = strings.Split(p.File, "/")[0]
		}
		if !files[src+"/"+name] {
			t.Errorf("%s/%s was not indexed", src, name)
		}
	}
	// Every row of every table, as text.
	rows, err := db.DumpText(ctx)
	if err != nil {
		t.Fatal(err)
	}
	terms, err := db.IndexTerms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < chunks || len(terms) < 100 {
		t.Fatalf("dump: %d rows (%d chunks), %d terms", len(rows), chunks, len(terms))
	}
	dump := strings.Join(rows, "\n")
	allTerms := strings.Join(terms, "\n")
	check := func(where string, data []byte) {
		t.Helper()
		for _, p := range planted {
			for _, v := range []string{p.Value, strings.ToLower(p.Value), strings.ToUpper(p.Value)} {
				if bytes.Contains(data, []byte(v)) {
					t.Errorf("%s holds the planted value %q (%s/%s)", where, v, p.Source, p.File)
				}
			}
			if !p.Secret {
				continue
			}
			for _, f := range fragments(p.Value) {
				if bytes.Contains(data, []byte(f)) {
					t.Errorf("%s holds %q, a fragment of the secret in %s/%s", where, f, p.Source, p.File)
					break
				}
			}
		}
	}
	check("the table rows", []byte(dump))
	// JSON columns (meta, lists) escape <, > and & and quotes.
	unescaped := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&", `\"`, `"`, `\\`, `\`).Replace(dump)
	check("the table rows (JSON unescaped)", []byte(unescaped))
	for _, p := range planted {
		if !p.Secret {
			continue
		}
		for _, f := range alnumFragments(p.Value) {
			if strings.Contains(allTerms, f) {
				t.Errorf("a full-text index term holds %q, a fragment of the secret in %s/%s", f, p.Source, p.File)
				break
			}
		}
	}
	read := func(when string) {
		t.Helper()
		for _, f := range []string{path, path + "-wal"} {
			data, err := os.ReadFile(f)
			if err != nil {
				if os.IsNotExist(err) {
					continue
				}
				t.Fatal(err)
			}
			check(fmt.Sprintf("%s (%s)", filepath.Base(f), when), data)
		}
	}
	read("open")
	db.Close()
	read("closed")
}
