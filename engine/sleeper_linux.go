package engine

import (
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper is the dispatcher's sleep: ppoll on an eventfd, which takes a
// timeout in ns and returns early when interrupt writes the eventfd.
type sleeper struct {
	fd  int // -1: no eventfd, naps instead (see sleeper_other.go)
	nap napper
}

func newSleeper() sleeper {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return sleeper{fd: -1, nap: newNapper()}
	}
	return sleeper{fd: fd}
}

// preciseSlack sets the calling thread's timer slack to 1 µs (Linux's
// default, 50 µs, would be added to every wake-up). A goroutine may move
// between threads, so it is set before each sleep; the setting stays with
// the thread, which only makes its other timed sleeps more precise.
func preciseSlack() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0) }

func (s sleeper) release() {
	if s.fd >= 0 {
		_ = unix.Close(s.fd)
	}
}

// sleep waits d ns (d < 0: until interrupted), or less when interrupted.
func (s sleeper) sleep(d int64) {
	if s.fd < 0 {
		s.nap.sleep(d)
		return
	}
	preciseSlack()
	fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
	var ts *unix.Timespec
	if d >= 0 {
		t := unix.NsecToTimespec(d)
		ts = &t
	}
	if n, _ := unix.Ppoll(fds, ts, nil); n > 0 {
		var buf [8]byte
		_, _ = unix.Read(s.fd, buf[:])
	}
}

func (s sleeper) interrupt() {
	if s.fd < 0 {
		s.nap.interrupt()
		return
	}
	one := [8]byte{1}
	_, _ = unix.Write(s.fd, one[:])
}

// sleepSolo is a worker's own sleep of d ns (see soloWaiters): a nanosleep
// on whatever thread runs the goroutine, with a 1 µs timer slack. It
// yields first, for the reason the waker's dispatcher does: a goroutine
// this one readied (a memory store's lock released) would otherwise wait
// on this P through the sleep, and through the next ones: a worker
// sleeping alone while 7 others waited for a lock it had released kept
// them from a core for 20 ms (go tool trace).
func sleepSolo(d int64) {
	if d <= 0 {
		return
	}
	runtime.Gosched()
	preciseSlack()
	sleepPrecise(time.Duration(d))
}

// sleepPrecise sleeps d in a nanosleep system call, which wakes within
// the thread's timer slack instead of on the Go runtime's millisecond
// timer grid. The goroutine's thread blocks meanwhile; the scheduler
// hands its P to other goroutines as for any system call.
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
