package pyparse

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"go/token"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// treeCacheInputs are the fixture corpus's Python files and a few texts that exercise what
// the parse does besides copying the tree: syntax errors (missing and invalid), line ends,
// long comment runs, non-ASCII text.
func treeCacheInputs(t *testing.T) map[string][]byte {
	t.Helper()
	in := map[string][]byte{
		"errors.py":   []byte("def f(:\n    x = (1,\n\nclass C(\n"),
		"missing.py":  []byte("for x in y\n    print(x)\n"),
		"crlf.py":     []byte("import torch\r\nfor b in data:\r\n    torch.cuda.empty_cache()\r\n"),
		"lonecr.py":   []byte("x = 1\ry = 2\r"),
		"comments.py": []byte("for b in data:\n" + strings.Repeat("    # note\n", 200) + "    step(b)\n"),
		"unicode.py":  []byte("s = 'héllo wörld'  # ünïcode\ndef f():\n    return \"日本\"\n"),
		"empty.py":    {},
	}
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		src, err := os.ReadFile(p)
		in[p] = src
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestTreeRoundTrip holds a tree decoded from its encoding equal to the parse it came from:
// every node (kind, field, named, offsets, row, index, parent, children), the syntax errors
// and the model built from it. The inputs come in a map's order, so that each is parsed and
// decoded through buffers another file of another size used last.
func TestTreeRoundTrip(t *testing.T) {
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	inputs := treeCacheInputs(t)
	if len(inputs) < 100 {
		t.Fatalf("only %d inputs: the fixture corpus was not found", len(inputs))
	}
	for path, src := range inputs {
		want, err := p.Parse(context.Background(), path, src)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// Through the parser's own buffers, as a run decodes: what the files before left
		// in them (a larger tree, a longer text) must not show through.
		got, err := decodeTree(path, src, EncodeTree(want), p.sc)
		if err != nil {
			t.Fatalf("%s: decode: %v", path, err)
		}
		if a, b := nodeDump(want.Root), nodeDump(got.Root); a != b {
			t.Errorf("%s: decoded tree differs:\nparsed:\n%s\ndecoded:\n%s", path, a, b)
			continue
		}
		if !reflect.DeepEqual(want.Errors, got.Errors) {
			t.Errorf("%s: errors %v, decoded %v", path, want.Errors, got.Errors)
		}
		if a, b := modelDump(want), modelDump(got); a != b {
			t.Errorf("%s: decoded model differs:\nparsed:\n%s\ndecoded:\n%s", path, a, b)
		}
	}
}

// TestTreeDecodeInPlace: a kept tree is taken as it lies in the entry, which is read into a
// buffer of its own; an entry that does not start where a tree's array can lie (a buffer
// cut at any offset) is copied out, and decodes to the same tree all the same, its nodes
// where a Node may lie.
func TestTreeDecodeInPlace(t *testing.T) {
	parsed := parse(t, "import torch\n\nclass T:\n    def step(self, loader):\n        for b in loader:\n            torch.cuda.empty_cache()\n")
	enc := EncodeTree(parsed)
	want := nodeDump(parsed.Root)
	for off := range 8 {
		buf := make([]byte, off+len(enc))
		data := buf[off:]
		copy(data, enc)
		got, err := DecodeTree("t.py", parsed.Src, data)
		if err != nil {
			t.Fatalf("at offset %d: %v", off, err)
		}
		if uintptr(unsafe.Pointer(got.Root))%unsafe.Alignof(Node{}) != 0 {
			t.Errorf("at offset %d: the root lies at %#x, not where a Node may", off, uintptr(unsafe.Pointer(got.Root)))
		}
		inPlace := uintptr(unsafe.Pointer(got.Root)) >= uintptr(unsafe.Pointer(&buf[0])) &&
			uintptr(unsafe.Pointer(got.Root)) < uintptr(unsafe.Pointer(&buf[len(buf)-1]))
		if aligned := uintptr(unsafe.Pointer(&data[0]))%unsafe.Alignof(Node{}) == 0; aligned != inPlace {
			t.Errorf("at offset %d: the tree taken in place %v, the entry aligned %v", off, inPlace, aligned)
		}
		if got := nodeDump(got.Root); got != want {
			t.Errorf("at offset %d: decoded tree differs:\nparsed:\n%s\ndecoded:\n%s", off, want, got)
		}
	}
}

func nodeDump(root *Node) string {
	var b strings.Builder
	index := map[*Node]int{}
	root.Walk(func(n *Node) bool {
		index[n] = len(index)
		parent := -1
		if n.Parent() != nil {
			parent = index[n.Parent()]
		}
		fmt.Fprintf(&b, "%d %s %q %v %d-%d row %d index %d parent %d children %d\n",
			index[n], n.Kind(), n.Field(), n.Named(), n.Start, n.End, n.Line()-1, n.Index(), parent, n.ChildCount())
		return true
	})
	return b.String()
}

func modelDump(f *File) string {
	var b strings.Builder
	// A node by its element in the tree's array and its kind: the same in a parsed tree and
	// in its copy read back.
	node := func(n *Node) string {
		if n == nil {
			return "-"
		}
		return fmt.Sprintf("%s@%d", n.Kind(), f.element(n)/uintptr(nodeSize))
	}
	nodes := func(ns []*Node) string {
		out := make([]string, len(ns))
		for i, n := range ns {
			out[i] = node(n)
		}
		return fmt.Sprintf("%v", out)
	}
	fnName := func(fn *Function) string {
		if fn == nil {
			return "-"
		}
		return fn.QualName + "/" + node(fn.Node)
	}
	for _, imps := range [][]Import{f.Imports, f.StarImports} {
		for _, imp := range imps {
			fmt.Fprintf(&b, "import %q %q %q %d %q at %s\n", imp.Local, imp.Qualified, imp.Module, imp.Level, imp.Name, node(imp.Node))
		}
	}
	for _, imp := range f.Imports {
		q, _ := f.Alias(imp.Local)
		fmt.Fprintf(&b, "alias %s %s\n", imp.Local, q)
	}
	for _, fn := range f.Functions {
		class := "-"
		if fn.Class != nil {
			class = fn.Class.QualName
		}
		fmt.Fprintf(&b, "func %q %q %s body %s class %s parent %s decorators %s params %q (nil %v) types %q (nil %v) async %v line %d\n",
			fn.Name, fn.QualName, node(fn.Node), node(fn.Body), class, fnName(fn.Parent), nodes(fn.Decorators),
			fn.Params, fn.Params == nil, fn.ParamTypes, fn.ParamTypes == nil, fn.Async, fn.Node.Line())
		if f.FunctionOf(fn.Node) != fn {
			fmt.Fprintf(&b, "  FunctionOf(%s) is not it\n", node(fn.Node))
		}
	}
	for _, c := range f.Classes {
		methods := slices.Sorted(maps.Keys(c.Methods))
		for i, m := range methods {
			methods[i] += "=" + fnName(c.Methods[m])
		}
		fmt.Fprintf(&b, "class %q %q %s bases %q decorators %s methods %v\n", c.Name, c.QualName, node(c.Node), c.Bases, nodes(c.Decorators), methods)
		if f.ClassOf(c.Node) != c {
			fmt.Fprintf(&b, "  ClassOf(%s) is not it\n", node(c.Node))
		}
	}
	for _, c := range f.Calls {
		fmt.Fprintf(&b, "call %q %s func %s args %s in %s\n", c.Callee, node(c.Node), node(c.Func), node(c.Args), fnName(c.Function))
		if f.CallOf(c.Node) != c {
			fmt.Fprintf(&b, "  CallOf(%s) is not it\n", node(c.Node))
		}
	}
	for _, c := range f.Entered {
		fmt.Fprintf(&b, "with %q %s func %s args %s in %s\n", c.Callee, node(c.Node), node(c.Func), node(c.Args), fnName(c.Function))
	}
	fmt.Fprintf(&b, "globals %s\nassignments %s\nexcept clauses %s\n", nodes(f.GlobalStatements()), nodes(f.Assignments()), nodes(f.ExceptClauses()))
	return b.String()
}

// TestTreeDecodeRejects holds a cached tree that does not belong to the text, or is cut or
// garbled, to an error (the caller parses instead), never a panic or a wrong tree.
func TestTreeDecodeRejects(t *testing.T) {
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src := []byte("import torch\n\ndef train(loader):\n    for b in loader:\n        torch.cuda.empty_cache()\n")
	f, err := p.Parse(context.Background(), "t.py", src)
	if err != nil {
		t.Fatal(err)
	}
	data := EncodeTree(f)
	if _, err := DecodeTree("t.py", src, data); err != nil {
		t.Fatalf("the tree's own text: %v", err)
	}
	other := append([]byte("# another text\n"), src...)
	if _, err := DecodeTree("t.py", other, data); err == nil {
		t.Error("a tree decoded against another text")
	}
	for cut := 0; cut < len(data); cut++ {
		if _, err := DecodeTree("t.py", src, data[:cut]); err == nil {
			t.Errorf("a tree cut to %d of %d bytes decoded", cut, len(data))
		}
	}
	if _, err := DecodeTree("t.py", src, append(append([]byte(nil), data...), 0)); err == nil {
		t.Error("a tree with a byte after its end decoded")
	}
	// Every byte garbled, with the checksum made to match (TestTreeChecksum holds the
	// checksum itself): the decoder's own checks refuse it, or it is still a tree of this
	// text (a kind for another kind, a start moved inside it).
	for i := len(treeFormat); i < len(data)-4; i++ {
		for _, x := range []byte{0x01, 0x40, 0x80, 0xff} {
			garbled := slices.Clone(data[:len(data)-4])
			garbled[i] ^= x
			entry := binary.BigEndian.AppendUint32(garbled, crc32.Checksum(garbled, treeCRC))
			if g, err := DecodeTree("t.py", src, entry); err == nil {
				if problem := notATree(g); problem != "" {
					t.Errorf("byte %d ^ %#x: %s", i, x, problem)
				}
			}
			// With the entry's own text (a nil src), which the checksum vouches for with
			// the line starts: a tree safe to read, whatever its text says.
			if g, err := DecodeTree("t.py", nil, entry); err == nil {
				if problem := brokenTree(g); problem != "" {
					t.Errorf("byte %d ^ %#x, the entry's own text: %s", i, x, problem)
				}
			}
		}
	}
	// Counts larger than the entry can hold are refused before anything is allocated for
	// them: an entry of 4 MB of zeros claiming 4 M nodes (each takes at least 5 bytes) would
	// otherwise cost some 300 MB before its first node failed to decode.
	head := binary.AppendUvarint(append(binary.AppendUvarint([]byte(treeFormat), uint64(len(src))), src...), 0)
	padded := append(binary.AppendUvarint(append([]byte(nil), head...), 4<<20), make([]byte, 4<<20)...)
	for _, entry := range [][]byte{binary.AppendUvarint(append([]byte(nil), head...), 1<<40), padded} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := DecodeTree("t.py", src, entry)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Error("a node count the entry cannot hold decoded")
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("refusing a node count of a %d-byte entry allocated %d MB", len(entry), grew>>20)
		}
	}
	errs := binary.AppendUvarint(append(binary.AppendUvarint([]byte(treeFormat), uint64(len(src))), src...), 1<<40)
	if _, err := DecodeTree("t.py", src, errs); err == nil {
		t.Error("an error count the entry cannot hold decoded")
	}
	if TreeKey(src) == TreeKey(other) || TreeKey(src) != TreeKey(append([]byte(nil), src...)) {
		t.Error("TreeKey is not a function of the text alone")
	}
}

// TestWalkOrder holds Walk, Find and FindOutside to a recursive pre-order walk, on shallow
// and deep trees.
func TestWalkOrder(t *testing.T) {
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, depth := range []int{1, 47, 48, 49, 120} {
		src := "x = " + strings.Repeat("[1, ", depth) + "2" + strings.Repeat(", 3]", depth) + "\ny = f(a)(b)\n"
		f, err := p.Parse(context.Background(), "deep.py", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var want []*Node
		var rec func(n *Node, skip func(*Node) bool)
		rec = func(n *Node, skip func(*Node) bool) {
			want = append(want, n)
			if n != f.Root && skip != nil && skip(n) {
				return
			}
			for c := range n.Children() {
				rec(c, skip)
			}
		}
		rec(f.Root, nil)
		var got []*Node
		f.Root.Walk(func(n *Node) bool { got = append(got, n); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("depth %d: Walk visited %d nodes, a recursive walk %d, or in another order", depth, len(got), len(want))
		}
		for i, n := range want {
			if found := f.Root.Find(func(m *Node) bool { return m == n }); found != n {
				t.Fatalf("depth %d: Find missed node %d (%s)", depth, i, n.Kind())
			}
		}
		// Skipping every list below the outermost: what is left is what a pruned recursive
		// walk visits, and the last of it is found.
		skip := func(n *Node) bool { return n.Kind() == "list" && n.Parent().Kind() == "list" }
		want = want[:0]
		rec(f.Root, skip)
		last := want[len(want)-1]
		if found := f.Root.FindOutside(func(m *Node) bool { return m == last }, skip); found != last {
			t.Fatalf("depth %d: FindOutside missed the last node a pruned walk visits", depth)
		}
		inner := f.Root.Find(func(m *Node) bool { return m.Kind() == "integer" && m.Text(f.Src) == "2" })
		if f.Root.FindOutside(func(m *Node) bool { return m == inner }, skip) != nil && depth > 1 {
			t.Fatalf("depth %d: FindOutside looked inside a skipped list", depth)
		}
	}
}

// TestNodeHoldsNoPointer: a tree's array of nodes is allocated without pointers, so the
// collector never scans it (most of a run's memory). A field that holds a pointer would
// quietly make every tree scanned again.
func TestNodeHoldsNoPointer(t *testing.T) {
	typ := reflect.TypeFor[Node]()
	for i := range typ.NumField() {
		switch f := typ.Field(i); f.Type.Kind() {
		case reflect.Pointer, reflect.UnsafePointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface, reflect.Func, reflect.Chan, reflect.Array:
			if f.Type.Size() > 0 {
				t.Errorf("Node.%s is a %s: the tree's array would hold pointers", f.Name, f.Type)
			}
		}
	}
}

// TestManyChildren: a node with more children than a node's count field holds (a module of
// 70,000 statements, a list of 70,000 items) keeps its number of children in the tree's
// table; a parse and the decoding of its encoding both read them all, in place, with their
// lines.
func TestManyChildren(t *testing.T) {
	const n = 70000
	var b strings.Builder
	b.WriteString("x = [")
	for i := range n {
		fmt.Fprintf(&b, "%d,\n", i)
	}
	b.WriteString("]\n")
	for i := range n {
		fmt.Fprintf(&b, "y%d = f(%d)\n", i, i)
	}
	items := strings.Repeat("0,", n)
	b.WriteString("z = ([[" + items + "]], [" + items + "])\n")
	src := []byte(b.String())
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	parsed, err := p.Parse(context.Background(), "wide.py", src)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := DecodeTree("wide.py", src, EncodeTree(parsed))
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*File{"parsed": parsed, "decoded": decoded} {
		if got := f.Root.ChildCount(); got != n+2 {
			t.Fatalf("%s: module has %d statements, want %d", name, got, n+2)
		}
		list := f.Root.Find(func(m *Node) bool { return m.Kind() == "list" })
		if got := list.ChildCount(); got != n {
			t.Fatalf("%s: list has %d items, want %d", name, got, n)
		}
		last := list.Child(n - 1)
		if last.Text(src) != fmt.Sprint(n-1) || last.Line() != n || last.Index() != n-1 || last.Parent() != list {
			t.Fatalf("%s: last item %q at line %d, index %d", name, last.Text(src), last.Line(), last.Index())
		}
		stmt := f.Root.Child(n)
		if want := fmt.Sprintf("y%d = f(%d)", n-1, n-1); stmt.Text(src) != want || stmt.Line() != 2*n+1 {
			t.Fatalf("%s: last statement %q at line %d", name, stmt.Text(src), stmt.Line())
		}
		// A wide node placed before another one that comes earlier in the source (the
		// table's counts must be ordered by place, not by source order).
		pair := f.Root.Find(func(m *Node) bool { return m.Kind() == "tuple" })
		if pair == nil || pair.ChildCount() != 2 || pair.Child(1).ChildCount() != n || pair.Child(0).Child(0).ChildCount() != n {
			t.Fatalf("%s: the tuple of two wide lists is not read back", name)
		}
		count := 0
		for range list.Children() {
			count++
		}
		if count != n || len(f.Calls) != n {
			t.Fatalf("%s: %d items walked, %d calls", name, count, len(f.Calls))
		}
	}
}

// TestNodeSize: a node is 20 bytes (the size the memory figures in bench/README.md assume).
func TestNodeSize(t *testing.T) {
	if nodeSize != 20 {
		t.Fatalf("a Node is %d bytes, want 20", nodeSize)
	}
}

// FuzzDecodeTree decodes arbitrary entries against one text: no panic, and an entry that
// decodes is a tree of the text (every node inside it, walked once, its parent's child at
// its index), whatever the entry claimed.
//
//	go test ./pyparse -run '^$' -fuzz FuzzDecodeTree -fuzztime 1m
func FuzzDecodeTree(f *testing.F) {
	src := []byte("import torch\n\nclass T:\n    def step(self, loader):\n        for b in loader:\n            torch.cuda.empty_cache()\n    x = (1,\n")
	p, err := NewParser()
	if err != nil {
		f.Fatal(err)
	}
	parsed, err := p.Parse(context.Background(), "t.py", src)
	p.Close()
	if err != nil {
		f.Fatal(err)
	}
	// The fuzzed bytes are an entry's body: the checksum is added to whatever they are, so
	// that the decoder behind it is what gets fuzzed (TestTreeChecksum holds the checksum).
	good := EncodeTree(parsed)
	body := good[:len(good)-4]
	f.Add(body)
	f.Add(body[:len(body)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		data = binary.BigEndian.AppendUint32(slices.Clip(data), crc32.Checksum(data, treeCRC))
		if got, err := DecodeTree("t.py", src, data); err == nil {
			if problem := notATree(got); problem != "" {
				t.Fatal(problem)
			}
		}
		if got, err := DecodeTree("t.py", nil, data); err == nil {
			if problem := brokenTree(got); problem != "" {
				t.Fatalf("the entry's own text: %s", problem)
			}
		}
	})
}

// notATree says what makes a decoded file no tree of its text ("" when it is one): what
// brokenTree finds, or line starts other than the text's.
func notATree(f *File) string {
	problem := brokenTree(f)
	if lines, _ := f.Root.table(); problem == "" && !slices.Equal(lines, int32s(lineStarts(f.Src))) {
		problem = fmt.Sprintf("line starts %v, the text's are %v", lines, lineStarts(f.Src))
	}
	return problem
}

// brokenTree says what makes a decoded file unsafe to read ("" when nothing does): a node
// outside the text, a node that is not its parent's child at its index, a walk from the
// root that does not meet every node once, or line starts that do not start at 0 and rise
// inside the text. Every node's position is read (Position panics on none).
func brokenTree(f *File) string {
	count := int(-f.Root.up)
	seen := 0
	problem := ""
	f.Root.Walk(func(n *Node) bool {
		seen++
		switch {
		case n.Start < 0 || n.End < n.Start || int(n.End) > len(f.Src):
			problem = fmt.Sprintf("node %s at %d-%d outside the text", n.Kind(), n.Start, n.End)
		case n.Parent() != nil && n.Parent().Child(n.Index()) != n:
			problem = fmt.Sprintf("node %s is not its parent's child %d", n.Kind(), n.Index())
		}
		return problem == "" && seen <= count
	})
	if problem == "" && seen != count {
		problem = fmt.Sprintf("walked %d nodes of %d", seen, count)
	}
	lines, _ := f.Root.table()
	for i, l := range lines {
		if problem == "" && (i == 0 && l != 0 || i > 0 && l <= lines[i-1] || int(l) > len(f.Src)) {
			problem = fmt.Sprintf("line starts %v over a text of %d bytes", lines, len(f.Src))
		}
	}
	if problem == "" {
		f.Root.Walk(func(n *Node) bool {
			f.Position(int(n.Start))
			f.Position(int(n.End))
			return true
		})
	}
	if problem == "" {
		problem = brokenModel(f, count)
	}
	return problem
}

// brokenModel says what makes a decoded file's model unsafe to read ("" when nothing
// does): a node of it that is not one of the tree's count nodes, or a call CallOf does not
// find. Every string of it is read.
func brokenModel(f *File, count int) string {
	problem := ""
	node := func(n *Node) {
		if n == nil || problem != "" {
			return
		}
		if e := f.element(n); e%uintptr(nodeSize) != 0 || e/uintptr(nodeSize) >= uintptr(count) {
			problem = fmt.Sprintf("a node of the model at byte %d of the tree's array of %d nodes", e, count)
		}
	}
	nodes := func(ns []*Node) {
		for _, n := range ns {
			node(n)
		}
	}
	read := func(ss ...string) {
		for _, s := range ss {
			_ = strings.Count(s, "\x00")
		}
	}
	for _, imp := range slices.Concat(f.Imports, f.StarImports) {
		node(imp.Node)
		read(imp.Local, imp.Qualified, imp.Module, imp.Name)
	}
	for _, c := range f.Classes {
		node(c.Node)
		nodes(c.Decorators)
		read(c.Name, c.QualName)
		read(c.Bases...)
	}
	for _, fn := range f.Functions {
		node(fn.Node)
		node(fn.Body)
		nodes(fn.Decorators)
		read(fn.Name, fn.QualName)
		read(fn.Params...)
		read(fn.ParamTypes...)
	}
	for _, c := range slices.Concat(f.Calls, f.Entered) {
		node(c.Node)
		node(c.Func)
		node(c.Args)
		read(c.Callee)
	}
	nodes(f.Assignments())
	nodes(f.ExceptClauses())
	nodes(f.GlobalStatements())
	for _, c := range f.Calls {
		if problem == "" && f.CallOf(c.Node) != c {
			problem = fmt.Sprintf("CallOf does not find the call at element %d", f.element(c.Node)/uintptr(nodeSize))
		}
	}
	return problem
}

func int32s(v []int) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// TestTreeChecksum: a kept tree with any one bit flipped is refused (parsed again), never
// decoded into another tree of the text.
func TestTreeChecksum(t *testing.T) {
	parsed := parse(t, "import torch\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        torch.cuda.empty_cache()\n")
	src := parsed.Src
	good := EncodeTree(parsed)
	if _, err := DecodeTree("t.py", src, good); err != nil {
		t.Fatalf("the tree as encoded: %v", err)
	}
	for i := range good {
		for bit := range 8 {
			bad := slices.Clone(good)
			bad[i] ^= 1 << bit
			if _, err := DecodeTree("t.py", src, bad); err == nil {
				t.Fatalf("bit %d of byte %d (of %d) flipped: the tree decoded", bit, i, len(good))
			}
		}
	}
}

// BenchmarkDecodeTree measures reading a kept tree back (what an edited run does for every
// unchanged file it parses): the example training script repeated, as BenchmarkParse.
// Run: go test ./pyparse -run '^$' -bench DecodeTree
func BenchmarkDecodeTree(b *testing.B) {
	src := benchSource(b)
	p, err := NewParser()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	f, err := p.Parse(context.Background(), "x.py", src)
	if err != nil {
		b.Fatal(err)
	}
	enc := EncodeTree(f)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := decodeTree("x.py", src, enc, p.sc); err != nil {
			b.Fatal(err)
		}
	}
}

// mapTrees is a TreeCache in memory.
type mapTrees struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *mapTrees) Get(key string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.m[key]) // a tree handed out is its file's (TreeCache)
}

func (c *mapTrees) Holds(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[key]
	return ok
}

func (c *mapTrees) Put(key string, tree []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = tree
}

// helperFixtures are the Python files of testdata/src/helpers (several).
func helperFixtures(t *testing.T) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(filepath.Join("..", "testdata", "src", "helpers"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".py") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil || len(paths) < 3 {
		t.Fatalf("fixture files: %d, %v", len(paths), err)
	}
	return paths
}

// TestTextHash: a file whose tree is put into or read from a TreeCache carries its text's
// SHA-256 (the cache records it of each parsed file instead of hashing the text again), and
// its tree's key is that hash's; a parse without a TreeCache leaves it zero.
func TestTextHash(t *testing.T) {
	paths := helperFixtures(t)
	trees := &mapTrees{m: map[string][]byte{}}
	for _, run := range []string{"parsed", "decoded", "no cache"} {
		r := NewResult(paths, os.ReadFile, token.NewFileSet(), 2)
		if run != "no cache" {
			r.Trees = trees
		}
		if err := r.ParseFiles(context.Background(), paths); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int64{"parsed": 0, "decoded": int64(len(paths)), "no cache": 0}[run]; r.Reused.Load() != want {
			t.Fatalf("%s: %d trees reused, want %d", run, r.Reused.Load(), want)
		}
		for _, f := range r.Files {
			want := sha256.Sum256(f.Src)
			if run == "no cache" {
				want = [32]byte{}
			} else if trees.Get(treeKeyOf(f.TextHash)) == nil || TreeKey(f.Src) != treeKeyOf(want) {
				t.Errorf("%s: %s's tree is not kept under its text hash's key", run, f.Path)
			}
			if f.TextHash != want {
				t.Errorf("%s: %s's TextHash %x, want %x", run, f.Path, f.TextHash[:4], want[:4])
			}
		}
	}
}

// TestParseFreshFirst: a parse starts with the files whose tree the cache does not hold (a
// file parsed costs many times what a kept tree costs to decode), then the others, each the
// largest first; so a small file edited is not left for the end of an edited run.
func TestParseFreshFirst(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	write := func(name string, lines int) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x = f(1)\n", lines)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	write("big.py", 2000)
	write("mid.py", 1000)
	write("small.py", 300)
	trees := &mapTrees{m: map[string][]byte{}}
	r := NewResult(paths, os.ReadFile, token.NewFileSet(), 1)
	r.Trees = trees
	if err := r.ParseFiles(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	// small.py edited: its tree is not held now.
	if err := os.WriteFile(paths[2], []byte(strings.Repeat("y = g(2)\n", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	var order []string
	testHookParsing = func(path string) { order = append(order, filepath.Base(path)) }
	defer func() { testHookParsing = nil }()
	r = NewResult(paths, os.ReadFile, token.NewFileSet(), 1)
	r.Trees = trees
	if err := r.ParseFiles(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if want := []string{"small.py", "big.py", "mid.py"}; !slices.Equal(order, want) {
		t.Errorf("parsed in the order %v, want %v", order, want)
	}
}

// TestKnownTexts: a file whose text's hash an earlier run recorded (KnowTexts) is taken
// from its kept tree, text and tree, without being read; the files are those a parse from
// disk gives. A file whose entry is damaged, or whose tree is not kept, is read and parsed.
// A file scanned in one round and parsed in a later one takes its entry from the cache once
// (a tree handed out twice is a copy: TreeCache).
func TestKnownTexts(t *testing.T) {
	paths := helperFixtures(t)
	trees := &countingTrees{mapTrees: mapTrees{m: map[string][]byte{}}, gets: map[string]int{}}
	first := NewResult(paths, os.ReadFile, token.NewFileSet(), 2)
	first.Trees = trees
	if err := first.ParseFiles(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	hashes := map[string][32]byte{}
	for _, f := range first.Files {
		hashes[f.Path] = f.TextHash
	}
	damaged, unkept := paths[0], paths[1]
	key := treeKeyOf(hashes[damaged])
	trees.m[key] = slices.Clone(trees.m[key])
	trees.m[key][len(treeFormat)+3] ^= 1 // a byte of the text
	delete(trees.m, treeKeyOf(hashes[unkept]))

	var readMu sync.Mutex
	read := map[string]int{}
	counted := func(path string) ([]byte, error) {
		readMu.Lock()
		read[path]++
		readMu.Unlock()
		return os.ReadFile(path)
	}
	clear(trees.gets)
	r := NewResult(paths, counted, token.NewFileSet(), 2)
	r.Trees = trees
	r.KnowTexts(func(path string) ([32]byte, bool) {
		h, ok := hashes[path]
		return h, ok
	})
	// A round whose needle no file mentions, then every file.
	if err := r.ParseMatching(context.Background(), []string{"no_file_names_this"}); err != nil {
		t.Fatal(err)
	}
	if err := r.ParseFiles(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(paths) - 2); r.Reused.Load() != want {
		t.Errorf("%d trees reused, want %d", r.Reused.Load(), want)
	}
	for _, p := range paths {
		if kept := p != damaged && p != unkept; kept != (read[p] == 0) {
			t.Errorf("%s read %d times (its text and tree kept: %v)", p, read[p], kept)
		} else if n := trees.gets[treeKeyOf(hashes[p])]; kept && n != 1 {
			t.Errorf("%s's tree taken from the cache %d times", p, n)
		}
		got, want := r.ByPath[p], first.ByPath[p]
		if got == nil || string(got.Src) != string(want.Src) || got.TextHash != want.TextHash || !sameModel(got, want) {
			t.Errorf("%s: not the file a parse gives", p)
		}
	}
}

// countingTrees counts the Gets of each key.
type countingTrees struct {
	mapTrees
	gets map[string]int
}

func (c *countingTrees) Get(key string) []byte {
	c.mu.Lock()
	c.gets[key]++
	c.mu.Unlock()
	return c.mapTrees.Get(key)
}

// sameModel reports whether two files have the same calls, functions, classes and imports.
func sameModel(a, b *File) bool {
	callees := func(f *File) (out []string) {
		for _, c := range f.Calls {
			out = append(out, fmt.Sprintf("%s@%d", c.Callee, c.Node.Start))
		}
		for _, fn := range f.Functions {
			out = append(out, "def "+fn.QualName)
		}
		for _, c := range f.Classes {
			out = append(out, "class "+c.QualName)
		}
		for _, im := range f.Imports {
			out = append(out, "import "+im.Local+"="+im.Qualified)
		}
		return out
	}
	return slices.Equal(callees(a), callees(b)) && len(a.Errors) == len(b.Errors)
}

// TestModelRejects: a kept model that names what its tree does not hold, or that readers
// cannot trust, is refused with its tree (the checksum matching: written so), whatever
// decoding it would otherwise give.
func TestModelRejects(t *testing.T) {
	src := []byte("import torch\n\nclass T:\n    def step(self, loader):\n        for b in loader:\n            torch.cuda.empty_cache()\n            self.log(b)\n")
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for name, tamper := range map[string]func(f *File){
		"an import's statement is the tree's table": func(f *File) {
			f.Imports[0].Node = &f.Root.array()[-f.Root.up]
		},
		"a with statement's item past the tree": func(f *File) {
			f.Entered = []*Call{{Node: &f.Root.array()[len(f.Root.array())-1]}}
		},
		"a call's node is no call":    func(f *File) { f.Calls[0].Node = f.Functions[0].Node },
		"a function's node is no def": func(f *File) { f.Functions[0].Node = f.Classes[0].Node },
		"a class's node is no class":  func(f *File) { f.Classes[0].Node = f.Functions[0].Node },
		"calls out of their order":    func(f *File) { f.callOrder[0], f.callOrder[1] = f.callOrder[1], f.callOrder[0] },
		"a call twice in the order":   func(f *File) { f.callOrder[1] = f.callOrder[0] },
		"types for fewer parameters":  func(f *File) { f.Functions[0].ParamTypes = []string{""} },
	} {
		f, err := p.Parse(context.Background(), "t.py", src)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Calls) < 2 || len(f.Functions) != 1 || len(f.Classes) != 1 {
			t.Fatalf("the text's model: %d calls, %d functions, %d classes", len(f.Calls), len(f.Functions), len(f.Classes))
		}
		if _, err := DecodeTree("t.py", src, EncodeTree(f)); err != nil {
			t.Fatalf("%s: the model as parsed: %v", name, err)
		}
		tamper(f)
		for _, text := range [][]byte{src, nil} {
			if _, err := DecodeTree("t.py", text, EncodeTree(f)); err == nil {
				t.Errorf("%s: decoded (text given: %v)", name, text != nil)
			}
		}
	}
}

// TestChildByField holds ChildByField and ChildrenByField, which look fields up by index, to
// a search of the children by field name, for every node of the fixture corpus and every
// field name of the grammar, none (""), and a name the grammar lacks.
func TestChildByField(t *testing.T) {
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	names := append(slices.Clone(fieldNames), "no_such_field")
	found := 0
	for path, src := range treeCacheInputs(t) {
		f, err := p.Parse(context.Background(), path, src)
		if err != nil {
			t.Fatal(err)
		}
		f.Root.Walk(func(n *Node) bool {
			for _, name := range names {
				var want []*Node
				for c := range n.Children() {
					if c.Field() == name {
						want = append(want, c)
					}
				}
				first := (*Node)(nil)
				if len(want) > 0 {
					first = want[0]
					found++
				}
				if got := n.ChildByField(name); got != first {
					t.Fatalf("%s: a %s's child %q: got %v, want %v", path, n.Kind(), name, got, first)
				}
				if got := n.ChildrenByField(name); !slices.Equal(got, want) {
					t.Fatalf("%s: a %s's children %q: got %d, want %d", path, n.Kind(), name, len(got), len(want))
				}
			}
			return true
		})
	}
	if found < 1000 {
		t.Errorf("only %d fields found: the corpus was not read", found)
	}
}
