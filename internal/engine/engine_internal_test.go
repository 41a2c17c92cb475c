package engine

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
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

// TestPauseGCNested: the collector stays off while any pause is held, comes back to the
// setting the first pause found when the last resumes, and a resume called twice counts once.
func TestPauseGCNested(t *testing.T) {
	orig := debug.SetGCPercent(77)
	defer debug.SetGCPercent(orig)
	current := func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	a, b := pauseGC(), pauseGC()
	if got := current(); got != -1 {
		t.Fatalf("paused twice: GOGC %d, want off", got)
	}
	a()
	a()
	if got := current(); got != -1 {
		t.Fatalf("one of two pauses resumed (twice): GOGC %d, want off", got)
	}
	b()
	if got := current(); got != 77 {
		t.Fatalf("both resumed: GOGC %d, want 77", got)
	}
}

// TestUnitsAtOnce: repositories run one at a time below 16 goroutines, --jobs counted.
func TestUnitsAtOnce(t *testing.T) {
	for jobs, want := range map[int]int{1: 1, 2: 1, 15: 1, 16: 2, 32: 4} {
		if got := unitsAtOnce(jobs); got != want {
			t.Errorf("unitsAtOnce(%d) = %d, want %d", jobs, got, want)
		}
	}
	if got, want := unitsAtOnce(0), max(1, runtime.GOMAXPROCS(0)/8); got != want {
		t.Errorf("unitsAtOnce(0) = %d, want %d (one job per CPU)", got, want)
	}
}
