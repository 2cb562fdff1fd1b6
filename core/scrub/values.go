package scrub

import (
	"bytes"
	"encoding/base64"
	"sort"
	"strings"

	"coderag/core/internal/lazyre"
)

// This file finds secrets by the syntax they are written in: a value
// assigned to a secret-named key (password = "…", API_TOKEN=…, apiKey:
// …), a pair of a connection string (Password=…;), a command-line flag
// (curl -u user:pw, mysql -pPW), an HTTP authorization header, the data of
// a Kubernetes Secret. The value's extent comes from the syntax — the
// string literal's quotes, the YAML scalar up to a comment, the pair up to
// its ";" — never from a class of characters, so that a secret holding
// "#", ";", ",", ")", a space or a backslash is replaced whole.

// secretWords end the names of keys whose values are secrets: dbPassword,
// API_TOKEN, client-secret, stripeApiKey, SECRET_KEY.
var secretWords = []string{"password", "passwd", "pwd", "passphrase", "passcode", "secret", "token", "apikey",
	"credential", "credentials", "auth", "sas", "signature", "privatekey", "accesskey", "secretkey", "accountkey",
	"sharedaccesskey", "signingkey", "encryptionkey", "masterkey", "clientsecret", "privatekeyid", "pin", "pass"}

// keySeparators are dropped from key names before they are compared.
var keySeparators = strings.NewReplacer("_", "", "-", "", ".", "", " ", "")

// secretKey reports whether a key names a secret: its last words, joined
// without separators, end in one of secretWords (DB_PASSWORD, apiToken,
// aws_secret_access_key, private_key_id). A key that names where a secret
// is kept (secretName, passwordFile, existingSecret) does not.
func secretKey(key string) bool {
	k := strings.ToLower(keySeparators.Replace(key))
	if k == "" || len(k) > 64 {
		return false
	}
	if k != "privatekeyid" && namesAnObject(key) {
		return false
	}
	for _, w := range secretWords {
		if strings.HasSuffix(k, w) {
			switch w {
			case "auth", "pin", "sas", "signature", "pass":
				// Only whole words: "oauth", "spin" and "bypass" are not.
				if k != w && !strings.HasSuffix(strings.ToLower(key), "_"+w) && !strings.HasSuffix(strings.ToLower(key), "-"+w) &&
					!strings.HasSuffix(key, strings.ToUpper(w[:1])+w[1:]) {
					continue
				}
			}
			return true
		}
	}
	// ...Key of an API, an access or a secret: stripeApiKey, AWS_SECRET_ACCESS_KEY,
	// WordPress's AUTH_KEY.
	for _, w := range []string{"apikey", "accesskey", "secretkey", "privatekey", "encryptionkey", "signingkey", "masterkey", "clientkey", "hmackey", "licensekey", "authkey"} {
		if strings.Contains(k, w) && strings.HasSuffix(k, "key") {
			return true
		}
	}
	return false
}

// passwordKey reports whether a secret-named key names a password, whose
// value is secret whatever it looks like ("admin" is a weak password, not
// a word); the values of other secret-named keys (tokens, keys,
// signatures) are secrets only when they look generated.
func passwordKey(key string) bool {
	k := strings.ToLower(key)
	return containsAny(k, "password", "passwd", "pwd", "passphrase", "passcode")
}

// secretValue reports whether v, assigned to the secret-named key, is a
// secret: not a reference, name or message (notASecretLiteral), and, for
// a key that is no password's, shaped like a credential.
func secretValue(key, v string, literal bool) bool {
	// "Bearer abc": the scheme is no part of the credential.
	if sp := strings.IndexByte(v, ' '); sp > 0 && authScheme(v[:sp]) {
		v = strings.TrimSpace(v[sp+1:])
	}
	if notASecretLiteral(v, literal) {
		return false
	}
	if passwordKey(key) {
		return true
	}
	return generated(v)
}

// authScheme reports whether w is an HTTP authorization scheme.
func authScheme(w string) bool {
	switch strings.ToLower(w) {
	case "bearer", "basic", "token", "digest", "apikey", "sharedaccesssignature":
		return true
	}
	return false
}

// generated reports whether a value looks made by a machine: 16
// characters or more that are not words (a description, a kebab-case
// name), or 8 or more mixing letters with digits, cases or symbols.
func generated(v string) bool {
	if len(v) >= 16 {
		return !lowerWords(v) && !kebabName(v)
	}
	if len(v) < 8 {
		return false
	}
	return mixedOrLong(v) || strings.ContainsAny(v, "!#$%&*+/=?@^_~") && strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
}

// keyChar reports whether c may be part of a key name.
func keyChar(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.'
}

// valueExtent returns where the value that starts at i ends: inside
// matching quotes (backslash escapes skipped; the quotes are not part of
// the value), else to the end of the line, less a trailing comment
// (" #", " //") and white space. stopAt, when not empty, also ends an
// unquoted value (";" for connection-string pairs). ok is false when there
// is no value.
func valueExtent(text string, i int, stopAt string) (start, end int, quoted bool) {
	if i >= len(text) {
		return i, i, false
	}
	switch q := text[i]; q {
	case '"', '\'', '`':
		j := i + 1
		for j < len(text) && text[j] != q {
			if text[j] == '\\' && q != '\'' {
				j++
				if j >= len(text) {
					break // a backslash that ends the text
				}
			}
			if text[j] == '\n' && q != '`' {
				return i, i, false // an unterminated literal
			}
			j++
		}
		if j >= len(text) {
			return i, i, false
		}
		return i + 1, j, true
	}
	end = i
	for end < len(text) && text[end] != '\n' && text[end] != '\r' {
		if stopAt != "" && strings.IndexByte(stopAt, text[end]) >= 0 {
			break
		}
		if (text[end] == '#' || text[end] == '/' && end+1 < len(text) && text[end+1] == '/') && end > i && (text[end-1] == ' ' || text[end-1] == '\t') {
			break // a comment after white space
		}
		end++
	}
	for end > i && (text[end-1] == ' ' || text[end-1] == '\t') {
		end--
	}
	if end > i+1 && text[end-1] == '\\' && (text[end-2] == ' ' || text[end-2] == '\t') {
		end -= 2 // a shell or Dockerfile line continuation
		for end > i && (text[end-1] == ' ' || text[end-1] == '\t') {
			end--
		}
	}
	// A flow collection or a call's closing brackets are not the value's.
	for end > i && strings.IndexByte("}]),", text[end-1]) >= 0 && !balanced(text[i:end-1], text[end-1]) {
		end--
	}
	return i, end, false
}

// balanced reports whether s opens the bracket that closer closes (so
// that closer belongs to s): "f(x)" keeps its ")".
func balanced(s string, closer byte) bool {
	open := map[byte]byte{')': '(', ']': '[', '}': '{'}[closer]
	if open == 0 {
		return false
	}
	return strings.Count(s, string(open)) > strings.Count(s, string(closer))
}

// notASecret reports whether a value assigned to a secret-named key is
// not one: a reference to a secret (isReference), a key or field name
// ("access_token"), a message ("Invalid username or password"), a version
// pin, a boolean, a short number, a path, a placeholder.
func notASecret(v string) bool { return notASecretLiteral(v, false) }

// notASecretLiteral is notASecret for a value that is a literal (inside
// quotes, or a pair of a connection string): there, brackets and dots are
// characters of the value, not a call or a field of code.
func notASecretLiteral(v string, literal bool) bool {
	v = strings.TrimSpace(v)
	if len(v) < 4 {
		return true
	}
	if literal {
		if placeholderLike(v) {
			return true
		}
	} else if isReference(v) {
		return true
	}
	if upperPlaceholder(v) || longFlagRE.MatchString(v) || qualifiedNameRE.MatchString(v) || namespacedName(strings.Trim(v, `'"`)) {
		return true
	}
	l := strings.ToLower(v)
	if commonWords[l] {
		return true // a word of the sentence: --etcd-client-password with --etcd-embed
	}
	switch l {
	case "true", "false", "yes", "no", "null", "none", "nil", "required", "optional", "disabled", "enabled", "string", "password",
		"secret", "token", "bearer", "basic", "oauth", "oauth2", "jwt", "sha256", "hmac", "plain", "plaintext", "default",
		"read", "write", "empty", "dummy", "test", "sample", "unset", "off", "on", "allow", "deny", "username", "user", "pass":
		return true
	}
	if !literal {
		// An expression of a configuration language: a list or a call,
		// a reference to another value (data.x.token, var.db_password).
		if strings.IndexByte("[({", v[0]) >= 0 || dottedRefRE.MatchString(v) {
			return true
		}
	}
	// The bare name of a key or field (access_token, api-key), or of a
	// secret word.
	if keyNameRE.MatchString(v) {
		bare := keySeparators.Replace(l)
		for _, w := range secretWords {
			if bare == w || bare == "access"+w || bare == "refresh"+w || bare == "id"+w || bare == "client"+w || bare == "api"+w {
				return true
			}
		}
	}
	// A message: three words or more, two of them common English, or
	// one and the rest plain words and names; or plain words around a
	// Kubernetes object's namespace/name (client auth: ns/name specified).
	if words := strings.Fields(v); len(words) >= 2 {
		common, plain, named := 0, 0, false
		for _, w := range words {
			w = strings.Trim(w, ".,:;!?'\"")
			if commonWords[strings.ToLower(w)] {
				common++
			}
			if w != "" && (allLetters(w) || kebabName(w) || namespacedName(w)) {
				plain++
				named = named || namespacedName(w)
			}
		}
		if len(words) >= 3 && (common >= 2 || common == 1 && plain == len(words)) || named && plain == len(words) {
			return true
		}
	}
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " ") && strings.Count(v, "/") >= 2 {
		return true // a path
	}
	if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
		return !strings.Contains(v, "@") // an address, unless it carries a user
	}
	return false
}

// placeholderLike reports whether a literal stands for a value instead of
// being one: ${VAR}, {{ .Values.x }}, <placeholder>, %s, *** and the
// placeholders of documentation (changeme, your-password, xxx).
func placeholderLike(v string) bool {
	switch v[0] {
	case '$', '{', '<', '%', '*':
		return true
	}
	l := strings.ToLower(v)
	for _, p := range []string{"changeme", "change-me", "change_me", "placeholder", "your_", "your-", "xxx", "redacted", "example", "dummy", "todo"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// dottedRefRE is a reference by path: var.db_password, data.x.access_token.
var dottedRefRE = lazyre.New(`^[a-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z0-9_\-\[\]"']+){1,}$`)

// keyNameRE is the name of a key or field: access_token, api-key,
// secretKey.
var keyNameRE = lazyre.New(`^[a-z][a-z0-9]*(?:[_.\-][a-z0-9]+|[A-Z][a-z0-9]+)*$`)

// qualifiedNameRE is a Kubernetes qualified name with a DNS prefix, an
// annotation's or label's key: dapr.io/api-token-secret.
var qualifiedNameRE = lazyre.New(`^(?:[a-z0-9][a-z0-9-]*\.)+[a-z]{2,}/[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$`)

// commonWords are words of messages, not of secrets.
var commonWords = set("a an the and or of to in on for with is are was be not no your you please enter invalid incorrect wrong " +
	"username user password must required missing failed expired match matches does do did cannot can't could should will " +
	"this that it its at by from as too short long least characters character contain contains only letters digits numbers")

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// assignments finds keys and their separators on the lines of text with
// one of secretHints: "key": , key: , KEY=, key =, key :=, key =>, key ?=,
// key ==. Each is [start, value start, key start, key end, separator
// start, separator end]; the key starts with a letter or "_" after the
// start of a line, white space, a bracket, "," or ";" (and a quote).
func assignments(text, lower string) [][]int {
	var out [][]int
	for _, l := range hintedLines(text, lower, secretHints...) {
		ls, le := l[0], l[1]
		for i := ls; i < le; i++ {
			c := text[i]
			if c != '=' && c != ':' {
				continue
			}
			ss, se := i, i+1
			switch {
			case c == ':' && i+1 < le && text[i+1] == '=', c == '=' && i+1 < le && (text[i+1] == '>' || text[i+1] == '='):
				se = i + 2
			case c == '=' && i > ls && text[i-1] == '?':
				ss = i - 1
			case c == '=' && i > ls && strings.IndexByte("=!<>:", text[i-1]) >= 0:
				continue // the end of another operator
			}
			k := ss
			for k > ls && (text[k-1] == ' ' || text[k-1] == '\t') {
				k--
			}
			if k > ls && (text[k-1] == '"' || text[k-1] == '\'') {
				k--
			}
			ke := k
			for k > ls && keyChar(text[k-1]) {
				k--
			}
			ks := k
			if ke-ks < 2 || ke-ks > 64 || !(isAlpha(text[ks]) || text[ks] == '_') {
				i = se - 1
				continue
			}
			b := ks
			if b > ls && (text[b-1] == '"' || text[b-1] == '\'') {
				b--
			}
			if b > ls && strings.IndexByte(" \t\r\n{(,;[", text[b-1]) < 0 && !afterFlag(text[ls:b]) {
				i = se - 1
				continue
			}
			v := se
			for v < le && (text[v] == ' ' || text[v] == '\t') {
				v++
			}
			out = append(out, []int{b, v, ks, ke, ss, se})
			i = se - 1
		}
	}
	return out
}

// afterFlag reports whether before ends with a command-line flag and its
// "=": the pair is a flag's value (kubectl create secret
// --from-literal=password=…, --build-arg=TOKEN=…).
func afterFlag(before string) bool {
	i := len(before) - 1
	if i < 2 || before[i] != '=' {
		return false
	}
	j := i // before[j:i] is the flag with its dashes: -e, --from-literal
	for j > 0 && (isAlpha(before[j-1]) || before[j-1] >= '0' && before[j-1] <= '9' || before[j-1] == '-') {
		j--
	}
	return i-j >= 2 && before[j] == '-' && (j == 0 || before[j-1] == ' ' || before[j-1] == '\t')
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// secretHints are what every secret-named key holds, lower-cased: the
// finder runs its regexp only near them.
var secretHints = []string{"pass", "pwd", "secret", "token", "key", "credential", "auth", "sas", "signature", "pin"}

// hintedLines returns the [start, end) of the lines of text holding one
// of hints (lower-case, looked for in lower: text lower-cased by
// asciiLower), a line continued with a trailing backslash running on into
// the next: the finders run their regexps only there.
func hintedLines(text, lower string, hints ...string) [][2]int {
	return hintedLinesWhere(text, lower, nil, hints...)
}

// hintedLinesWhere is hintedLines for the hints at [start, end) where
// where, when not nil, says yes.
func hintedLinesWhere(text, lower string, where func(start, end int) bool, hints ...string) [][2]int {
	var starts []int
	for _, h := range hints {
		for off := 0; ; {
			i := strings.Index(lower[off:], h)
			if i < 0 {
				break
			}
			p := off + i
			off = p + len(h)
			if where != nil && !where(p, p+len(h)) {
				continue
			}
			starts = append(starts, strings.LastIndexByte(text[:p], '\n')+1)
		}
	}
	if len(starts) == 0 {
		return nil
	}
	sort.Ints(starts)
	var out [][2]int
	for _, st := range starts {
		if len(out) > 0 && st < out[len(out)-1][1] {
			continue
		}
		e := st
		for {
			nl := strings.IndexByte(text[e:], '\n')
			if nl < 0 {
				e = len(text)
				break
			}
			e += nl
			if line := strings.TrimRight(text[st:e], "\r \t"); strings.HasSuffix(line, "\\") && e+1 < len(text) {
				e++
				continue
			}
			break
		}
		if len(out) > 0 && st <= out[len(out)-1][1] {
			out[len(out)-1][1] = e
			continue
		}
		out = append(out, [2]int{st, e})
	}
	return out
}

// wordStart says yes to hints at the start of a word of lower.
func wordStart(lower string) func(start, end int) bool {
	return func(start, _ int) bool { return start == 0 || !isAlnum(lower[start-1]) && lower[start-1] != '_' }
}

// findIn runs re on the lines of text holding one of hints and returns
// its submatch indexes in text.
func findIn(re *lazyre.Regexp, text, lower string, hints ...string) [][]int {
	return findInWhere(re, text, lower, nil, hints...)
}

// findInWhere is findIn for the hints where says yes to.
func findInWhere(re *lazyre.Regexp, text, lower string, where func(start, end int) bool, hints ...string) [][]int {
	var out [][]int
	for _, l := range hintedLinesWhere(text, lower, where, hints...) {
		for _, m := range re.FindAllStringSubmatchIndex(text[l[0]:l[1]], -1) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += l[0]
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// syntax is how a file writes an unquoted value.
type syntax int

const (
	// synLines: an unquoted value runs to the end of its line (.properties,
	// .env, YAML, INI, Makefiles).
	synLines syntax = iota
	// synWords: KEY=value ends at white space (shell, Dockerfiles, the
	// commands of documents and conversations).
	synWords
	// synExpr: only literals are values; an unquoted value is code
	// (source code, Terraform).
	synExpr
)

// syntaxOf returns the syntax of a chunk's text from its language.
func syntaxOf(code bool, lang string) syntax {
	if code {
		return synExpr
	}
	switch lang {
	case "hcl", "terraform":
		return synExpr
	case "dotenv", "properties", "ini", "yaml", "makefile", "toml", "conf", "json", "xml":
		return synLines
	}
	return synWords
}

// findAssigned finds the values assigned to secret-named keys. Where
// values are expressions only literals count: password = readPassword()
// is code.
func findAssigned(text, lower string, syn syntax) [][]int {
	var out [][]int
	for _, m := range assignments(text, lower) {
		key := text[m[2]:m[3]]
		sep := text[m[4]:m[5]]
		if sep == "==" {
			continue // a comparison, or a version pin (secretstorage==3.5.0)
		}
		if sep == ":" && m[5] < len(text) && text[m[5]] != ' ' && text[m[5]] != '\t' && text[m[5]] != '\n' &&
			text[m[5]] != '\r' && text[m[5]] != '"' && text[m[5]] != '\'' {
			continue // a: with no space after is no mapping (an ARN, a URL, a time)
		}
		if !secretKey(key) {
			continue
		}
		s, e, quoted := valueExtent(text, m[1], "")
		if e <= s {
			continue
		}
		if syn == synExpr && !quoted {
			// An expression: its literal default, if any
			// (process.env.SESSION_SECRET ?? "…", getenv("X", "…")).
			if ls, le, ok := literalDefault(text[s:e]); ok && secretValue(key, text[s+ls:s+le], true) {
				out = append(out, []int{s + ls, s + le})
			}
			continue
		}
		if syn == synWords && !quoted && sep == "=" && m[1] == m[5] && text[m[4]-1] != ' ' {
			// KEY=value on a command line: the value is one word.
			if w := strings.IndexAny(text[s:e], " \t"); w > 0 {
				e = s + w
			}
		}
		v := text[s:e]
		// Outside code an unquoted value is a literal too (.properties,
		// .env, YAML): its brackets and dots are characters.
		if !secretValue(key, v, quoted || syn != synExpr) {
			continue
		}
		if !quoted && sep == ":" && (v == "|" || v == ">" || v == "|-" || v == ">-") {
			continue // a YAML block scalar: its lines are the value (see findBlocks)
		}
		out = append(out, []int{s, e})
	}
	return out
}

// literalDefault finds, in an expression assigned to a secret-named key,
// a string literal that is its value when something else is unset: after
// ??, ||, "or", ?:, or as a later argument of a call whose first is an
// environment variable's name. It returns the literal's extent.
func literalDefault(expr string) (int, int, bool) {
	prev, prevEnd := "", -1 // the literal before this one, and where it ends
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		if c != '"' && c != '\'' && c != '`' {
			continue
		}
		s, e, quoted := valueExtent(expr, i, "")
		if !quoted {
			return 0, 0, false
		}
		v := expr[s:e]
		before := strings.TrimSpace(expr[:i])
		// After a comma only as the argument right after a literal that
		// names what is looked up (getenv("X", "…"), get("db.password",
		// "…")), not after a value (PlainAuth("", "user@host", pw, host))
		// nor as a later key of a map literal ({"k": v, "name": v}).
		defaulted := strings.HasSuffix(before, "??") || strings.HasSuffix(before, "||") || strings.HasSuffix(before, " or") ||
			strings.HasSuffix(before, "?:") ||
			prevEnd >= 0 && strings.TrimSpace(expr[prevEnd:i]) == "," && lookupNameRE.MatchString(prev)
		if defaulted && !envNameRE.MatchString(v) && !notASecretLiteral(v, true) && !lowerWords(v) {
			return s, e, true
		}
		prev, prevEnd = v, e+1
		i = e
	}
	return 0, 0, false
}

var envNameRE = lazyre.New(`^[A-Z][A-Z0-9_]+$`)

// longFlagRE is a command-line flag (--access-token, --admin): the next
// item of a list after a flag that takes no value, not a value.
var longFlagRE = lazyre.New(`^--[a-z][a-z0-9]*(?:-[a-z0-9]+)*$`)

// lookupNameRE is a name a value is looked up by: an environment
// variable, a setting's key (db.password, session-secret).
var lookupNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_.\-:]*$`)

// kebabRE is a name of lower-case words: metrics-client-certs,
// session_cookie.name.
var kebabRE = lazyre.New(`^[a-z]+(?:[-_.][a-z]+)+$`)

// kebabName reports whether v is a name of lower-case words.
func kebabName(v string) bool { return kebabRE.MatchString(v) }

// upperPlaceholder reports whether v is an upper-case name that says what
// belongs there (S0ME_SECRET, YOUR_API_TOKEN, CHANGE_ME): a placeholder.
func upperPlaceholder(v string) bool {
	if !upperSnakeRE.MatchString(v) {
		return false
	}
	norm := leetDigits.Replace(v)
	for _, part := range strings.Split(norm, "_") {
		switch part {
		case "SECRET", "PASSWORD", "PASS", "PASSWD", "TOKEN", "KEY", "APIKEY", "CHANGE", "CHANGEME", "REPLACE", "YOUR", "SOME",
			"MY", "DUMMY", "FAKE", "TEST", "EXAMPLE", "SAMPLE", "PLACEHOLDER", "HERE", "VALUE", "INSERT", "ENTER", "TODO":
			return true
		}
	}
	return false
}

var leetDigits = strings.NewReplacer("0", "O", "1", "I", "3", "E", "4", "A", "5", "S")

var upperSnakeRE = lazyre.New(`^[A-Z0-9]+(?:_[A-Z0-9]+)+$`)

// lowerWords reports whether v is words of lower-case letters separated
// by spaces: a description ("database password"), not a secret.
func lowerWords(v string) bool {
	if !strings.Contains(v, " ") {
		return false
	}
	for _, w := range strings.Fields(v) {
		for i := 0; i < len(w); i++ {
			if w[i] < 'a' || w[i] > 'z' {
				return false
			}
		}
	}
	return true
}

// connPairRE finds a connection string's secret pairs: Password=,
// Pwd=, AccountKey=, SharedAccessKey=, SharedAccessSignature=, sig=.
var connPairRE = lazyre.New(`(?i)(?:^|[;"'\s])(password|pwd|accountkey|sharedaccesskey|sharedaccesssignature|sig|clientsecret|client_secret|sastoken)\s*=\s*`)

var (
	pairAfterRE  = lazyre.New(`^\s*[A-Za-z][A-Za-z ]*=`)
	pairBeforeRE = lazyre.New(`[A-Za-z][A-Za-z ]*=[^;=]*$`)
)

// libpqPairRE finds the password of a keyword/value connection string
// (libpq, MySQL DSNs): "dbname=web user=web password=… host=db".
var libpqPairRE = lazyre.New(`(?i)\b[a-z_]+=[^\s'";=]+\s+(?:[a-z_]+=[^\s'";=]+\s+)*(?:password|passwd|pwd)=`)

// findConnPairs finds the values of connection-string secret pairs, each
// up to its ";" or the end of the literal or line; in a keyword/value
// string, up to the next space.
func findConnPairs(text, lower string) [][]int {
	var out [][]int
	for _, m := range findIn(libpqPairRE, text, lower, "password=", "passwd=", "pwd=") {
		s, e, quoted := valueExtent(text, m[1], "")
		if !quoted {
			e = s
			for e < len(text) && !strings.ContainsRune(" \t\r\n'\"`", rune(text[e])) {
				e++
			}
		}
		if e-s >= 3 && !notASecretLiteral(text[s:e], true) {
			out = append(out, []int{s, e})
		}
	}
	equals := func(_, end int) bool { // the key is followed by "="
		for end < len(lower) && (lower[end] == ' ' || lower[end] == '\t' || lower[end] >= 'a' && lower[end] <= 'z') {
			end++
		}
		return end < len(lower) && lower[end] == '='
	}
	for _, m := range findInWhere(connPairRE, text, lower, equals, "password", "pwd", "accountkey", "sharedaccess", "sig", "clientsecret", "client_secret", "sastoken") {
		// A pair of a connection string: after a ";", or followed by one.
		afterSemi := m[0] < len(text) && text[m[0]] == ';'
		s, e, quoted := valueExtent(text, m[1], ";")
		if quoted {
			// Password='a;b' inside a connection string: the quotes belong
			// to the pair.
		} else {
			// Inside a code literal: the value ends at the literal's quote.
			for i := s; i < e; i++ {
				if text[i] == '"' || text[i] == '\'' || text[i] == '`' {
					e = i
					break
				}
			}
		}
		// ...and the ";" joins pairs: key=value on its other side.
		next := e
		if quoted {
			next = e + 1
		}
		beforeSemi := next < len(text) && text[next] == ';' && (pairAfterRE.MatchString(text[next+1:min(len(text), next+64)]) ||
			next+1 >= len(text) || strings.IndexByte("\"'`\n", text[next+1]) >= 0)
		if afterSemi && !pairBeforeRE.MatchString(text[max(0, m[0]-64):m[0]]) {
			afterSemi = false
		}
		if !afterSemi && !beforeSemi {
			continue
		}
		if e-s >= 3 && !notASecretLiteral(text[s:e], true) {
			out = append(out, []int{s, e})
		}
	}
	return out
}

var (
	// curl -u user:pw, --user user:pw, sshpass -p pw, docker login -p pw,
	// --password pw, --password=pw, mysql -pPW (attached), mysqladmin -pPW.
	cliUserRE = lazyre.New(`(?:^|[\s\x60(;|&"'])(?:curl|wget|http|https|xh)\s(?:(?:[^\n]|\\\r?\n)*?\s)?(?:-u|--user|--http-user)[ =]['"]?[^\s:'"]+:([^\s'"\x60]+)`)
	cliPassRE = lazyre.New(`(?:^|[\s"'])--?[a-z-]*(?:password|passwd|pass|token|api-key|apikey|secret)(?:[ =]|,[ \t]*)(['"]?)([^\s'",]+)`)
	// ["redis-server", "--requirepass", "…"]: a flag and its value as
	// items of a list.
	cliListRE   = lazyre.New(`["']--?[a-z-]*(?:password|passwd|pass|token|api-key|apikey|secret)["']\s*,\s*(["'])`)
	cliShortPRE = lazyre.New(`(?:^|[\s\x60(;|&"'])(?:(?:docker|podman|nerdctl|buildah|skopeo|oras|helm\s+registry)\s+login\b(?:[^\n]|\\\r?\n)*?\s-p|sshpass\s+-p)[ =]?(['"]?)([^\s'"\x60]+)`)
	// redis-cli -a pw, mongosh/mongo -p pw, sqlcmd -P pw, az login -p pw,
	// oc login -p pw: tools whose short flag is the password.
	toolPassRE = lazyre.New(`(?:^|[\s\x60(;|&"'])(?:redis-cli\b(?:[^\n]|\\\r?\n)*?\s-a|(?:mongosh|mongo)\b(?:[^\n]|\\\r?\n)*?\s-p|sqlcmd\b(?:[^\n]|\\\r?\n)*?\s-P|(?:az|oc)\s+login\b(?:[^\n]|\\\r?\n)*?\s-p)[ =]?(['"]?)([^\s'"\x60]+)`)
	// machine host login user password pw: a .netrc line, wherever it is
	// written (echoed into one by a Dockerfile).
	netrcRE = lazyre.New(`\bmachine\s+\S+\s+login\s+\S+\s+password\s+(['"]?)([^\s'"\x60]+)`)
	// aws configure set aws_secret_access_key …, npm config set
	// //registry/:_authToken …, git config credential.… …: a tool's
	// setting named after a secret, set on the command line.
	configSetRE = lazyre.New(`(?:^|[\s\x60(;|&"'])(?:aws\s+configure|npm\s+config|yarn\s+config|pnpm\s+config|git\s+config(?:\s+--[a-z]+)*|conda\s+config)\s+set\s+(\S+)\s+(['"]?)([^\s'"\x60]+)`)
	// gh secret set NAME --body …: the secret's value.
	ghSecretRE = lazyre.New(`(?:^|[\s\x60(;|&"'])gh\s+secret\s+set\b[^\n]*?\s(?:--body|-b)[ =](['"]?)([^\s'"\x60]+)`)
	// echo "…" | docker login --password-stdin: what is echoed is the
	// password.
	echoLoginRE = lazyre.New(`(?:^|[\s\x60(;|&"'])(?:echo|printf)\s+(['"]?)([^\s'"|\x60$]+)['"]?\s*\|\s*(?:docker|podman|nerdctl|buildah|skopeo|oras|helm\s+registry)\s+login\b[^\n]*--password-stdin`)
	mysqlPRE    = lazyre.New(`(?:^|[\s\x60(;|&"'])(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?[\s"']-p([^\s'"\x60-][^\s'"\x60]*)`)
	authHdrRE   = lazyre.New(`(?i)\b(?:authorization\s*[:=]\s*["']?\s*)?(bearer|basic|token)\s+([A-Za-z0-9._~+/\-]{8,}=*)`)
	proseRE     = lazyre.New(`(?i)(?:^|[^<A-Za-z0-9_])(password|passphrase|passcode|passwd|pwd|pw|pin|secret|token|api key|access key|private key)(?:\s+(?:is|was)|(?:[ \t]+[A-Za-z]+){0,6}[ \t]*(?::|=>|->|→|=))[ \t]*["'\x60]?([^\s"'\x60]{6,})`)
	// "password Xq7…", "use `Xq7…` as the password", "the creds are
	// admin / Xq7…", "PIN 4821": more ways a chat or a runbook tells one.
	proseNextRE  = lazyre.New(`(?i)(?:^|[^<A-Za-z0-9_])(password|passwd|pw)[ \t]+["'\x60]?([^\s"'\x60]{6,})`)
	proseAsRE    = lazyre.New(`(?i)\b(?:use|try|with)[ \t]+["'\x60]?([^\s"'\x60]{6,}?)["'\x60]?[ \t]+as[ \t]+(?:the[ \t]+|a[ \t]+|your[ \t]+)?(password|passphrase|pin|token|secret|api key)\b`)
	proseCredsRE = lazyre.New(`(?i)\b(?:creds|credentials|login)[ \t]*(?:are|is|:|=)[ \t]*["'\x60]?[A-Za-z0-9._@-]{2,64}["'\x60]?[ \t]*(?:/|:)[ \t]*["'\x60]?([^\s"'\x60]{6,})`)
	prosePinRE   = lazyre.New(`\b(?:PIN|[Pp]in (?:code|number|is))[ \t]*(?:is[ \t]+|:[ \t]*|=[ \t]*)?(\d{4,8})\b`)
)

// findCLI finds secrets on command lines: curl's user:password, password
// and token flags, mysql's -pPASSWORD, docker login -p.
func findCLI(text, lower string) [][]int {
	var out [][]int
	for _, m := range findIn(cliUserRE, text, lower, "curl", "wget", "http ", "https ", "xh ") {
		if !isReference(text[m[2]:m[3]]) {
			out = append(out, []int{m[2], m[3]})
		}
	}
	flag := func(start, _ int) bool { // in a flag: -x-password, --token
		for start > 0 && (lower[start-1] >= 'a' && lower[start-1] <= 'z' || lower[start-1] == '-') {
			start--
			if lower[start] == '-' && (start == 0 || !isAlnum(lower[start-1]) && lower[start-1] != '-' && lower[start-1] != '_') {
				return true
			}
		}
		return false
	}
	flagged := findInWhere(cliPassRE, text, lower, flag, "pass", "token", "api-key", "apikey", "secret")
	flagged = append(flagged, findIn(cliShortPRE, text, lower, "login", "sshpass")...)
	flagged = append(flagged, findIn(toolPassRE, text, lower, "redis-cli", "mongo", "sqlcmd", "login")...)
	{
		for _, m := range flagged {
			s, e := m[4], m[5]
			if m[3] > m[2] { // quoted: to the closing quote
				if qs, qe, ok := valueExtent(text, m[2], ""); ok {
					s, e = qs, qe
				}
			}
			// psql --password --host=db: a flag without a value.
			if !strings.HasPrefix(text[s:e], "-") && !notASecret(text[s:e]) {
				out = append(out, []int{s, e})
			}
		}
	}
	for _, m := range findInWhere(cliListRE, text, lower, flag, "pass", "token", "api-key", "apikey", "secret") {
		if s, e, ok := valueExtent(text, m[2], ""); ok && !notASecretLiteral(text[s:e], true) {
			out = append(out, []int{s, e})
		}
	}
	// Patterns whose second group is the secret.
	for _, p := range []struct {
		re   *lazyre.Regexp
		hint string
	}{{netrcRE, "machine"}, {ghSecretRE, "secret"}, {echoLoginRE, "password-stdin"}} {
		for _, m := range findIn(p.re, text, lower, p.hint) {
			if v := text[m[4]:m[5]]; !isReference(v) && !notASecretLiteral(v, true) {
				out = append(out, []int{m[4], m[5]})
			}
		}
	}
	for _, m := range findIn(configSetRE, text, lower, "config") {
		if v := text[m[6]:m[7]]; secretKey(keyTail(text[m[2]:m[3]])) && !isReference(v) && !notASecretLiteral(v, true) {
			out = append(out, []int{m[6], m[7]})
		}
	}
	for _, m := range findIn(mysqlPRE, text, lower, "mysql", "mariadb") {
		if !isReference(text[m[2]:m[3]]) {
			out = append(out, []int{m[2], m[3]})
		}
	}
	return out
}

// credentialArg is which argument of a call that takes a user name and a
// password is the password: Go's req.SetBasicAuth(user, pw) and
// smtp.PlainAuth(identity, user, pw, host), Python's HTTPBasicAuth(user,
// pw) and aiohttp's BasicAuth, requests' auth=(user, pw), .NET's
// NetworkCredential(user, pw), Java's UsernamePasswordCredentials(user,
// pw) and PasswordAuthentication, and login(user, pw) (ftplib, smtplib,
// imaplib, a client's login).
var credentialArg = map[string]int{"SetBasicAuth": 1, "HTTPBasicAuth": 1, "HTTPDigestAuth": 1, "BasicAuth": 1, "DigestAuth": 1,
	"NetworkCredential": 1, "UsernamePasswordCredentials": 1, "PasswordAuthentication": 1, "PasswordCredential": 1,
	"PlainAuth": 2, "login": 1, "auth=": 1}

// signKeyArg is which argument of a signing call is its key: jwt.sign(
// payload, "…"), jwt.encode, createHmac(alg, "…"), hmac.new(b"…", …),
// SignedString([]byte("…")), SymmetricSecurityKey(…GetBytes("…")).
var signKeyArg = map[string]int{"jwt.sign": 1, "jwt.verify": 1, "jwt.encode": 1, "jwt.decode": 1, "createHmac": 1,
	"hmac.new": 0, "hmac.New": 1, "SignedString": 0, "SymmetricSecurityKey": 0}

// ownedSigners are the signing calls signKeyArg names with their owner.
var ownedSigners = set("sign verify encode decode new New")

// pairCalls store a value under a key: props.put("password", "…"),
// System.setProperty(…), os.Setenv(…), settings.Add(…), PHP's
// define('DB_PASSWORD', '…') (wp-config.php).
var pairCalls = set("put setProperty Setenv setenv putenv setdefault Set set add Add AddOrUpdate define")

// setterEnds are the lower-case ends of the names of setters and
// builders that take a secret: ds.setPassword("…"), .password("…"),
// .withApiKey("…").
var setterEnds = []string{"password", "passwd", "secret", "token", "apikey", "api_key", "accesskey", "access_key",
	"privatekey", "private_key", "signingkey", "signing_key"}

// readVerbs are the first words of calls that read, make or check a
// secret rather than set one: GetPassword("smtp"), createToken("ci").
var readVerbs = set("get read fetch load lookup find has is check validate verify reset generate gen new create make hash " +
	"encrypt decrypt rotate delete remove revoke clear parse sign refresh issue request require must update save store " +
	"print log mask redact test expect assert")

// firstWord is the first word of a camelCase or snake_case name.
func firstWord(name string) string {
	for i := 1; i < len(name); i++ {
		if name[i] == '_' || name[i] >= 'A' && name[i] <= 'Z' {
			return name[:i]
		}
	}
	return name
}

// findSecretArguments finds secrets passed as literal arguments: the
// password of a credentials call (kind PASSWORD), and (kind SECRET) the
// value given to a setter or builder named after a secret, stored under
// a key that names one, or used as the key of a signing call. A secret
// passed as a variable is no secret of the text; login(user, pw) counts
// only when the user is a literal too, so that login("…") of a UI
// test's helper is not taken for one. It looks at the name before each
// "(" once (no pattern per kind of call: a chunk of code has a "(" every
// few words) and returns the spans with their kinds.
func findSecretArguments(text, lower string) (spans [][]int, kinds []string) {
	add := func(key string, a callArg) {
		if v := text[a.start:a.end]; a.literal && secretValue(key, v, true) {
			spans, kinds = append(spans, []int{a.start, a.end}), append(kinds, "SECRET")
		}
	}
	for off := 0; ; {
		i := strings.IndexByte(text[off:], '(')
		if i < 0 {
			break
		}
		p := off + i
		off = p + 1
		e := p
		for e > 0 && (text[e-1] == ' ' || text[e-1] == '\t') {
			e--
		}
		s := e
		for s > 0 && (isAlnum(text[s-1]) || text[s-1] == '_' || text[s-1] == '.') {
			s--
		}
		full := text[s:e]
		if s == e {
			if !tupleOf(text[:e], "auth") {
				continue
			}
			full = "auth=" // requests' auth=("user", "…")
		}
		name := full[strings.LastIndexByte(full, '.')+1:]
		q := p + 1 // the first argument
		for q < len(text) && (text[q] == ' ' || text[q] == '\t' || text[q] == '\n' || text[q] == '\r') {
			q++
		}
		quoted := q < len(text) && (text[q] == '"' || text[q] == '\'' || text[q] == '`')
		k, signing := signKeyArg[name]
		if j := strings.LastIndexByte(full, '.'); !signing && j > 0 && ownedSigners[name] {
			owner := full[:j] // jwt of jwt.sign, hmac of hmac.new
			k, signing = signKeyArg[owner[strings.LastIndexByte(owner, '.')+1:]+"."+name]
		}
		pw, credential := credentialArg[name]
		switch {
		case signing:
			if args := callArgs(text, p+1, 512); k < len(args) {
				add("signing_key", unwrapBytes(text, args[k]))
			}
		case credential:
			args := callArgs(text, p+1, 512)
			if len(args) <= pw || !args[pw].literal || name == "login" && !args[0].literal {
				continue
			}
			if a := args[pw]; !isReference(text[a.start:a.end]) && !notASecretLiteral(text[a.start:a.end], true) {
				spans, kinds = append(spans, []int{a.start, a.end}), append(kinds, "PASSWORD")
			}
		case !quoted:
		case pairCalls[name]:
			args := callArgs(text, p+1, 512)
			if len(args) != 2 || !args[0].literal {
				continue
			}
			if key := keyTail(text[args[0].start:args[0].end]); secretKey(key) {
				add(key, args[1])
			}
		case hasAnySuffix(lower[e-len(name):e], setterEnds):
			n, setter := name, false
			for _, pre := range []string{"set", "with", "Set", "With"} {
				if rest, ok := strings.CutPrefix(n, pre); ok && rest != "" && (rest[0] < 'a' || rest[0] > 'z') {
					n, setter = rest, true
				}
			}
			if !setter && readVerbs[strings.ToLower(firstWord(n))] || !secretKey(n) {
				continue // GetPassword("smtp") reads one
			}
			if args := callArgs(text, p+1, 512); len(args) == 1 {
				add(n, args[0])
			}
		}
	}
	return spans, kinds
}

// keyTail is the last part of a dotted or path-like key, the one that
// says what it holds: keyStorePassword of javax.net.ssl.keyStorePassword,
// _authToken of //registry.npmjs.org/:_authToken.
func keyTail(key string) string {
	return key[strings.LastIndexAny(key, "./:")+1:]
}

// tupleOf reports whether before ends with key and "=": the "(" after it
// opens the tuple assigned to key (auth = ("user", "…")).
func tupleOf(before, key string) bool {
	b := strings.TrimRight(before, " \t")
	if !strings.HasSuffix(b, "=") {
		return false
	}
	b = strings.TrimRight(b[:len(b)-1], " \t")
	return strings.HasSuffix(b, key) && (len(b) == len(key) || !isAlnum(b[len(b)-len(key)-1]) && b[len(b)-len(key)-1] != '_')
}

// hasAnySuffix reports whether s ends with one of suffixes.
func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// bytesWrapRE is a string literal turned into bytes: []byte("…"),
// Buffer.from("…"), Encoding.UTF8.GetBytes("…"), bytes("…"), b"…".
var bytesWrapRE = lazyre.New(`^(?:\[\]byte\(|Buffer\.from\(|Encoding\.(?:UTF8|ASCII|Default)\.GetBytes\(|bytes\(|b(?:["']))`)

// unwrapBytes returns the literal inside an argument that turns one into
// bytes, or the argument as it is.
func unwrapBytes(text string, a callArg) callArg {
	if a.literal {
		return a
	}
	arg := text[a.start:a.end]
	loc := bytesWrapRE.FindStringIndex(arg)
	if loc == nil {
		return a
	}
	i := a.start + loc[1]
	if text[i-1] == '"' || text[i-1] == '\'' {
		i-- // b"…": the quote is the literal's
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'' || text[i] == '`') {
		if s, e, ok := valueExtent(text, i, ""); ok && e < a.end+1 {
			return callArg{start: s, end: e, literal: true}
		}
	}
	return a
}

// callArg is one argument of a call: its extent in the text, inside the
// quotes when it is a string literal.
type callArg struct {
	start, end int
	literal    bool
}

// callArgs reads the arguments of a call whose "(" ends at i, up to its
// ")" and at most limit bytes; nil when the call does not close there.
func callArgs(text string, i, limit int) []callArg {
	var args []callArg
	end := min(len(text), i+limit)
	for i < end {
		for i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
			i++
		}
		if i >= end {
			return nil
		}
		if text[i] == ')' && len(args) == 0 {
			return nil
		}
		a := callArg{start: i}
		if q := text[i]; q == '"' || q == '\'' || q == '`' {
			s, e, ok := valueExtent(text, i, "")
			if !ok {
				return nil
			}
			a = callArg{start: s, end: e, literal: true}
			i = e + 1
			for i < end && (text[i] == ' ' || text[i] == '\t') {
				i++
			}
			if i < end && text[i] != ',' && text[i] != ')' && text[i] != '.' {
				a.literal = false // "a" + b; "pw".toCharArray() is still the literal
			}
		}
		depth := 0
		for ; i < end; i++ {
			switch text[i] {
			case '(', '[', '{':
				depth++
				continue
			case ')', ']', '}':
				if depth > 0 {
					depth--
					continue
				}
			case ',':
				if depth > 0 {
					continue
				}
			case '"', '\'', '`':
				if _, e, ok := valueExtent(text, i, ""); ok {
					i = e
				}
				continue
			default:
				continue
			}
			break
		}
		if i >= end {
			return nil
		}
		if !a.literal {
			a.end = i
		}
		args = append(args, a)
		if text[i] == ')' {
			return args
		}
		i++ // past the ","
	}
	return nil
}

// queryParamRE finds a URL's query parameter: ?password=…&sig=….
var queryParamRE = lazyre.New(`[?&]([A-Za-z_][A-Za-z0-9_\-]{1,40})=([^&#\s'"<>\x60]+)`)

// findQueryParams finds the values of secret-named query parameters of
// URLs: jdbc:postgresql://db/app?user=app&password=…, a SAS URL's sig=.
func findQueryParams(text, lower string) [][]int {
	if !strings.Contains(text, "=") || !strings.ContainsAny(text, "?&") {
		return nil
	}
	var out [][]int
	for _, m := range findIn(queryParamRE, text, lower, append([]string{"sig"}, secretHints...)...) {
		key, v := text[m[2]:m[3]], text[m[4]:m[5]]
		if (secretKey(key) || strings.EqualFold(key, "sig")) && secretValue(key, v, true) {
			out = append(out, []int{m[4], m[5]})
		}
	}
	return out
}

// findAuthHeaders finds the credentials of HTTP authorization headers and
// bearer tokens: Authorization: Basic dXNlcjpwYXNz, Bearer abc.def.
func findAuthHeaders(text, lower string) [][]int {
	var out [][]int
	for _, m := range findInWhere(authHdrRE, text, lower, wordStart(lower), "bearer", "basic", "token") {
		kind := strings.ToLower(text[m[2]:m[3]])
		v := text[m[4]:m[5]]
		if kind == "token" && !strings.Contains(strings.ToLower(text[max(0, m[0]-20):m[2]]), "authorization") {
			continue // "token" alone is a word
		}
		if notASecret(v) || !credentialLike(kind, v) {
			continue
		}
		out = append(out, []int{m[4], m[5]})
	}
	return out
}

// credentialLike reports whether v, after an authorization scheme, is a
// credential and not a word ("Basic Troubleshooting", "Bearer
// Authentication"): Basic credentials are base64 of user:password;
// tokens mix letters with digits, or are long.
func credentialLike(scheme, v string) bool {
	if scheme == "basic" {
		if b, err := base64.StdEncoding.DecodeString(v); err == nil && bytes.IndexByte(b, ':') > 0 {
			return true
		}
	}
	if len(v) >= 32 {
		return true
	}
	var letter, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	return letter && digit
}

// mixedOrLong reports whether a token looks generated: digits and
// letters, or mixed case, or 20 characters or more.
func mixedOrLong(v string) bool {
	if len(v) >= 20 {
		return true
	}
	var lower, upper, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		lower = lower || c >= 'a' && c <= 'z'
		upper = upper || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	return digit && (lower || upper) || lower && upper
}

// capitalWordRE is a capitalised word, a name: Hashicorp.
var capitalWordRE = lazyre.New(`^[A-Z][a-z]+$`)

// namespacedName reports whether v is a Kubernetes object's
// namespace/name: envoy-gateway-system/client-auth.
func namespacedName(v string) bool {
	ns, name, ok := strings.Cut(v, "/")
	isName := func(s string) bool { return s != "" && (kebabName(s) || allLetters(s) && strings.ToLower(s) == s) }
	return ok && isName(ns) && isName(name)
}

// findProse finds secrets told in sentences: "the password is X".
func findProse(text, lower string) [][]int {
	var out [][]int
	for _, m := range findInWhere(proseRE, text, lower, wordStart(lower), "pass", "pw", "pin", "secret", "token", "api key", "access key", "private key") {
		v := strings.TrimRight(text[m[4]:m[5]], ".,;:!?)")
		if notASecret(v) || !mixedOrLong(v) && !strings.ContainsAny(v, "!#$%&*+-=@^_~") {
			continue
		}
		// A password is secret whatever it looks like; a secret or a
		// token told in a sentence must look generated (the secret is
		// `metrics-client-certs` names a Kubernetes Secret).
		if k := strings.ToLower(text[m[2]:m[3]]); !passwordKey(k) && k != "pw" && k != "pin" && (!generated(v) || kebabName(v) || capitalWordRE.MatchString(v)) {
			continue
		}
		out = append(out, []int{m[4], m[4] + len(v)})
	}
	// The other shapes: the value must look like a password (letters and
	// digits or symbols), not a word ("password reset", "use it as the
	// password").
	told := func(s, e int) {
		v := strings.TrimRight(text[s:e], ".,;:!?)")
		if !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "/") && !notASecret(v) && (mixedOrLong(v) || strings.ContainsAny(v, "!#$%&*+-=@^_~")) &&
			!kebabName(v) && !capitalWordRE.MatchString(v) { // a title's next word: Password Algorithm
			out = append(out, []int{s, s + len(v)})
		}
	}
	for _, m := range findInWhere(proseNextRE, text, lower, wordStart(lower), "pass", "pw") {
		told(m[4], m[5])
	}
	for _, m := range findIn(proseAsRE, text, lower, " as ") {
		told(m[2], m[3])
	}
	for _, m := range findIn(proseCredsRE, text, lower, "creds", "credentials", "login") {
		told(m[2], m[3])
	}
	for _, m := range findIn(prosePinRE, text, lower, "pin") {
		out = append(out, []int{m[2], m[3]})
	}
	return out
}

// springDefaultRE finds a Spring placeholder with a default:
// ${mail.password:hunter2}.
var springDefaultRE = lazyre.New(`\$\{([A-Za-z0-9_.\-]+):([^}\s]+)\}`)

// csPropRE finds a C# auto-property with an initializer:
// public string RedisPassword { get; set; } = "…";
var csPropRE = lazyre.New(`([A-Za-z_][A-Za-z0-9_]*)\s*\{\s*get;[^}]*\}\s*=\s*`)

// findDefaults finds secrets given as defaults and initializers: the
// default of a Spring placeholder for a secret-named property, the
// initializer of a secret-named C# property.
func findDefaults(text string) [][]int {
	var out [][]int
	if !strings.Contains(text, "${") && !strings.Contains(text, "get;") {
		return nil
	}
	for _, m := range springDefaultRE.FindAllStringSubmatchIndex(text, -1) {
		if secretKey(text[m[2]:m[3]]) && secretValue(text[m[2]:m[3]], text[m[4]:m[5]], true) {
			out = append(out, []int{m[4], m[5]})
		}
	}
	for _, m := range csPropRE.FindAllStringSubmatchIndex(text, -1) {
		if !secretKey(text[m[2]:m[3]]) {
			continue
		}
		if s, e, quoted := valueExtent(text, m[1], ""); quoted && secretValue(text[m[2]:m[3]], text[s:e], true) {
			out = append(out, []int{s, e})
		}
	}
	return out
}

// kindSecretRE finds a Kubernetes Secret document.
var kindSecretRE = lazyre.New(`(?m)^kind:\s*["']?Secret["']?\s*$`)

// findBlocks finds the values of blocks whose every value is a secret:
// the data and stringData of a Kubernetes Secret, .dockerconfigjson, a
// Docker config's auths, a kubeconfig's user credentials, the block
// scalar under a secret-named YAML key, and the default of a Terraform
// variable with a secret-named name.
func findBlocks(text, lower string) [][]int {
	var out [][]int
	if strings.Contains(text, "Secret") || blockScalar(text) {
		out = findYAMLBlocks(text)
	}
	// "auth": "dXNlcjpwYXNz" in a Docker config; .dockerconfigjson: eyJ…
	for _, m := range findIn(dockerAuthRE, text, lower, "auth", ".docker", "identitytoken", "-data") {
		if v := text[m[2]:m[3]]; !identifierLike(v) && !namespacedName(v) {
			out = append(out, []int{m[2], m[3]})
		}
	}
	// variable "db_password" { default = "…" }
	if !strings.Contains(text, "variable") {
		return out
	}
	for _, m := range tfVarRE.FindAllStringSubmatchIndex(text, -1) {
		if !secretKey(text[m[2]:m[3]]) {
			continue
		}
		body := text[m[1]:]
		if end := strings.Index(body, "\n}"); end >= 0 {
			body = body[:end]
		}
		if d := tfDefaultRE.FindStringSubmatchIndex(body); d != nil {
			s, e, _ := valueExtent(body, d[1], "")
			if e > s && secretValue(text[m[2]:m[3]], body[s:e], true) {
				out = append(out, []int{m[1] + s, m[1] + e})
			}
		}
	}
	return out
}

// blockScalar reports whether text may hold a YAML block scalar (key: |).
func blockScalar(text string) bool {
	return strings.Contains(text, ": |") || strings.Contains(text, ": >") || strings.Contains(text, ":|") || strings.Contains(text, ":>")
}

// findYAMLBlocks finds the values of a Kubernetes Secret's data and
// stringData and the lines of block scalars under secret-named keys.
func findYAMLBlocks(text string) [][]int {
	var out [][]int
	lines := strings.SplitAfter(text, "\n")
	offs := make([]int, len(lines))
	for i, off := 0, 0; i < len(lines); i++ {
		offs[i] = off
		off += len(lines[i])
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	// The YAML document each line is in, and whether it is a Secret.
	doc := make([]int, len(lines))
	var secretDocs []bool
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i == len(lines) || strings.HasPrefix(lines[i], "---") {
			end := len(text)
			if i < len(lines) {
				end = offs[i]
			}
			secretDocs = append(secretDocs, kindSecretRE.MatchString(text[offs[min(start, len(lines)-1)]:end]))
			for j := start; j < i; j++ {
				doc[j] = len(secretDocs) - 1
			}
			if i < len(lines) {
				doc[i] = len(secretDocs)
			}
			start = i + 1
		}
	}
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r\n")
		t := strings.TrimSpace(l)
		key, rest, ok := strings.Cut(t, ":")
		key = strings.Trim(key, `"' -`)
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		block := secretDocs[doc[i]] && (key == "data" || key == "stringData") && rest == "" ||
			(rest == "|" || rest == ">" || rest == "|-" || rest == ">-" || rest == "|+") && secretKey(key)
		if !block {
			continue
		}
		base := indent(l)
		scalar := rest != ""
		for j := i + 1; j < len(lines); j++ {
			lj := strings.TrimRight(lines[j], "\r\n")
			if strings.TrimSpace(lj) == "" {
				continue
			}
			if indent(lj) <= base {
				break
			}
			if scalar {
				s := offs[j] + indent(lj)
				out = append(out, []int{s, offs[j] + len(lj)})
				continue
			}
			// key: value under data/stringData (a multi-line value is a
			// block scalar: its lines follow, deeper).
			c := strings.Index(lj, ":")
			if c < 0 {
				continue
			}
			vs := c + 1
			for vs < len(lj) && (lj[vs] == ' ' || lj[vs] == '\t') {
				vs++
			}
			v := lj[vs:]
			if v == "|" || v == ">" || v == "|-" || v == ">-" {
				for k := j + 1; k < len(lines); k++ {
					lk := strings.TrimRight(lines[k], "\r\n")
					if strings.TrimSpace(lk) != "" && indent(lk) <= indent(lj) {
						break
					}
					if strings.TrimSpace(lk) != "" {
						out = append(out, []int{offs[k] + indent(lk), offs[k] + len(lk)})
					}
					j = k
				}
				continue
			}
			s, e, _ := valueExtent(lj, vs, "")
			if e <= s || notASecretLiteral(lj[s:e], true) {
				continue
			}
			if k := strings.Trim(strings.TrimSpace(lj[:c]), `"'`); !secretKey(k) && plainKey(k) &&
				(key == "stringData" || plainBase64(lj[s:e])) {
				// A Secret's user name, host or database is kept (the
				// graph reads them); an address that carries a password
				// loses it to the rules for addresses.
				continue
			}
			out = append(out, []int{offs[j] + s, offs[j] + e})
		}
	}
	return out
}

// plainKey reports whether a key names a value that is no secret even in
// a Secret: a user name, a host, a port, a database, an address.
func plainKey(key string) bool {
	k := strings.ToLower(key)
	for _, sep := range []string{"_", "-", "."} {
		if i := strings.LastIndex(k, sep); i >= 0 {
			k = k[i+1:]
		}
	}
	// camelCase: the last word.
	if i := strings.LastIndexFunc(key, func(r rune) bool { return r >= 'A' && r <= 'Z' }); i > 0 && !strings.ContainsAny(key, "_-.") {
		k = strings.ToLower(key[i:])
	}
	switch k {
	case "user", "username", "usr", "login", "host", "hostname", "server", "address", "addr", "port", "db", "database",
		"dbname", "schema", "name", "url", "uri", "endpoint", "region", "namespace", "project", "bucket", "queue", "topic",
		"partition", "instance", "cluster", "location", "zone":
		return true
	}
	return false
}

// plainBase64 reports whether v, the base64 of a Secret's data, decodes
// to text that holds no secret shape: no "@" of a user:password@host, no
// key=value pair of a connection string.
func plainBase64(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	for _, c := range b {
		if c < ' ' || c > '~' || c == '@' || c == '=' || c == ';' {
			return false
		}
	}
	return true
}

var (
	dockerAuthRE = lazyre.New(`["']?(?:auth|\.dockerconfigjson|\.dockercfg|identitytoken|client-key-data|client-certificate-data)["']?[ \t]*:[ \t]*["']?([A-Za-z0-9+/=_\-]{12,})`)
	tfVarRE      = lazyre.New(`variable\s+"([^"]+)"\s*\{`)
	tfDefaultRE  = lazyre.New(`(?m)^\s*default\s*=\s*`)
)

// envPairRE finds a Kubernetes env entry: - name: DB_PASSWORD then value:.
var envPairRE = lazyre.New(`name:\s*["']?([A-Za-z0-9_.\-]+)["']?[ \t]*\r?\n[ \t]*value:[ \t]*`)

// findEnvPairs finds the values of Kubernetes env entries whose names
// name secrets.
func findEnvPairs(text string) [][]int {
	if !strings.Contains(text, "value:") {
		return nil
	}
	var out [][]int
	for _, m := range envPairRE.FindAllStringSubmatchIndex(text, -1) {
		if !secretKey(text[m[2]:m[3]]) {
			continue
		}
		s, e, _ := valueExtent(text, m[1], "")
		if e > s && secretValue(text[m[2]:m[3]], text[s:e], true) {
			out = append(out, []int{s, e})
		}
	}
	return out
}

var (
	// xmlElementRE is an XML element holding text: <password>…</password>
	// (Maven's settings.xml, a web.config's child elements).
	xmlElementRE = lazyre.New(`<([A-Za-z_][\w.:-]*)>([^<>\n]+)</([A-Za-z_][\w.:-]*)>`)
	// xmlAddRE is a .NET or NuGet setting: <add key="SmtpPassword"
	// value="…" />.
	xmlAddRE = lazyre.New(`<add\s+key\s*=\s*["']([^"'\n]+)["']\s+value\s*=\s*(["'])`)
)

// findXML finds secrets in XML: the text of a secret-named element and
// the value of an <add key="…" value="…"> whose key names a secret.
func findXML(text, lower string) [][]int {
	var out [][]int
	if strings.Contains(text, "</") {
		for _, m := range findIn(xmlElementRE, text, lower, secretHints...) {
			name, v := text[m[2]:m[3]], text[m[4]:m[5]]
			if name == text[m[6]:m[7]] && secretKey(localName(name)) && secretValue(localName(name), strings.TrimSpace(v), true) {
				out = append(out, []int{m[4], m[5]})
			}
		}
	}
	if !strings.Contains(lower, "<add") {
		return out
	}
	for _, m := range findIn(xmlAddRE, text, lower, "<add") {
		key := text[m[2]:m[3]]
		if s, e, ok := valueExtent(text, m[4], ""); ok && secretKey(key) && secretValue(key, text[s:e], true) {
			out = append(out, []int{s, e})
		}
	}
	return out
}

// localName is an XML name without its namespace prefix.
func localName(name string) string {
	if _, local, ok := strings.Cut(name, ":"); ok {
		return local
	}
	return name
}
