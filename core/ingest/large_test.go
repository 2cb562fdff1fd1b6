package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"coderag/core"
	"coderag/core/discover"
	"coderag/core/ingest"
)

// TestLargeFilesStreamed (issue 23, item 2): files over the stream size
// are read in segments: every chunk still holds its file's bytes at its
// range and lines, a Markdown file's later segments keep the heading
// path they sit under, a file stops at the chunk limit with a warning,
// and a NUL byte or bad UTF-8 anywhere still skips the file.
func TestLargeFilesStreamed(t *testing.T) {
	var txt bytes.Buffer
	for i := 0; txt.Len() < 3*ingest.StreamAbove; i++ {
		fmt.Fprintf(&txt, "line %d: the tally posts a transfer of %d coins between two accounts é\n", i, i*7)
	}
	var md bytes.Buffer
	md.WriteString("# Operations guide\n\nHow the tally is run.\n\n")
	for i := 0; md.Len() < ingest.StreamMarkdownAbove+(600<<10); i++ {
		fmt.Fprintf(&md, "## Procedure %d\n\nDrain the queue, then restart worker %d. ", i, i)
		md.WriteString(strings.Repeat("Check the dashboards and the alerts before you go on. ", 20) + "\n\n")
	}
	// One long line of two-byte runes: sequences straddle every buffer
	// and segment boundary.
	runes := bytes.Repeat([]byte("é"), ingest.StreamAbove/2+40000)
	nul := append(bytes.Clone(txt.Bytes()), []byte("tail\x00\n")...)
	bad := append(bytes.Clone(txt.Bytes()), []byte("caf\xe9\n")...)
	fsys := fstest.MapFS{
		"logs/tally.txt":    {Data: txt.Bytes()},
		"docs/guide.md":     {Data: md.Bytes()},
		"data/runes.txt":    {Data: runes},
		"logs/with-nul.txt": {Data: nul},
		"logs/bad-utf8.txt": {Data: bad},
		"docs/small.md":     {Data: []byte("# Small\n\nA small doc.\n")},
	}
	for name, f := range fsys {
		f.Mode = 0o644
		fsys[name] = f
	}
	ctx := context.Background()
	db := openDB(t)
	const limit = 2500
	c := ingest.New(db, ingest.Options{
		Jobs:             2,
		MaxChunksPerFile: limit,
		FS:               func(string) fs.FS { return fsys },
		Discover:         discover.Options{MaxFileSize: 64 << 20},
	})
	sum, err := c.Run(ctx, []core.Source{{Kind: core.SourceRepo, Path: "/repo", Name: "repo"}})
	if err != nil {
		t.Fatal(err)
	}
	ss := sum.Sources[0]
	skips := map[string]string{}
	for _, s := range ss.Skips {
		skips[s.Path] = s.Reason
	}
	wantNUL := fmt.Sprintf("binary content (NUL byte on line %d)", bytes.Count(txt.Bytes(), []byte{'\n'})+1)
	if skips["logs/with-nul.txt"] != wantNUL {
		t.Errorf("with-nul.txt: skip %q, want %q", skips["logs/with-nul.txt"], wantNUL)
	}
	if !strings.HasPrefix(skips["logs/bad-utf8.txt"], "not valid UTF-8") {
		t.Errorf("bad-utf8.txt: skip %q", skips["logs/bad-utf8.txt"])
	}
	if r, ok := skips["data/runes.txt"]; ok {
		t.Errorf("runes.txt skipped: %s", r)
	}
	warned := map[string]string{}
	for _, w := range ss.Warnings {
		warned[w.Path] = w.Reason
	}
	if !strings.Contains(warned["logs/tally.txt"], "only the first 2500 chunks indexed") {
		t.Errorf("tally.txt: warning %q, want the chunk limit", warned["logs/tally.txt"])
	}
	chunks, err := db.SourceChunks(ctx, "repo")
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]core.Chunk{}
	for _, ch := range chunks {
		byFile[ch.FilePath] = append(byFile[ch.FilePath], ch)
	}
	for name, n := range map[string]int{"logs/tally.txt": limit, "docs/small.md": 1} {
		if len(byFile[name]) != n {
			t.Errorf("%s: %d chunks, want %d", name, len(byFile[name]), n)
		}
	}
	for _, name := range []string{"logs/tally.txt", "docs/guide.md", "data/runes.txt"} {
		data := fsys[name].Data
		cs := byFile[name]
		if len(cs) == 0 {
			t.Errorf("%s: no chunks", name)
			continue
		}
		lastEnd := 0
		for _, ch := range cs {
			if got := string(data[ch.ByteStart:ch.ByteEnd]); got != ch.Text {
				t.Fatalf("%s: chunk %d-%d does not hold the file's bytes at its range", name, ch.ByteStart, ch.ByteEnd)
			}
			if line := bytes.Count(data[:ch.ByteStart], []byte{'\n'}) + 1; line != ch.LineStart {
				t.Fatalf("%s: chunk at byte %d says line %d, is on line %d", name, ch.ByteStart, ch.LineStart, line)
			}
			lastEnd = max(lastEnd, ch.ByteEnd)
		}
		if name != "logs/tally.txt" && lastEnd < len(bytes.TrimRight(data, "\n ")) {
			t.Errorf("%s: chunks end at byte %d of %d", name, lastEnd, len(data))
		}
	}
	deep := 0
	for _, ch := range byFile["docs/guide.md"] {
		if ch.ByteStart > 300<<10 && strings.Contains(ch.SectionPath, "## Procedure") {
			deep++
			if !strings.HasPrefix(ch.SectionPath, "# Operations guide > ## Procedure") {
				t.Fatalf("guide.md chunk at byte %d lost its heading path: %q", ch.ByteStart, ch.SectionPath)
			}
		}
	}
	if deep == 0 {
		t.Error("guide.md: no section chunks past the first segment")
	}
}
