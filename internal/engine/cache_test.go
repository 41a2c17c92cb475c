package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/engine"
)

// trainText is cacheProject's train.py: a training loop that calls the helper.
const trainText = "from pkg.memory import free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        free_gpu()\n"

// cacheProject writes a small project: a helper that empties the cache, a training loop
// that calls it, and files that matter to nothing.
func cacheProject(t *testing.T) string {
	t.Helper()
	dir := helperProject(t, "train.py", trainText)
	write(t, dir, "model.py", "import torch.nn as nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        return x\n")
	return dir
}

// helperProject writes a project of one package, pkg, whose memory.py defines the helper
// free_gpu, and the files given (name, text, name, text, ...).
func helperProject(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "pyproject.toml", "[project]\nname = 'p'\n")
	write(t, dir, "pkg/__init__.py", "")
	write(t, dir, "pkg/memory.py", "import torch\n\n\ndef free_gpu():\n    torch.cuda.empty_cache()\n")
	for i := 0; i+1 < len(files); i += 2 {
		write(t, dir, files[i], files[i+1])
	}
	return dir
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// apiProject writes a project whose train.py (train) calls the helper of pkg/memory.py
// through pkg/api.py (api), a module that names no needle.
func apiProject(t *testing.T, api, train string) string {
	t.Helper()
	return helperProject(t, "pkg/api.py", api, "train.py", train)
}

// age sets a file's modification time well before now, as a file written earlier has.
func age(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func runCached(t *testing.T, cacheDir string, paths []string, root string) (*engine.Result, string) {
	t.Helper()
	opts := engine.Options{Analysis: analyzers.Engine, Paths: paths, Root: root, Rules: allRules(), Calls: true}
	if cacheDir != "" {
		opts.Cache = &engine.Cache{Dir: cacheDir, Version: "test"}
	}
	res, err := engine.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, shown(t, res)
}

// shown is everything a printer reads from a result, as JSON.
func shown(t *testing.T, res *engine.Result) string {
	t.Helper()
	b, err := json.Marshal(struct {
		F, C, S, W, I, U any
		P, R             int
	}{res.Report.Findings, res.Calls, res.SyntaxErrors, res.Warnings, res.Incomplete, res.Unreadable, res.Stats.Parsed, res.Stats.Rounds})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCacheSameResult: a run served from the cache shows exactly what the analysis shows,
// over the whole fixture corpus (syntax errors, notebooks, helpers across files included).
func TestCacheSameResult(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "src")
	cache := t.TempDir()
	_, want := runCached(t, "", []string{dir}, dir)
	cold, got := runCached(t, cache, []string{dir}, dir)
	if cold.Stats.Cached || got != want {
		t.Fatalf("first run with a cache: cached %v, differs from a run without: %v", cold.Stats.Cached, got != want)
	}
	warm, got := runCached(t, cache, []string{dir}, dir)
	if !warm.Stats.Cached {
		t.Fatal("second run did not use the cache")
	}
	if got != want {
		t.Errorf("cached result differs: %s", firstDiff(got, want))
	}
	// One file of the project, as pre-commit runs it: served from the same entry.
	one := filepath.Join(dir, "helpers")
	if _, err := os.Stat(one); err == nil {
		res, got := runCached(t, cache, []string{one}, dir)
		_, want := runCached(t, "", []string{one}, dir)
		if !res.Stats.Cached || got != want {
			t.Errorf("report scope of one folder: cached %v, same %v", res.Stats.Cached, got == want)
		}
	}
}

// TestCacheCallsOnlyWhenAsked: a run that does not ask for the call records (`check`) is
// served from the entry's head alone; one that does (`calls`) gets them from the same
// entry, also after a run without them rewrote it (a large file touched but unchanged: the
// records are copied as they were).
func TestCacheCallsOnlyWhenAsked(t *testing.T) {
	dir := cacheProject(t)
	write(t, dir, "data.py", strings.Repeat("ROWS = [1, 2, 3]\n", 4000))
	age(t, dir)
	cache := t.TempDir()
	_, want := runCached(t, "", []string{dir}, dir)
	run := func(calls bool) *engine.Result {
		t.Helper()
		res, err := engine.Run(context.Background(), engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir,
			Rules: allRules(), Calls: calls, Cache: &engine.Cache{Dir: cache, Version: "test"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(false); res.Stats.Cached || res.Calls != nil {
		t.Fatalf("first run: cached %v, %d calls not asked for", res.Stats.Cached, len(res.Calls))
	}
	if res := run(false); !res.Stats.Cached || res.Calls != nil || len(res.Report.Findings) == 0 {
		t.Fatalf("warm run without calls: cached %v, %d calls, %d findings", res.Stats.Cached, len(res.Calls), len(res.Report.Findings))
	}
	entries, _ := filepath.Glob(filepath.Join(cache, "*.bin"))
	before, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-30 * time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "data.py"), then, then); err != nil {
		t.Fatal(err)
	}
	if res := run(false); !res.Stats.Cached {
		t.Fatal("a touched, unchanged file should still be served from the cache")
	}
	if after, err := os.ReadFile(entries[0]); err != nil || string(after) == string(before) {
		t.Fatalf("the entry was not rewritten with data.py's new time (err %v)", err)
	}
	res := run(true)
	if got := shown(t, res); !res.Stats.Cached || got != want {
		t.Errorf("calls from the rewritten entry: cached %v, differs %v", res.Stats.Cached, got != want)
	}
}

// TestCacheInvalidation: the cache is used while nothing that mattered changed, and the
// analysis runs again when something did.
func TestCacheInvalidation(t *testing.T) {
	dir := cacheProject(t)
	age(t, dir)
	cache := t.TempDir()
	first, _ := runCached(t, cache, []string{dir}, dir)
	if first.Stats.Cached || len(first.Report.Findings) != 1 {
		t.Fatalf("first run: cached %v, %d findings", first.Stats.Cached, len(first.Report.Findings))
	}
	for _, name := range []string{".gitignore", "CACHEDIR.TAG"} {
		if _, err := os.Stat(filepath.Join(cache, name)); err != nil {
			t.Errorf("cache folder lacks %s: %v", name, err)
		}
	}
	steps := []struct {
		what   string
		change func()
		cached bool
		n      int // findings after the change
	}{
		{"nothing changed", func() {}, true, 1},
		{"a file that matters to nothing changed", func() {
			write(t, dir, "model.py", "import torch.nn as nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        return x * 2\n")
		}, true, 1},
		{"a parsed file touched but not changed", func() {
			now := time.Now()
			if err := os.Chtimes(filepath.Join(dir, "train.py"), now, now); err != nil {
				t.Fatal(err)
			}
		}, true, 1},
		{"a parsed file changed", func() {
			write(t, dir, "train.py", "from pkg.memory import free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n")
		}, false, 0},
		{"an unparsed file now calls the helper", func() {
			write(t, dir, "model.py", "from pkg.memory import free_gpu\n\n\ndef fit(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        free_gpu()\n")
		}, false, 1},
		{"a file added", func() {
			write(t, dir, "extra.py", "x = 1\n")
		}, true, 1},
		{"a file removed", func() {
			if err := os.Remove(filepath.Join(dir, "extra.py")); err != nil {
				t.Fatal(err)
			}
		}, true, 1},
		{"a parsed file renamed (as many files as before)", func() {
			if err := os.Rename(filepath.Join(dir, "model.py"), filepath.Join(dir, "model2.py")); err != nil {
				t.Fatal(err)
			}
		}, false, 1},
	}
	for _, s := range steps {
		s.change()
		res, got := runCached(t, cache, []string{dir}, dir)
		_, want := runCached(t, "", []string{dir}, dir)
		if res.Stats.Cached != s.cached || len(res.Report.Findings) != s.n || got != want {
			t.Errorf("%s: cached %v (want %v), %d findings (want %d), same as without a cache %v",
				s.what, res.Stats.Cached, s.cached, len(res.Report.Findings), s.n, got == want)
		}
	}
}

// TestCacheScope: an entry holds for files added or removed that the analysis would not have
// read: an added file that mentions no needle, a removed one it did not parse, neither of
// them where an import looked for a module (that may resolve to another module, or to none)
// nor an __init__.py that makes a parsed script a package's module.
func TestCacheScope(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "pyproject.toml", "[project]\nname = 'p'\n")
	write(t, dir, "pkg/__init__.py", "")
	write(t, dir, "pkg/memory.py", "import torch\n\n\ndef free_gpu():\n    torch.cuda.empty_cache()\n")
	// `memory` is found by its name anywhere in the tree: pkg/memory.py.
	write(t, dir, "train.py", strings.Replace(trainText, "pkg.memory", "memory", 1))
	write(t, dir, "tools/swap.py", "import torch\n\nbuf = torch.zeros(1 << 20, device='cuda')\ndel buf\ntorch.cuda.empty_cache()\n")
	age(t, dir)
	cache := t.TempDir()
	first, _ := runCached(t, cache, []string{dir}, dir)
	if first.Stats.Cached || len(first.Report.Findings) != 1 {
		t.Fatalf("first run: cached %v, %d findings", first.Stats.Cached, len(first.Report.Findings))
	}
	remove := func(name string) func() {
		return func() {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := []struct {
		what   string
		change func()
		// how the run went: "" served from the cache, "kept" the graph kept (only a parsed
		// file changed), else the end of why the entry did not hold
		how            string
		added, removed int // files added and removed since an entry that held
		n              int // findings after the change
	}{
		{"a file added that nothing looked for", func() { write(t, dir, "notes.py", "x = 1\n") }, "", 1, 0, 1},
		{"a file added in a new folder", func() { write(t, dir, "docs/conf.py", "project = 'p'\n") }, "", 1, 0, 1},
		{"a file removed that was not parsed", remove("notes.py"), "", 0, 1, 1},
		{"a file added that mentions a needle", func() { write(t, dir, "eval.py", "from memory import free_gpu\n") },
			"eval.py was added and names a name searched for", 0, 0, 1},
		// train.py's calls are kept, not resolved again: what their lookups asked still
		// matters to the next run (the step after it).
		{"a parsed file edited, a file added", func() {
			write(t, dir, "tools/swap.py", "import torch\n\nbuf = torch.zeros(1 << 20, device='cuda')\ndel buf\ntorch.cuda.empty_cache()\nx = 1\n")
			write(t, dir, "notes.py", "x = 1\n")
		}, "kept", 1, 0, 1},
		// The import now finds this module first, which re-exports a module without the
		// helper: the call no longer reaches the cache. It names no needle.
		{"a module added where an import looks first", func() { write(t, dir, "memory.py", "from pkg.other import *\n") },
			"memory.py was added where the analysis looked for a module", 0, 0, 0},
		{"that module removed", remove("memory.py"), "memory.py, which the analysis parsed, was removed", 0, 0, 1},
		// A package's module-level code runs on import, not after a person's `del`.
		{"an __init__.py added beside a parsed script", func() { write(t, dir, "tools/__init__.py", "") },
			filepath.Join("tools", "__init__.py") + " was added where the analysis looked for a module", 0, 0, 1},
		{"a file removed that was parsed", remove("eval.py"), "eval.py, which the analysis parsed, was removed", 0, 0, 1},
	}
	for _, s := range steps {
		s.change()
		age(t, dir)
		res, got := runCached(t, cache, []string{dir}, dir)
		_, want := runCached(t, "", []string{dir}, dir)
		st := res.Stats
		how := st.CacheMiss
		switch {
		case st.Cached:
			how = ""
		case st.Kept > 0:
			how = "kept"
		}
		if how != s.how && (s.how == "" || s.how == "kept" || !strings.HasSuffix(how, s.how)) || st.Added != s.added || st.Removed != s.removed ||
			len(res.Report.Findings) != s.n || got != want {
			t.Errorf("%s: %q (want %q), %d added and %d removed (want %d and %d), %d findings (want %d), same as without a cache %v",
				s.what, how, s.how, st.Added, st.Removed, s.added, s.removed, len(res.Report.Findings), s.n, got == want)
		}
	}
}

// TestCacheImportQuestions: a call through a module left unparsed (`pkg.api.free_gpu()`)
// makes the analysis ask whether the module's imports bind the name; a changed text of the
// module that answers otherwise (it now re-exports the helper with `from .memory import *`,
// which names no needle) must not be served the earlier result, and one that answers alike
// is.
func TestCacheImportQuestions(t *testing.T) {
	dir := apiProject(t, "VERSION = 1\n", "import torch\nimport pkg.api\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n"+
		"        model(batch).backward()\n        opt.step()\n        pkg.api.free_gpu()\n\n\n"+
		"def swap(path):\n    model = torch.load(path)\n    torch.cuda.empty_cache()\n    return model\n")
	age(t, dir)
	cache := t.TempDir()
	if first, _ := runCached(t, cache, []string{dir}, dir); first.Stats.Cached || len(first.Report.Findings) != 0 {
		t.Fatalf("first run: cached %v, %d findings", first.Stats.Cached, len(first.Report.Findings))
	}
	steps := []struct {
		what, text string
		cached     bool
		n          int // findings after the change
	}{
		{"the module re-exports the helper by a star import", "from .memory import *\nVERSION = 1\n", false, 1},
		{"the re-export removed", "VERSION = 2\n", false, 0},
		{"another text without imports", "VERSION = 3\n\n\ndef version():\n    return VERSION\n", true, 0},
		{"an import of something else", "from os import path\nVERSION = 3\n", true, 0},
		{"the helper re-exported by name", "from .memory import free_gpu\nVERSION = 3\n", false, 1},
	}
	for _, s := range steps {
		write(t, dir, "pkg/api.py", s.text)
		age(t, dir)
		res, got := runCached(t, cache, []string{dir}, dir)
		_, want := runCached(t, "", []string{dir}, dir)
		if res.Stats.Cached != s.cached || len(res.Report.Findings) != s.n || got != want {
			t.Errorf("%s: cached %v (want %v), %d findings (want %d), same as without a cache %v",
				s.what, res.Stats.Cached, s.cached, len(res.Report.Findings), s.n, got == want)
		}
	}
}

// TestCacheBadEntries: a corrupt, truncated or foreign entry is ignored and rewritten,
// never trusted and never an error; another configuration gets its own entry.
func TestCacheBadEntries(t *testing.T) {
	dir := cacheProject(t)
	age(t, dir)
	cache := t.TempDir()
	_, want := runCached(t, cache, []string{dir}, dir)
	entries := func() []string {
		m, _ := filepath.Glob(filepath.Join(cache, "*.bin"))
		return m
	}
	if len(entries()) != 1 {
		t.Fatalf("entries %v", entries())
	}
	entry := entries()[0]
	good, _ := os.ReadFile(entry)
	for what, data := range map[string][]byte{
		"garbage":   []byte("not a cache entry"),
		"truncated": good[:len(good)/2],
		"empty":     nil,
		"flipped":   append(append([]byte(nil), good[:len(good)-20]...), []byte(strings.Repeat("\xff", 20))...),
	} {
		if err := os.WriteFile(entry, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, got := runCached(t, cache, []string{dir}, dir)
		if got != want || len(res.Warnings) > 0 {
			t.Errorf("%s entry: result differs %v, warnings %v", what, got != want, res.Warnings)
		}
		if res2, _ := runCached(t, cache, []string{dir}, dir); !res2.Stats.Cached {
			t.Errorf("%s entry was not rewritten", what)
		}
	}
	// Another version of cachelint does not read this entry.
	opts := engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Rules: allRules(),
		Cache: &engine.Cache{Dir: cache, Version: "other"}}
	res, err := engine.Run(context.Background(), opts)
	if err != nil || res.Stats.Cached {
		t.Errorf("another version's run: err %v, cached %v", err, res != nil && res.Stats.Cached)
	}
	if len(entries()) != 2 {
		t.Errorf("another version should have its own entry: %v", entries())
	}
	// A run from standard input neither reads nor writes the cache.
	before := len(entries())
	opts = engine.Options{Analysis: analyzers.Engine, Root: dir, Rules: allRules(), Cache: &engine.Cache{Dir: cache, Version: "stdin"},
		Stdin: &engine.Stdin{Name: filepath.Join(dir, "train.py"), Source: []byte("import torch\nfor b in x:\n    torch.cuda.empty_cache()\n")}}
	if res, err := engine.Run(context.Background(), opts); err != nil || res.Stats.Cached || len(entries()) != before {
		t.Errorf("stdin run: err %v, entries %d -> %d", err, before, len(entries()))
	}
}

// TestCacheRewriteWhenWorthIt: a run served from the cache after reading changed files
// again records their new times only when that spares the next run more reading than
// writing the entry costs: not for one small file, yes for a large one (and never for a
// time too recent to trust).
func TestCacheRewriteWhenWorthIt(t *testing.T) {
	dir := cacheProject(t)
	write(t, dir, "data.py", strings.Repeat("ROWS = [1, 2, 3]\n", 4000))
	age(t, dir)
	cache := t.TempDir()
	runCached(t, cache, []string{dir}, dir)
	entries, _ := filepath.Glob(filepath.Join(cache, "*.bin"))
	if len(entries) != 1 {
		t.Fatalf("entries %v", entries)
	}
	stamp := func() time.Time {
		fi, err := os.Stat(entries[0])
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	long := time.Now().Add(-3 * time.Hour)
	if err := os.Chtimes(entries[0], long, long); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		file      string
		reread    int // files read again by the run
		rewritten bool
	}{
		{"model.py", 1, false}, // 88 bytes: read again next time
		{"data.py", 2, true},   // 68 KB: worth the entry's few (model.py's time goes with it)
	}
	for i, s := range steps {
		then := time.Now().Add(-time.Duration(30+i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, s.file), then, then); err != nil {
			t.Fatal(err)
		}
		res, _ := runCached(t, cache, []string{dir}, dir)
		if !res.Stats.Cached || res.Stats.Reread != s.reread {
			t.Fatalf("%s touched: cached %v, %d file(s) read again, want %d", s.file, res.Stats.Cached, res.Stats.Reread, s.reread)
		}
		if got := !stamp().Equal(long); got != s.rewritten {
			t.Errorf("%s touched: entry rewritten %v, want %v", s.file, got, s.rewritten)
		}
	}
	// Both new times are recorded: the next run reads neither again.
	if res, _ := runCached(t, cache, []string{dir}, dir); !res.Stats.Cached || res.Stats.Reread != 0 {
		t.Errorf("after the rewrite: cached %v, %d file(s) read again, want none", res.Stats.Cached, res.Stats.Reread)
	}
}

// TestCacheBitFlips: an entry with one bit flipped anywhere (format, lengths, head, call
// records, checksums) is a miss for a run that reads it whole (`calls`), never taken for
// another analysis; the run shows what the analysis finds.
func TestCacheBitFlips(t *testing.T) {
	dir := cacheProject(t)
	age(t, dir)
	cache := t.TempDir()
	_, want := runCached(t, "", []string{dir}, dir)
	runCached(t, cache, []string{dir}, dir)
	entries, _ := filepath.Glob(filepath.Join(cache, "*.bin"))
	if len(entries) != 1 {
		t.Fatalf("entries %v", entries)
	}
	good, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(good); i += 5 {
		bad := append([]byte(nil), good...)
		bad[i] ^= 1 << (i % 8)
		if err := os.WriteFile(entries[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		res, got := runCached(t, cache, []string{dir}, dir)
		if res.Stats.Cached || got != want {
			t.Fatalf("bit %d of byte %d (of %d) flipped: cached %v, result differs %v", i%8, i, len(good), res.Stats.Cached, got != want)
		}
	}
}

// TestCacheConcurrentRuns: runs sharing a cache folder at once all see the right result and
// leave a readable entry.
func TestCacheConcurrentRuns(t *testing.T) {
	dir := cacheProject(t)
	age(t, dir)
	cache := t.TempDir()
	_, want := runCached(t, "", []string{dir}, dir)
	var wg sync.WaitGroup
	got := make([]string, 6)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Rules: allRules(), Calls: true,
				Cache: &engine.Cache{Dir: cache, Version: "test"}}
			res, err := engine.Run(context.Background(), opts)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = shown(t, res)
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("run %d differs", i)
		}
	}
	if res, g := runCached(t, cache, []string{dir}, dir); !res.Stats.Cached || g != want {
		t.Errorf("after concurrent runs: cached %v, same %v", res.Stats.Cached, g == want)
	}
	if tmp, _ := filepath.Glob(filepath.Join(cache, ".tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	// A temporary file that a killed run left an hour ago goes at the next write; a fresh
	// one (a concurrent run's) stays.
	old, fresh := filepath.Join(cache, ".tmp-killed"), filepath.Join(cache, ".tmp-writing")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hourAgo := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "train.py", "# edited\n"+trainText) // a change that matters: the entry is written again
	if res, _ := runCached(t, cache, []string{dir}, dir); res.Stats.Cached {
		t.Error("a change to a parsed file was served from the cache")
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("an hour-old temporary file was left")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file (another run's) was removed")
	}
}

// firstDiff shows where two texts part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return "got ..." + a[from:min(len(a), i+80)] + "... want ..." + b[from:min(len(b), i+80)] + "..."
}

// TestRereadWithCollector: files touched but unchanged are read again with the collector on
// (a checkout that touches every file has them all read, each text garbage at once), though
// the walk and the entry's decoding run with it paused.
func TestRereadWithCollector(t *testing.T) {
	dir := cacheProject(t)
	age(t, dir)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	_, want := runCached(t, cacheDir, []string{dir}, dir)
	touched := time.Now().Add(-30 * time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "model.py"), touched, touched); err != nil {
		t.Fatal(err)
	}
	var percents []int
	engine.SetRereadHook(func() {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		percents = append(percents, p)
	})
	defer engine.SetRereadHook(nil)
	res, got := runCached(t, cacheDir, []string{dir}, dir)
	if !res.Stats.Cached || got != want {
		t.Fatalf("touched file: cached %v, same output %v", res.Stats.Cached, got == want)
	}
	if len(percents) == 0 {
		t.Fatal("no file was read again")
	}
	for _, p := range percents {
		if p < 0 {
			t.Fatalf("a file was read again with the collector off (GOGC %d)", p)
		}
	}
}

// TestCacheReportedAlone: a run that reports one file (as pre-commit runs it) finds there
// what a run over the whole fixture corpus finds there, though it follows only the calls
// whose records can fall in that file (driver.Settings.Reported); its entry then holds for
// that file, and not for a run that reports more: that run finds everything, taking up the
// entry's kept graph.
func TestCacheReportedAlone(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "src")
	whole, _ := runCached(t, "", []string{dir}, dir)
	byFile := map[string]bool{}
	for _, c := range whole.Calls {
		byFile[c.File] = true
	}
	if len(byFile) < 20 {
		t.Fatalf("the corpus's calls are in %d files", len(byFile))
	}
	if st := whole.Stats; st.CacheCalls == 0 || st.Classified != st.CacheCalls {
		t.Fatalf("the whole corpus: %d of %d cache calls classified", st.Classified, st.CacheCalls)
	}
	_, wantWhole := runCached(t, "", []string{dir}, dir)
	narrowed := 0
	for file := range byFile {
		cache := t.TempDir()
		res, _ := runCached(t, cache, []string{file}, dir)
		if st := res.Stats; st.CacheCalls != whole.Stats.CacheCalls || st.Classified > st.CacheCalls {
			t.Errorf("%s reported alone: %d of %d cache calls classified, the corpus has %d", file, st.Classified, st.CacheCalls, whole.Stats.CacheCalls)
		} else if st.Classified < st.CacheCalls {
			narrowed++
		}
		if got, want := inFile(t, res, file), inFile(t, whole, file); got != want {
			t.Errorf("%s reported alone:\n%s\nthe whole corpus reported:\n%s", file, got, want)
			continue
		}
		if again, got := runCached(t, cache, []string{file}, dir); !again.Stats.Cached || inFile(t, again, file) != inFile(t, whole, file) {
			t.Errorf("%s reported alone again: cached %v, the same %v", file, again.Stats.Cached, got == inFile(t, whole, file))
		}
		all, got := runCached(t, cache, []string{dir}, dir)
		if all.Stats.Cached || all.Stats.Kept == 0 || got != wantWhole {
			t.Errorf("the corpus after %s reported alone: cached %v, %d files' calls kept, the same as without a cache %v: %s",
				file, all.Stats.Cached, all.Stats.Kept, got == wantWhole, firstDiff(got, wantWhole))
		}
	}
	if narrowed == 0 {
		t.Error("no file reported alone had fewer cache calls classified")
	}
}

// inFile is what a result shows of one file: its findings and call records, as JSON.
func inFile(t *testing.T, res *engine.Result, file string) string {
	t.Helper()
	var fs, cs []any
	for _, f := range res.Report.Findings {
		if f.File == file {
			fs = append(fs, f)
		}
	}
	for _, c := range res.Calls {
		if c.File == file {
			cs = append(cs, c)
		}
	}
	b, err := json.Marshal([]any{fs, cs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
