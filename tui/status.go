package tui

import (
	"strconv"
	"strings"

	"benchtop/engine"
	"benchtop/tui/common"
	"benchtop/tui/components/errpanel"
	"benchtop/tui/components/search"
	"benchtop/tui/format"
)

// This file draws the status lines between the body and the help line.

// statusLines are the warnings in force, then the notice or the errors of
// the last interval or the last event.
func (m *Model) statusLines(w int) []string {
	st := m.ctx.Styles
	var out []string
	s := m.last()
	if s != nil && len(s.Warnings) > 0 {
		// One line each, two at most: they matter while they last.
		ws := s.Warnings
		if len(ws) > 2 {
			ws = append(append([]string(nil), ws[:1]...), strings.Join(ws[1:], " · "))
		}
		for _, wn := range ws {
			out = append(out, st.Banner.Render(common.FitTail(" ⚠ "+wn+" ", w)))
		}
	}
	out = append(out, m.demoCaption(w)...)
	if s != nil && s.Search != nil && m.view != viewSegments {
		// The search's line; the segments view has its panel.
		out = append(out, search.Line(st, s.Search, w))
	}
	var parts []string
	if m.notice != "" {
		parts = append(parts, st.Notice.Render("› "+m.notice))
	}
	if e := errorBurst(s); e != "" {
		// The latest cause of the most frequent kind, cut in its middle
		// to fit: its end is the root cause.
		if k := topKind(s); k != "" {
			if c := intervalCause(s, k); c != "" {
				used := common.Width(strings.Join(parts, "   ")) + common.Width(e) + 12 + len(k)
				e += " · last " + k + ": " + errpanel.Elide(c, w-used)
			}
		}
		parts = append(parts, st.Alarm.Render("✗ "+e))
	} else if e := m.stallNote(); e != "" {
		parts = append(parts, st.Alarm.Render("✗ "+e))
	}
	if len(parts) == 0 {
		if evs := m.hist.Events(); evs.Len() > 0 {
			e, _ := evs.Last()
			parts = append(parts, st.Muted.Render("last: "+eventText(e)+" at "+format.Short(e.At)))
		}
	}
	out = append(out, common.FitTail(" "+strings.Join(parts, "   "), w))
	return out
}

// eventText is an event as the status line shows it, with target rates
// formatted (target ∞→1.10M rather than target 0→1096863).
func eventText(e engine.Event) string {
	if e.Kind != "target" {
		return e.String()
	}
	return "target " + rateText(e.From) + "→" + rateText(e.To)
}

// rateText formats a rate written by the engine ("0", "125000",
// "unlimited") as "∞" or "125K".
func rateText(s string) string {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return s
	}
	return format.TargetShort(v)
}
