package tui

import (
	"strconv"
	"strings"

	"benchtop/engine"
	"benchtop/engine/report"
	"benchtop/tui/format"
)

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

// stallNote says that nothing completed in the last interval while the
// run goes on, with the latest error's cause: during an outage the client
// waits on its dials and the interval has no error to show.
func (m *Model) stallNote() string {
	s := m.last()
	if s == nil || s.Paused || m.closed || s.Phase == engine.PhaseDone || s.Total.Interval.Count > 0 || s.Seq < 2 {
		return ""
	}
	text := "no operation completed in the last interval"
	if e := m.hist.LastError; e.Kind != "" {
		text += " · last " + e.Kind + " at " + format.Short(e.At)
		if e.Cause != "" {
			text += ": " + report.MaskCause(e.Cause)
		}
	}
	return text
}
