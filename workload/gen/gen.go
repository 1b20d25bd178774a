// Package gen provides the number generators that drive YCSB-style workloads:
// which key an operation touches, which operation comes next, and how the key
// space grows as records are inserted.
//
// Each generator reproduces the distribution of its namesake in YCSB's
// site.ycsb.generator package (ZipfianGenerator, ScrambledZipfianGenerator,
// SkewedLatestGenerator, HotspotIntegerGenerator, ExponentialGenerator,
// UniformLongGenerator, SequentialGenerator, CounterGenerator,
// AcknowledgedCounterGenerator, DiscreteGenerator), including YCSB's constants
// (theta 0.99, the precomputed zeta for the scrambled zipfian, the FNV-1a hash
// used to scatter popular keys), so that a workload run by benchtop touches
// keys with the same skew as the same workload run by YCSB.
//
// # Concurrency and randomness
//
// Randomness always comes from the caller: every Next takes the worker's own
// *Rand (math/rand/v2's Rand over a WyRand, see Rand), so workers share no
// random source. State that must be shared (counters, the zipfian zeta that
// grows with the key space) is kept in atomics. Every Next method is safe for concurrent use by many goroutines
// and does not allocate; the only exception is Discrete.Add, which is meant to
// be called while building the generator, before it is shared.
//
// # Invalid arguments
//
// Constructors never panic. The engine is expected to check user input with
// the Validate* functions (ValidateRange, ValidateTheta, ValidateFraction,
// ValidateExponential, ValidateWeight) and report the error against the
// property name; a constructor handed invalid arguments anyway normalises them
// as its documentation states (for example swapped bounds are swapped back, as
// YCSB's HotspotIntegerGenerator does) instead of failing.
package gen

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Generator produces the next number of a distribution using the caller's
// random source. Implementations are safe for concurrent use.
type Generator interface {
	Next(r *Rand) int64
}

// FNV-1a 64-bit constants, as in YCSB's Utils.
const (
	fnvOffsetBasis64 uint64 = 0xCBF29CE484222325
	fnvPrime64       uint64 = 1099511628211
	// fnvPrime64Pow3 and fnvPrime64Pow5 are the prime's cube and fifth
	// power mod 2^64 (TestFNVPrimePowers).
	fnvPrime64Pow3 uint64 = 0x08a97b0004e7feab
	fnvPrime64Pow5 uint64 = 0x0caee32a7d4f6a63
)

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1a over the 8 bytes of v, least
// significant byte first, returned as the absolute value of the signed result.
// The result is never negative: the one hash whose absolute value does not fit
// an int64 (math.MinInt64, for which Java's Math.abs stays negative) is
// returned as math.MaxInt64.
func FNVHash64(v int64) int64 {
	h := fnvOffsetBasis64
	x := uint64(v)
	switch {
	case x < 1<<24:
		// The five high bytes are zero, and a round that xors in a zero
		// byte only multiplies: their five rounds are one multiplication
		// by prime^5 (mod 2^64). The chain of multiplications, the hash's
		// whole cost, is half as long; most key numbers and zipfian ranks
		// are below 2^24.
		h = (h ^ x&0xff) * fnvPrime64
		h = (h ^ x>>8&0xff) * fnvPrime64
		h = (h ^ x>>16) * fnvPrime64
		h *= fnvPrime64Pow5
	case x < 1<<40:
		h = (h ^ x&0xff) * fnvPrime64
		h = (h ^ x>>8&0xff) * fnvPrime64
		h = (h ^ x>>16&0xff) * fnvPrime64
		h = (h ^ x>>24&0xff) * fnvPrime64
		h = (h ^ x>>32) * fnvPrime64
		h *= fnvPrime64Pow3
	default:
		for i := 0; i < 8; i++ {
			h ^= x & 0xff
			x >>= 8
			h *= fnvPrime64
		}
	}
	// The absolute value without a branch on the sign, which is random
	// (a mispredicted jump on every other key costs as much as a third of
	// the hash).
	s := int64(h)
	m := s >> 63
	s = (s ^ m) - m
	if s < 0 { // math.MinInt64
		s = math.MaxInt64
	}
	return s
}

// ValidateRange reports whether [lo, hi] is a usable inclusive range: lo <= hi
// and the number of items hi-lo+1 fits an int64.
func ValidateRange(lo, hi int64) error {
	if lo > hi {
		return fmt.Errorf("lower bound %d is greater than upper bound %d", lo, hi)
	}
	if hi-lo+1 <= 0 {
		return fmt.Errorf("range [%d, %d] holds more than %d items", lo, hi, int64(math.MaxInt64))
	}
	return nil
}

// normRange returns [lo, hi] with swapped bounds put in order and the item
// count capped at math.MaxInt64, together with the item count.
func normRange(lo, hi int64) (int64, int64, int64) {
	if lo > hi {
		lo, hi = hi, lo
	}
	n := hi - lo + 1
	if n <= 0 {
		n = math.MaxInt64
		hi = lo + (n - 1)
	}
	return lo, hi, n
}

// ValidateFraction reports whether f is a fraction in [0, 1].
func ValidateFraction(f float64) error {
	if !(f >= 0 && f <= 1) {
		return fmt.Errorf("fraction %v is outside [0, 1]", f)
	}
	return nil
}

// Constant always returns the same value.
type Constant struct{ v int64 }

// NewConstant returns a generator that always yields v.
func NewConstant(v int64) *Constant { return &Constant{v: v} }

// Next returns the constant.
func (c *Constant) Next(*Rand) int64 { return c.v }

// Uniform draws integers uniformly from an inclusive range, like YCSB's
// UniformLongGenerator (without the slight modulo bias of its
// abs(nextLong()) % interval).
type Uniform struct {
	lo, n int64
}

// NewUniform returns a uniform generator over [lo, hi], both inclusive. Bounds
// given in the wrong order are swapped; a range of more than math.MaxInt64
// items is cut to its first math.MaxInt64 items (see ValidateRange).
func NewUniform(lo, hi int64) *Uniform {
	lo, _, n := normRange(lo, hi)
	return &Uniform{lo: lo, n: n}
}

// Next returns a value in [lo, hi].
func (u *Uniform) Next(r *Rand) int64 { return u.lo + r.Int64N(u.n) }

// Sequential returns lo, lo+1, ..., hi, lo, lo+1, ... from one counter shared
// by all callers, like YCSB's SequentialGenerator.
type Sequential struct {
	ctr   atomic.Uint64
	lo, n int64
}

// NewSequential returns a sequential generator over [lo, hi], both inclusive,
// normalised as NewUniform's range.
func NewSequential(lo, hi int64) *Sequential {
	lo, _, n := normRange(lo, hi)
	return &Sequential{lo: lo, n: n}
}

// Next returns the next value of the shared sequence; r is not used.
func (s *Sequential) Next(*Rand) int64 {
	c := s.ctr.Add(1) - 1
	return s.lo + int64(c%uint64(s.n))
}
