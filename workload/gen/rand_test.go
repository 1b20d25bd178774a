package gen

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Rand's own methods return what math/rand/v2's Rand returns over the same
// source: the same numbers in the same order, the rejection loop of
// IntN's Lemire method included (n just above a power of two rejects
// most often).
func TestRandMatchesMathRand(t *testing.T) {
	for _, seed := range []uint64{0, 1, 0xdeadbeef, math.MaxUint64} {
		ours, ref := NewRand(seed), rand.New(&WyRand{s: seed})
		for i := range 20000 {
			n := 1 + i%97
			if i%5 == 4 {
				n = 1<<(i%40) + 1
			}
			var got, want any
			switch i % 5 {
			case 0:
				got, want = ours.Float64(), ref.Float64()
			case 1:
				got, want = ours.IntN(n), ref.IntN(n)
			case 2:
				got, want = ours.Int64N(int64(n)<<20), ref.Int64N(int64(n)<<20)
			case 3:
				got, want = ours.Uint64N(uint64(n)), ref.Uint64N(uint64(n))
			default:
				got, want = ours.Uint64N(uint64(n)), ref.Uint64N(uint64(n))
			}
			if got != want {
				t.Fatalf("seed %d, draw %d (n %d): %v, math/rand/v2 %v", seed, i, n, got, want)
			}
		}
		// The embedded math/rand/v2 methods draw from the same state.
		if got, want := ours.ExpFloat64(), ref.ExpFloat64(); got != want {
			t.Fatalf("seed %d: ExpFloat64 %v, math/rand/v2 %v", seed, got, want)
		}
		if got, want := ours.Uint64(), ref.Uint64(); got != want {
			t.Fatalf("seed %d: Uint64 %v, math/rand/v2 %v", seed, got, want)
		}
	}
}

// WyRand's numbers are uniform: the 64 bits are each set half the time,
// and the top byte falls evenly into its 256 values.
func TestWyRandUniform(t *testing.T) {
	r := NewRand(42)
	const n = 1 << 18
	var ones [64]int
	bytes := make([]int64, 256)
	for range n {
		v := r.Uint64()
		for b := range ones {
			ones[b] += int(v >> b & 1)
		}
		bytes[v>>56]++
	}
	for b, c := range ones {
		if z := math.Abs(float64(c)-n/2) / math.Sqrt(n/4); z > 5 {
			t.Errorf("bit %d set %d of %d times (%.1f sigma)", b, c, n, z)
		}
	}
	probs := make([]float64, 256)
	for i := range probs {
		probs[i] = 1.0 / 256
	}
	checkChiSquare(t, "top byte", bytes, probs)
}
