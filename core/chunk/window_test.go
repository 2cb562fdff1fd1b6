package chunk

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

// CheckInvariants verifies what every chunker must guarantee for a file:
// each chunk's text is the file's bytes [ByteStart, ByteEnd), line numbers
// match the byte offsets, ids are deterministic, and every non-blank line of
// the file lies in some chunk.
func checkInvariants(t *testing.T, src string, chunks []core.Chunk) {
	t.Helper()
	covered := make([]bool, strings.Count(src, "\n")+2)
	for i, c := range chunks {
		if c.ByteStart < 0 || c.ByteEnd > len(src) || c.ByteStart >= c.ByteEnd {
			t.Fatalf("chunk %d range [%d,%d) outside file of %d bytes", i, c.ByteStart, c.ByteEnd, len(src))
		}
		if c.Text != src[c.ByteStart:c.ByteEnd] {
			t.Fatalf("chunk %d text differs from file bytes [%d,%d)", i, c.ByteStart, c.ByteEnd)
		}
		if !utf8.ValidString(c.Text) && utf8.ValidString(src) {
			t.Fatalf("chunk %d cuts a UTF-8 sequence", i)
		}
		if want := strings.Count(src[:c.ByteStart], "\n") + 1; c.LineStart != want {
			t.Fatalf("chunk %d LineStart = %d, want %d", i, c.LineStart, want)
		}
		if want := strings.Count(src[:c.ByteEnd], "\n") + 1; c.LineEnd != want && !(c.ByteEnd > 0 && src[c.ByteEnd-1] == '\n' && c.LineEnd == want-1) {
			t.Fatalf("chunk %d LineEnd = %d, want %d", i, c.LineEnd, want)
		}
		if c.ID != core.ChunkID(c.SourceURI, c.ByteStart, c.ByteEnd) {
			t.Fatalf("chunk %d id is not ChunkID(uri, range)", i)
		}
		// A chunk starts at the start of its line, indentation included,
		// unless the chunk before it ends on that line.
		if ls := strings.LastIndexByte(src[:c.ByteStart], '\n') + 1; ls < c.ByteStart && (i == 0 || chunks[i-1].ByteEnd <= ls) {
			t.Fatalf("chunk %d starts at byte %d, after %q on its line %d: want the line's start", i, c.ByteStart, src[ls:c.ByteStart], c.LineStart)
		}
		for l := c.LineStart; l <= c.LineEnd; l++ {
			covered[l] = true
		}
	}
	for n, l := range strings.Split(src, "\n") {
		if strings.TrimSpace(l) != "" && !covered[n+1] {
			t.Fatalf("non-blank line %d (%q) is in no chunk", n+1, l)
		}
	}
}

func base() core.Chunk {
	return core.Chunk{SourceURI: "repo/f.txt", FilePath: "f.txt", Corpus: core.CodeLogic, RepoName: "repo"}
}

func TestWindowInvariants(t *testing.T) {
	var long strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&long, "line %d: the checkout service calls cart over HTTP and writes to shopdb\n", i)
		if i%37 == 0 {
			long.WriteString("\n\n")
		}
	}
	inputs := map[string]string{
		"empty":          "",
		"blank only":     "\n\n   \n\t\n",
		"one line":       "package main",
		"one line nl":    "package main\n",
		"crlf":           "a\r\nb\r\n\r\nc\r\n",
		"long file":      long.String(),
		"minified":       "var a=1;" + strings.Repeat("b=function(){return 2};", 3000),
		"minified utf8":  strings.Repeat("é€😀", 4000),
		"mixed long":     "short\n" + strings.Repeat("x", 5000) + "\nshort again\n",
		"leading blanks": "\n\n\nfunc x() {}\n\n\n",
	}
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			chunks := Window(src, base(), WindowOptions{})
			checkInvariants(t, src, chunks)
			again := Window(src, base(), WindowOptions{})
			if d := cmp.Diff(chunks, again); d != "" {
				t.Fatalf("Window is not deterministic:\n%s", d)
			}
			for i, c := range chunks {
				if tok := core.EstimateTokens(c.Text); tok > 400+400/4 {
					t.Errorf("chunk %d has %d tokens, budget 400", i, tok)
				}
			}
		})
	}
}

func TestWindowOverlap(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "line number %03d with some words\n", i)
	}
	chunks := Window(b.String(), base(), WindowOptions{Budget: 100})
	if len(chunks) < 5 {
		t.Fatalf("got %d windows, want several", len(chunks))
	}
	for i := 1; i < len(chunks); i++ {
		prev, cur := chunks[i-1], chunks[i]
		if cur.LineStart > prev.LineEnd {
			t.Errorf("window %d starts at line %d after the previous ended at %d: no overlap", i, cur.LineStart, prev.LineEnd)
		}
		if cur.LineStart <= prev.LineStart {
			t.Errorf("window %d does not move forward", i)
		}
	}
}

func FuzzWindow(f *testing.F) {
	f.Add("a\nb\n\nc", 10)
	f.Add(strings.Repeat("x", 100), 3)
	f.Fuzz(func(t *testing.T, src string, budget int) {
		if budget < 1 || budget > 1000 {
			return
		}
		checkInvariants(t, src, Window(src, base(), WindowOptions{Budget: budget}))
	})
}
