// Package scrub is the gate between crawling and indexing: it is the only
// place a CleanChunk can be made, and the embedders and the store accept
// nothing else (seed 001 §15.4). Secrets are scrubbed in every sensitivity
// tier, code included; personal data in every tier but core.Clean.
//
// Detected values are replaced by typed placeholders that are consistent
// within a chunk (<EMAIL_1>, <EMAIL_2>, <AWS_KEY>); the audit records counts
// and types, never values.
//
// Secrets are found by gitleaks' rule set (leaks.go: the credentials of
// hosted services) and by the syntax that holds them (values.go: values
// of secret-named keys, connection-string pairs, command-line flags,
// authorization headers, Kubernetes Secrets, Docker and kube configs),
// each value replaced whole, its extent taken from the file's syntax; the
// rules here add private key blocks, cloud and chat tokens, JWTs and the
// passwords of URLs. Personal data: e-mail addresses, phone numbers that
// libphonenumber says are valid (phones.go), US social security numbers,
// payment card numbers of a brand that pass the Luhn check, IBANs that
// pass the mod-97 check, medical record and patient numbers, people's
// names (known from Slack users and transcript speakers and attendees,
// after honorifics, and in "Author:" or "Reviewers:" lists) and, when
// configured, IP addresses. Known limits: a name the gate was not told
// about and that follows no honorific or label passes; a secret split
// across two chunks can escape the single-chunk patterns.
package scrub

import (
	"fmt"
	"sort"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// CleanChunk is a chunk that has passed the gate. Its zero value is not a
// valid chunk and the store rejects it. It is immutable: Chunk returns a copy.
type CleanChunk struct {
	c     core.Chunk
	audit *Audit
}

// Chunk returns a copy of the scrubbed chunk.
func (c CleanChunk) Chunk() core.Chunk {
	out := c.c
	out.Imports = append([]string(nil), c.c.Imports...)
	out.CallsOut = append([]string(nil), c.c.CallsOut...)
	out.CalledBy = append([]string(nil), c.c.CalledBy...)
	out.Calls = append([]core.Call(nil), c.c.Calls...)
	out.Routes = append([]core.Route(nil), c.c.Routes...)
	out.Refs = append([]core.Ref(nil), c.c.Refs...)
	out.Resources = append([]core.Resource(nil), c.c.Resources...)
	out.Bindings = append([]core.Binding(nil), c.c.Bindings...)
	if c.c.Meta != nil {
		out.Meta = make(map[string]string, len(c.c.Meta))
		for k, v := range c.c.Meta {
			out.Meta[k] = v
		}
	}
	if c.c.K8sLabels != nil {
		out.K8sLabels = make(map[string]string, len(c.c.K8sLabels))
		for k, v := range c.c.K8sLabels {
			out.K8sLabels[k] = v
		}
	}
	return out
}

// Routes are the server routes found in the chunk.
func (c CleanChunk) Routes() []core.Route { return c.c.Routes }

// ID is the chunk's id.
func (c CleanChunk) ID() string { return c.c.ID }

// Corpus is the chunk's corpus type.
func (c CleanChunk) Corpus() core.CorpusType { return c.c.Corpus }

// Text is the scrubbed text.
func (c CleanChunk) Text() string { return c.c.Text }

// Sensitivity is the tier of the chunk's corpus type.
func (c CleanChunk) Sensitivity() core.Sensitivity { return c.c.Corpus.Type().Sensitivity }

// Scrubbed reports whether the gate changed the chunk.
func (c CleanChunk) Scrubbed() bool { return c.audit != nil && c.audit.Scrubbed }

// Audit returns what the gate found, or nil when it found nothing.
func (c CleanChunk) Audit() *Audit {
	if c.audit == nil {
		return nil
	}
	a := *c.audit
	a.EntityTypes = append([]string(nil), c.audit.EntityTypes...)
	return &a
}

// Valid reports whether c was made by the gate (the zero value is not).
func (c CleanChunk) Valid() bool { return c.c.ID != "" }

// Audit is what the gate found in one chunk: counts and types, never values.
type Audit struct {
	ChunkID       string
	Tier          core.Sensitivity
	EntitiesFound int      // personal data values replaced
	EntityTypes   []string // sorted, distinct placeholder types (EMAIL, AWS_KEY, ...)
	SecretsFound  int      // secret values replaced
	Scrubbed      bool
}

// Options configure a Gate.
type Options struct {
	// IPs scrubs IPv4 and IPv6 addresses as personal data (in the tiers
	// that are scrubbed for personal data).
	IPs bool
	// Names are people whose names are scrubbed as personal data.
	Names []string
	// Regions are the countries (ISO 3166 codes: GB, DE) a phone number
	// written without its country code is read as first.
	Regions []string
}

// Gate scrubs chunks. It is safe for concurrent use; the zero value is not
// usable, call New.
type Gate struct {
	secrets []rule
	pii     []rule
	opts    Options
	people  names
}

// rule finds values to replace. group is the submatch holding the value (0
// for the whole match); keep, when set, vetoes a candidate value.
type rule struct {
	kind string
	// need lists literals of which at least one must occur in the text for
	// the rule to be tried (lower-case when fold is set: matched against
	// the lower-cased text). It keeps the regexps off most chunks.
	need []string
	fold bool
	// anchored rules start with one of need: re (which begins with ^) is
	// tried only on a window of text at each occurrence of a literal,
	// instead of over the whole text.
	anchored bool
	// digits, when set, limits the rule to runs of digits and separators
	// (" .-()+/") that hold at least that many digits.
	digits int
	re     *lazyre.Regexp
	group  int
	keep   func(value string) bool
	// quoteGroup, when set, is the submatch holding the value's opening
	// quote: in source code only quoted literals are secrets
	// (password = readPassword() is code, password = "hunter2" is a secret).
	quoteGroup int
	// keyGroup, when set, is the submatch holding the key a value is
	// assigned to; keyVeto rejects keys whose values are not secrets.
	keyGroup int
	keyVeto  func(key string) bool
	// find, when set, replaces re: it returns the values' [start, end).
	find func(text string) [][]int
}

func isLocalPart(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}

// findEmails finds e-mail addresses around each '@': a local part, a
// domain with a dot and a top-level domain of two or more letters.
func findEmails(text string) [][]int {
	var out [][]int
	last := 0
	for i := strings.IndexByte(text, '@'); i >= 0 && i < len(text); {
		s := i
		for s > last && isLocalPart(text[s-1]) {
			s--
		}
		for s < i && !isAlnum(text[s]) { // \b: the address starts at a letter or digit
			s++
		}
		e := i + 1
		for e < len(text) && (isAlnum(text[e]) || text[e] == '-' || text[e] == '.') {
			e++
		}
		// Trim trailing dots and hyphens; the last label is the TLD.
		for e > i+1 && (text[e-1] == '.' || text[e-1] == '-') {
			e--
		}
		domain := text[i+1 : e]
		if dot := strings.LastIndexByte(domain, '.'); s < i && dot > 0 && len(domain)-dot-1 >= 2 && allLetters(domain[dot+1:]) {
			out = append(out, []int{s, e})
			last = e
		}
		next := strings.IndexByte(text[i+1:], '@')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

// findDSNPasswords finds the password of scheme://user:password@host
// URLs, looking only at each "://".
func findDSNPasswords(text string) [][]int {
	var out [][]int
	for off := 0; ; {
		i := strings.Index(text[off:], "://")
		if i < 0 {
			return out
		}
		p := off + i
		off = p + 3
		if p == 0 || !(isAlnum(text[p-1]) || text[p-1] == '+' || text[p-1] == '.' || text[p-1] == '-') {
			continue // no scheme
		}
		// user: no ':', '/', '@', quotes or spaces; then ':'
		u := p + 3
		for u < len(text) && !strings.ContainsRune(":/@'\" \t\r\n", rune(text[u])) {
			u++
		}
		if u >= len(text) || text[u] != ':' { // redis://:password@host has no user
			continue
		}
		// password: no '@', '/', quotes or spaces; then '@'
		e := u + 1
		for e < len(text) && !strings.ContainsRune("@/'\" \t\r\n", rune(text[e])) {
			e++
		}
		if e == u+1 || e >= len(text) || text[e] != '@' {
			continue
		}
		out = append(out, []int{u + 1, e})
		off = e
	}
}

// findDriverDSNPasswords finds the password of go-sql-driver/mysql's
// DSNs, user:password@tcp(host:port)/dbname (also unix(...)): the DSN is
// the word before "@tcp(", its user up to the first ':' and the password
// the rest, up to the last '@', as the driver reads it.
func findDriverDSNPasswords(text string) [][]int {
	var out [][]int
	for off := 0; ; {
		i := strings.Index(text[off:], "@")
		if i < 0 {
			return out
		}
		at := off + i
		off = at + 1
		rest := text[at+1:]
		if !strings.HasPrefix(rest, "tcp(") && !strings.HasPrefix(rest, "tcp6(") && !strings.HasPrefix(rest, "unix(") && !strings.HasPrefix(rest, "udp(") {
			continue
		}
		start := at
		for start > 0 && !strings.ContainsRune("'\"` \t\r\n=,;", rune(text[start-1])) {
			start--
		}
		colon := strings.IndexByte(text[start:at], ':')
		if colon < 0 || start+colon+1 == at {
			continue // no password
		}
		out = append(out, []int{start + colon + 1, at})
	}
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}

// namesAnObject reports whether a secret-looking key holds the name or
// location of a secret rather than the secret (secretName: shop-tls,
// existingSecret, secret_arn, passwordFile).
func namesAnObject(key string) bool {
	k := keySeparators.Replace(strings.ToLower(key))
	for _, prefix := range []string{"existing", "use", "create", "enable", "generate", "require", "external"} {
		if strings.HasPrefix(k, prefix) && k != prefix {
			return true
		}
	}
	for _, suffix := range []string{"name", "ref", "keyref", "arn", "id", "file", "path", "store", "class", "dir", "namespace", "version", "type", "mount", "volume", "provider", "manager", "policy", "rotation", "length", "ttl", "expiry", "expiration"} {
		if strings.HasSuffix(k, suffix) && k != suffix {
			return true
		}
	}
	return false
}

// New returns a gate with the built-in detectors.
func New(opts Options) *Gate {
	g := &Gate{secrets: secretRules(), pii: piiRules(), opts: opts}
	g.AddNames(opts.Names...)
	return g
}

// AddNames tells the gate about people (a Slack workspace's members).
// Add them before cleaning the chunks they should apply to: a chunk is
// scrubbed with the names known when it passes.
func (g *Gate) AddNames(people ...string) {
	if len(people) == 0 {
		return
	}
	g.people.mu.Lock()
	defer g.people.mu.Unlock()
	ix := newNameIndex()
	if g.people.ix != nil {
		// Copy: chunks being cleaned keep reading the old index.
		for k, v := range g.people.ix.full {
			ix.full[k] = v
		}
		for k, v := range g.people.ix.part {
			ix.part[k] = v
		}
		ix.maxWords = g.people.ix.maxWords
	}
	for _, p := range people {
		ix.add(p)
	}
	g.people.ix = ix
}

func secretRules() []rule {
	return []rule{
		{kind: "PRIVATE_KEY", need: []string{"PRIVATE KEY"}, re: lazyre.New(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)`)},
		{kind: "AWS_KEY", need: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, re: lazyre.New(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`)},
		{kind: "AWS_SECRET", need: []string{"aws"}, fold: true, re: lazyre.New(`(?i)aws[a-z_\-. ]{0,20}(?:secret|sk)[a-z_\-. ]{0,20}['"]?\s*[:=]\s*['"]?([A-Za-z0-9/+=]{40})\b`), group: 1},
		{kind: "GITHUB_TOKEN", need: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, re: lazyre.New(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`)},
		{kind: "GITLAB_TOKEN", need: []string{"glpat-"}, re: lazyre.New(`\bglpat-[A-Za-z0-9_\-]{20,}`)},
		{kind: "SLACK_TOKEN", need: []string{"xox"}, re: lazyre.New(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
		{kind: "SLACK_WEBHOOK", need: []string{"hooks.slack.com"}, re: lazyre.New(`https://hooks\.slack\.com/services/[A-Za-z0-9/]+`)},
		{kind: "STRIPE_KEY", need: []string{"_live_", "_test_"}, re: lazyre.New(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b`)},
		{kind: "GOOGLE_API_KEY", need: []string{"AIza"}, re: lazyre.New(`\bAIza[0-9A-Za-z\-_]{35}`)},
		{kind: "TWILIO_SID", need: []string{"AC"}, re: lazyre.New(`\bAC[0-9a-f]{32}\b`)},
		{kind: "JWT", need: []string{"eyJ"}, re: lazyre.New(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
		// scheme://user:password@host
		{kind: "PASSWORD", need: []string{"://"}, find: findDSNPasswords, keep: func(v string) bool { return isReference(v) || notASecret(v) }},
		// go-sql-driver/mysql: user:password@tcp(host:3306)/db
		{kind: "PASSWORD", need: []string{"@tcp(", "@tcp6(", "@unix(", "@udp("}, find: findDriverDSNPasswords, keep: func(v string) bool { return isReference(v) || notASecret(v) }},
	}
}

func piiRules() []rule {
	return []rule{
		{kind: "EMAIL", need: []string{"@"}, find: findEmails, keep: func(v string) bool {
			// noreply-style service addresses and example domains are not personal data
			l := strings.ToLower(v)
			// nor the user of a git remote (git@github.com:org/repo).
			return strings.HasSuffix(l, "@example.com") || strings.HasSuffix(l, "@example.org") || strings.HasPrefix(l, "noreply@") ||
				strings.HasPrefix(l, "no-reply@") || strings.HasPrefix(l, "git@")
		}},
		{kind: "SSN", digits: 9, re: lazyre.New(`\b\d{3}-\d{2}-\d{4}\b`)},
		{kind: "CARD", find: findCards},
		{kind: "MRN", need: []string{"mrn", "medical record", "patient"}, fold: true, re: lazyre.New(`(?i)\b(?:mrn|medical record(?: number| no\.?| #)?|patient(?: id| number| no\.?| #)?)\s*[:#]?\s*([A-Z]{0,3}\d{4,12})\b`), group: 1},
	}
}

// isReference reports whether an assigned value points at a secret instead
// of being one: ${VAR}, {{ .Values.x }}, <placeholder>, os.Getenv(...),
// process.env.X, a secretKeyRef, and common documentation placeholders.
func isReference(v string) bool {
	v = strings.Trim(v, `"'`+"`")
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '{', '<', '%', '*', '(', '[', '+': // + joins a string to an expression: "--password="+pw
		return true
	}
	l := strings.ToLower(v)
	for _, p := range []string{"os.", "process.env", "env(", "environ", "config", "settings.", "secretkeyref", "valuefrom", "getenv", "none", "null", "nil", "true", "false", "undefined", "example", "changeme", "placeholder", "your_", "your-", "xxx", "redacted", "secretref"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	// identifiers and calls in code: readPassword(), cfg.Secret, req.body.token
	if strings.ContainsAny(v, "().[]") && !strings.ContainsAny(v, "/+=") {
		return true
	}
	return false
}

// cardRule finds runs of 13 to 19 digits, in groups, that may be a
// payment card number.
var cardRule = rule{digits: 13, re: lazyre.New(`\b(?:\d[ -]?){12,18}\d\b`)}

// findCards finds payment card numbers: a brand's prefix and length
// (Visa, Mastercard, American Express, Diners, Discover, JCB, UnionPay)
// and the Luhn check, standing alone: not the digits of a decimal
// fraction, a negative number or an identifier (0.1234567890123456,
// queryid="-2309322950358119582").
func findCards(text string) [][]int {
	var out [][]int
	for _, m := range cardRule.digitRunMatches(text) {
		s, e := m[0], m[1]
		if s > 0 && (isAlnum(text[s-1]) || strings.IndexByte(".-_/:#", text[s-1]) >= 0) {
			continue
		}
		if e < len(text) && (isAlnum(text[e]) || text[e] == '_' || text[e] == '.' && e+1 < len(text) && isAlnum(text[e+1])) {
			continue
		}
		v := text[s:e]
		if luhn(v) && cardBrand(v) {
			out = append(out, []int{s, e})
		}
	}
	return out
}

// cardBrand reports whether the digits of v have the prefix and the
// length of a card brand's numbers.
func cardBrand(v string) bool {
	d := make([]byte, 0, 19)
	for i := 0; i < len(v); i++ {
		if v[i] >= '0' && v[i] <= '9' {
			d = append(d, v[i])
		}
	}
	n := len(d)
	p := func(k int) int { // the first k digits as a number
		x := 0
		for _, c := range d[:k] {
			x = x*10 + int(c-'0')
		}
		return x
	}
	switch {
	case d[0] == '4':
		return n == 13 || n == 16
	case p(2) >= 51 && p(2) <= 55, p(4) >= 2221 && p(4) <= 2720:
		return n == 16
	case p(2) == 34 || p(2) == 37:
		return n == 15
	case p(3) >= 300 && p(3) <= 305, p(2) == 36, p(2) == 38, p(2) == 39:
		return n == 14 || n == 16
	case p(4) == 6011, p(2) == 65, p(3) >= 644 && p(3) <= 649, p(2) == 62, p(4) >= 3528 && p(4) <= 3589:
		return n >= 16 && n <= 19
	}
	return false
}

func luhn(s string) bool {
	sum, n := 0, 0
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		d := int(c - '0')
		if n%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		n++
	}
	return n >= 13 && sum%10 == 0
}

// Clean passes a raw chunk through the gate. people are names of people
// the chunk is known to involve beyond those the gate knows (a
// transcript's speakers). It never fails on content; it returns an error
// only for a chunk that cannot be indexed at all (no id, an unknown corpus
// type).
func (g *Gate) Clean(c core.Chunk, people ...string) (CleanChunk, error) {
	if c.ID == "" {
		return CleanChunk{}, fmt.Errorf("scrub %s: chunk has no id", c.SourceURI)
	}
	st := c.Corpus.Type()
	if st.Corpus == "" {
		return CleanChunk{}, fmt.Errorf("scrub %s: unknown corpus type %q", c.SourceURI, c.Corpus)
	}
	c = withoutNUL(c)
	s := scrubber{g: g, tier: st.Sensitivity, code: c.Corpus == core.CodeLogic, syntax: syntaxOf(c.Corpus == core.CodeLogic, c.Language),
		seen: map[string]string{}, count: map[string]int{},
		prose: strings.HasPrefix(string(c.Corpus), "DOC_") || strings.HasPrefix(string(c.Corpus), "CONVO_")}
	if st.Sensitivity != core.Clean {
		g.people.mu.RLock()
		s.names = []*nameIndex{g.people.ix}
		g.people.mu.RUnlock()
		if len(people) > 0 {
			ix := newNameIndex()
			for _, p := range people {
				ix.add(p)
			}
			s.names = append(s.names, ix)
		}
	}
	c.Text = s.scrub(c.Text)
	c.Signature = s.scrub(c.Signature)
	c.ContextPrefix = s.scrub(c.ContextPrefix)
	c.Author = s.scrub(c.Author)
	c.SymbolName = s.scrub(c.SymbolName)
	c.SectionPath = s.scrub(c.SectionPath)
	seenInText := len(s.seen)
	// What code analysis found carries source text too (a DSN literal).
	if len(c.Calls) > 0 {
		c.Calls = append([]core.Call(nil), c.Calls...)
		for i := range c.Calls {
			cl := &c.Calls[i]
			cl.Target, cl.Base, cl.Text = s.scrub(cl.Target), s.scrub(cl.Base), s.scrub(cl.Text)
			cl.Default = s.scrubValue(first(cl.Env, cl.Config, "default"), cl.Default)
		}
		c.CallsOut = append([]string(nil), c.CallsOut...)
		for i := range c.CallsOut {
			c.CallsOut[i] = s.scrub(c.CallsOut[i])
		}
	}
	if len(c.Bindings) > 0 {
		c.Bindings = append([]core.Binding(nil), c.Bindings...)
		for i := range c.Bindings {
			b := &c.Bindings[i]
			// A default is scrubbed as the value of its variable: a
			// secret-named variable's default is a secret.
			b.Expr, b.Value = s.scrub(b.Expr), s.scrubValue(first(b.Field, b.Env, "value"), b.Value)
			b.Default = s.scrubValue(first(b.Env, b.Field, "default"), b.Default)
		}
	}
	// Resources carry env values and settings (a DSN with a password).
	if len(c.Resources) > 0 {
		res := make([]core.Resource, len(c.Resources))
		for i, r := range c.Resources {
			if len(r.Env) > 0 {
				r.Env = append([]core.EnvVar(nil), r.Env...)
				for j := range r.Env {
					r.Env[j].Value = s.scrubValue(r.Env[j].Name, r.Env[j].Value)
				}
			}
			if len(r.Flags) > 0 { // a command's --db-password=...
				r.Flags = append([]core.EnvVar(nil), r.Flags...)
				for j := range r.Flags {
					r.Flags[j].Value = s.scrubValue(r.Flags[j].Name, r.Flags[j].Value)
				}
			}
			if len(r.Data) > 0 {
				d := make(map[string]string, len(r.Data))
				for k, v := range r.Data {
					d[k] = s.scrubValue(k, v)
				}
				r.Data = d
			}
			res[i] = r
		}
		c.Resources = res
	}
	// Metadata carries values from the source too (a resource's env,
	// joined in one line): last, so that the values already found with
	// their keys' context are known.
	if len(c.Meta) > 0 {
		m := make(map[string]string, len(c.Meta))
		for k, v := range c.Meta {
			m[k] = s.scrubList(v)
		}
		c.Meta = m
	}
	if len(s.seen) > seenInText {
		// A secret found only in a later field (a command's flag read
		// from its list in the metadata) is the same secret in the text.
		for _, p := range []*string{&c.Text, &c.Signature, &c.ContextPrefix, &c.SymbolName, &c.SectionPath} {
			*p = s.knownWords(*p)
		}
		for i := range c.Resources {
			r := &c.Resources[i]
			for j := range r.Env {
				r.Env[j].Value = s.knownWords(r.Env[j].Value)
			}
			for j := range r.Flags {
				r.Flags[j].Value = s.knownWords(r.Flags[j].Value)
			}
			for k, v := range r.Data {
				r.Data[k] = s.knownWords(v)
			}
		}
	}
	if s.secrets == 0 && s.entities == 0 {
		return CleanChunk{c: c}, nil
	}
	types := make([]string, 0, len(s.count))
	for k := range s.count {
		types = append(types, k)
	}
	sort.Strings(types)
	return CleanChunk{c: c, audit: &Audit{
		ChunkID:       c.ID,
		Tier:          st.Sensitivity,
		EntitiesFound: s.entities,
		EntityTypes:   types,
		SecretsFound:  s.secrets,
		Scrubbed:      true,
	}}, nil
}

// scrubber holds the placeholder numbering of one chunk.
type scrubber struct {
	g        *Gate
	tier     core.Sensitivity
	code     bool
	syntax   syntax            // how the chunk's file writes unquoted values
	prose    bool              // docs and conversations: sentences tell secrets too
	seen     map[string]string // value -> placeholder
	count    map[string]int    // kind -> distinct values
	secrets  int
	entities int
	names    []*nameIndex // people known to the gate and to the chunk
}

func (s *scrubber) scrub(text string) string {
	if text == "" {
		return text
	}
	text = s.known(text)
	lower := asciiLower(text)
	for _, r := range s.g.secrets {
		if r.wanted(text, lower) {
			if t := s.apply(text, lower, r, true); t != text {
				text, lower = t, asciiLower(t)
			}
		}
	}
	// Secrets by the syntax that holds them, each replaced whole.
	replace := func(kind string, spans [][]int, kinds []string) {
		if t := s.secretSpans(text, kind, spans, kinds); t != text {
			text, lower = t, asciiLower(t)
		}
	}
	replace("SECRET", findBlocks(text, lower), nil)
	replace("SECRET", findEnvPairs(text), nil)
	replace("SECRET", findAssigned(text, lower, s.syntax), nil)
	replace("PASSWORD", findConnPairs(text, lower), nil)
	replace("SECRET", findQueryParams(text, lower), nil)
	replace("SECRET", findDefaults(text), nil)
	replace("SECRET", findCLI(text, lower), nil)
	if spans, kinds := findSecretArguments(text, lower); len(spans) > 0 {
		replace("", spans, kinds)
	}
	replace("SECRET", findXML(text, lower), nil)
	replace("TOKEN", findAuthHeaders(text, lower), nil)
	if s.prose {
		replace("SECRET", findProse(text, lower), nil)
	}
	// The field's rule set for the credentials of hosted services.
	if spans, kinds := leakSpans(text, lower); len(spans) > 0 {
		replace("", spans, kinds)
	}
	if s.tier == core.Clean {
		return text
	}
	if digitsOrAt(text) {
		for _, r := range s.g.pii {
			if r.wanted(text, lower) {
				if t := s.apply(text, lower, r, false); t != text {
					text, lower = t, asciiLower(t)
				}
			}
		}
		text = s.spans(text, "IBAN", findIBANs(text), nil)
		text = s.spans(text, "PHONE", findPhones(text, s.g.opts.Regions), nil)
	}
	if s.g.opts.IPs {
		text = s.spans(text, "IP", findIPs(text), nil)
	}
	// People: known names, names after honorifics, names listed after
	// labels ("Reviewers: ...").
	if found := findNames(text, s.names...); len(found) > 0 {
		spans := make([][]int, len(found))
		keys := make([]string, len(found))
		for i, f := range found {
			spans[i], keys[i] = []int{f.start, f.end}, f.key
		}
		text = s.spans(text, "PERSON", spans, keys)
	}
	if spans := honorifics(text); len(spans) > 0 {
		text = s.spans(text, "PERSON", spans, nil)
	}
	if strings.IndexByte(text, ':') >= 0 || strings.Contains(text, "：") {
		var spans [][]int
		for _, m := range labelledNames(text) {
			spans = append(spans, []int{m[0], m[1]})
		}
		text = s.spans(text, "PERSON", spans, nil)
	}
	return text
}

// known replaces the values the scrubber already replaced elsewhere in
// the chunk (a secret found in the text, with its key for context, is the
// same secret in a joined list of env values), longest first. A value
// that is a lowercase word or name (a development database's password
// "postgres", a flag's name) is replaced only where its key or place says
// it is one:
// elsewhere the same word is a name (the scheme and user of
// postgres://postgres:<PASSWORD>@db/orders, an image postgres:16).
func (s *scrubber) known(text string) string { return s.replaceKnown(text, false) }

// knownWords is known for the values a later field found: only those
// that are one word (a flag's password), not a phrase that a field's
// reading took for a secret ("token: expected a number, got %q").
func (s *scrubber) knownWords(text string) string { return s.replaceKnown(text, true) }

func (s *scrubber) replaceKnown(text string, words bool) string {
	if len(s.seen) == 0 {
		return text
	}
	type kv struct{ value, placeholder string }
	var list []kv
	for k, p := range s.seen {
		if _, v, ok := strings.Cut(k, "\x00"); ok && len(v) >= 4 && !plainName(v) && !(words && strings.ContainsAny(v, " \t\n")) && strings.Contains(text, v) {
			list = append(list, kv{v, p})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if len(list[i].value) != len(list[j].value) {
			return len(list[i].value) > len(list[j].value)
		}
		return list[i].value < list[j].value
	})
	for _, x := range list {
		text = strings.ReplaceAll(text, x.value, x.placeholder)
	}
	return text
}

// plainName reports whether v is a word of lowercase ASCII letters or a
// name of such words (kebabName: a flag's or key's name, auth_password).
func plainName(v string) bool {
	return v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz") == "" || kebabName(v)
}

// honorifics returns the spans of names after honorifics ("Dr. Smith"):
// the regexp runs only at the honorifics' words.
func honorifics(text string) [][]int {
	var out [][]int
	for _, h := range []string{"Dr", "Mr", "Ms", "Mx", "Prof", "Miss", "Sr", "Herr", "Frau"} {
		for off := 0; ; {
			i := strings.Index(text[off:], h)
			if i < 0 {
				break
			}
			p := off + i
			off = p + len(h)
			if p > 0 && (isAlnum(text[p-1]) || text[p-1] == '_') {
				continue
			}
			if m := honorificRE.FindStringIndex(text[p:min(len(text), p+80)]); m != nil && m[0] == 0 {
				out = append(out, []int{p, p + m[1]})
			}
		}
	}
	return out
}

// scrubList scrubs a value of metadata, which may be a list joined with
// ", " (a resource's env: "DB_USER=shop, DB_PASSWORD=…"): item by item,
// a NAME=value item as its name's value, so that a secret is replaced
// and the rest of the list kept.
func (s *scrubber) scrubList(v string) string {
	if !strings.Contains(v, ", ") {
		return s.scrub(v)
	}
	items := strings.Split(s.known(v), ", ")
	for i, it := range items {
		if name, val, ok := strings.Cut(it, "="); ok && envNameRE.MatchString(name) {
			items[i] = name + "=" + s.scrubValue(name, val)
			continue
		}
		items[i] = s.scrub(it)
	}
	return strings.Join(items, ", ")
}

// scrubValue scrubs a value that a resource assigns to key: as the text
// "key: value" would be scrubbed, so that a password assigned to
// DB_PASSWORD is caught although the value alone looks harmless.
func (s *scrubber) scrubValue(key, value string) string {
	if value == "" {
		return value
	}
	line := key + ": " + value
	// The value is a value, not an expression, whatever the file's syntax.
	syn := s.syntax
	s.syntax = synLines
	defer func() { s.syntax = syn }()
	out := s.scrub(line)
	if rest, ok := strings.CutPrefix(out, key+": "); ok {
		return rest
	}
	return s.scrub(value)
}

// secretSpans replaces the given byte ranges of text (in any order,
// overlaps merged) with secret placeholders: kinds[i] names range i's
// kind, else kind does.
func (s *scrubber) secretSpans(text, kind string, spans [][]int, kinds []string) string {
	return replaceSpans(text, spans,
		func(v string, at int) bool {
			return strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">") || insidePlaceholder(text, at)
		},
		func(i int, v string) string {
			k := kind
			if kinds != nil {
				k = kinds[i]
			}
			return s.placeholder(k, v, true)
		})
}

// spans replaces the given byte ranges of text with placeholders of kind.
// keys, when given, name the value each range stands for (a person found
// by first name shares the placeholder of the whole name); otherwise the
// value itself, case-folded, is the key.
func (s *scrubber) spans(text, kind string, spans [][]int, keys []string) string {
	return replaceSpans(text, spans,
		func(v string, at int) bool {
			return strings.HasPrefix(v, "<") || strings.Contains(v, ">") || insidePlaceholder(text, at)
		},
		func(i int, v string) string {
			key := strings.ToLower(strings.Join(strings.Fields(v), " "))
			if keys != nil {
				key = keys[i]
			}
			return s.placeholder(kind, key, false)
		})
}

// replaceSpans replaces the byte ranges of text (in any order; a range
// overlapping an earlier one is dropped) with what with returns for range
// i and its value, unless skip says the value at that offset stays.
func replaceSpans(text string, spans [][]int, skip func(v string, at int) bool, with func(i int, v string) string) string {
	if len(spans) == 0 {
		return text
	}
	idx := make([]int, len(spans))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return spans[idx[a]][0] < spans[idx[b]][0] })
	var b strings.Builder
	last := 0
	for _, i := range idx {
		m := spans[i]
		if m[0] < last || m[1] <= m[0] {
			continue
		}
		v := text[m[0]:m[1]]
		if skip(v, m[0]) {
			continue
		}
		b.WriteString(text[last:m[0]])
		b.WriteString(with(i, v))
		last = m[1]
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// insidePlaceholder reports whether offset i lies inside a <PLACEHOLDER>.
func insidePlaceholder(text string, i int) bool {
	open := strings.LastIndexByte(text[:i], '<')
	if open < 0 || strings.IndexByte(text[open:i], '>') >= 0 {
		return false
	}
	end := strings.IndexByte(text[i:], '>')
	if end < 0 {
		return false
	}
	inner := text[open+1 : i+end]
	for _, c := range inner {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// first returns the first non-empty string.
func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result equal those in s (strings.ToLower can change lengths).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// wanted reports whether the rule's literals occur in the text.
func (r rule) wanted(text, lower string) bool {
	if len(r.need) == 0 {
		return true
	}
	hay := text
	if r.fold {
		hay = lower
	}
	for _, n := range r.need {
		if strings.Contains(hay, n) {
			return true
		}
	}
	return false
}

// digitsOrAt reports whether text could hold personal data at all: every
// PII rule needs an '@' or at least seven digits.
func digitsOrAt(text string) bool {
	if strings.IndexByte(text, '@') >= 0 {
		return true
	}
	n := 0
	for i := 0; i < len(text); i++ {
		if text[i] >= '0' && text[i] <= '9' {
			if n++; n >= 7 {
				return true
			}
		}
	}
	return false
}

// window is how far past a literal an anchored rule looks.
const window = 256

// matches returns the rule's submatch indexes in text.
func (r rule) matches(text, lower string) [][]int {
	if r.find != nil {
		return r.find(text)
	}
	if r.digits > 0 {
		return r.digitRunMatches(text)
	}
	if !r.anchored {
		return r.re.FindAllStringSubmatchIndex(text, -1)
	}
	hay := text
	if r.fold {
		hay = lower
	}
	var starts []int
	for _, n := range r.need {
		for off := 0; ; {
			i := strings.Index(hay[off:], n)
			if i < 0 {
				break
			}
			starts = append(starts, off+i)
			off += i + len(n)
		}
	}
	sort.Ints(starts)
	var out [][]int
	end := 0
	for _, p := range starts {
		if p < end {
			continue
		}
		m := r.re.FindStringSubmatchIndex(text[p:min(len(text), p+window)])
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += p
			}
		}
		out = append(out, m)
		end = m[1]
	}
	return out
}

// runByte marks the bytes of a digit run: digits and " .-()+/".
var runByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789 .-()+/") {
		t[c] = true
	}
	return t
}()

// digitRunMatches runs the rule on every run of digits and separators with
// enough digits, with one byte of context on each side for \b.
func (r rule) digitRunMatches(text string) [][]int {
	var out [][]int
	isRun := func(c byte) bool { return runByte[c] }
	for i := 0; i < len(text); {
		if !isRun(text[i]) {
			i++
			continue
		}
		j, digits := i, 0
		for j < len(text) && isRun(text[j]) {
			if text[j] >= '0' && text[j] <= '9' {
				digits++
			}
			j++
		}
		if digits >= r.digits {
			from, to := max(0, i-1), min(len(text), j+1)
			for _, m := range r.re.FindAllStringSubmatchIndex(text[from:to], -1) {
				for k := range m {
					if m[k] >= 0 {
						m[k] += from
					}
				}
				out = append(out, m)
			}
		}
		i = j
	}
	return out
}

func (s *scrubber) apply(text, lower string, r rule, secret bool) string {
	locs := r.matches(text, lower)
	if locs == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range locs {
		vs, ve := m[2*r.group], m[2*r.group+1]
		if vs < 0 || vs < last {
			continue
		}
		v := text[vs:ve]
		if strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">") {
			continue // already a placeholder
		}
		if r.keep != nil && r.keep(v) {
			continue
		}
		if r.quoteGroup > 0 && s.code && m[2*r.quoteGroup] == m[2*r.quoteGroup+1] {
			continue
		}
		if r.keyGroup > 0 && r.keyVeto != nil && m[2*r.keyGroup] >= 0 {
			// The whole key: the keyword may sit inside a longer name.
			ks := m[2*r.keyGroup]
			for ks > 0 && (isAlnum(text[ks-1]) || text[ks-1] == '_' || text[ks-1] == '-') {
				ks--
			}
			if r.keyVeto(text[ks:m[2*r.keyGroup+1]]) {
				continue
			}
		}
		b.WriteString(text[last:vs])
		b.WriteString(s.placeholder(r.kind, v, secret))
		last = ve
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

func (s *scrubber) placeholder(kind, value string, secret bool) string {
	key := kind + "\x00" + value
	if p, ok := s.seen[key]; ok {
		return p
	}
	s.count[kind]++
	if secret {
		s.secrets++
	} else {
		s.entities++
	}
	var p string
	if secret {
		p = "<" + kind + ">"
	} else {
		p = fmt.Sprintf("<%s_%d>", kind, s.count[kind])
	}
	s.seen[key] = p
	return p
}

// withoutNUL returns c with every NUL character replaced by U+FFFD: a
// Slack message may hold one (a \u0000 escape), PostgreSQL's text cannot,
// and the gate admits only what every store can hold.
func withoutNUL(c core.Chunk) core.Chunk {
	fix := func(s *string) {
		if strings.IndexByte(*s, 0) >= 0 {
			*s = strings.ReplaceAll(*s, "\x00", "\uFFFD")
		}
	}
	for _, s := range []*string{&c.Text, &c.ContextPrefix, &c.SymbolName, &c.SymbolKind, &c.Signature, &c.FilePath, &c.GitHash,
		&c.SectionPath, &c.Author, &c.Timestamp, &c.Channel, &c.ThreadID, &c.ServiceName, &c.RepoName, &c.SourceURI} {
		fix(s)
	}
	fixList := func(v []string) []string {
		out := append([]string(nil), v...)
		for i := range out {
			fix(&out[i])
		}
		return out
	}
	c.Imports, c.CallsOut, c.CalledBy = fixList(c.Imports), fixList(c.CallsOut), fixList(c.CalledBy)
	fixMap := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			fix(&k)
			fix(&v)
			out[k] = v
		}
		return out
	}
	c.K8sLabels, c.Meta = fixMap(c.K8sLabels), fixMap(c.Meta)
	c.Calls = append([]core.Call(nil), c.Calls...)
	for i := range c.Calls {
		k := &c.Calls[i]
		for _, s := range []*string{&k.System, &k.Method, &k.Target, &k.Base, &k.Env, &k.Config, &k.Default, &k.Client, &k.Text} {
			fix(s)
		}
	}
	c.Refs = append([]core.Ref(nil), c.Refs...)
	for i := range c.Refs {
		fix(&c.Refs[i].Name)
	}
	return c
}
