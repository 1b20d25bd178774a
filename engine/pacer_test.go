package engine

import (
	"testing"
	"time"
)

// at is a clock stopped at t.
func at(t int64) func() int64 { return func() int64 { return t } }

// The schedule is YCSB's: operation k is intended at start + k*tick.
func TestScheduleIntendedStarts(t *testing.T) {
	t.Parallel()
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

// The workers' schedules are staggered: worker i of n starts (i +
// phase)/n of a tick after the restart, so that n workers together run one
// operation every 1/target rather than n at once every tick.
func TestSchedulesStaggerWorkers(t *testing.T) {
	t.Parallel()
	for _, phase := range []float64{0, 0.5, 0.999} {
		var pl plan
		pl.phase = phase
		const n = 50
		pl.replan(100, n) // 100 ops/s over 50 workers: a tick of 500 ms each
		tick := int64(n * 1e9 / 100)
		slot := tick / n // 10 ms: the fleet of workers' spacing
		var prev int64 = -1
		for id := 0; id < n; id++ {
			s := newWorkerSchedule(id)
			first, _ := s.next(&pl, at(1_000))
			second, _ := s.next(&pl, at(1_000))
			off := first - 1_000
			if want := int64((float64(id) + phase) * float64(slot)); off < want-1 || off > want+1 {
				t.Fatalf("phase %v worker %d: first op %d ns after the restart, want %d", phase, id, off, want)
			}
			if off < 0 || off >= tick {
				t.Fatalf("phase %v worker %d: offset %d outside [0, tick %d)", phase, id, off, tick)
			}
			if second-first != tick {
				t.Fatalf("phase %v worker %d: ops %d apart, want the tick %d", phase, id, second-first, tick)
			}
			if prev >= 0 && (off-prev < slot-1 || off-prev > slot+1) {
				t.Fatalf("phase %v worker %d: %d ns after worker %d, want %d", phase, id, off-prev, id-1, slot)
			}
			prev = off
		}
	}
}

// A re-plan for fewer workers staggers them over the new count; a worker
// whose index is past it (stopping) stays within one tick.
func TestScheduleStaggerFollowsReplan(t *testing.T) {
	t.Parallel()
	var pl plan
	pl.replan(100, 50)
	s := newWorkerSchedule(3)
	s.next(&pl, at(0))
	pl.replan(100, 4) // 40 ms a tick, 10 ms a slot
	if got, _ := s.next(&pl, at(1_000_000_000)); got != 1_000_000_000+30_000_000 {
		t.Fatalf("worker 3 of 4 after a re-plan: intended %d, want now + 30 ms", got)
	}
	late := newWorkerSchedule(9)
	if got, _ := late.next(&pl, at(0)); got < 0 || got >= 40_000_000 {
		t.Fatalf("worker 9 of 4: intended %d, want within one tick (40 ms)", got)
	}
}

// After a stall the schedule catches up: intended times stay on the plan,
// so the stall shows in the latency of every delayed operation.
func TestScheduleCatchesUpAfterStall(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	var pl plan
	pl.replan(1, 1) // one op a second
	wake := make(chan struct{})
	ws := &wstate{sched: newSchedule()}
	base := nanotime()
	now := func() int64 { return nanotime() - base }
	ws.sched.next(&pl, now)
	intended, _ := ws.sched.next(&pl, now) // 1 s ahead
	go func() { time.Sleep(20 * time.Millisecond); close(wake) }()
	t0 := time.Now()
	if _, ok := ws.waitUntil(&pl, func() <-chan struct{} { return wake }, now, intended); ok {
		t.Fatal("waitUntil reported the slot reached, want woken")
	}
	if d := time.Since(t0); d >= time.Second {
		t.Fatalf("woken after %v, want well before the 1 s slot", d)
	}
}

// With a pacing grid, every intended start is a multiple of the grid, at
// or after its start on the plan and less than one grid step later: the
// workers due within one step are woken together, and the rate stays the
// target's (no start drifts). The grid is at most half a worker's tick.
func TestScheduleOnGrid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		target  float64
		workers int
		grid    int64
	}{
		{150000, 12, 20_000}, // a tick of 80 µs: a multiple of the grid
		{100000, 7, 30_000},  // 70 µs: not a multiple
		{20000, 1, 20_000},   // 50 µs: the grid is at most half of it
		{1e6, 1, 20_000},     // 1 µs: the grid is at most half of it (500 ns)
	} {
		var pl plan
		pl.grid = tc.grid
		pl.phase = 0.37
		pl.replan(tc.target, tc.workers)
		tick := int64(float64(tc.workers) * 1e9 / tc.target)
		grid := min(tc.grid, tick/2)
		for id := range tc.workers {
			s := newWorkerSchedule(id)
			var ungridded schedule = newWorkerSchedule(id)
			var nogrid plan
			nogrid.phase = pl.phase
			nogrid.replan(tc.target, tc.workers)
			for k := range 1000 {
				got, _ := s.next(&pl, at(12_345))
				want, _ := ungridded.next(&nogrid, at(12_345))
				if grid == 0 && got != want || grid > 0 && (got%grid != 0 || got < want || got >= want+grid) {
					t.Fatalf("%+v worker %d op %d: intended %d, want the first multiple of %d from %d", tc, id, k, got, grid, want)
				}
				if d := want - (12_345 + nogrid.offset(int64(id), tick)); d != int64(k)*tick {
					t.Fatalf("%+v: the plan without a grid drifted (%d)", tc, d)
				}
			}
		}
	}
}
