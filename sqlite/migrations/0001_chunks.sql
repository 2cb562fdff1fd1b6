-- 0001: the chunk store and its two FTS5 indexes.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- One row per crawl source (repo, Slack export, directory).
CREATE TABLE sources (
  id           INTEGER PRIMARY KEY,
  kind         TEXT NOT NULL,
  uri          TEXT NOT NULL UNIQUE,      -- absolute path on disk
  repo_name    TEXT NOT NULL UNIQUE,      -- first element of every chunk's source_uri
  git_commit   TEXT,
  content_hash TEXT,
  newest_mtime INTEGER,
  last_ingest  TEXT,                      -- RFC 3339
  file_count   INTEGER NOT NULL DEFAULT 0,
  chunk_counts TEXT NOT NULL DEFAULT '{}' -- JSON: corpus_type -> count
);

-- One row per indexed file; drives incremental re-crawls and pruning.
CREATE TABLE files (
  id           INTEGER PRIMARY KEY,
  source_id    INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  path         TEXT NOT NULL,             -- slash-separated, relative to the source
  content_hash TEXT NOT NULL,             -- hex SHA-256 of the file bytes
  size         INTEGER NOT NULL,
  language     TEXT NOT NULL DEFAULT '',
  corpus_type  TEXT NOT NULL,
  chunk_count  INTEGER NOT NULL DEFAULT 0,
  UNIQUE (source_id, path)
);

-- The unified chunk schema of seed 000 §3.3. List and map columns are JSON.
CREATE TABLE chunks (
  pk             INTEGER PRIMARY KEY,     -- rowid of the FTS5 and vec0 rows
  id             TEXT NOT NULL UNIQUE,    -- sha256(source_uri, byte range)
  source_id      INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  file_id        INTEGER REFERENCES files(id) ON DELETE CASCADE,
  source_uri     TEXT NOT NULL,
  byte_start     INTEGER NOT NULL,
  byte_end       INTEGER NOT NULL,
  line_start     INTEGER NOT NULL,
  line_end       INTEGER NOT NULL,
  corpus_type    TEXT NOT NULL,
  text           TEXT NOT NULL,
  context_prefix TEXT NOT NULL DEFAULT '',
  language       TEXT NOT NULL DEFAULT '',
  symbol_name    TEXT NOT NULL DEFAULT '',
  symbol_kind    TEXT NOT NULL DEFAULT '',
  signature      TEXT NOT NULL DEFAULT '',
  file_path      TEXT NOT NULL DEFAULT '',
  git_hash       TEXT NOT NULL DEFAULT '',
  section_path   TEXT NOT NULL DEFAULT '',
  author         TEXT NOT NULL DEFAULT '',
  timestamp      TEXT NOT NULL DEFAULT '',
  channel        TEXT NOT NULL DEFAULT '',
  thread_id      TEXT NOT NULL DEFAULT '',
  service_name   TEXT NOT NULL DEFAULT '',
  repo_name      TEXT NOT NULL DEFAULT '',
  imports        TEXT NOT NULL DEFAULT '[]',
  calls_out      TEXT NOT NULL DEFAULT '[]',
  called_by      TEXT NOT NULL DEFAULT '[]',
  k8s_labels     TEXT NOT NULL DEFAULT '{}',
  meta           TEXT NOT NULL DEFAULT '{}',  -- JSON: front matter, resource kind, images, ports, ...
  sensitivity    TEXT NOT NULL,
  scrubbed       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chunks_source ON chunks(source_id);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX chunks_path ON chunks(repo_name, file_path, line_start);
CREATE INDEX chunks_service ON chunks(service_name) WHERE service_name <> '';

-- Two external-content FTS5 indexes over every chunk: identifiers split by
-- the custom `code` tokenizer, and prose stemmed by porter over unicode61.
-- Column order is the order of the bm25() weights set below.
--
-- There are no triggers: the store indexes and unindexes chunks with one
-- INSERT ... SELECT per source or file (see sqlite/write.go). A trigger per
-- row makes every chunk its own statement savepoint, and FTS5 flushes its
-- pending terms to a new segment at each savepoint: 3x slower writes.
CREATE VIRTUAL TABLE fts_code USING fts5(
  symbol_name, file_path, context_prefix, text,
  content='chunks', content_rowid='pk', tokenize='code'
);
CREATE VIRTUAL TABLE fts_prose USING fts5(
  symbol_name, file_path, context_prefix, text,
  content='chunks', content_rowid='pk', tokenize='porter unicode61 remove_diacritics 2'
);
-- Document frequencies of code tokens, for query planning (core/search
-- drops terms that are in most chunks: they cost much and rank little).
CREATE VIRTUAL TABLE fts_code_vocab USING fts5vocab(fts_code, 'row');

-- A symbol hit outranks a path hit, which outranks a mention in the body.
INSERT INTO fts_code(fts_code, rank) VALUES ('rank', 'bm25(10.0, 4.0, 2.0, 1.0)');
INSERT INTO fts_prose(fts_prose, rank) VALUES ('rank', 'bm25(10.0, 4.0, 2.0, 1.0)');
