package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"benchtop/engine"
	"benchtop/themes"
	"benchtop/tui/components/latency"
	"benchtop/tui/components/prompt"
	"benchtop/tui/components/throughput"
)

// This file is the Update path: Update routes every message, and a key
// goes handleKeys -> handleKey, then to the prompt (promptKey, apply), to
// the keys that change only the screen (viewKey) or to the run's controls
// (controlKey), whose setters in controls.go call the engine's
// Controller. Nothing here draws: a change ends in rebuild (layout.go).

type (
	snapshotMsg struct{ s *engine.Snapshot }
	closedMsg   struct{}
	savedMsg    struct {
		where string
		err   error
	}
)

// Init starts reading snapshots, and clears the opening notice later.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitForSnapshot(m.opts.Snapshots)}
	if cmd := m.openingNotice(); cmd != nil {
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// waitForSnapshot blocks, in its own goroutine, for the next snapshot; it is
// issued again after each one.
func waitForSnapshot(ch <-chan *engine.Snapshot) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return closedMsg{}
		}
		return snapshotMsg{s}
	}
}

// addSnapshot records a snapshot: history, pending values, demo steps.
func (m *Model) addSnapshot(s *engine.Snapshot) {
	m.hist.Add(s)
	m.threads.seen(s.Threads)
	m.partitions.seen(s.Partitions)
	m.target.seen(s.Target)
	m.paused.seen(s.Paused)
	m.advanceDemo(s.Events)
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.ctx.Width, m.ctx.Height = msg.Width, msg.Height
		m.rebuild()
		return m, nil

	case snapshotMsg:
		s := msg.s
		if s == nil {
			return m, waitForSnapshot(m.opts.Snapshots)
		}
		m.addSnapshot(s)
		if len(m.opts.Snapshots) == 0 {
			// Draw only the newest of a backlog (e.g. at start).
			m.rebuild()
		}
		return m, waitForSnapshot(m.opts.Snapshots)

	case closedMsg:
		m.closed = true
		if m.stopping {
			return m.quit()
		}
		m.rebuild()
		return m, nil

	case stopTimeoutMsg:
		return m.quit()

	case controlMsg:
		return m, m.controlDone(msg)

	case savedMsg:
		if msg.err != nil {
			return m, m.setNotice("save failed: " + msg.err.Error())
		}
		return m, m.setNotice("report saved to " + msg.where)

	case noticeExpiredMsg:
		m.noticeExpired(msg.id)
		return m, nil

	case tea.KeyMsg:
		return m.handleKeys(msg)
	}
	return m, nil
}

func (m *Model) quit() (tea.Model, tea.Cmd) {
	m.quitting = true
	return m, tea.Quit
}

// handleKeys handles a key message that may carry several runes: keys
// typed faster than the terminal is read (a script, a slow SSH link)
// arrive as one message, and each is a key of its own, except in the
// prompt, which takes text.
func (m *Model) handleKeys(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.prompt.IsOpen() {
		return m.handleKey(msg)
	}
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		if m.prompt.IsOpen() {
			rest := msg
			rest.Runes = msg.Runes[i:]
			_, cmd := m.handleKey(rest)
			cmds = append(cmds, cmd)
			break
		}
		one := msg
		one.Runes = []rune{r}
		if r == ' ' {
			one.Type = tea.KeySpace
		}
		_, cmd := m.handleKey(one)
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

// handleKey routes a key: to the open prompt, to the keys that change only
// the view (the only ones a read-only viewer has), then to the run's
// controls.
func (m *Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.prompt.IsOpen() {
		return m.promptKey(msg)
	}
	if m.opts.Attached && key.Matches(msg, m.keys.Detach) {
		m.detached = true
		return m.quit()
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

// matchesAny tells whether msg matches one of the bindings.
func matchesAny(msg tea.KeyMsg, bs []key.Binding) bool {
	for _, b := range bs {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}

// promptKey handles a key while the `:` prompt is open: Enter applies a
// line that parses, Esc (or ctrl+c) closes it, anything else edits it.
func (m *Model) promptKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch msg.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		m.prompt.Close()
		m.rebuild()
		return m, nil
	case tea.KeyEnter:
		c, err := m.prompt.Check()
		if err != nil {
			// Stay open: the error is on the line, the text can be fixed.
			m.rebuild()
			return m, nil
		}
		m.prompt.Close()
		return m, m.apply(c)
	}
	cmd := m.prompt.Update(msg)
	m.rebuild()
	return m, cmd
}

// apply carries out a parsed prompt command.
func (m *Model) apply(c prompt.Command) tea.Cmd {
	switch c.Verb {
	case "threads":
		if m.last() == nil {
			return m.setNotice("waiting for the first interval: try again in a moment")
		}
		return m.setThreads(c.N)
	case "partitions":
		if m.last() == nil {
			return m.setNotice("waiting for the first interval: try again in a moment")
		}
		return m.setPartitions(c.N)
	case "target":
		return m.setTarget(c.Rate)
	case "mark":
		label := c.Text
		if label == "" {
			label = m.nextMarkLabel()
		}
		if m.closed {
			return m.setNotice("the run is finished · q to quit")
		}
		return m.mark(label, "mark: "+label)
	case "window":
		m.throughput.Window = c.Window
		return m.setNotice("chart window: last " + throughput.WindowText(c.Window))
	case "theme":
		return m.useTheme(c.Text)
	case "segment":
		return m.setNotice(segmentExact(m.last(), c.N))
	}
	return nil
}

// Detached tells whether a session's model ended by its detach key (d):
// the terminal left, the run goes on.
func Detached(m tea.Model) bool {
	fm, ok := m.(*Model)
	return ok && fm.detached
}

// quitKey: an SSH viewer leaves (the run goes on); the first q of the
// local screen (or of an attached terminal) stops the run, a second one
// (or one after the end) quits.
func (m *Model) quitKey() (tea.Model, tea.Cmd) {
	if m.opts.Remote || m.closed || m.stopping {
		return m.quit()
	}
	return m, m.stopRun()
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
		names := themes.Names()
		return m.useTheme(names[(m.themeNo+1)%len(names)]), true
	case key.Matches(msg, k.Window):
		return m.nextWindow(), true
	case key.Matches(msg, k.Latency) && m.view == viewSegments:
		m.segments.Intervals = !m.segments.Intervals
		note := "segments: p50 and p95"
		if m.segments.Intervals {
			note = "segments: ± 95 % intervals of ops/s and p99 · bounds: \": segment N\""
		}
		return m.setNotice(note), true
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

// useTheme draws with the theme called name from now on (c, `: theme`).
func (m *Model) useTheme(name string) tea.Cmd {
	for i, n := range themes.Names() {
		if n == name {
			m.themeNo = i
		}
	}
	t, _ := themes.Get(name)
	m.ctx.Styles = stylesFor(m.opts.Renderer, t)
	m.styleHelp()
	return m.setNotice("theme: " + t.Name) // redraws in the new styles
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

// controlKey turns a control key into its setter in controls.go.
func (m *Model) controlKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
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
		return m.togglePause()
	case key.Matches(msg, k.Mark):
		label := m.nextMarkLabel()
		return m.mark(label, label)
	case key.Matches(msg, k.NewSegment):
		return m.newSegment()
	}
	return nil
}
