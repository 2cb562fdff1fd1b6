package chunk

import (
	"reflect"
	"strconv"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// BindEnv is core.BindEnv: the kind of binding envReads records.
const BindEnv = core.BindEnv

// envNameRE is what an environment variable's name looks like in code:
// upper case, digits and underscores (CART_SERVICE_ADDR, HOST).
var envNameRE = lazyre.New(`^[A-Z][A-Z0-9_]*$`)

// placeholderRE finds ${NAME} and ${NAME:default} (Spring, Docker, shell
// and envsubst write them alike; ${NAME:-default} is the shell form).
var placeholderRE = lazyre.New(`\$\{([A-Z][A-Z0-9_]*)(?::-?([^}]*))?\}`)

// shellSliceRE is what follows the colon of a shell substring,
// ${GITHUB_SHA:0:7}: an offset and a length, not a default.
var shellSliceRE = lazyre.New(`^\s*-?[0-9]+\s*(:\s*-?[0-9]+\s*)?$`)

// placeholderDefault is the default of placeholderRE's match m in text:
// "" for none, and for a shell substring (${NAME:offset:length}).
func placeholderDefault(text string, m []int) string {
	if m[4] < 0 {
		return ""
	}
	def := text[m[4]:m[5]]
	if text[m[4]-1] == ':' && shellSliceRE.MatchString(def) {
		return ""
	}
	return def
}

// envReadKinds are the node kinds an environment read can be: calls
// (getenv, os.environ.get, a helper named like getEnvVar), member
// accesses (process.env.X), indexes (os.environ["X"]), and the operators
// that give a default (||, ??, or, ?:).
var envReadKinds = map[string]bool{
	"call_expression": true, "call": true, "invocation_expression": true, "method_invocation": true,
	"function_call_expression": true, "member_call_expression": true, "scoped_call_expression": true,
	"member_expression": true, "subscript": true, "subscript_expression": true, "element_access_expression": true,
	"index_expression": true, "element_reference": true, "binary_expression": true, "binary": true, "boolean_operator": true,
	"ternary_expression": true, "conditional_expression": true,
}

// stringKinds are the string literal node kinds of the grammars.
var stringKinds = map[string]bool{
	"interpreted_string_literal": true, "raw_string_literal": true, "string": true, "string_literal": true,
	"verbatim_string_literal": true, "encapsed_string": true, "template_string": true,
}

// addressKinds are the nodes that build a string: literals, templates,
// concatenations and format calls.
var addressKinds = map[string]bool{
	"interpreted_string_literal": true, "raw_string_literal": true, "string": true, "string_literal": true,
	"verbatim_string_literal": true, "encapsed_string": true, "template_string": true, "interpolated_string_expression": true,
	"binary_expression": true, "binary_operator": true, "call_expression": true, "call": true, "invocation_expression": true,
	"method_invocation": true,
}

// dsnSchemes are the URL schemes of database, cache and broker clients.
var dsnSchemes = map[string]bool{"mongodb": true, "mongodb+srv": true, "postgres": true, "postgresql": true, "mysql": true,
	"mariadb": true, "redis": true, "rediss": true, "amqp": true, "amqps": true, "kafka": true, "nats": true, "sqlserver": true,
	"mssql": true, "cassandra": true, "neo4j": true, "bolt": true, "clickhouse": true, "memcached": true}

var (
	urlSchemeRE = lazyre.New(`^(?:jdbc:)?([a-z][a-z0-9+.-]*)://([^/?#]*)`)
	pdoDSNRE    = lazyre.New(`^(?i)(mysql|pgsql|sqlsrv|oci|mongodb):.*\bhost=`)
	hostPartRE  = lazyre.New(`^(?:[^@]*@)?(\{[A-Za-z_][A-Za-z0-9_.]*\}|[a-z0-9][a-z0-9.-]*)(?::(?:[0-9]+|\{[A-Za-z_][A-Za-z0-9_.]*\}))?$`)
)

// isAddressTemplate reports whether code builds a service address: a
// database, cache or broker URL (jdbc:mysql://{DB_HOST}/shop,
// mongodb://mongo:27017/books), a PDO DSN, or an HTTP or gRPC URL whose
// host comes from a variable (http://{USERS_HOST}:8080/users). A literal
// http URL is left to the calls that use it.
func isAddressTemplate(t string) bool {
	t = strings.TrimSpace(t)
	if pdoDSNRE.MatchString(t) {
		return true
	}
	m := urlSchemeRE.FindStringSubmatch(t)
	if m == nil || !hostPartRE.MatchString(m[2]) {
		return false
	}
	if dsnSchemes[m[1]] {
		return true
	}
	switch m[1] {
	case "http", "https", "grpc", "ws", "wss":
		return strings.Contains(m[2], "{")
	}
	return false
}

// envReads finds every environment variable the file reads, with its
// default when the code gives one, and the ${NAME} placeholders in its
// string literals (Spring's @Value("http://${BALANCES_ADDR}/x")).
func envReads(root *ts.Node, ev *evaluator) []fact {
	type key struct {
		env  string
		line int
	}
	found := map[key]int{} // index in out
	var out []fact
	add := func(at uint, line int, env, def, field string) {
		if !envNameRE.MatchString(env) {
			return
		}
		k := key{env, line}
		if i, ok := found[k]; ok {
			b := out[i].binding
			if b.Default == "" && def != "" {
				b.Default = def
			}
			if b.Field == "" {
				b.Field = field
			}
			return
		}
		found[k] = len(out)
		out = append(out, fact{at: at, binding: &core.Binding{Kind: BindEnv, Env: env, Default: def, Field: field, Line: line}})
	}
	// Literals assigned to plain names: a variable read from the
	// environment and given a literal when unset (Go's LookupEnv then
	// if !ok { host = "rabbitmq" }) has that literal as its default.
	type assign struct {
		value string
		at    uint
	}
	literals := map[string][]assign{}
	var walk func(n *ts.Node, depth int)
	walk = func(n *ts.Node, depth int) {
		if depth > 400 {
			return
		}
		kind := n.Kind()
		switch {
		case kind == "assignment_statement" || kind == "assignment" || kind == "assignment_expression":
			l, r := n.ChildByFieldName("left"), n.ChildByFieldName("right")
			if l != nil && r != nil && l.Kind() == "expression_list" && l.NamedChildCount() == 1 {
				l = l.NamedChild(0)
			}
			if r != nil && r.Kind() == "expression_list" && r.NamedChildCount() == 1 {
				r = r.NamedChild(0)
			}
			if l != nil && r != nil && (l.Kind() == "identifier" || l.Kind() == "variable_name") && stringKinds[r.Kind()] {
				if v := ev.eval(r, 0); v.origin == core.FromLiteral {
					name := strings.TrimPrefix(l.Utf8Text(ev.src), "$")
					literals[name] = append(literals[name], assign{strings.TrimSpace(v.text), n.StartByte()})
				}
			}
		}
		if addressKinds[kind] {
			if v := ev.eval(n, 0); v.origin != core.FromExpression && isAddressTemplate(v.text) {
				k := key{"\x00" + v.text, int(n.StartPosition().Row) + 1}
				if _, dup := found[k]; !dup {
					found[k] = len(out)
					out = append(out, fact{at: n.StartByte(), binding: &core.Binding{Kind: core.BindAddress, Value: strings.TrimSpace(v.text),
						Field: assignedName(n, ev.src), Line: k.line}})
				}
			}
		}
		switch {
		case kind == "field_declaration" && n.ChildByFieldName("tag") != nil:
			// A Go struct field whose tag gives its environment variable
			// and default (kelseyhightower/envconfig, caarlos0/env,
			// cleanenv, creasty/defaults): the library reads the variable
			// and falls back to the default.
			if env, def, ok := tagDefault(n.ChildByFieldName("tag").Utf8Text(ev.src), n, ev.src); ok {
				field := ""
				if nm := n.ChildByFieldName("name"); nm != nil {
					field = nm.Utf8Text(ev.src)
				}
				add(n.StartByte(), int(n.StartPosition().Row)+1, env, def, field)
			}
		case envReadKinds[kind]:
			if v := ev.eval(n, 0); v.origin == core.FromEnv && v.env != "" {
				def := v.def
				if envNameRE.MatchString(def) {
					// getEnvVar("QUEUE_URI", "QUEUE_HOST"): a second variable, not a value.
					add(n.StartByte(), int(n.StartPosition().Row)+1, def, "", assignedName(n, ev.src))
					def = ""
				}
				add(n.StartByte(), int(n.StartPosition().Row)+1, v.env, def, assignedName(n, ev.src))
			}
		case stringKinds[kind]:
			t := n.Utf8Text(ev.src)
			if strings.Contains(t, "${") {
				for _, m := range placeholderRE.FindAllStringSubmatchIndex(t, -1) {
					line := int(n.StartPosition().Row) + 1 + strings.Count(t[:m[0]], "\n")
					add(n.StartByte()+uint(m[0]), line, t[m[2]:m[3]], placeholderDefault(t, m), "")
				}
			}
			return
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), depth+1)
		}
	}
	walk(root, 0)
	for _, f := range out {
		b := f.binding
		if b.Default != "" || b.Field == "" {
			continue
		}
		start, end := uint(0), uint(len(ev.src))+1
		if n := root.DescendantForByteRange(f.at, f.at); n != nil {
			start, end = ev.scopeOf(n)
		}
		for _, a := range literals[b.Field] {
			if a.at > f.at && start <= a.at && a.at < end {
				b.Default = a.value
				break
			}
		}
	}
	return out
}

// tagDefault reads a Go struct field's tag for the default a
// configuration library gives it (default:"...", envDefault:"...",
// env-default:"...") and the environment variable it is read from
// (env:"NAME"; envconfig:"name" and a field without one, as envconfig
// names it, upper case). ok is false without a default.
func tagDefault(tag string, field *ts.Node, src []byte) (env, def string, ok bool) {
	tag = strings.Trim(tag, "`")
	if strings.HasPrefix(tag, `"`) {
		if u, err := strconv.Unquote(tag); err == nil {
			tag = u
		}
	}
	st := reflect.StructTag(tag)
	for _, k := range []string{"default", "envDefault", "env-default"} {
		if v, found := st.Lookup(k); found && v != "" {
			def = v
			break
		}
	}
	if def == "" {
		return "", "", false
	}
	name, _, _ := strings.Cut(st.Get("env"), ",")
	if name == "" {
		name, _, _ = strings.Cut(st.Get("envconfig"), ",")
	}
	if name == "" {
		if nm := field.ChildByFieldName("name"); nm != nil {
			name = nm.Utf8Text(src)
		}
	}
	return strings.ToUpper(name), def, true
}

// assignedName is the variable, field, parameter or key an expression is
// assigned to, looking through the wrappers around it (await, parentheses).
func assignedName(n *ts.Node, src []byte) string {
	for p, i := n.Parent(), 0; p != nil && i < 4; p, i = p.Parent(), i+1 {
		switch p.Kind() {
		case "variable_declarator", "keyword_argument", "named_argument", "property_declaration", "const_spec", "var_spec":
			if nm := p.ChildByFieldName("name"); nm != nil {
				return strings.TrimPrefix(lastPart(nm.Utf8Text(src)), "$")
			}
		case "assignment", "assignment_expression", "augmented_assignment":
			if l := p.ChildByFieldName("left"); l != nil {
				return strings.TrimPrefix(lastPart(l.Utf8Text(src)), "$")
			}
		case "short_var_declaration", "assignment_statement":
			if l := p.ChildByFieldName("left"); l != nil && l.NamedChildCount() > 0 {
				return lastPart(l.NamedChild(0).Utf8Text(src))
			}
		case "pair":
			if k := p.ChildByFieldName("key"); k != nil {
				return strings.Trim(k.Utf8Text(src), `"'`)
			}
		case "parenthesized_expression", "await_expression", "expression_list", "binary_expression", "boolean_operator",
			"ternary_expression", "conditional_expression", "argument", "equals_value_clause", "cast_expression", "as_expression":
			continue
		default:
			return ""
		}
	}
	return ""
}
