package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCJKSearch crawls testdata/cjk (a runbook, Go comments and a Slack
// channel in Japanese, Chinese and Korean) and asks it questions of a few
// of a text's words, as its team would: each finds its text first.
func TestCJKSearch(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "cjk")
	db := filepath.Join(t.TempDir(), "cjk.db")
	if code, _, errb := coderag(t, "crawl", "--db", db, "--repo-path", filepath.Join(root, "repo"),
		"--slack-export", "ops-slack="+filepath.Join(root, "slack")); code != 0 {
		t.Fatalf("crawl exit %d: %s", code, errb)
	}
	for _, tt := range []struct {
		query, file, symbol string
	}{
		{"接続プール 枯渇", "", ""},                                  // the Slack thread or the runbook: both say it
		{"決済サービス 対応手順", "決済サービス障害.md", "対応手順"},                // Japanese, the runbook's section
		{"连接池耗尽", "services/ledger/pool.go", "OpenPool"}, // Chinese, a Go comment
		{"重试记账", "services/ledger/pool.go", "RetryPosting"},
		{"결제 지연", "決済サービス障害.md", ""},       // Korean
		{"ポストモーテム", "2024-09-12.json", ""}, // the Slack thread
	} {
		code, out, errb := coderag(t, "query", "--db", db, "--json", "--limit", "3", tt.query)
		if code != 0 {
			t.Fatalf("query %q: exit %d: %s", tt.query, code, errb)
		}
		var res struct {
			Text string `json:"text"`
			Hits []struct {
				FilePath   string `json:"file_path"`
				SymbolName string `json:"symbol_name"`
			} `json:"hits"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("query %q: %v", tt.query, err)
		}
		if len(res.Hits) == 0 {
			t.Errorf("query %q found nothing", tt.query)
			continue
		}
		top := res.Hits[0]
		if !strings.HasSuffix(top.FilePath, tt.file) || tt.symbol != "" && top.SymbolName != tt.symbol {
			t.Errorf("query %q: first hit %s %q, want %s %q", tt.query, top.FilePath, top.SymbolName, tt.file, tt.symbol)
		}
		if res.Text != tt.query {
			t.Errorf("query %q: the result says it searched %q", tt.query, res.Text)
		}
	}
}
