package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// burn spends about d of CPU on the calling goroutine (sim.clientcost): a
// loop of integer work whose speed was measured once (calibrate), so
// that it costs the CPU time asked for even when the goroutine is
// preempted halfway (a loop watching the clock would then burn less).
func burn(d time.Duration) {
	if d <= 0 {
		return
	}
	n := int64(float64(d) * loopsPerNs())
	spin(n)
}

var burnSink atomic.Uint64

// spin runs n rounds of a linear congruential step, kept from being
// optimised away by its result's store.
func spin(n int64) {
	x := uint64(n) | 1
	for i := int64(0); i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	burnSink.Store(x)
}

var (
	calibrateOnce sync.Once
	loopsRate     float64 // rounds per ns
)

// loopsPerNs is spin's speed in rounds per ns of CPU: the fastest of
// several rounds timed on the thread's own CPU clock. Timed on the wall
// clock, a round the machine held back (another process, a hypervisor's
// steal) read as slow, and burn then spent too little CPU: under two busy
// loops, 19.7 ms for 40 ms asked. Wall time is the fallback where the
// thread's clock cannot be read.
func loopsPerNs() float64 {
	calibrateOnce.Do(func() {
		runtime.LockOSThread() // the thread's clock is this goroutine's
		defer runtime.UnlockOSThread()
		const n = 200_000
		best := time.Duration(1<<63 - 1)
		for range 7 {
			t0, ok0 := threadCPU()
			w := time.Now()
			spin(n)
			d := time.Since(w)
			if t1, ok1 := threadCPU(); ok0 && ok1 {
				d = t1 - t0
			}
			if d > 0 && d < best {
				best = d
			}
		}
		loopsRate = n / float64(best)
	})
	return loopsRate
}

// threadCPU is the calling thread's CPU time (false: not readable).
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
