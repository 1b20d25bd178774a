// Package throughput draws the rolling chart of successful operations per
// second per interval (goodput: failed operations are not throughput)
// with every control change and mark as a marker on the time axis, and a
// ! where operations failed, so that cause and effect line up.
package throughput

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/linechart/streamlinechart"

	"benchtop/rundata"
	"benchtop/tui/common"
	"benchtop/tui/format"
	"benchtop/tui/history"
)

// Windows are the chart windows the `w` key cycles through.
var Windows = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 60 * time.Minute}

// DefaultWindow is the window shown at start.
const DefaultWindow = 5 * time.Minute

// labelW is the width of the Y axis labels ("1.28M").
const labelW = 5

// MinHeight is the smallest outer height the panel draws usefully in.
const MinHeight = 7

// Model is the throughput panel.
type Model struct {
	ctx    *common.Context
	w, h   int
	Window time.Duration
	view   string
}

var _ common.Renderer[*history.History] = (*Model)(nil)

// New returns a throughput panel drawing with ctx.
func New(ctx *common.Context) Model {
	return Model{ctx: ctx, Window: DefaultWindow}
}

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Render draws the panel from the history.
func (m *Model) Render(h *history.History) {
	st := m.ctx.Styles
	bordered := m.ctx.Bordered
	iw, ih := common.Inner(bordered, m.w, m.h)
	unit := h.Unit
	if unit == "" {
		unit = "ops/s"
	}
	var end time.Duration
	if h.Last != nil {
		end = h.Last.Elapsed
	}
	span := Span(end, m.Window)
	what := "last " + WindowText(m.Window)
	if span < m.Window {
		what = "the run so far (window " + WindowText(m.Window) + ")"
	}
	title := "Throughput · " + unit + " · " + what
	if h.RateName != "" {
		title = h.RateName + " · " + unit + " · " + what
	}
	// The baseline is in ops/s: not drawn against a workload's own rate.
	bl := m.ctx.Baseline
	if bl != nil && unit != "ops/s" {
		bl = nil
	}
	// Its legend gets a row of its own where the chart keeps 4; else its
	// name goes into the title.
	blRow := bl != nil && ih >= 7
	if bl != nil && !blRow {
		title += " · ── baseline: " + bl.Name
	}
	if iw < labelW+10 || ih < 3 {
		m.view = common.Panel(st, bordered, title, nil, m.w, m.h)
		return
	}
	// Rows: chart, axis with markers, then marker labels where room
	// allows, a legend of the markers the labels could not show, and the
	// baseline's legend.
	labelRows := 1
	if ih < 6 {
		labelRows = 0
	}
	graphW := iw - labelW - 1
	vals, targets, bucket, firstK := Columns(h.Points(), end, span, graphW)
	var blVals []float64
	if bl != nil {
		blVals = BaselineColumns(bl.Spans, firstK, bucket, graphW)
	}
	axis, labels, legend := m.axis(h.Events(), FailedColumns(h.Points(), firstK, bucket, graphW), span, bucket, firstK, graphW)
	extra := 0
	if blRow {
		extra = 1
	}
	if legend != "" && labelRows > 0 && ih >= 10+extra {
		labelRows = 2
	}
	chartH := ih - 1 - labelRows - extra

	lines := make([]string, 0, ih)
	lines = append(lines, m.chart(vals, targets, blVals, iw, chartH)...)
	lines = append(lines, axis)
	if labelRows > 0 {
		lines = append(lines, labels)
	}
	if labelRows > 1 {
		lines = append(lines, common.FitTail(strings.Repeat(" ", labelW+1)+legend, iw))
	}
	if blRow {
		mean, phase := 0.0, "run"
		if h.Last != nil {
			mean, phase = h.MeanRate, string(h.Last.Phase)
		} else if m.ctx.Info.Command == "load" {
			phase = "load"
		}
		lines = append(lines, strings.Repeat(" ", labelW+1)+m.baselineLine(phase, mean, unit, iw-labelW-1))
	}
	m.view = common.Panel(st, bordered, title, lines, m.w, m.h)
}

// Span is the time the chart spans at elapsed time end: the run so far
// (whole seconds, at least 10 s) until the window is full, then the window,
// which scrolls.
func Span(end, window time.Duration) time.Duration {
	if end >= window {
		return window
	}
	s := max(10*time.Second, end.Round(time.Second))
	if s < end {
		s += time.Second
	}
	return min(s, window)
}

// WindowText names a chart window in minutes, as the w key cycles them:
// 1m, 5m, 15m, 60m.
func WindowText(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	return format.Span(d)
}

// Columns averages the points of the window into n columns, ending with
// the column of end: each column is the mean rate over its own span of
// time, each interval weighted by how much of the column it covered. A
// phase's sliver of an interval (a load of 1,000 records in 12 ms at 84K
// ops/s, a last interval cut at the stop) counts for the time it
// covered, not as a whole interval, and holds no column beyond its own
// time. It returns the values of the columns that have data
// (right-aligned: the last value is the last column), the target in
// force in each of them (the newest interval's), the seconds per column
// and the bucket number of the first column. A column no interval
// covers (a gap between phases) repeats the value before it.
func Columns(pts *history.Ring[history.Point], end, window time.Duration, n int) (vals, targets []float64, bucket float64, firstK int64) {
	if n <= 0 {
		return nil, nil, 1, 0
	}
	b := window.Seconds() / float64(n)
	endK := int64(math.Floor((end.Seconds() - 1e-9) / b))
	firstK = endK - int64(n) + 1
	sums := make([]float64, n)
	weights := make([]float64, n)
	tgts := make([]float64, n)
	cnt := make([]int, n)
	for i := pts.Len() - 1; i >= 0; i-- {
		p := pts.At(i)
		to := p.End.Seconds()
		if to <= float64(firstK)*b {
			break
		}
		from := to - 2*(p.End-p.Mid).Seconds() // the interval's start
		if from >= to {
			from = to - 1e-9
		}
		for k := max(int64(math.Floor(from/b)), firstK); k <= min(int64(math.Floor(to/b)), endK); k++ {
			over := min(to, float64(k+1)*b) - max(from, float64(k)*b)
			if over <= 0 {
				continue
			}
			idx := k - firstK
			if cnt[idx] == 0 {
				tgts[idx] = p.Target // the newest interval of the column
			}
			sums[idx] += p.Rate * over
			weights[idx] += over
			cnt[idx]++
		}
	}
	start := -1
	for i, c := range cnt {
		if c > 0 {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, nil, b, firstK
	}
	vals = make([]float64, 0, n-start)
	targets = make([]float64, 0, n-start)
	prev, prevT := 0.0, 0.0
	for i := start; i < n; i++ {
		if cnt[i] > 0 {
			prev, prevT = sums[i]/weights[i], tgts[i]
		}
		vals = append(vals, prev)
		targets = append(targets, prevT)
	}
	return vals, targets, b, firstK
}

// FailedColumns tells, for each of the n columns from bucket number
// firstK (as Columns lays them out), whether an interval in it had failed
// operations: the ! marks on the time axis.
func FailedColumns(pts *history.Ring[history.Point], firstK int64, bucket float64, n int) []bool {
	out := make([]bool, n)
	if bucket <= 0 {
		return out
	}
	for i := pts.Len() - 1; i >= 0; i-- {
		p := pts.At(i)
		k := int64(math.Floor(p.Mid.Seconds() / bucket))
		if k < firstK {
			break
		}
		if idx := k - firstK; idx < int64(n) && p.Failed > 0 {
			out[idx] = true
		}
	}
	return out
}

// NiceStep rounds v up to 1, 2, 2.5 or 5 times a power of ten: a step
// between axis labels.
func NiceStep(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*p >= v*(1-1e-12) {
			return f * p
		}
	}
	return 10 * p
}

// NiceCeil rounds v up to a round number (1, 1.2, 1.4 ... 9 times a power
// of ten), so that the top of the axis reads well.
func NiceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 1.2, 1.4, 1.6, 1.8, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 9, 10} {
		if f*p >= v*(1-1e-12) {
			return f * p
		}
	}
	return 10 * p
}

func (m *Model) chart(vals, targets, baseline []float64, w, h int) []string {
	st := m.ctx.Styles
	peak := 0.0
	for _, v := range vals {
		peak = math.Max(peak, v)
	}
	// Show the target line too, unless it is far above what is achieved;
	// and always the baseline's: how far below it the run is matters.
	ceiling := peak * 2
	if ceiling == 0 {
		ceiling = math.Inf(1)
	}
	for _, t := range targets {
		if t > 0 && t <= ceiling {
			peak = math.Max(peak, t)
		}
	}
	peak = math.Max(peak, baselinePeak(baseline))
	// The streamline chart plots value v on row round(v*h/yMax) from the
	// bottom, so the top row (h-1) holds yMax*(h-1)/h: make that a round
	// number just above the peak, so that the scale follows the data down
	// as well as up, and label it.
	yTop := NiceCeil(peak)
	yMax := yTop
	if h > 1 {
		yMax = yTop * float64(h) / float64(h-1)
	}
	step := NiceStep(yTop / float64(min(max((h-1)/2, 2), 8)))
	c := streamlinechart.New(w, h,
		streamlinechart.WithYRange(0, yMax),
		streamlinechart.WithXYSteps(0, 1),
		streamlinechart.WithAxesStyles(st.ChartAxis, st.ChartLabel),
		streamlinechart.WithStyles(runes.ArcLineStyle, st.ChartLine),
	)
	// Label the top row, and the rows nearest to multiples of step below
	// it, so labels read 0, 400K, 800K rather than what a row happens to be.
	rowV := yMax / float64(h)
	c.YLabelFormatter = func(i int, v float64) string {
		if peak == 0 && i > 0 {
			return strings.Repeat(" ", labelW) // no data: no scale but 0
		}
		if i == h-1 {
			return fmt.Sprintf("%*s", labelW, format.SI(yTop))
		}
		k := math.Round(v / step)
		if i < h-2 && math.Abs(k*step-v) <= rowV/2+1e-9 {
			return fmt.Sprintf("%*s", labelW, format.SI(k*step))
		}
		return strings.Repeat(" ", labelW)
	}
	// Re-set the range: the formatter changes the label width and so the
	// size of the data buffers.
	c.SetYRange(0, yMax)
	c.SetViewYRange(0, yMax)
	graphW := w - labelW - 1
	if len(vals) > graphW {
		vals = vals[len(vals)-graphW:]
		targets = targets[len(targets)-graphW:]
	}
	for _, v := range vals {
		c.Push(v)
	}
	if len(vals) > 0 {
		c.Draw()
	} else {
		c.DrawXYAxisAndLabel()
	}
	if len(baseline) > 0 {
		if len(baseline) > graphW {
			baseline = baseline[len(baseline)-graphW:]
		}
		drawBaseline(&c.Canvas, BaselineRows(baseline, yMax, c.GraphHeight(), c.Origin().Y), st.Baseline)
	}
	// The target of each column as a dot in the empty cell of its row.
	for i, t := range targets {
		if t <= 0 || t > yMax {
			continue
		}
		row := h - 1 - int(math.Round(t*float64(h)/yMax))
		p := canvas.Point{X: w - len(targets) + i, Y: row}
		if row >= 0 && row < h && c.Canvas.Cell(p).Rune == 0 {
			c.Canvas.SetCell(p, canvas.NewCellWithStyle('┄', st.Muted))
		}
	}
	return common.CanvasLines(&c.Canvas)
}

func (m *Model) axis(evs *history.Ring[rundata.Event], failed []bool, span time.Duration, bucket float64, firstK int64, n int) (axis, labels, legend string) {
	st := m.ctx.Styles
	cells := make([]string, n)
	kinds := make([]int, n) // 0 none, 1 tick, 2 marker, 3 alarm
	for i := range cells {
		cells[i] = "─"
	}
	// A tick every fifth of the span.
	tick := span.Seconds() / 5
	for t := math.Ceil(float64(firstK)*bucket/tick) * tick; ; t += tick {
		col := int64(math.Floor(t/bucket+1e-9)) - firstK
		if col >= int64(n) {
			break
		}
		if col >= 0 {
			cells[col] = "┴"
			kinds[col] = 1
		}
	}
	// Markers grouped by column, in time order.
	type group struct {
		col    int
		labels []string
	}
	var groups []*group
	byCol := map[int]*group{}
	for i := 0; i < evs.Len(); i++ {
		e := evs.At(i)
		col := int64(math.Floor(e.At.Seconds()/bucket)) - firstK
		if col < 0 || col >= int64(n) {
			continue
		}
		switch e.Kind {
		case "error", "warning":
			if kinds[col] < 2 {
				cells[col] = "!"
				kinds[col] = 3
			}
		default:
			g := byCol[int(col)]
			if g == nil {
				g = &group{col: int(col)}
				byCol[int(col)] = g
				groups = append(groups, g)
			}
			g.labels = append(g.labels, m.label(e))
			kinds[col] = 2
			cells[col] = "▲"
			if k := len(g.labels); k > 1 {
				// Several changes in one column: their count.
				cells[col] = "+"
				if k <= 9 {
					cells[col] = strconv.Itoa(k)
				}
			}
		}
	}
	// Failed operations: a ! where no change or mark is drawn.
	for i := range cells {
		if i < len(failed) && failed[i] && kinds[i] != 2 {
			cells[i], kinds[i] = "!", 3
		}
	}
	var ax strings.Builder
	ax.WriteString(strings.Repeat(" ", labelW) + st.ChartAxis.Render("└"))
	for i, c := range cells {
		switch kinds[i] {
		case 2:
			ax.WriteString(st.Marker.Render(c))
		case 3:
			ax.WriteString(st.AlarmMarker.Render(c))
		default:
			ax.WriteString(st.ChartAxis.Render(c))
		}
	}

	// Labels: newest first, each where it fits without touching another;
	// a column of several shows them all or goes to the legend.
	row := []rune(strings.Repeat(" ", n))
	used := make([]bool, n)
	var unplaced []string
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		text := strings.Join(g.labels, ", ")
		if len(g.labels) > 1 {
			text = strconv.Itoa(len(g.labels)) + ": " + text
		}
		l := []rune(text)
		start := g.col
		if start+len(l) > n {
			start = n - len(l)
		}
		free := start >= 0
		for j := start - 1; free && j <= start+len(l); j++ {
			if j >= 0 && j < n && used[j] {
				free = false
			}
		}
		if !free {
			unplaced = append(unplaced, text)
			continue
		}
		for j, r := range l {
			row[start+j] = r
			used[start+j] = true
		}
	}
	var lab strings.Builder
	lab.WriteString(st.ChartLabel.Render(fmt.Sprintf("%*s ", labelW, "-"+WindowText(span))))
	for i := 0; i < n; {
		j := i
		for j < n && used[j] == used[i] {
			j++
		}
		seg := string(row[i:j])
		if used[i] {
			lab.WriteString(st.MarkerLabel.Render(seg))
		} else {
			lab.WriteString(seg)
		}
		i = j
	}
	if len(unplaced) > 0 {
		legend = st.Marker.Render("▲ ") + st.MarkerLabel.Render("also: "+strings.Join(unplaced, " · "))
	}
	return ax.String(), lab.String(), legend
}

// label is the short text of an event under its marker.
func (m *Model) label(e rundata.Event) string {
	compact := !m.ctx.Bordered
	arrow := func(short, long string) string {
		name := long
		if compact {
			name = short
		}
		if e.From != "" || e.To != "" {
			return name + " " + e.From + "→" + e.To
		}
		return e.String()
	}
	switch e.Kind {
	case "threads":
		return arrow("thr", "threads")
	case "partitions":
		return arrow("part", "partitions")
	case "target":
		e.From, e.To = targetText(e.From), targetText(e.To)
		return arrow("tgt", "target")
	case "segment":
		if e.Text != "" {
			return e.Text
		}
		return "new segment"
	case "phase":
		if e.To != "" {
			return e.To
		}
	}
	return e.String()
}

// targetText shortens a target rate written by the engine ("0",
// "125000", "unlimited") to "∞" or "125K".
func targetText(s string) string {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return s
	}
	return format.TargetShort(v)
}
