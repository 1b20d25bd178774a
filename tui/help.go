package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"benchtop/themes"
	"benchtop/tui/common"
)

// This file draws the keys: the help line at the foot of the screen (or
// the `:` prompt in its place) and the full help that `?` shows.

// styleHelp pushes the current styles (m.ctx.Styles) into the help bubble.
func (m *Model) styleHelp() {
	st := m.ctx.Styles
	m.help.Styles = help.Styles{
		Ellipsis:       st.HelpSep,
		ShortKey:       st.HelpKey,
		ShortDesc:      st.HelpDesc,
		ShortSeparator: st.HelpSep,
		FullKey:        st.HelpKey,
		FullDesc:       st.HelpDesc,
		FullSeparator:  st.HelpSep,
	}
	m.help.ShortSeparator = "  "
}

// helpLine is the last line of the screen, w cells wide: the keys of this
// screen, or the prompt while it is open.
func (m *Model) helpLine(w int) string {
	m.help.Width = w - 2
	tabHelp := m.nextView(m.view).String()
	km := m.keys
	km.NextView.SetHelp("tab", tabHelp)
	bindings := km.ShortHelp()
	switch {
	case m.opts.ReadOnly:
		bindings = km.ViewerHelp()
	case w < 100:
		bindings = km.CompactHelp()
	}
	if m.opts.Remote && !m.opts.ReadOnly {
		bindings[len(bindings)-1].SetHelp("q", "leave")
	}
	if m.opts.Attached {
		// First: detaching is what an attached terminal does last.
		bindings = append([]key.Binding{km.Detach}, bindings...)
	}
	line := common.Fit(" "+m.help.ShortHelpView(bindings), w)
	if m.prompt.IsOpen() {
		m.prompt.SetSize(w, 1)
		line = m.prompt.View()
	}
	return line
}

// fullHelp is the body `?` shows: every key, then notes on the limits.
func (m *Model) fullHelp(w, h int) string {
	st := m.ctx.Styles
	iw, _ := common.Inner(m.ctx.Bordered, w, h)
	hm := m.help
	hm.Width = iw - 2
	hm.FullSeparator = "    "
	var lines []string
	lines = append(lines, "")
	full := m.keys.FullHelp()
	if m.opts.Attached {
		full[len(full)-1] = append(full[len(full)-1], m.keys.Detach)
	}
	for _, l := range strings.Split(hm.FullHelpView(full), "\n") {
		lines = append(lines, " "+l)
	}
	notes := []string{
		fmt.Sprintf("Threads 1..%d, partitions 1..%d. From unlimited, t holds the rate achieved in the last interval (T: 75 %% of it). : types an exact value (threads 64, target 120k, partitions 16, mark TEXT, window 15m).", MaxThreads, MaxPartitions),
		"Every change and mark is a ▲ on the time axis and starts a segment (tab); ! marks errors.",
		"With a target, latency is also shown from the intended start time (coordinated omission corrected).",
		"Themes: " + strings.Join(themes.Names(), ", ") + ".",
	}
	wrap := lipgloss.NewStyle().Width(iw - 2)
	lines = append(lines, "")
	for _, n := range notes {
		for _, l := range strings.Split(wrap.Render(n), "\n") {
			lines = append(lines, " "+st.Muted.Render(l))
		}
	}
	return common.Panel(st, m.ctx.Bordered, "Keys · ? or esc to close", lines, w, h)
}
