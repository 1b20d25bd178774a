package htmlreport

import (
	"sort"

	"benchtop/htmlreport/page"
	"benchtop/results/report"
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
		ops.Points = append(ops.Points, XY{X: x, Y: g.OpsPerSec})
		if g.P99US != nil {
			lat.Points = append(lat.Points, XY{X: x, Y: *g.P99US})
		}
		for k, e := range extras {
			e.Points = append(e.Points, XY{X: x, Y: g.Extra[k]})
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

func sortXY(p []XY) { page.SortXY(p) }
