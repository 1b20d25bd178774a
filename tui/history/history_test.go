package history

import (
	"testing"
	"time"

	"benchtop/engine"
)

func feed(h *History, n int, every time.Duration) {
	for i := 1; i <= n; i++ {
		h.Add(&engine.Snapshot{Elapsed: time.Duration(i) * every, Interval: every})
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
