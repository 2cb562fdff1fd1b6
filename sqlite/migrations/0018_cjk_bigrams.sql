-- 0018: the code tokenizer cuts runs of Chinese, Japanese and Korean
-- characters into bigrams (core/codetok), where it read a run as one word
-- that only the whole run could find. An index holding such text has its
-- two code-tokenized full-text tables rebuilt from the chunks, as 0014
-- did: an external-content FTS5 table deletes a row by tokenizing its
-- values again, which must give the tokens it was indexed with. An index
-- without any (the GLOB's class is codetok.IsCJK's ranges) is left as it
-- is: its tokens are the same.
CREATE TEMP TABLE cjk_0018 AS SELECT 1 AS yes WHERE EXISTS (SELECT 1 FROM chunks WHERE text GLOB '*[ᄀ-ᇿ぀-ㄯ㄰-㆏ㇰ-ㇿ㐀-䶿一-鿿가-힯豈-﫿ｦ-ￜ𠀀-𱍏]*' OR symbol_name GLOB '*[ᄀ-ᇿ぀-ㄯ㄰-㆏ㇰ-ㇿ㐀-䶿一-鿿가-힯豈-﫿ｦ-ￜ𠀀-𱍏]*'
  OR file_path GLOB '*[ᄀ-ᇿ぀-ㄯ㄰-㆏ㇰ-ㇿ㐀-䶿一-鿿가-힯豈-﫿ｦ-ￜ𠀀-𱍏]*' OR context_prefix GLOB '*[ᄀ-ᇿ぀-ㄯ㄰-㆏ㇰ-ㇿ㐀-䶿一-鿿가-힯豈-﫿ｦ-ￜ𠀀-𱍏]*');
INSERT INTO fts_code(fts_code) SELECT 'rebuild' FROM cjk_0018;
INSERT INTO fts_files(fts_files) SELECT 'delete-all' FROM cjk_0018;
INSERT INTO fts_files(rowid, path, symbols, text)
  SELECT c.file_id, f.path, group_concat(c.symbol_name, ' '), group_concat(c.text, char(10))
  FROM (SELECT file_id, symbol_name, text, corpus_type FROM chunks WHERE file_id IS NOT NULL ORDER BY file_id, byte_start) c
  JOIN files f ON f.id = c.file_id
  WHERE c.corpus_type NOT LIKE 'CONVO%' AND EXISTS (SELECT 1 FROM cjk_0018) GROUP BY c.file_id;
INSERT INTO fts_files(rowid, path, symbols, text)
  SELECT -pk, file_path, symbol_name, context_prefix || char(10) || text FROM chunks
  WHERE corpus_type LIKE 'CONVO%' AND EXISTS (SELECT 1 FROM cjk_0018);
DROP TABLE cjk_0018;
