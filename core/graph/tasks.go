package graph

import (
	"path"
	"slices"
	"strings"

	"coderag/core"
)

// Background jobs (core/chunk/celery.go, core/chunk/rubyjobs.go): a task
// definition (a Celery task, a Sidekiq or Active Job class) is a
// subscription of the services that run a worker of its system over the
// code that defines it, a send a publish of the services that run the
// code that sends it, both to the task's name; the broker the services
// are configured with carries it. A folder several compose services are
// built from (a web application, its worker and its scheduler: one
// image, three commands) is run by all of them: its definitions are the
// worker's, its beat schedule's sends the scheduler's, its other sends
// the others'.

// taskSystems are the job systems whose tasks the graph joins, with the
// worker roles (core.Resource.Worker) that run their tasks and the one
// that sends them on a schedule. Active Job runs on whichever backend
// the workers run.
var taskSystems = map[string]struct {
	workers   []string
	scheduler string
}{
	"celery":    {[]string{"celery"}, "celery-beat"},
	"sidekiq":   {[]string{"sidekiq"}, ""},
	"activejob": {[]string{"sidekiq", "good_job", "solid_queue", "resque", "delayed_job"}, ""},
}

// taskIndex holds the names of the tasks the index's code defines.
type taskIndex struct {
	// names are the names by system.
	names map[string]map[string]bool
	// byLast are the names by system and last part (the function's or
	// class's name, or a name= that has none).
	byLast map[[2]string][]string
	// roles are workerRole's answers, by service.
	roles map[string]string
	// chunks are the chunks that define a task (a task function's, a job
	// class's), with the task's system.
	chunks map[string]string
}

// taskIndex collects the names of the tasks the code defines.
func (b *builder) taskIndex() {
	ix := &taskIndex{names: map[string]map[string]bool{}, byLast: map[[2]string][]string{}, roles: map[string]string{}, chunks: map[string]string{}}
	for _, c := range b.in.Calls {
		if _, ok := taskSystems[c.System]; !ok || c.Kind != core.CallSubscribe || b.skipCall(c) {
			continue
		}
		ix.chunks[c.ChunkID] = c.System
		_, dir := b.codeRunners(c.Repo, c.File)
		name := taskName(c, dir)
		if ix.names[c.System] == nil {
			ix.names[c.System] = map[string]bool{}
		}
		if !ix.names[c.System][name] {
			ix.names[c.System][name] = true
			k := [2]string{c.System, lastName(name)}
			ix.byLast[k] = append(ix.byLast[k], name)
		}
	}
	b.tasks = ix
}

// lastName is the last part of a dotted (Python) or :: (Ruby) name.
func lastName(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// endsWith reports whether name is other, or ends in other after a .
// or :: (tasks.send_invoice ends with send_invoice, Billing::InvoiceJob
// with InvoiceJob).
func endsWith(name, other string) bool {
	return name == other || strings.HasSuffix(name, "."+other) || strings.HasSuffix(name, "::"+other)
}

// skipCall reports whether a call is not the system's: test code,
// tooling, examples.
func (b *builder) skipCall(c core.CallAt) bool {
	return core.IsTestPath(c.File) || core.IsToolingPath(c.File) || b.exampleCode(c.Repo, c.File)
}

// taskName is the name of the task a definition declares: its name=,
// a job class's name, or for a Celery task without one the module its
// file is, from the folder the services run (dir), and the function's
// name (billing/tasks.py in the folder a service is built from:
// billing.tasks.send_invoice).
func taskName(c core.CallAt, dir string) string {
	if c.Origin != core.FromExpression {
		return c.Target
	}
	rel := strings.TrimSuffix(c.File, ".py")
	if dir != "" {
		rel = strings.TrimPrefix(rel, dir+"/")
	}
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, "__init__"), "/")
	if rel == "" {
		return c.Target
	}
	return strings.ReplaceAll(rel, "/", ".") + "." + c.Target
}

// resolve returns the defined task of system a send names: the name
// itself, or the one defined name it is an end of or that is an end of
// it (send_invoice, tasks.send_invoice, proj.billing.tasks.send_invoice
// for billing.tasks.send_invoice; InvoiceJob for Billing::InvoiceJob),
// "" for none or several.
func (ix *taskIndex) resolve(system, name string) string {
	if ix.names[system][name] {
		return name
	}
	found := ""
	for _, d := range ix.byLast[[2]string{system, lastName(name)}] {
		if endsWith(d, name) || endsWith(name, d) {
			if found != "" && found != d {
				return ""
			}
			found = d
		}
	}
	return found
}

// codeRunners are the services that run the code of file: its owner,
// and the services built from, or mounting, a folder of the file that
// several are built from or mount (an image of the whole repository run
// with two commands); dir is the nearest folder of the file that has
// one of them.
func (b *builder) codeRunners(repo, file string) (runners []string, dir string) {
	found := false
	for _, d := range folders(file) {
		if s, ok := b.ownerAt[[2]string{repo, d}]; ok && len(runners) == 0 {
			runners = append(runners, s)
		}
		for _, s := range b.sharedBuilds[[2]string{repo, d}] {
			runners = appendUnique(runners, b.aliasOf(s))
		}
		if len(runners) > 0 && !found {
			found, dir = true, d
		}
	}
	return runners, dir
}

// folders are the folders a file is in, the nearest first and the
// repository's root ("") last.
func folders(file string) []string {
	var out []string
	for d := path.Dir(file); d != "." && d != "/"; d = path.Dir(d) {
		out = append(out, d)
	}
	return append(out, "")
}

// folderKey is how ownerAt and sharedBuilds name a folder of a
// repository: cleaned, "" for its root.
func folderKey(dir string) string {
	dir = strings.TrimPrefix(path.Clean(dir), "./")
	if dir == "." {
		return ""
	}
	return dir
}

// aliasOf is the node a name is an alias of, the name itself for none.
func (b *builder) aliasOf(name string) string {
	return first(b.alias[strings.ToLower(name)], name)
}

// workerRole is the task queue role service s's deploy files run
// (core.Resource.Worker: "celery", "celery-beat", "sidekiq", ...), ""
// for none: their command's, or, where they give none, that of the
// Dockerfile the service is built with (a compose build's, or one in
// the folder the service owns).
func (b *builder) workerRole(s string) string {
	if v, ok := b.tasks.roles[s]; ok {
		return v
	}
	v := b.workerRoleOnce(s)
	b.tasks.roles[s] = v
	return v
}

func (b *builder) workerRoleOnce(s string) string {
	for _, r := range b.in.Resources {
		if !core.IsWorkload(r.Kind) && r.Kind != core.ResourceCompose || b.aliasOf(first(r.Service, r.Name)) != s {
			continue
		}
		if r.Kind == core.ResourceCompose {
			if role := b.composeRole(r); role != "" {
				return role
			}
			continue
		}
		if r.Worker != "" || len(r.Programs) > 0 {
			if r.Worker != "" {
				return r.Worker
			}
			continue
		}
		for _, d := range b.in.Resources {
			if d.Kind == core.ResourceDockerfile && d.Worker != "" && b.ownerOf(d.Repo, d.File) == s {
				return d.Worker
			}
		}
	}
	return ""
}

// composeRole is the task queue role a compose service runs: its
// command's, or with none, that of the Dockerfile it is built with.
func (b *builder) composeRole(r core.ResourceAt) string {
	if r.Worker != "" || len(r.Programs) > 0 || r.Build == "" {
		return r.Worker
	}
	df := path.Join(path.Dir(r.File), r.Build, first(r.Dockerfile, "Dockerfile"))
	for _, d := range b.in.Resources {
		if d.Kind == core.ResourceDockerfile && d.Repo == r.Repo && d.File == df {
			return d.Worker
		}
	}
	return ""
}

// taskWorkers are the workers that run call c, a call in the chunk of
// a task (a Celery task's function, a job class); none for other calls,
// or where no service of those that run the code runs a worker of the
// task's system (its owner makes the call).
func (b *builder) taskWorkers(c core.CallAt) []string {
	if b.tasks == nil {
		return nil
	}
	sys, ok := b.tasks.chunks[c.ChunkID]
	if !ok {
		return nil
	}
	runners, _ := b.codeRunners(c.Repo, c.File)
	workers, _, _ := b.taskRoles(sys, runners)
	return workers
}

// taskRoles splits the services that run some code by what they run
// for a job system: its workers, its schedulers, and the others (a web
// application). A service that runs another role (Celery's Flower
// dashboard) or only migrates the database is none of them: it neither
// runs nor sends the code's tasks.
func (b *builder) taskRoles(system string, runners []string) (workers, schedulers, others []string) {
	ts := taskSystems[system]
	for _, s := range runners {
		switch role := b.workerRole(s); {
		case slices.Contains(ts.workers, role):
			workers = append(workers, s)
		case role != "" && role == ts.scheduler:
			schedulers = append(schedulers, s)
		case role == "" && !b.migrationJob(s):
			others = append(others, s)
		}
	}
	return workers, schedulers, others
}

// taskCall links a task definition or send (see above).
func (b *builder) taskCall(c core.CallAt, ev Evidence) {
	runners, dir := b.codeRunners(c.Repo, c.File)
	if len(runners) == 0 {
		s := b.standIn(c.Repo)
		if s == "" {
			return
		}
		runners = []string{s}
	}
	workers, schedulers, others := b.taskRoles(c.System, runners)
	var srcs []string
	if c.Kind == core.CallSubscribe {
		c.Target, c.Origin = taskName(c, dir), core.FromLiteral
		// The workers run the tasks; without one, the code's one owner.
		srcs = workers
		if len(srcs) == 0 && len(runners) == 1 {
			srcs = runners
		}
	} else {
		switch name := b.tasks.resolve(c.System, c.Target); {
		case name != "":
			c.Target = name
			if c.Origin == core.FromExpression {
				c.Origin = core.FromLiteral
			}
		case c.Origin == core.FromExpression:
			return // a send through an object no definition names
		}
		// A schedule's sends are the scheduler's (celery beat); other
		// code's run in the services that are neither worker nor
		// scheduler (a web application beside its worker), or where only
		// workers run it, in them (a task that starts another).
		srcs = others
		if c.Client == "beat" && len(schedulers) > 0 {
			srcs = schedulers
		}
		if len(srcs) == 0 {
			srcs = workers
		}
	}
	for _, s := range srcs {
		b.queueCall(s, c, ev)
		if len(b.brokersFor(s, c.System)) > 0 {
			continue
		}
		// A service configured with no broker that runs the code of
		// one that is (a scheduler built from its worker's folder, whose
		// code names the broker) uses that broker.
		own := string(c.Kind)
		if c.Kind == core.CallSubscribe {
			own = "consume"
		}
		for _, r := range runners {
			if r == s {
				continue
			}
			for _, br := range b.brokersFor(r, c.System) {
				b.addEdge(Edge{Source: s, Target: br, Type: EdgeQueue, Method: own, Path: c.Target, Confidence: 0.8,
					Via: c.System + "; the broker of " + r + ", which runs the same code"}, ev)
			}
		}
	}
}
