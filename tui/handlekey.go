package tui

import (
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"benchtop/themes"
	"benchtop/tui/components/latency"
	"benchtop/tui/components/throughput"
)

// handleKey routes a key: to the open prompt, to the keys that change only
// the view (the only ones a read-only viewer has), then to the run's
// controls.
func (m *Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.prompt.IsOpen() {
		return m.promptKey(msg)
	}
	if m.opts.ReadOnly && !matchesAny(msg, m.keys.ViewOnly()) {
		if msg.Type == tea.KeyEsc && m.showHelp {
			m.showHelp = false
			m.rebuild()
			return m, nil
		}
		return m, m.setNotice("read-only viewer: " + msg.String() + " changes nothing here (view, theme, window and help keys only)")
	}
	if key.Matches(msg, m.keys.Quit) {
		return m.quitKey()
	}
	if cmd, ok := m.viewKey(msg); ok {
		return m, cmd
	}
	if note := m.controlRefused(msg); note != "" {
		return m, m.setNotice(note)
	}
	if m.closed {
		return m, nil
	}
	return m, m.controlKey(msg)
}

// quitKey: an SSH viewer leaves (the run goes on); the first q of the
// local screen stops the run, a second one (or one after the end) quits.
func (m *Model) quitKey() (tea.Model, tea.Cmd) {
	if m.opts.Remote || m.closed || m.stopping {
		return m.quit()
	}
	m.stopping = true
	m.rebuild()
	ctl := m.opts.Control
	return m, tea.Batch(
		control("stop", "", func() error { ctl.Stop(); return nil }),
		tea.Tick(stopTimeout, func(time.Time) tea.Msg { return stopTimeoutMsg{} }),
	)
}

// viewKey handles the keys that change what is shown (and save); ok is
// false for any other key.
func (m *Model) viewKey(msg tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Prompt):
		m.prompt.Open()
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case msg.Type == tea.KeyEsc && m.showHelp:
		m.showHelp = false
	case key.Matches(msg, k.NextView):
		m.view = m.nextView(m.view)
		m.showHelp = false
	case key.Matches(msg, k.NextTheme):
		return m.nextTheme(), true
	case key.Matches(msg, k.Window):
		return m.nextWindow(), true
	case key.Matches(msg, k.Latency):
		m.latency.Mode = (m.latency.Mode + 1) % 3
		note := "latency: " + m.latency.Mode.String()
		if !latency.HasIntended(m.last()) {
			note += " (intended latency needs a target rate)"
		}
		return m.setNotice(note), true
	case key.Matches(msg, k.ScrollUp) && m.view == viewSegments:
		m.segments.Scroll(1)
	case key.Matches(msg, k.ScrollDown) && m.view == viewSegments:
		m.segments.Scroll(-1)
	case key.Matches(msg, k.Save):
		return m.save(), true
	default:
		return nil, false
	}
	m.rebuild()
	return nil, true
}

func (m *Model) nextTheme() tea.Cmd {
	names := themes.Names()
	m.themeNo = (m.themeNo + 1) % len(names)
	t, _ := themes.Get(names[m.themeNo])
	m.ctx.Styles = stylesFor(m.opts.Renderer, t)
	m.applyStyles()
	return m.setNotice("theme: " + t.Name)
}

func (m *Model) nextWindow() tea.Cmd {
	ws := throughput.Windows
	i := 0
	for j, w := range ws {
		if w == m.throughput.Window {
			i = j
		}
	}
	m.throughput.Window = ws[(i+1)%len(ws)]
	return m.setNotice("chart window: last " + throughput.WindowText(m.throughput.Window))
}

func (m *Model) save() tea.Cmd {
	if m.opts.SaveReport == nil {
		return m.setNotice("save: no report writer in this mode")
	}
	save := m.opts.SaveReport
	return func() tea.Msg {
		where, err := save()
		return savedMsg{where, err}
	}
}

// controlRefused says why a control key cannot act now: the run is over,
// or a relative step waits for the first snapshot's values. "" otherwise.
func (m *Model) controlRefused(msg tea.KeyMsg) string {
	k := m.keys
	steps := []key.Binding{k.ThreadsUp, k.ThreadsDown, k.ThreadsDouble, k.ThreadsHalve,
		k.PartsUp, k.PartsDown, k.PartsDouble, k.PartsHalve, k.TargetUp, k.TargetDown}
	if m.closed {
		// The run is over: controls have nothing left to act on.
		if matchesAny(msg, append(steps, k.TargetUnlimited, k.Pause, k.Mark, k.NewSegment)) {
			return "the run is finished · q to quit"
		}
		return ""
	}
	if m.last() == nil && matchesAny(msg, steps) {
		// Steps are relative to values not known before the first snapshot.
		return "waiting for the first interval: try again in a moment"
	}
	return ""
}

// controlKey applies a control key to the run.
func (m *Model) controlKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	ctl := m.opts.Control
	switch {
	case key.Matches(msg, k.ThreadsUp):
		return m.setThreads(m.curThreads() + 1)
	case key.Matches(msg, k.ThreadsDown):
		return m.setThreads(m.curThreads() - 1)
	case key.Matches(msg, k.ThreadsDouble):
		return m.setThreads(m.curThreads() * 2)
	case key.Matches(msg, k.ThreadsHalve):
		return m.setThreads(m.curThreads() / 2)
	case key.Matches(msg, k.PartsUp):
		return m.setPartitions(m.curPartitions() + 1)
	case key.Matches(msg, k.PartsDown):
		return m.setPartitions(m.curPartitions() - 1)
	case key.Matches(msg, k.PartsDouble):
		return m.setPartitions(m.curPartitions() * 2)
	case key.Matches(msg, k.PartsHalve):
		return m.setPartitions(m.curPartitions() / 2)
	case key.Matches(msg, k.TargetUp):
		return m.stepTarget(1.25)
	case key.Matches(msg, k.TargetDown):
		return m.stepTarget(0.75)
	case key.Matches(msg, k.TargetUnlimited):
		return m.setTarget(0)
	case key.Matches(msg, k.Pause):
		p := !m.curPaused()
		m.paused.ask(p)
		m.rebuild()
		if p {
			return control("pause", "paused · space to resume", func() error { ctl.Pause(); return nil })
		}
		return control("resume", "resumed", func() error { ctl.Resume(); return nil })
	case key.Matches(msg, k.Mark):
		m.marks++
		label := "mark " + strconv.Itoa(m.marks)
		return control("mark", label, func() error { ctl.Mark(label); return nil })
	case key.Matches(msg, k.NewSegment):
		return control("segment", "new segment", func() error { ctl.NewSegment(); return nil })
	}
	return nil
}
