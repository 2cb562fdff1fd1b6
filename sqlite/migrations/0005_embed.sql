-- 0005: the built-in embedder's model, learned from the indexed corpus:
-- one row per token with its inverse document frequency and its vector
-- (little-endian float32). Queries read only the rows of their own tokens.
-- The vector tables themselves (vec_chunks, vec_bits) are created when an
-- embedder is first used, for its dimension (sqlite/db.go UseEmbedder).
CREATE TABLE embed_vocab (
  token TEXT PRIMARY KEY,
  idf   REAL NOT NULL,
  vec   BLOB NOT NULL
) WITHOUT ROWID;
