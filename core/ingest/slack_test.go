package ingest_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"coderag/core"
	"coderag/core/ingest"
)

// addSampleSlack copies the sample Slack export into fsys under dir.
func addSampleSlack(t *testing.T, fsys fstest.MapFS, dir string) {
	t.Helper()
	sample := filepath.Join("..", "..", "testdata", "sample", "slack")
	err := filepath.WalkDir(sample, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(sample, p)
		fsys[dir+filepath.ToSlash(rel)] = &fstest.MapFile{Data: data}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSlackExportInsideDirectory: a Slack export folder kept in a
// repository is read as conversations (threads and bursts, the members'
// names scrubbed from every file of the source), not as JSON
// configuration; a folder that only looks like one stays files; an
// incremental crawl re-reads only the channel that changed.
func TestSlackExportInsideDirectory(t *testing.T) {
	ctx := context.Background()
	fsys := fstest.MapFS{
		"docs/oncall.md":          {Data: []byte("# Checkout on-call\n\nEscalate to Alice Moreno when the payment gateway times out.\n")},
		"fixtures/users.json":     {Data: []byte(`[{"id": "U1", "name": "fixture-user"}]`)},
		"fixtures/channels.json":  {Data: []byte(`[{"id": "C1", "name": "general"}]`)},
		"services/cart/main.go":   {Data: []byte("package main\n\nfunc main() {}\n")},
		"ops/slack/README.md":     {Data: []byte("# Chat history\n\nExported every quarter.\n")},
		"ops/slack/.keep/note.md": {Data: []byte("# Note\n\nNot part of the export.\n")},
		// Beside the export's files in its folder: documents, not part
		// of it, and no problem of it.
		"ops/slack/export/README.md":               {Data: []byte("# Export of 2024-03\n\nTaken by the workspace admin.\n")},
		"ops/slack/export/incidents/summary.md":    {Data: []byte("# Incidents in March\n\nTwo pages, one rollback.\n")},
		"ops/slack/export/incidents/drafts/one.md": {Data: []byte("# Draft\n\nA first draft.\n")},
	}
	addSampleSlack(t, fsys, "ops/slack/export/")
	db := openDB(t)
	c := ingest.New(db, ingest.Options{FS: func(string) fs.FS { return fsys }})
	ss := crawlRepo(ctx, t, c)
	if ss.Chunks[core.ConvoSlack] == 0 || len(ss.Skips) != 0 {
		t.Fatalf("chunks %v, skips %v; want the export's conversations and no skip", ss.Chunks, ss.Skips)
	}
	chunks, err := db.SourceChunks(ctx, "repo")
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]core.CorpusType{}
	for _, ch := range chunks {
		byFile[ch.FilePath] = ch.Corpus
		if strings.Contains(ch.Text, "Alice Moreno") {
			t.Errorf("%s (%s) holds a member's name unscrubbed:\n%s", ch.FilePath, ch.Corpus, ch.Text)
		}
		if strings.HasPrefix(ch.FilePath, "ops/slack/export/") && !strings.HasSuffix(ch.FilePath, ".md") && ch.Corpus != core.ConvoSlack {
			t.Errorf("%s indexed as %s; want Slack conversations", ch.FilePath, ch.Corpus)
		}
		if ch.Corpus == core.ConvoSlack && !strings.HasPrefix(ch.FilePath, "ops/slack/export/") {
			t.Errorf("Slack chunk with file %q; want the day file's path in the repository", ch.FilePath)
		}
	}
	for _, f := range []string{"fixtures/users.json", "ops/slack/README.md", "ops/slack/.keep/note.md", "services/cart/main.go", "docs/oncall.md",
		"ops/slack/export/README.md", "ops/slack/export/incidents/summary.md", "ops/slack/export/incidents/drafts/one.md"} {
		if byFile[f] == "" || byFile[f] == core.ConvoSlack {
			t.Errorf("%s: %q; want it indexed as a file of its own kind", f, byFile[f])
		}
	}

	// An incremental crawl with one day file changed re-reads that
	// channel alone.
	again := ingest.New(db, ingest.Options{FS: func(string) fs.FS { return fsys }, Incremental: true})
	ss = crawlRepo(ctx, t, again)
	units := ss.Unchanged
	if ss.Files != 0 || units == 0 {
		t.Errorf("nothing changed: %d units read again, %d unchanged; want none read", ss.Files, ss.Unchanged)
	}
	var day string
	for p := range fsys {
		if strings.HasPrefix(p, "ops/slack/export/deploys/") {
			day = p
		}
	}
	msgs := strings.Replace(string(fsys[day].Data), "[", `[{"type": "message", "user": "U02BOB", "text": "rolled back the canary of the ledger writer", "ts": "1710403200.000100"},`, 1)
	fsys[day] = &fstest.MapFile{Data: []byte(msgs)}
	ss = crawlRepo(ctx, t, again)
	if ss.Files != 1 || ss.Unchanged != units-1 {
		t.Errorf("one day file changed: %d units read again, %d unchanged; want its channel alone read", ss.Files, ss.Unchanged)
	}
	chunks, err = db.SourceChunks(ctx, "repo")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ch := range chunks {
		found = found || ch.Corpus == core.ConvoSlack && strings.Contains(ch.Text, "ledger writer")
	}
	if !found {
		t.Error("the new message is not indexed")
	}
}

// TestSlackExportNamesBeforeEarlierSources: the members of an export kept
// in a later source are scrubbed from the sources crawled before it.
func TestSlackExportNamesBeforeEarlierSources(t *testing.T) {
	ctx := context.Background()
	docs := fstest.MapFS{
		"runbooks/payments.md": {Data: []byte("# Payment gateway timeouts\n\nPage Bob Okafor, then roll back the gateway client.\n")},
	}
	chat := fstest.MapFS{}
	addSampleSlack(t, chat, "export-2024-03/")
	db := openDB(t)
	c := ingest.New(db, ingest.Options{FS: func(p string) fs.FS {
		if p == "/chat" {
			return chat
		}
		return docs
	}})
	sum, err := c.Run(ctx, []core.Source{
		{Kind: core.SourceRepo, Path: "/docs", Name: "ops-docs"},
		{Kind: core.SourceRepo, Path: "/chat", Name: "chat-archive"},
	})
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	chunks, err := db.SourceChunks(ctx, "ops-docs")
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) == 0 {
		t.Fatal("no chunks of the first source")
	}
	for _, ch := range chunks {
		if strings.Contains(ch.Text, "Bob Okafor") {
			t.Errorf("%s holds a member of the later source's export unscrubbed:\n%s", ch.FilePath, ch.Text)
		}
	}
}
