package engine

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// waker wakes paced workers at their intended starts, for the last
// stretch of a pacing wait (the part a Go timer cannot time: its timers
// fire on the netpoller's millisecond grid when the process is idle).
// A worker queues its intended start and parks on its channel, a
// goroutine parking like any other; one dispatcher goroutine sleeps in
// one interruptible system call (1 µs timer slack) until the earliest
// start queued and wakes every worker then due.
//
// The workers it wakes go to the run queue of the scheduler's P the
// dispatcher runs on, and a goroutine in a system call keeps its P: had
// the dispatcher gone back to sleep at once, they would have waited on
// that P until another P stole them or the runtime's monitor took the P
// back, which it does only when the system call spans two of its ticks
// (20 µs to 10 ms apart): at 4096 workers, 1 % of them waited 10-20 ms
// for a core with a core idle (go tool trace). So it yields before every
// sleep (runtime.Gosched: the P runs what is queued on it, the dispatcher
// waits its turn on the global queue), and it is not locked to an OS
// thread (a locked goroutine's yield hands its P and thread over through
// two futex wake-ups); it sets the timer slack of whichever thread it is
// on before each sleep.
//
// Before the waker, each worker slept the stretch in a nanosleep of its
// own: an OS thread blocked per waiting worker (hundreds at 4096
// workers), a system call and a hand-off of the scheduler's P per
// operation, and the default 50 µs timer slack on every wake-up.
//
// The dispatcher starts with the first wait and ends with close (the
// phase's workers have exited). Waiters are kept in a binary heap of our
// own: container/heap boxes each entry into an interface, an allocation
// per operation.
type waker struct {
	clock func() int64

	mu      sync.Mutex
	q       []waitEntry // min-heap on at
	target  int64       // what the dispatcher sleeps until; MaxInt64: idle
	started bool
	closed  bool
	sl      sleeper

	waiting atomic.Int32 // workers in a pacing wait (enter, leave)
}

// soloWaiters is how many workers may be waiting at once for one of them
// to sleep its wait on its own thread instead of queueing with the
// dispatcher. With one worker the dispatcher costs more than it saves: an
// eventfd write to interrupt it, its own wake-up, then the futex wake of a
// thread for the worker: at 1 thread and 1,000 ops/s about 60 µs of CPU
// per paced operation more than a nanosleep of the worker's own (docs/performance.md). A solo sleeper blocks an OS thread and, when its sleep
// ends, needs a P back: letting 8 workers sleep so at 8 threads and
// 100,000 ops/s halved the CPU per operation but took intended p99 from
// ~0.5 ms to ~40 ms, and letting one of them (while the other 7 queued)
// took it to ~6 ms. So a worker sleeps on its own only when it is the
// only one waiting; with more, all queue (4096 workers stay on a few
// threads). (Those figures predate the yields before each sleep, which
// took intended p99 at 8 threads to 0.4-1.1 ms; docs/performance.md.)
const soloWaiters = 1

// enter counts a worker into a wait and tells whether it may sleep on its
// own thread (see soloWaiters); leave counts it out.
func (w *waker) enter() (solo bool) { return w.waiting.Add(1) <= soloWaiters }

func (w *waker) leave() { w.waiting.Add(-1) }

// waitEntry is one queued wait: the worker's buffered channel gets a token
// at (or just before) at.
type waitEntry struct {
	at int64
	ch chan struct{}
}

// wakeEarly is how early the dispatcher wakes a worker: about what the
// scheduler takes to run a readied goroutine. The worker spins the rest
// (runtime.Gosched), so it never starts before its intended time.
const wakeEarly = 2000 // ns

// spinPacing is the longest wait a worker spins instead of queueing.
const spinPacing = 3000 // ns

func newWaker(clock func() int64) *waker {
	return &waker{clock: clock, target: math.MaxInt64}
}

// add queues a wake-up of ch at at; it interrupts the dispatcher's sleep
// when at comes before what it sleeps until.
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
	interrupt := at < w.target
	if interrupt {
		w.target = at
	}
	sl := w.sl
	w.mu.Unlock()
	if interrupt {
		sl.interrupt()
	}
}

// close ends the dispatcher once the workers are gone; queued workers are
// woken.
func (w *waker) close() {
	w.mu.Lock()
	w.closed = true
	started, sl := w.started, w.sl
	w.mu.Unlock()
	if started {
		sl.interrupt()
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
		woke := w.wakeDue(now)
		if w.closed {
			w.mu.Unlock()
			return
		}
		if woke { // yield to them first, then look again
			w.mu.Unlock()
			continue
		}
		d := int64(-1) // idle: until interrupted
		w.target = math.MaxInt64
		if len(w.q) > 0 {
			w.target = w.q[0].at
			d = w.target - wakeEarly - now // > 0: wakeDue took what was due
		}
		w.mu.Unlock()
		w.sl.sleep(d) // an add before target interrupts it
	}
}

// wakeDue wakes the workers due at now (all of them once closed) and
// reports whether it woke any. The caller holds mu.
func (w *waker) wakeDue(now int64) bool {
	woke := false
	for len(w.q) > 0 && (w.closed || w.q[0].at <= now+wakeEarly) {
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
