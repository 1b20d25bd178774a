package engine

import (
	"context"
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
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !p.step(ws) {
			b.Fatal("worker stopped")
		}
	}
}

// BenchmarkHotPathPaced is the same with a target rate set far above what
// one worker reaches, so that the pacing arithmetic runs but never sleeps.
func BenchmarkHotPathPaced(b *testing.B) {
	p, ws := benchPhase(b, nil)
	p.plan.replan(1e12, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !p.step(ws) {
			b.Fatal("worker stopped")
		}
	}
}

// The hot path allocates nothing per operation (an allocation per
// operation costs more than the rest of the engine's work against the
// embedded store, and feeds the garbage collector at millions per second).
func TestHotPathDoesNotAllocate(t *testing.T) {
	for _, target := range []float64{0, 1e12} {
		p, ws := benchPhaseT(t, nil)
		if target > 0 {
			p.plan.replan(target, 1)
		}
		p.step(ws) // first call sets up the schedule
		if n := testing.AllocsPerRun(2000, func() { p.step(ws) }); n != 0 {
			t.Errorf("target %v: %v allocations per operation, want 0", target, n)
		}
	}
}
