package ingest

import (
	"time"

	"coderag/core/graph"
)

// trustMTimeAfter is how old a file's modification time must be when the
// file is read for an incremental crawl to trust it later.
const trustMTimeAfter = 2 * time.Second

// TrustedMTime is the modification time a store records for a file read
// at now: 0 when it is too recent to trust (another write within the file
// system's timestamp resolution would keep it), so that the next crawl
// hashes the file.
func TrustedMTime(mtime int64, now time.Time) int64 {
	if mtime > now.UnixNano()-int64(trustMTimeAfter) {
		return 0
	}
	return mtime
}

// ChangesGraph reports whether a file going from its stored version (had,
// with the facts digest before; "" for files stored before digests) to its
// new one (has, after) can change the service graph: its facts changed, or
// it came or went with facts or with a path the graph reads (manifests,
// code files).
func ChangesGraph(path string, had bool, before string, has bool, after string) bool {
	switch {
	case had && has:
		return before != after || after == ""
	case had:
		return before != NoFacts || graph.PathMatters(path)
	case has:
		return after != NoFacts || graph.PathMatters(path)
	}
	return false
}
