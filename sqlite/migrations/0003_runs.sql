-- 0003: crawl runs, skipped files and the scrub audit.

CREATE TABLE crawl_runs (
  id         INTEGER PRIMARY KEY,
  started    TEXT NOT NULL,                   -- RFC 3339
  finished   TEXT,
  status     TEXT NOT NULL,                   -- running|ok|partial|failed|interrupted
  args       TEXT NOT NULL DEFAULT '',
  sources    INTEGER NOT NULL DEFAULT 0,
  files      INTEGER NOT NULL DEFAULT 0,
  chunks     INTEGER NOT NULL DEFAULT 0,
  skipped    INTEGER NOT NULL DEFAULT 0,
  errors     INTEGER NOT NULL DEFAULT 0,
  error      TEXT NOT NULL DEFAULT ''
);

-- Files a crawl did not index (kind skip), or indexed in a weaker way
-- than their type asks for (kind warning: YAML that does not parse is
-- indexed as text), and why: nothing is dropped silently.
CREATE TABLE crawl_skips (
  run_id     INTEGER NOT NULL REFERENCES crawl_runs(id) ON DELETE CASCADE,
  source_id  INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  reason     TEXT NOT NULL,
  kind       TEXT NOT NULL DEFAULT 'skip'     -- skip|warning
);
CREATE INDEX crawl_skips_source ON crawl_skips(source_id);

-- What the scrub gate found in a chunk: counts and types, never values.
CREATE TABLE scrub_audit (
  chunk_id       TEXT PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
  tier           TEXT NOT NULL,
  entities_found INTEGER NOT NULL DEFAULT 0,
  entity_types   TEXT NOT NULL DEFAULT '[]',  -- JSON list
  secrets_found  INTEGER NOT NULL DEFAULT 0,
  scrubbed       INTEGER NOT NULL DEFAULT 0
);
