package chunk

import (
	"bytes"
	"slices"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// Celery runs a Python function as a task on a worker: the function is
// declared a task by a decorator, and other code sends it through the
// broker by name,
//
//	@app.task                       # or @shared_task, @app.task(name="x")
//	def send_invoice(invoice_id): ...
//
//	send_invoice.delay(42)          # or .apply_async(...), .s(...)
//	app.send_task("billing.tasks.send_invoice", args=[42])
//
// A task's name is its name= or, by default, the module it is defined in
// and the function's name (billing.tasks.send_invoice). A task definition
// is read as a subscription to the task's name and a send as a publish:
// the service graph joins the two (and knows which services run a Celery
// worker). A definition without name= has Origin FromExpression and the
// function's name as its Target (the graph qualifies it with the file's
// module); a send through the task object has Origin FromExpression and
// the object as its code names it, qualified by the module it is imported
// from (billing.tasks.send_invoice for a send_invoice imported from
// billing.tasks).

// celerySends are the methods that send a task object through the broker.
var celerySends = map[string]bool{"delay": true, "apply_async": true, "s": true, "si": true, "signature": true}

// celeryTasks returns the Celery task definitions and sends of a Python
// file: none in a file that names neither Celery nor a send.
func (x *extractor) celeryTasks(root *ts.Node) []fact {
	if !bytes.Contains(x.src, []byte("celery")) && !bytes.Contains(x.src, []byte("shared_task")) &&
		!bytes.Contains(x.src, []byte(".delay(")) && !bytes.Contains(x.src, []byte(".apply_async(")) &&
		!bytes.Contains(bytes.ToLower(x.src), []byte("beat_schedule")) {
		return nil
	}
	// A file that imports Celery, or an app from a module named after it
	// (from proj.celery import app).
	celeryFile := slices.ContainsFunc(x.fileImports, func(imp string) bool { return strings.Contains(imp, "celery") })
	var out []fact
	var calls []*ts.Node
	local := map[string]*core.Call{} // the tasks the file defines, by function name
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 200 {
			return
		}
		switch n.Kind() {
		case "decorated_definition":
			if f, name := x.celeryTaskDef(n, celeryFile); f != nil {
				out = append(out, *f)
				local[name] = f.call
			}
		case "call":
			calls = append(calls, n)
		case "assignment", "keyword_argument":
			// app.conf.beat_schedule = {...}, CELERY_BEAT_SCHEDULE = {...}
			// (Django settings), conf.update(beat_schedule={...})
			left, right := n.ChildByFieldName("left"), n.ChildByFieldName("right")
			if n.Kind() == "keyword_argument" {
				left, right = n.ChildByFieldName("name"), n.ChildByFieldName("value")
			}
			if left != nil && right != nil && strings.HasSuffix(strings.ToLower(left.Utf8Text(x.src)), "beat_schedule") {
				out = append(out, x.celerySchedule(right)...)
				return
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(root, 0)
	for _, n := range calls {
		if f := x.celerySend(n, celeryFile, local); f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// celeryTaskDef reads a task definition: a function decorated with
// @shared_task or @APP.task (with or without arguments).
func (x *extractor) celeryTaskDef(n *ts.Node, celeryFile bool) (*fact, string) {
	def := n.ChildByFieldName("definition")
	if def == nil || def.Kind() != "function_definition" {
		return nil, ""
	}
	name := def.ChildByFieldName("name")
	if name == nil {
		return nil, ""
	}
	for i := uint(0); i < n.NamedChildCount(); i++ {
		d := n.NamedChild(i)
		if d.Kind() != "decorator" || d.NamedChildCount() == 0 {
			continue
		}
		e := d.NamedChild(0)
		var args *ts.Node
		if e.Kind() == "call" {
			args = e.ChildByFieldName("arguments")
			e = e.ChildByFieldName("function")
		}
		if e == nil {
			continue
		}
		switch e.Kind() {
		case "identifier":
			if e.Utf8Text(x.src) != "shared_task" {
				continue
			}
		case "attribute":
			obj, attr := e.ChildByFieldName("object"), e.ChildByFieldName("attribute")
			if attr == nil || obj == nil || attr.Utf8Text(x.src) != "task" ||
				!celeryFile && !strings.Contains(strings.ToLower(obj.Utf8Text(x.src)), "celery") {
				continue
			}
		default:
			continue
		}
		c := core.Call{Kind: core.CallSubscribe, System: "celery", Target: name.Utf8Text(x.src), Origin: core.FromExpression,
			Line: x.line(name), Text: x.firstLine(d)}
		if v := keywordArg(args, "name", x.src); v != nil {
			if val := x.ev.eval(v, 0); val.known() {
				target(&c, val)
			}
		}
		return &fact{at: n.StartByte(), call: &c}, name.Utf8Text(x.src)
	}
	return nil, ""
}

// celerySend reads a send: TASK.delay(...), TASK.apply_async(...),
// TASK.s(...), TASK.si(...), TASK.signature(...) or APP.send_task(NAME,
// ...). A task object's send counts where the object is imported or is
// a task of the file (local): multiprocessing's pool.apply_async(f) is
// no send.
func (x *extractor) celerySend(n *ts.Node, celeryFile bool, local map[string]*core.Call) *fact {
	fn := n.ChildByFieldName("function")
	if fn == nil || fn.Kind() != "attribute" {
		return nil
	}
	obj, attr := fn.ChildByFieldName("object"), fn.ChildByFieldName("attribute")
	if obj == nil || attr == nil {
		return nil
	}
	method, ref := attr.Utf8Text(x.src), obj.Utf8Text(x.src)
	root, _, _ := strings.Cut(ref, ".")
	c := core.Call{Kind: core.CallPublish, System: "celery", Line: x.line(n), Text: x.firstLine(n)}
	switch {
	case method == "send_task":
		if !celeryFile && !strings.Contains(strings.ToLower(ref), "celery") {
			return nil
		}
		args := n.ChildByFieldName("arguments")
		if args == nil || args.NamedChildCount() == 0 || args.NamedChild(0).Kind() == "keyword_argument" {
			return nil
		}
		v := x.ev.eval(args.NamedChild(0), 0)
		if !v.known() && v.env == "" && v.config == "" {
			return nil
		}
		target(&c, v)
	case celerySends[method] && (obj.Kind() == "identifier" || obj.Kind() == "attribute"):
		mod, imported := x.imports[root]
		def := local[ref]
		if !imported && def == nil && !slices.Contains(x.fileImports, root) {
			return nil
		}
		if (method == "s" || method == "si" || method == "signature") && !celeryFile {
			return nil // a signature is made where Celery's canvas is imported
		}
		c.Target, c.Origin = ref, core.FromExpression
		if mod = strings.TrimLeft(mod, "."); mod != "" {
			c.Target = mod + "." + ref
		} else if def != nil && def.Origin != core.FromExpression {
			c.Target, c.Origin = def.Target, def.Origin // a task of the file with a name=
		}
	default:
		return nil
	}
	return &fact{at: n.StartByte(), call: &c}
}

// celerySchedule reads the entries of a beat schedule, {"nightly":
// {"task": "reports.tasks.nightly", "schedule": crontab(...)}}: each is a
// send by celery beat (Client "beat") of the task its "task" names.
func (x *extractor) celerySchedule(n *ts.Node) []fact {
	var out []fact
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 8 {
			return
		}
		if n.Kind() == "pair" {
			k, v := n.ChildByFieldName("key"), n.ChildByFieldName("value")
			if k != nil && v != nil && k.Kind() == "string" && strings.Trim(k.Utf8Text(x.src), `"'`) == "task" {
				if val := x.ev.eval(v, 0); val.known() {
					c := core.Call{Kind: core.CallPublish, System: "celery", Client: "beat", Line: x.line(v), Text: x.firstLine(n)}
					target(&c, val)
					out = append(out, fact{at: n.StartByte(), call: &c})
				}
				return
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(n, 0)
	return out
}

// keywordArg returns the value of keyword argument name in a Python
// argument list, nil for none.
func keywordArg(args *ts.Node, name string, src []byte) *ts.Node {
	if args == nil {
		return nil
	}
	for i := uint(0); i < args.NamedChildCount(); i++ {
		a := args.NamedChild(i)
		if a.Kind() != "keyword_argument" {
			continue
		}
		if k := a.ChildByFieldName("name"); k != nil && k.Utf8Text(src) == name {
			return a.ChildByFieldName("value")
		}
	}
	return nil
}
