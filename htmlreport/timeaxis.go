package htmlreport

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// The time axes of the charts over time: ticks at whole steps of time (5
// s, 30 s, 2 min, 1 h), each labelled once, in seconds for a run of up to
// two minutes and as m:ss or h:mm:ss beyond. gonum/plot's default ticks
// are made for any number: over 75 s they read 0.00, 25.00, 50.00, 75.00,
// over an hour 0, 1000, 2000, 3000 seconds.

// timeStep is one tick spacing of a time axis: labelled ticks every major
// seconds, unlabelled ones every minor.
type timeStep struct{ major, minor float64 }

var timeSteps = []timeStep{
	{0.1, 0.05}, {0.2, 0.1}, {0.5, 0.1}, {1, 0.5}, {2, 1}, {5, 1}, {10, 5}, {15, 5}, {20, 10}, {30, 10},
	{60, 30}, {120, 60}, {300, 60}, {600, 300}, {900, 300}, {1200, 600}, {1800, 600},
	{3600, 1800}, {7200, 3600}, {10800, 3600}, {21600, 7200}, {43200, 21600}, {86400, 43200},
}

// clockFrom is the span from which a time axis reads as a clock (1:30)
// rather than in seconds.
const clockFrom = 120

// timeTicker ticks a time axis in seconds with at most most labels.
func timeTicker(most int) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick { return timeTicks(lo, hi, most) })
}

// timeTicks are the ticks of [lo, hi] seconds: the smallest step that
// makes at most most labels, each major tick labelled once.
func timeTicks(lo, hi float64, most int) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	st := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if math.Floor(hi/s.major)-math.Ceil(lo/s.major)+1 <= float64(most) {
			st = s
			break
		}
	}
	f := timeFormatOf(lo, hi)
	var out []plot.Tick
	first := math.Ceil(lo/st.minor - 1e-9)
	for i := first; i*st.minor <= hi+1e-9; i++ {
		v := i * st.minor
		t := plot.Tick{Value: v}
		if k := v / st.major; math.Abs(k-math.Round(k)) < 1e-6 {
			t.Label = timeLabel(math.Round(k)*st.major, f)
		}
		out = append(out, t)
	}
	return out
}

// timeFormat is how a time axis's ticks read.
type timeFormat int

const (
	inSeconds timeFormat = iota // 45, 2.5
	inMinutes                   // 1:30
	inHours                     // 1:00:00
)

// timeFormatOf is the format of an axis over [lo, hi] seconds: seconds up
// to a span of two minutes, then m:ss, and h:mm:ss once it reaches an
// hour.
func timeFormatOf(lo, hi float64) timeFormat {
	switch {
	case hi-lo < clockFrom:
		return inSeconds
	case math.Max(math.Abs(lo), math.Abs(hi)) >= 3600:
		return inHours
	}
	return inMinutes
}

// timeLabel is v seconds as a tick says it in format f.
func timeLabel(v float64, f timeFormat) string {
	if math.Abs(v) < 1e-9 {
		v = 0 // never "-0"
	}
	if f == inSeconds {
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	}
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	s := int64(math.Round(math.Abs(v)))
	if f == inHours {
		b.WriteString(strconv.FormatInt(s/3600, 10) + ":" + pad2(int(s/60%60)) + ":" + pad2(int(s%60)))
	} else {
		b.WriteString(strconv.FormatInt(s/60, 10) + ":" + pad2(int(s%60)))
	}
	return b.String()
}

// timeAxisLabel is a time axis's label for its span: "(s)" becomes
// "(m:ss)" or "(h:mm:ss)" where the ticks read as a clock.
func timeAxisLabel(label string, lo, hi float64) string {
	switch timeFormatOf(lo, hi) {
	case inMinutes:
		return strings.Replace(label, "(s)", "(m:ss)", 1)
	case inHours:
		return strings.Replace(label, "(s)", "(h:mm:ss)", 1)
	}
	return label
}
