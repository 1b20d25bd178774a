// Package agents draws the Agents panel of a fleet run: one row per agent
// (state, ops/s, p99, errors, client CPU, NIC rx/tx, clock offset) under
// the merged figures, or, where the screen is small, one summary line.
package agents

import (
	"fmt"
	"strings"
	"time"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/format"
)

// Height is the outer height the panel wants for n agents: a header row
// and one row each, inside the frame.
func Height(n int, bordered bool) int {
	if n == 0 {
		return 0
	}
	frame := 1
	if bordered {
		frame = 2
	}
	return frame + 1 + n
}

// Model is the Agents panel.
type Model struct {
	ctx  *common.Context
	w, h int
	view string
}

var _ common.Renderer[[]rundata.AgentRow] = (*Model)(nil)

// New returns an Agents panel drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// column widths: agent, state, threads, ops/s, p99, errors, cpu, nic,
// offset.
var widths = []int{14, 8, 7, 10, 9, 8, 6, 20, 9}

// Render draws one row per agent; rows that do not fit are summed up in
// the last line.
func (m *Model) Render(rows []rundata.AgentRow) {
	st := m.ctx.Styles
	iw, ih := common.Inner(m.ctx.Bordered, m.w, m.h)
	head := []string{"agent", "state", "threads", "ops/s", "p99", "errors", "cpu", "nic rx / tx", "offset"}
	lines := []string{" " + st.Label.Render(cells(head))}
	room := ih - 1
	show := rows
	if len(rows) > room && room > 0 {
		show = rows[:room-1]
	}
	for _, r := range show {
		lines = append(lines, " "+m.row(r))
	}
	if len(show) < len(rows) && room > 0 {
		lines = append(lines, " "+st.Muted.Render(fmt.Sprintf("… %d more: %s", len(rows)-len(show), Summary(rows[len(show):]))))
	}
	title := fmt.Sprintf("Agents · %d", len(rows))
	m.view = common.Panel(st, m.ctx.Bordered, title, clip(lines, iw), m.w, m.h)
}

func clip(lines []string, w int) []string {
	for i, l := range lines {
		lines[i] = common.FitTail(l, w)
	}
	return lines
}

func cells(vals []string) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(common.Fit(v, widths[i]))
	}
	return b.String()
}

// row is one agent; a lost or late agent's figures give way to what is
// known about it.
func (m *Model) row(r rundata.AgentRow) string {
	st := m.ctx.Styles
	state := stateStyle(st, r.State)(common.Fit(r.State, widths[1]))
	name := st.Text.Render(common.FitTail(r.Name, widths[0]))
	offset := st.Muted.Render(common.Fit(Offset(r.ClockOffset), widths[8]))
	threads := st.Value.Render(common.Fit(format.Int(int64(r.Threads)), widths[2]))
	switch r.State {
	case "lost":
		return name + " " + state + " " + st.Alarm.Render(r.Reason)
	case "late":
		note := "—"
		if r.Pending > 0 {
			note = fmt.Sprintf("interval %d pending", r.Pending)
		}
		dash := ""
		for _, w := range widths[2:8] {
			dash += common.Fit("—", w) + " "
		}
		return name + " " + state + " " + dash + st.Warn.Render(note)
	}
	errs := st.Value.Render(common.Fit(format.Int(r.Errors), widths[5]))
	if r.Errors > 0 {
		errs = st.Alarm.Render(common.Fit(format.Int(r.Errors), widths[5]))
	}
	cpu := "—"
	if r.CPU >= 0 {
		cpu = format.Percent(r.CPU)
	}
	p99 := "—"
	if r.P99 > 0 {
		p99 = format.Duration(r.P99)
	}
	nic := format.BytesRate(r.RxBytesPerSec) + " / " + format.BytesRate(r.TxBytesPerSec)
	return name + " " + state + " " + threads + " " +
		st.Value.Render(common.Fit(format.Int(int64(r.OpsPerSec+0.5)), widths[3])) + " " +
		st.Value.Render(common.Fit(p99, widths[4])) + " " + errs + " " +
		st.Value.Render(common.Fit(cpu, widths[6])) + " " +
		st.Value.Render(common.Fit(nic, widths[7])) + " " + offset
}

func stateStyle(st themes.Styles, state string) func(...string) string {
	switch state {
	case "lost":
		return st.Alarm.Render
	case "late":
		return st.Warn.Render
	case "running", "done":
		return st.Good.Render
	}
	return st.Muted.Render
}

// Offset renders a clock offset in ms with its sign: +0.4ms, -1.1ms.
func Offset(d time.Duration) string {
	ms := float64(d) / 1e6
	switch {
	case ms >= 100 || ms <= -100:
		return fmt.Sprintf("%+.0fms", ms)
	case ms >= 10 || ms <= -10:
		return fmt.Sprintf("%+.1fms", ms)
	}
	return fmt.Sprintf("%+.2fms", ms)
}

// Summary is the fleet in one line: "15 agents: 14 running, 1 late ·
// slowest vm7 p99 12.3ms".
func Summary(rows []rundata.AgentRow) string {
	if len(rows) == 0 {
		return ""
	}
	counts := map[string]int{}
	var order []string
	var slowest *rundata.AgentRow
	for i := range rows {
		r := &rows[i]
		if counts[r.State] == 0 {
			order = append(order, r.State)
		}
		counts[r.State]++
		if r.State != "lost" && r.State != "late" && r.P99 > 0 && (slowest == nil || r.P99 > slowest.P99) {
			slowest = r
		}
	}
	var parts []string
	for _, s := range []string{"running", "late", "lost", "done", "connecting"} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
			delete(counts, s)
		}
	}
	for _, s := range order {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	word := "agents"
	if len(rows) == 1 {
		word = "agent"
	}
	out := fmt.Sprintf("%d %s: %s", len(rows), word, strings.Join(parts, ", "))
	if slowest != nil && len(rows) > 1 {
		out += fmt.Sprintf(" · slowest %s p99 %s", slowest.Name, format.Duration(slowest.P99))
	}
	return out
}

// SummaryLine is Summary styled to one screen line of width w.
func SummaryLine(st themes.Styles, rows []rundata.AgentRow, w int) string {
	s := Summary(rows)
	style := st.Text.Render
	for _, r := range rows {
		if r.State == "lost" {
			style = st.Alarm.Render
			break
		}
		if r.State == "late" {
			style = st.Warn.Render
		}
	}
	return common.FitTail(" "+style(s), w)
}

// restMin is the height the merged panels under the Agents panel keep at
// least (throughput chart, latency and operations of a small mix).
const restMin = 17

// PanelHeight is the outer height the Agents panel gets of bodyH for n
// agents: all rows where they fit, fewer (with a summary row) where not,
// and 1 (the summary line alone) on a compact screen.
func PanelHeight(n int, bordered bool, bodyH int) int {
	if !bordered || n == 0 {
		return 1
	}
	want := Height(n, true)
	room := bodyH - restMin
	if room < Height(2, true) {
		return 1
	}
	return min(want, room)
}
