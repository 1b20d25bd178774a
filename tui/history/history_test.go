package history

import (
	"testing"
	"time"

	"benchtop/rundata"
)

func feed(h *History, n int, every time.Duration) {
	for i := 1; i <= n; i++ {
		h.Add(&rundata.Snapshot{Elapsed: time.Duration(i) * every, Interval: every})
	}
}

// At status.interval=100ms the throughput series keeps the whole window
// (an hour: 36,000 points), even when told the default interval, and no
// more than the window.
func TestWindowHoldsAnHourAtTheActualInterval(t *testing.T) {
	h := New(time.Second) // what the screen is told when nobody says
	feed(h, 50000, 100*time.Millisecond)
	pts := h.Points()
	span := pts.At(pts.Len()-1).End - pts.At(0).End
	if span < Window-time.Second || span > Window+time.Second {
		t.Errorf("the series spans %v at 100 ms snapshots, want the %v window", span, Window)
	}
	if pts.Len() > maxPoints {
		t.Errorf("%d points kept, want at most %d", pts.Len(), maxPoints)
	}
}

// At 1 s the series is the hour it always was, and very short intervals
// stay within maxPoints.
func TestWindowBounds(t *testing.T) {
	h := New(time.Second)
	feed(h, 5000, time.Second)
	if got := h.Points().Len(); got != pointsFor(time.Second) {
		t.Errorf("%d points at 1 s, want %d", got, pointsFor(time.Second))
	}
	fast := New(0)
	feed(fast, 150000, 10*time.Millisecond)
	if got := fast.Points().Len(); got != maxPoints {
		t.Errorf("%d points at 10 ms, want the bound %d", got, maxPoints)
	}
	// Values survive growing, oldest first.
	r := NewRing[int](3)
	for i := 1; i <= 5; i++ {
		r.Push(i)
	}
	r.grow(6)
	r.Push(6)
	if got := r.Tail(10); len(got) != 4 || got[0] != 3 || got[3] != 6 {
		t.Errorf("after grow: %v, want [3 4 5 6]", got)
	}
}

// The mean the header shows is over the time the phase ran: intervals
// paused from end to end do not count, so the mean holds still while the
// run is paused (the engine's cumulative rate, over the wall time, falls),
// and a new phase starts it afresh.
func TestMeanLeavesPausedIntervalsOut(t *testing.T) {
	h := New(time.Second)
	n := 0
	add := func(phase rundata.Phase, rate float64, paused bool, cumulative float64) {
		n++
		s := &rundata.Snapshot{Phase: phase, Elapsed: time.Duration(n) * time.Second, Interval: time.Second, Paused: paused}
		s.Total.Interval.Rate, s.Total.Cumulative.Rate = rate, cumulative
		h.Add(s)
	}
	for i := 0; i < 4; i++ {
		add(rundata.PhaseRun, 1000, false, 1000)
	}
	// Paused within the fifth interval: it counts, at the rate it had.
	add(rundata.PhaseRun, 600, true, 920)
	if h.MeanRate != 920 {
		t.Fatalf("mean after a pause began: %v, want 920", h.MeanRate)
	}
	for i := 0; i < 5; i++ {
		add(rundata.PhaseRun, 0, true, 4600/float64(6+i))
		if h.MeanRate != 920 {
			t.Fatalf("mean %v after %d paused intervals, want it held at 920 (the engine's: %v)", h.MeanRate, i+1, h.Last.Total.Cumulative.Rate)
		}
	}
	// Resumed within an interval: it counts, then the rest.
	add(rundata.PhaseRun, 400, false, 0)
	add(rundata.PhaseRun, 2000, false, 0)
	if want := (4600.0 + 400 + 2000) / 7; h.MeanRate != want {
		t.Errorf("mean after the resume: %v, want %v", h.MeanRate, want)
	}
	// A new phase: its own mean.
	add(rundata.PhaseLoad, 50, false, 50)
	if h.MeanRate != 50 {
		t.Errorf("mean of a new phase: %v, want 50", h.MeanRate)
	}
}

// The header's max is the highest whole interval of the phase: a load's
// one sliver of an interval (1,000 records in 12 ms: 84K ops/s) shows
// while the load is all there is, then the run phase starts its own max;
// a last interval cut at the stop (35 ms) does not raise it, nor become
// the current rate.
func TestMaxIsAWholeIntervalOfThePhase(t *testing.T) {
	h := New(time.Second)
	var elapsed time.Duration
	add := func(phase rundata.Phase, rate float64, interval time.Duration) {
		elapsed += interval
		s := &rundata.Snapshot{Phase: phase, Elapsed: elapsed, Interval: interval}
		s.Total.Interval.Rate = rate
		h.Add(s)
	}
	add(rundata.PhaseLoad, 84304, 12*time.Millisecond)
	if h.MaxRate != 84304 {
		t.Errorf("max of a load of one sliver: %v, want 84304", h.MaxRate)
	}
	for _, r := range []float64{1987, 2001, 1990} {
		add(rundata.PhaseRun, r, time.Second)
	}
	if h.MaxRate != 2001 {
		t.Errorf("max of the run phase: %v, want 2001 (the load's sliver is another phase's)", h.MaxRate)
	}
	add(rundata.PhaseRun, 48900, 35*time.Millisecond)
	if h.MaxRate != 2001 {
		t.Errorf("max after a last interval of 35 ms: %v, want 2001", h.MaxRate)
	}
	if h.CurRate != 1990 {
		t.Errorf("current after a last interval of 35 ms: %v, want the last whole interval's 1990", h.CurRate)
	}
	add(rundata.PhaseRun, 2500, 900*time.Millisecond)
	if h.MaxRate != 2500 {
		t.Errorf("max after a whole interval of 2,500: %v", h.MaxRate)
	}
}
