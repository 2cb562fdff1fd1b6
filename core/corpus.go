// Package core holds coderag's vocabulary: the kinds of sources it crawls,
// the corpus types and sensitivity tiers of what it indexes, the unified
// chunk, progress events, search hits and statistics, and the sentinel
// errors shared by the crawler, the store and the drivers.
//
// Core has no I/O of its own; the packages under core/ do the work and
// declare the small interfaces (a store, an embedder) they need.
package core

import (
	"fmt"
	"slices"
	"strings"
)

// SourceKind is what a crawl argument points at. One source kind can yield
// several corpus types: a repo gives code, deploy, config and docs chunks.
type SourceKind string

// The source kinds coderag crawls.
const (
	SourceRepo          SourceKind = "repo"
	SourceSlackExport   SourceKind = "slack_export"
	SourceTranscriptDir SourceKind = "transcript_dir"
	SourceRunbookDir    SourceKind = "runbook_dir"
	SourceGDocsDir      SourceKind = "gdocs_dir"
)

// CorpusType classifies a chunk; it decides chunking, tokenization,
// sensitivity and how results are shown.
type CorpusType string

// The corpus types of seed 000 §3.1 plus DOC_GOOGLE from seed 001 §15.
const (
	CodeLogic       CorpusType = "CODE_LOGIC"
	CodeDeploy      CorpusType = "CODE_DEPLOY"
	CodeConfig      CorpusType = "CODE_CONFIG"
	DocReadme       CorpusType = "DOC_README"
	DocRunbook      CorpusType = "DOC_RUNBOOK"
	DocADR          CorpusType = "DOC_ADR"
	DocGoogle       CorpusType = "DOC_GOOGLE"
	ConvoSlack      CorpusType = "CONVO_SLACK"
	ConvoTranscript CorpusType = "CONVO_TRANSCRIPT"
	ConvoOther      CorpusType = "CONVO_OTHER"
)

// Sensitivity is how likely a source type is to hold personal data. It is a
// property of the source type, never a runtime choice (seed 001 §15.2).
type Sensitivity string

// The sensitivity tiers. Secrets are scrubbed in every tier; personal data
// in every tier but Clean.
const (
	Clean          Sensitivity = "clean"
	MaybeSensitive Sensitivity = "maybe_sensitive"
	Sensitive      Sensitivity = "sensitive"
)

// ChunkerKind names the family of chunker a corpus type is cut with.
type ChunkerKind string

// The chunker kinds.
const (
	ChunkAST      ChunkerKind = "ast"
	ChunkYAML     ChunkerKind = "yaml"
	ChunkMarkdown ChunkerKind = "markdown"
	ChunkThread   ChunkerKind = "thread"
	ChunkSliding  ChunkerKind = "sliding"
)

// Tokenizer names the BM25 tokenizer family that suits a corpus type best.
// Every chunk is indexed by both FTS5 tables; the family decides which of
// the two lists weighs more for the chunk's corpus at query time.
type Tokenizer string

// The BM25 tokenizer families: the custom `code` FTS5 tokenizer and
// `porter unicode61` for prose.
const (
	TokenizeCode Tokenizer = "code"
	TokenizeNLP  Tokenizer = "nlp"
)

// SourceType bundles what the pipeline needs to know about a corpus type.
// The registry of source types is data: adding a source type is one row in
// it plus one crawler.
type SourceType struct {
	Corpus      CorpusType
	Sensitivity Sensitivity
	Description string
	Chunker     ChunkerKind
	Tokenizer   Tokenizer
	// Short is the name used in query filters and badges (type:runbook).
	Short string
}

// registry is the source type registry of seed 001 §15.3, in display order.
var registry = []SourceType{
	{CodeLogic, Clean, "Source code: functions, classes, methods", ChunkAST, TokenizeCode, "code"},
	{CodeDeploy, Clean, "Kubernetes YAML, Helm charts, compose files, Dockerfiles, Terraform", ChunkYAML, TokenizeCode, "deploy"},
	{CodeConfig, Clean, "Config files: go.mod, package.json, *.csproj, appsettings, .env templates", ChunkYAML, TokenizeCode, "config"},
	{DocReadme, Clean, "In-repo Markdown docs and READMEs", ChunkMarkdown, TokenizeNLP, "docs"},
	{DocRunbook, MaybeSensitive, "Operational runbooks (may name people and incidents)", ChunkMarkdown, TokenizeNLP, "runbook"},
	{DocADR, MaybeSensitive, "Architecture decision records", ChunkMarkdown, TokenizeNLP, "adr"},
	{DocGoogle, Sensitive, "Google Docs exports: design docs, specs, meeting notes", ChunkMarkdown, TokenizeNLP, "gdoc"},
	{ConvoSlack, MaybeSensitive, "Slack threads (may mention people and incidents)", ChunkThread, TokenizeNLP, "slack"},
	{ConvoTranscript, Sensitive, "Meeting transcripts and call logs", ChunkThread, TokenizeNLP, "transcript"},
	{ConvoOther, MaybeSensitive, "Other conversation-like content", ChunkSliding, TokenizeNLP, "convo"},
}

// SourceTypes returns the registry in display order.
func SourceTypes() []SourceType { return slices.Clone(registry) }

// CorpusTypes returns every corpus type in display order.
func CorpusTypes() []CorpusType {
	out := make([]CorpusType, len(registry))
	for i, st := range registry {
		out[i] = st.Corpus
	}
	return out
}

// Type returns the registry row of c; the zero SourceType if c is unknown.
func (c CorpusType) Type() SourceType {
	for _, st := range registry {
		if st.Corpus == c {
			return st
		}
	}
	return SourceType{}
}

// Valid reports whether c is in the registry.
func (c CorpusType) Valid() bool { return c.Type().Corpus != "" }

// Short returns the short name of c (code, deploy, runbook, ...).
func (c CorpusType) Short() string {
	if st := c.Type(); st.Short != "" {
		return st.Short
	}
	return strings.ToLower(string(c))
}

// ParseCorpusType accepts a corpus type by its name (CODE_LOGIC, code_logic)
// or its short name (code, deploy, config, docs, runbook, adr, gdoc, slack,
// transcript, convo).
func ParseCorpusType(s string) (CorpusType, error) {
	for _, st := range registry {
		if strings.EqualFold(s, string(st.Corpus)) || strings.EqualFold(s, st.Short) {
			return st.Corpus, nil
		}
	}
	names := make([]string, len(registry))
	for i, st := range registry {
		names[i] = st.Short
	}
	return "", fmt.Errorf("unknown corpus type %q (want one of %s)", s, strings.Join(names, ", "))
}
