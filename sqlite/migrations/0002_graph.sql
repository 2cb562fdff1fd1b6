-- 0002: the service graph and symbol references.

-- Nodes: services, and the queues, databases and caches they share.
CREATE TABLE services (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  kind       TEXT NOT NULL DEFAULT 'service', -- service|queue|database|cache|external|unresolved
  repo_name  TEXT NOT NULL DEFAULT '',
  directory  TEXT NOT NULL DEFAULT '',
  language   TEXT NOT NULL DEFAULT '',
  namespace  TEXT NOT NULL DEFAULT '',
  ports      TEXT NOT NULL DEFAULT '[]'       -- JSON list of ports
);

-- Other names a service is reached by: DNS forms, env var names, images.
CREATE TABLE service_aliases (
  alias      TEXT NOT NULL,
  service_id INTEGER NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL DEFAULT '',        -- dns|env|container|image|directory|label
  PRIMARY KEY (alias, service_id)
);
CREATE INDEX service_aliases_service ON service_aliases(service_id);

-- Server routes found in code: what a service answers, down to the
-- handler. The graph builder fills service_id.
CREATE TABLE routes (
  id         INTEGER PRIMARY KEY,
  chunk_id   TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  service_id INTEGER REFERENCES services(id) ON DELETE SET NULL,
  repo_name  TEXT NOT NULL DEFAULT '',
  file_path  TEXT NOT NULL DEFAULT '',
  line       INTEGER NOT NULL DEFAULT 0,
  method     TEXT NOT NULL,                   -- GET, POST, ..., ANY; GRPC
  path       TEXT NOT NULL,                   -- template: /users/{id}/profile; the gRPC service
  framework  TEXT NOT NULL DEFAULT '',
  handler    TEXT NOT NULL DEFAULT '',
  router     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX routes_chunk ON routes(chunk_id);
CREATE INDEX routes_path ON routes(method, path);
CREATE INDEX routes_service ON routes(service_id);

-- Outbound calls found in code (and HTTP client configurations): the raw
-- material of the edges.
CREATE TABLE calls (
  id            INTEGER PRIMARY KEY,
  chunk_id      TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  repo_name     TEXT NOT NULL DEFAULT '',
  file_path     TEXT NOT NULL DEFAULT '',
  line          INTEGER NOT NULL DEFAULT 0,
  kind          TEXT NOT NULL,                -- http|grpc|publish|subscribe|db|cache|client
  system        TEXT NOT NULL DEFAULT '',     -- fetch, axios, net/http, kafka, postgres, redis, ...
  method        TEXT NOT NULL DEFAULT '',
  target        TEXT NOT NULL DEFAULT '',     -- path, URL, topic, DSN; dynamic parts as {name}
  origin        TEXT NOT NULL DEFAULT '',     -- literal|constant|template|env|config|expression
  base          TEXT NOT NULL DEFAULT '',     -- env:NAME, config:KEY, expr:..., or a URL
  env           TEXT NOT NULL DEFAULT '',
  config        TEXT NOT NULL DEFAULT '',
  default_value TEXT NOT NULL DEFAULT '',
  client        TEXT NOT NULL DEFAULT '',
  text          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX calls_chunk ON calls(chunk_id);
CREATE INDEX calls_target ON calls(kind, target);

-- Edges: who depends on whom, how, and how sure we are.
CREATE TABLE edges (
  id         INTEGER PRIMARY KEY,
  source_id  INTEGER NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  target_id  INTEGER NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  type       TEXT NOT NULL,                   -- http|grpc|queue|db|cache|mentions|unknown
  method     TEXT NOT NULL DEFAULT '',
  path       TEXT NOT NULL DEFAULT '',
  url        TEXT NOT NULL DEFAULT '',        -- raw URL, topic or DSN as found
  confidence REAL NOT NULL DEFAULT 1.0,
  route_id   INTEGER REFERENCES routes(id) ON DELETE SET NULL
);
CREATE INDEX edges_source ON edges(source_id);
CREATE INDEX edges_target ON edges(target_id);

-- The chunks and lines that prove an edge.
CREATE TABLE edge_evidence (
  edge_id    INTEGER NOT NULL REFERENCES edges(id) ON DELETE CASCADE,
  chunk_id   TEXT NOT NULL,
  file_path  TEXT NOT NULL DEFAULT '',
  line       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (edge_id, chunk_id, line)
);

-- Names a chunk calls or references, for reference expansion and PageRank.
CREATE TABLE symbol_refs (
  chunk_id   TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  kind       TEXT NOT NULL DEFAULT '',        -- call|type|import|...
  PRIMARY KEY (chunk_id, name, kind)
);
CREATE INDEX symbol_refs_name ON symbol_refs(name);
