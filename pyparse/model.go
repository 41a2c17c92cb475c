package pyparse

import (
	"go/token"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
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
	// Aliases maps a local name to the dotted name it stands for (`t` -> `torch`,
	// `ec` -> `torch.cuda.empty_cache`, `cuda` -> `torch.cuda`). Later bindings win.
	Aliases map[string]string
	// StarImports are the `from mod import *` statements: their Name is "*", and they bind
	// no alias (what they bind is known only from mod).
	StarImports []Import
	Functions   []*Function
	Classes     []*Class
	Calls       []*Call

	// TokenFile positions this file in an analysis Pass's FileSet (set by the Analyzer).
	TokenFile *token.File

	lines       []int // byte offset of each line start
	callByNode  map[*Node]*Call
	funcByNode  map[*Node]*Function
	classByNode map[*Node]*Class
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
	// ParamTypes maps a parameter to the dotted text of its annotation (`trainer: Trainer`).
	ParamTypes map[string]string
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

// FunctionOf returns the function defined by a function_definition node.
func (f *File) FunctionOf(n *Node) *Function { return f.funcByNode[n] }

// CallOf returns the Call of a call node.
func (f *File) CallOf(n *Node) *Call { return f.callByNode[n] }

// ClassOf returns the class defined by a class_definition node.
func (f *File) ClassOf(n *Node) *Class { return f.classByNode[n] }

// EnclosingFunction returns the innermost function whose body contains n (nil at module level).
// Lambdas are transparent.
func (f *File) EnclosingFunction(n *Node) *Function {
	for m := n.Parent; m != nil; m = m.Parent {
		if m.Kind == "function_definition" {
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
	q, ok := f.Aliases[head]
	if !ok {
		return dotted
	}
	if rest == "" {
		return q + suffix
	}
	return q + suffix + "." + rest
}

func (f *File) buildModel(root *sitter.Node, byID map[uintptr]*Node) {
	f.Aliases = map[string]string{}
	f.funcByNode = map[*Node]*Function{}
	f.classByNode = map[*Node]*Class{}
	f.callByNode = map[*Node]*Call{}
	src := f.Src

	each := func(query string, fn func(caps map[string]*Node)) {
		q := queries[query]
		qc := sitter.NewQueryCursor()
		defer qc.Close()
		names := q.CaptureNames()
		matches := qc.Matches(q, root, src)
		for m := matches.Next(); m != nil; m = matches.Next() {
			// Matches reuses its memory: copy what we keep.
			caps := map[string]*Node{}
			for _, c := range m.Captures {
				if n := byID[c.Node.Id()]; n != nil {
					caps[names[c.Index]] = n
				}
			}
			fn(caps)
		}
	}

	var callNodes [][3]*Node
	// One pass of the combined query; classes are finished before methods look them up.
	var funcNodes []*Node
	each("model", func(caps map[string]*Node) {
		switch {
		case caps["import"] != nil:
			f.addImport(caps["import"])
		case caps["import_from"] != nil:
			f.addImportFrom(caps["import_from"])
		case caps["class"] != nil:
			n := caps["class"]
			c := &Class{Name: n.ChildByField("name").Text(src), Node: n, Methods: map[string]*Function{}}
			if sc := n.ChildByField("superclasses"); sc != nil {
				for _, b := range sc.NamedChildren() {
					if b.Kind == "keyword_argument" {
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
		case caps["func"] != nil:
			funcNodes = append(funcNodes, caps["func"])
		case caps["call"] != nil:
			n := caps["call"]
			callNodes = append(callNodes, [3]*Node{n, n.ChildByField("function"), n.ChildByField("arguments")})
		}
	})
	for _, c := range f.Classes {
		c.QualName = qualName(c.Node, c.Name, src)
	}
	for _, n := range funcNodes {
		fn := &Function{Name: n.ChildByField("name").Text(src), Node: n, Body: n.ChildByField("body")}
		fn.QualName = qualName(n, fn.Name, src)
		fn.Decorators = decorators(n)
		fn.Async = n.HasChild("async")
		if ps := n.ChildByField("parameters"); ps != nil {
			for _, p := range ps.NamedChildren() {
				name := paramName(p, src)
				fn.Params = append(fn.Params, name)
				if p.Kind == "typed_parameter" || p.Kind == "typed_default_parameter" {
					if t := DottedName(p.ChildByField("type").firstNamed(), src); t != "" {
						if fn.ParamTypes == nil {
							fn.ParamTypes = map[string]string{}
						}
						fn.ParamTypes[name] = t
					}
				}
			}
		}
		f.funcByNode[n] = fn
		f.Functions = append(f.Functions, fn)
	}
	for _, fn := range f.Functions {
		fn.Parent = f.EnclosingFunction(fn.Node)
		if owner := definingClass(fn.Node); owner != nil {
			fn.Class = f.classByNode[owner]
			if fn.Class != nil {
				fn.Class.Methods[fn.Name] = fn
			}
		}
	}

	for _, cn := range callNodes {
		c := &Call{Node: cn[0], Func: cn[1], Args: cn[2]}
		c.Callee = DottedName(c.Func, src)
		c.Function = f.EnclosingFunction(c.Node)
		f.Calls = append(f.Calls, c)
		f.callByNode[c.Node] = c
	}
}

// firstNamed is a `type` node's expression (nil-safe).
func (n *Node) firstNamed() *Node {
	if n == nil {
		return nil
	}
	if n.Kind == "type" {
		if c := n.NamedChildren(); len(c) > 0 {
			return c[0]
		}
	}
	return n
}

func paramName(p *Node, src []byte) string {
	switch p.Kind {
	case "identifier":
		return p.Text(src)
	case "typed_parameter", "list_splat_pattern", "dictionary_splat_pattern":
		for _, c := range p.NamedChildren() {
			if c.Kind == "identifier" {
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
	if n.Parent != nil && n.Parent.Kind == "decorated_definition" {
		n = n.Parent
	}
	if n.Parent != nil && n.Parent.Kind == "block" && n.Parent.Parent != nil && n.Parent.Parent.Kind == "class_definition" {
		return n.Parent.Parent
	}
	return nil
}

func decorators(def *Node) []*Node {
	if def.Parent == nil || def.Parent.Kind != "decorated_definition" {
		return nil
	}
	var out []*Node
	for _, c := range def.Parent.Children {
		if c.Kind == "decorator" {
			out = append(out, c)
		}
	}
	return out
}

func qualName(def *Node, name string, src []byte) string {
	parts := []string{name}
	for m := def.Parent; m != nil; m = m.Parent {
		if m.Kind == "function_definition" || m.Kind == "class_definition" {
			if nn := m.ChildByField("name"); nn != nil {
				parts = append(parts, nn.Text(src))
			}
		}
	}
	return joinReversed(parts)
}

func (f *File) addImport(n *Node) {
	for _, c := range n.ChildrenByField("name") {
		switch c.Kind {
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
		if mod.Kind == "relative_import" {
			for _, c := range mod.Children {
				switch c.Kind {
				case "import_prefix":
					level = strings.Count(c.Text(f.Src), ".")
				case "dotted_name":
					module = c.Text(f.Src)
				}
			}
		} else {
			module = mod.Text(f.Src)
		}
	} else if n.Kind == "future_import_statement" {
		module = "__future__"
	}
	prefix := strings.Repeat(".", level)
	for _, c := range n.Children {
		if c.Kind == "wildcard_import" {
			f.StarImports = append(f.StarImports, Import{Local: "*", Qualified: prefix + module, Module: module, Level: level, Name: "*", Node: n})
		}
	}
	for _, c := range n.ChildrenByField("name") {
		var name, alias string
		switch c.Kind {
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
	f.Aliases[imp.Local] = imp.Qualified
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
