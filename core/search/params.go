package search

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
)

// Params are the numbers of ranking: the fusion's list weights and k, the
// builtin reranker's feature weights and share, and the file priors. The
// defaults (params.json) are set by hand and kept because the set coderag
// tune learns from open-source code did not beat them on the real
// repositories of ../shared/eval (docs/eval.md has both); any other set is
// one --params FILE away.
type Params struct {
	// RRFK is the k of reciprocal rank fusion.
	RRFK int `json:"rrf_k"`
	// Lists weigh each list in the fusion: bm25-code, bm25-prose,
	// bm25-file, dense for the corpus embedder and dense-static for the
	// shipped model's dense list (the dense list of an embedding server
	// weighs 1 unless Options.Weights says otherwise).
	Lists map[string]float64 `json:"lists"`
	// RerankMix is the builtin reranker's share of a hit's score.
	RerankMix float64 `json:"rerank_mix"`
	// Features weigh the builtin reranker's features (exact, symbol,
	// coverage, proximity, path, signature).
	Features map[string]float64 `json:"features"`
	// TestPrior and BoilerplatePrior multiply the score of tests (unless
	// the query asks about tests) and of repository boilerplate and tool
	// configuration (unless the query names the file).
	TestPrior        float64 `json:"test_prior"`
	BoilerplatePrior float64 `json:"boilerplate_prior"`
	// Source says where the numbers come from (a tune run, by hand).
	Source string `json:"source,omitempty"`
}

//go:embed params.json
var paramsJSON []byte

// DefaultParams returns a copy of the built-in parameters.
func DefaultParams() Params { return defaultParams.Clone() }

var defaultParams = func() Params {
	p, err := ParseParams(paramsJSON)
	if err != nil {
		panic(fmt.Sprintf("core/search/params.json: %v", err))
	}
	return p
}()

// ParseParams reads parameters written by coderag tune, checking that
// every number is usable.
func ParseParams(data []byte) (Params, error) {
	var p Params
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("parse ranking parameters: %w", err)
	}
	return p, p.Validate()
}

// Validate reports the first unusable number.
func (p Params) Validate() error {
	if p.RRFK < 1 {
		return fmt.Errorf("ranking parameters: rrf_k %d, want 1 or more", p.RRFK)
	}
	if p.RerankMix < 0 || p.RerankMix > 1 {
		return fmt.Errorf("ranking parameters: rerank_mix %g, want 0 to 1", p.RerankMix)
	}
	if p.TestPrior <= 0 || p.BoilerplatePrior <= 0 {
		return fmt.Errorf("ranking parameters: priors must be positive (test %g, boilerplate %g)", p.TestPrior, p.BoilerplatePrior)
	}
	for k, v := range p.Lists {
		if v < 0 {
			return fmt.Errorf("ranking parameters: list %s weighs %g, want 0 or more", k, v)
		}
	}
	for k, v := range p.Features {
		if v < 0 {
			return fmt.Errorf("ranking parameters: feature %s weighs %g, want 0 or more", k, v)
		}
	}
	return nil
}

// Clone returns a deep copy.
func (p Params) Clone() Params {
	p.Lists = maps.Clone(p.Lists)
	p.Features = maps.Clone(p.Features)
	return p
}

// MarshalIndent writes p as coderag tune does.
func (p Params) MarshalIndent() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(p)
	return buf.Bytes()
}
