package sim

import "golang.org/x/sys/unix"

// sleeper is the dispatcher's sleep: ppoll on an eventfd, which takes a
// timeout in ns and returns early when interrupt writes the eventfd (the
// engine's, engine/sleeper_linux.go). Without an eventfd it naps.
type sleeper struct {
	fd  int // -1: naps
	nap napper
}

func newSleeper() sleeper {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return sleeper{fd: -1, nap: newNapper()}
	}
	return sleeper{fd: fd}
}

func (s sleeper) release() {
	if s.fd >= 0 {
		_ = unix.Close(s.fd)
	}
}

// sleep waits d ns (d < 0: until interrupted), or less when interrupted.
// The thread's timer slack is set to 1 µs first (Linux's default, 50 µs,
// would be added to every wake-up; a goroutine may change threads, so it
// is set each time).
func (s sleeper) sleep(d int64) {
	if s.fd < 0 {
		s.nap.sleep(d)
		return
	}
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
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
