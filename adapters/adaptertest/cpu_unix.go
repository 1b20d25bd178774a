//go:build unix

package adaptertest

import (
	"syscall"
	"time"
)

// CPUTime is this process's CPU time (user + system) so far, for
// benchmarks that report the client's CPU per operation.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
