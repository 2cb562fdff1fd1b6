package chunk

import (
	"bytes"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// Ruby's background jobs run a class on a worker process, sent through
// Redis or the database by the class's name:
//
//	class InvoiceWorker
//	  include Sidekiq::Job            # or Sidekiq::Worker
//	  def perform(id) ... end
//	end
//	InvoiceWorker.perform_async(42)   # or perform_in, perform_at
//
//	class InvoiceJob < ApplicationJob # Active Job, on any backend
//	  def perform(id) ... end
//	end
//	InvoiceJob.perform_later(42)      # or .set(wait: 5.minutes).perform_later
//
// A job class is read as a subscription to its name (with its modules:
// Billing::InvoiceJob), a send as a publish naming the class as the code
// writes it (Origin FromExpression: the service graph matches it to a
// job class by its end). Sidekiq's system is "sidekiq", Active Job's
// "activejob" (its worker is whichever backend the workers run).

// sidekiqSends and activeJobSends are the class methods that enqueue a
// job.
var (
	sidekiqSends   = map[string]bool{"perform_async": true, "perform_in": true, "perform_at": true, "perform_bulk": true}
	activeJobSends = map[string]bool{"perform_later": true, "perform_all_later": true}
)

// rubyJobs returns the job classes and sends of a Ruby file: none in a
// file that names neither Sidekiq nor Active Job nor a send.
func (x *extractor) rubyJobs(root *ts.Node) []fact {
	if !bytes.Contains(x.src, []byte("Sidekiq")) && !bytes.Contains(x.src, []byte("Job")) &&
		!bytes.Contains(x.src, []byte("perform_")) {
		return nil // walking the tree costs a cgo call a node
	}
	var out []fact
	var walk func(n *ts.Node, scope []string, depth int)
	walk = func(n *ts.Node, scope []string, depth int) {
		if depth > 200 {
			return
		}
		switch n.Kind() {
		case "module", "class":
			name := n.ChildByFieldName("name")
			if name == nil {
				break
			}
			scope = append(scope[:len(scope):len(scope)], name.Utf8Text(x.src))
			// ApplicationJob is Rails' abstract base of the jobs.
			if n.Kind() == "class" && name.Utf8Text(x.src) != "ApplicationJob" {
				if sys := x.jobClass(n); sys != "" {
					c := core.Call{Kind: core.CallSubscribe, System: sys, Target: strings.Join(scope, "::"), Origin: core.FromLiteral,
						Line: x.line(n), Text: x.firstLine(n)}
					out = append(out, fact{at: n.StartByte(), call: &c})
				}
			}
		case "call":
			if f := x.jobSend(n); f != nil {
				out = append(out, *f)
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), scope, depth+1)
		}
	}
	walk(root, nil, 0)
	return out
}

// jobClass returns the job system a class declaration is a job of:
// "sidekiq" for a class that includes Sidekiq::Job or Sidekiq::Worker,
// "activejob" for a subclass of ApplicationJob or ActiveJob::Base; ""
// for other classes.
func (x *extractor) jobClass(n *ts.Node) string {
	if sc := n.ChildByFieldName("superclass"); sc != nil {
		switch strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sc.Utf8Text(x.src)), "<")) {
		case "ApplicationJob", "ActiveJob::Base", "::ApplicationJob", "::ActiveJob::Base":
			return "activejob"
		}
	}
	body := n.ChildByFieldName("body")
	if body == nil {
		return ""
	}
	for i := uint(0); i < body.NamedChildCount(); i++ {
		st := body.NamedChild(i)
		if st.Kind() != "call" || st.ChildByFieldName("receiver") != nil {
			continue
		}
		m, args := st.ChildByFieldName("method"), st.ChildByFieldName("arguments")
		if m == nil || args == nil || m.Utf8Text(x.src) != "include" {
			continue
		}
		switch strings.TrimSpace(args.Utf8Text(x.src)) {
		case "Sidekiq::Job", "Sidekiq::Worker", "::Sidekiq::Job", "::Sidekiq::Worker":
			return "sidekiq"
		}
	}
	return ""
}

// jobSend reads a send: CLASS.perform_async(...) (and Sidekiq's other
// enqueueing methods), CLASS.perform_later(...), with or without
// .set(...) between; CLASS a constant.
func (x *extractor) jobSend(n *ts.Node) *fact {
	m, recv := n.ChildByFieldName("method"), n.ChildByFieldName("receiver")
	if m == nil || recv == nil {
		return nil
	}
	sys := ""
	switch meth := m.Utf8Text(x.src); {
	case sidekiqSends[meth]:
		sys = "sidekiq"
	case activeJobSends[meth]:
		sys = "activejob"
	default:
		return nil
	}
	if recv.Kind() == "call" {
		// Job.set(wait: 1.hour).perform_later, Worker.set(queue: :low).perform_async
		if sm := recv.ChildByFieldName("method"); sm != nil && sm.Utf8Text(x.src) == "set" {
			recv = recv.ChildByFieldName("receiver")
		}
	}
	if recv == nil || recv.Kind() != "constant" && recv.Kind() != "scope_resolution" {
		return nil
	}
	c := core.Call{Kind: core.CallPublish, System: sys, Target: strings.TrimPrefix(recv.Utf8Text(x.src), "::"), Origin: core.FromExpression,
		Line: x.line(n), Text: x.firstLine(n)}
	return &fact{at: n.StartByte(), call: &c}
}
