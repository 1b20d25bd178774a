// Package header draws the two top lines: what runs where and how far it
// is, then the live controls (Threads, Partitions, Target) next to the
// throughput they produce.
package header

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"benchtop/rundata"
	"benchtop/tui/common"
	"benchtop/tui/format"
	"benchtop/tui/history"
)

// Height is how many lines the header takes.
const Height = 2

// State is what the header shows beyond the snapshot: the UI's own state.
type State struct {
	Finished bool // the snapshot channel closed: the run is over
	Stopping bool // q was pressed; waiting for the final snapshot
	// Pending values asked for but not yet seen in a snapshot (0 / false:
	// none).
	WantThreads, WantPartitions int
	WantTarget                  float64
	TargetPending               bool
	Paused                      bool // the paused state the UI believes in
	// Viewers is how many SSH viewers watch (-1: no SSH server); ReadOnly
	// marks this screen as a read-only viewer's.
	Viewers  int
	ReadOnly bool
	// Thresholds is the --threshold verdict so far.
	Thresholds Thresholds
}

// Model is the header component.
type Model struct {
	ctx           *common.Context
	width, height int
	view          string
}

var _ common.Component = (*Model)(nil)

// New returns a header drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size: the header has two lines, so the screen
// gives it Height; a smaller h cuts the second line.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// View returns the header drawn by the last Render.
func (m Model) View() string { return m.view }

// Render draws the header from the history and the UI state.
func (m *Model) Render(h *history.History, s State) {
	m.view = common.Block([]string{m.line1(h, s), m.line2(h, s)}, m.width, m.height)
}

func (m *Model) line1(h *history.History, s State) string {
	st := m.ctx.Styles
	info := m.ctx.Info
	w := m.width
	snap := h.Last

	// Right: elapsed and state.
	elapsed := format.Clock(h.Elapsed())
	var state string
	switch {
	case s.Finished:
		state = st.Good.Render("■ finished") + st.Muted.Render(" · q to quit")
	case s.Stopping:
		state = st.Warn.Render("■ stopping…")
	case s.Paused:
		state = st.Warn.Render("❚❚ paused")
	case snap == nil:
		state = st.Muted.Render("○ starting")
	case snap.NoSuccess >= rundata.OutageIntervals:
		// Operations are attempted and none succeeds: an outage (the run
		// will exit 1), not a run that merely slowed down.
		d := format.Span(time.Duration(snap.NoSuccess) * snap.Interval)
		state = st.Alarm.Render("✗ outage " + d)
		if w >= 100 {
			state = st.Alarm.Render("✗ outage · nothing succeeded for " + d)
		}
	default:
		state = st.Good.Render("● running")
	}
	right := st.Value.Render(elapsed) + "  " + state
	if mark := thresholdMark(st, s.Thresholds); mark != "" { // --threshold (threshold.go)
		right = mark + "  " + right
	}
	if s.ReadOnly {
		right += st.Muted.Render(" · read-only")
	}
	if s.Viewers >= 0 {
		v := strconv.Itoa(s.Viewers) + " viewers"
		if s.Viewers == 1 {
			v = "1 viewer"
		}
		right += st.Muted.Render(" · ") + st.Accent.Render(v)
	}

	// Left: parts dropped from the least important when room is short.
	phase := string(rundata.PhaseRun)
	progress := -1.0
	if snap != nil {
		phase = string(snap.Phase)
		progress = snap.Progress
	} else if info.Command != "" {
		phase = info.Command
	}
	workload := info.Workload
	mix := info.Mix
	target := info.Target
	if snap != nil {
		// The adapter describes itself once, at open ("memory in-process,
		// 1 partition"): its partition count follows the live value.
		target = LivePartitions(target, snap.Partitions)
	}
	barW := 16
	if w < 100 {
		barW = 10
	}
	build := func(withMix, withTarget, withWorkload bool, barW int) string {
		var b strings.Builder
		b.WriteString(" " + st.App.Render("benchtop") + "  ")
		b.WriteString(st.Text.Render(info.Adapter))
		if withTarget && target != "" {
			b.WriteString(" " + st.Muted.Render(target))
		}
		if withWorkload && workload != "" {
			b.WriteString(st.Muted.Render(" · ") + st.Text.Render(workload))
			if withMix && mix != "" {
				b.WriteString(st.Muted.Render(" (" + mix + ")"))
			}
		}
		b.WriteString(st.Muted.Render(" · ") + st.Accent.Render(phase))
		if progress >= 0 && barW > 0 {
			p := progress * 100
			b.WriteString(" " + common.Gauge(st, barW, p) + " " + st.Value.Render(format.Percent(p)))
		}
		return b.String()
	}
	room := w - common.Width(right) - 2
	candidates := []string{
		build(true, true, true, barW),
		build(false, true, true, barW),
		build(false, false, true, barW),
		build(false, false, true, 6),
		build(false, false, false, 6),
	}
	left := candidates[len(candidates)-1]
	for _, c := range candidates {
		if common.Width(c) <= room {
			left = c
			break
		}
	}
	return common.Spread(common.FitTail(left, max(room, 1)), right+" ", w)
}

var partitionsRE = regexp.MustCompile(`\b\d+ partitions?\b`)

// LivePartitions replaces a partition count in an adapter's description
// with the count in force.
func LivePartitions(desc string, n int) string {
	if n <= 0 {
		return desc
	}
	word := " partitions"
	if n == 1 {
		word = " partition"
	}
	return partitionsRE.ReplaceAllString(desc, strconv.Itoa(n)+word)
}

func (m *Model) line2(h *history.History, s State) string {
	st := m.ctx.Styles
	w := m.width
	snap := h.Last
	var threads, partitions int
	var target, cur, mean, failed float64
	var errs int64
	if snap != nil {
		threads, partitions, target = snap.Threads, snap.Partitions, snap.Target
		cur = h.CurRate
		mean = h.MeanRate
		failed = h.CurFailed
		errs = snap.Total.Cumulative.Errors
	}
	want := func(n int) string {
		if n > 0 {
			return st.Muted.Render("→" + strconv.Itoa(n))
		}
		return ""
	}
	num := func(n int) string {
		if snap == nil {
			return "-" // not known before the first snapshot
		}
		return strconv.Itoa(n)
	}
	threadsS := st.Value.Render(num(threads)) + want(s.WantThreads)
	if n, total := fleetThreads(snap); n > 0 && snap != nil {
		// A fleet: threads are per agent; the total is every running
		// agent's.
		threadsS = st.Value.Render(num(threads)) + want(s.WantThreads) + st.Label.Render("/agent") +
			st.Muted.Render(fmt.Sprintf(" (%d total)", total))
	}
	controls := " " + st.Label.Render("Threads ") + threadsS +
		"   " + st.Label.Render("Partitions ") + st.Value.Render(num(partitions)) + want(s.WantPartitions) +
		"   " + st.Label.Render("Target ") + st.Value.Render(format.Target(target))
	if s.TargetPending {
		controls += st.Muted.Render("→" + format.TargetShort(s.WantTarget))
	}
	if common.Width(controls) > w*6/10 {
		// Tighter spacing on narrow screens.
		controls = strings.ReplaceAll(controls, "   ", "  ")
	}

	errStyle := st.Value
	if errs > 0 {
		errStyle = st.Alarm
	}
	unit := h.Unit
	if unit == "" {
		unit = "ops/s"
	}
	// The rate is successful operations; failed ones beside it when any
	// failed in the interval.
	nowS := st.Accent.Render(format.SI(cur)) + st.Label.Render(" "+unit)
	if h.MBps > 0 {
		nowS += "  " + st.Value.Render(fmt.Sprintf("%.0f", h.MBps)) + st.Label.Render(" MB/s")
	}
	if failed > 0 {
		nowS += "  " + st.Label.Render("failed ") + st.Alarm.Render(format.SI(failed)+"/s")
	}
	meanS := st.Label.Render("mean ") + st.Value.Render(format.SI(mean))
	maxS := st.Label.Render("max ") + st.Value.Render(format.SI(h.MaxRate))
	errS := st.Label.Render("errors ") + errStyle.Render(format.Int(errs))
	errShort := st.Label.Render("err ") + errStyle.Render(format.SI(float64(errs)))

	options := [][]string{
		{nowS, meanS, maxS, errS},
		{nowS, meanS, maxS, errShort},
		{nowS, maxS, errShort},
		{nowS, errShort},
		{nowS},
	}
	for _, o := range options {
		for _, gap := range []string{"   ", "  "} {
			right := strings.Join(o, gap) + " "
			if common.Width(controls)+2+common.Width(right) <= w {
				return common.Spread(controls, right, w)
			}
		}
	}
	return common.Fit(controls, w)
}

// fleetThreads is a fleet run's agents not lost and their threads in all
// (0, 0 for a run of one process).
func fleetThreads(snap *rundata.Snapshot) (agents, total int) {
	if snap == nil {
		return 0, 0
	}
	for _, a := range snap.Agents {
		if a.State == "lost" {
			continue
		}
		agents++
		if a.Threads > 0 {
			total += a.Threads
		} else {
			total += snap.Threads
		}
	}
	return agents, total
}
