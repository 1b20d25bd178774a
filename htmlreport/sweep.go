package htmlreport

import (
	"sort"
	"strconv"

	"benchtop/results/report"
	"benchtop/rundata/units"
	"benchtop/workload/stream"
)

// Sweep is the configuration key that changed between segments, and the
// segment that stands for each value (the longest that held it).
type Sweep struct {
	Key    string
	Values []float64
	Segs   []report.SegmentSummary
}

// minSweepSegmentS leaves out the instants between two steps.
const minSweepSegmentS = 0.5

// findSweep finds the one key among threads, partitions and target that
// took two values or more while the others stayed; nil when none did, or
// several did.
func findSweep(segs []report.SegmentSummary) *Sweep {
	var long []report.SegmentSummary
	for _, g := range segs {
		if g.DurationS >= minSweepSegmentS {
			long = append(long, g)
		}
	}
	keys := []struct {
		name string
		get  func(report.SegmentSummary) float64
	}{
		{"threads", func(g report.SegmentSummary) float64 { return float64(g.Threads) }},
		{"partitions", func(g report.SegmentSummary) float64 { return float64(g.Partitions) }},
		{"target", func(g report.SegmentSummary) float64 { return g.Target }},
	}
	var found *Sweep
	for _, k := range keys {
		by := map[float64]report.SegmentSummary{}
		for _, g := range long {
			v := k.get(g)
			if cur, ok := by[v]; !ok || g.DurationS > cur.DurationS {
				by[v] = g
			}
		}
		if len(by) < 2 {
			continue
		}
		if found != nil {
			return nil // two keys changed: not one sweep
		}
		found = &Sweep{Key: k.name}
		for v := range by {
			found.Values = append(found.Values, v)
		}
		sort.Float64s(found.Values)
		for _, v := range found.Values {
			found.Segs = append(found.Segs, by[v])
		}
	}
	return found
}

// sweepCharts are ops/s (and the workload's rows/s) and p99 against the
// swept value, with the best and the knee labelled.
func sweepCharts(s *report.Summary) []*Chart {
	sw := findSweep(s.Segments)
	if sw == nil {
		return nil
	}
	xl := sw.Key
	if xl == "target" {
		xl = "target (ops/s)"
	}
	tput := &Chart{ID: "sweep-throughput", Title: "Throughput against " + sw.Key, XLabel: xl, YLabel: "per second", Points: true,
		Caption: "One point per " + sw.Key + " value: the segment that held it longest."}
	p99 := &Chart{ID: "sweep-p99", Title: "p99 latency against " + sw.Key, XLabel: xl, Points: true,
		Caption: "p99 of the same segments (intended latency when a target was set)."}
	ops := Series{Name: "ops/s", Color: colBlue}
	lat := Series{Name: "p99", Color: colVermillion}
	extras := map[string]*Series{}
	for _, k := range extraKeys(sw.Segs) {
		if k == "rows_per_sec" || k == "records_per_sec" {
			extras[k] = &Series{Name: extraLabel(k), Color: colGreen, Dashed: true}
		}
	}
	for i, g := range sw.Segs {
		x := sw.Values[i]
		ops.Points = append(ops.Points, XY{x, g.OpsPerSec})
		if g.P99US != nil {
			lat.Points = append(lat.Points, XY{x, *g.P99US})
		}
		for k, e := range extras {
			e.Points = append(e.Points, XY{x, g.Extra[k]})
		}
		if g.Best {
			tput.Marks = append(tput.Marks, Mark{At: x, Label: "best " + fmtRate(g.OpsPerSec)})
		}
		if g.Knee {
			p99.Marks = append(p99.Marks, Mark{At: x, Label: "knee"})
			tput.Marks = append(tput.Marks, Mark{At: x, Label: "knee"})
		}
	}
	tput.Series = []Series{ops}
	for _, k := range sortedKeys(extras) {
		tput.Series = append(tput.Series, *extras[k])
	}
	p99.Series = []Series{lat}
	p99.YLabel, p99.YUS = "p99", true
	return []*Chart{tput, p99}
}

// streamSection fills the stream's table, facts and charts.
func streamSection(r *Report, run *Run) {
	st := run.Stream
	if st == nil {
		return
	}
	check := "passed: nothing lost, duplicated or out of order"
	lost := units.Count(st.Lost)
	if st.Verdict == stream.VerdictPartial {
		// Another process of the group holds the rest of the rows.
		check = "partial: " + units.Count(st.ConsumedElsewhere) + " rows produced here were consumed elsewhere; nothing duplicated or out of order here (benchtop verdict merges the group's summaries)"
		lost = "— (partial)"
	}
	if len(st.Problems()) > 0 || !st.Drained {
		check = "FAILED"
	}
	r.StreamInfo = []Fact{
		{Label: "Loss check", Values: []string{check}},
		{Label: "Rows produced / consumed", Values: []string{units.Count(st.Produced) + " / " + units.Count(st.Consumed)}},
		{Label: "Lost / duplicated / out of order", Values: []string{lost + " / " + units.Count(st.Duplicated) + " / " + units.Count(st.OutOfOrder)}},
		{Label: "Drained at the end", Values: []string{strconv.FormatBool(st.Drained) + " (" + strconv.FormatInt(st.DrainMS, 10) + " ms)"}},
		{Label: "Row size / batch", Values: []string{strconv.Itoa(st.RowSize) + " B / " + strconv.Itoa(st.BatchSize)}},
		{Label: "Stream", Values: []string{orDash(st.Stream)}},
	}
	thHead := "threads"
	if len(st.Scenarios) > 0 && st.Scenarios[0].Agents > 0 {
		thHead = "agents × threads"
	}
	t := &Table{ID: "stream", Caption: "Rows consumed per partitions and producer threads held (stable = median of the intervals; transitions left out)",
		Columns: []string{"partitions", thHead, "duration", "rows/s stable", "rows/s peak", "ms per 1,000 rows", "MB/s", "e2e p50", "e2e p99", "lag max", "client CPU (cores)", ""}}
	rows := Series{Name: "rows/s (stable)", Color: colBlue}
	mb := Series{Name: "MB/s", Color: colGreen}
	for _, sc := range st.Scenarios {
		mark, class := "", ""
		if sc.Best {
			mark, class = "★ best", "best"
		} else if sc.State != "" && sc.State != "qualified" {
			mark = "(" + sc.State + ")" // not judged, and why: the table says so
		}
		t.Rows = append(t.Rows, TRow{Class: class, Cells: []Cell{
			numCell(strconv.Itoa(sc.Partitions), "partitions", float64(sc.Partitions)),
			numCell(threadsText(sc), "threads", float64(sc.Threads)),
			numCell(fmtSeconds(sc.DurationS), "duration_s", sc.DurationS),
			numCell(fmtRate(sc.StableRowsPerSec), "rows_per_sec_stable", sc.StableRowsPerSec),
			numCell(fmtRate(sc.PeakRowsPerSec), "rows_per_sec_peak", sc.PeakRowsPerSec),
			numCell(strconv.FormatFloat(sc.MsPer1000Rows, 'f', 3, 64), "ms_per_1000_rows", sc.MsPer1000Rows),
			numCell(strconv.FormatFloat(sc.StableMBPerSec, 'f', 1, 64), "mb_per_sec", sc.StableMBPerSec),
			numCell(fmtUS(sc.E2E.P50), "e2e_us.p50", sc.E2E.P50),
			numCell(fmtUS(sc.E2E.P99), "e2e_us.p99", sc.E2E.P99),
			numCell(units.Count(sc.MaxLag), "lag_max", float64(sc.MaxLag)),
			numCell(strconv.FormatFloat(sc.CPUCores, 'f', 2, 64), "cpu_cores", sc.CPUCores),
			textCell(mark),
		}})
		rows.Points = append(rows.Points, XY{float64(sc.Partitions), sc.StableRowsPerSec})
		mb.Points = append(mb.Points, XY{float64(sc.Partitions), sc.StableMBPerSec})
	}
	if len(t.Rows) > 0 {
		r.Stream = t
	}
	if len(st.Scenarios) > 1 {
		sortXY(rows.Points)
		sortXY(mb.Points)
		r.StreamPlot = []*Chart{
			{ID: "stream-rows", Title: "Rows/s consumed against partitions", XLabel: "partitions", YLabel: "rows/s", Points: true, Series: []Series{rows},
				Caption: "Stable (median) rows per second consumed, one point per scenario."},
			{ID: "stream-mb", Title: "MB/s consumed against partitions", XLabel: "partitions", YLabel: "MB/s", Points: true, Series: []Series{mb},
				Caption: "The same scenarios in MB/s (1 Gbit/s is 125 MB/s)."},
		}
	}
}

// timeseriesSection fills the time-series ingest table, facts and charts.
func timeseriesSection(r *Report, run *Run) {
	ts := run.Timeseries
	if ts == nil {
		return
	}
	stored := "not counted"
	if ts.Stored >= 0 {
		stored = units.Count(ts.Stored)
	}
	r.TSInfo = []Fact{
		{Label: "Loss check", Values: []string{ts.Check}},
		{Label: "Records written / stored", Values: []string{units.Count(ts.Written) + " / " + stored}},
		{Label: "Records failed", Values: []string{units.Count(ts.Failed)}},
		{Label: "Batches (full / flush interval / final)", Values: []string{units.Count(ts.BatchesFull) + " / " + units.Count(ts.BatchesFlushed) + " / " + units.Count(ts.BatchesFinal)}},
		{Label: "Batch size / flush interval / in flight", Values: []string{strconv.Itoa(ts.BatchSize) + " / " + strconv.FormatFloat(ts.FlushIntervalMS, 'f', -1, 64) + " ms / " + strconv.Itoa(ts.InFlight)}},
		{Label: "Backpressure", Values: []string{strconv.FormatFloat(ts.Backpressure*100, 'f', 1, 64) + " %"}},
	}
	t := &Table{ID: "timeseries", Caption: "Records and MB acknowledged per number of active writers (the first interval after a change left out)",
		Columns: []string{"writers", "duration", "records/s", "MB/s", "backpressure", "batches/s", "write p50", "write p95", "write p99", "errors"}}
	recs := Series{Name: "records/s", Color: colBlue}
	mb := Series{Name: "MB/s", Color: colGreen}
	for _, row := range ts.ByParallelism {
		t.Rows = append(t.Rows, TRow{Cells: []Cell{
			numCell(strconv.Itoa(row.Writers), "writers", float64(row.Writers)),
			numCell(fmtSeconds(row.Seconds), "duration_s", row.Seconds),
			numCell(fmtRate(row.RecordsPerSec), "records_per_sec", row.RecordsPerSec),
			numCell(strconv.FormatFloat(row.MBPerSec, 'f', 2, 64), "mb_per_sec", row.MBPerSec),
			numCell(strconv.FormatFloat(row.Backpressure*100, 'f', 0, 64)+" %", "backpressure", row.Backpressure),
			numCell(strconv.FormatFloat(row.BatchesPerSec, 'f', 1, 64), "batches_per_sec", row.BatchesPerSec),
			numCell(fmtUS(float64(row.Write.P50)), "write_latency_us.p50", float64(row.Write.P50)),
			numCell(fmtUS(float64(row.Write.P95)), "write_latency_us.p95", float64(row.Write.P95)),
			numCell(fmtUS(float64(row.Write.P99)), "write_latency_us.p99", float64(row.Write.P99)),
			numCell(units.Count(row.Errors), "errors", float64(row.Errors)),
		}})
		recs.Points = append(recs.Points, XY{float64(row.Writers), row.RecordsPerSec})
		mb.Points = append(mb.Points, XY{float64(row.Writers), row.MBPerSec})
	}
	if len(t.Rows) > 0 {
		r.TimeSeries = t
	}
	if len(ts.ByParallelism) > 1 {
		sortXY(recs.Points)
		sortXY(mb.Points)
		r.TSPlot = []*Chart{
			{ID: "ts-records", Title: "Records/s against parallelism", XLabel: "active writers", YLabel: "records/s", Points: true, Series: []Series{recs}},
			{ID: "ts-mb", Title: "MB/s against parallelism", XLabel: "active writers", YLabel: "MB/s", Points: true, Series: []Series{mb}},
		}
	}
}

func sortXY(p []XY) { sort.Slice(p, func(i, j int) bool { return p[i].X < p[j].X }) }

// threadsText is a scenario's producer threads: in a fleet, the agents
// times the threads per agent, and their product.
func threadsText(sc stream.Scenario) string {
	if sc.Agents > 0 {
		return strconv.Itoa(sc.Agents) + " × " + strconv.Itoa(sc.ThreadsPerAgent) + " = " + strconv.Itoa(sc.Threads)
	}
	return strconv.Itoa(sc.Threads)
}
