package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"benchtop/tui/components/agents"
	"benchtop/tui/components/errpanel"
	"benchtop/tui/components/header"
	"benchtop/tui/components/hostpanel"
	"benchtop/tui/components/latency"
	"benchtop/tui/components/opstable"
	"benchtop/tui/components/search"
	"benchtop/tui/components/segments"
	"benchtop/tui/components/throughput"
)

// This file lays the screen out: rebuild stacks the header, the body of
// the view shown, the status lines and the help line, and gives each
// component its size before it draws. It reads the model and changes only
// the components' sizes and drawings and m.frame.

// MinWidth and MinHeight are the smallest screen the TUI draws on.
const (
	MinWidth  = 80
	MinHeight = 24
)

// View returns the screen built by the last change.
func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	return m.frame
}

// rebuild lays the screen out and redraws it into m.frame. It runs when a
// snapshot arrives or something on screen changes, never from View.
func (m *Model) rebuild() {
	w, h := m.ctx.Width, m.ctx.Height
	if w <= 0 || h <= 0 {
		m.frame = ""
		return
	}
	if w < MinWidth || h < MinHeight {
		msg := fmt.Sprintf("benchtop needs at least %dx%d to draw;\nthis terminal is %dx%d.\n\nEnlarge it, or press q to quit.",
			MinWidth, MinHeight, w, h)
		m.frame = lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, msg)
		return
	}
	m.ctx.Bordered = w >= 100 && h >= 30

	status := m.statusLines(w)
	helpLines := m.helpLines(w)

	m.header.SetSize(w, header.Height)
	m.header.Render(m.hist, m.headerState())

	bodyH := h - header.Height - len(status) - len(helpLines)
	var body string
	switch {
	case m.showHelp:
		body = m.fullHelp(w, bodyH)
	case m.demoEnd():
		body = m.endCard(w, bodyH)
	case m.view == viewSegments:
		body = m.segmentsBody(w, bodyH)
	case m.view == viewPartitions && m.hist.Stream != nil:
		m.parts.SetSize(w, bodyH)
		m.parts.Render(m.hist.Stream)
		body = m.parts.View()
	default:
		body = m.mainBody(w, bodyH)
	}
	parts := []string{m.header.View(), body}
	parts = append(parts, status...)
	parts = append(parts, helpLines...)
	m.frame = strings.Join(parts, "\n")
}

// headerState is what the header shows beyond the snapshots: the values
// asked for and not yet seen, and the screen's own state.
func (m *Model) headerState() header.State {
	return header.State{
		Finished:       m.closed,
		Stopping:       m.stopping && !m.closed,
		WantThreads:    wantInt(m.threads),
		WantPartitions: wantInt(m.partitions),
		WantTarget:     m.target.want,
		TargetPending:  m.target.set,
		Paused:         m.curPaused(),
		Viewers:        m.viewers(),
		ReadOnly:       m.opts.ReadOnly,
		Thresholds:     thresholdState(m.ctx.Info, m.hist.Last),
	}
}

// mainBody lays out throughput and host on top, latency and operations
// under them, giving the chart what the others leave.
func (m *Model) mainBody(w, bodyH int) string {
	bordered := m.ctx.Bordered
	frame := 1
	if bordered {
		frame = 2
	}
	s := m.last()
	// The chart keeps 6 rows, its axis and its marker labels.
	minTop := frame + 8
	// fleet: the Agents panel above the merged panels, or one summary line.
	var fleetBlock string
	if s != nil && len(s.Agents) > 0 {
		if ph := agents.PanelHeight(len(s.Agents), bordered, bodyH); ph > 1 {
			am := agents.New(m.ctx)
			am.SetSize(w, ph)
			am.Render(s.Agents)
			fleetBlock, bodyH = am.View(), bodyH-ph
		} else {
			fleetBlock, bodyH = agents.SummaryLine(m.ctx.Styles, s.Agents, w), bodyH-1
		}
	}

	mode := m.latency.Mode
	latRows := max(1, latency.RowCount(s, mode))
	tabRows := opstable.Rows(s, true)
	m.ops.ShowIntended = true
	// The intended rows of the table repeat what the latency panel shows:
	// only where the chart keeps a good share of the screen.
	if bodyH-(frame+latRows)-(frame+tabRows) < max(minTop, bodyH*45/100) {
		tabRows = opstable.Rows(s, false)
		m.ops.ShowIntended = false
	}
	if bodyH-(frame+latRows)-(frame+tabRows) < minTop && mode == latency.Both && latency.HasIntended(s) {
		// Short of room: the corrected latency is the truthful one.
		mode = latency.Intended
		latRows = max(1, latency.RowCount(s, mode))
	}
	latH := frame + latRows
	tabH := frame + tabRows
	if top := bodyH - latH - tabH; top < minTop {
		tabH = max(0, tabH-(minTop-top))
		if tabH < frame+2 {
			tabH = 0
		}
	}
	if top := bodyH - latH - tabH; top < minTop {
		latH = max(frame+1, bodyH-tabH-minTop)
	}
	// The errors panel (causes) where the chart keeps a good share.
	errH := errpanel.Height(s, bordered)
	if bodyH-latH-tabH-errH < max(minTop, bodyH*40/100) {
		errH = 0
	}
	top := bodyH - latH - tabH - errH
	// Room to spare: taller sparklines, as long as the chart keeps half.
	for sparkH := 1; sparkH < 2 && top-latRows >= bodyH/2; sparkH++ {
		latH += latRows
		top -= latRows
	}

	hostW := hostpanel.Width(w, bordered)
	gap := 0
	if !bordered {
		gap = 1
	}
	tpW := w - hostW - gap
	m.throughput.SetSize(tpW, top)
	m.throughput.Render(m.hist)
	m.host.SetSize(hostW, top)
	m.host.Render(m.hist)

	saved := m.latency.Mode
	m.latency.Mode = mode
	m.latency.SetSize(w, latH)
	m.latency.Render(m.hist)
	m.latency.Mode = saved

	parts := []string{joinColumns(m.throughput.View(), m.host.View(), gap), m.latency.View()}
	if errH > 0 {
		m.errs.SetSize(w, errH)
		m.errs.Render(m.hist)
		parts = append(parts, m.errs.View())
	}
	if fleetBlock != "" {
		parts = append([]string{fleetBlock}, parts...)
	}
	if tabH > 0 {
		m.ops.SetSize(w, tabH)
		m.ops.Render(m.hist)
		parts = append(parts, m.ops.View())
	}
	return strings.Join(parts, "\n")
}

// segmentsBody is the segments table, with the throughput chart under it
// when the table leaves it the room the main view keeps for it (6 rows,
// its axis and its marker labels), so that rows and markers can be
// compared; a capacity search's panel (--find-max) above them.
func (m *Model) segmentsBody(w, bodyH int) string {
	if s := m.last(); s != nil && s.Search != nil {
		sh := min(search.Height(s.Search, m.ctx.Bordered), max(bodyH/2, bodyH-segments.Height(s, m.ctx.Bordered)))
		m.search.SetSize(w, sh)
		m.search.Render(s.Search)
		return m.search.View() + "\n" + m.tableAndChart(w, bodyH-sh)
	}
	return m.tableAndChart(w, bodyH)
}

// tableAndChart is the segments table and, when it leaves room, the
// throughput chart under it.
func (m *Model) tableAndChart(w, bodyH int) string {
	need := segments.Height(m.last(), m.ctx.Bordered)
	frame := 1
	if m.ctx.Bordered {
		frame = 2
	}
	if bodyH-need < max(throughput.MinHeight, frame+8) {
		m.segments.SetSize(w, bodyH)
		m.segments.Render(m.hist)
		return m.segments.View()
	}
	m.segments.SetSize(w, need)
	m.segments.Render(m.hist)
	m.throughput.SetSize(w, bodyH-need)
	m.throughput.Render(m.hist)
	return m.segments.View() + "\n" + m.throughput.View()
}

// joinColumns puts two blocks of equal height side by side.
func joinColumns(a, b string, gap int) string {
	al := strings.Split(a, "\n")
	bl := strings.Split(b, "\n")
	sp := strings.Repeat(" ", gap)
	out := make([]string, max(len(al), len(bl)))
	for i := range out {
		var l, r string
		if i < len(al) {
			l = al[i]
		}
		if i < len(bl) {
			r = bl[i]
		}
		out[i] = l + sp + r
	}
	return strings.Join(out, "\n")
}
