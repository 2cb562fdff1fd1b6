package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"coderag/core/codetok"
)

// Source is one thing a crawl reads: a repo, a Slack export or a directory.
type Source struct {
	Kind SourceKind
	// Path is the absolute, cleaned path of the source on disk.
	Path string
	// Name identifies the source in the index (the repo name); it is unique
	// per database and is the first element of every chunk's source URI.
	Name string
	// Commit is the git HEAD of a repository when it was crawled (empty
	// for other sources and directories outside git).
	Commit string
	// ContentHash identifies an export's content: the hex SHA-256 of its
	// conversations' paths and hashes (empty for directories).
	ContentHash string
	// NewestMTime is the newest modification time among a directory
	// source's files, Unix nanoseconds (0 for exports).
	NewestMTime int64
}

// File is one file a source yields, as discovery saw it.
type File struct {
	// Path is slash-separated and relative to the source root.
	Path     string
	Size     int64
	Language string
	Corpus   CorpusType
	// ModTime is the file's modification time in Unix nanoseconds (0 when
	// unknown): with Size it lets an incremental crawl skip reading files
	// that did not change.
	ModTime int64
	// Ruled says a classification rule (.coderag.yaml, --classify) gave
	// Corpus: what the file holds never overrides it.
	Ruled bool
}

// Chunk is the unified chunk of seed 000 §3.3. Chunkers produce it raw;
// only the scrub package can turn it into a chunk the store accepts.
type Chunk struct {
	// ID is ChunkID(SourceURI, ByteStart, ByteEnd).
	ID string
	// SourceURI names the chunk's origin: "<repo>/<path>" for files.
	SourceURI string
	// ByteStart and ByteEnd delimit the chunk in the source file, half open.
	ByteStart, ByteEnd int
	// LineStart and LineEnd are 1-based and inclusive.
	LineStart, LineEnd int
	Corpus             CorpusType

	// Text is what is indexed and embedded; for unscrubbed file chunks it
	// equals the file's bytes [ByteStart, ByteEnd).
	Text string
	// ContextPrefix is the scope of the chunk: "path > Class > method",
	// "runbooks/deploy.md > ## Rollback", "#incidents > @alice > 2024-01-15".
	ContextPrefix string

	Language    string
	SymbolName  string
	SymbolKind  string
	Signature   string
	FilePath    string
	GitHash     string
	SectionPath string
	Author      string
	Timestamp   string
	Channel     string
	ThreadID    string
	ServiceName string
	RepoName    string

	Imports   []string
	CallsOut  []string // one line per outbound call: "http GET /users/{id}", "publish kafka orders.placed"
	CalledBy  []string
	K8sLabels map[string]string
	// Meta holds what a chunker knows beyond the fixed fields: a resource's
	// kind, namespace, images, ports and env refs; front matter; the
	// language of a fenced code block.
	Meta map[string]string

	// Calls, Routes and Refs are what the chunk's code calls, serves and
	// refers to (core/chunk finds them; the store keeps them in tables).
	Calls  []Call
	Routes []Route
	Refs   []Ref
	// Resources are what a deploy or config chunk declares (the store
	// keeps them for the service graph).
	Resources []Resource
	// Bindings are the values code gives fields and constructor
	// parameters (the graph traces addresses through them).
	Bindings []Binding
}

// Verbatim reports whether the chunk's text is its file's bytes
// [ByteStart, ByteEnd), so that line i of the text is line LineStart+i of
// the file. Slack chunks, transcripts and documents extracted from HTML or
// DOCX hold rendered text instead (Meta "format" names the source format).
func (c Chunk) Verbatim() bool {
	return c.Corpus != ConvoSlack && c.Meta["format"] == ""
}

// Location is where a chunk comes from, for people: "repo/path:12-40" for
// file chunks, "#incidents @alice 2024-03-14 14:02" for Slack,
// "repo/meeting.vtt 00:04:39" for a transcript.
func (c Chunk) Location() string {
	if c.Corpus == ConvoSlack {
		when := strings.Replace(strings.TrimSuffix(c.Timestamp, "Z"), "T", " ", 1)
		if len(when) > 16 {
			when = when[:16]
		}
		return strings.TrimSpace("#" + c.Channel + " @" + c.Author + " " + when)
	}
	loc := c.FilePath
	if c.RepoName != "" {
		loc = c.RepoName + "/" + c.FilePath
	}
	if c.Verbatim() {
		return fmt.Sprintf("%s:%d-%d", loc, c.LineStart, c.LineEnd)
	}
	if at := c.Meta["start"]; at != "" {
		return loc + " " + at
	}
	return fmt.Sprintf("%s:%d-%d", loc, c.LineStart, c.LineEnd)
}

// Date is the day a chunk is dated (YYYY-MM-DD: a message's, or the
// date its document or section states), or "" when it has none.
func (c Chunk) Date() string {
	if len(c.Timestamp) >= 10 {
		return c.Timestamp[:10]
	}
	return ""
}

// ChunkID is the deterministic id of a chunk: the hex SHA-256 of its source
// URI and byte range.
func ChunkID(sourceURI string, start, end int) string {
	h := sha256.New()
	h.Write([]byte(sourceURI))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, int64(start), 10))
	h.Write([]byte{'-'})
	h.Write(strconv.AppendInt(nil, int64(end), 10))
	return hex.EncodeToString(h.Sum(nil))
}

// Stage is how far a chunk has gone through the pipeline
// (Crawler -> ScrubGate -> Embedder -> Store).
type Stage int

// The pipeline stages of seed 001 §15.4.
const (
	StageRaw      Stage = iota // produced by a crawler; may hold secrets
	StageClean                 // passed the scrub gate
	StageEmbedded              // carries a vector
	StageStored                // written to the index
)

func (s Stage) String() string {
	switch s {
	case StageRaw:
		return "raw"
	case StageClean:
		return "clean"
	case StageEmbedded:
		return "embedded"
	case StageStored:
		return "stored"
	}
	return "stage(" + strconv.Itoa(int(s)) + ")"
}

// EstimateTokens estimates how many model tokens s is: one per four bytes,
// with every run of spaces and tabs counted as one byte, and one per
// Chinese, Japanese or Korean character (codetok.IsCJK; three bytes each,
// and BPE tokenizers give most of them a token or more). It is the one
// estimate all chunk budgets in coderag use; it tracks BPE tokenizers within
// about 20% on code and prose.
func EstimateTokens(s string) int {
	n := 0
	inSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0xE1 { // the lead byte of a character of 3 or 4 bytes
			if r, size := utf8.DecodeRuneInString(s[i:]); codetok.IsCJK(r) {
				n += 4
				i += size - 1
				inSpace = false
				continue
			}
		}
		if c == ' ' || c == '\t' {
			if inSpace {
				continue
			}
			inSpace = true
		} else {
			inSpace = false
		}
		n++
	}
	return (n + 3) / 4
}
