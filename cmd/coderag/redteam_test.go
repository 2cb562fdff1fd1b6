package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedTeamOutputs crawls testdata/redteam and runs every command that
// prints what the index holds — searches for the words around the planted
// values, the service graph, stats and the manifest, as text and JSON —
// and looks for the planted values in what they print: none may be there,
// nor any 8-character fragment of a secret that is not digits alone. (sqlite's
// TestRedTeamNothingStored looks in the database itself.)
func TestRedTeamOutputs(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "redteam"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "planted.json"))
	if err != nil {
		t.Fatal(err)
	}
	var planted []struct {
		Value  string `json:"value"`
		File   string `json:"file"`
		Secret bool   `json:"secret"`
	}
	if err := json.Unmarshal(data, &planted); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "redteam.db")
	code, _, errs := coderag(t, "crawl", "--db", db, "--progress", "none",
		"--repo-path", filepath.Join(root, "repo"), "--repo-name", "shop",
		"--slack-export", "slack="+filepath.Join(root, "slack"),
		"--transcripts-dir", filepath.Join(root, "transcripts"),
		"--gdocs-dir", filepath.Join(root, "gdocs"))
	if code != 0 {
		t.Fatalf("crawl: exit %d: %s", code, errs)
	}
	commands := [][]string{
		{"stats", "--db", db}, {"stats", "--db", db, "--json"},
		{"manifest", "--db", db}, {"manifest", "--db", db, "--json"},
		{"graph", "--db", db}, {"graph", "--db", db, "--format", "json"},
	}
	for _, q := range []string{"password", "secret token api key", "database connection string", "authorization bearer",
		"docker login registry", "private key service account", "stringData api-token", "vendor desk escalation phone",
		"attendees vendor call", "the password is", "curl smoke test", "terraform variable default", "requirepass redis"} {
		commands = append(commands, []string{"query", "--db", db, "--json", "-k", "40", q}, []string{"query", "--db", db, "-k", "10", q})
	}
	for _, args := range commands {
		code, out, errs := coderag(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		for _, text := range []string{out, errs} {
			for _, p := range planted {
				if strings.Contains(text, p.Value) {
					t.Errorf("%v prints the planted value %q (%s)", args, p.Value, p.File)
					continue
				}
				if !p.Secret || len(p.Value) < 8 {
					continue
				}
				for i := 0; i+8 <= len(p.Value); i++ {
					// A run of eight digits alone turns up by chance in the
					// 17 digits of a printed score (0.6752931597...): only
					// fragments with a letter or a sign in them count; the
					// whole value is checked above whatever it holds.
					if strings.Trim(p.Value[i:i+8], "0123456789") == "" {
						continue
					}
					if strings.Contains(text, p.Value[i:i+8]) {
						t.Errorf("%v prints %q, a fragment of the secret in %s", args, p.Value[i:i+8], p.File)
						break
					}
				}
			}
		}
	}
}
