package sim

import (
	"sync"
	"sync/atomic"
	"time"
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

// loopsPerNs is spin's speed: the fastest of several timed rounds (the
// fastest is the one least disturbed by other processes on the machine).
func loopsPerNs() float64 {
	calibrateOnce.Do(func() {
		const n = 200_000
		best := time.Duration(1<<63 - 1)
		for range 7 {
			t := time.Now()
			spin(n)
			if d := time.Since(t); d > 0 && d < best {
				best = d
			}
		}
		loopsRate = n / float64(best)
	})
	return loopsRate
}
