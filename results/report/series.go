package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
)

// TimeSeries writes one CSV row per snapshot: ops_per_sec counts the
// successful operations (failed_per_sec, the last column, the failed
// ones), and a latency column is empty where nothing succeeded.
type TimeSeries struct {
	mu     sync.Mutex
	w      *bufio.Writer
	header bool
	err    error
}

// NewTimeSeries returns a CSV writer for snapshots.
func NewTimeSeries(w io.Writer) *TimeSeries { return &TimeSeries{w: bufio.NewWriter(w)} }

var seriesOps = []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE"}

// Write appends the row of one snapshot.
func (t *TimeSeries) Write(s *engine.Snapshot) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	if !t.header {
		cols := []string{"time", "elapsed_s", "interval_s", "phase", "threads", "partitions", "target",
			"ops", "ops_per_sec", "errors", "p50_us", "p95_us", "p99_us", "max_us",
			"cpu_percent", "proc_cpu_percent", "rss_bytes", "rx_bytes_per_sec", "tx_bytes_per_sec"}
		for _, op := range seriesOps {
			l := strings.ToLower(strings.ReplaceAll(op, "-", "_"))
			cols = append(cols, l+"_ops", l+"_errors", l+"_p50_us", l+"_p99_us", l+"_intended_p99_us")
		}
		cols = append(cols, intendedCols...)
		cols = append(cols, "failed_per_sec")
		_, t.err = fmt.Fprintln(t.w, strings.Join(cols, ","))
		t.header = true
	}
	tot := s.Total.Interval
	var rx, tx float64
	for _, n := range s.Host.NICs {
		rx += n.RxBytesPerSec
		tx += n.TxBytesPerSec
	}
	row := []string{
		s.Time.UTC().Format(time.RFC3339Nano),
		f3(s.Elapsed.Seconds()), f3(s.Interval.Seconds()), string(s.Phase),
		fmt.Sprint(s.Threads), fmt.Sprint(s.Partitions), f3(s.Target),
		fmt.Sprint(tot.Count), f3(tot.Rate), fmt.Sprint(tot.Errors),
		usCSV(tot, tot.P50), usCSV(tot, tot.P95), usCSV(tot, tot.P99), usCSV(tot, tot.Max),
		hostCPU(s.Host), f3(s.Host.ProcCPU), fmt.Sprint(s.Host.ProcRSS), f3(rx), f3(tx),
	}
	for _, name := range seriesOps {
		var o *engine.OpSnapshot
		for i := range s.Ops {
			if s.Ops[i].Name == name {
				o = &s.Ops[i]
			}
		}
		if o == nil {
			row = append(row, "0", "0", "", "", "")
			continue
		}
		ip99 := ""
		if it := o.IntendedInterval; it != nil {
			ip99 = usCSV(*it, it.P99)
		}
		row = append(row, fmt.Sprint(o.Interval.Count), fmt.Sprint(o.Interval.Errors),
			usCSV(o.Interval, o.Interval.P50), usCSV(o.Interval, o.Interval.P99), ip99)
	}
	row = append(row, intendedTotal(s)...)
	row = append(row, f3(tot.FailedRate))
	_, t.err = fmt.Fprintln(t.w, strings.Join(row, ","))
}

// Flush writes buffered rows out and returns the first error seen.
func (t *TimeSeries) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}

func f3(f float64) string {
	s := fmt.Sprintf("%.3f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-0" {
		return "0"
	}
	return s
}

// usCSV is a latency column of st: empty when nothing succeeded (no
// latency, never 0).
func usCSV(st engine.Stats, d time.Duration) string {
	if !st.HasLatency() {
		return ""
	}
	return f3(usf(d))
}

// hostCPU is the host CPU column: empty when it was not measured.
func hostCPU(h host.Sample) string {
	if h.Cores == 0 {
		return ""
	}
	return f3(h.CPUTotal)
}

// intendedCols are the overall latency from the intended start, over all
// operation types, in the interval: filled while a target is set (empty
// otherwise, and with measurement.interval=op), last so that the columns
// before them keep their places.
var intendedCols = []string{"intended_p50_us", "intended_p95_us", "intended_p99_us", "intended_max_us"}

func intendedTotal(s *engine.Snapshot) []string {
	it := s.Total.IntendedInterval
	if it == nil || !it.HasLatency() || s.Target <= 0 {
		return make([]string, len(intendedCols))
	}
	return []string{f3(usf(it.P50)), f3(usf(it.P95)), f3(usf(it.P99)), f3(usf(it.Max))}
}
