package pyparse

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

func parse(t testing.TB, src string) *File {
	t.Helper()
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	f, err := p.Parse(context.Background(), "t.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestImportsAndAliases(t *testing.T) {
	f := parse(t, `import torch as t
import torch.cuda
from torch.cuda import empty_cache as ec
from torch import cuda
from . import utils
from ..pkg.mem import free_gpu as fg
def f():
    import os.path as osp
import numpy as np
from jax import numpy as np
`)
	want := map[string]string{
		"t": "torch", "torch": "torch", "ec": "torch.cuda.empty_cache", "cuda": "torch.cuda",
		"utils": ".utils", "fg": "..pkg.mem.free_gpu", "osp": "os.path", "np": "jax.numpy", // the last binding
	}
	for k, v := range want {
		if got, ok := f.Alias(k); got != v || !ok {
			t.Errorf("alias %s = %q, %v; want %q", k, got, ok, v)
		}
	}
	for _, name := range []string{"", "a", "np2", "tor", "zzz", "os"} {
		if got, ok := f.Alias(name); ok {
			t.Errorf("alias %q = %q, want none", name, got)
		}
	}
	for in, out := range map[string]string{
		"t.cuda.empty_cache":   "torch.cuda.empty_cache",
		"ec":                   "torch.cuda.empty_cache",
		"cuda.empty_cache":     "torch.cuda.empty_cache",
		"self.lru.empty_cache": "self.lru.empty_cache",
	} {
		if got := f.Qualify(in); got != out {
			t.Errorf("Qualify(%s) = %q, want %q", in, got, out)
		}
	}
}

func TestStarImports(t *testing.T) {
	f := parse(t, "from .memory_utils import *\nfrom torch import *\nfrom a import b\n")
	var got []string
	for _, imp := range f.StarImports {
		got = append(got, imp.Qualified)
	}
	if strings.Join(got, ",") != ".memory_utils,torch" {
		t.Errorf("star imports = %v, want [.memory_utils torch]", got)
	}
	if _, bound := f.Alias("*"); bound {
		t.Error("a star import bound the name *")
	}
}

func TestFunctionsClassesCalls(t *testing.T) {
	f := parse(t, `class Trainer(pl.LightningModule, metaclass=M):
    @torch.no_grad()
    def training_step(self, batch, idx=0, *args, **kw):
        def inner():
            get_accelerator().empty_cache()
        x = self.model(batch)
        return x

async def serve(req: Request):
    pass
`)
	if len(f.Classes) != 1 || f.Classes[0].Bases[0] != "pl.LightningModule" || len(f.Classes[0].Bases) != 1 {
		t.Fatalf("classes = %+v", f.Classes)
	}
	byName := map[string]*Function{}
	for _, fn := range f.Functions {
		byName[fn.QualName] = fn
	}
	ts := byName["Trainer.training_step"]
	if ts == nil || ts.Class == nil || ts.Class.Name != "Trainer" || len(ts.Decorators) != 1 {
		t.Fatalf("training_step = %+v", ts)
	}
	if strings.Join(ts.Params, ",") != "self,batch,idx,args,kw" {
		t.Errorf("params = %v", ts.Params)
	}
	inner := byName["Trainer.training_step.inner"]
	if inner == nil || inner.Parent != ts || inner.Class != nil {
		t.Fatalf("inner = %+v", inner)
	}
	if s := byName["serve"]; s == nil || !s.Async || s.Params[0] != "req" {
		t.Fatalf("serve = %+v", s)
	}
	var callees []string
	for _, c := range f.Calls {
		callees = append(callees, c.Callee)
		if c.Callee == "get_accelerator().empty_cache" && c.Function != inner {
			t.Errorf("enclosing function of %s = %v", c.Callee, c.Function)
		}
	}
	got := strings.Join(callees, " ")
	for _, w := range []string{"torch.no_grad", "get_accelerator().empty_cache", "get_accelerator", "self.model"} {
		if !strings.Contains(got, w) {
			t.Errorf("calls %q lack %q", got, w)
		}
	}
}

func TestErrorTolerant(t *testing.T) {
	f := parse(t, "def f(:\n    torch.cuda.empty_cache()\nprint 'py2'\n")
	if len(f.Errors) == 0 {
		t.Fatal("no syntax errors reported")
	}
	found := false
	for _, c := range f.Calls {
		found = found || c.Callee == "torch.cuda.empty_cache"
	}
	if !found {
		t.Error("call in a broken file was lost")
	}
}

func TestDeepNestingAndOddInput(t *testing.T) {
	deep := strings.Repeat("(", 10000) + "x" + strings.Repeat(")", 10000) + "\n"
	for name, src := range map[string]string{
		"deep": deep, "empty": "", "nul": "x = 1\x00\ny = 2\n", "bom": "\ufeffimport torch\n",
		"badutf8": "s = '\xff\xfe'\n", "crlf": "import torch\r\ntorch.cuda.empty_cache()\r\n",
	} {
		t.Run(name, func(t *testing.T) { parse(t, src) })
	}
}

func TestColumnCountsCodePoints(t *testing.T) {
	src := []byte("é = torch.cuda.empty_cache()")
	off := strings.Index(string(src), "torch")
	if got := Column(src, off); got != 5 {
		t.Errorf("Column = %d, want 5", got)
	}
}

// BenchmarkParse measures parse throughput on a realistic file (the example project's
// training script, repeated). Run: go test ./pyparse -bench Parse -benchtime 20x
func BenchmarkParse(b *testing.B) {
	src := benchSource(b)
	p, err := NewParser()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := p.Parse(context.Background(), "x.py", src); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSource is the benchmarks' file: the example project's training script, repeated.
func benchSource(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("../examples/train.py")
	if err != nil {
		b.Fatal(err)
	}
	return []byte(strings.Repeat(string(data), 200))
}

// TestFlattenMatchesCursorWalk holds the one-call C flattening to the Go cursor walk through
// the official binding: same kinds, fields, ranges, parents and syntax errors. It guards the
// struct layouts flatten.go mirrors from tree-sitter's api.h.
func TestFlattenMatchesCursorWalk(t *testing.T) {
	for name, src := range map[string]string{
		"train":  "import torch\nfor i, b in enumerate(loader):\n    if i % 100 == 0:\n        torch.cuda.empty_cache()  # c\n",
		"broken": "def f(:\n    x = [1, 2\nprint 'py2'\n",
		"deep":   strings.Repeat("(", 300) + "x" + strings.Repeat(")", 300) + "\n",
		"utf8":   "é = '\xff'\nclass A(B, metaclass=M):\n    @d\n    async def g(self, *a, **k): return await h(a)\n",
	} {
		t.Run(name, func(t *testing.T) {
			p, err := NewParser()
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			b := []byte(src)
			tree := officialParse(t, b)
			defer tree.Close()
			fa, fb := &File{Src: b}, &File{Src: b}
			var la []string
			flattenNode(tree.RootNode(), fa, p.sc).Walk(func(n *Node) bool {
				la = append(la, dumpNode(n.Kind(), n.Field(), n.Named(), n.Start, n.End, int32(n.Line()-1), n.Parent(), n.Index()))
				return true
			})
			lb := convert(tree.RootNode(), fb)
			if strings.Join(la, "\n") != strings.Join(lb, "\n") {
				t.Fatalf("flatten differs from cursor walk:\n%s\n---\n%s", strings.Join(la, "\n"), strings.Join(lb, "\n"))
			}
			if fmt.Sprint(fa.Errors) != fmt.Sprint(fb.Errors) {
				t.Fatalf("errors %v / %v", fa.Errors, fb.Errors)
			}
		})
	}
}

// dumpNode is one line of TestFlattenMatchesCursorWalk's comparison: a node's kind, field,
// named bit, range, row, its parent's start (-1 for a root) and its index among its siblings.
func dumpNode(kind, field string, named bool, start, end, row int32, parent *Node, index int) string {
	par := -1
	if parent != nil {
		par = int(parent.Start)
	}
	return fmt.Sprintf("%s/%s/%v %d-%d r%d p%d i%d", kind, field, named, start, end, row, par, index)
}

// convert walks the tree-sitter tree with a Go-side cursor through the official binding and
// dumps each node flatten keeps, with the syntax errors flatten would record into f: the
// oracle TestFlattenMatchesCursorWalk holds flatten (one C call per file) to.
func convert(root *sitter.Node, f *File) []string {
	cur := root.Walk()
	defer cur.Close()
	lines := lineStarts(f.Src)
	checkErrors := root.HasError()
	type frame struct {
		start int32 // -1 for a dropped punctuation leaf
		kids  int   // children kept so far
	}
	var out []string
	// stack holds the node of each cursor depth.
	var stack []frame
	visit := func() {
		tn := cur.Node()
		if isPunct(tn.KindId()) {
			if checkErrors && tn.IsMissing() {
				start := int(tn.StartByte())
				row, _ := position(lines, start)
				f.Errors = append(f.Errors, SyntaxError{Line: row + 1, Col: Column(f.Src, start), Msg: "missing " + tn.Kind()})
			}
			stack = append(stack, frame{start: -1})
			return
		}
		start, end := tn.ByteRange()
		row, _ := position(lines, int(start))
		field := ""
		if fid := cur.FieldId(); int(fid) < len(fieldNames) {
			field = fieldNames[fid]
		}
		par, index := -1, 0
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			par, index = int(top.start), top.kids
			top.kids++
		}
		out = append(out, fmt.Sprintf("%s/%s/%v %d-%d r%d p%d i%d", tn.Kind(), field, tn.IsNamed(), start, end, row, par, index))
		if checkErrors && (tn.IsError() || tn.IsMissing()) {
			msg := "invalid syntax"
			if !tn.IsError() {
				msg = "missing " + tn.Kind()
			}
			f.Errors = append(f.Errors, SyntaxError{Line: row + 1, Col: Column(f.Src, int(start)), Msg: msg})
		}
		stack = append(stack, frame{start: int32(start)})
	}
	visit()
	for {
		if cur.GotoFirstChild() {
			visit()
			continue
		}
		for {
			stack = stack[:len(stack)-1]
			if cur.GotoNextSibling() {
				visit()
				break
			}
			if !cur.GotoParent() {
				return out
			}
		}
	}
}

// TestCallChains: a dotted name runs through MaxChainCalls calls at most, so the callee of
// every call of a long chain stays short (spelling out the chain below each call was
// quadratic).
func TestCallChains(t *testing.T) {
	long := "f" + strings.Repeat("()", MaxChainCalls+2) // the outermost callee runs through one call too many
	f := parse(t, "def g():\n    get_accelerator().empty_cache()\n    model(x).sum().backward()\n    "+long+"\n")
	var got []string
	for _, c := range f.Calls {
		fn := "<module>"
		if c.Function != nil {
			fn = c.Function.QualName
		}
		got = append(got, fmt.Sprintf("%s:%q", fn, c.Callee))
	}
	want := `g:"get_accelerator().empty_cache" g:"get_accelerator" g:"model().sum().backward" g:"model().sum" g:"model" g:"" g:"f` +
		strings.Repeat("()", MaxChainCalls) + `"`
	if s := strings.Join(got[:7], " "); s != want {
		t.Errorf("calls = %s\nwant    %s", s, want)
	}
	if len(got) != 5+MaxChainCalls+2 {
		t.Errorf("%d calls, want %d", len(got), 5+MaxChainCalls+2)
	}
}

// TestUnclosedBracketCalls: tree-sitter recovers from an unclosed bracket by nesting every
// following call in the one before it; the first cache call is still found with its name,
// the ones nested on it get a short one or none, and every call has its enclosing function.
func TestUnclosedBracketCalls(t *testing.T) {
	src := "import torch\ndef train(loader):\n    for b in loader:\n        x = (\n" +
		strings.Repeat("        torch.cuda.empty_cache()\n", 50)
	f := parse(t, src)
	named := 0
	for _, c := range f.Calls {
		if c.Function == nil || c.Function.Name != "train" {
			t.Fatalf("call at line %d outside train", c.Node.Line())
		}
		if c.Callee == "torch.cuda.empty_cache" {
			named++
		} else if strings.Count(c.Callee, "()") > MaxChainCalls {
			t.Errorf("callee %q spells out the chain below it", c.Callee)
		}
	}
	if len(f.Calls) != 50 || named != 1 || len(f.Errors) == 0 {
		t.Errorf("%d calls, %d named torch.cuda.empty_cache, %d errors; want 50, 1 and some", len(f.Calls), named, len(f.Errors))
	}
}

// TestParseBudget: the budget grows with the file from a floor, and a parse past it stops
// with ErrTimeout naming the file.
func TestParseBudget(t *testing.T) {
	if Budget(0) != BudgetFloor || Budget(100<<10) != BudgetFloor+100*BudgetPerKB {
		t.Errorf("Budget(0) = %s, Budget(100 KB) = %s", Budget(0), Budget(100<<10))
	}
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Timeout = time.Nanosecond
	src := []byte(strings.Repeat("x = f(1)\n", 5000))
	_, err = p.Parse(context.Background(), "big.py", src)
	if !errors.Is(err, ErrTimeout) || !strings.HasPrefix(err.Error(), "big.py: not analysed") {
		t.Errorf("err = %v, want ErrTimeout naming big.py", err)
	}
	// The parser is usable again after a stopped parse.
	p.Timeout = 0
	if f, err := p.Parse(context.Background(), "big.py", src); err != nil || len(f.Calls) != 5000 {
		t.Errorf("after a stopped parse: err %v", err)
	}
}

// FindOutside finds the first match in source order and does not look inside skipped nodes.
func TestFindOutside(t *testing.T) {
	f := parse(t, "for b in x:\n    def inner():\n        step()\n    for y in b:\n        step()\n    step()\n")
	loop := f.Root.Find(func(n *Node) bool { return n.Kind() == "for_statement" })
	isStep := func(n *Node) bool { return n.Kind() == "call" && n.Text(f.Src) == "step()" }
	skip := func(n *Node) bool {
		return n.Kind() == "function_definition" || n != loop && n.Kind() == "for_statement"
	}
	if got := loop.FindOutside(isStep, skip); got == nil || got.Line() != 6 {
		t.Errorf("FindOutside = %v, want the step() of line 6", got)
	}
	noDefs := func(n *Node) bool { return n.Kind() == "function_definition" }
	if got := loop.FindOutside(isStep, noDefs); got == nil || got.Line() != 5 {
		t.Errorf("FindOutside without skipping loops = %v, want line 5", got)
	}
}

// TestCallOf: every call is found by its node, and no other node is a call's, not even the
// node of a call at the same place in another file's tree.
func TestCallOf(t *testing.T) {
	src := "import torch\nfor b in loader:\n    step(b)\n    torch.cuda.empty_cache()\nf(g(h(1)))\n"
	a, b := parse(t, src), parse(t, src)
	if len(a.Calls) != 5 {
		t.Fatalf("%d calls, want 5", len(a.Calls))
	}
	for i, c := range a.Calls {
		if a.CallOf(c.Node) != c {
			t.Errorf("call %d (%s) not found by its node", i, c.Callee)
		}
		if a.CallOf(b.Calls[i].Node) != nil || b.CallOf(c.Node) != nil {
			t.Errorf("call %d (%s) found by the node of another file's call", i, c.Callee)
		}
		if a.CallOf(c.Func) != nil || a.CallOf(c.Args) != nil {
			t.Errorf("call %d (%s): its callee or arguments taken for a call", i, c.Callee)
		}
	}
	if a.CallOf(a.Root) != nil || a.CallOf(nil) != nil {
		t.Errorf("the module or nil taken for a call")
	}
}

// TestParseMatchesBinding: Parse, which hands tree-sitter the text to read in place (C), builds
// the tree a parse through the official binding does, on the tree cache's inputs; it fails
// when a mirrored tree-sitter struct (cl_input, cl_parse_options) is off.
func TestParseMatchesBinding(t *testing.T) {
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// The tree cache's inputs: every fixture file and odd input (syntax errors, CRLF and lone
	// CR line ends, long comment runs, non-ASCII text, an empty file).
	srcs := treeCacheInputs(t)
	if len(srcs) < 50 {
		t.Fatalf("%d sources", len(srcs))
	}
	dump := func(root *Node) string {
		var b strings.Builder
		root.Walk(func(n *Node) bool {
			b.WriteString(dumpNode(n.Kind(), n.Field(), n.Named(), n.Start, n.End, int32(n.Line()-1), n.Parent(), n.Index()) + "\n")
			return true
		})
		return b.String()
	}
	for name, src := range srcs {
		f, err := p.Parse(context.Background(), name, src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tree := officialParse(t, parseText(src))
		want := &File{Src: src}
		got, exp := dump(f.Root), dump(flattenNode(tree.RootNode(), want, new(scratch)))
		tree.Close()
		if got != exp || fmt.Sprint(f.Errors) != fmt.Sprint(want.Errors) {
			t.Errorf("%s: parsed in place\n%s%v\nthrough the binding\n%s%v", name, got, f.Errors, exp, want.Errors)
		}
	}
}

// TestParseCancel: a parse stops when its context is done, before or during it, and the
// parser's next parse, under a live context, runs whole.
func TestParseCancel(t *testing.T) {
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Timeout = time.Hour
	src := []byte(strings.Repeat("x = f(1)\n", 50000))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Parse(done, "big.py", src); !errors.Is(err, context.Canceled) {
		t.Errorf("parse under a done context: err %v, want context.Canceled", err)
	}
	during, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Millisecond, cancel)
	if _, err := p.Parse(during, "big.py", src); !errors.Is(err, context.Canceled) {
		t.Errorf("parse cancelled during: err %v, want context.Canceled", err)
	}
	if f, err := p.Parse(context.Background(), "big.py", src); err != nil || len(f.Calls) != 50000 {
		t.Errorf("after a cancelled parse: err %v", err)
	}
}

// TestLineStarts holds lineStarts to Python's line ends ('\n', "\r\n", a lone '\r') on
// texts with each and without, against a byte-by-byte reading.
func TestLineStarts(t *testing.T) {
	slow := func(src []byte) []int {
		starts := []int{0}
		for i := 0; i < len(src); i++ {
			switch {
			case src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n':
				starts = append(starts, i+2)
				i++
			case src[i] == '\n' || src[i] == '\r':
				starts = append(starts, i+1)
			}
		}
		return starts
	}
	texts := []string{"", "x", "\n", "\r", "\r\n", "a\nb\n", "a\nb", "a\r\nb\r\n", "a\rb\rc", "a\r\r\nb\n\rc", "\n\n\r\r\n"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = "ab\r\n"[r.IntN(4)]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		if got, want := lineStarts([]byte(text)), slow([]byte(text)); !slices.Equal(got, want) {
			t.Errorf("lineStarts(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestSelfAssigns: a class's `self.attr = value` in its methods' own bodies, read once for
// every goroutine that asks.
func TestSelfAssigns(t *testing.T) {
	src := `class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt.lr = 1
        self.clear = lambda: None
        x = 1

        def inner(self):
            self.hidden = 2

        class Nested:
            def g(self):
                self.also_hidden = 3

    def step(self):
        self.count = self.count + 1
        fn = lambda self: setattr(self, "y", 1)
`
	f := parse(t, src)
	cls := f.Classes[0]
	var got []string
	for _, a := range cls.SelfAssigns(f.Src) {
		got = append(got, a.Method.Name+"."+a.Attr+"="+a.Value.Text(f.Src))
	}
	slices.Sort(got)
	want := []string{"__init__.clear=lambda: None", "__init__.model=model", "step.count=self.count + 1"}
	if !slices.Equal(got, want) {
		t.Errorf("SelfAssigns = %q, want %q", got, want)
	}
	var wg sync.WaitGroup
	firsts := make([]*SelfAssign, 8)
	for i := range firsts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			firsts[i] = &cls.SelfAssigns(f.Src)[0]
		}()
	}
	wg.Wait()
	for _, p := range firsts {
		if p != firsts[0] {
			t.Fatal("SelfAssigns read again: each caller got a list of its own")
		}
	}
}

// officialParse parses src through the official binding's own parser, with libc's
// allocator as every tree-sitter call outside cachelint's parse has.
func officialParse(t *testing.T, src []byte) *sitter.Tree {
	t.Helper()
	loadLanguage()
	p := sitter.NewParser()
	defer p.Close()
	if err := p.SetLanguage(lang); err != nil {
		t.Fatal(err)
	}
	return p.Parse(src, nil)
}

// TestArenaReused: a parser's parses allocate from its arena, which keeps its memory from
// one file to the next (it does not grow parse after parse) up to what it retains, and
// hands back all of it after a file that needed more; the trees stay those of the official
// binding's parse through libc's allocator.
func TestArenaReused(t *testing.T) {
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	small := []byte(strings.Repeat("for b in loader:\n    loss = model(b)\n    loss.backward()\n    torch.cuda.empty_cache()\n", 40))
	parse := func(src []byte) *File {
		t.Helper()
		f, err := p.Parse(context.Background(), "x.py", src)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	parse(small)
	held := p.arena.bytes()
	if held == 0 {
		t.Fatal("the parse allocated nothing from the parser's arena")
	}
	for range 50 {
		parse(small)
	}
	if got := p.arena.bytes(); got != held {
		t.Errorf("after 50 more parses of the same file the arena holds %d bytes, want the first parse's %d", got, held)
	}
	// A file whose parse needs more than the arena retains: its memory goes back.
	large := []byte(strings.Repeat("x = f(a, [b, c], {d: e})\n", 25000))
	f := parse(large)
	if got := p.arena.bytes(); got != 0 {
		t.Errorf("after a %d KB file the arena still holds %d bytes", len(large)>>10, got)
	}
	if len(f.Calls) != 25000 {
		t.Errorf("large file: %d calls, want 25000", len(f.Calls))
	}
	tree := officialParse(t, small)
	defer tree.Close()
	var want, got []string
	flattenNode(tree.RootNode(), &File{Src: small}, new(scratch)).Walk(func(n *Node) bool {
		want = append(want, fmt.Sprint(n.Kind(), n.Start, n.End, n.Field()))
		return true
	})
	parse(small).Root.Walk(func(n *Node) bool {
		got = append(got, fmt.Sprint(n.Kind(), n.Start, n.End, n.Field()))
		return true
	})
	if !slices.Equal(got, want) {
		t.Errorf("the arena's parse gave %d nodes, the official binding's %d", len(got), len(want))
	}
}

// TestAssignmentsTo: the assignments of a scope that bind a name, those of the functions,
// classes and lambdas defined in it left out, tuple targets bound by each name, and the for
// statements over the plain name (LoopsBinding); and on every fixture, the index equals a
// walk up from each assignment and loop to its scope.
func TestAssignmentsTo(t *testing.T) {
	src := `model = load()
a, b = 1, 2
def unload(models):
    model = models.pop()
    del model
    model = None
    x = y = 3

    def inner():
        model = 4

    class Holder:
        model = 5
    fn = lambda: model
a = 6
c, c = 7, 8
for m in models:
    pass
for i, j in pairs:
    pass
def g():
    for m in range(3):
        pass
`
	f := parse(t, src)
	fn := f.Functions[0]
	lines := func(ns []*Node) []int {
		var out []int
		for _, n := range ns {
			out = append(out, n.Line())
		}
		return out
	}
	for _, c := range []struct {
		scope *Node
		name  string
		want  []int
	}{
		{f.Root, "model", []int{1}},
		{f.Root, "a", []int{2, 15}},
		{f.Root, "b", []int{2}},
		{f.Root, "a, b", []int{2}},
		{f.Root, "x", nil},
		{f.Root, "c", []int{16}},
		{fn.Body, "model", []int{4, 6}},
		{fn.Body, "x", []int{7}},
		{fn.Body, "y", []int{7}},
		{fn.Body, "fn", []int{14}},
		{f.Functions[1].Body, "model", []int{10}},
	} {
		if got := lines(f.AssignmentsTo(c.scope, c.name)); !slices.Equal(got, c.want) {
			t.Errorf("AssignmentsTo(%s, %q) at lines %v, want %v", c.scope.Kind(), c.name, got, c.want)
		}
	}
	g := f.Functions[len(f.Functions)-1]
	for _, c := range []struct {
		scope *Node
		name  string
		want  []int
	}{
		{f.Root, "m", []int{17}},
		{f.Root, "i", nil},
		{f.Root, "i, j", nil},
		{g.Body, "m", []int{22}},
		{fn.Body, "m", nil},
	} {
		if got := lines(f.LoopsBinding(c.scope, c.name)); !slices.Equal(got, c.want) {
			t.Errorf("LoopsBinding(%s, %q) at lines %v, want %v", c.scope.Kind(), c.name, got, c.want)
		}
	}

	// A scope is read once, whoever asks first: every goroutine gets the same list.
	var wg sync.WaitGroup
	lists := make([]**Node, 8)
	for i := range lists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i] = &f.AssignmentsTo(fn.Body, "model")[0]
			_ = f.AssignmentsTo(fn.Body, "x")
		}()
	}
	wg.Wait()
	for _, p := range lists {
		if p != lists[0] {
			t.Fatal("AssignmentsTo read the scope again: each caller got a list of its own")
		}
	}

	seeds, _ := filepath.Glob("../testdata/src/*/*.py")
	if len(seeds) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range seeds {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f := parse(t, string(src))
		// The reference finds each assignment's scope from the assignment up: the body of
		// the nearest function around it, none inside a class body or lambda, else the module.
		want := map[*Node]map[string][]*Node{}
		wantLoops := map[*Node]map[string][]*Node{}
		f.Root.Walk(func(n *Node) bool {
			if n.Kind() != "assignment" && n.Kind() != "for_statement" {
				return true
			}
			scope := f.Root
			for prev, m := n, n.Parent(); m != nil; prev, m = m, m.Parent() {
				if k := m.Kind(); k == "function_definition" || k == "class_definition" || k == "lambda" {
					scope = nil
					if k == "function_definition" && m.ChildByField("body") == prev {
						scope = prev
					}
					break
				}
			}
			if scope == nil {
				return true
			}
			l := n.ChildByField("left")
			if n.Kind() == "for_statement" {
				if l.Kind() == "identifier" {
					if wantLoops[scope] == nil {
						wantLoops[scope] = map[string][]*Node{}
					}
					wantLoops[scope][l.Text(f.Src)] = append(wantLoops[scope][l.Text(f.Src)], n)
				}
				return true
			}
			if want[scope] == nil {
				want[scope] = map[string][]*Node{}
			}
			names := []string{l.Text(f.Src)}
			if l.Kind() == "pattern_list" || l.Kind() == "tuple_pattern" {
				for _, c := range l.NamedChildren() {
					names = append(names, c.Text(f.Src))
				}
			}
			for _, name := range names {
				if w := want[scope][name]; len(w) == 0 || w[len(w)-1] != n {
					want[scope][name] = append(w, n)
				}
			}
			return true
		})
		scopes := []*Node{f.Root}
		for _, fn := range f.Functions {
			scopes = append(scopes, fn.Body)
		}
		for _, scope := range scopes {
			for name, w := range want[scope] {
				if got := f.AssignmentsTo(scope, name); !slices.Equal(got, w) {
					t.Errorf("%s: AssignmentsTo(%q) at lines %v, want %v", path, name, lines(got), lines(w))
				}
			}
			for name, w := range wantLoops[scope] {
				if got := f.LoopsBinding(scope, name); !slices.Equal(got, w) {
					t.Errorf("%s: LoopsBinding(%q) at lines %v, want %v", path, name, lines(got), lines(w))
				}
			}
			f.AssignmentsTo(scope, "")
			count := func(m map[string][]*Node) (n int) {
				for _, nodes := range m {
					n += len(nodes)
				}
				return n
			}
			if got := f.assigns[scope]; len(got.assigns.nodes) != count(want[scope]) || len(got.loops.nodes) != count(wantLoops[scope]) {
				t.Errorf("%s: %d bindings by assignment and %d by loop in a scope, want %d and %d", path, len(got.assigns.nodes), len(got.loops.nodes), count(want[scope]), count(wantLoops[scope]))
			}
		}
	}
}

// TestTextShares: a node's text is its source's bytes, not a copy.
func TestTextShares(t *testing.T) {
	f := parse(t, "torch.cuda.empty_cache()\n")
	call := f.Calls[0].Node
	if got := call.Text(f.Src); got != "torch.cuda.empty_cache()" {
		t.Fatalf("Text = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { textSink = call.Text(f.Src) }); n != 0 {
		t.Errorf("Text allocated %v times a call, want 0", n)
	}
}

// textSink keeps TestTextShares's texts from being optimised away.
var textSink string

// TestPlainChainMatchesParts: on every fixture, each name and attribute chain's dotted name
// read from its text (plainChain) is the one built from its parts.
func TestPlainChainMatchesParts(t *testing.T) {
	seeds, _ := filepath.Glob("../testdata/src/*/*.py")
	seeds = append(seeds, "") // and the cases below
	for _, path := range seeds {
		src := []byte("x = torch.cuda.empty_cache\ny = a . b\nz = (a).b\nw = a.\\\n  b\nv = a.b  # c\nu = None.x\nt = f().g\ns = a[0].b\nr = 'a'.join\nq = a.\n")
		if path != "" {
			var err error
			if src, err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
		f := parse(t, string(src))
		plain := 0
		f.Root.Walk(func(n *Node) bool {
			if n.Kind() != "identifier" && n.Kind() != "attribute" {
				return true
			}
			if got, ok := plainChain(n, f.Src); ok {
				plain++
				if want := dottedParts(n, f.Src, MaxChainCalls); got != want {
					t.Errorf("%s:%d: %q from the text, %q from the parts", path, n.Line(), got, want)
				}
			}
			return true
		})
		if plain == 0 {
			t.Errorf("%s: no chain read from its text", path)
		}
	}
}

// TestNamedSeq: NamedSeq, NamedChild and NamedCount give NamedChildren's nodes, on every node
// of every fixture.
func TestNamedSeq(t *testing.T) {
	seeds, _ := filepath.Glob("../testdata/src/*/*.py")
	for _, path := range seeds {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f := parse(t, string(src))
		f.Root.Walk(func(n *Node) bool {
			want := n.NamedChildren()
			got := slices.Collect(n.NamedSeq())
			if !slices.Equal(got, want) || n.NamedCount() != len(want) {
				t.Fatalf("%s:%d: NamedSeq %d nodes, NamedCount %d, NamedChildren %d", path, n.Line(), len(got), n.NamedCount(), len(want))
			}
			for i, w := range want {
				if n.NamedChild(i) != w {
					t.Fatalf("%s:%d: NamedChild(%d) is not NamedChildren's", path, n.Line(), i)
				}
			}
			if n.NamedChild(len(want)) != nil {
				t.Fatalf("%s:%d: NamedChild past the end is not nil", path, n.Line())
			}
			return true
		})
	}
}

// TestNodesOfKind: Assignments and ExceptClauses are the nodes a walk of the whole tree
// meets of those kinds, in its order, for a parsed tree and for one decoded from its
// encoding, on a file with them in every kind of scope and on every fixture.
func TestNodesOfKind(t *testing.T) {
	src := `x = 1
y += 2
class C:
    z = 3
    def m(self):
        self.a = 4
        try:
            pass
        except ValueError:
            w = lambda: (v := 5)
        except* OSError:
            pass
def f():
    try:
        g()
    except Exception as e:
        for i in range(3):
            k: int = i
            k **= 2
`
	seeds, _ := filepath.Glob("../testdata/src/*/*.py")
	if len(seeds) == 0 {
		t.Fatal("no fixtures")
	}
	texts := map[string]string{"inline.py": src}
	for _, path := range seeds {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		texts[path] = string(b)
	}
	walked := func(f *File, kinds ...string) []*Node {
		var out []*Node
		f.Root.Walk(func(n *Node) bool {
			if slices.Contains(kinds, n.Kind()) {
				out = append(out, n)
			}
			return true
		})
		return out
	}
	total := [2]int{}
	for path, text := range texts {
		parsed := parse(t, text)
		decoded, err := DecodeTree(path, []byte(text), EncodeTree(parsed))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []*File{parsed, decoded} {
			if got, want := f.Assignments(), walked(f, "assignment", "augmented_assignment"); !slices.Equal(got, want) {
				t.Errorf("%s: Assignments %d nodes, a walk %d", path, len(got), len(want))
			}
			if got, want := f.ExceptClauses(), walked(f, "except_clause", "except_group_clause"); !slices.Equal(got, want) {
				t.Errorf("%s: ExceptClauses %d nodes, a walk %d", path, len(got), len(want))
			}
		}
		if path == "inline.py" && (len(parsed.Assignments()) != 7 || len(parsed.ExceptClauses()) != 3) {
			t.Errorf("inline: %d assignments (want 7), %d except clauses (want 3)", len(parsed.Assignments()), len(parsed.ExceptClauses()))
		}
		total[0] += len(parsed.Assignments())
		total[1] += len(parsed.ExceptClauses())
	}
	if total[0] < 100 || total[1] < 10 {
		t.Errorf("the fixtures hold %d assignments and %d except clauses: too few to say anything", total[0], total[1])
	}
}

// TestParamTypes: a parameter's annotation is its dotted text, by name; untyped parameters
// and names no parameter has have none.
func TestParamTypes(t *testing.T) {
	f := parse(t, "def fit(self, trainer: pl.Trainer, n: int = 3, *args, loader=None, opt: Optim = None, **kw):\n    pass\n\n\ndef g(a, b):\n    pass\n")
	fit, g := f.Functions[0], f.Functions[1]
	if want := []string{"self", "trainer", "n", "args", "loader", "opt", "kw"}; !slices.Equal(fit.Params, want) {
		t.Errorf("params %v, want %v", fit.Params, want)
	}
	for name, want := range map[string]string{"trainer": "pl.Trainer", "n": "int", "opt": "Optim", "self": "", "loader": "", "kw": "", "other": ""} {
		if got, ok := fit.ParamType(name); got != want || ok != (want != "") {
			t.Errorf("ParamType(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := g.ParamType("a"); ok || g.ParamTypes != nil {
		t.Errorf("an untyped function's parameter types: %q", g.ParamTypes)
	}
}

// TestGlobalStatements: the global statements anywhere in the file, not the word in a
// comment or a string.
func TestGlobalStatements(t *testing.T) {
	for src, want := range map[string]int{
		"class A:\n    def f(self):\n        global g\n        g = self\n": 1,
		"global x\nx = 1\ndef f():\n    global y, z\n":                     2,
		"# global state\ns = 'global x'\n":                                 0,
	} {
		if got := parse(t, src).GlobalStatements(); len(got) != want || slices.ContainsFunc(got, func(n *Node) bool { return n.Kind() != "global_statement" }) {
			t.Errorf("GlobalStatements of %q: %d nodes, want %d global statements", src, len(got), want)
		}
	}
}
