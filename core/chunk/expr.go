package chunk

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// value is a string expression as far as one file can tell: a template
// with static text and {placeholders} for the dynamic parts, how it was
// obtained, and the environment variable or configuration key it (or its
// leading part) comes from.
type value struct {
	text   string
	origin core.Origin
	env    string
	config string
	def    string // literal used when env or config is unset
	lead   string // source of a leading dynamic part: its expression text
}

func (v value) known() bool { return v.text != "" }

// binding is a name bound to a value expression within a scope.
type binding struct {
	value      ts.Node
	name       ts.Node
	scoped     bool
	start, end uint // the scope: the enclosing function, or the whole file
}

// evaluator resolves expressions of one file.
type evaluator struct {
	src   []byte
	binds map[string][]binding
	// memo holds what eval gave for a node at a depth: the fact readers
	// ask for an expression and again for the expressions inside it (a
	// call's arguments, a concatenation's parts), and the result depends
	// on nothing else.
	memo map[evalKey]value
	// configs are the values the file gives configuration keys
	// (Flask's app.config["ORDERS_URI"] = ...), by key: the file's
	// whole, wherever the key is read.
	configs map[string]ts.Node
	// literals says, of each name literalKey was asked about, whether
	// some binding gives it a dictionary or object literal.
	literals map[string]bool
}

// evalKey is a node (its byte range and kind) asked at a depth.
type evalKey struct {
	start, end uint
	kind       string
	depth      int
}

// scopeOf returns the byte range of the function enclosing n, or the file.
func (e *evaluator) scopeOf(n *ts.Node) (uint, uint) {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Kind() {
		case "function_declaration", "method_declaration", "func_literal", "function_definition", "function_expression",
			"arrow_function", "method_definition", "local_function_statement", "lambda_expression", "constructor_declaration",
			"generator_function_declaration", "function":
			return p.StartByte(), p.EndByte()
		}
	}
	return 0, uint(len(e.src)) + 1
}

var identRE = lazyre.New(`[A-Za-z_][A-Za-z0-9_]*`)

// Called names, by how they end (case aside): a call reads the
// environment (os.Getenv, process.env.get, Environment.GetEnvironmentVariable,
// envOr, env_or), reads configuration (GetValue<T>, GetConnectionString,
// config.get) or wraps a value (url.PathEscape, str, new URL). Matched by
// suffix, not by regular expression: every call of every file is asked.
var (
	envCalls = []string{"env", "environ.get", "environment.getenvironmentvariable", "envor", "env.get", "getenvordefault", "env_or", "env.fetch"}
	cfgCalls = []string{"getvalue", "getconnectionstring", "getproperty", "getstring", "config.get", "settings.get"}
	// genericCfgCalls take a type argument: GetValue<int>.
	genericCfgCalls = []string{"getvalue"}
	wrapperCalls    = []string{"pathescape", "queryescape", "encodeuricomponent", "encodeuri", "escapedatastring", "escapeuristring",
		"quote", "quote_plus", "urlencode", "encode", "itoa", "tostring", "string", "str", "format_id", "sprint",
		"new uri", "new url", "uri.create", "url.parse", "parse"}
)

// endsWithFold reports whether name ends with one of the lower-case
// suffixes, case aside.
func endsWithFold(name string, suffixes []string) bool {
	l := strings.ToLower(name)
	for _, s := range suffixes {
		if strings.HasSuffix(l, s) {
			return true
		}
	}
	return false
}

func envCall(name string) bool     { return endsWithFold(name, envCalls) }
func wrapperCall(name string) bool { return name == "URI" || endsWithFold(name, wrapperCalls) }

// cfgCall is a configuration read; GetValue<int> counts as GetValue.
func cfgCall(name string) bool {
	if strings.HasSuffix(name, ">") {
		// The type argument runs from a '<' after the last inner '>'.
		from := strings.LastIndexByte(name[:len(name)-1], '>') + 1
		for i := from; i < len(name)-1; i++ {
			if name[i] == '<' && endsWithFold(name[:i], genericCfgCalls) {
				return true
			}
		}
		return false
	}
	return endsWithFold(name, cfgCalls)
}

func (e *evaluator) text(n *ts.Node) string { return n.Utf8Text(e.src) }

// placeholder names a dynamic part after the last identifier in it.
func placeholder(expr string) string {
	ids := identRE.FindAllString(expr, -1)
	for i := len(ids) - 1; i >= 0; i-- {
		switch strings.ToLower(ids[i]) {
		case "this", "self", "tostring", "string", "str", "value", "get":
			continue
		}
		return "{" + ids[i] + "}"
	}
	return "{}"
}

// lookup finds the innermost binding of name visible at node at. Scopes
// are found on first lookup: most bindings are never looked up.
func (e *evaluator) lookup(name string, at uint) (ts.Node, bool) {
	var best *binding
	for i := range e.binds[name] {
		b := &e.binds[name][i]
		if !b.scoped {
			b.start, b.end = e.scopeOf(&b.name)
			b.scoped = true
		}
		if b.start <= at && at < b.end && (best == nil || b.end-b.start < best.end-best.start) {
			best = b
		}
	}
	if best == nil {
		return ts.Node{}, false
	}
	return best.value, true
}

// eval resolves n; depth bounds the chains of names followed.
func (e *evaluator) eval(n *ts.Node, depth int) value {
	if n == nil || depth > 8 {
		return value{}
	}
	kind := n.Kind()
	k := evalKey{n.StartByte(), n.EndByte(), kind, depth}
	if v, ok := e.memo[k]; ok {
		return v
	}
	v := e.evalNode(n, kind, depth)
	if e.memo == nil {
		e.memo = map[evalKey]value{}
	}
	e.memo[k] = v
	return v
}

// name evaluates the name written at byte at: its binding's value, or
// a placeholder named after it.
func (e *evaluator) name(name string, at uint, depth int) value {
	if v, ok := e.lookup(name, at); ok && v.StartByte() != at {
		r := e.eval(&v, depth+1)
		if r.origin == core.FromLiteral {
			r.origin = core.FromConstant
		}
		if r.known() {
			if r.lead == "" && strings.HasPrefix(r.text, "{") {
				r.lead = name
			}
			return r
		}
	}
	return value{text: "{" + strings.TrimPrefix(name, "$") + "}", origin: core.FromExpression, lead: name}
}

// evalNode is eval of a node of the given kind, not remembered.
func (e *evaluator) evalNode(n *ts.Node, kind string, depth int) value {
	switch kind {
	case "interpreted_string_literal", "raw_string_literal", "string", "string_literal",
		"verbatim_string_literal", "template_string", "interpolated_string_expression", "concatenated_string", "encapsed_string":
		return e.str(n, depth)
	case "parenthesized_expression", "argument", "literal_element", "array_element_initializer", "await_expression", "expression_statement",
		"equals_value_clause", "non_null_expression", "as_expression", "satisfies_expression", "cast_expression":
		if c := lastNamed(n); c != nil {
			return e.eval(c, depth)
		}
	case "identifier", "property_identifier", "shorthand_property_identifier", "variable_name", "constant":
		return e.name(e.text(n), n.StartByte(), depth)
	case "simple_symbol": // Ruby's :orders
		return value{text: strings.TrimPrefix(e.text(n), ":"), origin: core.FromLiteral}
	case "postfix_unary_expression":
		// C#'s null-forgiving configuration["Orders:Url"]!
		if strings.HasSuffix(e.text(n), "!") && n.NamedChildCount() > 0 {
			return e.eval(n.NamedChild(0), depth)
		}
	case "binary_expression", "binary_operator", "boolean_operator", "binary": // binary: Ruby's
		return e.binary(n, depth)
	case "ternary_expression", "conditional_expression":
		return e.conditional(n, depth)
	case "call_expression", "call", "invocation_expression", "method_invocation", "object_creation_expression", "new_expression",
		"function_call_expression", "member_call_expression", "scoped_call_expression":
		return e.call(n, depth)
	case "subscript", "element_access_expression", "subscript_expression", "index_expression", "element_reference":
		return e.index(n, depth)
	case "member_expression", "selector_expression", "attribute", "member_access_expression", "field_access":
		t := e.text(n)
		if strings.HasPrefix(t, "process.env.") {
			name := strings.TrimPrefix(t, "process.env.")
			return value{text: "{" + name + "}", origin: core.FromEnv, env: name, lead: t}
		}
		// self.ROUTING_KEY, this.host, cls.HOST: a class attribute or
		// field given a value in the same file.
		for _, recv := range []string{"self.", "this.", "cls.", "this->", "$this->", "self::", "static::"} {
			if name, ok := strings.CutPrefix(t, recv); ok && identRE.FindString(name) == name {
				if v, ok := e.lookup(name, n.StartByte()); ok {
					if r := e.eval(&v, depth+1); r.known() && r.origin != core.FromExpression {
						if r.origin == core.FromLiteral {
							r.origin = core.FromConstant
						}
						return r
					}
				}
			}
		}
		if o, p := n.ChildByFieldName("object"), n.ChildByFieldName("property"); o != nil && p != nil && p.Kind() == "property_identifier" {
			if v, ok := e.literalKey(o, e.text(p), depth); ok {
				return v // services.stock of const services = { stock: "http://stock:8080" }
			}
		}
		return value{text: placeholder(t), origin: core.FromExpression, lead: t}
	}
	t := e.text(n)
	return value{text: placeholder(t), origin: core.FromExpression, lead: t}
}

func lastNamed(n *ts.Node) *ts.Node {
	c := n.NamedChildCount()
	if c == 0 {
		return nil
	}
	return n.NamedChild(c - 1)
}

// str evaluates a string literal, an f-string, a template or an
// interpolated string.
func (e *evaluator) str(n *ts.Node, depth int) value {
	var b strings.Builder
	v := value{origin: core.FromLiteral}
	var walk func(n *ts.Node)
	walk = func(n *ts.Node) {
		for i := uint(0); i < n.ChildCount(); i++ {
			c := n.Child(i)
			switch c.Kind() {
			case "string_content":
				t := e.text(c)
				if t == "$" && i+1 < n.ChildCount() && n.Child(i+1).Kind() == "string_content" {
					// Kotlin's "$base/x" parses as "$" then "base/x":
					// the name after the $ is interpolated.
					next := n.Child(i + 1)
					rest := e.text(next)
					if id := identRE.FindString(rest); id != "" && strings.HasPrefix(rest, id) {
						iv := e.name(id, next.StartByte(), depth+1)
						if b.Len() == 0 {
							v.lead, v.env, v.config, v.def = iv.lead, iv.env, iv.config, iv.def
						}
						b.WriteString(iv.text)
						b.WriteString(rest[len(id):])
						v.origin = core.FromTemplate
						i++
						continue
					}
				}
				b.WriteString(t)
			case "interpreted_string_literal_content", "string_fragment", "string_literal_content",
				"multiline_string_fragment", "raw_string_literal_content":
				b.WriteString(e.text(c))
			case "escape_sequence":
				b.WriteString(unescape(e.text(c)))
			case "interpolation", "template_substitution", "string_interpolation":
				inner := c.ChildByFieldName("expression") // Python
				for i := uint(0); inner == nil && i < c.NamedChildCount(); i++ {
					switch k := c.NamedChild(i); k.Kind() { // C# braces and clauses are named
					case "interpolation_brace", "interpolation_format_clause", "interpolation_alignment_clause", "comment":
					default:
						inner = k
					}
				}
				iv := e.eval(inner, depth+1)
				if b.Len() == 0 { // a leading dynamic part: the base of a URL
					v.lead, v.env, v.config, v.def = iv.lead, iv.env, iv.config, iv.def
				}
				b.WriteString(iv.text)
				v.origin = core.FromTemplate
			case "string":
				walk(c) // concatenated_string
			case "variable_name", "dynamic_variable_name", "member_access_expression", "subscript_expression":
				// PHP's "$sku not found", "{$this->base}/x"
				iv := e.eval(c, depth+1)
				if b.Len() == 0 {
					v.lead, v.env, v.config, v.def = iv.lead, iv.env, iv.config, iv.def
				}
				b.WriteString(iv.text)
				v.origin = core.FromTemplate
			}
		}
	}
	if n.Kind() == "raw_string_literal" && n.ChildCount() == 0 || n.Kind() == "interpreted_string_literal" && n.NamedChildCount() == 0 {
		t := e.text(n)
		if len(t) >= 2 {
			b.WriteString(t[1 : len(t)-1])
		}
	} else {
		walk(n)
	}
	v.text = b.String()
	if v.text == "" {
		v.text = " " // an empty literal is known, and empty
	}
	return v
}

func unescape(s string) string {
	switch s {
	case `\n`:
		return "\n"
	case `\t`:
		return "\t"
	case `\"`, `\'`, `\\`, "\\`", `\/`, `\$`:
		return s[1:]
	}
	return s
}

// binary evaluates concatenation and the defaults of ?? and or.
func (e *evaluator) binary(n *ts.Node, depth int) value {
	op := ""
	if o := n.ChildByFieldName("operator"); o != nil {
		op = e.text(o)
	} else if n.ChildCount() == 3 {
		op = e.text(n.Child(1))
	}
	l, r := n.ChildByFieldName("left"), n.ChildByFieldName("right")
	if l == nil || r == nil {
		return value{text: placeholder(e.text(n)), origin: core.FromExpression}
	}
	lv, rv := e.eval(l, depth+1), e.eval(r, depth+1)
	switch op {
	case "+", ".": // "." concatenates in PHP
		v := lv
		v.text = lv.text + rv.text
		v.origin = core.FromTemplate
		if lv.origin == core.FromLiteral && rv.origin == core.FromLiteral {
			v.origin = core.FromLiteral
		}
		return v
	case "??", "||", "or", "?:": // ?: is Kotlin's elvis
		v := lv
		if rv.origin == core.FromLiteral || rv.origin == core.FromConstant {
			v.def = strings.TrimSpace(rv.text)
		}
		return v
	case "%":
		if n.Kind() == "binary_operator" && (lv.origin == core.FromLiteral || lv.origin == core.FromConstant) && strings.Contains(lv.text, "%") {
			return e.percentFormat(lv, r, depth)
		}
	}
	return value{text: placeholder(e.text(n)), origin: core.FromExpression, lead: e.text(n)}
}

// percentRE finds Python's printf-style conversions: %s, %d, %05.2f,
// %(name)s, and %% for a percent sign.
var percentRE = lazyre.New(`%(?:\(([A-Za-z_][A-Za-z0-9_]*)\))?[-#0 +]*\d*(?:\.\d+)?[sdrifxXeEgGcoa%]`)

// percentFormat evaluates Python's "%s/orders" % base (or % (a, b)): the
// format with each conversion filled by the value it takes, a
// %(name)s by {name}. The value of the first conversion lends the
// result its environment variable, as a concatenation's left side does.
func (e *evaluator) percentFormat(format value, args *ts.Node, depth int) value {
	for args.Kind() == "parenthesized_expression" && args.NamedChildCount() == 1 {
		args = args.NamedChild(0)
	}
	items := []*ts.Node{args}
	if args.Kind() == "tuple" {
		items = nil
		for i := uint(0); i < args.NamedChildCount(); i++ {
			items = append(items, args.NamedChild(i))
		}
	}
	out := value{origin: core.FromTemplate}
	k := 0
	out.text = percentRE.ReplaceAllStringFunc(format.text, func(m string) string {
		switch {
		case m == "%%":
			return "%"
		case strings.HasPrefix(m, "%("):
			return "{" + m[2:strings.IndexByte(m, ')')] + "}"
		case k >= len(items):
			return m
		}
		v := e.eval(items[k], depth+1)
		if k == 0 && out.env == "" && out.config == "" {
			out.env, out.config, out.def, out.lead = v.env, v.config, v.def, v.lead
		}
		k++
		return v.text
	})
	return out
}

// envHelper reports whether a function's name says it reads the
// environment (getEnvVar, mustGetenv, requireEnv, env_str,
// GetEnvOrDefault); a call to one with an UPPER_CASE literal is a read.
func envHelper(short string) bool {
	return strings.Contains(strings.ToLower(short), "env")
}

// conditional evaluates c ? a : b, a if c else b and PHP's a ?: b: an
// environment read on one side and a literal on the other is the read
// with that default (System.getenv("X") == null ? "d" : System.getenv("X")).
func (e *evaluator) conditional(n *ts.Node, depth int) value {
	var branches []*ts.Node
	for _, f := range []string{"consequence", "body", "alternative"} {
		if c := n.ChildByFieldName(f); c != nil {
			branches = append(branches, c)
		}
	}
	cond := n.ChildByFieldName("condition")
	if len(branches) == 0 && n.NamedChildCount() == 3 { // Python: body if condition else alternative
		branches = []*ts.Node{n.NamedChild(0), n.NamedChild(2)}
		cond = n.NamedChild(1)
	}
	if n.ChildByFieldName("body") == nil && cond != nil && n.ChildByFieldName("alternative") != nil && n.ChildByFieldName("consequence") == nil {
		branches = append([]*ts.Node{cond}, branches...) // a ?: b
	}
	var env, lit *value
	for _, b := range branches {
		v := e.eval(b, depth+1)
		switch {
		case v.origin == core.FromEnv && env == nil:
			env = &v
		case (v.origin == core.FromLiteral || v.origin == core.FromConstant) && lit == nil:
			lit = &v
		}
	}
	if env != nil {
		r := *env
		if lit != nil && r.def == "" {
			r.def = strings.TrimSpace(lit.text)
		}
		return r
	}
	return value{text: placeholder(e.text(n)), origin: core.FromExpression, lead: e.text(n)}
}

// args returns the argument expressions of a call node.
func args(n *ts.Node) []*ts.Node {
	a := n.ChildByFieldName("arguments")
	if a == nil {
		return kotlinArgs(n)
	}
	return argsOf(a)
}

// argsOf returns the arguments of an argument list node.
func argsOf(list *ts.Node) []*ts.Node {
	var out []*ts.Node
	for i := uint(0); i < list.NamedChildCount(); i++ {
		if c := list.NamedChild(i); c.Kind() != "comment" {
			out = append(out, c)
		}
	}
	return out
}

// positional returns the expression of argument a when it is given by
// position; false for one given by name (Python's k=v, C#'s name: v,
// Kotlin's name = v) or spread (*args, ...rest), after which positions
// are not known.
func positional(a *ts.Node) (*ts.Node, bool) {
	switch a.Kind() {
	case "keyword_argument", "list_splat", "dictionary_splat", "spread_element":
		return nil, false
	case "argument", "value_argument": // C#, Kotlin: the expression inside
		if a.NamedChildCount() != 1 {
			return nil, false
		}
		return a.NamedChild(0), true
	}
	return a, true
}

// callee is the called expression of a call or constructor node.
func callee(n *ts.Node) *ts.Node {
	for _, f := range []string{"function", "constructor", "type"} {
		if c := n.ChildByFieldName(f); c != nil {
			return c
		}
	}
	// Kotlin's call_expression has no fields: the callee, then the
	// arguments and a trailing lambda.
	if n.Kind() == "call_expression" && n.NamedChildCount() > 0 {
		if c := n.NamedChild(0); c.Kind() != "value_arguments" && c.Kind() != "annotated_lambda" {
			return c
		}
	}
	return nil
}

// kotlinArgs returns the argument expressions of a Kotlin call
// (f(a, name = b): a and b), nil for a node that is none.
func kotlinArgs(n *ts.Node) []*ts.Node {
	if n.Kind() != "call_expression" {
		return nil
	}
	return listedArgs(n, "value_arguments", "value_argument")
}

// listedArgs returns the expressions of n's arguments where a grammar
// wraps each in an item node (kind item) inside a list node (kind list):
// each item's last named child (name = value: the value).
func listedArgs(n *ts.Node, list, item string) []*ts.Node {
	var out []*ts.Node
	for i := uint(0); i < n.NamedChildCount(); i++ {
		l := n.NamedChild(i)
		if l.Kind() != list {
			continue
		}
		for j := uint(0); j < l.NamedChildCount(); j++ {
			if a := l.NamedChild(j); a.Kind() == item && a.NamedChildCount() > 0 {
				out = append(out, a.NamedChild(a.NamedChildCount()-1))
			}
		}
	}
	return out
}

// calleeText is the called name as written (pkg.Fn, obj.method, new Uri).
func (e *evaluator) calleeText(n *ts.Node) string {
	switch n.Kind() {
	case "member_call_expression", "scoped_call_expression": // PHP
		t := e.text(n.ChildByFieldName("name"))
		for _, f := range []string{"object", "scope"} {
			if o := n.ChildByFieldName(f); o != nil {
				t = e.text(o) + "." + t
			}
		}
		return t
	case "method_invocation":
		t := e.text(n.ChildByFieldName("name"))
		if o := n.ChildByFieldName("object"); o != nil {
			t = e.text(o) + "." + t
		}
		return t
	case "call": // Ruby: receiver.method(arguments); Python's call has a function
		if m := n.ChildByFieldName("method"); m != nil {
			t := e.text(m)
			if r := n.ChildByFieldName("receiver"); r != nil {
				t = e.text(r) + "." + t
			}
			return t
		}
	case "object_creation_expression", "new_expression":
		if c := callee(n); c != nil {
			return "new " + e.text(c)
		}
	}
	if c := callee(n); c != nil {
		return e.text(c)
	}
	return ""
}

// call evaluates environment and configuration reads, format calls and
// thin wrappers; other calls are dynamic parts.
func (e *evaluator) call(n *ts.Node, depth int) value {
	name := e.calleeText(n)
	as := args(n)
	lit := func(i int) string {
		if i < len(as) {
			if v := e.eval(as[i], depth+1); v.origin == core.FromLiteral || v.origin == core.FromConstant {
				return strings.TrimSpace(v.text)
			}
		}
		return ""
	}
	short := name
	if i := strings.LastIndexAny(short, ".:"); i >= 0 && !strings.HasPrefix(short, "new ") {
		short = short[i+1:]
	}
	switch {
	case (envCall(name) || envHelper(short) && envNameRE.MatchString(lit(0))) && len(as) > 0 && lit(0) != "":
		env := lit(0)
		return value{text: "{" + env + "}", origin: core.FromEnv, env: env, def: lit(1), lead: e.text(n)}
	case cfgCall(name) && len(as) > 0 && lit(0) != "":
		key := lit(0)
		if strings.HasSuffix(strings.ToLower(name), "getconnectionstring") {
			key = "ConnectionStrings:" + key
		}
		return value{text: "{" + key + "}", origin: core.FromConfig, config: key, lead: e.text(n)}
	case strings.HasSuffix(strings.ToLower(name), "sprintf") || strings.HasSuffix(strings.ToLower(name), "string.format") || name == "String.format":
		if len(as) > 0 {
			return e.format(as[0], as[1:], depth)
		}
	case short == "format" && strings.Contains(name, "."):
		// Python "{}/x/{}".format(a, b)
		if f := n.ChildByFieldName("function"); f != nil {
			if obj := f.ChildByFieldName("object"); obj != nil {
				return e.format(obj, as, depth)
			}
		}
	case (wrapperCall(name) || wrapperCall(short)) && len(as) > 0:
		v := e.eval(as[0], depth+1)
		if strings.HasPrefix(name, "new ") || strings.Contains(strings.ToLower(name), "create") || strings.Contains(strings.ToLower(name), "parse") || name == "URI" {
			return v // new Uri(x), URI.create(x), url.Parse(x), Ruby's URI(x): the value itself
		}
		if v.origin == core.FromLiteral || v.origin == core.FromConstant {
			return v
		}
		return value{text: placeholder(e.text(as[0])), origin: core.FromExpression, lead: e.text(as[0])}
	}
	return value{text: placeholder(e.text(n)), origin: core.FromExpression, lead: e.text(n)}
}

var fmtVerbRE = lazyre.New(`%[-+# 0]*[0-9]*(\.[0-9]+)?[sdvqxXfg]|\{[0-9]*(:[^}]*)?\}|\{[A-Za-z_][A-Za-z0-9_]*\}`)

// format substitutes the arguments into a format string (%s, {0}, {}).
func (e *evaluator) format(f *ts.Node, as []*ts.Node, depth int) value {
	fv := e.eval(f, depth+1)
	if fv.origin != core.FromLiteral && fv.origin != core.FromConstant {
		return value{text: placeholder(e.text(f)), origin: core.FromExpression}
	}
	v := value{origin: core.FromTemplate}
	i := 0
	first := true
	// Python's "{user}".format(user=USER): keyword arguments by name.
	named := map[string]*ts.Node{}
	var positional []*ts.Node
	for _, a := range as {
		if a.Kind() == "keyword_argument" {
			if k, val := a.ChildByFieldName("name"), a.ChildByFieldName("value"); k != nil && val != nil {
				named[e.text(k)] = val
				continue
			}
		}
		positional = append(positional, a)
	}
	v.text = fmtVerbRE.ReplaceAllStringFunc(fv.text, func(m string) string {
		var arg *ts.Node
		if strings.HasPrefix(m, "{") && len(m) > 2 && (m[1] == '_' || m[1] >= 'A' && m[1] <= 'z' && (m[1] <= 'Z' || m[1] >= 'a')) {
			arg = named[m[1:len(m)-1]]
			if arg == nil {
				return m
			}
		} else {
			idx := i
			if strings.HasPrefix(m, "{") && len(m) > 2 && m[1] >= '0' && m[1] <= '9' {
				idx = int(m[1] - '0')
			}
			i++
			if idx >= len(positional) {
				return m
			}
			arg = positional[idx]
		}
		av := e.eval(arg, depth+1)
		if first && strings.Index(fv.text, m) == 0 {
			v.lead, v.env, v.config, v.def = av.lead, av.env, av.config, av.def
		}
		first = false
		return av.text
	})
	return v
}

// index evaluates os.environ["X"], process.env["X"] and config["A:B"].
func (e *evaluator) index(n *ts.Node, depth int) value {
	obj := n.ChildByFieldName("value")
	if obj == nil {
		obj = n.ChildByFieldName("expression")
	}
	if obj == nil {
		obj = n.ChildByFieldName("object")
	}
	if obj == nil {
		obj = n.ChildByFieldName("operand")
	}
	var key *ts.Node
	for _, f := range []string{"subscript", "index"} {
		if k := n.ChildByFieldName(f); k != nil {
			key = k
		}
	}
	if key == nil && n.Kind() == "element_reference" && n.NamedChildCount() == 2 {
		key = n.NamedChild(1) // Ruby's ENV['X']: the key has no field name
	}
	if obj == nil || key == nil {
		return value{text: placeholder(e.text(n)), origin: core.FromExpression}
	}
	if key.Kind() == "bracketed_argument_list" && key.NamedChildCount() > 0 {
		key = key.NamedChild(0)
	}
	kv := e.eval(key, depth+1)
	ot := strings.ToLower(e.text(obj))
	k := strings.TrimSpace(kv.text)
	if kv.origin != core.FromLiteral && kv.origin != core.FromConstant {
		return value{text: placeholder(e.text(n)), origin: core.FromExpression, lead: e.text(n)}
	}
	switch {
	case strings.HasSuffix(ot, "environ") || strings.HasSuffix(ot, "process.env") || strings.HasSuffix(ot, "env"):
		return value{text: "{" + k + "}", origin: core.FromEnv, env: k, lead: e.text(n)}
	case strings.Contains(ot, "config") || strings.Contains(ot, "settings"):
		if c, ok := e.configs[k]; ok && c.StartByte() != n.StartByte() {
			if v := e.eval(&c, depth+1); v.known() && v.origin != core.FromExpression {
				return v // set in this file: app.config["ORDERS_URI"] = "http://{}/orders".format(...)
			}
		}
		return value{text: "{" + k + "}", origin: core.FromConfig, config: k, lead: e.text(n)}
	}
	if v, ok := e.literalKey(obj, k, depth); ok {
		return v
	}
	return value{text: placeholder(e.text(n)), origin: core.FromExpression, lead: e.text(n)}
}

// literalKey evaluates a key of a dictionary or object literal a name is
// bound to in the file (SERVICES = {"stock": "http://stock:8080"};
// SERVICES["stock"], services.stock).
func (e *evaluator) literalKey(obj *ts.Node, key string, depth int) (value, bool) {
	if obj.Kind() != "identifier" || key == "" {
		return value{}, false
	}
	name := e.text(obj)
	lit, seen := e.literals[name]
	if !seen {
		for _, b := range e.binds[name] {
			if k := b.value.Kind(); k == "dictionary" || k == "object" {
				lit = true
			}
		}
		if e.literals == nil {
			e.literals = map[string]bool{}
		}
		e.literals[name] = lit
	}
	if !lit {
		return value{}, false
	}
	b, ok := e.lookup(name, obj.StartByte())
	if !ok || b.Kind() != "dictionary" && b.Kind() != "object" {
		return value{}, false
	}
	v := e.objectKey(&b, key)
	if v == nil {
		return value{}, false
	}
	r := e.eval(v, depth+1)
	if !r.known() || r.origin == core.FromExpression {
		return value{}, false
	}
	if r.origin == core.FromLiteral {
		r.origin = core.FromConstant
	}
	return r, true
}

// objectKey returns the value of a dictionary or object literal's key
// ({ method: "POST" }, {"venues": "/venues"}), nil when it has none.
func (e *evaluator) objectKey(o *ts.Node, key string) *ts.Node {
	for i := uint(0); i < o.NamedChildCount(); i++ {
		p := o.NamedChild(i)
		if p.Kind() != "pair" {
			continue
		}
		if k := p.ChildByFieldName("key"); k != nil && strings.Trim(e.text(k), "\"'") == key {
			return p.ChildByFieldName("value")
		}
	}
	return nil
}

// list evaluates an array or list literal into its elements; any other
// node is a list of itself.
func (e *evaluator) list(n *ts.Node, depth int) []value {
	switch n.Kind() {
	case "list", "array", "array_creation_expression", "implicit_array_creation_expression", "collection_expression",
		"composite_literal", "literal_value", "argument_list", "array_initializer", "element_value_array_initializer", "tuple",
		"initializer_expression", "collection_literal":
		var out []value
		var collect func(n *ts.Node)
		collect = func(n *ts.Node) {
			for i := uint(0); i < n.NamedChildCount(); i++ {
				c := n.NamedChild(i)
				switch c.Kind() {
				case "literal_value", "initializer_expression", "array_initializer":
					collect(c)
				case "comment", "type_identifier", "slice_type", "array_type":
				default:
					if v := e.eval(c, depth+1); v.known() {
						out = append(out, v)
					}
				}
			}
		}
		collect(n)
		return out
	}
	return []value{e.eval(n, depth)}
}
