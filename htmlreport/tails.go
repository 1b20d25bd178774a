package htmlreport

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// A phase's last interval ends when the phase ends, usually well into
// it: 5 ms and 8 operations after a run of 1 s intervals. Its rate and
// percentiles stand on those few operations (a rate that drops to
// nothing, a p99 of 17 ms on a chart of microseconds that flattens every
// other interval), so the charts over time leave it out, and their
// captions say so. The run's totals, the tables and the spectrum keep
// its operations.

// shortShare is how short, against the phase's usual (median) interval,
// a last interval is left out. A phase of one interval has no usual one
// of its own: it is held against the other phase's (a load of 1,000
// records in 12 ms, 84K ops/s, beside a run of 1 s intervals at 2,000
// ops/s flattened the run's line to the axis).
const shortShare = 0.5

// lastInterval is a phase's short last interval, left out of the charts
// over time.
type lastInterval struct {
	phase        string
	startS, endS float64
	ops          int64
	only         bool // the phase's only interval
}

// usual is the interval lengths a phase's last one is held against: its
// own when it has two or more, else the other phase's when that has two
// or more, else none.
func usual(own, other []float64) []float64 {
	switch {
	case len(own) >= 2:
		return own
	case len(own) == 1 && len(other) >= 2:
		return other
	}
	return nil
}

// rowTails are the indexes of the CSV rows that are a phase's short last
// interval, and what they were.
func rowTails(rows []Row) (map[int]bool, []lastInterval) {
	skip := map[int]bool{}
	var out []lastInterval
	idx := map[bool][]int{}
	lens := map[bool][]float64{}
	for i, r := range rows {
		if load := r.Phase == "load"; r.IntervalS > 0 {
			idx[load] = append(idx[load], i)
			lens[load] = append(lens[load], r.IntervalS)
		}
	}
	for _, load := range []bool{true, false} {
		ref := usual(lens[load], lens[!load])
		if ref == nil {
			continue
		}
		last := rows[idx[load][len(idx[load])-1]]
		if last.IntervalS < shortShare*median(ref) {
			skip[idx[load][len(idx[load])-1]] = true
			out = append(out, lastInterval{phase: last.Phase, startS: last.ElapsedS - last.IntervalS, endS: last.ElapsedS, ops: last.Ops, only: len(idx[load]) == 1})
		}
	}
	return skip, out
}

// hdrTails are the HDR log's short last intervals of each phase, by
// their end in ms (the key intervalRates and the latency charts use).
func hdrTails(ivls []Interval) (map[ivKey]bool, []lastInterval) {
	type span struct{ start, end int64 }
	spans := map[bool]map[span]int64{true: {}, false: {}}
	for _, iv := range ivls {
		if iv.Intended {
			continue
		}
		spans[iv.Load][span{ms(iv.StartS), ms(iv.EndS)}] += iv.H.TotalCount()
	}
	skip := map[ivKey]bool{}
	var out []lastInterval
	ss := map[bool][]span{}
	lens := map[bool][]float64{}
	for _, load := range []bool{true, false} {
		for s := range spans[load] {
			if s.end > s.start {
				ss[load] = append(ss[load], s)
				lens[load] = append(lens[load], float64(s.end-s.start))
			}
		}
		sort.Slice(ss[load], func(i, j int) bool { return ss[load][i].end < ss[load][j].end })
	}
	for _, load := range []bool{true, false} {
		ref := usual(lens[load], lens[!load])
		if ref == nil {
			continue
		}
		last := ss[load][len(ss[load])-1]
		if float64(last.end-last.start) < shortShare*median(ref) {
			skip[ivKey{load, last.end}] = true
			out = append(out, lastInterval{phase: phaseName(load), startS: float64(last.start) / 1e3, endS: float64(last.end) / 1e3, ops: spans[load][last], only: len(ss[load]) == 1})
		}
	}
	return skip, out
}

// notLoad are the intervals of ts outside the load phase (those of the
// charts that draw no load phase: latency over time).
func notLoad(ts []lastInterval) []lastInterval {
	var out []lastInterval
	for _, t := range ts {
		if t.phase != "load" {
			out = append(out, t)
		}
	}
	return out
}

// ivKey names an HDR log interval by its phase and its end in ms.
type ivKey struct {
	load bool
	end  int64
}

func phaseName(load bool) string {
	if load {
		return "load"
	}
	return "run"
}

func ms(s float64) int64 { return int64(math.Round(s * 1e3)) }

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// tailNote is the caption's sentence on the intervals left out, "" for
// none: "The run phase's last interval (5 ms, 8 operations) is left out:
// too short to stand for a rate or a percentile."
func tailNote(ts []lastInterval) string {
	if len(ts) == 0 {
		return ""
	}
	var parts []string
	for _, t := range ts {
		phase := t.phase
		ops := "1 operation"
		if t.ops != 1 {
			ops = fmt.Sprintf("%d operations", t.ops)
		}
		which := "last"
		if t.only {
			which = "only"
		}
		parts = append(parts, fmt.Sprintf("the %s phase's %s interval (%s, %s)", phase, which, fmtUS((t.endS-t.startS)*1e6), ops))
	}
	verb := "is"
	if len(parts) > 1 {
		verb = "are"
	}
	s := strings.Join(parts, " and ")
	return " " + strings.ToUpper(s[:1]) + s[1:] + " " + verb + " left out: too short to stand for a rate or a percentile."
}

// compareTailNote is the overlays' sentence on the intervals left out of
// either run's main phase (the overlays draw no load phase), "" for none.
func compareTailNote(base, run *Run) string {
	for _, r := range []*Run{base, run} {
		_, rt := rowTails(r.Rows)
		_, ht := hdrTails(r.Intervals)
		if len(notLoad(rt)) > 0 || len(notLoad(ht)) > 0 {
			return " A phase's last interval far shorter than the others is left out: too short to stand for a rate or a percentile."
		}
	}
	return ""
}
