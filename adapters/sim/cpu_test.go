//go:build unix

package sim

import (
	"syscall"
	"time"
	"unsafe"
)

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// unsafeKey is a string over b, as the engine builds its keys.
func unsafeKey(b []byte) string { return unsafe.String(&b[0], len(b)) }
