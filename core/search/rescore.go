package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"coderag/core"
	"coderag/core/codetok"
)

// rescore turns the fused order of the best RerankDepth hits into the final
// one: the fused score scaled to [0, 1], mixed with the reranker's score,
// the freshness term of conversation chunks, and corpus boosts. Hits below
// the depth keep their fused order after them. A reranker that fails
// leaves the fused order and a warning.
func (e *Engine) rescore(ctx context.Context, query string, hits []core.Hit, k int) ([]core.Hit, string) {
	n := min(len(hits), max(e.opts.RerankDepth, k))
	top := hits[:n]
	if n == 0 {
		return hits, ""
	}
	maxFused := top[0].Score
	rel := make([]float64, n)
	for i, h := range top {
		rel[i] = h.Score / maxFused
	}
	var warn string
	if r := e.opts.Reranker; r != nil {
		if b, ok := r.(BuiltinReranker); ok && b.Features == nil {
			b.Features = e.params.Features
			r = b
		}
		scores, feats, err := r.Rerank(ctx, query, top)
		if err != nil {
			warn = fmt.Sprintf("reranking skipped: %v", err)
		} else {
			_, builtin := r.(BuiltinReranker)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, s := range scores {
				if !math.IsInf(s, 0) {
					lo, hi = min(lo, s), max(hi, s)
				}
			}
			for i := range top {
				s := scores[i]
				top[i].Explain.Reranker = r.Name()
				top[i].Explain.Rerank = &s
				if feats != nil {
					top[i].Explain.Features = feats[i]
				}
				switch {
				case builtin:
					rel[i] = (1-e.opts.RerankMix)*rel[i] + e.opts.RerankMix*s
				case math.IsInf(s, 0):
					rel[i] = 0
				case hi > lo:
					rel[i] = (s - lo) / (hi - lo)
				default:
					rel[i] = 1
				}
			}
		}
	}
	now := e.opts.Now()
	if e.opts.FreshnessWeight > 0 && e.opts.FreshnessHalfLife > 0 {
		for i, h := range top {
			if !strings.HasPrefix(string(h.Chunk.Corpus), "CONVO_") {
				continue
			}
			t, ok := parseTime(h.Chunk.Timestamp)
			if !ok {
				continue
			}
			age := max(now.Sub(t), 0)
			decay := math.Exp2(-float64(age) / float64(e.opts.FreshnessHalfLife))
			top[i].Explain.Freshness = &decay
			rel[i] = (1-e.opts.FreshnessWeight)*rel[i] + e.opts.FreshnessWeight*decay
		}
	}
	if e.opts.CorpusBoost != 1 {
		boosts := corpusSignals(query)
		for i, h := range top {
			if reason, ok := boosts[h.Chunk.Corpus]; ok {
				rel[i] *= e.opts.CorpusBoost
				top[i].Explain.Boost, top[i].Explain.BoostReason = e.opts.CorpusBoost, reason
			}
		}
		if named := factsFrom(ctx).sources; len(named) > 0 {
			for i, h := range top {
				if slices.Contains(named, h.Chunk.RepoName) {
					rel[i] *= e.opts.CorpusBoost
					if top[i].Explain.Boost == 0 {
						top[i].Explain.Boost = 1
					}
					top[i].Explain.Boost *= e.opts.CorpusBoost
					top[i].Explain.BoostReason = strings.TrimPrefix(top[i].Explain.BoostReason+"; source "+h.Chunk.RepoName+" named", "; ")
				}
			}
		}
	}
	if !e.opts.NoPriors {
		qw, message := set(codetok.Words(query)), factsFrom(ctx).message
		for i, h := range top {
			if f, why := filePrior(h.Chunk, qw, message, e.params); f != 1 {
				rel[i] *= f
				if top[i].Explain.Boost == 0 {
					top[i].Explain.Boost = 1
				}
				top[i].Explain.Boost *= f
				top[i].Explain.BoostReason = strings.TrimPrefix(top[i].Explain.BoostReason+"; "+why, "; ")
			}
		}
	}
	if e.opts.PathPriority {
		for i, h := range top {
			if f, why := pathPriority(h.Chunk); f != 1 {
				rel[i] *= f
				if top[i].Explain.Boost == 0 {
					top[i].Explain.Boost = 1
				}
				top[i].Explain.Boost *= f
				top[i].Explain.BoostReason = strings.TrimPrefix(top[i].Explain.BoostReason+"; "+why, "; ")
			}
		}
	}
	for i := range top {
		top[i].Score = rel[i]
	}
	sort.SliceStable(top, func(i, j int) bool { return top[i].Score > top[j].Score })
	return hits, warn
}

func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// signal is a kind of query wording and the corpus types it points at.
type signal struct {
	name    string
	words   []string
	corpora []core.CorpusType
}

var signals = []signal{
	{"deploy words", []string{"deploy", "deployment", "deployed", "k8s", "kubernetes", "pod", "pods", "helm", "chart",
		"manifest", "replicas", "replica", "image", "container", "ingress", "configmap", "namespace", "terraform", "kubectl", "rollout"},
		[]core.CorpusType{core.CodeDeploy, core.DocRunbook}},
	{"incident words", []string{"incident", "outage", "broke", "broken", "down", "paged", "page", "alert", "alerts", "sev1", "sev2",
		"postmortem", "503", "502", "500", "spike", "failing", "degraded", "oomkilled", "crashloop", "crashloopbackoff"},
		[]core.CorpusType{core.ConvoSlack, core.DocRunbook}},
	{"how-to words", []string{"how", "steps", "procedure", "runbook", "playbook", "restart", "rollback", "recover", "mitigate", "drain", "failover"},
		[]core.CorpusType{core.DocRunbook, core.DocReadme}},
}

// corpusSignals maps each corpus type the query points at to the reason.
// Identifiers (getUserProfile, cart_id, http.Get) point at code and
// config.
func corpusSignals(query string) map[core.CorpusType]string {
	out := map[core.CorpusType]string{}
	words := map[string]bool{}
	for _, t := range Terms(query) {
		words[strings.ToLower(strings.Trim(t, ".,;:!?()"))] = true
		if isIdentifier(t) {
			out[core.CodeLogic], out[core.CodeConfig] = "identifier "+t, "identifier "+t
		}
	}
	for _, s := range signals {
		for _, w := range s.words {
			if words[w] {
				for _, c := range s.corpora {
					if _, ok := out[c]; !ok {
						out[c] = s.name + " (" + w + ")"
					}
				}
				break
			}
		}
	}
	return out
}

// isIdentifier reports whether a query term looks like code: more than one
// subword joined without spaces (camelCase, snake_case, a.b, f()).
func isIdentifier(t string) bool {
	if strings.ContainsAny(t, " ") {
		return false
	}
	return len(codetok.Words(t)) >= 2 && len(codetok.QueryTokens(t)) >= 1 && !strings.Contains(t, "-") || strings.HasSuffix(t, "()")
}

// Path priority classes (seed 003), matched against a path's words.
var (
	highPaths = set([]string{"service", "services", "controller", "controllers", "handler", "handlers", "api", "core",
		"auth", "security", "permission", "permissions", "repository", "dao", "migration", "migrations"})
	mediumPaths = set([]string{"model", "models", "entity", "entities", "dto", "schema", "util", "utils", "helper", "helpers",
		"common", "shared", "component", "components", "hook", "hooks", "client", "clients", "integration"})
	lowPaths = set([]string{"test", "tests", "spec", "specs", "mock", "mocks", "fixture", "fixtures", "config", "stub", "stubs", "testdata"})
)

// pathPriority is the factor of a code chunk's path: low-priority words
// win over high ones (a test of a handler is a test).
// PathPriority is seed 003's priority of a code chunk by its path's words
// (see Options.PathPriority): 1.3, 1.1, 0.8, or 1 for none and for chunks
// that are not code.
func PathPriority(c core.Chunk) float64 {
	f, _ := pathPriority(c)
	return f
}

func pathPriority(c core.Chunk) (float64, string) {
	if !strings.HasPrefix(string(c.Corpus), "CODE_") {
		return 1, ""
	}
	words := codetok.Words(c.FilePath)
	for _, w := range words {
		if lowPaths[w] {
			return 0.8, "path " + w
		}
	}
	for _, w := range words {
		if highPaths[w] {
			return 1.3, "path " + w
		}
	}
	for _, w := range words {
		if mediumPaths[w] {
			return 1.1, "path " + w
		}
	}
	return 1, ""
}
