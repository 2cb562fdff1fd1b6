-- 0007: what incremental crawls need to redo only what changed: the router
-- mounts each file declares (so that the routes of a changed file get the
-- prefixes of mounts in unchanged files), and the size and time of the
-- source's files for the manifest.
ALTER TABLE files ADD COLUMN mounts TEXT NOT NULL DEFAULT '[]';
ALTER TABLE files ADD COLUMN indexed_at TEXT NOT NULL DEFAULT '';
