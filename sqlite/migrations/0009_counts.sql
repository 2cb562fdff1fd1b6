-- 0009: indexes that let an incremental crawl count and look up without
-- reading chunk rows (their text makes the table large).
--
-- chunks(source_id, corpus_type) replaces chunks(source_id): a source's
-- chunk counts per corpus type, recomputed when its update commits, come
-- from the index alone.
CREATE INDEX chunks_source_corpus ON chunks(source_id, corpus_type);
DROP INDEX chunks_source;
-- The services deploy chunks name (ServiceNames, read by the link phase).
CREATE INDEX chunks_corpus_service ON chunks(corpus_type, service_name) WHERE service_name <> '';
