package analyzers

import (
	"strings"

	"github.com/cachelint/cachelint/pyparse"
)

// gateClosedAt reports whether a helper's gate is false for one call of the helper, judged
// from the literal arguments the call passes (args: bindLiterals): accelerate's set_module_tensor_to_device empties the cache only
// `if clear_cache and device not in ("cpu", "meta")`, so a call passing "meta" never does.
// Only plain forms are judged (a parameter tested for truth, ==, !=, in, not in against
// literals, joined by `and`); anything else is taken to be open.
func gateClosedAt(hf *pyparse.File, g *gate, args map[string]string) bool {
	if g.Node == nil {
		return false
	}
	v, known := evalGate(hf, g.Node, args)
	if !known {
		return false
	}
	if g.Negate {
		v = !v
	}
	return !v
}

// bindLiterals maps the helper's parameter names to the literal source text the call passes.
func bindLiterals(fn *pyparse.Function, call *pyparse.Call, cf *pyparse.File) map[string]string {
	params := fn.Params
	if fn.Class != nil && len(params) > 0 && (params[0] == "self" || params[0] == "cls") && strings.Contains(call.Callee, ".") {
		params = params[1:]
	}
	out := map[string]string{}
	pos := 0
	for _, a := range call.Args.NamedChildren() {
		switch a.Kind() {
		case "keyword_argument":
			if n, v := a.ChildByField("name"), a.ChildByField("value"); n != nil && v != nil && isLiteral(v) {
				out[n.Text(cf.Src)] = literalText(v, cf.Src)
			}
		case "list_splat", "dictionary_splat", "comment":
			return out // *args / **kw: positions beyond are unknown
		default:
			if pos < len(params) && isLiteral(a) {
				out[params[pos]] = literalText(a, cf.Src)
			}
			pos++
		}
	}
	return out
}

func isLiteral(n *pyparse.Node) bool {
	switch n.Kind() {
	case "string", "integer", "float", "true", "false", "none":
		return n.Kind() != "string" || n.Find(func(m *pyparse.Node) bool { return m.Kind() == "interpolation" }) == nil
	}
	return false
}

// literalText normalises a literal: strings without quotes, True/False/None as written.
func literalText(n *pyparse.Node, src []byte) string {
	t := n.Text(src)
	if n.Kind() == "string" {
		t = strings.Trim(t, `"'`)
	}
	return t
}

// evalGate evaluates a condition under the bound literals; known is false when it cannot.
func evalGate(f *pyparse.File, n *pyparse.Node, args map[string]string) (v, known bool) {
	switch n.Kind() {
	case "parenthesized_expression":
		if n.NamedCount() == 1 {
			return evalGate(f, n.NamedChild(0), args)
		}
	case "boolean_operator":
		if !n.HasChild("and") {
			return false, false
		}
		// False if any part is known false; true only if all are known true.
		all := true
		for part := range n.NamedSeq() {
			pv, pk := evalGate(f, part, args)
			if pk && !pv {
				return false, true
			}
			all = all && pk && pv
		}
		return all, all
	case "identifier":
		if a, ok := args[n.Text(f.Src)]; ok {
			switch a {
			case "False", "None", "0", "":
				return false, true
			}
			return true, true
		}
	case "not_operator":
		if arg := n.ChildByField("argument"); arg != nil {
			if v, k := evalGate(f, arg, args); k {
				return !v, true
			}
		}
	case "comparison_operator":
		ops := n.NamedChildren()
		if len(ops) != 2 || ops[0].Kind() != "identifier" {
			return false, false
		}
		a, ok := args[ops[0].Text(f.Src)]
		if !ok {
			return false, false
		}
		var set []string
		switch ops[1].Kind() {
		case "tuple", "list", "set":
			for _, e := range ops[1].NamedChildren() {
				if !isLiteral(e) {
					return false, false
				}
				set = append(set, literalText(e, f.Src))
			}
		default:
			if !isLiteral(ops[1]) {
				return false, false
			}
			set = []string{literalText(ops[1], f.Src)}
		}
		in := false
		for _, s := range set {
			in = in || s == a
		}
		switch {
		case n.HasChild("not") && n.HasChild("in"), n.HasChild("not in"):
			return !in, true
		case n.HasChild("in"):
			return in, true
		case n.HasChild("=="):
			return in, true
		case n.HasChild("!="):
			return !in, true
		}
	}
	return false, false
}
