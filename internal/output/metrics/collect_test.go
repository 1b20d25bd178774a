package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
)

var opNames = []string{"READ", "UPDATE"}

// newExporter is an exporter that serves and pushes nothing.
func newExporter(t *testing.T, fleet bool) *Exporter {
	t.Helper()
	e, err := New(Config{Run: "test-run", Fleet: fleet, Version: "v9", Adapter: "memory", Workload: "workloada",
		CommandLine: "run memory -p password=****"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// gather is the exporter's families by name.
func gather(t *testing.T, e *Exporter) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := e.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// find is the metric of family name whose labels include want; nil when
// none.
func find(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, lp := range m.GetLabel() {
			have[lp.GetName()] = lp.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

// interval is a Set as the engine drains it: successful reads at okNs,
// failed reads at failNs with their kinds, updates, and Ops.
func interval(okNs []int64, failNs []int64, kinds []string) *measure.Set {
	s := &measure.Set{}
	for _, v := range okNs {
		s.Record(measure.Slot(0, measure.OK), v)
		s.Record(measure.Slot(0, measure.OKIntended), v+1000)
	}
	for i, v := range failNs {
		s.Record(measure.Slot(0, measure.Failed), v)
		s.AddError(0, kinds[i%len(kinds)], 1)
	}
	s.Record(measure.Slot(1, measure.OK), 5000)
	s.Ops = int64(len(okNs)+len(failNs)) + 1
	s.Failed = int64(len(failNs)) // as the engine counts them
	return s
}

// Successful and failed operations are counted from the measurement
// variants, apart: a failure is never a sample of the success histogram,
// and its latency has a histogram of its own.
func TestOutcomesApart(t *testing.T) {
	t.Parallel()
	e := newExporter(t, false)
	t0 := time.Unix(1000, 0)
	ok := []int64{2000, 3000, 4000, 9e6}
	fail := []int64{5e9, 6e9, 7e9}
	for i := range 2 {
		start := t0.Add(time.Duration(i) * time.Second)
		e.Interval(engine.PhaseRun, opNames, start, start.Add(time.Second), interval(ok, fail, []string{"unavailable", "timeout", "unavailable"}))
	}
	fams := gather(t, e)
	get := func(name string, labels map[string]string) float64 {
		t.Helper()
		m := find(fams, name, labels)
		if m == nil {
			t.Fatalf("no %s%v", name, labels)
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
		return math.NaN()
	}
	read := map[string]string{"phase": "run", "operation": "READ", "run": "test-run"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range read {
			m[a] = b
		}
		return m
	}
	if n := get(nOperations, with("outcome", "success")); n != 8 {
		t.Errorf("READ successes = %v, want 8", n)
	}
	if n := get(nOperations, with("outcome", "failure")); n != 6 {
		t.Errorf("READ failures = %v, want 6", n)
	}
	if n := get(nErrors, with("kind", "unavailable")); n != 4 {
		t.Errorf("READ unavailable = %v, want 4", n)
	}
	if n := get(nErrors, with("kind", "timeout")); n != 2 {
		t.Errorf("READ timeout = %v, want 2", n)
	}
	if n := get(nLatency, with("measure", "service")); n != 8 {
		t.Errorf("success histogram holds %v values, want the 8 successes only", n)
	}
	if n := get(nFailedLatency, with("measure", "service")); n != 6 {
		t.Errorf("failure histogram holds %v values, want 6", n)
	}
	h := find(fams, nLatency, with("measure", "service")).GetHistogram()
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() >= 1 && b.GetCumulativeCount() != 8 {
			t.Errorf("success bucket le=%v holds %d: the failures' 5-7 s latencies leaked in", b.GetUpperBound(), b.GetCumulativeCount())
		}
	}
	if n := get(nThroughput, map[string]string{"outcome": "success"}); n != 5 {
		t.Errorf("throughput success = %v ops/s, want 5 (the last interval's 4 reads and 1 update in 1 s)", n)
	}
	if n := get(nThroughput, map[string]string{"outcome": "failure"}); n != 3 {
		t.Errorf("throughput failure = %v ops/s, want 3", n)
	}
}

// The classic buckets hold exactly the values at or below each bound
// (values within HdrHistogram's precision of a bound left out of the
// draw), and the sum is HdrHistogram's within its precision.
func TestBucketsCountValuesUnderEachBound(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var vals []int64
	for len(vals) < 20000 {
		v := int64(math.Exp(r.Float64()*math.Log(70e9/500)) * 500) // 0.5 µs to 70 s, log-uniform
		near := false
		for _, b := range boundsNs {
			if math.Abs(float64(v-b)) <= float64(b)*0.002 {
				near = true
			}
		}
		if !near {
			vals = append(vals, v)
		}
	}
	e := newExporter(t, false)
	set := &measure.Set{}
	var sum float64
	for _, v := range vals {
		set.Record(measure.Slot(0, measure.OK), v)
		sum += float64(v) / 1e9
	}
	e.Interval(engine.PhaseRun, opNames, time.Unix(0, 0), time.Unix(1, 0), set)
	m := find(gather(t, e), nLatency, map[string]string{"operation": "READ"})
	h := m.GetHistogram()
	if len(h.GetBucket()) != len(Bounds) {
		t.Fatalf("%d buckets, want %d", len(h.GetBucket()), len(Bounds))
	}
	for _, b := range h.GetBucket() {
		var want uint64
		for _, v := range vals {
			if float64(v) <= b.GetUpperBound()*1e9 {
				want++
			}
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("le=%v: %d values, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	if h.GetSampleCount() != uint64(len(vals)) {
		t.Errorf("count %d, want %d", h.GetSampleCount(), len(vals))
	}
	if d := math.Abs(h.GetSampleSum()-sum) / sum; d > 0.001 {
		t.Errorf("sum %v s, the values add up to %v s (%.4f %% apart)", h.GetSampleSum(), sum, d*100)
	}
}

// The bounds run from 1 µs to past 60 s in steps of at most 30 %, and
// the usual objectives are bounds.
func TestBounds(t *testing.T) {
	t.Parallel()
	if Bounds[0] != 1e-6 || Bounds[len(Bounds)-1] < 60 {
		t.Errorf("bounds %v to %v, want 1e-06 to at least 60", Bounds[0], Bounds[len(Bounds)-1])
	}
	for i := 1; i < len(Bounds); i++ {
		if r := Bounds[i] / Bounds[i-1]; r <= 1 || r > 1.3 {
			t.Errorf("step %v -> %v is %.2f", Bounds[i-1], Bounds[i], r)
		}
	}
	for _, want := range []float64{1e-5, 1e-3, 0.002, 0.0025, 0.005, 0.01, 0.1, 0.25, 1, 10} {
		if !slices.Contains(Bounds, want) {
			t.Errorf("%v is not a bound", want)
		}
	}
}

// The last interval's summary holds what the screen shows for the same
// histogram (engine.Summarize: p50, p95, p99, p99.9, max), and none of
// an earlier interval's once an interval has no success.
func TestIntervalSummaryIsTheScreens(t *testing.T) {
	t.Parallel()
	e := newExporter(t, false)
	r := rand.New(rand.NewPCG(3, 4))
	set := &measure.Set{}
	for range 5000 {
		set.Record(measure.Slot(0, measure.OK), int64(r.ExpFloat64()*3e6))
	}
	st := engine.Summarize(set.H[measure.Slot(0, measure.OK)], time.Second, nil)
	e.Interval(engine.PhaseRun, opNames, time.Unix(0, 0), time.Unix(1, 0), set)
	m := find(gather(t, e), nIntervalLatency, map[string]string{"operation": "READ", "measure": "service"})
	if m == nil {
		t.Fatal("no READ service summary")
	}
	want := map[float64]time.Duration{0.5: st.P50, 0.95: st.P95, 0.99: st.P99, 0.999: st.P999, 1: st.Max}
	qs := m.GetSummary().GetQuantile()
	if len(qs) != len(want) {
		t.Fatalf("%d quantiles, want %d", len(qs), len(want))
	}
	for _, q := range qs {
		if w := want[q.GetQuantile()].Seconds(); q.GetValue() != w {
			t.Errorf("quantile %v = %v s, the screen shows %v s", q.GetQuantile(), q.GetValue(), w)
		}
	}
	// An interval with failures only: no latency, not the last one's.
	failed := &measure.Set{}
	failed.Record(measure.Slot(0, measure.Failed), 1e6)
	failed.AddError(0, "unavailable", 1)
	e.Interval(engine.PhaseRun, opNames, time.Unix(1, 0), time.Unix(2, 0), failed)
	m = find(gather(t, e), nIntervalLatency, map[string]string{"operation": "READ", "measure": "service"})
	if n := len(m.GetSummary().GetQuantile()); n != 0 {
		t.Errorf("after an interval without a success the summary still has %d quantiles", n)
	}
	if c := m.GetSummary().GetSampleCount(); c != 5000 {
		t.Errorf("summary count %d, want the 5000 successes so far", c)
	}
}

// A fleet's families carry the agent label: "" (absent) for the merged
// series, the agent's name for its own; gauges per agent come from the
// snapshot's agent rows.
func TestFleetSeriesPerAgent(t *testing.T) {
	t.Parallel()
	e := newExporter(t, true)
	t0 := time.Unix(0, 0)
	one := interval([]int64{1000, 2000}, nil, nil)
	e.AgentInterval("vm1", engine.PhaseRun, opNames, t0, t0.Add(time.Second), one)
	e.AgentInterval("vm2", engine.PhaseRun, opNames, t0, t0.Add(time.Second), interval([]int64{1000}, nil, nil))
	merged := interval([]int64{1000, 2000, 1000}, nil, nil)
	e.Interval(engine.PhaseRun, opNames, t0, t0.Add(time.Second), merged)
	e.Snapshot(&engine.Snapshot{Phase: engine.PhaseRun, Threads: 4, Host: host.Sample{Cores: 2, CPUTotal: 50},
		Agents: []engine.AgentRow{{Name: "vm1", State: "running", Threads: 4, CPU: 40}, {Name: "vm2", State: "late", Threads: 4, CPU: -1}}})
	fams := gather(t, e)
	for agent, want := range map[string]float64{"": 3, "vm1": 2, "vm2": 1} {
		m := find(fams, nOperations, map[string]string{"operation": "READ", "outcome": "success", "agent": agent})
		if m == nil || m.GetCounter().GetValue() != want {
			t.Errorf("agent %q: READ successes %v, want %v", agent, m.GetCounter().GetValue(), want)
		}
	}
	if m := find(fams, nCPU, map[string]string{"agent": "vm1"}); m == nil || m.GetGauge().GetValue() != 0.4 {
		t.Errorf("vm1's CPU: %v, want 0.4", m)
	}
	if m := find(fams, nCPU, map[string]string{"agent": "vm2"}); m != nil {
		t.Errorf("vm2's CPU is unknown, yet a series says %v", m.GetGauge().GetValue())
	}
	if m := find(fams, nAgentState, map[string]string{"agent": "vm2", "state": "late"}); m == nil || m.GetGauge().GetValue() != 1 {
		t.Errorf("vm2 late: %v", m)
	}
	if m := find(fams, nAgentState, map[string]string{"agent": "vm2", "state": "running"}); m == nil || m.GetGauge().GetValue() != 0 {
		t.Errorf("vm2 running: %v, want 0", m)
	}
}

// benchtop_info carries the command line's hash, never the command line,
// and every series the run label.
func TestInfoAndRunLabel(t *testing.T) {
	t.Parallel()
	e := newExporter(t, false)
	e.Interval(engine.PhaseRun, opNames, time.Unix(0, 0), time.Unix(1, 0), interval([]int64{1000}, nil, nil))
	fams := gather(t, e)
	info := find(fams, nInfo, nil)
	for _, lp := range info.GetLabel() {
		if strings.Contains(lp.GetValue(), "password") || strings.Contains(lp.GetValue(), "run memory") {
			t.Errorf("benchtop_info label %s=%q holds the command line", lp.GetName(), lp.GetValue())
		}
	}
	if find(fams, nInfo, map[string]string{"adapter": "memory", "workload": "workloada", "version": "v9"}) == nil {
		t.Errorf("benchtop_info: %v", info)
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			if find(map[string]*dto.MetricFamily{name: {Metric: []*dto.Metric{m}}}, name, map[string]string{"run": "test-run"}) == nil {
				t.Errorf("%s without the run label: %v", name, m.GetLabel())
			}
		}
		if strings.HasPrefix(name, "go_") || strings.HasPrefix(name, "process_") {
			t.Errorf("%s: Go runtime series without --metrics-go", name)
		}
	}
}

// An operation's error series are there at 0 from its first interval,
// before any error: a rate() or an alert over them has data from the
// run's start. The first error counts on the series already there.
func TestErrorSeriesFromTheStart(t *testing.T) {
	t.Parallel()
	e := newExporter(t, false)
	t0 := time.Unix(1000, 0)
	e.Interval(engine.PhaseRun, opNames, t0, t0.Add(time.Second), interval([]int64{2000, 3000}, nil, nil))
	fams := gather(t, e)
	for _, op := range opNames {
		for _, kind := range []string{"timeout", "unavailable", "throttled", "not_found", "error"} {
			m := find(fams, nErrors, map[string]string{"phase": "run", "operation": op, "kind": kind})
			if m == nil || m.GetCounter().GetValue() != 0 {
				t.Errorf("%s %s: %v, want a series at 0 before any error", op, kind, m)
			}
		}
	}
	e.Interval(engine.PhaseRun, opNames, t0.Add(time.Second), t0.Add(2*time.Second), interval(nil, []int64{5e6}, []string{"timeout"}))
	if m := find(gather(t, e), nErrors, map[string]string{"operation": "READ", "kind": "timeout"}); m.GetCounter().GetValue() != 1 {
		t.Errorf("READ timeout after one: %v", m)
	}
}
