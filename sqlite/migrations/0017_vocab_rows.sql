-- 0017: embed_vocab as a rowid table. WITHOUT ROWID kept each row in an
-- index b-tree, whose cells hold at most about a quarter of a 4 KB page:
-- a 256-dimension float32 vector (1,024 bytes) and its token spilled
-- into an overflow page of their own, and the table took 4.4 times its
-- bytes (31.7 MB for the 7,105 tokens of a 13k-chunk index). A rowid
-- table's cells hold up to a page; the token stays unique (its index).
CREATE TABLE embed_vocab_rows (
  token TEXT PRIMARY KEY,
  idf   REAL NOT NULL,
  vec   BLOB NOT NULL
);
INSERT INTO embed_vocab_rows(token, idf, vec) SELECT token, idf, vec FROM embed_vocab;
DROP TABLE embed_vocab;
ALTER TABLE embed_vocab_rows RENAME TO embed_vocab;
