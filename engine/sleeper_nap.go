package engine

import (
	"math"
	"sync/atomic"
	"time"
)

// napper is the sleep without a timerfd (off Linux, or when none can be
// made): naps of at most maxNap, so that a wait queued meanwhile for an
// earlier time is woken at most that late, and a channel while nothing is
// armed.
type napper struct {
	kick chan struct{}
	due  atomic.Int64 // the time armed (nanotime), MaxInt64: none
}

const maxNap = 100 * time.Microsecond

func newNapper() *napper {
	n := &napper{kick: make(chan struct{}, 1)}
	n.due.Store(math.MaxInt64)
	return n
}

// arm sets the time to wake at (nanotime's clock; at <= 0: at once).
func (n *napper) arm(at int64) { n.set(max(at, 0)) }

func (n *napper) set(at int64) {
	n.due.Store(at)
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

func (n *napper) sleep() {
	due := n.due.Load()
	if due == math.MaxInt64 {
		<-n.kick
		return
	}
	if d := due - nanotime(); d > 0 {
		sleepPrecise(min(time.Duration(d), maxNap))
	}
}
