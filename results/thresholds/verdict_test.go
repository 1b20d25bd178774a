package thresholds

import (
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Threshold
	}{
		{"READ.p99<10ms", Threshold{Op: "READ", Metric: "latency", Stat: "p", Q: 99, Cmp: "<", Value: 10e6}},
		{" read.p99.9 <= 250us ", Threshold{Op: "READ", Metric: "latency", Stat: "p", Q: 99.9, Cmp: "<=", Value: 250e3}},
		{"Intended-TOTAL.p(95)<20", Threshold{Op: "TOTAL", Intended: true, Metric: "latency", Stat: "p", Q: 95, Cmp: "<", Value: 20e6}},
		{"p99<1.5s", Threshold{Op: "TOTAL", Metric: "latency", Stat: "p", Q: 99, Cmp: "<", Value: 1.5e9}},
		{"UPDATE.avg<2µs", Threshold{Op: "UPDATE", Metric: "latency", Stat: "mean", Cmp: "<", Value: 2e3}},
		{"READ-MODIFY-WRITE.max<1s", Threshold{Op: "READ-MODIFY-WRITE", Metric: "latency", Stat: "max", Cmp: "<", Value: 1e9}},
		{"errors<0.1%", Threshold{Op: "TOTAL", Metric: "errors%", Cmp: "<", Value: 0.1}},
		{"UPDATE.errors<=10", Threshold{Op: "UPDATE", Metric: "errors", Cmp: "<=", Value: 10}},
		{"ops>5000", Threshold{Op: "TOTAL", Metric: "ops", Cmp: ">", Value: 5000}},
		{"READ.ops>=100", Threshold{Op: "READ", Metric: "ops", Cmp: ">=", Value: 100}},
		{"attempts>100", Threshold{Op: "TOTAL", Metric: "attempts", Cmp: ">", Value: 100}},
	} {
		got, err := Parse(c.in)
		c.want.Expr = strings.TrimSpace(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "READ.p99", "READ.p99<", "READ.p0<1ms", "READ.p101<1ms", "READ.p99<fast", "READ.median<1ms",
		"errors<101%", "ops>-1", "Intended-READ.ops>1", ".p99<1ms", "READ.p99=1ms", "ops>NaN"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		} else if !strings.Contains(err.Error(), "allowed:") {
			t.Errorf("Parse(%q): %v does not say what is allowed", bad, err)
		}
	}
}

func result() *engine.PhaseResult {
	set := &measure.Set{}
	for i := 1; i <= 1000; i++ {
		set.Record(measure.Slot(0, measure.OK), int64(i)*1000) // READ 1..1000 µs
		set.Record(measure.Slot(0, measure.OKIntended), int64(i)*3000)
	}
	for i := 0; i < 98; i++ {
		set.Record(measure.Slot(1, measure.OK), 50_000) // UPDATE 50 µs
	}
	set.Record(measure.Slot(1, measure.Failed), 9_000)
	set.Record(measure.Slot(1, measure.Failed), 9_000)
	set.AddError(1, "unavailable", 2)
	set.Ops, set.Failed = 1100, 2
	return &engine.PhaseResult{RunTime: time.Second, Set: set, OpNames: []string{"READ", "UPDATE"}}
}

func TestEvaluateResult(t *testing.T) {
	t.Parallel()
	exprs := map[string]bool{
		"READ.p99<995us":              true,
		"READ.p99<900us":              false,
		"read.p50>=499us":             true,
		"Intended-READ.p99<2ms":       false,
		"Intended-READ.p99<3ms":       true,
		"TOTAL.max<=1001us":           true,
		"UPDATE.mean<51us":            true,
		"errors<0.1%":                 false, // 2 of 1100
		"errors<0.2%":                 true,
		"UPDATE.errors<=2":            true,
		"UPDATE.errors<2":             false,
		"ops>1000":                    true,
		"ops>2000":                    false,
		"UPDATE.ops>=98":              true, // successful operations
		"UPDATE.ops>=100":             false,
		"UPDATE.attempts>=100":        true,
		"ops>1099":                    false,
		"attempts>1099":               true,
		"SCAN.p99<1s":                 false, // no data
		"Intended-UPDATE.p99<1s":      false, // no data
		"READ.p99.99<1s":              true,
		"Intended-TOTAL.p(50)<1600us": true,
	}
	var ts []Threshold
	var order []string
	for e := range exprs {
		th, err := Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
		order = append(order, e)
	}
	rs := Evaluate(ts, FromResult(result()))
	want := 0
	for i, r := range rs {
		if r.Pass != exprs[order[i]] {
			t.Errorf("%s: pass=%v (actual %s), want %v", order[i], r.Pass, r.Text, exprs[order[i]])
		}
		if !exprs[order[i]] {
			want++
		}
	}
	if Crossed(rs) != want {
		t.Errorf("Crossed = %d, want %d", Crossed(rs), want)
	}
}

func TestEvaluateSnapshot(t *testing.T) {
	t.Parallel()
	snap := &engine.Snapshot{
		Ops: []engine.OpSnapshot{{Name: "READ", Cumulative: engine.Stats{Count: 10, OK: 10, P99: 5 * time.Millisecond, Rate: 10,
			Percentiles: []engine.Percentile{{Q: 90, Value: time.Millisecond}}}},
			{Name: "UPDATE", Cumulative: engine.Stats{Count: 5, Errors: 5, FailedRate: 5}}},
		Total: engine.OpSnapshot{Name: "TOTAL", Cumulative: engine.Stats{Count: 10, OK: 9, Errors: 1, Rate: 9, FailedRate: 1, P99: 5 * time.Millisecond}},
	}
	for e, pass := range map[string]bool{"READ.p99<10ms": true, "READ.p99<1ms": false, "READ.p90<2ms": true, "READ.p97<1s": false,
		"errors<=10%": true, "errors<10%": false, "ops>5": true, "Intended-READ.p99<1s": false,
		"ops>9": false, "attempts>9": true, "UPDATE.ops>0": false, "UPDATE.p99<1s": false /* nothing succeeded: no data */} {
		th, err := Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		if r := Evaluate([]Threshold{th}, FromSnapshot(snap))[0]; r.Pass != pass {
			t.Errorf("%s on a snapshot: pass=%v (%s), want %v", e, r.Pass, r.Text, pass)
		}
	}
}
