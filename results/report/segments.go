package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"benchtop/engine"
	"benchtop/rundata/units"
)

// WriteSegments writes the what-if table: one row per segment, ops/s
// the successful operations per second (failed/s beside it when any
// failed), each of ops/s and p99 with its 95 % confidence interval's
// margin (±, blank when unknown), latencies "–" where nothing succeeded, best and knee as
// results/marks decided them, a segment that could not be judged with
// why; note, when given, says why best is undecided.
//
// unit names the rate when it is not operations per second (a rated
// workload's, engine.Info.RateUnit: the time series' "records/s").
func WriteSegments(w io.Writer, segs []engine.Segment, note, unit string) {
	if len(segs) == 0 {
		return
	}
	what := "ops/s: successful operations"
	if unit != "" {
		what = unit + ": the workload's one rate"
	} else {
		unit = "ops/s"
	}
	fmt.Fprintf(w, "\n# Segments (one per configuration held; %s; latency from the intended start when a target was set)\n", what)
	var extras []string
	seen := map[string]bool{}
	failed := false
	for _, s := range segs {
		failed = failed || s.Errors > 0
		for k := range s.Extra {
			if !seen[k] {
				seen[k] = true
				extras = append(extras, k)
			}
		}
	}
	sort.Strings(extras)
	head := fmt.Sprintf("%2s %5s %6s %7s %5s %9s %11s %6s", "#", "from", "dur", "threads", "parts", "target", unit, "±")
	if failed {
		head += fmt.Sprintf(" %9s", "failed/s")
	}
	for _, k := range extras {
		head += fmt.Sprintf(" %11s", strings.ReplaceAll(strings.TrimSuffix(k, "_per_sec"), "_", " ")+"/s")
	}
	fmt.Fprintf(w, "%s %7s %7s %7s %6s %6s %4s\n", head, "p50", "p95", "p99", "±p99", "errors", "cpu")
	for _, s := range segs {
		target := "∞"
		if s.Target > 0 {
			target = FormatCount(int64(s.Target))
		}
		row := fmt.Sprintf("%2d %5s %6s %7d %5d %9s %11s %6s",
			s.Index, clock(s.Start), shortDur(s.Duration()), s.Threads, s.Partitions, target,
			FormatCount(int64(math.Round(s.OpsPerSec))), units.Margin(s.OpsPerSec, s.OpsPerSecLow, s.OpsPerSecHigh))
		if failed {
			row += fmt.Sprintf(" %9s", FormatCount(int64(math.Round(s.FailedPerSec))))
		}
		for _, k := range extras {
			v := s.Extra[k]
			if v >= 100 {
				row += fmt.Sprintf(" %11s", FormatCount(int64(math.Round(v))))
			} else {
				row += fmt.Sprintf(" %11.2f", v)
			}
		}
		has := s.HasLatency
		p99m := ""
		if has {
			p99m = units.Margin(float64(s.P99), float64(s.P99Low), float64(s.P99High))
		}
		fmt.Fprintf(w, "%s %7s %7s %7s %6s %6d %4s  %s\n", row, FormatLatency(s.P50, has), FormatLatency(s.P95, has), FormatLatency(s.P99, has),
			p99m, s.Errors, cpuText(s.CPU), strings.TrimSpace(SegmentMark(s)+"  "+s.Label))
	}
	if note != "" {
		fmt.Fprintf(w, "# %s\n", note)
	}
}

// SegmentMark is a segment's mark in a table: "★ best", "← knee" (both
// when both), or, for a segment the rules could not judge, its state in
// brackets, "(too short)"; "" for a qualified segment with no mark.
func SegmentMark(s engine.Segment) string {
	var marks []string
	if s.Knee {
		marks = append(marks, "← knee")
	}
	if s.Best {
		marks = append(marks, "★ best")
	}
	if len(marks) == 0 && s.State != "" && s.State != "qualified" {
		return "(" + string(s.State) + ")"
	}
	return strings.Join(marks, " ")
}

// shortDur renders a segment length in at most 6 characters: 9.5s, 1m30s,
// 2h05m.
func shortDur(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func clock(d time.Duration) string {
	s := int(d.Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// clockTenths is clock with tenths of a second: an outage of a few
// 250 ms intervals reads 00:02.0 to 00:03.0, not 00:02 to 00:02.
func clockTenths(d time.Duration) string {
	t := d.Round(100 * time.Millisecond)
	return fmt.Sprintf("%s.%d", clock(t), int(t/(100*time.Millisecond))%10)
}
