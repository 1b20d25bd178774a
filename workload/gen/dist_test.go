package gen

import (
	"math"
	"testing"
)

func TestHotspot(t *testing.T) {
	const draws = 200000
	tests := []struct {
		name           string
		lo, hi         int64
		hotset, hotOpn float64
		wantHot        int64   // hot set size
		wantShare      float64 // share of draws in the hot set
	}{
		{"20/80", 0, 999, 0.2, 0.8, 200, 0.8},
		{"10/90 offset", 100, 1099, 0.1, 0.9, 100, 0.9},
		{"half", 0, 99, 0.5, 0.5, 50, 0.5},
		{"truncated hot set", 0, 9, 0.25, 0.7, 2, 0.7},
		{"no hot set", 0, 99, 0, 0.9, 0, 0},
		{"all hot", 0, 99, 1, 0.3, 100, 1},
		{"bad hotset fraction", 0, 99, 1.5, 0.9, 0, 0},
		{"bad opn fraction", 0, 99, 0.2, -1, 20, 0},
		{"swapped bounds", 99, 0, 0.2, 0.8, 20, 0.8},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHotspot(tc.lo, tc.hi, tc.hotset, tc.hotOpn)
			if h.HotSize() != tc.wantHot {
				t.Fatalf("hot set size %d, want %d", h.HotSize(), tc.wantHot)
			}
			lo, hi := min(tc.lo, tc.hi), max(tc.lo, tc.hi)
			r := newRand(uint64(60 + i))
			n := hi - lo + 1
			obs := make([]int64, n)
			var hot int64
			for range draws {
				v := h.Next(r)
				if v < lo || v > hi {
					t.Fatalf("draw %d outside [%d,%d]", v, lo, hi)
				}
				if v < lo+tc.wantHot {
					hot++
				}
				obs[v-lo]++
			}
			checkProportion(t, "hot share", hot, draws, tc.wantShare)
			// Uniform inside each set.
			prob := make([]float64, n)
			for j := range prob {
				if int64(j) < tc.wantHot {
					prob[j] = tc.wantShare / float64(tc.wantHot)
				} else {
					prob[j] = (1 - tc.wantShare) / float64(n-tc.wantHot)
				}
			}
			checkChiSquare(t, "values", obs, prob)
		})
	}
}

func TestExponential(t *testing.T) {
	const draws = 200000
	tests := []struct{ percentile, rng float64 }{
		{95, 1000}, {90, 100}, {50, 10}, {ExponentialPercentileDefault, 1e6 * ExponentialFracDefault},
	}
	for i, tc := range tests {
		e := NewExponential(tc.percentile, tc.rng)
		if want := -math.Log(1-tc.percentile/100) / tc.rng; e.Gamma() != want {
			t.Errorf("gamma %v, want %v", e.Gamma(), want)
		}
		r := newRand(uint64(70 + i))
		var sum float64
		var below, belowInt int64
		for range draws {
			f := e.NextFloat(r)
			if f < 0 {
				t.Fatalf("negative draw %v", f)
			}
			sum += f
			if f < tc.rng {
				below++
			}
			if v := e.Next(r); v < int64(tc.rng) {
				belowInt++
			}
		}
		mean := sum / draws
		// The standard deviation of an exponential equals its mean.
		if sigma := e.Mean() / math.Sqrt(draws); math.Abs(mean-e.Mean()) > 5*sigma {
			t.Errorf("(%v,%v): mean %.3f, want %.3f ± %.3f", tc.percentile, tc.rng, mean, e.Mean(), 5*sigma)
		}
		checkProportion(t, "percentile (float)", below, draws, tc.percentile/100)
		checkProportion(t, "percentile (int)", belowInt, draws, tc.percentile/100)
	}
	// Invalid arguments fall back to YCSB's default percentile and range 1.
	if g, want := NewExponential(0, -3).Gamma(), NewExponential(ExponentialPercentileDefault, 1).Gamma(); g != want {
		t.Errorf("fallback gamma %v, want %v", g, want)
	}
}

func TestDiscrete(t *testing.T) {
	const draws = 200000
	tests := []struct {
		name    string
		weights []float64
		want    []float64 // probability of value i
	}{
		{"half/half", []float64{0.5, 0.5}, []float64{0.5, 0.5}},
		{"95/5", []float64{0.95, 0.05}, []float64{0.95, 0.05}},
		{"unnormalised", []float64{3, 1}, []float64{0.75, 0.25}},
		{"zero weight skipped", []float64{0.5, 0, 0.5}, []float64{0.5, 0, 0.5}},
		{"bad weights skipped", []float64{-1, 2, math.NaN(), 2, math.Inf(1)}, []float64{0, 0.5, 0, 0.5, 0}},
		{"ycsb A-F mix", []float64{0.5, 0.3, 0.1, 0.05, 0.05}, []float64{0.5, 0.3, 0.1, 0.05, 0.05}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDiscrete()
			for v, w := range tc.weights {
				d.Add(w, v)
			}
			if d.Empty() {
				t.Fatal("Empty after Add")
			}
			r := newRand(uint64(90 + i))
			obs := make([]int64, len(tc.weights))
			for range draws {
				obs[d.Next(r)]++
			}
			for v, p := range tc.want {
				checkProportion(t, "value", obs[v], draws, p)
			}
		})
	}
	d := NewDiscrete()
	d.Add(0, 1)
	d.Add(-1, 2)
	if !d.Empty() || d.Next(newRand(1)) != -1 {
		t.Error("Discrete with no positive weight is not Empty or Next != -1")
	}
}
