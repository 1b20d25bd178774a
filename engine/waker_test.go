package engine

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The waker's heap hands entries back in the order of their times.
func TestWakerHeapOrder(t *testing.T) {
	w := newWaker(nanotime)
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		w.push(waitEntry{at: r.Int64N(500)})
	}
	last := int64(-1)
	for len(w.q) > 0 {
		e := w.pop()
		if e.at < last {
			t.Fatalf("popped %d after %d", e.at, last)
		}
		last = e.at
	}
}

// Many paced workers queued with one waker are all woken, none before
// its intended start.
func TestWakerWakesEveryWaiterNotBeforeIntended(t *testing.T) {
	base := nanotime()
	now := func() int64 { return nanotime() - base }
	w := newWaker(now)
	defer w.close()
	var pl plan
	pl.replan(1, 1)
	never := make(chan struct{})
	var early, done atomic.Int64
	var wg sync.WaitGroup
	const n = 300
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := &wstate{sched: newSchedule(), waker: w, wakeC: make(chan struct{}, 1)}
			ws.sched.next(&pl, now) // follow the plan's epoch
			for k := range 5 {
				intended := now() + int64((i*7+k*13)%1500)*1000 // 0-1.5 ms ahead
				start, ok := ws.waitUntil(&pl, func() <-chan struct{} { return never }, now, intended)
				if !ok {
					t.Error("wait cut short without a control change")
					return
				}
				if start < intended {
					early.Add(1)
				}
				done.Add(1)
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatalf("only %d of %d waits returned", done.Load(), n*5)
	}
	if early.Load() != 0 {
		t.Errorf("%d waits returned before their intended start", early.Load())
	}
}

// A worker queued with the waker is woken by a control change. Its clock
// stands still, so its slot never comes.
func TestWakerWaitWokenByChange(t *testing.T) {
	still := func() int64 { return 0 }
	w := newWaker(still)
	defer w.close()
	var pl plan
	pl.replan(1, 1)
	ws := &wstate{sched: newSchedule(), waker: w, wakeC: make(chan struct{}, 1)}
	ws.sched.next(&pl, still)
	wake := make(chan struct{})
	go func() { time.Sleep(10 * time.Millisecond); close(wake) }()
	if _, ok := ws.waitUntil(&pl, func() <-chan struct{} { return wake }, still, int64(time.Millisecond)); ok {
		t.Fatal("waitUntil reported the slot reached on a clock that stands still")
	}
}

// After close a wait is not left hanging: the token comes at once.
func TestWakerClosedWakesAtOnce(t *testing.T) {
	w := newWaker(func() int64 { return 0 })
	w.add(1, make(chan struct{}, 1)) // starts the dispatcher
	w.close()
	ch := make(chan struct{}, 1)
	w.add(int64(time.Hour), ch)
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no token from a closed waker")
	}
}

// A worker may sleep on its own thread only while at most soloWaiters
// workers wait; one leaving makes room again.
func TestWakerSoloOnlyWhenFewWait(t *testing.T) {
	w := newWaker(nanotime)
	for i := 0; i < soloWaiters; i++ {
		if !w.enter() {
			t.Fatalf("waiter %d of %d not solo", i+1, soloWaiters)
		}
	}
	if w.enter() {
		t.Fatalf("waiter %d solo; at most %d", soloWaiters+1, soloWaiters)
	}
	w.leave()
	w.leave()
	if !w.enter() {
		t.Fatal("not solo after two waiters left")
	}
	if got := w.waiting.Load(); got != soloWaiters {
		t.Fatalf("waiting = %d, want %d", got, soloWaiters)
	}
}
