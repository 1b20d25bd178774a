package htmlreport

import (
	"strings"
	"testing"
)

// A fleet's JSON summary gives the page an agents table: one row per
// agent, a lost one's up to its loss, and their sum.
func TestAgentsTable(t *testing.T) {
	t.Parallel()
	doc := `{"tool": "benchtop", "command": "run", "database": "memory", "workload": "workloada",
	  "phases": [{"phase": "run", "runtime_ms": 6000, "operations": 1700}],
	  "agents": [
	    {"name": "vm1", "state": "done", "phases": [{"phase": "load", "operations": 10}, {"phase": "run", "runtime_ms": 6000, "operations": 1200, "throughput_ops_sec": 200}]},
	    {"name": "vm2", "state": "lost", "reason": "connection closed", "lost_at_ms": 2500, "up_to_loss": true,
	     "phases": [{"phase": "run", "runtime_ms": 2500, "operations": 500, "throughput_ops_sec": 200, "errors": 3}]}]}`
	run, err := ReadJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	rep := Build(run)
	tb := rep.Agents
	if tb == nil || len(tb.Rows) != 3 {
		t.Fatalf("agents table %+v, want 2 agents and a total", tb)
	}
	cell := func(r, c int) string { return tb.Rows[r].Cells[c].Text }
	if cell(0, 2) != "1,200" || cell(1, 2) != "500" || cell(1, 4) != "3" || !strings.Contains(cell(1, 6), "up to its loss at 2.5 s: connection closed") {
		t.Errorf("rows %+v", tb.Rows[:2])
	}
	if tb.Rows[2].Class != "total" || cell(2, 2) != "1,700" || cell(2, 4) != "3" {
		t.Errorf("total %+v, want 1,700 operations and 3 errors", tb.Rows[2])
	}
	for _, f := range rep.Header {
		if f.Label == "Clients" && f.Values[0] != "2 agents (1 lost)" {
			t.Errorf("clients %q", f.Values[0])
		}
	}
	if Build(&Run{}).Agents != nil {
		t.Error("a run of one has an agents table")
	}
}
