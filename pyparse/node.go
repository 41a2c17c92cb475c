package pyparse

import (
	"fmt"
	"iter"
	"slices"
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
// (which vet reports) would cut it from its tree. After the nodes the array holds the
// tree's table (Node.table): the file's line starts, from which Line finds a node's line,
// and the child counts too large for a node's own field.
type Node struct {
	_     noCopy
	Start int32 // byte offset
	End   int32 // byte offset, exclusive
	// up is the distance back to the parent in the tree's array; a root's is the distance
	// forward to the tree's table, negated. down is the distance forward to the first child.
	up, down int32
	// meta packs the grammar symbol (Kind), the field name in the parent (Field), as an
	// index into fieldNames, and the named bit (Named).
	meta uint16
	// count is the number of children, or manyKids when the tree's table holds it.
	count uint16
}

const (
	kindBits  = 9
	kindMask  = 1<<kindBits - 1
	fieldBits = 6
	namedBit  = 1 << (kindBits + fieldBits)
	// kindError stands for tree-sitter's ERROR symbol (symError) in a node's meta.
	kindError = kindMask
	// manyKids is the count of a node whose number of children the tree's table holds.
	manyKids = 1<<16 - 1
)

// packMeta packs a node's symbol, field index and named bit; loadLanguage checks that the
// grammar's symbols and fields fit.
func packMeta(kind uint16, field uint8, named bool) uint16 {
	if kind == symError || kind >= kindMask {
		kind = kindError
	}
	m := kind | uint16(field)<<kindBits
	if named {
		m |= namedBit
	}
	return m
}

// fieldIndex is the node's field name as an index into fieldNames (0: none).
func (n *Node) fieldIndex() uint8 { return uint8(n.meta>>kindBits) & (1<<fieldBits - 1) }

// Named reports whether the node is a named one (anonymous: keywords and operators).
func (n *Node) Named() bool { return n.meta&namedBit != 0 }

// kids is the number of children.
func (n *Node) kids() int32 {
	if n.count != manyKids {
		return int32(n.count)
	}
	return n.manyKids()
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
	if n == nil || n.up <= 0 {
		return nil
	}
	return n.at(-n.up)
}

// ChildCount is the number of children.
func (n *Node) ChildCount() int {
	if n == nil {
		return 0
	}
	return int(n.kids())
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
		for i := range n.kids() {
			if !yield(n.at(n.down + i)) {
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

// newTree lays out a tree given in pre-order, node 0 its root: parents[i] is the pre-order
// index of node i's parent (any value for the root) and kids[i] its number of children. It
// returns the tree's array, links every node there (up, down, count) and sets pos[i] to
// node i's element; the table after the nodes holds lines, the file's line starts. In the
// array each node's children are consecutive: they are placed when it is, after every
// element used so far, so parents come before children and every distance is positive.
// kids is overwritten.
func newTree(parents, kids, pos []int32, lines []int) []Node {
	count := len(pos)
	nmany := 0
	for _, k := range kids[:count] {
		if k >= manyKids {
			nmany++
		}
	}
	many := make([][2]int32, 0, nmany) // element, number of children
	words := 2 + len(lines) + 2*nmany
	per := nodeSize / 4
	nodes := make([]Node, count+(words+per-1)/per)
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
		k := kids[i]
		if k > 0 {
			n.down = next - pos[i]
		}
		n.count = uint16(min(k, manyKids))
		if k >= manyKids {
			many = append(many, [2]int32{pos[i], k})
		}
		kids[i] = next
		next += k
	}
	// The table: its sizes, the line starts, and the large counts by element.
	table := unsafe.Slice((*int32)(unsafe.Pointer(&nodes[count])), (len(nodes)-count)*per)
	table[0], table[1] = int32(len(lines)), int32(len(many))
	for i, l := range lines {
		table[2+i] = int32(l)
	}
	slices.SortFunc(many, func(a, b [2]int32) int { return int(a[0] - b[0]) })
	for j, m := range many {
		table[2+len(lines)+2*j], table[2+len(lines)+2*j+1] = m[0], m[1]
	}
	nodes[0].up = -int32(count)
	return nodes
}

// array is the whole array of root's tree: its nodes, then its table, as newTree laid it out.
func (root *Node) array() []Node {
	lines, many := root.rootTable()
	words := 2 + len(lines) + len(many)
	per := nodeSize / 4
	return unsafe.Slice(root, int(-root.up)+(words+per-1)/per)
}

// table returns the line starts and the large child counts (pairs of element and count)
// that n's tree keeps after its nodes; nil for a node of no tree newTree made.
func (n *Node) table() (lines, many []int32) { return n.root().rootTable() }

// rootTable is table for a root.
func (root *Node) rootTable() (lines, many []int32) {
	if root.up == 0 {
		return nil, nil
	}
	p := unsafe.Pointer(root.at(-root.up))
	size := unsafe.Slice((*int32)(p), 2)
	nl, nm := int(size[0]), int(size[1])
	words := unsafe.Slice((*int32)(p), 2+nl+2*nm)
	return words[2 : 2+nl], words[2+nl:]
}

// root is the root of n's tree.
func (n *Node) root() *Node {
	for n.up > 0 {
		n = n.at(-n.up)
	}
	return n
}

// manyKids is the number of children of a node whose count is manyKids, from its table.
func (n *Node) manyKids() int32 {
	root := n.root()
	elem := int32((uintptr(unsafe.Pointer(n)) - uintptr(unsafe.Pointer(root))) / uintptr(nodeSize))
	_, many := root.rootTable()
	lo, hi := 0, len(many)/2
	for lo < hi {
		mid := (lo + hi) / 2
		if many[2*mid] < elem {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(many)/2 && many[2*lo] == elem {
		return many[2*lo+1]
	}
	panic(fmt.Sprintf("pyparse: node %d's number of children is not in its table", elem))
}

// Kind is the node's type in tree-sitter-python's grammar (`call`, `identifier`, `+`).
func (n *Node) Kind() string {
	if k := n.meta & kindMask; int(k) < len(kindNames) {
		return kindNames[k] // inlined: most reads of a node read its kind
	}
	return symbolName(symError)
}

// Text returns the node's source text. The string shares src's bytes (no copy: analyses
// ask for node texts millions of times a run, and the models keep many of them), so src
// must never change afterwards: a file's text is not, once read (fixes and suppressions
// write new texts).
func (n *Node) Text(src []byte) string {
	if n == nil || n.Start < 0 || int(n.End) > len(src) || n.Start >= n.End {
		return ""
	}
	return unsafe.String(&src[n.Start], int(n.End-n.Start))
}

// Line is the 1-based line the node starts on: the number of line starts at or before its
// start, in its tree's table.
func (n *Node) Line() int {
	lines, _ := n.table()
	line, _ := slices.BinarySearch(lines, n.Start+1)
	return line
}

// Field is the node's field name in its parent, "" when none.
func (n *Node) Field() string {
	if f := int(n.fieldIndex()); f < len(fieldNames) {
		return fieldNames[f]
	}
	return ""
}

// ChildByField returns the first child with the given field name.
// The analyses ask it of most nodes they read: the children are read by index, without
// Children's iterator.
func (n *Node) ChildByField(field string) *Node {
	for i := range n.kids() {
		if c := n.at(n.down + i); c.Field() == field {
			return c
		}
	}
	return nil
}

// ChildrenByField returns every child with the given field name.
func (n *Node) ChildrenByField(field string) []*Node {
	var out []*Node
	for i := range n.kids() {
		if c := n.at(n.down + i); c.Field() == field {
			out = append(out, c)
		}
	}
	return out
}

// NamedSeq yields the named children in order: NamedChildren without building its list.
func (n *Node) NamedSeq() iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		for c := range n.Children() {
			if c.Named() && !yield(c) {
				return
			}
		}
	}
}

// NamedChild is the i-th named child, nil when there are not that many.
func (n *Node) NamedChild(i int) *Node {
	for c := range n.NamedSeq() {
		if i == 0 {
			return c
		}
		i--
	}
	return nil
}

// NamedCount is the number of named children.
func (n *Node) NamedCount() int {
	k := 0
	for range n.NamedSeq() {
		k++
	}
	return k
}

// NamedChildren returns the named children in order.
func (n *Node) NamedChildren() []*Node {
	var out []*Node
	for c := range n.Children() {
		if c.Named() {
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
		return p.kids() - 1 - (n.up - p.down)
	}
	return 0
}

// PrevNamedSibling returns the closest named sibling before n.
func (n *Node) PrevNamedSibling() *Node {
	for i := n.Index(); i > 0; i-- {
		if n = n.at(-1); n.Named() {
			return n
		}
	}
	return nil
}

// NextNamedSibling returns the closest named sibling after n.
func (n *Node) NextNamedSibling() *Node {
	for c := range n.Following() {
		if c.Named() {
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
	if t, ok := plainChain(n, src); ok {
		return t
	}
	return dottedParts(n, src, calls)
}

// dottedParts is dottedName built from the chain's parts.
func dottedParts(n *Node, src []byte, calls int) string {
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
			if n.NamedCount() != 1 {
				return ""
			}
			n = n.NamedChild(0)
		default:
			return ""
		}
	}
	return ""
}

// plainChain is the text of n when n is a name or a chain of attributes on one, written
// without spaces, comments or line continuations (`torch.cuda.empty_cache`): the dotted
// name itself, which then shares the source's bytes (Text) instead of being built.
func plainChain(n *Node, src []byte) (string, bool) {
	m := n
	for m != nil && m.Kind() == "attribute" {
		attr, obj := m.childrenByFieldID(fieldIDs.attribute, fieldIDs.object)
		if attr == nil {
			return "", false
		}
		m = obj
	}
	if m == nil || m.Kind() != "identifier" {
		return "", false
	}
	t := n.Text(src)
	for i := range len(t) {
		if notInChain[t[i]] {
			return "", false
		}
	}
	return t, true
}

// notInChain are the bytes a chain written plainly has none of: space, a line break or
// continuation, a comment.
var notInChain = [256]bool{' ': true, '\t': true, '\f': true, '\r': true, '\n': true, '\\': true, '#': true}

// fieldIDs are the field indices the model and the dotted names read most (loadLanguage):
// comparing a child's index is cheaper than comparing its field's name (ChildByField).
var fieldIDs struct {
	attribute, object, function, arguments, name, value uint8
}

// childByFieldID is ChildByField by the field's index.
func (n *Node) childByFieldID(id uint8) *Node {
	for i := range n.kids() {
		if c := n.at(n.down + i); c.fieldIndex() == id {
			return c
		}
	}
	return nil
}

// childrenByFieldID is the first children of two fields, by index: ChildByField of each,
// in one pass.
func (n *Node) childrenByFieldID(a, b uint8) (ca, cb *Node) {
	for i := range n.kids() {
		c := n.at(n.down + i)
		switch id := c.fieldIndex(); {
		case id == a && ca == nil:
			ca = c
		case id == b && cb == nil:
			cb = c
		}
	}
	return ca, cb
}

func joinReversed(parts []string) string {
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}
