// Package convo reads conversations — Slack exports and meeting
// transcripts — and cuts them into chunks that keep a conversation's unit
// of meaning together: a Slack thread, a burst of channel messages, a run
// of speaker turns. It never cuts inside a message.
package convo

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"html"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// Problem is a part of a source that could not be read, and why. The rest
// of the source is still indexed.
type Problem struct {
	Path   string
	Reason string
}

// Options configure the conversation chunkers. The zero value uses the
// defaults.
type Options struct {
	// Budget is the token budget of a Slack chunk (default 512): a longer
	// thread is cut between messages.
	Budget int
	// TurnBudget is the token budget of a transcript chunk (default 400).
	TurnBudget int
	// Gap starts a new chunk of channel messages when nobody wrote for
	// this long (default 30 minutes).
	Gap time.Duration
	// MaxFileSize bounds one file of an export, zipped or not (default
	// 64 MB); larger files are reported and skipped.
	MaxFileSize int64
}

func (o Options) withDefaults() Options {
	if o.Budget <= 0 {
		o.Budget = 512
	}
	if o.TurnBudget <= 0 {
		o.TurnBudget = 400
	}
	if o.Gap <= 0 {
		o.Gap = 30 * time.Minute
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = 64 << 20
	}
	return o
}

// SlackUser is a member of the exported workspace.
type SlackUser struct {
	ID, Name, RealName, DisplayName string
	Bot                             bool
}

// Handle is how coderag names the user: the display name, else the
// account name, else the real name, else the id.
func (u SlackUser) Handle() string {
	for _, s := range []string{u.DisplayName, u.Name, u.RealName, u.ID} {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return "unknown"
}

// SlackChannel is a conversation of the export: a public or private
// channel, a direct message or a group direct message.
type SlackChannel struct {
	ID, Name string
	// Kind is "channel", "private", "dm" or "mpim".
	Kind           string
	Topic, Purpose string
	// Files are the export's files holding the channel's messages, in
	// order: the day files of its folder, or one JSON file of messages.
	Files []string
	// filter keeps only messages whose channel_name is Name (a single JSON
	// file holding several channels).
	filter bool
}

// SlackExport is an opened Slack export: the standard export directory
// (channels.json, users.json, one folder per conversation with a
// YYYY-MM-DD.json file per day), the same as a .zip, or one JSON array of
// messages.
type SlackExport struct {
	Users    map[string]SlackUser
	Channels []SlackChannel
	// Problems are the parts of the export that could not be read.
	Problems []Problem

	fsys   fs.FS
	closer io.Closer
	opts   Options
	names  map[string]string // channel id -> name
	// meta hashes the user and channel lists, which the chunks' author
	// and channel names come from: every channel's hash includes it.
	meta []byte
	// metaRead are the export's metadata files at its root: the user
	// and channel lists and the others it keeps (metaFiles).
	metaRead []string
}

// Files returns the files of the export: its metadata files (users,
// channel lists, integration logs, ...) and the files of its
// conversations, sorted. Other files in its folder are not part of it.
func (e *SlackExport) Files() []string {
	out := slices.Clone(e.metaRead)
	for _, ch := range e.Channels {
		out = append(out, ch.Files...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The export's metadata files; every other .json at the root is a channel
// if it holds an array of messages.
var metaFiles = map[string]string{
	"users.json": "", "channels.json": "channel", "groups.json": "private", "dms.json": "dm", "mpims.json": "mpim",
	"integration_logs.json": "", "canvases.json": "", "org_users.json": "", "huddle_transcripts.json": "",
}

var dayFile = lazyre.New(`^\d{4}-\d{2}-\d{2}\.json$`)

// OpenSlack opens the Slack export at p: a directory, a .zip file or a
// single .json file of messages. Unreadable parts of the export become
// Problems; OpenSlack fails only when p is not a Slack export at all.
func OpenSlack(p string, opts Options) (*SlackExport, error) {
	e := &SlackExport{Users: map[string]SlackUser{}, opts: opts.withDefaults(), names: map[string]string{}}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("slack export: %w", err)
	}
	switch {
	case fi.IsDir():
		e.fsys = os.DirFS(p)
	case isZip(p):
		zr, err := zip.OpenReader(p)
		if err != nil {
			return nil, fmt.Errorf("slack export %s: not a readable zip archive: %w", p, err)
		}
		e.closer = zr
		// Entries whose names would leave the archive are dropped before
		// the reader indexes them (it would clean "../x" into "x").
		// Windows tools (PowerShell's Compress-Archive) write "\" between
		// folders: such names are read with "/" when every entry uses "\".
		backslashes := len(zr.File) > 0
		for _, f := range zr.File {
			backslashes = backslashes && !strings.Contains(f.Name, "/")
		}
		safe := zr.File[:0:0]
		for _, f := range zr.File {
			name := f.Name
			if backslashes {
				name = strings.ReplaceAll(name, `\`, "/")
			}
			if safeZipName(name) {
				f.Name = name
				safe = append(safe, f)
			} else {
				e.Problems = append(e.Problems, Problem{f.Name, "unsafe path in zip entry (ignored; nothing is extracted)"})
			}
		}
		zr.File = safe
		e.fsys = zr
	case strings.EqualFold(filepath.Ext(p), ".json"):
		e.fsys = singleFileFS{os.DirFS(filepath.Dir(p)), filepath.Base(p)}
	default:
		return nil, fmt.Errorf("slack export %s: want a directory, a .zip or a .json file", p)
	}
	if err := e.open(); err != nil {
		return nil, fmt.Errorf("slack export %s: %w", p, err)
	}
	return e, nil
}

// OpenSlackFS opens the Slack export folder at the root of fsys: an
// export found inside a repository or a folder of documents (ExportDirs).
// It fails only when fsys holds no Slack export at all.
func OpenSlackFS(fsys fs.FS, opts Options) (*SlackExport, error) {
	e := &SlackExport{Users: map[string]SlackUser{}, opts: opts.withDefaults(), names: map[string]string{}, fsys: fsys}
	if err := e.open(); err != nil {
		return nil, fmt.Errorf("slack export: %w", err)
	}
	return e, nil
}

// open finds the export inside e.fsys and reads its user and channel
// lists.
func (e *SlackExport) open() error {
	var dir string
	var outside []string
	e.fsys, dir, outside = exportRoot(e.fsys)
	for _, name := range outside {
		e.Problems = append(e.Problems, Problem{name, "outside the export folder " + dir + "/ (not read)"})
	}
	if err := e.load(); err != nil {
		e.Close()
		return err
	}
	return nil
}

// Close releases the export (the zip file).
func (e *SlackExport) Close() error {
	if e.closer != nil {
		return e.closer.Close()
	}
	return nil
}

func isZip(p string) bool {
	if strings.EqualFold(filepath.Ext(p), ".zip") {
		return true
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == "PK\x03\x04"
}

// safeZipName reports whether a zip entry name stays inside the archive
// root: no absolute paths, drive letters, backslashes or .. elements.
func safeZipName(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || (len(name) > 1 && name[1] == ':') {
		return false
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return false
		}
	}
	return true
}

// singleFileFS shows one file of a directory.
type singleFileFS struct {
	dir  fs.FS
	name string
}

func (s singleFileFS) Open(name string) (fs.File, error) {
	if name == "." || name == s.name {
		if name == "." {
			return s.dir.Open(".")
		}
		return s.dir.Open(name)
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (s singleFileFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	all, err := fs.ReadDir(s.dir, ".")
	if err != nil {
		return nil, err
	}
	for _, d := range all {
		if d.Name() == s.name {
			return []fs.DirEntry{d}, nil
		}
	}
	return nil, nil
}

// exportRoot finds the export inside what the user gave: the top level
// when it holds users.json or channels.json, else the one folder that
// does (many exports are wrapped in a folder, next to stray files). The
// entries left outside that folder are returned, to be reported.
func exportRoot(fsys fs.FS) (root fs.FS, dir string, outside []string) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return fsys, "", nil
	}
	has := func(dir string) bool {
		for _, m := range []string{"channels.json", "users.json"} {
			if _, err := fs.Stat(fsys, path.Join(dir, m)); err == nil {
				return true
			}
		}
		return false
	}
	if has(".") {
		return fsys, "", nil
	}
	var found []string
	for _, d := range ents {
		if d.IsDir() && has(d.Name()) {
			found = append(found, d.Name())
		}
	}
	if len(found) != 1 {
		return fsys, "", nil
	}
	sub, err := fs.Sub(fsys, found[0])
	if err != nil {
		return fsys, "", nil
	}
	for _, d := range ents {
		if d.Name() != found[0] {
			outside = append(outside, d.Name())
		}
	}
	return sub, found[0], outside
}

func (e *SlackExport) readFile(name string) ([]byte, error) {
	f, err := e.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, e.opts.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > e.opts.MaxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", e.opts.MaxFileSize)
	}
	return data, nil
}

type slackUserJSON struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	RealName string `json:"real_name"`
	IsBot    bool   `json:"is_bot"`
	Profile  struct {
		RealName    string `json:"real_name"`
		DisplayName string `json:"display_name"`
	} `json:"profile"`
}

type slackChannelJSON struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	User    string   `json:"user"` // the other member of a DM
	Members []string `json:"members"`
	Topic   struct {
		Value string `json:"value"`
	} `json:"topic"`
	Purpose struct {
		Value string `json:"value"`
	} `json:"purpose"`
}

func (e *SlackExport) load() error {
	ents, err := fs.ReadDir(e.fsys, ".")
	if err != nil {
		return err
	}
	known := false
	meta := sha256.New()
	defer func() { e.meta = meta.Sum(nil) }()
	if data, err := e.readFile("users.json"); err == nil {
		hashFile(meta, "users.json", data)
		e.metaRead = append(e.metaRead, "users.json")
		known = true
		var users []slackUserJSON
		if err := json.Unmarshal(data, &users); err != nil {
			e.Problems = append(e.Problems, Problem{"users.json", jsonError(data, err) + " (user ids stay unresolved)"})
		}
		for _, u := range users {
			real := u.Profile.RealName
			if real == "" {
				real = u.RealName
			}
			e.Users[u.ID] = SlackUser{ID: u.ID, Name: u.Name, RealName: real, DisplayName: u.Profile.DisplayName, Bot: u.IsBot}
		}
	}
	lists := map[string]SlackChannel{} // by folder name and by id
	for _, name := range []string{"channels.json", "groups.json", "dms.json", "mpims.json"} {
		data, err := e.readFile(name)
		if err != nil {
			continue
		}
		hashFile(meta, name, data)
		e.metaRead = append(e.metaRead, name)
		known = true
		var chans []slackChannelJSON
		if err := json.Unmarshal(data, &chans); err != nil {
			e.Problems = append(e.Problems, Problem{name, jsonError(data, err)})
			continue
		}
		for _, c := range chans {
			ch := SlackChannel{ID: c.ID, Name: c.Name, Kind: metaFiles[name], Topic: c.Topic.Value, Purpose: c.Purpose.Value}
			if ch.Name == "" {
				ch.Name = e.dmName(c)
			}
			lists[c.ID] = ch
			if c.Name != "" {
				lists[c.Name] = ch
			}
			e.names[c.ID] = ch.Name
		}
	}
	for _, d := range ents {
		name := d.Name()
		switch {
		case d.IsDir() && name == "__MACOSX":
			e.Problems = append(e.Problems, Problem{name + "/", "macOS archive metadata (not part of the export)"})
		case d.IsDir():
			files, err := fs.ReadDir(e.fsys, name)
			if err != nil {
				e.Problems = append(e.Problems, Problem{name, "unreadable: " + err.Error()})
				continue
			}
			ch, ok := lists[name]
			if !ok {
				ch = SlackChannel{ID: name, Name: name, Kind: "channel"}
			}
			for _, f := range files {
				p := name + "/" + f.Name()
				switch {
				case f.IsDir():
					e.Problems = append(e.Problems, Problem{p + "/", "folder inside a channel folder (not part of the export format)"})
				case dayFile.MatchString(f.Name()):
					ch.Files = append(ch.Files, p)
				default:
					e.Problems = append(e.Problems, Problem{p, "not a YYYY-MM-DD.json day file"})
				}
			}
			if len(ch.Files) > 0 {
				sort.Strings(ch.Files)
				e.Channels = append(e.Channels, ch)
				known = true
			}
		case strings.EqualFold(path.Ext(name), ".json"):
			if _, ok := metaFiles[strings.ToLower(name)]; ok {
				// Part of the export (integration logs, canvases, ...)
				// whether read or not.
				e.metaRead = append(e.metaRead, name)
				continue
			}
			chans, err := e.singleFile(name)
			if err != nil {
				e.Problems = append(e.Problems, Problem{name, err.Error()})
				continue
			}
			e.Channels = append(e.Channels, chans...)
			known = known || len(chans) > 0
		}
	}
	if !known {
		return errors.New("not a Slack export: no users.json, channels.json, channel folders of YYYY-MM-DD.json files or JSON arrays of messages")
	}
	sort.SliceStable(e.Channels, func(i, j int) bool { return e.Channels[i].Name < e.Channels[j].Name })
	return nil
}

func (e *SlackExport) dmName(c slackChannelJSON) string {
	members := c.Members
	if len(members) == 0 && c.User != "" {
		members = []string{c.User}
	}
	var hs []string
	for _, m := range members {
		hs = append(hs, e.handle(m, ""))
	}
	if len(hs) == 0 {
		return c.ID
	}
	return "dm-" + strings.Join(hs, "-")
}

// singleFile reads a root-level JSON array of messages: one channel named
// after the file, or one per channel_name/channel field when the
// messages carry one.
func (e *SlackExport) singleFile(name string) ([]SlackChannel, error) {
	data, err := e.readFile(name)
	if err != nil {
		return nil, fmt.Errorf("unreadable: %w", err)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '[' {
		return nil, errors.New("not a JSON array of messages (not part of a Slack export)")
	}
	var msgs []struct {
		TS          string `json:"ts"`
		ChannelName string `json:"channel_name"`
		Channel     string `json:"channel"`
	}
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, errors.New(jsonError(data, err))
	}
	var chans []SlackChannel
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.TS == "" {
			return nil, errors.New("not a JSON array of Slack messages (no ts)")
		}
		c := m.ChannelName
		if c == "" {
			c = m.Channel
		}
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		chans = append(chans, SlackChannel{ID: c, Name: e.channelName(c), Kind: "channel", Files: []string{name}, filter: true})
	}
	if len(chans) == 0 {
		stem := strings.TrimSuffix(name, path.Ext(name))
		chans = []SlackChannel{{ID: stem, Name: stem, Kind: "channel", Files: []string{name}}}
	}
	return chans, nil
}

func (e *SlackExport) channelName(id string) string {
	if n, ok := e.names[id]; ok {
		return n
	}
	return id
}

// Names returns the real and display names of the workspace's people, for
// the scrub gate's person-name detector.
func (e *SlackExport) Names() []string {
	var out []string
	for _, u := range e.Users {
		if u.Bot {
			continue
		}
		out = append(out, u.RealName)
	}
	sort.Strings(out)
	return out
}

func (e *SlackExport) handle(id, fallback string) string {
	if u, ok := e.Users[id]; ok {
		return u.Handle()
	}
	if fallback != "" {
		return fallback
	}
	if id == "" {
		return "unknown"
	}
	return id
}

// jsonError describes a JSON error with the line it happened on.
func jsonError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Sprintf("invalid JSON at line %d: the file ends in the middle of a value (truncated?)", bytes.Count(data, []byte("\n"))+1)
	}
	if off >= 0 && off <= int64(len(data)) {
		return fmt.Sprintf("invalid JSON at line %d: %v", bytes.Count(data[:off], []byte("\n"))+1, err)
	}
	return "invalid JSON: " + err.Error()
}

// slackMsg is a message as the export stores it.
type slackMsg struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	User        string `json:"user"`
	BotID       string `json:"bot_id"`
	Username    string `json:"username"`
	Text        string `json:"text"`
	TS          string `json:"ts"`
	ThreadTS    string `json:"thread_ts"`
	ReplyCount  int    `json:"reply_count"`
	DeletedTS   string `json:"deleted_ts"`
	ChannelName string `json:"channel_name"`
	Channel     string `json:"channel"`
	UserProfile *struct {
		RealName    string `json:"real_name"`
		DisplayName string `json:"display_name"`
		Name        string `json:"name"`
	} `json:"user_profile"`
	BotProfile *struct {
		Name string `json:"name"`
	} `json:"bot_profile"`
	Files []struct {
		Name  string `json:"name"`
		Title string `json:"title"`
	} `json:"files"`
	Attachments []struct {
		Fallback string `json:"fallback"`
		Pretext  string `json:"pretext"`
		Title    string `json:"title"`
		Text     string `json:"text"`
	} `json:"attachments"`
	Edited *struct {
		User string `json:"user"`
		TS   string `json:"ts"`
	} `json:"edited"`
	Message *slackMsg `json:"message"`
}

// message is a message placed in its file.
type message struct {
	slackMsg
	file              string
	start, end        int // byte range of the message object in file
	line, lineEnd     int
	at                time.Time
	author, text      string
	mentions, links   []string
	edited, broadcast bool
}

// noise are subtypes that say nothing about the work.
var noise = map[string]bool{
	"channel_join": true, "channel_leave": true, "group_join": true, "group_leave": true,
	"bot_add": true, "bot_remove": true, "channel_archive": true, "channel_unarchive": true,
	"pinned_item": true, "unpinned_item": true, "reminder_add": true, "sh_room_created": true,
}

// ChannelResult is what one conversation of an export yields.
type ChannelResult struct {
	Chunks   []core.Chunk
	Problems []Problem
	// Hash is the hex SHA-256 of the channel's files (and of the export's
	// user and channel lists); Bytes the files' size.
	Hash     string
	Bytes    int64
	Messages int
}

// hashFile adds a file's name and content to h.
func hashFile(h hash.Hash, name string, data []byte) {
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(data)
}

// readChannel reads ch's files, hashing them after the export's user and
// channel lists, and gives each readable one to each (when not nil).
func (e *SlackExport) readChannel(ch SlackChannel, each func(name string, data []byte)) (hash string, size int64, problems []Problem) {
	h := sha256.New()
	h.Write(e.meta)
	for _, f := range ch.Files {
		data, err := e.readFile(f)
		if err != nil {
			problems = append(problems, Problem{f, "unreadable: " + err.Error()})
			continue
		}
		hashFile(h, f, data)
		size += int64(len(data))
		if each != nil {
			each(f, data)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), size, problems
}

// ChannelHash returns what Channel would return as ch's Hash and Bytes
// by reading its files without parsing them: an incremental crawl skips a
// channel whose hash it has stored. The hash covers the export's user and
// channel lists too, since names in the chunks come from them.
func (e *SlackExport) ChannelHash(ch SlackChannel) (hash string, size int64) {
	hash, size, _ = e.readChannel(ch, nil)
	return hash, size
}

// Channel reads ch's messages and cuts them into chunks: each thread
// (grouped by thread_ts across day files) is a chunk, cut between
// messages when it is over the budget; other messages are grouped into
// conversation chunks that end at a silence longer than Options.Gap or at
// the budget. base supplies SourceURI (the source name), RepoName and
// Corpus.
func (e *SlackExport) Channel(ch SlackChannel, base core.Chunk) ChannelResult {
	var res ChannelResult
	var msgs []*message
	var parseProblems []Problem
	res.Hash, res.Bytes, res.Problems = e.readChannel(ch, func(f string, data []byte) {
		got, err := e.parseDay(f, data, ch)
		msgs = append(msgs, got...)
		if err != nil {
			reason := err.Error()
			if len(got) > 0 {
				reason += fmt.Sprintf(" (the %d messages before it are indexed)", len(got))
			}
			parseProblems = append(parseProblems, Problem{f, reason})
		}
	})
	res.Problems = append(res.Problems, parseProblems...)
	msgs = applyEdits(msgs)
	res.Messages = len(msgs)
	for _, m := range msgs {
		e.render(m)
	}
	res.Chunks = e.chunks(ch, msgs, base)
	return res
}

// parseDay decodes one file's array of messages, keeping where each
// message is. On a syntax error it returns the messages before it.
func (e *SlackExport) parseDay(file string, data []byte, ch SlackChannel) ([]*message, error) {
	lines := lineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, errors.New(jsonError(data, err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, errors.New("not a JSON array of messages")
	}
	var out []*message
	for dec.More() {
		start := int(dec.InputOffset())
		var m slackMsg
		err := dec.Decode(&m)
		end := int(dec.InputOffset())
		for start < end && (data[start] == ',' || isSpace(data[start])) {
			start++
		}
		if err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				// The value was consumed; report it and go on.
				return out, fmt.Errorf("message at line %d: %s", lines.line(start), jsonError(data, err))
			}
			return out, errors.New(jsonError(data, err))
		}
		if m.Type != "" && m.Type != "message" || m.TS == "" {
			continue
		}
		if ch.filter && m.ChannelName != ch.ID && m.Channel != ch.ID {
			continue
		}
		at, ok := parseTS(m.TS)
		if !ok {
			return out, fmt.Errorf("message at line %d: bad ts %q", lines.line(start), m.TS)
		}
		out = append(out, &message{slackMsg: m, file: file, start: start, end: end, line: lines.line(start), lineEnd: lines.line(end - 1), at: at})
	}
	if _, err := dec.Token(); err != nil {
		return out, errors.New(jsonError(data, err))
	}
	return out, nil
}

// parseTS reads a Slack timestamp ("1710424931.000100").
func parseTS(ts string) (time.Time, bool) {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || s < 0 {
		return time.Time{}, false
	}
	var us int64
	if frac != "" {
		f := (frac + "000000")[:6]
		if us, err = strconv.ParseInt(f, 10, 64); err != nil {
			return time.Time{}, false
		}
	}
	return time.Unix(s, us*1000).UTC(), true
}

// applyEdits applies message_changed and message_deleted events, drops
// noise (joins, leaves) and sorts the messages by time.
func applyEdits(msgs []*message) []*message {
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].at.Before(msgs[j].at) })
	byTS := map[string]*message{}
	var out []*message
	for _, m := range msgs {
		switch {
		case noise[m.Subtype]:
			continue
		case m.Subtype == "message_changed" && m.Message != nil:
			if orig, ok := byTS[m.Message.TS]; ok {
				orig.Text, orig.Files, orig.Attachments, orig.edited = m.Message.Text, m.Message.Files, m.Message.Attachments, true
				continue
			}
			// The original is not in the export: keep the new version.
			nm := *m
			nm.slackMsg = *m.Message
			nm.edited = true
			if nm.TS == "" {
				continue
			}
			m = &nm
		case m.Subtype == "message_deleted":
			if orig, ok := byTS[m.DeletedTS]; ok {
				orig.Text, orig.Files, orig.Attachments = "", nil, nil
				orig.Subtype = "deleted"
			}
			continue
		}
		if prev, ok := byTS[m.TS]; ok {
			// The same message twice (a thread_broadcast copy): keep one.
			if m.Subtype == "thread_broadcast" {
				prev.broadcast = true
			}
			continue
		}
		if m.Subtype == "thread_broadcast" {
			m.broadcast = true
		}
		byTS[m.TS] = m
		out = append(out, m)
	}
	kept := out[:0]
	for _, m := range out {
		if m.Subtype != "deleted" {
			kept = append(kept, m)
		}
	}
	return kept
}

var (
	slackRef = lazyre.New(`<([^<>\n]{1,600})>`)
	urlRE    = lazyre.New(`https?://[^\s<>|"]+`)
)

// render resolves the message's author, mentions, channel references and
// links, and adds its files and attachments.
func (e *SlackExport) render(m *message) {
	switch {
	case m.Subtype == "bot_message" || (m.User == "" && m.BotID != ""):
		m.author = m.Username
		if m.author == "" && m.BotProfile != nil {
			m.author = m.BotProfile.Name
		}
		if m.author == "" {
			m.author = e.handle(m.BotID, "bot")
		}
	default:
		fallback := ""
		if p := m.UserProfile; p != nil {
			fallback = SlackUser{Name: p.Name, RealName: p.RealName, DisplayName: p.DisplayName}.Handle()
			if fallback == "unknown" {
				fallback = ""
			}
		}
		m.author = e.handle(m.User, fallback)
	}
	text := e.resolve(m, m.Text)
	var extra []string
	for _, a := range m.Attachments {
		t := strings.TrimSpace(strings.Join(nonEmpty(a.Pretext, a.Title, a.Text), " — "))
		if t == "" {
			t = strings.TrimSpace(a.Fallback)
		}
		if t = e.resolve(m, t); t != "" && !strings.Contains(text, t) {
			extra = append(extra, "> "+t)
		}
	}
	for _, f := range m.Files {
		name := f.Title
		if name == "" {
			name = f.Name
		}
		if name != "" {
			extra = append(extra, "[file: "+name+"]")
		}
	}
	if len(extra) > 0 {
		if text != "" {
			text += "\n"
		}
		text += strings.Join(extra, "\n")
	}
	if m.Subtype == "me_message" {
		text = "* " + m.author + " " + text
	}
	if m.edited {
		text += " (edited)"
	}
	m.text = strings.TrimSpace(text)
}

// resolve turns Slack markup into plain text: <@U123> into @handle,
// <#C123|name> into #name, <url|label> into "label (url)", and HTML
// entities into characters; it collects mentions and links on m.
func (e *SlackExport) resolve(m *message, s string) string {
	text := slackRef.ReplaceAllStringFunc(s, func(s string) string {
		inner := s[1 : len(s)-1]
		target, label, hasLabel := strings.Cut(inner, "|")
		switch {
		case strings.HasPrefix(target, "@"):
			h := "@" + e.handle(target[1:], label)
			m.mentions = appendUnique(m.mentions, h)
			return h
		case strings.HasPrefix(target, "#"):
			if hasLabel && label != "" {
				return "#" + label
			}
			return "#" + e.channelName(target[1:])
		case strings.HasPrefix(target, "!subteam^"):
			if hasLabel {
				return label
			}
			return "@group"
		case strings.HasPrefix(target, "!date^"):
			return label
		case strings.HasPrefix(target, "!"):
			return "@" + strings.TrimPrefix(target, "!")
		case strings.HasPrefix(target, "mailto:"):
			if hasLabel {
				return label
			}
			return strings.TrimPrefix(target, "mailto:")
		case strings.Contains(target, "://"):
			m.links = appendUnique(m.links, target)
			if !hasLabel || label == "" || strings.TrimPrefix(strings.TrimPrefix(target, "https://"), "http://") == label {
				return target
			}
			return label + " (" + target + ")"
		}
		return s
	})
	text = html.UnescapeString(text)
	for _, u := range urlRE.FindAllString(text, -1) {
		m.links = appendUnique(m.links, strings.TrimRight(u, ".,;:)"))
	}
	return text
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// conversation is a run of messages that becomes one or more chunks.
type conversation struct {
	thread string // root thread_ts; "" for channel messages
	root   *message
	msgs   []*message
}

func (e *SlackExport) chunks(ch SlackChannel, msgs []*message, base core.Chunk) []core.Chunk {
	threads := map[string]*conversation{}
	hasReplies := map[string]bool{}
	for _, m := range msgs {
		if m.ThreadTS != "" && m.ThreadTS != m.TS {
			hasReplies[m.ThreadTS] = true
		}
	}
	var convs []*conversation
	var cur *conversation
	var last time.Time
	for _, m := range msgs {
		if m.ThreadTS != "" && hasReplies[m.ThreadTS] {
			t, ok := threads[m.ThreadTS]
			if !ok {
				t = &conversation{thread: m.ThreadTS}
				threads[m.ThreadTS] = t
				convs = append(convs, t)
			}
			if m.TS == m.ThreadTS {
				t.root = m
			}
			t.msgs = append(t.msgs, m)
			continue
		}
		if cur == nil || m.at.Sub(last) > e.opts.Gap {
			cur = &conversation{}
			convs = append(convs, cur)
		}
		cur.msgs = append(cur.msgs, m)
		last = m.at
	}
	var out []core.Chunk
	for _, c := range convs {
		if c.root != nil && c.msgs[0] != c.root {
			// The root leads its thread even when a reply's clock was
			// earlier.
			rest := []*message{c.root}
			for _, m := range c.msgs {
				if m != c.root {
					rest = append(rest, m)
				}
			}
			c.msgs = rest
		}
		out = append(out, e.conversationChunks(ch, c, base)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Timestamp < out[j].Timestamp })
	return out
}

// line renders one message: "[2024-03-14 14:02] @alice: text", the date
// only when it differs from the previous line's.
func line(m *message, prevDay string) string {
	day := m.at.Format("2006-01-02")
	stamp := m.at.Format("15:04")
	if day != prevDay {
		stamp = day + " " + stamp
	}
	s := "[" + stamp + "] @" + m.author + ": " + m.text
	if m.broadcast {
		s += " (also sent to the channel)"
	}
	return s
}

// conversationChunks cuts a conversation into chunks of whole messages up
// to the budget. A thread's later parts start with its root message
// (shortened) so that they still say what the thread is about.
func (e *SlackExport) conversationChunks(ch SlackChannel, c *conversation, base core.Chunk) []core.Chunk {
	budget := e.opts.Budget
	var out []core.Chunk
	var part []*message
	var lines []string
	tokens := 0
	rootLine := ""
	if c.thread != "" {
		if c.root != nil {
			r := c.root.text
			if len(r) > 300 {
				r = cutUTF8(r, 300) + "…"
			}
			rootLine = "(thread of @" + c.root.author + ", " + c.root.at.Format("2006-01-02 15:04") + ": " + r + ")"
		} else {
			rootLine = "(replies to a thread whose first message is not in the export)"
		}
	}
	flush := func() {
		if len(part) == 0 {
			return
		}
		out = append(out, e.chunk(ch, c, part, strings.Join(lines, "\n"), base))
		part, lines, tokens = nil, nil, 0
	}
	prevDay := ""
	for _, m := range c.msgs {
		l := line(m, prevDay)
		t := core.EstimateTokens(l)
		if len(part) > 0 && tokens+t > budget {
			flush()
			prevDay = ""
			l = line(m, prevDay)
			t = core.EstimateTokens(l)
		}
		if len(part) == 0 && c.thread != "" && (c.root == nil || m != c.root) {
			lines = append(lines, rootLine)
			tokens += core.EstimateTokens(rootLine)
		}
		part = append(part, m)
		lines = append(lines, l)
		tokens += t
		prevDay = m.at.Format("2006-01-02")
	}
	flush()
	return out
}

func (e *SlackExport) chunk(ch SlackChannel, c *conversation, part []*message, text string, base core.Chunk) core.Chunk {
	first, last := part[0], part[len(part)-1]
	k := base
	k.Corpus = core.ConvoSlack
	k.Channel = ch.Name
	k.ThreadID = c.thread
	k.Text = text
	k.Author = first.author
	if c.root != nil {
		k.Author = c.root.author
	}
	k.Timestamp = first.at.Format(time.RFC3339)
	uri := base.SourceURI + "/#" + ch.Name + "/p" + strings.ReplaceAll(first.TS, ".", "")
	if c.thread != "" && first.TS != c.thread {
		uri += "?thread_ts=" + c.thread
	}
	k.SourceURI = uri
	k.FilePath = first.file
	k.ByteStart, k.ByteEnd = first.start, first.end
	k.LineStart, k.LineEnd = first.line, first.lineEnd
	for _, m := range part[1:] {
		if m.file == first.file {
			k.LineStart, k.LineEnd = min(k.LineStart, m.line), max(k.LineEnd, m.lineEnd)
		}
	}
	k.ID = core.ChunkID(k.SourceURI, k.ByteStart, k.ByteEnd)
	k.ContextPrefix = "#" + ch.Name + " > @" + k.Author + " > " + k.Timestamp
	k.SymbolKind = "messages"
	if c.thread != "" {
		k.SymbolKind = "thread"
	}
	var people, mentions, links []string
	for _, m := range part {
		people = appendUnique(people, m.author)
		for _, x := range m.mentions {
			mentions = appendUnique(mentions, x)
		}
		for _, x := range m.links {
			links = appendUnique(links, x)
		}
	}
	k.Meta = map[string]string{
		"participants": strings.Join(people, ", "),
		"messages":     strconv.Itoa(len(part)),
		"last":         last.at.Format(time.RFC3339),
	}
	if len(mentions) > 0 {
		k.Meta["mentions"] = strings.Join(mentions, ", ")
	}
	if len(links) > 0 {
		if len(links) > 20 {
			links = links[:20]
		}
		k.Meta["links"] = strings.Join(links, " ")
	}
	if c.thread != "" {
		k.Meta["replies"] = strconv.Itoa(len(c.msgs) - 1)
	}
	if ch.Kind != "" && ch.Kind != "channel" {
		k.Meta["conversation"] = ch.Kind
	}
	return k
}

func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lines maps byte offsets to 1-based line numbers.
type lines []int

func lineIndex(data []byte) lines {
	var l lines
	for i, c := range data {
		if c == '\n' {
			l = append(l, i)
		}
	}
	return l
}

func (l lines) line(off int) int { return sort.SearchInts(l, off) + 1 }

// ExportDirs returns the folders among paths (slash-separated file paths
// of a walk) that hold a Slack export: users.json, a channel list
// (channels.json, groups.json, dms.json or mpims.json) and a channel
// folder with a YYYY-MM-DD.json day file. A repository or a folder of
// documents keeps an export's JSON as it came; read as configuration it
// would index raw message records and members' names unscrubbed. An
// export inside another is part of it: only the outermost is returned,
// sorted.
func ExportDirs(paths []string) []string {
	users, lists, days := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range paths {
		dir, name := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		switch {
		case name == "users.json":
			users[dir] = true
		case metaFiles[name] != "":
			lists[dir] = true
		case dayFile.MatchString(name) && dir != ".":
			days[path.Dir(dir)] = true
		}
	}
	var out []string
	for dir := range users {
		if lists[dir] && days[dir] {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	kept := out[:0]
	for _, d := range out {
		inside := false
		for _, k := range kept {
			inside = inside || k == "." || strings.HasPrefix(d, k+"/")
		}
		if !inside {
			kept = append(kept, d)
		}
	}
	return kept
}
