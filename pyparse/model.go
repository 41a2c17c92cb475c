package pyparse

import (
	"cmp"
	"go/token"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// SyntaxError is a place tree-sitter could not parse.
type SyntaxError struct {
	Line, Col int // 1-based; Col in code points
	Msg       string
}

// File is one parsed Python file and its model.
type File struct {
	Path   string
	Src    []byte
	Root   *Node
	Errors []SyntaxError

	// Imports lists every import binding in source order, including function-local ones.
	Imports []Import
	// StarImports are the `from mod import *` statements: their Name is "*", and they bind
	// no alias (what they bind is known only from mod).
	StarImports []Import
	Functions   []*Function
	Classes     []*Class
	Calls       []*Call
	// Entered are the context managers `with` statements enter, one per item, as calls of
	// their `__enter__` (Node and Func are the manager expression, Args is nil, Callee is
	// its dotted text, "" when it is no dotted chain or call of one): entering runs the
	// manager's __enter__ and leaving its __exit__.
	Entered []*Call

	// TokenFile positions this file in an analysis Pass's FileSet (set by the Analyzer).
	TokenFile *token.File
	// TextHash is the SHA-256 of Src when the parse kept or looked up its tree in a
	// TreeCache (Result.Trees), zero otherwise.
	TextHash [32]byte

	// aliases maps each name an import binds to what the last such import binds it to
	// (Alias), made on the first lookup: an edited run reads the models of hundreds of kept
	// trees and looks up names in a few of them.
	aliasOnce sync.Once
	aliases   map[string]string
	// callOrder lists the indices of Calls by their node's element in the tree's array,
	// for CallOf (4 bytes a call where a map took some 46).
	callOrder   []int32
	funcByNode  map[*Node]*Function
	classByNode map[*Node]*Class
	// fromTree: decoded from a kept tree (Result.Trees), not parsed.
	fromTree bool
	// globals are the file's global statements, in the order a walk of the tree meets them
	// (GlobalStatements).
	globals []*Node
	// assignNodes and exceptNodes are the file's assignments (plain and augmented) and its
	// except clauses, in the order a walk of the tree meets them (Assignments,
	// ExceptClauses): collected by the model's one walk for the analyses that would walk
	// every tree whole for them.
	assignNodes, exceptNodes []*Node

	assignsMu sync.RWMutex
	assigns   map[*Node]*bindings // AssignmentsTo, LoopsBinding: scope -> its bindings
}

// Import is one name an import statement binds.
type Import struct {
	Local     string // the name bound in the file ("t", "ec", "utils")
	Qualified string // what it stands for ("torch", "torch.cuda.empty_cache", "utils")
	// Module is the module part of a from-import ("torch.cuda"); for `import a.b` it is "a.b".
	Module string
	// Level is the number of leading dots of a relative import (0 = absolute).
	Level int
	// Name is the imported name of a from-import ("empty_cache"), "" for plain imports.
	Name string
	Node *Node
}

// Function is a function or method definition.
type Function struct {
	Name string
	// QualName is the dotted path inside the file: "Trainer.fit", "main.inner".
	QualName   string
	Node       *Node // function_definition
	Body       *Node // block
	Class      *Class
	Parent     *Function // enclosing function for nested ones
	Decorators []*Node   // decorator nodes, outermost first
	Params     []string
	// ParamTypes are the dotted texts of the parameters' annotations, by the parameter's
	// place in Params ("" for none: `trainer: Trainer` gives "Trainer"); nil when no
	// parameter has one (ParamType).
	ParamTypes []string
	Async      bool
}

// Class is a class definition.
type Class struct {
	Name     string
	QualName string
	Node     *Node
	// Bases are the dotted texts of the base-class expressions ("nn.Module", "pl.LightningModule").
	Bases      []string
	Decorators []*Node
	Methods    map[string]*Function

	selfOnce sync.Once
	selfs    []SelfAssign
}

// SelfAssign is an assignment `self.attr = value` (attr a plain name) in the own body of
// one of a class's methods.
type SelfAssign struct {
	Method *Function
	Attr   string
	Value  *Node
}

// SelfAssigns are the `self.attr = value` assignments in the own bodies of c's methods (not
// in the functions, lambdas and classes defined in them), in src, c's file's text. They are
// read once, on first use, for every reader: the analysis asks for them in each prefilter
// round and on each goroutine.
func (c *Class) SelfAssigns(src []byte) []SelfAssign {
	c.selfOnce.Do(func() {
		for _, m := range c.Methods {
			m.Body.Walk(func(n *Node) bool {
				switch n.Kind() {
				case "function_definition", "class_definition", "lambda":
					return n == m.Body
				case "assignment":
				default:
					return true
				}
				l, r := n.ChildByField("left"), n.ChildByField("right")
				if l == nil || r == nil || l.Kind() != "attribute" {
					return true
				}
				if attr, ok := strings.CutPrefix(l.Text(src), "self."); ok && !strings.Contains(attr, ".") {
					c.selfs = append(c.selfs, SelfAssign{Method: m, Attr: attr, Value: r})
				}
				return true
			})
		}
	})
	return c.selfs
}

// Call is one call expression.
type Call struct {
	Node *Node // call
	Func *Node // the callee expression
	Args *Node // argument_list (or generator_expression)
	// Callee is the dotted text of the callee ("torch.cuda.empty_cache", "self._cleanup",
	// "get_accelerator().empty_cache"); "" when the callee is not a dotted chain.
	Callee string
	// Function is the innermost enclosing def; nil at module level.
	Function *Function
}

// AssignmentsTo are the `assignment` nodes that run as part of scope (a function's body or
// the module's root) and bind name: its left side is name, or a tuple of targets one of
// which is name; in source order. Those in the functions, classes and lambdas defined in
// scope are not part of it. Each scope is read once, on first use, for every name and every
// goroutine: what a name held before a statement was a walk of its function per question,
// and a function that empties the cache after each of many `del`s asked it for every call.
// The slice is shared: callers must not change it.
func (f *File) AssignmentsTo(scope *Node, name string) []*Node {
	return f.scopeIndex(scope).assigns.of(name)
}

// LoopsBinding are the `for` statements of scope (as AssignmentsTo reads it) whose target is
// the plain name, in source order; read with the assignments, once per scope. The slice
// is shared: callers must not change it.
func (f *File) LoopsBinding(scope *Node, name string) []*Node {
	return f.scopeIndex(scope).loops.of(name)
}

// bindings are what one scope binds to each name (AssignmentsTo, LoopsBinding).
type bindings struct {
	assigns, loops byName
}

// byName is a scope's binding nodes by name: sorted by name, each name's in source order.
// Two slices, not a map of slices: the resolver asks about most functions it meets, and
// an index of maps was 19 MB of the 15-project tree's heap at its largest.
type byName struct {
	names []string // names[i] is what nodes[i] binds
	nodes []*Node
}

// of is the nodes that bind name.
func (b byName) of(name string) []*Node {
	i, found := slices.BinarySearch(b.names, name)
	if !found {
		return nil
	}
	j := i + 1
	for j < len(b.names) && b.names[j] == name {
		j++
	}
	return b.nodes[i:j:j]
}

// add appends a binding; sorted once the scope is read (sort).
func (b *byName) add(name string, n *Node) {
	b.names = append(b.names, name)
	b.nodes = append(b.nodes, n)
}

// sort orders the bindings by name, those of one name kept in source order (the order
// they were added in), and drops a node that binds one name twice (`c, c = 1, 2`).
func (b *byName) sort() {
	order := make([]int, len(b.names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(b.names[x], b.names[y]) })
	names, nodes := make([]string, 0, len(order)), make([]*Node, 0, len(order))
	for _, i := range order {
		if k := len(names) - 1; k >= 0 && names[k] == b.names[i] && nodes[k] == b.nodes[i] {
			continue
		}
		names, nodes = append(names, b.names[i]), append(nodes, b.nodes[i])
	}
	b.names, b.nodes = slices.Clip(names), slices.Clip(nodes)
}

// scopeIndex is scope's bindings, read on first use. The scope is read outside the lock
// (the resolver's goroutines share large files, whose module scope takes a while): two
// goroutines may read one scope at once, and both take the index stored first.
func (f *File) scopeIndex(scope *Node) *bindings {
	f.assignsMu.RLock()
	b, ok := f.assigns[scope]
	f.assignsMu.RUnlock()
	if ok {
		return b
	}
	b = bindingsIn(scope, f.Src)
	f.assignsMu.Lock()
	defer f.assignsMu.Unlock()
	if was, ok := f.assigns[scope]; ok {
		return was
	}
	if f.assigns == nil {
		f.assigns = map[*Node]*bindings{}
	}
	f.assigns[scope] = b
	return b
}

// bindingsIn indexes the assignments and for statements of scope by the names they bind.
func bindingsIn(scope *Node, src []byte) *bindings {
	if scope == nil {
		return &noBindings
	}
	b := new(bindings)
	scope.Walk(func(n *Node) bool {
		switch n.Kind() {
		case "function_definition", "class_definition", "lambda":
			return n == scope
		case "for_statement":
			if l := n.ChildByField("left"); l != nil && l.Kind() == "identifier" {
				b.loops.add(l.Text(src), n)
			}
			return true
		case "assignment":
		default:
			return true
		}
		l := n.ChildByField("left")
		if l == nil {
			return true
		}
		b.assigns.add(l.Text(src), n)
		if l.Kind() == "pattern_list" || l.Kind() == "tuple_pattern" {
			for t := range l.NamedSeq() {
				b.assigns.add(t.Text(src), n)
			}
		}
		return true
	})
	if len(b.assigns.names) == 0 && len(b.loops.names) == 0 {
		return &noBindings // one index for every scope that binds nothing
	}
	b.assigns.sort()
	b.loops.sort()
	return b
}

// noBindings is the index of every scope that binds nothing.
var noBindings bindings

// FunctionOf returns the function defined by a function_definition node.
func (f *File) FunctionOf(n *Node) *Function { return f.funcByNode[n] }

// CallOf returns the Call of a call node.
func (f *File) CallOf(n *Node) *Call {
	if n == nil || f.Root == nil {
		return nil
	}
	e := f.element(n)
	i, found := slices.BinarySearchFunc(f.callOrder, e, func(c int32, e uintptr) int {
		return cmp.Compare(f.element(f.Calls[c].Node), e)
	})
	if !found {
		return nil // no call's node, or a node of another tree
	}
	return f.Calls[f.callOrder[i]]
}

// element is the distance from the tree's root to n in its array, in bytes: an order of
// the nodes of f's tree. A node of another tree gets a distance no node of f's has (the
// element at that distance would be at n's own address).
func (f *File) element(n *Node) uintptr {
	return uintptr(unsafe.Pointer(n)) - uintptr(unsafe.Pointer(f.Root))
}

// ClassOf returns the class defined by a class_definition node.
func (f *File) ClassOf(n *Node) *Class { return f.classByNode[n] }

// EnclosingFunction returns the innermost function whose body contains n (nil at module level).
// Lambdas are transparent.
func (f *File) EnclosingFunction(n *Node) *Function {
	for m := n.Parent(); m != nil; m = m.Parent() {
		if m.Kind() == "function_definition" {
			return f.funcByNode[m]
		}
	}
	return nil
}

// Qualify rewrites a dotted name through the file's import aliases: with `import torch as t`,
// "t.cuda.empty_cache" becomes "torch.cuda.empty_cache". Names whose first part is not an
// import binding are returned unchanged.
func (f *File) Qualify(dotted string) string {
	if dotted == "" {
		return ""
	}
	head, rest, _ := strings.Cut(dotted, ".")
	// A call in the head ("get_accelerator()") qualifies through the function's name.
	suffix := ""
	if strings.HasSuffix(head, "()") {
		head, suffix = strings.TrimSuffix(head, "()"), "()"
	}
	q, ok := f.Alias(head)
	if !ok {
		return dotted
	}
	if rest == "" {
		return q + suffix
	}
	return q + suffix + "." + rest
}

// GlobalStatements are the file's global_statement nodes, in any scope, in the order
// Root.Walk meets them. The slice is the file's: not to be changed.
func (f *File) GlobalStatements() []*Node { return f.globals }

// Assignments are the file's assignment and augmented_assignment nodes, in any scope, in
// the order Root.Walk meets them. The slice is the file's: not to be changed.
func (f *File) Assignments() []*Node { return f.assignNodes }

// ExceptClauses are the file's except_clause and except_group_clause nodes, in the order
// Root.Walk meets them. The slice is the file's: not to be changed.
func (f *File) ExceptClauses() []*Node { return f.exceptNodes }

// buildModel reads imports, classes, functions and calls from the copied tree in one
// pre-order walk that carries the enclosing function and qualified-name prefix down, so its
// cost is linear in the tree. (A tree-sitter query did this before: its cursor keeps one
// pending state per enclosing call, so on nested calls, such as `f()()()...` or what error
// recovery builds from an unclosed bracket, each node cost time in the depth.)
func (f *File) buildModel(root *Node, sc *scratch) {
	f.funcByNode = map[*Node]*Function{}
	f.classByNode = map[*Node]*Class{}
	src := f.Src
	// The walk's stack, the calls, imports, assignments and except clauses are gathered in
	// sc's buffers, which a parser keeps from file to file, and the file keeps copies of
	// their exact size: a cold run builds the models of thousands of files, and every byte
	// it allocates is a page to fault in. (An unchanged file's model is read back with its
	// kept tree: readModel.)
	stack := sc.frames[:0]
	stack = append(stack, modelFrame{n: root})
	calls, assigns, excepts := sc.calls[:0], sc.assigns[:0], sc.excepts[:0]
	f.Imports = sc.imports[:0] // bind appends to it
	// What a file put in them is cleared after it (the rest of each is clear already, from
	// the file before or from its allocation), so that they keep no tree of it alive. The
	// stack is cleared to its deepest, which its length no longer shows.
	deepest := len(stack)
	defer func() {
		clear(stack[:deepest])
		clear(calls)
		clear(assigns)
		clear(excepts)
		sc.frames, sc.calls, sc.assigns, sc.excepts = stack[:0], calls[:0], assigns[:0], excepts[:0]
	}()
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, fn, scope := top.n, top.fn, top.scope
		kind := modelKinds[n.meta&kindMask]
		switch kind {
		case modelImport:
			f.addImport(n)
		case modelImportFrom:
			f.addImportFrom(n)
		case modelClass:
			if name := n.childByFieldID(fieldIDs.name); name != nil && name.Kind() == "identifier" {
				f.addClass(n, name.Text(src), scope)
			}
		case modelFunction:
			fn = nil
			if name := n.childByFieldID(fieldIDs.name); name != nil && name.Kind() == "identifier" {
				fn = f.addFunction(n, name.Text(src), scope, top.fn)
			}
		case modelWithItem:
			if v := n.childByFieldID(fieldIDs.value); v != nil {
				if v.Kind() == "as_pattern" && v.ChildCount() > 0 {
					v = v.Child(0)
				}
				f.Entered = append(f.Entered, &Call{Node: v, Func: v, Callee: DottedName(v, src), Function: fn})
			}
		case modelAssignment:
			assigns = append(assigns, n)
		case modelExcept:
			excepts = append(excepts, n)
		case modelGlobal:
			f.globals = append(f.globals, n)
		case modelCall:
			fun, args := n.childrenByFieldID(fieldIDs.function, fieldIDs.arguments)
			if fun != nil && fun.Named() && args != nil && args.Named() {
				calls = append(calls, Call{Node: n, Func: fun, Args: args, Callee: DottedName(fun, src), Function: fn})
			}
		}
		if kind == modelFunction || kind == modelClass {
			if name := n.childByFieldID(fieldIDs.name); name != nil {
				scope = joinScope(scope, name.Text(src))
			}
		}
		// Children in reverse, so that they come off the stack in order; a leaf is none of
		// the kinds above (most nodes are leaves: identifiers, operators, keywords).
		for i := n.kids() - 1; i >= 0; i-- {
			if c := n.at(n.down + i); c.count != 0 || modelKinds[c.meta&kindMask] != modelOther {
				stack = append(stack, modelFrame{n: c, fn: fn, scope: scope})
			}
		}
		deepest = max(deepest, len(stack))
	}
	if len(calls) > 0 {
		slab := slices.Clone(calls)
		f.Calls = make([]*Call, len(slab))
		for i := range slab {
			f.Calls[i] = &slab[i]
		}
	}
	f.assignNodes, f.exceptNodes = slices.Clone(assigns), slices.Clone(excepts)
	imports := f.Imports
	f.Imports = slices.Clone(imports)
	clear(imports)
	sc.imports = imports[:0]
	f.callOrder = make([]int32, len(f.Calls))
	for i := range f.callOrder {
		f.callOrder[i] = int32(i)
	}
	slices.SortFunc(f.callOrder, func(a, b int32) int {
		return cmp.Compare(f.element(f.Calls[a].Node), f.element(f.Calls[b].Node))
	})
}

// modelFrame is a node buildModel's walk has yet to visit, with what encloses it.
type modelFrame struct {
	n     *Node
	fn    *Function // innermost enclosing def (nil at module level or in a nameless def)
	scope string    // dotted names of the enclosing defs and classes
}

// modelKind is what buildModel does with a node of a kind.
type modelKind uint8

const (
	modelOther modelKind = iota
	modelImport
	modelImportFrom
	modelClass
	modelFunction
	modelWithItem
	modelAssignment
	modelExcept
	modelCall
	modelGlobal
)

// modelKinds is each grammar symbol's modelKind (loadLanguage), so that the model's walk of
// every node of a tree reads a table instead of comparing kind names (a third of that walk).
var modelKinds [kindMask + 1]modelKind

// modelKindOf is the modelKind of a kind name.
func modelKindOf(kind string) modelKind {
	switch kind {
	case "import_statement":
		return modelImport
	case "import_from_statement", "future_import_statement":
		return modelImportFrom
	case "class_definition":
		return modelClass
	case "function_definition":
		return modelFunction
	case "with_item":
		return modelWithItem
	case "assignment", "augmented_assignment":
		return modelAssignment
	case "except_clause", "except_group_clause":
		return modelExcept
	case "call":
		return modelCall
	case "global_statement":
		return modelGlobal
	}
	return modelOther
}

func joinScope(scope, name string) string {
	if scope == "" {
		return name
	}
	return scope + "." + name
}

func (f *File) addClass(n *Node, name, scope string) {
	src := f.Src
	c := &Class{Name: name, QualName: joinScope(scope, name), Node: n, Methods: map[string]*Function{}}
	if sc := n.ChildByField("superclasses"); sc != nil {
		for b := range sc.NamedSeq() {
			if b.Kind() == "keyword_argument" {
				continue
			}
			if d := DottedName(b, src); d != "" {
				c.Bases = append(c.Bases, d)
			} else {
				c.Bases = append(c.Bases, b.Text(src))
			}
		}
	}
	c.Decorators = decorators(n)
	f.classByNode[n] = c
	f.Classes = append(f.Classes, c)
}

// addFunction records a def; a method's class precedes it in the walk, so it is known.
func (f *File) addFunction(n *Node, name, scope string, parent *Function) *Function {
	src := f.Src
	fn := &Function{Name: name, QualName: joinScope(scope, name), Node: n, Body: n.ChildByField("body"), Parent: parent}
	fn.Decorators = decorators(n)
	fn.Async = n.HasChild("async")
	if ps := n.ChildByField("parameters"); ps != nil {
		fn.Params = make([]string, 0, ps.ChildCount()) // the named ones, and the commas
		for p := range ps.NamedSeq() {
			fn.Params = append(fn.Params, paramName(p, src))
			if p.Kind() == "typed_parameter" || p.Kind() == "typed_default_parameter" {
				if t := DottedName(p.ChildByField("type").firstNamed(), src); t != "" {
					if fn.ParamTypes == nil {
						fn.ParamTypes = make([]string, ps.ChildCount())
					}
					fn.ParamTypes[len(fn.Params)-1] = t
				}
			}
		}
		fn.Params = slices.Clip(fn.Params)
		if fn.ParamTypes != nil {
			fn.ParamTypes = fn.ParamTypes[:len(fn.Params):len(fn.Params)]
		}
	}
	if owner := definingClass(n); owner != nil {
		fn.Class = f.classByNode[owner]
		if fn.Class != nil {
			fn.Class.Methods[fn.Name] = fn
		}
	}
	f.funcByNode[n] = fn
	f.Functions = append(f.Functions, fn)
	return fn
}

// ParamType is the dotted text of the annotation of fn's parameter name; ok is false when
// fn has no such parameter or it has none.
func (fn *Function) ParamType(name string) (typ string, ok bool) {
	if fn.ParamTypes == nil {
		return "", false
	}
	for i, p := range fn.Params {
		if p == name && fn.ParamTypes[i] != "" {
			typ, ok = fn.ParamTypes[i], true // the last, as a map by name would hold
		}
	}
	return typ, ok
}

// firstNamed is a `type` node's expression (nil-safe).
func (n *Node) firstNamed() *Node {
	if n == nil {
		return nil
	}
	if n.Kind() == "type" {
		if c := n.NamedChild(0); c != nil {
			return c
		}
	}
	return n
}

func paramName(p *Node, src []byte) string {
	switch p.Kind() {
	case "identifier":
		return p.Text(src)
	case "typed_parameter", "list_splat_pattern", "dictionary_splat_pattern":
		for c := range p.NamedSeq() {
			if c.Kind() == "identifier" {
				return c.Text(src)
			}
		}
	case "default_parameter", "typed_default_parameter":
		if n := p.ChildByField("name"); n != nil {
			return n.Text(src)
		}
	}
	return p.Text(src)
}

// definingClass returns the class_definition whose body directly holds the def (through a
// decorated_definition), or nil for plain and nested functions.
func definingClass(def *Node) *Node {
	n := def
	if n.Parent() != nil && n.Parent().Kind() == "decorated_definition" {
		n = n.Parent()
	}
	if n.Parent() != nil && n.Parent().Kind() == "block" && n.Parent().Parent() != nil && n.Parent().Parent().Kind() == "class_definition" {
		return n.Parent().Parent()
	}
	return nil
}

func decorators(def *Node) []*Node {
	if def.Parent() == nil || def.Parent().Kind() != "decorated_definition" {
		return nil
	}
	var out []*Node
	for c := range def.Parent().Children() {
		if c.Kind() == "decorator" {
			out = append(out, c)
		}
	}
	return out
}

func (f *File) addImport(n *Node) {
	for _, c := range n.ChildrenByField("name") {
		switch c.Kind() {
		case "dotted_name":
			full := c.Text(f.Src)
			head, _, _ := strings.Cut(full, ".")
			f.bind(Import{Local: head, Qualified: head, Module: full, Node: n})
		case "aliased_import":
			full := c.ChildByField("name").Text(f.Src)
			alias := c.ChildByField("alias").Text(f.Src)
			f.bind(Import{Local: alias, Qualified: full, Module: full, Node: n})
		}
	}
}

func (f *File) addImportFrom(n *Node) {
	mod := n.ChildByField("module_name")
	module, level := "", 0
	if mod != nil {
		if mod.Kind() == "relative_import" {
			for c := range mod.Children() {
				switch c.Kind() {
				case "import_prefix":
					level = strings.Count(c.Text(f.Src), ".")
				case "dotted_name":
					module = c.Text(f.Src)
				}
			}
		} else {
			module = mod.Text(f.Src)
		}
	} else if n.Kind() == "future_import_statement" {
		module = "__future__"
	}
	prefix := strings.Repeat(".", level)
	for c := range n.Children() {
		if c.Kind() == "wildcard_import" {
			f.StarImports = append(f.StarImports, Import{Local: "*", Qualified: prefix + module, Module: module, Level: level, Name: "*", Node: n})
		}
	}
	for _, c := range n.ChildrenByField("name") {
		var name, alias string
		switch c.Kind() {
		case "dotted_name":
			name = c.Text(f.Src)
			alias = name
		case "aliased_import":
			name = c.ChildByField("name").Text(f.Src)
			alias = c.ChildByField("alias").Text(f.Src)
		default:
			continue
		}
		q := name
		if module != "" {
			q = module + "." + name
		}
		f.bind(Import{Local: alias, Qualified: prefix + q, Module: module, Level: level, Name: name, Node: n})
	}
}

func (f *File) bind(imp Import) {
	f.Imports = append(f.Imports, imp)
}

// Alias is the dotted name a local name stands for through the file's import bindings (`t`
// -> `torch`, `ec` -> `torch.cuda.empty_cache`, `cuda` -> `torch.cuda`), the last of them
// in the file when several bind it; ok is false when no import binds the name.
func (f *File) Alias(name string) (qualified string, ok bool) {
	f.aliasOnce.Do(func() {
		f.aliases = make(map[string]string, len(f.Imports))
		for _, imp := range f.Imports {
			f.aliases[imp.Local] = imp.Qualified
		}
	})
	qualified, ok = f.aliases[name]
	return qualified, ok
}

// Pos converts a byte offset to a token.Pos in the file's FileSet (NoPos when the file was
// not added to one).
func (f *File) Pos(offset int) token.Pos {
	if f.TokenFile == nil {
		return token.NoPos
	}
	if offset > f.TokenFile.Size() {
		offset = f.TokenFile.Size()
	}
	return f.TokenFile.Pos(offset)
}
