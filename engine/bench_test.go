package engine

import (
	"context"
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
	rec := measure.NewRecorder()
	return &p.pool, p.pool.newWState(&worker{}, rec)
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
