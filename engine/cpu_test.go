package engine

import (
	"testing"
	"time"

	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload"
	"benchtop/workload/ycsb"
)

// A segment's and a phase's CPU is the mean of the measured readings only
// (Cores > 0): an unknown reading is never averaged in as 0, and a segment
// or phase without a measured reading has an unknown CPU (negative).
func TestCPUAveragesMeasuredReadingsOnly(t *testing.T) {
	t.Parallel()
	start := time.Now()
	a := NewAssembler(AssemblerConfig{Phase: PhaseRun, OpNames: ycsb.OpNames, RunStart: start, PhaseStart: start, Measurement: "op"},
		Controls{Threads: 1}, "start")
	ops := func() *measure.Set {
		s := &measure.Set{Ops: 10}
		s.RecordN(measure.Slot(ycsb.OpRead, measure.OK), 1000, 10)
		return s
	}
	measured := func(pct float64) host.Sample {
		return host.Sample{Cores: 2, CPUTotal: pct, CPUPerCore: []float64{pct, pct}}
	}
	unknown := host.Sample{} // /proc unreadable: Cores 0
	now := start
	tick := func(hs host.Sample) {
		now = now.Add(time.Second)
		a.Add(ops())
		a.Snapshot(now, now.Sub(start), hs, workload.Sample{}, false, false)
	}
	// Segment 1: 40, unknown, 60 -> 50 (not 33).
	tick(measured(40))
	tick(unknown)
	tick(measured(60))
	a.Cut("threads 2", Controls{Threads: 2}, -1)
	// Segment 2: unknown only -> unknown, and the cut's latest reading is
	// unknown too.
	tick(unknown)
	tick(unknown)
	now = now.Add(time.Second)
	final, _ := a.Snapshot(now, now.Sub(start), unknown, workload.Sample{}, true, false)
	if len(final.Segments) != 2 {
		t.Fatalf("%d segments, want 2", len(final.Segments))
	}
	if got := final.Segments[0].CPU; got != 50 {
		t.Errorf("segment 1 CPU = %v, want 50 (the mean of 40 and 60)", got)
	}
	if got := final.Segments[1].CPU; got >= 0 {
		t.Errorf("segment 2 CPU = %v, want unknown (negative): no reading was measured", got)
	}
	if got := a.CPU(); got != 50 {
		t.Errorf("phase CPU = %v, want 50", got)
	}
	b := NewAssembler(AssemblerConfig{Phase: PhaseRun, OpNames: ycsb.OpNames, RunStart: start, PhaseStart: start}, Controls{Threads: 1}, "start")
	b.Snapshot(start.Add(time.Second), time.Second, unknown, workload.Sample{}, true, false)
	if got := b.CPU(); got >= 0 {
		t.Errorf("phase CPU without a measured reading = %v, want unknown (negative)", got)
	}
}
