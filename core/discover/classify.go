package discover

import (
	"bytes"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"coderag/core"
	"coderag/core/convo"
	"coderag/core/internal/lazyre"
)

// languages maps file extensions to language names.
var languages = map[string]string{
	".go": "go", ".cs": "csharp", ".py": "python", ".pyi": "python",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".rs": "rust",
	".rb": "ruby", ".php": "php", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp",
	".swift": "swift", ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ps1": "powershell",
	".sql": "sql", ".proto": "protobuf", ".graphql": "graphql", ".gql": "graphql",
	".groovy": "groovy", ".gradle": "groovy", ".lua": "lua", ".r": "r",
	".yaml": "yaml", ".yml": "yaml", ".json": "json", ".jsonc": "json", ".toml": "toml",
	".ini": "ini", ".cfg": "ini", ".conf": "conf", ".properties": "properties", ".env": "dotenv",
	".xml": "xml", ".csproj": "xml", ".fsproj": "xml", ".vbproj": "xml", ".props": "xml", ".targets": "xml",
	".sln": "sln", ".tf": "hcl", ".tfvars": "hcl", ".hcl": "hcl", ".tpl": "gotemplate",
	".md": "markdown", ".markdown": "markdown", ".mdx": "markdown", ".rst": "rst", ".adoc": "asciidoc",
	".csv": "csv", ".tsv": "tsv",
	".txt": "text", ".html": "html", ".htm": "html", ".css": "css", ".scss": "css", ".less": "css",
	".vue": "vue", ".svelte": "svelte", ".vtt": "webvtt", ".srt": "srt", ".mk": "makefile", ".ipynb": "jupyter", ".docx": "docx",
}

// codeLanguages are the languages whose files are CODE_LOGIC.
var codeLanguages = map[string]bool{
	"go": true, "csharp": true, "python": true, "typescript": true, "tsx": true, "javascript": true,
	"java": true, "kotlin": true, "scala": true, "rust": true, "ruby": true, "php": true, "c": true,
	"cpp": true, "swift": true, "shell": true, "powershell": true, "sql": true, "protobuf": true,
	"graphql": true, "groovy": true, "lua": true, "r": true, "html": true, "css": true, "vue": true,
	"svelte": true, "gotemplate": true, "jupyter": true,
}

// docDirs are directories whose Word documents are documentation.
var docDirs = map[string]bool{"docs": true, "doc": true, "documentation": true, "wiki": true, "design": true, "handbook": true}

// docNames are extension-less files that are documentation.
var docNames = map[string]bool{
	"readme": true, "license": true, "licence": true, "notice": true, "authors": true,
	"changelog": true, "contributing": true, "codeowners": true, "security": true, "maintainers": true,
}

// deployDirs are directory names whose YAML and JSON is deployment config.
var deployDirs = map[string]bool{
	"k8s": true, "kubernetes": true, "kube": true, "manifests": true, "deploy": true, "deployment": true,
	"deployments": true, "helm": true, "charts": true, "chart": true, "kustomize": true, "overlays": true,
	"argocd": true, "argo": true, "flux": true, "openshift": true, "infra": true, "infrastructure": true,
	"terraform": true, "ops": true, "workflows": true,
}

var (
	adrFile  = lazyre.New(`^(?:adr[-_]?)?\d{3,5}[-_].+\.(?:md|markdown|rst|adoc|txt)$`)
	composeF = lazyre.New(`^(?:docker-)?compose(?:[.-][\w.-]+)?\.ya?ml$`)
)

// KnownExtension reports whether ext (".conf", ".yaml") is the extension
// of a file type coderag reads: "nginx.conf" in a question is a file's
// name, where "os.ReadFile" is a qualified identifier.
func KnownExtension(ext string) bool { return languages[strings.ToLower(ext)] != "" }

// Classify returns the language and corpus type of a file from its path
// alone. Content can refine it later (Inspect).
func Classify(p string) (language string, corpus core.CorpusType) {
	base := path.Base(p)
	lbase := strings.ToLower(base)
	ext := strings.ToLower(path.Ext(base))
	// The lower-cased directory names, split only for the types that
	// look at them (a walk classifies every file).
	var dirs []string
	dirNames := func() []string {
		if dirs == nil {
			dirs = strings.Split(strings.ToLower(path.Dir(p)), "/")
		}
		return dirs
	}
	inDir := func(set map[string]bool) bool {
		for _, d := range dirNames() {
			if set[d] {
				return true
			}
		}
		return false
	}
	language = languages[ext]

	switch {
	case lbase == "dockerfile" || strings.HasPrefix(lbase, "dockerfile.") || ext == ".dockerfile" || lbase == "containerfile":
		return "dockerfile", core.CodeDeploy
	case strings.Contains(lbase, "compose") && composeF.MatchString(lbase):
		return "yaml", core.CodeDeploy
	case language == "hcl":
		return "hcl", core.CodeDeploy
	case lbase == "chart.yaml" || lbase == "kustomization.yaml" || lbase == "kustomization.yml" ||
		lbase == "skaffold.yaml" || lbase == "helmfile.yaml" || lbase == "procfile" || lbase == "fly.toml":
		if language == "" {
			language = "text"
		}
		return language, core.CodeDeploy
	case lbase == "tiltfile":
		return "text", core.CodeDeploy
	case lbase == "makefile" || lbase == "gnumakefile" || ext == ".mk":
		return "makefile", core.CodeConfig
	case lbase == "jenkinsfile":
		return "groovy", core.CodeDeploy
	case lbase == "go.mod" || lbase == "go.work":
		return "gomod", core.CodeConfig
	case isEnvTemplate(lbase) || lbase == ".env" || strings.HasPrefix(lbase, ".env."):
		return "dotenv", core.CodeConfig
	case lbase == "requirements.txt" || (strings.HasPrefix(lbase, "requirements") && ext == ".txt") || lbase == "constraints.txt":
		return "pip-requirements", core.CodeConfig
	case lbase == "pipfile":
		return "toml", core.CodeConfig
	case manPageRE.MatchString(ext) && (inDir(map[string]bool{"man": true}) || manDirRE.MatchString(path.Base(path.Dir(p)))):
		// A man page (man/stdiscosrv.1, man8/tool.8) is documentation.
		return "text", core.DocReadme
	}

	switch language {
	case "yaml", "json", "gotemplate":
		if inDir(deployDirs) || (language == "gotemplate" && inDir(map[string]bool{"templates": true})) {
			return language, core.CodeDeploy
		}
		if language == "gotemplate" {
			return language, core.CodeLogic
		}
		return language, core.CodeConfig
	case "toml", "ini", "conf", "properties", "xml", "sln", "dotenv":
		return language, core.CodeConfig
	case "markdown", "rst", "asciidoc", "text":
		return language, docCorpus(dirNames(), lbase)
	case "webvtt", "srt":
		return language, core.ConvoTranscript
	case "docx":
		// A Word document in a repository is documentation where docs
		// live (docs/, a wiki, runbooks, ADRs); elsewhere it is data (a
		// template, a test fixture) and stays a binary skip.
		if c := docCorpus(dirNames(), lbase); c != core.DocReadme || inDir(docDirs) {
			return language, c
		}
		return language, core.CodeLogic
	case "":
		if inner := strings.TrimSuffix(p, path.Ext(p)); slices.Contains(templateSuffixes, ext) && languages[strings.ToLower(path.Ext(inner))] != "" {
			// A template of a file ("nsqd.cfg.example",
			// "config.yaml.sample", "nginx.conf.dist") is that kind
			// of file.
			return Classify(inner)
		}
		name := strings.TrimSuffix(lbase, ext)
		if docNames[name] {
			return "text", core.DocReadme
		}
		return "", core.CodeLogic
	}
	if codeLanguages[language] {
		return language, core.CodeLogic
	}
	return language, core.CodeConfig
}

func docCorpus(dirs []string, lbase string) core.CorpusType {
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(lbase, w) {
				return true
			}
			for _, d := range dirs {
				if strings.Contains(d, w) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("runbook", "playbook", "oncall", "on-call", "incident-response", "sop"):
		return core.DocRunbook
	case adrFile.MatchString(lbase) && has("adr", "decision", "architecture", "rfc"),
		strings.HasPrefix(lbase, "adr-") || strings.HasPrefix(lbase, "adr_"):
		return core.DocADR
	}
	for _, d := range dirs {
		if d == "adr" || d == "adrs" || d == "decisions" || d == "architecture-decisions" || d == "decision-records" {
			return core.DocADR
		}
	}
	return core.DocReadme
}

// templateSuffixes end the names of templates of environment files
// (".env.example", "env.sample") and of other files ("app.yaml.dist").
var templateSuffixes = []string{".example", ".sample", ".template", ".dist", ".defaults", ".tmpl"}

func isEnvTemplate(lbase string) bool {
	dotEnv := strings.HasPrefix(lbase, ".env")
	if !dotEnv && !strings.HasPrefix(lbase, "env.") {
		return false
	}
	for _, s := range templateSuffixes {
		if dotEnv && strings.HasSuffix(lbase, s) || lbase[3:] == s {
			return true
		}
	}
	return false
}

var (
	generatedMarker = lazyre.New(`(?m)^(?:\s*(?://|#|/\*|\*|<!--|--)).{0,40}(?:Code generated .{0,200}DO NOT EDIT|@generated|<auto-generated|This file was automatically generated|AUTO-GENERATED FILE)`)
	// htmlReport marks HTML that a tool wrote, a report or a rendered
	// documentation site (its source, when kept, is indexed): a generator
	// meta tag naming a documentation, coverage or report tool, or the
	// title, comment or footer such tools write — Snyk's snyk-to-html,
	// Istanbul and coverage.py coverage, JaCoCo, Javadoc, Doxygen.
	htmlReport = lazyre.New(`(?i)<meta\s+name=["']generator["']\s+content=["'][^"'>]*\b(?:javadoc|doxygen|jacoco|coverage\.py|istanbul|sphinx|docutils|mkdocs|hugo|jekyll|pandoc|pdoc|rustdoc|typedoc|jsdoc|docfx|asciidoctor)\b` +
		`|<title>\s*Snyk (?:test )?report\s*</title>|<!--\s*Generated by (?:javadoc|Doxygen)\b` +
		`|Code coverage generated by\s*<a[^>]*istanbul|Created by\s*<a[^>]*>\s*coverage\.py|Created with\s*<a[^>]*>\s*JaCoCo`)
	k8sAPIVersion   = lazyre.New(`(?m)^apiVersion:\s*\S`)
	k8sKind         = lazyre.New(`(?m)^kind:\s*[A-Z]\w+`)
	composeServices = lazyre.New(`(?m)^services:\s*$`)
	composeImage    = lazyre.New(`(?m)^\s+(?:image|build):\s*\S`)
)

// Inspect checks a file's content and returns the file with its language
// and corpus refined, or a reason to skip it: binary content, text that is
// not UTF-8, generated or minified code. Deploy files and docs are never
// skipped as generated.
func Inspect(f core.File, data []byte) (core.File, string) {
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return f, "UTF-16 text (only UTF-8 is indexed)"
	}
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return f, "binary content"
	}
	// A NUL further in is binary too (an archive appended to a script, a
	// corrupt file): it must never reach a chunk.
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return f, "binary content (NUL byte on line " + strconv.Itoa(bytes.Count(data[:i], []byte("\n"))+1) + ")"
	}
	if line, ok := firstInvalidUTF8(data); !ok {
		return f, "not valid UTF-8 (first bad byte on line " + strconv.Itoa(line) + ")"
	}
	if f.Language == "" {
		f.Language = shebangLanguage(data)
		if f.Language == "" {
			f.Language = "text"
		}
	}
	switch f.Language {
	case "yaml", "json":
		if f.Corpus == core.CodeConfig && (k8sAPIVersion.Match(data) && k8sKind.Match(data) ||
			composeServices.Match(data) && composeImage.Match(data)) {
			f.Corpus = core.CodeDeploy
		}
	}
	if f.Corpus == core.DocReadme && !f.Ruled {
		if c := docByHeadings(f.Path, f.Language, data); c != "" {
			f.Corpus = c
		}
		if f.Language == "text" && convo.IsChatLog(data) || f.Language == "markdown" && convo.IsMarkdownTranscript(data) {
			// A meeting's chat log saved beside its recording, a
			// meeting's transcript kept as notes.
			f.Corpus = core.ConvoTranscript
		}
	}
	if f.Corpus == core.CodeLogic || f.Corpus == core.CodeConfig {
		top := data
		if len(top) > 2048 {
			top = top[:2048]
		}
		if m := generatedMarker.Find(top); m != nil {
			return f, "generated file (" + strings.TrimSpace(string(m)) + ")"
		}
		if f.Language == "html" {
			// A report's footer is at its end.
			bottom := data[max(0, len(data)-4096):]
			m := htmlReport.Find(data[:min(len(data), 4096)])
			if m == nil {
				m = htmlReport.Find(bottom)
			}
			if m != nil {
				return f, "generated HTML (" + strings.Join(strings.Fields(string(m)), " ") + ")"
			}
		}
		if f.Language != "jupyter" && minified(data) { // a notebook's long lines are outputs, left out
			return f, "minified (lines longer than 2,000 characters on average)"
		}
	}
	return f, ""
}

// firstInvalidUTF8 returns the 1-based line of the first byte that is not
// valid UTF-8, and false, or (0, true) when data is valid.
func firstInvalidUTF8(data []byte) (int, bool) {
	i := 0
	for i < len(data) {
		c := data[i]
		if c < 0x80 {
			i++
			continue
		}
		n := validRuneLen(data[i:])
		if n == 0 {
			return bytes.Count(data[:i], []byte{'\n'}) + 1, false
		}
		i += n
	}
	return 0, true
}

// validRuneLen is the length of the valid UTF-8 sequence at b[0], or 0.
func validRuneLen(b []byte) int {
	c := b[0]
	var n int
	var cp rune
	var min rune
	switch {
	case c >= 0xC2 && c <= 0xDF:
		n, cp, min = 2, rune(c&0x1F), 0x80
	case c >= 0xE0 && c <= 0xEF:
		n, cp, min = 3, rune(c&0x0F), 0x800
	case c >= 0xF0 && c <= 0xF4:
		n, cp, min = 4, rune(c&0x07), 0x10000
	default:
		return 0
	}
	if len(b) < n {
		return 0
	}
	for k := 1; k < n; k++ {
		if b[k]&0xC0 != 0x80 {
			return 0
		}
		cp = cp<<6 | rune(b[k]&0x3F)
	}
	if cp < min || cp > 0x10FFFF || cp >= 0xD800 && cp <= 0xDFFF {
		return 0
	}
	return n
}

func minified(data []byte) bool {
	if len(data) < 4096 {
		return false
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	return len(data)/lines > 2000
}

func shebangLanguage(data []byte) string {
	if !bytes.HasPrefix(data, []byte("#!")) {
		return ""
	}
	line := data
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	s := string(line)
	switch {
	case strings.Contains(s, "python"):
		return "python"
	case strings.Contains(s, "node"), strings.Contains(s, "deno"), strings.Contains(s, "bun"):
		return "javascript"
	case strings.Contains(s, "bash"), strings.HasSuffix(s, "/sh"), strings.Contains(s, "/sh "), strings.Contains(s, "zsh"):
		return "shell"
	case strings.Contains(s, "ruby"):
		return "ruby"
	}
	return ""
}

// DecodeText returns file content as UTF-8 text for indexing and
// previews: UTF-16 that starts with a byte order mark (what Windows
// editors and SQL Server tools save) is decoded, UTF-8's byte order mark
// (what Visual Studio and PowerShell write) is dropped — parsers of YAML,
// JSON and the rest would read it as part of the first key — and text
// that is not valid UTF-8 is read as Windows-1252 (DecodeLegacy). note
// says what was done, for the crawl's warnings ("" for the UTF-8 mark,
// which is no news); ok is false when data is left as it is (UTF-8
// already, or bytes that are not text in those encodings).
func DecodeText(data []byte) (text []byte, note string, ok bool) {
	if text, ok := decodeUTF16(data); ok {
		return text, "UTF-16 text (byte order mark): decoded to UTF-8", true
	}
	if rest, found := bytes.CutPrefix(data, []byte("\xef\xbb\xbf")); found {
		if text, note, ok := DecodeLegacy(rest); ok {
			return text, note, true
		}
		return rest, "", true
	}
	return DecodeLegacy(data)
}

// decodeUTF16 decodes UTF-16 with a byte order mark, or reports false:
// no mark, an odd length, a broken surrogate or control characters other
// than whitespace (binary data that happens to start like a mark).
func decodeUTF16(data []byte) ([]byte, bool) {
	if len(data) < 2 || len(data)%2 != 0 || !(data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return nil, false
	}
	out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(data)
	if err != nil || !utf8.Valid(out) {
		return nil, false
	}
	for _, r := range string(out) {
		if r == utf8.RuneError || r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v' && r != 0x1b {
			return nil, false
		}
	}
	return out, true
}

// DecodeLegacy reads text that is not valid UTF-8 as Windows-1252 (the
// superset of Latin-1 that legacy Western source files are written in),
// so that a file with one accented comment is indexed instead of lost.
// Only the bytes that are no part of a UTF-8 sequence are read so: a
// UTF-8 file with one Latin-1 byte (edited once in a legacy editor) keeps
// its UTF-8 text ("naïve", comments in Chinese) instead of turning it
// into mojibake. It returns the UTF-8 text and a note naming the first
// bad line for the crawl's warnings; ok is false for valid UTF-8 and for
// what Inspect skips anyway (UTF-16, binary content) and for bytes that
// do not look like text in such an encoding: control characters other
// than whitespace and escape, or more than a tenth of the bytes not
// UTF-8 (compressed or random test data). Text in another legacy
// encoding comes out garbled outside ASCII, which holds the code's
// identifiers.
func DecodeLegacy(data []byte) (text []byte, note string, ok bool) {
	line, valid := firstInvalidUTF8(data)
	if valid || len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		return nil, "", false
	}
	bad := 0
	out := make([]byte, 0, len(data)+len(data)/8)
	for i := 0; i < len(data); {
		c := data[i]
		if c < 0x80 {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
				return nil, "", false // NUL and other controls: binary
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			bad++
			out = utf8.AppendRune(out, charmap.Windows1252.DecodeByte(c))
		} else {
			out = append(out, data[i:i+n]...)
		}
		i += n
	}
	if bad*10 > len(data) {
		return nil, "", false
	}
	return out, "not valid UTF-8 (first bad byte on line " + strconv.Itoa(line) + "): read as Windows-1252", true
}

var (
	// manPageRE is a man page's extension: its section (.1, .8, .3pm).
	manPageRE = lazyre.New(`^\.[1-9][a-z]*$`)
	// manDirRE is a folder of one section's man pages (man1, man8).
	manDirRE = lazyre.New(`^man[1-9]$`)
)

// Section titles by which a document says what it is, when its path does
// not: the alert runbook template of the Prometheus monitoring mixins
// (Meaning, Impact, Diagnosis, Mitigation: three of the four), the
// sections of operational runbooks (two of runbookSections), and the
// architecture decision record templates of Nygard (Status, Context,
// Decision, Consequences: three) and MADR (two of its own).
var (
	alertSections    = []string{"meaning", "impact", "diagnosis", "mitigation"}
	runbookSections  = []string{"symptom", "symptoms", "resolution", "remediation", "mitigation", "diagnosis", "troubleshooting", "troubleshoot", "escalation", "rollback", "workaround", "recovery", "triage"}
	nygardSections   = []string{"status", "context", "decision", "consequences"}
	madrSections     = []string{"context and problem statement", "decision outcome", "considered options", "decision drivers"}
	markdownHeading  = lazyre.New(`^#{1,6}[ \t]+(.+?)[ \t#]*$`)
	asciidocHeading  = lazyre.New(`^={1,6}[ \t]+(.+?)[ \t]*$`)
	headingNonLetter = lazyre.New(`[^\p{L} ]+`)
)

// docByHeadings returns the corpus type the section titles of a Markdown
// or AsciiDoc document give it (DocRunbook, DocADR), or "" when they say
// nothing: a runbook filed under docs/ in a repository of runbooks is
// still one. A README, changelog or licence stays what its name says.
// Headings inside fenced code (a shell comment in a runbook's commands)
// are not titles.
func docByHeadings(p, language string, data []byte) core.CorpusType {
	var heading *lazyre.Regexp
	switch language {
	case "markdown":
		heading = markdownHeading
	case "asciidoc":
		heading = asciidocHeading
	default:
		return ""
	}
	base := strings.ToLower(path.Base(p))
	if docNames[strings.TrimSuffix(base, path.Ext(base))] {
		return ""
	}
	titles := map[string]bool{} // normalized: lower case, letters and single spaces
	words := map[string]bool{}  // the first and last words of short titles
	fence := ""
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if f := fenceOf(t); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		m := heading.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		title := strings.Join(strings.Fields(headingNonLetter.ReplaceAllString(strings.ToLower(m[1]), " ")), " ")
		titles[title] = true
		if f := strings.Fields(title); len(f) > 0 && len(f) <= 4 {
			words[f[0]], words[f[len(f)-1]] = true, true
		}
	}
	count := func(set map[string]bool, names []string) int {
		n := 0
		for _, w := range names {
			if set[w] {
				n++
			}
		}
		return n
	}
	switch {
	case count(titles, nygardSections) >= 3 || count(titles, madrSections) >= 2:
		return core.DocADR
	case count(titles, alertSections) >= 3 || count(words, runbookSections) >= 2:
		return core.DocRunbook
	}
	return ""
}

// fenceOf returns the fence a Markdown line opens or closes (three or
// more backticks or tildes), or "".
func fenceOf(t string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(t, c+c+c) {
			n := len(t) - len(strings.TrimLeft(t, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}
