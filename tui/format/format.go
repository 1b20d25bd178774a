// Package format turns benchmark figures into short human text for the
// screen: 2.1µs, 11ms, 1.28M, 2.0 MB/s, 00:01:14.
package format

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"benchtop/rundata/units"
)

// sig3 formats v (>= 0) with three significant digits at most, dropping a
// useless ".0" only for values of 10 and more: 2.1, 11, 142, 5.0.
func sig3(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
}

// Duration formats a latency: 850ns, 2.1µs, 11µs, 3.1ms, 1.2s, 2m05s.
func Duration(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	ns := float64(d)
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.0fns", ns)
	case ns < 999.5e3:
		return sig3(ns/1e3) + "µs"
	case ns < 999.5e6:
		return sig3(ns/1e6) + "ms"
	case ns < 60e9:
		return sig3(ns/1e9) + "s"
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// NoLatency is shown where there is no latency (nothing succeeded in the
// interval, segment or run): never 0.
const NoLatency = "–"

// Latency formats d as Duration does, or NoLatency when there is none.
func Latency(d time.Duration, has bool) string {
	if !has {
		return NoLatency
	}
	return Duration(d)
}

// Micros formats a latency given in (fractional) nanoseconds as a float.
func Micros(ns float64) string { return Duration(time.Duration(ns)) }

// SI formats a count or a rate with a K/M/G suffix and three significant
// digits: 642, 64.2K, 1.28M. Values under 10 keep one decimal when they
// have one.
func SI(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var s string
	switch {
	case v < 10 && v != math.Trunc(v):
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case v < 999.5:
		s = strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	default:
		units := []string{"K", "M", "G", "T"}
		u := -1
		for v >= 999.5 && u < len(units)-1 {
			v /= 1000
			u++
		}
		switch {
		case v < 9.995:
			s = strconv.FormatFloat(v, 'f', 2, 64)
		case v < 99.95:
			s = strconv.FormatFloat(v, 'f', 1, 64)
		default:
			s = strconv.FormatFloat(v, 'f', 0, 64)
		}
		s += units[u]
	}
	if neg {
		return "-" + s
	}
	return s
}

// Int formats n with thousands separators: 1,284,511.
func Int(n int64) string { return units.Count(n) }

// Bytes formats a size in decimal units like the rest of benchtop: 61 MB.
func Bytes(v float64) string {
	if !(v > 0) {
		v = 0
	}
	return units.Bytes(uint64(v))
}

// BytesRate formats a rate in bytes per second: 2.0 MB/s.
func BytesRate(v float64) string { return units.BytesRate(v) }

// LinkSpeed formats a link speed given in Mbit/s: 100M, 1G, 10G, 2.5G.
func LinkSpeed(mbps int) string {
	if mbps <= 0 {
		return ""
	}
	if mbps < 1000 {
		return strconv.Itoa(mbps) + " Mbit/s"
	}
	return strconv.FormatFloat(float64(mbps)/1000, 'f', -1, 64) + " Gbit/s"
}

// Clock formats an elapsed time as hh:mm:ss.
func Clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// Short formats an offset into the run compactly: 0:20, 12:05, 1:02:03.
func Short(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// Span formats a length of time: 45s, 3m20s, 1h05m.
func Span(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		if s%60 == 0 {
			return fmt.Sprintf("%dm", s/60)
		}
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
	}
}

// Target formats a target rate for the controls line: "12.5K ops/s",
// "1.10M ops/s", or "unlimited" for 0.
func Target(opsPerSec float64) string {
	if opsPerSec <= 0 {
		return "unlimited"
	}
	return SI(math.Round(opsPerSec)) + " ops/s"
}

// TargetShort formats a target rate compactly: "∞" or "12.5K".
func TargetShort(opsPerSec float64) string {
	if opsPerSec <= 0 {
		return "∞"
	}
	return SI(opsPerSec)
}

// KnownPercent is Percent, or "n/a" for a negative (unmeasured) value.
func KnownPercent(p float64) string {
	if p < 0 {
		return "n/a"
	}
	return Percent(p)
}

// Percent formats a percentage without decimals: "81%".
func Percent(p float64) string {
	return strconv.FormatFloat(math.Round(p), 'f', 0, 64) + "%"
}
