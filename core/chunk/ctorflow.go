package chunk

import (
	"slices"
	"strings"

	"coderag/core"
	"coderag/core/internal/lazyre"
)

// ctorField reads a constructor's assignment of a parameter to a field
// (Java's and C#'s this.baseUrl = baseUrl or _baseUrl = baseUrl,
// JavaScript's this.baseUrl = baseUrl, Python's self.base_url = base_url
// in __init__, a TypeScript parameter property, a Kotlin constructor
// property): a field binding of the
// class, set from parameter Index of the constructor named after the
// class, which the service graph follows to the arguments of
// new Class(...) (ctorArgs), as it follows Go's constructors.
func (x *extractor) ctorField(m *match) []fact {
	class, param, params := m.first("ctorp.class"), m.first("ctorp.param"), m.first("ctorp.params")
	if class == nil || param == nil || params == nil {
		return nil
	}
	field, at := param.Utf8Text(x.src), param // a parameter property is its own field
	if f := m.first("ctorp.field"); f != nil {
		field, at = f.Utf8Text(x.src), f
		for _, recv := range []string{"this.", "self."} {
			field = strings.TrimPrefix(field, recv)
		}
		if identRE.FindString(field) != field {
			return nil // obj.a.b = p, arr[0] = p
		}
	}
	names := paramNames(params, x.src)
	if len(names) > 0 && (names[0] == "self" || names[0] == "cls") {
		names = names[1:]
	}
	p := param.Utf8Text(x.src)
	index := slices.Index(names, p)
	if index < 0 {
		return nil // a local variable, not a parameter
	}
	name := class.Utf8Text(x.src)
	b := core.Binding{Kind: "field", Type: name, Field: field, Func: name, Param: p, Index: index, Expr: p, Line: x.line(at)}
	return []fact{{at: at.StartByte(), binding: &b}}
}

// addrNameRE is a name that says it holds an address; dottedNameRE a
// name or a chain of them (cfg.paymentsUrl, this.baseUrl).
var (
	addrNameRE   = lazyre.New(`(?i)(url|uri|host|addr|address|endpoint|base|server|dsn)`)
	dottedNameRE = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)
)

// ctorArgs reads what new Class(...) (Class(...) in Python) is given:
// an argument binding of each argument that is an address, or a name
// that says it holds one (CART_URL, cfg.paymentsUrl), for the service
// graph to follow a field set from that parameter (ctorField).
func (x *extractor) ctorArgs(m *match) []fact {
	name := ctorName(m.first("ctor.name").Utf8Text(x.src))
	if name == "" || strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception") {
		return nil // new Error(`...`): a message, the commonest construction
	}
	var out []fact
	for i, a := range argsOf(m.first("ctor.args")) {
		a, ok := positional(a)
		if !ok {
			break // positions after it are not known
		}
		v := x.ev.eval(a, 0)
		expr := a.Utf8Text(x.src)
		switch {
		case v.env != "" || v.config != "":
		case (v.origin == core.FromLiteral || v.origin == core.FromConstant || v.origin == core.FromTemplate) && (strings.Contains(v.text, "://") || hostPortRE.MatchString(v.text)):
		case v.origin == core.FromExpression && addrNameRE.MatchString(expr) && dottedNameRE.MatchString(expr):
		default:
			continue
		}
		b := core.Binding{Kind: "arg", Func: name, Index: i, Expr: expr, Line: x.line(a)}
		setValue(&b, v)
		out = append(out, fact{at: a.StartByte(), binding: &b})
	}
	return out
}

// ctorName is the class a construction names: CartHelper of
// com.example.CartHelper, CartHelper<T> or clients.CartHelper.
func ctorName(t string) string {
	if i := strings.IndexByte(t, '<'); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexAny(t, ".:"); i >= 0 {
		t = t[i+1:]
	}
	t = strings.TrimSpace(t)
	if identRE.FindString(t) != t {
		return ""
	}
	return t
}
