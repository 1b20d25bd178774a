package htmlreport

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"benchtop/htmlreport/page"
	"benchtop/results/report"
	"benchtop/rundata/units"
)

// Report is the data model of the page: everything it shows, with the
// figures of its tables and the points of its charts. Build and Compare
// make it; Render draws it.
type Report struct {
	Title    string
	Subtitle string
	Compare  bool
	// RunNames label the columns of the header (one per run).
	RunNames []string
	Header   []Fact
	Headline []Figure
	// Thresholds are the --threshold verdicts (thresholds.go; nil: none).
	Thresholds *ThresholdSection `json:",omitempty"`
	// Notes say what the exports lacked and what the page shows instead.
	Notes []string
	// Limits is "What limited this run".
	Limits []Finding
	Advice []string
	// Capacity is a --find-max search (nil: none).
	Capacity   *CapacitySection `json:",omitempty"`
	Throughput *Chart
	Latency    []*Chart
	Spectrum   []*Chart
	CPU        *Chart
	NIC        *Chart
	Operations *Table
	Segments   *Table
	Agents     *Table
	Sweep      []*Chart
	// Sections are the workloads' own (the stream's, the time series'),
	// each with its facts, table and charts.
	Sections   []*page.Section
	Events     *Table
	Properties *Table
	Problems   []string
}

// Build makes the report of one run.
func Build(run *Run) *Report {
	s := &run.Summary
	r := &Report{
		Title:    "benchtop report: " + titleOf(s),
		Subtitle: subtitleOf(s),
		RunNames: []string{"run"},
	}
	r.Header = header([]*Run{run})
	r.Headline = headline(run)
	r.Thresholds = thresholdSection(run)
	if run.Capacity != nil {
		r.Headline = append([]Figure{capacityFigure(run.Capacity)}, r.Headline...)
		r.Capacity = capacitySection(run)
	}
	r.Operations = operationsTable(s)
	r.Segments = segmentsTable(s)
	r.Agents = agentsTable(run)
	r.Events = eventsTable(s)
	r.Properties = propertiesTable(s)
	r.Throughput = throughputChart(run, &r.Notes)
	r.Latency = latencyCharts(run, &r.Notes)
	r.Spectrum = spectrumCharts(run, &r.Notes)
	r.CPU, r.NIC = hostCharts(run, &r.Notes)
	r.Sweep = sweepCharts(s)
	r.Sections = run.Sections
	r.Problems = run.Problems
	r.Limits, r.Advice = limits(run)
	return r
}

func titleOf(s *report.Summary) string {
	t := s.Workload
	if t == "" {
		t = s.Command
	}
	if s.Database != "" {
		t += " on " + s.Database
	}
	return t
}

func subtitleOf(s *report.Summary) string {
	parts := []string{}
	if !s.Start.IsZero() {
		parts = append(parts, s.Start.UTC().Format("2006-01-02 15:04 UTC"))
	}
	parts = append(parts, fmtSeconds(float64(s.RuntimeMS)/1e3))
	if s.Mix != "" {
		parts = append(parts, s.Mix)
	}
	return strings.Join(parts, " · ")
}

// header is the metadata block, one value per run.
func header(runs []*Run) []Fact {
	rows := []struct {
		label string
		get   func(s *report.Summary) string
	}{
		{"Command line", func(s *report.Summary) string {
			if s.Run != nil && s.Run.CommandLine != "" {
				return s.Run.CommandLine
			}
			return "benchtop " + s.Command + " " + s.Database
		}},
		{"Adapter", func(s *report.Summary) string { return s.Database }},
		{"Target", func(s *report.Summary) string { return orDash(s.Description) }},
		{"Target rate", func(s *report.Summary) string { return targetRate(s.Target) }},
		{"Workload", func(s *report.Summary) string { return s.Workload }},
		{"Mix", func(s *report.Summary) string { return orDash(s.Mix) }},
		{"Start", func(s *report.Summary) string {
			if s.Start.IsZero() {
				return "—"
			}
			return s.Start.UTC().Format("2006-01-02 15:04:05 UTC")
		}},
		{"Duration", durationText},
		{"Host", func(s *report.Summary) string {
			if s.Machine() == nil {
				return "—"
			}
			return strings.TrimSpace(s.Machine().Hostname + " (" + s.Machine().OS + "/" + s.Machine().Arch + ")")
		}},
		{"CPU", func(s *report.Summary) string {
			if s.Machine() == nil {
				return "—"
			}
			m := s.Machine().CPUModel
			if m == "" {
				m = "unknown model"
			}
			return m + ", " + strconv.Itoa(s.Machine().Cores) + " logical cores"
		}},
		{"Network", func(s *report.Summary) string {
			if s.Machine() == nil || len(s.Machine().NICs) == 0 {
				return "no interface besides loopback"
			}
			var out []string
			for _, n := range s.Machine().NICs {
				sp := "link speed unknown"
				if n.SpeedMbps > 0 {
					sp = linkText(n.SpeedMbps)
				}
				out = append(out, n.Name+" ("+sp+")")
			}
			return strings.Join(out, ", ")
		}},
		{"Clients", nil}, // clientsText: from the run's agents
		{"Version", func(s *report.Summary) string {
			if s.Run == nil {
				return "—"
			}
			return s.Run.Version.String()
		}},
	}
	var out []Fact
	for _, row := range rows {
		f := Fact{Label: row.label}
		for _, run := range runs {
			if row.get == nil {
				f.Values = append(f.Values, clientsText(run))
				continue
			}
			f.Values = append(f.Values, row.get(&run.Summary))
		}
		out = append(out, f)
	}
	return out
}

func durationText(s *report.Summary) string {
	var parts []string
	for _, p := range s.Phases {
		parts = append(parts, p.Phase+" "+fmtSeconds(float64(p.RuntimeMS)/1e3))
	}
	t := strings.Join(parts, ", ")
	if s.Interrupted {
		t += " (interrupted)"
	}
	return orDash(t)
}

func linkText(mbps int) string {
	if mbps >= 1000 && mbps%1000 == 0 {
		return strconv.Itoa(mbps/1000) + " Gbit/s"
	}
	return strconv.Itoa(mbps) + " Mbit/s"
}

func orDash(s string) string { return page.OrDash(s) }

// headline is the row of big figures.
func headline(run *Run) []Figure {
	s := &run.Summary
	out := []Figure{{Label: "throughput", Value: fmtRate(s.Throughput) + " ops/s", Note: "successful operations over the " + lastPhase(s) + " phase"}}
	if u := s.ThroughputUnit; u != "" {
		out[0].Value, out[0].Note = fmtRate(s.Throughput)+" "+u, "the workload's one rate over the "+lastPhase(s)+" phase"
	}
	if s.FailedRate > 0 {
		out = append(out, Figure{Label: "failed", Value: fmtRate(s.FailedRate) + " ops/s", Note: "failed operations, not in throughput"})
	}
	var ops, errs int64
	for _, o := range s.Operations {
		ops += o.Count
		errs += o.Errors
	}
	out = append(out, Figure{Label: "operations", Value: units.Count(ops)})
	note := "none"
	if errs > 0 {
		note = strconv.FormatFloat(100*float64(errs)/float64(max(ops, 1)), 'f', 3, 64) + " % of operations"
	}
	out = append(out, Figure{Label: "errors", Value: units.Count(errs), Note: note})
	for _, o := range s.Operations {
		st := o.OpStats
		label := "p99 " + o.Name
		if o.Intended != nil {
			st, label = *o.Intended, "p99 "+o.Name+" (intended)"
		}
		out = append(out, Figure{Label: label, Value: fmtUSp(st.P99US)})
	}
	for _, sec := range run.Sections {
		out = append(out, sec.Headline...)
	}
	return out
}

func lastPhase(s *report.Summary) string {
	if n := len(s.Phases); n > 0 {
		return s.Phases[n-1].Phase
	}
	return s.Command
}

// Formatting: figures as a reader wants them, values as the JSON has them.

func fmtRate(v float64) string { return page.Rate(v) }

func fmtUS(us float64) string { return page.US(us) }

// fmtUSp renders a latency of the JSON summary: "–" when there is none
// (nothing succeeded), never 0.
func fmtUSp(us *float64) string {
	if us == nil {
		return report.NoLatency
	}
	return fmtUS(*us)
}

// usCell is a latency cell: "–" with no value when there is none.
func usCell(us *float64, key string) Cell {
	if us == nil {
		return Cell{Text: report.NoLatency, Key: key, Num: true}
	}
	return numCell(fmtUS(*us), key, *us)
}

// usOrNaN is a latency for arithmetic: NaN when there is none, so that a
// change against it is no number ("—") rather than a change against 0.
func usOrNaN(us *float64) float64 {
	if us == nil {
		return math.NaN()
	}
	return *us
}

func fmtSeconds(s float64) string { return page.Seconds(s) }

func numCell(text, key string, v float64) Cell { return page.NumCell(text, key, v) }

func textCell(t string) Cell { return page.TextCell(t) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// targetRate renders the run's starting target rate.
func targetRate(t float64) string {
	if t <= 0 {
		return "unlimited"
	}
	return units.Count(int64(t+0.5)) + " ops/s"
}
