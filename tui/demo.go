package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"benchtop/engine"
	"benchtop/tui/common"
	"benchtop/tui/components/segments"
)

// This file follows a scripted demo (Options.Demo): the step reached, the
// caption that says it and the end card.

// advanceDemo moves the demo's caption on for every event that is its
// next step.
func (m *Model) advanceDemo(evs []engine.Event) {
	steps := m.opts.Demo
	for m.demoStep < len(steps) && steps[m.demoStep].Kind == "start" {
		m.demoStep++
	}
	for _, e := range evs {
		if m.demoStep >= len(steps) {
			return
		}
		st := steps[m.demoStep]
		if e.Kind == st.Kind && (st.To == "" || e.To == st.To) {
			m.demoStep++
		}
	}
}

// demoCaption is what says where the demo is: one line, or two where
// the caption does not fit in one (its words wrapped under the step's
// number); none outside a demo.
func (m *Model) demoCaption(w int) []string {
	steps := m.opts.Demo
	if len(steps) == 0 || m.demoStep == 0 {
		return nil
	}
	st := m.ctx.Styles
	if m.demoEnd() {
		return []string{common.FitTail(" "+st.Accent.Render("▶ the end")+st.Text.Render(" · tab: the chart · q quits"), w)}
	}
	i := m.demoStep - 1
	lead := " ▶ step " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(steps)) + ": "
	indent := common.Width(lead)
	lines := strings.Split(ansi.Wrap(steps[i].Caption, max(10, w-indent-1), ""), "\n")
	if len(lines) > 2 {
		lines = []string{lines[0], strings.Join(lines[1:], " ")}
	}
	out := []string{common.FitTail(st.Accent.Render(lead)+st.Text.Render(lines[0]), w)}
	if len(lines) > 1 {
		out = append(out, common.FitTail(strings.Repeat(" ", indent)+st.Text.Render(lines[1]), w))
	}
	return out
}

// demoEnd tells whether the end card replaces the main view: a demo
// whose run is over.
func (m *Model) demoEnd() bool {
	return len(m.opts.Demo) > 0 && m.closed && !m.showHelp && m.view == viewMain
}

// endCard is the demo's last screen: what each configuration achieved, and
// the answer in words.
func (m *Model) endCard(w, h int) string {
	st := m.ctx.Styles
	intro := []string{
		"",
		" " + st.App.Render("That was the demo.") + " " + st.Text.Render("Each change started a segment:"),
		" " + st.Text.Render("what each configuration achieved, the best and the knee."),
		" " + st.Muted.Render("Yours: benchtop run mongodb -p mongodb.url=...  ·  ? keys  ·  q quits"),
		"",
	}
	if m.opts.DemoEnd != "" {
		wrap := strings.Split(ansi.Wrap(m.opts.DemoEnd, max(10, w-2), ""), "\n")
		note := make([]string, 0, len(wrap)+1)
		for _, l := range wrap {
			note = append(note, " "+st.Text.Render(l))
		}
		intro = append(intro[:3], append(note, intro[3:]...)...)
	}
	need := segments.Height(m.last(), m.ctx.Bordered)
	tableH := min(need, h-len(intro))
	m.segments.SetSize(w, tableH)
	m.segments.Render(m.hist)
	lines := append(intro, strings.Split(m.segments.View(), "\n")...)
	return common.Block(lines, w, h)
}
