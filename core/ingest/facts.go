package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

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

// FactPos is where a fact, or a part of one (an Ingress backend), is: the
// chunk and the line.
type FactPos struct {
	Chunk string `json:"c"`
	Line  int    `json:"l"`
}

// FactsShape is FactsDigest without positions: a digest of the same facts
// with the chunk ids left out and every line (also nested ones, like an
// Ingress backend's) set to 0, and the positions taken out — the chunk id
// and line of each, in the order of the chunks, the facts and their sorted
// JSON keys. Two versions of a file with the same shape and different
// digests differ only in where their facts are (a line inserted above
// them): the service graph keeps its services and edges, and its evidence
// moves from the old positions to the new ones, pairwise.
func FactsShape(chunks []embed.Chunk) (shape string, positions []FactPos) {
	h := sha256.New()
	found := false
	for _, ec := range chunks {
		c := ec.Clean.Chunk()
		f := struct {
			Service   string          `json:",omitempty"`
			Calls     []core.Call     `json:",omitempty"`
			Routes    []core.Route    `json:",omitempty"`
			Resources []core.Resource `json:",omitempty"`
			Bindings  []core.Binding  `json:",omitempty"`
		}{Calls: c.Calls, Routes: c.Routes, Resources: c.Resources, Bindings: c.Bindings}
		if c.Corpus == core.CodeDeploy {
			f.Service = c.ServiceName
		}
		if f.Service == "" && len(f.Calls)+len(f.Routes)+len(f.Resources)+len(f.Bindings) == 0 {
			continue
		}
		found = true
		b, err := json.Marshal(f)
		if err != nil {
			return "", nil
		}
		var tree any
		if err := json.Unmarshal(b, &tree); err != nil {
			return "", nil
		}
		tree = stripLines(tree, func(line int) { positions = append(positions, FactPos{c.ID, line}) })
		b, err = json.Marshal(tree) // map keys sorted: the order stripLines visits
		if err != nil {
			return "", nil
		}
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	if !found {
		return NoFacts, nil
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), positions
}

// stripLines sets every "line" (and a constructor parameter's "end") of a
// decoded JSON tree to 0, visiting objects' keys in sorted order, and
// reports each line it had.
func stripLines(v any, line func(int)) any {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "line" || k == "end" {
				if n, ok := v[k].(float64); ok {
					line(int(n))
				}
				v[k] = 0 // kept, so that a line present or not differs
				continue
			}
			v[k] = stripLines(v[k], line)
		}
	case []any:
		for i := range v {
			v[i] = stripLines(v[i], line)
		}
	}
	return v
}
