package gen

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
)

func TestZipfian(t *testing.T) {
	const draws = 400000
	tests := []struct {
		name  string
		lo    int64
		items int64
		theta float64
	}{
		{"n100 theta0.99", 0, 100, 0.99},
		{"n100 lo1000", 1000, 100, ZipfianConstant},
		{"n50 theta0.5", 0, 50, 0.5},
		{"n200 theta1.2", -100, 200, 1.2},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			z := NewZipfian(tc.lo, tc.lo+tc.items-1, tc.theta)
			r := newRand(uint64(20 + i))
			obs := make([]int64, tc.items)
			for range draws {
				v := z.Next(r) - tc.lo
				if v < 0 || v >= tc.items {
					t.Fatalf("draw %d outside [0,%d)", v, tc.items)
				}
				obs[v]++
			}
			zn := zetaOf(tc.items, tc.theta)
			// Ranks 0 and 1 are exact in Gray's algorithm.
			checkProportion(t, "rank 0", obs[0], draws, 1/zn)
			checkProportion(t, "rank 1", obs[1], draws, math.Pow(0.5, tc.theta)/zn)
			// Further ranks follow Zipf's law approximately (Gray's
			// approximation is within ~15% for theta 0.99 and 100 items).
			if tc.theta == ZipfianConstant {
				for k := 2; k < 10; k++ {
					want := 1 / (math.Pow(float64(k+1), tc.theta) * zn)
					got := float64(obs[k]) / draws
					if math.Abs(got-want)/want > 0.2 {
						t.Errorf("rank %d: frequency %.4f, Zipf gives %.4f", k, got, want)
					}
				}
				for k := 1; k < 10; k++ {
					if obs[k] >= obs[k-1] {
						t.Errorf("rank %d drawn %d times, not less than rank %d (%d)", k, obs[k], k-1, obs[k-1])
					}
				}
			}
			// All ranks against the algorithm's exact distribution.
			checkChiSquare(t, "ranks", obs, grayPMF(tc.items, zn, ycsbEta(tc.items, tc.theta, zn), tc.theta))
		})
	}
}

func TestZipfianGrowth(t *testing.T) {
	z := NewZipfian(0, 99, ZipfianConstant)
	r := newRand(30)
	const draws = 300000
	obs := make([]int64, 300)
	for range draws {
		v := z.NextItems(r, 300)
		if v < 0 || v >= 300 {
			t.Fatalf("NextItems(300) = %d", v)
		}
		obs[v]++
	}
	count, zetan, eta := z.params()
	if count != 300 || zetan != zeta(0, 300, ZipfianConstant, 0) {
		t.Fatalf("after growth count=%d zetan=%v, want 300 and %v", count, zetan, zeta(0, 300, ZipfianConstant, 0))
	}
	// YCSB keeps the constructor's item count (100) in eta.
	if want := ycsbEta(100, ZipfianConstant, zetan); math.Abs(eta-want) > 1e-12 {
		t.Fatalf("eta = %v, want %v", eta, want)
	}
	checkProportion(t, "rank 0 after growth", obs[0], draws, 1/zetaOf(300, ZipfianConstant))
	checkChiSquare(t, "ranks after growth", obs, grayPMF(300, zetan, eta, ZipfianConstant))

	// A smaller count keeps the larger zeta and stays in range.
	for range 10000 {
		if v := z.NextItems(r, 150); v < 0 || v >= 150 {
			t.Fatalf("NextItems(150) = %d", v)
		}
	}
	if c, _, _ := z.params(); c != 300 {
		t.Fatalf("count shrank to %d", c)
	}
	if v := z.NextItems(r, 0); v != 0 {
		t.Fatalf("NextItems(0) = %d, want lo", v)
	}
}

func TestZipfianConcurrentGrowth(t *testing.T) {
	z := NewZipfian(0, 9, ZipfianConstant)
	var wg sync.WaitGroup
	const workers, steps = 4, 500
	for w := range workers {
		wg.Go(func() {
			r := newRand(uint64(40 + w))
			for i := range int64(steps) {
				n := 10 + i*4 + int64(w)
				if v := z.NextItems(r, n); v < 0 || v >= n {
					t.Errorf("NextItems(%d) = %d", n, v)
					return
				}
			}
		})
	}
	wg.Wait()
	last := int64(10 + (steps-1)*4 + workers - 1)
	count, zetan, _ := z.params()
	// Terms are always added in the same order, so the result is exact.
	if count != last || zetan != zeta(0, last, ZipfianConstant, 0) {
		t.Fatalf("count=%d zetan=%v, want %d and %v", count, zetan, last, zeta(0, last, ZipfianConstant, 0))
	}
}

func TestScrambledZipfian(t *testing.T) {
	const (
		lo, n = 5000, 1000
		draws = 400000
	)
	s := NewScrambledZipfian(lo, lo+n-1)
	r := newRand(50)
	obs := make([]int64, n)
	for range draws {
		v := s.Next(r)
		if v < lo || v >= lo+n {
			t.Fatalf("draw %d outside [%d,%d]", v, lo, lo+n-1)
		}
		obs[v-lo]++
	}
	// Expected: the zipfian's first K items hashed to their keys exactly, the
	// remaining mass spread evenly (it is spread over ~1e10 items).
	const K = 200000
	items := ScrambledItemCount + 1
	eta := ycsbEta(items, ZipfianConstant, ScrambledZetan)
	t1 := 1 / ScrambledZetan
	t2 := (1 + math.Pow(0.5, ZipfianConstant)) / ScrambledZetan
	prob := make([]float64, n)
	prob[FNVHash64(0)%n] += t1
	prob[FNVHash64(1)%n] += t2 - t1
	prev := t2
	for k := int64(0); k < K; k++ {
		g := 1 + (math.Pow(float64(k+1)/float64(items), 1-ZipfianConstant)-1)/eta
		g = math.Min(math.Max(g, prev), 1)
		prob[FNVHash64(k)%n] += g - prev
		prev = g
	}
	for i := range prob {
		prob[i] += (1 - prev) / n
	}
	checkChiSquare(t, "keys", obs, prob)

	// The hottest key is item 0's and carries its share (>= 1/zetan).
	hottest := FNVHash64(0) % n
	if m := int64(slices.Index(obs, slices.Max(obs))); m != hottest {
		t.Errorf("most frequent key offset %d, want FNVHash64(0)%%n = %d", m, hottest)
	}
	checkProportion(t, "hottest key", obs[hottest], draws, prob[hottest])
	if prob[hottest] < 1/ScrambledZetan {
		t.Errorf("hottest key share %v below 1/zetan", prob[hottest])
	}
	// The ten hottest keys are scattered, not clustered at lo.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return obs[idx[a]] > obs[idx[b]] })
	top := slices.Clone(idx[:10])
	slices.Sort(top)
	adjacent := 0
	for i := 1; i < len(top); i++ {
		if top[i] == top[i-1]+1 {
			adjacent++
		}
	}
	if top[9]-top[0] < n/4 || adjacent > 2 {
		t.Errorf("top keys %v are clustered", top)
	}
}

func TestSkewedLatest(t *testing.T) {
	basis := NewAcknowledgedCounter(0)
	for range 1000 {
		basis.Acknowledge(basis.Next())
	}
	if basis.Last() != 999 {
		t.Fatalf("Last = %d, want 999", basis.Last())
	}
	s := NewSkewedLatest(basis)
	r := newRand(80)
	const draws = 200000
	draw := func(maxv int64) []int64 {
		obs := make([]int64, maxv+1)
		for range draws {
			v := s.Next(r)
			if v < 1 || v > maxv {
				t.Fatalf("draw %d outside [1,%d]", v, maxv)
			}
			obs[v]++
		}
		return obs
	}
	check := func(obs []int64, maxv int64) {
		t.Helper()
		if m := int64(slices.Index(obs, slices.Max(obs))); m != maxv {
			t.Errorf("most frequent value %d, want the latest, %d", m, maxv)
		}
		for k := int64(1); k < 8; k++ {
			if obs[maxv-k] >= obs[maxv-k+1] {
				t.Errorf("value %d drawn %d times, not less than %d (%d)", maxv-k, obs[maxv-k], maxv-k+1, obs[maxv-k+1])
			}
		}
		// The newest half gets most of the draws.
		var newer int64
		for v := maxv / 2; v <= maxv; v++ {
			newer += obs[v]
		}
		if newer < draws*8/10 {
			t.Errorf("newest half drew %d of %d", newer, draws)
		}
	}
	obs := draw(999)
	check(obs, 999)
	checkProportion(t, "latest", obs[999], draws, 1/zetaOf(999, ZipfianConstant))

	// New inserts move the head; an unacknowledged one is never drawn.
	for range 100 {
		basis.Acknowledge(basis.Next())
	}
	pending := basis.Next() // 1100, not acknowledged
	for range 10 {
		basis.Acknowledge(basis.Next())
	}
	if basis.Last() != 1099 || pending != 1100 {
		t.Fatalf("Last = %d (pending %d), want 1099", basis.Last(), pending)
	}
	obs = draw(1099)
	check(obs, 1099)
	checkProportion(t, "latest after growth", obs[1099], draws, 1/zetaOf(1099, ZipfianConstant))

	// Empty basis: Last is returned as is.
	if v := NewSkewedLatest(NewAcknowledgedCounter(0)).Next(r); v != -1 {
		t.Errorf("empty basis: Next = %d, want -1", v)
	}
	if v := NewSkewedLatest(nil).Next(r); v != -1 {
		t.Errorf("nil basis: Next = %d, want -1", v)
	}
}

// ScrambledZetan must be zeta(ScrambledItemCount, 0.99); checked with the
// Euler-Maclaurin formula (the direct sum would take minutes). For 10^16
// items, a value some YCSB versions pair with this constant, zeta is ~45.
func TestScrambledZetan(t *testing.T) {
	const m = 1000
	theta := ZipfianConstant
	n := float64(ScrambledItemCount)
	head := zeta(0, m-1, theta, 0)
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	tail := (math.Pow(n, 1-theta)-math.Pow(m, 1-theta))/(1-theta) +
		(f(m)+f(n))/2 +
		theta*(math.Pow(m, -theta-1)-math.Pow(n, -theta-1))/12
	if got := head + tail; math.Abs(got-ScrambledZetan) > 1e-9 {
		t.Fatalf("zeta(1e10, 0.99) = %.14f, ScrambledZetan = %.14f", got, ScrambledZetan)
	}
}

// The whole-number power used for theta 0.99 (alpha = 100 to within
// rounding) is YCSB's Math.pow(x, alpha) to within rounding: over the
// range a draw can reach, the relative difference stays below 1e-10, so a
// draw's item (the integer part of itemcount * x^alpha) differs only for
// values within that margin of an item boundary.
func TestZipfianWholePowerIsPow(t *testing.T) {
	z := NewZipfian(0, 999999, ZipfianConstant)
	if z.ipow != 100 {
		t.Fatalf("theta %v: ipow %d, want 100", ZipfianConstant, z.ipow)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 200000; i++ {
		x := r.Float64()
		if i%2 == 0 {
			x = 1 - x*1e-3 // the top of the range, where most draws land
		}
		got, want := z.pow(x), math.Pow(x, z.alpha)
		if want == 0 {
			if got > 1e-300 {
				t.Fatalf("pow(%v) = %v, want ~0", x, got)
			}
			continue
		}
		if d := math.Abs(got-want) / want; d > 1e-10 {
			t.Fatalf("pow(%v) = %v, math.Pow = %v: relative difference %g", x, got, want, d)
		}
	}
	// A theta whose alpha is not whole keeps the general power.
	if NewZipfian(0, 99, 0.7).ipow != 0 {
		t.Error("theta 0.7 (alpha 3.33) took the whole-number power")
	}
}

// Rank is the unscrambled zipfian's draw (the same random stream gives
// the same values, 0 the most frequent) and Key is YCSB's scrambling.
func TestScrambledZipfianRankKey(t *testing.T) {
	s := NewScrambledZipfian(7, 7+99999)
	r1, r2 := newRand(9), newRand(9)
	zeros := 0
	for range 100000 {
		rank := s.Rank(r2)
		if rank < 0 || rank > ScrambledItemCount {
			t.Fatalf("rank %d outside [0, %d]", rank, ScrambledItemCount)
		}
		if rank == 0 {
			zeros++
		}
		if a, b := s.z.Next(r1), rank; a != b {
			t.Fatalf("the zipfian drew %d, Rank %d", a, b)
		}
		if want := 7 + FNVHash64(rank)%100000; s.Key(rank) != want {
			t.Fatalf("Key(%d) = %d, want %d", rank, s.Key(rank), want)
		}
	}
	// Rank 0 has probability 1/zetan (3.8 %): between 3 % and 4.6 % of
	// 100,000 draws by a wide margin.
	if zeros < 3000 || zeros > 4600 {
		t.Errorf("rank 0 drawn %d times in 100000, want about %.0f", zeros, 100000/ScrambledZetan)
	}
}

// The unrolled power for theta 0.99 multiplies as the squaring loop does:
// the same bits.
func TestZipfianPow100IsTheLoop(t *testing.T) {
	z := NewZipfian(0, 999, ZipfianConstant)
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		x := 1 - r.Float64()*r.Float64()
		if got, want := z.pow(x), powInt(x, 100); got != want {
			t.Fatalf("pow(%v) = %v, the loop %v", x, got, want)
		}
	}
}
