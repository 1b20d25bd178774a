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

// This file draws the keys: the help lines at the foot of the screen (or
// the `:` prompt in their place) and the full help that `?` shows.

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

// helpLines are the last lines of the screen, w cells wide: every key of
// this screen (ShortHelp), on one line where they fit, else on two, in
// shorter words (CompactHelp) where the long ones need more; a read-only
// viewer's one line. While the prompt is open it takes the last line (the
// lines keep their number, so that nothing above moves).
func (m *Model) helpLines(w int) []string {
	km := m.keys
	km.NextView.SetHelp("tab", m.nextView(m.view).String())
	var lines []string
	if m.opts.ReadOnly {
		m.help.Width = w - 2
		lines = []string{common.Fit(" "+m.help.ShortHelpView(km.ViewerHelp()), w)}
	} else {
		for _, bindings := range [][]key.Binding{km.ShortHelp(), km.CompactHelp()} {
			if m.opts.Remote {
				bindings[len(bindings)-1].SetHelp("q", "leave")
			}
			if m.opts.Attached {
				// First: detaching is what an attached terminal does last.
				bindings = append([]key.Binding{km.Detach}, bindings...)
			}
			if lines = m.keyLines(bindings, w); len(lines) <= 2 {
				break
			}
		}
		lines = lines[:min(2, len(lines))]
	}
	if m.prompt.IsOpen() {
		m.prompt.SetSize(w, 1)
		lines[len(lines)-1] = m.prompt.View()
		for i := 0; i < len(lines)-1; i++ {
			lines[i] = strings.Repeat(" ", w)
		}
	}
	return lines
}

// keyLines lays bindings out in lines of w cells, in order: one line
// where they all fit, else as many as they need, two split where their
// lengths are closest.
func (m *Model) keyLines(bindings []key.Binding, w int) []string {
	m.help.Width = 0 // no cut: the lines are fitted here
	width := func(bs []key.Binding) int { return 1 + lipgloss.Width(m.help.ShortHelpView(bs)) }
	line := func(bs []key.Binding) string { return common.Fit(" "+m.help.ShortHelpView(bs), w) }
	if width(bindings) <= w {
		return []string{line(bindings)}
	}
	best, bestW := 0, w+1
	for k := 1; k < len(bindings); k++ {
		if lw := max(width(bindings[:k]), width(bindings[k:])); lw < bestW {
			best, bestW = k, lw
		}
	}
	if bestW <= w {
		return []string{line(bindings[:best]), line(bindings[best:])}
	}
	var lines []string
	var cur []key.Binding
	for _, b := range bindings {
		if next := append(append([]key.Binding(nil), cur...), b); len(cur) > 0 && width(next) > w {
			lines = append(lines, line(cur))
			cur = []key.Binding{b}
		} else {
			cur = next
		}
	}
	return append(lines, line(cur))
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
