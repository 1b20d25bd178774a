package throughput

// The --baseline run on the chart: its rate per column, aligned with the
// live run's columns by the time since each run's start, drawn as a faint
// line behind the live one.

import (
	"math"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/charmbracelet/lipgloss"

	"benchtop/tui/common"
	"benchtop/tui/format"
)

// BaselineColumns is the baseline's rate in each of n columns of bucket
// seconds, the first one being bucket number firstK (as Columns returns
// them): the mean of the spans whose middle falls in the column, as
// Columns averages the live points, else the span that covers the
// column's middle (the column is narrower than a span), else NaN (the
// baseline had no data at that time).
func BaselineColumns(spans []common.BaselineSpan, firstK int64, bucket float64, n int) []float64 {
	out := make([]float64, n)
	sums := make([]float64, n)
	cnt := make([]int, n)
	for _, sp := range spans {
		mid := (sp.From + sp.To).Seconds() / 2
		if idx := int64(math.Floor(mid/bucket)) - firstK; idx >= 0 && idx < int64(n) {
			sums[idx] += sp.Rate
			cnt[idx]++
		}
	}
	j := 0 // spans are in time order, and so are the columns
	for i := range out {
		if cnt[i] > 0 {
			out[i] = sums[i] / float64(cnt[i])
			continue
		}
		out[i] = math.NaN()
		mid := time.Duration((float64(firstK+int64(i)) + 0.5) * bucket * float64(time.Second))
		for j < len(spans) && spans[j].To < mid {
			j++
		}
		if j < len(spans) && spans[j].From <= mid {
			out[i] = spans[j].Rate
		}
	}
	return out
}

// baselinePeak is the highest value of vals, 0 when none.
func baselinePeak(vals []float64) float64 {
	p := 0.0
	for _, v := range vals {
		if !math.IsNaN(v) {
			p = math.Max(p, v)
		}
	}
	return p
}

// BaselineRows is the canvas row of each value on a chart whose graph is
// graphH rows tall with its origin (value 0) on row originY and yMax at
// its top, as the streamline chart scales its own line: -1 where a value
// is NaN or off the chart.
func BaselineRows(vals []float64, yMax float64, graphH, originY int) []int {
	rows := make([]int, len(vals))
	for i, v := range vals {
		rows[i] = -1
		if math.IsNaN(v) || v < 0 || v > yMax || yMax <= 0 {
			continue
		}
		r := originY - int(math.Round(v*float64(graphH)/yMax))
		if r >= 0 {
			rows[i] = r
		}
	}
	return rows
}

// drawBaseline draws the rows (one per column, the last column at the
// right edge) as lines in style s on a canvas of c's size, and copies the
// cells onto c where c is empty, so that the live line stays on top.
func drawBaseline(c *canvas.Model, rows []int, s lipgloss.Style) {
	w, h := c.Width(), c.Height()
	scratch := canvas.New(w, h)
	x0 := w - len(rows)
	for i := 0; i < len(rows); {
		if rows[i] < 0 {
			i++
			continue
		}
		j := i
		for j < len(rows) && rows[j] >= 0 {
			j++
		}
		graph.DrawLineSequence(&scratch, false, x0+i, rows[i:j], runes.ThinLineStyle, s)
		i = j
	}
	for y := 0; y < h; y++ {
		for x := max(0, x0); x < w; x++ {
			p := canvas.Point{X: x, Y: y}
			if cell := scratch.Cell(p); cell.Rune != 0 && c.Cell(p).Rune == 0 {
				c.SetCell(p, canvas.NewCellWithStyle(cell.Rune, s))
			}
		}
	}
}

// baselineLine is the legend of the baseline: its name, its throughput
// over the phase running now (its main one if it did not run that phase)
// and the live phase's mean beside it, shortened to fit w.
func (m *Model) baselineLine(phase string, mean float64, unit string, w int) string {
	st := m.ctx.Styles
	b := m.ctx.Baseline
	rate, same := b.PhaseRate(phase)
	if !same {
		rate, mean = b.OpsPerSec, 0 // nothing to compare this phase with
	}
	name := st.Baseline.Render("── baseline: " + b.Name)
	if !b.PerInterval {
		name += st.Baseline.Render(" (per segment)")
	}
	sep := st.Muted.Render(" · ")
	long := format.Int(int64(rate+0.5)) + " " + unit
	short := format.SI(rate)
	var cands []string
	if mean > 0 {
		pct := st.Muted.Render(" (" + common.SignedPct(common.PctChange(rate, mean)) + ")")
		cands = append(cands,
			name+sep+st.Text.Render(long)+st.Muted.Render(" · this "+phase+" ")+st.Text.Render(format.Int(int64(mean+0.5)))+pct,
			name+sep+st.Text.Render(short)+st.Muted.Render(" · this "+phase+" ")+st.Text.Render(format.SI(mean))+pct,
			name+" "+st.Text.Render(short)+pct)
	}
	cands = append(cands, name+sep+st.Text.Render(long), name+" "+st.Text.Render(short))
	for _, c := range cands {
		if common.Width(c) <= w {
			return c
		}
	}
	return common.FitTail(name, w)
}
