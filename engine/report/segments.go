package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"benchtop/engine"
)

// WriteSegments writes the what-if table: one row per segment.
func WriteSegments(w io.Writer, segs []engine.Segment) {
	if len(segs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n# Segments (one per configuration held; latency from the intended start when a target was set)\n")
	var extras []string
	seen := map[string]bool{}
	for _, s := range segs {
		for k := range s.Extra {
			if !seen[k] {
				seen[k] = true
				extras = append(extras, k)
			}
		}
	}
	sort.Strings(extras)
	head := fmt.Sprintf("%2s %5s %6s %7s %5s %9s %11s", "#", "from", "dur", "threads", "parts", "target", "ops/s")
	for _, k := range extras {
		head += fmt.Sprintf(" %11s", strings.ReplaceAll(strings.TrimSuffix(k, "_per_sec"), "_", " ")+"/s")
	}
	fmt.Fprintf(w, "%s %7s %7s %7s %6s %4s\n", head, "p50", "p95", "p99", "errors", "cpu")
	for _, s := range segs {
		mark := ""
		if s.Knee {
			mark = "← knee"
		}
		if s.Best {
			if mark != "" {
				mark += " "
			}
			mark += "★ best"
		}
		target := "∞"
		if s.Target > 0 {
			target = FormatCount(int64(s.Target))
		}
		row := fmt.Sprintf("%2d %5s %6s %7d %5d %9s %11s",
			s.Index, clock(s.Start), shortDur(s.Duration()), s.Threads, s.Partitions, target,
			FormatCount(int64(math.Round(s.OpsPerSec))))
		for _, k := range extras {
			v := s.Extra[k]
			if v >= 100 {
				row += fmt.Sprintf(" %11s", FormatCount(int64(math.Round(v))))
			} else {
				row += fmt.Sprintf(" %11.2f", v)
			}
		}
		fmt.Fprintf(w, "%s %7s %7s %7s %6d %4s  %s\n", row, FormatDuration(s.P50), FormatDuration(s.P95), FormatDuration(s.P99),
			s.Errors, cpuText(s.CPU), strings.TrimSpace(mark+"  "+s.Label))
	}
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
