package gen

import (
	"math"
	"testing"
)

// Helpers shared by the statistical tests. Every test uses fixed seeds, so a
// failure is reproducible; thresholds are set at about 1 in 2000 (chi-square)
// or 5 sigma (single proportions) so that a correct generator passes with
// any seed while a wrong distribution fails.

func newRand(seed uint64) *Rand { return NewRand(seed ^ 0x9e3779b97f4a7c15) }

// chiSquare compares observed counts with expected probabilities over the same
// bins. Bins expected to hold fewer than 5 draws are pooled into one. It
// returns the statistic and the degrees of freedom.
func chiSquare(obs []int64, prob []float64) (stat float64, df int) {
	var total int64
	for _, o := range obs {
		total += o
	}
	var poolObs, poolExp float64
	bins := 0
	for i, o := range obs {
		e := prob[i] * float64(total)
		if e < 5 {
			poolObs += float64(o)
			poolExp += e
			continue
		}
		d := float64(o) - e
		stat += d * d / e
		bins++
	}
	if poolExp >= 5 {
		d := poolObs - poolExp
		stat += d * d / poolExp
		bins++
	} else if poolObs > poolExp+10 {
		// Many draws where almost none were expected: make that fail.
		stat += poolObs * poolObs
	}
	return stat, bins - 1
}

// chiCritical is the chi-square quantile at p ~ 0.9995 (z = 3.29), by the
// Wilson-Hilferty approximation.
func chiCritical(df int) float64 {
	const z = 3.29
	k := float64(df)
	t := 1 - 2/(9*k) + z*math.Sqrt(2/(9*k))
	return k * t * t * t
}

func checkChiSquare(t *testing.T, name string, obs []int64, prob []float64) {
	t.Helper()
	stat, df := chiSquare(obs, prob)
	if df < 1 {
		t.Fatalf("%s: chi-square has %d degrees of freedom", name, df)
	}
	if crit := chiCritical(df); stat > crit {
		t.Errorf("%s: chi-square %.1f > %.1f (df %d): distribution does not match", name, stat, crit, df)
	}
}

// checkProportion checks that hits/n is within 5 standard errors of p.
func checkProportion(t *testing.T, name string, hits, n int64, p float64) {
	t.Helper()
	got := float64(hits) / float64(n)
	sigma := math.Sqrt(p * (1 - p) / float64(n))
	if math.Abs(got-p) > 5*sigma+1e-12 {
		t.Errorf("%s: proportion %.5f, want %.5f ± %.5f", name, got, p, 5*sigma)
	}
}

// grayPMF is the exact distribution of YCSB's zipfian algorithm for itemCount
// items given zetan and eta: P(0) = 1/zetan, P(1) = 0.5^theta/zetan, and for
// u >= zeta(2)/zetan the draw is floor(n * (eta*u - eta + 1)^alpha), which is
// <= k exactly when u < 1 + (((k+1)/n)^(1-theta) - 1) / eta.
func grayPMF(itemCount int64, zetan, eta, theta float64) []float64 {
	p := make([]float64, itemCount)
	t1 := 1 / zetan
	t2 := (1 + math.Pow(0.5, theta)) / zetan
	p[0] = t1
	p[1] = t2 - t1
	prev := t2
	n := float64(itemCount)
	for k := int64(0); k < itemCount; k++ {
		g := 1 + (math.Pow(float64(k+1)/n, 1-theta)-1)/eta
		g = math.Min(math.Max(g, prev), 1)
		p[k] += g - prev
		prev = g
	}
	p[itemCount-1] += 1 - prev
	return p
}

func zetaOf(n int64, theta float64) float64 {
	s := 0.0
	for i := int64(1); i <= n; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

// ycsbEta is eta as YCSB computes it for a generator built over items items
// whose zeta is zetan.
func ycsbEta(items int64, theta, zetan float64) float64 {
	return (1 - math.Pow(2/float64(items), 1-theta)) / (1 - (1+math.Pow(0.5, theta))/zetan)
}
