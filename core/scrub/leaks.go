package scrub

import (
	"sort"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// The gitleaks rule set (github.com/zricethezav/gitleaks/v8, its default
// configuration: some 200 rules for the credentials of hosted services,
// with keyword prefilters and entropy limits) runs on every text after
// the gate's own rules. It is built once per process.
var (
	leaksOnce sync.Once
	leaks     *detect.Detector
	leaksErr  error
	// leakWords finds the rules' keywords (every rule of the default
	// configuration has some but one that matches file names).
	leakWords *ahocorasick.Trie
)

func detector() (*detect.Detector, error) {
	leaksOnce.Do(func() {
		logging.Logger = zerolog.Nop() // it logs to stderr by default
		leaks, leaksErr = detect.NewDetectorDefaultConfig()
		if leaksErr != nil {
			return
		}
		// The generic rule (a secret-named key, an entropic value) is
		// the gate's own findAssigned, which knows the syntax of the
		// value and where it ends; gitleaks' regexp cuts values at
		// characters and takes names for values.
		delete(leaks.Config.Rules, "generic-api-key")
		// A JWT's header is base64 of {" and starts eyJ; the rule's
		// keyword "ey" sends every line with "key" or "they" to it.
		if r, ok := leaks.Config.Rules["jwt"]; ok {
			r.Keywords = []string{"eyj"}
			leaks.Config.Rules["jwt"] = r
		}
		seen := map[string]bool{}
		var words []string
		for _, r := range leaks.Config.Rules {
			for _, k := range r.Keywords {
				if k = strings.ToLower(k); !seen[k] {
					seen[k] = true
					words = append(words, k)
				}
			}
		}
		leakWords = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	})
	return leaks, leaksErr
}

// keywordLines returns the lines of text (lower is its lower-case) that
// hold a keyword of a rule: gitleaks matches a rule's regexp over all of
// the text it is given once the keyword occurs anywhere in it, so it is
// given only these lines.
func keywordLines(text, lower string) [][2]int {
	var starts []int
	for _, m := range leakWords.MatchString(lower) {
		starts = append(starts, strings.LastIndexByte(text[:m.Pos()], '\n')+1)
	}
	sort.Ints(starts)
	var out [][2]int
	for _, st := range starts {
		if len(out) > 0 && st < out[len(out)-1][1] {
			continue
		}
		e := len(text)
		if nl := strings.IndexByte(text[st:], '\n'); nl >= 0 {
			e = st + nl
		}
		if len(out) > 0 && st == out[len(out)-1][1]+1 {
			out[len(out)-1][1] = e // the next line: one window
			continue
		}
		out = append(out, [2]int{st, e})
	}
	return out
}

// leakKinds names the placeholders of gitleaks' rules that the gate's own
// rules name too; other rules give their id in upper case.
var leakKinds = map[string]string{
	"aws-access-token": "AWS_KEY", "github-pat": "GITHUB_TOKEN", "github-fine-grained-pat": "GITHUB_TOKEN",
	"github-oauth": "GITHUB_TOKEN", "github-app-token": "GITHUB_TOKEN", "github-refresh-token": "GITHUB_TOKEN",
	"gitlab-pat": "GITLAB_TOKEN", "slack-bot-token": "SLACK_TOKEN", "slack-user-token": "SLACK_TOKEN",
	"slack-app-token": "SLACK_TOKEN", "slack-webhook-url": "SLACK_WEBHOOK", "stripe-access-token": "STRIPE_KEY",
	"gcp-api-key": "GOOGLE_API_KEY", "jwt": "JWT", "private-key": "PRIVATE_KEY", "generic-api-key": "SECRET",
}

func leakKind(rule string) string {
	if k, ok := leakKinds[rule]; ok {
		return k
	}
	return strings.ToUpper(strings.ReplaceAll(rule, "-", "_"))
}

// identifierLike reports whether a value reads as a name in code: letters
// only, in camelCase or with separators (existingSecret, shop-tls-cert).
func identifierLike(v string) bool {
	digits := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return digits == 0
}

// leakSpans runs gitleaks over text and returns where each secret it
// found is, with its kind.
func leakSpans(text, lower string) ([][]int, []string) {
	d, err := detector()
	if err != nil || d == nil {
		return nil, nil
	}
	var spans [][]int
	var kinds []string
	// One fragment of the lines with keywords: each call costs a pass
	// over all rules, and the secrets are looked up in text afterwards.
	lines := keywordLines(text, lower)
	if len(lines) == 0 {
		return nil, nil
	}
	frag := text
	if len(lines) > 1 || lines[0] != [2]int{0, len(text)} {
		var b strings.Builder
		for _, w := range lines {
			b.WriteString(text[w[0]:w[1]])
			b.WriteByte('\n')
		}
		frag = b.String()
	}
	for _, f := range d.DetectString(frag) {
		v := f.Secret
		if len(v) < 6 || strings.Contains(v, "<") && strings.Contains(v, ">") {
			continue
		}
		// The generic rule (a secret-named key and an entropic value) can
		// take a name for a value: existingSecret, access_token.
		if f.RuleID == "generic-api-key" && (notASecret(v) || identifierLike(v)) {
			continue
		}
		for off := 0; ; {
			i := strings.Index(text[off:], v)
			if i < 0 {
				break
			}
			spans = append(spans, []int{off + i, off + i + len(v)})
			kinds = append(kinds, leakKind(f.RuleID))
			off += i + len(v)
		}
	}
	return spans, kinds
}
