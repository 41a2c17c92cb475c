package engine_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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
	if stores, _ := filepath.Glob(filepath.Join(cacheDir, "*.graph")); len(stores) != 1 {
		t.Fatalf("graph stores %v, want one", stores)
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
		kept   bool
	}{
		{"a call added to a loop body", func() {
			edit("train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(batch)\n", 1))
		}, true},
		{"a parsed file and a file that matters to nothing", func() {
			edit("train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(batch, opt)\n", 1))
			edit("model.py", "import torch.nn as nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        return x + 1\n")
		}, true},
		{"a parsed file and a file that now calls a helper", func() {
			edit("train.py", strings.Replace(trainText, "        opt.step()\n", "        opt.step()\n        print(opt)\n", 1))
			edit("model.py", "import torch.nn as nn\nfrom pkg.memory import free_gpu\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        free_gpu()\n        return x\n")
		}, false},
		{"a docstring and a comment", func() {
			edit("pkg/memory.py", strings.Replace(memory, "def free_gpu():\n", "def free_gpu():\n    \"\"\"Frees the cache.\"\"\"\n    # every step\n", 1))
		}, true},
		{"two files, calls moved within the loop and after it", func() {
			edit("train.py", strings.Replace(strings.Replace(trainText, "        free_gpu()\n", "", 1), "        opt.step()\n", "        free_gpu()\n        opt.step()\n", 1))
			edit("eval.py", "from pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n    print(model)\n    free_gpu()\n")
		}, true},
		{"a call moved into the loop: the helper's callers are not looked for any more", func() {
			edit("eval.py", "from pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n        free_gpu()\n    print(model)\n")
		}, false},
		{"an assignment in a function body", func() {
			edit("pkg/memory.py", strings.Replace(memory, "def free_gpu():\n", "def free_gpu():\n    n = 1\n", 1))
		}, false},
		{"a function added", func() {
			edit("train.py", trainText+"\n\ndef more():\n    pass\n")
		}, false},
		{"the only call of a helper dropped: another helper set", func() {
			edit("train.py", strings.Replace(trainText, "        free_gpu()\n", "", 1)+"\n\ndef more():\n    pass\n")
			edit("eval.py", "from pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n")
		}, false},
		{"a cache call added where none was, with its import", func() {
			edit("eval.py", "import torch\nfrom pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n        torch.cuda.empty_cache()\n")
		}, false},
		{"a function another file calls through changes what it returns", func() {
			edit("pkg/memory.py", memory+"\n\ndef noop():\n    pass\n\n\ndef cleaner():\n    return free_gpu\n")
			edit("train.py", "from pkg.memory import cleaner, free_gpu\n\n\ndef train(loader, model, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        cleaner()()\n    free_gpu()\n")
		}, false},
		{"(what it returns)", func() {
			edit("pkg/memory.py", memory+"\n\ndef noop():\n    pass\n\n\ndef cleaner():\n    return noop\n")
		}, false},
		{"a call added once more", func() {
			edit("eval.py", "import torch\nfrom pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        model(batch)\n        torch.cuda.empty_cache()\n        free_gpu()\n")
		}, true},
		{"a with statement added", func() {
			edit("eval.py", "import torch\nfrom pkg.memory import free_gpu\n\n\ndef evaluate(loader, model):\n    for batch in loader:\n        with torch.no_grad():\n            model(batch)\n        torch.cuda.empty_cache()\n        free_gpu()\n")
		}, false},
	}
	// Why the steps not kept ran in full (Stats.KeptMiss, what --verbose prints).
	reasons := map[string]string{
		"an assignment in a function body":                      "memory.py changed in more than the call, string and pass statements",
		"a function added":                                      "changed in more than",
		"a with statement added":                                "changed in more than",
		"the only call of a helper dropped: another helper set": "the functions that empty the cache changed",
		"a call moved into the loop: the helper's callers are not looked for any more": "the names searched for changed",
		"a cache call added where none was, with its import":                           "eval.py changed in more than",
		"a function another file calls through changes what it returns":                "changed in more than",
		"(what it returns)": "changed in more than",
	}
	for _, s := range steps {
		s.change()
		res, got := runCached(t, cacheDir, []string{dir}, dir)
		_, want := runCached(t, "", []string{dir}, dir)
		if got != want {
			t.Fatalf("%s: the run differs from one without the cache: %s", s.what, firstDiff(got, want))
		}
		if kept := res.Stats.Kept > 0; kept != s.kept || res.Stats.Cached {
			t.Errorf("%s: %d files' graph kept, cached %v; want kept %v", s.what, res.Stats.Kept, res.Stats.Cached, s.kept)
		}
		if want := reasons[s.what]; !strings.Contains(res.Stats.KeptMiss, want) || want == "" && res.Stats.KeptMiss != "" {
			t.Errorf("%s: the reason given for running in full is %q, want one saying %q", s.what, res.Stats.KeptMiss, want)
		}
	}
	// A store garbled on disk, or one of another run, is not read.
	stores, _ := filepath.Glob(filepath.Join(cacheDir, "*.graph"))
	for i, garble := range []func([]byte) []byte{
		func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
		func(b []byte) []byte { return b[:len(b)-1] },
	} {
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
	}
}

// TestGraphKeptCorpus: over the fixture corpus, a call added after each direct cache call
// that stands on a line of its own in a function (one file at a time) leaves the run with
// the cache showing what a run without it shows.
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
		if i%4 != 0 { // a quarter of them: two runs of the corpus each
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := line.FindSubmatchIndex(data)
		edited := string(data[:m[1]]) + string(data[m[2]:m[3]]) + "print(\"edited\")\n" + string(data[m[1]:])
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
