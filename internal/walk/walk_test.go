package walk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// write creates each file (parents included) under root.
func write(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("import torch\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rel lists the files found, relative to root, with forward slashes.
func rel(t *testing.T, root string, files []File) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		r, err := filepath.Rel(root, f.Abs)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

func mustFiles(t *testing.T, roots []string, opts Options) []File {
	t.Helper()
	files, warnings, err := Files(roots, opts)
	if err != nil {
		t.Fatalf("Files(%q): %v", roots, err)
	}
	for _, w := range warnings {
		t.Errorf("unexpected warning: %v", w)
	}
	return files
}

// isolateGit keeps the developer's global git configuration out of the test.
func isolateGit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func TestDefaultExcludesAndKinds(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	write(t, root,
		"train.py", "types.pyi", "nb.ipynb", "README.md", "setup.cfg",
		"src/pkg/model.py", "src/pkg/__pycache__/model.cpython-312.py",
		".venv/lib/torch.py", "venv/lib/torch.py", "node_modules/x.py",
		"build/lib/train.py", "dist/train.py", ".tox/py312/x.py", ".git/hooks/x.py",
		"notebooks/.ipynb_checkpoints/nb-checkpoint.ipynb", "notebooks/nb.ipynb",
		"lib/site-packages/x.py", ".mypy_cache/x.py", "Upper.PY",
	)
	files := mustFiles(t, []string{root}, Options{Base: root, RespectGitignore: true})
	got := rel(t, root, files)
	want := []string{"Upper.PY", "nb.ipynb", "notebooks/nb.ipynb", "src/pkg/model.py", "train.py", "types.pyi"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("files = %q, want %q", got, want)
	}
	kinds := map[string]Kind{}
	for _, f := range files {
		kinds[filepath.Base(f.Path)] = f.Kind
		if f.Explicit {
			t.Errorf("%s found by walking is marked explicit", f.Path)
		}
	}
	if kinds["train.py"] != Python || kinds["types.pyi"] != Stub || kinds["nb.ipynb"] != Notebook {
		t.Errorf("kinds = %v", kinds)
	}
}

func TestPathIsRootJoinedWithRelativePath(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	write(t, root, "src/a.py")
	t.Chdir(root)
	files := mustFiles(t, []string{"."}, Options{})
	if len(files) != 1 || files[0].Path != filepath.FromSlash("src/a.py") {
		t.Fatalf("files = %+v, want Path src/a.py", files)
	}
	files = mustFiles(t, []string{"./src/"}, Options{})
	if len(files) != 1 || files[0].Path != filepath.FromSlash("src/a.py") {
		t.Fatalf("files = %+v, want Path src/a.py", files)
	}
	if files[0].Abs != filepath.Join(root, "src", "a.py") {
		t.Errorf("Abs = %s", files[0].Abs)
	}
}

func TestExcludeReplacesDefaultsAndExtendExcludeAdds(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	write(t, root, "a.py", "venv/v.py", "gen/x_pb2.py", "src/legacy/old.py",
		"src/new.py", "tests/unit/test_a.py", "tests/conftest.py", "other/legacy/kept.py")

	// exclude = [] turns the defaults off.
	got := rel(t, root, mustFiles(t, []string{root}, Options{Base: root, Exclude: []string{}}))
	if !slices.Contains(got, "venv/v.py") {
		t.Errorf("exclude=[] still skipped venv: %q", got)
	}

	// exclude replaces the defaults: venv is walked again, only "gen" is skipped.
	got = rel(t, root, mustFiles(t, []string{root}, Options{Base: root, Exclude: []string{"gen"}}))
	if !slices.Contains(got, "venv/v.py") || slices.Contains(got, "gen/x_pb2.py") {
		t.Errorf("exclude=[gen]: %q", got)
	}

	// extend-exclude keeps the defaults and adds: a base-name glob, a path anchored at
	// Base (so other/legacy stays), and a ** glob.
	got = rel(t, root, mustFiles(t, []string{root}, Options{
		Base:          root,
		ExtendExclude: []string{"*_pb2.py", "src/legacy/", "tests/**/test_*.py"},
	}))
	want := []string{"a.py", "other/legacy/kept.py", "src/new.py", "tests/conftest.py"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("extend-exclude: files = %q, want %q", got, want)
	}
}

func TestAnchoredPatternsResolveAgainstBase(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	write(t, root, "proj/src/legacy/old.py", "proj/src/new.py")
	// Base is proj (where the config file is); walking from its parent must still
	// exclude proj/src/legacy.
	got := rel(t, root, mustFiles(t, []string{root}, Options{
		Base: filepath.Join(root, "proj"), ExtendExclude: []string{"src/legacy"},
	}))
	if want := []string{"proj/src/new.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
}

func TestExplicitFilesAlwaysKeptUnlessForceExclude(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	write(t, root, "build/gen.py", "legacy/old.py", "scripts/train", "ignored.py", "ok.py")
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeText(t, filepath.Join(root, ".gitignore"), "ignored.py\n")
	roots := []string{
		filepath.Join(root, "build/gen.py"),  // default exclude
		filepath.Join(root, "legacy/old.py"), // extend-exclude via its directory
		filepath.Join(root, "scripts/train"), // no extension: pre-commit passes python shebang files
		filepath.Join(root, "ignored.py"),    // gitignored
		filepath.Join(root, "ok.py"),
	}
	opts := Options{Base: root, ExtendExclude: []string{"legacy"}, RespectGitignore: true}
	files := mustFiles(t, roots, opts)
	got := rel(t, root, files)
	want := []string{"build/gen.py", "ignored.py", "legacy/old.py", "ok.py", "scripts/train"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("explicit files = %q, want %q", got, want)
	}
	for _, f := range files {
		if !f.Explicit {
			t.Errorf("%s not marked explicit", f.Path)
		}
		if f.Kind != Python {
			t.Errorf("%s kind %s, want python", f.Path, f.Kind)
		}
	}

	opts.ForceExclude = true
	got = rel(t, root, mustFiles(t, roots, opts))
	want = []string{"ignored.py", "ok.py", "scripts/train"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with ForceExclude = %q, want %q", got, want)
	}
	// A directory named explicitly is excluded whole under ForceExclude.
	got = rel(t, root, mustFiles(t, []string{filepath.Join(root, "legacy")}, opts))
	if len(got) != 0 {
		t.Errorf("ForceExclude kept files of an excluded directory: %q", got)
	}
	// ...and walked when named without it, even though it is excluded.
	opts.ForceExclude = false
	got = rel(t, root, mustFiles(t, []string{filepath.Join(root, "build")}, opts))
	if want := []string{"build/gen.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("explicit excluded dir = %q, want %q", got, want)
	}
}

func TestSortedAndDeduplicated(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	write(t, root, "b.py", "a.py", "sub/c.py")
	t.Chdir(root)
	files := mustFiles(t, []string{".", "b.py", "./b.py", "sub", root}, Options{})
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.ToSlash(f.Path))
	}
	if want := []string{"a.py", "b.py", "sub/c.py"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths = %q, want %q", paths, want)
	}
	if !files[1].Explicit {
		t.Errorf("b.py was named explicitly but is not marked so")
	}
	if !sort.SliceIsSorted(files, func(i, j int) bool { return files[i].Path < files[j].Path }) {
		t.Errorf("not sorted")
	}
}

func TestMissingRootIsAnError(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "nope.py")
	_, _, err := Files([]string{missing}, Options{})
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("err = %v, want one naming %s", err, missing)
	}
}

func TestInvalidPatternIsAnError(t *testing.T) {
	_, _, err := Files([]string{t.TempDir()}, Options{ExtendExclude: []string{"src/[a-"}})
	if err == nil || !strings.Contains(err.Error(), "src/[a-") {
		t.Fatalf("err = %v, want one naming the pattern", err)
	}
}

func TestNonASCIIAndSpaces(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	names := []string{"données d'entraînement/modèle 1.py", "训练/循环.py", "with space.ipynb", "ünïcödé dir/x.pyi"}
	write(t, root, names...)
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeText(t, filepath.Join(root, ".gitignore"), "训练/\n")
	got := rel(t, root, mustFiles(t, []string{root}, Options{RespectGitignore: true}))
	want := []string{"données d'entraînement/modèle 1.py", "with space.ipynb", "ünïcödé dir/x.pyi"}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	// Named explicitly, a non-ASCII path with spaces is kept as given.
	p := filepath.Join(root, "données d'entraînement", "modèle 1.py")
	files := mustFiles(t, []string{p}, Options{})
	if len(files) != 1 || files[0].Path != p {
		t.Errorf("explicit = %+v", files)
	}
}

func TestSymlinkLoopTerminatesAndLinksAreNotFollowed(t *testing.T) {
	isolateGit(t)
	outside := t.TempDir()
	write(t, outside, "secret/outside.py", "lone.py")
	root := t.TempDir()
	write(t, root, "pkg/a.py", "pkg/deep/b.py")
	links := map[string]string{
		"pkg/deep/loop":  "..",                                   // cycle back up
		"pkg/self":       ".",                                    // cycle on itself
		"out":            filepath.Join(outside, "secret"),       // directory out of the tree
		"pkg/linked.py":  filepath.Join(outside, "lone.py"),      // file out of the tree
		"pkg/alias.py":   "a.py",                                 // file inside the tree
		"dangling.py":    filepath.Join(outside, "no-such-file"), // broken link
		"pkg/deep/again": filepath.Join(root, "pkg"),             // absolute cycle
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	got := rel(t, root, mustFiles(t, []string{root}, Options{}))
	if want := []string{"pkg/a.py", "pkg/deep/b.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}

	// A symlink named explicitly is followed: the user asked for it.
	link := filepath.Join(root, "out")
	files := mustFiles(t, []string{link}, Options{})
	if len(files) != 1 || files[0].Path != filepath.Join(link, "outside.py") {
		t.Errorf("explicit link: %+v", files)
	}
}

func TestUnreadableDirectoryIsAWarningAndTheWalkGoesOn(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.py", "z.py")
	// Permissions do not stop root (CI runs as root), but no one can open a path longer
	// than PATH_MAX: build one below root with relative steps and let the walk hit it.
	t.Chdir(root)
	long := strings.Repeat("d", 250)
	depth := 0
	for ; depth < 20; depth++ {
		if err := os.Mkdir(long, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chdir(long); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile("deep.py", []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, warnings, err := Files([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := rel(t, root, files)
	if want := []string{"a.py", "z.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	if len(warnings) == 0 {
		t.Fatal("no warning for the directory that could not be read")
	}
	if msg := warnings[0].Error(); !strings.Contains(msg, "read directory") || !strings.Contains(msg, long) {
		t.Errorf("warning %q does not say which directory could not be read", msg)
	}
}

func TestFindProjectRoot(t *testing.T) {
	root := t.TempDir()
	write(t, root, "repo/pkg/sub/train.py", "repo/pkg/pyproject.toml", "repo/other/x.py", "bare/y.py",
		"repo/lib/trainer/__init__.py", "repo/lib/trainer/setup.py", "repo/lib/trainer/loop.py",
		"repo/examples/mmpt/setup.py", "repo/examples/mmpt/mmpt/train.py")
	if err := os.Mkdir(filepath.Join(root, "repo", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"repo/pkg/sub/train.py": "repo/pkg", // nearest marker wins: pyproject.toml
		"repo/pkg/sub":          "repo/pkg",
		"repo/other/x.py":       "repo", // .git
		"repo":                  "repo",
		// a setup.py beside an __init__.py is a package's module, not a project's
		"repo/lib/trainer/loop.py":         "repo",
		"repo/examples/mmpt/mmpt/train.py": "repo/examples/mmpt",
	}
	for in, want := range cases {
		got := FindProjectRoot(filepath.Join(root, in))
		if got != filepath.Join(root, want) {
			t.Errorf("FindProjectRoot(%s) = %s, want %s", in, got, filepath.Join(root, want))
		}
	}
	// Without any marker up to /, the start directory is the project. t.TempDir lives
	// below os.TempDir, which must hold no marker for this to say anything.
	for d := filepath.Join(root, "bare"); ; d = filepath.Dir(d) {
		for _, m := range projectMarkers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				t.Fatalf("%s has %s; the no-marker case cannot be tested here", d, m)
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if got := FindProjectRoot(filepath.Join(root, "bare/y.py")); got != filepath.Join(root, "bare") {
		t.Errorf("no marker: got %s, want %s", got, filepath.Join(root, "bare"))
	}
}

// gitListed asks git itself which files it would track: the oracle for our ignore logic.
func gitListed(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "--others", "--exclude-standard", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if _, ok := kindOf(f); ok && f != "" {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	return files
}

func TestGitignoreNestedNegationAndInfoExcludeMatchGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test (apt-get install -y git)")
	}
	isolateGit(t)
	root := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write(t, root,
		"train.py", "scratch.py", "keep.gen.py", "drop.gen.py", "logs/run.py",
		"data/cache/x.py", "data/cache/keep.py", "data/raw.py",
		"src/local_test.py", "src/local_ok.py", "src/mod.py", "src/build.py",
		"src/deep/local_x.py", "src/deep/y.py", "out/a.py", "nested/out/b.py",
		"secret.py", "src/secret.py", "crlf/z.py", "crlf/w.py", "global.py", "src/.hidden.py",
	)
	writeText(t, filepath.Join(root, ".gitignore"),
		"# generated\n*.gen.py\n!keep.gen.py\nlogs/\n/out/\nscratch.py\ndata/cache/*\n!data/cache/keep.py\n")
	writeText(t, filepath.Join(root, "src/.gitignore"), "local_*.py\n!local_ok.py\n/build.py\n")
	writeText(t, filepath.Join(root, "src/deep/.gitignore"), "!local_x.py\n")
	writeText(t, filepath.Join(root, "crlf/.gitignore"), "\uFEFFz.py\r\n")
	writeText(t, filepath.Join(root, ".git/info/exclude"), "/secret.py\n")
	global := filepath.Join(os.Getenv("HOME"), "global-ignore")
	writeText(t, global, "global.py\n")
	writeText(t, filepath.Join(os.Getenv("HOME"), ".gitconfig"), "[core]\n\texcludesFile = "+global+"\n")

	got := rel(t, root, mustFiles(t, []string{root}, Options{RespectGitignore: true}))
	want := []string{
		"crlf/w.py", "data/cache/keep.py", "data/raw.py", "keep.gen.py",
		"nested/out/b.py", "src/.hidden.py", "src/deep/local_x.py", "src/deep/y.py", "src/local_ok.py",
		"src/mod.py", "src/secret.py", "train.py",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q\nwant    %q", got, want)
	}
	// CRLF endings are git's business to strip too; compare everything else with git.
	if fromGit := gitListed(t, root); !reflect.DeepEqual(withoutDir(got, "crlf/"), withoutDir(fromGit, "crlf/")) {
		t.Errorf("cachelint keeps %q\ngit keeps        %q", got, fromGit)
	}

	// Walking a subdirectory still honours the ignore files above it.
	got = rel(t, root, mustFiles(t, []string{filepath.Join(root, "src")}, Options{RespectGitignore: true}))
	if want := []string{"src/.hidden.py", "src/deep/local_x.py", "src/deep/y.py", "src/local_ok.py", "src/mod.py", "src/secret.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("walking src: %q, want %q", got, want)
	}

	// A gitignored directory named explicitly is walked.
	got = rel(t, root, mustFiles(t, []string{filepath.Join(root, "logs")}, Options{RespectGitignore: true}))
	if want := []string{"logs/run.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("walking ignored logs/: %q, want %q", got, want)
	}

	// respect-gitignore off: everything but the default excludes.
	got = rel(t, root, mustFiles(t, []string{root}, Options{RespectGitignore: false}))
	if len(got) != 22 {
		t.Errorf("respect-gitignore=false found %d files, want all 22: %q", len(got), got)
	}
}

func withoutDir(files []string, dir string) []string {
	var out []string
	for _, f := range files {
		if !strings.HasPrefix(f, dir) {
			out = append(out, f)
		}
	}
	return out
}

func TestGitignoreOnlyInsideARepositoryButDotIgnoreAlways(t *testing.T) {
	isolateGit(t)
	root := t.TempDir()
	write(t, root, "a.py", "b.py", "c.py")
	writeText(t, filepath.Join(root, ".gitignore"), "a.py\n")
	writeText(t, filepath.Join(root, ".ignore"), "b.py\n")
	got := rel(t, root, mustFiles(t, []string{root}, Options{RespectGitignore: true}))
	if want := []string{"a.py", "c.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("outside a repository: %q, want %q", got, want)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	got = rel(t, root, mustFiles(t, []string{root}, Options{RespectGitignore: true}))
	if want := []string{"c.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("inside a repository: %q, want %q", got, want)
	}
}

// TestNamed: the name of a buffer read from stdin is in scope whether or not the file
// exists, with its kind from the extension, unless ForceExclude excludes it as it would on
// disk.
func TestNamed(t *testing.T) {
	root := t.TempDir()
	opts := Options{Base: root, ExtendExclude: []string{"legacy"}}
	for _, tc := range []struct {
		name  string
		force bool
		kind  Kind
		kept  bool
	}{
		{"new.py", false, Python, true},
		{"nb.ipynb", false, Notebook, true},
		{"legacy/old.py", false, Python, true},
		{"legacy/old.py", true, Python, false},
		{"build/gen.pyi", true, Stub, false},
		{"src/ok.pyi", true, Stub, true},
	} {
		opts.ForceExclude = tc.force
		files, err := Named(filepath.Join(root, tc.name), opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.kept {
			if len(files) != 0 {
				t.Errorf("%s with ForceExclude=%v: kept %+v, want excluded", tc.name, tc.force, files)
			}
			continue
		}
		if len(files) != 1 || files[0].Kind != tc.kind || !files[0].Explicit || files[0].Abs != filepath.Join(root, tc.name) {
			t.Errorf("%s with ForceExclude=%v: %+v, want one explicit %s file", tc.name, tc.force, files, tc.kind)
		}
	}
}

// TestParallelWalkInOrder: directories are read on several goroutines, yet the files and the
// warnings come out as a walk in listing order gives them, whatever the goroutines' timing.
// The warnings here are ignore files that cannot be read (links to themselves) in many
// directories; the order to expect is filepath.WalkDir's, which walks in lexical order.
func TestParallelWalkInOrder(t *testing.T) {
	root := t.TempDir()
	for i := range 6 {
		for j := range 5 {
			dir := filepath.Join(root, "d"+string(rune('a'+i)), "s"+string(rune('a'+j)))
			write(t, dir, "m.py", "skip.py", "deep/x.py")
			// A directory's own warnings come before its subdirectories'.
			for k, d := range []string{dir, filepath.Join(dir, "deep")} {
				if (i+j)%(2+k) == 0 {
					if err := os.Symlink(".ignore", filepath.Join(d, ".ignore")); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		writeText(t, filepath.Join(root, "d"+string(rune('a'+i)), ".ignore"), "skip.py\n")
	}
	var wantWarned []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == ".ignore" && d.Type()&os.ModeSymlink != 0 {
			wantWarned = append(wantWarned, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	one, oneWarnings, err := Files([]string{root}, Options{RespectGitignore: true, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != 6*5*2 {
		t.Fatalf("%d files, want %d (skip.py ignored)", len(one), 6*5*2)
	}
	var warned []string
	for _, w := range oneWarnings {
		warned = append(warned, strings.TrimPrefix(strings.SplitN(w.Error(), ": ", 2)[0], "read "))
	}
	if !reflect.DeepEqual(warned, wantWarned) {
		t.Fatalf("warnings for %q, want %q", warned, wantWarned)
	}
	for range 20 {
		files, warnings, err := Files([]string{root}, Options{RespectGitignore: true, Jobs: 8})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(files, one) || !reflect.DeepEqual(warnings, oneWarnings) {
			t.Fatalf("8 goroutines found %d files and warnings %v; one found %d and %v", len(files), warnings, len(one), oneWarnings)
		}
	}
}

// TestJoinName: an entry's path is filepath.Join's, without its cleaning.
func TestJoinName(t *testing.T) {
	sep := string(filepath.Separator)
	for _, dir := range []string{".", "src", sep, sep + "abs" + sep + "dir", "..", ".." + sep + "up"} {
		for _, name := range []string{"a.py", ".hidden", "..x", "sp ace"} {
			if got, want := joinName(dir, name), filepath.Join(dir, name); got != want {
				t.Errorf("joinName(%q, %q) = %q, want %q", dir, name, got, want)
			}
		}
	}
}

// BenchmarkWalk walks a generated tree of 300 packages (1,200 directories, 9,600 Python
// files and 2,400 others), as a warm run's first step does, without and with the files'
// stamps (Options.Stat).
func BenchmarkWalk(b *testing.B) {
	root := b.TempDir()
	for p := range 300 {
		for d := range 4 {
			dir := filepath.Join(root, fmt.Sprintf("pkg_%03d", p), fmt.Sprintf("module_%d", d))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := range 10 {
				name := fmt.Sprintf("file_%02d.py", f)
				if f >= 8 {
					name = fmt.Sprintf("data_%02d.json", f)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte("x = 1\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for _, stat := range []bool{false, true} {
		b.Run(fmt.Sprintf("stat=%v", stat), func(b *testing.B) {
			for b.Loop() {
				files, _, err := Files([]string{root}, Options{RespectGitignore: true, Stat: stat})
				if err != nil || len(files) != 9600 {
					b.Fatalf("%d files, %v", len(files), err)
				}
			}
		})
	}
}

// TestRepo: each walked file names the nearest directory at or above it, within the walk,
// that holds a .git (a folder, or a file as a submodule or a worktree has), "" when none;
// a file named explicitly names none.
func TestRepo(t *testing.T) {
	root := t.TempDir()
	write(t, root, "top.py", "a/x.py", "a/pkg/y.py", "a/third_party/sub/z.py", "b/w.py", "c/plain.py", "d/.git/hooks/h.py")
	if err := os.Mkdir(filepath.Join(root, "a", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeText(t, filepath.Join(root, "a", "third_party", "sub", ".git"), "gitdir: ../../.git/modules/sub\n")
	writeText(t, filepath.Join(root, "b", ".git"), "gitdir: /elsewhere/.git/worktrees/b\n")
	want := map[string]string{
		"top.py": "", "a/x.py": "a", "a/pkg/y.py": "a", "a/third_party/sub/z.py": "a/third_party/sub",
		"b/w.py": "b", "c/plain.py": "",
	}
	files := mustFiles(t, []string{root}, Options{})
	got := map[string]string{}
	for i, name := range rel(t, root, files) {
		repo := files[i].Repo
		if repo != "" {
			r, err := filepath.Rel(root, repo)
			if err != nil {
				t.Fatal(err)
			}
			repo = filepath.ToSlash(r)
		}
		got[name] = repo
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("repositories:\n got %v\nwant %v", got, want)
	}
	// The walk of a repository's folder finds the repository at its top.
	files = mustFiles(t, []string{filepath.Join(root, "a", "pkg")}, Options{})
	if len(files) != 1 || files[0].Repo != "" {
		t.Errorf("a/pkg walked alone: %+v, want y.py in no repository below a/pkg", files)
	}
	files = mustFiles(t, []string{filepath.Join(root, "b", "w.py")}, Options{})
	if len(files) != 1 || files[0].Repo != "" {
		t.Errorf("explicit file: %+v, want no repository", files)
	}
}
