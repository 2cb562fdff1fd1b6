package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"coderag/core"
)

// workspaceFile is the name of the workspace file a plain 'coderag crawl'
// reads from the current directory.
const workspaceFile = "coderag.yaml"

const workspaceHelp = `Workspace file: a coderag.yaml in the current directory (or the file given
with --config) lists the sources, so that a plain 'coderag crawl' (from cron
or CI) crawls them; paths are relative to the file, ~ is the home directory:

  db: data/coderag.db          # used when --db is not given
  embedder: builtin            # used when --embedder is not given
  exclude: ["**/testdata/**"]  # added to --exclude
  sources:
    - repo: ../platform
    - repo: ../web
      name: storefront
    - slack: ~/exports/acme-slack.zip
    - transcripts: ~/meetings
    - runbooks: ops/runbooks
    - gdocs: design-docs

Source flags on the command line replace the file's sources. Without
either, crawl re-crawls the sources the database holds.`

// workspace is a parsed workspace file.
type workspace struct {
	path     string            // the file
	DB       string            `yaml:"db"`
	Embedder string            `yaml:"embedder"`
	Exclude  []string          `yaml:"exclude"`
	Sources  []workspaceSource `yaml:"sources"`
}

// workspaceSource is one entry of a workspace's sources: one of the kinds
// with its path, and an optional name.
type workspaceSource struct {
	Repo        string `yaml:"repo"`
	Slack       string `yaml:"slack"`
	Transcripts string `yaml:"transcripts"`
	Runbooks    string `yaml:"runbooks"`
	GDocs       string `yaml:"gdocs"`
	Name        string `yaml:"name"`
	line        int
}

// UnmarshalYAML keeps the entry's line for messages and refuses keys it
// does not know (the decoder's KnownFields does not reach here).
func (s *workspaceSource) UnmarshalYAML(n *yaml.Node) error {
	type plain workspaceSource
	s.line = n.Line
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			switch k := n.Content[i]; k.Value {
			case "repo", "slack", "transcripts", "runbooks", "gdocs", "name":
			default:
				return fmt.Errorf("line %d: unknown key %q in a source (want repo, slack, transcripts, runbooks, gdocs or name)", k.Line, k.Value)
			}
		}
	}
	return n.Decode((*plain)(s))
}

// loadWorkspace reads the workspace file: path when given (it must
// exist), else coderag.yaml in the current directory when there is one;
// nil when there is none.
func loadWorkspace(path string) (*workspace, error) {
	explicit := path != ""
	if !explicit {
		path = workspaceFile
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	ws := &workspace{path: path}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(ws); err != nil && !errors.Is(err, io.EOF) {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
		msg = strings.ReplaceAll(msg, "field ", "unknown key ")
		msg = strings.ReplaceAll(msg, " not found in type main.workspace", " (want db, embedder, exclude or sources)")
		return nil, usagef("%s: %s", path, msg)
	}
	dir := filepath.Dir(path)
	if ws.DB != "" && isFilePath(ws.DB) {
		ws.DB = ws.resolve(dir, ws.DB)
	}
	return ws, nil
}

// resolve makes a path of the file absolute: ~ is the home directory,
// relative paths are relative to the file's directory.
func (ws *workspace) resolve(dir, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}

// sources turns the file's entries into crawl sources.
func (ws *workspace) sources() ([]core.Source, error) {
	var l sourceList
	dir := filepath.Dir(ws.path)
	for _, e := range ws.Sources {
		var kind core.SourceKind
		var key, p string
		n := 0
		for _, k := range []struct {
			kind core.SourceKind
			key  string
			path string
		}{
			{core.SourceRepo, "repo", e.Repo},
			{core.SourceSlackExport, "slack", e.Slack},
			{core.SourceTranscriptDir, "transcripts", e.Transcripts},
			{core.SourceRunbookDir, "runbooks", e.Runbooks},
			{core.SourceGDocsDir, "gdocs", e.GDocs},
		} {
			if k.path != "" {
				kind, key, p = k.kind, k.key, k.path
				n++
			}
		}
		if n != 1 {
			return nil, usagef("%s line %d: a source needs exactly one of repo, slack, transcripts, runbooks or gdocs", ws.path, e.line)
		}
		where := fmt.Sprintf("%s line %d (%s: %s)", ws.path, e.line, key, p)
		if err := l.add(kind, where, ws.resolve(dir, p), e.Name); err != nil {
			return nil, err
		}
	}
	return l.sources, nil
}
