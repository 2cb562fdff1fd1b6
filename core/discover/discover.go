// Package discover walks a source tree and decides which files coderag
// indexes: it honours .gitignore (and .coderagignore) files at every level,
// applies default excludes (dependency and cache directories, lock files,
// binaries, generated and minified code, files with credentials, files over
// a size limit) and detects each file's language and corpus type. Every file
// it does not index is reported with a reason; deploy files and docs inside
// build-output directories are still indexed.
package discover

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"coderag/core"
)

// DefaultMaxFileSize is the largest file indexed unless Options say otherwise.
const DefaultMaxFileSize = 2 << 20

// Options configure Walk. The zero value uses the defaults.
type Options struct {
	// MaxFileSize skips larger files (default DefaultMaxFileSize).
	MaxFileSize int64
	// Exclude holds extra gitignore-style patterns, relative to the root.
	Exclude []string
	// NoIgnoreFiles disables reading .gitignore and .coderagignore.
	NoIgnoreFiles bool
	// Allow lists extensions (".docx") that are listed although their
	// type is otherwise skipped as binary: a crawler that reads them.
	Allow []string
	// Rules classify paths before the built-in rules; those of the
	// source's .coderag.yaml follow them.
	Rules []Rule
}

// Skip is a file that was not indexed, and why.
type Skip struct {
	Path   string
	Reason string
}

// Result is what Walk found: files to index in path order, and skips.
type Result struct {
	Files []core.File
	Skips []Skip
}

// skipDirs are never descended into.
var skipDirs = map[string]string{
	".git": "VCS metadata", ".hg": "VCS metadata", ".svn": "VCS metadata",
	"node_modules": "dependencies", "bower_components": "dependencies", "vendor": "vendored dependencies",
	"jspm_packages": "dependencies", "site-packages": "dependencies", ".venv": "virtualenv", "venv": "virtualenv",
	"__pycache__": "cache", ".mypy_cache": "cache", ".pytest_cache": "cache", ".ruff_cache": "cache",
	".tox": "cache", ".nox": "cache", ".cache": "cache", ".parcel-cache": "cache", ".gradle": "cache",
	".terraform": "terraform providers", ".next": "build output", ".nuxt": "build output",
	".svelte-kit": "build output", ".turbo": "cache", "coverage": "coverage output", "htmlcov": "coverage output",
	".nyc_output": "coverage output", ".idea": "editor settings", ".vscode": "editor settings",
	".eggs": "build output", "Pods": "dependencies", ".dart_tool": "cache", ".angular": "cache",
}

// buildDirs hold build output: only deploy files and docs are indexed there.
var buildDirs = map[string]bool{"dist": true, "build": true, "out": true, "target": true, "bin": true, "obj": true, ".build": true}

var lockFiles = map[string]bool{
	"package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "npm-shrinkwrap.json": true,
	"go.sum": true, "cargo.lock": true, "poetry.lock": true, "pipfile.lock": true, "composer.lock": true,
	"gemfile.lock": true, "packages.lock.json": true, "uv.lock": true, "bun.lockb": true, "flake.lock": true,
	"mix.lock": true, "pubspec.lock": true, "podfile.lock": true, "gradle.lockfile": true, ".terraform.lock.hcl": true,
}

var binaryExts = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`.png .jpg .jpeg .gif .bmp .ico .webp .svg .tif .tiff .psd .heic
		.woff .woff2 .ttf .otf .eot .zip .tar .gz .tgz .bz2 .xz .zst .7z .rar .jar .war .ear .whl .nupkg
		.exe .dll .so .dylib .a .o .obj .lib .class .pyc .pyo .wasm .mp3 .mp4 .wav .avi .mov .webm .ogg
		.flac .mkv .pdf .doc .docx .xls .xlsx .ppt .pptx .odt .db .sqlite .sqlite3 .bin .dat .parquet
		.avro .onnx .pt .pth .safetensors .npy .npz .h5 .pkl .iso .dmg .deb .rpm .snk .pdb`) {
		binaryExts[e] = true
	}
}

var minifiedSuffixes = []string{".min.js", ".min.css", ".min.mjs", ".bundle.js", ".chunk.js", ".js.map", ".css.map", ".map"}
var generatedSuffixes = []string{".pb.go", "_pb2.py", "_pb2_grpc.py", "_pb2.pyi", ".pb.cc", ".pb.h", ".g.cs", ".g.i.cs",
	".designer.cs", ".generated.cs", ".generated.ts", ".generated.go", "_generated.go", ".pb.ts", "_pb.js", "_pb.d.ts", "_grpc_pb.js"}

// credentialReason says why a file name holds credentials, or "".
func credentialReason(lbase string) string {
	switch {
	case lbase == ".env" || (strings.HasPrefix(lbase, ".env.") && !isEnvTemplate(lbase)):
		return "environment file with secrets (never indexed; .env.example is)"
	case strings.HasSuffix(lbase, ".pem") || strings.HasSuffix(lbase, ".key") || strings.HasSuffix(lbase, ".p12") ||
		strings.HasSuffix(lbase, ".pfx") || strings.HasSuffix(lbase, ".jks") || strings.HasSuffix(lbase, ".keystore") ||
		strings.HasSuffix(lbase, ".kdbx") || strings.HasSuffix(lbase, ".crt") || strings.HasSuffix(lbase, ".der"):
		return "key or certificate file (never indexed)"
	case lbase == "id_rsa" || lbase == "id_dsa" || lbase == "id_ecdsa" || lbase == "id_ed25519":
		return "SSH private key (never indexed)"
	case lbase == ".npmrc" || lbase == ".pypirc" || lbase == ".netrc" || lbase == "_netrc" || lbase == ".git-credentials" ||
		lbase == "credentials.json" || lbase == ".htpasswd" || lbase == ".dockercfg" || lbase == "credentials":
		return "credentials file (never indexed)"
	case strings.HasSuffix(lbase, ".tfstate") || strings.HasSuffix(lbase, ".tfstate.backup"):
		return "terraform state holds secrets (never indexed)"
	}
	return ""
}

// pathSkip returns why a file is skipped by its name alone, or "".
func pathSkip(p string, inBuild bool, corpus core.CorpusType) string {
	lbase := strings.ToLower(path.Base(p))
	if r := credentialReason(lbase); r != "" {
		return r
	}
	if lockFiles[lbase] {
		return "lock file"
	}
	ext := path.Ext(lbase)
	if binaryExts[ext] {
		return "binary file type (" + ext + ")"
	}
	keep := corpus == core.CodeDeploy || corpus == core.DocReadme || corpus == core.DocRunbook || corpus == core.DocADR
	for _, s := range minifiedSuffixes {
		if strings.HasSuffix(lbase, s) {
			return "minified or source map (" + s + ")"
		}
	}
	if !keep {
		for _, s := range generatedSuffixes {
			if strings.HasSuffix(lbase, s) {
				return "generated code (" + s + ")"
			}
		}
		if inBuild {
			return "build output directory"
		}
	}
	return ""
}

// Walk walks fsys from its root and returns the files to index and the
// files skipped, both sorted by path. It fails only when the root cannot be
// read; unreadable entries below it become skips.
func Walk(ctx context.Context, fsys fs.FS, opts Options) (Result, error) {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	rootInfo, err := fs.Stat(fsys, ".")
	if err != nil {
		return Result{}, fmt.Errorf("walk: %w", err)
	}
	var res Result
	ignores := map[string][]gitignore.Pattern{} // dir -> patterns read in it
	var base []gitignore.Pattern
	for _, p := range opts.Exclude {
		base = append(base, gitignore.ParsePattern(p, nil))
	}
	if !opts.NoIgnoreFiles {
		base = append(base, readPatterns(fsys, ".git/info/exclude", nil)...)
	}
	rules := opts.Rules
	if !opts.NoIgnoreFiles {
		more, exclude, err := readConfig(fsys)
		if err != nil {
			return Result{}, err
		}
		rules = append(append([]Rule(nil), rules...), more...)
		for _, p := range exclude {
			base = append(base, gitignore.ParsePattern(p, nil))
		}
	}
	classes := newClassifier(rules)
	patterns := len(base) > 0 // whether any ignore pattern was read yet
	matchers := map[string]gitignore.Matcher{}
	matcherFor := func(dir string) gitignore.Matcher {
		// A directory's patterns are read when it is visited, before
		// anything in it is matched: its matcher can be kept.
		if m, ok := matchers[dir]; ok {
			return m
		}
		ps := append([]gitignore.Pattern(nil), base...)
		// ancestors first: later (deeper) patterns take precedence
		var chain []string
		for d := dir; ; d = path.Dir(d) {
			chain = append(chain, d)
			if d == "." || d == "/" {
				break
			}
		}
		for i := len(chain) - 1; i >= 0; i-- {
			ps = append(ps, ignores[chain[i]]...)
		}
		m := gitignore.NewMatcher(ps)
		matchers[dir] = m
		return m
	}
	// readIgnores reads the ignore files among a directory's entries.
	readIgnores := func(dir string, entries []fs.DirEntry, domain []string) {
		var ps []gitignore.Pattern
		for _, name := range []string{".gitignore", ".coderagignore"} {
			if hasEntry(entries, name) {
				ps = append(ps, readPatterns(fsys, path.Join(dir, name), domain)...)
			}
		}
		if len(ps) > 0 {
			ignores[dir] = ps
			patterns = true
		}
	}
	buildDepth := map[string]bool{} // dirs inside a build-output dir

	err = walkDir(fsys, ".", fs.FileInfoToDirEntry(rootInfo), func(p string, d fs.DirEntry, entries []fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if p == "." {
				return err
			}
			res.Skips = append(res.Skips, Skip{p, "unreadable: " + errText(err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == "." {
			if !opts.NoIgnoreFiles {
				readIgnores(".", entries, nil)
			}
			return nil
		}
		dir := path.Dir(p)
		parts := strings.Split(p, "/")
		if d.Type()&fs.ModeSymlink != 0 {
			res.Skips = append(res.Skips, Skip{p, "symlink (not followed)"})
			return nil
		}
		if d.IsDir() {
			// Dependency and cache directories are one skip each, not one per file.
			if why, ok := skipDirs[d.Name()]; ok {
				if why == "VCS metadata" {
					return fs.SkipDir
				}
				res.Skips = append(res.Skips, Skip{p + "/", why + " (directory not descended)"})
				return fs.SkipDir
			}
			if strings.HasSuffix(d.Name(), ".egg-info") || hasEntry(entries, "pyvenv.cfg") {
				res.Skips = append(res.Skips, Skip{p + "/", "python packaging output (directory not descended)"})
				return fs.SkipDir
			}
			if patterns && matcherFor(dir).Match(parts, true) {
				return fs.SkipDir
			}
			if buildDirs[d.Name()] || buildDepth[dir] {
				buildDepth[p] = true
			}
			if !opts.NoIgnoreFiles {
				readIgnores(p, entries, parts)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			res.Skips = append(res.Skips, Skip{p, "not a regular file (" + d.Type().String() + ")"})
			return nil
		}
		if d.Name() == ".gitignore" || d.Name() == ".coderagignore" || p == ConfigFile {
			return nil
		}
		if patterns && matcherFor(dir).Match(parts, false) {
			return nil // ignored files are not part of the repo: not listed
		}
		lang, corpus := Classify(p)
		if c, ok := classes.corpus(p); ok {
			corpus = c
		}
		if why := pathSkip(p, buildDepth[dir], corpus); why != "" && !(strings.HasPrefix(why, "binary file type") && allowed(opts.Allow, p)) {
			res.Skips = append(res.Skips, Skip{p, why})
			return nil
		}
		info, err := d.Info()
		if err != nil {
			res.Skips = append(res.Skips, Skip{p, "unreadable: " + errText(err)})
			return nil
		}
		if info.Size() > opts.MaxFileSize {
			res.Skips = append(res.Skips, Skip{p, fmt.Sprintf("larger than the size limit (%s > %s)", humanBytes(info.Size()), humanBytes(opts.MaxFileSize))})
			return nil
		}
		var mtime int64
		if t := info.ModTime(); !t.IsZero() {
			mtime = t.UnixNano()
		}
		res.Files = append(res.Files, core.File{Path: p, Size: info.Size(), Language: lang, Corpus: corpus, ModTime: mtime})
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("walk: %w", err)
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Path < res.Files[j].Path })
	sort.Slice(res.Skips, func(i, j int) bool { return res.Skips[i].Path < res.Skips[j].Path })
	return res, nil
}

func allowed(exts []string, p string) bool {
	ext := strings.ToLower(path.Ext(p))
	for _, e := range exts {
		if strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}

// walkDir is fs.WalkDir, except that a directory's entries are read
// before it is visited and given to visit (nil for files), so that visit
// can look for its ignore files without trying to open them in every
// directory. A directory that cannot be read is visited once, with the
// error.
func walkDir(fsys fs.FS, p string, d fs.DirEntry, visit func(p string, d fs.DirEntry, entries []fs.DirEntry, err error) error) error {
	if !d.IsDir() {
		return visit(p, d, nil, nil)
	}
	entries, err := fs.ReadDir(fsys, p)
	if err != nil {
		if err := visit(p, d, nil, err); err != nil && err != fs.SkipDir {
			return err
		}
		return nil
	}
	if err := visit(p, d, entries, nil); err != nil {
		if err == fs.SkipDir {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if err := walkDir(fsys, path.Join(p, e.Name()), e, visit); err != nil {
			return err
		}
	}
	return nil
}

// hasEntry reports whether a directory's entries (sorted by name, as
// fs.ReadDir returns them) hold name.
func hasEntry(entries []fs.DirEntry, name string) bool {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].Name() >= name })
	return i < len(entries) && entries[i].Name() == name
}

func readPatterns(fsys fs.FS, name string, domain []string) []gitignore.Pattern {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
