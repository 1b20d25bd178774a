package gen

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"sync"
	"testing"
)

func TestFNVHash64(t *testing.T) {
	// Independent reference: FNV-1a (xor, then multiply) from hash/fnv over
	// the little-endian bytes, then Java's Math.abs.
	ref := func(v int64) int64 {
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
		s := int64(h.Sum64())
		if s < 0 {
			s = -s
		}
		return s
	}
	for _, v := range []int64{0, 1, 2, 255, 256, 1 << 40, -1, -2, math.MaxInt64, math.MinInt64, 1234567890123} {
		if got, want := FNVHash64(v), ref(v); got != want {
			t.Errorf("FNVHash64(%d) = %d, want %d", v, got, want)
		}
	}
	if got, want := FNVHash64(0), int64(6284781860667377211); got != want {
		t.Errorf("FNVHash64(0) = %d, want %d", got, want)
	}
	r := newRand(1)
	for range 10000 {
		v := int64(r.Uint64())
		if h := FNVHash64(v); h < 0 || h != ref(v) {
			t.Fatalf("FNVHash64(%d) = %d, want %d (non-negative)", v, h, ref(v))
		}
	}
}

// The hash's short forms (two to five rounds, then one multiplication)
// give the full eight rounds' result: every value below 2^17, and values
// on each side of the forms' bounds and beyond.
func TestFNVHash64ShortForms(t *testing.T) {
	full := func(v int64) int64 {
		h := fnvOffsetBasis64
		x := uint64(v)
		for i := 0; i < 8; i++ {
			h ^= x & 0xff
			x >>= 8
			h *= fnvPrime64
		}
		s := int64(h)
		if s < 0 {
			s = -s
		}
		if s < 0 {
			s = math.MaxInt64
		}
		return s
	}
	check := func(v int64) {
		if got, want := FNVHash64(v), full(v); got != want {
			t.Fatalf("FNVHash64(%d) = %d, want %d", v, got, want)
		}
	}
	for v := int64(0); v < 1<<17; v++ {
		check(v)
	}
	r := newRand(2)
	for _, bound := range []int64{1 << 24, 1 << 32, 1 << 40, 1 << 48} {
		for d := int64(-300); d <= 300; d++ {
			check(bound + d)
		}
		for range 2000 {
			check(r.Int64N(bound))
		}
	}
}

func TestFNVPrimePowers(t *testing.T) {
	p3, p5 := uint64(1), uint64(1)
	for i := range 5 {
		if i < 3 {
			p3 *= fnvPrime64
		}
		p5 *= fnvPrime64
	}
	if p3 != fnvPrime64Pow3 || p5 != fnvPrime64Pow5 {
		t.Errorf("prime^3 = %#x, prime^5 = %#x; the constants say %#x, %#x", p3, p5, fnvPrime64Pow3, fnvPrime64Pow5)
	}
}

func TestUniform(t *testing.T) {
	const draws = 200000
	tests := []struct{ lo, hi int64 }{
		{0, 9}, {-5, 5}, {1000, 1099}, {7, 7}, {0, 499},
	}
	for i, tc := range tests {
		u := NewUniform(tc.lo, tc.hi)
		r := newRand(uint64(10 + i))
		n := tc.hi - tc.lo + 1
		obs := make([]int64, n)
		for range draws {
			v := u.Next(r)
			if v < tc.lo || v > tc.hi {
				t.Fatalf("Uniform(%d,%d) returned %d", tc.lo, tc.hi, v)
			}
			obs[v-tc.lo]++
		}
		if n == 1 {
			continue
		}
		prob := make([]float64, n)
		for j := range prob {
			prob[j] = 1 / float64(n)
		}
		checkChiSquare(t, "uniform", obs, prob)
	}
}

func TestSequential(t *testing.T) {
	s := NewSequential(5, 7)
	want := []int64{5, 6, 7, 5, 6, 7, 5}
	for i, w := range want {
		if v := s.Next(nil); v != w {
			t.Fatalf("draw %d = %d, want %d", i, v, w)
		}
	}
	// Shared across goroutines: every value equally often.
	s = NewSequential(-2, 2)
	var mu sync.Mutex
	counts := map[int64]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			local := map[int64]int{}
			for range 1000 {
				local[s.Next(nil)]++
			}
			mu.Lock()
			for k, c := range local {
				counts[k] += c
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	for v := int64(-2); v <= 2; v++ {
		if counts[v] != 800 {
			t.Errorf("value %d drawn %d times, want 800", v, counts[v])
		}
	}
	if len(counts) != 5 {
		t.Errorf("values %v", counts)
	}
}

func TestConstant(t *testing.T) {
	if v := NewConstant(42).Next(nil); v != 42 {
		t.Fatalf("Constant = %d", v)
	}
}

func TestValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		err  error
		ok   bool
	}{
		{"range ok", ValidateRange(0, 9), true},
		{"range single", ValidateRange(5, 5), true},
		{"range reversed", ValidateRange(9, 0), false},
		{"range too big", ValidateRange(math.MinInt64, math.MaxInt64), false},
		{"range max", ValidateRange(0, math.MaxInt64-1), true},
		{"theta default", ValidateTheta(ZipfianConstant), true},
		{"theta 1.2", ValidateTheta(1.2), true},
		{"theta 0", ValidateTheta(0), false},
		{"theta 1", ValidateTheta(1), false},
		{"theta negative", ValidateTheta(-0.5), false},
		{"theta NaN", ValidateTheta(nan), false},
		{"theta Inf", ValidateTheta(inf), false},
		{"fraction 0", ValidateFraction(0), true},
		{"fraction 1", ValidateFraction(1), true},
		{"fraction 1.1", ValidateFraction(1.1), false},
		{"fraction -0.1", ValidateFraction(-0.1), false},
		{"fraction NaN", ValidateFraction(nan), false},
		{"exponential ok", ValidateExponential(95, 100), true},
		{"exponential pct 100", ValidateExponential(100, 100), false},
		{"exponential pct 0", ValidateExponential(0, 100), false},
		{"exponential range 0", ValidateExponential(95, 0), false},
		{"exponential range Inf", ValidateExponential(95, inf), false},
		{"weight 0", ValidateWeight(0), true},
		{"weight 0.3", ValidateWeight(0.3), true},
		{"weight negative", ValidateWeight(-1), false},
		{"weight NaN", ValidateWeight(nan), false},
	}
	for _, tc := range tests {
		if (tc.err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok=%v", tc.name, tc.err, tc.ok)
		}
	}
}

func TestConstructorsNormalise(t *testing.T) {
	r := newRand(3)
	inRange := func(name string, g Generator, lo, hi int64) {
		t.Helper()
		for range 1000 {
			if v := g.Next(r); v < lo || v > hi {
				t.Fatalf("%s: %d outside [%d,%d]", name, v, lo, hi)
			}
		}
	}
	inRange("uniform swapped", NewUniform(9, 0), 0, 9)
	inRange("uniform huge", NewUniform(math.MinInt64, math.MaxInt64), math.MinInt64, math.MaxInt64-1)
	inRange("sequential swapped", NewSequential(9, 0), 0, 9)
	inRange("zipfian swapped", NewZipfian(9, 0, ZipfianConstant), 0, 9)
	inRange("zipfian bad theta", NewZipfian(0, 9, -1), 0, 9)
	inRange("zipfian NaN theta", NewZipfian(0, 9, math.NaN()), 0, 9)
	inRange("zipfian 1 item", NewZipfian(4, 4, ZipfianConstant), 4, 4)
	inRange("zipfian 2 items", NewZipfian(4, 5, ZipfianConstant), 4, 5)
	inRange("scrambled swapped", NewScrambledZipfian(9, 0), 0, 9)
	inRange("scrambled huge", NewScrambledZipfian(math.MinInt64, math.MaxInt64), math.MinInt64, math.MaxInt64-1)
	inRange("hotspot swapped", NewHotspot(9, 0, 0.2, 0.8), 0, 9)
	inRange("exponential bad", NewExponential(math.NaN(), math.Inf(1)), 0, math.MaxInt64)
	// YCSB's degenerate case: zipfian built over 2 items, then grown.
	z := NewZipfian(0, 1, ZipfianConstant)
	for range 1000 {
		if v := z.NextItems(r, 50); v < 0 || v >= 50 {
			t.Fatalf("2-item zipfian grown to 50: %d", v)
		}
	}
}
