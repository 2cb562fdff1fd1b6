-- 0011: a full-text index of whole files: search ranks files by all the
-- evidence they hold and lifts their best chunks (a file whose words
-- answer a question between them, in no one chunk). Rows are keyed by
-- files.id; a conversation's chunks (threads, stretches of a meeting) are
-- documents of their own, keyed by minus the chunk's pk. The code
-- tokenizer splits identifiers and porter stems the pieces, so that
-- "retries" meets retryCount. Contentless: the text is in chunks.
CREATE VIRTUAL TABLE fts_files USING fts5(
  path, symbols, text,
  content='', contentless_delete=1, tokenize='porter code'
);
-- A path or symbol word outranks a mention in the body.
INSERT INTO fts_files(fts_files, rank) VALUES ('rank', 'bm25(4.0, 2.0, 1.0)');
INSERT INTO fts_files(rowid, path, symbols, text)
  SELECT c.file_id, f.path, group_concat(c.symbol_name, ' '), group_concat(c.text, char(10))
  FROM chunks c JOIN files f ON f.id = c.file_id
  WHERE c.file_id IS NOT NULL AND c.corpus_type NOT LIKE 'CONVO%'
  GROUP BY c.file_id;
INSERT INTO fts_files(rowid, path, symbols, text)
  SELECT -pk, file_path, symbol_name, context_prefix || char(10) || text FROM chunks
  WHERE corpus_type LIKE 'CONVO%';
