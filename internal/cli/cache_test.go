package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheFlags: a check keeps its analysis in .cachelint_cache in the project root and
// the next one reuses it (one file of the project too, as pre-commit runs it), with the
// same output; --no-cache and CACHELINT_NO_CACHE leave no cache; --cache-dir,
// CACHELINT_CACHE_DIR and the configuration's cache-dir choose the folder, in that order.
func TestCacheFlags(t *testing.T) {
	w := newWorkspace(t)
	dir, err := w.inside("precommit")
	if err != nil {
		t.Fatal(err)
	}
	w.dir = dir
	run := func(env []string, args ...string) result {
		t.Helper()
		res, err := w.exec(append([]string{"check", "--verbose", "--format", "concise"}, args...),
			append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home}, env...), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	cached := func(r result) bool { return strings.Contains(string(r.stderr), "since the analysis in") }
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(dir, p))
		return err == nil
	}

	cold := run(nil, ".")
	if cached(cold) || !exists(".cachelint_cache/.gitignore") || !exists(".cachelint_cache/CACHEDIR.TAG") {
		t.Fatalf("first run: cached %v, cache folder written %v\n%s", cached(cold), exists(".cachelint_cache/.gitignore"), cold.stderr)
	}
	warm := run(nil, ".")
	if !cached(warm) || string(warm.stdout) != string(cold.stdout) || warm.exit != cold.exit {
		t.Errorf("second run: cached %v, same output %v\n%s", cached(warm), string(warm.stdout) == string(cold.stdout), warm.stderr)
	}
	if one := run(nil, "pkg/train.py"); !cached(one) || !strings.Contains(string(one.stdout), "pkg/train.py:9:9: CL001") {
		t.Errorf("one file: cached %v\n%s%s", cached(one), one.stdout, one.stderr)
	}
	// A file edited that matters to nothing: served from the entry, and --verbose says it
	// was read again rather than that nothing changed.
	if err := os.WriteFile(filepath.Join(dir, "pkg", "__init__.py"), []byte("VERSION = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(nil, "pkg/__init__.py"); !cached(r) || !strings.Contains(string(r.stderr), "no change that matters since the analysis in") ||
		!strings.Contains(string(r.stderr), "file(s) read again") {
		t.Errorf("a file that matters to nothing edited: cached %v\n%s", cached(r), r.stderr)
	}

	if err := os.RemoveAll(filepath.Join(dir, ".cachelint_cache")); err != nil {
		t.Fatal(err)
	}
	for _, r := range []result{run(nil, "--no-cache", "."), run([]string{"CACHELINT_NO_CACHE=1"}, ".")} {
		if cached(r) || exists(".cachelint_cache") || string(r.stdout) != string(cold.stdout) {
			t.Errorf("without a cache: cached %v, folder written %v\n%s", cached(r), exists(".cachelint_cache"), r.stderr)
		}
	}

	cfg := filepath.Join(dir, "pyproject.toml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, "\n[tool.cachelint]\ncache-dir = \"build/cl-cache\"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, nil, "build/cl-cache"},
		{[]string{"CACHELINT_CACHE_DIR=env-cache"}, nil, "env-cache"},
		{[]string{"CACHELINT_CACHE_DIR=env-cache"}, []string{"--cache-dir", "flag-cache"}, "flag-cache"},
	} {
		run(tc.env, append(tc.args, ".")...)
		if !exists(filepath.Join(tc.want, ".gitignore")) {
			t.Errorf("env %v args %v: no cache in %s", tc.env, tc.args, tc.want)
		}
		if r := run(tc.env, append(tc.args, ".")...); !cached(r) {
			t.Errorf("env %v args %v: second run not cached\n%s", tc.env, tc.args, r.stderr)
		}
	}
	if exists(".cachelint_cache") {
		t.Error("a configured cache folder still wrote the default one")
	}
}

// TestClean: `cachelint clean` removes the caches cachelint wrote under the path (and the
// configured one), as `ruff clean` does, and leaves a user's folder of the same name alone.
func TestClean(t *testing.T) {
	w := newWorkspace(t)
	dir, err := w.inside("precommit")
	if err != nil {
		t.Fatal(err)
	}
	w.dir = dir
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home}
	run := func(args ...string) result {
		t.Helper()
		res, err := w.exec(args, env, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run("check", "--exit-zero", ".")
	run("check", "--exit-zero", "--cache-dir", "elsewhere", ".")
	mine := filepath.Join(dir, "pkg", ".cachelint_cache")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run("clean", "--cache-dir", "elsewhere")
	out := string(res.stdout)
	if res.exit != 0 || !strings.Contains(out, "Removed cache at: elsewhere") || !strings.Contains(out, ".cachelint_cache") {
		t.Fatalf("clean: exit %d\n%s%s", res.exit, out, res.stderr)
	}
	for _, gone := range []string{".cachelint_cache", "elsewhere"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s was not removed", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(mine, "notes.txt")); err != nil {
		t.Error("a folder cachelint did not write was removed")
	}
	if res := run("clean", "nonexistent"); res.exit != 2 {
		t.Errorf("clean of a missing path: exit %d", res.exit)
	}
}
