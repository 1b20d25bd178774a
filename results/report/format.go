package report

import (
	"fmt"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/rundata/units"
)

// FormatDuration renders a latency compactly: 850ns, 2.1µs, 11.0ms,
// 1.20s (units.Duration).
func FormatDuration(d time.Duration) string { return units.Duration(d) }

// FormatCount renders an integer with thousands separators.
func FormatCount(n int64) string { return units.Count(n) }

// MaskCause makes an error message fit for a screen or a report: one
// line, and every URL in it with its password masked.
func MaskCause(msg string) string {
	fields := strings.Fields(msg)
	for i, f := range fields {
		if strings.Contains(f, "@") {
			fields[i] = adapters.MaskURL(f)
		}
	}
	return strings.Join(fields, " ")
}

// maskCauses is MaskCause over a map of causes by kind (nil for none).
func maskCauses(c map[string]string) map[string]string {
	if len(c) == 0 {
		return nil
	}
	out := make(map[string]string, len(c))
	for k, v := range c {
		out[k] = MaskCause(v)
	}
	return out
}

// usf is a latency in microseconds, as the JSON summary and the CSV
// carry them.
func usf(d time.Duration) float64 { return float64(d) / 1e3 }

// NoLatency is how every output shows a latency that does not exist
// (nothing succeeded in the interval, segment or run): never as 0.
const NoLatency = "–"

// FormatLatency renders d as FormatDuration does, or NoLatency when
// there is none (has false).
func FormatLatency(d time.Duration, has bool) string {
	if !has {
		return NoLatency
	}
	return FormatDuration(d)
}

// usJSON is a latency in microseconds for the JSON summary: null when
// there is none (has false), so that no script reads it as 0.
func usJSON(d time.Duration, has bool) *float64 {
	if !has {
		return nil
	}
	v := usf(d)
	return &v
}

// Micros is a latency of the JSON summary in microseconds, 0 when it is
// null (check for nil where "none" must be told from 0).
func Micros(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// cpuText is a CPU percentage, or n/a when it was not measured.
func cpuText(pct float64) string {
	if pct < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%3.0f%%", pct)
}

// cpuJSON is a CPU percentage for JSON: null when it was not measured.
func cpuJSON(pct float64) *float64 {
	if pct < 0 {
		return nil
	}
	return &pct
}
