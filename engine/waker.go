package engine

import (
	"math"
	"runtime"
	"sync"
)

// waker wakes paced workers at their intended starts, for the last
// stretch of a pacing wait (the part a Go timer cannot time: its timers
// fire on the netpoller's millisecond grid when the process is idle).
// A worker queues its intended start and parks on its channel, a
// goroutine parking like any other; one dispatcher goroutine sleeps until
// a timer armed just before the earliest start queued (a timerfd on
// Linux: see sleeper), spins to it, and wakes every worker then due, in
// one turn. With a window (pacing.window) it wakes at most once per
// window: a start due less than a window after its last wake-up is woken
// a window after it, with every other start then due. A wake-up costs the
// same for one start as for many (a timer armed, threads woken: on a VM
// exits to the hypervisor), so the window sets the CPU a paced operation
// costs against how late it starts (docs/performance.md).
//
// The workers it wakes go to the run queue of the scheduler's P the
// dispatcher runs on, and a goroutine in a system call keeps its P: had
// the dispatcher gone back to sleep at once, they would have waited on
// that P until another P stole them or the runtime's monitor took the P
// back, which it does only when the system call spans two of its ticks
// (20 µs to 10 ms apart): at 4096 workers, 1 % of them waited 10-20 ms
// for a core with a core idle (go tool trace). So it yields before every
// sleep (runtime.Gosched: the P runs what is queued on it, the
// dispatcher waits its turn on the global queue), and sleeps only after a
// turn that woke nobody. (Yielding only after a turn that woke workers,
// and sleeping at once otherwise, took 2-3x the context switches and
// futex calls per operation at 12 workers and 150,000 ops/s: perf stat.)
// It is not locked to an OS
// thread (a locked goroutine's yield hands its P and thread over through
// two futex wake-ups); the timerfd needs no per-thread setting.
//
// Before the timerfd, the dispatcher slept in ppoll on an eventfd: the
// thread's timer slack had to be set to 1 µs (prctl) before every sleep,
// since the goroutine moves between threads, and a worker queueing an
// earlier start woke the dispatcher through the eventfd only for it to
// sleep again. Before the waker, each worker slept the stretch in a
// nanosleep of its own: an OS thread blocked per waiting worker (hundreds
// at 4096 workers), a system call and a hand-off of the scheduler's P per
// operation, and the default 50 µs timer slack on every wake-up.
//
// The dispatcher starts with the first wait and ends with close (the
// phase's workers have exited). Waiters are kept in a binary heap of our
// own: container/heap boxes each entry into an interface, an allocation
// per operation.
type waker struct {
	clock func() int64
	base  int64 // clock() + base is nanotime(), the timer's clock
	// window is pacing.window in ns: the dispatcher wakes at most once
	// per window, at last+window at the earliest, for every start due by
	// then (0: at each start).
	window int64
	last   int64 // when the dispatcher last woke a worker (clock's time)
	// wakeups counts the dispatcher's sleeps that ended in waking a
	// worker: at most one per window.
	wakeups int64
	slept   bool

	mu      sync.Mutex
	q       []waitEntry // min-heap on at
	armed   int64       // the start the timer is armed for; MaxInt64: none
	started bool
	closed  bool
	sl      *sleeper
}

// waitEntry is one queued wait: the worker's buffered channel gets a token
// at (or just before) at.
type waitEntry struct {
	at int64
	ch chan struct{}
}

// wakeEarly is how early the dispatcher's timer fires before the earliest
// start queued: about what a wake-up takes. The dispatcher spins the rest
// and wakes the workers then due, so that none starts before its
// intended time.
const wakeEarly = 2000 // ns

// spinPacing is the longest wait a worker spins instead of queueing.
const spinPacing = 3000 // ns

// newWaker is a waker on clock, which reads nanotime() - base, that
// wakes at most once per window (ns; 0: at each start queued).
func newWaker(clock func() int64, base, window int64) *waker {
	return &waker{clock: clock, base: base, window: window, last: math.MinInt64 / 2, armed: math.MaxInt64}
}

// wakeAt is when the dispatcher wakes for a start at at: at, or a window
// after its last wake-up if that is later. The caller holds mu.
func (w *waker) wakeAt(at int64) int64 { return max(at, w.last+w.window) }

// add queues a wake-up of ch at at; it re-arms the dispatcher's timer
// when at comes before the start it is armed for.
func (w *waker) add(at int64, ch chan struct{}) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		select { // nobody will wake ch: do it now
		case ch <- struct{}{}:
		default:
		}
		return
	}
	w.push(waitEntry{at: at, ch: ch})
	if !w.started {
		w.started = true
		w.sl = newSleeper()
		go w.run()
	}
	if t := w.wakeAt(at); t < w.armed {
		w.armAt(t)
	}
	w.mu.Unlock()
}

// armAt arms the timer for a start at at. The caller holds mu.
func (w *waker) armAt(at int64) {
	w.armed = at
	w.sl.arm(at - wakeEarly + w.base)
}

// close ends the dispatcher once the workers are gone; queued workers are
// woken.
func (w *waker) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.started {
		w.sl.arm(0) // at once
	}
}

// run is the dispatcher.
func (w *waker) run() {
	defer w.sl.release()
	for {
		// Yield before every sleep: this P's run queue must be empty when
		// it goes into the system call (see waker). The scheduler comes
		// back here once it has run what was queued, the workers woken on
		// the last turn included.
		runtime.Gosched()
		w.mu.Lock()
		now := w.clock()
		if !w.closed && len(w.q) > 0 {
			if at := w.q[0].at; at > now && at-now <= wakeEarly {
				// The timer fired early (wakeEarly, for the wake-up's own
				// latency): the dispatcher spins the rest, one goroutine
				// for the whole batch, rather than every worker woken
				// early spinning with runtime.Gosched (each yield a trip
				// through the global run queue, and as many as there are
				// workers due).
				w.mu.Unlock()
				for now < at {
					now = w.clock()
				}
				w.mu.Lock()
			}
		}
		woke := w.wakeDue(now)
		if w.closed {
			w.mu.Unlock()
			return
		}
		if woke { // yield to them first, then look again
			w.last = now
			if w.slept {
				w.wakeups++
				w.slept = false
			}
			w.mu.Unlock()
			continue
		}
		// The timer has expired, or is armed for the earliest start still.
		switch {
		case len(w.q) == 0:
			w.armed = math.MaxInt64 // an expired timer stays quiet
		case w.wakeAt(w.q[0].at) != w.armed:
			w.armAt(w.wakeAt(w.q[0].at))
		}
		w.slept = true
		w.mu.Unlock()
		w.sl.sleep() // an add before armed re-arms it
	}
}

// wakeDue wakes the workers due at now (all of them once closed) and
// reports whether it woke any. The caller holds mu.
func (w *waker) wakeDue(now int64) bool {
	woke := false
	for len(w.q) > 0 && (w.closed || w.q[0].at <= now) {
		e := w.pop()
		select {
		case e.ch <- struct{}{}:
			woke = true
		default: // a token is waiting already
		}
	}
	return woke
}

func (w *waker) push(e waitEntry) {
	w.q = append(w.q, e)
	for i := len(w.q) - 1; i > 0; {
		up := (i - 1) / 2
		if w.q[up].at <= w.q[i].at {
			break
		}
		w.q[up], w.q[i] = w.q[i], w.q[up]
		i = up
	}
}

func (w *waker) pop() waitEntry {
	top := w.q[0]
	last := len(w.q) - 1
	w.q[0] = w.q[last]
	w.q[last] = waitEntry{}
	w.q = w.q[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < last && w.q[l].at < w.q[m].at {
			m = l
		}
		if r := l + 1; r < last && w.q[r].at < w.q[m].at {
			m = r
		}
		if m == i {
			break
		}
		w.q[i], w.q[m] = w.q[m], w.q[i]
		i = m
	}
	return top
}
