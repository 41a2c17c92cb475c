package analyzers

import (
	"context"
	"fmt"
	"go/token"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cachelint/cachelint/internal/allocconf"
	"github.com/cachelint/cachelint/pyparse"
)

// TestClassifyInParallel: the records of a classification whose sites were read by several
// goroutines first (prewarm), each with a classifier and project view of its own, are the
// records one goroutine finds. Run with -race, it also holds the goroutines to what they
// share: the graph and the parsed files, read only.
func TestClassifyInParallel(t *testing.T) {
	defer func(n int) { sitesPerJob = n }(sitesPerJob)
	sitesPerJob = 1
	for dir, files := range fixtureProjects(t) {
		if one, four := oneAndFour(t, fixtureGraph(t, dir, files)); one != four {
			t.Errorf("%s: sites read by one goroutine\n%s\nby four\n%s", dir, one, four)
		}
	}
}

// TestClassifyInParallelFailure: when reading a site fails on one of prewarm's goroutines,
// the run goes on, and follow reads again what that goroutine did not: the records are one
// goroutine's.
func TestClassifyInParallelFailure(t *testing.T) {
	defer func(n int) { sitesPerJob = n }(sitesPerJob)
	sitesPerJob = 1
	defer func() { testHookReadSite = nil }()
	failed := 0
	for dir, files := range fixtureProjects(t) {
		g := fixtureGraph(t, dir, files)
		if len(g.Targets) < 2 {
			continue
		}
		// Fail in the middle of reading the first target's site (one goroutine reads it).
		testHookReadSite = func(call *pyparse.Call) {
			if call == g.Targets[0].Call {
				failed++
				panic("reading failed")
			}
		}
		if one, four := oneAndFour(t, g); one != four {
			t.Errorf("%s: sites read by one goroutine\n%s\nby four, one failing\n%s", dir, one, four)
		}
	}
	if failed == 0 {
		t.Fatal("no reading failed")
	}
}

// oneAndFour classifies g with its sites read by one goroutine (no prewarm) and by four, and
// lists the records of each.
func oneAndFour(t *testing.T, g *CallGraph) (one, four string) {
	t.Helper()
	var texts []string
	for _, jobs := range []int{1, 4} {
		c := mustClassify(t, g, jobs, nil)
		texts = append(texts, recordsText(c))
	}
	return texts[0], texts[1]
}

// TestClassifyReported: with only one file reported, the classification gives that file's
// records, and the cache calls of it cut short, exactly as a classification of every target
// does, reading the sites on one goroutine or on four, with the records a call may make
// capped as usual and at 1 to 3 (walks cut short); for some fixture it follows fewer targets
// (reach leaves out the targets whose records all fall elsewhere) and does not go up from
// some (stopsUp).
func TestClassifyReported(t *testing.T) {
	defer func(n, m int) { sitesPerJob, maxRecordsPerTarget = n, m }(sitesPerJob, maxRecordsPerTarget)
	sitesPerJob = 1
	for _, maxRecordsPerTarget = range []int{maxRecordsPerTarget, 1, 2, 3} {
		classifyReported(t)
	}
}

// TestStopsUp: with pkg/mem.py reported alone, the classification neither reads beforehand
// nor follows a call site of free() (whose way up holds nothing reported) for free()'s two
// cache calls, and does go up from the other helpers' calls; its records in mem.py are
// TestClassifyReported's to compare.
func TestStopsUp(t *testing.T) {
	defer func(n int) { sitesPerJob = n }(sitesPerJob)
	sitesPerJob = 1
	defer func() { testHookReadSite, testHookFollow = nil, nil }()
	dir, files := helpersCalledElsewhere(t)
	g := fixtureGraph(t, dir, files)
	mem := filepath.Join(dir, "pkg", "mem.py")
	var mu sync.Mutex
	var read []*pyparse.Call
	testHookReadSite = func(c *pyparse.Call) {
		mu.Lock()
		read = append(read, c)
		mu.Unlock()
	}
	followed := map[string][]string{} // target's function -> callees of the sites followed
	testHookFollow = func(tg *Target, c *pyparse.Call) {
		followed[tg.Call.Function.Name] = append(followed[tg.Call.Function.Name], c.Callee)
	}
	mustClassify(t, g, 4, func(path string) bool { return path == mem })
	for _, c := range read {
		if c.Callee == "free" {
			t.Errorf("a call of free() in %s read beforehand", c.Function.Name)
		}
	}
	if got := followed["free"]; len(got) != 2 || slices.ContainsFunc(got, func(callee string) bool { return callee == "free" }) {
		t.Errorf("free()'s cache calls followed to %q, want their own two sites only", got)
	}
	for _, fn := range []string{"clear_all", "per_device"} {
		if len(followed[fn]) < 2 {
			t.Errorf("%s()'s cache call followed to %q: not up to its callers", fn, followed[fn])
		}
	}
}

// helpersCalledElsewhere writes a project whose memory helpers, in pkg/mem.py, are called
// from other files, each on a way up of its own, in the shapes that decide whether a walk
// up from a call in mem.py can be left out when mem.py is reported alone (stopsUp): free()
// called only from other files (stops, unless capped: five records), clear_all() called
// from reset() in mem.py itself (a reported site on the way up), per_device() with a loop
// of its own called once (its callers' records decide its own), Cleaner.on_step() run by
// its base class's loop in train.py (a dispatching caller, whose records are moved down to
// the call in mem.py).
func helpersCalledElsewhere(t *testing.T) (dir string, paths []string) {
	t.Helper()
	files := map[string]string{
		"pyproject.toml":  "[project]\nname = 'p'\n",
		"pkg/__init__.py": "",
		"pkg/mem.py": "import torch\nfrom train import Base\n\n\ndef free():\n    torch.cuda.empty_cache()\n    torch.mps.empty_cache()\n\n\n" +
			"def clear_all():\n    torch.cuda.empty_cache()\n\n\ndef reset():\n    clear_all()\n\n\n" +
			"def per_device(chunks):\n    for c in chunks:\n        c.run()\n        torch.cuda.empty_cache()\n\n\n" +
			"class Cleaner(Base):\n    def on_step(self):\n        torch.cuda.empty_cache()\n",
		"train.py": "import torch\nfrom pkg.mem import free\n\n\n" +
			"class Base:\n    def fit(self, loader, model, opt):\n        for batch in loader:\n            model(batch).backward()\n" +
			"            opt.step()\n            self.on_step()\n\n    def on_step(self):\n        pass\n\n\n" +
			"def train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        free()\n\n\n" +
			"def evaluate(model, data):\n    for x in data:\n        model(x)\n    free()\n\n\n" +
			"def main(loader, model, opt, data):\n    train(loader, model, opt)\n    evaluate(model, data)\n    evaluate(model, data)\n",
		"serve.py": "import torch\nfrom pkg.mem import reset, per_device\n\n\ndef shutdown(model):\n    del model\n    reset()\n\n\n" +
			"def setup(chunks):\n    per_device(chunks)\n",
	}
	dir, all := writeFiles(t, files)
	for _, p := range all {
		if strings.HasSuffix(p, ".py") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return dir, paths
}

// cutText lists the cache calls c cut short, a line each.
func cutText(c *Classification) string {
	var b strings.Builder
	for _, tg := range c.Cut {
		fmt.Fprintf(&b, "%s:%d: cut\n", tg.File.Path, tg.Call.Node.Line())
	}
	return b.String()
}

func classifyReported(t *testing.T) {
	t.Helper()
	defer func() { testHookReadSite = nil }()
	var read atomic.Int64 // sites prewarm read
	var mu sync.Mutex
	var stray []*pyparse.Call // sites read that follow cannot reach
	allowed := map[*pyparse.Call]bool{}
	testHookReadSite = func(c *pyparse.Call) {
		read.Add(1)
		mu.Lock()
		if !allowed[c] {
			stray = append(stray, c)
		}
		mu.Unlock()
	}
	narrowed, readFewer, stopped, cut := 0, 0, 0, 0
	projects := fixtureProjects(t)
	dir, files := helpersCalledElsewhere(t)
	projects[dir] = files
	for dir, files := range projects {
		g := fixtureGraph(t, dir, files)
		all := mustClassify(t, g, 1, nil)
		cut += len(all.Cut)
		clear(allowed)
		for _, tg := range g.Targets {
			allowed[tg.Call] = true
		}
		for _, edges := range g.Callers {
			for _, e := range edges {
				allowed[e.Call] = true
			}
		}
		read.Store(0)
		mustClassify(t, g, 4, nil)
		readAll := read.Load()
		for _, file := range files {
			reported := func(path string) bool { return path == file }
			targets, through := reach(g, reported)
			if len(targets) < len(g.Targets) {
				narrowed++
			}
			stopped += len(newClassifier(g, nil).stopsUp(targets, reported))
			// Prewarm reads the sites follow can reach: the targets', and the calls of the
			// helpers their way up passes.
			clear(allowed)
			for _, tg := range targets {
				allowed[tg.Call] = true
			}
			for fn := range through {
				for _, e := range g.Callers[fn] {
					allowed[e.Call] = true
				}
			}
			want := linesIn(recordsText(all)+cutText(all), file)
			for _, jobs := range []int{1, 4} {
				read.Store(0)
				c := mustClassify(t, g, jobs, reported)
				if got := linesIn(recordsText(c)+cutText(c), file); got != want {
					t.Errorf("%s reported alone, %d goroutines: its records\n%s\nevery target followed:\n%s", file, jobs, got, want)
				}
				if jobs > 1 && read.Load() < readAll {
					readFewer++
				}
			}
		}
	}
	if len(stray) > 0 {
		t.Errorf("prewarm read %d sites follow cannot reach, the first at %s", len(stray), stray[0].Callee)
	}
	if narrowed == 0 || readFewer == 0 {
		t.Fatalf("no file reported alone left a target out (%d) or had fewer sites read beforehand (%d)", narrowed, readFewer)
	}
	if capped := maxRecordsPerTarget < 10; capped && cut == 0 || !capped && stopped == 0 {
		t.Fatalf("at most %d records a call: %d cache calls cut short, %d walks up stopped", maxRecordsPerTarget, cut, stopped)
	}
	t.Logf("at most %d records a call: %d walks up stopped, %d cache calls cut short", maxRecordsPerTarget, stopped, cut)
}

// linesIn are the lines of a records text about file.
func linesIn(text, file string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, file+":") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// mustClassify classifies g's cache calls (those whose records can fall in reported files,
// all when nil) with sites read on jobs goroutines.
func mustClassify(t *testing.T, g *CallGraph, jobs int, reported func(string) bool) *Classification {
	t.Helper()
	c, err := classify(context.Background(), g, nil, jobs, reported)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fixtureGraph is the call graph of a fixture project, every file that names the cache
// parsed.
func fixtureGraph(t *testing.T, dir string, files []string) *CallGraph {
	t.Helper()
	res := pyparse.NewResult(files, os.ReadFile, token.NewFileSet(), 1)
	if err := res.ParseMatching(context.Background(), []string{"empty_cache", "cuda", "torch"}); err != nil {
		t.Fatal(err)
	}
	proj := newProject(dir, files, res)
	proj.reindex()
	return buildGraph(proj, res, nil, newGraphMemo())
}

// recordsText lists a classification's records, one per line.
func recordsText(c *Classification) string {
	var b strings.Builder
	for _, r := range c.Records {
		fmt.Fprintf(&b, "%s:%d %s %s/%d %s %s %q", r.File.Path, r.Call.Node.Start, r.Role, r.Frequency, r.Period, r.Pattern, r.Rule, r.Reason)
		for _, e := range r.Via {
			fmt.Fprintf(&b, " <- %s:%d", e.File.Path, e.Call.Node.Start)
		}
		b.WriteString("\n")
	}
	for _, e := range c.Errors {
		fmt.Fprintf(&b, "error %v\n", e)
	}
	return b.String()
}

// TestGANSidesMatchExpressions holds ganSides to the expressions it stands for, on names of
// GAN loops, near misses, and random text over their letters (Unicode included: `ſ` folds to
// `s`, the Kelvin sign to `k`).
func TestGANSidesMatchExpressions(t *testing.T) {
	texts := []string{
		"", "generator", "netG = Gen()", "self.generator(z)", "fake = gen_generator(z)", "x_generator", "_generator",
		"xgenerator", "generators", "Discriminator(x)", "opt_D.step()", "optimizer_G.zero_grad()", "d_step(x)",
		"g_step", "train_g(batch)", "train_D", "generator = torch.Generator()", "noise_generator; netD(x)",
		"pipe(generator=g)", "netg2", "G_STEP", "d_ſtep()", "diſcriminator", "ＧENERATOR", "a.b_generator.c",
	}
	letters := []rune("generatordiscminpztG_D. =()1ſé")
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]rune, r.IntN(24))
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		texts = append(texts, string(b))
	}
	words := []string{"generator", "discriminator", "netG", "netD", "optimizer_G", "opt_d", "train_g", "d_step", "g_step", "x_", " ", ".", "ſ"}
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(5) {
			sb.WriteString(words[r.IntN(len(words))])
		}
		texts = append(texts, sb.String())
	}
	for _, text := range texts {
		gen, disc := ganSides(text)
		if gen != reGANGen.MatchString(text) || disc != reGANDisc.MatchString(text) {
			t.Errorf("ganSides(%q) = %v, %v; the expressions say %v, %v", text, gen, disc, reGANGen.MatchString(text), reGANDisc.MatchString(text))
		}
	}
}

// TestLargestFirst: work is handed out largest first, equals in their order.
func TestLargestFirst(t *testing.T) {
	sizes := []int{3, 9, 1, 9, 0, 4}
	got := largestFirst(len(sizes), func(i int) int { return sizes[i] })
	if want := []int{1, 3, 5, 0, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("largestFirst(%v) = %v, want %v", sizes, got, want)
	}
}

// TestMutatedFields: the attribute names assigned anywhere, plainly or augmented, at any depth,
// are read with each file's bindings (reindex), once per file: the project and every worker
// copied from it see them, and a file a later round parses adds its own.
func TestMutatedFields(t *testing.T) {
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "a.py"), filepath.Join(dir, "b.py"), filepath.Join(dir, "c.py")}
	texts := []string{
		"import torch\nstate.should_save = True\nx = y = z\ntorch.cuda.empty_cache()\n",
		"import torch\nclass S:\n    def f(self):\n        def g():\n            self.steps += 1\n        self.count = 0\n        torch.cuda.empty_cache()\n",
		"def later(o):\n    o.late = [o.inner for _ in ()]\n",
	}
	for i, f := range files {
		if err := os.WriteFile(f, []byte(texts[i]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := fixtureGraph(t, dir, files) // c.py names no needle: not parsed yet
	p := g.Project
	want := []string{"count", "should_save", "steps"}
	if got := slices.Sorted(maps.Keys(p.worker().mutatedFields())); !slices.Equal(got, want) {
		t.Fatalf("mutatedFields (a worker's) = %v, want %v", got, want)
	}
	if err := p.res.ParseFiles(context.Background(), files[2:]); err != nil {
		t.Fatal(err)
	}
	p.reindex()
	want = []string{"count", "late", "should_save", "steps"}
	if got := slices.Sorted(maps.Keys(p.mutatedFields())); !slices.Equal(got, want) {
		t.Errorf("after a round parsed c.py, mutatedFields = %v, want %v", got, want)
	}
}

// TestMentionsConfigVar: a text mentions an allocator config variable when it holds one of
// the names, as before the names' common part was searched first; and every name holds that
// part, so the quick search is on.
func TestMentionsConfigVar(t *testing.T) {
	if common, _ := configVarNames(); common == nil {
		t.Error("some allocator variable's name lacks ALLOC_CONF: every text is searched for each name")
	}
	for _, v := range allocconf.EnvVars() {
		if !mentionsConfigVar([]byte(`os.environ["` + v.Name + `"] = "expandable_segments:True"`)) {
			t.Errorf("%s not found", v.Name)
		}
	}
	for src, want := range map[string]bool{
		"PYTORCH_ALLOC_CONFIG = 1":   true, // holds PYTORCH_ALLOC_CONF, as a substring search finds it
		"ALLOC_CONF":                 false,
		"PYTORCH_CUDA_ALLOC":         false,
		"torch.cuda.empty_cache()\n": false,
	} {
		if got := mentionsConfigVar([]byte(src)); got != want {
			t.Errorf("mentionsConfigVar(%q) = %v, want %v", src, got, want)
		}
	}
}

// TestFollowWalksAgain: a walk up to a function's callers made for a cache call from one call
// of a helper is not made again from another call of it in the same function (reuseWalks):
// the records are those made walking again, on every fixture project and on a project where
// each function calls the one below twice, in a step loop, in an override that a base
// class's loop runs (its records are moved to each of its calls), and in a helper's own loop
// over devices (whose records its callers decide); fewer records are made.
func TestFollowWalksAgain(t *testing.T) {
	defer func(v bool, n int) { reuseWalks, maxRecordsPerTarget = v, n }(reuseWalks, maxRecordsPerTarget)
	files := map[string]string{
		"pyproject.toml":  "[project]\nname = 'p'\n",
		"pkg/__init__.py": "",
		"pkg/mem.py": "import torch\n\n\ndef free():\n    torch.cuda.empty_cache()\n\n\ndef twice():\n    free()\n    free()\n\n\n" +
			"def outer(n):\n    if n % 2 == 0:\n        twice()\n    twice()\n\n\n" +
			"def per_device(chunks):\n    for c in chunks:\n        c.run()\n        free()\n        free()\n\n\n" +
			"def setup(chunks):\n    per_device(chunks)\n    per_device(chunks)\n",
		"train.py": "import torch\nfrom pkg.mem import outer, free, setup, per_device\n\n\ndef train(loader, model, opt):\n    for i, batch in enumerate(loader):\n" +
			"        model(batch).backward()\n        opt.step()\n        outer(i)\n        outer(i + 1)\n        per_device(batch)\n\n\n" +
			"def prepare(chunks):\n    setup(chunks)\n\n\n" +
			"class Base:\n    def fit(self, loader, model, opt):\n        for batch in loader:\n            model(batch).backward()\n" +
			"            opt.step()\n            self.hook(batch)\n\n    def hook(self, batch):\n        pass\n\n\n" +
			"class Child(Base):\n    def hook(self, batch):\n        outer(0)\n        outer(1)\n",
	}
	dir, all := writeFiles(t, files)
	var paths []string
	for _, p := range all {
		if strings.HasSuffix(p, ".py") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	projects := fixtureProjects(t)
	projects[dir] = paths
	fewer := false
	for d, fs := range projects {
		g := fixtureGraph(t, d, fs)
		var texts [2]string
		var made [2]int
		for i, reuse := range []bool{false, true} {
			reuseWalks = reuse
			a := newClassifier(g, nil)
			for _, tg := range g.Targets {
				a.again, a.produced = map[againKey]againDone{}, 0
				a.recs = nil
				a.follow(tg, tg.File, tg.Call, nil, inherited{}, map[*pyparse.Function]bool{})
				made[i] += len(a.recs)
			}
			c := mustClassify(t, g, 1, nil)
			texts[i] = recordsText(c)
		}
		if texts[0] != texts[1] {
			t.Errorf("%s: walking again\n%s\ntaking the walk made\n%s", d, texts[0], texts[1])
		}
		if d == dir {
			if !strings.Contains(texts[1], "train.py") || !strings.Contains(texts[1], "CL001") {
				t.Errorf("the generated project's records:\n%s", texts[1])
			}
			fewer = made[1] < made[0]
			t.Logf("records made: %d walking again, %d taking the walk made", made[0], made[1])
		}
	}
	if !fewer {
		t.Error("taking the walks made made no fewer records")
	}
	// With the records capped, the cap falls where walking again puts it (caps up to 29 missed
	// a walk taken that walking again would have cut short).
	g := fixtureGraph(t, dir, paths)
	for maxRecordsPerTarget = 1; maxRecordsPerTarget < 120; maxRecordsPerTarget++ {
		var texts [2]string
		for i, reuse := range []bool{false, true} {
			reuseWalks = reuse
			c := mustClassify(t, g, 1, nil)
			texts[i] = recordsText(c)
			for _, tg := range c.Cut {
				texts[i] += fmt.Sprintf("cut %s:%d\n", tg.File.Path, tg.Call.Node.Start)
			}
		}
		if texts[0] != texts[1] {
			t.Errorf("at most %d records a cache call: walking again\n%s\ntaking the walk made\n%s", maxRecordsPerTarget, texts[0], texts[1])
		}
	}
}

// TestFollowFailure: when following one cache call fails on the way up (a bug on a caller's
// site), that call has no records, the failure is reported, and the calls after it are
// followed.
func TestFollowFailure(t *testing.T) {
	defer func() { testHookFollow = nil }()
	checked := 0
	for dir, files := range fixtureProjects(t) {
		g := fixtureGraph(t, dir, files)
		// A cache call fails at the first caller's site it is followed to: its own record is
		// made by then.
		whole := mustClassify(t, g, 1, nil)
		i := slices.IndexFunc(whole.Records, func(r *Record) bool { return len(r.Via) > 0 })
		if i < 0 {
			continue
		}
		failing, at := whole.Records[i].Target, whole.Records[i].Call
		testHookFollow = func(tg *Target, call *pyparse.Call) {
			if tg == failing && call == at {
				panic("following failed")
			}
		}
		c := mustClassify(t, g, 1, nil)
		if len(c.Errors) != 1 {
			t.Fatalf("%s: %d errors", dir, len(c.Errors))
		}
		for _, r := range c.Records {
			if r.Target == failing {
				t.Fatalf("%s: the failing call has a record at %s", dir, r.File.Path)
			}
		}
		if len(g.Targets) > 1 && len(c.Records) == 0 {
			t.Fatalf("%s: the other calls have no records", dir)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no fixture checked")
	}
}

// TestRegistrarNamesEndInHook: registrations passes over every call whose callee does not
// end in "hook" before looking it up among the registrars, so every registrar's must.
func TestRegistrarNamesEndInHook(t *testing.T) {
	for name := range registrars {
		if !strings.HasSuffix(name, "hook") {
			t.Errorf("registrar %s does not end in \"hook\": registrations would never find its calls", name)
		}
	}
}
