-- 0016: every folder (or file) whose code is a service's, not only the
-- one services.directory names: the graph builder knows several (a
-- program's build folder and the packages only it imports, the files its
-- compose service mounts) and chunk owners (AssignOwners) take the
-- deepest. path "." is the whole repository. Until the next crawl builds
-- the graph again, each service's directory is its only one.
CREATE TABLE service_dirs (
  service_id INTEGER NOT NULL REFERENCES services(id) ON DELETE CASCADE,
  repo_name  TEXT NOT NULL,
  path       TEXT NOT NULL,
  why        TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (service_id, repo_name, path)
);
CREATE INDEX service_dirs_repo ON service_dirs(repo_name);
INSERT INTO service_dirs(service_id, repo_name, path, why)
  SELECT id, repo_name, directory, 'directory' FROM services
  WHERE kind = 'service' AND directory != '';
