package metrics

import (
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
)

// BenchmarkInterval is the exporter's work for one interval of a run at
// 20,000 ops/s (two operation types, service and intended latency):
// folding the interval, taking the snapshot, gathering the series for a
// push and encoding them for one scrape and one remote-write request. It
// is the whole of its cost: nothing runs per operation. The ns/op is per
// interval, so per second at the default 1 s interval.
func BenchmarkInterval(b *testing.B) {
	e, err := New(Config{Run: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	r := rand.New(rand.NewPCG(5, 6))
	set := &measure.Set{}
	for op := range 2 {
		for range 10000 {
			v := int64(r.ExpFloat64() * 50e3)
			set.Record(measure.Slot(op, measure.OK), v)
			set.Record(measure.Slot(op, measure.OKIntended), v+int64(r.ExpFloat64()*200e3))
		}
	}
	set.Ops = 20000
	snap := &engine.Snapshot{Phase: engine.PhaseRun, Threads: 2, Target: 20000, Host: host.Sample{Cores: 2, CPUTotal: 30}}
	t0 := time.Unix(0, 0)
	b.ResetTimer()
	for i := range b.N {
		start := t0.Add(time.Duration(i) * time.Second)
		e.Interval(engine.PhaseRun, opNames, start, start.Add(time.Second), set)
		snap.Time = start.Add(time.Second)
		e.Snapshot(snap)
		fams, err := e.Gatherer().Gather()
		if err != nil {
			b.Fatal(err)
		}
		enc := expfmt.NewEncoder(io.Discard, expfmt.NewFormat(expfmt.TypeOpenMetrics))
		for _, f := range fams {
			if err := enc.Encode(f); err != nil {
				b.Fatal(err)
			}
		}
		req := &writeRequest{series: seriesOf(fams, snap.Time)}
		if req.Size() == 0 {
			b.Fatal("empty request")
		}
	}
}
