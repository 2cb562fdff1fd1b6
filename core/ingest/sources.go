package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"coderag/core"
	"coderag/core/chunk"
	"coderag/core/convo"
	"coderag/core/discover"
	"coderag/core/embed"
	"coderag/core/extract"
)

// sourceReader yields the units of one source — files of a directory, or
// the conversations of a Slack export — and turns each into clean chunks.
type sourceReader struct {
	c     *Crawler
	src   core.Source
	fsys  fs.FS
	found discover.Result

	// exports are the Slack exports the source is or holds: a Slack
	// export source, or the export folders a directory holds
	// (convo.ExportDirs), each read as conversations, not as JSON files.
	exports  []*convo.SlackExport
	channels map[string]slackUnit // by unit path ("#incidents", "chat/export/#incidents")
	// exportMTime is the newest modification time of the files of the
	// export folders a directory holds.
	exportMTime int64

	// stored is what an incremental crawl finds in the store, by path.
	stored map[string]StoredFile
}

// open discovers what src holds. It fails only when the source cannot be
// read at all.
func (c *Crawler) open(ctx context.Context, src core.Source, warm *warmer) (*sourceReader, error) {
	r := &sourceReader{c: c, src: src}
	r.channels = map[string]slackUnit{}
	if src.Kind == core.SourceSlackExport {
		exp, err := convo.OpenSlack(src.Path, c.opts.Convo)
		if err != nil {
			return nil, err
		}
		r.addExport(exp, "")
		return r, nil
	}
	r.fsys = c.opts.FS(src.Path)
	found, err := c.walk(ctx, src, r.fsys, warm.found)
	if err != nil {
		return nil, err
	}
	r.found = found
	r.openExports()
	return r, nil
}

// walk finds the files of a directory source in fsys, calling found for
// each as the walk finds it (nil: none).
func (c *Crawler) walk(ctx context.Context, src core.Source, fsys fs.FS, found func(core.File)) (discover.Result, error) {
	opts := c.opts.Discover
	opts.Found = found
	if opts.Git == nil {
		opts.Git = discover.GitStateOf(src.Path)
	}
	if src.Kind == core.SourceGDocsDir || src.Kind == core.SourceRunbookDir {
		opts.Allow = append(append([]string(nil), opts.Allow...), ".docx")
	}
	return discover.Walk(ctx, fsys, opts)
}

// exportNames returns the members of the Slack exports kept in the
// directory source src (convo.ExportDirs), or of src itself when it is a
// Slack export: a crawl tells the scrub gate about them before the
// sources before src are scrubbed.
func (c *Crawler) exportNames(ctx context.Context, src core.Source) []string {
	if src.Kind == core.SourceSlackExport {
		exp, err := convo.OpenSlack(src.Path, c.opts.Convo)
		if err != nil {
			return nil
		}
		defer exp.Close()
		return exp.Names()
	}
	fsys := c.opts.FS(src.Path)
	found, err := c.walk(ctx, src, fsys, nil)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range c.exportsIn(fsys, found.Files) {
		names = append(names, e.exp.Names()...)
		e.exp.Close()
	}
	return names
}

// folderExport is a Slack export kept in the folder dir of a directory
// source.
type folderExport struct {
	dir string
	exp *convo.SlackExport
}

// exportsIn opens the Slack exports kept among files of fsys (the files
// of a walk); a folder that looks like one but does not open as one is
// left out.
func (c *Crawler) exportsIn(fsys fs.FS, files []core.File) []folderExport {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	var out []folderExport
	for _, dir := range convo.ExportDirs(paths) {
		sub, err := fs.Sub(fsys, dir)
		if err != nil {
			continue
		}
		if exp, err := convo.OpenSlackFS(sub, c.opts.Convo); err == nil {
			out = append(out, folderExport{dir, exp})
		}
	}
	return out
}

// slackUnit is one conversation of a Slack export, indexed as one unit.
type slackUnit struct {
	exp *convo.SlackExport
	ch  convo.SlackChannel
	// prefix is "dir/" for an export in the folder dir of a directory
	// source; "" for a Slack export source or a directory that is one.
	prefix string
}

// folderPrefix is the path prefix of the files of an export kept in the
// folder dir of a directory ("" for its root, or for an export source).
func folderPrefix(dir string) string {
	if dir == "" || dir == "." {
		return ""
	}
	return dir + "/"
}

// addExport makes each conversation of exp a unit, named "#channel" in a
// Slack export source and "dir/#channel" for an export folder dir of a
// directory.
func (r *sourceReader) addExport(exp *convo.SlackExport, dir string) {
	r.exports = append(r.exports, exp)
	prefix := folderPrefix(dir)
	for _, p := range exp.Problems {
		r.found.Skips = append(r.found.Skips, discover.Skip{Path: prefix + p.Path, Reason: p.Reason})
	}
	for _, ch := range exp.Channels {
		unit := prefix + "#" + ch.Name
		if _, dup := r.channels[unit]; dup {
			unit += "~" + ch.ID
		}
		r.channels[unit] = slackUnit{exp: exp, ch: ch, prefix: prefix}
		r.found.Files = append(r.found.Files, core.File{Path: unit, Corpus: core.ConvoSlack})
	}
}

// openExports reads the Slack export folders the walk found
// (convo.ExportDirs) as conversations instead of files: their JSON
// would be indexed as configuration, raw message records with the
// members' names and e-mail addresses unscrubbed. Only the files the walk
// kept are read (ignore and exclude rules hold); the members' names are
// scrubbed from every file of the source after. A folder that does not
// open as an export stays files.
func (r *sourceReader) openExports() {
	var names []string
	for _, e := range r.c.exportsIn(r.fsys, r.found.Files) {
		dir, exp := e.dir, e.exp
		prefix := folderPrefix(dir)
		// The export's files the walk kept are read as the export; the
		// others in its folder (a README beside it) stay files, and what
		// the export reports of them is not a problem.
		part := map[string]bool{}
		for _, p := range exp.Files() {
			part[p] = true
		}
		kept := map[string]bool{}
		files := r.found.Files[:0]
		for _, f := range r.found.Files {
			if rel, ok := strings.CutPrefix(f.Path, prefix); ok && part[rel] {
				kept[rel] = true
				r.exportMTime = max(r.exportMTime, f.ModTime)
				continue
			}
			files = append(files, f)
		}
		r.found.Files = files
		chans := exp.Channels[:0]
		for _, ch := range exp.Channels {
			ch.Files = slices.DeleteFunc(ch.Files, func(f string) bool { return !kept[f] })
			if len(ch.Files) > 0 {
				chans = append(chans, ch)
			}
		}
		exp.Channels = chans
		stays := map[string]bool{}
		for _, f := range files {
			stays[f.Path] = true
		}
		exp.Problems = slices.DeleteFunc(exp.Problems, func(p convo.Problem) bool {
			if folder, ok := strings.CutSuffix(prefix+p.Path, "/"); ok {
				for f := range stays {
					if strings.HasPrefix(f, folder+"/") {
						return true
					}
				}
				return false
			}
			return stays[prefix+p.Path]
		})
		r.addExport(exp, dir)
		names = append(names, exp.Names()...)
	}
	r.c.gate.AddNames(names...)
}

func (r *sourceReader) close() {
	for _, exp := range r.exports {
		exp.Close()
	}
}

// corpus is the corpus type a file has in this kind of source: a runbook
// directory makes its docs runbooks (but an architecture decision record,
// named or filed as one, stays a decision: an ops folder often keeps its
// decisions/ beside its runbooks), a Google Docs export directory makes
// everything a Google doc, a transcript directory everything a
// transcript.
func (r *sourceReader) corpus(f core.File) core.CorpusType {
	switch r.src.Kind {
	case core.SourceRunbookDir:
		switch f.Corpus {
		case core.DocReadme, core.DocGoogle:
			return core.DocRunbook
		}
		// Runbooks written in Word or exported from a wiki as HTML.
		switch strings.ToLower(path.Ext(f.Path)) {
		case ".docx", ".html", ".htm":
			return core.DocRunbook
		}
	case core.SourceGDocsDir:
		return core.DocGoogle
	case core.SourceTranscriptDir:
		return core.ConvoTranscript
	case core.SourceRepo:
		// A repository of runbooks (openshift/runbooks, a team's
		// oncall-playbooks) files them under docs/ or by alert: its
		// documents are runbooks, as a runbook folder's are.
		if f.Corpus == core.DocReadme && !f.Ruled && runbookRepo(r.src) {
			return core.DocRunbook
		}
	}
	return f.Corpus
}

// runbookRepo reports whether a repository's name or folder says it holds
// runbooks.
func runbookRepo(src core.Source) bool {
	for _, n := range []string{src.Name, filepath.Base(filepath.Clean(src.Path))} {
		n = strings.ToLower(n)
		if strings.Contains(n, "runbook") || strings.Contains(n, "playbook") {
			return true
		}
	}
	return false
}

// chunkingStamp ends every stored file hash: the chunking version
// (core.ChunkingVersion) the file was chunked by.
var chunkingStamp = core.ChunkingMarker + strconv.Itoa(core.ChunkingVersion)

// stamp marks a content hash with the chunking version.
func stamp(hash string) string { return hash + chunkingStamp }

// stampedAll reports whether every stored file was chunked by this
// core.ChunkingVersion.
func stampedAll(stored map[string]StoredFile) bool {
	for _, sf := range stored {
		if !strings.HasSuffix(sf.Hash, chunkingStamp) {
			return false
		}
	}
	return true
}

// unitHash is the content hash of one indexed unit (file or channel).
type unitHash struct{ path, hash string }

// fingerprint returns what identifies the source's content for the
// manifest: an export's hash over the paths and hashes of the channels
// indexed (units), a directory's newest file modification time among the
// files the walk found.
func (r *sourceReader) fingerprint(units []unitHash) (contentHash string, newestMTime int64) {
	if r.src.Kind != core.SourceSlackExport {
		newestMTime = r.exportMTime
		for _, f := range r.found.Files {
			newestMTime = max(newestMTime, f.ModTime)
		}
		return "", newestMTime
	}
	slices.SortFunc(units, func(a, b unitHash) int { return strings.Compare(a.path, b.path) })
	h := sha256.New()
	for _, u := range units {
		h.Write([]byte(u.path))
		h.Write([]byte{0})
		h.Write([]byte(u.hash))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), 0
}

// statUnchanged returns the stored record of f when f has its stored
// size and a trusted stored modification time: unchanged without reading.
func (r *sourceReader) statUnchanged(f core.File) (StoredFile, bool) {
	return statUnchanged(r.stored, f)
}

func statUnchanged(stored map[string]StoredFile, f core.File) (StoredFile, bool) {
	sf, ok := stored[f.Path]
	return sf, ok && sf.ModTime != 0 && sf.ModTime == f.ModTime && sf.Size == f.Size
}

// warmer compiles the chunking queries of each language with a file to
// chunk as soon as the walk finds the first such file, so that compiling
// (a third of a second for some grammars) overlaps the walk instead of
// following it. In an update, files unchanged by size and modification
// time do not count; those found before the stored list is read wait for
// it.
type warmer struct {
	prepare func(language string) // chunk.Prepare, run in its own goroutine

	mu     sync.Mutex
	ready  bool
	stored map[string]StoredFile
	early  []core.File
	warm   map[string]bool // languages being compiled
}

// newWarmer returns a warmer; an update's must be given the stored files
// (setStored) before it starts compiling.
func newWarmer(update bool) *warmer {
	return &warmer{prepare: chunk.Prepare, ready: !update, warm: map[string]bool{}}
}

// found is discover.Options.Found.
func (w *warmer) found(f core.File) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ready {
		w.early = append(w.early, f)
		return
	}
	w.check(f)
}

// setStored gives an update's warmer the stored files.
func (w *warmer) setStored(stored map[string]StoredFile) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stored, w.ready = stored, true
	for _, f := range w.early {
		w.check(f)
	}
	w.early = nil
}

// check starts compiling f's language unless it is compiling already or f
// is unchanged; w.mu is held.
func (w *warmer) check(f core.File) {
	if f.Language == "" || w.warm[f.Language] {
		return
	}
	if _, same := statUnchanged(w.stored, f); same {
		return
	}
	w.warm[f.Language] = true
	go w.prepare(f.Language)
}

// processSafely is process that turns a panic in a decoder, chunker or
// the scrub gate into a skip of that one file, named with the panic, so
// that a file coderag cannot read never stops the crawl nor loses the
// index: its chunks are not stored (an unscrubbed chunk never is), the
// other files are indexed.
func (r *sourceReader) processSafely(f core.File) (res fileResult) {
	defer func() {
		if p := recover(); p != nil {
			res = fileResult{file: f, skip: fmt.Sprintf("internal error, please report it: %v", p)}
		}
	}()
	return r.process(f)
}

// process reads, chunks and scrubs one unit. Problems with it become a
// skip reason; process never fails the crawl.
func (r *sourceReader) process(f core.File) fileResult {
	if u, ok := r.channels[f.Path]; ok {
		// A channel whose files hash as stored is not parsed.
		if sf, ok := r.stored[f.Path]; ok {
			if h, _ := u.exp.ChannelHash(u.ch); stamp(h) == sf.Hash {
				return fileResult{file: f, hash: sf.Hash, unchanged: true}
			}
		}
		return r.channel(f, u)
	}
	c := r.c
	res := fileResult{file: f}
	if sf, ok := r.statUnchanged(f); ok {
		return fileResult{file: f, hash: sf.Hash, unchanged: true}
	}
	if large, seg := streamed(f); large && r.corpus(f) != core.DocGoogle && r.corpus(f) != core.ConvoTranscript {
		return r.processLarge(f, seg)
	}
	data, err := fs.ReadFile(r.fsys, f.Path)
	if err != nil {
		res.skip = "unreadable: " + unwrapPathError(err)
		return res
	}
	// The hash is the file's bytes', even when its text is decoded below:
	// incremental crawls compare them.
	sum := sha256.Sum256(data)
	if sf, ok := r.stored[f.Path]; ok {
		if stamp(hex.EncodeToString(sum[:])) == sf.Hash {
			// Same content: the stored modification time is refreshed
			// so that the next crawl need not read the file.
			return fileResult{file: f, hash: sf.Hash, unchanged: true, touch: f.ModTime != 0 && f.ModTime != sf.ModTime}
		}
	}
	if int64(len(data)) > c.maxSize() {
		res.skip = fmt.Sprintf("larger than the size limit (%d bytes)", len(data))
		return res
	}
	f.Corpus = r.corpus(f)
	ext := strings.ToLower(path.Ext(f.Path))
	var doc *extract.Doc
	legacy := "" // a note for the crawl's warnings: a legacy encoding decoded, a notebook read as text
	// Documents exported from an editor (Google Docs, Word, a wiki) are
	// extracted to Markdown-shaped text.
	exported := f.Corpus == core.DocGoogle || f.Corpus == core.DocRunbook && r.src.Kind == core.SourceRunbookDir ||
		ext == ".docx" && (f.Corpus == core.DocReadme || f.Corpus == core.DocRunbook || f.Corpus == core.DocADR)
	if exported && ext == ".docx" {
		d, err := extract.DOCX(data)
		if err != nil {
			res.skip = err.Error()
			return res
		}
		doc, f.Language = &d, "docx"
	} else {
		if text, note, ok := discover.DecodeText(data); ok {
			data, legacy = text, note
		}
		var why string
		f, why = discover.Inspect(f, data)
		f.Corpus = r.corpus(f)
		if why != "" {
			res.skip = why
			return res
		}
		if f.Language == "jupyter" {
			// A notebook's cells as Markdown with fenced code; one that
			// does not parse is indexed as text, saying why.
			if d, err := extract.Notebook(data); err == nil {
				doc = &d
			} else {
				legacy = strings.TrimPrefix(legacy+"; indexed as text: "+err.Error(), "; ")
			}
		}
		if exported && (ext == ".html" || ext == ".htm") {
			d, err := extract.HTML(data)
			if err != nil {
				res.skip = err.Error()
				return res
			}
			doc = &d
		}
	}
	res.file = f
	res.hash = stamp(hex.EncodeToString(sum[:]))
	res.bytes = int64(len(data))
	base := core.Chunk{
		SourceURI: r.src.Name + "/" + f.Path,
		Corpus:    f.Corpus,
		FilePath:  f.Path,
		RepoName:  r.src.Name,
		Language:  f.Language,
	}
	var raw []core.Chunk
	var people []string // names the chunks are known to involve
	switch {
	case doc != nil:
		// Extracted documents: the chunks' ranges are in the extracted
		// text, which is what they hold.
		out := c.chunker.Markdown([]byte(doc.Text), base)
		for i := range out.Chunks {
			ch := &out.Chunks[i]
			if ch.Meta == nil {
				ch.Meta = map[string]string{}
			}
			ch.Meta["format"] = strings.TrimPrefix(ext, ".")
			if doc.Title != "" {
				ch.Meta["title"] = doc.Title
			}
		}
		raw = out.Chunks
	case f.Corpus == core.ConvoTranscript:
		t, err := convo.ParseTranscript(f.Path, data)
		switch {
		case err == nil:
			raw = convo.TranscriptChunks(t, base, c.opts.Convo)
			res.warning = strings.Join(t.Warnings, "; ")
			people = t.People()
		case errors.Is(err, convo.ErrNotTranscript):
			// Meeting notes without speaker turns: a document.
			if f.Language == "markdown" {
				raw = c.chunker.Markdown(data, base).Chunks
			} else {
				raw = chunk.Window(string(data), base, c.opts.Window)
			}
		default:
			res.skip = "transcript: " + err.Error()
			return res
		}
	default:
		// Each file with the structural chunker that fits it (code,
		// contracts, docs, deploy and config files), everything else in
		// windows.
		out, ok, err := c.chunker.File(data, base)
		if err != nil {
			res.skip = err.Error()
			return res
		}
		if ok {
			raw = out.Chunks
			res.mounts = out.Mounts
			res.warning = out.Warning
			if res.warning == "" && out.Fallback != "" {
				// Its chunker could not read it (syntax errors, not the
				// format its name says): windows, and the crawl says so.
				res.warning = "indexed as text: " + out.Fallback
			}
		} else {
			raw = chunk.Window(string(data), base, c.opts.Window)
		}
		chunk.AddEnvRefs(raw, f.Language)
	}
	if legacy != "" {
		res.warning = strings.TrimSuffix(legacy+"; "+res.warning, "; ")
	}
	raw, res.warning = capChunks(raw, c.maxChunks(), res.warning)
	return r.clean(res, raw, people...)
}

// channel chunks one conversation of a Slack export. The chunks of an
// export folder of a directory name their files from the directory's
// root.
func (r *sourceReader) channel(f core.File, u slackUnit) fileResult {
	base := core.Chunk{SourceURI: r.src.Name, RepoName: r.src.Name, Corpus: core.ConvoSlack}
	prefix := u.prefix
	if prefix != "" {
		base.SourceURI += "/" + strings.TrimSuffix(prefix, "/")
	}
	cr := u.exp.Channel(u.ch, base)
	res := fileResult{file: f, hash: stamp(cr.Hash), bytes: cr.Bytes}
	res.file.Size = cr.Bytes
	for _, p := range cr.Problems {
		res.problems = append(res.problems, discover.Skip{Path: prefix + p.Path, Reason: p.Reason})
	}
	for i := range cr.Chunks {
		cr.Chunks[i].FilePath = prefix + cr.Chunks[i].FilePath
	}
	return r.clean(res, cr.Chunks)
}

// clean passes raw chunks through the scrub gate. The sections of a
// changelog are marked release notes: it names its services in every
// section, and lists of what mentions a service put it after the rest.
func (r *sourceReader) clean(res fileResult, raw []core.Chunk, people ...string) fileResult {
	seen := make(map[string]bool, len(raw))
	notes := res.file.Corpus == core.DocReadme && core.IsReleaseNotes(res.file.Path)
	for _, rc := range raw {
		if notes {
			rc.Meta = maps.Clone(rc.Meta)
			if rc.Meta == nil {
				rc.Meta = map[string]string{}
			}
			rc.Meta["release_notes"] = "true"
		}
		if seen[rc.ID] {
			res.skip = fmt.Sprintf("two chunks with the same id (%s lines %d-%d): a chunker bug, please report it", rc.SourceURI, rc.LineStart, rc.LineEnd)
			res.chunks = nil
			return res
		}
		seen[rc.ID] = true
		cc, err := r.c.gate.Clean(rc, people...)
		if err != nil {
			res.skip = err.Error()
			res.chunks = nil
			return res
		}
		res.chunks = append(res.chunks, embed.Chunk{Clean: cc})
	}
	return res
}
