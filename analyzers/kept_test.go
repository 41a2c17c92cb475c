package analyzers

import (
	"cmp"
	"context"
	"fmt"
	"go/token"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/pyparse"
)

// TestInterfaceDigest: a file's interface digest changes with what another file's
// resolution can read of it, and only with that.
func TestInterfaceDigest(t *testing.T) {
	const base = "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        g(y)\n        return y\n\n\ndef h():\n    pass\n"
	cases := []struct {
		what, text string
		same       bool
	}{
		{"unchanged", base, true},
		{"a call statement added", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        g(y)\n        torch.cuda.empty_cache()\n        return y\n\n\ndef h():\n    pass\n", true},
		{"a call statement dropped", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        return y\n\n\ndef h():\n    pass\n", true},
		{"a call replaced by pass", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        pass\n        return y\n\n\ndef h():\n    g()\n", true},
		{"an awaited call added", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        g(y)\n        await k()\n        return y\n\n\ndef h():\n    pass\n", true},
		{"the docstring and a comment", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Other.\"\"\"\n        # note\n        y = x\n        g(y)\n        return y\n\n\ndef h():\n    pass\n", true},
		{"lines moved", "import torch\n\n\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n\n        y = x\n        g(y)\n        return y\n\n\ndef h():\n    pass\n", true},
		{"an assignment changed", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = g\n        g(y)\n        return y\n\n\ndef h():\n    pass\n", false},
		{"a return changed", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        g(y)\n        return g\n\n\ndef h():\n    pass\n", false},
		{"a call statement binding a name", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        g(z := y)\n        return y\n\n\ndef h():\n    pass\n", false},
		{"a call statement with a lambda", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        g(lambda: y)\n        return y\n\n\ndef h():\n    pass\n", false},
		{"a call statement at module level", base + "h()\n", false},
		{"a call statement in a class body", "import torch\n\n\nclass A:\n    register()\n\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        g(y)\n        return y\n\n\ndef h():\n    pass\n", false},
		{"a function added", base + "\n\ndef k():\n    pass\n", false},
		{"a parameter added", "import torch\n\n\nclass A:\n    def f(self, x, z=None):\n        \"\"\"Doc.\"\"\"\n        y = x\n        g(y)\n        return y\n\n\ndef h():\n    pass\n", false},
		{"an import in a function", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        from m import g\n        y = x\n        g(y)\n        return y\n\n\ndef h():\n    pass\n", false},
		{"an attribute assigned", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        y = x\n        self.g = g\n        g(y)\n        return y\n\n\ndef h():\n    pass\n", false},
		{"a statement nested one level deeper", "import torch\n\n\nclass A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        if x:\n            y = x\n        g(y)\n        return y\n\n\ndef h():\n    pass\n", false},
	}
	p, err := pyparse.NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	digest := func(text string) [32]byte {
		f, err := p.Parse(context.Background(), "m.py", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := interfaceOf(f)
		return d
	}
	want := digest(base)
	for _, c := range cases {
		if got := digest(c.text) == want; got != c.same {
			t.Errorf("%s: same digest %v, want %v", c.what, got, c.same)
		}
	}
}

// TestAlignCalls: the kept calls line up with the calls of the changed file that have their
// print, in order, those before and after the edit one to one.
func TestAlignCalls(t *testing.T) {
	cases := []struct {
		old, now []uint64
		want     []int
	}{
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, []int{0, 1, 2}},
		{[]uint64{1, 2, 3}, []uint64{1, 9, 2, 3}, []int{0, 2, 3}},
		{[]uint64{1, 2, 3}, []uint64{1, 3}, []int{0, -1, 1}},
		{[]uint64{5, 5, 7}, []uint64{5, 5, 5, 7}, []int{0, 1, 3}},
		{[]uint64{1, 4, 2, 4, 3}, []uint64{1, 2, 4, 4, 3}, []int{0, 2, -1, 3, 4}},
		{[]uint64{1, 2}, []uint64{2, 1}, []int{1, -1}},
		{nil, []uint64{1}, []int{}},
		{[]uint64{1}, nil, []int{-1}},
	}
	for _, c := range cases {
		if got := alignCalls(c.old, c.now); !slices.Equal(got, c.want) {
			t.Errorf("alignCalls(%v, %v) = %v, want %v", c.old, c.now, got, c.want)
		}
	}
}

// TestCallPrints: a call's print tells calls of the same text apart by the bindings before
// them, and a changed file's calls line up with the kept calls in the same context only.
func TestCallPrints(t *testing.T) {
	p, err := pyparse.NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	prints := func(text string) []uint64 {
		f, err := p.Parse(context.Background(), "m.py", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		_, out := interfaceOf(f)
		return out
	}
	old := prints("def f(y):\n    g(y)\n    y = h\n    g(y)\n    g(y)\n\n\ndef k(y):\n    g(y)\n")
	// The first g(y) dropped, one added before k's: the kept g(y) after the assignment are
	// the changed file's first two, k's is its last; the dropped one is none of them.
	now := prints("def f(y):\n    y = h\n    g(y)\n    g(y)\n\n\ndef k(y):\n    print(y)\n    g(y)\n")
	if got, want := alignCalls(old, now), []int{-1, 0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("aligned %v, want %v", got, want)
	}
}

// TestKeptRoundTrip: over the fixture projects, a graph built from a kept graph's slots is
// the graph it was kept from, with its helpers; a kept graph cut short does not decode.
func TestKeptRoundTrip(t *testing.T) {
	crossReads := 0
	defer func() {
		if crossReads == 0 {
			t.Error("no call of the fixtures read anything")
		}
	}()
	for dir, files := range fixtureProjects(t) {
		res := pyparse.NewResult(files, os.ReadFile, token.NewFileSet(), 1)
		if err := res.ParseFiles(context.Background(), files); err != nil {
			t.Fatal(err)
		}
		proj := newProject(dir, files, res)
		proj.reindex()
		memo := newGraphMemo()
		g := buildGraph(proj, res, nil, memo)
		data := slices.Concat(encodeKept(g, memo, nil)...)
		kg, err := decodeKept(data)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if !sameHelpers(g, kg.helpers) {
			t.Errorf("%s: other helpers kept", dir)
		}
		if got, want := slices.Sorted(maps.Keys(kg.subclasses)), subclassTable(proj); !slices.Equal(got, want) {
			t.Errorf("%s: subclasses kept %q, want %q", dir, got, want)
		}
		again := newGraphMemo()
		for _, f := range res.Files {
			kf, err := kg.file(f.Path)
			if err != nil || kf == nil {
				t.Fatalf("%s: %s not kept (%v)", dir, f.Path, err)
			}
			// What the file's calls read, its function names and fields, as built.
			var names []string
			for _, fn := range f.Functions {
				names = append(names, fn.Name)
			}
			fg := memo.files[f]
			reads := slices.Collect(maps.Keys(fg.cross))
			if fg.untrusted {
				reads = append(reads, crossRead{kind: probeUnknown})
			}
			slices.SortFunc(reads, func(a, b crossRead) int { return cmp.Or(cmp.Compare(a.kind, b.kind), strings.Compare(a.name, b.name)) })
			if !slices.Equal(kf.cross, reads) || !slices.Equal(kf.funcs, names) || !slices.Equal(kf.fields, declaredFields(f)) {
				t.Errorf("%s: %s kept reads %v, functions %q, fields %q; want %v, %q, %q", dir, f.Path, kf.cross, kf.funcs, kf.fields, reads, names, declaredFields(f))
			}
			crossReads += len(kf.cross)
			if digest, prints := interfaceOf(f); kf.digest != digest || !slices.Equal(kf.callPrints(), prints) || kf.calls != len(f.Calls) {
				t.Errorf("%s: %s kept another interface or other call prints (%d calls kept of %d)", dir, f.Path, kf.calls, len(f.Calls))
			}
			calls, entered, ok := kg.slots(f, kf, res, func(i int) int { return i })
			if !ok {
				t.Fatalf("%s: %s: an edge names no function", dir, f.Path)
			}
			again.calls[f], again.entered[f] = calls, entered
		}
		if got, want := orderedGraphText(buildGraph(proj, res, nil, again)), orderedGraphText(g); got != want {
			t.Errorf("%s: from the kept graph\n%s\nas built\n%s", dir, got, want)
		}
		if got, want := slotsText(res, again), slotsText(res, memo); got != want {
			t.Errorf("%s: slots from the kept graph\n%s\nas built\n%s", dir, got, want)
		}
		for _, n := range []int{0, len(keptFormat), len(data) / 2, len(data) - 1} {
			if _, err := decodeKept(data[:n]); err == nil {
				t.Errorf("%s: the kept graph's first %d of %d bytes decode", dir, n, len(data))
			}
		}
	}
}

// slotsText lists what each call of the parsed files contributes in memo.
func slotsText(res *pyparse.Result, memo *graphMemo) string {
	var b strings.Builder
	for _, f := range res.Files {
		for which, slots := range [2][]resolvedCall{memo.calls[f], memo.entered[f]} {
			for i, r := range slots {
				for _, t := range r.targets() {
					fmt.Fprintf(&b, "%s %d/%d target %s %q %v\n", f.Path, which, i, t.Spelling, t.Library, t.Call == [2][]*pyparse.Call{f.Calls, f.Entered}[which][i])
				}
				for _, e := range r.edges() {
					fmt.Fprintf(&b, "%s %d/%d edge %s %s %v %v\n", f.Path, which, i, e.CalleeFile.Path, e.Callee.QualName, e.Dispatch, e.Call == [2][]*pyparse.Call{f.Calls, f.Entered}[which][i])
				}
			}
		}
	}
	return b.String()
}

// BenchmarkInterfaceOf reads the interface of the example training script repeated 200
// times, as a cache's first run does for every parsed file.
func BenchmarkInterfaceOf(b *testing.B) {
	data, err := os.ReadFile("../examples/train.py")
	if err != nil {
		b.Fatal(err)
	}
	p, err := pyparse.NewParser()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	f, err := p.Parse(context.Background(), "train.py", []byte(strings.Repeat(string(data), 200)))
	if err != nil {
		b.Fatal(err)
	}
	var sc interfaceScratch
	b.SetBytes(int64(len(f.Src)))
	for b.Loop() {
		sc.of(f)
	}
}
