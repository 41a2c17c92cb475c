package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/internal/report"
)

// reposTree writes a folder of two clones, a and b, with no Python of its own. a calls,
// in a step loop, a helper of its own and one of its submodule third_party/sub; b calls a's
// helper by the same import, as if a were installed.
func reposTree(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for _, d := range []string{"a/.git", "b/.git"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	loop := "def train(model, loader, opt):\n    for batch in loader:\n        model(batch).sum().backward()\n        opt.step()\n"
	write(t, ws, "a/pyproject.toml", "[project]\nname = 'a'\n")
	write(t, ws, "a/a_pkg/__init__.py", "")
	write(t, ws, "a/a_pkg/mem.py", "import torch\n\n\ndef cleanup():\n    torch.cuda.empty_cache()\n")
	write(t, ws, "a/train.py", "from a_pkg.mem import cleanup\nfrom subpkg.util import release\n\n\n"+loop+"        cleanup()\n        release()\n")
	write(t, ws, "a/third_party/sub/.git", "gitdir: ../../.git/modules/sub\n")
	write(t, ws, "a/third_party/sub/subpkg/__init__.py", "")
	write(t, ws, "a/third_party/sub/subpkg/util.py", "import torch\n\n\ndef release():\n    torch.cuda.empty_cache()\n")
	write(t, ws, "b/train.py", "from a_pkg.mem import cleanup\n\n\n"+loop+"        cleanup()\n")
	return ws
}

// runIn runs check (with the call records) on path and more from the working directory dir,
// with the cache in its default folder when cached.
func runIn(t *testing.T, dir, path string, cached bool, more ...string) *engine.Result {
	t.Helper()
	t.Chdir(dir)
	opts := engine.Options{Analysis: analyzers.Engine, Paths: append([]string{path}, more...), Rules: allRules(), Calls: true}
	if cached {
		opts.Cache = &engine.Cache{Version: "test"}
	}
	res, err := engine.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	return res
}

// reported is the results' findings and call records, one list of each, as JSON.
func reported(t *testing.T, results ...*engine.Result) string {
	t.Helper()
	var findings, calls []any
	for _, res := range results {
		for _, f := range res.Report.Findings {
			findings = append(findings, f)
		}
		for _, c := range res.Calls {
			calls = append(calls, c)
		}
	}
	b, err := json.Marshal([]any{findings, calls})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRepositoriesAnalysedAlone: a folder of clones reports what each clone's own run
// reports, in one list; b's call of a's helper is not resolved (b's own run cannot see
// a), while a's call into its submodule is. The submodule's files are reported as its
// own run reports them. With the cache, the same again.
func TestRepositoriesAnalysedAlone(t *testing.T) {
	ws := reposTree(t)
	all := runIn(t, ws, ".", false)
	// The repositories analysed at the same time: the same result.
	restore := engine.SetUnitsAtOnce(3)
	together := runIn(t, ws, ".", false)
	restore()
	s1, s2 := together.Stats, all.Stats
	s1.Elapsed, s2.Elapsed = 0, 0
	if reported(t, together) != reported(t, all) || s1 != s2 {
		t.Errorf("three repositories at once:\n%s\none at a time:\n%s", reported(t, together), reported(t, all))
	}
	a, b := runIn(t, ws, "a", false), runIn(t, ws, "b", false)
	// Each clone's run concatenated: a's files sort before b's, as the tree's run orders them.
	merged := reported(t, a, b)
	got := reported(t, all)
	if got != merged {
		t.Errorf("the tree's run:\n%s\nits clones' runs:\n%s", got, merged)
	}
	if !slices.IsSortedFunc(all.Calls, func(x, y report.CallRecord) int { return strings.Compare(x.File, y.File) }) {
		t.Errorf("call records not in file order: %v", all.Calls)
	}
	if all.Stats.Repositories != 3 {
		t.Errorf("%d repositories analysed, want 3 (a, its submodule, b)", all.Stats.Repositories)
	}
	var lines []string
	for _, f := range all.Report.Findings {
		lines = append(lines, f.File+":"+f.Code+" "+f.Message)
	}
	text := strings.Join(lines, "\n")
	if len(all.Report.Findings) != 2 || !strings.Contains(text, "a/train.py:CL001 cleanup()") || !strings.Contains(text, "a/train.py:CL001 release()") {
		t.Errorf("want a/train.py's two calls reported (its own helper, its submodule's), and nothing of b:\n%s", text)
	}
	// A pre-commit run of a's own file: one project (its submodule indexed), as before the
	// repositories were told apart, and the file's findings as in a's run.
	one := runIn(t, filepath.Join(ws, "a"), "train.py", false)
	if one.Stats.Repositories != 0 || len(one.Report.Findings) != 2 {
		t.Errorf("a/train.py alone: %d repositories analysed apart (want 0), %d findings (want 2)", one.Stats.Repositories, len(one.Report.Findings))
	}
	sub := runIn(t, filepath.Join(ws, "a", "third_party", "sub"), ".", false)
	var subCalls []string
	for _, c := range all.Calls {
		if strings.HasPrefix(c.File, "a/third_party/sub/") {
			c.File = strings.TrimPrefix(c.File, "a/third_party/sub/")
			b, _ := json.Marshal(c)
			subCalls = append(subCalls, string(b))
		}
	}
	var own []string
	for _, c := range sub.Calls {
		b, _ := json.Marshal(c)
		own = append(own, string(b))
	}
	if len(own) == 0 || strings.Join(subCalls, "\n") != strings.Join(own, "\n") {
		t.Errorf("the submodule's calls in the tree's run:\n%s\nin its own run:\n%s", strings.Join(subCalls, "\n"), strings.Join(own, "\n"))
	}

	first := runIn(t, ws, ".", true)
	again := runIn(t, ws, ".", true)
	if again.Stats.CacheDir != filepath.Join(ws, engine.DefaultCacheDir) {
		t.Errorf("cache folder %s, want the tree's", again.Stats.CacheDir)
	}
	for _, r := range []string{"a", "b", "a/third_party/sub"} {
		if _, err := os.Stat(filepath.Join(ws, r, engine.DefaultCacheDir)); err == nil {
			t.Errorf("a cache folder written into %s", r)
		}
	}
	if reported(t, first) != got || reported(t, again) != got || !again.Stats.Cached || first.Stats.Cached {
		t.Errorf("with the cache: first run cached %v, second %v; the same findings: %v, %v",
			first.Stats.Cached, again.Stats.Cached, reported(t, first) == got, reported(t, again) == got)
	}

	// noqa comments go into the files of each repository, read from its own analysis.
	n, err := again.AddNoqa()
	if err != nil || n != 2 {
		t.Fatalf("AddNoqa: %d added, %v; want 2", n, err)
	}
	if after := runIn(t, ws, ".", false); len(after.Report.Findings) != 0 {
		t.Errorf("after AddNoqa: %v", after.Report.Findings)
	}

	// A repository of one file, named with a file of a as pre-commit names staged files
	// (the report scope's own walk walks no folder holding its .git): still a repository.
	write(t, ws, "a/vendored/.git", "gitdir: ../.git/modules/vendored\n")
	write(t, ws, "a/vendored/tool.py", "import torch\n\n\ndef tidy():\n    torch.cuda.empty_cache()\n")
	named := runIn(t, filepath.Join(ws, "a"), "train.py", false, "vendored/tool.py")
	if named.Stats.Repositories != 2 {
		t.Errorf("train.py and vendored/tool.py named from a: %d repositories analysed apart, want 2 (a, vendored)", named.Stats.Repositories)
	}
}

// TestRepositoriesCancelled: a cancelled run over a tree of repositories stops with the
// context's error, whichever repository saw it.
func TestRepositoriesCancelled(t *testing.T) {
	ws := reposTree(t)
	t.Chdir(ws)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	defer engine.SetUnitsAtOnce(3)()
	_, err := engine.Run(ctx, engine.Options{Analysis: analyzers.Engine, Paths: []string{"."}, Rules: allRules()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestRepositoriesFixed: --fix over a folder of clones fixes each clone's file, each read
// and checked by the repository that reported it: b's file already has a syntax error, which
// only b's analysis counted, so its fixed text (with the same error) is kept.
func TestRepositoriesFixed(t *testing.T) {
	ws := t.TempDir()
	loop := "import torch\n\n\ndef train(model, loader, opt):\n    for batch in loader:\n        model(batch).backward()\n        opt.step()\n        torch.cuda.empty_cache()\n"
	for _, r := range []string{"a", "b"} {
		write(t, ws, r+"/.git/HEAD", "ref: refs/heads/main\n")
		write(t, ws, r+"/train.py", loop)
	}
	write(t, ws, "b/train.py", loop+"\n\ndef broken(:\n    pass\n")
	t.Chdir(ws)
	progress := &engine.Progress{}
	res, err := engine.Run(context.Background(), engine.Options{Analysis: analyzers.Engine, Paths: []string{"."}, Rules: allRules(), Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Repositories != 2 || len(res.Report.Findings) != 2 {
		t.Fatalf("%d repositories, %d findings; want 2 and 2", res.Stats.Repositories, len(res.Report.Findings))
	}
	if progress.Repos.Load() != 2 || progress.Done.Load() != 2 {
		t.Errorf("progress: %d of %d repositories done, want 2 of 2", progress.Done.Load(), progress.Repos.Load())
	}
	var diff strings.Builder
	sum, err := res.ApplyFixes(engine.FixOptions{Unsafe: true, Diff: &diff})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Fixed != 2 || sum.Files != 2 || !strings.Contains(diff.String(), "a/train.py") || !strings.Contains(diff.String(), "b/train.py") {
		t.Errorf("fixed %d in %d files (want 2 in 2):\n%s", sum.Fixed, sum.Files, diff.String())
	}
}
