package parallel

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFor: every index is worked on once, by goroutines numbered below jobs, and a panic in
// a goroutine is raised again in the caller (with the goroutine's stack) instead of ending
// the process.
func TestFor(t *testing.T) {
	done := make([]atomic.Int32, 1000)
	var bad atomic.Bool
	For(len(done), 4, func(w, i int) {
		if w < 0 || w >= 4 {
			bad.Store(true)
		}
		done[i].Add(1)
	})
	for i := range done {
		if n := done[i].Load(); n != 1 {
			t.Fatalf("index %d worked on %d times", i, n)
		}
	}
	if bad.Load() {
		t.Error("a goroutine numbered outside 0..jobs-1")
	}
	For(0, 4, func(int, int) { t.Error("work for n = 0") })
	defer func() {
		v := recover()
		if s := fmt.Sprint(v); !strings.Contains(s, "index 500 is broken") || !strings.Contains(s, "goroutine") {
			t.Errorf("panic in the caller = %v, want the goroutine's panic with its stack", v)
		}
	}()
	For(1000, 4, func(_, i int) {
		if i == 500 {
			panic("index 500 is broken")
		}
	})
	t.Error("For returned although a goroutine panicked")
}
