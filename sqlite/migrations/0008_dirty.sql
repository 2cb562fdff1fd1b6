-- 0008: what lets an incremental crawl skip unchanged files without
-- reading them and the whole-index passes when nothing they read changed.
--
-- files.facts: a digest of what the service graph is built from in the
-- file (calls, routes, resources, bindings, mounts, the services deploy
-- chunks name); '' for files written before this column existed.
-- files.linked: 0 until the file's chunks have their owning service and
-- the services they mention; the link phase handles only unlinked files
-- when the graph did not change.
-- meta graph_dirty: set in the transaction of a source whose facts or
-- file list changed, cleared in the transaction that writes the graph;
-- a crawl killed in between rebuilds the graph next time.
ALTER TABLE files ADD COLUMN facts TEXT NOT NULL DEFAULT '';
-- files.mtime: the modification time (Unix ns) the file had when it was
-- read, if it was old enough then to trust (0 otherwise): an incremental
-- crawl does not read a file whose size and mtime are the stored ones.
ALTER TABLE files ADD COLUMN mtime INTEGER NOT NULL DEFAULT 0;
ALTER TABLE files ADD COLUMN linked INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_unlinked ON files(id) WHERE linked = 0;
INSERT INTO meta(key, value) VALUES ('graph_dirty', '1')
  ON CONFLICT(key) DO UPDATE SET value = excluded.value;
