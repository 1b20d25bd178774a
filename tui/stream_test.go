package tui

import (
	"strings"
	"testing"
	"time"

	"benchtop/engine"
)

// A stream run charts rows consumed (not rows handed to the producers),
// says rows/s and MB/s in the header, and has a partitions view on tab.
func TestStreamRunShowsConsumedRowsAndPartitions(t *testing.T) {
	s := snapWith(2, 3, 0, 9999) // producers' rate: must not be what is shown
	pv := &engine.PartitionsView{
		Elapsed: 10 * time.Second, Interval: time.Second, Partitions: 3, Consumers: 3,
		Consumed: 42_000_000, ConsumedRate: 4_200_000, ConsumedMBps: 924,
		Parts: []engine.PartitionView{
			{Index: 0, Active: true, Consuming: true, Rate: 1_400_000, MBps: 308, Lag: 12},
			{Index: 1, Active: true, Consuming: true, Rate: 1_400_000, MBps: 308, Lag: 7},
			{Index: 2, Active: true, Consuming: true, Rate: 1_400_000, MBps: 308, Lag: 3},
		},
	}
	s.Workload = &engine.WorkloadView{Partitions: pv,
		Rate: &engine.WorkloadRate{Name: "Consumed", Unit: "rows/s", Value: 4_200_000, Mean: 4_200_000, MBps: 924}}
	m, _ := testModel(t, engine.Info{Adapter: "memory", Workload: "stream", CanRepartition: true}, s)
	if !strings.Contains(m.frame, "4.20M rows/s") || !strings.Contains(m.frame, "924 MB/s") {
		t.Errorf("header does not show consumed rows/s and MB/s:\n%s", m.frame)
	}
	if !strings.Contains(m.frame, "Consumed · rows/s") {
		t.Errorf("chart is not of consumed rows:\n%s", m.frame)
	}
	press(m, "tab") // segments
	press(m, "tab") // partitions
	if !strings.Contains(m.frame, "Partitions") || !strings.Contains(m.frame, "3 consumers") {
		t.Errorf("tab twice: no partitions view:\n%s", m.frame)
	}
	press(m, "tab")
	if !strings.Contains(m.frame, "Consumed · rows/s") {
		t.Errorf("tab three times: not back on the main view:\n%s", m.frame)
	}
}
