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
	t.Parallel()
	w := newWaker(nanotime, 0, 0)
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
// its intended start, with a pacing window or without.
func TestWakerWakesEveryWaiterNotBeforeIntended(t *testing.T) {
	t.Parallel()
	for _, window := range []int64{0, 200_000} {
		t.Run(time.Duration(window).String(), func(t *testing.T) {
			t.Parallel()
			wakeEveryWaiter(t, window)
		})
	}
}

// wakeEveryWaiter queues 1,500 waits over 1.5 ms with a waker of window
// (ns) and checks that each returns, none early, and that the
// dispatcher's sleeps that woke somebody came at most once a window.
func wakeEveryWaiter(t *testing.T, window int64) {
	base := nanotime()
	now := func() int64 { return nanotime() - base }
	w := newWaker(now, base, window)
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
	elapsed := now()
	if early.Load() != 0 {
		t.Errorf("%d waits returned before their intended start", early.Load())
	}
	if window == 0 {
		return
	}
	w.mu.Lock()
	wakeups := w.wakeups
	w.mu.Unlock()
	// Each such sleep ends at least window - wakeEarly after the last
	// wake-up (the timer fires wakeEarly before the time armed).
	if most := elapsed/(window-wakeEarly) + 1; wakeups > most {
		t.Errorf("%d wake-ups in %v with a %v window, want at most %d", wakeups, time.Duration(elapsed), time.Duration(window), most)
	}
}

// A worker queued with the waker is woken by a control change before
// its slot (an hour away) comes.
func TestWakerWaitWokenByChange(t *testing.T) {
	t.Parallel()
	base := nanotime()
	now := func() int64 { return nanotime() - base }
	w := newWaker(now, base, 0)
	defer w.close()
	var pl plan
	pl.replan(1, 1)
	ws := &wstate{sched: newSchedule(), waker: w, wakeC: make(chan struct{}, 1)}
	ws.sched.next(&pl, now)
	wake := make(chan struct{})
	go func() { time.Sleep(10 * time.Millisecond); close(wake) }()
	if _, ok := ws.waitUntil(&pl, func() <-chan struct{} { return wake }, now, now()+int64(time.Hour)); ok {
		t.Fatal("waitUntil reported a slot an hour away reached")
	}
}

// After close a wait is not left hanging: the token comes at once.
func TestWakerClosedWakesAtOnce(t *testing.T) {
	t.Parallel()
	w := newWaker(func() int64 { return 0 }, 0, 0)
	w.add(1, make(chan struct{}, 1)) // starts the dispatcher
	w.close()
	ch := make(chan struct{}, 1)
	w.add(int64(time.Hour), ch)
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatal("no token from a closed waker")
	}
}
