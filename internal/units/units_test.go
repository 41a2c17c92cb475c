package units

import (
	"testing"
	"time"
)

func TestUs(t *testing.T) {
	for _, c := range []struct {
		us   float64
		want string
	}{{8.46, "8.5 µs"}, {412, "412 µs"}, {6620, "6.6 ms"}, {25_000, "25 ms"}, {1_234_000, "1.2 s"}} {
		if got := Us(c.us); got != c.want {
			t.Errorf("Us(%v) = %q, want %q", c.us, got, c.want)
		}
	}
	if got := Duration(25 * time.Millisecond); got != "25 ms" {
		t.Errorf("Duration(25ms) = %q", got)
	}
}
