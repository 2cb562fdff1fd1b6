package pack

import (
	"fmt"
	"strings"
	"testing"
)

const patch = `From 3f2a Mon Sep 17 00:00:00 2001
From: Dev <dev@example.com>
Date: Mon, 23 Nov 2026 10:00:00 +0000
Subject: [PATCH 1/2] Tally: refuse overdrafts at posting time

---
 tally/post.go | 3 ++-
 old.txt        | 1 -
 2 files changed

diff --git a/tally/post.go b/tally/post.go
index 1111111..2222222 100644
--- a/tally/post.go
+++ b/tally/post.go
@@ -10,6 +10,7 @@ func (l *Tally) Post(ctx context.Context, t Transfer) error {
 	balance := l.balance(t.From)
-	if balance < 0 {
+	if balance < t.Cents {
+		return ErrOverdraft
 	}
 	return l.commit(ctx, t)
 }
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
`

// TestParseDiff reads a format-patch: its subject as the title, the
// changed file (not the deleted one), the lines the hunk adds and where
// it removes, and the identifiers of the snippet query.
func TestParseDiff(t *testing.T) {
	ch, err := ParseDiff(strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Title != "Tally: refuse overdrafts at posting time" {
		t.Errorf("title %q", ch.Title)
	}
	if len(ch.Files) != 1 || ch.Files[0].Path != "tally/post.go" {
		t.Fatalf("files %+v", ch.Files)
	}
	h := ch.Files[0].Hunks[0]
	if h.Start != 10 || h.Count != 7 || fmt.Sprint(h.Lines) != "[11 11 12]" || len(h.Added) != 2 || len(h.Removed) != 1 {
		t.Errorf("hunk %+v", h)
	}
	qs := ch.queries()
	if len(qs) != 3 || qs[0].weight != weightIntent || qs[1].text != "Tally: refuse overdrafts at posting time path:tally/**" || qs[2].weight != weightSnippet {
		t.Fatalf("queries %+v", qs)
	}
	for _, w := range []string{"Tally", "Post", "balance", "Cents", "ErrOverdraft"} {
		if !strings.Contains(qs[2].text, w) {
			t.Errorf("snippet query %q lacks %s", qs[2].text, w)
		}
	}
	if _, err := ParseDiff(strings.NewReader("just words\n")); err == nil {
		t.Error("a text without file changes is not an error")
	}
	if _, err := ParseDiff(strings.NewReader("--- a/x\n+++ b/x\n@@ bad @@\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("bad hunk header: %v", err)
	}
}
