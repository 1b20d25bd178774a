// Package opstable draws the operations table: per operation type the
// count, rate (successful operations per second) and latency summary
// since the start of the phase, the same figures the final report gives;
// "–" where nothing succeeded.
package opstable

import (
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"benchtop/rundata"
	"benchtop/tui/common"
	"benchtop/tui/format"
	"benchtop/tui/history"
)

// Model is the operations table panel.
type Model struct {
	ctx  *common.Context
	w, h int
	// ShowIntended adds an "intended" row under each operation that has
	// intended latencies, when the root gives room for them.
	ShowIntended bool
	view         string
}

var _ common.Renderer[*history.History] = (*Model)(nil)

// New returns an operations table drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Rows is how many body rows the table wants for s (header included).
func Rows(s *rundata.Snapshot, withIntended bool) int {
	if s == nil {
		return 2
	}
	n := 1 + len(s.Ops)
	if len(s.Ops) > 1 {
		n++ // TOTAL
	}
	if withIntended && s.Target > 0 {
		for _, op := range s.Ops {
			if op.IntendedCumulative != nil {
				n++
			}
		}
	}
	return n
}

type col struct {
	title string
	w     int
}

// Render draws the table from the newest snapshot.
func (m *Model) Render(h *history.History) {
	st := m.ctx.Styles
	bordered := m.ctx.Bordered
	iw, ih := common.Inner(bordered, m.w, m.h)
	wide := iw >= 110
	title := "Operations · since the start of the " + phaseName(h.Last)
	nameW, numW, countW := 10, 7, 7
	if wide {
		nameW, numW, countW = 18, 9, 13
	}
	cols := []col{{"op", nameW}, {"count", countW}, {"ops/s", numW}, {"avg", numW}, {"p50", numW},
		{"p95", numW}, {"p99", numW}, {"p99.9", numW}, {"max", numW}, {"errors", numW}}
	var lines []string
	var hb strings.Builder
	hb.WriteString(" ")
	for i, c := range cols {
		if i == 0 {
			hb.WriteString(common.Fit(c.title, c.w))
		} else {
			hb.WriteString(right(c.title, c.w))
		}
	}
	lines = append(lines, st.TableHeader.Render(hb.String()))
	if s := h.Last; s != nil {
		for _, op := range s.Ops {
			name := op.Name
			if !wide {
				name = common.ShortName(name)
			}
			if u := m.ctx.Info.OpUnits[op.Name]; u != "" && wide {
				name += " (" + u + ")" // its ops/s are batches/s: said
			} else if u != "" {
				name += " " + u[:1]
			}
			lines = append(lines, m.row(cols, name, op.Cumulative, true))
			if m.ShowIntended && op.IntendedCumulative != nil && s.Target > 0 {
				lines = append(lines, m.row(cols, " intended", *op.IntendedCumulative, false))
			}
		}
		if len(s.Ops) > 1 {
			lines = append(lines, m.row(cols, "TOTAL", s.Total.Cumulative, true))
		}
	}
	if len(lines) > ih {
		lines = lines[:ih]
	}
	m.view = common.Panel(st, bordered, title, lines, m.w, m.h)
}

func phaseName(s *rundata.Snapshot) string {
	if s == nil || s.Phase == "" {
		return "run"
	}
	if s.Phase == rundata.PhaseDone {
		return "run"
	}
	return string(s.Phase)
}

func (m *Model) row(cols []col, name string, s rundata.Stats, counts bool) string {
	st := m.ctx.Styles
	var b strings.Builder
	nameStyle := st.Text
	if !counts {
		nameStyle = st.Muted
	}
	b.WriteString(" " + nameStyle.Render(common.Fit(name, cols[0].w)))
	cell := func(i int, v string, style lipgloss.Style) {
		b.WriteString(style.Render(right(v, cols[i].w)))
	}
	dur := func(d time.Duration) string {
		return format.Latency(d, s.HasLatency()) // "–" where nothing succeeded
	}
	count := ""
	rate := ""
	errs := ""
	errStyle := st.Text
	if counts {
		if cols[1].w >= 12 {
			count = format.Int(s.Count)
		} else {
			count = format.SI(float64(s.Count))
		}
		rate = format.SI(s.Rate)
		errs = format.Int(s.Errors)
		if s.Errors > 0 {
			errStyle = st.Alarm
		}
	}
	cell(1, count, st.Text)
	cell(2, rate, st.Text)
	cell(3, dur(s.Mean), st.Text)
	cell(4, dur(s.P50), st.Text)
	cell(5, dur(s.P95), st.Text)
	cell(6, dur(s.P99), st.Text)
	cell(7, dur(s.P999), st.Text)
	cell(8, dur(s.Max), st.Text)
	cell(9, errs, errStyle)
	return b.String()
}

// right right-aligns s in w cells.
func right(s string, w int) string {
	if n := common.Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
