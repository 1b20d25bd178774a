package throughput

import (
	"math"
	"testing"
	"time"

	"benchtop/tui/history"
)

func ring(rates ...float64) *history.Ring[history.Point] {
	r := history.NewRing[history.Point](100)
	for i, v := range rates {
		end := time.Duration(i+1) * time.Second
		r.Push(history.Point{End: end, Mid: end - time.Second/2, Rate: v})
	}
	return r
}

func TestColumnsAveragesWhenTheWindowIsWiderThanTheChart(t *testing.T) {
	// 8 one-second points into 4 columns of 2 s: pairs are averaged.
	vals, _, bucket, _ := Columns(ring(1, 3, 5, 7, 9, 11, 13, 15), 8*time.Second, 8*time.Second, 4)
	if bucket != 2 {
		t.Fatalf("bucket = %v s, want 2", bucket)
	}
	want := []float64{2, 6, 10, 14}
	if len(vals) != len(want) {
		t.Fatalf("vals = %v, want %v", vals, want)
	}
	for i := range want {
		if math.Abs(vals[i]-want[i]) > 1e-9 {
			t.Fatalf("vals = %v, want %v", vals, want)
		}
	}
}

func TestColumnsKeepsOnlyTheWindow(t *testing.T) {
	vals, _, _, _ := Columns(ring(100, 100, 100, 1, 2, 3), 6*time.Second, 3*time.Second, 3)
	if len(vals) != 3 || vals[0] != 1 || vals[2] != 3 {
		t.Fatalf("vals = %v, want [1 2 3]", vals)
	}
}

func TestColumnsStretchesWhenTheChartIsWiderThanTheWindow(t *testing.T) {
	// 2 intervals of 1 s over 4 columns of 0.5 s: each holds the two
	// columns of its own time, and the line steps where they meet.
	vals, _, _, _ := Columns(ring(10, 20), 2*time.Second, 2*time.Second, 4)
	want := []float64{10, 10, 20, 20}
	if len(vals) != len(want) {
		t.Fatalf("vals = %v, want %v", vals, want)
	}
	for i := range want {
		if vals[i] != want[i] {
			t.Fatalf("vals = %v, want %v", vals, want)
		}
	}
}

func TestColumnsOfAnEmptyHistory(t *testing.T) {
	vals, targets, _, _ := Columns(history.NewRing[history.Point](4), 0, time.Minute, 10)
	if vals != nil || targets != nil {
		t.Fatalf("vals = %v, targets = %v, want none", vals, targets)
	}
}

func TestNice(t *testing.T) {
	for v, want := range map[float64]float64{0: 1, 0.95: 1, 1.1: 1.2, 1.37e6: 1.4e6, 7.1e5: 8e5, 1e3: 1e3} {
		if got := NiceCeil(v); math.Abs(got-want) > want*1e-9 {
			t.Errorf("NiceCeil(%v) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[float64]float64{0.3: 0.5, 140e3: 200e3, 2.1: 2.5, 1: 1} {
		if got := NiceStep(v); math.Abs(got-want) > want*1e-9 {
			t.Errorf("NiceStep(%v) = %v, want %v", v, got, want)
		}
	}
}

// A column averages its intervals by the time each covered: a load's
// 12 ms at 84K ops/s beside a second at 2,000 is 2,972 ops/s, not 43K.
func TestColumnsWeighIntervalsByTheirLength(t *testing.T) {
	r := history.NewRing[history.Point](4)
	sliver := 12 * time.Millisecond
	r.Push(history.Point{End: sliver, Mid: sliver / 2, Rate: 84000})
	end := sliver + time.Second
	r.Push(history.Point{End: end, Mid: end - time.Second/2, Rate: 2000})
	vals, _, _, _ := Columns(r, 2*time.Second, 2*time.Second, 1)
	want := (84000*0.012 + 2000) / 1.012
	if len(vals) != 1 || math.Abs(vals[0]-want) > 1e-6 {
		t.Errorf("vals = %v, want [%v]", vals, want)
	}
}

// A load's sliver of an interval (12 ms at 84K ops/s) counts in its own
// column for the time it covered, (84,000 × 0.012 + 2,000 × 0.088) / 0.1
// = 11,840 ops/s, and in no other: the columns after it are the next
// interval's 2,000 ops/s.
func TestColumnsASliverHoldsItsColumnOnly(t *testing.T) {
	r := history.NewRing[history.Point](4)
	sliver := 12 * time.Millisecond
	r.Push(history.Point{End: sliver, Mid: sliver / 2, Rate: 84000})
	for end := sliver + time.Second; end < 3*time.Second; end += time.Second {
		r.Push(history.Point{End: end, Mid: end - time.Second/2, Rate: 2000})
	}
	vals, _, _, _ := Columns(r, 3*time.Second, 3*time.Second, 30)
	if len(vals) != 30 || math.Abs(vals[0]-11840) > 1e-6 {
		t.Fatalf("vals = %v: want 30, the first 11840", vals)
	}
	for i, v := range vals[1:21] {
		if math.Abs(v-2000) > 1e-6 {
			t.Fatalf("column %d (%.1f-%.1f s): %v, want 2000: vals %v", i+1, 0.1*float64(i+1), 0.1*float64(i+2), v, vals)
		}
	}
}
