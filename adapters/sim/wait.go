package sim

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's monotonic clock in ns, the clock the engine
// measures operations with (engine/clock.go): reading it costs less than
// time.Now, which reads the wall clock too.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// waiter makes callers wait until a time on nanotime's clock, precisely:
// Go's timers fire on the runtime's millisecond grid when the process is
// idle (a 50 µs time.Sleep took ~1 ms here), which would add up to a
// millisecond to every operation. So, as the engine's pacer does
// (engine/waker.go), a caller queues its wake-up time and parks on a
// channel of its own; one dispatcher goroutine sleeps in one
// interruptible system call with a 1 µs timer slack (sleeper) until the
// earliest time queued, and wakes every caller then due, wakeEarly
// before its time; the caller spins the rest with runtime.Gosched, so it
// never returns before its time. Waits shorter than spinWait are spun
// whole.
//
// Its own copy rather than the engine's: an adapter does not import the
// engine (docs/architecture.md), and this one has no pacing plan to
// follow.
type waiter struct {
	mu      sync.Mutex
	q       []wake // min-heap on at
	target  int64  // what the dispatcher sleeps until; MaxInt64: idle
	started bool
	closed  bool
	sl      sleeper

	isClosed atomic.Bool // closed, read without the lock
}

type wake struct {
	at int64
	ch chan struct{}
}

// wakeEarly is how early a caller is woken: about what the scheduler
// takes to run a readied goroutine; the caller spins the rest.
const wakeEarly = 4000 // ns

// spinWait is the longest wait spun rather than queued.
const spinWait = 5000 // ns

func newWaiter() *waiter { return &waiter{target: math.MaxInt64} }

var chans = sync.Pool{New: func() any { return make(chan struct{}, 1) }}

// errClosed is what a wait returns once the server is closed.
var errClosed = errors.New("the server is closed")

// until waits until nanotime reaches at, or ctx is done (its error), or
// the waiter is closed (errClosed).
func (w *waiter) until(ctx context.Context, at int64) error {
	if at-nanotime() > spinWait {
		ch := chans.Get().(chan struct{})
		if !w.add(at-wakeEarly, ch) {
			chans.Put(ch)
			return errClosed
		}
		if done := ctx.Done(); done != nil {
			select {
			case <-ch:
			case <-done:
				return ctx.Err() // ch is dropped: the dispatcher may still send to it
			}
		} else {
			<-ch
		}
		chans.Put(ch)
		if w.isClosed.Load() {
			return errClosed // woken by close, maybe long before at
		}
	}
	for nanotime() < at {
		runtime.Gosched()
	}
	return nil
}

// add queues a wake-up of ch at at, starting the dispatcher on first use;
// false once closed.
func (w *waiter) add(at int64, ch chan struct{}) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.push(wake{at, ch})
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
	return true
}

// close wakes every queued caller and ends the dispatcher.
func (w *waiter) close() {
	w.mu.Lock()
	w.closed = true
	w.isClosed.Store(true)
	started, sl := w.started, w.sl
	w.mu.Unlock()
	if started {
		sl.interrupt()
	}
}

// run is the dispatcher.
func (w *waiter) run() {
	defer w.sl.release()
	for {
		// Yield before every sleep (engine/waker.go says why: the callers
		// woken last go to this P's run queue, which must not wait
		// through the sleep).
		runtime.Gosched()
		w.mu.Lock()
		now := nanotime()
		woke := false
		for len(w.q) > 0 && (w.closed || w.q[0].at <= now) {
			e := w.pop()
			select {
			case e.ch <- struct{}{}:
			default:
			}
			woke = true
		}
		if w.closed {
			w.mu.Unlock()
			return
		}
		if woke {
			w.mu.Unlock()
			continue
		}
		d := int64(-1)
		w.target = math.MaxInt64
		if len(w.q) > 0 {
			w.target = w.q[0].at
			d = w.target - now
		}
		w.mu.Unlock()
		w.sl.sleep(d)
	}
}

func (w *waiter) push(e wake) {
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

func (w *waiter) pop() wake {
	top := w.q[0]
	last := len(w.q) - 1
	w.q[0] = w.q[last]
	w.q[last] = wake{}
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
