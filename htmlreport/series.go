package htmlreport

import (
	"math"
	"sort"
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/htmlreport/page"
	"benchtop/results/report"
)

// Palette indexes (see charts.go).
const (
	colBlue       = page.ColBlue
	colVermillion = page.ColVermillion
	colGreen      = page.ColGreen
	colOrange     = page.ColOrange
	colPurple     = page.ColPurple
	colSky        = page.ColSky
	colGrey       = page.ColGrey
)

// eventMarks are the run's changes and marks, for the time axes.
func eventMarks(s *report.Summary) []Mark {
	var out []Mark
	for _, e := range s.Events {
		out = append(out, Mark{At: e.AtS, Label: e.Text})
	}
	return out
}

// throughputChart is ops/s over time, from the CSV when given, else from
// the HDR log's interval counts, else per segment from the JSON.
func throughputChart(run *Run, notes *[]string) *Chart {
	c := &Chart{ID: "throughput", Title: "Throughput over time", XLabel: "time since start (s)", XTime: true, YLabel: "operations/s", Marks: eventMarks(&run.Summary)}
	switch {
	case len(run.Rows) > 0:
		c.Caption = "Successful operations per second in each interval (CSV time series), failed ones apart; vertical lines are the changes and marks."
		skip, tails := rowTails(run.Rows)
		c.Caption += tailNote(tails)
		var load, main, errs []XY
		anyErr := false
		for i, r := range run.Rows {
			if skip[i] {
				continue
			}
			p := XY{X: r.ElapsedS, Y: r.OpsPerSec}
			if r.Phase == "load" {
				load = append(load, p)
			} else {
				main = append(main, p)
			}
			if r.IntervalS > 0 {
				errs = append(errs, XY{X: r.ElapsedS, Y: float64(r.Errors) / r.IntervalS})
			}
			anyErr = anyErr || r.Errors > 0
		}
		c.Series = appendSeries(c.Series, Series{Name: "load phase", Color: colGrey, Points: load}, Series{Name: "ops/s", Color: colBlue, Points: main})
		if anyErr {
			c.Series = append(c.Series, Series{Name: "failed/s", Color: colVermillion, Points: errs})
		}
	case len(run.Intervals) > 0:
		c.Caption = "Successful operations per second in each interval, failed ones apart, counted from the HDR log's histograms; vertical lines are the changes and marks."
		skip, tails := hdrTails(run.Intervals)
		c.Caption += tailNote(tails)
		var load, main, errs []XY
		for _, r := range intervalRates(run) {
			if skip[ivKey{r.load, ms(r.endS)}] {
				continue
			}
			p := XY{X: r.endS, Y: r.rate}
			if r.load {
				load = append(load, p)
			} else {
				main = append(main, p)
			}
			if r.failRate > 0 {
				errs = append(errs, XY{X: p.X, Y: r.failRate})
			}
		}
		c.Series = appendSeries(c.Series, Series{Name: "load phase", Color: colGrey, Points: load}, Series{Name: "ops/s", Color: colBlue, Points: main})
		if len(errs) > 0 {
			c.Series = append(c.Series, Series{Name: "failed/s", Color: colVermillion, Points: errs})
		}
	case len(run.Summary.Segments) > 0:
		c.Caption = "Successful operations per second of each segment (the JSON summary holds no per-interval figures: give --timeseries or --hdr-log for them)."
		c.Series = []Series{{Name: "ops/s per segment", Color: colBlue, Points: segmentSteps(run.Summary.Segments, func(g report.SegmentSummary) float64 { return g.OpsPerSec })}}
		*notes = append(*notes, "Throughput over time is drawn per segment: no CSV time series or HDR log was given.")
	default:
		return nil
	}
	return c
}

// intervalRate is the successful ops/s (and failed ops/s) of one
// interval of the HDR log, timed in seconds from the run's start.
type intervalRate struct {
	load           bool
	startS, endS   float64
	rate, failRate float64
}

// intervalRates counts the HDR log's histograms per interval, in time
// order.
func intervalRates(run *Run) []intervalRate {
	type key struct {
		load       bool
		start, end int64
	}
	counts := map[key]int64{}
	fails := map[key]int64{}
	for _, iv := range run.Intervals {
		if iv.Intended {
			continue
		}
		k := key{iv.Load, int64(math.Round(iv.StartS * 1e3)), int64(math.Round(iv.EndS * 1e3))}
		counts[k] += iv.H.TotalCount()
		if iv.Failed {
			fails[k] += iv.H.TotalCount()
		}
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].end < keys[j].end })
	var out []intervalRate
	for _, k := range keys {
		d := float64(k.end-k.start) / 1e3
		if d <= 0 {
			continue
		}
		out = append(out, intervalRate{load: k.load, startS: float64(k.start) / 1e3, endS: float64(k.end) / 1e3,
			rate: float64(counts[k]-fails[k]) / d, failRate: float64(fails[k]) / d})
	}
	return out
}

// segmentSteps draws one flat step per segment.
func segmentSteps(segs []report.SegmentSummary, y func(report.SegmentSummary) float64) []XY {
	var out []XY
	for _, g := range segs {
		out = append(out, XY{X: g.StartS, Y: y(g)}, XY{X: g.StartS + g.DurationS, Y: y(g)})
	}
	return out
}

func appendSeries(dst []Series, ss ...Series) []Series {
	for _, s := range ss {
		if len(s.Points) > 0 {
			dst = append(dst, s)
		}
	}
	return dst
}

func maxY(ss []Series) float64 {
	m := 0.0
	for _, s := range ss {
		for _, p := range s.Points {
			m = max(m, p.Y)
		}
	}
	return m
}

// opOrder is the order in which operations appear: the JSON's.
func opOrder(run *Run) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range run.Summary.Operations {
		if !seen[o.Name] {
			seen[o.Name] = true
			out = append(out, o.Name)
		}
	}
	for _, iv := range run.Intervals {
		if !iv.Load && !seen[iv.Op] {
			seen[iv.Op] = true
			out = append(out, iv.Op)
		}
	}
	return out
}

// latencyCharts are p50/p95/p99 over time, one chart per operation from
// the HDR log (service time solid, intended dashed), or one for all
// operations from the CSV.
func latencyCharts(run *Run, notes *[]string) []*Chart {
	marks := eventMarks(&run.Summary)
	qs := []struct {
		q     float64
		name  string
		color int
	}{{50, "p50", colGreen}, {95, "p95", colOrange}, {99, "p99", colVermillion}}
	if len(run.Intervals) > 0 {
		skip, tails := hdrTails(run.Intervals)
		var out []*Chart
		for _, op := range opOrder(run) {
			c := &Chart{ID: "latency-" + op, Title: op + " latency over time", XLabel: "time since start (s)", XTime: true, Marks: marks,
				Caption: "Percentiles of each interval from the HDR log; solid: service time, dashed: intended latency (from the scheduled start)." + tailNote(notLoad(tails))}
			for _, intended := range []bool{false, true} {
				for _, q := range qs {
					s := Series{Name: q.name, Color: q.color, Dashed: intended}
					if intended {
						s.Name = "intended " + q.name
					}
					for _, iv := range run.Intervals {
						if iv.Load || iv.Failed || iv.Op != op || iv.Intended != intended || iv.H.TotalCount() == 0 || skip[ivKey{false, ms(iv.EndS)}] {
							continue
						}
						s.Points = append(s.Points, XY{X: iv.EndS, Y: float64(iv.H.ValueAtQuantile(q.q)) / 1e3})
					}
					c.Series = appendSeries(c.Series, s)
				}
			}
			if len(c.Series) == 0 {
				continue
			}
			c.YLabel, c.YUS = "latency", true
			logLatency(c)
			out = append(out, c)
		}
		return out
	}
	if len(run.Rows) > 0 {
		skip, tails := rowTails(run.Rows)
		c := &Chart{ID: "latency-all", Title: "Latency over time, all operations", XLabel: "time since start (s)", XTime: true, Marks: marks,
			Caption: "Percentiles of each interval over all operation types (CSV time series; give --hdr-log for one chart per operation)." + tailNote(notLoad(tails))}
		get := []func(Row) float64{func(r Row) float64 { return r.P50US }, func(r Row) float64 { return r.P95US }, func(r Row) float64 { return r.P99US }}
		for i, q := range qs {
			s := Series{Name: q.name, Color: q.color}
			for j, r := range run.Rows {
				if r.Phase != "load" && r.Ops > 0 && r.HasLatency && !skip[j] {
					s.Points = append(s.Points, XY{X: r.ElapsedS, Y: get[i](r)})
				}
			}
			c.Series = appendSeries(c.Series, s)
		}
		c.YLabel, c.YUS = "latency", true
		logLatency(c)
		*notes = append(*notes, "Latency over time is for all operations together: no HDR log was given.")
		return []*Chart{c}
	}
	*notes = append(*notes, "No latency over time: give --hdr-log (or --timeseries) with the JSON summary.")
	return nil
}

// logLatency draws a latency chart on a log axis where its values span
// more than a factor of 100: a tail or a spike a hundred times the body
// would flatten the body on a linear one.
func logLatency(c *Chart) {
	if lo := minPositiveY(c.Series); lo > 0 && maxY(c.Series) > 100*lo {
		c.LogY = true
		c.YLabel += " (log scale)"
	}
}

// spectrumCharts are HdrHistogram's percentile distribution per
// operation: latency against 1/(1-q) on a log axis, raw and intended.
func spectrumCharts(run *Run, notes *[]string) []*Chart {
	var out []*Chart
	if len(run.Intervals) > 0 {
		for _, op := range opOrder(run) {
			c := &Chart{ID: "spectrum-" + op, Title: op + " latency by percentile", XLabel: "percentile", XQuantile: true,
				Caption: "The whole " + lastPhase(&run.Summary) + " phase, merged from the HDR log's intervals; solid: service time, dashed: intended latency."}
			for _, intended := range []bool{false, true} {
				h, dropped := mergeOp(run.Intervals, op, intended)
				if h == nil {
					continue
				}
				if dropped > 0 {
					*notes = append(*notes, op+": "+strconv.FormatInt(dropped, 10)+" values did not fit the merged histogram.")
				}
				s := Series{Name: "service time", Color: colBlue}
				if intended {
					s = Series{Name: "intended", Color: colVermillion, Dashed: true}
				}
				for _, b := range h.CumulativeDistributionWithTicks(5) {
					if b.Quantile >= 100 {
						continue
					}
					s.Points = append(s.Points, XY{X: 1 / (1 - b.Quantile/100), Y: float64(b.ValueAt) / 1e3})
				}
				c.Series = appendSeries(c.Series, s)
			}
			if len(c.Series) == 0 {
				continue
			}
			c.YLabel, c.YUS = "latency", true
			logLatency(c)
			out = append(out, c)
		}
		return out
	}
	// The JSON alone: its percentiles as points.
	for _, o := range run.Summary.Operations {
		c := &Chart{ID: "spectrum-" + o.Name, Title: o.Name + " latency by percentile", XLabel: "percentile", XQuantile: true, Points: true,
			Caption: "The JSON summary's percentiles only (give --hdr-log for the full distribution)."}
		pts := func(st report.OpStats) []XY {
			if st.P99US == nil {
				return nil // nothing succeeded: no latency to plot
			}
			return []XY{{X: 1 / (1 - 0.50), Y: report.Micros(st.P50US)}, {X: 1 / (1 - 0.95), Y: report.Micros(st.P95US)}, {X: 1 / (1 - 0.99), Y: report.Micros(st.P99US)}, {X: 1 / (1 - 0.999), Y: report.Micros(st.P999US)}}
		}
		c.Series = append(c.Series, Series{Name: "service time", Color: colBlue, Points: pts(o.OpStats)})
		if o.Intended != nil {
			c.Series = append(c.Series, Series{Name: "intended", Color: colVermillion, Dashed: true, Points: pts(*o.Intended)})
		}
		c.YLabel, c.YUS = "latency", true
		out = append(out, c)
	}
	if len(out) > 0 {
		*notes = append(*notes, "The percentile spectrum shows the JSON's four percentiles: no HDR log was given.")
	}
	return out
}

// mergeOp merges the main phase's histograms of one operation, OK ones.
func mergeOp(ivls []Interval, op string, intended bool) (*hdr.Histogram, int64) {
	var h *hdr.Histogram
	var dropped int64
	for _, iv := range ivls {
		if iv.Load || iv.Failed || iv.Op != op || iv.Intended != intended {
			continue
		}
		if h == nil {
			h = newHist(iv.H)
		}
		dropped += h.Merge(iv.H)
	}
	if h == nil || h.TotalCount() == 0 {
		return nil, 0
	}
	return h, dropped
}

// hostCharts are the client's CPU and network over time, from the CSV.
func hostCharts(run *Run, notes *[]string) (cpu, nic *Chart) {
	if len(run.Rows) == 0 {
		*notes = append(*notes, "No client CPU and network over time: give --timeseries with the JSON summary.")
		return nil, nil
	}
	marks := eventMarks(&run.Summary)
	cores := 0
	if run.Summary.Machine() != nil {
		cores = run.Summary.Machine().Cores
	}
	skip, tails := rowTails(run.Rows)
	cpu = &Chart{ID: "cpu", Title: "Client CPU over time", XLabel: "time since start (s)", XTime: true, YLabel: "% of all cores", Marks: marks,
		Levels:  []Mark{{At: 90, Label: "90 %"}},
		Caption: "Busy share of all the client's cores, and this benchmark process's share of them." + tailNote(tails)}
	var all, proc []XY
	for i, r := range run.Rows {
		if skip[i] {
			continue
		}
		all = append(all, XY{X: r.ElapsedS, Y: r.CPU})
		if cores > 0 {
			proc = append(proc, XY{X: r.ElapsedS, Y: procShare(r, cores)})
		}
	}
	cpu.Series = appendSeries(nil, Series{Name: "all processes", Color: colBlue, Points: all}, Series{Name: "benchtop", Color: colOrange, Points: proc})

	nic = &Chart{ID: "nic", Title: "Client network over time", XLabel: "time since start (s)", XTime: true, YLabel: "MB/s", Marks: marks,
		Caption: "Bytes per second over the interfaces other than loopback." + tailNote(tails)}
	var rx, tx []XY
	for i, r := range run.Rows {
		if skip[i] {
			continue
		}
		rx = append(rx, XY{X: r.ElapsedS, Y: r.RxBps / 1e6})
		tx = append(tx, XY{X: r.ElapsedS, Y: r.TxBps / 1e6})
	}
	nic.Series = appendSeries(nil, Series{Name: "received", Color: colGreen, Points: rx}, Series{Name: "sent", Color: colPurple, Points: tx})
	if link := linkMBps(&run.Summary); link > 0 {
		nic.Levels = []Mark{{At: link, Label: "link speed"}}
	}
	return cpu, nic
}

// linkMBps is the sum of the known link speeds in MB/s, 0 when unknown.
func linkMBps(s *report.Summary) float64 {
	if s.Machine() == nil {
		return 0
	}
	t := 0.0
	for _, n := range s.Machine().NICs {
		if n.SpeedMbps <= 0 {
			return 0
		}
		t += float64(n.SpeedMbps) / 8
	}
	return t
}

type hdrHist = hdr.Histogram

// newHist is an empty histogram with like's settings.
func newHist(like *hdr.Histogram) *hdr.Histogram {
	return hdr.New(like.LowestTrackableValue(), like.HighestTrackableValue(), int(like.SignificantFigures()))
}

func minPositiveY(ss []Series) float64 {
	m := math.Inf(1)
	for _, s := range ss {
		for _, p := range s.Points {
			if p.Y > 0 {
				m = min(m, p.Y)
			}
		}
	}
	if math.IsInf(m, 1) {
		return 0
	}
	return m
}

// procShare is benchtop's CPU in percent of all cores. The host sampler's
// first reading of the process can be far off (thousands of percent over
// a process lifetime of a few milliseconds): a share above all the cores
// is impossible, so it is clamped.
func procShare(r Row, cores int) float64 {
	return min(max(r.ProcCPU/float64(cores), 0), 100)
}
