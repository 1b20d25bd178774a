// Package metrics serves a run's live figures to Prometheus (--metrics
// ADDR: /metrics in the Prometheus text and OpenMetrics formats) and
// pushes them with Prometheus remote write 1.0 (--metrics-push URL), so
// that a team watches the run in Grafana beside the database's own
// metrics. docs/metrics.md names every series.
//
// It reads what the run publishes once per interval, never an operation:
// the engine's interval histograms (the OnInterval hook, as the --hdr-log
// export reads them; a fleet's coordinator also hands each agent's own)
// and the Snapshot (threads, target, host, phase, workload figures).
// Counts of successful and failed operations come from the measurement
// variants (measure.OK, measure.Failed) in one function, outcomes
// (tally.go). Nothing here runs on the workers' hot path, and a push
// never waits on the run's goroutines: it has a bounded queue of its own
// that drops its oldest interval when full.
//
// Where things live:
//
//   - names.go: the metric names, their labels and help, and the classic
//     histograms' bucket boundaries.
//   - tally.go: outcomes and workloadOps, the one place that turns a Set
//     into counts of successful and failed operations.
//   - state.go: the figures kept between intervals: cumulative counters
//     and histogram buckets, the last interval's exact percentiles, the
//     latest Snapshot's gauges.
//   - collect.go: the prometheus.Collector that turns the state into
//     series at every scrape or push.
//   - exporter.go: Exporter, the run's hooks, and its end (the final
//     push, the linger).
//   - serve.go: the HTTP endpoint and its scrape count.
//   - push.go: the remote-write pusher (queue, failures, warning).
//   - remotewrite.go: gathered metric families to remote write 1.0's
//     WriteRequest, encoded as protobuf.
package metrics
