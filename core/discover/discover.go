// Package discover walks a source tree and decides which files coderag
// indexes: it honours .gitignore (and .coderagignore) files at every level,
// applies default excludes (dependency and cache directories, lock files,
// binaries, generated and minified code, files with credentials, files over
// a size limit) and detects each file's language and corpus type. Every file
// it does not index is reported with a reason; deploy files and docs inside
// build-output directories are still indexed.
package discover

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"

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
	// Workers is how many directories are read at once (default twice
	// the CPUs: reading is mostly system calls).
	Workers int
	// Git says the source is in a git work tree and which of its files git
	// tracks (see GitStateOf). As with git (and ripgrep), .gitignore files
	// apply only in a work tree, and never to a tracked file: a snapshot
	// of a repository without .git holds only what was committed. nil: not
	// in a work tree.
	Git *GitState
	// Found, when set, is called with each file to index as the walk
	// finds it, from the walk's goroutines (concurrently, in no order),
	// before Walk returns the sorted list.
	Found func(core.File)
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
	"node_modules": "dependencies", "bower_components": "dependencies",
	"jspm_packages": "dependencies", "site-packages": "dependencies", ".venv": "virtualenv",
	"__pycache__": "cache", ".mypy_cache": "cache", ".pytest_cache": "cache", ".ruff_cache": "cache",
	".tox": "cache", ".nox": "cache", ".cache": "cache", ".parcel-cache": "cache", ".gradle": "cache",
	".terraform": "terraform providers", ".next": "build output", ".nuxt": "build output",
	".svelte-kit": "build output", ".turbo": "cache",
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
	case strings.HasSuffix(lbase, ".pem") || strings.HasSuffix(lbase, ".key") || strings.HasSuffix(lbase, ".p12") ||
		strings.HasSuffix(lbase, ".pfx") || strings.HasSuffix(lbase, ".jks") || strings.HasSuffix(lbase, ".keystore") ||
		strings.HasSuffix(lbase, ".kdbx") || strings.HasSuffix(lbase, ".crt") || strings.HasSuffix(lbase, ".der"):
		return "key or certificate file (never indexed)"
	case lbase == "id_rsa" || lbase == "id_dsa" || lbase == "id_ecdsa" || lbase == "id_ed25519":
		return "SSH private key (never indexed)"
	case lbase == ".npmrc" || lbase == ".pypirc" || lbase == ".netrc" || lbase == "_netrc" || lbase == ".git-credentials" ||
		lbase == "credentials.json" || lbase == ".htpasswd" || lbase == ".dockercfg" || lbase == "credentials" ||
		lbase == ".pgpass" || lbase == "pgpass.conf" || lbase == ".vault-token" || lbase == ".s3cfg":
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
	if ext == "" && fuzzDir(path.Dir(p)) {
		return "fuzz corpus (test input)"
	}
	keep := corpus == core.CodeDeploy || corpus == core.DocReadme || corpus == core.DocRunbook || corpus == core.DocADR
	// A Word document classified as documentation is extracted, not
	// skipped as binary.
	if binaryExts[ext] && !(ext == ".docx" && keep) {
		return "binary file type (" + ext + ")"
	}
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

// fuzzDir reports whether a folder holds a fuzzer's inputs: it or a
// folder above is named for fuzzing (Go's testdata/fuzz/FuzzParse,
// cargo-fuzz's fuzz/corpus, .fuzzer/fuzz_parser_seeds). Its files without
// an extension are inputs (random bytes named by their hash), not code.
func fuzzDir(dir string) bool {
	for _, d := range strings.Split(strings.ToLower(dir), "/") {
		if strings.Contains(d, "fuzz") {
			return true
		}
	}
	return false
}

// Walk walks fsys from its root and returns the files to index and the
// files skipped, both sorted by path. It fails only when the root cannot be
// read; unreadable entries below it become skips. Directories are read
// concurrently (see Options.Workers).
func Walk(ctx context.Context, fsys fs.FS, opts Options) (Result, error) {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.Workers <= 0 {
		opts.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return Result{}, fmt.Errorf("walk: %w", err)
	}
	var base []gitignore.Pattern
	for _, p := range opts.Exclude {
		base = append(base, parsePattern(p, nil))
	}
	if !opts.NoIgnoreFiles && opts.Git != nil {
		base = append(base, opts.Git.Patterns...)
	}
	rules := opts.Rules
	if !opts.NoIgnoreFiles {
		more, exclude, err := readConfig(fsys)
		if err != nil {
			return Result{}, err
		}
		rules = append(append([]Rule(nil), rules...), more...)
		for _, p := range exclude {
			base = append(base, parsePattern(p, nil))
		}
	}
	w := &walker{ctx: ctx, fsys: fsys, opts: opts, classes: newClassifier(rules), slots: make(chan struct{}, opts.Workers-1)}
	if opts.Git != nil {
		w.tracked = opts.Git.Tracked
	}
	root := dirState{path: ".", patterns: base, userPatterns: base}
	if len(base) > 0 {
		root.matcher = gitignore.NewMatcher(base)
		root.user = root.matcher
	}
	w.dir(root, entries)
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return w.res, fmt.Errorf("walk: %w", err)
	}
	res := w.res
	n := 0
	for _, batch := range w.files {
		n += len(batch)
	}
	res.Files = make([]core.File, 0, n)
	for _, batch := range w.files {
		res.Files = append(res.Files, batch...)
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Path < res.Files[j].Path })
	sort.Slice(res.Skips, func(i, j int) bool { return res.Skips[i].Path < res.Skips[j].Path })
	return res, nil
}

// walker holds what one Walk shares between the goroutines reading
// directories.
type walker struct {
	ctx     context.Context
	fsys    fs.FS
	opts    Options
	classes *classifier
	slots   chan struct{} // one per goroutine that may run besides the caller's
	wg      sync.WaitGroup

	mu    sync.Mutex
	res   Result        // skips; files are in files until the walk ends
	files [][]core.File // the files of each directory
	// tracked are the files git tracks, and their directories: a
	// .gitignore pattern does not hide a tracked file (as in git, ignore
	// rules apply to untracked files only). nil outside a git work tree.
	tracked map[string]bool
}

// GitState is what git says about a source: the files it tracks, as
// slash paths relative to the source, and their directories ("dir/").
// Tracked is nil when the index cannot be read.
type GitState struct {
	Tracked map[string]bool
	// Patterns are the ignore rules of the work tree above the source
	// (.git/info/exclude and the .gitignore files of its ancestors),
	// rewritten relative to the source.
	Patterns []gitignore.Pattern
}

// GitStateOf finds the git work tree that holds the directory dir (dir or
// an ancestor has .git) and reads its index; nil when dir is in none.
func GitStateOf(dir string) *GitState {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	for root := abs; ; root = filepath.Dir(root) {
		if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil {
			st := &GitState{}
			rel, _ := filepath.Rel(root, abs)
			rel = filepath.ToSlash(rel)
			if fi.IsDir() {
				st.Tracked = trackedPaths(filepath.Join(root, ".git", "index"), rel)
				st.Patterns = ancestorPatterns(filepath.Join(root, ".git", "info", "exclude"), rel)
			}
			if rel != "." {
				// The .gitignore files between the work tree's root and the
				// source (the source's own are read by the walk).
				parts := strings.Split(rel, "/")
				for i := range parts {
					dir := filepath.Join(append([]string{root}, parts[:i]...)...)
					st.Patterns = append(st.Patterns, ancestorPatterns(filepath.Join(dir, ".gitignore"), strings.Join(parts[i:], "/"))...)
				}
			}
			return st
		}
		if filepath.Dir(root) == root {
			return nil
		}
	}
}

// ancestorPatterns reads an ignore file of a folder above the source and
// keeps its rules that can match below the source, rewritten relative to
// it: below is the source's path relative to that folder. A rule without
// a slash matches at any depth and stays as it is; an anchored rule stays
// when it reaches into the source.
func ancestorPatterns(file, below string) []gitignore.Pattern {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		neg := ""
		if strings.HasPrefix(line, "!") {
			neg, line = "!", line[1:]
		}
		body := strings.TrimSuffix(line, "/")
		switch {
		case below == "." || below == "":
		case !strings.Contains(body, "/"), strings.HasPrefix(line, "**/"):
		case strings.HasPrefix(strings.TrimPrefix(line, "/"), below+"/"):
			line = "/" + strings.TrimPrefix(strings.TrimPrefix(line, "/"), below+"/")
		default:
			continue
		}
		ps = append(ps, parsePattern(neg+line, nil))
	}
	return ps
}

// trackedPaths reads a git index: the tracked files under prefix (a slash
// path relative to the work tree, "." for all of it), relative to prefix,
// and every directory above one. nil when the index cannot be read.
func trackedPaths(indexFile, prefix string) map[string]bool {
	f, err := os.Open(indexFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(bufio.NewReader(f)).Decode(&idx); err != nil {
		return nil
	}
	out := make(map[string]bool, 2*len(idx.Entries))
	for _, e := range idx.Entries {
		name := e.Name
		if prefix != "." && prefix != "" {
			rest, ok := strings.CutPrefix(name, prefix+"/")
			if !ok {
				continue
			}
			name = rest
		}
		out[name] = true
		for d := path.Dir(name); d != "." && !out[d+"/"]; d = path.Dir(d) {
			out[d+"/"] = true
		}
	}
	return out
}

// ignored reports whether the ignore rules in force in d hide the entry
// at p: a user's excludes and .coderagignore always do, .gitignore only
// what git does not track.
func (w *walker) ignored(d dirState, p string, parts []string, isDir bool) bool {
	if d.matcher == nil || !d.matcher.Match(parts, isDir) {
		return false
	}
	key := p
	if isDir {
		key += "/"
	}
	if w.tracked == nil || !w.tracked[key] {
		return true
	}
	return d.user != nil && d.user.Match(parts, isDir)
}

// sourceInBuildDir reports whether the file at p, under a directory
// named like build output (build, dist, out, target, bin, obj), is source
// all the same: git tracks it (build output is not committed), or it is
// Go, which no build writes (Go's own go/build and cmd/dist packages).
func (w *walker) sourceInBuildDir(p string) bool {
	return w.tracked != nil && w.tracked[p] || strings.HasSuffix(p, ".go")
}

// dirState is what a directory passes to its entries: its path and path
// elements, the ignore patterns in force (defaults, excludes, and those
// of it and its ancestors, deeper ones last so that they take
// precedence) with their matcher (nil without patterns), and whether it is
// inside a build-output directory.
type dirState struct {
	path     string
	parts    []string
	patterns []gitignore.Pattern
	matcher  gitignore.Matcher
	// userPatterns and user are the excludes and .coderagignore patterns
	// alone, which hide even files git tracks.
	userPatterns []gitignore.Pattern
	user         gitignore.Matcher
	inBuild      bool
	// buildHere says inBuild comes from this directory's own name, not
	// an ancestor's: what it holds may still show it is source.
	buildHere bool
}

// child returns the path and path elements of an entry of d.
func (d dirState) child(name string) (string, []string) {
	return d.join(name), append(d.parts[:len(d.parts):len(d.parts)], name)
}

// join returns the path of an entry of d.
func (d dirState) join(name string) string {
	if d.path == "." {
		return name
	}
	return d.path + "/" + name
}

// dir visits the entries of a directory that was not skipped: it reads
// the directory's ignore files, then lists its files and descends into
// its subdirectories, in another goroutine when one is free.
func (w *walker) dir(d dirState, entries []fs.DirEntry) {
	if w.ctx.Err() != nil {
		return
	}
	if !w.opts.NoIgnoreFiles {
		var own []gitignore.Pattern
		for _, name := range []string{".gitignore", ".coderagignore"} {
			if name == ".gitignore" && w.opts.Git == nil {
				continue // not a git work tree: .gitignore means nothing here
			}
			if hasEntry(entries, name) {
				ps := readPatterns(w.fsys, d.join(name), d.parts)
				own = append(own, ps...)
				if name == ".coderagignore" && len(ps) > 0 {
					d.userPatterns = append(d.userPatterns[:len(d.userPatterns):len(d.userPatterns)], ps...)
					d.user = gitignore.NewMatcher(d.userPatterns)
				}
			}
		}
		if len(own) > 0 {
			d.patterns = append(d.patterns[:len(d.patterns):len(d.patterns)], own...)
			d.matcher = gitignore.NewMatcher(d.patterns)
		}
	}
	files := make([]core.File, 0, len(entries))
	var skips []Skip
	// The path elements of a file are only looked at while it is
	// classified: one slice serves every file of the directory.
	fileParts := append(d.parts[:len(d.parts):len(d.parts)], "")
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			skips = append(skips, Skip{d.join(e.Name()), "symlink (not followed)"})
			continue
		}
		if e.IsDir() {
			p, parts := d.child(e.Name())
			sub, skip, ok := w.subdir(d, e, p, parts)
			if skip.Path != "" {
				skips = append(skips, skip)
			}
			if !ok {
				continue
			}
			select {
			case w.slots <- struct{}{}:
				w.wg.Add(1)
				go func() {
					defer func() { <-w.slots; w.wg.Done() }()
					w.readDir(sub)
				}()
			default:
				w.readDir(sub)
			}
			continue
		}
		fileParts[len(fileParts)-1] = e.Name()
		f, skip, ok := w.file(d, e, d.join(e.Name()), fileParts)
		if skip.Path != "" {
			skips = append(skips, skip)
		}
		if ok {
			files = append(files, f)
			if w.opts.Found != nil {
				w.opts.Found(f)
			}
		}
	}
	if len(files) > 0 || len(skips) > 0 {
		w.mu.Lock()
		if len(files) > 0 {
			w.files = append(w.files, files)
		}
		w.res.Skips = append(w.res.Skips, skips...)
		w.mu.Unlock()
	}
}

// readDir reads a directory and visits it; one that cannot be read is a
// skip.
func (w *walker) readDir(d dirState) {
	entries, err := fs.ReadDir(w.fsys, d.path)
	if err != nil {
		w.mu.Lock()
		w.res.Skips = append(w.res.Skips, Skip{d.path, "unreadable: " + errText(err)})
		w.mu.Unlock()
		return
	}
	// Vendored dependencies are known by their package manager: a
	// vendor/ beside go.mod, composer.json or a Gemfile, or holding what
	// they put there (modules.txt, autoload.php, module paths such as
	// github.com). A package named vendor (a marketplace's sellers) is
	// code.
	if path.Base(d.path) == "vendor" && w.vendored(d.path, entries) {
		w.mu.Lock()
		w.res.Skips = append(w.res.Skips, Skip{d.path + "/", "vendored dependencies (directory not descended)"})
		w.mu.Unlock()
		return
	}
	// A coverage report is known by what it holds: a package named
	// coverage (an insurer's) is code.
	if name := path.Base(d.path); (name == "coverage" || name == "htmlcov") && coverageReport(entries) {
		w.mu.Lock()
		w.res.Skips = append(w.res.Skips, Skip{d.path + "/", "coverage output (directory not descended)"})
		w.mu.Unlock()
		return
	}
	// A virtualenv is known by its pyvenv.cfg, whatever its name: a
	// package named venv (Python's own) is code.
	if hasEntry(entries, "pyvenv.cfg") {
		w.mu.Lock()
		w.res.Skips = append(w.res.Skips, Skip{d.path + "/", "virtualenv (directory not descended)"})
		w.mu.Unlock()
		return
	}
	// A directory named like build output is source when what it holds
	// says so: a Python package (its __init__.py: celery/bin, a package
	// named build), or a bin/ of scripts rather than a compiler's output.
	if d.buildHere && !buildOutput(path.Base(d.path), entries) {
		d.inBuild, d.buildHere = false, false
	}
	w.dir(d, entries)
}

// buildOutput reports whether a directory named like build output (see
// buildDirs) holds build output by its entries. A Python package is
// source whatever its name. A bin/ is output when it holds what a
// compiler leaves there (.NET's Debug and Release folders, .dll, .exe,
// .pdb or .so files); otherwise it holds scripts (bin/setup, bin/cli.js,
// bin/deploy.sh). The others (build, dist, out, target, obj) are output.
func buildOutput(name string, entries []fs.DirEntry) bool {
	if hasEntry(entries, "__init__.py") {
		return false
	}
	if name != "bin" {
		return true
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() && (n == "Debug" || n == "Release") {
			return true
		}
		switch strings.ToLower(path.Ext(n)) {
		case ".dll", ".exe", ".pdb", ".so", ".dylib", ".class", ".o":
			return true
		}
	}
	return false
}

// subdir decides whether to descend into the directory e of d: ok with
// the state for its entries, or a skip (Path "" when the directory is left
// out silently: VCS metadata and ignored directories).
func (w *walker) subdir(d dirState, e fs.DirEntry, p string, parts []string) (sub dirState, skip Skip, ok bool) {
	name := e.Name()
	if why, ok := skipDirs[name]; ok {
		if why == "VCS metadata" {
			return sub, skip, false
		}
		return sub, Skip{p + "/", why + " (directory not descended)"}, false
	}
	if !utf8.ValidString(name) {
		return sub, Skip{p + "/", "directory name is not valid UTF-8 (rename it to index it)"}, false
	}
	if strings.HasSuffix(name, ".egg-info") {
		return sub, Skip{p + "/", "python packaging output (directory not descended)"}, false
	}
	if w.ignored(d, p, parts, true) {
		return sub, skip, false
	}
	return dirState{path: p, parts: parts, patterns: d.patterns, matcher: d.matcher, userPatterns: d.userPatterns, user: d.user,
		inBuild: d.inBuild || buildDirs[name], buildHere: !d.inBuild && buildDirs[name]}, skip, true
}

// file decides whether the file e of d is indexed: ok with its record, or
// a skip (Path "" when it is left out silently: ignore files, the source's
// config file and ignored files, which are not part of the repository).
func (w *walker) file(d dirState, e fs.DirEntry, p string, parts []string) (f core.File, skip Skip, ok bool) {
	if !e.Type().IsRegular() {
		return f, Skip{p, "not a regular file (" + e.Type().String() + ")"}, false
	}
	if name := e.Name(); name == ".gitignore" || name == ".coderagignore" || p == ConfigFile {
		return f, skip, false
	}
	if w.ignored(d, p, parts, false) {
		return f, skip, false
	}
	if !utf8.ValidString(e.Name()) {
		// Go's file systems open only UTF-8 names (a Latin-1 "café.go").
		return f, Skip{p, "file name is not valid UTF-8 (rename it to index it)"}, false
	}
	lang, corpus := Classify(p)
	c, ruled := w.classes.corpus(parts)
	if ruled {
		corpus = c
	}
	if why := pathSkip(p, d.inBuild && !w.sourceInBuildDir(p), corpus); why != "" && !(strings.HasPrefix(why, "binary file type") && allowed(w.opts.Allow, p)) {
		return f, Skip{p, why}, false
	}
	info, err := e.Info()
	if err != nil {
		return f, Skip{p, "unreadable: " + errText(err)}, false
	}
	if info.Size() > w.opts.MaxFileSize {
		return f, Skip{p, fmt.Sprintf("larger than the size limit (%s > %s)", humanBytes(info.Size()), humanBytes(w.opts.MaxFileSize))}, false
	}
	var mtime int64
	if t := info.ModTime(); !t.IsZero() {
		mtime = t.UnixNano()
	}
	return core.File{Path: p, Size: info.Size(), Language: lang, Corpus: corpus, ModTime: mtime, Ruled: ruled}, skip, true
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

// hasEntry reports whether a directory's entries (sorted by name, as
// fs.ReadDir returns them) hold name.
// vendored reports whether the directory vendor at p holds a package
// manager's vendored dependencies.
func (w *walker) vendored(p string, entries []fs.DirEntry) bool {
	for _, m := range []string{"modules.txt", "autoload.php", "composer", "bundle", "bin"} {
		if hasEntry(entries, m) {
			return true
		}
	}
	for _, e := range entries {
		if e.IsDir() && strings.Contains(e.Name(), ".") { // github.com, golang.org, gopkg.in
			return true
		}
	}
	parent := path.Dir(p)
	for _, m := range []string{"go.mod", "composer.json", "Gemfile", "Gopkg.toml", "glide.yaml"} {
		if _, err := fs.Stat(w.fsys, path.Join(parent, m)); err == nil {
			return true
		}
	}
	return false
}

// coverageReport reports whether a directory's entries are a test
// coverage report's (lcov, Istanbul, Cobertura, coverage.py's HTML).
func coverageReport(entries []fs.DirEntry) bool {
	for _, m := range []string{"lcov.info", "coverage-final.json", "coverage-summary.json", "clover.xml", "cobertura-coverage.xml",
		"coverage.xml", "lcov-report", "index.html", "status.json", ".last_run.json", "coverage.out", "coverage.txt"} {
		if hasEntry(entries, m) {
			return true
		}
	}
	return false
}

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
		ps = append(ps, parsePattern(line, domain))
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
