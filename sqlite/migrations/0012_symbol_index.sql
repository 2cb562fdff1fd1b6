-- 0012: chunks by the name they declare, so that the names a chunk
-- calls or refers to (symbol_refs) find their definitions at once: the
-- context packer follows them (reference expansion).
CREATE INDEX chunks_symbol ON chunks(symbol_name) WHERE symbol_name != '';
