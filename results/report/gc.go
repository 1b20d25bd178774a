package report

import (
	"fmt"
	"io"

	"benchtop/engine"
	"benchtop/rundata/units"
)

// gcCollector names the Go runtime's collector in YCSB's GC lines, where
// Java names its collectors ([TOTAL_GCS_G1 Young Generation], ...). Go has
// one, concurrent, collector.
const gcCollector = "Go"

// writeGC writes YCSB 0.17.0's garbage-collector lines for the phase: per
// collector and in total, the collections, their time in ms and its share
// of the run time. The time is the stop-the-world pause time, what Java
// counts for a young-generation collection; the collector's CPU time
// (concurrent marking) is in the # GC comment that follows the YCSB part.
func writeGC(w io.Writer, res *engine.PhaseResult) {
	g := res.GC
	ms := g.Pause.Milliseconds()
	pct := 0.0
	if rt := res.RunTime.Milliseconds(); rt > 0 {
		pct = float64(ms) / float64(rt) * 100
	}
	fmt.Fprintf(w, "[TOTAL_GCS_%s], Count, %d\n", gcCollector, g.Collections)
	fmt.Fprintf(w, "[TOTAL_GC_TIME_%s], Time(ms), %d\n", gcCollector, ms)
	fmt.Fprintf(w, "[TOTAL_GC_TIME_%%_%s], Time(%%), %s\n", gcCollector, units.JavaDouble(pct))
	fmt.Fprintf(w, "[TOTAL_GCs], Count, %d\n", g.Collections)
	fmt.Fprintf(w, "[TOTAL_GC_TIME], Time(ms), %d\n", ms)
	fmt.Fprintf(w, "[TOTAL_GC_TIME_%%], Time(%%), %s\n", units.JavaDouble(pct))
}

// writeGCComment says what the GC lines count, after the YCSB part.
func writeGCComment(w io.Writer, res *engine.PhaseResult) {
	g := res.GC
	fmt.Fprintf(w, "# GC (Go runtime, %s phase): %d collections (%d forced), %s stop-the-world, %s of collector CPU time (runtime/metrics estimate)\n",
		res.Phase, g.Collections, g.Forced, FormatDuration(g.Pause), FormatDuration(g.CPU))
}

// writeCleanup writes the [CLEANUP] block: one measurement per worker that
// finished (see engine's cleanups), as YCSB measures each client thread's
// DB.cleanup(), with no Return= lines (YCSB reports no status for it);
// Intended-CLEANUP beside it when intended blocks are written, as YCSB's
// measurement.interval=both does (its intended start is the actual one).
func writeCleanup(w io.Writer, res *engine.PhaseResult, showOp, showIntended bool) {
	h := res.Cleanup
	if h == nil || h.TotalCount() == 0 {
		return
	}
	m := measurementWriter{res: res}
	if showOp {
		m.head(w, "CLEANUP", h)
	}
	if showIntended {
		m.head(w, "Intended-CLEANUP", h)
	}
}
