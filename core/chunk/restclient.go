package chunk

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
)

// jaxrsMethods are the JAX-RS annotations that name an HTTP method.
var jaxrsMethods = []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}

// restClients reads the MicroProfile Rest Client interfaces of a Java or
// Kotlin file (Quarkus, Open Liberty, Helidon, WildFly):
//
//	@RegisterRestClient(configKey = "garage-api")
//	@Path("/vehicles")
//	public interface GarageClient {
//	    @GET @Path("/{plate}") Vehicle vehicle(@PathParam("plate") String plate);
//	}
//
// Each method with a JAX-RS method annotation is an HTTP call of the
// interface's client: to baseUri when the annotation gives one, else to
// the address the service's configuration gives the client
// (quarkus.rest-client.KEY.url, or MicroProfile's KEY/mp-rest/url, where
// KEY is configKey or the interface's qualified name). It returns the
// calls and the interfaces' byte spans, whose JAX-RS annotations are no
// routes the service serves.
func (x *extractor) restClients(root *ts.Node) ([]fact, [][2]uint) {
	pkg, known := "", false
	return x.clientInterfaces(root, "RegisterRestClient", func(decl, a *ts.Node) []fact {
		if !known {
			pkg, known = x.packageName(root), true
		}
		return x.restClientCalls(decl, a, pkg)
	})
}

// restClientCalls makes one HTTP call of each method of the Rest Client
// interface decl, annotated rc, in package pkg.
func (x *extractor) restClientCalls(decl, rc *ts.Node, pkg string) []fact {
	_, pairs := x.annotationArgs(rc)
	name := ""
	if n := decl.ChildByFieldName("name"); n != nil {
		name = n.Utf8Text(x.src)
	}
	if name == "" {
		for i := uint(0); i < decl.NamedChildCount(); i++ {
			if c := decl.NamedChild(i); c.Kind() == "type_identifier" { // Kotlin
				name = c.Utf8Text(x.src)
				break
			}
		}
	}
	c0 := core.Call{Kind: core.CallHTTP, System: "microprofile-rest-client", Client: name, Origin: core.FromLiteral}
	switch {
	case pairs["baseUri"] != nil && x.ev.eval(pairs["baseUri"], 0).known():
		feignBase(&c0, x.ev.eval(pairs["baseUri"], 0).text)
	default:
		key := ""
		if k := pairs["configKey"]; k != nil {
			key = strings.TrimSpace(x.ev.eval(k, 0).text)
		}
		if key == "" && name != "" {
			key = `"` + strings.TrimPrefix(pkg+"."+name, ".") + `"`
		}
		if key == "" {
			return nil
		}
		key = "quarkus.rest-client." + key + ".url"
		c0.Config, c0.Base, c0.Origin = key, "config:"+key, core.FromConfig
	}
	if c0.Base == "" {
		return nil
	}
	prefix := ""
	if p := x.annotation(decl, "Path"); p != nil {
		prefix = x.mappingPath(p)
	}
	var out []fact
	for _, m := range interfaceMethods(decl) {
		for _, verb := range jaxrsMethods {
			a := x.annotation(m, verb)
			if a == nil {
				continue
			}
			c := c0
			c.Method = verb
			c.Target = prefix
			if p := x.annotation(m, "Path"); p != nil {
				c.Target = joinPath(prefix, x.mappingPath(p))
			}
			if !strings.HasPrefix(c.Base, "config:") {
				c.Target = strings.TrimSuffix(c.Base, "/") + c.Target // baseUri = "http://cranes:8080/api"
				c.Base = ""
			}
			if c.Target == "" {
				c.Target = "/"
			}
			c.Line, c.Text = x.line(m), x.firstLine(a)
			out = append(out, fact{at: m.StartByte(), call: &c})
			break
		}
	}
	return out
}

// packageName is the package a Java or Kotlin file declares, "" for none.
func (x *extractor) packageName(root *ts.Node) string {
	for i := uint(0); i < root.NamedChildCount(); i++ {
		c := root.NamedChild(i)
		if c.Kind() != "package_declaration" && c.Kind() != "package_header" {
			continue
		}
		for j := uint(0); j < c.NamedChildCount(); j++ {
			if n := c.NamedChild(j); n.Kind() == "scoped_identifier" || n.Kind() == "identifier" {
				return n.Utf8Text(x.src)
			}
		}
	}
	return ""
}
