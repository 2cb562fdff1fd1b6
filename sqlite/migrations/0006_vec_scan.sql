-- 0006: a compact copy of every vector for fast unfiltered KNN over large
-- indexes (sqlite/quant.go). vec0 (vec_chunks) stays the store of record
-- and answers filtered and small searches exactly.
--
-- vec_quant: each vector as int8 with its scale (4 bytes float32 max |x|,
-- then one signed byte per dimension), for rescoring candidates.
CREATE TABLE vec_quant (
  chunk_pk INTEGER PRIMARY KEY,
  i8       BLOB NOT NULL
);
-- vec_pages: the sign bits of every vector minus the mean vector, 1024
-- vectors a row, scanned by Hamming distance to pick candidates. Rebuilt
-- after each crawl's embed phase; chunks deleted since drop out at the join.
CREATE TABLE vec_pages (
  page INTEGER PRIMARY KEY,
  pks  BLOB NOT NULL,  -- little-endian int64 chunk pks
  bits BLOB NOT NULL   -- dim/8 bytes per vector
);
