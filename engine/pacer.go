package engine

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"
)

// plan is the pacing plan all workers of a phase share: the time between
// one worker's operations (threads / target), and an epoch bumped on every
// re-plan so that each worker restarts its schedule from that moment.
//
// The workers' schedules are staggered: worker i of n starts its schedule
// (i + phase) / n of a tick after the restart, so that the phase's
// operations are spread evenly at 1/target apart rather than fired by all
// n workers at once every tick (YCSB's client threads each sleep a random
// part of their tick before their first operation, for the same reason).
// phase is a fraction of one slot, random per phase, so that several
// processes started at one instant (a fleet's agents) do not fire in step
// either.
type plan struct {
	epoch   atomic.Int64
	tickNs  atomic.Int64 // per-worker ns between operations, 0 = unpaced
	workers atomic.Int64 // the n the tick was planned for
	phase   float64      // [0, 1): set before the workers start, then only read
	// grid is pacing.grid in ns (0: none), set before the workers start.
	// A schedule uses at most half its tick of it, so that one worker's
	// operations never share a grid point (they would queue behind each
	// other, and the grid would show in their latency).
	grid int64
	// poisson is arrivals=poisson, set before the workers start: each
	// worker's gaps are drawn from an exponential distribution of mean
	// tick instead of being the tick (see schedule.next).
	poisson bool
	seed    uint64 // seeds the workers' Poisson gaps (with their index)
}

// replan sets the per-worker tick for a total target over n workers
// (target 0: unpaced) and restarts every schedule.
func (pl *plan) replan(target float64, n int) {
	if target > 0 && n > 0 {
		pl.tickNs.Store(int64(float64(n) * 1e9 / target))
	} else {
		pl.tickNs.Store(0)
	}
	pl.workers.Store(int64(max(n, 1)))
	pl.epoch.Add(1)
}

// offset is how long after a restart worker slot's schedule begins: its
// share of the tick, (slot mod n + phase) / n of it.
func (pl *plan) offset(slot, tick int64) int64 {
	n := max(pl.workers.Load(), 1)
	return int64((float64(slot%n) + pl.phase) * float64(tick) / float64(n))
}

// restart restarts every schedule from now with the same tick (after a
// pause: no burst to catch up with the time paused).
func (pl *plan) restart() { pl.epoch.Add(1) }

// schedule is one worker's coordinated-omission schedule, YCSB's
// `deadline = start + opsdone * tick`: operation k of the schedule is
// intended to start at start + k*tick. The intended start, not the actual
// one, is where latency is measured from, so that a stalled server shows
// in the latency of every operation it delayed. After a stall the schedule
// catches up (intended times stay on the plan); only a re-plan (a change
// of threads or target, a resume) restarts it from "now".
//
// With Poisson arrivals (plan.poisson) the gaps between a worker's
// intended starts are drawn from an exponential distribution whose mean is
// the tick, each worker from a source of its own: n independent Poisson
// streams of rate target/n together are one Poisson stream of rate target,
// with nothing shared on the hot path (one source feeding all workers
// would need a lock or an atomic per operation and a hand-off of each
// arrival to a free worker). The one difference from a single source: an
// arrival drawn while its worker is still busy waits for that worker, not
// for any idle one, so the run needs enough threads that a worker seldom
// has two operations due at once (intended latency, measured from the
// drawn arrival, shows it when it does).
type schedule struct {
	epoch int64 // the plan epoch this schedule follows; -1 before the first
	slot  int64 // the worker's index: which share of the tick it starts at
	tick  int64 // ns between operations, 0 = unpaced
	grid  int64 // intended starts are rounded up to a multiple of it (0: not)
	start int64
	done  int64
	// Poisson arrivals: the next intended start (ns, unrounded), the one
	// before it (for unclaim), and the worker's source of gaps.
	at, prev float64
	rng      *rand.Rand
}

func newSchedule() schedule { return schedule{epoch: -1} }

// newWorkerSchedule is the schedule of worker id (0, 1, ...).
func newWorkerSchedule(id int) schedule { return schedule{epoch: -1, slot: int64(id)} }

// gap is a Poisson schedule's next gap, ns: exponential with mean tick.
func (s *schedule) gap() float64 { return s.rng.ExpFloat64() * float64(s.tick) }

// next returns the intended start of the next operation on the clock,
// and whether the worker is paced at all. It restarts the schedule at the
// clock's now, plus the worker's offset, when the plan changed since the
// last call (the clock is read only then: an unpaced worker reads no clock
// here).
func (s *schedule) next(pl *plan, clock func() int64) (intended int64, paced bool) {
	if e := pl.epoch.Load(); e != s.epoch {
		s.epoch = e
		s.tick = pl.tickNs.Load()
		s.grid = min(pl.grid, s.tick/2)
		s.start = clock()
		if s.tick > 0 && !pl.poisson {
			s.start += pl.offset(s.slot, s.tick)
		}
		s.done = 0
		if pl.poisson && s.tick > 0 {
			if s.rng == nil {
				s.rng = rand.New(rand.NewPCG(uint64(s.slot), pl.seed))
			}
			s.at = float64(s.start) + s.gap() // memoryless: no stagger needed
		}
	}
	if s.tick <= 0 {
		return 0, false
	}
	if pl.poisson {
		intended = int64(s.at)
		s.prev, s.at = s.at, s.at+s.gap()
	} else {
		intended = s.start + s.done*s.tick
	}
	if g := s.grid; g > 0 && intended > 0 {
		intended = (intended + g - 1) / g * g
	}
	s.done++
	return intended, true
}

// unclaim gives back the slot next returned, when the worker did not use
// it (a control change woke it while it waited).
func (s *schedule) unclaim() {
	s.done--
	s.at = s.prev
}

// stale reports whether the plan changed since the schedule last followed
// it.
func (s *schedule) stale(pl *plan) bool { return pl.epoch.Load() != s.epoch }

// precisePacing is the last stretch of a pacing wait that is not left to
// a Go timer, when there is no waker.
const precisePacing = 2 * time.Millisecond

// waitUntil waits until the clock reaches intended. The wait is queued
// with the pool's waker (the worker parks; see waker), which wakes it at
// intended, or up to its window (pacing.window) later together with the
// other starts due by then; a wait of a few µs at most is spun with
// runtime.Gosched instead. Without a
// waker (tests) a long wait uses a Go timer up to its last stretch, which
// is a nanosleep: Go's timers fire on a millisecond grid here (a 20 µs
// sleep takes ~1 ms when the process is idle), which would add up to a
// millisecond of client slop to every latency measured from the intended
// start. A control change (wake) or a new plan ends the wait early. It
// returns the clock's reading once the wait is over (the operation's
// start: one clock read fewer on the hot path), and false when wake fired
// or the plan changed: the caller gives the slot back and looks at the
// controls again. It never returns before intended.
func (ws *wstate) waitUntil(pl *plan, wake func() <-chan struct{}, now func() int64, intended int64) (int64, bool) {
	t := now()
	d := intended - t
	if d <= 0 {
		return t, true
	}
	if d > int64(precisePacing) && ws.waker == nil {
		ch := wake()
		if ws.sched.stale(pl) {
			return 0, false
		}
		wait := time.Duration(d) - precisePacing
		if ws.timer == nil {
			ws.timer = time.NewTimer(wait)
		} else {
			ws.timer.Reset(wait)
		}
		select {
		case <-ws.timer.C:
		case <-ch:
			ws.timer.Stop()
			return 0, false
		}
		t = now()
		d = intended - t
	}
	for d > spinPacing {
		if ws.waker == nil {
			sleepPrecise(time.Duration(d))
		} else if !ws.waitWaker(pl, wake, intended) {
			return 0, false
		}
		t = now()
		d = intended - t
	}
	for d > 0 {
		runtime.Gosched()
		t = now()
		d = intended - t
	}
	return t, true
}

// waitWaker is one pacing wait with the pool's waker: the worker queues
// its intended start with the dispatcher and parks. It returns false when
// wake fired or the plan changed.
func (ws *wstate) waitWaker(pl *plan, wake func() <-chan struct{}, intended int64) bool {
	ch := wake()
	if ws.sched.stale(pl) {
		return false
	}
	ws.waker.add(intended, ws.wakeC)
	select {
	case <-ws.wakeC: // or a token left by a wait cut short: the caller's d says
		return true
	case <-ch:
		return false
	}
}
