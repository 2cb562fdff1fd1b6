package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"coderag/core"
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
		{"接続プール 枯渇", "", ""},                             // the Slack thread or the runbook: both say it
		{"決済サービス 対応手順", "決済サービス障害.md", "対応手順"},           // Japanese, the runbook's section
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

// TestExcerptWidth: an excerpt's line is cut at 160 columns, a CJK
// character counting two, and never inside a character.
func TestExcerptWidth(t *testing.T) {
	for _, tt := range []struct {
		name, line string
		width      int // of the line as cut
	}{
		{"ascii", strings.Repeat("retry the payment ", 20), 160},
		{"japanese", strings.Repeat("接続プールの使用率を確認する。", 20), 159}, // a 2-column character does not fit the 160th
		{"short", "接続プール", 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := excerpt(core.Chunk{Text: tt.line, LineStart: 1}, nil, 1, 0)
			if len(got) != 1 {
				t.Fatalf("%d lines", len(got))
			}
			if w := ansi.StringWidth(got[0].text); w != tt.width || !utf8.ValidString(got[0].text) {
				t.Errorf("cut to %d columns (valid UTF-8: %v), want %d: %q", w, utf8.ValidString(got[0].text), tt.width, got[0].text)
			}
		})
	}
}
