package search

import (
	"sync"
	"sync/atomic"

	"github.com/kljensen/snowball/english"

	"coderag/core/codetok"
)

// stem is the English (Porter2) stem of a lower-case word; words of code
// that are not English stem to themselves or close to it. Stems are
// cached: the reranker stems every word of 50 chunks per query.
func stem(w string) string {
	if len(w) < 4 {
		return w
	}
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := english.Stem(w, false)
	if stemCount.Add(1) < 200_000 { // bounded: a long-running server sees many words
		stems.Store(w, s)
	}
	return s
}

var (
	stems     sync.Map
	stemCount atomic.Int64
)

// synonymGroups are words of software work that name the same thing, or
// a thing and the technologies that are it (a cache: Redis, Memcached).
// They are general knowledge of the field, not of any repository. A
// query word is also found by the other words of its groups, for less.
var synonymGroups = [][]string{
	{"db", "database", "databases", "datastore"},
	{"config", "configuration", "configure", "settings", "conf"},
	{"env", "environment"},
	{"k8s", "kubernetes", "kube"},
	{"auth", "authentication", "authenticate", "login", "signin", "credential", "credentials"},
	{"authz", "authorization", "authorize", "permission", "permissions"},
	{"repo", "repository"},
	{"msg", "message", "messages"},
	{"addr", "address", "host", "hostname", "endpoint", "url", "uri"},
	{"dsn", "uri", "url", "connectionstring"},
	{"pwd", "password", "passwd", "passphrase"},
	{"mem", "memory", "ram"},
	{"disk", "disks", "filesystem", "filesystems", "volume", "volumes", "storage", "pvc"},
	{"cpu", "cpus", "core", "cores", "millicores"},
	{"timeout", "timeouts", "deadline"},
	{"retry", "retries", "retrying", "backoff", "attempt", "attempts"},
	{"cache", "cached", "caching", "redis", "memcached", "valkey"},
	{"queue", "queues", "broker", "rabbitmq", "amqp", "kafka", "nats", "sqs", "servicebus", "pubsub"},
	{"database", "postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongo", "sql", "sqlite"},
	{"webserver", "nginx", "apache", "httpd", "caddy"},
	{"proxy", "gateway", "nginx", "envoy", "ingress"},
	{"replica", "replicas", "instances", "scale", "autoscale", "hpa"},
	{"secret", "secrets", "token", "key", "apikey"},
	{"log", "logs", "logging", "logger"},
	{"metric", "metrics", "prometheus", "monitoring"},
	{"trace", "traces", "tracing", "opentelemetry", "otel", "span"},
	{"test", "tests", "spec", "specs", "e2e"},
	{"image", "images", "container", "docker", "dockerfile"},
	{"port", "ports", "listen", "listens"},
	{"health", "healthz", "liveness", "readiness", "probe", "probes"},
	{"deploy", "deployment", "deployments", "rollout"},
	{"pay", "payment", "payments", "charge", "checkout"},
	{"user", "users", "account", "accounts", "customer", "customers"},
	{"order", "orders", "purchase"},
	{"product", "products", "catalog", "catalogue", "item", "items"},
	{"cart", "basket"},
	{"email", "mail", "smtp", "mailer"},
	{"llm", "openai", "gpt", "model", "ai"},
	{"hash", "hashed", "hashing", "bcrypt", "sha256"},
	{"jwt", "token", "session"},
}

// synonyms maps a stem to the stems it is a synonym of.
var synonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range synonymGroups {
		for _, a := range g {
			for _, b := range g {
				if a != b {
					sa, sb := stem(a), stem(b)
					if sa != sb && !containsString(m[sa], sb) {
						m[sa] = append(m[sa], sb)
					}
				}
			}
		}
	}
	return m
}()

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// synonymWords are the words of the synonym groups that hold a word of
// the query (by stem), less the query's own words, in group order.
func synonymWords(query string) []string {
	own := map[string]bool{}
	for _, w := range codetok.Words(query) {
		if !codetok.IsStopWord(w) && !questionWords[w] {
			own[stem(w)] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, g := range synonymGroups {
		hit := false
		for _, w := range g {
			if own[stem(w)] {
				hit = true
			}
		}
		if !hit {
			continue
		}
		for _, w := range g {
			if st := stem(w); !own[st] && !seen[st] {
				seen[st] = true
				out = append(out, w)
			}
		}
	}
	return out
}
