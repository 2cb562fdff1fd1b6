package chunk

import (
	"path"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// A Procfile (Heroku, Dokku, foreman, honcho) lists the processes of one
// application, all run from its folder:
//
//	web: gunicorn shop.wsgi
//	worker: celery -A shop worker
//	release: python manage.py migrate
//
// Each process is read as a compose service built from the Procfile's
// folder is (Labels["runner"] "procfile"): web is the application
// itself, named after the folder (the repository at its root), the
// others that name with -TYPE after it (shop-worker). A release process
// migrates and exits. A Procfile with no web process and no job worker
// (goreman's clusters of one program, etcd1: bin/etcd ...) declares
// nothing: its processes are a developer's, not an application's.

// procTypeRE is a process type's name: letters, digits, _ and -, as
// foreman and Heroku take them (urgent-worker).
var procTypeRE = lazyre.New(`[A-Za-z0-9_][A-Za-z0-9_-]*`)

// ProcfileResources reads a Procfile at file in repository repo.
func ProcfileResources(src []byte, file, repo string) []core.Resource {
	app := path.Base(path.Dir(file))
	if app == "." || app == "/" {
		app = repo
	}
	if app == "" {
		return nil
	}
	type proc struct {
		name, cmd string
		line      int
	}
	var procs []proc
	serves := false
	for i, l := range strings.Split(string(src), "\n") {
		l = strings.TrimSpace(l)
		name, cmd, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l, "#") || procTypeRE.FindString(name) != name || strings.TrimSpace(cmd) == "" {
			continue
		}
		cmd = strings.TrimSpace(cmd)
		procs = append(procs, proc{name, cmd, i + 1})
		if name == "web" || taskWorker([]string{cmd}) != "" {
			serves = true
		}
	}
	if !serves {
		return nil
	}
	var out []core.Resource
	for _, p := range procs {
		r := core.Resource{Kind: core.ResourceCompose, Name: app + "-" + p.name, Build: ".", Line: p.line,
			Labels: map[string]string{"runner": "procfile"}}
		if p.name == "web" {
			r.Name = app
		}
		r.Service = r.Name
		items := []string{p.cmd}
		r.Programs = programWords(nil, items, true)
		r.Worker = taskWorker(items)
		r.Migrates = p.name == "release" || migrationCommand(items)
		r.Flags = commandFlags(items)
		out = append(out, r)
	}
	return out
}
