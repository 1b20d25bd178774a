//go:build !linux

package engine

import "time"

// sleeper naps off Linux (no eventfd and ppoll there).
type sleeper struct{ nap napper }

func newSleeper() sleeper       { return sleeper{nap: newNapper()} }
func (s sleeper) release()      {}
func (s sleeper) sleep(d int64) { s.nap.sleep(d) }
func (s sleeper) interrupt()    { s.nap.interrupt() }

// sleepSolo is a worker's own sleep of d ns (see soloWaiters).
func sleepSolo(d int64) {
	if d > 0 {
		sleepPrecise(time.Duration(d))
	}
}

// sleepPrecise is time.Sleep off Linux: its precision there is the Go
// runtime's timers' (kqueue takes a timeout in ns, where Linux's epoll
// takes ms). Only Linux is measured and tested here; the other systems
// are built so that benchtop runs on a laptop.
func sleepPrecise(d time.Duration) { time.Sleep(d) }
