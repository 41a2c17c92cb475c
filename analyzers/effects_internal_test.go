package analyzers

import "testing"

// TestRememberCycle: in a cycle a -> b -> a, b asked inside a's question is cut at a; kept,
// that cut answer would be b's answer for the rest of the run, and b's answer would depend
// on whether a or b was asked first.
func TestRememberCycle(t *testing.T) {
	next := map[string]string{"a": "b", "b": "a", "c": "d", "d": ""}
	var e effects
	var m effectMemo[string, string]
	computed := map[string]int{}
	var ask func(k string) string
	ask = func(k string) string {
		return remember(&e, &m, k, "?", func() string {
			computed[k]++
			if next[k] == "" {
				return k
			}
			return k + "(" + ask(next[k]) + ")"
		})
	}
	for _, q := range []struct{ k, want string }{{"a", "a(b(?))"}, {"b", "b(a(?))"}, {"a", "a(b(?))"}, {"c", "c(d)"}, {"c", "c(d)"}, {"d", "d"}} {
		if got := ask(q.k); got != q.want {
			t.Errorf("ask(%s) = %s, want %s", q.k, got, q.want)
		}
	}
	// Answers that met no cut are computed once for the run.
	if computed["c"] != 1 || computed["d"] != 1 {
		t.Errorf("c computed %d times, d %d, want once each", computed["c"], computed["d"])
	}
	if e.open != 0 {
		t.Errorf("%d questions left open", e.open)
	}
}

// TestRememberPanic: a question whose computation panics is closed all the same: asked
// again, it is computed again, and a later question is not taken for one inside it.
func TestRememberPanic(t *testing.T) {
	var e effects
	var m effectMemo[string, string]
	func() {
		defer func() { _ = recover() }()
		remember(&e, &m, "a", "?", func() string {
			return remember(&e, &m, "b", "?", func() string { panic("bug") })
		})
	}()
	if e.open != 0 || len(m.open) != 0 {
		t.Fatalf("after a panic: %d questions open (%v)", e.open, m.open)
	}
	if got := remember(&e, &m, "b", "?", func() string { return "b" }); got != "b" {
		t.Errorf("b asked again = %s, want b", got)
	}
}
