package graph

import (
	"path"
	"strings"

	"coderag/core"
)

// Celery tasks (core/chunk/celery.go): a task definition is a
// subscription of the services that run a Celery worker over the code
// that defines it, a send a publish of the services that run the code
// that sends it, both to the task's name; the broker the services are
// configured with carries it. A folder several compose services are
// built from (a web application, its worker and its scheduler: one
// image, three commands) is run by all of them: its definitions are the
// worker's, its beat schedule's sends the scheduler's, its other sends
// the others'.

// celeryIndex holds the names of the tasks the index's code defines.
type celeryIndex struct {
	names map[string]bool
	// byLast are the names by their last dotted part (the function's
	// name, or a name= that has none).
	byLast map[string][]string
	// roles are workerRole's answers, by service.
	roles map[string]string
	// chunks are the chunks that define a task (a task function's).
	chunks map[string]bool
}

// celeryTasks collects the names of the tasks the code defines.
func (b *builder) celeryTasks() {
	ix := &celeryIndex{names: map[string]bool{}, byLast: map[string][]string{}, roles: map[string]string{}, chunks: map[string]bool{}}
	for _, c := range b.in.Calls {
		if c.System != "celery" || c.Kind != core.CallSubscribe || b.skipCall(c) {
			continue
		}
		ix.chunks[c.ChunkID] = true
		_, dir := b.codeRunners(c.Repo, c.File)
		name := celeryTaskName(c, dir)
		if !ix.names[name] {
			ix.names[name] = true
			last := name[strings.LastIndexByte(name, '.')+1:]
			ix.byLast[last] = append(ix.byLast[last], name)
		}
	}
	b.celery = ix
}

// skipCall reports whether a call is not the system's: test code,
// tooling, examples.
func (b *builder) skipCall(c core.CallAt) bool {
	return core.IsTestPath(c.File) || core.IsToolingPath(c.File) || b.exampleCode(c.Repo, c.File)
}

// celeryTaskName is the name of the task a definition declares: its
// name=, or the module its file is, from the folder the services run
// (dir), and the function's name (billing/tasks.py in the folder a
// service is built from: billing.tasks.send_invoice).
func celeryTaskName(c core.CallAt, dir string) string {
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

// resolve returns the defined task a send names: the name itself, or
// the one defined name it is a dotted end of or that is a dotted end of
// it (send_invoice, tasks.send_invoice, proj.billing.tasks.send_invoice
// for billing.tasks.send_invoice), "" for none or several.
func (ix *celeryIndex) resolve(name string) string {
	if ix.names[name] {
		return name
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	found := ""
	for _, d := range ix.byLast[last] {
		if strings.HasSuffix(d, "."+name) || strings.HasSuffix(name, "."+d) {
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
	for d := path.Dir(file); ; {
		if d == "." {
			d = ""
		}
		if s, ok := b.ownerAt[[2]string{repo, d}]; ok && len(runners) == 0 {
			runners = append(runners, s)
		}
		for _, s := range b.sharedBuilds[[2]string{repo, d}] {
			runners = appendUnique(runners, b.aliasOf(s))
		}
		if len(runners) > 0 && !found {
			found, dir = true, d
		}
		if d == "" {
			return runners, dir
		}
		if i := strings.LastIndexByte(d, '/'); i >= 0 {
			d = d[:i]
		} else {
			d = ""
		}
	}
}

// aliasOf is the node a name is an alias of, the name itself for none.
func (b *builder) aliasOf(name string) string {
	return first(b.alias[strings.ToLower(name)], name)
}

// workerRole is the task queue role service s's deploy files run
// (core.Resource.Worker: "celery", "celery-beat", "celery-flower"), ""
// for none: their command's, or, where they give none, that of the
// Dockerfile the service is built with (a compose build's, or one in
// the folder the service owns).
func (b *builder) workerRole(s string) string {
	if v, ok := b.celery.roles[s]; ok {
		return v
	}
	v := b.workerRoleOnce(s)
	b.celery.roles[s] = v
	return v
}

func (b *builder) workerRoleOnce(s string) string {
	for _, r := range b.in.Resources {
		if !core.IsWorkload(r.Kind) && r.Kind != core.ResourceCompose || b.aliasOf(first(r.Service, r.Name)) != s {
			continue
		}
		if r.Worker != "" || len(r.Programs) > 0 {
			if r.Worker != "" {
				return r.Worker
			}
			continue
		}
		for _, d := range b.in.Resources {
			if d.Kind != core.ResourceDockerfile || d.Worker == "" || d.Repo != r.Repo && r.Kind == core.ResourceCompose {
				continue
			}
			if r.Kind == core.ResourceCompose && r.Build != "" {
				if d.File == path.Join(path.Dir(r.File), r.Build, first(r.Dockerfile, "Dockerfile")) {
					return d.Worker
				}
			} else if b.ownerOf(d.Repo, d.File) == s {
				return d.Worker
			}
		}
	}
	return ""
}

// celeryTaskWorkers are the Celery workers that run call c, a call in a
// task function's chunk; none for other calls, or where no service of
// those that run the code runs a worker (its owner makes the call).
func (b *builder) celeryTaskWorkers(c core.CallAt) []string {
	if b.celery == nil || !b.celery.chunks[c.ChunkID] {
		return nil
	}
	runners, _ := b.codeRunners(c.Repo, c.File)
	var workers []string
	for _, s := range runners {
		if b.workerRole(s) == "celery" {
			workers = append(workers, s)
		}
	}
	return workers
}

// celeryCall links a Celery task definition or send (see above).
func (b *builder) celeryCall(c core.CallAt, ev Evidence) {
	runners, dir := b.codeRunners(c.Repo, c.File)
	if len(runners) == 0 {
		s := b.standIn(c.Repo)
		if s == "" {
			return
		}
		runners = []string{s}
	}
	var workers, beats, others []string
	for _, s := range runners {
		switch b.workerRole(s) {
		case "celery":
			workers = append(workers, s)
		case "celery-beat":
			beats = append(beats, s)
		case "celery-flower":
			// The dashboard watches the broker: it neither runs nor
			// sends the code's tasks.
		default:
			others = append(others, s)
		}
	}
	var srcs []string
	if c.Kind == core.CallSubscribe {
		c.Target, c.Origin = celeryTaskName(c, dir), core.FromLiteral
		// The workers run the tasks; without one, the code's one owner.
		srcs = workers
		if len(srcs) == 0 && len(runners) == 1 {
			srcs = runners
		}
	} else {
		switch name := b.celery.resolve(c.Target); {
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
		if c.Client == "beat" && len(beats) > 0 {
			srcs = beats
		}
		if len(srcs) == 0 {
			srcs = workers
		}
	}
	for _, s := range srcs {
		b.queueCall(s, c, ev)
		if len(b.brokersFor(s, "celery")) > 0 {
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
			for _, br := range b.brokersFor(r, "celery") {
				b.addEdge(Edge{Source: s, Target: br, Type: EdgeQueue, Method: own, Path: c.Target, Confidence: 0.8,
					Via: "celery; the broker of " + r + ", which runs the same code"}, ev)
			}
		}
	}
}
