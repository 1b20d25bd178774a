// Package search draws a capacity search's panel (--find-max): the
// conditions, the bracket so far, the probe in progress with its evidence
// against what it needs, each probe's verdict and the condition that
// decided it, and at the end the answer and whether it can be trusted.
// Line is the same search in one status line for the main view.
package search

import (
	"fmt"
	"strconv"
	"strings"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/format"
)

// Model is the search panel.
type Model struct {
	ctx  *common.Context
	w, h int
	view string
}

var _ common.Renderer[*rundata.SearchView] = (*Model)(nil)

// New returns a search panel drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Height is the outer height the panel wants for v: its status line, a
// header, one row per probe and, once done, the answer and its reasons.
func Height(v *rundata.SearchView, bordered bool) int {
	if v == nil {
		return 0
	}
	frame := 1
	if bordered {
		frame = 2
	}
	n := 2 + len(v.Probes)
	if v.Current != nil {
		n++
	}
	if v.Done {
		n += 1 + len(v.Reasons)
	}
	return frame + n
}

// column widths: #, threads, target, goodput, verdict; the decision
// takes the rest.
var widths = []int{3, 5, 11, 10, 11}

// Render draws v; the newest probes are kept when not all fit.
func (m *Model) Render(v *rundata.SearchView) {
	st := m.ctx.Styles
	iw, ih := common.Inner(m.ctx.Bordered, m.w, m.h)
	if v == nil {
		m.view = common.Panel(st, m.ctx.Bordered, "find-max", nil, m.w, m.h)
		return
	}
	top := []string{" " + m.bracketLine(v)}
	var tail []string
	if v.Done {
		style := st.Good
		if !v.Trusted {
			style = st.Warn
		}
		tail = append(tail, " "+style.Render(v.Answer))
		for _, r := range v.Reasons {
			tail = append(tail, " "+st.Warn.Render("not trusted: "+r))
		}
	}
	rows := make([]string, 0, len(v.Probes)+1)
	for _, p := range v.Probes {
		rows = append(rows, " "+m.row(p, iw))
	}
	if c := v.Current; c != nil {
		rows = append(rows, " "+m.row(*c, iw))
	}
	room := ih - len(top) - 1 - len(tail)
	if room < 1 {
		tail = tail[:min(len(tail), 1)]
		room = max(0, ih-len(top)-1-len(tail))
	}
	if len(rows) > room {
		rows = rows[len(rows)-room:]
		if room > 0 {
			rows[0] = " " + st.Muted.Render(fmt.Sprintf("… %d earlier probes", len(v.Probes)+boolInt(v.Current != nil)-room+1))
		}
	}
	head := " " + st.Label.Render(cells([]string{"#", "thr", "target", "goodput", "verdict"})+"decided by")
	lines := append(append(append(top, head), rows...), tail...)
	for i, l := range lines {
		lines[i] = common.FitTail(l, iw)
	}
	title := "find-max · " + strings.Join(v.Conditions, ", ")
	m.view = common.Panel(st, m.ctx.Bordered, title, lines, m.w, m.h)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bracketLine is the bracket, the bound and the time: "bracket 1,810 –
// 2,000 ops/s (10.5 %, to 5 %) · upper 2,010 · 45s of 10m0s".
func (m *Model) bracketLine(v *rundata.SearchView) string {
	st := m.ctx.Styles
	var b string
	switch {
	case v.Lo > 0 && v.Hi > 0:
		b = fmt.Sprintf("bracket %s – %s ops/s (%.1f %%, to %.3g %%)", rate(v.Lo), rate(v.Hi), 100*(v.Hi-v.Lo)/v.Lo, 100*v.Precision)
	case v.Hi > 0:
		b = "no rate passed yet; below " + rate(v.Hi) + " ops/s"
	default:
		b = "finding the upper bound (unlimited)"
	}
	s := st.Value.Render(b)
	if v.Upper > 0 {
		s += st.Muted.Render(" · unlimited " + rate(v.Upper) + " · floor " + rate(v.Floor))
	}
	return s + st.Muted.Render(" · "+format.Span(v.Elapsed)+" of "+format.Span(v.Budget))
}

// row is one probe: its settings, what it reached and its verdict; the
// probe in progress shows its evidence against what it needs.
func (m *Model) row(p rundata.ProbeView, w int) string {
	st := m.ctx.Styles
	good := "—"
	if p.Goodput > 0 {
		good = rate(p.Goodput)
	}
	state := outcomeStyle(st, p.State)(common.Fit(p.State, widths[4]))
	lead := cells([]string{strconv.Itoa(p.N), strconv.Itoa(p.Threads), target(p.Target), good})
	what := p.Decided
	switch p.State {
	case "waiting", "transition":
		what = "its change, left out"
	case "draining":
		what = "the previous probe's backlog draining, left out"
	case "steady":
		what = fmt.Sprintf("%d/%d intervals", p.Intervals, p.NeedIntervals)
		if p.NeedOps > 0 {
			what += fmt.Sprintf(", %s/%s ops", format.Int(p.Ops), format.Int(p.NeedOps))
		}
	}
	if p.Role != "" {
		what = p.Role + ": " + what // hold, thread-test
	}
	return st.Text.Render(lead) + state + " " + st.Muted.Render(common.FitTail(what, max(1, w-width()-1)))
}

// width is the columns' width before the decision.
func width() int {
	n := 0
	for _, w := range widths {
		n += w + 1
	}
	return n
}

func cells(vals []string) string {
	var b strings.Builder
	for i, v := range vals {
		b.WriteString(common.Fit(v, widths[i]))
		b.WriteString(" ")
	}
	return b.String()
}

// outcomeStyle colours a probe's state.
func outcomeStyle(st themes.Styles, s string) func(...string) string {
	switch s {
	case "pass":
		return st.Good.Render
	case "fail":
		return st.Alarm.Render
	case "void", "unjudged":
		return st.Muted.Render
	}
	return st.Accent.Render
}

// Line is the search in one status line: the probe in progress and the
// bracket while it runs, the answer once done.
func Line(st themes.Styles, v *rundata.SearchView, w int) string {
	if v == nil {
		return ""
	}
	if v.Done {
		style := st.Good
		if !v.Trusted {
			style = st.Warn
		}
		return style.Render(common.FitTail(" find-max: "+v.Answer, w))
	}
	s := " find-max"
	if c := v.Current; c != nil {
		s += fmt.Sprintf(": probe %d at %s", c.N, short(c.Target))
		if c.Role != "" {
			s += ", " + c.Role
		}
		if c.State == "steady" {
			s += fmt.Sprintf(" (%d/%d intervals", c.Intervals, c.NeedIntervals)
			if c.NeedOps > 0 {
				s += fmt.Sprintf(", %s/%s ops", format.SI(float64(c.Ops)), format.SI(float64(c.NeedOps)))
			}
			s += ")"
		}
	}
	switch {
	case v.Lo > 0 && v.Hi > 0:
		s += fmt.Sprintf(" · bracket %s–%s ops/s", short(v.Lo), short(v.Hi))
	case v.Hi > 0:
		s += " · below " + short(v.Hi) + " ops/s"
	}
	s += " · tab: the probes"
	return st.Accent.Render(common.FitTail(s, w))
}

// rate is a rate in ops/s as the panel shows it: "1,950", "12.5".
func rate(r float64) string {
	if r < 100 && r != float64(int64(r)) {
		return strconv.FormatFloat(r, 'g', 3, 64)
	}
	return format.Int(int64(r + 0.5))
}

// short is a rate in the status line: "918K", "unlimited".
func short(r float64) string {
	if r <= 0 {
		return "unlimited"
	}
	return format.SI(r)
}

// target is a probe's target: "unlimited" or its rate.
func target(t float64) string {
	if t <= 0 {
		return "unlimited"
	}
	return rate(t)
}
