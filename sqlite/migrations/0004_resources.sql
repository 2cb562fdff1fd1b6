-- 0004: what deploy and config files declare (Kubernetes objects, compose
-- services, Helm charts and values, settings files, Aspire resources): the
-- input of the service graph, kept so that the graph can be rebuilt from
-- the store without re-reading any file.
CREATE TABLE resources (
  id         INTEGER PRIMARY KEY,
  chunk_id   TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  repo_name  TEXT NOT NULL DEFAULT '',
  file_path  TEXT NOT NULL DEFAULT '',
  line       INTEGER NOT NULL DEFAULT 0,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL DEFAULT '',
  namespace  TEXT NOT NULL DEFAULT '',
  service    TEXT NOT NULL DEFAULT '',
  body       TEXT NOT NULL DEFAULT '{}'      -- JSON: core.Resource
);
CREATE INDEX resources_chunk ON resources(chunk_id);
CREATE INDEX resources_service ON resources(service);

-- Values code gives struct fields and constructor parameters (JSON:
-- core.Binding): the graph traces an address held in a field through them.
CREATE TABLE bindings (
  id         INTEGER PRIMARY KEY,
  chunk_id   TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  repo_name  TEXT NOT NULL DEFAULT '',
  file_path  TEXT NOT NULL DEFAULT '',
  line       INTEGER NOT NULL DEFAULT 0,
  body       TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX bindings_chunk ON bindings(chunk_id);

-- The deploy and config chunks that declare each service.
CREATE TABLE service_declarations (
  service_id INTEGER NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  chunk_id   TEXT NOT NULL,
  file_path  TEXT NOT NULL DEFAULT '',   -- repo/path
  line       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (service_id, chunk_id, line)
);

-- The graph's edges keep the handler a route match found, and where an
-- unresolved target came from.
ALTER TABLE edges ADD COLUMN handler TEXT NOT NULL DEFAULT '';
ALTER TABLE edges ADD COLUMN via TEXT NOT NULL DEFAULT '';
