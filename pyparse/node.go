package pyparse

import (
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Node is a Go copy of one tree-sitter node. Kinds and field names are tree-sitter-python's
// (`for_statement`, `call`, `attribute`, field `body`, ...). Anonymous nodes (keywords,
// operators) are kept with Named false, so operators such as `%` or `==` can be read;
// punctuation is left out. Children yields both kinds in source order. Columns come from
// File.Position.
//
// Nodes are most of the memory of a run, so a tree is one array of them without pointers
// (the collector never scans it), laid out so that each node's children are consecutive
// elements: a node finds its parent and children by its distance to them in that array.
// A Node is therefore only ever used where its tree put it, through a *Node; copying one
// (which vet reports) would cut it from its tree.
type Node struct {
	_     noCopy
	Start int32 // byte offset
	End   int32 // byte offset, exclusive
	Row   int32 // 0-based start row
	// up is the distance back to the parent in the tree's array, 0 for a root; down the
	// distance forward to the first child, count the number of children.
	up, down, count int32
	// kind is the node's grammar symbol (Kind).
	kind uint16
	// field is the node's field name in its parent, as an index into fieldNames (Field).
	field uint8
	Named bool
}

// noCopy makes vet's copylocks check report a Node copied by value.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// nodeSize is the distance between two elements of a tree's array.
const nodeSize = int(unsafe.Sizeof(Node{}))

// at is the node d elements after n in its tree's array (before it when d < 0): d always
// comes from the tree's own distances, so the result lies inside the same array.
func (n *Node) at(d int32) *Node {
	return (*Node)(unsafe.Add(unsafe.Pointer(n), int(d)*nodeSize))
}

// Parent is the node's parent, nil for a root.
func (n *Node) Parent() *Node {
	if n == nil || n.up == 0 {
		return nil
	}
	return n.at(-n.up)
}

// ChildCount is the number of children.
func (n *Node) ChildCount() int {
	if n == nil {
		return 0
	}
	return int(n.count)
}

// Child is the i-th child; i out of range panics, as a slice index does.
func (n *Node) Child(i int) *Node {
	if uint(i) >= uint(n.ChildCount()) {
		panic(fmt.Sprintf("pyparse: child %d of a node with %d", i, n.ChildCount()))
	}
	return n.at(n.down + int32(i))
}

// Children yields the children in source order.
func (n *Node) Children() iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		for i := range n.ChildCount() {
			if !yield(n.at(n.down + int32(i))) {
				return
			}
		}
	}
}

// Index is the node's position among its parent's children (0 for a root).
func (n *Node) Index() int {
	if p := n.Parent(); p != nil {
		return int(n.up - p.down)
	}
	return 0
}

// arrange lays out a tree given in pre-order, node 0 its root: parents[i] is the pre-order
// index of node i's parent (any value for the root) and kids[i] its number of children. It
// sets pos[i] to node i's element in nodes, the tree's array, in which each node's children
// are consecutive, and links every node there (up, down, count). A node's children are
// placed when it is, after every element used so far, so parents come before children and
// every distance is positive. kids is overwritten.
func arrange(nodes []Node, parents, kids, pos []int32) {
	next := int32(1)
	pos[0] = 0
	for i := range pos {
		if i > 0 {
			p := parents[i]
			pos[i] = kids[p] // kids[p] is now the element for p's next child
			kids[p]++
			nodes[pos[i]].up = pos[i] - pos[p]
		}
		n := &nodes[pos[i]]
		if n.count = kids[i]; n.count > 0 {
			n.down = next - pos[i]
		}
		kids[i] = next
		next += n.count
	}
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
	for c := range n.Children() {
		if c.Field() == field {
			return c
		}
	}
	return nil
}

// ChildrenByField returns every child with the given field name.
func (n *Node) ChildrenByField(field string) []*Node {
	var out []*Node
	for c := range n.Children() {
		if c.Field() == field {
			out = append(out, c)
		}
	}
	return out
}

// NamedChildren returns the named children in order.
func (n *Node) NamedChildren() []*Node {
	var out []*Node
	for c := range n.Children() {
		if c.Named {
			out = append(out, c)
		}
	}
	return out
}

// HasChild reports whether an anonymous child with the given token text exists (for example
// the `%` of a binary_operator, whose kind is "%").
func (n *Node) HasChild(kind string) bool {
	for c := range n.Children() {
		if c.Kind() == kind {
			return true
		}
	}
	return false
}

// Following yields the siblings after n, in order (none for a root).
func (n *Node) Following() iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		c := n
		for i := n.after(); i > 0; i-- {
			if c = c.at(1); !yield(c) {
				return
			}
		}
	}
}

// after is the number of siblings after n.
func (n *Node) after() int32 {
	if p := n.Parent(); p != nil {
		return p.count - 1 - (n.up - p.down)
	}
	return 0
}

// PrevNamedSibling returns the closest named sibling before n.
func (n *Node) PrevNamedSibling() *Node {
	for i := n.Index(); i > 0; i-- {
		if n = n.at(-1); n.Named {
			return n
		}
	}
	return nil
}

// NextNamedSibling returns the closest named sibling after n.
func (n *Node) NextNamedSibling() *Node {
	for c := range n.Following() {
		if c.Named {
			return c
		}
	}
	return nil
}

// Contains reports whether m lies inside n (or is n).
func (n *Node) Contains(m *Node) bool {
	for ; m != nil; m = m.Parent() {
		if m == n {
			return true
		}
	}
	return false
}

// Walk calls fn for n and every descendant in source order; fn returns false to skip a
// node's children. It moves through the tree's distances (children first, then the next
// sibling or an ancestor's), so it allocates nothing and any depth of nesting is safe.
func (n *Node) Walk(fn func(*Node) bool) {
	for cur := n; cur != nil; {
		cur = n.next(cur, fn(cur))
	}
}

// next returns the node after cur in a pre-order walk below top (n), going into cur's
// children when descend; nil at the end.
func (n *Node) next(cur *Node, descend bool) *Node {
	if descend && cur.count > 0 {
		return cur.at(cur.down)
	}
	for cur != n {
		if cur.after() > 0 {
			return cur.at(1)
		}
		cur = cur.Parent()
	}
	return nil
}

// Find returns the first node (in source order) under n for which match is true.
func (n *Node) Find(match func(*Node) bool) *Node {
	for cur := n; cur != nil; cur = n.next(cur, true) {
		if match(cur) {
			return cur
		}
	}
	return nil
}

// FindOutside is Find that does not look inside the nodes below n for which skip is true.
func (n *Node) FindOutside(match, skip func(*Node) bool) *Node {
	for cur := n; cur != nil; cur = n.next(cur, cur.count > 0 && (cur == n || !skip(cur))) {
		if match(cur) {
			return cur
		}
	}
	return nil
}

// Statement returns the statement that contains n: the ancestor (or n itself) whose parent
// is a block or the module.
func (n *Node) Statement() *Node {
	for m := n; m != nil; m = m.Parent() {
		if m.Parent() == nil {
			return m
		}
		if m.Parent().Kind() == "block" || m.Parent().Kind() == "module" {
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
