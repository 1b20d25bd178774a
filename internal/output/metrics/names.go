package metrics

import (
	"math"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// The series, by Prometheus's conventions: base units (seconds, bytes,
// ratios 0-1), counters ending in _total, one prefix. docs/metrics.md
// says what each means; TestNamesDocumented holds the page to this list.
const (
	nOperations      = "benchtop_operations_total"
	nErrors          = "benchtop_errors_total"
	nIntegrity       = "benchtop_integrity_errors_total"
	nLatency         = "benchtop_operation_latency_seconds"
	nFailedLatency   = "benchtop_failed_operation_latency_seconds"
	nIntervalLatency = "benchtop_interval_latency_seconds"
	nThroughput      = "benchtop_throughput_ops_per_second"
	nThreads         = "benchtop_threads"
	nPartitions      = "benchtop_partitions"
	nTarget          = "benchtop_target_ops_per_second"
	nCPU             = "benchtop_client_cpu_ratio"
	nNetwork         = "benchtop_client_network_bytes_per_second"
	nPhase           = "benchtop_phase_info"
	nSegment         = "benchtop_segment"
	nProgress        = "benchtop_progress_ratio"
	nPaused          = "benchtop_paused"
	nWarnings        = "benchtop_warnings"
	nInfo            = "benchtop_info"
	nAgentState      = "benchtop_agent_state"

	nStreamRate       = "benchtop_stream_rows_per_second"
	nStreamBytes      = "benchtop_stream_bytes_per_second"
	nStreamRows       = "benchtop_stream_rows_total"
	nStreamLag        = "benchtop_stream_lag_rows"
	nStreamLagSeconds = "benchtop_stream_lag_seconds"
	nStreamLost       = "benchtop_stream_lost_rows_total"
	nStreamDuplicated = "benchtop_stream_duplicated_rows_total"
	nStreamOutOfOrder = "benchtop_stream_out_of_order_rows_total"
	nStreamUnknown    = "benchtop_stream_unknown_rows_total"
	nStreamE2E        = "benchtop_stream_e2e_latency_seconds"
	nWorkloadFigure   = "benchtop_workload_figure"

	nPushes  = "benchtop_remote_write_requests_total"
	nDropped = "benchtop_remote_write_dropped_total"
)

// allNames are every family's name, for the docs and the tests.
var allNames = []string{nOperations, nErrors, nIntegrity, nLatency, nFailedLatency, nIntervalLatency,
	nThroughput, nThreads, nPartitions, nTarget, nCPU, nNetwork, nPhase, nSegment, nProgress, nPaused,
	nWarnings, nInfo, nAgentState, nStreamRate, nStreamBytes, nStreamRows, nStreamLag, nStreamLagSeconds,
	nStreamLost, nStreamDuplicated, nStreamOutOfOrder, nStreamUnknown, nStreamE2E, nWorkloadFigure,
	nPushes, nDropped}

// quantiles are the last interval's figures of the summary
// benchtop_interval_latency_seconds: HdrHistogram's ValueAtQuantile at
// these percentiles, and its Max as quantile 1, as the screen's table
// shows them.
var quantiles = []struct {
	q   float64 // the quantile label, 0-1
	pct float64 // HdrHistogram's percentile, 0-100; 100 is the maximum
}{{0.5, 50}, {0.95, 95}, {0.99, 99}, {0.999, 99.9}, {1, 100}}

// Bounds are the classic histograms' upper bounds in seconds: the
// Renard R10 series of preferred numbers (1, 1.25, 1.6, 2, 2.5, 3.15, 4,
// 5, 6.3, 8 per decade; a geometric step of 10^(1/10), about 26 %) from
// 1 µs to 63 s: 79 bounds and +Inf. Decades and the usual objectives
// (1, 2, 2.5, 5 ms, 250 ms) are bounds, so a share of operations under an
// objective is exact; histogram_quantile interpolates within one step.
var Bounds = r10(-6, 63)

// r10 is the R10 series from 10^exp up to and including top.
func r10(exp int, top float64) []float64 {
	steps := []float64{1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8}
	var out []float64
	for e := exp; ; e++ {
		for _, s := range steps {
			// s × 10^e rounded to 3 significant digits: 1.6e-06, not
			// 1.6000000000000001e-06.
			v := roundSig(s*math.Pow10(e), 3)
			if v > top*(1+1e-9) {
				return out
			}
			out = append(out, v)
		}
	}
}

func roundSig(v float64, digits int) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow10(digits - 1 - int(math.Floor(math.Log10(v))))
	return math.Round(v*p) / p
}

// boundsNs are Bounds in nanoseconds, the unit of the engine's
// histograms.
var boundsNs = func() []int64 {
	out := make([]int64, len(Bounds))
	for i, b := range Bounds {
		out[i] = int64(math.Round(b * 1e9))
	}
	if !slices.IsSorted(out) {
		panic("metrics: bounds out of order")
	}
	return out
}()

// descs are the collector's descriptors. Families fed per agent in a
// fleet take the agent label last ("" for the fleet's merged series,
// which Prometheus stores without the label).
type descs struct {
	operations, errors, integrity, latency, failedLatency, intervalLatency *prometheus.Desc
	throughput, threads, partitions, target, cpu, network                  *prometheus.Desc
	phase, segment, progress, paused, warnings, info, agentState           *prometheus.Desc
	streamRate, streamBytes, streamRows, streamLag, streamLagSeconds       *prometheus.Desc
	streamLost, streamDuplicated, streamOutOfOrder, streamUnknown          *prometheus.Desc
	streamE2E, workloadFigure, pushes, dropped                             *prometheus.Desc
}

func newDescs(fleet bool) *descs {
	per := func(labels ...string) []string {
		if fleet {
			return append(labels, "agent")
		}
		return labels
	}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &descs{
		operations: d(nOperations, "Operations completed, by phase, operation type and outcome (success or failure).",
			per("phase", "operation", "outcome")...),
		errors: d(nErrors, "Failed operations by phase, operation type and error kind.",
			per("phase", "operation", "kind")...),
		integrity: d(nIntegrity, "Data-integrity mismatches (dataintegrity=true).", per("phase")...),
		latency: d(nLatency, "Latency of successful operations: service time, and with a target the latency from the intended start.",
			per("phase", "operation", "measure")...),
		failedLatency: d(nFailedLatency, "Latency of failed operations, kept apart from the successful ones.",
			per("phase", "operation", "measure")...),
		intervalLatency: d(nIntervalLatency, "Successful operations: the last interval's exact latency quantiles from the HDR histograms, as the screen shows them (quantile 1 is the maximum); count and sum since the start.",
			per("operation", "measure")...),
		throughput: d(nThroughput, "Operations per second over the last interval, by outcome.", per("outcome")...),
		threads:    d(nThreads, "Client threads (per agent in a fleet).", per()...),
		partitions: d(nPartitions, "Partitions of the key space or stream.", per()...),
		target:     d(nTarget, "The target rate in operations per second (absent when unlimited).", per()...),
		cpu:        d(nCPU, "The client host's CPU busy share of all cores, 0-1.", per()...),
		network:    d(nNetwork, "The client host's busiest network interface, bytes per second received (rx) and sent (tx).", per("direction")...),
		phase:      d(nPhase, "The phase in progress (1).", "phase"),
		segment:    d(nSegment, "The current segment of the what-if table (1-based): a new one starts at every change.", nil...),
		progress:   d(nProgress, "The phase's progress, 0-1 (absent when it has no operation or time limit).", nil...),
		paused:     d(nPaused, "1 while the run is paused.", nil...),
		warnings:   d(nWarnings, "Warnings in force (client bottleneck, host busy, workload warnings).", nil...),
		info:       d(nInfo, "The run: benchtop's version, the adapter, the workload and a hash of the command line (secrets masked before hashing).", "version", "adapter", "workload", "command_hash"),
		agentState: d(nAgentState, "A fleet agent's state (1 for the state it is in).", "agent", "state"),

		streamRate:       d(nStreamRate, "Stream rows per second over the last interval, produced and consumed.", "direction"),
		streamBytes:      d(nStreamBytes, "Stream bytes per second over the last interval, produced and consumed.", "direction"),
		streamRows:       d(nStreamRows, "Stream rows produced and consumed (deliveries, duplicates included).", "direction"),
		streamLag:        d(nStreamLag, "Stream rows produced and not yet consumed.", nil...),
		streamLagSeconds: d(nStreamLagSeconds, "Age of the oldest stream row not yet consumed.", nil...),
		streamLost:       d(nStreamLost, "Stream rows produced and never delivered (known when the run's closing check ends).", nil...),
		streamDuplicated: d(nStreamDuplicated, "Stream deliveries beyond the first of a row.", nil...),
		streamOutOfOrder: d(nStreamOutOfOrder, "Stream rows delivered after a later row of their key and partition.", nil...),
		streamUnknown:    d(nStreamUnknown, "Stream rows delivered that no known producer wrote.", nil...),
		streamE2E:        d(nStreamE2E, "Stream end-to-end latency (write to delivery) over the last interval: its p50, p95, p99 and max.", "stat"),
		workloadFigure:   d(nWorkloadFigure, "A workload's own figure over the last interval, as its status line shows it (name and unit as labels).", "name", "unit"),

		pushes:  d(nPushes, "Remote-write requests of --metrics-push, by result (success, failure after retries).", "result"),
		dropped: d(nDropped, "Intervals --metrics-push dropped unsent: its queue was full (the oldest go first).", nil...),
	}
}

// all lists every descriptor, for Describe.
func (d *descs) all() []*prometheus.Desc {
	return []*prometheus.Desc{d.operations, d.errors, d.integrity, d.latency, d.failedLatency, d.intervalLatency,
		d.throughput, d.threads, d.partitions, d.target, d.cpu, d.network,
		d.phase, d.segment, d.progress, d.paused, d.warnings, d.info, d.agentState,
		d.streamRate, d.streamBytes, d.streamRows, d.streamLag, d.streamLagSeconds,
		d.streamLost, d.streamDuplicated, d.streamOutOfOrder, d.streamUnknown,
		d.streamE2E, d.workloadFigure, d.pushes, d.dropped}
}
