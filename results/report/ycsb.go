package report

import (
	"bytes"
	"fmt"
	"io"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/rundata/units"
)

// WriteText writes the whole final report: a preceding load phase as
// [LOAD] lines, the main phase in YCSB's format, the segments table, and
// the data-integrity line when checked.
func WriteText(w io.Writer, results []*engine.PhaseResult, info engine.Info) {
	if len(results) == 0 {
		return
	}
	writeMetaComment(w, info)
	main := results[len(results)-1]
	for _, r := range results[:len(results)-1] {
		WriteLoadSummary(w, r)
	}
	WriteYCSB(w, main)
	if main.Set.Integrity > 0 || main.Set.Missing > 0 || info.Properties["dataintegrity"] == "true" {
		fmt.Fprintf(w, "[VERIFY], Mismatches, %d\n", main.Set.Integrity)
		fmt.Fprintf(w, "[VERIFY], Missing, %d\n", main.Set.Missing)
	}
	// What benchtop adds after the YCSB part: comment lines only (and the
	// workloads' own measurement lines, [STREAM], ...).
	var extra bytes.Buffer
	if main.Closing != nil && main.Closing.Text != nil {
		main.Closing.Text(&extra)
	}
	if main.Closing != nil {
		for _, p := range main.Closing.Problems {
			fmt.Fprintf(&extra, "# PROBLEM: %s\n", p)
		}
	}
	if main.Interrupted {
		fmt.Fprintf(&extra, "# interrupted: the report covers what ran until the stop\n")
	}
	writeCutOff(&extra, main)
	writeOutages(&extra, main)
	writeGCComment(&extra, main)
	writePacer(&extra, main)
	note := ""
	if main.Final != nil {
		note = main.Final.SegmentsNote
	}
	WriteSegments(&extra, main.Segments, note, info.RateUnit)
	writeThresholds(&extra, CheckThresholds(results, info))
	commented(w, extra.Bytes())
}

// WriteYCSB writes one phase's report in YCSB's text format. label is
// "OVERALL" for the main phase; a load phase run before the run phase is
// written with WriteLoadSummary instead.
func WriteYCSB(w io.Writer, res *engine.PhaseResult) {
	fmt.Fprintf(w, "[OVERALL], RunTime(ms), %d\n", res.RunTime.Milliseconds())
	fmt.Fprintf(w, "[OVERALL], Throughput(ops/sec), %s\n", units.JavaDouble(res.Throughput()))
	writeGoodput(w, res)
	writeGC(w, res)
	set := res.Set
	showOp := res.Measurement != "intended" || !res.Intended
	showIntended := res.Intended
	if res.Measurement == "op" {
		showIntended = false
		showOp = true
	}
	m := measurementWriter{res: res}
	for op := 0; op < len(res.OpNames) && op < measure.NumOps; op++ {
		name := res.OpNames[op]
		ok := set.H[measure.Slot(op, measure.OK)]
		failed := set.H[measure.Slot(op, measure.Failed)]
		if (ok == nil || ok.TotalCount() == 0) && (failed == nil || failed.TotalCount() == 0) {
			continue
		}
		if showOp {
			if ok != nil && ok.TotalCount() > 0 {
				m.head(w, name, ok)
			} else {
				fmt.Fprintf(w, "[%s], Operations, 0\n", name)
			}
			writeReturns(w, name, ok, set.Batched[op], set.Errors[op])
			if ok != nil && ok.TotalCount() > 0 {
				m.tail(w, name, ok, measure.Slot(op, measure.OK))
			}
			writeErrors(w, name, set.Errors[op], set.Causes[op])
			if failed != nil && failed.TotalCount() > 0 {
				m.head(w, name+"-FAILED", failed)
				m.tail(w, name+"-FAILED", failed, measure.Slot(op, measure.Failed))
			}
		}
		if showIntended {
			iok := set.H[measure.Slot(op, measure.OKIntended)]
			ifailed := set.H[measure.Slot(op, measure.FailedIntended)]
			if iok != nil && iok.TotalCount() > 0 {
				m.head(w, "Intended-"+name, iok)
				if !showOp {
					writeReturns(w, "Intended-"+name, iok, set.Batched[op], set.Errors[op])
					writeErrors(w, name, set.Errors[op], set.Causes[op])
				}
				m.tail(w, "Intended-"+name, iok, measure.Slot(op, measure.OKIntended))
			}
			if ifailed != nil && ifailed.TotalCount() > 0 {
				m.head(w, "Intended-"+name+"-FAILED", ifailed)
				m.tail(w, "Intended-"+name+"-FAILED", ifailed, measure.Slot(op, measure.FailedIntended))
			}
		}
		if oor := set.OutOfRange[measure.Slot(op, measure.OK)] + set.OutOfRange[measure.Slot(op, measure.OKIntended)]; oor > 0 {
			fmt.Fprintf(w, "[%s], OutOfRange(>1h), %d\n", name, oor)
		}
	}
	writeCleanup(w, res, showOp, showIntended)
}

// returnName maps an error kind to YCSB's status name.
func returnName(kind string) string {
	switch kind {
	case "not_found", "missing":
		return "NOT_FOUND"
	case "integrity":
		return "UNEXPECTED_STATE"
	}
	return "ERROR"
}

// writeReturns writes YCSB's Return= lines: one per status that
// occurred, as YCSB prints them (no Return=OK line when nothing
// succeeded). Of the successes in ok, batched only queued a record
// (BATCHED_OK); the others are OK.
func writeReturns(w io.Writer, name string, ok *hdr.Histogram, batched int64, errs map[string]int64) {
	if ok != nil && ok.TotalCount()-batched > 0 {
		fmt.Fprintf(w, "[%s], Return=OK, %d\n", name, ok.TotalCount()-batched)
	}
	byStatus := map[string]int64{}
	if batched > 0 {
		byStatus["BATCHED_OK"] = batched
	}
	for k, c := range errs {
		byStatus[returnName(k)] += c
	}
	keys := make([]string, 0, len(byStatus))
	for k := range byStatus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "[%s], Return=%s, %d\n", name, k, byStatus[k])
	}
}

// writeErrors adds benchtop's own error lines after YCSB's Return= lines,
// comments as every line benchtop adds: per kind the count, `# [READ],
// Errors(unavailable), 12`, and the latest message, `# last unavailable:
// dial tcp ...: connection refused` (credentials masked), the cause a
// user can act on.
func writeErrors(w io.Writer, name string, errs map[string]int64, causes map[string]string) {
	kinds := make([]string, 0, len(errs))
	for k := range errs {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "# [%s], Errors(%s), %d\n", name, k, errs[k])
		if c := causes[k]; c != "" {
			fmt.Fprintf(w, "# last %s: %s\n", k, MaskCause(c))
		}
	}
}

// WriteLoadSummary writes a load phase that ran before the run phase as
// `# [LOAD]` comment lines (YCSB's report has no such section: a script
// reading YCSB's lines meets only the run phase's), so that [OVERALL]
// stays the run phase's. Throughput there counts the records loaded.
func WriteLoadSummary(w io.Writer, res *engine.PhaseResult) {
	fmt.Fprintf(w, "# [LOAD], RunTime(ms), %d\n", res.RunTime.Milliseconds())
	fmt.Fprintf(w, "# [LOAD], Throughput(ops/sec), %s\n", units.JavaDouble(res.Goodput()))
	fmt.Fprintf(w, "# [LOAD], Operations, %d\n", res.Set.Ops)
	fmt.Fprintf(w, "# [LOAD], Errors, %d\n", res.Set.Failed)
	if res.Set.CutOff > 0 {
		fmt.Fprintf(w, "# [LOAD], CutOff, %d\n", res.Set.CutOff)
	}
}

// writeGoodput follows YCSB's Throughput line, which counts every
// operation, with the successful and failed rates when any failed.
func writeGoodput(w io.Writer, res *engine.PhaseResult) {
	if res.Set.Failed == 0 {
		return
	}
	fmt.Fprintf(w, "# throughput above counts every operation, as YCSB's does: successful %s ops/s, failed %s ops/s (%s of %s operations failed)\n",
		units.JavaDouble(res.Goodput()), units.JavaDouble(res.FailedRate()), units.Count(res.Set.Failed), units.Count(res.Set.Ops))
}

// writeCutOff says how many operations were cut off at the end: in flight
// when the grace after the deadline (or the stop) ended.
func writeCutOff(w io.Writer, res *engine.PhaseResult) {
	if res.Set.CutOff == 0 {
		return
	}
	at := "the deadline"
	if res.Interrupted {
		at = "the stop"
	}
	fmt.Fprintf(w, "# cut off at %s: %d (in flight when the %s grace after it ended: in no throughput and no error count)\n",
		at, res.Set.CutOff, res.Grace)
}

// writeOutages names each outage of the phase: 3 or more intervals in a
// row in which no operation succeeded.
func writeOutages(w io.Writer, res *engine.PhaseResult) {
	for _, o := range res.Outages {
		fmt.Fprintf(w, "# outage: no operation succeeded from %s to %s (%d intervals)\n", clockTenths(o.Start), clockTenths(o.End), o.Intervals)
	}
}
