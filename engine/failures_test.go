package engine

import (
	"context"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/results/marks"
	"benchtop/workload"
)

// failedSet is n operations of type 0 that all failed, unavailable.
func failedSet(n int) *measure.Set {
	s := &measure.Set{}
	for range n {
		s.Record(measure.Slot(0, measure.Failed), int64(time.Millisecond))
	}
	s.AddError(0, adapters.KindUnavailable, int64(n))
	s.Ops, s.Failed = int64(n), int64(n)
	return s
}

// okSet is n successful operations of type 0 at lat each.
func okSet(n int, lat time.Duration) *measure.Set {
	s := &measure.Set{}
	for range n {
		s.Record(measure.Slot(0, measure.OK), int64(lat))
	}
	s.Ops = int64(n)
	return s
}

// Stats over failed operations only: no latency (not 0), no goodput, the
// failures at their own rate.
func TestStatsOfFailuresHaveNoLatency(t *testing.T) {
	t.Parallel()
	set := failedSet(500)
	set.Merge(okSet(0, 0))
	ops, total := buildOps([]string{"READ"}, set, set, time.Second, time.Second, false, nil)
	for _, s := range []Stats{ops[0].Interval, total.Interval} {
		if s.HasLatency() || s.OK != 0 || s.P99 != 0 || s.Mean != 0 {
			t.Errorf("stats of failures only: %+v: latency reported", s)
		}
		if s.Rate != 0 || s.FailedRate != 500 || s.Count != 500 || s.Errors != 500 || s.AttemptRate() != 500 {
			t.Errorf("rate %v failed %v count %d errors %d, want 0, 500, 500, 500", s.Rate, s.FailedRate, s.Count, s.Errors)
		}
	}
	set.Merge(okSet(300, 2*time.Millisecond))
	_, total = buildOps([]string{"READ"}, set, set, time.Second, time.Second, false, nil)
	if s := total.Interval; !s.HasLatency() || s.Rate != 300 || s.FailedRate != 500 || s.P99 < time.Millisecond {
		t.Errorf("mixed: %+v, want goodput 300/s, failed 500/s and the successes' latency", s)
	}
}

// A segment whose operations all failed has no goodput and no latency,
// and its failures are counted apart: the killed-Redis segment.
func TestSegmentOfFailuresHasNoLatency(t *testing.T) {
	t.Parallel()
	start := time.Now()
	sg := segments{runStart: start}
	sg.begin("run phase", Controls{Threads: 4, Partitions: 1})
	sg.add(okSet(1000, time.Millisecond))
	sg.tick(time.Now(), false)
	for range 4 {
		sg.add(failedSet(2000))
		sg.tick(time.Now(), false)
	}
	tab, _ := sg.table(time.Now(), false)
	g := tab[0]
	if g.HasLatency || g.P99 != 0 || g.OpsPerSec != 0 || g.FailedPerSec <= 0 || g.ErrorRate != 1 {
		t.Errorf("segment of failures: %+v", g)
	}
	if g.Ops != 9000 || g.OK != 1000 || g.Errors != 8000 {
		t.Errorf("ops %d ok %d errors %d, want 9000, 1000, 8000", g.Ops, g.OK, g.Errors)
	}
	if g.State != marks.Errors {
		t.Errorf("state %q, want errors", g.State)
	}
}

// Three intervals in a row without a success make an outage; a success
// ends it; intervals with no operation at all (slow operations) extend a
// run already started, and a stall starts one.
func TestOutageTracking(t *testing.T) {
	t.Parallel()
	start := time.Now()
	a := NewAssembler(AssemblerConfig{Phase: PhaseRun, OpNames: []string{"READ"}, RunStart: start, PhaseStart: start, Interval: time.Second},
		Controls{Threads: 4, Partitions: 1}, "run phase")
	at := start
	step := func(s *measure.Set) *Snapshot {
		if s != nil {
			a.Add(s)
		}
		at = at.Add(time.Second)
		snap, data := a.Snapshot(at, at.Sub(start), host.Sample{}, workload.Sample{}, false, false)
		a.Recycle(data)
		return snap
	}
	for _, c := range []struct {
		set  *measure.Set
		want int
	}{
		{okSet(1000, time.Millisecond), 0},
		{failedSet(900), 1},
		{nil, 2}, // nothing completed: a stall (the rate so far promised hundreds)
		{failedSet(900), 3},
		{failedSet(900), 4},
		{okSet(10, time.Millisecond), 0},
		{failedSet(900), 1},
	} {
		if got := step(c.set).NoSuccess; got != c.want {
			t.Fatalf("NoSuccess %d, want %d", got, c.want)
		}
	}
	res := a.Result(a.Last(), at.Sub(start), start, false)
	if len(res.Outages) != 1 || res.Outages[0].Intervals != 4 || res.Outages[0].Start != time.Second {
		t.Errorf("outages %+v, want one of 4 intervals from 1s", res.Outages)
	}
}

// blockDB's operations block until their context is cancelled.
type blockDB struct{ fakeDB }

func (b *blockDB) Read(ctx context.Context, _, _ string, _ []string, dst []adapters.Field) ([]adapters.Field, error) {
	<-ctx.Done()
	return dst, ctx.Err()
}

func (b *blockDB) Update(ctx context.Context, _, _ string, _ []adapters.Field) error {
	<-ctx.Done()
	return ctx.Err()
}

// Operations still in flight when the grace after the deadline ends are
// cut off: counted apart, in no throughput and no error count, and the
// run time ends at the deadline, not after the grace.
func TestDeadlineCutOff(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "run", map[string]string{"threadcount": "3", "maxexecutiontime": "0.3", "operationcount": "0"})
	r, err := New(cfg, &blockDB{}, Options{Host: sharedHost, StopGrace: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := res[len(res)-1]
	if run.Set.CutOff != 3 {
		t.Errorf("CutOff %d, want the 3 operations in flight", run.Set.CutOff)
	}
	if run.Set.Ops != 0 || run.Set.Failed != 0 || len(run.Set.Errors[0])+len(run.Set.Errors[1]) != 0 {
		t.Errorf("ops %d failed %d errors %v: the cut-off operations were counted", run.Set.Ops, run.Set.Failed, run.Set.Errors)
	}
	// The grace (1.5 s) is far longer than the run (300 ms): a run time
	// that held it would be over 1.8 s.
	if run.RunTime < 300*time.Millisecond || run.RunTime >= 1500*time.Millisecond {
		t.Errorf("RunTime %v, want the 300ms up to the deadline, not the 1.5s grace after it", run.RunTime)
	}
}

// slowDB's operations take at least d each.
type slowDB struct {
	fakeDB
	d time.Duration
}

func (s *slowDB) Read(ctx context.Context, _, _ string, _ []string, dst []adapters.Field) ([]adapters.Field, error) {
	time.Sleep(s.d)
	return dst, nil
}

func (s *slowDB) Update(ctx context.Context, _, _ string, _ []adapters.Field) error {
	time.Sleep(s.d)
	return nil
}

// Operations in flight at the deadline that complete in the grace count
// with their time: the run time, and the last interval, extend to the
// last of them, so that no rate holds operations without the time they
// took (ended at the deadline, 4 operations of 200 ms each read as 4 in
// 0.1 s: a rate twice what 4 threads can complete).
func TestInFlightCountWithTheirTime(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "run", map[string]string{"threadcount": "4", "maxexecutiontime": "0.1", "operationcount": "0"})
	r, err := New(cfg, &slowDB{d: 200 * time.Millisecond}, Options{Host: sharedHost})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := res[len(res)-1]
	if run.Set.Ops == 0 || run.Set.CutOff != 0 {
		t.Fatalf("ops %d, cut off %d: want the operations in flight counted", run.Set.Ops, run.Set.CutOff)
	}
	// Each operation took 200 ms at least and every worker ran one at
	// most in flight: the run time holds the 200 ms of the first ones.
	if run.RunTime < 200*time.Millisecond {
		t.Errorf("RunTime %v with %d operations of 200 ms each: they were counted without their time", run.RunTime, run.Set.Ops)
	}
	if end := run.Final.Elapsed; end < 200*time.Millisecond {
		t.Errorf("the last interval ends at %v, before the operations it holds did (200 ms)", end)
	}
	if seg := run.Segments[len(run.Segments)-1]; seg.End < 200*time.Millisecond {
		t.Errorf("the last segment ends at %v, before the operations it holds did (200 ms)", seg.End)
	}
}
