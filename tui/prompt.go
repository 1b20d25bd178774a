package tui

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"benchtop/themes"
	"benchtop/tui/components/prompt"
	"benchtop/tui/components/throughput"
)

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
	ctl := m.opts.Control
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
			m.marks++
			label = "mark " + strconv.Itoa(m.marks)
		}
		if m.closed {
			return m.setNotice("the run is finished · q to quit")
		}
		return control("mark", "mark: "+label, func() error { ctl.Mark(label); return nil })
	case "window":
		m.throughput.Window = c.Window
		return m.setNotice("chart window: last " + throughput.WindowText(c.Window))
	case "theme":
		for i, n := range themes.Names() {
			if n == c.Text {
				m.themeNo = i
			}
		}
		t, _ := themes.Get(c.Text)
		m.ctx.Styles = stylesFor(m.opts.Renderer, t)
		m.applyStyles()
		return m.setNotice("theme: " + t.Name)
	}
	return nil
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
