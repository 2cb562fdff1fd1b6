package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// cjkClass is a regular expression class of the characters the code
// tokenizer cuts into bigrams (codetok.IsCJK's ranges).
const cjkClass = "[\u1100-\u11FF\u3040-\u312F\u3130-\u318F\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFF66-\uFFDC\U00020000-\U0003134F]"

// reanalyzeCJK is schema 4's upgrade: the code tokenizer cuts runs of
// Chinese, Japanese and Korean characters into bigrams, where it read a
// run as one word, so the code lexemes of every chunk holding such text,
// the documents of their files and conversations, and their sources' token
// sums are made again from the stored text. A database without such text
// changes in nothing.
func reanalyzeCJK(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT pk, file_id, corpus_type, symbol_name, file_path, context_prefix, text FROM chunks
		WHERE symbol_name ~ $1 OR file_path ~ $1 OR context_prefix ~ $1 OR text ~ $1`, cjkClass)
	if err != nil {
		return fmt.Errorf("find chunks of CJK text: %w", err)
	}
	type chunk struct {
		pk, file                 int64
		convo                    bool
		symbol, path, prefix, tx string
	}
	var cs []chunk
	for rows.Next() {
		var c chunk
		var file *int64
		var corpus string
		if err := rows.Scan(&c.pk, &file, &corpus, &c.symbol, &c.path, &c.prefix, &c.tx); err != nil {
			rows.Close()
			return fmt.Errorf("find chunks of CJK text: %w", err)
		}
		if file != nil {
			c.file = *file
		}
		c.convo = strings.HasPrefix(corpus, "CONVO")
		cs = append(cs, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find chunks of CJK text: %w", err)
	}
	if len(cs) == 0 {
		return nil
	}
	var b pgx.Batch
	files := map[int64]bool{}
	for _, c := range cs {
		tsv, n := tsvectorOf(analyzed{codeText.tokens(c.symbol), 'A'}, analyzed{codeText.tokens(c.path), 'B'},
			analyzed{codeText.tokens(c.prefix), 'C'}, analyzed{codeText.tokens(c.tx), 'D'})
		b.Queue(`UPDATE chunks SET code_tsv = $1::tsvector, code_len = $2 WHERE pk = $3`, tsv, n, c.pk)
		if c.convo {
			tsv, n := docText.tsvector(field{c.path, 'A'}, field{c.symbol, 'B'}, field{c.prefix + "\n" + c.tx, 'D'})
			b.Queue(`UPDATE docs SET tsv = $1::tsvector, len = $2 WHERE chunk_pk = $3`, tsv, n, c.pk)
		} else if c.file != 0 {
			files[c.file] = true
		}
	}
	if err := tx.SendBatch(ctx, &b).Close(); err != nil {
		return fmt.Errorf("write the chunks' code lexemes again: %w", err)
	}
	// A file's document: its path, its chunks' symbols and their texts'
	// code tokens stemmed, in the file's order (as write.go makes it).
	for file := range files {
		if err := redoFileDoc(ctx, tx, file); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, `UPDATE sources s SET code_tokens = c.code, doc_tokens = d.len
		FROM (SELECT source_id, coalesce(sum(code_len), 0) code FROM chunks GROUP BY source_id) c,
		     (SELECT source_id, coalesce(sum(len), 0) len FROM docs GROUP BY source_id) d
		WHERE c.source_id = s.id AND d.source_id = s.id`)
	if err != nil {
		return fmt.Errorf("sum the sources' tokens again: %w", err)
	}
	return nil
}

// redoFileDoc makes the document of one file again from its chunks.
func redoFileDoc(ctx context.Context, tx pgx.Tx, file int64) error {
	var path string
	if err := tx.QueryRow(ctx, `SELECT path FROM files WHERE id = $1`, file).Scan(&path); err != nil {
		return fmt.Errorf("read file %d: %w", file, err)
	}
	rows, err := tx.Query(ctx, `SELECT symbol_name, text FROM chunks WHERE file_id = $1 AND corpus_type NOT LIKE 'CONVO%'
		ORDER BY byte_start, pk`, file)
	if err != nil {
		return fmt.Errorf("read the chunks of %s: %w", path, err)
	}
	var symbols []string
	var toks []token
	for rows.Next() {
		var sym, text string
		if err := rows.Scan(&sym, &text); err != nil {
			rows.Close()
			return fmt.Errorf("read the chunks of %s: %w", path, err)
		}
		symbols = append(symbols, sym)
		toks = append(toks, stemmed(codeText.tokens(text), lastPos(toks))...)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the chunks of %s: %w", path, err)
	}
	tsv, n := tsvectorOf(analyzed{docText.tokens(path), 'A'}, analyzed{docText.tokens(strings.Join(symbols, " ")), 'B'}, analyzed{toks, 'D'})
	if _, err := tx.Exec(ctx, `UPDATE docs SET tsv = $1::tsvector, len = $2 WHERE file_id = $3`, tsv, n, file); err != nil {
		return fmt.Errorf("write the document of %s again: %w", path, err)
	}
	return nil
}
