package chunk

import (
	"bytes"
	"path"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// A .NET Aspire AppHost declares the application's services and what each
// is wired to:
//
//	var cache = builder.AddRedis("cache");
//	var catalog = builder.AddProject<Projects.Catalog>("catalog");
//	builder.AddProject<Projects.Cart>("cart").WithReference(cache).WithReference(catalog);
var (
	aspireAddRE = lazyre.New(`(?s)(?:\bvar\s+(\w+)\s*=\s*)?\b(\w+)\s*\.\s*(Add(?:Project|Container|Redis|Garnet|Valkey|Postgres|SqlServer|MySql|MongoDB|Oracle|RabbitMQ|Kafka|Nats|AzureServiceBus|NpmApp|NodeApp|PythonApp|ViteApp|JavaScriptApp|UvicornApp|GolangApp|Dockerfile|Database|Executable))\s*(?:<([^>]*)>)?\s*\(\s*"([^"]+)"(?:\s*,\s*"([^"]+)")?`)
	aspireRefRE = lazyre.New(`\.\s*WithReference\s*\(\s*(\w+)`)
)

// aspireKind is the node kind an Aspire resource method makes.
func aspireKind(method string) string {
	switch method {
	case "AddRedis", "AddGarnet", "AddValkey":
		return "cache"
	case "AddPostgres", "AddSqlServer", "AddMySql", "AddMongoDB", "AddOracle", "AddDatabase":
		return "database"
	case "AddRabbitMQ", "AddKafka", "AddNats", "AddAzureServiceBus":
		return "queue"
	}
	return "service"
}

// aspireResources reads the resources of an Aspire AppHost, statement by
// statement.
func aspireResources(src []byte) []core.Resource {
	if !bytes.Contains(src, []byte("DistributedApplication")) {
		return nil
	}
	vars := map[string]string{} // C# variable -> resource name
	var out []core.Resource
	off := 0
	for _, stmt := range bytes.SplitAfter(src, []byte(";")) {
		start := off
		off += len(stmt)
		m := aspireAddRE.FindSubmatchIndex(stmt)
		if m == nil {
			continue
		}
		v, recv, method, generic, name := sub(stmt, m, 1), sub(stmt, m, 2), sub(stmt, m, 3), sub(stmt, m, 4), sub(stmt, m, 5)
		r := core.Resource{Kind: core.ResourceAspire, Name: name, Service: name,
			Labels: map[string]string{"method": method, "node": aspireKind(method)}, Line: lineOf(src, start+m[6])}
		if method == "AddProject" && generic != "" {
			// Projects.Cart_Api is the generated name of Cart.Api.csproj.
			r.Labels["project"] = strings.ReplaceAll(strings.TrimPrefix(generic, "Projects."), "_", ".")
		}
		if dir := sub(stmt, m, 6); dir != "" {
			// The folder an app runs from, relative to the AppHost:
			// AddNpmApp("web", "../Web"), AddNodeApp("api", "../api/server.js").
			switch method {
			case "AddNpmApp", "AddPythonApp", "AddViteApp", "AddJavaScriptApp", "AddUvicornApp", "AddGolangApp", "AddDockerfile":
				r.Labels["dir"] = dir
			case "AddNodeApp":
				r.Labels["dir"] = path.Dir(dir)
			}
		}
		if method == "AddDatabase" {
			if parent, ok := vars[recv]; ok {
				r.Labels["server"] = parent
			}
		}
		for _, ref := range aspireRefRE.FindAllSubmatch(stmt, -1) {
			if target, ok := vars[string(ref[1])]; ok {
				r.References = append(r.References, target)
			}
		}
		aspireEnv(&r, src, start, stmt, vars)
		if v != "" {
			vars[v] = name
		}
		out = append(out, r)
	}
	// WithReference in later statements: catalog.WithReference(db);
	off = 0
	for _, stmt := range bytes.SplitAfter(src, []byte(";")) {
		start := off
		off += len(stmt)
		if aspireAddRE.Match(stmt) {
			continue
		}
		t := strings.TrimSpace(string(stmt))
		recv, _, ok := strings.Cut(t, ".")
		name, known := vars[strings.TrimSpace(recv)]
		if !ok || !known {
			continue
		}
		for i := range out {
			if out[i].Name != name {
				continue
			}
			for _, ref := range aspireRefRE.FindAllStringSubmatch(t, -1) {
				if target, ok := vars[ref[1]]; ok {
					out[i].References = append(out[i].References, target)
				}
			}
			aspireEnv(&out[i], src, start, stmt, vars)
		}
	}
	return out
}

var aspireEnvRE = lazyre.New(`\.\s*WithEnvironment\s*\(\s*"([A-Za-z_][A-Za-z0-9_.:]*)"\s*,`)

// aspireEnv reads the WithEnvironment calls of a statement (at offset
// start of src) into r's Env: a string literal is the value; an
// expression of another resource (catalog, catalog.GetEndpoint("http"),
// $"{catalog.GetEndpoint("https")}/api") is that resource's address, and
// a reference. Parameters and other expressions are not values.
func aspireEnv(r *core.Resource, src []byte, start int, stmt []byte, vars map[string]string) {
	for _, m := range aspireEnvRE.FindAllSubmatchIndex(stmt, -1) {
		name := string(stmt[m[2]:m[3]])
		arg := closingArg(stmt[m[1]:])
		line := lineOf(src, start+m[0]+leadingSpace(stmt[m[0]:m[1]]))
		if lit := strings.TrimSpace(arg); len(lit) >= 2 && lit[0] == '"' && lit[len(lit)-1] == '"' && !strings.Contains(lit[1:len(lit)-1], `"`) {
			r.Env = append(r.Env, core.EnvVar{Name: name, Value: lit[1 : len(lit)-1], Line: line})
			continue
		}
		for _, id := range aspireIdentRE.FindAllStringSubmatch(arg, -1) {
			target, ok := vars[id[1]]
			if !ok || target == r.Name {
				continue
			}
			scheme := "http"
			if id[2] == "https" {
				scheme = "https"
			}
			r.Env = append(r.Env, core.EnvVar{Name: name, Value: scheme + "://" + target, Line: line})
			r.References = append(r.References, target)
			break
		}
	}
}

// aspireIdentRE finds a variable and, when it is asked for one, the
// endpoint's name: catalog.GetEndpoint("https").
var aspireIdentRE = lazyre.New(`\b([A-Za-z_]\w*)\b(?:\s*\.\s*GetEndpoint\s*\(\s*"(\w+)")?`)

// closingArg returns the text up to the parenthesis that closes the call
// b is inside of.
func closingArg(b []byte) string {
	depth := 0
	inStr := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return string(b[:i])
			}
			depth--
		}
	}
	return string(b)
}

func sub(b []byte, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return string(b[m[2*i]:m[2*i+1]])
}
