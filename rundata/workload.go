package rundata

import "time"

// WorkloadView is a workload's own figures for one interval, as plain typed data:
// any screen can draw it without importing the workload, and it encodes
// and decodes (JSON, gob) to an equal value, so that it can cross a
// network. It is immutable once published.
type WorkloadView struct {
	// Rate is the workload's figure of merit when it is not the runner's
	// ops/s (the stream's rows consumed); nil when ops/s is the figure.
	Rate *WorkloadRate
	// Line is the view in one line, for headless status lines.
	Line string
	// Figures are the workload's named figures for this interval, in the
	// order it reports them (time series: writers, records/s, MB/s,
	// backpressure).
	Figures []Figure
	// Partitions is the per-partition state of a workload that consumes
	// partitions (the stream); nil for others.
	Partitions *PartitionsView
}

// Figure is one named value with its unit.
type Figure struct {
	Name  string
	Value float64
	Unit  string
}

// Figure returns the value of the named figure and whether there is one.
func (v *WorkloadView) Figure(name string) (float64, bool) {
	if v == nil {
		return 0, false
	}
	for _, f := range v.Figures {
		if f.Name == name {
			return f.Value, true
		}
	}
	return 0, false
}

// WorkloadRate is a throughput in a unit of the workload's own.
type WorkloadRate struct {
	Name  string  // what it counts, e.g. "Consumed"
	Unit  string  // e.g. "rows/s"
	Value float64 // over the interval
	Mean  float64 // since the workload started
	MBps  float64 // the same traffic in MB/s (10^6 bytes), 0 if unknown
}

// PartitionsView is a partitioned consumer's state for the screen (the
// stream workload's), one per interval.
type PartitionsView struct {
	Elapsed  time.Duration // since the workload started
	Interval time.Duration // the interval the rates cover

	Epoch      int // partition maps so far - 1
	Partitions int // partitions written now
	Consumers  int // consumer goroutines running (retiring ones included)
	Threads    int // producers that wrote in this interval

	// Cumulative rows.
	Produced, Consumed int64
	// Rates over the interval.
	ProducedRate, ConsumedRate float64 // rows/s
	ProducedMBps, ConsumedMBps float64 // MB/s (10^6 bytes)
	// Lag: rows produced but not consumed, and the age of the oldest of
	// them (the largest over the partitions).
	Lag        int64
	LagSeconds float64
	// E2E is the end-to-end latency (write to delivery) of the rows
	// delivered in the interval.
	E2E Latency
	// Checks so far; all three must stay 0.
	OutOfOrder, Duplicated, Unknown int64
	// Held is the share of the interval (0-1) producers spent waiting
	// because the consumers lagged too far: the consumers are the
	// bottleneck.
	Held float64
	// FailedRows counts rows whose write failed; ReadErrors counts failed
	// reads (retried). LastError is the latest of either.
	FailedRows, ReadErrors int64
	LastError              string
	// CPUCores is this process's CPU use in cores; RSS its resident memory.
	CPUCores float64
	RSS      uint64

	// Parts has one entry per partition written now or still consumed.
	Parts []PartitionView
}

// Latency is a latency summary.
type Latency struct {
	Count              int64
	P50, P95, P99, Max time.Duration
}

// PartitionView is one partition in a PartitionsView.
type PartitionView struct {
	Index int
	// Active: written in the current epoch. Consuming: a consumer runs
	// (a partition dropped by a shrink is consumed until drained).
	Active, Consuming bool
	// Held: the consumer waits for older epochs to drain (just after a
	// partition change) before it delivers rows of the new one.
	Held                   bool
	ProducedRate, Rate     float64 // rows/s
	MBps                   float64
	Consumed, Lag          int64
	LagSeconds             float64
	P50, P95, P99, Max     time.Duration
	LatencyCount           int64
	ProducedTotal, Unknown int64
}
