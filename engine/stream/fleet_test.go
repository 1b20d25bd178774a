package stream

import (
	"testing"
	"time"

	"benchtop/engine/workload"
)

// The fleet's view is the agents' sum, their partitions numbered on.
func TestMergeViews(t *testing.T) {
	a := &workload.View{Rate: &workload.Rate{Name: "Consumed", Unit: "rows/s", Value: 100, Mean: 90, MBps: 1},
		Partitions: &View{Partitions: 2, Consumers: 2, Threads: 1, Produced: 1000, Consumed: 990, ConsumedRate: 100, Lag: 10, LagSeconds: 0.5,
			E2E: Latency{Count: 10, P99: time.Millisecond}, Parts: []PartitionView{{Index: 0}, {Index: 1}}}}
	b := &workload.View{Rate: &workload.Rate{Name: "Consumed", Unit: "rows/s", Value: 50, Mean: 40, MBps: 0.5},
		Partitions: &View{Partitions: 1, Consumers: 1, Threads: 3, Produced: 500, Consumed: 500, ConsumedRate: 50, Lag: 0, LagSeconds: 0.1, Duplicated: 1,
			E2E: Latency{Count: 5, P99: 3 * time.Millisecond}, Parts: []PartitionView{{Index: 0}}}}
	m := MergeViews([]*workload.View{a, nil, b})
	if m == nil || m.Rate == nil || m.Partitions == nil {
		t.Fatalf("merged view %+v", m)
	}
	if m.Rate.Value != 150 || m.Rate.Mean != 130 || m.Rate.MBps != 1.5 {
		t.Errorf("rate %+v, want the sum", m.Rate)
	}
	p := m.Partitions
	if p.Partitions != 3 || p.Consumers != 3 || p.Threads != 4 || p.Produced != 1500 || p.Consumed != 1490 || p.ConsumedRate != 150 || p.Lag != 10 || p.Duplicated != 1 {
		t.Errorf("partitions view %+v, want the sums", p)
	}
	if p.LagSeconds != 0.5 || p.E2E.P99 != 3*time.Millisecond || p.E2E.Count != 15 {
		t.Errorf("lag %v s, e2e %+v: want the worst agent's (count summed)", p.LagSeconds, p.E2E)
	}
	if len(p.Parts) != 3 || p.Parts[2].Index != 2 {
		t.Errorf("partitions %+v, want agent 2's numbered after agent 1's", p.Parts)
	}
	if MergeViews([]*workload.View{nil}) != nil {
		t.Error("no views merged into one")
	}
}

// The fleet's verdict is the agents' sum.
func TestSumSummaries(t *testing.T) {
	a := &Summary{RowCounts: RowCounts{Produced: 100, Consumed: 100, Distinct: 100}, Drained: true, StableRowsPerSec: 10, PartitionsFinal: 3, Scenarios: []Scenario{{Partitions: 3, Threads: 2, Rows: 100, StableRowsPerSec: 10, DurationS: 5}}}
	b := &Summary{RowCounts: RowCounts{Produced: 50, Consumed: 52, Distinct: 49, Lost: 1, Duplicated: 2, OutOfOrder: 3}, Drained: false, StableRowsPerSec: 5, PartitionsFinal: 2, Scenarios: []Scenario{{Partitions: 2, Threads: 2, Rows: 50, StableRowsPerSec: 5, DurationS: 6}}}
	s := SumSummaries([]*Summary{a, b})
	if s.Produced != 150 || s.Consumed != 152 || s.Distinct != 149 || s.Lost != 1 || s.Duplicated != 2 || s.OutOfOrder != 3 {
		t.Errorf("counts %+v, want the sums", s)
	}
	if s.Drained || s.StableRowsPerSec != 15 || s.PartitionsFinal != 5 {
		t.Errorf("drained %v, rows/s %v, partitions %d", s.Drained, s.StableRowsPerSec, s.PartitionsFinal)
	}
	if len(s.Scenarios) != 1 || s.Scenarios[0].Partitions != 5 || s.Scenarios[0].Threads != 4 || s.Scenarios[0].Rows != 150 || s.Scenarios[0].DurationS != 6 {
		t.Errorf("scenarios %+v", s.Scenarios)
	}
	b.Scenarios = append(b.Scenarios, Scenario{})
	if s := SumSummaries([]*Summary{a, b}); len(s.Scenarios) != 0 {
		t.Errorf("scenarios of different shapes added: %+v", s.Scenarios)
	}
	if SumSummaries(nil) != nil {
		t.Error("a sum of nothing")
	}
}
