package pyparse

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// A kept tree carries its file's model (tree format 7): an edited run takes the models of
// hundreds of unchanged files with their trees, and building each again from its tree was
// the largest part of reading them back (diffusers, 531 kept trees: 37 ms of the 60 ms of
// CPU that decoding took, of an edited run's 235). The model is written as what buildModel
// found, in its order: nodes by their element in the tree's array, strings by where they
// lie in the text (a name, a parameter, a callee's dotted text) or, for the few made of
// parts (a qualified name, an import's target), in a table of the model's own. Reading it
// back allocates the model's objects and nothing for its strings: they are the text's and
// the table's bytes, which stay where the entry lies for as long as the tree does.
//
// The layout, all numbers uvarints: the table's length and bytes; the global statements;
// the imports and the star imports (Local, Qualified, Module, Level, Name, Node); the
// classes (Name, QualName, Node, Bases, Decorators); the functions (Name, QualName, Node,
// Body, Class, Parent, Decorators, Params, ParamTypes, Async); the calls (Node, Func, Args,
// Callee, Function); the with items entered (Node, Callee, Function); the calls' order by
// element (CallOf), each its index plus one; the assignments; the except clauses. A list
// is its length and its items (a list that may be nil, its length plus one, 0 for nil); a
// node is 0 for none or its element plus one; a class or function its index in its list
// plus one, 0 for none; a string 0 for "", else its start doubled, plus one for the text
// (a start in the table is one more than it is), then its length.

// modelWriter writes a model (appendModel).
type modelWriter struct {
	f          *File
	buf, table []byte
	funcs      map[*Function]uint64
	classes    map[*Class]uint64
}

// appendModel appends f's model, as readModel reads it, to buf.
func appendModel(buf []byte, f *File) []byte {
	w := &modelWriter{f: f, funcs: make(map[*Function]uint64, len(f.Functions)), classes: make(map[*Class]uint64, len(f.Classes))}
	for i, fn := range f.Functions {
		w.funcs[fn] = uint64(i) + 1
	}
	for i, c := range f.Classes {
		w.classes[c] = uint64(i) + 1
	}
	w.nodes(f.globals)
	for _, imps := range [][]Import{f.Imports, f.StarImports} {
		w.uint(uint64(len(imps)))
		for _, imp := range imps {
			w.str(imp.Local)
			w.str(imp.Qualified)
			w.str(imp.Module)
			w.uint(uint64(imp.Level))
			w.str(imp.Name)
			w.node(imp.Node)
		}
	}
	w.uint(uint64(len(f.Classes)))
	for _, c := range f.Classes {
		w.str(c.Name)
		w.str(c.QualName)
		w.node(c.Node)
		w.strs(c.Bases)
		w.nodes(c.Decorators)
	}
	w.uint(uint64(len(f.Functions)))
	for _, fn := range f.Functions {
		w.str(fn.Name)
		w.str(fn.QualName)
		w.node(fn.Node)
		w.node(fn.Body)
		w.uint(w.classes[fn.Class])
		w.uint(w.funcs[fn.Parent])
		w.nodes(fn.Decorators)
		w.strs(fn.Params)
		w.strs(fn.ParamTypes)
		w.flag(fn.Async)
	}
	w.uint(uint64(len(f.Calls)))
	for _, c := range f.Calls {
		w.node(c.Node)
		w.node(c.Func)
		w.node(c.Args)
		w.str(c.Callee)
		w.uint(w.funcs[c.Function])
	}
	w.uint(uint64(len(f.Entered)))
	for _, c := range f.Entered {
		w.node(c.Node)
		w.str(c.Callee)
		w.uint(w.funcs[c.Function])
	}
	w.uint(uint64(len(f.callOrder)))
	for _, i := range f.callOrder {
		w.uint(uint64(i) + 1)
	}
	w.nodes(f.assignNodes)
	w.nodes(f.exceptNodes)
	buf = binary.AppendUvarint(buf, uint64(len(w.table)))
	buf = append(buf, w.table...)
	return append(buf, w.buf...)
}

func (w *modelWriter) uint(v uint64) { w.buf = binary.AppendUvarint(w.buf, v) }

func (w *modelWriter) flag(b bool) {
	if b {
		w.uint(1)
	} else {
		w.uint(0)
	}
}

// node writes n's element plus one, 0 for nil.
func (w *modelWriter) node(n *Node) {
	if n == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(w.f.element(n)/uintptr(nodeSize)) + 1)
}

// nodes writes a list of nodes: its length plus one, 0 for nil.
func (w *modelWriter) nodes(ns []*Node) {
	if ns == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(ns)) + 1)
	for _, n := range ns {
		w.node(n)
	}
}

// strs writes a list of strings: its length plus one, 0 for nil.
func (w *modelWriter) strs(ss []string) {
	if ss == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(ss)) + 1)
	for _, s := range ss {
		w.str(s)
	}
}

// str writes s as where it lies in the text, or adds it to the table.
func (w *modelWriter) str(s string) {
	if s == "" {
		w.uint(0)
		return
	}
	src := w.f.Src
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(src)))
	if len(src) > 0 && p >= base && p+uintptr(len(s)) <= base+uintptr(len(src)) {
		w.uint(uint64(p-base)<<1 | 1)
	} else {
		w.uint(uint64(len(w.table)+1) << 1)
		w.table = append(w.table, s...)
	}
	w.uint(uint64(len(s)))
}

// modelReader reads a model (readModel); a read that does not make sense sets r.err.
type modelReader struct {
	treeReader
	src, table []byte
	tree       []Node
	count      uint64
}

// readModel gives f, whose Src and Root are set, the model in data (appendModel's); false
// when data is no model of f's tree: a node outside the tree's count nodes, a string
// outside the text or the table, a class or function no list holds, a kind that is not
// what the model's place needs, calls out of their order. A model that passes is safe to
// read, and the checksum of its entry vouches for the rest.
func (f *File) readModel(data []byte, nodes []Node, count int32) bool {
	r := &modelReader{treeReader: treeReader{data: data}, src: f.Src, tree: nodes, count: uint64(count)}
	r.table = r.bytes(int(min(r.uint(), uint64(len(data)))))
	f.globals = r.nodes()
	f.Imports = r.imports()
	f.StarImports = r.imports()
	classes := make([]Class, r.length(4))
	f.Classes = make([]*Class, len(classes))
	f.classByNode = make(map[*Node]*Class, len(classes))
	for i := range classes {
		c := &classes[i]
		c.Name, c.QualName, c.Node = r.str(), r.str(), r.node()
		c.Bases, c.Decorators, c.Methods = r.strs(), r.nodes(), map[string]*Function{}
		if c.Node == nil || c.Node.Kind() != "class_definition" {
			return false
		}
		f.Classes[i] = c
		f.classByNode[c.Node] = c
	}
	funcs := make([]Function, r.length(10))
	f.Functions = make([]*Function, len(funcs))
	f.funcByNode = make(map[*Node]*Function, len(funcs))
	for i := range funcs {
		fn := &funcs[i]
		fn.Name, fn.QualName, fn.Node, fn.Body = r.str(), r.str(), r.node(), r.node()
		if c := r.index(uint64(len(classes))); c > 0 {
			fn.Class = &classes[c-1]
			fn.Class.Methods[fn.Name] = fn
		}
		if p := r.index(uint64(i)); p > 0 { // an enclosing def comes before what it holds
			fn.Parent = &funcs[p-1]
		}
		fn.Decorators, fn.Params, fn.ParamTypes, fn.Async = r.nodes(), r.strs(), r.strs(), r.uint() == 1
		if fn.Node == nil || fn.Node.Kind() != "function_definition" || fn.ParamTypes != nil && len(fn.ParamTypes) != len(fn.Params) {
			return false
		}
		f.Functions[i] = fn
		f.funcByNode[fn.Node] = fn
	}
	fnOf := func() *Function {
		if i := r.index(uint64(len(funcs))); i > 0 {
			return &funcs[i-1]
		}
		return nil
	}
	if n := r.length(5); n > 0 {
		calls := make([]Call, n)
		f.Calls = make([]*Call, n)
		for i := range calls {
			c := &calls[i]
			c.Node, c.Func, c.Args, c.Callee, c.Function = r.node(), r.node(), r.node(), r.str(), fnOf()
			if c.Node == nil || c.Node.Kind() != "call" || c.Func == nil || c.Args == nil {
				return false
			}
			f.Calls[i] = c
		}
	}
	if n := r.length(3); n > 0 {
		entered := make([]Call, n)
		f.Entered = make([]*Call, n)
		for i := range entered {
			c := &entered[i]
			c.Node = r.node()
			c.Func, c.Callee, c.Function = c.Node, r.str(), fnOf()
			if c.Node == nil {
				return false
			}
			f.Entered[i] = c
		}
	}
	if r.length(1) != len(f.Calls) {
		return false
	}
	// CallOf searches the calls by element: each once, in order.
	f.callOrder = make([]int32, len(f.Calls))
	last := -1
	for i := range f.callOrder {
		c := r.index(uint64(len(f.Calls)))
		if c == 0 {
			return false
		}
		e := int(f.element(f.Calls[c-1].Node))
		if e <= last {
			return false
		}
		last, f.callOrder[i] = e, int32(c-1)
	}
	f.assignNodes, f.exceptNodes = r.nodes(), r.nodes()
	return r.err == nil && r.pos == len(r.data)
}

// uint reads a number.
func (r *modelReader) uint() uint64 { return r.uvarint() }

// length reads a list's length, whose items take at least min bytes each: a length the rest
// of the model cannot hold is refused before anything is allocated for it.
func (r *modelReader) length(min int) int {
	n := r.uvarint()
	if n > uint64((len(r.data)-r.pos)/min) {
		r.err = errCorruptTree
		return 0
	}
	return int(n)
}

// index reads a place in a list of n (plus one; 0 for none).
func (r *modelReader) index(n uint64) uint64 {
	i := r.uvarint()
	if i > n {
		r.err = errCorruptTree
		return 0
	}
	return i
}

// node reads a node of the tree (nil for none).
func (r *modelReader) node() *Node {
	e := r.index(r.count)
	if e == 0 {
		return nil
	}
	return &r.tree[e-1]
}

// nodes reads a list of nodes.
func (r *modelReader) nodes() []*Node {
	n := r.index(uint64(len(r.data)-r.pos) + 1)
	if n == 0 {
		return nil
	}
	out := make([]*Node, n-1)
	for i := range out {
		out[i] = r.node()
	}
	return out
}

// strs reads a list of strings.
func (r *modelReader) strs() []string {
	n := r.index(uint64(len(r.data)-r.pos) + 1)
	if n == 0 {
		return nil
	}
	out := make([]string, n-1)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

// str reads a string: the text's or the table's bytes.
func (r *modelReader) str() string {
	v := r.uvarint()
	if v == 0 {
		return ""
	}
	in, start := r.src, v>>1
	if v&1 == 0 {
		in, start = r.table, start-1
	}
	n := r.uvarint()
	if r.err != nil || n == 0 || start > uint64(len(in)) || n > uint64(len(in))-start {
		r.err = errCorruptTree
		return ""
	}
	return unsafe.String(&in[start], int(n))
}

// imports reads a list of imports.
func (r *modelReader) imports() []Import {
	n := r.length(6)
	if n == 0 {
		return nil
	}
	out := make([]Import, n)
	for i := range out {
		out[i] = Import{Local: r.str(), Qualified: r.str(), Module: r.str(), Level: int(min(r.uint(), 1<<20)), Name: r.str(), Node: r.node()}
		if out[i].Node == nil {
			r.err = errCorruptTree
		}
	}
	return slices.Clip(out)
}
