//go:build !linux

package engine

import "time"

// sleeper naps off Linux (no timerfd there).
type sleeper struct{ nap *napper }

func newSleeper() *sleeper      { return &sleeper{nap: newNapper()} }
func (s *sleeper) arm(at int64) { s.nap.arm(at) }
func (s *sleeper) sleep()       { s.nap.sleep() }
func (s *sleeper) release()     {}

// sleepPrecise is time.Sleep off Linux: its precision there is the Go
// runtime's timers' (kqueue takes a timeout in ns, where Linux's epoll
// takes ms). Only Linux is measured and tested here; the other systems
// are built so that benchtop runs on a laptop.
func sleepPrecise(d time.Duration) { time.Sleep(d) }
