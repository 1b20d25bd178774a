package engine

import (
	"syscall"
	"time"
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's monotonic clock in nanoseconds. time.Now reads
// both the wall and the monotonic clock; the hot path needs only the
// monotonic one, and reading one clock instead of two is a measurable
// share of an operation against the embedded store.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// sleepPrecise sleeps d in a nanosleep system call, which wakes within
// the kernel's timer slack (~50-70 µs) instead of on the Go runtime's
// millisecond timer grid. The goroutine's thread blocks meanwhile; the
// scheduler hands its P to other goroutines as for any system call.
func sleepPrecise(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rem); err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
