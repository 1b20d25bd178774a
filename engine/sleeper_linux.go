package engine

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper is the dispatcher's sleep on Linux: a blocking read of a
// timerfd on the monotonic clock, armed at the absolute time of the
// earliest queued wait. A timerfd's expiry takes no timer slack (a
// thread's slack, 50 µs by default, applies to timed sleeps and poll
// timeouts, not to timerfd timers), so nothing is set per sleep or per
// thread, wherever the dispatcher goroutine runs; and a worker queueing a
// wait earlier than the one armed re-arms the timer (one timerfd_settime)
// without waking the dispatcher. A sleep is one read system call, a
// wake-up time one timerfd_settime.
//
// The read is a system call of the dispatcher's own, not a wait in Go's
// netpoller: a timerfd in the netpoller is seen only when a thread polls
// it, which the scheduler does when it runs out of work (or every 10 ms,
// its monitor), so that with the scheduler's Ps busy (workers catching up
// after a stall) the wake-ups came milliseconds late (tried: intended p99
// 5-10x worse at 1,000 workers).
type sleeper struct {
	fd  int // -1: no timerfd, naps instead (see sleeper_nap.go)
	nap *napper
}

func newSleeper() *sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC)
	if err != nil {
		return &sleeper{fd: -1, nap: newNapper()}
	}
	return &sleeper{fd: fd}
}

// arm sets the timer to expire at the monotonic time at (nanotime()'s
// clock), replacing the time set before; at <= 0 expires at once. The
// caller holds the waker's lock (one arm at a time).
func (s *sleeper) arm(at int64) {
	if s.fd < 0 {
		s.nap.arm(at)
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(at, 1))} // 0 would disarm it
	_ = unix.TimerfdSettime(s.fd, unix.TFD_TIMER_ABSTIME, &spec, nil)
}

// sleep returns once the time armed has come (at once if it has), or
// after an arm for a time that has. It may return early (EINTR).
func (s *sleeper) sleep() {
	if s.fd < 0 {
		s.nap.sleep()
		return
	}
	var buf [8]byte
	_, _ = unix.Read(s.fd, buf[:])
}

func (s *sleeper) release() {
	if s.fd >= 0 {
		_ = unix.Close(s.fd)
	}
}

// sleepPrecise sleeps d in a nanosleep system call (the pacer's wait
// without a waker, in tests), which wakes within the thread's timer slack
// instead of on the Go runtime's millisecond timer grid. The goroutine's
// thread blocks meanwhile; the scheduler hands its P to other goroutines
// as for any system call.
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
