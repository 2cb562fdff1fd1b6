package chunk

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"gopkg.in/yaml.v3"

	"coderag/core"
)

// IsAzdProject reports whether a YAML file is an Azure Developer CLI
// project file: azure.yaml (azure.yml), or a copy of one under another
// name that declares the azd schema in its yaml-language-server comment
// (templates ship variants such as azure-build-from-source.yaml for the
// user to copy over azure.yaml).
func IsAzdProject(name string, src []byte) bool {
	switch path.Base(name) {
	case "azure.yaml", "azure.yml":
		return true
	}
	head := src
	if len(head) > 512 {
		head = head[:512]
	}
	return azdSchemaRE.Match(head)
}

var (
	azdSchemaRE = regexp.MustCompile(`(?m)^#\s*yaml-language-server:\s*\$schema=\S*azure\.yaml\.json`)
	// hclIdentRE finds the identifiers of an interpolation's source.
	hclIdentRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// AzdResources reads an azd project file's services: one
// core.ResourceAzd per service that deploys to Kubernetes with Kustomize
// and gives it environment variables (k8s.kustomize.env). azd writes those
// into the .env file of the Kustomize folder at deploy time, filling
// ${NAME} from its environment, which holds the outputs of the project's
// infrastructure; a configMapGenerator of that folder then reads the
// file. The resource's Env holds the variables as written, its Data the
// folders the graph needs to follow them: "env-file" (the .env azd
// writes, relative to the project file), "infra" (the infrastructure
// folder, relative to the project file) and "provider" (terraform or
// bicep, azd's default). A file that does not parse declares nothing.
func AzdResources(src []byte) []core.Resource {
	docs, err := parseYAMLDocs(src)
	if err != nil || len(docs) == 0 || len(docs[0].Content) == 0 {
		return nil
	}
	root := docs[0].Content[0]
	infra, provider := "infra", "bicep"
	if n := yamlChild(yamlChild(root, "infra"), "path"); n != nil && n.Value != "" {
		infra = n.Value
	}
	if n := yamlChild(yamlChild(root, "infra"), "provider"); n != nil && n.Value != "" {
		provider = n.Value
	}
	services := yamlChild(root, "services")
	if services == nil || services.Kind != yaml.MappingNode {
		return nil
	}
	var out []core.Resource
	for i := 0; i+1 < len(services.Content); i += 2 {
		name, svc := services.Content[i], services.Content[i+1]
		kust := yamlChild(yamlChild(svc, "k8s"), "kustomize")
		env := yamlChild(kust, "env")
		if env == nil || env.Kind != yaml.MappingNode {
			continue
		}
		project := "."
		if n := yamlChild(svc, "project"); n != nil && n.Value != "" {
			project = n.Value
		}
		dir := "."
		if n := yamlChild(kust, "dir"); n != nil && n.Value != "" {
			dir = n.Value
		}
		r := core.Resource{Kind: core.ResourceAzd, Name: name.Value, Line: name.Line, Data: map[string]string{
			"env-file": path.Join(project, dir, ".env"),
			"infra":    path.Clean(infra),
			"provider": provider,
		}}
		for j := 0; j+1 < len(env.Content); j += 2 {
			k, v := env.Content[j], env.Content[j+1]
			if k.Value == "" || v.Kind != yaml.ScalarNode {
				continue
			}
			r.Env = append(r.Env, core.EnvVar{Name: k.Value, Value: v.Value, Line: k.Line})
		}
		out = append(out, r)
	}
	return out
}

// attachAzd attaches the services an Azure Developer CLI project file
// declares to r, if the YAML file named name is one.
func attachAzd(r *Result, name string, src []byte) {
	if IsAzdProject(name, src) {
		for _, res := range AzdResources(src) {
			attach(r, res)
		}
	}
}

// yamlChild is the value of key in a mapping node, nil for none.
func yamlChild(n *yaml.Node, key string) *yaml.Node {
	if i := yamlKeyIndex(n, key); i >= 0 {
		return n.Content[i+1]
	}
	return nil
}

// yamlKeyIndex is the index of key's node in a mapping node's Content,
// -1 for none.
func yamlKeyIndex(n *yaml.Node, key string) int {
	if n == nil || n.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// terraformOutputs reads the output blocks of a Terraform file into one
// core.ResourceTerraformOutputs: Data maps each output's name to the
// string it evaluates to when that string is written in the file — the
// one non-empty string literal among its value's branches
// (cond ? "https://..." : ""). An interpolation in the path or query of
// a URL is kept as {name} (its last identifier), one right after the
// host as a path segment (https://management.example.com${id}/list
// reads https://management.example.com/{id}/list), one in the port is
// dropped; an output whose host is computed, or that has two candidate
// strings, has no value here.
func terraformOutputs(body *hclsyntax.Body, src []byte, file string) (core.Resource, bool) {
	r := core.Resource{Kind: core.ResourceTerraformOutputs, Name: path.Dir(file), Data: map[string]string{}}
	for _, blk := range body.Blocks {
		if blk.Type != "output" || len(blk.Labels) != 1 {
			continue
		}
		attr := blk.Body.Attributes["value"]
		if attr == nil {
			continue
		}
		var found []string
		for _, s := range hclStrings(attr.Expr, src) {
			if s != "" && !slices.Contains(found, s) {
				found = append(found, s)
			}
		}
		if len(found) != 1 {
			continue
		}
		name := blk.Labels[0]
		r.Data[name] = found[0]
		line := blk.Range().Start.Line
		r.Keys = append(r.Keys, core.KeyLine{Key: name, Line: line})
		if r.Line == 0 {
			r.Line = line
		}
	}
	return r, len(r.Data) > 0
}

// hclStrings are the strings an expression may evaluate to that are
// written in it: a template (its interpolations placed by
// templateAddress), or either branch of a conditional. A template that
// cannot be placed is left out.
func hclStrings(e hclsyntax.Expression, src []byte) []string {
	switch x := e.(type) {
	case *hclsyntax.ConditionalExpr:
		return append(hclStrings(x.TrueResult, src), hclStrings(x.FalseResult, src)...)
	case *hclsyntax.ParenthesesExpr:
		return hclStrings(x.Expression, src)
	case *hclsyntax.TemplateExpr:
		var parts []templatePart
		for _, p := range x.Parts {
			if lit, ok := p.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type() == cty.String && lit.Val.IsKnown() && !lit.Val.IsNull() {
				parts = append(parts, templatePart{lit: lit.Val.AsString()})
				continue
			}
			rng := p.Range()
			name := "value"
			if rng.End.Byte <= len(src) {
				if ids := hclIdentRE.FindAllString(string(src[rng.Start.Byte:rng.End.Byte]), -1); len(ids) > 0 {
					name = ids[len(ids)-1]
				}
			}
			parts = append(parts, templatePart{interp: name})
		}
		if s, ok := templateAddress(parts); ok {
			return []string{s}
		}
	}
	return nil
}

// templatePart is a literal piece of a string template or, when interp is
// set, an interpolation named by it.
type templatePart struct {
	lit, interp string
}

// templateAddress writes a template as a string the graph can read: its
// literal pieces as they are and its interpolations as {name} where they
// stand for part of a URL's path or query. A URL's computed host, or a
// computed piece of a string that is no URL, makes it unreadable (false).
func templateAddress(parts []templatePart) (string, bool) {
	var b strings.Builder
	computed := false
	for _, p := range parts {
		computed = computed || p.interp != ""
	}
	if !computed {
		for _, p := range parts {
			b.WriteString(p.lit)
		}
		return b.String(), true
	}
	// The scheme must be written before the first interpolation.
	if len(parts) == 0 || parts[0].interp != "" || !strings.Contains(parts[0].lit, "://") {
		return "", false
	}
	inAuthority, authority := true, 0 // characters of the authority written
	for i, p := range parts {
		if p.interp == "" {
			lit := p.lit
			if i == 0 {
				k := strings.Index(lit, "://") + 3
				b.WriteString(lit[:k])
				lit = lit[k:]
			}
			if inAuthority {
				if j := strings.IndexAny(lit, "/?#"); j >= 0 {
					authority += j
					inAuthority = false
				} else {
					authority += len(lit)
				}
			}
			b.WriteString(lit)
			continue
		}
		if !inAuthority {
			b.WriteString("{" + p.interp + "}")
			continue
		}
		s := b.String()
		switch {
		case authority == 0:
			return "", false // the host is computed
		case strings.HasSuffix(s, ":"):
			// The port: dropped with its colon.
			b.Reset()
			b.WriteString(strings.TrimSuffix(s, ":"))
			authority--
		case !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "-") && (i+1 == len(parts) || strings.IndexAny(parts[i+1].lit, "/?#") == 0):
			// Right after the host: a path of its own (an ID that starts
			// with a slash).
			b.WriteString("/{" + p.interp + "}")
			inAuthority = false
		default:
			return "", false // part of the host's name
		}
	}
	return b.String(), true
}
