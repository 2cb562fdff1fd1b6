package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"coderag/core"
	"coderag/core/chunk"
	"coderag/core/discover"
)

// StreamAbove is the size above which a file is read as a stream of
// segments instead of whole: chunkers that parse a whole file (a syntax
// tree, a Markdown document) need many times its size in memory (a
// Markdown file of headings alone, 200 times), so a large file (which
// --max-file-size must have let in) is cut into segments at line ends,
// each cut into windows (Markdown along its headings, the heading path
// carried across segments), and no code facts are taken from it.
// Markdown streams above StreamMarkdownAbove.
const (
	StreamAbove         = 2 << 20
	StreamMarkdownAbove = 512 << 10
)

// streamed reports whether a file is read as a stream, and the size of
// its segments.
func streamed(f core.File) (bool, int) {
	if f.Language == "markdown" {
		return f.Size > StreamMarkdownAbove, 256 << 10
	}
	return f.Size > StreamAbove, 1 << 20
}

// DefaultMaxChunksPerFile is how many chunks one file yields at most
// unless Options.MaxChunksPerFile says otherwise; the rest of the file is
// skipped with a warning.
const DefaultMaxChunksPerFile = 5000

// maxChunks is the chunk limit per file.
func (c *Crawler) maxChunks() int {
	if c.opts.MaxChunksPerFile > 0 {
		return c.opts.MaxChunksPerFile
	}
	return DefaultMaxChunksPerFile
}

// capChunks keeps the first max chunks of a file and says what was left
// out.
func capChunks(raw []core.Chunk, max int, warning string) ([]core.Chunk, string) {
	if len(raw) <= max {
		return raw, warning
	}
	last := raw[max-1].LineEnd
	w := fmt.Sprintf("only the first %d of %d chunks indexed (lines 1-%d): the chunk limit per file (--max-chunks-per-file)", max, len(raw), last)
	if warning != "" {
		w = warning + "; " + w
	}
	return raw[:max:max], w
}

// checkStream reads a large file once: its content hash, and whether it
// is text coderag indexes (no NUL byte, valid UTF-8), with the line of
// the first bad byte.
func checkStream(r io.Reader) (hash string, size int64, why string, err error) {
	h := sha256.New()
	br := bufio.NewReaderSize(r, 64<<10)
	buf := make([]byte, 64<<10)
	var carry []byte // an incomplete UTF-8 sequence at a buffer's end
	line := 1
	for {
		n, rerr := br.Read(buf)
		if n > 0 {
			b := buf[:n]
			h.Write(b)
			size += int64(n)
			if why == "" {
				if i := bytes.IndexByte(b, 0); i >= 0 {
					why = fmt.Sprintf("binary content (NUL byte on line %d)", line+bytes.Count(b[:i], []byte{'\n'}))
				} else if bad, ok := validUTF8Stream(&carry, b); !ok {
					why = fmt.Sprintf("not valid UTF-8 (first bad byte on line %d)", line+bytes.Count(b[:bad], []byte{'\n'}))
				}
				line += bytes.Count(b, []byte{'\n'})
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", size, "", rerr
		}
	}
	if why == "" && len(carry) > 0 {
		why = fmt.Sprintf("not valid UTF-8 (first bad byte on line %d)", line)
	}
	return hex.EncodeToString(h.Sum(nil)), size, why, nil
}

// validUTF8Stream checks b, continuing an incomplete sequence left in
// carry by the previous buffer and leaving one at b's end there. It
// returns the offset in b of the first bad byte and false when there is
// one.
func validUTF8Stream(carry *[]byte, b []byte) (int, bool) {
	start := 0
	if len(*carry) > 0 {
		need := 4 - len(*carry)
		joined := append(append([]byte{}, *carry...), b[:min(need, len(b))]...)
		r, size := utf8.DecodeRune(joined)
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(joined) && len(b) < need {
				*carry = joined
				return 0, true
			}
			return 0, false
		}
		start = size - len(*carry)
		*carry = nil
	}
	// Hold back an incomplete sequence at the end.
	end := len(b)
	for k := 1; k <= 3 && end-k >= start; k++ {
		c := b[end-k]
		if c < 0x80 {
			break
		}
		if c >= 0xC0 { // a leading byte: is its sequence complete?
			if !utf8.FullRune(b[end-k:]) {
				*carry = append([]byte{}, b[end-k:]...)
				end -= k
			}
			break
		}
	}
	if utf8.Valid(b[start:end]) {
		return 0, true
	}
	for i := start; i < end; {
		r, size := utf8.DecodeRune(b[i:end])
		if r == utf8.RuneError && size <= 1 {
			return i, false
		}
		i += size
	}
	return 0, true
}

// processLarge reads, checks and chunks a file streamed() says is large as a
// stream of segments, so that memory stays bounded by the segment size
// and the chunk limit, whatever the file holds.
func (r *sourceReader) processLarge(f core.File, segmentBytes int) fileResult {
	c := r.c
	res := fileResult{file: f}
	fh, err := r.fsys.Open(f.Path)
	if err != nil {
		res.skip = "unreadable: " + unwrapPathError(err)
		return res
	}
	hash, size, why, err := checkStream(fh)
	hash = stamp(hash)
	fh.Close()
	if err != nil {
		res.skip = "unreadable: " + unwrapPathError(err)
		return res
	}
	if sf, ok := r.stored[f.Path]; ok && sf.Hash == hash {
		return fileResult{file: f, hash: hash, unchanged: true, touch: f.ModTime != 0 && f.ModTime != sf.ModTime}
	}
	if size > c.maxSize() {
		res.skip = fmt.Sprintf("larger than the size limit (%d bytes)", size)
		return res
	}
	if why != "" {
		res.skip = why
		return res
	}
	fh, err = r.fsys.Open(f.Path)
	if err != nil {
		res.skip = "unreadable: " + unwrapPathError(err)
		return res
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 64<<10)
	res.hash, res.bytes = hash, size
	base := core.Chunk{SourceURI: r.src.Name + "/" + f.Path, FilePath: f.Path, RepoName: r.src.Name}
	var raw []core.Chunk
	var off int64   // byte offset of the segment in the file
	line := 0       // lines before the segment
	var rest []byte // what the previous segment left after its last line end
	max := c.maxChunks()
	first := true
	var headings []string // the heading path at the end of the last segment
	for len(raw) < max {
		seg := make([]byte, len(rest), segmentBytes+len(rest))
		copy(seg, rest)
		n, rerr := io.ReadFull(br, seg[len(seg):cap(seg)])
		seg = seg[:len(seg)+n]
		eof := rerr == io.EOF || errors.Is(rerr, io.ErrUnexpectedEOF)
		if rerr != nil && !eof {
			res.skip = "unreadable: " + unwrapPathError(rerr)
			return res
		}
		if len(seg) == 0 {
			break
		}
		rest = nil
		if !eof {
			seg, rest = cutSegment(seg)
		}
		if first {
			var why string
			f, why = discover.Inspect(f, seg)
			f.Corpus = r.corpus(f)
			if why != "" {
				res.skip = why
				return res
			}
			base.Corpus, base.Language = f.Corpus, f.Language
			res.file = f
			first = false
		}
		var out []core.Chunk
		if f.Language == "markdown" {
			out = c.chunker.Markdown(seg, base).Chunks
			headings = carryHeadings(out, headings)
		} else {
			out = chunk.Window(string(seg), base, c.opts.Window)
		}
		for i := range out {
			ch := &out[i]
			ch.ByteStart += int(off)
			ch.ByteEnd += int(off)
			ch.LineStart += line
			ch.LineEnd += line
			ch.ID = core.ChunkID(ch.SourceURI, ch.ByteStart, ch.ByteEnd)
		}
		raw = append(raw, out...)
		off += int64(len(seg))
		line += bytes.Count(seg, []byte{'\n'})
		if eof && len(rest) == 0 {
			break
		}
	}
	if len(raw) > max || off < size {
		raw = raw[:min(len(raw), max):min(len(raw), max)]
		end := raw[len(raw)-1]
		res.warning = fmt.Sprintf("only the first %d chunks indexed (lines 1-%d, %s of %s): the chunk limit per file (--max-chunks-per-file)",
			len(raw), end.LineEnd, humanMB(int64(end.ByteEnd)), humanMB(size))
	}
	return r.clean(res, raw)
}

// carryHeadings puts the headings a segment of a Markdown file starts
// under (the path at the end of the previous segment) above its chunks'
// own, and returns the path at its end.
func carryHeadings(chunks []core.Chunk, path []string) []string {
	level := func(h string) int { return len(h) - len(strings.TrimLeft(h, "#")) }
	for i := range chunks {
		ch := &chunks[i]
		var own []string
		if ch.SectionPath != "" {
			own = strings.Split(ch.SectionPath, " > ")
		}
		top := 4
		if len(own) > 0 {
			top = level(own[0])
		}
		var parents []string
		for _, h := range path {
			if level(h) < top {
				parents = append(parents, h)
			}
		}
		if len(parents) > 0 {
			full := strings.Join(append(parents, own...), " > ")
			if strings.HasPrefix(ch.ContextPrefix, ch.FilePath) {
				ch.ContextPrefix = ch.FilePath + " > " + full
			}
			ch.SectionPath = full
		}
	}
	if n := len(chunks); n > 0 && chunks[n-1].SectionPath != "" {
		return strings.Split(chunks[n-1].SectionPath, " > ")
	}
	return path
}

// cutSegment cuts a segment after its last line end, or, in a line longer
// than the segment, after its last space or at a UTF-8 boundary, and
// returns the segment and what is left for the next one.
func cutSegment(seg []byte) ([]byte, []byte) {
	cut := bytes.LastIndexByte(seg, '\n') + 1
	if cut <= 0 {
		cut = bytes.LastIndexByte(seg, ' ') + 1
	}
	if cut <= len(seg)/2 { // no good place: the last UTF-8 boundary
		cut = len(seg)
		for p := len(seg) - 1; p >= 0 && p >= len(seg)-4; p-- {
			if utf8.RuneStart(seg[p]) {
				if !utf8.FullRune(seg[p:]) {
					cut = p
				}
				break
			}
		}
	}
	rest := append([]byte(nil), seg[cut:]...)
	return seg[:cut], rest
}

// humanMB writes a byte count in MB with one decimal.
func humanMB(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
