package tui

import (
	"strconv"
	"strings"

	"benchtop/engine"
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
