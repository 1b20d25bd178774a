package stream

import (
	"strings"
	"testing"
	"time"

	"benchtop/workload"
)

// The fleet's view is the agents' sum, their partitions numbered on.
func TestMergeViews(t *testing.T) {
	t.Parallel()
	a := &workload.View{Rate: &workload.Rate{Name: "Consumed", Unit: "rows/s", Value: 100, Mean: 90, MBps: 1},
		Partitions: &View{Partitions: 2, Consumers: 2, Threads: 1, Produced: 1000, Consumed: 990, ConsumedRate: 100, Lag: 10, LagSeconds: 0.5,
			E2E: Latency{Count: 10, P99: time.Millisecond}, Parts: []PartitionView{{Index: 0}, {Index: 1}}}}
	b := &workload.View{Rate: &workload.Rate{Name: "Consumed", Unit: "rows/s", Value: 50, Mean: 40, MBps: 0.5},
		Partitions: &View{Partitions: 1, Consumers: 1, Threads: 3, Produced: 500, Consumed: 500, ConsumedRate: 50, Lag: 0, LagSeconds: 0.1, Duplicated: 1,
			E2E: Latency{Count: 5, P99: 3 * time.Millisecond}, Parts: []PartitionView{{Index: 0}}}}
	m := MergeViews([]*workload.View{a, nil, b}, false)
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
	if MergeViews([]*workload.View{nil}, false) != nil {
		t.Error("no views merged into one")
	}
}

// The fleet's verdict is the agents' sum.
func TestSumSummaries(t *testing.T) {
	t.Parallel()
	a := &Summary{RowCounts: RowCounts{Produced: 100, Consumed: 100, Distinct: 100}, Drained: true, StableRowsPerSec: 10, PartitionsFinal: 3, Scenarios: []Scenario{{Partitions: 3, Threads: 2, Rows: 100, StableRowsPerSec: 10, DurationS: 5}}}
	b := &Summary{RowCounts: RowCounts{Produced: 50, Consumed: 52, Distinct: 49, Lost: 1, Duplicated: 2, OutOfOrder: 3}, Drained: false, StableRowsPerSec: 5, PartitionsFinal: 2, Scenarios: []Scenario{{Partitions: 2, Threads: 2, Rows: 50, StableRowsPerSec: 5, DurationS: 6}}}
	s := SumSummaries([]*Summary{a, b}, false)
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
	if s := SumSummaries([]*Summary{a, b}, false); len(s.Scenarios) != 0 {
		t.Errorf("scenarios of different shapes added: %+v", s.Scenarios)
	}
	if SumSummaries(nil, false) != nil {
		t.Error("a sum of nothing")
	}
}

// A shared stream's partitions are one set across the agents: the count
// is the stream's, partition p's figures the agents' sum, its lag the
// group's: the least of the agents' measures (its owner's).
func TestMergeViewsShared(t *testing.T) {
	t.Parallel()
	a := &workload.View{Partitions: &View{Partitions: 4, Consumers: 4, Threads: 2, Produced: 1000, Consumed: 700, Lag: 300,
		Parts: []PartitionView{{Index: 0, ProducedTotal: 600, Consumed: 600, Rate: 10}, {Index: 1, ProducedTotal: 400, Consumed: 100, Rate: 5, Lag: 300}}}}
	b := &workload.View{Partitions: &View{Partitions: 4, Consumers: 4, Threads: 2, Produced: 800, Consumed: 1100,
		Parts: []PartitionView{{Index: 1, ProducedTotal: 300, Consumed: 600, Rate: 7, Lag: 55}, {Index: 3, ProducedTotal: 500, Consumed: 500, Rate: 1, Lag: 40}}}}
	a.Partitions.Parts[1].Lag = 40 // the group's lag of partition 1: a owns it, b measures from the commits
	p := MergeViews([]*workload.View{a, b}, true).Partitions
	if p.Partitions != 4 || p.Consumers != 4 || p.Threads != 4 || p.Produced != 1800 || p.Consumed != 1800 {
		t.Errorf("partitions %d, consumers %d, threads %d, produced %d, consumed %d: want 4, 4, 4, 1800, 1800", p.Partitions, p.Consumers, p.Threads, p.Produced, p.Consumed)
	}
	if len(p.Parts) != 3 || p.Parts[1].Index != 1 || p.Parts[1].Rate != 12 || p.Parts[1].ProducedTotal != 700 || p.Parts[1].Consumed != 700 || p.Parts[1].Lag != 40 {
		t.Errorf("parts %+v: want 0, 1 (the agents' sum, the owner's lag 40), 3", p.Parts)
	}
	if p.Lag != 80 {
		t.Errorf("lag %d, want 80: the group's 40 of partitions 1 and 3, each counted once", p.Lag)
	}
}

// A shared stream's partitions are counted once in the stream table;
// threads add up, and each row says the agents and threads per agent.
func TestSumSummariesShared(t *testing.T) {
	t.Parallel()
	sc := func(p, th int) []Scenario { return []Scenario{{Partitions: p, Threads: th, StableRowsPerSec: 10}} }
	a := &Summary{PartitionsFinal: 8, Scenarios: sc(8, 2)}
	b := &Summary{PartitionsFinal: 8, Scenarios: sc(8, 2)}
	for _, tc := range []struct {
		shared bool
		parts  int
	}{{true, 8}, {false, 16}} {
		s := SumSummaries([]*Summary{a, b}, tc.shared)
		r := s.Scenarios[0]
		if s.PartitionsFinal != tc.parts || r.Partitions != tc.parts || r.Threads != 4 || r.Agents != 2 || r.ThreadsPerAgent != 2 {
			t.Errorf("shared %v: final %d, row %+v: want %d partitions, 2 agents x 2 threads = 4", tc.shared, s.PartitionsFinal, r, tc.parts)
		}
		var b strings.Builder
		WriteScenarios(&b, s.Scenarios)
		if !strings.Contains(b.String(), "agents×threads") || !strings.Contains(b.String(), "2×2=4") {
			t.Errorf("the table does not say the agents and threads:\n%s", b.String())
		}
	}
}
