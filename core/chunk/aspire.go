package chunk

import (
	"bytes"
	"regexp"
	"strings"

	"coderag/core"
)

// A .NET Aspire AppHost declares the application's services and what each
// is wired to:
//
//	var cache = builder.AddRedis("cache");
//	var catalog = builder.AddProject<Projects.Catalog>("catalog");
//	builder.AddProject<Projects.Cart>("cart").WithReference(cache).WithReference(catalog);
var (
	aspireAddRE = regexp.MustCompile(`(?s)(?:\bvar\s+(\w+)\s*=\s*)?\b(\w+)\s*\.\s*(Add(?:Project|Container|Redis|Garnet|Valkey|Postgres|SqlServer|MySql|MongoDB|Oracle|RabbitMQ|Kafka|Nats|AzureServiceBus|NpmApp|NodeApp|PythonApp|Dockerfile|Database|Executable))\s*(?:<([^>]*)>)?\s*\(\s*"([^"]+)"`)
	aspireRefRE = regexp.MustCompile(`\.\s*WithReference\s*\(\s*(\w+)`)
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
		if v != "" {
			vars[v] = name
		}
		out = append(out, r)
	}
	// WithReference in later statements: catalog.WithReference(db);
	for _, stmt := range bytes.SplitAfter(src, []byte(";")) {
		if aspireAddRE.Match(stmt) {
			continue
		}
		t := strings.TrimSpace(string(stmt))
		recv, _, ok := strings.Cut(t, ".")
		name, known := vars[strings.TrimSpace(recv)]
		if !ok || !known {
			continue
		}
		for _, ref := range aspireRefRE.FindAllStringSubmatch(t, -1) {
			if target, ok := vars[ref[1]]; ok {
				for i := range out {
					if out[i].Name == name {
						out[i].References = append(out[i].References, target)
					}
				}
			}
		}
	}
	return out
}

func sub(b []byte, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return string(b[m[2*i]:m[2*i+1]])
}
