// Package chunkrow is the chunks table's row as both stores (the SQLite
// file and PostgreSQL) read and write it: the column list, scanning a row
// into a core.Chunk, the JSON encoding of its list and map columns, and
// the float32 encoding of vectors.
package chunkrow

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"coderag/core"
)

// Cols are the chunk columns Scan reads, on table alias c.
const Cols = `c.id, c.source_uri, c.byte_start, c.byte_end, c.line_start, c.line_end, c.corpus_type,
	c.text, c.context_prefix, c.language, c.symbol_name, c.symbol_kind, c.signature, c.file_path,
	c.git_hash, c.section_path, c.author, c."timestamp", c.channel, c.thread_id, c.service_name,
	c.repo_name, c.imports, c.calls_out, c.called_by, c.k8s_labels, c.meta`

// Scanner is a row of either driver.
type Scanner interface{ Scan(dest ...any) error }

// Scan reads Cols (then extra) from r into a chunk.
func Scan(r Scanner, extra ...any) (core.Chunk, error) {
	var c core.Chunk
	var corpus, imports, callsOut, calledBy, labels, meta string
	dest := []any{&c.ID, &c.SourceURI, &c.ByteStart, &c.ByteEnd, &c.LineStart, &c.LineEnd, &corpus,
		&c.Text, &c.ContextPrefix, &c.Language, &c.SymbolName, &c.SymbolKind, &c.Signature, &c.FilePath,
		&c.GitHash, &c.SectionPath, &c.Author, &c.Timestamp, &c.Channel, &c.ThreadID, &c.ServiceName,
		&c.RepoName, &imports, &callsOut, &calledBy, &labels, &meta}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return c, err
	}
	c.Corpus = core.CorpusType(corpus)
	json.Unmarshal([]byte(imports), &c.Imports)
	json.Unmarshal([]byte(callsOut), &c.CallsOut)
	json.Unmarshal([]byte(calledBy), &c.CalledBy)
	if labels != "{}" {
		json.Unmarshal([]byte(labels), &c.K8sLabels)
	}
	if meta != "{}" {
		json.Unmarshal([]byte(meta), &c.Meta)
	}
	return c, nil
}

// List is the JSON of a list column ("[]" when empty).
func List(v []string) string {
	if len(v) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Map is the JSON of a map column ("{}" when empty).
func Map(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// Floats decodes a vector stored as little-endian float32s (a vector's
// blob in the SQLite file's vec0 table and the corpus model's rows, bytea
// in PostgreSQL).
func Floats(blob []byte) []float32 {
	v := make([]float32, len(blob)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	return v
}

// Rows is a result set of Cols and a vector blob, both stores' kind.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// ScanWithVectors reads every row of rows — Cols, then a float32 vector
// blob that may be NULL — into chunks and their vectors (nil for none).
// The caller closes rows.
func ScanWithVectors(rows Rows) ([]core.Chunk, [][]float32, error) {
	var chunks []core.Chunk
	var vecs [][]float32
	for rows.Next() {
		var blob []byte
		c, err := Scan(rows, &blob)
		if err != nil {
			return nil, nil, err
		}
		var v []float32
		if len(blob) > 0 {
			v = Floats(blob)
		}
		chunks, vecs = append(chunks, c), append(vecs, v)
	}
	return chunks, vecs, rows.Err()
}

// GoImportsSQL selects the imports column of the Go files other than
// tests, one row per distinct (repository, path, imports), for
// ScanImports: both stores' GoImports.
const GoImportsSQL = `SELECT DISTINCT repo_name, file_path, imports FROM chunks
	WHERE language = 'go' AND imports <> '[]' AND file_path NOT LIKE '%\_test.go' ESCAPE '\'`

// ScanImports reads every row of GoImportsSQL's rows into each file's
// import paths, by repository and path, each path once. The caller
// closes rows.
func ScanImports(rows Rows) (map[[2]string][]string, error) {
	out := map[[2]string][]string{}
	for rows.Next() {
		var repo, file, text string
		if err := rows.Scan(&repo, &file, &text); err != nil {
			return nil, err
		}
		var paths []string
		if err := json.Unmarshal([]byte(text), &paths); err != nil {
			return nil, fmt.Errorf("imports of %s/%s: %w", repo, file, err)
		}
		k := [2]string{repo, file}
		for _, p := range paths {
			if !slices.Contains(out[k], p) {
				out[k] = append(out[k], p)
			}
		}
	}
	return out, rows.Err()
}
