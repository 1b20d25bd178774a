package htmlreport

import (
	"strconv"
	"strings"

	"benchtop/results/report"
	"benchtop/rundata/units"
)

// operationsTable is the run's latency per operation type, service time
// and, with a target, intended latency.
func operationsTable(s *report.Summary) *Table {
	t := &Table{ID: "operations", Caption: "Latency per operation over the " + lastPhase(s) + " phase (service time from the actual start; intended from the scheduled start when a target was set)",
		Columns: []string{"operation", "latency", "count", "errors", "mean", "p50", "p95", "p99", "p99.9", "max"}}
	add := func(name, kind string, o report.OpStats) {
		t.Rows = append(t.Rows, TRow{Cells: []Cell{
			textCell(name), textCell(kind),
			numCell(units.Count(o.Count), "count", float64(o.Count)),
			numCell(units.Count(o.Errors), "errors", float64(o.Errors)),
			usCell(o.MeanUS, "mean_us"),
			usCell(o.P50US, "p50_us"),
			usCell(o.P95US, "p95_us"),
			usCell(o.P99US, "p99_us"),
			usCell(o.P999US, "p999_us"),
			usCell(o.MaxUS, "max_us"),
		}})
	}
	for _, o := range s.Operations {
		add(o.Name, "service", o.OpStats)
		if o.Intended != nil {
			add(o.Name, "intended", *o.Intended)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// extraKeys are the workload figures the segments carry, sorted.
func extraKeys(segs []report.SegmentSummary) []string {
	seen := map[string]bool{}
	for _, g := range segs {
		for k := range g.Extra {
			seen[k] = true
		}
	}
	return sortedKeys(seen)
}

func extraLabel(k string) string {
	name := strings.ReplaceAll(strings.TrimSuffix(k, "_per_sec"), "_", " ")
	if name == "mb" {
		name = "MB"
	}
	return name + "/s"
}

// segmentsTable is the what-if table: one row per configuration held.
func segmentsTable(s *report.Summary) *Table {
	if len(s.Segments) == 0 {
		return nil
	}
	extras := extraKeys(s.Segments)
	rate := "ops/s"
	if s.ThroughputUnit != "" {
		rate = s.ThroughputUnit
	}
	t := &Table{ID: "segments", Caption: "One row per configuration held (latency from the intended start when a target was set)",
		Columns: []string{"#", "from", "duration", "started by", "threads", "partitions", "target", rate}}
	for _, k := range extras {
		t.Columns = append(t.Columns, extraLabel(k))
	}
	t.Columns = append(t.Columns, "p50", "p95", "p99", "errors", "client CPU", "")
	for _, g := range s.Segments {
		t.Rows = append(t.Rows, segmentRow(g, extras, ""))
	}
	return t
}

func segmentRow(g report.SegmentSummary, extras []string, name string) TRow {
	target := "unlimited"
	if g.Target > 0 {
		target = fmtRate(g.Target)
	}
	idx := strconv.Itoa(g.Index)
	if name != "" {
		idx = name + " " + idx
	}
	cells := []Cell{
		numCell(idx, "index", float64(g.Index)),
		numCell(clock(g.StartS), "start_s", g.StartS),
		numCell(fmtSeconds(g.DurationS), "duration_s", g.DurationS),
		textCell(g.Label),
		numCell(strconv.Itoa(g.Threads), "threads", float64(g.Threads)),
		numCell(strconv.Itoa(g.Partitions), "partitions", float64(g.Partitions)),
		numCell(target, "target", g.Target),
		numCell(withMargin(fmtRate(g.OpsPerSec), units.Margin(g.OpsPerSec, g.OpsPerSecCILow, g.OpsPerSecCIHigh)), "ops_per_sec", g.OpsPerSec),
	}
	for _, k := range extras {
		v, ok := g.Extra[k]
		if !ok {
			cells = append(cells, textCell("—"))
			continue
		}
		txt := fmtRate(v)
		if v < 100 {
			txt = strconv.FormatFloat(v, 'f', 2, 64)
		}
		cells = append(cells, numCell(txt, k, v))
	}
	mark, class := "", ""
	switch {
	case g.Best && g.Knee:
		mark, class = "★ best, ← knee", "best"
	case g.Best:
		mark, class = "★ best", "best"
	case g.Knee:
		mark, class = "← knee", "knee"
	case g.State != "" && g.State != "qualified":
		mark = "(" + g.State + ")" // not judged by the rules: said, not skipped
	}
	cells = append(cells,
		usCell(g.P50US, "p50_us"),
		usCell(g.P95US, "p95_us"),
		p99Cell(g.P99US, g.P99USCILow, g.P99USCIHigh),
		numCell(units.Count(g.Errors), "errors", float64(g.Errors)),
		cpuCell(g.CPU),
		textCell(mark))
	return TRow{Class: class, Cells: cells}
}

func clock(sec float64) string {
	s := int(sec)
	if s >= 3600 {
		return strconv.Itoa(s/3600) + ":" + pad2(s/60%60) + ":" + pad2(s%60)
	}
	return pad2(s/60) + ":" + pad2(s%60)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// eventsTable lists every change and mark with its time.
func eventsTable(s *report.Summary) *Table {
	if len(s.Events) == 0 {
		return nil
	}
	t := &Table{ID: "events", Caption: "Changes and marks, timed from the start of the run", Columns: []string{"at", "kind", "what"}}
	for _, e := range s.Events {
		t.Rows = append(t.Rows, TRow{Cells: []Cell{numCell(clockMS(e.AtS), "at_s", e.AtS), textCell(e.Kind), textCell(e.Text)}})
	}
	return t
}

func clockMS(sec float64) string {
	return clock(sec) + "." + strconv.Itoa(int(sec*10)%10)
}

// propertiesTable lists the effective properties (secrets masked).
func propertiesTable(s *report.Summary) *Table {
	if len(s.Properties) == 0 {
		return nil
	}
	t := &Table{ID: "properties", Caption: "Effective properties (secrets masked)", Columns: []string{"property", "value"}}
	for _, k := range sortedKeys(s.Properties) {
		t.Rows = append(t.Rows, TRow{Cells: []Cell{textCell(k), textCell(s.Properties[k])}})
	}
	return t
}

// cpuCell is a segment's mean client CPU, "n/a" when it was not measured.
func cpuCell(cpu *float64) Cell {
	if cpu == nil {
		return textCell("n/a")
	}
	return numCell(strconv.FormatFloat(*cpu, 'f', 0, 64)+" %", "cpu_percent", *cpu)
}

// withMargin is a figure's text with its 95 % confidence interval's
// margin after it ("153 ±4.6%"), the figure alone when none is known.
func withMargin(text, margin string) string {
	if margin == "" {
		return text
	}
	return text + " " + margin
}

// p99Cell is a segment's p99 with its interval's margin.
func p99Cell(us, lo, hi *float64) Cell {
	c := usCell(us, "p99_us")
	if us != nil && lo != nil && hi != nil {
		c.Text = withMargin(c.Text, units.Margin(*us, *lo, *hi))
	}
	return c
}
