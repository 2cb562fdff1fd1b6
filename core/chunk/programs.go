package chunk

import (
	"path"
	"slices"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// maxPrograms bounds a resource's Programs: a long args list of paths
// (mounted files, certificates) names no more programs.
const maxPrograms = 8

// commandItems returns a command, args or entrypoint value as its items:
// a list's, or a string as one item (compose's shell form).
func commandItems(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	var out []string
	for _, x := range list(v) {
		out = append(out, str(x))
	}
	return out
}

// programWords appends to out, once each, the programs a command or args
// list names (core.Resource.Programs): the first word of a command, the
// first word of the script a shell runs (sh -c "exec cart --port 80"),
// and every word written as a path (/usr/local/bin/cart, ./server), items
// split at spaces as a shell would. Flags, assignments, template
// expressions and paths of files rather than programs (/etc/app.yaml,
// /dev/fuse) are not programs.
func programWords(out []string, items []string, command bool) []string {
	words := commandWords(items)
	for i, w := range words {
		words[i] = strings.Trim(w, `"'`)
	}
	script := -1 // the index of a shell script's first word
	if command && len(words) > 2 && shells[path.Base(words[0])] {
		for k := 1; k+1 < len(words) && strings.HasPrefix(words[k], "-"); k++ {
			if strings.Contains(words[k], "c") {
				script = k + 1
				if words[script] == "exec" && script+1 < len(words) {
					script++
				}
				break
			}
		}
	}
	// A script's later statements run tools (echo ... | /usr/bin/app
	// upload): the service's program is in its first.
	end := len(words)
	if script >= 0 {
		for k := script; k < len(words); k++ {
			if w := words[k]; w == "&&" || w == "||" || w == "|" || w == ";" || strings.HasSuffix(w, ";") {
				end = k + 1
				break
			}
		}
	}
	for k, w := range words {
		if k >= script && script >= 0 {
			w = strings.TrimRight(w, ";&|")
		}
		if w == "" || strings.ContainsAny(w, "={}$*") || strings.HasPrefix(w, "-") || k >= end {
			continue
		}
		isPath := strings.HasPrefix(w, "/") || strings.HasPrefix(w, "./")
		if !(command && k == 0) && k != script && (!isPath || !programPath(w)) {
			continue
		}
		if len(out) < maxPrograms && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// commandWords splits a command's items (a list's, or a shell form's one
// string) at spaces as a shell would, quotes left on: sh -c "a; b" is
// sh, -c, "a;, b".
func commandWords(items []string) []string {
	var words []string
	for _, it := range items {
		words = append(words, strings.Fields(it)...)
	}
	return words
}

// shells are the programs that run a script given with -c.
var shells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true, "zsh": true}

// programPath reports whether a path can name a program: not a folder
// (it ends in /), not a file with an extension (app.yaml, tls.crt), not
// under the folders of configuration, devices, data and state.
func programPath(p string) bool {
	if strings.HasSuffix(p, "/") || path.Ext(p) != "" {
		return false
	}
	for _, dir := range []string{"/etc/", "/dev/", "/proc/", "/sys/", "/var/", "/tmp/", "/run/", "/data/", "/config/", "/secrets/", "/certs/"} {
		if strings.HasPrefix(p, dir) {
			return false
		}
	}
	return true
}

// helmPrograms returns the programs the command and args lists of a Helm
// template's containers (not its init containers) name, template lines
// ({{- if .Values.debug }}) skipped: the template cannot be read as YAML.
func helmPrograms(doc []byte) []string {
	lines := strings.Split(string(doc), "\n")
	var out []string
	inInit := false
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(t, "initContainers:"):
			inInit = true
			continue
		case strings.HasPrefix(t, "containers:"):
			inInit = false
			continue
		}
		key := strings.TrimSpace(strings.TrimPrefix(t, "-"))
		command := strings.HasPrefix(key, "command:")
		if inInit || !command && !strings.HasPrefix(key, "args:") {
			continue
		}
		_, rest, _ := strings.Cut(key, ":")
		rest = strings.TrimSpace(rest)
		var items []string
		switch {
		case strings.HasPrefix(rest, "["):
			for _, it := range strings.Split(strings.Trim(rest, "[]"), ",") {
				items = append(items, strings.Trim(strings.TrimSpace(it), `"'`))
			}
		case strings.HasPrefix(rest, "|") || strings.HasPrefix(rest, ">"):
			// A block scalar (command: >- and a shell line below): the
			// more indented lines are one item.
			col := indentOf(lines[i])
			var text []string
			for j := i + 1; j < len(lines); j++ {
				u := strings.TrimSpace(lines[j])
				ind := indentOf(lines[j])
				if u != "" && !strings.HasPrefix(u, "{{") && ind <= col {
					break
				}
				if u != "" && !strings.HasPrefix(u, "{{") {
					text = append(text, u)
				}
				i = j
			}
			items = []string{strings.Join(text, " ")}
		case rest != "" && !strings.HasPrefix(rest, "#"):
			items = []string{strings.Trim(rest, `"'`)}
		default:
			// A block list: "- item" lines no less indented than the key,
			// template and comment lines between them.
			col := indentOf(lines[i])
			for j := i + 1; j < len(lines); j++ {
				u := strings.TrimSpace(lines[j])
				if u == "" || strings.HasPrefix(u, "{{") || strings.HasPrefix(u, "#") {
					continue
				}
				ind := indentOf(lines[j])
				if !strings.HasPrefix(u, "- ") || ind < col {
					break
				}
				items = append(items, strings.Trim(strings.TrimSpace(u[2:]), `"'`))
				i = j
			}
		}
		out = programWords(out, items, command)
	}
	return out
}

// indentOf returns how many spaces and tabs begin line.
func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }

// expansionRE finds Make and shell expansions: $(NAME), ${NAME}, $(shell ...).
var expansionRE = lazyre.New(`\$\([^()]*\)|\$\{[^{}]*\}`)

// goBuildValueFlags are the go build flags that take a value.
var goBuildValueFlags = map[string]bool{
	"o": true, "ldflags": true, "gcflags": true, "asmflags": true, "tags": true, "mod": true, "modfile": true,
	"installsuffix": true, "p": true, "pkgdir": true, "toolexec": true, "overlay": true, "pgo": true,
	"buildmode": true, "compiler": true, "gccgoflags": true, "coverpkg": true, "covermode": true, "C": true,
}

// GoBuildResource reads the go build commands of a build script (a
// Dockerfile's RUN lines, a Makefile's recipes, a shell script): each
// program's output name and the package it builds (core.ResourceGoBuild).
// A build whose output or package is computed ($(BIN), ${PKG}) is left
// out.
func GoBuildResource(src []byte) (core.Resource, bool) {
	r := core.Resource{Kind: core.ResourceGoBuild, Name: "go build", Data: map[string]string{}}
	// Logical lines: a line ending in a backslash goes on.
	var lines []string
	var starts []int
	for n, l := range strings.Split(string(src), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if k := len(lines) - 1; k >= 0 && strings.HasSuffix(lines[k], "\\") {
			lines[k] = strings.TrimSuffix(lines[k], "\\") + " " + l
			continue
		}
		lines, starts = append(lines, l), append(starts, n+1)
	}
	for k, line := range lines {
		for rest := line; ; {
			i := strings.Index(rest, "go build ")
			if i < 0 {
				break
			}
			rest = rest[i+len("go build "):]
			// Make and shell expansions ($(GO_LDFLAGS), ${TAGS}) are
			// values, not the end of the command.
			cmd := expansionRE.ReplaceAllString(rest, "$$X")
			if j := strings.IndexAny(cmd, ";|&)"); j >= 0 {
				cmd = cmd[:j]
			}
			out, pkg := goBuildArgs(shellFields(cmd))
			if out == "" || pkg == "" || strings.ContainsAny(out+pkg, "$%{}") {
				continue
			}
			name := path.Base(out)
			if strings.HasSuffix(out, "/") || out == "." {
				name = path.Base(strings.TrimSuffix(pkg, "/..."))
			}
			if _, seen := r.Data[name]; !seen && name != "." && name != "/" {
				r.Data[name] = pkg
				if r.Line == 0 {
					r.Line = starts[k]
				}
			}
		}
	}
	return r, len(r.Data) > 0
}

// goBuildArgs returns a go build command's -o value and its one package
// argument ("" when there is none, or several).
func goBuildArgs(args []string) (out, pkg string) {
	var pkgs []string
	for k := 0; k < len(args); k++ {
		a := args[k]
		if name, ok := strings.CutPrefix(a, "-"); ok {
			name = strings.TrimPrefix(name, "-")
			name, val, hasVal := strings.Cut(name, "=")
			if goBuildValueFlags[name] && !hasVal && k+1 < len(args) {
				k++
				val = args[k]
			}
			if name == "o" {
				out = val
			}
			continue
		}
		pkgs = append(pkgs, a)
	}
	if len(pkgs) != 1 {
		return out, ""
	}
	return out, pkgs[0]
}

// shellFields splits a command line into words as a shell would at
// spaces and quotes ("-ldflags '-s -w'" is two words).
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, c := range s {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(c)
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// migrationCommand reports whether a command (with its args) runs a
// database migration and only that (core.Resource.Migrates): a word of
// it is migrate, migration or migrations, or ends in :migrate (rails
// db:migrate), or it runs alembic upgrade, and no statement follows (an
// application that migrates and then serves, ./app migrate && ./app
// serve, is the application). Split at spaces as a shell would.
func migrationCommand(items []string) bool {
	words := commandWords(items)
	// runsAfter reports whether the statement from word i on runs a
	// program (not exit 0, echo done, true).
	runsAfter := func(i int) bool {
		if i >= len(words) {
			return false
		}
		switch strings.Trim(words[i], `"'`) {
		case "exit", "true", "echo", "sleep", ":", "":
			return false
		}
		return true
	}
	migrates := false
	for i, raw := range words {
		w := strings.ToLower(strings.Trim(raw, `"';&|()`))
		switch {
		case migrates && (raw == "&&" || raw == "||" || raw == ";" || raw == "|"):
			if runsAfter(i + 1) {
				return false // something runs after the migration
			}
		case w == "migrate" || w == "migration" || w == "migrations" || strings.HasSuffix(w, ":migrate"):
			migrates = true
		case path.Base(w) == "alembic" && slices.ContainsFunc(words[i+1:], func(x string) bool { return strings.Trim(x, `"';&|()`) == "upgrade" }):
			migrates = true
		}
		if migrates && strings.HasSuffix(strings.TrimRight(raw, `"')`), ";") && runsAfter(i+1) {
			return false // a statement follows: alembic upgrade head; exec app
		}
	}
	return migrates
}

// taskWorker is the task queue whose worker a command (with its args)
// runs (core.Resource.Worker): "celery" for celery -A proj worker,
// python -m celery ... worker, or a reloader running it (watchmedo
// auto-restart -- celery ... worker), "celery-beat" for its scheduler
// (celery -A proj beat), "celery-flower" for its dashboard (celery ...
// flower, flower --app=proj); Ruby's "sidekiq" (bundle exec sidekiq),
// "good_job" (good_job start), "solid_queue" (bin/jobs, rails
// solid_queue:start), "resque" (rake resque:work) and "delayed_job"
// (rake jobs:work, bin/delayed_job start); "" for Celery's other
// commands (inspect, purge) and every other program.
func taskWorker(items []string) string {
	words := commandWords(items)
	for i, raw := range words {
		w := strings.Trim(raw, `"'();`)
		switch base := path.Base(w); {
		case base == "flower":
			if i == 0 {
				return "celery-flower" // Flower's own command
			}
			continue
		case base == "sidekiq":
			return "sidekiq" // bundle exec sidekiq -C config/sidekiq.yml
		case base == "good_job" && i+1 < len(words) && words[i+1] == "start":
			return "good_job"
		case w == "bin/jobs" || w == "./bin/jobs" || base == "solid_queue:start":
			return "solid_queue"
		case base == "resque:work" || base == "resque:workers":
			return "resque"
		case base == "jobs:work" || base == "delayed_job" && i+1 < len(words) && (words[i+1] == "start" || words[i+1] == "run"):
			return "delayed_job"
		case base == "celery":
		default:
			continue
		}
		// The first word after celery's options is its command.
		for k := i + 1; k < len(words); k++ {
			w := strings.Trim(words[k], `"'();`)
			if celeryValued[w] {
				k++ // its value follows
				continue
			}
			if strings.HasPrefix(w, "-") || w == "" {
				continue
			}
			switch w {
			case "worker":
				return "celery"
			case "beat":
				return "celery-beat"
			case "flower":
				return "celery-flower"
			}
			break
		}
	}
	return ""
}

// celeryValued are the options of the celery command that take their
// value as the next word.
var celeryValued = map[string]bool{"-A": true, "--app": true, "-b": true, "--broker": true, "--result-backend": true,
	"--workdir": true, "--config": true, "--loader": true}

// daprAppID is the app id a daprd command line gives its app: -app-id
// X, --app-id X or -app-id=X; "" for none.
func daprAppID(items []string) string {
	words := commandWords(items)
	for i, w := range words {
		w = strings.Trim(w, `"',`)
		switch {
		case (w == "-app-id" || w == "--app-id") && i+1 < len(words):
			return strings.Trim(words[i+1], `"',`)
		case strings.HasPrefix(w, "-app-id=") || strings.HasPrefix(w, "--app-id="):
			_, v, _ := strings.Cut(w, "=")
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// maxFlags bounds a resource's Flags.
const maxFlags = 32

// commandFlags returns the options a command and its args pass
// (core.Resource.Flags), items split at spaces as a shell would: -name=value
// and --name=value, and --name value where the value looks like an
// address (host:port, a URL; a bare word after a flag may as well be an
// argument). A comma-separated list of addresses is one option per item.
func commandFlags(items []string) []core.EnvVar {
	words := commandWords(items)
	var out []core.EnvVar
	add := func(name, value string) {
		name = strings.TrimLeft(name, "-")
		value = strings.TrimRight(strings.Trim(value, `"'`), ";&|")
		if name == "" || value == "" || len(out) >= maxFlags {
			return
		}
		parts := strings.Split(value, ",")
		for _, p := range parts {
			if len(parts) > 1 && !strings.Contains(p, ":") {
				parts = []string{value} // not a list of addresses
				break
			}
		}
		for _, p := range parts {
			if p != "" && len(out) < maxFlags {
				out = append(out, core.EnvVar{Name: name, Value: p})
			}
		}
	}
	for i := 0; i < len(words); i++ {
		w := strings.Trim(words[i], `"'`)
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			continue
		}
		if name, value, ok := strings.Cut(w, "="); ok {
			add(name, value)
			continue
		}
		if i+1 < len(words) {
			next := strings.Trim(words[i+1], `"'`)
			if !strings.HasPrefix(next, "-") && (strings.Contains(next, "://") || hostPortRE.MatchString(next)) {
				add(w, next)
				i++
			}
		}
	}
	return out
}
