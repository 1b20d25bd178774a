package htmlreport

import (
	"encoding/json"
	"strings"
	"testing"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/results/report"
	"benchtop/workload/timeseries"
)

func signals(fs []Finding) map[string]string {
	m := map[string]string{}
	for _, f := range fs {
		m[f.Signal] += f.Text
	}
	return m
}

func TestLimitsFromMeasuredSignals(t *testing.T) {
	t.Parallel()
	seg := func(i, threads int, target, ops, p99, cpu float64, knee bool) report.SegmentSummary {
		g := report.SegmentSummary{Index: i, StartS: float64(i-1) * 10, DurationS: 10, Threads: threads, Partitions: 1, Target: target, OpsPerSec: ops, P99US: &p99, CPU: &cpu, Knee: knee}
		if knee {
			g.KneeFrom = i - 1
		}
		return g
	}
	outage := report.SegmentSummary{Index: 2, StartS: 10, DurationS: 10, Threads: 8, Partitions: 1, OpsPerSec: 0, FailedPerSec: 31574,
		ErrorRate: 1, State: "errors", Note: "100 % of its operations failed"}
	meta := &engine.RunMeta{Host: host.Machine{OS: "linux", Cores: 4, NICs: []host.Link{{Name: "eth0", SpeedMbps: 1000}}}}
	rows := func(cpu, rxMBps float64) []Row {
		var out []Row
		for i := 1; i <= 10; i++ {
			out = append(out, Row{ElapsedS: float64(i), IntervalS: 1, Phase: "run", CPU: cpu, ProcCPU: cpu * 4, RxBps: rxMBps * 1e6})
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		run        Run
		want       map[string]string // signal → a figure its text must hold
		not        []string
		wantAdvice string
	}{
		{
			name: "calm",
			run: Run{Summary: report.Summary{Run: meta, Segments: []report.SegmentSummary{seg(1, 4, 0, 1000, 900, 40, false)},
				Operations: []report.OpSummary{{Name: "READ", OpStats: report.OpStats{Count: 1000}}}}, Rows: rows(40, 10)},
			want: map[string]string{"none": "No limit was measured", "checked": "client CPU peaked at 40 %"},
			not:  []string{"cpu", "nic", "errors", "target", "knee"},
		},
		{
			name: "client CPU and NIC saturated",
			run:  Run{Summary: report.Summary{Run: meta, Segments: []report.SegmentSummary{seg(1, 64, 0, 50000, 900, 97, false)}}, Rows: rows(97, 120)},
			want: map[string]string{"cpu": "segment 1 (threads 64, partitions 1) 97 %", "nic": "120.0 MB/s of its 125.0 MB/s link (96 %)"},
			not:  []string{"none"}, wantAdvice: "NIC is saturated: add client machines",
		},
		{
			name: "errors with their causes",
			run: Run{Summary: report.Summary{Run: meta, Errors: map[string]int64{"timeout": 30, "unavailable": 20},
				Operations: []report.OpSummary{{Name: "READ", OpStats: report.OpStats{Count: 10000, Errors: 50}}}}, Rows: rows(20, 1)},
			want: map[string]string{"errors": "50 of 10,000 operations failed (0.500 %): timeout 30, unavailable 20"},
		},
		{
			name: "target unmet and a knee",
			run: Run{Summary: report.Summary{Run: meta, Segments: []report.SegmentSummary{
				seg(1, 8, 10000, 9990, 800, 30, false), seg(2, 8, 20000, 15000, 4000, 35, true)}}, Rows: rows(30, 1)},
			want: map[string]string{"target": "reached 15,000 of its 20,000 ops/s target (75 %)", "knee": "against p99 800µs at 9,990 ops/s in segment 1"},
			not:  []string{"none"}, wantAdvice: "Plan capacity below the knee: about 9,990 ops/s",
		},
		{
			name: "an outage is no knee and no source of advice",
			run: Run{Summary: report.Summary{Run: meta, Segments: []report.SegmentSummary{
				seg(1, 8, 0, 9990, 800, 30, false), outage, seg(3, 8, 0, 9000, 900, 30, false)},
				SegmentsNote: "best and knee undecided: they need two segments of at least 3 steady intervals"}, Rows: rows(30, 1)},
			want: map[string]string{"best": "Best and knee undecided"},
			not:  []string{"knee"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, advice := limits(&tc.run)
			if strings.Contains(strings.Join(advice, "\n"), "31,574") {
				t.Errorf("advice from an outage: %q", advice)
			}
			got := signals(fs)
			for sig, fig := range tc.want {
				if !strings.Contains(got[sig], fig) {
					t.Errorf("signal %s = %q, want it to say %q", sig, got[sig], fig)
				}
			}
			for _, sig := range tc.not {
				if _, ok := got[sig]; ok {
					t.Errorf("signal %s fired: %q", sig, got[sig])
				}
			}
			if tc.wantAdvice != "" && !strings.Contains(strings.Join(advice, "\n"), tc.wantAdvice) {
				t.Errorf("advice %q lacks %q", advice, tc.wantAdvice)
			}
		})
	}
}

func TestCompareShowsTheDifferences(t *testing.T) {
	t.Parallel()
	base := loadFixture(t, "sweep", true, true)
	run := loadFixture(t, "sweep", true, true)
	run.Summary.Throughput *= 1.10
	for i := range run.Summary.Segments {
		run.Summary.Segments[i].OpsPerSec *= 1.25
		if p := run.Summary.Segments[i].P99US; p != nil {
			half := *p * 0.5
			run.Summary.Segments[i].P99US = &half
		}
	}
	r := Compare(base, run, "/x/before.json", "/x/after.json")
	if !r.Compare || len(r.RunNames) != 2 || r.RunNames[0] != "baseline: before.json" {
		t.Fatalf("compare report: %+v", r.RunNames)
	}
	for _, f := range r.Header {
		if len(f.Values) != 2 {
			t.Errorf("header %s has %d values", f.Label, len(f.Values))
		}
	}
	if r.Headline[0].Value != "+10.0 %" {
		t.Errorf("headline throughput change = %q, want +10.0 %%", r.Headline[0].Value)
	}
	// Every run segment of a long configuration follows the baseline's,
	// with +25 % ops/s and -50 % p99.
	deltas := 0
	for i, row := range r.Segments.Rows {
		var dOps, dP99 string
		for _, c := range row.Cells {
			switch c.Key {
			case "delta_ops_per_sec_pct":
				dOps = c.Text
			case "delta_p99_pct":
				dP99 = c.Text
			}
		}
		if dOps == "" {
			continue
		}
		deltas++
		if dOps != "+25.0 %" || dP99 != "-50.0 %" {
			t.Errorf("row %d: Δ ops/s %q, Δ p99 %q; want +25.0 %% and -50.0 %%", i, dOps, dP99)
		}
		// The baseline row of the same configuration heads the group.
		threads := func(tr TRow) string {
			for _, c := range tr.Cells {
				if c.Key == "threads" {
					return c.Value
				}
			}
			return ""
		}
		j := i - 1
		for j >= 0 && r.Segments.Rows[j].Class != "baseline" {
			j--
		}
		if j < 0 || threads(r.Segments.Rows[j]) != threads(row) {
			t.Errorf("row %d (threads %s) has differences but no baseline row of its configuration before it", i, threads(row))
		}
	}
	if deltas != 4 {
		t.Errorf("%d rows with differences, want 4 (threads 1, 2, 4, 8)", deltas)
	}
	if r.Throughput == nil || len(r.Throughput.Series) != 2 || r.Throughput.Series[0].Name != "baseline" {
		t.Errorf("throughput overlay = %+v", r.Throughput)
	}
	if len(r.Latency) != 1 || len(r.Latency[0].Series) != 2 {
		t.Errorf("p99 overlay = %+v", r.Latency)
	}
	var b strings.Builder
	if err := Render(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "What changed") {
		t.Error("compare page has no What changed section")
	}
}

func TestTimeseriesSection(t *testing.T) {
	t.Parallel()
	run := loadFixture(t, "sweep", false, false)
	member, err := json.Marshal(&timeseries.Result{Written: 1000, Stored: 990, Check: "mismatch", Backpressure: 0.7, BatchSize: 500, FlushIntervalMS: 100, InFlight: 2,
		ByParallelism: []timeseries.Row{{Writers: 1, Seconds: 10, RecordsPerSec: 50000, MBPerSec: 5.5}, {Writers: 2, Seconds: 10, RecordsPerSec: 90000, MBPerSec: 9.9}}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Sections, err = sectionsOf(map[string]json.RawMessage{timeseries.JSONKey: member}); err != nil {
		t.Fatal(err)
	}
	r := Build(run)
	if len(r.Sections) != 1 || r.Sections[0].ID != "timeseries" || r.Sections[0].Table == nil || len(r.Sections[0].Table.Rows) != 2 || len(r.Sections[0].Charts) != 2 {
		t.Fatalf("time-series section: %+v", r.Sections)
	}
	ts := r.Sections[0]
	if c := ts.Table.Rows[1].Cells[2]; c.Key != "records_per_sec" || c.Value != "90000" || c.Text != "90,000" {
		t.Errorf("records/s cell = %+v", c)
	}
	got := signals(r.Limits)
	if !strings.Contains(got["check"], `"mismatch": 1,000 written, 990 stored`) || !strings.Contains(got["backpressure"], "70 %") {
		t.Errorf("limits = %q", got)
	}
}
