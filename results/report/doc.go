// Package report writes what a run measured: the final report in YCSB's
// text format (so that scripts written for YCSB keep working) followed by
// the segments table, the JSON summary, the CSV time series of every
// interval and HdrHistogram interval logs.
//
// One job a file:
//
//   - ycsb.go: the text report (WriteText): a load phase's [LOAD] lines,
//     the main phase in YCSB's format (WriteYCSB: [OVERALL], each
//     operation's blocks, Return= and error lines), then benchtop's
//     additions as comments; measurements.go: one measurement's block in
//     each of YCSB's measurement types (hdrhistogram, histogram,
//     timeseries); gc.go: the GC and [CLEANUP] lines; comments.go: what
//     keeps benchtop's lines out of a YCSB parser's way, and the run's
//     header comment; exporters.go: the report through YCSB's exporters
//     (text, json, jsonarray).
//   - segments.go: the what-if table (WriteSegments), one row a segment.
//   - summary.go: the JSON summary (Summary, BuildSummary, WriteJSON);
//     segmentlike.go: a summary's segment of a given configuration, for
//     comparisons.
//   - verdicts.go: the --threshold verdicts, judged and written.
//   - series.go: the CSV time series, one row an interval; hdrlog.go: the
//     HdrHistogram interval log of every interval; hdrfiles.go: YCSB's own
//     HDR files, one per operation type.
//   - format.go: the figures' shared forms (durations, counts, an
//     unmeasured CPU, error causes with passwords masked).
package report
