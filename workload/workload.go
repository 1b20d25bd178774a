// Package workload is the contract between the engine's runner and the
// workloads it drives: YCSB's core workload (workload/ycsb), the
// partitioned stream (workload/stream) and time-series ingest
// (workload/timeseries) each live in a package of their own and register
// here the same way. It imports nothing of benchtop but the adapter
// contract, so that workload packages need not import the engine.
package workload

import (
	"context"
	"io"
	"sort"
	"sync"
	"time"

	"benchtop/adapters"
)

// MaxOps is the number of operation types a workload may name.
const MaxOps = 8

// SubRecorder records a sub-operation measured inside one step (the READ
// and UPDATE of a read-modify-write), with times from the step's clock.
type SubRecorder func(op int, start, end int64, err error)

// Worker is one worker goroutine's state. The runner calls it from that
// goroutine only; it paces and measures around each call.
type Worker interface {
	// Transaction performs one run-phase step: one operation or one batch.
	// It returns the operation type, how many operations it counts for
	// (a batch of 500 rows counts 500) and the error.
	Transaction(ctx context.Context, clock func() int64, sub SubRecorder) (op, n int, err error)
	// Load performs one load-phase step of up to limit(want) records and
	// returns how many it wrote; 0 means the load is done.
	Load(ctx context.Context, limit func(want int) int) (n int, err error)
}

// Delayer is implemented by workers that must pause before their next
// step (the core workload's insertion retry interval). The runner waits
// Delay out before the step, outside the measured time, and wakes early
// on a stop or control change (then asks again).
type Delayer interface {
	Delay() time.Duration
}

// Queuer is implemented by workers whose load steps may time each record
// of a batch on its own, as YCSB's JDBC binding does (each record a call
// of its own there). With jdbc.batchupdateapi=true every record but the
// one that fills the batch returns BATCHED_OK, timed over its queuing
// (addBatch), and the one that fills it returns OK, timed over its
// queuing, the batch's sending and commit; records still queued at the
// end are sent at cleanup, measured by none. With jdbc.autocommit=false
// alone every record is OK, timed over its own statement, and the one
// that ends the batch's transaction over the commit too.
//
// After each Load step the runner asks Queued: nil took means the step
// was not timed by record (each record gets the step's latency, as
// without Queuer). Otherwise took holds the time (ns) of each record but
// the step's last; batched says they returned BATCHED_OK rather than OK.
// The step's one record past them, when there is one, gets the rest of
// the step. When every record of the step is in took, the rest is
// measured by none (the load's last, short, queued batch: YCSB's
// cleanup).
type Queuer interface {
	Queued() (took []int64, batched bool)
}

// Workload is what the runner drives.
type Workload interface {
	// OpNames names the operation types by index (at most MaxOps), in the
	// order reports list them: YCSB names for the core workload.
	OpNames() []string
	// LoadOp is the operation type load steps are recorded under.
	LoadOp() int
	// NewWorker makes the state of one worker goroutine.
	NewWorker(seed uint64) Worker
}

// Describer is implemented by workloads that describe their mix in one
// line for headers and reports (the core workload's is "read 50 / update
// 50, zipfian").
type Describer interface {
	Describe() string
}

// Loader is implemented by workloads with a load phase: LoadCount is the
// number of records it inserts (the core workload's insertcount).
// Workloads without it load nothing.
type Loader interface {
	LoadCount() int64
}

// Starter is implemented by workloads with goroutines of their own (the
// stream's consumers). Start is called before the first worker of a phase,
// Stop after its last worker returned (with a context bounding the drain).
type Starter interface {
	Start(ctx context.Context, phase string, partitions int) error
	Stop(ctx context.Context) error
}

// Partitioned is implemented by workloads that own the partition count
// (the stream: one consumer per partition). The runner sends
// SetPartitions to the workload rather than to the adapter.
type Partitioned interface {
	SetPartitions(ctx context.Context, n int) error
}

// PartitionWatcher is implemented by Partitioned workloads whose
// partition count can change without SetPartitions: a stream shared with
// other processes, one of which grew it. The runner calls WatchPartitions
// once, before the run, with the function the workload calls after each
// such change (from and to the partition count, why in a few words),
// which the runner records as a partition change, and the one it calls
// when a change takes effect later than it was made (a consumer group
// assigned the new partitions: at most partitions, what happened), which
// the runner records as an event of kind "rebalance".
type PartitionWatcher interface {
	WatchPartitions(changed func(from, to int, why string), later func(partitions int, what string))
}

// Drainer is implemented by Starters whose Stop may need longer than the
// runner's default bound (30 s) to drain: Stop's context is bounded by
// DrainTime instead (a property the user set).
type Drainer interface {
	DrainTime() time.Duration
}

// Sample is what a Sampler reports for one interval.
type Sample struct {
	// Delta holds counts for this interval, e.g. {"rows": 1e6, "mb": 220};
	// the runner sums them per segment and reports KEY_per_sec.
	Delta map[string]float64
	// View is the workload's own figures for the screen and status
	// lines; nil when it has none. It must be immutable once returned.
	View *View
	// Warnings are shown while they last.
	Warnings []string
}

// Sampler is implemented by workloads with figures of their own; the runner
// calls Sample once per interval from its sampler goroutine.
type Sampler interface {
	Sample(interval time.Duration) Sample
}

// Counters is implemented by workloads whose Delta figures are also kept
// as running totals (atomic loads, cheap). The runner then reads them at
// every segment boundary, so that each segment gets exactly its own rows
// rather than whole intervals (a change rarely falls on a tick). The keys
// are those of Sample.Delta.
type Counters interface {
	Counters() map[string]float64
}

// Final is a workload's closing section of the report.
type Final struct {
	// Text is written after the YCSB part of the text report.
	Text func(w io.Writer)
	// JSONKey and JSON become a top-level member of the JSON summary,
	// e.g. "stream": {...}. JSON is a value encoding/json can encode.
	JSONKey string
	JSON    any
	// Problems (lost rows, points missing after ingest, ...) make the
	// exit status non-zero; each is one line.
	Problems []string
	// Notes are said on stderr at the end, one line each, and change
	// no exit status (what a check could not judge, and why).
	Notes []string
	// Lost counts what was acknowledged and never seen again (a stream's
	// lost rows) when this process can judge it, nil otherwise: the
	// metrics' closing figure, read without knowing the workload.
	Lost *int64
}

// Finisher is implemented by workloads that check or summarise at the end
// of the last phase (count what was stored, compare with what was sent).
type Finisher interface {
	Finish(ctx context.Context) (Final, error)
}

// Factory validates properties and builds a workload.
type Factory struct {
	// Name is the value of the `workload` property that selects it.
	Name string
	// Aliases select it too (YCSB's class names for the core workload).
	Aliases []string
	// Validate checks the workload's own properties for a "load" or "run"
	// command before anything touches the database; it returns a
	// *adapters.ConfigError for bad input.
	Validate func(command string, props adapters.Properties) error
	// Properties lists the property names (or prefixes ending in '.') the
	// workload reads, so that they draw no unknown-property warning.
	Properties []string
	// Keys lists every property name the workload reads (core names such
	// as "partitions" included, as close matches). Any other name under
	// Properties draws a warning with a close match (Factory.Unknown). nil: not listed, every name under
	// Properties is accepted unchecked.
	Keys []string
	// New builds the workload on an open adapter.
	New func(command string, props adapters.Properties, db adapters.DB) (Workload, error)
	// RateKey and RateUnit, when set, make the run's throughput a count
	// of the workload's own rather than its operations: RateKey names its
	// Counters and Sample.Delta figure (the time series' "records",
	// acknowledged by the server), RateUnit the rate's unit
	// ("records/s"). The [OVERALL] line, the segments, the screen and the
	// JSON then give that one rate (the segments not as an extra column
	// beside it).
	RateKey, RateUnit string
	// OpUnits names what an operation type counts when it is not one
	// operation of the run's rate (the time series' WRITE is a batch):
	// screens label its rate so ("batches").
	OpUnits map[string]string
	// Produces, when set, names the operation types the last phase of a
	// "load" or "run" command with these (valid) properties can produce,
	// before anything is opened: a --threshold naming another is refused
	// as bad input. nil: not known before New, any name is accepted.
	Produces func(command string, props adapters.Properties) []string
	// Group, when set, is the workload's part in a run split across
	// processes (a fleet, a consumer group's verdict): see Group.
	Group *Group
}

// Unknown returns the warnings for the properties under f's Properties
// that are not in f.Keys (none when f.Keys is nil): see
// adapters.UnknownWarnings.
func (f Factory) Unknown(props map[string]string) []string {
	if f.Keys == nil {
		return nil
	}
	return adapters.UnknownWarnings(props, f.Properties, f.Keys)
}

// Unknown checks props against every registered workload's Keys: one
// warning for each name under a workload's Properties that it does not read
// (sorted, each once). The engine calls it before it opens anything.
func Unknown(props map[string]string) []string {
	seen := map[string]bool{}
	var warns []string
	for _, n := range Names() {
		f, _ := Lookup(n)
		for _, w := range f.Unknown(props) {
			if !seen[w] {
				seen[w] = true
				warns = append(warns, w)
			}
		}
	}
	sort.Strings(warns)
	return warns
}

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
	byName    = map[string]string{} // name or alias -> name
)

// Register adds a workload factory; it panics on a duplicate name or
// alias.
func Register(f Factory) {
	mu.Lock()
	defer mu.Unlock()
	for _, n := range append([]string{f.Name}, f.Aliases...) {
		if _, dup := byName[n]; dup {
			panic("workload: duplicate registration of " + n)
		}
		byName[n] = f.Name
	}
	factories[f.Name] = f
}

// Lookup returns the factory registered under name or one of its aliases.
func Lookup(name string) (Factory, bool) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := factories[byName[name]]
	return f, ok
}

// Names lists the registered workload names.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(factories))
	for n := range factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
