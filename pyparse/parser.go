package pyparse

import (
	"context"
	"embed"
	"fmt"
	"sync"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
)

//go:embed queries/*.scm
var queryFS embed.FS

// DefaultTimeout bounds the parse of one file; a file that takes longer gives a parse error
// rather than stalling the run.
const DefaultTimeout = 10 * time.Second

var (
	langOnce sync.Once
	lang     *sitter.Language
	queries  map[string]*sitter.Query
	langErr  error
)

// loadLanguage compiles the grammar handle and the embedded queries once per process. The
// queries are read-only after compilation and safe to share between parsers.
func loadLanguage() error {
	langOnce.Do(func() {
		useLibcAllocator()
		lang = sitter.NewLanguage(python.Language())
		queries = map[string]*sitter.Query{}
		for _, name := range []string{"calls", "defs", "imports"} {
			text, err := queryFS.ReadFile("queries/" + name + ".scm")
			if err != nil {
				langErr = fmt.Errorf("read query %s: %w", name, err)
				return
			}
			q, qerr := sitter.NewQuery(lang, string(text))
			if qerr != nil { // *QueryError: compare the pointer, not an error interface
				langErr = fmt.Errorf("compile query %s: %s", name, qerr.Error())
				return
			}
			queries[name] = q
		}
	})
	return langErr
}

// Parser parses Python files. It is not safe for concurrent use: give each worker its own.
type Parser struct {
	p       *sitter.Parser
	Timeout time.Duration
}

// NewParser returns a parser; Close it when done.
func NewParser() (*Parser, error) {
	if err := loadLanguage(); err != nil {
		return nil, err
	}
	p := sitter.NewParser()
	if err := p.SetLanguage(lang); err != nil {
		p.Close()
		return nil, fmt.Errorf("set python language: %w", err)
	}
	return &Parser{p: p, Timeout: DefaultTimeout}, nil
}

// Close releases the tree-sitter parser.
func (p *Parser) Close() {
	if p.p != nil {
		p.p.Close()
		p.p = nil
	}
}

// ErrTimeout is returned when a file takes longer than Parser.Timeout to parse.
var ErrTimeout = fmt.Errorf("parse timed out")

// Parse parses src (the contents of path) and builds its model. Syntax errors do not fail the
// parse: they are listed in File.Errors. An error is returned only when no tree could be built
// (timeout, cancellation).
func (p *Parser) Parse(ctx context.Context, path string, src []byte) (*File, error) {
	deadline := time.Now().Add(p.Timeout)
	opts := &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool {
		return time.Now().After(deadline) || ctx.Err() != nil
	}}
	tree := p.p.ParseWithOptions(func(off int, _ sitter.Point) []byte {
		if off >= len(src) {
			return nil
		}
		return src[off:]
	}, nil, opts)
	if tree == nil {
		p.p.Reset()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("parse %s: %w", path, ctx.Err())
		}
		return nil, fmt.Errorf("parse %s: %w after %s", path, ErrTimeout, p.Timeout)
	}
	defer tree.Close()
	root := tree.RootNode()
	f := &File{Path: path, Src: src}
	byID := map[uintptr]*Node{}
	f.Root = convert(root, byID, f)
	f.buildModel(root, byID)
	return f, nil
}

// convert copies the tree-sitter tree into Go Nodes with a cursor walk (iterative, so deep
// nesting is safe), recording syntax errors on the way.
func convert(root *sitter.Node, byID map[uintptr]*Node, f *File) *Node {
	cur := root.Walk()
	defer cur.Close()
	mk := func(parent *Node) *Node {
		tn := cur.Node()
		sp, ep := tn.StartPosition(), tn.EndPosition()
		n := &Node{
			Kind: tn.Kind(), Field: cur.FieldName(), Named: tn.IsNamed(),
			Start: int(tn.StartByte()), End: int(tn.EndByte()),
			Row: int(sp.Row), Col: int(sp.Column), EndRow: int(ep.Row), EndCol: int(ep.Column),
			Parent: parent,
		}
		if parent != nil {
			n.Index = len(parent.Children)
			parent.Children = append(parent.Children, n)
		}
		if tn.IsError() || tn.IsMissing() {
			msg := "invalid syntax"
			if tn.IsMissing() {
				msg = "missing " + tn.Kind()
			}
			f.Errors = append(f.Errors, SyntaxError{Line: n.Row + 1, Col: Column(f.Src, n.Start), Msg: msg})
		}
		byID[tn.Id()] = n
		return n
	}
	top := mk(nil)
	node := top
	for {
		if cur.GotoFirstChild() {
			node = mk(node)
			continue
		}
		for {
			if cur.GotoNextSibling() {
				node = mk(node.Parent)
				break
			}
			if !cur.GotoParent() {
				return top
			}
			node = node.Parent
		}
	}
}
