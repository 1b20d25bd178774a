package sim

import "time"

// napper is the sleep without an interruptible timed system call: naps
// of at most maxNap (a wake-up queued meanwhile for an earlier time is
// served at most that late), and a channel while idle.
type napper struct{ kick chan struct{} }

const maxNap = 100 * time.Microsecond

func newNapper() napper { return napper{kick: make(chan struct{}, 1)} }

func (n napper) sleep(d int64) {
	if d < 0 {
		<-n.kick
		return
	}
	t := time.NewTimer(min(time.Duration(d), maxNap))
	select {
	case <-t.C:
	case <-n.kick:
		t.Stop()
	}
}

func (n napper) interrupt() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}
