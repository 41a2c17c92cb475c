//go:build unix

package cli

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, all threads, user and system: on a
// shared machine it varies less with the load than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
