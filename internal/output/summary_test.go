package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/fleet"
	"benchtop/htmlreport"
	"benchtop/results/report"
	"benchtop/results/steps"
	"benchtop/workload"
	"benchtop/workload/stream"
)

// results is a run phase with the stream's closing section.
func results() ([]*engine.PhaseResult, engine.Info) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	info := engine.Info{Command: "run", Adapter: "memory", Workload: "stream", Start: start, Properties: map[string]string{"partitions": "4"}}
	res := []*engine.PhaseResult{{Phase: engine.PhaseRun, Start: start, RunTime: 3 * time.Second, Set: &measure.Set{},
		Closing: &workload.Final{JSONKey: "stream", JSON: &stream.Summary{ReadErrors: 12, PartitionsFinal: 4, StableRowsPerSec: 1234.5},
			Problems: []string{"stream: a <problem> & more"}}}}
	return res, info
}

// decode reads a JSON document into its members.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	return m
}

// The document holds what results/report's WriteJSON writes (the summary
// and the closing section with its problems), member for member, with
// the typed members a command adds beside them.
func TestSummaryHoldsReportsJSON(t *testing.T) {
	t.Parallel()
	res, info := results()
	var want bytes.Buffer
	if err := report.WriteJSON(&want, res, info); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := NewSummary(res, info, nil).Write(&got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decode(t, got.Bytes()), decode(t, want.Bytes())) {
		t.Errorf("the document differs from report.WriteJSON's:\n%s\nwant\n%s", got.Bytes(), want.Bytes())
	}
	if !strings.HasSuffix(got.String(), "}\n") || !json.Valid(got.Bytes()) {
		t.Errorf("not one indented JSON object with a final newline:\n%s", got.Bytes())
	}

	// Failed steps, a baseline and a fleet: each its member, the rest as
	// before.
	base := &Baseline{JSON: "base.json", CSV: "base.csv", Run: &htmlreport.Run{Summary: report.Summary{Throughput: 123.5,
		Start: info.Start.Add(-time.Hour), Run: &engine.RunMeta{CommandLine: "benchtop run memory"}}}}
	st, err := steps.ParseAt("2s:partitions=8")
	if err != nil {
		t.Fatal(err)
	}
	doc := NewSummary(res, info, base).WithFailedSteps([]steps.Failure{{Step: st, Err: errors.New("no\nway")}})
	doc.FleetMembers = &FleetMembers{Agents: []fleet.AgentReport{{Name: "vm1", State: fleet.StateDone}},
		Fleet: FleetFigures{Agents: 1, ThreadsPerAgent: 2}}
	got.Reset()
	if err := doc.Write(&got); err != nil {
		t.Fatal(err)
	}
	m := decode(t, got.Bytes())
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	for _, k := range []string{"tool", "stream", "problems", "failed_steps", "baseline", "agents", "fleet"} {
		if !slices.Contains(keys, k) {
			t.Errorf("no %q member in %v", k, keys)
		}
	}
	fs := m["failed_steps"].([]any)[0].(map[string]any)
	if fs["step"] != "2s partitions=8" || fs["at_s"] != 2.0 || fs["error"] != "no way" || fs["source"] != st.Source {
		t.Errorf("failed_steps: %v", fs)
	}
	b := m["baseline"].(map[string]any)
	if b["json"] != "base.json" || b["timeseries"] != "base.csv" || b["throughput_ops_per_sec"] != 123.5 || b["command_line"] != "benchtop run memory" {
		t.Errorf("baseline: %v", b)
	}
	f := m["fleet"].(map[string]any)
	if lost, ok := f["lost"]; !ok || lost != nil { // null when none, as before
		t.Errorf("fleet: lost %v (%v), want null", lost, ok)
	}
	if f["agents"] != 1.0 || f["threads_per_agent"] != 2.0 || f["partitions_divided"] != false {
		t.Errorf("fleet: %v", f)
	}
	if _, ok := f["stream"]; ok {
		t.Errorf("fleet: a stream verdict without a shared stream: %v", f)
	}
	for _, k := range []string{"stream", "problems", "tool", "segments"} {
		if !reflect.DeepEqual(m[k], decode(t, want.Bytes())[k]) {
			t.Errorf("%s: %v, report.WriteJSON's %v", k, m[k], decode(t, want.Bytes())[k])
		}
	}

	// Without a closing section, nothing is appended.
	res[0].Closing = nil
	got.Reset()
	if err := NewSummary(res, info, nil).Write(&got); err != nil {
		t.Fatal(err)
	}
	if m := decode(t, got.Bytes()); m["stream"] != nil || m["problems"] != nil || m["baseline"] != nil || m["agents"] != nil {
		t.Errorf("members without their cause: %s", got.Bytes())
	}
}
