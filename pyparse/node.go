package pyparse

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Node is a Go copy of one tree-sitter node. Kinds and field names are tree-sitter-python's
// (`for_statement`, `call`, `attribute`, field `body`, ...). Anonymous nodes (keywords,
// operators) are kept with Named false, so operators such as `%` or `==` can be read;
// punctuation is left out. Children holds both kinds in source order. Nodes are most of
// the memory of a run, so they carry only what is read: columns come from File.Position.
type Node struct {
	Start    int32 // byte offset
	End      int32 // byte offset, exclusive
	Parent   *Node
	Children []*Node
	Row      int32 // 0-based start row
	Named    bool
	// field is the node's field name in its parent, as an index into fieldNames (Field).
	field uint8
	// kind is the node's grammar symbol (Kind).
	kind uint16
}

// Index is the node's position in Parent.Children (0 for a root), found by its offset:
// siblings come in source order. Not a field: a node is most of a run's memory.
func (n *Node) Index() int {
	if n.Parent == nil {
		return 0
	}
	kids := n.Parent.Children
	i, _ := slices.BinarySearchFunc(kids, n.Start, func(k *Node, start int32) int { return cmp.Compare(k.Start, start) })
	for ; i < len(kids) && kids[i].Start == n.Start; i++ { // zero-width siblings share an offset
		if kids[i] == n {
			return i
		}
	}
	return slices.Index(kids, n)
}

// Kind is the node's type in tree-sitter-python's grammar (`call`, `identifier`, `+`).
func (n *Node) Kind() string {
	if int(n.kind) < len(kindNames) {
		return kindNames[n.kind] // inlined: most reads of a node read its kind
	}
	return symbolName(n.kind)
}

// Text returns the node's source text.
func (n *Node) Text(src []byte) string {
	if n == nil || n.Start < 0 || int(n.End) > len(src) || n.Start > n.End {
		return ""
	}
	return string(src[n.Start:n.End])
}

// Line is the 1-based line the node starts on.
func (n *Node) Line() int { return int(n.Row) + 1 }

// Field is the node's field name in its parent, "" when none.
func (n *Node) Field() string {
	if int(n.field) < len(fieldNames) {
		return fieldNames[n.field]
	}
	return ""
}

// ChildByField returns the first child with the given field name.
func (n *Node) ChildByField(field string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Field() == field {
			return c
		}
	}
	return nil
}

// ChildrenByField returns every child with the given field name.
func (n *Node) ChildrenByField(field string) []*Node {
	var out []*Node
	for _, c := range n.Children {
		if c.Field() == field {
			out = append(out, c)
		}
	}
	return out
}

// NamedChildren returns the named children in order.
func (n *Node) NamedChildren() []*Node {
	var out []*Node
	for _, c := range n.Children {
		if c.Named {
			out = append(out, c)
		}
	}
	return out
}

// HasChild reports whether an anonymous child with the given token text exists (for example
// the `%` of a binary_operator, whose kind is "%").
func (n *Node) HasChild(kind string) bool {
	for _, c := range n.Children {
		if c.Kind() == kind {
			return true
		}
	}
	return false
}

// Following returns the siblings after n, in order (nil for a root): a loop over them costs
// one Index, where a chain of NextNamedSibling calls costs one each.
func (n *Node) Following() []*Node {
	if n == nil || n.Parent == nil {
		return nil
	}
	return n.Parent.Children[n.Index()+1:]
}

// PrevNamedSibling returns the closest named sibling before n.
func (n *Node) PrevNamedSibling() *Node {
	if n == nil || n.Parent == nil {
		return nil
	}
	for i := n.Index() - 1; i >= 0; i-- {
		if c := n.Parent.Children[i]; c.Named {
			return c
		}
	}
	return nil
}

// NextNamedSibling returns the closest named sibling after n.
func (n *Node) NextNamedSibling() *Node {
	if n == nil || n.Parent == nil {
		return nil
	}
	for i := n.Index() + 1; i < len(n.Parent.Children); i++ {
		if c := n.Parent.Children[i]; c.Named {
			return c
		}
	}
	return nil
}

// Contains reports whether m lies inside n (or is n).
func (n *Node) Contains(m *Node) bool {
	for ; m != nil; m = m.Parent {
		if m == n {
			return true
		}
	}
	return false
}

// Walk calls fn for n and every descendant in source order; fn returns false to skip a
// node's children. It keeps the child index of each level in a fixed array and climbs back
// through Parent, so 10 000-deep nesting cannot overflow (below 48 levels a node's index is
// found again from its offset) and a walk allocates nothing.
func (n *Node) Walk(fn func(*Node) bool) {
	w := walker{top: n}
	for cur := n; cur != nil; {
		cur = w.next(cur, fn(cur))
	}
}

// walker is a pre-order walk's position below top: the child index taken at each level.
type walker struct {
	top   *Node
	depth int
	index [48]int32
}

// next returns the node after cur (into its children when descend), nil at the end.
func (w *walker) next(cur *Node, descend bool) *Node {
	if descend && len(cur.Children) > 0 {
		if w.depth < len(w.index) {
			w.index[w.depth] = 0
		}
		w.depth++
		return cur.Children[0]
	}
	for cur != w.top {
		d := w.depth - 1
		var i int
		if d < len(w.index) {
			i = int(w.index[d])
		} else {
			i = cur.Index()
		}
		par := cur.Parent
		if i+1 < len(par.Children) {
			if d < len(w.index) {
				w.index[d] = int32(i + 1)
			}
			return par.Children[i+1]
		}
		cur, w.depth = par, d
	}
	return nil
}

// Find returns the first node (in source order) under n for which match is true.
func (n *Node) Find(match func(*Node) bool) *Node {
	w := walker{top: n}
	for cur := n; cur != nil; cur = w.next(cur, true) {
		if match(cur) {
			return cur
		}
	}
	return nil
}

// FindOutside is Find that does not look inside the nodes below n for which skip is true.
func (n *Node) FindOutside(match, skip func(*Node) bool) *Node {
	w := walker{top: n}
	for cur := n; cur != nil; cur = w.next(cur, len(cur.Children) > 0 && (cur == n || !skip(cur))) {
		if match(cur) {
			return cur
		}
	}
	return nil
}

// Statement returns the statement that contains n: the ancestor (or n itself) whose parent
// is a block or the module.
func (n *Node) Statement() *Node {
	for m := n; m != nil; m = m.Parent {
		if m.Parent == nil {
			return m
		}
		if m.Parent.Kind() == "block" || m.Parent.Kind() == "module" {
			return m
		}
	}
	return nil
}

// Column converts a 0-based byte column on the node's line into a 1-based column counted in
// Unicode code points (what ruff reports and what editors show).
func Column(src []byte, offset int) int {
	if offset > len(src) {
		offset = len(src)
	}
	start := offset
	for start > 0 && src[start-1] != '\n' && src[start-1] != '\r' {
		start--
	}
	return utf8.RuneCount(src[start:offset]) + 1
}

// DottedName returns the dotted text of an identifier/attribute chain (`torch.cuda.empty_cache`),
// or "" when the expression is something else (a call, a subscript, ...). Calls inside the
// chain are rendered with "()" so `get_accelerator().empty_cache` and
// `model(x).sum().backward` stay recognisable, up to MaxChainCalls of them: a longer chain
// (`f()()()...`, or the nested calls tree-sitter builds when it recovers from an unclosed
// bracket) is no dotted name. Without the limit every call of such a chain spelt out the
// whole chain below it, quadratic in time and memory.
func DottedName(n *Node, src []byte) string {
	return dottedName(n, src, MaxChainCalls)
}

// MaxChainCalls is how many calls a dotted name runs through.
const MaxChainCalls = 16

func dottedName(n *Node, src []byte, calls int) string {
	var parts []string
	for n != nil {
		switch n.Kind() {
		case "identifier":
			parts = append(parts, n.Text(src))
			return joinReversed(parts)
		case "attribute":
			attr := n.ChildByField("attribute")
			if attr == nil {
				return ""
			}
			parts = append(parts, attr.Text(src))
			n = n.ChildByField("object")
		case "call":
			if calls == 0 {
				return ""
			}
			inner := dottedName(n.ChildByField("function"), src, calls-1)
			if inner == "" {
				return ""
			}
			parts = append(parts, inner+"()")
			return joinReversed(parts)
		case "parenthesized_expression":
			inner := n.NamedChildren()
			if len(inner) != 1 {
				return ""
			}
			n = inner[0]
		default:
			return ""
		}
	}
	return ""
}

func joinReversed(parts []string) string {
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}
