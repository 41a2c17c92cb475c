package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/walk"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadPyprojectAllKeys(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "pyproject.toml"), `
[project]
name = "trainer"

[tool.ruff]
line-length = 100

[tool.cachelint]
select = ["CL00", "CL010"]
ignore = ["CL004"]
extend-select = ["empty-cache-per-epoch"]
exclude = ["vendored"]
extend-exclude = ["legacy/", "*_pb2.py"]
step-loop-names = ["train_step", "Trainer.run_batch"]
extra-helpers = ["mylib.memory.flush_gpu"]
respect-gitignore = false
force-exclude = true
show-parse-errors = true

[tool.cachelint.per-file-ignores]
"tests/**" = ["CL001"]
"!src/**" = ["CL002"]
`)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Path: p, Dir: dir,
		Select: []string{"CL00", "CL010"}, Ignore: []string{"CL004"},
		ExtendSelect:  []string{"empty-cache-per-epoch"},
		Exclude:       []string{"vendored"},
		ExtendExclude: []string{"legacy/", "*_pb2.py"},
		PerFileIgnores: map[string][]string{
			"tests/**": {"CL001"},
			"!src/**":  {"CL002"},
		},
		StepLoopNames:    []string{"train_step", "Trainer.run_batch"},
		ExtraHelpers:     []string{"mylib.memory.flush_gpu"},
		RespectGitignore: ptr(false), ForceExclude: ptr(true), ShowParseErrors: ptr(true),
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Load =\n%+v\nwant\n%+v", c, want)
	}
}

func ptr(b bool) *bool { return &b }

func TestUnsetKeysStayNil(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(writeFile(t, filepath.Join(dir, "cachelint.toml"), "exclude = []\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Exclude == nil || len(c.Exclude) != 0 {
		t.Errorf("exclude = [] must be an empty, non-nil list (it turns the defaults off), got %#v", c.Exclude)
	}
	if c.Select != nil || c.RespectGitignore != nil || c.PerFileIgnores != nil {
		t.Errorf("keys not given must stay nil: %+v", c)
	}
}

func TestDiscoverClosestWinsAndPrecedence(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "pyproject.toml"), "[tool.cachelint]\nselect = [\"CL001\"]\n")
	writeFile(t, filepath.Join(root, "a", "pyproject.toml"), "[project]\nname = \"no cachelint table\"\n")
	writeFile(t, filepath.Join(root, "b", "pyproject.toml"), "[tool.cachelint]\nselect = [\"CL002\"]\n")
	writeFile(t, filepath.Join(root, "b", "cachelint.toml"), "select = [\"CL003\"]\n")
	writeFile(t, filepath.Join(root, "c", "cachelint.toml"), "select = [\"CL003\"]\n")
	writeFile(t, filepath.Join(root, "c", ".cachelint.toml"), "select = [\"CL004\"]\n")
	for _, d := range []string{"a/deep/er", "b/x", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]string{
		".":         "pyproject.toml",    // root
		"a/deep/er": "pyproject.toml",    // a/pyproject.toml has no [tool.cachelint]: skipped
		"b/x":       "b/cachelint.toml",  // cachelint.toml beats pyproject.toml
		"c":         "c/.cachelint.toml", // .cachelint.toml beats cachelint.toml
	}
	for start, want := range cases {
		c, err := Discover(filepath.Join(root, start))
		if err != nil {
			t.Fatalf("Discover(%s): %v", start, err)
		}
		if c == nil || c.Path != filepath.Join(root, want) {
			t.Errorf("Discover(%s) = %v, want %s", start, c, want)
			continue
		}
		if c.Dir != filepath.Dir(c.Path) {
			t.Errorf("Dir = %s, want the file's directory", c.Dir)
		}
	}
}

func TestDiscoverNone(t *testing.T) {
	dir := t.TempDir()
	// Check the premise: nothing above the temp dir may configure cachelint.
	for d := dir; ; d = filepath.Dir(d) {
		for _, n := range fileNames {
			if _, err := os.Stat(filepath.Join(d, n)); err == nil {
				t.Fatalf("%s exists; cannot test discovery finding nothing", filepath.Join(d, n))
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	c, err := Discover(dir)
	if err != nil || c != nil {
		t.Fatalf("Discover with no config = %v, %v; want nil, nil", c, err)
	}
}

// configErr loads text as name and returns the *Error texts.
func configErr(t *testing.T, name, text string) []string {
	t.Helper()
	p := writeFile(t, filepath.Join(t.TempDir(), name), text)
	_, err := Load(p)
	if err == nil {
		t.Fatalf("Load(%s) accepted:\n%s", name, text)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *config.Error", err, err)
	}
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		out = append(out, strings.TrimPrefix(line, p))
	}
	return out
}

func TestErrorsHaveFileAndLine(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             []string // ":line: message" fragments, one per error line
	}{
		{"unknown key in pyproject", "pyproject.toml",
			"[tool.ruff]\nfoo = 1\n[tool.cachelint]\nselect = [\"CL001\"]\nbogus = 1\n",
			[]string{`:5: unknown key "bogus" in [tool.cachelint]; known keys: cache-dir, exclude, `}},
		{"snake_case key gets a hint", "cachelint.toml",
			"\nextend_exclude = [\"x\"]\n",
			[]string{`:2: unknown key "extend_exclude" at the top level (did you mean "extend-exclude"?)`}},
		{"two unknown keys", "cachelint.toml",
			"a = 1\nselect = []\nb = 2\n",
			[]string{`:1: unknown key "a"`, `:3: unknown key "b"`}},
		{"ruff-style lint table", "pyproject.toml",
			"[tool.cachelint.lint]\nselect = [\"CL001\"]\n",
			[]string{`:1: unknown key "lint" in [tool.cachelint] (did you mean "select (cachelint's keys sit directly`}},
		{"string instead of array", "cachelint.toml",
			"\n\nselect = \"CL001\"\n",
			[]string{`:3: select must be an array of rule selectors (strings), found a string`}},
		{"bool as string", "pyproject.toml",
			"[tool.cachelint]\nrespect-gitignore = \"yes\"\n",
			[]string{`:2: respect-gitignore must be a boolean (true or false), found a string`}},
		{"integer element", "cachelint.toml",
			"ignore = [\n  \"CL001\",\n  4,\n]\n",
			[]string{`:3: ignore must be an array of rule selectors (strings), found an integer`}},
		{"unknown rule code at its element's line", "pyproject.toml",
			"[tool.cachelint]\nselect = [\n  \"CL001\",\n  \"CL999\",\n]\n",
			[]string{`:4: select: unknown rule selector "CL999"`}},
		{"per-file-ignores bad code and bad glob", "cachelint.toml",
			"[per-file-ignores]\n\"tests/*\" = [\"CL001\", \"XYZ\"]\n\"src/[a-\" = [\"CL001\"]\n",
			[]string{`:2: per-file-ignores "tests/*": unknown rule selector "XYZ"`, `:3: per-file-ignores: invalid glob "src/[a-"`}},
		{"per-file-ignores inline table", "cachelint.toml",
			"per-file-ignores = { \"a.py\" = [\"CL001\"], \"b.py\" = [\"NOPE\"] }\n",
			[]string{`:1: per-file-ignores "b.py": unknown rule selector "NOPE"`}},
		{"per-file-ignores not a table", "cachelint.toml",
			"per-file-ignores = [\"a.py\"]\n",
			[]string{`:1: per-file-ignores must be a table of glob = ["CODE", ...]`}},
		{"bad exclude glob", "cachelint.toml",
			"extend-exclude = [\"ok\", \"{a,b\"]\n",
			[]string{`:1: extend-exclude: invalid glob "{a,b"`}},
		{"bad helper name", "cachelint.toml",
			"extra-helpers = [\"utils.free gpu\"]\nstep-loop-names = [\"1step\"]\n",
			[]string{`:1: extra-helpers: "utils.free gpu" is not a dotted Python name`, `:2: step-loop-names: "1step" is not a Python function name`}},
		{"invalid TOML", "cachelint.toml",
			"select = [\"CL001\"]\nignore = [\n",
			[]string{`:2: `}},
		{"duplicate key", "cachelint.toml",
			"select = []\nselect = []\n",
			[]string{`:2: key select is already defined`}},
		{"pyproject table in cachelint.toml", "cachelint.toml",
			"[tool.cachelint]\nselect = []\n",
			[]string{`:1: unknown key "tool.cachelint" at the top level (a cachelint.toml holds the keys at its top level`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := configErr(t, c.file, c.text)
			if len(got) != len(c.want) {
				t.Fatalf("errors = %q, want %d", got, len(c.want))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("error %d = %q, want prefix %q", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{File: "pyproject.toml", Line: 12, Msg: "unknown key \"x\""}
	if got := e.Error(); got != `pyproject.toml:12: unknown key "x"` {
		t.Errorf("Error() = %q", got)
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.toml")
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want a not-exist error naming %s", err, p)
	}
}

func TestIgnoredFor(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(writeFile(t, filepath.Join(dir, "cachelint.toml"), `
[per-file-ignores]
"tests/**" = ["CL001", "CL00"]
"__init__.py" = ["CL010"]
"!src/**" = ["CL002"]
"notebooks/*.ipynb" = ["empty-cache-in-loop"]
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"tests/unit/test_train.py": {"CL001", "CL002", "CL003", "CL004", "CL005", "CL006"},
		"src/pkg/__init__.py":      {"CL010"},
		"src/train.py":             {},
		"notebooks/explore.ipynb":  {"CL002", "CL004"},
		"scripts/run.py":           {"CL002"},
	}
	for rel, want := range cases {
		got := c.IgnoredFor(filepath.Join(dir, rel))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("IgnoredFor(%s) = %q, want %q", rel, got, want)
		}
	}
	// Relative paths are relative to the working directory.
	t.Chdir(dir)
	if got := c.IgnoredFor("src/pkg/__init__.py"); !reflect.DeepEqual(got, []string{"CL010"}) {
		t.Errorf("relative path: %q", got)
	}
	var none *Config
	if got := none.IgnoredFor("x.py"); got != nil {
		t.Errorf("nil Config ignores %q", got)
	}
}

func TestApplyWalk(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(writeFile(t, filepath.Join(dir, "cachelint.toml"),
		"extend-exclude = [\"legacy\"]\nrespect-gitignore = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := walk.Options{RespectGitignore: true}
	c.ApplyWalk(&o)
	if o.Base != dir || o.RespectGitignore || o.Exclude != nil || !reflect.DeepEqual(o.ExtendExclude, []string{"legacy"}) {
		t.Errorf("ApplyWalk gave %+v", o)
	}
	// End to end: the settings steer a real walk.
	writeFile(t, filepath.Join(dir, "legacy", "old.py"), "")
	writeFile(t, filepath.Join(dir, "venv", "lib.py"), "")
	writeFile(t, filepath.Join(dir, "train.py"), "")
	files, _, err := walk.Files([]string{dir}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || filepath.Base(files[0].Path) != "train.py" {
		t.Errorf("walk with config = %+v, want only train.py", files)
	}
}
