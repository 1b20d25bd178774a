package htmlreport

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"benchtop/results/report"
	"benchtop/rundata/units"
)

// Compare makes the report of two runs side by side: a baseline and a run
// after some change, with throughput and p99 over time overlaid and both
// runs' segments in one table with the differences.
func Compare(base, run *Run, baseName, runName string) *Report {
	bn, rn := "baseline: "+filepath.Base(baseName), "run: "+filepath.Base(runName)
	r := &Report{
		Title:    "benchtop comparison: " + titleOf(&run.Summary),
		Subtitle: filepath.Base(baseName) + " (baseline) against " + filepath.Base(runName),
		Compare:  true,
		RunNames: []string{bn, rn},
	}
	r.Header = header([]*Run{base, run})
	r.Headline = compareHeadline(base, run)
	r.Thresholds = thresholdSection(run)
	r.Limits, r.Advice = compareFindings(base, run)
	r.Throughput = overlay("throughput", "Throughput over time, both runs", "operations/s", base, run, throughputOf)
	if c := overlay("p99", "p99 latency over time, both runs", "", base, run, p99Of); c != nil {
		c.YLabel, c.YUS = "p99, all operations", true
		logLatency(c)
		r.Latency = []*Chart{c}
	}
	r.Segments = compareSegments(base, run)
	r.Operations = compareOperations(base, run)
	if len(base.Rows) == 0 && len(base.Intervals) == 0 || len(run.Rows) == 0 && len(run.Intervals) == 0 {
		r.Notes = append(r.Notes, "A run without its CSV time series or HDR log is drawn per segment: give --timeseries or --hdr-log once per run, in the order of the JSON files.")
	}
	r.Problems = append(prefixed("baseline", base.Problems), prefixed("run", run.Problems)...)
	return r
}

func prefixed(p string, ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, p+": "+s)
	}
	return out
}

// pctChange is (b-a)/a in percent, NaN when a is 0.
func pctChange(a, b float64) float64 {
	if a == 0 {
		return math.NaN()
	}
	return 100 * (b - a) / a
}

func fmtPct(p float64) string {
	if math.IsNaN(p) {
		return "—"
	}
	return fmt.Sprintf("%+.1f %%", p)
}

func compareHeadline(base, run *Run) []Figure {
	out := []Figure{{Label: "throughput", Value: fmtPct(pctChange(base.Summary.Throughput, run.Summary.Throughput)),
		Note: fmtRate(base.Summary.Throughput) + " → " + fmtRate(run.Summary.Throughput) + " ops/s"}}
	for _, o := range run.Summary.Operations {
		if b := findOp(&base.Summary, o.Name); b != nil {
			out = append(out, Figure{Label: "p99 " + o.Name, Value: fmtPct(pctChange(usOrNaN(b.P99US), usOrNaN(o.P99US))), Note: fmtUSp(b.P99US) + " → " + fmtUSp(o.P99US)})
		}
	}
	return out
}

func findOp(s *report.Summary, name string) *report.OpSummary {
	for i := range s.Operations {
		if s.Operations[i].Name == name {
			return &s.Operations[i]
		}
	}
	return nil
}

// compareFindings says what changed, then what limited each run.
func compareFindings(base, run *Run) ([]Finding, []string) {
	b, n := &base.Summary, &run.Summary
	d := pctChange(b.Throughput, n.Throughput)
	word := "raised"
	if d < 0 {
		word = "lowered"
	}
	fs := []Finding{{Signal: "throughput", Text: fmt.Sprintf("The change %s throughput by %s (%s → %s ops/s).", word, strings.TrimPrefix(fmtPct(math.Abs(d)), "+"), fmtRate(b.Throughput), fmtRate(n.Throughput))}}
	switch {
	case math.IsNaN(d):
		fs[0].Text = fmt.Sprintf("Throughput went from %s to %s ops/s.", fmtRate(b.Throughput), fmtRate(n.Throughput))
	case math.Abs(d) < 0.05:
		fs[0].Text = fmt.Sprintf("Throughput did not change (%s ops/s).", fmtRate(n.Throughput))
	}
	for _, o := range n.Operations {
		if bo := findOp(b, o.Name); bo != nil {
			fs = append(fs, Finding{Signal: "latency", Text: fmt.Sprintf("%s p99 went from %s to %s (%s).", o.Name, fmtUSp(bo.P99US), fmtUSp(o.P99US), fmtPct(pctChange(usOrNaN(bo.P99US), usOrNaN(o.P99US))))})
		}
	}
	var advice []string
	for _, side := range []struct {
		name string
		run  *Run
	}{{"Baseline", base}, {"Run", run}} {
		lf, la := limits(side.run)
		for _, f := range lf {
			switch f.Signal {
			case "cpu", "nic", "errors", "target", "knee", "check":
				fs = append(fs, Finding{Signal: f.Signal, Text: side.name + ": " + f.Text})
			}
		}
		for _, a := range la {
			advice = appendUnique(advice, side.name+": "+a)
		}
	}
	return fs, advice
}

func appendUnique(ss []string, s string) []string {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}

// throughputOf is a run's ops/s over time from the best source it has.
func throughputOf(run *Run) []XY {
	var notes []string
	c := throughputChart(run, &notes)
	if c == nil {
		return nil
	}
	for _, s := range c.Series {
		if s.Name != "load phase" && s.Name != "errors/s" && s.Name != "failed/s" {
			return s.Points
		}
	}
	return nil
}

// p99Of is a run's p99 over all operations per interval: from the HDR log
// (merged exactly), the CSV, or per segment.
func p99Of(run *Run) []XY {
	if len(run.Intervals) > 0 {
		skip, _ := hdrTails(run.Intervals)
		merged := map[int64]*Interval{}
		for i := range run.Intervals {
			iv := &run.Intervals[i]
			if iv.Load || iv.Failed || iv.Intended || skip[ivKey{false, ms(iv.EndS)}] {
				continue
			}
			k := int64(math.Round(iv.EndS * 1e3))
			if m, ok := merged[k]; ok {
				m.H.Merge(iv.H)
				continue
			}
			cp := *iv
			cp.H = copyHist(iv)
			merged[k] = &cp
		}
		keys := make([]int64, 0, len(merged))
		for k := range merged {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		var out []XY
		for _, k := range keys {
			out = append(out, XY{X: float64(k) / 1e3, Y: float64(merged[k].H.ValueAtQuantile(99)) / 1e3})
		}
		return out
	}
	if len(run.Rows) > 0 {
		skip, _ := rowTails(run.Rows)
		var out []XY
		for i, r := range run.Rows {
			if r.Phase != "load" && r.Ops > 0 && r.HasLatency && !skip[i] {
				out = append(out, XY{X: r.ElapsedS, Y: r.P99US})
			}
		}
		return out
	}
	return segmentSteps(run.Summary.Segments, func(g report.SegmentSummary) float64 { return usOrNaN(g.P99US) })
}

func copyHist(iv *Interval) *hdrHist {
	h := newHist(iv.H)
	h.Merge(iv.H)
	return h
}

// overlay draws one quantity of both runs on one time axis.
func overlay(id, title, ylabel string, base, run *Run, get func(*Run) []XY) *Chart {
	b, n := get(base), get(run)
	if len(b) == 0 && len(n) == 0 {
		return nil
	}
	return &Chart{ID: "compare-" + id, Title: title, XLabel: "time since each run's start (s)", XTime: true, YLabel: ylabel,
		Caption: "Dashed: the baseline; solid: the run. Vertical lines are the run's changes and marks." + compareTailNote(base, run),
		Marks:   eventMarks(&run.Summary),
		Series:  appendSeries(nil, Series{Name: "baseline", Color: colGrey, Dashed: true, Points: b}, Series{Name: "run", Color: colBlue, Points: n})}
}

// compareSegments puts both runs' segments in one table: for each
// configuration the baseline's row, then the run's with the differences.
func compareSegments(base, run *Run) *Table {
	if len(base.Summary.Segments) == 0 && len(run.Summary.Segments) == 0 {
		return nil
	}
	t := &Table{ID: "segments", Caption: "Both runs' segments, grouped by configuration; the differences are the run's against the baseline's segment of the same configuration",
		Columns: []string{"#", "from", "duration", "started by", "threads", "partitions", "target", "ops/s", "p50", "p95", "p99", "errors", "client CPU", "", "Δ ops/s", "Δ p99"}}
	type cfg struct {
		threads, parts int
		target         float64
	}
	key := func(g report.SegmentSummary) cfg { return cfg{g.Threads, g.Partitions, g.Target} }
	// Configurations in the order the run first held them, then the
	// baseline's others.
	var order []cfg
	runSegs := map[cfg][]report.SegmentSummary{}
	for _, g := range run.Summary.Segments {
		k := key(g)
		if _, ok := runSegs[k]; !ok {
			order = append(order, k)
		}
		runSegs[k] = append(runSegs[k], g)
	}
	for _, g := range base.Summary.Segments {
		if _, ok := runSegs[key(g)]; !ok {
			runSegs[key(g)] = nil
			order = append(order, key(g))
		}
	}
	for _, k := range order {
		// The baseline's longest segment of the configuration.
		bg, ok := base.Summary.SegmentLike(k.threads, k.parts, k.target)
		if ok {
			row := segmentRow(bg, nil, "baseline")
			row.Class = "baseline"
			note := ""
			if len(runSegs[k]) == 0 {
				note = "not in the run"
			}
			row.Cells = append(row.Cells, textCell(note), textCell(""))
			t.Rows = append(t.Rows, row)
		}
		for _, g := range runSegs[k] {
			row := segmentRow(g, nil, "run")
			if ok && g.DurationS >= minSweepSegmentS && bg.DurationS >= minSweepSegmentS {
				do, dp := pctChange(bg.OpsPerSec, g.OpsPerSec), pctChange(usOrNaN(bg.P99US), usOrNaN(g.P99US))
				row.Cells = append(row.Cells, numCell(fmtPct(do), "delta_ops_per_sec_pct", nanZero(do)), numCell(fmtPct(dp), "delta_p99_pct", nanZero(dp)))
			} else {
				row.Cells = append(row.Cells, textCell("—"), textCell("—"))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func nanZero(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return f
}

// compareOperations is the latency per operation of both runs.
func compareOperations(base, run *Run) *Table {
	t := &Table{ID: "operations", Caption: "Service time per operation over each run's main phase",
		Columns: []string{"operation", "run", "count", "errors", "p50", "p95", "p99", "p99.9", "max", "Δ p99"}}
	for _, o := range run.Summary.Operations {
		b := findOp(&base.Summary, o.Name)
		row := func(name string, st report.OpStats, class string, delta Cell) TRow {
			return TRow{Class: class, Cells: []Cell{textCell(o.Name), textCell(name),
				numCell(units.Count(st.Count), "count", float64(st.Count)), numCell(units.Count(st.Errors), "errors", float64(st.Errors)),
				usCell(st.P50US, "p50_us"), usCell(st.P95US, "p95_us"),
				usCell(st.P99US, "p99_us"), usCell(st.P999US, "p999_us"),
				usCell(st.MaxUS, "max_us"), delta}}
		}
		if b != nil {
			t.Rows = append(t.Rows, row("baseline", b.OpStats, "baseline", textCell("")))
			d := pctChange(usOrNaN(b.P99US), usOrNaN(o.P99US))
			t.Rows = append(t.Rows, row("run", o.OpStats, "", numCell(fmtPct(d), "delta_p99_pct", nanZero(d))))
		} else {
			t.Rows = append(t.Rows, row("run", o.OpStats, "", textCell("—")))
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}
