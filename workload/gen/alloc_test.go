package gen

import (
	"sync"
	"testing"
)

func TestNoAllocs(t *testing.T) {
	r := newRand(7)
	basis := NewAcknowledgedCounter(0)
	for range 100 {
		basis.Acknowledge(basis.Next())
	}
	latest := NewSkewedLatest(basis)
	d := NewDiscrete()
	d.Add(0.95, 0)
	d.Add(0.05, 1)
	gens := map[string]Generator{
		"constant":   NewConstant(1),
		"uniform":    NewUniform(0, 999),
		"sequential": NewSequential(0, 9),
		"zipfian":    NewZipfian(0, 999, ZipfianConstant),
		"scrambled":  NewScrambledZipfian(0, 999),
		"latest":     latest,
		"hotspot":    NewHotspot(0, 999, 0.2, 0.8),
		"exp":        NewExponential(95, 1000),
	}
	for name, g := range gens {
		if a := testing.AllocsPerRun(1000, func() { g.Next(r) }); a != 0 {
			t.Errorf("%s: %v allocs per Next", name, a)
		}
	}
	checks := map[string]func(){
		"discrete": func() { d.Next(r) },
		"counter":  func() { NewCounter(0).Last() },
		// The insert path of workload D: a new key is acknowledged and the
		// next read grows the zipfian (zeta recomputed incrementally).
		"insert then latest": func() {
			basis.Acknowledge(basis.Next())
			latest.Next(r)
		},
	}
	for name, f := range checks {
		f()
		if a := testing.AllocsPerRun(1000, f); a != 0 {
			t.Errorf("%s: %v allocs per call", name, a)
		}
	}
}

// All generators used at once from several goroutines (run with -race).
func TestConcurrentUse(t *testing.T) {
	basis := NewAcknowledgedCounter(0)
	for range 100 {
		basis.Acknowledge(basis.Next())
	}
	d := NewDiscrete()
	d.Add(0.5, 0)
	d.Add(0.5, 1)
	gens := []Generator{
		NewUniform(0, 99), NewSequential(0, 99), NewZipfian(0, 99, ZipfianConstant),
		NewScrambledZipfian(0, 99), NewSkewedLatest(basis), NewHotspot(0, 99, 0.2, 0.8),
		NewExponential(95, 100),
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			r := newRand(uint64(200 + w))
			for i := range 2000 {
				for _, g := range gens {
					g.Next(r)
				}
				d.Next(r)
				if i%4 == 0 {
					basis.Acknowledge(basis.Next())
				}
			}
		})
	}
	wg.Wait()
	if want := int64(100 + 4*500 - 1); basis.Last() != want {
		t.Fatalf("Last = %d, want %d", basis.Last(), want)
	}
}
