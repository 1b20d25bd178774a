package htmlreport

import (
	"math"
	"strconv"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// parseTimeLabel reads a tick's label back into seconds: 45, 2.5, 1:30,
// 1:00:00.
func parseTimeLabel(t *testing.T, s string) float64 {
	t.Helper()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	v := 0.0
	for _, p := range strings.Split(s, ":") {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil {
			t.Fatalf("label %q is not a time", s)
		}
		v = v*60 + f
	}
	if neg {
		v = -v
	}
	return v
}

// A time axis has a few labels, each once, at whole steps of time, each
// reading as the time of its tick: in seconds up to two minutes, m:ss
// beyond, h:mm:ss from an hour. gonum's default ticks gave 0.00, 25.00,
// 50.00, 75.00 over 75 s and seconds by the thousand over an hour.
func TestTimeTicks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		lo, hi float64
		most   int
		want   string // the labels, joined
	}{
		{0, 13.7, 8, "0 2 4 6 8 10 12"},
		{0, 13.7, 5, "0 5 10"},
		{0, 75, 8, "0 10 20 30 40 50 60 70"},
		{0, 75, 6, "0 15 30 45 60 75"},
		{0, 81.6, 5, "0 20 40 60 80"},
		{0, 300, 8, "0:00 1:00 2:00 3:00 4:00 5:00"},
		{0, 3700, 8, "0:00:00 0:10:00 0:20:00 0:30:00 0:40:00 0:50:00 1:00:00"},
		{2.5, 4.1, 8, "2.6 2.8 3 3.2 3.4 3.6 3.8 4"},
		{0, 0.35, 8, "0 0.1 0.2 0.3"},
		{-0.4, 12, 8, "0 2 4 6 8 10 12"},
	}
	for _, c := range cases {
		ticks := timeTicks(c.lo, c.hi, c.most)
		var labels []string
		seen := map[string]bool{}
		var step float64
		var prev float64
		for _, tk := range ticks {
			if tk.Value < c.lo-1e-9 || tk.Value > c.hi+1e-9 {
				t.Errorf("[%v, %v]: tick at %v outside the axis", c.lo, c.hi, tk.Value)
			}
			if tk.Label == "" {
				continue
			}
			if seen[tk.Label] {
				t.Errorf("[%v, %v]: label %q twice", c.lo, c.hi, tk.Label)
			}
			seen[tk.Label] = true
			if v := parseTimeLabel(t, tk.Label); math.Abs(v-tk.Value) > 1e-6 {
				t.Errorf("[%v, %v]: label %q on a tick at %v", c.lo, c.hi, tk.Label, tk.Value)
			}
			if len(labels) == 1 {
				step = tk.Value - prev
			} else if len(labels) > 1 && math.Abs(tk.Value-prev-step) > 1e-6 {
				t.Errorf("[%v, %v]: labels not evenly spaced: %v after %v (step %v)", c.lo, c.hi, tk.Value, prev, step)
			}
			prev = tk.Value
			labels = append(labels, tk.Label)
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("[%v, %v] at most %d: labels %q, want %q", c.lo, c.hi, c.most, got, c.want)
		}
		if len(labels) > c.most {
			t.Errorf("[%v, %v]: %d labels, at most %d wanted", c.lo, c.hi, len(labels), c.most)
		}
	}
	if got := timeAxisLabel("time since start (s)", 0, 300); got != "time since start (m:ss)" {
		t.Errorf("axis label over 5 minutes: %q", got)
	}
	if got := timeAxisLabel("time since start (s)", 0, 30); got != "time since start (s)" {
		t.Errorf("axis label over 30 s: %q", got)
	}
}

// A run whose last interval held 6 operations in 5 ms, one of them slow:
// the charts over time leave that interval out and say so, so it neither
// flattens the latency chart (p99 17 ms over intervals of 2 µs) nor
// drops the throughput line to nothing; from the CSV and from the HDR
// log alike.
func TestShortLastIntervalLeftOut(t *testing.T) {
	t.Parallel()
	csvRun := &Run{}
	hdrRun := &Run{}
	for i := 1; i <= 10; i++ {
		csvRun.Rows = append(csvRun.Rows, Row{ElapsedS: float64(i), IntervalS: 1, Phase: "run", Ops: 400000, OpsPerSec: 400000,
			P50US: 1, P95US: 1.5, P99US: 2, HasLatency: true})
		h := hdr.New(1, 3600e9, 3)
		for j := 0; j < 1000; j++ {
			h.RecordValue(int64(1000 + j)) // 1-2 µs, in ns
		}
		hdrRun.Intervals = append(hdrRun.Intervals, Interval{Op: "READ", StartS: float64(i - 1), EndS: float64(i), H: h})
	}
	csvRun.Rows = append(csvRun.Rows, Row{ElapsedS: 10.005, IntervalS: 0.005, Phase: "run", Ops: 6, OpsPerSec: 1200, P50US: 2, P95US: 17000, P99US: 17000, HasLatency: true})
	h := hdr.New(1, 3600e9, 3)
	for _, v := range []int64{1500, 1600, 1700, 1800, 1900, 17e6} {
		h.RecordValue(v)
	}
	hdrRun.Intervals = append(hdrRun.Intervals, Interval{Op: "READ", StartS: 10, EndS: 10.005, H: h})

	for name, run := range map[string]*Run{"csv": csvRun, "hdr": hdrRun} {
		var notes []string
		lat := latencyCharts(run, &notes)
		tput := throughputChart(run, &notes)
		if len(lat) != 1 || tput == nil {
			t.Fatalf("%s: %d latency charts, throughput %v", name, len(lat), tput)
		}
		for _, c := range []*Chart{lat[0], tput} {
			if !strings.Contains(c.Caption, "The run phase's last interval (5.00ms, 6 operations) is left out") {
				t.Errorf("%s %s: the caption does not say the last interval is left out: %q", name, c.ID, c.Caption)
			}
			for _, s := range c.Series {
				for _, p := range s.Points {
					if p.X > 10.001 {
						t.Errorf("%s %s: series %s has a point in the last interval: %v", name, c.ID, s.Name, p)
					}
				}
			}
		}
		if m := maxY(lat[0].Series); m > 10 || lat[0].LogY {
			t.Errorf("%s: the latency chart reaches %v µs (log axis %v): the last interval flattens it", name, m, lat[0].LogY)
		}
		if lo, first := minPositiveY(tput.Series), tput.Series[0].Points[0].Y; lo < 0.9*first {
			t.Errorf("%s: the throughput line drops to %v ops/s from %v", name, lo, first)
		}
	}

	// A spike in the middle of the run is a measurement: it stays, and
	// the latency axis goes logarithmic so that it does not flatten the
	// rest.
	csvRun.Rows[4].P99US = 17000
	var notes []string
	lat := latencyCharts(csvRun, &notes)
	if !lat[0].LogY || !strings.Contains(lat[0].YLabel, "log scale") || maxY(lat[0].Series) != 17000 {
		t.Errorf("a spike mid-run: log axis %v, label %q, max %v", lat[0].LogY, lat[0].YLabel, maxY(lat[0].Series))
	}

	// A last interval of the usual length is a measurement too.
	csvRun.Rows[len(csvRun.Rows)-1].IntervalS = 0.9
	if skip, ts := rowTails(csvRun.Rows); len(skip) != 0 || tailNote(ts) != "" {
		t.Errorf("a last interval of 0.9 s is left out: %v", ts)
	}
}

// A load phase of one sliver of an interval (1,000 records in 12 ms:
// 84K ops/s) has no usual interval of its own; held against the run's 1 s
// intervals it is left out of the throughput chart, and the caption says
// so; the run's line keeps the chart's scale. A load of one whole
// interval stays.
func TestALoadOfOneSliverIsLeftOut(t *testing.T) {
	t.Parallel()
	run := &Run{Rows: []Row{{ElapsedS: 0.012, IntervalS: 0.012, Phase: "load", Ops: 1000, OpsPerSec: 84304}}}
	for i := 1; i <= 5; i++ {
		run.Rows = append(run.Rows, Row{ElapsedS: 0.012 + float64(i), IntervalS: 1, Phase: "run", Ops: 2000, OpsPerSec: 2000})
	}
	hdrRun := &Run{}
	for i, span := range [][2]float64{{0, 0.012}, {0.012, 1.012}, {1.012, 2.012}, {2.012, 3.012}} {
		h := hdr.New(1, 3600e9, 3)
		n := 2000
		if i == 0 {
			n = 1000
		}
		for j := 0; j < n; j++ {
			h.RecordValue(int64(1000 + j))
		}
		hdrRun.Intervals = append(hdrRun.Intervals, Interval{Op: "INSERT", Load: i == 0, StartS: span[0], EndS: span[1], H: h})
	}
	for name, r := range map[string]*Run{"csv": run, "hdr": hdrRun} {
		var notes []string
		tput := throughputChart(r, &notes)
		if tput == nil {
			t.Fatalf("%s: no throughput chart", name)
		}
		if !strings.Contains(tput.Caption, "The load phase's only interval (12.0ms, 1000 operations) is left out") {
			t.Errorf("%s: caption %q", name, tput.Caption)
		}
		if m := maxY(tput.Series); m > 2100 {
			t.Errorf("%s: the chart reaches %v ops/s: the load's sliver is drawn", name, m)
		}
	}
	run.Rows[0].IntervalS, run.Rows[0].ElapsedS = 0.9, 0.9
	if skip, ts := rowTails(run.Rows); len(skip) != 0 || tailNote(ts) != "" {
		t.Errorf("a load of one 0.9 s interval is left out: %v", ts)
	}
}
