package htmlreport

import (
	"strconv"

	"benchtop/rundata/units"
)

// Agent is one client machine of a fleet run, as the JSON summary's
// "agents" member has it: its state and its operations per phase (a lost
// agent's up to its loss, as merged into the fleet's figures).
type Agent struct {
	Name     string       `json:"name"`
	State    string       `json:"state"`
	Reason   string       `json:"reason,omitempty"`
	LostAtMs int64        `json:"lost_at_ms,omitempty"`
	UpToLoss bool         `json:"up_to_loss,omitempty"`
	Phases   []AgentPhase `json:"phases,omitempty"`
}

// AgentPhase is one agent's figures of one phase.
type AgentPhase struct {
	Phase      string  `json:"phase"`
	RunTimeMs  int64   `json:"runtime_ms"`
	Operations int64   `json:"operations"`
	Throughput float64 `json:"throughput_ops_sec"`
	Errors     int64   `json:"errors"`
}

// agentsTable is a fleet run's agents, one row each, and their sum: the
// rows, lost agents' included (up to their loss), add up to the merged
// figures of the report.
func agentsTable(run *Run) *Table {
	if len(run.Agents) == 0 {
		return nil
	}
	phase := lastPhase(&run.Summary)
	t := &Table{ID: "agents", Caption: "Each agent's operations over the " + phase + " phase; a lost agent's up to its loss, which the merged figures include: the rows add up to them",
		Columns: []string{"agent", "state", "operations", "ops/s", "errors", "run time", "note"}}
	var ops, errs int64
	for _, a := range run.Agents {
		var p AgentPhase
		for _, q := range a.Phases {
			if q.Phase == phase {
				p = q
			}
		}
		ops += p.Operations
		errs += p.Errors
		note := ""
		if a.UpToLoss {
			note = "up to its loss at " + fmtSeconds(float64(a.LostAtMs)/1e3)
			if a.Reason != "" {
				note += ": " + a.Reason
			}
		}
		t.Rows = append(t.Rows, TRow{Cells: []Cell{
			textCell(a.Name), textCell(a.State),
			numCell(units.Count(p.Operations), "operations", float64(p.Operations)),
			numCell(fmtRate(p.Throughput), "throughput_ops_sec", p.Throughput),
			numCell(units.Count(p.Errors), "errors", float64(p.Errors)),
			numCell(fmtSeconds(float64(p.RunTimeMs)/1e3), "runtime_ms", float64(p.RunTimeMs)),
			textCell(note),
		}})
	}
	t.Rows = append(t.Rows, TRow{Class: "total", Cells: []Cell{
		textCell(strconv.Itoa(len(run.Agents)) + " agents"), textCell(""),
		numCell(units.Count(ops), "operations", float64(ops)),
		textCell(""),
		numCell(units.Count(errs), "errors", float64(errs)),
		textCell(""), textCell("the merged figures"),
	}})
	return t
}

// clientsText is the header's Clients line.
func clientsText(run *Run) string {
	if len(run.Agents) == 0 {
		return "1 (this host; no agents)"
	}
	lost := 0
	for _, a := range run.Agents {
		if a.State == "lost" {
			lost++
		}
	}
	s := strconv.Itoa(len(run.Agents)) + " agents"
	if lost > 0 {
		s += " (" + strconv.Itoa(lost) + " lost)"
	}
	return s
}
