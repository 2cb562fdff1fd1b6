package convo

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// ErrNotTranscript is returned by ParseTranscript for a file in which no
// speaker turns can be found; the caller indexes it as a document.
var ErrNotTranscript = errors.New("no speaker turns found")

// Turn is what one speaker said without interruption. Start and End are
// offsets from the start of the meeting, -1 when the format has no times.
type Turn struct {
	Speaker            string
	Start, End         time.Duration
	Text               string
	ByteStart, ByteEnd int // the turn's bytes in the file
	LineStart, LineEnd int
	// Section is the heading the turn is under (Markdown transcripts).
	Section string
}

// Transcript is a parsed meeting transcript or chat log.
type Transcript struct {
	// Format is "webvtt", "srt", "zoom-chat", "speaker-lines" or
	// "markdown".
	Format string
	// Title is the meeting's name: a Markdown title, else the file name.
	Title string
	// Date is when the meeting started, from a header or the file name;
	// zero when unknown. HasClock says whether its time of day is known.
	Date     time.Time
	HasClock bool
	Turns    []Turn
	// Warnings are parts that were read in a weaker way (a cue with a
	// broken timing line keeps its text but loses its time).
	Warnings []string
	// Attendees are the people a line "Attendees: A, B and C" (or
	// Participants:, Present:, Invitees:) names, in a WebVTT NOTE too.
	Attendees []string
}

// People returns the speakers and the attendees: the names the scrub gate
// must know to take them out of this meeting's text.
func (t *Transcript) People() []string {
	out := t.Speakers()
	for _, a := range t.Attendees {
		out = appendUnique(out, a)
	}
	return out
}

var (
	// attendeesRE reads a list of people: "Attendees: Ana Lima, Bo Chen and Cy".
	attendeesRE = lazyre.New(`(?im)^\s*(?:NOTE\s+)?(?:attendees|participants|present|invitees|attending)\s*:\s*(.+)$`)
	listSepRE   = lazyre.New(`\s*(?:,|;|\band\b|&)\s*`)
)

// findAttendees reads the people listed after attendee labels in src.
func findAttendees(src string) []string {
	var out []string
	for _, m := range attendeesRE.FindAllStringSubmatch(src, -1) {
		for _, p := range listSepRE.Split(m[1], -1) {
			p = strings.TrimSpace(strings.Trim(p, ".*_ "))
			if p != "" && len(p) < 60 {
				out = appendUnique(out, p)
			}
		}
	}
	return out
}

// Speakers returns the speakers in order of first appearance.
func (t *Transcript) Speakers() []string {
	var out []string
	for _, tu := range t.Turns {
		if tu.Speaker != "" {
			out = appendUnique(out, tu.Speaker)
		}
	}
	return out
}

var (
	cueTime   = lazyre.New(`^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})(?:\s|$)`)
	voiceTag  = lazyre.New(`^<v(?:\.[\w.-]+)?\s+([^>]+)>`)
	anyTag    = lazyre.New(`</?[a-zA-Z][^>]*>|<\d[\d:.]*>`)
	speakerRE = lazyre.New(`^\s*(?:\[?((?:\d{1,2}:)?\d{1,2}:\d{2})\]?\s*(?:[-–—]\s*)?)?([\p{L}\p{N}][\p{L}\p{N} .'’()|&@_-]{0,48}?)\s*:\s+(\S.*)$`)
	zoomChat  = lazyre.New(`^(\d{1,2}:\d{2}:\d{2})\t([^\t]+?):?\t(.*)$`)
	zoomFrom  = lazyre.New(`^(\d{1,2}:\d{2}:\d{2})\s+From\s+(.+?)(?:\s+to\s+(.+?))?\s*:\s*(.*)$`)
	mdSpeaker = lazyre.New(`^\s*\*\*([^*\n]{1,60}?)(:?)\*\*\s*(?:\[((?:\d{1,2}:)?\d{1,2}:\d{2})\](?:\([^)]*\))?)?\s*:?\s*(.*)$`)
	mdHeading = lazyre.New(`^(#{1,6})\s+(.+?)\s*#*\s*$`)
	isoDate   = lazyre.New(`(\d{4})-(\d{2})-(\d{2})(?:[T _](\d{2}):(\d{2}))?`)
	gmtDate   = lazyre.New(`GMT(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})`)
	textDate  = lazyre.New(`(?i)\b((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4})(?:,? (\d{1,2}:\d{2}))?`)
)

// labels are "Word: text" lines of meeting notes that are not speakers.
var labels = map[string]bool{
	"attendees": true, "participants": true, "present": true, "date": true, "time": true, "agenda": true,
	"notes": true, "note": true, "action items": true, "actions": true, "todo": true, "location": true,
	"title": true, "subject": true, "moderator": true, "facilitator": true, "summary": true, "decision": true,
	"decisions": true, "duration": true, "meeting": true, "recording": true, "kind": true, "language": true,
	"http": true, "https": true, "status": true, "owner": true, "next steps": true, "absent": true, "host": true,
}

// ParseTranscript reads a transcript: WebVTT, SRT, a Zoom chat log,
// "Speaker: text" lines, or Markdown with bold speaker names. name is the
// file's path (it gives the format by extension and often the date). It
// returns ErrNotTranscript when no speaker turns are found, and an error
// naming the line for a file that claims a format it does not follow.
func ParseTranscript(name string, src []byte) (*Transcript, error) {
	ext := strings.ToLower(path.Ext(name))
	text := strings.TrimPrefix(string(src), "\uFEFF")
	off := len(src) - len(text)
	t := &Transcript{Title: meetingTitle(name)}
	var err error
	switch {
	case ext == ".vtt" || strings.HasPrefix(text, "WEBVTT"):
		t.Format = "webvtt"
		err = t.parseCues(text, off, true)
	case ext == ".srt":
		t.Format = "srt"
		err = t.parseCues(text, off, false)
	case ext == ".md" || ext == ".markdown":
		t.Format = "markdown"
		err = t.parseMarkdown(text, off)
	default:
		err = t.parseLines(text, off)
	}
	if err != nil {
		return nil, err
	}
	t.findDate(name, text)
	t.Attendees = findAttendees(text)
	return t, nil
}

// genericStems are file names that say nothing about the meeting.
var genericStems = map[string]bool{
	"chat": true, "transcript": true, "transcript_corrected": true, "transcript-corrected": true, "captions": true,
	"subtitles": true, "recording": true, "meeting": true, "notes": true, "closed_caption": true, "audio_transcript": true,
	"meeting_saved_chat": true, "index": true, "readme": true, "summary": true,
}

// meetingTitle names a meeting after its file, with the folder's name
// when the file name is generic ("2026-08-20_185/chat").
func meetingTitle(name string) string {
	stem := strings.TrimSuffix(path.Base(name), path.Ext(name))
	if dir := path.Base(path.Dir(name)); genericStems[strings.ToLower(stem)] && dir != "." && dir != "/" {
		return dir + "/" + stem
	}
	return stem
}

// srcLine is one line of the file with its byte range.
type srcLine struct {
	text       string
	start, end int // end excludes the newline
	n          int // 1-based
}

func splitLines(text string, off int) []srcLine {
	var out []srcLine
	n := 1
	for len(text) > 0 || n == 1 {
		i := strings.IndexByte(text, '\n')
		l := text
		if i >= 0 {
			l = text[:i]
		}
		out = append(out, srcLine{strings.TrimRight(l, "\r"), off, off + len(strings.TrimRight(l, "\r")), n})
		if i < 0 {
			break
		}
		text = text[i+1:]
		off += i + 1
		n++
	}
	return out
}

func parseClock(s string) (time.Duration, bool) {
	s = strings.ReplaceAll(s, ",", ".")
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	var d time.Duration
	for i, p := range parts {
		if i == len(parts)-1 {
			f, err := strconv.ParseFloat(p, 64)
			if err != nil || f < 0 || f >= 60 {
				return 0, false
			}
			d += time.Duration(f * float64(time.Second))
			continue
		}
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || (i > 0 && v >= 60) {
			return 0, false
		}
		if len(parts) == 3 && i == 0 {
			d += time.Duration(v) * time.Hour
		} else {
			d += time.Duration(v) * time.Minute
		}
	}
	return d, true
}

// addTurn appends what a speaker said, merging it into the previous turn
// when the same speaker goes on.
func (t *Transcript) addTurn(tu Turn) {
	tu.Text = strings.TrimSpace(tu.Text)
	if tu.Text == "" {
		return
	}
	if n := len(t.Turns); n > 0 {
		p := &t.Turns[n-1]
		if p.Speaker == tu.Speaker && p.Section == tu.Section && core.EstimateTokens(p.Text+tu.Text) < 300 {
			sep := " "
			if tu.Speaker == "" {
				sep = "\n"
			}
			p.Text += sep + tu.Text
			p.ByteEnd, p.LineEnd = tu.ByteEnd, tu.LineEnd
			if tu.End >= 0 {
				p.End = tu.End
			}
			return
		}
	}
	t.Turns = append(t.Turns, tu)
}

// splitSpeaker takes "[00:01:02] Name: text" apart when Name looks like a
// name; at is "" when the line has no time.
func splitSpeaker(s string) (at, speaker, text string) {
	m := speakerRE.FindStringSubmatch(s)
	if m == nil {
		return "", "", s
	}
	name := strings.TrimSpace(m[2])
	if labels[strings.ToLower(name)] || len(strings.Fields(name)) > 6 {
		return "", "", s
	}
	return m[1], name, m[3]
}

// parseCues reads WebVTT (vtt) or SRT cues.
func (t *Transcript) parseCues(text string, off int, vtt bool) error {
	lines := splitLines(text, off)
	i := 0
	if vtt {
		if len(lines) == 0 || !strings.HasPrefix(lines[0].text, "WEBVTT") {
			return errors.New("not a WebVTT file: line 1 does not start with WEBVTT")
		}
		// The header runs to the first blank line.
		for i < len(lines) && strings.TrimSpace(lines[i].text) != "" {
			i++
		}
	}
	good, bad := 0, 0
	firstBad := 0
	speaker := ""
	for i < len(lines) {
		for i < len(lines) && strings.TrimSpace(lines[i].text) == "" {
			i++
		}
		if i >= len(lines) {
			break
		}
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j].text) != "" {
			j++
		}
		block := lines[i:j]
		i = j
		head := block[0].text
		if vtt && (strings.HasPrefix(head, "NOTE") || strings.HasPrefix(head, "STYLE") || strings.HasPrefix(head, "REGION")) {
			continue
		}
		// The timing line is the first or (after a cue id) second line.
		ti := -1
		for k := 0; k < len(block) && k < 2; k++ {
			if strings.Contains(block[k].text, "-->") {
				ti = k
				break
			}
		}
		start, end := time.Duration(-1), time.Duration(-1)
		payload := block
		if ti >= 0 {
			payload = block[ti+1:]
			m := cueTime.FindStringSubmatch(block[ti].text)
			s, ok1 := time.Duration(0), false
			e, ok2 := time.Duration(0), false
			if m != nil {
				s, ok1 = parseClock(m[1])
				e, ok2 = parseClock(m[2])
			}
			if ok1 && ok2 {
				start, end = s, e
				good++
			} else {
				bad++
				if firstBad == 0 {
					firstBad = block[ti].n
				}
				t.Warnings = append(t.Warnings, fmt.Sprintf("line %d: bad cue timing %q (the cue's text is kept without a time)", block[ti].n, block[ti].text))
			}
		} else {
			bad++
			if firstBad == 0 {
				firstBad = block[0].n
			}
			t.Warnings = append(t.Warnings, fmt.Sprintf("line %d: cue without a timing line (its text is kept without a time)", block[0].n))
		}
		var parts []string
		for _, l := range payload {
			s := l.text
			if m := voiceTag.FindStringSubmatch(s); m != nil {
				speaker = strings.TrimSpace(m[1])
				s = s[len(m[0]):]
			} else if _, sp, rest := splitSpeaker(anyTag.ReplaceAllString(s, "")); sp != "" {
				speaker, s = sp, rest
			}
			s = strings.TrimSpace(anyTag.ReplaceAllString(s, ""))
			if s != "" {
				parts = append(parts, s)
			}
		}
		if len(payload) == 0 {
			continue
		}
		last := block[len(block)-1]
		t.addTurn(Turn{Speaker: speaker, Start: start, End: end, Text: strings.Join(parts, " "),
			ByteStart: block[0].start, ByteEnd: last.end, LineStart: block[0].n, LineEnd: last.n})
	}
	if good == 0 {
		if bad > 0 {
			return fmt.Errorf("no cue has a valid timing line (first bad cue at line %d)", firstBad)
		}
		return ErrNotTranscript
	}
	return nil
}

// parseMarkdown reads Markdown with bold speaker names
// ("**Tim** [4:42](link): text" or "**Tim:** text"); headings set the
// section, other lines continue the current turn.
func (t *Transcript) parseMarkdown(text string, off int) error {
	lines := splitLines(text, off)
	section, titled := "", false
	var cur *Turn
	flush := func() {
		if cur != nil {
			t.addTurn(*cur)
			cur = nil
		}
	}
	speakers := 0
	for _, l := range lines {
		if m := mdHeading.FindStringSubmatch(l.text); m != nil {
			flush()
			if len(m[1]) == 1 && !titled {
				t.Title, titled = m[2], true
			}
			section = m[2]
			// The heading is kept as text of its own.
			cur = &Turn{Start: -1, End: -1, Text: l.text, ByteStart: l.start, ByteEnd: l.end, LineStart: l.n, LineEnd: l.n, Section: section}
			flush()
			continue
		}
		if m := mdSpeaker.FindStringSubmatch(l.text); m != nil && !labels[strings.ToLower(strings.TrimSpace(m[1]))] && (m[4] != "" || m[2] == ":") {
			flush()
			speakers++
			start := time.Duration(-1)
			if m[3] != "" {
				if d, ok := parseClock(m[3]); ok {
					start = d
				}
			}
			cur = &Turn{Speaker: strings.TrimSpace(m[1]), Start: start, End: -1, Text: m[4], ByteStart: l.start, ByteEnd: l.end, LineStart: l.n, LineEnd: l.n, Section: section}
			continue
		}
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		if cur == nil {
			cur = &Turn{Start: -1, End: -1, ByteStart: l.start, LineStart: l.n, Section: section}
		}
		cur.Text += "\n" + l.text
		cur.ByteEnd, cur.LineEnd = l.end, l.n
	}
	flush()
	if speakers < 2 {
		return ErrNotTranscript
	}
	return nil
}

// IsChatLog reports whether src is a meeting's chat log as Zoom saves
// it ("00:05:07<TAB>Name:<TAB>text" or "00:05:07 From Name to Everyone:
// text" lines): at least three such lines, and at least half of the
// lines not blank. Such a file, found among a repository's or a folder's
// documents, is a transcript, whose speakers are scrubbed, not a text
// document.
func IsChatLog(src []byte) bool {
	lines, nonBlank := 0, 0
	for _, l := range strings.Split(string(src), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		nonBlank++
		if zoomChat.MatchString(l) || zoomFrom.MatchString(l) {
			lines++
		}
	}
	return lines >= 3 && lines*2 >= nonBlank
}

// IsMarkdownTranscript reports whether src, Markdown, is a meeting's
// transcript written as notes: turns of bold speaker names with the time
// they spoke ("**Ana Ruiz** [4:42]: ...", "**Ana Ruiz** [0:04:42](link):
// ..."), at least three, by two people or more, and at least one line in
// five of the text that is not a heading. Bold labels without a time
// ("**Note:**") are not turns. Such a file, found among a repository's
// documents, is a transcript, whose speakers are scrubbed.
func IsMarkdownTranscript(src []byte) bool {
	turns, body := 0, 0
	speakers := map[string]bool{}
	fenced := false
	for _, l := range strings.Split(string(src), "\n") {
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || t == "" || mdHeading.MatchString(t) {
			continue
		}
		body++
		if m := mdSpeaker.FindStringSubmatch(l); m != nil && m[3] != "" && !labels[strings.ToLower(strings.TrimSpace(m[1]))] {
			turns++
			speakers[strings.TrimSpace(m[1])] = true
		}
	}
	return turns >= 3 && len(speakers) >= 2 && turns*5 >= body
}

// parseLines reads Zoom chat logs and "Speaker: text" transcripts; lines
// that name no speaker continue the turn before them.
func (t *Transcript) parseLines(text string, off int) error {
	lines := splitLines(text, off)
	speakerLines, nonBlank := 0, 0
	names := map[string]int{}
	zoom, timed := 0, 0
	for _, l := range lines {
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		nonBlank++
		if zoomChat.MatchString(l.text) || zoomFrom.MatchString(l.text) {
			zoom++
		}
		if at, sp, _ := splitSpeaker(l.text); sp != "" {
			speakerLines++
			names[sp]++
			if at != "" {
				timed++
			}
		}
	}
	// A "Title: subtitle" first line, or an untimed line among timed
	// turns, is not a speaker who says one thing.
	first := 0
	for _, l := range lines {
		if strings.TrimSpace(l.text) != "" {
			first = l.n
			break
		}
	}
	notSpeaker := func(at, sp string, n int) bool {
		return names[sp] == 1 && (n == first || at == "" && timed*2 > speakerLines)
	}
	repeated := 0
	for _, n := range names {
		if n > 1 {
			repeated++
		}
	}
	switch {
	case zoom*2 >= nonBlank && zoom > 0:
		t.Format = "zoom-chat"
	case speakerLines >= 2 && speakerLines*10 >= nonBlank*3 && (repeated > 0 || len(names) >= 2):
		t.Format = "speaker-lines"
	default:
		return ErrNotTranscript
	}
	var cur *Turn
	flush := func() {
		if cur != nil {
			t.addTurn(*cur)
			cur = nil
		}
	}
	pendingFrom := ""
	for _, l := range lines {
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		start := time.Duration(-1)
		speaker, body, ok := "", "", false
		if m := zoomChat.FindStringSubmatch(l.text); m != nil {
			start, _ = parseClock(m[1])
			speaker, body, ok = strings.TrimSpace(m[2]), m[3], true
		} else if m := zoomFrom.FindStringSubmatch(l.text); m != nil {
			start, _ = parseClock(m[1])
			speaker, body, ok = strings.TrimSpace(m[2]), m[4], true
			if body == "" {
				pendingFrom = speaker
			}
		} else if at, sp, rest := splitSpeaker(l.text); sp != "" && !notSpeaker(at, sp, l.n) {
			if at != "" {
				start, _ = parseClock(at)
			}
			speaker, body, ok = sp, rest, true
		}
		if ok {
			flush()
			cur = &Turn{Speaker: speaker, Start: start, End: -1, Text: body, ByteStart: l.start, ByteEnd: l.end, LineStart: l.n, LineEnd: l.n}
			continue
		}
		if cur == nil || (pendingFrom == "" && cur.Speaker == "" && !strings.HasPrefix(l.text, "\t")) {
			flush()
			cur = &Turn{Start: -1, End: -1, ByteStart: l.start, LineStart: l.n}
		}
		pendingFrom = ""
		cur.Text += "\n" + strings.TrimSpace(l.text)
		cur.ByteEnd, cur.LineEnd = l.end, l.n
	}
	flush()
	return nil
}

// findDate finds when the meeting took place: a date (and time) in the
// first lines of the file, else in its path.
func (t *Transcript) findDate(name, text string) {
	head := text
	if len(head) > 4000 {
		head = head[:4000]
	}
	try := func(s string) bool {
		if m := gmtDate.FindStringSubmatch(s); m != nil {
			if d, err := time.Parse("20060102 1504", m[1]+m[2]+m[3]+" "+m[4]+m[5]); err == nil {
				t.Date, t.HasClock = d, true
				return true
			}
		}
		if m := isoDate.FindStringSubmatch(s); m != nil {
			if d, err := time.Parse("2006-01-02", m[1]+"-"+m[2]+"-"+m[3]); err == nil {
				t.Date = d
				if m[4] != "" {
					if h, err := strconv.Atoi(m[4]); err == nil && h < 24 {
						mi, _ := strconv.Atoi(m[5])
						t.Date = d.Add(time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute)
						t.HasClock = true
					}
				}
				return true
			}
		}
		if m := textDate.FindStringSubmatch(s); m != nil {
			ds := strings.ReplaceAll(strings.ReplaceAll(m[1], ",", ""), ".", "")
			for _, layout := range []string{"Jan 2 2006", "January 2 2006"} {
				if d, err := time.Parse(layout, ds); err == nil {
					t.Date = d
					if c, err := time.Parse("15:04", m[2]); err == nil {
						t.Date, t.HasClock = d.Add(time.Duration(c.Hour())*time.Hour+time.Duration(c.Minute())*time.Minute), true
					}
					return true
				}
			}
		}
		return false
	}
	if !try(head) {
		try(name)
	}
}

// TranscriptChunks groups consecutive turns into chunks of about
// Options.TurnBudget tokens. A turn longer than that is cut at sentence
// ends. Each chunk keeps the speakers' names and times in its text
// ("[00:04:39] Pooja: ..."), the file range it covers, and its speakers,
// start and end in Meta. base supplies SourceURI, FilePath, RepoName and
// Corpus.
func TranscriptChunks(t *Transcript, base core.Chunk, opts Options) []core.Chunk {
	opts = opts.withDefaults()
	var out []core.Chunk
	var group []Turn
	var texts []string
	tokens, part := 0, 0
	flush := func() {
		if len(group) > 0 {
			c := transcriptChunk(t, group, texts, base)
			if part > 0 {
				// The chunk starts inside a long turn: its range is the
				// turn's, its URI says which part.
				c.SourceURI += fmt.Sprintf("&part=%d", part+1)
				c.ID = core.ChunkID(c.SourceURI, c.ByteStart, c.ByteEnd)
			}
			out = append(out, c)
		}
		group, texts, tokens = nil, nil, 0
	}
	for _, tu := range t.Turns {
		for i, piece := range splitTurn(tu.Text, opts.TurnBudget) {
			r := renderTurn(tu, piece)
			n := core.EstimateTokens(r)
			if len(group) > 0 && (tokens+n > opts.TurnBudget || group[0].Section != tu.Section && tokens >= opts.TurnBudget/4) {
				flush()
			}
			if len(group) == 0 {
				part = i
			}
			group = append(group, tu)
			texts = append(texts, r)
			tokens += n
		}
	}
	flush()
	return out
}

func renderTurn(tu Turn, text string) string {
	var b strings.Builder
	if tu.Start >= 0 {
		b.WriteString("[" + clock(tu.Start) + "] ")
	}
	if tu.Speaker != "" {
		b.WriteString(tu.Speaker + ": ")
	}
	b.WriteString(text)
	return b.String()
}

func clock(d time.Duration) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

var sentenceEnd = lazyre.New(`[.!?…]["')\]]?\s+`)

// splitTurn cuts a long turn into pieces of whole sentences under budget
// tokens (a sentence longer than that is cut at spaces).
func splitTurn(text string, budget int) []string {
	if core.EstimateTokens(text) <= budget {
		return []string{text}
	}
	var sentences []string
	last := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		sentences = append(sentences, text[last:m[1]])
		last = m[1]
	}
	sentences = append(sentences, text[last:])
	var out []string
	var cur strings.Builder
	for _, s := range sentences {
		for core.EstimateTokens(s) > budget {
			cut := cutUTF8(s, budget*4)
			if i := strings.LastIndexByte(cut, ' '); i > 0 {
				cut = cut[:i+1]
			}
			if cur.Len() > 0 {
				out = append(out, strings.TrimSpace(cur.String()))
				cur.Reset()
			}
			out = append(out, strings.TrimSpace(cut))
			s = s[len(cut):]
		}
		if cur.Len() > 0 && core.EstimateTokens(cur.String()+s) > budget {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
		cur.WriteString(s)
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, strings.TrimSpace(cur.String()))
	}
	return out
}

func transcriptChunk(t *Transcript, group []Turn, texts []string, base core.Chunk) core.Chunk {
	first, last := group[0], group[len(group)-1]
	k := base
	k.Corpus = core.ConvoTranscript
	k.Text = strings.Join(texts, "\n")
	k.ByteStart, k.ByteEnd = first.ByteStart, last.ByteEnd
	if k.ByteEnd <= k.ByteStart {
		k.ByteEnd = k.ByteStart + 1
	}
	k.LineStart, k.LineEnd = first.LineStart, last.LineEnd
	words := map[string]int{}
	var speakers []string
	start, end := time.Duration(-1), time.Duration(-1)
	for _, tu := range group {
		if tu.Speaker != "" {
			speakers = appendUnique(speakers, tu.Speaker)
			words[tu.Speaker] += len(tu.Text)
		}
		if tu.Start >= 0 && start < 0 {
			start = tu.Start
		}
		if tu.End >= 0 {
			end = tu.End
		} else if tu.Start >= 0 {
			end = tu.Start
		}
	}
	for _, s := range speakers {
		if words[s] > words[k.Author] {
			k.Author = s
		}
	}
	k.Meta = map[string]string{"meeting": t.Title, "format": t.Format}
	if len(speakers) > 0 {
		k.Meta["speakers"] = strings.Join(speakers, ", ")
	}
	if first.Section != "" {
		k.Meta["section"] = first.Section
		k.SectionPath = first.Section
	}
	at := ""
	if start >= 0 {
		k.Meta["start"] = clock(start)
		k.Meta["end"] = clock(end)
		at = clock(start)
		k.SourceURI += "#t=" + clock(start)
	} else {
		k.SourceURI += fmt.Sprintf("#L%d", k.LineStart)
	}
	if !t.Date.IsZero() {
		ts := t.Date
		if start >= 0 && t.HasClock {
			ts = ts.Add(start)
		}
		k.Timestamp = ts.UTC().Format(time.RFC3339)
		if !t.HasClock || start < 0 {
			k.Timestamp = ts.Format("2006-01-02")
		}
		if at == "" {
			at = k.Timestamp
		}
	}
	k.ID = core.ChunkID(k.SourceURI, k.ByteStart, k.ByteEnd)
	prefix := []string{t.Title}
	if first.Section != "" && first.Section != t.Title {
		prefix = append(prefix, first.Section)
	}
	if at != "" {
		prefix = append(prefix, at)
	}
	if len(speakers) > 0 {
		sp := speakers
		more := ""
		if len(sp) > 4 {
			sp, more = sp[:4], fmt.Sprintf(" +%d", len(speakers)-4)
		}
		prefix = append(prefix, strings.Join(sp, ", ")+more)
	}
	k.ContextPrefix = strings.Join(prefix, " > ")
	k.SymbolKind = "turns"
	return k
}
