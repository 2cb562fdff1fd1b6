-- 0014: the code tokenizer keeps a keyword written as a declared name —
-- capitalized and followed by '(', '[', '<', ',' or the end of the text:
-- func (m *Map) Range(f ...), func New() *Client, a symbol column holding
-- Do — so that such names can be looked up. The two indexes it feeds are
-- rebuilt from the chunks: an external-content FTS5 table deletes a row by
-- tokenizing its values again, which must give the tokens it was indexed
-- with.
INSERT INTO fts_code(fts_code) VALUES ('rebuild');
INSERT INTO fts_files(fts_files) VALUES ('delete-all');
INSERT INTO fts_files(rowid, path, symbols, text)
  SELECT c.file_id, f.path, group_concat(c.symbol_name, ' '), group_concat(c.text, char(10))
  FROM (SELECT file_id, symbol_name, text, corpus_type FROM chunks WHERE file_id IS NOT NULL ORDER BY file_id, byte_start) c
  JOIN files f ON f.id = c.file_id
  WHERE c.corpus_type NOT LIKE 'CONVO%' GROUP BY c.file_id;
INSERT INTO fts_files(rowid, path, symbols, text)
  SELECT -pk, file_path, symbol_name, context_prefix || char(10) || text FROM chunks
  WHERE corpus_type LIKE 'CONVO%';
