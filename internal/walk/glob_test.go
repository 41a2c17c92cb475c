package walk

import (
	"path"
	"path/filepath"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
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

// TestGlobsMatchAsDoublestar: a pattern that is a plain name is looked up instead of matched,
// and every pattern still answers as doublestar matches it (base name for a pattern without
// a slash, the path below base for an anchored one, the whole path for an absolute one).
func TestGlobsMatchAsDoublestar(t *testing.T) {
	patterns := []string{"venv", ".git", "build/", "*_pb2.py", "te?ts", "[ab]c", "{x,y}z", `sp\ ce`, "src/legacy", "/abs/**/gen", "a.b"}
	g, err := CompileGlobs("/base", patterns)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.names) != 4 {
		t.Errorf("%d patterns looked up by name, want 4 (venv, .git, build, a.b)", len(g.names))
	}
	paths := []string{"/base/venv", "/base/x/venv", "/base/venvs", "/base/.git", "/base/build", "/base/x/build/y",
		"/base/m_pb2.py", "/base/tests", "/base/bc", "/base/cc", "/base/xz", "/base/sp ce", "/base/src/legacy",
		"/other/src/legacy", "/abs/q/gen", "/base/a.b", "/base/axb", "/"}
	for _, p := range paths {
		want := false
		for _, gl := range g.globs {
			var ok bool
			switch rel, in := relSlash(g.base, p); {
			case gl.absolute:
				ok, _ = doublestar.Match(gl.pattern, p)
			case gl.anchored:
				ok = in && func() bool { m, _ := doublestar.Match(gl.pattern, rel); return m }()
			default:
				ok, _ = doublestar.Match(gl.pattern, path.Base(p))
			}
			want = want || ok
		}
		if got := g.matchAbs(p); got != want {
			t.Errorf("matchAbs(%q) = %v, doublestar says %v", p, got, want)
		}
	}
}
