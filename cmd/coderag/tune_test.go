package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"coderag/core/embed"
	"coderag/core/search"
)

// TestTuneCommand runs coderag tune as a user would on the fixture trees
// under testdata/train and checks that what it writes is usable by query
// --params, and that its report is consistent.
func TestTuneCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a corpus")
	}
	root := filepath.Join("..", "..", "testdata", "train")
	var dirs []string
	for _, d := range []string{"billing", "inventory", "notify", "cart", "freight", "Payments"} {
		dirs = append(dirs, filepath.Join(root, d))
	}
	work := t.TempDir()
	out := filepath.Join(work, "params.json")
	args := append([]string{"tune", "--json", "--out", out, "--work", work, "--questions", "40", "--held-out", "2", "--rounds", "1"}, dirs...)
	code, stdout, stderr := coderag(t, args...)
	if code != 0 {
		t.Fatalf("tune exit %d: %s", code, stderr)
	}
	var rep tuneReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, stdout)
	}
	if rep.Pairs < 30 || len(rep.Sources) != len(dirs) {
		t.Errorf("report: %d pairs from %d sources, want 30+ from %d", rep.Pairs, len(rep.Sources), len(dirs))
	}
	if rep.Train+rep.HeldOut > rep.Pairs || rep.Train < 10 || rep.HeldOut < 5 {
		t.Errorf("report: %d training + %d held-out questions of %d pairs", rep.Train, rep.HeldOut, rep.Pairs)
	}
	if rep.TrainAfter < rep.TrainBefore {
		t.Errorf("fit made training MRR worse: %.3f -> %.3f", rep.TrainBefore, rep.TrainAfter)
	}
	for _, m := range []float64{rep.TrainBefore, rep.TrainAfter, rep.HeldOutBefore, rep.HeldOutAfter} {
		if m < 0 || m > 1 {
			t.Errorf("MRR %g out of range", m)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := search.ParseParams(data)
	if err != nil {
		t.Fatalf("written parameters: %v", err)
	}
	if !strings.Contains(p.Source, "coderag tune") {
		t.Errorf("parameters do not say where they come from: %q", p.Source)
	}
	// The mined copy holds the comment-free files and the index the fit
	// used, embedded with the shipped model (the default embedder, whose
	// list weight is dense-static).
	if _, err := os.Stat(filepath.Join(work, "tune.db")); err != nil {
		t.Errorf("--work keeps the index: %v", err)
	} else if st, _ := indexVectors(t, filepath.Join(work, "tune.db")); !strings.HasPrefix(st.EmbedderID, embed.StaticPrefix) || st.Vectors == 0 {
		t.Errorf("tune's index: embedder %q, %d vectors; want the shipped model's", st.EmbedderID, st.Vectors)
	}
	blanked, err := os.ReadFile(filepath.Join(work, "corpus", "billing", "invoice.go"))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(filepath.Join(root, "billing", "invoice.go"))
	if len(blanked) == 0 || string(blanked) == string(orig) {
		t.Errorf("mined copy of invoice.go is not blanked")
	}

	// query --params uses the file; a broken one is a clear error naming it.
	db := crawlSample(t)
	if code, _, stderr := coderag(t, "query", "--db", db, "--params", out, "--json", "get user profile"); code != 0 {
		t.Errorf("query --params %s: exit %d: %s", out, code, stderr)
	}
	bad := filepath.Join(work, "bad.json")
	os.WriteFile(bad, []byte(`{"rrf_k": 0}`), 0o644)
	code, _, stderr = coderag(t, "query", "--db", db, "--params", bad, "get user profile")
	if code == 0 || !strings.Contains(stderr, "bad.json") || !strings.Contains(stderr, "rrf_k") {
		t.Errorf("query with a broken --params: exit %d, stderr %q; want an error naming the file and the field", code, stderr)
	}
	// Usage errors.
	if code, _, _ := coderag(t, "tune", "--questions", "3", root); code != 2 {
		t.Errorf("tune --questions 3: exit %d, want 2", code)
	}
	if code, _, errs := coderag(t, "tune", "--embedder", "ollama", root); code != 2 || !strings.Contains(errs, "builtin or corpus") {
		t.Errorf("tune --embedder ollama: exit %d, %s; want 2 and the embedders it takes", code, errs)
	}
	if code, _, _ := coderag(t, "tune", filepath.Join(root, "billing", "tax.go")); code != 2 {
		t.Errorf("tune on a file: exit %d, want 2", code)
	}
}

// TestModelCommand trains a tiny model on the fixture services, writes
// it and the mined pairs, reports on the held-out packages, and reports
// again on the written model with --evaluate; a corrupt model file is
// refused by name, and so are pairs mined without --name-pairs when it is
// given.
func TestModelCommand(t *testing.T) {
	work := t.TempDir()
	out, pairs := filepath.Join(work, "m.bin"), filepath.Join(work, "pairs.jsonl")
	code, stdout, stderr := coderag(t, "model", "--json", "--out", out, "--pairs", pairs, "--dim", "8", "--batch", "4",
		"--epochs", "2", "--held-out", "2", "--vocab", "500", "fx="+filepath.Join("..", "..", "testdata", "train"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep struct {
		Sources map[string]int `json:"sources"`
		Train   int            `json:"train_pairs"`
		HeldOut struct {
			Queries, Docs int
			ByLang        map[string]struct{ Queries int }
		} `json:"held_out"`
		ModelID string    `json:"model_id"`
		Loss    []float64 `json:"loss"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Sources["fx"] < 10 || rep.Train == 0 || rep.HeldOut.Queries == 0 || len(rep.Loss) != 2 || !strings.HasPrefix(rep.ModelID, "builtin:static-8d-") {
		t.Errorf("report: %s", stdout)
	}
	byLang := 0
	for _, s := range rep.HeldOut.ByLang {
		byLang += s.Queries
	}
	if byLang != rep.HeldOut.Queries {
		t.Errorf("held-out queries by language %d, in all %d: %s", byLang, rep.HeldOut.Queries, stdout)
	}
	if _, err := os.Stat(pairs); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = coderag(t, "model", "--evaluate", out, "--pairs", pairs, "--held-out", "2")
	if code != 0 || !strings.Contains(stdout, rep.ModelID) || !strings.Contains(stdout, "held-out MRR@10") {
		t.Errorf("--evaluate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for lang := range rep.HeldOut.ByLang {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(lang) + ` +\d+ queries: model `).MatchString(stdout) {
			t.Errorf("--evaluate has no line for the held-out %s queries:\n%s", lang, stdout)
		}
	}
	// Pairs mined without names do not train a model asked to learn them.
	code, _, stderr = coderag(t, "model", "--name-pairs", "--pairs", pairs, "--dim", "8", "--batch", "4", "--epochs", "1")
	if code != 2 || !strings.Contains(stderr, pairs) || !strings.Contains(stderr, "--name-pairs") {
		t.Errorf("--name-pairs over pairs mined without: exit %d, %s", code, stderr)
	}
	data, _ := os.ReadFile(out)
	data[len(data)/2] ^= 0xff
	bad := filepath.Join(work, "bad.bin")
	os.WriteFile(bad, data, 0o644)
	code, _, stderr = coderag(t, "model", "--evaluate", bad, "--pairs", pairs)
	if code == 0 || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "checksum") {
		t.Errorf("corrupt model: exit %d, %s", code, stderr)
	}
}

// TestModelMinesSourcesConcurrently checks that the sources, mined
// concurrently, give the pairs file mining each alone gives, in the order
// the sources were named.
func TestModelMinesSourcesConcurrently(t *testing.T) {
	work := t.TempDir()
	mine := func(name string, sources ...string) []byte {
		t.Helper()
		pairs := filepath.Join(work, name+".jsonl")
		args := append([]string{"model", "--pairs", pairs, "--dim", "8", "--batch", "4", "--epochs", "1", "--held-out", "1000", "--vocab", "500"}, sources...)
		if code, _, stderr := coderag(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", sources, code, stderr)
		}
		b, err := os.ReadFile(pairs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dir := filepath.Join("..", "..", "testdata", "train")
	billing, notify := "billing="+filepath.Join(dir, "billing"), "notify="+filepath.Join(dir, "notify")
	// billing, named first, has the more files, so a pairs file written in
	// the order mining finishes would put notify first.
	both := mine("both", billing, notify)
	alone := append(mine("billing", billing), mine("notify", notify)...)
	if len(both) == 0 || !bytes.Equal(both, alone) {
		t.Errorf("two sources mined together:\n%s\nwant each alone, in order:\n%s", both, alone)
	}
}
