package gen

import (
	"sync/atomic"
	"testing"
)

var (
	sink         int64
	parallelSink atomic.Int64
)

func benchGen(b *testing.B, g Generator) {
	r := newRand(1)
	b.ReportAllocs()
	var s int64
	for b.Loop() {
		s += g.Next(r)
	}
	sink = s
}

func BenchmarkUniform(b *testing.B) { benchGen(b, NewUniform(0, 999999)) }

func BenchmarkZipfian(b *testing.B) { benchGen(b, NewZipfian(0, 999999, ZipfianConstant)) }

func BenchmarkScrambledZipfian(b *testing.B) { benchGen(b, NewScrambledZipfian(0, 999999)) }

func BenchmarkHotspot(b *testing.B) { benchGen(b, NewHotspot(0, 999999, 0.2, 0.8)) }

func BenchmarkSkewedLatest(b *testing.B) {
	basis := NewAcknowledgedCounter(0)
	for range 100000 {
		basis.Acknowledge(basis.Next())
	}
	benchGen(b, NewSkewedLatest(basis))
}

// Workload D's mix: 5% inserts grow the key space under the reads.
func BenchmarkSkewedLatestGrowing(b *testing.B) {
	basis := NewAcknowledgedCounter(0)
	for range 100000 {
		basis.Acknowledge(basis.Next())
	}
	s := NewSkewedLatest(basis)
	r := newRand(1)
	b.ReportAllocs()
	var sum int64
	i := 0
	for b.Loop() {
		if i++; i%20 == 0 {
			basis.Acknowledge(basis.Next())
		}
		sum += s.Next(r)
	}
	sink = sum
}

func BenchmarkDiscrete(b *testing.B) {
	d := NewDiscrete()
	for i, w := range []float64{0.5, 0.3, 0.1, 0.05, 0.05} {
		d.Add(w, i)
	}
	r := newRand(1)
	b.ReportAllocs()
	var s int
	for b.Loop() {
		s += d.Next(r)
	}
	sink = int64(s)
}

func BenchmarkAcknowledgedCounter(b *testing.B) {
	c := NewAcknowledgedCounter(0)
	b.ReportAllocs()
	for b.Loop() {
		c.Acknowledge(c.Next())
	}
}

func BenchmarkScrambledZipfianParallel(b *testing.B) {
	g := NewScrambledZipfian(0, 999999)
	var seed atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := newRand(seed.Add(1))
		var s int64
		for pb.Next() {
			s += g.Next(r)
		}
		parallelSink.Add(s)
	})
}
