package chunk

import (
	"path"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// IsSecretEnvFile reports whether a file is an environment file that
// holds real values (.env, .env.production, ledger.env) rather than a
// template (.env.example): its values are masked when it is indexed.
func IsSecretEnvFile(name string) bool {
	lbase := strings.ToLower(path.Base(name))
	if strings.HasSuffix(lbase, ".example") || strings.HasSuffix(lbase, ".sample") || strings.HasSuffix(lbase, ".template") ||
		strings.HasSuffix(lbase, ".dist") || strings.HasSuffix(lbase, ".defaults") || strings.HasSuffix(lbase, ".tmpl") {
		return false
	}
	return lbase == ".env" || strings.HasPrefix(lbase, ".env.") || strings.HasSuffix(lbase, ".env")
}

// secretKeyRE names keys whose values are secrets whatever they look like.
var secretKeyRE = lazyre.New(`(?i)(pass|pwd|secret|token|key|credential|auth|private|cert|salt|signature|session|cookie|sas|conn(ection)?str)`)

// plainValueRE is what a value that can be shown looks like: a number, a
// word, a host name, host:port, a path or a URL without a user part.
var plainValueRE = lazyre.New(`^[A-Za-z0-9_.:/@,+-]{0,120}$`)

// maskEnvValue returns the value of an environment file's key as it may
// be indexed, and whether it was kept: addresses (without their user
// part), host names, numbers and flags are; anything under a secret-like
// key, anything with a user part, and anything long and random is not.
func maskEnvValue(key, v string) (string, bool) {
	v = strings.TrimSpace(v)
	uq := strings.Trim(v, `"'`)
	if uq == "" {
		return v, true
	}
	if secretKeyRE.MatchString(key) {
		return "…", false
	}
	if i := strings.Index(uq, "://"); i > 0 {
		if at := strings.LastIndexByte(uq, '@'); at > i {
			uq = uq[:i+3] + uq[at+1:] // an address, without its user part
			v = uq
		}
	}
	if !plainValueRE.MatchString(uq) || strings.Contains(uq, "@") {
		return "…", false
	}
	// A long token without separators is a credential whatever its key.
	if len(uq) >= 20 && !strings.ContainsAny(uq, ".:/-_,") {
		return "…", false
	}
	return v, true
}

var envLineRE = lazyre.New(`^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_.]*)(\s*=\s*)(.*)$`)

// DotEnv chunks an environment file that holds real values: its lines
// with every value that could be a secret replaced by "…" (the chunk
// text is not the file's bytes; Meta "format" says so), and a settings
// resource with the values that were kept, for the service graph (a
// compose file's ${VAR} interpolation, a service's addresses).
func (c *Chunker) DotEnv(src []byte, base core.Chunk) Result {
	lines := strings.Split(string(src), "\n")
	res := core.Resource{Kind: core.ResourceSettings, Name: base.FilePath, Data: map[string]string{}, Line: 1}
	var out []string
	for i, l := range lines {
		m := envLineRE.FindStringSubmatch(l)
		if m == nil || strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
			continue
		}
		v, kept := maskEnvValue(m[2], m[4])
		out = append(out, m[1]+m[2]+m[3]+v)
		if kept {
			res.Data[m[2]] = strings.Trim(strings.TrimSpace(v), `"'`)
			res.Keys = append(res.Keys, core.KeyLine{Key: m[2], Line: i + 1})
		}
	}
	text := strings.Join(out, "\n")
	r := c.fallback([]byte(text), base, "")
	r.Fallback = ""
	for i := range r.Chunks {
		ch := &r.Chunks[i]
		if ch.Meta == nil {
			ch.Meta = map[string]string{}
		}
		ch.Meta["format"] = "env file, values masked"
	}
	if len(res.Data) > 0 {
		attach(&r, res)
	}
	return r
}
