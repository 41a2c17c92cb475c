package walk

import (
	"path/filepath"
	"testing"
)

func TestGlobsMatch(t *testing.T) {
	base := filepath.FromSlash("/proj")
	cases := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"venv", "/proj/venv", true},
		{"venv", "/proj/a/b/venv", true}, // base name anywhere
		{"venv", "/proj/venvs", false},
		{"*_pb2.py", "/proj/gen/x_pb2.py", true},
		{"src/legacy", "/proj/src/legacy", true},
		{"src/legacy", "/proj/other/src/legacy", false}, // anchored at base
		{"./src/legacy/", "/proj/src/legacy", true},
		{"src/*.py", "/proj/src/a.py", true},
		{"src/*.py", "/proj/src/sub/a.py", false}, // * stays within one directory
		{"src/**/*.py", "/proj/src/sub/a.py", true},
		{"**/tests/*", "/proj/x/tests/t.py", true},
		{"{tests,docs}/*.py", "/proj/docs/conf.py", true},
		{"/proj/gen/*.py", "/proj/gen/a.py", true}, // absolute pattern
		{"src/a.py", "/elsewhere/src/a.py", false},
		{"train[0-9].py", "/proj/train7.py", true},
	}
	for _, c := range cases {
		g, err := CompileGlobs(base, []string{c.pattern})
		if err != nil {
			t.Fatalf("CompileGlobs(%q): %v", c.pattern, err)
		}
		if got := g.Match(filepath.FromSlash(c.path)); got != c.want {
			t.Errorf("%q matches %q = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestValidateGlob(t *testing.T) {
	for _, bad := range []string{"", "  ", "src/[a-", "{a,b"} {
		if err := ValidateGlob(bad); err == nil {
			t.Errorf("ValidateGlob(%q) accepted an invalid pattern", bad)
		}
	}
	for _, good := range []string{"venv", "src/**", "build/", "*.py"} {
		if err := ValidateGlob(good); err != nil {
			t.Errorf("ValidateGlob(%q): %v", good, err)
		}
	}
}
