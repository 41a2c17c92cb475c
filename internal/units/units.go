// Package units prints the measured quantities cachelint shows (the probe's table, the
// `= cost:` line), so that both word a duration the same way.
package units

import (
	"fmt"
	"time"
)

// Us prints a duration given in microseconds with two significant figures: "8.5 µs",
// "25 ms", "1.2 s".
func Us(us float64) string {
	switch {
	case us < 10:
		return fmt.Sprintf("%.1f µs", us)
	case us < 1000:
		return fmt.Sprintf("%.0f µs", us)
	case us < 10_000:
		return fmt.Sprintf("%.1f ms", us/1000)
	case us < 1_000_000:
		return fmt.Sprintf("%.0f ms", us/1000)
	default:
		return fmt.Sprintf("%.1f s", us/1e6)
	}
}

// Duration prints d as Us does.
func Duration(d time.Duration) string { return Us(float64(d) / float64(time.Microsecond)) }
