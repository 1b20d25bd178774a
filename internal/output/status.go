package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"benchtop/engine"
)

// Status returns the hook that writes YCSB's -s status line to w for
// every snapshot: "2026-11-30 04:55:01:123 10 sec: 12345 operations;
// 1234.56 current ops/sec; [READ: Count=..., Max=..., Min=..., Avg=...,
// 50=..., 95=..., 99=..., 99.9=...] ...", latencies in microseconds.
// As in YCSB, "current ops/sec" counts every operation; when any failed
// "[OK: ... ops/sec, FAILED: ... ops/sec]" follows it, and an operation
// of which none succeeded has no latency fields.
func Status(w io.Writer) func(*engine.Snapshot) {
	return func(s *engine.Snapshot) { fmt.Fprintln(w, statusLine(s)) }
}

func dec2(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

func usd(d time.Duration) string { return dec2(float64(d) / 1e3) }

func statusLine(s *engine.Snapshot) string {
	var b strings.Builder
	// YCSB's SimpleDateFormat "yyyy-MM-dd HH:mm:ss:SSS".
	fmt.Fprintf(&b, "%s:%03d", s.Time.Format("2006-01-02 15:04:05"), s.Time.Nanosecond()/1e6)
	fmt.Fprintf(&b, " %d sec: %d operations; ", int(s.Elapsed.Seconds()), s.OpsDone)
	if s.OpsDone != 0 {
		// YCSB's figure counts every operation; the successful and failed
		// ones follow when any failed.
		tot := s.Total.Interval
		fmt.Fprintf(&b, "%s current ops/sec; ", dec2(tot.AttemptRate()))
		if tot.Errors > 0 {
			fmt.Fprintf(&b, "[OK: %s ops/sec, FAILED: %s ops/sec] ", dec2(tot.Rate), dec2(tot.FailedRate))
		}
	}
	if s.Phase == engine.PhaseLoad {
		b.WriteString("[load] ")
	}
	if rate := s.Total.Cumulative.AttemptRate(); s.OpsTotal > 0 && s.OpsDone < s.OpsTotal && rate > 0 {
		rem := time.Duration(float64(s.OpsTotal-s.OpsDone) / rate * float64(time.Second))
		fmt.Fprintf(&b, "est completion in %s ", rem.Round(time.Second))
	}
	for _, o := range s.Ops {
		st := o.Interval
		fmt.Fprintf(&b, "[%s: Count=%d", o.Name, st.Count)
		if st.HasLatency() {
			// The successful operations' latency; none succeeded: none.
			fmt.Fprintf(&b, ", Max=%s, Min=%s, Avg=%s, 50=%s, 95=%s, 99=%s, 99.9=%s",
				usd(st.Max), usd(st.Min), usd(st.Mean), usd(st.P50), usd(st.P95), usd(st.P99), usd(st.P999))
		}
		if st.Errors > 0 {
			fmt.Fprintf(&b, ", Errors=%d", st.Errors)
			for k, n := range st.ErrorsByKind {
				fmt.Fprintf(&b, ", %s=%d", k, n)
			}
		}
		b.WriteString("] ")
		if o.IntendedInterval != nil && o.IntendedInterval.HasLatency() {
			it := o.IntendedInterval
			fmt.Fprintf(&b, "[Intended-%s: Count=%d, Max=%s, Avg=%s, 50=%s, 95=%s, 99=%s] ", o.Name,
				it.Count, usd(it.Max), usd(it.Mean), usd(it.P50), usd(it.P95), usd(it.P99))
		}
	}
	if w := s.Workload; w != nil && w.Line != "" {
		fmt.Fprintf(&b, "[%s] ", w.Line)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "[WARN: %s] ", w)
	}
	for _, e := range s.Events {
		fmt.Fprintf(&b, "[EVENT: %s] ", e.String())
	}
	return strings.TrimRight(b.String(), " ")
}
