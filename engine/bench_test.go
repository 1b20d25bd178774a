package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/engine/measure"
)

// nullDB does nothing, like adapters/null (the engine never imports a
// concrete adapter, tests included).
type nullDB struct{}

func (nullDB) Read(_ context.Context, _, _ string, _ []string, dst []adapters.Field) ([]adapters.Field, error) {
	return dst, nil
}
func (nullDB) Scan(_ context.Context, _, _ string, _ int, _ []string, dst []adapters.Record) ([]adapters.Record, error) {
	return dst, nil
}
func (nullDB) Update(context.Context, string, string, []adapters.Field) error { return nil }
func (nullDB) Insert(context.Context, string, string, []adapters.Field) error { return nil }
func (nullDB) Delete(context.Context, string, string) error                   { return nil }
func (nullDB) Close() error                                                   { return nil }

// benchPhase builds a run phase without starting workers or the sampler.
func benchPhase(b *testing.B, extra map[string]string) (*pool, *wstate) {
	return benchPhaseT(b, extra)
}

func benchPhaseT(b testing.TB, extra map[string]string) (*pool, *wstate) {
	props := map[string]string{
		"recordcount": "100000", "operationcount": "0",
		"readproportion": "0.5", "updateproportion": "0.5", "requestdistribution": "zipfian",
	}
	for k, v := range extra {
		props[k] = v
	}
	cfg, _, err := NewConfig("run", "null", props)
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(cfg, nullDB{}, Options{Host: sharedHost})
	if err != nil {
		b.Fatal(err)
	}
	p := newPhase(runEnv{cfg: cfg, runStart: time.Now(), host: sharedHost, opts: &r.opts, publish: func(*Snapshot) {}}, r.wl, PhaseRun, true)
	b.Cleanup(p.pool.opCancel)
	return &p.pool, p.pool.newWState(&worker{}, 0)
}

// BenchmarkHotPath is one operation's engine work with a do-nothing
// adapter: stop/pause checks, pacing check, operation choice, key
// generation (scrambled zipfian, FNV, "user..." key), value choice, two
// clock reads and the histogram record under the worker's lock.
func BenchmarkHotPath(b *testing.B) {
	p, ws := benchPhase(b, nil)
	benchSteps(b, p, ws)
}

// BenchmarkHotPathPaced is the same with a target rate set far above what
// one worker reaches (a 1 ns tick: a finer target rounds the tick to 0,
// which is unpaced), so that the pacing arithmetic runs but never sleeps.
func BenchmarkHotPathPaced(b *testing.B) {
	p, ws := benchPhase(b, nil)
	p.plan.replan(1e9, 1)
	benchSteps(b, p, ws)
}

// benchSteps runs b.N steps and reports, beside the wall-clock ns/op,
// the process's CPU time per step (cpu-ns/op): on a shared machine the
// wall clock counts the time the benchmark waited for a core, the CPU
// time much less so.
func benchSteps(b *testing.B, p *pool, ws *wstate) {
	b.ReportAllocs()
	c0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !p.step(ws) {
			b.Fatal("worker stopped")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's user and system CPU time in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// The hot path allocates nothing per operation (an allocation per
// operation costs more than the rest of the engine's work against the
// embedded store, and feeds the garbage collector at millions per second).
func TestHotPathDoesNotAllocate(t *testing.T) {
	for _, target := range []float64{0, 1e9} { // 1e9: a 1 ns tick, paced
		p, ws := benchPhaseT(t, nil)
		if target > 0 {
			p.plan.replan(target, 1)
		}
		p.step(ws) // first call sets up the schedule
		if got := ws.sched.tick > 0; got != (target > 0) {
			t.Fatalf("target %v: paced %v", target, got)
		}
		if n := testing.AllocsPerRun(2000, func() { p.step(ws) }); n != 0 {
			t.Errorf("target %v: %v allocations per operation, want 0", target, n)
		}
	}
}

// BenchmarkPaced is the paced hot path as a run lives it: 12 workers at
// 150,000 ops/s in all, each operation waited for through the pool's
// waker (parked, woken by its dispatcher, the last µs spun), so that the
// sleeps and wake-ups are measured, not only the pacing arithmetic. It
// reports the process's CPU per operation (cpu-ns/op) and how late the
// operations started after their intended starts (lag-p50-ns,
// lag-p99-ns: the null operation's intended latency). Its wall time is
// b.N / 150,000 s. Compare cpu-ns/op with BenchmarkClockRead on the same
// machine.
func BenchmarkPaced(b *testing.B) {
	benchPaced(b, 12, 150000)
}

// BenchmarkPacedMany is the same with 1,000 workers at 100,000 ops/s.
func BenchmarkPacedMany(b *testing.B) {
	benchPaced(b, 1000, 100000)
}

func benchPaced(b *testing.B, threads int, target float64) {
	p, _ := benchPhase(b, nil)
	defer p.waker.close()
	p.plan.replan(target, threads)
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	b.ReportAllocs()
	c0 := processCPU()
	b.ResetTimer()
	for i := range threads {
		ws := p.newWState(&worker{id: i}, 0)
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if !p.step(ws) {
					b.Error("worker stopped")
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
	lag := measure.NewHistogram()
	p.recorders[0].Drain(func(s *measure.Set) {
		for op := range measure.NumOps {
			if h := s.H[measure.Slot(op, measure.OKIntended)]; h != nil {
				lag.Merge(h)
			}
		}
	})
	b.ReportMetric(float64(lag.ValueAtQuantile(50)), "lag-p50-ns")
	b.ReportMetric(float64(lag.ValueAtQuantile(99)), "lag-p99-ns")
}

// BenchmarkClockRead is one read of the hot path's clock: the reference
// the hot path's figures are set beside (its cost varies fivefold
// between machines: a vDSO clock_gettime, or a system call on a VM
// whose clock source is not the TSC).
func BenchmarkClockRead(b *testing.B) {
	var sink int64
	for i := 0; i < b.N; i++ {
		sink += nanotime()
	}
	if sink == 42 {
		b.Log(sink)
	}
}
