// Package latency draws, per operation type, the p50/p95/p99 of each
// interval as sparklines with the current values, and with a target rate
// the intended (coordinated-omission corrected) latency next to the raw one.
package latency

import (
	"strings"

	"github.com/NimbleMarkets/ntcharts/sparkline"
	"github.com/charmbracelet/lipgloss"

	"benchtop/rundata"
	"benchtop/tui/common"
	"benchtop/tui/format"
	"benchtop/tui/history"
)

// Mode chooses which latencies are shown when a target rate is set.
type Mode int

// The modes the `i` key cycles through.
const (
	Both     Mode = iota // raw (service time) and intended rows
	Raw                  // service time only
	Intended             // intended (corrected) only
)

func (m Mode) String() string {
	switch m {
	case Raw:
		return "service time only"
	case Intended:
		return "intended only"
	}
	return "service time and intended"
}

// Model is the latency panel.
type Model struct {
	ctx  *common.Context
	w, h int
	Mode Mode
	view string
}

var _ common.Renderer[*history.History] = (*Model)(nil)

// New returns a latency panel drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Row is one line of sparklines: an operation, raw or intended.
type Row struct {
	Op       string
	Intended bool
}

// Rows lists the rows the panel shows for snapshot s in mode mode.
func Rows(s *rundata.Snapshot, mode Mode) []Row {
	if s == nil {
		return nil
	}
	var rows []Row
	for _, op := range s.Ops {
		// Intended latency only while a target is set: back at
		// unlimited, its rows go.
		hasI := op.IntendedInterval != nil && s.Target > 0
		if !hasI || mode != Intended {
			rows = append(rows, Row{Op: op.Name})
		}
		if hasI && mode != Raw {
			rows = append(rows, Row{Op: op.Name, Intended: true})
		}
	}
	return rows
}

// RowCount is how many rows the panel needs for s in mode mode.
func RowCount(s *rundata.Snapshot, mode Mode) int { return len(Rows(s, mode)) }

// HasIntended tells whether s carries intended latencies for a target in
// force.
func HasIntended(s *rundata.Snapshot) bool {
	if s == nil || s.Target <= 0 {
		return false
	}
	for _, op := range s.Ops {
		if op.IntendedInterval != nil {
			return true
		}
	}
	return false
}

// Render draws the panel from the history. Each row of sparklines is
// sparkH lines tall.
func (m *Model) Render(h *history.History) {
	st := m.ctx.Styles
	bordered := m.ctx.Bordered
	iw, ih := common.Inner(bordered, m.w, m.h)
	title := "Latency · per interval"
	rows := Rows(h.Last, m.Mode)
	if HasIntended(h.Last) {
		title += " · " + m.Mode.String()
	}
	if len(rows) == 0 || iw < 40 || ih < 1 {
		var body []string
		if len(rows) == 0 {
			body = []string{st.Muted.Render(" waiting for the first interval…")}
		}
		m.view = common.Panel(st, bordered, title, body, m.w, m.h)
		return
	}
	sparkH := max(1, ih/len(rows))
	if sparkH > 2 {
		sparkH = 2
	}
	wide := iw >= 100
	nameW := 0
	for _, r := range rows {
		nameW = max(nameW, len(m.name(r, wide)))
	}
	// name, then three cells of " p50 " + spark + " " + value(6), then
	// the row's scale "  ↑54ms".
	const valW = 6
	sparkW := (iw - 1 - nameW - 3*(2+4+1+valW) - scaleW) / 3
	if sparkW < 3 {
		sparkW = 3
	}
	var lines []string
	for _, r := range rows {
		if len(lines)+sparkH > ih {
			break
		}
		lines = append(lines, m.row(h, r, nameW, sparkW, sparkH, wide)...)
	}
	m.view = common.Panel(st, bordered, title, lines, m.w, m.h)
}

func (m *Model) name(r Row, wide bool) string {
	n := r.Op
	if !wide {
		n = common.ShortName(n)
	}
	if r.Intended {
		if wide {
			return n + " intended"
		}
		return "  intended"
	}
	return n
}

func (m *Model) row(h *history.History, r Row, nameW, sparkW, sparkH int, wide bool) []string {
	st := m.ctx.Styles
	pts := h.Latency(r.Op, sparkW)
	series := [3][]float64{}
	// Each row has its own scale, shared by its three percentiles and
	// shown at its end: on one scale with intended latency in seconds,
	// service times of microseconds drew flat.
	top := 0.0
	lastOK := false // the newest interval had a latency (something succeeded)
	for _, p := range pts {
		vals := [3]float64{p.P50, p.P95, p.P99}
		lastOK = p.OK
		if r.Intended {
			vals, lastOK = [3]float64{p.IP50, p.IP95, p.IP99}, p.IOK
		}
		for i := range 3 {
			top = max(top, vals[i])
			series[i] = append(series[i], vals[i]) // 0 where none: a gap
		}
	}
	styles := [3]lipgloss.Style{st.P50, st.P95, st.P99}
	labels := [3]string{"p50", "p95", "p99"}
	cells := make([][]string, 3)
	for i := range 3 {
		cells[i] = spark(series[i], top, sparkW, sparkH, styles[i])
	}
	nameStyle := st.Text
	if r.Intended {
		nameStyle = st.Muted
	}
	out := make([]string, sparkH)
	for y := 0; y < sparkH; y++ {
		var b strings.Builder
		if y == sparkH-1 {
			b.WriteString(" " + nameStyle.Render(common.Fit(m.name(r, wide), nameW)))
		} else {
			b.WriteString(" " + strings.Repeat(" ", nameW))
		}
		for i := range 3 {
			b.WriteString("  ")
			if y == sparkH-1 {
				b.WriteString(styles[i].Render(labels[i]) + " ")
			} else {
				b.WriteString("    ")
			}
			b.WriteString(cells[i][y])
			if y == sparkH-1 {
				cur := format.NoLatency // nothing succeeded in the newest interval
				if n := len(series[i]); n > 0 && lastOK {
					cur = format.Micros(series[i][n-1])
				}
				b.WriteString(" " + st.Value.Render(pad(cur, 6)))
			} else {
				b.WriteString(strings.Repeat(" ", 7))
			}
		}
		if y == 0 {
			b.WriteString(st.Muted.Render(pad("↑"+format.Micros(top), scaleW)))
		}
		out[y] = b.String()
	}
	return out
}

// scaleW is the width of a row's scale maximum, "  ↑54ms".
const scaleW = 8

// spark draws a sparkline of vals scaled to top, w x h cells.
func spark(vals []float64, top float64, w, h int, style lipgloss.Style) []string {
	if top <= 0 {
		top = 1
	}
	s := sparkline.New(w, h, sparkline.WithNoAutoMaxValue(), sparkline.WithStyle(style))
	s.SetMax(top)
	for _, v := range vals {
		// A visible floor for every measured value, so that a quiet
		// interval is not mistaken for a missing one.
		if v > 0 && v < top/8/float64(h) {
			v = top / 8 / float64(h)
		}
		s.Push(v)
	}
	s.DrawColumnsOnly()
	lines := common.CanvasLines(&s.Canvas)
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return lines[:h]
}

// pad right-aligns s in w cells.
func pad(s string, w int) string {
	if n := common.Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
