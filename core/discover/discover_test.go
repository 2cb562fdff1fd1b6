package discover

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"coderag/core"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		path   string
		lang   string
		corpus core.CorpusType
	}{
		{"services/checkout/main.go", "go", core.CodeLogic},
		{"man/stdiscosrv.1", "text", core.DocReadme},
		{"docs/man8/relay.8", "text", core.DocReadme},
		{"share/man/man3/Cart.3pm", "text", core.DocReadme},
		{"src/Cart/CartController.cs", "csharp", core.CodeLogic},
		{"catalog/app/main.py", "python", core.CodeLogic},
		{"web/src/api.ts", "typescript", core.CodeLogic},
		{"web/src/App.tsx", "tsx", core.CodeLogic},
		{"web/server.mjs", "javascript", core.CodeLogic},
		{"api/Orders.java", "java", core.CodeLogic},
		{"proto/cart.proto", "protobuf", core.CodeLogic},
		// Tables: an RBAC policy, seed data, a report. Not code.
		{"assets/rbac-policy.csv", "csv", core.CodeConfig},
		{"db/seeds/Regions.TSV", "tsv", core.CodeConfig},
		{"Dockerfile", "dockerfile", core.CodeDeploy},
		{"build/Dockerfile.prod", "dockerfile", core.CodeDeploy},
		{"docker-compose.yml", "yaml", core.CodeDeploy},
		{"compose.override.yaml", "yaml", core.CodeDeploy},
		{"deploy/k8s/checkout.yaml", "yaml", core.CodeDeploy},
		{"charts/shop/Chart.yaml", "yaml", core.CodeDeploy},
		{"charts/shop/templates/deployment.yaml", "yaml", core.CodeDeploy},
		{"charts/shop/templates/_helpers.tpl", "gotemplate", core.CodeDeploy},
		{"overlays/prod/kustomization.yaml", "yaml", core.CodeDeploy},
		{"infra/main.tf", "hcl", core.CodeDeploy},
		{"envs/prod.tfvars", "hcl", core.CodeDeploy},
		{".github/workflows/ci.yml", "yaml", core.CodeDeploy},
		{"go.mod", "gomod", core.CodeConfig},
		{"web/package.json", "json", core.CodeConfig},
		{"cart/Cart.csproj", "xml", core.CodeConfig},
		{"cart/appsettings.Production.json", "json", core.CodeConfig},
		{"catalog/requirements.txt", "pip-requirements", core.CodeConfig},
		{"contrib/nsqd.cfg.example", "ini", core.CodeConfig},
		{"config/settings.yaml.sample", "yaml", core.CodeConfig},
		{"deploy/k8s/secret.yaml.template", "yaml", core.CodeDeploy},
		{"docker-compose.yml.dist", "yaml", core.CodeDeploy},
		{"etc/nginx.conf.defaults", "conf", core.CodeConfig},
		{"app/settings.py.example", "python", core.CodeLogic},
		{"notes.example", "", core.CodeLogic},
		{"catalog/requirements-dev.txt", "pip-requirements", core.CodeConfig},
		{"catalog/pyproject.toml", "toml", core.CodeConfig},
		{".env.example", "dotenv", core.CodeConfig},
		{"config/app.yaml", "yaml", core.CodeConfig},
		{"Makefile", "makefile", core.CodeConfig},
		{"README.md", "markdown", core.DocReadme},
		{"docs/architecture.md", "markdown", core.DocReadme},
		{"docs/runbooks/checkout-down.md", "markdown", core.DocRunbook},
		{"ops/oncall/paging.md", "markdown", core.DocRunbook},
		{"docs/adr/0001-use-postgres.md", "markdown", core.DocADR},
		{"docs/decisions/0007-kafka.md", "markdown", core.DocADR},
		{"docs/architecture/0003-split-cart.md", "markdown", core.DocADR},
		{"docs/adr-012-grpc.md", "markdown", core.DocADR},
		{"docs/notes.txt", "text", core.DocReadme},
		{"LICENSE", "text", core.DocReadme},
		{"meetings/standup.vtt", "webvtt", core.ConvoTranscript},
		{"scripts/deploy", "", core.CodeLogic},
		{"docs/runbooks/failover.docx", "docx", core.DocRunbook},
		{"docs/guide.docx", "docx", core.DocReadme},
		{"architecture/adr/0003-queue.docx", "docx", core.DocADR},
		{"src/invoices/template.docx", "docx", core.CodeLogic}, // data: skipped as binary
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			lang, corpus := Classify(tt.path)
			if lang != tt.lang || corpus != tt.corpus {
				t.Errorf("Classify(%q) = %q, %s; want %q, %s", tt.path, lang, corpus, tt.lang, tt.corpus)
			}
		})
	}
}

func TestWalk(t *testing.T) {
	a, err := txtar.ParseFile(filepath.Join("testdata", "repo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(a)
	if err != nil {
		t.Fatal(err)
	}
	// In a git work tree that tracks nothing yet: the .gitignore files apply.
	res, err := Walk(context.Background(), fsys, Options{MaxFileSize: 64, Git: &GitState{}})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range res.Files {
		files = append(files, f.Path+" "+f.Language+" "+string(f.Corpus))
	}
	wantFiles := []string{
		".env dotenv CODE_CONFIG",
		".env.example dotenv CODE_CONFIG",
		"README.md markdown DOC_README",
		"deploy/k8s/checkout.yaml yaml CODE_DEPLOY",
		"deploy/terraform/main.tf hcl CODE_DEPLOY",
		"docker-compose.yml yaml CODE_DEPLOY",
		"docs/adr/0001-use-postgres.md markdown DOC_ADR",
		"docs/runbooks/checkout-down.md markdown DOC_RUNBOOK",
		"keep.log  CODE_LOGIC",
		"services/cart/Cart.csproj xml CODE_CONFIG",
		"services/cart/appsettings.Development.json json CODE_CONFIG",
		"services/checkout/go.mod gomod CODE_CONFIG",
		"services/checkout/main.go go CODE_LOGIC",
		"services/web/build/Dockerfile dockerfile CODE_DEPLOY",
		"services/web/dist/k8s/deploy.yaml yaml CODE_DEPLOY",
		"services/web/src/app.ts typescript CODE_LOGIC",
		"tools/build/build.go go CODE_LOGIC",
		"tools/venv/__init__.py python CODE_LOGIC",
	}
	if d := cmp.Diff(wantFiles, files); d != "" {
		t.Errorf("Walk files mismatch (-want +got):\n%s", d)
	}
	var skips []string
	for _, s := range res.Skips {
		skips = append(skips, s.Path+": "+s.Reason)
	}
	wantSkips := []string{
		".venv/: virtualenv (directory not descended)",
		"big.txt: larger than the size limit (71 B > 64 B)",
		"certs/server.key: key or certificate file (never indexed)",
		"py/env/: virtualenv (directory not descended)",
		"services/cart/obj/project.assets.json: build output directory",
		"services/checkout/api.pb.go: generated code (.pb.go)",
		"services/checkout/go.sum: lock file",
		"services/web/dist/app.min.js: minified or source map (.min.js)",
		"services/web/dist/bundle.js: build output directory",
		"services/web/logo.png: binary file type (.png)",
		"services/web/node_modules/: dependencies (directory not descended)",
		"services/web/package-lock.json: lock file",
		"vendor/: vendored dependencies (directory not descended)",
	}
	if d := cmp.Diff(wantSkips, skips); d != "" {
		t.Errorf("Walk skips mismatch (-want +got):\n%s", d)
	}
}

func TestWalkExcludeOption(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/keep.go", "a/gen/x.go", "b/test_x.py"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644)
	}
	res, err := Walk(context.Background(), os.DirFS(dir), Options{Exclude: []string{"gen/", "test_*.py"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].Path != "a/keep.go" {
		t.Errorf("Walk with excludes = %+v, want only a/keep.go", res.Files)
	}
}

func TestWalkSymlinkLoopAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main"), 0o644)
	os.Symlink("loop", filepath.Join(dir, "loop"))          // points at itself
	os.Symlink(".", filepath.Join(dir, "again"))            // directory cycle
	os.Symlink("main.go", filepath.Join(dir, "alias.go"))   // file link
	os.Symlink("/etc/passwd", filepath.Join(dir, "escape")) // outside the repo
	res, err := Walk(context.Background(), os.DirFS(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].Path != "main.go" {
		t.Errorf("files = %+v, want only main.go", res.Files)
	}
	if len(res.Skips) != 4 {
		t.Fatalf("skips = %+v, want 4 symlinks", res.Skips)
	}
	for _, s := range res.Skips {
		if s.Reason != "symlink (not followed)" {
			t.Errorf("skip %+v, want symlink reason", s)
		}
	}
}

func TestWalkMissingRoot(t *testing.T) {
	if _, err := Walk(context.Background(), os.DirFS(filepath.Join(t.TempDir(), "nope")), Options{}); err == nil {
		t.Error("Walk of a missing root succeeded")
	}
}

func TestInspect(t *testing.T) {
	tests := []struct {
		name   string
		file   core.File
		data   string
		corpus core.CorpusType
		lang   string
		skip   string // substring of the reason; "" = indexed
	}{
		{"go source", core.File{Path: "a.go", Language: "go", Corpus: core.CodeLogic}, "package a\n", core.CodeLogic, "go", ""},
		{"binary with go extension", core.File{Path: "a.go", Language: "go", Corpus: core.CodeLogic}, "\x7fELF\x02\x01\x01\x00\x00", "", "", "binary content"},
		{"invalid utf8", core.File{Path: "a.py", Language: "python", Corpus: core.CodeLogic}, "x = 1\ny = 2\nz = '\xe9t\xe9'\n", "", "", "line 3"},
		{"utf16", core.File{Path: "a.txt", Language: "text", Corpus: core.DocReadme}, "\xff\xfeh\x00i\x00", "", "", "UTF-16"},
		{"generated go", core.File{Path: "x.go", Language: "go", Corpus: core.CodeLogic}, "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n", "", "", "generated file"},
		{"generated deploy yaml kept", core.File{Path: "k8s/x.yaml", Language: "yaml", Corpus: core.CodeDeploy}, "# Code generated by helm. DO NOT EDIT.\nkind: Service\n", core.CodeDeploy, "yaml", ""},
		{"minified js", core.File{Path: "a.js", Language: "javascript", Corpus: core.CodeLogic}, "var a=1;" + strings.Repeat("b=2;", 2000), "", "", "minified"},
		{"k8s yaml outside deploy dir", core.File{Path: "svc.yaml", Language: "yaml", Corpus: core.CodeConfig}, "apiVersion: v1\nkind: Service\nmetadata:\n  name: cart\n", core.CodeDeploy, "yaml", ""},
		{"compose by content", core.File{Path: "stack.yaml", Language: "yaml", Corpus: core.CodeConfig}, "services:\n  cart:\n    image: cart:1\n", core.CodeDeploy, "yaml", ""},
		{"plain config yaml", core.File{Path: "config.yaml", Language: "yaml", Corpus: core.CodeConfig}, "log_level: info\n", core.CodeConfig, "yaml", ""},
		{"shebang python", core.File{Path: "bin/tool", Corpus: core.CodeLogic}, "#!/usr/bin/env python3\nprint(1)\n", core.CodeLogic, "python", ""},
		{"extensionless text", core.File{Path: "CODEOWNERS", Corpus: core.CodeLogic}, "* @team\n", core.CodeLogic, "text", ""},
		{"NUL past the first 32 KB", core.File{Path: "notes.txt", Language: "text", Corpus: core.DocReadme}, strings.Repeat("plain text line\n", 2500) + "tail \x00 byte\n", "", "", "NUL byte on line 2501"},
		{"utf8 bom ok", core.File{Path: "a.cs", Language: "csharp", Corpus: core.CodeLogic}, "\xef\xbb\xbfusing System;\n", core.CodeLogic, "csharp", ""},
		{"snyk report", core.File{Path: "docs/security/cart-1.4.html", Language: "html", Corpus: core.CodeLogic},
			"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n  <title>Snyk test report</title>\n</head><body><h2>redis:7 (alpine)</h2></body></html>\n", "", "", "generated HTML (<title>Snyk test report</title>)"},
		{"istanbul coverage footer", core.File{Path: "coverage/lcov-report/cart.js.html", Language: "html", Corpus: core.CodeLogic},
			"<!doctype html>\n<html><head><title>Code coverage report for cart.js</title></head><body>" + strings.Repeat("<span class=\"cline-any cline-yes\">1x</span>\n", 300) +
				"<div class='footer quiet pad2 space-top1 center small'>\n  Code coverage generated by\n  <a href=\"https://istanbul.js.org/\" target=\"_blank\">istanbul</a>\n</div></body></html>\n", "", "", "generated HTML (Code coverage generated by"},
		{"javadoc page", core.File{Path: "site/apidocs/Cart.html", Language: "html", Corpus: core.CodeLogic},
			"<!DOCTYPE HTML>\n<!-- Generated by javadoc (17) on Tue Mar 05 -->\n<html><head><title>Cart</title></head></html>\n", "", "", "generated HTML"},
		{"generator meta of a doc site", core.File{Path: "site/index.html", Language: "html", Corpus: core.CodeLogic},
			"<html><head><meta name=\"generator\" content=\"mkdocs-1.5.3, mkdocs-material-9.4\"></head></html>\n", "", "", "generated HTML"},
		{"hand-written template kept", core.File{Path: "web/templates/cart.html", Language: "html", Corpus: core.CodeLogic},
			"<html><head><title>Your cart</title></head><body>{{ range .Items }}<li>{{ .Name }}</li>{{ end }}</body></html>\n", core.CodeLogic, "html", ""},
		{"alert runbook by its sections", core.File{Path: "alerts/cart/CartHighLatency.md", Language: "markdown", Corpus: core.DocReadme},
			"# CartHighLatency\n\n## Meaning\n\nThe p99 of cart requests is above 2s.\n\n## Impact\n\nCheckout slows.\n\n## Diagnosis\n\n```sh\n# look at the pods\nkubectl get pods\n```\n\n## Mitigation\n\nScale the cart deployment.\n", core.DocRunbook, "markdown", ""},
		{"ops doc by two runbook sections", core.File{Path: "docs/redis/failover.md", Language: "markdown", Corpus: core.DocReadme},
			"# Redis failover\n\n## Symptoms\n\nCart answers 503.\n\n## Troubleshooting pointers\n\nCheck sentinel.\n\n## Possible resolution\n\nFail over by hand.\n", core.DocRunbook, "markdown", ""},
		{"asciidoc runbook", core.File{Path: "docs/queue-backlog.adoc", Language: "asciidoc", Corpus: core.DocReadme},
			"= Queue backlog\n\n== Symptoms\n\nOrders wait.\n\n== Remediation\n\nAdd consumers.\n", core.DocRunbook, "asciidoc", ""},
		{"nygard decision record outside an adr folder", core.File{Path: "docs/design/use-kafka.md", Language: "markdown", Corpus: core.DocReadme},
			"# Use Kafka for order events\n\n## Status\n\nAccepted\n\n## Context\n\nRabbitMQ drops messages.\n\n## Decision\n\nKafka.\n\n## Consequences\n\nA new cluster to run.\n", core.DocADR, "markdown", ""},
		{"madr decision record", core.File{Path: "docs/choose-db.md", Language: "markdown", Corpus: core.DocReadme},
			"# Choose a database\n\n## Context and Problem Statement\n\nx\n\n## Considered Options\n\n* a\n\n## Decision Outcome\n\na\n", core.DocADR, "markdown", ""},
		{"a README keeps its name's type", core.File{Path: "services/cart/README.md", Language: "markdown", Corpus: core.DocReadme},
			"# Cart\n\n## Troubleshooting\n\nx\n\n## Rollback\n\ny\n", core.DocReadme, "markdown", ""},
		{"one runbook section is not a runbook", core.File{Path: "docs/architecture.md", Language: "markdown", Corpus: core.DocReadme},
			"# Architecture\n\n## Services\n\nx\n\n## Troubleshooting\n\ny\n", core.DocReadme, "markdown", ""},
		{"titles in fenced code are not titles", core.File{Path: "docs/setup.md", Language: "markdown", Corpus: core.DocReadme},
			"# Setup\n\n```sh\n# symptoms\n# resolution\n# rollback\nmake install\n```\n", core.DocReadme, "markdown", ""},
		{"a rule's type stands", core.File{Path: "notes/incident-form.md", Language: "markdown", Corpus: core.DocReadme, Ruled: true},
			"# Form\n\n## Symptoms\n\n## Resolution\n", core.DocReadme, "markdown", ""},
		{"a meeting's chat log", core.File{Path: "meetings/2024-05-02/chat.txt", Language: "text", Corpus: core.DocReadme},
			"00:01:12\tPriya Raman:\tcan everyone see the dashboard?\n00:01:30\tTom Becker:\tyes\n00:02:05\tPriya Raman:\tthe ledger queue is at 40k\n", core.ConvoTranscript, "text", ""},
		{"a chat log of From lines", core.File{Path: "notes/meeting_saved_chat.txt", Language: "text", Corpus: core.DocReadme},
			"10:01:12 From Priya Raman to Everyone: hi\n10:01:30 From Tom Becker to Everyone: hello\n10:02:05 From Priya Raman to Everyone: starting\n", core.ConvoTranscript, "text", ""},
		{"a log excerpt in notes is no chat", core.File{Path: "docs/incident.txt", Language: "text", Corpus: core.DocReadme},
			"What happened\n\nThe worker restarted.\n\n12:00:01\tworker:\tstarting\n12:00:02\tworker:\tready\n\nThen the queue drained and the alerts cleared.\nNothing was lost.\nWe raised the limit.\n", core.DocReadme, "text", ""},
		{"a meeting transcribed in Markdown", core.File{Path: "meetings/2024-05-02 platform sync.md", Language: "markdown", Corpus: core.DocReadme},
			"# Platform sync 12\n\n## Queue backlog\n\n**Priya Raman** [4:42](https://video.example/v?t=282): the ledger queue was at 40k this morning.\n\n**Tom Becker** [5:10](https://video.example/v?t=310): we scaled the consumers to six.\n\nA chart was shared.\n\n**Priya Raman** [6:01]: then it drained within the hour.\n", core.ConvoTranscript, "markdown", ""},
		{"bold labels are no speakers", core.File{Path: "docs/setup.md", Language: "markdown", Corpus: core.DocReadme},
			"# Setup\n\n**Note:** run it once.\n\n**Warning:** it deletes the cache.\n\n**Tip:** use make.\n\n**Important:** read the logs.\n", core.DocReadme, "markdown", ""},
		{"a FAQ of bold questions", core.File{Path: "docs/faq.md", Language: "markdown", Corpus: core.DocReadme},
			"# FAQ\n\n**Why 3:00?** The batch runs then.\n\n**Who owns it?** Team ledger.\n\n**Where are logs?** In Loki.\n", core.DocReadme, "markdown", ""},
		{"a ruled document stays", core.File{Path: "notes/chat.txt", Language: "text", Corpus: core.DocReadme, Ruled: true},
			"00:01:12\tPriya Raman:\thi\n00:01:30\tTom Becker:\tyes\n00:02:05\tPriya Raman:\tok\n", core.DocReadme, "text", ""},
		{"word export is not a tool's report", core.File{Path: "docs/design.html", Language: "html", Corpus: core.CodeLogic},
			"<html><head><meta name=\"Generator\" content=\"Microsoft Word 15 (filtered)\"><title>Checkout design</title></head></html>\n", core.CodeLogic, "html", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skip := Inspect(tt.file, []byte(tt.data))
			if tt.skip != "" {
				if !strings.Contains(skip, tt.skip) {
					t.Errorf("Inspect skip = %q, want it to contain %q", skip, tt.skip)
				}
				return
			}
			if skip != "" || got.Corpus != tt.corpus || got.Language != tt.lang {
				t.Errorf("Inspect = %s %q skip %q; want %s %q", got.Corpus, got.Language, skip, tt.corpus, tt.lang)
			}
		})
	}
}

// TestWalkTrackedFilesIgnoreGitignore: as in git, a .gitignore pattern
// hides untracked files only; a file git tracks is indexed even when a
// later pattern matches it (a repository that ignores the "kustomize"
// binary its Makefile downloads, and tracks a kustomize/ folder). A
// .coderagignore or --exclude pattern hides it all the same.
func TestWalkTrackedFilesIgnoreGitignore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kustomize/base/deploy.yaml", "kind: Deployment\n")
	write("tools/gen.sh", "echo gen\n")
	write("notes/todo.md", "# todo\n")
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	write(".gitignore", "kustomize\n*.log\nnotes/\n")
	write(".coderagignore", "tools/\n")
	write("kustomize/scratch.log", "untracked and ignored\n")
	write("app.log", "untracked and ignored\n")
	res, err := Walk(context.Background(), os.DirFS(dir), Options{Exclude: []string{"notes/"}, Git: GitStateOf(dir)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		got = append(got, f.Path)
	}
	if d := cmp.Diff([]string{"kustomize/base/deploy.yaml"}, got); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	// A subfolder of the work tree: paths relative to it.
	res, err = Walk(context.Background(), os.DirFS(filepath.Join(dir, "kustomize")), Options{Git: GitStateOf(filepath.Join(dir, "kustomize"))})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, f := range res.Files {
		got = append(got, f.Path)
	}
	if d := cmp.Diff([]string{"base/deploy.yaml"}, got); d != "" {
		t.Errorf("files of a subfolder (-want +got):\n%s", d)
	}
	// Outside a work tree (a snapshot of the repository), .gitignore means
	// nothing, as for ripgrep; .coderagignore still applies.
	os.RemoveAll(filepath.Join(dir, ".git"))
	if GitStateOf(dir) != nil && !strings.HasPrefix(dir, "/work") {
		t.Fatalf("%s is not in a work tree", dir)
	}
	res, err = Walk(context.Background(), os.DirFS(dir), Options{Git: nil})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, f := range res.Files {
		got = append(got, f.Path)
	}
	if d := cmp.Diff([]string{"app.log", "kustomize/base/deploy.yaml", "kustomize/scratch.log", "notes/todo.md"}, got); d != "" {
		t.Errorf("files outside git (-want +got):\n%s", d)
	}
}

// TestBuildDirSource: under a directory named like build output, what git
// tracks is the repository's source and is indexed; what it does not is
// output and is skipped.
func TestBuildDirSource(t *testing.T) {
	fsys := fstest.MapFS{
		"scripts/build/release.py":     {Data: []byte("def release():\n    pass\n")},
		"scripts/build/lib/release.py": {Data: []byte("def release():\n    pass\n")},
		"web/dist/main.js":             {Data: []byte("console.log(1)\n")},
		"internal/target/resolve.go":   {Data: []byte("package target\n")},
		// Without git, what a directory holds says whether it is source:
		// a Python package named bin or build, a bin/ of scripts.
		"worker/bin/__init__.py":                {Data: []byte("\n")},
		"worker/bin/beat.py":                    {Data: []byte("def beat():\n    pass\n")},
		"pkgs/build/__init__.py":                {Data: []byte("\n")},
		"pkgs/build/lib/__init__.py":            {Data: []byte("\n")},
		"tools/bin/deploy.sh":                   {Data: []byte("#!/bin/sh\nkubectl apply -f k8s/\n")},
		"api/bin/Debug/net8.0/Api.dll":          {Data: []byte("MZ\x00\x00")},
		"api/bin/Debug/net8.0/appsettings.json": {Data: []byte("{\"Redis\": \"redis:6379\"}\n")},
		"api/bin/Api.pdb":                       {Data: []byte("\x00")},
		"web/dist/pkg/__init__.py":              {Data: []byte("\n")},
		"web/build/lib/orders/__init__.py":      {Data: []byte("\n")},
	}
	git := &GitState{Tracked: map[string]bool{"scripts/": true, "scripts/build/": true, "scripts/build/release.py": true}}
	got := walked(t, fsys, Options{Git: git})
	want := []string{"internal/target/resolve.go", "pkgs/build/__init__.py", "pkgs/build/lib/__init__.py", "scripts/build/release.py",
		"tools/bin/deploy.sh", "worker/bin/__init__.py", "worker/bin/beat.py",
		"api/bin/Api.pdb: binary file type (.pdb)", "api/bin/Debug/net8.0/Api.dll: binary file type (.dll)",
		"api/bin/Debug/net8.0/appsettings.json: build output directory",
		"scripts/build/lib/release.py: build output directory", "web/build/lib/orders/__init__.py: build output directory",
		"web/dist/main.js: build output directory", "web/dist/pkg/__init__.py: build output directory"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("build directories (-want +got):\n%s", d)
	}
}

// TestCoverageDirs: a coverage report is skipped by what it holds; a
// package named coverage is code.
func TestCoverageDirs(t *testing.T) {
	fsys := fstest.MapFS{
		"coverage/lcov.info":               {Data: []byte("TN:\nSF:src/app.ts\n")},
		"coverage/lcov-report/app.ts.html": {Data: []byte("<html></html>\n")},
		"htmlcov/index.html":               {Data: []byte("<html></html>\n")},
		"claims/coverage/policy.py":        {Data: []byte("def covered(claim):\n    return claim.amount < 1000\n")},
		"claims/coverage/__init__.py":      {Data: []byte("\n")},
	}
	got := walked(t, fsys, Options{})
	want := []string{"claims/coverage/__init__.py", "claims/coverage/policy.py",
		"coverage/: coverage output (directory not descended)", "htmlcov/: coverage output (directory not descended)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("coverage directories (-want +got):\n%s", d)
	}
}

// TestFuzzCorpus: a fuzzer's inputs (files without an extension under a
// folder named for fuzzing) are skipped as test input; the fuzz targets
// beside them, and a product's files without an extension elsewhere, are
// indexed.
func TestFuzzCorpus(t *testing.T) {
	fsys := fstest.MapFS{
		"parser/testdata/fuzz/FuzzParse/5f3c9a1e7b": {Data: []byte("go test fuzz v1\nstring(\"\\xff\\x00relation\")\n")},
		"parser/fuzz_test.go":                       {Data: []byte("package parser\n\nfunc FuzzParse() {}\n")},
		".fuzzer/parser_seeds/0d773a8ebf8db7e5":     {Data: []byte("tuple:\x92\x93\n")},
		"fuzz/corpus/decode/a94a8fe5ccb19ba6":       {Data: []byte("\x00\x01\x02")},
		"fuzz/fuzz_targets/decode.rs":               {Data: []byte("fn main() {}\n")},
		"scripts/bootstrap":                         {Data: []byte("#!/bin/sh\necho ok\n")},
	}
	got := walked(t, fsys, Options{})
	want := []string{
		"fuzz/fuzz_targets/decode.rs",
		"parser/fuzz_test.go",
		"scripts/bootstrap",
		".fuzzer/parser_seeds/0d773a8ebf8db7e5: fuzz corpus (test input)",
		"fuzz/corpus/decode/a94a8fe5ccb19ba6: fuzz corpus (test input)",
		"parser/testdata/fuzz/FuzzParse/5f3c9a1e7b: fuzz corpus (test input)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fuzz corpus (-want +got):\n%s", d)
	}
}

// TestNonUTF8Names: a file or directory whose name is not UTF-8 (Latin-1
// from an old archive) cannot be opened through io/fs; it is skipped with
// that reason, not as "unreadable: invalid argument", and the walk goes on.
func TestNonUTF8Names(t *testing.T) {
	fsys := fstest.MapFS{
		"src/caf\xe9.go":         {Data: []byte("package src\n")},
		"src/ok.go":              {Data: []byte("package src\n")},
		"docs/r\xe9sum\xe9/a.md": {Data: []byte("# A\n")},
	}
	got := walked(t, fsys, Options{})
	want := []string{"src/ok.go",
		"docs/r\xe9sum\xe9/: directory name is not valid UTF-8 (rename it to index it)",
		"src/caf\xe9.go: file name is not valid UTF-8 (rename it to index it)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("non-UTF-8 names (-want +got):\n%s", d)
	}
}

// TestVendorDirs: vendored dependencies are skipped by their package
// manager's marks; a service named vendor is code.
func TestVendorDirs(t *testing.T) {
	fsys := fstest.MapFS{
		"services/vendor/onboarding.py":    {Data: []byte("def onboard(seller):\n    return seller.verify()\n")},
		"gateway/go.mod":                   {Data: []byte("module acme/gateway\n")},
		"gateway/main.go":                  {Data: []byte("package main\n")},
		"gateway/vendor/acme/auth/auth.go": {Data: []byte("package auth\n")},
		"shop/vendor/autoload.php":         {Data: []byte("<?php\n")},
		"tools/vendor/github.com/x/y/y.go": {Data: []byte("package y\n")},
	}
	got := walked(t, fsys, Options{})
	want := []string{"gateway/go.mod", "gateway/main.go", "services/vendor/onboarding.py",
		"gateway/vendor/: vendored dependencies (directory not descended)",
		"shop/vendor/: vendored dependencies (directory not descended)",
		"tools/vendor/: vendored dependencies (directory not descended)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("vendor directories (-want +got):\n%s", d)
	}
}

// walked walks fsys and lists the files indexed, then the skips with
// their reasons.
func walked(t *testing.T, fsys fs.FS, opts Options) []string {
	t.Helper()
	res, err := Walk(context.Background(), fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		got = append(got, f.Path)
	}
	for _, s := range res.Skips {
		got = append(got, s.Path+": "+s.Reason)
	}
	return got
}

func TestCredentialReason(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{".pgpass", "credentials file (never indexed)"},
		{"pgpass.conf", "credentials file (never indexed)"},
		{".vault-token", "credentials file (never indexed)"},
		{".s3cfg", "credentials file (never indexed)"},
		{".netrc", "credentials file (never indexed)"},
		{"id_ed25519", "SSH private key (never indexed)"},
		{"server.key", "key or certificate file (never indexed)"},
		{"pgpass.go", ""},
		{"vault-token.md", ""},
	} {
		if got := credentialReason(tt.name); got != tt.want {
			t.Errorf("credentialReason(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
