package htmlreport

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"benchtop/results/thresholds"
	"benchtop/rundata"
	"benchtop/rundata/units"
)

// CapacitySection is a --find-max search on the page: its answer and
// whether it can be trusted, its facts, the probe staircase and each
// probe's latency, and the probes' table.
type CapacitySection struct {
	Answer  string
	Status  string // trusted, untrusted, none (rundata.Capacity.Status)
	Reasons []string
	Facts   []Fact
	Charts  []*Chart
	Probes  *Table
}

// capacitySection is run's search (nil without one).
func capacitySection(run *Run) *CapacitySection {
	c := run.Capacity
	if c == nil {
		return nil
	}
	sec := &CapacitySection{Answer: c.Answer, Status: c.Status()}
	for _, r := range c.Reasons {
		sec.Reasons = append(sec.Reasons, r.Text)
	}
	bracket := "none"
	if b := c.Bracket; b.LoOpsSec != nil && b.HiOpsSec != nil && b.Width != nil {
		bracket = fmt.Sprintf("%s to %s ops/s (%.1f %% wide)", fmtRate(*b.LoOpsSec), fmtRate(*b.HiOpsSec), 100**b.Width)
	}
	sec.Facts = []Fact{
		{Label: "Conditions", Values: []string{strings.Join(c.Conditions, ", ")}},
		{Label: "Bracket", Values: []string{bracket}},
		{Label: "Precision asked", Values: []string{strconv.FormatFloat(100*c.Precision, 'g', 3, 64) + " %"}},
		{Label: "Upper bound (unlimited)", Values: []string{fmtRate(c.UpperOpsSec) + " ops/s"}},
		{Label: "Floor", Values: []string{fmtRate(c.FloorOpsSec) + " ops/s"}},
		{Label: "Probes / time", Values: []string{fmt.Sprintf("%d in %s of a %s budget", len(c.Probes), fmtSeconds(c.ElapsedS), fmtSeconds(c.BudgetS))}},
	}
	for _, t := range c.PerThreads {
		sec.Facts = append(sec.Facts, Fact{Label: fmt.Sprintf("Threads %d", t.Threads), Values: []string{t.Answer}})
	}
	sec.Charts = []*Chart{staircaseChart(c), probeLatencyChart(c)}
	sec.Probes = probesTable(c)
	return sec
}

// staircaseChart is the targets the search held over time, the goodput
// each reached, and its verdicts.
func staircaseChart(c *rundata.Capacity) *Chart {
	ch := &Chart{ID: "capacity-staircase", Title: "Probe staircase", XLabel: "time (s)", YLabel: "ops/s",
		Caption: "Each probe's target held over time (an unlimited probe at the rate it reached), the goodput of its steady part, and its verdict; the answer is the highest target that passed."}
	target := Series{Name: "target", Color: colBlue}
	good := Series{Name: "goodput", Color: colGreen, Dashed: true}
	pass := Series{Name: "passed", Color: colGreen, Scatter: true}
	fail := Series{Name: "failed", Color: colVermillion, Scatter: true}
	for _, p := range c.Probes {
		y := p.TargetOpsSec
		if y <= 0 {
			y = p.GoodputOpsSec
		}
		target.Points = append(target.Points, XY{X: p.StartS, Y: y}, XY{X: p.EndS, Y: y})
		if p.SteadyS > 0 {
			good.Points = append(good.Points, XY{X: p.EndS - p.SteadyS, Y: p.GoodputOpsSec}, XY{X: p.EndS, Y: p.GoodputOpsSec})
		}
		mid := XY{X: (p.StartS + p.EndS) / 2, Y: y}
		switch p.Outcome {
		case rundata.ProbePass:
			pass.Points = append(pass.Points, mid)
		case rundata.ProbeFail:
			fail.Points = append(fail.Points, mid)
		}
	}
	ch.Series = []Series{target, good, pass, fail}
	if c.RateOpsSec != nil {
		ch.Levels = []Mark{{At: *c.RateOpsSec, Label: "sustainable " + fmtRate(*c.RateOpsSec)}}
	}
	return ch
}

// probeLatencyChart is each latency condition's figure against each
// judged probe's rate, with the bound: where the line crosses the bound
// is the answer.
func probeLatencyChart(c *rundata.Capacity) *Chart {
	ch := &Chart{ID: "capacity-latency", Title: "Latency of each probe", XLabel: "rate (ops/s)", YLabel: "latency", YUS: true, LogY: true,
		Caption: "Each latency condition's figure per probe (from the intended start when a rate was set), against the rate held; the dashed lines are the bounds."}
	byExpr := map[string]*Series{}
	var order []string
	for _, p := range c.Probes {
		if p.Outcome != rundata.ProbePass && p.Outcome != rundata.ProbeFail {
			continue
		}
		x := p.TargetOpsSec
		if x <= 0 {
			x = p.GoodputOpsSec
		}
		for _, cd := range p.Conditions {
			if cd.Unit != "us" || cd.Actual == nil {
				continue
			}
			s := byExpr[cd.Expr]
			if s == nil {
				s = &Series{Name: cd.Expr, Color: len(order), Scatter: true}
				byExpr[cd.Expr] = s
				order = append(order, cd.Expr)
			}
			s.Points = append(s.Points, XY{X: x, Y: *cd.Actual})
		}
	}
	if len(order) == 0 {
		return nil
	}
	for _, e := range order {
		s := byExpr[e]
		sortXY(s.Points)
		ch.Series = append(ch.Series, *s)
	}
	for _, p := range c.Probes {
		for _, cd := range p.Conditions {
			if b, ok := boundUS(cd.Expr); ok && cd.Unit == "us" && !hasLevel(ch.Levels, b) {
				ch.Levels = append(ch.Levels, Mark{At: b, Label: "bound " + fmtUS(b)})
			}
		}
	}
	sort.Slice(ch.Levels, func(i, j int) bool { return ch.Levels[i].At < ch.Levels[j].At })
	return ch
}

// boundUS is a latency condition's bound in µs.
func boundUS(expr string) (float64, bool) {
	t, err := thresholds.Parse(expr)
	if err != nil || t.Metric != "latency" {
		return 0, false
	}
	return t.Value / 1e3, true
}

func hasLevel(ls []Mark, at float64) bool {
	for _, l := range ls {
		if l.At == at {
			return true
		}
	}
	return false
}

// probesTable is one row per probe: its target, what it reached, its
// verdict and the condition that decided it, each condition's figure.
func probesTable(c *rundata.Capacity) *Table {
	t := &Table{ID: "capacity-probes", Caption: "Each probe of the search, in order: its steady part's goodput and each condition's figure (latency from the intended start when a rate was set)",
		Columns: []string{"#", "threads", "target", "goodput", "steady", "verdict", "decided by"}}
	t.Columns = append(t.Columns, c.Conditions...)
	t.Columns = append(t.Columns, "client CPU")
	for _, p := range c.Probes {
		class := ""
		if c.RateOpsSec != nil && p.TargetOpsSec == *c.RateOpsSec && p.Outcome == rundata.ProbePass {
			class = "best"
		}
		row := TRow{Class: class, Cells: []Cell{
			numCell(strconv.Itoa(p.N), "n", float64(p.N)),
			numCell(strconv.Itoa(p.Threads), "threads", float64(p.Threads)),
			numCell(rundata.TargetText(p.TargetOpsSec), "target_ops_sec", p.TargetOpsSec),
			numCell(withMargin(fmtRate(p.GoodputOpsSec), units.Margin(p.OpsPerSec, p.OpsPerSecCILow, p.OpsPerSecCIHigh)), "goodput_ops_sec", p.GoodputOpsSec),
			numCell(fmtSeconds(p.SteadyS), "steady_s", p.SteadyS),
			textCell(p.Outcome), textCell(p.Decided),
		}}
		for _, e := range c.Conditions {
			cell := textCell("—")
			for _, cd := range p.Conditions {
				if cd.Expr == e && cd.Actual != nil {
					cell = numCell(cd.Text, "conditions."+e, *cd.Actual)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		cpu := textCell("—")
		if p.ClientCPU != nil {
			text := strconv.FormatFloat(*p.ClientCPU, 'f', 0, 64) + " %"
			if p.ClientSaturated {
				text += " (saturated)"
			}
			cpu = numCell(text, "client_cpu_percent", *p.ClientCPU)
		}
		row.Cells = append(row.Cells, cpu)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// capacityFigure is the headline's figure of a search.
func capacityFigure(c *rundata.Capacity) Figure {
	f := Figure{Label: "sustainable (find-max)", Value: "none"}
	if c.RateOpsSec != nil {
		f.Value = fmtRate(*c.RateOpsSec) + " ops/s"
	}
	switch c.Status() {
	case rundata.CapacityTrusted:
		f.Note = "trusted, under " + strings.Join(c.Conditions, ", ")
	case rundata.CapacityNone:
		f.Note = "no rate down to the floor meets " + strings.Join(c.Conditions, ", ")
	default:
		f.Note = "not trusted: see the capacity search"
	}
	return f
}

// capacity is a search's finding and advice in "What limited this run":
// its answer, and the rate to plan below when it can be trusted.
func (l *limitFindings) capacity(c *rundata.Capacity) {
	l.find("knee", "Capacity search ("+strings.Join(c.Conditions, ", ")+"): "+c.Answer+".")
	switch c.Status() {
	case rundata.CapacityTrusted:
		l.advise(fmt.Sprintf("Plan capacity below the search's answer: %s ops/s held %s on this setup.", fmtRate(*c.RateOpsSec), strings.Join(c.Conditions, ", ")))
	case rundata.CapacityUntrusted:
		var why []string
		for _, r := range c.Reasons {
			why = append(why, r.Text)
		}
		if len(why) == 0 {
			why = append(why, "no answer was found in the time given")
		}
		l.advise("The capacity search's answer cannot be trusted: " + strings.Join(why, "; ") + ".")
	}
}
