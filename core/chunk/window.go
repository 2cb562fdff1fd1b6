// Package chunk cuts files into chunks. Window is the fallback that covers
// any text file until a structural chunker claims it.
package chunk

import (
	"unicode/utf8"

	"coderag/core"
)

// WindowOptions configure Window. The zero value uses the defaults.
type WindowOptions struct {
	// Budget is the target size of a window in estimated tokens
	// (core.EstimateTokens); default 400.
	Budget int
	// Overlap is the share of Budget repeated at the start of the next
	// window; default 0.1.
	Overlap float64
}

// Window cuts src into line-aligned windows of about Budget tokens that
// overlap by about Overlap. Every non-blank line lies in at least one
// window; a window never starts or ends on a blank line; a single line
// longer than the budget is cut at UTF-8 boundaries. Each chunk's Text is
// exactly src[ByteStart:ByteEnd]. base supplies the fields shared by all
// chunks of the file (SourceURI, Corpus, FilePath, RepoName, Language).
func Window(src string, base core.Chunk, opts WindowOptions) []core.Chunk {
	if opts.Budget <= 0 {
		opts.Budget = 400
	}
	if opts.Overlap <= 0 || opts.Overlap >= 1 {
		opts.Overlap = 0.1
	}
	lines := splitLines(src)
	var out []core.Chunk
	emit := func(start, end, lineStart, lineEnd int) {
		c := base
		c.ByteStart, c.ByteEnd = start, end
		c.LineStart, c.LineEnd = lineStart, lineEnd
		c.Text = src[start:end]
		c.ID = core.ChunkID(c.SourceURI, start, end)
		if c.ContextPrefix == "" {
			c.ContextPrefix = c.FilePath
		}
		out = append(out, c)
	}
	maxBytes := opts.Budget * 4
	overlap := int(float64(opts.Budget) * opts.Overlap)

	i := 0
	for {
		for i < len(lines) && lines[i].blank {
			i++
		}
		if i >= len(lines) {
			return out
		}
		// An oversized line becomes byte windows of its own.
		if lines[i].tokens > opts.Budget {
			l := lines[i]
			for s := l.start; s < l.end; {
				e := min(s+maxBytes, l.end)
				for e > s && e < l.end && !utf8.RuneStart(src[e]) {
					e-- // not inside a rune (invalid UTF-8 never reaches back past s)
				}
				if e == s { // a window smaller than one rune: take the rune
					_, n := utf8.DecodeRuneInString(src[s:])
					e = s + n
				}
				emit(s, e, i+1, i+1)
				s = e
			}
			i++
			continue
		}
		j, tokens := i, 0
		for j < len(lines) && (j == i || tokens+lines[j].tokens <= opts.Budget) && lines[j].tokens <= opts.Budget {
			tokens += lines[j].tokens
			j++
		}
		last := j - 1
		for last > i && lines[last].blank {
			last--
		}
		emit(lines[i].start, lines[last].end, i+1, last+1)
		if j >= len(lines) {
			return out
		}
		// Step back for the overlap, always moving forward.
		next, back := j, 0
		for next-1 > i && back+lines[next-1].tokens <= overlap {
			next--
			back += lines[next].tokens
		}
		i = next
	}
}

type line struct {
	start, end int // end excludes the newline
	tokens     int
	blank      bool
}

func splitLines(src string) []line {
	var lines []line
	start := 0
	for start < len(src) {
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		text := src[start:end]
		trimmed := len(text)
		if trimmed > 0 && text[trimmed-1] == '\r' {
			trimmed--
		}
		l := line{start: start, end: start + trimmed, tokens: core.EstimateTokens(text) + 1, blank: isBlank(text)}
		lines = append(lines, l)
		start = end + 1
	}
	return lines
}

func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\f', '\v':
		default:
			return false
		}
	}
	return true
}
