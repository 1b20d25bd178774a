// Package segments draws the what-if table: one row per segment (the time
// between two changes) with its configuration and what it achieved, the
// best one marked ★ best and the knee marked ← knee.
package segments

import (
	"sort"
	"strconv"
	"strings"

	"benchtop/engine"
	"benchtop/tui/common"
	"benchtop/tui/format"
	"benchtop/tui/history"
)

// Model is the segments panel.
type Model struct {
	ctx  *common.Context
	w, h int
	// scroll is how many rows the view is moved up from the newest.
	scroll int
	view   string
}

// New returns a segments panel drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Height is the outer height the panel needs to show every segment of s
// with its summary, for a screen of the given bordering.
func Height(s *engine.Snapshot, bordered bool) int {
	frame := 1
	if bordered {
		frame = 2
	}
	n := 0
	summary := 1
	if s != nil {
		n = len(s.Segments)
		summary = 0
		for _, g := range s.Segments {
			if g.Best {
				summary++
			}
			if g.Knee {
				summary++
			}
		}
	}
	h := frame + 1 + n
	if summary > 0 {
		h += 1 + summary
	}
	return h
}

// Scroll moves the view by delta rows (positive: towards older segments).
func (m *Model) Scroll(delta int) {
	m.scroll = max(0, m.scroll+delta)
}

type column struct {
	title string
	w     int
	left  bool
}

// Render draws the table from the newest snapshot's segments.
func (m *Model) Render(h *history.History) {
	st := m.ctx.Styles
	bordered := m.ctx.Bordered
	iw, ih := common.Inner(bordered, m.w, m.h)
	var segs []engine.Segment
	if h.Last != nil {
		segs = h.Last.Segments
	}
	title := "Segments · one row per configuration held (● the current one) · tab: back"
	// With a target, p99 of the service time beside that of the latency
	// from the intended start.
	intended := false
	for _, g := range segs {
		if g.Target > 0 && g.IntendedP99 > 0 {
			intended = true
		}
	}
	var extras []string
	seen := map[string]bool{}
	for _, s := range segs {
		for k := range s.Extra {
			if !seen[k] {
				seen[k] = true
				extras = append(extras, k)
			}
		}
	}
	sort.Strings(extras)
	// The baseline's figures beside the live ones (its segment of the same
	// configuration) where they fit.
	bl := m.ctx.Baseline
	withDelta := bl != nil && bl.Summary != nil && len(bl.Summary.Segments) > 0
	build := func(wide bool) []column {
		cols := []column{{"#", 3, false}, {"from", 6, false}, {"dur", 6, false}, {"thr", 4, false},
			{"part", 5, false}, {"target", 7, false}, {"ops/s", 7, false}, {"p50", 7, false},
			{"p95", 7, false}, {"p99", 7, false}, {"err", 5, false}, {"cpu", 5, false}}
		if wide {
			cols = []column{{"#", 3, false}, {"from", 9, false}, {"duration", 9, false}, {"threads", 8, false},
				{"partitions", 11, false}, {"target", 9, false}, {"ops/s", 11, false}, {"p50", 8, false},
				{"p95", 8, false}, {"p99", 8, false}, {"errors", 8, false}, {"cpu", 6, false}}
		}
		if intended {
			// p99 of service time and of intended latency side by side;
			// narrow screens give up p50 for it.
			cols[9].title = "p99 svc"
			cols = append(cols[:10], append([]column{{"p99 int", cols[9].w, false}}, cols[10:]...)...)
			if !wide {
				cols = append(cols[:7], cols[8:]...)
			}
		}
		for _, k := range extras {
			cols = append(cols, column{ExtraName(k), max(8, len(ExtraName(k))+2), false})
		}
		return cols
	}
	withDeltas := func(cols []column) []column {
		return append(cols, column{deltaOps, 9, false}, column{deltaP99, 9, false})
	}
	width := func(cols []column) int {
		n := 1
		for _, c := range cols {
			n += c.w
		}
		return n
	}
	// markW keeps room for "  ★ best" at the end of a row.
	const markW = 9
	cols := build(true)
	wide := iw >= 110 && width(cols)+markW <= iw
	deltas := false
	switch {
	case withDelta && iw >= 110 && width(withDeltas(build(true)))+markW <= iw:
		cols, wide, deltas = withDeltas(build(true)), true, true
	case withDelta && width(withDeltas(build(false)))+markW <= iw:
		cols, wide, deltas = withDeltas(build(false)), false, true
	case !wide:
		cols = build(false)
		for width(cols)+markW > iw && len(cols) > len(build(false))-len(extras) {
			cols = cols[:len(cols)-1] // extras that do not fit
		}
	}
	if !deltas {
		extras = extras[:max(0, len(cols)-len(build(wide))+len(extras))]
	}
	if deltas {
		title = "Segments (● the current one) · Δ: against baseline " + bl.Name + ", same configuration · tab: back"
	}
	used := width(cols)
	changeW := 0
	if wide && iw-used-10 >= 14 {
		changeW = min(24, iw-used-10)
	}
	// A bar of ops/s per segment where room is left, so the best and the
	// knee stand out at a glance.
	barW := 0
	if rest := iw - used - changeW - 2 - 16; wide && rest >= 10 {
		barW = min(30, rest)
	}
	peak := 0.0
	for _, s := range segs {
		peak = max(peak, s.OpsPerSec)
	}

	var hb strings.Builder
	hb.WriteString(" ")
	for _, c := range cols {
		hb.WriteString(cell(c, c.title))
	}
	if changeW > 0 {
		hb.WriteString("  " + common.Fit("change", changeW))
	}
	if barW > 0 {
		hb.WriteString("  " + common.Fit("ops/s", barW))
	}
	lines := []string{st.TableHeader.Render(hb.String())}

	// Summary lines under the table: the answer in words.
	var summary []string
	for _, s := range segs {
		if s.Best {
			summary = append(summary, st.Best.Render("★ best")+" "+st.Text.Render(describe(s)))
		}
	}
	for _, s := range segs {
		if s.Knee {
			summary = append(summary, st.Knee.Render("← knee")+" "+st.Text.Render("#"+strconv.Itoa(s.Index)+
				": from here p99 grows faster than throughput"))
		}
	}
	if len(segs) == 0 {
		summary = []string{st.Muted.Render(" No segment yet: each change of threads, partitions or target (or r) starts one.")}
	}
	rows := ih - 1 - len(summary)
	if len(summary) > 0 {
		rows-- // a blank line before the summary
	}
	if rows < 1 {
		summary = nil
		rows = ih - 1
	}

	// The newest rows that fit, moved up by scroll.
	end := len(segs) - m.scroll
	if end < min(rows, len(segs)) {
		end = min(rows, len(segs))
		m.scroll = len(segs) - end
	}
	start := max(0, end-rows)
	if start > 0 && rows > 1 {
		start++
		lines = append(lines, st.Muted.Render("  … "+strconv.Itoa(start)+" earlier (↑/↓ to scroll)"))
	}
	for _, s := range segs[start:end] {
		lines = append(lines, m.row(cols, extras, changeW, barW, peak, s))
	}
	if len(summary) > 0 {
		for len(lines) < ih-len(summary) {
			lines = append(lines, "")
		}
		for _, l := range summary {
			lines = append(lines, " "+l)
		}
	}
	m.view = common.Panel(st, bordered, title, lines, m.w, m.h)
}

func describe(s engine.Segment) string {
	return "#" + strconv.Itoa(s.Index) + ": " + plural(s.Threads, "thread") + ", " +
		plural(s.Partitions, "partition") + ", target " + format.Target(s.Target) +
		" → " + format.SI(s.OpsPerSec) + " ops/s, p99 " + format.Duration(s.P99)
}

func cell(c column, v string) string {
	if c.left {
		return common.Fit(v, c.w)
	}
	if n := common.Width(v); n < c.w {
		return strings.Repeat(" ", c.w-n) + v
	}
	return " " + v
}

func (m *Model) row(cols []column, extras []string, changeW, barW int, peak float64, s engine.Segment) string {
	st := m.ctx.Styles
	index := strconv.Itoa(s.Index)
	if s.Open {
		index = "●" + index // the current segment, still growing
	}
	vals := []string{
		index,
		format.Short(s.Start),
		format.Span(s.Duration()),
		strconv.Itoa(s.Threads),
		strconv.Itoa(s.Partitions),
		format.TargetShort(s.Target),
		format.SI(s.OpsPerSec),
		format.Duration(s.P50),
		format.Duration(s.P95),
		format.Duration(s.P99),
		format.Int(s.Errors),
		format.KnownPercent(s.CPU),
	}
	if cols[6].w >= 11 {
		vals[6] = format.Int(int64(s.OpsPerSec + 0.5))
	}
	if hasColumn(cols, "p99 int") {
		vals[9] = format.Duration(s.ServiceP99)
		if s.ServiceP99 == 0 {
			vals[9] = format.Duration(s.P99)
		}
		ip := "-"
		if s.Target > 0 && s.IntendedP99 > 0 {
			ip = format.Duration(s.IntendedP99)
		}
		vals = append(vals[:10], append([]string{ip}, vals[10:]...)...)
		if !hasColumn(cols, "p50") {
			vals = append(vals[:7], vals[8:]...)
		}
	}
	for _, k := range extras {
		if v, ok := s.Extra[k]; ok {
			vals = append(vals, format.SI(v))
		} else {
			vals = append(vals, "-")
		}
	}
	if hasColumn(cols, deltaOps) {
		vals = append(vals, m.deltas(s)...)
	}
	var b strings.Builder
	b.WriteString(" ")
	for i, c := range cols {
		v := cell(c, vals[i])
		switch {
		case (c.title == "err" || c.title == "errors") && s.Errors > 0:
			b.WriteString(st.Alarm.Render(v))
		case c.title == "ops/s" && i < 8:
			b.WriteString(st.Value.Render(v))
		default:
			b.WriteString(st.Text.Render(v))
		}
	}
	if changeW > 0 {
		b.WriteString("  " + st.Muted.Render(common.FitTail(s.Label, changeW)))
	}
	if barW > 0 {
		n := 0
		if peak > 0 {
			n = int(s.OpsPerSec / peak * float64(barW))
		}
		b.WriteString("  " + st.ChartLine.Render(strings.Repeat("█", n)) + strings.Repeat(" ", barW-n))
	}
	var marks []string
	if s.Best {
		marks = append(marks, st.Best.Render("★ best"))
	}
	if s.Knee {
		marks = append(marks, st.Knee.Render("← knee"))
	}
	if len(marks) > 0 {
		b.WriteString("  " + strings.Join(marks, " "))
	}
	return b.String()
}

// ExtraName is the column title of a workload figure: rows_per_sec →
// rows/s, mb_per_sec → MB/s.
func ExtraName(k string) string {
	name := strings.TrimSuffix(k, "_per_sec")
	switch name {
	case "mb":
		name = "MB"
	case "kb":
		name = "kB"
	case "gb":
		name = "GB"
	}
	name = strings.ReplaceAll(name, "_", " ")
	if strings.HasSuffix(k, "_per_sec") {
		name += "/s"
	}
	return name
}

// The columns of the differences against the baseline's segment of the
// same configuration.
const (
	deltaOps = "Δ ops/s"
	deltaP99 = "Δ p99"
)

// deltas are the Δ ops/s and Δ p99 cells of s: its change against the
// baseline's segment of the same threads, partitions and target, "-" when
// the baseline never held that configuration.
func (m *Model) deltas(s engine.Segment) []string {
	g, ok := m.ctx.Baseline.Segment(s.Threads, s.Partitions, s.Target)
	if !ok {
		return []string{"-", "-"}
	}
	p99 := float64(s.P99) / 1e3 // µs, as the summary holds it
	return []string{common.SignedPct(common.PctChange(g.OpsPerSec, s.OpsPerSec)), common.SignedPct(common.PctChange(g.P99US, p99))}
}

func hasColumn(cols []column, title string) bool {
	for _, c := range cols {
		if c.title == title {
			return true
		}
	}
	return false
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
