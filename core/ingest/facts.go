package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"coderag/core"
	"coderag/core/embed"
)

// NoFacts is the FactsDigest of a file without anything the service graph
// is built from.
const NoFacts = "none"

// FactsDigest is a digest of what the service graph and the service names
// are built from in one file's chunks: their calls, routes, resources and
// bindings with the chunk ids they point to, and the service a deploy
// chunk names. Two versions of a file with the same digest build the same
// graph, so an incremental crawl that changes only such files keeps it.
func FactsDigest(chunks []embed.Chunk) string {
	type facts struct {
		ID        string
		Service   string          `json:",omitempty"`
		Calls     []core.Call     `json:",omitempty"`
		Routes    []core.Route    `json:",omitempty"`
		Resources []core.Resource `json:",omitempty"`
		Bindings  []core.Binding  `json:",omitempty"`
	}
	h := sha256.New()
	enc := json.NewEncoder(h)
	found := false
	for _, ec := range chunks {
		c := ec.Clean.Chunk()
		f := facts{ID: c.ID, Calls: c.Calls, Routes: c.Routes, Resources: c.Resources, Bindings: c.Bindings}
		if c.Corpus == core.CodeDeploy {
			f.Service = c.ServiceName
		}
		if f.Service == "" && len(f.Calls)+len(f.Routes)+len(f.Resources)+len(f.Bindings) == 0 {
			continue
		}
		found = true
		if err := enc.Encode(f); err != nil {
			return "" // unknown: the store treats it as changed
		}
	}
	if !found {
		return NoFacts
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
