package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// A JSON summary with a "capacity" member gives the page its section:
// the answer, the facts, the probe staircase and each probe's latency
// against the bound, the probes' table with the answer's row marked, and
// the headline figure; what limited the run says the search's answer.
func TestCapacitySection(t *testing.T) {
	t.Parallel()
	doc := `{"tool": "benchtop", "command": "run", "database": "sim", "workload": "workloada",
	  "phases": [{"phase": "run", "runtime_ms": 40000, "operations": 70000}],
	  "capacity": {"outcome": "answer", "rate_ops_sec": 1990, "trusted": true,
	    "bracket": {"lo_ops_sec": 1990, "hi_ops_sec": 2040, "width": 0.0251},
	    "upper_ops_sec": 2008, "floor_ops_sec": 20.08, "precision": 0.05, "budget_s": 600, "elapsed_s": 40,
	    "answer": "sustainable 1,990 ops/s (p99 206ms); 2,040 ops/s failed p99 537ms >= 300ms",
	    "conditions": ["p99<300ms"],
	    "probes": [
	      {"n": 1, "threads": 1000, "target_ops_sec": 0, "start_s": 0, "steady_s": 5, "end_s": 6, "verdict": "fail", "decided": "p99 553ms >= 300ms", "goodput_ops_sec": 2008,
	       "conditions": [{"expr": "p99<300ms", "pass": false, "actual": 553000, "unit": "us", "text": "553ms", "basis": "service"}]},
	      {"n": 2, "threads": 1000, "target_ops_sec": 1990, "start_s": 6, "steady_s": 6, "end_s": 13, "verdict": "pass", "decided": "p99 206ms < 300ms", "goodput_ops_sec": 1981,
	       "conditions": [{"expr": "p99<300ms", "pass": true, "actual": 206000, "unit": "us", "text": "206ms", "basis": "intended"}], "client_cpu_percent": 6},
	      {"n": 3, "threads": 1000, "target_ops_sec": 2040, "start_s": 13, "steady_s": 5, "end_s": 19, "verdict": "fail", "decided": "p99 537ms >= 300ms", "goodput_ops_sec": 1978,
	       "conditions": [{"expr": "p99<300ms", "pass": false, "actual": 537000, "unit": "us", "text": "537ms", "basis": "intended"}]}]}}`
	run, err := ReadJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	rep := Build(run)
	c := rep.Capacity
	if c == nil || c.Status != "trusted" || !strings.HasPrefix(c.Answer, "sustainable 1,990 ops/s") {
		t.Fatalf("section %+v", c)
	}
	if c.Probes == nil || len(c.Probes.Rows) != 3 || c.Probes.Rows[1].Class != "best" || c.Probes.Rows[0].Class != "" {
		t.Fatalf("probes table %+v", c.Probes)
	}
	stair, lat := c.Charts[0], c.Charts[1]
	if len(stair.Series) != 4 || len(stair.Series[0].Points) != 6 || stair.Levels[0].At != 1990 {
		t.Errorf("staircase %+v", stair)
	}
	if lat == nil || len(lat.Series) != 1 || len(lat.Series[0].Points) != 3 || len(lat.Levels) != 1 || lat.Levels[0].At != 300_000 {
		t.Errorf("latency chart %+v", lat)
	}
	if rep.Headline[0].Label != "sustainable (find-max)" || rep.Headline[0].Value != "1,990 ops/s" {
		t.Errorf("headline %+v", rep.Headline[0])
	}
	found := false
	for _, a := range rep.Advice {
		found = found || strings.Contains(a, "Plan capacity below the search's answer: 1,990 ops/s")
	}
	if !found {
		t.Errorf("advice %q", rep.Advice)
	}
	var buf bytes.Buffer
	if err := Render(&buf, rep); err != nil {
		t.Fatal(err)
	}
	page, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	sec := byID(page, "capacity")
	if sec == nil || !strings.Contains(textOf(sec), c.Answer) || byID(page, "chart-capacity-staircase") == nil || byID(page, "table-capacity-probes") == nil {
		t.Fatal("the page has no capacity section with its answer, staircase and table")
	}
	if Build(&Run{}).Capacity != nil {
		t.Error("a run without a search has a capacity section")
	}
}
