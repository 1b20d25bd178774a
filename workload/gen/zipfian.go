package gen

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// ZipfianConstant is YCSB's default zipfian constant (theta).
const ZipfianConstant = 0.99

// Constants of YCSB's ScrambledZipfianGenerator: the zipfian it scrambles is
// drawn over ScrambledItemCount items with theta ZipfianConstant, whose zeta
// is precomputed as ScrambledZetan.
const (
	ScrambledItemCount int64   = 10000000000
	ScrambledZetan     float64 = 26.46902820178302
)

// ValidateTheta reports whether theta can be used as a zipfian constant: it
// must be finite, greater than 0 and different from 1 (the algorithm divides
// by 1-theta).
func ValidateTheta(theta float64) error {
	if !(theta > 0) || math.IsInf(theta, 0) || theta == 1 {
		return fmt.Errorf("zipfian constant %v must be finite, > 0 and != 1", theta)
	}
	return nil
}

// zeta returns initial + sum over i in [st, n) of 1/(i+1)^theta: zeta(n, theta)
// computed incrementally from zeta(st, theta) = initial, term by term in the
// same order as YCSB's ZipfianGenerator.zetastatic. Each term is computed as
// Exp(-theta*Log(i+1)), which agrees with 1/Pow(i+1, theta) to a few ulps
// (about 2e-16 relative on the sum for 10^7 items) at half the cost: about
// 25 ns per item, so 2.5 s for 10^8 items.
func zeta(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += math.Exp(-theta * math.Log(float64(i+1)))
	}
	return sum
}

// Zipfian is YCSB's ZipfianGenerator (Gray et al., "Quickly Generating
// Billion-Record Synthetic Databases", SIGMOD 1994): lo is the most popular
// value, lo+1 the next, and so on.
//
// NextItems lets the number of items grow, as YCSB's nextLong(itemcount):
// zeta is then extended incrementally (under a mutex, on the slow path only;
// the fast path reads the current parameters with a lock-free seqlock). A
// smaller item count than the largest seen so far keeps the larger zeta, as
// YCSB does when allowitemcountdecrease is false.
//
// Like YCSB, eta keeps using the item count given to the constructor after
// zeta grows, so draws after growth follow YCSB's (slightly non-Gray)
// distribution, not a textbook one. Unlike YCSB, results are clamped into
// [lo, lo+itemCount-1], which only matters in YCSB's degenerate cases (for
// example a generator built over 2 items and then grown, where YCSB's eta is 0
// and it returns lo+itemCount).
//
// Building a Zipfian costs O(hi-lo) (the zeta sum), as in YCSB.
type Zipfian struct {
	base  int64
	items int64
	theta float64
	alpha float64 // 1/(1-theta)
	// ipow is alpha as a whole number when alpha is one to within
	// rounding (theta 0.99 gives alpha 99.99999999999991): x^ipow by
	// squaring is the same power to within a few ulps and several times
	// faster than Exp(alpha*Log(x)). 0 when alpha is not whole.
	ipow   int
	zeta2  float64 // zeta(2, theta) = 1 + 0.5^theta
	etaNum float64 // 1 - (2/items)^(1-theta)

	// Parameters that change when the item count grows, published with a
	// seqlock: seq is odd while a writer (holding mu) updates them.
	seq   atomic.Uint64
	count atomic.Int64  // item count zetan was computed for
	zetan atomic.Uint64 // float64 bits
	eta   atomic.Uint64 // float64 bits
	mu    sync.Mutex
}

// NewZipfian returns a zipfian generator over [lo, hi], both inclusive, with
// zipfian constant theta (YCSB's default is ZipfianConstant). Bounds in the
// wrong order are swapped, an oversized range is cut as in NewUniform, and an
// invalid theta (see ValidateTheta) is replaced by ZipfianConstant.
func NewZipfian(lo, hi int64, theta float64) *Zipfian {
	lo, _, n := normRange(lo, hi)
	if ValidateTheta(theta) != nil {
		theta = ZipfianConstant
	}
	z := &Zipfian{}
	z.init(lo, n, theta, zeta(0, n, theta, 0))
	return z
}

// init sets z up over items values starting at base with precomputed zetan,
// as YCSB's ZipfianGenerator(min, max, zipfianconstant, zetan).
func (z *Zipfian) init(base, items int64, theta, zetan float64) {
	z.base = base
	z.items = items
	z.theta = theta
	z.alpha = 1 / (1 - theta)
	z.ipow = 0
	if k := math.Round(z.alpha); k >= 2 && k <= 1024 && math.Abs(z.alpha-k) < 1e-9*k {
		z.ipow = int(k)
	}
	z.zeta2 = zeta(0, 2, theta, 0)
	z.etaNum = 1 - math.Pow(2/float64(items), 1-theta)
	z.count.Store(items)
	z.zetan.Store(math.Float64bits(zetan))
	z.eta.Store(math.Float64bits(z.etaNum / (1 - z.zeta2/zetan)))
}

// params returns a consistent (item count, zetan, eta) triple.
func (z *Zipfian) params() (int64, float64, float64) {
	for {
		s := z.seq.Load()
		if s&1 == 0 {
			count := z.count.Load()
			zetan := z.zetan.Load()
			eta := z.eta.Load()
			if z.seq.Load() == s {
				return count, math.Float64frombits(zetan), math.Float64frombits(eta)
			}
		}
		runtime.Gosched()
	}
}

// grow extends zeta to itemCount items (if no one did already) and returns
// the current zetan and eta.
func (z *Zipfian) grow(itemCount int64) (float64, float64) {
	z.mu.Lock()
	defer z.mu.Unlock()
	// Only writers, who hold mu, change these: plain loads are consistent.
	count := z.count.Load()
	zetan := math.Float64frombits(z.zetan.Load())
	eta := math.Float64frombits(z.eta.Load())
	if itemCount > count {
		zetan = zeta(count, itemCount, z.theta, zetan)
		eta = z.etaNum / (1 - z.zeta2/zetan)
		z.seq.Add(1)
		z.count.Store(itemCount)
		z.zetan.Store(math.Float64bits(zetan))
		z.eta.Store(math.Float64bits(eta))
		z.seq.Add(1)
	}
	return zetan, eta
}

// Next returns a value in [lo, hi].
func (z *Zipfian) Next(r *Rand) int64 { return z.NextItems(r, z.items) }

// NextItems returns a value in [lo, lo+itemCount-1] (YCSB's
// nextLong(itemcount)); an itemCount below 1 yields lo.
func (z *Zipfian) NextItems(r *Rand, itemCount int64) int64 {
	count, zetan, eta := z.params()
	if itemCount > count {
		zetan, eta = z.grow(itemCount)
	}
	return z.draw(r, itemCount, zetan, eta)
}

// draw is one draw over itemCount items with the given zetan and eta.
func (z *Zipfian) draw(r *Rand, itemCount int64, zetan, eta float64) int64 {
	u := r.Float64()
	uz := u * zetan
	if uz < 1 || itemCount <= 1 {
		return z.base
	}
	if uz < z.zeta2 {
		return z.base + 1
	}
	// YCSB: itemcount * Math.pow(eta*u - eta + 1, alpha). Exp(alpha*Log(x))
	// is the same power to within a few ulps (Java's and Go's Pow differ by
	// as much) and twice as fast as math.Pow.
	f := float64(itemCount) * z.pow(eta*u-eta+1)
	if !(f >= 0) { // NaN (YCSB's (long)NaN is 0) or negative
		return z.base
	}
	if f >= float64(itemCount) {
		return z.base + itemCount - 1
	}
	return z.base + int64(f)
}

// pow is x^alpha.
func (z *Zipfian) pow(x float64) float64 {
	if z.ipow == 0 || !(x > 0) {
		return math.Exp(z.alpha * math.Log(x))
	}
	if z.ipow == 100 { // theta 0.99, YCSB's default: the loop below, unrolled
		x4 := x * x
		x4 *= x4
		x32 := x4 * x4
		x32 *= x32
		x32 *= x32
		x64 := x32 * x32
		return x4 * x32 * x64
	}
	return powInt(x, z.ipow)
}

// powInt is x^k by squaring.
func powInt(x float64, k int) float64 {
	r := 1.0
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

// ScrambledZipfian is YCSB's ScrambledZipfianGenerator: a zipfian over
// ScrambledItemCount items (theta 0.99, zeta ScrambledZetan) whose draws are
// hashed with FNVHash64 into [lo, hi], so the popular keys are scattered over
// the key space instead of clustered at lo.
type ScrambledZipfian struct {
	lo, n int64
	z     Zipfian
	// zetan and eta of z, which never grows here (Rank draws over the
	// item count it was built with): read without the seqlock.
	zetan, eta float64
}

// NewScrambledZipfian returns a scrambled zipfian generator over [lo, hi],
// both inclusive, normalised as NewUniform's range. It is cheap to build.
func NewScrambledZipfian(lo, hi int64) *ScrambledZipfian {
	lo, _, n := normRange(lo, hi)
	s := &ScrambledZipfian{lo: lo, n: n}
	// YCSB: new ZipfianGenerator(0, ITEM_COUNT, 0.99, ZETAN).
	s.z.init(0, ScrambledItemCount+1, ZipfianConstant, ScrambledZetan)
	_, s.zetan, s.eta = s.z.params()
	return s
}

// Next returns a value in [lo, hi]: lo + FNVHash64(zipfian draw) % (hi-lo+1).
// It is Key(Rank(r)).
func (s *ScrambledZipfian) Next(r *Rand) int64 { return s.Key(s.Rank(r)) }

// Rank returns the zipfian draw that Next scrambles: 0 is the most
// popular, 1 the next, and so on. A caller can keep what it derives from
// the few most popular ranks (the core workload keeps their keys).
func (s *ScrambledZipfian) Rank(r *Rand) int64 { return s.z.draw(r, s.z.items, s.zetan, s.eta) }

// Key is the value Next returns for a rank.
func (s *ScrambledZipfian) Key(rank int64) int64 { return s.lo + FNVHash64(rank)%s.n }

// SkewedLatest is YCSB's SkewedLatestGenerator: it favours the most recently
// acknowledged insert. With max = basis.Last(), it returns
// max - zipfian(max), a value in [1, max] (as in YCSB, 0 is never drawn
// once max >= 1); while max < 1 it returns max.
type SkewedLatest struct {
	basis *AcknowledgedCounter
	z     *Zipfian
}

// NewSkewedLatest returns a skewed-latest generator over basis. As in YCSB its
// zipfian is built over basis.Last() items (at least 1), which costs
// O(basis.Last()). A nil basis is replaced by NewAcknowledgedCounter(0).
func NewSkewedLatest(basis *AcknowledgedCounter) *SkewedLatest {
	if basis == nil {
		basis = NewAcknowledgedCounter(0)
	}
	items := max(basis.Last(), 1)
	return &SkewedLatest{basis: basis, z: NewZipfian(0, items-1, ZipfianConstant)}
}

// Next returns max - zipfian.NextItems(r, max) with max = basis.Last().
func (s *SkewedLatest) Next(r *Rand) int64 {
	m := s.basis.Last()
	if m < 1 {
		return m
	}
	return m - s.z.NextItems(r, m)
}
