-- 0015: each full-text table's row lengths, packed, for the coderag_bm25
-- ranking function (sqlite/lengths.go). FTS5's bm25() reads a matching
-- row's length from its %_docsize table, one statement per row; this copy
-- is read once per process instead. It holds for the index state its
-- stamp and totals name (the table's structure and averages records when
-- it was written); a search checks them in the same statement and ranks
-- with bm25() when they differ. Every crawl writes it again at its end.
CREATE TABLE fts_lengths (
  tbl    TEXT PRIMARY KEY,  -- fts_code, fts_prose or fts_files
  stamp  BLOB NOT NULL,     -- the table's %_data row 10 (structure) when written
  totals BLOB NOT NULL,     -- its %_data row 1 (row count and column totals)
  base   INTEGER NOT NULL,  -- the rowid of the first length
  width  INTEGER NOT NULL,  -- bytes per length: 2 or 4
  lens   BLOB NOT NULL      -- little-endian (length + 1) per rowid from base; 0: no such row
);
-- An index written before this version counted none of the rows removed
-- from its full-text indexes, whose entries FTS5 keeps until their
-- segments merge (an index re-crawled often held several times its live
-- size): its next crawl compacts them once (sqlite.DB.Compact).
INSERT INTO meta(key, value) SELECT 'fts_unindexed', value FROM meta WHERE key = 'chunk_count';
