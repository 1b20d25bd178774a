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
	// 2 points over 4 columns of 0.5 s, plotted at the middle of their
	// interval (0.5 s and 1.5 s): the first value holds until the second.
	vals, _, _, _ := Columns(ring(10, 20), 2*time.Second, 2*time.Second, 4)
	want := []float64{10, 10, 20}
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
