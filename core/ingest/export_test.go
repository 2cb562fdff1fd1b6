package ingest

// SetChunkingStamp makes this package stamp file hashes as another
// coderag would, until the returned func restores it.
func SetChunkingStamp(s string) (restore func()) {
	old := chunkingStamp
	chunkingStamp = s
	return func() { chunkingStamp = old }
}
