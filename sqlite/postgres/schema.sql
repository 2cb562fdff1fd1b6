-- coderag's index on PostgreSQL: the same tables as the SQLite file, with
-- full-text search as tsvector columns (lexemes made by coderag's Go code
-- tokenizer, core/codetok) and vectors as bytea (float32) with their sign
-- bits as bit varying for the Hamming candidate pass.

CREATE TABLE meta (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE crawl_runs (
  id       bigserial PRIMARY KEY,
  started  text NOT NULL,
  finished text,
  status   text NOT NULL,
  args     text NOT NULL DEFAULT '',
  sources  integer NOT NULL DEFAULT 0,
  files    integer NOT NULL DEFAULT 0,
  chunks   integer NOT NULL DEFAULT 0,
  skipped  integer NOT NULL DEFAULT 0,
  errors   integer NOT NULL DEFAULT 0,
  error    text NOT NULL DEFAULT ''
);

-- code_tokens / prose_tokens / doc_tokens: the sums of the source's chunk
-- (and file) lengths in tokens, and doc_count its whole-file documents:
-- BM25's average lengths come from these few rows, written only by the
-- source's own transaction.
CREATE TABLE sources (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL,
  uri          text NOT NULL UNIQUE,
  repo_name    text NOT NULL UNIQUE,
  git_commit   text,
  content_hash text,
  newest_mtime bigint,
  last_ingest  text,
  file_count   integer NOT NULL DEFAULT 0,
  chunk_counts text NOT NULL DEFAULT '{}',
  chunk_total  bigint NOT NULL DEFAULT 0,
  code_tokens  bigint NOT NULL DEFAULT 0,
  prose_tokens bigint NOT NULL DEFAULT 0,
  doc_count    bigint NOT NULL DEFAULT 0,
  doc_tokens   bigint NOT NULL DEFAULT 0
);

CREATE TABLE files (
  id           bigserial PRIMARY KEY,
  source_id    bigint NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  path         text NOT NULL,
  content_hash text NOT NULL,
  size         bigint NOT NULL,
  language     text NOT NULL DEFAULT '',
  corpus_type  text NOT NULL,
  chunk_count  integer NOT NULL DEFAULT 0,
  mounts       text NOT NULL DEFAULT '[]',
  indexed_at   text NOT NULL DEFAULT '',
  facts        text NOT NULL DEFAULT '',
  mtime        bigint NOT NULL DEFAULT 0,
  shape        text NOT NULL DEFAULT '',
  positions    text NOT NULL DEFAULT '',
  linked       boolean NOT NULL DEFAULT false,
  UNIQUE (source_id, path)
);

CREATE TABLE chunks (
  pk             bigserial PRIMARY KEY,
  id             text NOT NULL UNIQUE,
  source_id      bigint NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  file_id        bigint REFERENCES files(id) ON DELETE CASCADE,
  source_uri     text NOT NULL,
  byte_start     integer NOT NULL,
  byte_end       integer NOT NULL,
  line_start     integer NOT NULL,
  line_end       integer NOT NULL,
  corpus_type    text NOT NULL,
  text           text NOT NULL,
  context_prefix text NOT NULL DEFAULT '',
  language       text NOT NULL DEFAULT '',
  symbol_name    text NOT NULL DEFAULT '',
  symbol_kind    text NOT NULL DEFAULT '',
  signature      text NOT NULL DEFAULT '',
  file_path      text NOT NULL DEFAULT '',
  git_hash       text NOT NULL DEFAULT '',
  section_path   text NOT NULL DEFAULT '',
  author         text NOT NULL DEFAULT '',
  "timestamp"    text NOT NULL DEFAULT '',
  channel        text NOT NULL DEFAULT '',
  thread_id      text NOT NULL DEFAULT '',
  service_name   text NOT NULL DEFAULT '',
  repo_name      text NOT NULL DEFAULT '',
  imports        text NOT NULL DEFAULT '[]',
  calls_out      text NOT NULL DEFAULT '[]',
  called_by      text NOT NULL DEFAULT '[]',
  k8s_labels     text NOT NULL DEFAULT '{}',
  meta           text NOT NULL DEFAULT '{}',
  sensitivity    text NOT NULL,
  scrubbed       boolean NOT NULL DEFAULT false,
  -- Code tokens of symbol_name, file_path, context_prefix and text with
  -- weights A, B, C, D (BM25 column weights 10, 4, 2, 1), and their count.
  code_tsv       tsvector NOT NULL,
  code_len       integer NOT NULL,
  -- The same columns as English prose (stemmed, stop words out).
  prose_tsv      tsvector NOT NULL,
  prose_len      integer NOT NULL
);
CREATE INDEX chunks_source_corpus ON chunks(source_id, corpus_type);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX chunks_path ON chunks(repo_name, file_path, line_start);
CREATE INDEX chunks_symbol ON chunks(symbol_name) WHERE symbol_name <> '';
-- A larger pending list than the default 4 MB: a crawl's inserts reach
-- the index in fewer, larger merges.
CREATE INDEX chunks_code_tsv ON chunks USING gin (code_tsv) WITH (gin_pending_list_limit = 16384);
CREATE INDEX chunks_prose_tsv ON chunks USING gin (prose_tsv) WITH (gin_pending_list_limit = 16384);

-- Whole-file documents (a conversation's chunks are documents of their
-- own): code tokens stemmed as English, path A, symbols B, text D.
CREATE TABLE docs (
  id        bigserial PRIMARY KEY,
  source_id bigint NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  file_id   bigint REFERENCES files(id) ON DELETE CASCADE,
  chunk_pk  bigint REFERENCES chunks(pk) ON DELETE CASCADE,
  tsv       tsvector NOT NULL,
  len       integer NOT NULL
);
CREATE INDEX docs_tsv ON docs USING gin (tsv) WITH (gin_pending_list_limit = 16384);
CREATE INDEX docs_file ON docs(file_id);
CREATE INDEX docs_source ON docs(source_id);

CREATE TABLE crawl_skips (
  run_id    bigint NOT NULL REFERENCES crawl_runs(id) ON DELETE CASCADE,
  source_id bigint NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  path      text NOT NULL,
  reason    text NOT NULL,
  kind      text NOT NULL DEFAULT 'skip'
);
CREATE INDEX crawl_skips_source ON crawl_skips(source_id);

CREATE TABLE scrub_audit (
  chunk_id       text PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
  tier           text NOT NULL,
  entities_found integer NOT NULL DEFAULT 0,
  entity_types   text NOT NULL DEFAULT '[]',
  secrets_found  integer NOT NULL DEFAULT 0,
  scrubbed       boolean NOT NULL DEFAULT false
);

-- The facts the service graph is built from.
CREATE TABLE calls (
  id            bigserial PRIMARY KEY,
  chunk_id      text NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  repo_name     text NOT NULL DEFAULT '',
  file_path     text NOT NULL DEFAULT '',
  line          integer NOT NULL DEFAULT 0,
  kind          text NOT NULL,
  system        text NOT NULL DEFAULT '',
  method        text NOT NULL DEFAULT '',
  target        text NOT NULL DEFAULT '',
  origin        text NOT NULL DEFAULT '',
  base          text NOT NULL DEFAULT '',
  env           text NOT NULL DEFAULT '',
  config        text NOT NULL DEFAULT '',
  default_value text NOT NULL DEFAULT '',
  client        text NOT NULL DEFAULT '',
  text          text NOT NULL DEFAULT ''
);
CREATE INDEX calls_chunk ON calls(chunk_id);

CREATE TABLE symbol_refs (
  chunk_id text NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  name     text NOT NULL,
  kind     text NOT NULL DEFAULT '',
  PRIMARY KEY (chunk_id, name, kind)
);
CREATE INDEX symbol_refs_name ON symbol_refs(name);

CREATE TABLE routes (
  id         bigserial PRIMARY KEY,
  chunk_id   text NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  repo_name  text NOT NULL DEFAULT '',
  file_path  text NOT NULL DEFAULT '',
  line       integer NOT NULL DEFAULT 0,
  method     text NOT NULL DEFAULT '',
  path       text NOT NULL DEFAULT '',
  framework  text NOT NULL DEFAULT '',
  handler    text NOT NULL DEFAULT '',
  router     text NOT NULL DEFAULT '',
  service_id bigint
);
CREATE INDEX routes_chunk ON routes(chunk_id);

CREATE TABLE resources (
  id        bigserial PRIMARY KEY,
  chunk_id  text NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  repo_name text NOT NULL DEFAULT '',
  file_path text NOT NULL DEFAULT '',
  line      integer NOT NULL DEFAULT 0,
  kind      text NOT NULL,
  name      text NOT NULL DEFAULT '',
  namespace text NOT NULL DEFAULT '',
  service   text NOT NULL DEFAULT '',
  body      text NOT NULL DEFAULT '{}'
);
CREATE INDEX resources_chunk ON resources(chunk_id);

CREATE TABLE bindings (
  id        bigserial PRIMARY KEY,
  chunk_id  text NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  repo_name text NOT NULL DEFAULT '',
  file_path text NOT NULL DEFAULT '',
  line      integer NOT NULL DEFAULT 0,
  body      text NOT NULL DEFAULT '{}'
);
CREATE INDEX bindings_chunk ON bindings(chunk_id);

-- The service graph: nodes, their other names, the chunks declaring
-- them, edges with their evidence (as in the SQLite file).
CREATE TABLE services (
  id        bigserial PRIMARY KEY,
  name      text NOT NULL UNIQUE,
  kind      text NOT NULL DEFAULT 'service',
  repo_name text NOT NULL DEFAULT '',
  directory text NOT NULL DEFAULT '',
  language  text NOT NULL DEFAULT '',
  namespace text NOT NULL DEFAULT '',
  ports     text NOT NULL DEFAULT '[]'
);
CREATE TABLE service_aliases (
  alias      text NOT NULL,
  service_id bigint NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  kind       text NOT NULL DEFAULT '',
  PRIMARY KEY (alias, service_id)
);
CREATE TABLE service_declarations (
  id         bigserial,
  service_id bigint NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  chunk_id   text NOT NULL,
  file_path  text NOT NULL DEFAULT '',
  line       integer NOT NULL DEFAULT 0,
  PRIMARY KEY (service_id, chunk_id, line)
);
-- Every folder (or file; "." is the whole repository) whose code is a
-- service's; chunk owners take the deepest (AssignOwners).
CREATE TABLE service_dirs (
  service_id bigint NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  repo_name  text NOT NULL,
  path       text NOT NULL,
  why        text NOT NULL DEFAULT '',
  PRIMARY KEY (service_id, repo_name, path)
);
CREATE INDEX service_dirs_repo ON service_dirs(repo_name);
CREATE TABLE edges (
  id         bigserial PRIMARY KEY,
  source_id  bigint NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  target_id  bigint NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  type       text NOT NULL,
  method     text NOT NULL DEFAULT '',
  path       text NOT NULL DEFAULT '',
  url        text NOT NULL DEFAULT '',
  confidence double precision NOT NULL DEFAULT 1.0,
  handler    text NOT NULL DEFAULT '',
  via        text NOT NULL DEFAULT ''
);
CREATE TABLE edge_evidence (
  id        bigserial,
  edge_id   bigint NOT NULL REFERENCES edges(id) ON DELETE CASCADE,
  chunk_id  text NOT NULL,
  file_path text NOT NULL DEFAULT '',
  line      integer NOT NULL DEFAULT 0,
  PRIMARY KEY (edge_id, chunk_id, line)
);
ALTER TABLE routes ADD FOREIGN KEY (service_id) REFERENCES services(id) ON DELETE SET NULL;

-- One vector per chunk: float32 little-endian (the record, for exact
-- rescoring) and the sign bits of each dimension (the Hamming candidate
-- pass: bit_count(bits # query)).
CREATE TABLE vectors (
  chunk_pk bigint PRIMARY KEY REFERENCES chunks(pk) ON DELETE CASCADE,
  vec      bytea NOT NULL,
  bits     bit varying NOT NULL
);

-- Advanced after every commit that changes chunks or vectors: readers
-- keep the sign bits and BM25 statistics while it stays the same.
CREATE SEQUENCE vector_gen;

-- The corpus-learned embedder's model: one row per token (its IDF and
-- float32 vector); a query reads only its own tokens' rows.
CREATE TABLE embed_vocab (
  token text PRIMARY KEY,
  idf   double precision NOT NULL,
  vec   bytea NOT NULL
);

-- The conversations of coderag ask --session.
CREATE TABLE ask_turns (
  id       bigserial PRIMARY KEY,
  session  text NOT NULL,
  asked    text NOT NULL,
  question text NOT NULL,
  answer   text NOT NULL,
  mode     text NOT NULL DEFAULT ''
);
CREATE INDEX ask_turns_session ON ask_turns(session, id);

INSERT INTO meta(key, value) VALUES ('graph_dirty', '1'), ('chunk_count', '0');
