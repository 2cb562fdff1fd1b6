package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"coderag/core"
	"coderag/core/ingest"
	"coderag/sqlite"
)

// planted are the secrets and personal data values of testdata/planted:
// where each one is, what replaces it, and words next to it that must
// still find its chunk.
var planted = []struct {
	value, file, placeholder, nearby string
	secret                           bool
}{
	{"AKIAQ3EXAMPLEPLANT01", "services/billing/main.go", "<AWS_KEY>", "uploadInvoices archive bucket reconciliation", true},
	{"ghp_PLANTEDtoken0123456789abcdefghijklmn", "services/billing/worker.py", "<GITHUB_TOKEN>", "dunning worker retries failed subscription charges", true},
	{"sk_live_PLANTED4eC39HqLyjWDarjtT1zdp", "services/billing/client.ts", "<STRIPE_KEY>", "refundPayment payment provider client", true},
	{"Pl4nted-Ledger-Pw!", "deploy/billing.yaml", "<SECRET>", "LEDGER_DB_PASSWORD billing deployment", true},
	{"Pl4ntedDsnPw", "deploy/billing.yaml", "<PASSWORD>", "invoices-sql DATABASE_URL", true},
	{"AIzaSyPLANTED0123456789abcdefghijklmnop", "deploy/billing.yaml", "<GOOGLE_API_KEY>", "geocoding invoice addresses", true},
	{"PLANTEDsecretKEY/0123456789abcdefghijklm", ".env.example", "<", "invoice archive bucket credentials local development", true},
	{"hooks.slack.com/services/T0PLANT01/B0PLANT02/PlantedWebhookSecret123", "docs/runbooks/billing-down.md", "<SLACK_WEBHOOK>", "page the right people billing channel", true},
	{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQPLANTED", "docs/runbooks/billing-down.md", "<PRIVATE_KEY>", "bastion access ledger database maintenance", true},
	{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.PLANTEDsig0123456789abcdef", "billing/2024-07-01.json", "<JWT>", "mailer token pasted wrong channel", true},
	{"glpat-PLANTEDtoken012345678", "2024-07-02-billing-review.vtt", "<GITLAB_TOKEN>", "deploy token runbook draft revoked", true},
	{"+1 212-555-0187", "docs/runbooks/billing-down.md", "<PHONE_1>", "payments escalation line", false},
	{"Okonkwo", "docs/runbooks/billing-down.md", "<PERSON_1>", "chargeback dispute clinic invoice", false},
	{"00917351", "docs/runbooks/billing-down.md", "<MRN_1>", "chargeback dispute finance queue", false},
	{"Tomasz Nowak", "docs/adr/0007-ledger-partitioning.md", "<PERSON_1>", "partition the ledger table by month", false},
	{"Leila Haddad", "docs/adr/0007-ledger-partitioning.md", "<PERSON_2>", "partition the ledger table by month", false},
	{"ingrid.johansson@billing-corp.io", "billing/2024-07-01.json", "<EMAIL_1>", "duplicate invoice emails charged twice refunding", false},
	{"4242 4242 4242 4242", "billing/2024-07-01.json", "<CARD_1>", "duplicate invoice emails charged twice refunding", false},
	{"Ingrid Johansson", "billing/2024-07-01.json", "<PERSON_", "invoice mailer token rotated retry queue", false},
	{"Rafael Mendes", "2024-07-02-billing-review.vtt", "<PERSON_", "duplicate invoice incident retry queue replayed", false},
	{"078-05-1120", "2024-07-02-billing-review.vtt", "<SSN_1>", "support ticket purged", false},
	{"NL91 ABNA 0417 1643 00", "2024-07-02-billing-review.vtt", "<IBAN_1>", "refund double charge", false},
	{"rafael.mendes@billing-corp.io", "2024-07-02-billing-review.vtt", "<EMAIL_1>", "refund report", false},
}

// TestPlantedSecretsNeverReachTheIndex crawls testdata/planted (code,
// YAML, Markdown, a Slack export, a transcript) and then reads the raw
// bytes of the database file and its WAL: not one planted value may be
// there, in any spelling the scrubbers could have missed (the value
// itself, upper or lower case). The audit must count them, and the text
// around each must still find its chunk.
func TestPlantedSecretsNeverReachTheIndex(t *testing.T) {
	if len(planted) < 20 {
		t.Fatalf("only %d planted values, want at least 20", len(planted))
	}
	root := filepath.Join("..", "..", "testdata", "planted")
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "planted.db")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dbPath, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { a, _ := filepath.Abs(filepath.Join(root, p)); return a }
	sum, err := ingest.New(db, ingest.Options{}).Run(ctx, []core.Source{
		{Kind: core.SourceRepo, Path: abs("repo"), Name: "billing"},
		{Kind: core.SourceSlackExport, Path: abs("slack"), Name: "slack"},
		{Kind: core.SourceTranscriptDir, Path: abs("transcripts"), Name: "meetings"},
	})
	if err != nil || sum.Failed() {
		t.Fatalf("crawl: %v %+v", err, sum)
	}
	// Read the files while the database is open (the WAL holds the
	// latest pages), then again after it is closed and checkpointed.
	check := func(when string) {
		t.Helper()
		for _, p := range []string{dbPath, dbPath + "-wal"} {
			data, err := os.ReadFile(p)
			if err != nil {
				if os.IsNotExist(err) && strings.HasSuffix(p, "-wal") {
					continue
				}
				t.Fatal(err)
			}
			for _, pl := range planted {
				for _, v := range []string{pl.value, strings.ToLower(pl.value), strings.ToUpper(pl.value)} {
					if bytes.Contains(data, []byte(v)) {
						t.Errorf("%s: %s holds planted value %q (from %s)", when, filepath.Base(p), v, pl.file)
					}
				}
			}
		}
	}
	check("open")
	db.Close()
	check("closed")

	// The placeholders are there, and the words around each value still
	// find its chunk.
	wantSecrets, wantPersonal := 0, 0
	for _, pl := range planted {
		if pl.secret {
			wantSecrets++
		} else {
			wantPersonal++
		}
		code, out, errs := coderag(t, "query", "--db", dbPath, "--json", "-k", "5", pl.nearby)
		if code != 0 {
			t.Fatalf("query %q: %s", pl.nearby, errs)
		}
		var res queryJSON
		json.Unmarshal([]byte(out), &res)
		found := false
		for _, h := range res.Hits {
			if h.FilePath == pl.file && strings.Contains(h.Text, pl.placeholder) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("query %q does not find %s with %s in place of the planted value:\n%s", pl.nearby, pl.file, pl.placeholder, out)
		}
	}
	// The audit counts what was replaced. A person's name counts once per
	// chunk it is in; the transcript's other speaker, Kwame Mensah, is a
	// name too.
	code, out, _ := coderag(t, "stats", "--db", dbPath, "--json")
	if code != 0 {
		t.Fatal(out)
	}
	var st struct {
		Scrub struct {
			Chunks       int            `json:"chunks"`
			Secrets      int            `json:"secrets"`
			PersonalData int            `json:"personal_data"`
			Types        map[string]int `json:"chunks_by_type"`
		} `json:"scrub"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	wantPersonal++ // Kwame Mensah, the transcript's other speaker
	if st.Scrub.Secrets != wantSecrets || st.Scrub.PersonalData != wantPersonal {
		t.Errorf("audit: %d secrets and %d personal data values, want %d and %d (%+v)",
			st.Scrub.Secrets, st.Scrub.PersonalData, wantSecrets, wantPersonal, st.Scrub)
	}
	for _, typ := range []string{"AWS_KEY", "GITHUB_TOKEN", "STRIPE_KEY", "SECRET", "PASSWORD", "GOOGLE_API_KEY", "SLACK_WEBHOOK",
		"PRIVATE_KEY", "JWT", "GITLAB_TOKEN", "PHONE", "PERSON", "MRN", "EMAIL", "CARD", "SSN", "IBAN"} {
		if st.Scrub.Types[typ] == 0 {
			t.Errorf("audit has no chunk with %s: %v", typ, st.Scrub.Types)
		}
	}
}

// TestOrdinaryCodeAndDocsComeOutUnchanged is the false-positive test: in
// the sample company, every chunk of code and docs holds exactly the bytes
// of its file, except the few chunks holding the compose file's dev
// password and DSNs.
func TestOrdinaryCodeAndDocsComeOutUnchanged(t *testing.T) {
	dbPath := crawlSample(t)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	changed := 0
	for _, repo := range []string{"platform", "storefront"} {
		chunks, err := db.SourceChunks(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) < 20 {
			t.Fatalf("%d chunks in %s", len(chunks), repo)
		}
		for _, c := range chunks {
			src, err := os.ReadFile(filepath.Join(sampleDir, repo, c.FilePath))
			if err != nil {
				t.Fatal(err)
			}
			if !c.Verbatim() || c.Text == string(src[c.ByteStart:c.ByteEnd]) {
				continue
			}
			changed++
			if c.FilePath != "docker-compose.yml" {
				t.Errorf("%s/%s:%d-%d was changed by the scrub gate:\n%s", repo, c.FilePath, c.LineStart, c.LineEnd, c.Text)
			}
		}
	}
	if changed == 0 {
		t.Error("the compose file's dev password was not scrubbed")
	}
}
