package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// sharedCorpora holds real public Slack exports, transcripts, runbooks and
// ADRs next to the project (see its SOURCES.md); the test skips without it.
var sharedCorpora = filepath.Join("..", "..", "..", "shared", "corpora", "nonCode")

// TestRealNonCodeCorpora crawls the real exports, transcripts, runbooks and
// ADRs: no source may fail, and every corpus type must get chunks.
func TestRealNonCodeCorpora(t *testing.T) {
	if _, err := os.Stat(sharedCorpora); err != nil {
		t.Skipf("no shared corpora at %s", sharedCorpora)
	}
	p := func(s string) string { return filepath.Join(sharedCorpora, s) }
	db := filepath.Join(t.TempDir(), "real.db")
	code, out, errs := coderag(t, "crawl", "--db", db, "--json",
		"--slack-export", "hfaran="+p("slack/hfaran-slack-export-viewer-testarchive/export"),
		"--slack-export", "slackdump="+p("slack/rusq-slackdump-source_export_dir/export"),
		"--slack-export", "zulip="+p("slack/zulip-slack-fixtures"),
		"--transcripts-dir", p("transcripts"),
		"--runbooks-dir", p("runbooks"),
		"--repo-path", p("adr"))
	if code != 0 {
		t.Fatalf("crawl exit %d: %s", code, errs)
	}
	code, out, _ = coderag(t, "stats", "--db", db, "--json")
	if code != 0 {
		t.Fatal(out)
	}
	var st struct {
		ByCorpus map[string]int `json:"by_corpus"`
		Sources  []struct {
			Name    string `json:"name"`
			Files   int    `json:"files"`
			Chunks  int    `json:"chunks"`
			Skipped int    `json:"skipped"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"CONVO_SLACK", "CONVO_TRANSCRIPT", "DOC_RUNBOOK", "DOC_ADR"} {
		if st.ByCorpus[c] == 0 {
			t.Errorf("no %s chunks: %v", c, st.ByCorpus)
		}
	}
	for _, s := range st.Sources {
		if s.Chunks == 0 {
			t.Errorf("source %s has no chunks", s.Name)
		}
		t.Logf("%-12s %4d files %5d chunks %3d skipped", s.Name, s.Files, s.Chunks, s.Skipped)
	}
	t.Logf("chunks by corpus type: %v", st.ByCorpus)
}
