package analyzers

import (
	"context"
	"encoding/binary"
	"fmt"
	"go/token"
	"hash/maphash"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cachelint/cachelint/pyparse"
)

// TestProbesHoldWhenNothingChanged: a round that parses nothing new re-resolves no call.
// Each fixture project is parsed whole and its graph built, then the project is re-indexed
// as a later round does; every call's probes must still hold. A table rebuilt in another
// order (subclasses listed in a map's order) or an answer that is not a function of the
// parsed files fails it.
func TestProbesHoldWhenNothingChanged(t *testing.T) {
	projects := fixtureProjects(t)
	for dir, files := range projects {
		res := pyparse.NewResult(files, os.ReadFile, token.NewFileSet(), 1)
		if err := res.ParseMatching(context.Background(), []string{""}); err != nil {
			t.Fatal(err)
		}
		proj := newProject(dir, files, res)
		proj.reindex()
		memo := newGraphMemo()
		buildGraph(proj, res, nil, memo)
		for range 5 {
			proj.reindex()
			for _, m := range []callMemo{memo.calls, memo.entered} {
				for f, slots := range m {
					for i, r := range slots {
						if !proj.holds(r.probes) {
							t.Errorf("%s: call %d of %s re-resolved although no file was parsed", dir, i, f.Path)
						}
					}
				}
			}
		}
	}
}

// fixtureProjects are the Python files of each fixture project under testdata/src.
func fixtureProjects(t *testing.T) map[string][]string {
	projects := map[string][]string{}
	root := filepath.Join("..", "testdata", "src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		dir := filepath.Join(root, strings.SplitN(filepath.ToSlash(rel), "/", 2)[0])
		projects[dir] = append(projects[dir], p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(projects) < 10 {
		t.Fatalf("found %d fixture projects under %s", len(projects), root)
	}
	return projects
}

// TestGraphAcrossRounds: a call graph built round after round, a few files parsed in each
// (a round keeps what the files whose calls read no changed answer contributed, and the
// edges by callee of the others), is the graph built once over the same files, in the same
// order. Each fixture project is parsed a file per round,
// in path order and in reverse, so that definitions arrive both before and after the
// calls that reach them.
func TestGraphAcrossRounds(t *testing.T) {
	for _, jobs := range []int{1, 4} {
		t.Run(fmt.Sprintf("jobs=%d", jobs), func(t *testing.T) { graphAcrossRounds(t, jobs) })
	}
}

// graphAcrossRounds is TestGraphAcrossRounds with the rounds' calls resolved by jobs
// goroutines (in shares of two calls when jobs > 1).
func graphAcrossRounds(t *testing.T, jobs int) {
	if jobs > 1 {
		smallShares(t)
	}
	for dir, files := range fixtureProjects(t) {
		for _, order := range [][]string{files, reversed(files)} {
			if got, want := roundByRound(t, dir, files, order, jobs); got != want {
				t.Errorf("%s: built round by round\n%s\nbuilt once\n%s", dir, got, want)
			}
		}
	}
}

// roundByRound parses the files one a round in order, building the graph after each with
// one memo resolving on jobs goroutines, and returns that graph's text and the text of the
// graph built once over them all.
func roundByRound(t *testing.T, dir string, files, order []string, jobs int) (rounds, once string) {
	t.Helper()
	res := pyparse.NewResult(files, os.ReadFile, token.NewFileSet(), 1)
	proj := newProject(dir, files, res)
	memo := newGraphMemo()
	memo.jobs = jobs
	var g *CallGraph
	for _, f := range order {
		if err := res.ParseFiles(context.Background(), []string{f}); err != nil {
			t.Fatal(err)
		}
		proj.reindex()
		g = buildGraph(proj, res, nil, memo)
	}
	proj.reindex()
	return orderedGraphText(g), orderedGraphText(buildGraph(proj, res, nil, newGraphMemo()))
}

// smallShares makes every file, every class base and every helper's call worth a
// goroutine of its own (reindex, readOwnLoops) and cuts a file's calls into shares of two
// (graphsOf), for the test t.
func smallShares(t *testing.T) {
	text, bases, calls, share, loops := bytesPerJob, basesPerJob, callsPerJob, callsPerShare, ownLoopsPerJob
	t.Cleanup(func() {
		bytesPerJob, basesPerJob, callsPerJob, callsPerShare, ownLoopsPerJob = text, bases, calls, share, loops
	})
	bytesPerJob, basesPerJob, callsPerJob, callsPerShare, ownLoopsPerJob = 1, 1, 1, 2, 1
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// TestGraphInParallel: a graph whose calls are resolved by several goroutines, each with its
// own caches, a file's calls in shares of two (graphsOf), and whose files' bindings were read
// by several (reindex), is the graph one resolves, edges in the same order, with the same
// needles for the next round (the loops around helpers' calls read by several:
// readOwnLoops) and the same modules wanted next. Run with -race, it also holds the goroutines to what they share: the
// round's tables, read only, and the probe table.
func TestGraphInParallel(t *testing.T) {
	smallShares(t)
	for dir, files := range fixtureProjects(t) {
		var graphs, wants []string
		for _, jobs := range []int{1, 4} {
			res := pyparse.NewResult(files, os.ReadFile, token.NewFileSet(), 1)
			if err := res.ParseMatching(context.Background(), []string{"empty_cache", "cuda", "torch"}); err != nil {
				t.Fatal(err)
			}
			proj := newProject(dir, files, res)
			proj.jobs = jobs
			proj.reindex()
			memo := newGraphMemo()
			memo.jobs = jobs
			g := buildGraph(proj, res, nil, memo)
			needles := map[string]bool{}
			proj.graphNeedles(g, func(n string) { needles[n] = true })
			graphs = append(graphs, orderedGraphText(g)+"needles "+strings.Join(slices.Sorted(maps.Keys(needles)), " "))
			wants = append(wants, strings.Join(slices.Sorted(maps.Keys(proj.want)), "\n"))
		}
		if graphs[0] != graphs[1] {
			t.Errorf("%s: resolved by one goroutine\n%s\nby four\n%s", dir, graphs[0], graphs[1])
		}
		if wants[0] != wants[1] {
			t.Errorf("%s: wanted by one goroutine\n%s\nby four\n%s", dir, wants[0], wants[1])
		}
	}
}

// orderedGraphText is graphText with the targets, and each helper's callers and inner
// calls, in the graph's own order.
func orderedGraphText(g *CallGraph) string {
	var lines []string
	for _, t := range g.Targets {
		lines = append(lines, fmt.Sprintf("target %s:%d %s", t.File.Path, t.Call.Node.Start, t.Spelling))
	}
	fns := slices.SortedFunc(maps.Keys(g.Helpers), func(a, b *pyparse.Function) int {
		return strings.Compare(g.FileOf[a].Path+" "+a.QualName+fmt.Sprint(a.Node.Start), g.FileOf[b].Path+" "+b.QualName+fmt.Sprint(b.Node.Start))
	})
	for _, fn := range fns {
		for _, e := range g.Callers[fn] {
			lines = append(lines, fmt.Sprintf("caller of %s.%s: %s:%d", g.FileOf[fn].Path, fn.QualName, e.File.Path, e.Call.Node.Start))
		}
		for _, e := range g.Inner[fn] {
			lines = append(lines, fmt.Sprintf("inner of %s.%s: %s:%d", g.FileOf[fn].Path, fn.QualName, e.File.Path, e.Call.Node.Start))
		}
	}
	return strings.Join(lines, "\n")
}

// TestProbeTable: a call's probes are kept as the number of their set, each probe once and
// in any order; a probe that recorded another answer, or another round's subclass list, is
// another probe; what a number stands for stays as it was while more is interned (across
// the table's chunks). Two goroutines' caches over one table number alike, and one reads
// a set another numbered.
func TestProbeTable(t *testing.T) {
	tb := newProbeTable()
	p, other := &project{table: tb, probeCache: newProbeCache()}, &project{table: tb, probeCache: newProbeCache()}
	a := probe{kind: probeFuncName, name: "cleanup", found: true}
	b := probe{kind: probeParsed, name: "/p/utils.py"}
	if n := p.intern(nil); n != 0 {
		t.Fatalf("no probes: set %d, want 0", n)
	}
	ab := p.intern([]probe{a, b, a})
	if ab == 0 || p.intern([]probe{b, a}) != ab || other.intern([]probe{b, a, b}) != ab {
		t.Fatalf("the same probes in another order, repeated or through another cache got another set")
	}
	if got := len(tb.set(ab)); got != 2 {
		t.Fatalf("set %d holds %d probes, want 2", ab, got)
	}
	notFound := a
	notFound.found = false
	if p.intern([]probe{notFound, b}) == ab {
		t.Fatalf("a probe that found nothing shares a set with one that found the function")
	}
	cls := &pyparse.Class{Name: "Base"}
	round1 := []classRef{{cls: &pyparse.Class{Name: "Sub"}}}
	round2 := slices.Clone(round1)
	s1 := p.intern([]probe{{kind: probeSubclasses, cls: cls, subs: round1}})
	s2 := p.intern([]probe{{kind: probeSubclasses, cls: cls, subs: round2}})
	if s1 == s2 {
		t.Fatalf("two rounds' subclass lists share a set")
	}
	if got := other.table.set(s2); len(got) != 1 || other.table.probe(got[0]).cls != cls {
		t.Fatalf("another cache reads set %d as %v", s2, got)
	}
	// A cache keeps hashes: one that a probe or a set shares with another (planted here) must
	// not give the other's number.
	third := &project{table: tb, probeCache: newProbeCache()}
	third.probeCache.numbers[maphash.Comparable(probeSeed, entryOf(&a))] = tb.numberOf(&b, entryOf(&b), maphash.Comparable(probeSeed, entryOf(&b)))
	third.probeCache.sets[maphash.Bytes(probeSeed, binary.LittleEndian.AppendUint32(nil, uint32(tb.set(s1)[0])))] = ab
	if third.intern([]probe{a, b}) != ab || third.intern([]probe{{kind: probeSubclasses, cls: cls, subs: round1}}) != s1 {
		t.Fatalf("a hash planted with another probe's or set's number was trusted")
	}
	for i := range 3 * chunkSize {
		p.intern([]probe{{kind: probeField, name: fmt.Sprint("f", i)}})
	}
	if got := tb.set(ab); len(got) != 2 || !slices.Equal(names(tb, got), []string{"cleanup", "/p/utils.py"}) &&
		!slices.Equal(names(tb, got), []string{"/p/utils.py", "cleanup"}) {
		t.Fatalf("the set numbered first changed: %v", names(tb, got))
	}
	if last := p.intern([]probe{{kind: probeField, name: fmt.Sprint("f", 3*chunkSize-1)}}); tb.probe(tb.set(last)[0]).name != fmt.Sprint("f", 3*chunkSize-1) {
		t.Fatalf("a probe in the table's third chunk reads as %v", tb.probe(tb.set(last)[0]))
	}
	if ids := tb.idNumbers(map[probeID]bool{a.id(): true, {kind: probeField, name: "never"}: true}); len(ids) != 1 {
		t.Fatalf("idNumbers = %v, want only the answer some probe read", ids)
	}
	if tb.answer(tb.set(s1)[0]) != tb.answer(tb.set(s2)[0]) {
		t.Fatalf("two probes of one class's subclasses read different answers")
	}
}

// names are the names of the probes numbered set in tb.
func names(tb *probeTable, set []int32) []string {
	var out []string
	for _, n := range set {
		out = append(out, tb.probe(n).name)
	}
	return out
}

// TestProbeTableConcurrent: goroutines interning the same probes and sets at once, in
// different orders, each through its own cache, get one number for each; every number a
// goroutine is given stands for what it interned. Run with -race, it also holds the table's
// lookups and numbering to their locks and its lists to their publication.
func TestProbeTableConcurrent(t *testing.T) {
	tb := newProbeTable()
	const workers, count = 8, 2000
	probes := make([]probe, count)
	for i := range probes {
		probes[i] = probe{kind: probeFuncName, name: fmt.Sprint("helper", i), found: i%3 == 0}
	}
	numbers := make([][]int32, workers)
	sets := make([][]int32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &project{table: tb, probeCache: newProbeCache()}
			numbers[w], sets[w] = make([]int32, count), make([]int32, count)
			for k := range count {
				i := (k*7 + w*313) % count
				set := p.intern([]probe{probes[i]})
				n := tb.set(set)[0]
				if pr := tb.probe(n); pr.name != probes[i].name || pr.found != probes[i].found {
					t.Errorf("worker %d: probe %d numbered %d, which stands for %v", w, i, n, *pr)
					return
				}
				numbers[w][i] = n
				sets[w][i] = p.intern([]probe{probes[i], probes[(i+1)%count]})
			}
		}()
	}
	wg.Wait()
	seen := map[int32]bool{}
	for i := range count {
		for w := 1; w < workers; w++ {
			if numbers[w][i] != numbers[0][i] || sets[w][i] != sets[0][i] {
				t.Fatalf("probe %d: worker 0 got %d (set %d), worker %d got %d (set %d)", i, numbers[0][i], sets[0][i], w, numbers[w][i], sets[w][i])
			}
		}
		seen[numbers[0][i]] = true
	}
	if len(seen) != count || tb.probes.n != count {
		t.Errorf("%d probes got %d numbers; the table holds %d", count, len(seen), tb.probes.n)
	}
}

// TestIndexGrowsInFileOrder: the tables reindex grows round by round (classes by name,
// function names) are those one reindex of the same files builds, each class list in the
// files' order, whatever order the rounds parsed the files in.
func TestIndexGrowsInFileOrder(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"a.py", "b.py", "c.py", "d.py"} {
		p := filepath.Join(dir, name)
		src := fmt.Sprintf("class Model:\n    pass\n\n\nclass Only%s:\n    pass\n\n\ndef fn_%s():\n    pass\n", name[:1], name[:1])
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	table := func(p *project) string {
		var lines []string
		for _, name := range slices.Sorted(maps.Keys(p.classes)) {
			for _, r := range p.classes[name] {
				lines = append(lines, name+" "+filepath.Base(r.file.Path))
			}
		}
		return strings.Join(lines, "\n") + "\n" + strings.Join(slices.Sorted(maps.Keys(p.funcNames)), " ")
	}
	for _, order := range [][]string{{files[2], files[0], files[3], files[1]}, reversed(files)} {
		res := pyparse.NewResult(files, os.ReadFile, token.NewFileSet(), 1)
		proj := newProject(dir, files, res)
		for _, f := range order {
			if err := res.ParseFiles(context.Background(), []string{f}); err != nil {
				t.Fatal(err)
			}
			proj.reindex()
		}
		once := newProject(dir, files, res)
		once.reindex()
		if got, want := table(proj), table(once); got != want {
			t.Errorf("parsed in the order %q, the tables are\n%s\nwhere one reindex gives\n%s", order, got, want)
		}
	}
}

// TestEdgesByCallee: a round's update keeps each callee's edges in the files' order, drops
// a re-resolved file's old edges (a callee left with none is gone) and adds its new ones.
func TestEdgesByCallee(t *testing.T) {
	a, b, c := &pyparse.File{Path: "a.py"}, &pyparse.File{Path: "b.py"}, &pyparse.File{Path: "c.py"}
	f1, f2 := &pyparse.Function{Name: "f1"}, &pyparse.Function{Name: "f2"}
	edge := func(f *pyparse.File, callee *pyparse.Function) *Edge { return &Edge{File: f, Callee: callee} }
	now, prior := map[*pyparse.File]*fileGraph{}, map[*pyparse.File]*fileGraph{}
	by := edgesByCallee{}
	round := func(todo ...*pyparse.File) {
		before := make([]*fileGraph, len(todo))
		for i, f := range todo {
			before[i] = prior[f]
		}
		by.update(todo, before, now, func(fg *fileGraph) []*Edge { return fg.callEdges })
		for _, f := range todo {
			prior[f] = now[f]
		}
	}
	text := func() string {
		var out []string
		for _, fn := range []*pyparse.Function{f1, f2} {
			var files []string
			for _, e := range by[fn] {
				files = append(files, e.File.Path)
			}
			if _, ok := by[fn]; ok && len(files) == 0 {
				files = append(files, "(empty list)")
			}
			out = append(out, fn.Name+": "+strings.Join(files, " "))
		}
		return strings.Join(out, "; ")
	}
	now[a] = &fileGraph{callEdges: []*Edge{edge(a, f1)}}
	now[c] = &fileGraph{callEdges: []*Edge{edge(c, f1), edge(c, f2)}}
	round(a, c)
	if got, want := text(), "f1: a.py c.py; f2: c.py"; got != want {
		t.Fatalf("first round: %s, want %s", got, want)
	}
	now[b] = &fileGraph{callEdges: []*Edge{edge(b, f2), edge(b, f1)}}
	now[c] = &fileGraph{callEdges: []*Edge{edge(c, f2)}}
	round(b, c)
	if got, want := text(), "f1: a.py b.py; f2: b.py c.py"; got != want {
		t.Errorf("b new, c resolved again without its call of f1: %s, want %s", got, want)
	}
	now[b] = &fileGraph{}
	now[a] = &fileGraph{}
	round(a, b)
	if got, want := text(), "f1: ; f2: c.py"; got != want {
		t.Errorf("a and b resolved again without edges: %s, want %s", got, want)
	}
}

// TestReadsKeptAcrossRounds: a file looked at again in a round, where only some of its calls
// read an answer that changed, still depends on what its other calls read. main.py calls a
// helper of m1.py and one of m2.py; it is parsed first, m1.py in the next round (its first
// call is resolved again, its second holds), m2.py in the one after: its second call must be
// resolved again then, or the graph misses the edge to m2's helper. Run on one goroutine, and
// on several with the file in one share and in a share per call.
func TestReadsKeptAcrossRounds(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"main.py": "from m1 import clear_one\nfrom m2 import clear_two\n\n\ndef train(loader):\n" +
			"    for batch in loader:\n        clear_one()\n        clear_two()\n",
		"m1.py": "import torch\n\n\ndef clear_one():\n    torch.cuda.empty_cache()\n",
		"m2.py": "import torch\n\n\ndef clear_two():\n    torch.cuda.empty_cache()\n",
	}
	var files []string
	for _, name := range []string{"main.py", "m1.py", "m2.py"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(texts[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	smallShares(t)
	for _, run := range []struct{ jobs, share int }{{1, 1000}, {4, 1000}, {4, 1}} {
		// 1000: main.py's calls in one share, the file's; 1: one share per call, put back
		// together.
		callsPerShare = run.share
		got, want := roundByRound(t, dir, files, files, run.jobs)
		if got != want {
			t.Errorf("jobs=%d, shares of %d: built round by round\n%s\nbuilt once\n%s", run.jobs, run.share, got, want)
		}
		if !strings.Contains(want, "m2.py.clear_two: "+files[0]) {
			t.Fatalf("the graph built once has no call of clear_two: the test tests nothing\n%s", want)
		}
	}
}

// TestChunkedList: elements pushed across several chunks read back by number, while other
// goroutines read those already handed out (as the table's readers do, without its lock).
func TestChunkedList(t *testing.T) {
	var c chunkedList[int32]
	var mu sync.Mutex
	var handed atomic.Int32 // numbers below it are handed out
	n := int32(3*chunkSize + 5)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for handed.Load() < n {
				if h := handed.Load(); h > 0 {
					if i := h - 1; *c.at(i) != i*7 {
						t.Errorf("element %d read as %d", i, *c.at(i))
						return
					}
				}
			}
		}()
	}
	for i := range n {
		mu.Lock()
		if got := c.push(i * 7); got != i {
			t.Fatalf("push numbered %d, want %d", got, i)
		}
		mu.Unlock()
		handed.Store(i + 1)
	}
	wg.Wait()
	for i := range n {
		if *c.at(i) != i*7 {
			t.Fatalf("element %d is %d", i, *c.at(i))
		}
	}
	if got := len(*c.dir.Load()); got != 4 {
		t.Errorf("%d chunks for %d elements, want 4", got, n)
	}
}
