package chunk

import (
	"regexp"
	"testing"
)

// TestCallNames: the suffix tests that replaced three regular expressions
// (a fifth of a crawl's CPU, asked of every call) answer as they did.
func TestCallNames(t *testing.T) {
	envRE := regexp.MustCompile(`(?i)(getenv|environ\.get|environment\.getenvironmentvariable|envor|env\.get|getenvordefault|lookupenv|env_or|env\b|system\.getenv)$`)
	cfgRE := regexp.MustCompile(`(?i)(getvalue(<[^>]*>)?|getconnectionstring|getproperty|getstring|config\.get|settings\.get)$`)
	wrapRE := regexp.MustCompile(`(?i)(pathescape|queryescape|encodeuricomponent|encodeuri|escapedatastring|escapeuristring|quote|quote_plus|urlencode|encode|itoa|tostring|string|str|format_id|sprint|new uri|new url|uri\.create|url\.parse|parse)$`)
	names := []string{
		"os.Getenv", "os.LookupEnv", "process.env.get", "os.environ.get", "Environment.GetEnvironmentVariable",
		"System.getenv", "envOr", "env_or", "getEnvOrDefault", "env", "dotenv", "Env.Get", "environ", "getenvs",
		"config.GetValue<int>", "Configuration.GetValue<List<int>>", "GetValue", "GetValue<>", "GetSection<T>",
		"configuration.GetConnectionString", "props.getProperty", "prefs.getString", "config.get", "settings.get", "getter",
		"url.PathEscape", "url.QueryEscape", "encodeURIComponent", "Uri.EscapeDataString", "quote_plus", "str",
		"strconv.Itoa", "x.ToString", "String", "new Uri", "new URL", "URI.create", "url.Parse", "json.parse",
		"fmt.Sprint", "strings.Builder", "", ">", "<", "a<b>", "ENV", "ParseInt", "Stringer",
	}
	for _, n := range names {
		if got, want := envCall(n), envRE.MatchString(n); got != want {
			t.Errorf("envCall(%q) = %v, the regular expression said %v", n, got, want)
		}
		if got, want := cfgCall(n), cfgRE.MatchString(n); got != want {
			t.Errorf("cfgCall(%q) = %v, the regular expression said %v", n, got, want)
		}
		if got, want := wrapperCall(n), wrapRE.MatchString(n); got != want {
			t.Errorf("wrapperCall(%q) = %v, the regular expression said %v", n, got, want)
		}
	}
}

// FuzzCallNames checks the same on any name.
func FuzzCallNames(f *testing.F) {
	envRE := regexp.MustCompile(`(?i)(getenv|environ\.get|environment\.getenvironmentvariable|envor|env\.get|getenvordefault|lookupenv|env_or|env\b|system\.getenv)$`)
	cfgRE := regexp.MustCompile(`(?i)(getvalue(<[^>]*>)?|getconnectionstring|getproperty|getstring|config\.get|settings\.get)$`)
	wrapRE := regexp.MustCompile(`(?i)(pathescape|queryescape|encodeuricomponent|encodeuri|escapedatastring|escapeuristring|quote|quote_plus|urlencode|encode|itoa|tostring|string|str|format_id|sprint|new uri|new url|uri\.create|url\.parse|parse)$`)
	for _, s := range []string{"os.Getenv", "GetValue<int>", "url.Parse", "a<b<c>>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, n string) {
		if envCall(n) != envRE.MatchString(n) || cfgCall(n) != cfgRE.MatchString(n) || wrapperCall(n) != wrapRE.MatchString(n) {
			t.Errorf("%q: env %v/%v cfg %v/%v wrapper %v/%v", n, envCall(n), envRE.MatchString(n), cfgCall(n), cfgRE.MatchString(n), wrapperCall(n), wrapRE.MatchString(n))
		}
	})
}
