package pyparse

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary bytes to the parser and checks what every analyzer relies on:
// no panic, a tree whose nodes lie inside the source and inside their parents in order,
// parent, index and sibling links that agree, rows that agree with Position, a model whose calls,
// functions and classes point into the tree, and a prefilter that finds every name the tree
// holds and only whole tokens (its Bloom signature never forgets one).
//
//	go test ./pyparse -run '^$' -fuzz FuzzParse -fuzztime 10m
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/src/*/*.py")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("for x in y:\n    tensor = (\n    torch.cuda.empty_cache()\n"))
	f.Add([]byte("def f():\r    torch.cuda.empty_cache()\r"))
	f.Add([]byte("a.b\n# accelerator clear\naccelerator.clear()"))
	// Issue 17's shapes, small: the long versions cost superlinear time once.
	loop := "import torch\nfor b in loader:\n"
	f.Add([]byte(loop + "    x = (\n" + strings.Repeat("    torch.cuda.empty_cache()\n", 200)))
	f.Add([]byte(loop + "    doc = \"\"\"\n" + strings.Repeat("    opt.step()\n", 200)))
	f.Add([]byte(loop + strings.Repeat("    # c\n\n", 2*commentRunKept) + "    torch.cuda.empty_cache()\n"))
	f.Add([]byte(loop + "    f" + strings.Repeat("()", 3*MaxChainCalls) + "\n"))
	f.Add([]byte(strings.ReplaceAll(loop+"    torch.cuda.empty_cache()\n", "\n", "\r")))
	p, err := NewParser()
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	p.Timeout = time.Minute
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := p.Parse(context.Background(), "fuzz.py", src)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		seen := checkTree(t, file)
		checkModel(t, file, seen)
		checkMentions(t, file)
	})
}

func checkTree(t *testing.T, f *File) map[*Node]bool {
	t.Helper()
	if f.Root == nil {
		t.Fatal("no root")
	}
	seen := map[*Node]bool{}
	var visit func(n *Node)
	visit = func(n *Node) {
		seen[n] = true
		if n.Start < 0 || n.Start > n.End || int(n.End) > len(f.Src) {
			t.Fatalf("%s [%d,%d) outside the source (%d bytes)", n.Kind(), n.Start, n.End, len(f.Src))
		}
		if line, _ := f.Position(int(n.Start)); line != n.Line() {
			t.Fatalf("%s at byte %d: row says line %d, Position says %d", n.Kind(), n.Start, n.Line(), line)
		}
		prev := n.Start
		kids := slices.Collect(n.Children())
		if len(kids) != n.ChildCount() {
			t.Fatalf("%s: Children yields %d, ChildCount says %d", n.Kind(), len(kids), n.ChildCount())
		}
		for i, c := range kids {
			if c.Parent() != n || c.Index() != i || n.Child(i) != c {
				t.Fatalf("%s child %d: parent, index or Child link broken", n.Kind(), i)
			}
			if !slices.Equal(slices.Collect(c.Following()), kids[i+1:]) {
				t.Fatalf("%s child %d: Following is not the children after it", n.Kind(), i)
			}
			var before, after *Node
			for _, k := range kids[:i] {
				if k.Named() {
					before = k
				}
			}
			if j := slices.IndexFunc(kids[i+1:], func(k *Node) bool { return k.Named() }); j >= 0 {
				after = kids[i+1+j]
			}
			if c.PrevNamedSibling() != before || c.NextNamedSibling() != after {
				t.Fatalf("%s child %d: wrong named sibling", n.Kind(), i)
			}
			if c.Start < prev || c.End > n.End {
				t.Fatalf("%s child %s [%d,%d) out of order or outside [%d,%d)", n.Kind(), c.Kind(), c.Start, c.End, prev, n.End)
			}
			prev = c.Start
			visit(c)
		}
	}
	if f.Root.Parent() != nil || f.Root.Index() != 0 || f.Root.NextNamedSibling() != nil || f.Root.PrevNamedSibling() != nil {
		t.Fatal("the root has a parent or siblings")
	}
	visit(f.Root)
	return seen
}

func checkModel(t *testing.T, f *File, seen map[*Node]bool) {
	t.Helper()
	for _, c := range f.Calls {
		if !seen[c.Node] || c.Node.Kind() != "call" || f.CallOf(c.Node) != c {
			t.Fatalf("call %q: node not in the tree or not indexed", c.Callee)
		}
		if c.Func != nil && !c.Node.Contains(c.Func) {
			t.Fatalf("call %q: callee outside the call", c.Callee)
		}
		if c.Function != nil && !c.Function.Node.Contains(c.Node) {
			t.Fatalf("call %q: enclosing function %s does not contain it", c.Callee, c.Function.QualName)
		}
	}
	for _, fn := range f.Functions {
		if !seen[fn.Node] || f.FunctionOf(fn.Node) != fn {
			t.Fatalf("function %s: node not in the tree or not indexed", fn.QualName)
		}
		if fn.Parent != nil && !fn.Parent.Node.Contains(fn.Node) {
			t.Fatalf("function %s: parent %s does not contain it", fn.QualName, fn.Parent.QualName)
		}
	}
	for _, cl := range f.Classes {
		if !seen[cl.Node] || f.ClassOf(cl.Node) != cl {
			t.Fatalf("class %s: node not in the tree or not indexed", cl.QualName)
		}
	}
	for _, e := range f.Errors {
		if e.Line < 1 || e.Col < 1 {
			t.Fatalf("syntax error at %d:%d", e.Line, e.Col)
		}
	}
}

// checkMentions compares the prefilter with a plain split of the text into identifier runs.
// checkMentions holds the prefilter to the tree: every identifier the parser found, and every
// string that is one identifier, is a mention (in a file that parses cleanly: in a broken
// one the parser's recovery and the lexer may draw a string's end apart); a name the lexer
// finds is a whole token of the text; the signature keeps every name found.
func checkMentions(t *testing.T, f *File) {
	t.Helper()
	src := f.Src
	has := map[string]bool{}
	for i := 0; i < len(src); {
		j := i
		for j < len(src) && identChar[src[j]] {
			j++
		}
		if j > i {
			has[string(src[i:j])] = true
			i = j
		} else {
			i++
		}
	}
	// Names the tree holds, one it may not, and a pair of two of them.
	var names []string
	seen := map[string]bool{}
	f.Root.Walk(func(n *Node) bool {
		name := ""
		switch n.Kind() {
		case "identifier":
			name = n.Text(src)
		case "string_content":
			if s := n.Text(src); isIdentifier([]byte(s)) && n.Parent().ChildCount() == 1 {
				name = s
			}
		}
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		return true
	})
	clean := len(f.Errors) == 0
	var sig signature
	newIdentSet(nil).scan(src, &sig, false)
	for _, n := range append(names, "empty_cache") {
		s := newIdentSet([]string{n})
		var sig2 signature
		got := s.scan(src, &sig2, false)
		if clean && seen[n] && !got {
			t.Fatalf("%q is in the tree but the lexer finds no mention", n)
		}
		if got && !has[n] {
			t.Fatalf("scan(%q) = true, but the text has no such token", n)
		}
		if got && !s.mayMention(&sig) {
			t.Fatalf("signature forgot %q", n)
		}
		if alone := s.scan(src, nil, false); alone != got {
			t.Fatalf("scan(%q) = %v without a signature, %v with one", n, alone, got)
		}
		// A file that mentions a name is parsed and its signature dropped (scanned to the
		// first mention only); one that does not keeps the whole signature.
		if !got && (!slices.Equal(sig2.all, sig.all) || !slices.Equal(sig2.imp, sig.imp) || sig2.star != sig.star) {
			t.Fatal("signature of a file that mentions none of the names depends on the names")
		}
	}
	if clean && len(names) >= 2 {
		a, b := names[0], names[len(names)-1]
		s := newIdentSet([]string{a + "." + b})
		var sig2 signature
		if !s.scan(src, &sig2, false) || !s.mayMention(&sig) {
			t.Fatalf("pair %s.%s not found though both parts are in the tree", a, b)
		}
	}
}
