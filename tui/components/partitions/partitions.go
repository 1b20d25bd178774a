// Package partitions draws the stream workload's per-partition view: for
// each partition its consumed rows/s and its consumer lag as bars, with
// MB/s, lag in rows and seconds and end-to-end p99, so that a skewed or
// stalled partition, and the consumers of a new partition count, show at a
// glance. When the partitions do not fit one per line it draws a compact
// grid of one cell per partition instead.
//
// Render is a pure function of the view (engine.PartitionsView), the styles
// and the size; it always returns exactly w x h cells. Model is the same
// drawing as a component of the screen (common.Renderer).
package partitions

import (
	"fmt"
	"strconv"
	"strings"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/format"
)

// MinHeight is the smallest outer height the panel draws usefully in.
const MinHeight = 5

// Title is the panel title for v.
func Title(v *rundata.PartitionsView) string {
	if v == nil {
		return "Partitions"
	}
	t := fmt.Sprintf("Partitions · %d written · %d consumers", v.Partitions, v.Consumers)
	if held := countHeld(v); held > 0 {
		t += fmt.Sprintf(" · %d waiting for the old map to drain", held)
	}
	return t
}

func countHeld(v *rundata.PartitionsView) int {
	n := 0
	for _, p := range v.Parts {
		if p.Held {
			n++
		}
	}
	return n
}

// Model is the Partitions panel as a component of the screen: it draws
// with the context's styles and frame what the function Render draws with
// the ones it is given.
type Model struct {
	ctx  *common.Context
	w, h int
	view string
}

var _ common.Renderer[*rundata.PartitionsView] = (*Model)(nil)

// New returns a Partitions panel drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Render draws the panel for view v (nil: the stream has not started).
func (m *Model) Render(v *rundata.PartitionsView) {
	m.view = Render(v, m.ctx.Styles, m.ctx.Bordered, m.w, m.h)
}

// Render draws the panel for view v in an outer size of w x h, boxed when
// bordered.
func Render(v *rundata.PartitionsView, st themes.Styles, bordered bool, w, h int) string {
	iw, ih := common.Inner(bordered, w, h)
	if iw <= 0 || ih <= 0 {
		return common.Panel(st, bordered, Title(v), nil, w, h)
	}
	var body []string
	switch {
	case v == nil:
		body = []string{st.Muted.Render("waiting for the stream to start…")}
	case len(v.Parts) == 0:
		body = []string{st.Muted.Render("no partition is consumed")}
	default:
		body = append(body, summary(v, st, iw))
		rows := ih - 1
		if len(v.Parts) <= rows-1 && iw >= 40 {
			body = append(body, table(v, st, iw, rows)...)
		} else {
			body = append(body, grid(v, st, iw, rows)...)
		}
	}
	return common.Panel(st, bordered, Title(v), body, w, h)
}

// summary is the first line: totals of the interval.
func summary(v *rundata.PartitionsView, st themes.Styles, w int) string {
	parts := []string{
		st.Label.Render("consumed ") + st.Value.Render(format.SI(v.ConsumedRate)+" rows/s"),
		st.Value.Render(format.BytesRate(v.ConsumedMBps * 1e6)),
		st.Label.Render("lag ") + lagStyle(st, v.LagSeconds).Render(format.SI(float64(v.Lag))+" "+secs(v.LagSeconds)),
		st.Label.Render("e2e p99 ") + st.Value.Render(format.Duration(v.E2E.P99)),
	}
	bad := v.OutOfOrder + v.Duplicated + v.Unknown
	if bad > 0 {
		parts = append(parts, st.Alarm.Render(fmt.Sprintf("%d out of order, %d dup", v.OutOfOrder, v.Duplicated)))
	} else {
		parts = append(parts, st.Good.Render("order ok"))
	}
	return common.FitTail(strings.Join(parts, st.Muted.Render(" · ")), w)
}

func secs(s float64) string {
	switch {
	case s <= 0:
		return "0s"
	case s < 10:
		return strconv.FormatFloat(s, 'f', 2, 64) + "s"
	}
	return strconv.FormatFloat(s, 'f', 0, 64) + "s"
}

// lagStyle colours a lag by its age: fine under 1 s, a warning under 5 s,
// an alarm beyond.
func lagStyle(st themes.Styles, s float64) interface{ Render(...string) string } {
	switch {
	case s >= 5:
		return st.Alarm
	case s >= 1:
		return st.Warn
	}
	return st.Value
}

// scales returns the largest rate and lag of the view (at least 1), the
// full length of the bars.
func scales(v *rundata.PartitionsView) (rate, lag float64) {
	rate, lag = 1, 1
	for _, p := range v.Parts {
		rate = max(rate, p.Rate)
		lag = max(lag, float64(p.Lag))
	}
	return rate, lag
}

// table draws one line per partition:
//
//	#  state  rows/s ████████▌   MB/s  lag ██▎    rows    age   p99
func table(v *rundata.PartitionsView, st themes.Styles, w, rows int) []string {
	maxRate, maxLag := scales(v)
	// Fixed columns: index and state 7, rate 8, MB/s 10, a space, lag
	// rows and age 14, p99 8; the two bars share the rest (rate 2/3).
	fixed := 7 + 8 + 10 + 1 + 14 + 8
	wide := w >= fixed+12
	if !wide {
		fixed = 7 + 8 + 1 + 14
	}
	bars := max(2, w-fixed)
	rateW := bars * 2 / 3
	lagW := bars - rateW
	hdr := fmt.Sprintf("%4s   ", "#") + strings.Repeat(" ", rateW) + fmt.Sprintf("%8s", "rows/s")
	if wide {
		hdr += fmt.Sprintf("%10s", "MB/s")
	}
	hdr += " " + common.Fit("lag", lagW) + fmt.Sprintf("%7s%7s", "rows", "age")
	if wide {
		hdr += fmt.Sprintf("%8s", "e2e p99")
	}
	out := []string{st.TableHeader.Render(common.Fit(hdr, w))}
	for _, p := range v.Parts {
		if len(out) >= rows {
			break
		}
		state := st.Good.Render("●")
		switch {
		case p.Held:
			state = st.Warn.Render("‖")
		case !p.Active && p.Consuming:
			state = st.Muted.Render("◌") // dropped by a shrink, draining
		case !p.Consuming:
			state = st.Alarm.Render("○") // rows but no consumer
		}
		line := st.Label.Render(fmt.Sprintf("%4d ", p.Index)) + state + " " +
			common.Gauge(st, rateW, 100*p.Rate/maxRate) + st.Value.Render(fmt.Sprintf("%8s", format.SI(p.Rate)))
		if wide {
			line += st.Text.Render(fmt.Sprintf("%10s", format.BytesRate(p.MBps*1e6)))
		}
		line += " " + lagBar(st, lagW, float64(p.Lag)/maxLag, p.LagSeconds) +
			lagStyle(st, p.LagSeconds).Render(fmt.Sprintf("%7s%7s", format.SI(float64(p.Lag)), secs(p.LagSeconds)))
		if wide {
			line += st.Text.Render(fmt.Sprintf("%8s", format.Duration(p.P99)))
		}
		out = append(out, common.Fit(line, w))
	}
	return out
}

// lagBar is a bar of share f (0-1) coloured by the lag's age.
func lagBar(st themes.Styles, w int, f, age float64) string {
	p := 100 * f
	// Colour by age, not by share: a full bar of 10 ms of lag is fine.
	level := 30.0
	switch {
	case age >= 5:
		level = 90
	case age >= 1:
		level = 70
	}
	if p <= 0 {
		return common.Gauge(st, w, 0)
	}
	cells := int(f*float64(w) + 0.999)
	fill := strings.Repeat("█", min(cells, w))
	return common.LevelStyle(st, level)(fill) + st.GaugeEmpty.Render(strings.Repeat("░", w-min(cells, w)))
}

// grid draws one cell per partition, for many partitions: a row of rate
// levels and a row of lag levels per band of partitions.
func grid(v *rundata.PartitionsView, st themes.Styles, w, rows int) []string {
	maxRate, maxLag := scales(v)
	const label = 9 // "rows/s  " / "lag     "
	per := max(1, w-label)
	var out []string
	for start := 0; start < len(v.Parts) && len(out)+2 <= rows; start += per {
		end := min(len(v.Parts), start+per)
		var rl, ll strings.Builder
		rl.WriteString(st.Label.Render(common.Fit(fmt.Sprintf("rows/s %d", v.Parts[start].Index), label)))
		ll.WriteString(st.Label.Render(common.Fit("lag", label)))
		for _, p := range v.Parts[start:end] {
			if p.Held {
				rl.WriteString(st.Warn.Render("‖"))
			} else {
				rl.WriteString(common.Level(st, 100*p.Rate/maxRate))
			}
			level := 30.0
			switch {
			case p.LagSeconds >= 5:
				level = 90
			case p.LagSeconds >= 1:
				level = 70
			}
			if p.Lag == 0 {
				ll.WriteString(st.GaugeEmpty.Render("·"))
			} else {
				idx := int(float64(p.Lag) / maxLag * 7)
				ll.WriteString(common.LevelStyle(st, level)(string([]rune("▁▂▃▄▅▆▇█")[min(max(idx, 0), 7)])))
			}
		}
		out = append(out, rl.String(), ll.String())
	}
	shown := 0
	for start := 0; start < len(v.Parts) && (start/per+1)*2 <= rows; start += per {
		shown = min(len(v.Parts), start+per)
	}
	if shown < len(v.Parts) && len(out) > 0 {
		out[len(out)-1] = common.FitTail(out[len(out)-1], w-12) + st.Muted.Render(fmt.Sprintf(" +%d more", len(v.Parts)-shown))
	}
	return out
}
