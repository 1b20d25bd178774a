package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// draws returns n service times of s, in ns.
func draws(t *testing.T, s Service, n int) []float64 {
	t.Helper()
	sp, err := newSampler(s)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = sp.draw(r)
	}
	return out
}

func meanCV(xs []float64) (mean, cv float64) {
	var s, s2 float64
	for _, x := range xs {
		s += x
	}
	mean = s / float64(len(xs))
	for _, x := range xs {
		s2 += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(s2/float64(len(xs)-1)) / mean
}

func shareBelow(xs []float64, below float64) float64 {
	n := 0
	for _, x := range xs {
		if x < below {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// TestDistributionsMeanAndShape: each distribution has the stated mean
// and cv, and its own shape (a tail or a median that tells it from the
// others). 400,000 draws: the mean's standard error is cv/632, so 1 %
// is over 6 of them.
func TestDistributionsMeanAndShape(t *testing.T) {
	const m = float64(time.Millisecond)
	cases := []struct {
		s     Service
		cv    float64
		below float64 // a point of the distribution
		share float64 // the share of draws under it
	}{
		// exp: P(S > m ln 100) = 1 %
		{Service{Kind: Exp, Mean: time.Millisecond, CV: 1}, 1, m * math.Log(100), 0.99},
		// lognormal: the median is m / sqrt(1 + cv²)
		{Service{Kind: LogNormal, Mean: time.Millisecond, CV: 1}, 1, m / math.Sqrt2, 0.5},
		{Service{Kind: LogNormal, Mean: time.Millisecond, CV: 0.3}, 0.3, m / math.Sqrt(1.09), 0.5},
		// gamma, cv 0.5 (shape 4): P(S <= mean) = 1 - e^-4 (1 + 4 + 8 + 32/3)
		{Service{Kind: Gamma, Mean: time.Millisecond, CV: 0.5}, 0.5, m, 1 - math.Exp(-4)*(1+4+8+32.0/3)},
		// gamma, cv 2 (shape 1/4): the k < 1 path
		{Service{Kind: Gamma, Mean: time.Millisecond, CV: 2}, 2, m, 0.0},
		// uniform on [0, 2m]: a quarter under m/2
		{Service{Kind: Uniform, Mean: time.Millisecond, CV: 1 / math.Sqrt(3)}, 1 / math.Sqrt(3), m / 2, 0.25},
		// uniform, cv 0.1: half width m·0.1·√3, a quarter under m - half/2
		{Service{Kind: Uniform, Mean: time.Millisecond, CV: 0.1}, 0.1, m - m*0.1*math.Sqrt(3)/2, 0.25},
	}
	for _, c := range cases {
		xs := draws(t, c.s, 400_000)
		mean, cv := meanCV(xs)
		if math.Abs(mean/m-1) > 0.01 {
			t.Errorf("%s cv %g: mean %.4g ms, want 1 ms within 1 %%", c.s.Kind, c.s.CV, mean/m)
		}
		if math.Abs(cv/c.cv-1) > 0.03 {
			t.Errorf("%s cv %g: measured cv %.4g, want %.4g within 3 %%", c.s.Kind, c.s.CV, cv, c.cv)
		}
		if c.share > 0 {
			if got := shareBelow(xs, c.below); math.Abs(got-c.share) > 0.005 {
				t.Errorf("%s cv %g: %.4f of draws under %.4g ms, want %.4f", c.s.Kind, c.s.CV, got, c.below/m, c.share)
			}
		}
		for _, x := range xs {
			if x < 0 {
				t.Fatalf("%s cv %g: a negative service time %g", c.s.Kind, c.s.CV, x)
			}
		}
	}
}

func TestConstIsConstant(t *testing.T) {
	for _, x := range draws(t, Service{Kind: Const, Mean: 3 * time.Millisecond}, 1000) {
		if x != float64(3*time.Millisecond) {
			t.Fatalf("const drew %g, want 3ms", x)
		}
	}
}

func TestUniformBounds(t *testing.T) {
	xs := draws(t, Service{Kind: Uniform, Mean: time.Millisecond, CV: 0.2}, 100_000)
	h := float64(time.Millisecond) * 0.2 * math.Sqrt(3)
	for _, x := range xs {
		if x < float64(time.Millisecond)-h || x > float64(time.Millisecond)+h {
			t.Fatalf("uniform drew %g, outside the mean ± %g", x, h)
		}
	}
}
