package convo

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"coderag/core"
)

var update = flag.Bool("update", false, "update golden files")

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", p, d)
	}
}

// render prints chunks with every field the store and the TUI use.
func render(chunks []core.Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		fmt.Fprintf(&b, "--- %s (%d tokens)\n", c.SourceURI, core.EstimateTokens(c.Text))
		fmt.Fprintf(&b, "prefix: %s\n", c.ContextPrefix)
		fmt.Fprintf(&b, "file: %s lines %d-%d bytes %d-%d\n", c.FilePath, c.LineStart, c.LineEnd, c.ByteStart, c.ByteEnd)
		fmt.Fprintf(&b, "corpus %s kind %s author %q timestamp %q channel %q thread %q\n",
			c.Corpus, c.SymbolKind, c.Author, c.Timestamp, c.Channel, c.ThreadID)
		keys := make([]string, 0, len(c.Meta))
		for k := range c.Meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "meta %s: %s\n", k, c.Meta[k])
		}
		b.WriteString(c.Text)
		b.WriteString("\n\n")
	}
	return b.String()
}

func checkChunks(t *testing.T, chunks []core.Chunk) {
	t.Helper()
	ids := map[string]bool{}
	for _, c := range chunks {
		if c.ID != core.ChunkID(c.SourceURI, c.ByteStart, c.ByteEnd) {
			t.Errorf("%s: id is not ChunkID(uri, range)", c.SourceURI)
		}
		if ids[c.ID] {
			t.Errorf("%s: duplicate id", c.SourceURI)
		}
		ids[c.ID] = true
		if strings.TrimSpace(c.Text) == "" || c.LineStart < 1 || c.LineEnd < c.LineStart || c.ByteEnd <= c.ByteStart {
			t.Errorf("%s: empty text or bad range lines %d-%d bytes %d-%d", c.SourceURI, c.LineStart, c.LineEnd, c.ByteStart, c.ByteEnd)
		}
	}
}

func renderExport(t *testing.T, e *SlackExport) string {
	t.Helper()
	var b strings.Builder
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "problem %s: %s\n", p.Path, p.Reason)
	}
	for _, ch := range e.Channels {
		res := e.Channel(ch, core.Chunk{SourceURI: "acme", RepoName: "acme"})
		checkChunks(t, res.Chunks)
		fmt.Fprintf(&b, "\n=== #%s (%s, id %s): %d messages, %d chunks, files %s\n", ch.Name, ch.Kind, ch.ID, res.Messages,
			len(res.Chunks), strings.Join(ch.Files, " "))
		for _, p := range res.Problems {
			fmt.Fprintf(&b, "problem %s: %s\n", p.Path, p.Reason)
		}
		b.WriteString(render(res.Chunks))
	}
	return b.String()
}

// TestSlackGolden reads the fixture export: threads across day files,
// joins dropped, edits and deletions applied, bots, broadcasts, mentions,
// links, private channels and DMs, a malformed day file and a stray file.
func TestSlackGolden(t *testing.T) {
	e, err := OpenSlack(filepath.Join("testdata", "slack"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := renderExport(t, e)
	golden(t, "slack.golden", got)

	for _, want := range []string{
		"problem general/2024-05-04.json: invalid JSON at line 3", // the malformed day, with its line
		"(the 1 messages before it are indexed)",
		"problem general/notes.txt: not a YYYY-MM-DD.json day file",
		"@tom.k: Follow-up: the migration ran without", // the thread's reply from the next day
		"yes, it runs in the `batch` namespace every 15 minutes (edited)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, gone := range []string{"has joined the channel", "oops wrong channel", "<@U", "&amp;"} {
		if strings.Contains(got, gone) {
			t.Errorf("output holds %q", gone)
		}
	}
	if names := e.Names(); strings.Join(names, ",") != "Maria Lopez,Priya Natarajan,Tom Kerr" {
		t.Errorf("Names() = %v, want the people (not the bot)", names)
	}
}

// TestSlackZip reads the same export zipped inside a folder, refusing
// entries that would leave the archive and never writing anything.

// zipSample writes testdata/slack into a zip at zpath, each file under
// the entry name name(rel) (rel slash-separated), then the extra entries
// (each a JSON array holding one message that says "escaped").
func zipSample(t *testing.T, zpath string, name func(rel string) string, extra ...string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(zpath), 0o755)
	f, err := os.Create(zpath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	root := filepath.Join("testdata", "slack")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		w, _ := zw.Create(name(filepath.ToSlash(rel)))
		data, _ := os.ReadFile(p)
		w.Write(data)
		return nil
	})
	for _, e := range extra {
		w, _ := zw.Create(e)
		w.Write([]byte(`[{"type":"message","user":"U1","text":"escaped","ts":"1.0"}]`))
	}
	zw.Close()
	f.Close()
}

// sameAsFolder checks that got, an export rendered by renderExport, has
// the chunks of testdata/slack read as a folder.
func sameAsFolder(t *testing.T, what, got string) {
	t.Helper()
	d, err := OpenSlack(filepath.Join("testdata", "slack"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	want := renderExport(t, d)
	if i := strings.Index(got, "\n==="); i < 0 || got[i:] != want[strings.Index(want, "\n==="):] {
		t.Errorf("%s differs from the folder:\n%s", what, cmp.Diff(want, got))
	}
}

func TestSlackZip(t *testing.T) {
	dir := t.TempDir()
	zpath := filepath.Join(dir, "sub", "acme-export.zip")
	zipSample(t, zpath, func(rel string) string { return "acme-export/" + rel },
		"../evil.json", "/tmp/abs.json", `acme-export\..\win.json`)

	e, err := OpenSlack(zpath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := renderExport(t, e)
	for _, evil := range []string{"../evil.json", "/tmp/abs.json", `acme-export\..\win.json`} {
		if !strings.Contains(got, "problem "+evil+": unsafe path in zip entry") {
			t.Errorf("no problem reported for zip entry %s", evil)
		}
	}
	if strings.Contains(got, "escaped") {
		t.Error("a message from an unsafe zip entry was read")
	}
	// The zip yields the same chunks as the folder.
	sameAsFolder(t, "zipped export", got)
	for _, p := range []string{filepath.Join(dir, "evil.json"), "/tmp/abs.json", filepath.Join(dir, "sub", "win.json")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestSlackWrappedFolder reads an export wrapped in a folder that has
// stray entries beside it (a Mac's __MACOSX, a second copy of a list):
// the folder holding users.json or channels.json is the export, and what
// lies outside it is reported, not read.
func TestSlackWrappedFolder(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join("testdata", "slack")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		dst := filepath.Join(dir, "export", rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		data, _ := os.ReadFile(p)
		return os.WriteFile(dst, data, 0o644)
	})
	os.MkdirAll(filepath.Join(dir, "__MACOSX", "export"), 0o755)
	os.WriteFile(filepath.Join(dir, "mpims.json"), []byte("[]"), 0o644)
	// A Mac's zip also puts resource forks inside the export folder.
	os.MkdirAll(filepath.Join(dir, "export", "__MACOSX"), 0o755)
	os.WriteFile(filepath.Join(dir, "export", "__MACOSX", "._channels.json"), []byte("\x00\x05"), 0o644)

	e, err := OpenSlack(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := renderExport(t, e)
	for _, name := range []string{"__MACOSX", "mpims.json"} {
		if !strings.Contains(got, "problem "+name+": outside the export folder export/ (not read)") {
			t.Errorf("no problem reported for %s:\n%s", name, got)
		}
	}
	if !strings.Contains(got, "problem __MACOSX/: macOS archive metadata (not part of the export)") || strings.Contains(got, "._channels.json") {
		t.Errorf("the export's __MACOSX folder is not skipped as archive metadata:\n%s", got)
	}
	sameAsFolder(t, "wrapped export", got)
}

// TestSlackZipBackslashes: a zip written by a Windows tool, "\\" between
// folders in every entry name, reads as the folder does; an entry that
// would leave the archive is still refused.
func TestSlackZipBackslashes(t *testing.T) {
	zpath := filepath.Join(t.TempDir(), "export.zip")
	zipSample(t, zpath, func(rel string) string { return `acme-export\` + strings.ReplaceAll(rel, "/", `\`) },
		`acme-export\..\..\evil.json`)

	e, err := OpenSlack(zpath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := renderExport(t, e)
	if !strings.Contains(got, `problem acme-export\..\..\evil.json: unsafe path in zip entry`) || strings.Contains(got, "escaped") {
		t.Errorf("the escaping entry was not refused:\n%s", got)
	}
	sameAsFolder(t, "backslash zip", got)
}

func TestSlackSingleFile(t *testing.T) {
	e, err := OpenSlack(filepath.Join("testdata", "slack-messages.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	golden(t, "slack-messages.golden", renderExport(t, e))
	if len(e.Channels) != 2 || e.Channels[0].Name != "deploys" || e.Channels[1].Name != "help" {
		t.Errorf("channels = %+v, want deploys and help from channel_name", e.Channels)
	}
}

func TestSlackNotAnExport(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "fake.zip"), []byte("not a zip at all"), 0o644)
	os.WriteFile(filepath.Join(dir, "object.json"), []byte(`{"not": "an array"}`), 0o644)
	tests := []struct{ path, want string }{
		{dir, "not a Slack export"},
		{filepath.Join(dir, "notes.txt"), "want a directory, a .zip or a .json file"},
		{filepath.Join(dir, "fake.zip"), "not a readable zip archive"},
		{filepath.Join(dir, "object.json"), "not a Slack export"},
		{filepath.Join(dir, "missing"), "no such file"},
	}
	for _, tt := range tests {
		_, err := OpenSlack(tt.path, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("OpenSlack(%s) = %v, want an error containing %q", tt.path, err, tt.want)
		}
	}
}

// TestSlackLongThread cuts a long thread between messages: every message
// is in exactly one chunk, whole, and every later part starts with the
// thread's first message.
func TestSlackLongThread(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ops"), 0o755)
	var msgs []string
	for i := 0; i < 120; i++ {
		ts := fmt.Sprintf("17146%05d.000100", i*60)
		msgs = append(msgs, fmt.Sprintf(`{"type":"message","user":"U%d","text":"message %03d about the queue backlog on orders-consumer, partition %d is stuck behind a poison message","ts":"%s","thread_ts":"1714600000.000100"}`, i%3, i, i%12, ts))
	}
	os.WriteFile(filepath.Join(dir, "ops", "2024-05-01.json"), []byte("["+strings.Join(msgs, ",\n")+"]"), 0o644)
	e, err := OpenSlack(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := e.Channel(e.Channels[0], core.Chunk{SourceURI: "x"})
	checkChunks(t, res.Chunks)
	if len(res.Chunks) < 5 {
		t.Fatalf("%d chunks for a 120 message thread, want it cut", len(res.Chunks))
	}
	for i, c := range res.Chunks {
		if tok := core.EstimateTokens(c.Text); tok > 512+100 {
			t.Errorf("chunk %d has %d tokens", i, tok)
		}
		if i > 0 && !strings.HasPrefix(c.Text, "(thread of @U0") {
			t.Errorf("chunk %d does not start with the thread's root: %.80q", i, c.Text)
		}
		if c.ThreadID != "1714600000.000100" {
			t.Errorf("chunk %d thread id %q", i, c.ThreadID)
		}
	}
	all := render(res.Chunks)
	for i := 0; i < 120; i++ {
		if n := strings.Count(all, fmt.Sprintf("message %03d about", i)); n != 1 && !(i == 0 && n > 1) {
			t.Errorf("message %d is in %d chunks, want 1", i, n)
		}
	}
}

func TestTranscriptGolden(t *testing.T) {
	root := filepath.Join("testdata", "transcripts")
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		src, _ := os.ReadFile(p)
		tr, err := ParseTranscript(rel, src)
		fmt.Fprintf(&b, "\n=== %s\n", rel)
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			return nil
		}
		fmt.Fprintf(&b, "format %s, title %q, date %s (clock %v), speakers %s\n", tr.Format, tr.Title,
			tr.Date.Format("2006-01-02 15:04"), tr.HasClock, strings.Join(tr.Speakers(), ", "))
		for _, w := range tr.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
		for _, tu := range tr.Turns {
			if tu.ByteStart < 0 || tu.ByteEnd > len(src) || tu.ByteStart > tu.ByteEnd {
				t.Errorf("%s: turn at line %d has range %d-%d outside the file", rel, tu.LineStart, tu.ByteStart, tu.ByteEnd)
			}
		}
		chunks := TranscriptChunks(tr, core.Chunk{SourceURI: "meetings/" + rel, FilePath: rel, RepoName: "meetings"}, Options{})
		checkChunks(t, chunks)
		b.WriteString(render(chunks))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := b.String()
	golden(t, "transcripts.golden", got)
	for _, want := range []string{
		"warning: line 19: bad cue timing", // the broken cue of the standup keeps its text
		"five seconds. I also added an alert on ledger-db lock waits.",
		"error: no cue has a valid timing line (first bad cue at line 4)",
		"error: not a WebVTT file: line 1 does not start with WEBVTT",
		"=== notes.txt\nerror: no speaker turns found",
		"format zoom-chat",
		"format srt",
		"format markdown, title \"Ledger incident postmortem call\", date 2024-05-09 15:00",
		"format speaker-lines",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestTranscriptLongTurn cuts a monologue at sentence ends under the
// budget, keeping the speaker on every piece.
func TestTranscriptLongTurn(t *testing.T) {
	var b strings.Builder
	b.WriteString("WEBVTT\n\n1\n00:00:01.000 --> 00:10:00.000\n<v Maria Lopez>")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "Sentence %d explains how the ledger shard map is cached for a minute. ", i)
	}
	b.WriteString("\n")
	src := []byte(b.String())
	tr, err := ParseTranscript("long.vtt", src)
	if err != nil {
		t.Fatal(err)
	}
	chunks := TranscriptChunks(tr, core.Chunk{SourceURI: "m/long.vtt"}, Options{})
	checkChunks(t, chunks)
	if len(chunks) < 5 {
		t.Fatalf("%d chunks, want the turn cut", len(chunks))
	}
	for i, c := range chunks {
		if tok := core.EstimateTokens(c.Text); tok > 400+20 {
			t.Errorf("chunk %d has %d tokens", i, tok)
		}
		if !strings.HasPrefix(c.Text, "[00:00:01] Maria Lopez: Sentence ") || !strings.HasSuffix(c.Text, "a minute.") {
			t.Errorf("chunk %d is not whole sentences with the speaker: %.60q ... %q", i, c.Text, c.Text[max(0, len(c.Text)-30):])
		}
	}
}

func TestParseTS(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"1710424931.000100", "2024-03-14T14:02:11.0001Z", true},
		{"1710424931", "2024-03-14T14:02:11Z", true},
		{"abc", "", false},
		{"-5.1", "", false},
		{"1.x", "", false},
	}
	for _, tt := range tests {
		got, ok := parseTS(tt.in)
		if ok != tt.ok || (ok && got.Format("2006-01-02T15:04:05.999999Z07:00") != tt.want) {
			t.Errorf("parseTS(%q) = %v, %v; want %s, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseTranscript(f *testing.F) {
	for _, name := range []string{"standup-2024-05-06.vtt", "retro.srt", "design-review.txt", "postmortem-call.md"} {
		data, _ := os.ReadFile(filepath.Join("testdata", "transcripts", name))
		f.Add(name, data)
	}
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		for _, n := range []string{"a.vtt", "a.srt", "a.txt", "a.md"} {
			tr, err := ParseTranscript(n, src)
			if err != nil {
				if tr != nil {
					t.Fatal("transcript and error")
				}
				continue
			}
			for _, tu := range tr.Turns {
				if tu.ByteStart < 0 || tu.ByteEnd > len(src) || tu.ByteStart > tu.ByteEnd || tu.LineEnd < tu.LineStart {
					t.Fatalf("%s: turn range %d-%d lines %d-%d in %d bytes", n, tu.ByteStart, tu.ByteEnd, tu.LineStart, tu.LineEnd, len(src))
				}
			}
			chunks := TranscriptChunks(tr, core.Chunk{SourceURI: "x"}, Options{})
			ids := map[string]bool{}
			for _, c := range chunks {
				if ids[c.ID] {
					t.Fatalf("%s: duplicate chunk id", n)
				}
				ids[c.ID] = true
			}
		}
	})
}

func FuzzSlackDay(f *testing.F) {
	data, _ := os.ReadFile(filepath.Join("testdata", "slack", "incidents", "2024-05-02.json"))
	f.Add(data)
	f.Add([]byte(`[{"type":"message","ts":"1.5","text":"<@U1|x> <#C1> <http://a|b> <!subteam^S1>","thread_ts":"1.5"},{"ts":"2","thread_ts":"1.5"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e := &SlackExport{Users: map[string]SlackUser{}, names: map[string]string{}, opts: Options{}.withDefaults()}
		msgs, _ := e.parseDay("d.json", data, SlackChannel{Name: "c"})
		for _, m := range msgs {
			if m.start < 0 || m.end > len(data) || m.start > m.end {
				t.Fatalf("message range %d-%d in %d bytes", m.start, m.end, len(data))
			}
		}
		msgs = applyEdits(msgs)
		for _, m := range msgs {
			e.render(m)
		}
		chunks := e.chunks(SlackChannel{Name: "c"}, msgs, core.Chunk{SourceURI: "x"})
		ids := map[string]bool{}
		for _, c := range chunks {
			if ids[c.ID] {
				t.Fatalf("duplicate chunk id %s", c.SourceURI)
			}
			ids[c.ID] = true
		}
	})
}

// TestSlackChannelHash checks that ChannelHash is Channel's hash without
// parsing, and that it changes with a day file and with the user list
// (names in the chunks come from it), and only for the channel changed.
func TestSlackChannelHash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "slack")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "slack"))); err != nil {
		t.Fatal(err)
	}
	hashes := func() map[string]string {
		t.Helper()
		e, err := OpenSlack(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		out := map[string]string{}
		for _, ch := range e.Channels {
			h, size := e.ChannelHash(ch)
			res := e.Channel(ch, core.Chunk{SourceURI: "acme", Corpus: core.ConvoSlack})
			if h != res.Hash || size != res.Bytes {
				t.Errorf("%s: ChannelHash = %s, %d; Channel says %s, %d", ch.Name, h, size, res.Hash, res.Bytes)
			}
			out[ch.Name] = h
		}
		return out
	}
	before := hashes()
	if len(before) < 2 {
		t.Fatalf("fixture has %d channels", len(before))
	}
	if again := hashes(); !maps.Equal(before, again) {
		t.Errorf("hashes differ between two opens: %v, %v", before, again)
	}
	day := filepath.Join(dir, "general", "2024-05-02.json")
	b, err := os.ReadFile(day)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(day, bytes.Replace(b, []byte("]"), []byte(`,{"type":"message","user":"U1","text":"one more","ts":"1714650000.000100"}]`), 1), 0o644)
	edited := hashes()
	for name, h := range edited {
		if changed := h != before[name]; changed != (name == "general") {
			t.Errorf("after editing general's day file, %s changed = %v", name, changed)
		}
	}
	users := filepath.Join(dir, "users.json")
	b, _ = os.ReadFile(users)
	os.WriteFile(users, bytes.Replace(b, []byte("Maria Lopez"), []byte("Maria López"), 1), 0o644)
	for name, h := range hashes() {
		if h == edited[name] {
			t.Errorf("%s: hash unchanged after a user was renamed", name)
		}
	}
}

func TestExportDirs(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  []string
	}{
		{"an export in a folder", []string{"README.md", "ops/chat/users.json", "ops/chat/channels.json", "ops/chat/incidents/2024-03-14.json", "ops/chat/incidents/2024-03-15.json"}, []string{"ops/chat"}},
		{"at the root, private channels only", []string{"users.json", "groups.json", "oncall/2024-01-02.json"}, []string{"."}},
		{"two exports", []string{"a/users.json", "a/dms.json", "a/D1/2024-01-02.json", "b/x/users.json", "b/x/mpims.json", "b/x/m1/2023-12-31.json"}, []string{"a", "b/x"}},
		{"an export inside another is part of it", []string{"e/users.json", "e/channels.json", "e/general/2024-01-02.json", "e/general/users.json", "e/general/channels.json", "e/general/sub/2024-01-03.json"}, []string{"e"}},
		{"no day files: an application's fixtures", []string{"fixtures/users.json", "fixtures/channels.json", "fixtures/messages.json"}, nil},
		{"day files beside the lists, not in channel folders", []string{"d/users.json", "d/channels.json", "d/2024-01-02.json"}, nil},
		{"no user list", []string{"f/channels.json", "f/general/2024-01-02.json"}, nil},
		{"no channel list", []string{"g/users.json", "g/general/2024-01-02.json"}, nil},
		{"a file named like a day", []string{"h/users.json", "h/channels.json", "h/general/2024-01-02.json.bak"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExportDirs(tt.paths); !slices.Equal(got, tt.want) {
				t.Errorf("ExportDirs = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOpenSlackFS opens an export from a file system, as a crawl does for
// an export folder inside a repository.
func TestOpenSlackFS(t *testing.T) {
	exp, err := OpenSlackFS(os.DirFS(filepath.Join("..", "..", "testdata", "sample", "slack")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	if len(exp.Channels) == 0 || len(exp.Users) == 0 || len(exp.Problems) != 0 {
		t.Errorf("channels %d, users %d, problems %v; want the sample's channels and users", len(exp.Channels), len(exp.Users), exp.Problems)
	}
	if _, err := OpenSlackFS(fstest.MapFS{"notes.txt": {Data: []byte("hello")}}, Options{}); err == nil || !strings.Contains(err.Error(), "not a Slack export") {
		t.Errorf("a folder of notes: %v; want not a Slack export", err)
	}
}

// TestSlackFiles: an export's files are its metadata, read or not, and
// its conversations' files; a document beside them is not one.
func TestSlackFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"users.json":            {Data: []byte(`[{"id": "U1", "name": "ana"}]`)},
		"channels.json":         {Data: []byte(`[{"id": "C1", "name": "ops"}]`)},
		"integration_logs.json": {Data: []byte(`{"logs": [{"user_name": "ana", "service_type": "GitHub"}]}`)},
		"ops/2024-05-02.json":   {Data: []byte(`[{"type": "message", "user": "U1", "text": "deploying", "ts": "1714640000.000100"}]`)},
		"ops/notes.md":          {Data: []byte("# notes\n")},
		"README.md":             {Data: []byte("# export\n")},
	}
	exp, err := OpenSlackFS(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"channels.json", "integration_logs.json", "ops/2024-05-02.json", "users.json"}
	if got := exp.Files(); !slices.Equal(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
}
