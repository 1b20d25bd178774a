package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload"
)

// The JSON carries, for every segment and for the run, numeric
// ops_per_sec_ci_low <= ops_per_sec <= ops_per_sec_ci_high and
// p99_us_ci_low <= p99_us <= p99_us_ci_high, and intervals that say
// something: wider than a point, narrower than the figure.
func TestSummaryConfidenceIntervals(t *testing.T) {
	t.Parallel()
	start := time.Now()
	a := engine.NewAssembler(engine.AssemblerConfig{Phase: engine.PhaseRun, OpNames: []string{"READ"}, RunStart: start,
		PhaseStart: start, Interval: time.Second, Last: true}, engine.Controls{Threads: 4, Partitions: 1}, "run phase")
	rng := rand.New(rand.NewPCG(1, 2))
	at := start
	var snap *engine.Snapshot
	for i := range 20 {
		if i == 10 {
			a.Cut("threads 4→8", engine.Controls{Threads: 8, Partitions: 1}, -1)
		}
		s := &measure.Set{}
		n := 900 + rng.IntN(200)
		for range n {
			s.Record(measure.Slot(0, measure.OK), int64(time.Duration(rng.ExpFloat64()*float64(time.Millisecond))))
		}
		s.Ops = int64(n)
		a.Add(s)
		at = at.Add(time.Second)
		var data *engine.IntervalData
		snap, data = a.Snapshot(at, at.Sub(start), host.Sample{}, workload.Sample{}, i == 19, false)
		a.Recycle(data)
	}
	res := a.Result(snap, at.Sub(start), start, false)
	var b bytes.Buffer
	if err := WriteJSON(&b, []*engine.PhaseResult{res}, engine.Info{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	check := func(what string, m map[string]any) {
		for _, f := range []string{"ops_per_sec", "p99_us"} {
			v, okV := m[f].(float64)
			lo, okL := m[f+"_ci_low"].(float64)
			hi, okH := m[f+"_ci_high"].(float64)
			if !okV || !okL || !okH {
				t.Errorf("%s: %s %v [%v, %v]: not numeric", what, f, m[f], m[f+"_ci_low"], m[f+"_ci_high"])
				continue
			}
			if !(lo <= v && v <= hi) || !(lo < hi) || hi-lo > v {
				t.Errorf("%s: %s %v outside or beside its interval [%v, %v]", what, f, v, lo, hi)
			}
		}
	}
	check("run", doc)
	segs, _ := doc["segments"].([]any)
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2", len(segs))
	}
	for i, s := range segs {
		check("segment "+string(rune('1'+i)), s.(map[string]any))
	}
}
