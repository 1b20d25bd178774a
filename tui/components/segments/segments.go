// Package segments draws the what-if table: one row per segment (the time
// between two changes) with its configuration and what it achieved, the
// best one marked ★ best and the knee marked ← knee.
package segments

import (
	"sort"
	"strconv"
	"strings"

	"benchtop/rundata"
	"benchtop/rundata/units"
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
	// Intervals shows each segment's 95 % confidence intervals (the
	// margins of ops/s and p99, ±) in place of p50 and p95: the table
	// keeps its width (i on the segments view toggles it).
	Intervals bool
}

// The columns of the intervals' margins (Intervals).
const (
	marginOps = "±ops"
	marginP99 = "±p99"
)

// withMargins renames the p50 and p95 columns to the margins' (only
// p95's, to ±ops, when p50 gave way to the p99 of intended latency).
func withMargins(cols []column) []column {
	out := append([]column(nil), cols...)
	p50 := hasColumn(cols, "p50")
	for i, c := range out {
		switch {
		case c.title == "p50":
			out[i].title = marginOps
		case c.title == "p95" && p50:
			out[i].title = marginP99
		case c.title == "p95":
			out[i].title = marginOps
		}
	}
	return out
}

var _ common.Renderer[*history.History] = (*Model)(nil)

// New returns a segments panel drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Height is the outer height the panel needs to show every segment of s
// with its summary, for a screen of the given bordering.
func Height(s *rundata.Snapshot, bordered bool) int {
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
		if s.SegmentsNote != "" {
			summary++
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
	var segs []rundata.Segment
	if h.Last != nil {
		segs = h.Last.Segments
	}
	l := m.layoutFor(segs, iw)
	if m.Intervals {
		l.cols = withMargins(l.cols)
	}
	lines := []string{m.header(l)}
	note := ""
	if h.Last != nil {
		note = h.Last.SegmentsNote
	}
	summary := m.summary(segs, note)
	rows := ih - 1 - len(summary)
	if len(summary) > 0 {
		rows-- // a blank line before the summary
	}
	if rows < 1 {
		summary = nil
		rows = ih - 1
	}
	start, end := m.visible(len(segs), rows)
	if start > 0 && rows > 1 {
		start++
		lines = append(lines, st.Muted.Render("  … "+strconv.Itoa(start)+" earlier (↑/↓ to scroll)"))
	}
	for _, s := range segs[start:end] {
		lines = append(lines, m.row(l.cols, l.extras, l.changeW, l.barW, l.peak, s))
	}
	if len(summary) > 0 {
		for len(lines) < ih-len(summary) {
			lines = append(lines, "")
		}
		for _, s := range summary {
			lines = append(lines, " "+s)
		}
	}
	m.view = common.Panel(st, bordered, l.title, lines, m.w, m.h)
}

// layout is how the table is drawn at a width: its columns, the extras
// (workload figures) among them, whether the wide titles and the
// baseline's Δ columns are used, the change and bar columns' widths, and
// the ops/s the bars are scaled to.
type layout struct {
	cols          []column
	extras        []string
	wide, deltas  bool
	changeW, barW int
	peak          float64
	title         string
}

// markW keeps room for "  ★ best" at the end of a row.
const markW = 9

func width(cols []column) int {
	n := 1
	for _, c := range cols {
		n += c.w
	}
	return n
}

func withDeltas(cols []column) []column {
	return append(cols, column{deltaOps, 9, false}, column{deltaP99, 9, false})
}

// columns are the table's columns, wide or narrow: with a target the p99
// of service time beside that of intended latency (narrow screens give up
// p50 for it), then the workload's extras.
func columns(wide, intended bool, extras []string) []column {
	cols := []column{{"#", 3, false}, {"from", 6, false}, {"dur", 6, false}, {"thr", 4, false},
		{"part", 5, false}, {"target", 7, false}, {"ops/s", 7, false}, {"p50", 7, false},
		{"p95", 7, false}, {"p99", 7, false}, {"err", 5, false}, {"cpu", 5, false}}
	if wide {
		cols = []column{{"#", 3, false}, {"from", 9, false}, {"duration", 9, false}, {"threads", 8, false},
			{"partitions", 11, false}, {"target", 9, false}, {"ops/s", 11, false}, {"p50", 8, false},
			{"p95", 8, false}, {"p99", 8, false}, {"errors", 8, false}, {"cpu", 6, false}}
	}
	if intended {
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

// layoutFor chooses the layout of segs at inner width iw: wide titles
// from 110 columns, the baseline's Δ columns where they fit (its segment
// of the same configuration), extras dropped from the right when they do
// not, then the change and bar columns in the room left.
func (m *Model) layoutFor(segs []rundata.Segment, iw int) layout {
	l := layout{title: "Segments · one row per configuration held (● the current one) · tab: back"}
	intended := false
	seen := map[string]bool{}
	for _, g := range segs {
		if g.Target > 0 && g.IntendedP99 > 0 {
			intended = true
		}
		for k := range g.Extra {
			if !seen[k] {
				seen[k] = true
				l.extras = append(l.extras, k)
			}
		}
		l.peak = max(l.peak, g.OpsPerSec)
	}
	sort.Strings(l.extras)
	bl := m.ctx.Baseline
	withDelta := bl != nil && bl.SegmentLike != nil
	l.cols = columns(true, intended, l.extras)
	l.wide = iw >= 110 && width(l.cols)+markW <= iw
	switch {
	case withDelta && iw >= 110 && width(withDeltas(columns(true, intended, l.extras)))+markW <= iw:
		l.cols, l.wide, l.deltas = withDeltas(columns(true, intended, l.extras)), true, true
	case withDelta && width(withDeltas(columns(false, intended, l.extras)))+markW <= iw:
		l.cols, l.wide, l.deltas = withDeltas(columns(false, intended, l.extras)), false, true
	case !l.wide:
		narrow := columns(false, intended, l.extras)
		l.cols = narrow
		for width(l.cols)+markW > iw && len(l.cols) > len(narrow)-len(l.extras) {
			l.cols = l.cols[:len(l.cols)-1] // extras that do not fit
		}
	}
	if !l.deltas {
		l.extras = l.extras[:max(0, len(l.cols)-len(columns(l.wide, intended, l.extras))+len(l.extras))]
	} else {
		l.title = "Segments (● the current one) · Δ: against baseline " + bl.Name + ", same configuration · tab: back"
	}
	used := width(l.cols)
	if l.wide && iw-used-10 >= 14 {
		l.changeW = min(24, iw-used-10)
	}
	// A bar of ops/s per segment where room is left, so the best and the
	// knee stand out at a glance.
	if rest := iw - used - l.changeW - 2 - 16; l.wide && rest >= 10 {
		l.barW = min(30, rest)
	}
	return l
}

// header is the table's title row.
func (m *Model) header(l layout) string {
	var hb strings.Builder
	debt := -1 // the line's leading space is the first column's
	for _, c := range l.cols {
		title := c.title
		if title == "ops/s" {
			title = m.rateUnit(c.w)
		}
		var v string
		v, debt = cell(c, title, debt)
		hb.WriteString(v)
	}
	if l.changeW > 0 {
		hb.WriteString("  " + common.Fit("change", l.changeW))
	}
	if l.barW > 0 {
		hb.WriteString("  " + common.Fit("ops/s", l.barW))
	}
	return m.ctx.Styles.TableHeader.Render(hb.String())
}

// summary are the lines under the table: the answer in words, and when
// best is undecided, why (note).
func (m *Model) summary(segs []rundata.Segment, note string) []string {
	st := m.ctx.Styles
	if len(segs) == 0 {
		return []string{st.Muted.Render(" No segment yet: each change of threads, partitions or target (or r) starts one.")}
	}
	var out []string
	for _, s := range segs {
		if s.Best {
			out = append(out, st.Best.Render("★ best")+" "+st.Text.Render(m.describe(s)))
		}
	}
	for _, s := range segs {
		if s.Knee {
			out = append(out, st.Knee.Render("← knee")+" "+st.Text.Render("#"+strconv.Itoa(s.Index)+
				": from here p99 grows faster than throughput"))
		}
	}
	if note != "" {
		out = append(out, st.Muted.Render(note))
	}
	return out
}

// visible is the range of the n segments shown in rows: the newest that
// fit, moved up by the scroll (kept within the table).
func (m *Model) visible(n, rows int) (start, end int) {
	end = n - m.scroll
	if end < min(rows, n) {
		end = min(rows, n)
		m.scroll = n - end
	}
	return max(0, end-rows), end
}

func (m *Model) describe(s rundata.Segment) string {
	rate, p99 := "", ""
	if m.Intervals {
		rate = strings.TrimSuffix(" "+units.Margin(s.OpsPerSec, s.OpsPerSecLow, s.OpsPerSecHigh), " ")
		if s.HasLatency {
			p99 = strings.TrimSuffix(" "+units.Margin(float64(s.P99), float64(s.P99Low), float64(s.P99High)), " ")
		}
	}
	return "#" + strconv.Itoa(s.Index) + ": " + plural(s.Threads, "thread") + ", " +
		plural(s.Partitions, "partition") + ", target " + format.Target(s.Target) +
		" → " + format.SI(s.OpsPerSec) + " " + m.rateUnit(99) + rate + ", p99 " + format.Latency(s.P99, s.HasLatency) + p99
}

// orDash is v, or "-" when it is empty (no interval known).
func orDash(v string) string {
	if v == "" {
		return "-"
	}
	return v
}

// rateUnit is the unit of the segments' rate in w cells at most: ops/s,
// or the workload's own (the time series' records/s, rec/s when narrow).
func (m *Model) rateUnit(w int) string {
	u := m.ctx.Info.RateUnit
	if u == "" {
		return "ops/s"
	}
	if common.Width(u) >= w {
		if i := strings.Index(u, "/"); i > 3 {
			return u[:3] + u[i:]
		}
	}
	return u
}

// cell is v in its column: left-aligned, or right-aligned after at least
// one space. A value too wide for its column takes the cells it needs
// from the columns after it, debt being the cells already taken (-1: one
// more to spare, the line's leading space): it returns the new debt, so
// that a row's columns stay under their titles.
func cell(c column, v string, debt int) (string, int) {
	w := c.w - debt
	n := common.Width(v) // display cells, not bytes: "●" is 3 bytes, 1 cell
	if c.left {
		if n < w {
			return v + strings.Repeat(" ", w-n), 0
		}
		return v + " ", n + 1 - w
	}
	if n < w {
		return strings.Repeat(" ", w-n) + v, 0
	}
	return " " + v, n + 1 - w
}

func (m *Model) row(cols []column, extras []string, changeW, barW int, peak float64, s rundata.Segment) string {
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
		format.Latency(s.P50, s.HasLatency),
		format.Latency(s.P95, s.HasLatency),
		format.Latency(s.P99, s.HasLatency),
		format.Int(s.Errors),
		format.KnownPercent(s.CPU),
	}
	if cols[6].w >= 11 {
		vals[6] = format.Int(int64(s.OpsPerSec + 0.5))
	}
	if hasColumn(cols, "p99 int") {
		vals[9] = format.Latency(s.ServiceP99, s.HasLatency)
		if s.ServiceP99 == 0 {
			vals[9] = format.Latency(s.P99, s.HasLatency)
		}
		ip := "-"
		if s.Target > 0 && s.IntendedP99 > 0 && s.HasLatency {
			ip = format.Duration(s.IntendedP99)
		} else if s.Target > 0 && !s.HasLatency {
			ip = format.NoLatency
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
	for i, c := range cols {
		switch c.title {
		case marginOps:
			vals[i] = orDash(units.Margin(s.OpsPerSec, s.OpsPerSecLow, s.OpsPerSecHigh))
		case marginP99:
			vals[i] = "-"
			if s.HasLatency {
				vals[i] = orDash(units.Margin(float64(s.P99), float64(s.P99Low), float64(s.P99High)))
			}
		}
	}
	var b strings.Builder
	debt := -1 // the line's leading space: "●12" keeps its digits under "#"
	for i, c := range cols {
		var v string
		v, debt = cell(c, vals[i], debt)
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
	var tags []string
	if s.Best {
		tags = append(tags, st.Best.Render("★ best"))
	}
	if s.Knee {
		tags = append(tags, st.Knee.Render("← knee"))
	}
	if len(tags) == 0 && s.State != "" && s.State != rundata.Qualified {
		// Not judged by the rules: say so rather than skip it silently.
		tags = append(tags, st.Muted.Render("("+string(s.State)+")"))
	}
	if len(tags) > 0 {
		b.WriteString("  " + strings.Join(tags, " "))
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
func (m *Model) deltas(s rundata.Segment) []string {
	g, ok := m.ctx.Baseline.Segment(s.Threads, s.Partitions, s.Target)
	if !ok {
		return []string{"-", "-"}
	}
	dp99 := "-"
	if s.HasLatency && g.P99US != nil {
		p99 := float64(s.P99) / 1e3 // µs, as the summary holds it
		dp99 = common.SignedPct(common.PctChange(*g.P99US, p99))
	}
	return []string{common.SignedPct(common.PctChange(g.OpsPerSec, s.OpsPerSec)), dp99}
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
