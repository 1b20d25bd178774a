// Package engine runs a YCSB-style workload against one database adapter
// in goroutines, takes live changes while it runs, and publishes what it
// measured every interval as an immutable Snapshot. It knows no screen and
// no particular database: adapters implement adapters.DB, workloads
// implement workload's contract, and the screen, the reports and a
// fleet's agents read Snapshots and PhaseResults.
//
// A run is a Runner (New, then Run) over one or two phases (load, run).
// Its rooms, and the file that holds each:
//
//   - The runner: runner.go (New, Run, the phases in turn, where
//     Snapshots go); phase.go (one phase: its workers, its sampling loop,
//     its deadline and its end); control.go (the Controller interface
//     and the Runner's implementation of it, the one owner of the
//     controls in force: threads, target, partitions, pause, marks; and
//     the controls' ranges, ValidateThreads and the others, which a
//     fleet's coordinator checks too).
//   - The workers: pool.go (the worker goroutines and the hot path: one
//     operation, measured into a recorder); cleanup.go (each worker's
//     cleanup, timed for YCSB's [CLEANUP] lines).
//   - The pacer: pacer.go (a target is paced here: the shared plan,
//     each worker's schedule of intended starts, the wait until the next
//     one, evenly spaced or Poisson); waker.go (one dispatcher waking
//     paced workers at their intended starts, at most once per
//     pacing.window); lateness.go (how late paced operations started,
//     for the report's # pacer: line); sleeper_linux.go,
//     sleeper_other.go and sleeper_nap.go (the precise sleeps under it);
//     clock.go (the monotonic clock of the hot path).
//   - The interval: interval.go (every status interval, the workers'
//     interval histograms are drained from their recorders, merged into
//     one Set and handed to the Assembler, and the Snapshot is
//     published); assembler.go (the Assembler: interval, cumulative and
//     segment measurements to a Snapshot and a PhaseResult; a fleet's
//     coordinator feeds it the agents' merged intervals); stats.go
//     (histograms to Stats and the per-operation rows); tsunits.go (the
//     timeseries measurement type's units).
//   - Segments: segments.go (the what-if table: one segment per
//     configuration held, its steady figures, best and knee).
//   - Warnings: warnings.go (the client-bottleneck detector); nicwarn.go
//     (its "client NIC saturated" rule).
//   - What is published: snapshot.go (Snapshot, Info, Stats, Event,
//     Segment, AgentRow, IntervalData); result.go (PhaseResult, a
//     finished phase for the reports); gcstats.go (the runtime's
//     collections during a phase); meta.go (the build and the command
//     line for the report's header).
//   - Configuration: config.go (Config from the properties, the limits
//     MaxThreads and MaxPartitions); output.go (the report's and
//     exporters' properties); props.go (reading Java properties files).
//
// Beside it: the workloads are workload (the contract and its
// typed View), workload/ycsb (YCSB's CoreWorkload, A-F), workload/stream and
// workload/timeseries; scripted steps (--at, --sweep, demo) are
// results/steps, which drives a Controller; engine/measure holds the
// histogram Sets and recorders, workload/gen YCSB's generators, engine/host
// the host sampler, results/report the reports and exports, results/thresholds
// the --threshold verdicts, rundata/units the shared number formatting.
package engine
