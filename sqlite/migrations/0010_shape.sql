-- 0010: what lets an edit that only moves facts (a line inserted above a
-- call) keep the service graph, moving its evidence instead of
-- rebuilding it.
--
-- files.shape: ingest.FactsShape of the file (its facts without chunk ids
-- and lines; '' when unknown); files.positions: the JSON list of where
-- each of those facts is ({"c": chunk id, "l": line}), in FactsShape's
-- order.
ALTER TABLE files ADD COLUMN shape TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN positions TEXT NOT NULL DEFAULT '';
-- Evidence and declarations are looked up by the chunk they point to.
CREATE INDEX edge_evidence_chunk ON edge_evidence(chunk_id);
CREATE INDEX service_declarations_chunk ON service_declarations(chunk_id);
