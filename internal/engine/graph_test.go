package engine_test

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cachelint/cachelint/internal/engine"
)

// TestGraphKept: after an edit of files the last run parsed, the analysis takes the call
// graph of the unchanged files from the graph store when the edit leaves what other files
// read of the changed ones as it was, and runs in full otherwise; either way it finds what a
// run without the cache finds.
func TestGraphKept(t *testing.T) {
	dir := cacheProject(t)
	write(t, dir, "eval.py", "from pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n    free_gpu()\n")
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	runCached(t, cacheDir, []string{dir}, dir)
	first, _ := filepath.Glob(filepath.Join(cacheDir, "*.graph"))
	if len(first) != 1 {
		t.Fatalf("graph stores %v, want one", first)
	}
	// The first run's store, whole: later, a store of another run in the place of the
	// entry's own.
	firstStore, err := os.ReadFile(first[0])
	if err != nil {
		t.Fatal(err)
	}
	ago := 30 * time.Minute
	edit := func(name, text string) {
		t.Helper()
		write(t, dir, name, text)
		ago -= time.Minute // each edit a stamp of its own, old enough to trust
		at := time.Now().Add(-ago)
		if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
			t.Fatal(err)
		}
	}
	memory := "import torch\n\n\ndef free_gpu():\n    torch.cuda.empty_cache()\n"
	steps := []struct {
		what   string
		change func()
		kept   int // files whose calls were taken from the store
	}{
		{"a call added to a loop body", func() {
			edit("train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(batch)\n", 1))
		}, 2},
		{"a parsed file and a file that matters to nothing", func() {
			edit("train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(batch, opt)\n", 1))
			edit("model.py", "import torch.nn as nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        return x + 1\n")
		}, 2},
		{"a parsed file and a file that now calls a helper", func() {
			edit("train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(opt)\n", 1))
			edit("model.py", "import torch.nn as nn\nfrom pkg.memory import free_gpu\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        free_gpu()\n        return x\n")
		}, 0},
		{"a docstring and a comment", func() {
			edit("pkg/memory.py", strings.Replace(memory, "def free_gpu():\n", "def free_gpu():\n    \"\"\"Frees the cache.\"\"\"\n    # every step\n", 1))
		}, 3},
		{"two files, calls moved within the loop and after it", func() {
			edit("train.py", strings.Replace(strings.Replace(trainText, "        free_gpu()\n", "", 1), "        opt.step()\n", "        free_gpu()\n        opt.step()\n", 1))
			edit("eval.py", "from pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n    print(model)\n    free_gpu()\n")
		}, 2},
		{"a call moved into the loop: the helper's callers are not looked for any more", func() {
			edit("eval.py", "from pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n        free_gpu()\n    print(model)\n")
		}, 0},
		{"an assignment in a function body", func() {
			edit("pkg/memory.py", strings.Replace(memory, "def free_gpu():\n", "def free_gpu():\n    n = 1\n", 1))
		}, 0},
		{"a function added", func() {
			edit("train.py", trainText+"\n\ndef more():\n    pass\n")
		}, 3},
		{"the only call of a helper dropped: another helper set", func() {
			edit("train.py", strings.Replace(trainText, "        free_gpu()\n", "", 1)+"\n\ndef more():\n    pass\n")
			edit("eval.py", "from pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n")
		}, 0},
		{"a cache call added where none was, with its import", func() {
			edit("eval.py", "import torch\nfrom pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n        torch.cuda.empty_cache()\n")
		}, 0},
		{"a function another file calls through changes what it returns", func() {
			edit("pkg/memory.py", memory+"\n\ndef noop():\n    pass\n\n\ndef cleaner():\n    return free_gpu\n")
			edit("train.py", "from pkg.memory import cleaner, free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        cleaner()()\n    free_gpu()\n")
		}, 0},
		{"(what it returns)", func() {
			edit("pkg/memory.py", memory+"\n\ndef noop():\n    pass\n\n\ndef cleaner():\n    return noop\n")
		}, 1},
		{"a call added once more", func() {
			edit("eval.py", "import torch\nfrom pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n        torch.cuda.empty_cache()\n        free_gpu()\n")
		}, 3},
		// Parsed for naming the helper (bound, not called); then naming it no more, it is
		// left unparsed, as the rounds would leave it, and the other files keep their calls.
		{"a file that names the helper added", func() {
			edit("notes.py", "from pkg.memory import free_gpu\n\n\ndef note():\n    x = free_gpu\n    return x\n")
		}, 0},
		{"that file names it no more", func() {
			edit("notes.py", "def note():\n    return 1\n")
		}, 4},
		{"a with statement added", func() {
			edit("eval.py", "import torch\nfrom pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        with torch.no_grad():\n            model(batch)\n        torch.cuda.empty_cache()\n        free_gpu()\n")
		}, 3},
	}
	// Why the steps not kept ran in full (Stats.KeptMiss, what --verbose prints); a step
	// whose edit changed an interface has the calls that read what changed found again,
	// in every file that read it (the assignment in memory.py: every other file; the
	// function added to train.py: none), and ran in full only when the graph it built
	// showed other helpers or needles.
	reasons := map[string]string{
		"the only call of a helper dropped: another helper set":                        "the functions that empty the cache changed",
		"a call moved into the loop: the helper's callers are not looked for any more": "the names searched for changed",
		"a cache call added where none was, with its import":                           "the functions that empty the cache changed",
		"a function another file calls through changes what it returns":                "the functions that empty the cache changed",
	}
	for _, s := range steps {
		s.change()
		res, got := runCached(t, cacheDir, []string{dir}, dir)
		plain, want := runCached(t, "", []string{dir}, dir)
		if got != want || res.Stats.Parsed != plain.Stats.Parsed {
			t.Fatalf("%s: the run differs from one without the cache (%d files parsed, %d without): %s", s.what, res.Stats.Parsed, plain.Stats.Parsed, firstDiff(got, want))
		}
		if res.Stats.Kept != s.kept || res.Stats.Cached {
			t.Errorf("%s: %d files' graph kept (%q), cached %v; want %d kept", s.what, res.Stats.Kept, res.Stats.KeptMiss, res.Stats.Cached, s.kept)
		}
		if want := reasons[s.what]; !strings.Contains(res.Stats.KeptMiss, want) || want == "" && res.Stats.KeptMiss != "" {
			t.Errorf("%s: the reason given for running in full is %q, want one saying %q", s.what, res.Stats.KeptMiss, want)
		}
	}
	// A store garbled on disk, or one of another run (the first run's, whole and valid), is
	// not read: the entry names its own store by its digest.
	stores, _ := filepath.Glob(filepath.Join(cacheDir, "*.graph"))
	garbles := []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)-1] },
		func([]byte) []byte { return firstStore },
	}
	// A bit flipped at each of 16 places: most still decode into some graph (an edge or a
	// name another), which only the entry's digest of its store refuses.
	for k := 1; k <= 16; k++ {
		garbles = append(garbles, func(b []byte) []byte { b[k*len(b)/17] ^= 1; return b })
	}
	for i, garble := range garbles {
		data, err := os.ReadFile(stores[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(stores[0], garble(data), 0o644); err != nil {
			t.Fatal(err)
		}
		edit("eval.py", "import torch\nfrom pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n        torch.cuda.empty_cache()\n"+strings.Repeat("        print(batch)\n", i+1))
		res, got := runCached(t, cacheDir, []string{dir}, dir)
		_, want := runCached(t, "", []string{dir}, dir)
		if got != want || res.Stats.Kept != 0 {
			t.Errorf("store garbled (%d): same result %v, %d files' graph kept, want none", i, got == want, res.Stats.Kept)
		}
		if !strings.Contains(res.Stats.KeptMiss, "store is not the one its entry wrote") {
			t.Errorf("store garbled (%d): the reason given for running in full is %q, want one naming the store", i, res.Stats.KeptMiss)
		}
	}
}

// TestGraphKeptCorpus: over the fixture corpus, a call added after each direct cache call
// that stands on a line of its own in a function, or an assignment before it (which changes
// the file's interface), one file at a time, leaves the run with the cache showing what a
// run without it shows.
func TestGraphKeptCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of the corpus per call site")
	}
	dir := filepath.Join(t.TempDir(), "src")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "src"))); err != nil {
		t.Fatal(err)
	}
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	runCached(t, cacheDir, []string{dir}, dir)
	line := regexp.MustCompile(`(?m)^( +)torch\.cuda\.empty_cache\(\)\n`)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".py") {
			if data, err := os.ReadFile(p); err == nil && line.Match(data) {
				files = append(files, p)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	kept := 0
	for i, p := range files {
		if i%4 != 0 && i%4 != 2 { // half of them: two runs of the corpus each
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := line.FindSubmatchIndex(data)
		edited := string(data[:m[1]]) + string(data[m[2]:m[3]]) + "print(\"edited\")\n" + string(data[m[1]:])
		if i%4 == 2 {
			edited = string(data[:m[0]]) + string(data[m[2]:m[3]]) + "_edited = 1\n" + string(data[m[0]:])
		}
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-time.Duration(30-i%30) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		res, got := runCached(t, cacheDir, []string{dir}, dir)
		_, want := runCached(t, "", []string{dir}, dir)
		if got != want {
			t.Errorf("%s edited: the run differs from one without the cache: %s", p, firstDiff(got, want))
		}
		if res.Stats.Kept > 0 {
			kept++
		}
	}
	if kept == 0 {
		t.Error("no edit kept any file's graph")
	}
}

// TestGraphKeptReads: when an edit changes a file's interface, the files whose calls read
// into it have their calls found again and the others keep theirs: a base class's call
// that dispatches to an override in the edited file reads it through the class's
// subclasses, not through an import (the override's place among the file's functions
// moves), and a file that imports nothing of it keeps its calls.
func TestGraphKeptReads(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "pyproject.toml", "[project]\nname = 'p'\n")
	write(t, dir, "base.py", "class Trainer:\n    def fit(self, loader):\n        for batch in loader:\n"+
		"            self.step(batch)\n            self.cleanup()\n\n    def step(self, batch):\n        pass\n\n"+
		"    def cleanup(self):\n        pass\n")
	sub := "import torch\nfrom base import Trainer\n\n\nclass MyTrainer(Trainer):\n    def cleanup(self):\n        torch.cuda.empty_cache()\n"
	write(t, dir, "sub.py", sub)
	write(t, dir, "tools.py", "import torch\n\n\ndef report(model):\n    print(model)\n    torch.cuda.empty_cache()\n")
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	runCached(t, cacheDir, []string{dir}, dir)
	steps := []struct {
		what        string
		sub         string
		kept, again int // files whose calls were taken from the store, and found again
	}{
		// base.py reads sub.py through Trainer's subclasses; tools.py reads nothing of it.
		{"a method added before the override", strings.Replace(sub, "    def cleanup", "    def other(self):\n        pass\n\n    def cleanup", 1), 1, 1},
		{"a module-level assignment", strings.Replace(sub, "\n\n\nclass", "\nLIMIT = 3\n\n\nclass", 1), 1, 1},
		{"the override dropped", "import torch\nfrom base import Trainer\n\n\nclass MyTrainer(Trainer):\n    def other(self):\n        torch.cuda.empty_cache()\n", 0, 0},
	}
	for i, s := range steps {
		write(t, dir, "sub.py", s.sub)
		at := time.Now().Add(-time.Duration(20-i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, "sub.py"), at, at); err != nil {
			t.Fatal(err)
		}
		res, got := runCached(t, cacheDir, []string{dir}, dir)
		_, want := runCached(t, "", []string{dir}, dir)
		if got != want {
			t.Fatalf("%s: the run differs from one without the cache: %s", s.what, firstDiff(got, want))
		}
		if res.Stats.Kept != s.kept || res.Stats.KeptAgain != s.again || res.Stats.Cached {
			t.Errorf("%s: %d files' graph kept, %d found again (%q), cached %v; want %d and %d",
				s.what, res.Stats.Kept, res.Stats.KeptAgain, res.Stats.KeptMiss, res.Stats.Cached, s.kept, s.again)
		}
	}
}

// TestGraphKeptNames: a call's resolution reads the project's function names, not only the
// files it looks into. `pkg.api.flush()` through a module left unparsed asks whether any
// parsed function is called flush; a function of that name added to another file makes the
// module worth reading (it star-imports), so the call is found again and the run parses it,
// as a run without the cache does.
func TestGraphKeptNames(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "pyproject.toml", "[project]\nname = 'p'\n")
	write(t, dir, "pkg/__init__.py", "")
	memory := "import torch\n\n\ndef free_gpu():\n    torch.cuda.empty_cache()\n"
	write(t, dir, "pkg/memory.py", memory)
	write(t, dir, "pkg/api.py", "from .util import *\n")
	write(t, dir, "pkg/util.py", "def flush():\n    return 1\n")
	// train.py reads nothing of pkg/memory.py, where the name comes from.
	write(t, dir, "train.py", "import torch\nimport pkg.api\n\n\ndef train(loader):\n"+
		"    for batch in loader:\n        pkg.api.flush()\n    torch.cuda.empty_cache()\n")
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	runCached(t, cacheDir, []string{dir}, dir)
	write(t, dir, "pkg/memory.py", memory+"\n\ndef flush():\n    pass\n")
	at := time.Now().Add(-10 * time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "pkg", "memory.py"), at, at); err != nil {
		t.Fatal(err)
	}
	res, got := runCached(t, cacheDir, []string{dir}, dir)
	plain, want := runCached(t, "", []string{dir}, dir)
	if got != want || res.Stats.Parsed != plain.Stats.Parsed {
		t.Fatalf("the run differs from one without the cache (%d files parsed, %d without): %s", res.Stats.Parsed, plain.Stats.Parsed, firstDiff(got, want))
	}
	if !strings.Contains(res.Stats.KeptMiss, "wanted now") {
		t.Errorf("the graph was kept (%d files, miss %q); want a run in full for the module wanted now", res.Stats.Kept, res.Stats.KeptMiss)
	}
}

// TestGraphKeptQuestions: a run that keeps the call graph keeps the questions about
// unparsed modules' imports that the kept calls asked (a star import added to pkg/api.py
// then runs the analysis again, as the call through it may now reach the helper), not those
// of calls it found again (once no call goes through pkg/api.py, the same edit is served
// from the cache).
func TestGraphKeptQuestions(t *testing.T) {
	train := "import pkg.api\nfrom pkg.memory import free_gpu\n\n\ndef train(loader):\n    for batch in loader:\n        pkg.api.free_gpu()\n    free_gpu()\n"
	other := "import torch\n\n\ndef swap(model):\n    torch.cuda.empty_cache()\n"
	type step struct {
		what, file, text string
		cached           bool
		kept             int // files whose calls were taken from the store (-1: any)
	}
	// other.py's assignment changes its interface: train.py and pkg/memory.py read nothing
	// of it and keep their calls.
	otherEdited := step{"other.py's interface changed", "other.py", strings.Replace(other, "    torch", "    n = 1\n    torch", 1), false, 2}
	reexport := "from .memory import *\nVERSION = 1\n"
	for _, steps := range [][]step{
		{otherEdited, {"pkg/api.py re-exports the helper", "pkg/api.py", reexport, false, -1}},
		{otherEdited,
			{"the call through pkg.api dropped", "train.py", strings.Replace(train, "        pkg.api.free_gpu()\n", "        n = batch\n", 1), false, 2},
			{"pkg/api.py re-exports the helper, no call through it", "pkg/api.py", reexport, true, -1}},
	} {
		dir := apiProject(t, "VERSION = 1\n", train)
		write(t, dir, "other.py", other)
		age(t, dir)
		cacheDir := filepath.Join(t.TempDir(), "cache")
		runCached(t, cacheDir, []string{dir}, dir)
		for i, s := range steps {
			write(t, dir, s.file, s.text)
			at := time.Now().Add(-time.Duration(20-i) * time.Minute)
			if err := os.Chtimes(filepath.Join(dir, s.file), at, at); err != nil {
				t.Fatal(err)
			}
			res, got := runCached(t, cacheDir, []string{dir}, dir)
			_, want := runCached(t, "", []string{dir}, dir)
			if got != want {
				t.Fatalf("%s: the run differs from one without the cache: %s", s.what, firstDiff(got, want))
			}
			if res.Stats.Cached != s.cached || s.kept >= 0 && res.Stats.Kept != s.kept {
				t.Errorf("%s: cached %v (%s), %d files' graph kept (%s); want cached %v, %d kept",
					s.what, res.Stats.Cached, res.Stats.CacheMiss, res.Stats.Kept, res.Stats.KeptMiss, s.cached, s.kept)
			}
		}
	}
}

// TestGraphKeptWantedModule: a module parsed because a call goes through it (it re-exports
// the helper, naming no needle) and then edited is parsed again when the call still wants
// it, in rounds of the kept run's own, and the other files keep their calls.
func TestGraphKeptWantedModule(t *testing.T) {
	dir := apiProject(t, "from .memory import *\n", "import pkg.api\n\n\ndef train(loader):\n    for batch in loader:\n        pkg.api.free_gpu()\n")
	write(t, dir, "other.py", "import torch\n\n\ndef swap(model):\n    torch.cuda.empty_cache()\n")
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	if first, _ := runCached(t, cacheDir, []string{dir}, dir); len(first.Report.Findings) != 1 {
		t.Fatalf("first run: %d findings, want the call through pkg.api", len(first.Report.Findings))
	}
	steps := []struct {
		what, text string
		kept, n    int // files whose calls were taken from the store; findings
	}{
		{"a comment added", "# re-exports\nfrom .memory import *\n", 2, 1},
		{"an assignment added", "from .memory import *\nVERSION = 2\n", 2, 1},
		// The call reaches no helper now: other helpers, the rounds in full.
		{"the re-export dropped", "VERSION = 2\n", 0, 0},
	}
	for i, s := range steps {
		write(t, dir, "pkg/api.py", s.text)
		at := time.Now().Add(-time.Duration(20-i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, "pkg", "api.py"), at, at); err != nil {
			t.Fatal(err)
		}
		res, got := runCached(t, cacheDir, []string{dir}, dir)
		plain, want := runCached(t, "", []string{dir}, dir)
		if got != want || res.Stats.Parsed != plain.Stats.Parsed {
			t.Fatalf("%s: the run differs from one without the cache (%d files parsed, %d without): %s", s.what, res.Stats.Parsed, plain.Stats.Parsed, firstDiff(got, want))
		}
		if res.Stats.Kept != s.kept || len(res.Report.Findings) != s.n || res.Stats.Cached {
			t.Errorf("%s: %d files' graph kept (%q), %d findings, cached %v; want %d kept, %d findings",
				s.what, res.Stats.Kept, res.Stats.KeptMiss, len(res.Report.Findings), res.Stats.Cached, s.kept, s.n)
		}
	}
}

// TestGraphKeptPausesGC: a kept run reads the last run's trees back with the collector off
// (they and their models live to the end of the run: collecting meanwhile frees nothing),
// holds it off once they are read, through the analysis, and turns it back on by the run's
// end, with the memory limit it found; a kept graph that does not hold releases the hold
// before the full analysis that runs instead; a run in full asks for no pause and no hold.
func TestGraphKeptPausesGC(t *testing.T) {
	dir := cacheProject(t)
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	// counted wraps start, a pause or a hold, counting its starts and its ends.
	counted := func(start func() func(), starts, ends *int) func() func() {
		return func() func() {
			*starts++
			end := start()
			return func() {
				*ends++
				end()
			}
		}
	}
	pauses, resumes, holds, releases := 0, 0, 0, 0
	old := engine.SetAnalysisPause(counted(engine.PauseGC, &pauses, &resumes))
	t.Cleanup(func() { engine.SetAnalysisPause(old) })
	oldHold := engine.SetAnalysisHold(counted(engine.HoldGC, &holds, &releases))
	t.Cleanup(func() { engine.SetAnalysisHold(oldHold) })
	limit := debug.SetMemoryLimit(-1)
	gcPercent := func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	before := gcPercent()
	runCached(t, cacheDir, []string{dir}, dir)
	if pauses != 0 || holds != 0 {
		t.Fatalf("a first run paused the collector %d times and held it %d, want none", pauses, holds)
	}
	write(t, dir, "train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(batch)\n", 1))
	at := time.Now().Add(-10 * time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "train.py"), at, at); err != nil {
		t.Fatal(err)
	}
	heldAtEnd := -1 // the holds not released when the analysis returned
	engine.SetAnalysedHook(func() { heldAtEnd = holds - releases })
	t.Cleanup(func() { engine.SetAnalysedHook(nil) })
	res, _ := runCached(t, cacheDir, []string{dir}, dir)
	if res.Stats.Kept == 0 {
		t.Fatalf("the graph was not kept (%q)", res.Stats.KeptMiss)
	}
	if heldAtEnd != 1 {
		t.Errorf("a kept run's analysis returned with %d holds, want the collector held", heldAtEnd)
	}
	if pauses != 1 || resumes != 1 {
		t.Errorf("a kept run paused the collector %d times and resumed it %d, want once each", pauses, resumes)
	}
	if holds != 1 || releases < 1 {
		t.Errorf("a kept run held the collector %d times and released it %d, want once and at least once", holds, releases)
	}
	if got := gcPercent(); got != before {
		t.Errorf("GOGC %d after the runs, want %d", got, before)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("memory limit %d after the runs, want %d", got, limit)
	}
	// A new helper: the kept graph does not hold (its helpers changed), and the analysis in
	// full runs with the collector on.
	write(t, dir, "train.py", "import torch\n\n\ndef clear():\n    torch.cuda.empty_cache()\n\n\n"+trainText)
	if err := os.Chtimes(filepath.Join(dir, "train.py"), at, at); err != nil {
		t.Fatal(err)
	}
	holds, releases = 0, 0
	res, _ = runCached(t, cacheDir, []string{dir}, dir)
	if res.Stats.Kept != 0 || res.Stats.KeptMiss == "" {
		t.Fatalf("the graph was kept (%d files), want a run in full", res.Stats.Kept)
	}
	if holds != 1 || heldAtEnd != 0 {
		t.Errorf("a kept graph that did not hold: %d holds, %d not released when the analysis returned; want 1 and 0", holds, heldAtEnd)
	}
	if got := gcPercent(); got != before {
		t.Errorf("GOGC %d after the runs, want %d", got, before)
	}
}

// TestKeptTextsNotRead: after an edit, the files the last run parsed and that have not
// changed since are taken from their kept trees, text and tree, not read from disk; the
// file edited is read (and parsed ahead of the run's parse), and so is a notebook (reading
// it says which of its cells are malformed). The run gives what a run without the cache
// gives.
func TestKeptTextsNotRead(t *testing.T) {
	dir := cacheProject(t)
	cell := func(src string) string {
		return `{"cell_type": "code", "metadata": {}, "outputs": [], "source": ` + src + `}`
	}
	write(t, dir, "explore.ipynb", `{"nbformat": 4, "metadata": {}, "cells": [`+strings.Join([]string{
		cell(`["import torch\n"]`), cell(`42`), cell(`["torch.cuda.empty_cache()\n"]`)}, ", ")+`]}`)
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	first, _ := runCached(t, cacheDir, []string{dir}, dir)
	if first.Stats.Parsed < 3 {
		t.Fatalf("%d files parsed, want train.py, pkg/memory.py and the notebook at least", first.Stats.Parsed)
	}
	write(t, dir, "train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(batch)\n", 1))
	at := time.Now().Add(-10 * time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "train.py"), at, at); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	read := map[string]bool{}
	engine.SetReadHook(func(path string) {
		mu.Lock()
		read[filepath.Base(path)] = true
		mu.Unlock()
	})
	t.Cleanup(func() { engine.SetReadHook(nil) })
	var ahead []string
	engine.SetParseAheadHook(func(paths []string) { ahead = paths })
	t.Cleanup(func() { engine.SetParseAheadHook(nil) })
	res, got := runCached(t, cacheDir, []string{dir}, dir)
	engine.SetReadHook(nil)
	if len(ahead) != 1 || filepath.Base(ahead[0]) != "train.py" {
		t.Errorf("files parsed ahead %q, want the edited train.py", ahead)
	}
	if res.Stats.Kept == 0 {
		t.Fatalf("the graph was not kept (%q)", res.Stats.KeptMiss)
	}
	if read["memory.py"] || !read["train.py"] || !read["explore.ipynb"] {
		t.Errorf("files read %v: want train.py and explore.ipynb, not pkg/memory.py", slices.Sorted(maps.Keys(read)))
	}
	if _, want := runCached(t, "", []string{dir}, dir); got != want {
		t.Errorf("the run differs from one without the cache: %s", firstDiff(got, want))
	}
}

// TestParseNamedAhead: a file named on the command line, as pre-commit names the files a
// commit changed, is parsed ahead from the run's start when the cache holds no tree of its
// text, and only then; the edit's own parse ahead does not parse it again, and the run is
// the one it would be without the cache.
func TestParseNamedAhead(t *testing.T) {
	dir := cacheProject(t)
	write(t, dir, "notes.py", "RUNS = 3\n")
	var many []string // more files than a run parses ahead
	for i := range engine.NamedAheadMax + 1 {
		name := fmt.Sprintf("more%d.py", i)
		write(t, dir, name, "X = 1\n")
		many = append(many, filepath.Join(dir, name))
	}
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	train := filepath.Join(dir, "train.py")
	runCached(t, cacheDir, []string{dir}, dir)
	var mu sync.Mutex
	var started []string
	engine.SetParsedAheadHook(func(path string) {
		mu.Lock()
		started = append(started, filepath.Base(path))
		mu.Unlock()
	})
	t.Cleanup(func() { engine.SetParsedAheadHook(nil) })
	var named []string
	engine.SetParseNamedHook(func(paths []string) { named = paths })
	t.Cleanup(func() { engine.SetParseNamedHook(nil) })
	// No entry yet: nothing tells whether the run will parse the file.
	runCached(t, filepath.Join(t.TempDir(), "fresh"), []string{train}, dir)
	if len(started) != 0 {
		t.Errorf("parsed ahead %q with no cache entry", started)
	}
	// A folder named: nothing to parse ahead before the walk; nor with too many files named.
	named = nil
	runCached(t, cacheDir, []string{dir}, dir)
	runCached(t, cacheDir, many, dir)
	if named != nil {
		t.Errorf("files named to parse ahead %q for a folder or %d files", named, len(many))
	}
	// Unchanged: its tree is kept, nothing is parsed ahead.
	runCached(t, cacheDir, []string{train, filepath.Join(dir, "pyproject.toml")}, dir)
	if len(started) != 0 || !slices.Equal(named, []string{train}) {
		t.Errorf("parsed ahead %q of an unchanged file; named %q, want %q", started, named, train)
	}
	write(t, dir, "train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(batch)\n", 1))
	at := time.Now().Add(-10 * time.Minute)
	if err := os.Chtimes(train, at, at); err != nil {
		t.Fatal(err)
	}
	stopped := 0
	engine.SetNoParseHook(func() { stopped++ })
	t.Cleanup(func() { engine.SetNoParseHook(nil) })
	res, got := runCached(t, cacheDir, []string{train}, dir)
	if !slices.Equal(started, []string{"train.py"}) || stopped != 0 {
		t.Errorf("parses ahead started %q, want the edited train.py once; %d cancelled", started, stopped)
	}
	if res.Stats.Kept == 0 {
		t.Fatalf("the graph was not kept (%q)", res.Stats.KeptMiss)
	}
	if res.Stats.Parsed == 0 || res.Stats.Reused != res.Stats.Parsed-1 {
		t.Errorf("%d files parsed, %d trees reused: want every one but the edited file's", res.Stats.Parsed, res.Stats.Reused)
	}
	if _, want := runCached(t, "", []string{train}, dir); got != want {
		t.Errorf("the run differs from one without the cache: %s", firstDiff(got, want))
	}
	// A file edited that matters to nothing: it is not parsed ahead (it mentions no name
	// searched for), the entry holds, and the run cancels the parses ahead.
	runCached(t, cacheDir, []string{dir}, dir) // an entry for every report scope
	stopped = 0
	notes := filepath.Join(dir, "notes.py")
	write(t, dir, "notes.py", "RUNS = 4\n")
	if err := os.Chtimes(notes, at, at); err != nil {
		t.Fatal(err)
	}
	res, got = runCached(t, cacheDir, []string{notes}, dir)
	if !res.Stats.Cached || stopped != 1 || len(started) != 1 {
		t.Errorf("cached %v (miss %q, %d parsed, %d kept), %d parses ahead cancelled, parses ahead %q: want the entry to hold, one cancel, train.py's parse alone",
			res.Stats.Cached, res.Stats.CacheMiss, res.Stats.Parsed, res.Stats.Kept, stopped, started)
	}
	if _, want := runCached(t, "", []string{notes}, dir); got != want {
		t.Errorf("the run differs from one without the cache: %s", firstDiff(got, want))
	}
}
