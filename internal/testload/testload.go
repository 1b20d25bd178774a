// Package testload tells tests how loaded the machine they run on is, so
// that a test whose point needs the machine to keep time can skip, saying
// so, where other work holds its goroutines back (two busy loops, CI's
// lanes) instead of failing.
package testload

import (
	"slices"
	"time"
)

// Lateness measures, until stop is closed, how late this machine wakes a
// goroutine from a 1 ms sleep, and returns its p99: what a loaded machine
// adds to every wait a test's timed work makes.
func Lateness(stop <-chan struct{}) <-chan time.Duration {
	out := make(chan time.Duration, 1)
	go func() {
		var lates []time.Duration
		for {
			select {
			case <-stop:
				slices.Sort(lates)
				if len(lates) == 0 {
					out <- 0
				} else {
					out <- lates[len(lates)*99/100]
				}
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(time.Millisecond)
			lates = append(lates, time.Since(t0)-time.Millisecond)
		}
	}()
	return out
}
