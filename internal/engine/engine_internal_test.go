package engine

import (
	"path/filepath"
	"testing"
)

// TestDisplayPath: a path below the working directory is shown relative to it, as
// filepath.Rel gives it, by the shortcut that skips Rel's work; anything else goes through
// Rel (outside the directory, the directory itself, a name starting with "..").
func TestDisplayPath(t *testing.T) {
	for _, c := range []struct{ cwd, abs, want string }{
		{"/w/proj", "/w/proj/src/train.py", "src/train.py"},
		{"/w/proj", "/w/proj/a.py", "a.py"},
		{"/", "/etc/x.py", "etc/x.py"},
		{"/w/proj", "/w/projects/a.py", "/w/projects/a.py"}, // outside: shown whole
		{"/w/proj", "/w/other/a.py", "/w/other/a.py"},
		{"/w/proj", "/w/proj", "."},
		{"/w/proj", "/w/proj/..x/a.py", "/w/proj/..x/a.py"}, // Rel's answer starts with ".."
	} {
		if got := displayPath(filepath.FromSlash(c.cwd), filepath.FromSlash(c.abs)); got != c.want {
			t.Errorf("displayPath(%q, %q) = %q, want %q", c.cwd, c.abs, got, c.want)
		}
	}
}
