package engine

import (
	"testing"
	"time"
)

// at is a clock stopped at t.
func at(t int64) func() int64 { return func() int64 { return t } }

// The schedule is YCSB's: operation k is intended at start + k*tick.
func TestScheduleIntendedStarts(t *testing.T) {
	var pl plan
	pl.replan(1000, 2) // 2 workers at 1000 ops/s in all: 2 ms each
	s := newSchedule()
	for k := int64(0); k < 5; k++ {
		got, paced := s.next(&pl, at(7_000+k)) // now moves, the plan does not
		if want := 7_000 + k*2_000_000; !paced || got != want {
			t.Fatalf("op %d: intended %d (paced %v), want %d", k, got, paced, want)
		}
	}
}

// After a stall the schedule catches up: intended times stay on the plan,
// so the stall shows in the latency of every delayed operation.
func TestScheduleCatchesUpAfterStall(t *testing.T) {
	var pl plan
	pl.replan(1000, 1) // 1 ms
	s := newSchedule()
	s.next(&pl, at(0))
	stalled := int64(50 * time.Millisecond) // the next call comes 50 ms late
	for k := int64(1); k <= 3; k++ {
		got, _ := s.next(&pl, at(stalled))
		if want := k * int64(time.Millisecond); got != want {
			t.Fatalf("op %d after a stall: intended %d, want %d (on the plan, not now)", k, got, want)
		}
	}
}

// A re-plan (threads, target) or a resume restarts the schedule from now;
// a slot given back is handed out again.
func TestScheduleReplansFromNow(t *testing.T) {
	var pl plan
	pl.replan(1000, 1)
	s := newSchedule()
	s.next(&pl, at(0))
	s.next(&pl, at(1))
	pl.replan(500, 1) // 2 ms
	if got, _ := s.next(&pl, at(10_000_000)); got != 10_000_000 {
		t.Fatalf("after replan: intended %d, want now (10000000)", got)
	}
	if got, _ := s.next(&pl, at(10_000_001)); got != 12_000_000 {
		t.Fatalf("second op after replan: intended %d, want 12000000", got)
	}
	s.unclaim()
	if got, _ := s.next(&pl, at(10_000_002)); got != 12_000_000 {
		t.Fatalf("slot given back: intended %d, want 12000000 again", got)
	}
	pl.restart()
	if got, _ := s.next(&pl, at(99_000_000)); got != 99_000_000 {
		t.Fatalf("after restart (resume): intended %d, want now", got)
	}
	pl.replan(0, 1)
	if _, paced := s.next(&pl, at(100_000_000)); paced {
		t.Fatal("unlimited target: still paced")
	}
}

// A wait is cut short by a control change (the wake channel), so that a
// new plan takes effect at once.
func TestWaitUntilWokenByChange(t *testing.T) {
	var pl plan
	pl.replan(1, 1) // one op a second
	wake := make(chan struct{})
	ws := &wstate{sched: newSchedule()}
	base := nanotime()
	now := func() int64 { return nanotime() - base }
	intended, _ := ws.sched.next(&pl, now)
	intended, _ = ws.sched.next(&pl, now) // 1 s ahead
	go func() { time.Sleep(20 * time.Millisecond); close(wake) }()
	t0 := time.Now()
	if _, ok := ws.waitUntil(&pl, func() <-chan struct{} { return wake }, now, intended); ok {
		t.Fatal("waitUntil reported the slot reached, want woken")
	}
	if d := time.Since(t0); d >= time.Second {
		t.Fatalf("woken after %v, want well before the 1 s slot", d)
	}
}

// With a per-worker tick of 1 ms or more, a (re)started schedule starts
// at a random point of the first tick (YCSB's randomMinorDelay), never
// before now and never a tick or more after it; with a shorter tick it
// starts now.
func TestScheduleStartsSpreadOverTheFirstTick(t *testing.T) {
	p, ws := benchPhaseT(t, nil)
	p.plan.replan(100, 4) // 40 ms per worker
	tick := p.plan.tickNs.Load()
	seen := map[int64]bool{}
	for range 200 {
		before := p.now()
		start := ws.schedClock()
		after := p.now()
		if start < before || start >= after+tick {
			t.Fatalf("schedule start %d outside [%d, %d)", start, before, after+tick)
		}
		seen[(start-before)*10/tick] = true
	}
	if len(seen) < 5 {
		t.Errorf("200 starts fell in %d of the tick's 10 tenths, want them spread", len(seen))
	}
	p.plan.replan(1e6, 4) // 4 µs per worker: not spread
	before := p.now()
	if start := ws.schedClock(); start < before || start > p.now() {
		t.Errorf("short tick: schedule start %d, want now (%d)", start, before)
	}
}
