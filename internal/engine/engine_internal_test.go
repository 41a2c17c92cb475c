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

// TestHoldGCNested: a hold turns the collector off and limits memory to what the process
// holds and half as much again, or holdHeadroom more; holds nest with each other and with
// pauses, and the setting and limit the first found come back when the last ends.
func TestHoldGCNested(t *testing.T) {
	origPercent := debug.SetGCPercent(77)
	defer debug.SetGCPercent(origPercent)
	origLimit := debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(origLimit)
	current := func() (int, int64) {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	held := int64(ms.Sys - ms.HeapReleased)
	a := holdGC()
	p, limit := current()
	if p != -1 || limit < held+max(held/2, holdHeadroom) || limit > 2*held+2*holdHeadroom {
		t.Fatalf("held: GOGC %d, limit %d; want off and about %d", p, limit, held+max(held/2, holdHeadroom))
	}
	pause := pauseGC()
	b := holdGC()
	a()
	a()
	if p, l := current(); p != -1 || l < limit {
		t.Fatalf("one of two holds released (twice): GOGC %d, limit %d; want off, at least %d", p, l, limit)
	}
	b()
	if p, l := current(); p != -1 || l != 1<<40 {
		t.Fatalf("both holds released, a pause held: GOGC %d, limit %d; want off, the first limit", p, l)
	}
	pause()
	if p, l := current(); p != 77 || l != 1<<40 {
		t.Fatalf("all released: GOGC %d, limit %d; want 77 and the first limit", p, l)
	}
	// A limit the process was given (GOMEMLIMIT) below what a hold would set stays.
	debug.SetMemoryLimit(held / 2)
	c := holdGC()
	if p, l := current(); p != -1 || l != held/2 {
		t.Errorf("held under a lower limit: GOGC %d, limit %d; want off, %d", p, l, held/2)
	}
	c()
	if _, l := current(); l != held/2 {
		t.Errorf("released: limit %d, want %d", l, held/2)
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
