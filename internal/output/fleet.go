package output

// What a fleet run adds to the outputs: the agents' lines after the
// merged text report and the "agents" and "fleet" members of the JSON
// summary.

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"benchtop/fleet"
	"benchtop/htmlreport"
	"benchtop/workload"
)

// FleetMembers are a fleet run's members of the JSON summary.
type FleetMembers struct {
	// Agents are each agent's figures, host facts and own reports.
	Agents []fleet.AgentReport `json:"agents"`
	Fleet  FleetFigures        `json:"fleet"`
}

// FleetFigures is the JSON summary's "fleet" member.
type FleetFigures struct {
	Agents            int      `json:"agents"`
	Lost              []string `json:"lost"` // "name (why)"; null when none
	ThreadsPerAgent   int      `json:"threads_per_agent"`
	PartitionsDivided bool     `json:"partitions_divided"`
	// Verdict is the fleet's verdict on its ledgers (a shared stream's
	// rows, every agent's ledger merged), its member under its JSONKey:
	// "fleet": {"stream": ...}; nil without one.
	Verdict workload.Verdict `json:"-"`
}

// MarshalJSON writes the figures with the verdict's member last.
func (f FleetFigures) MarshalJSON() ([]byte, error) {
	type plain FleetFigures
	b, err := json.Marshal(plain(f))
	if err != nil || f.Verdict == nil {
		return b, err
	}
	v, err := json.Marshal(f.Verdict.JSON())
	if err != nil {
		return nil, fmt.Errorf("fleet verdict: %w", err)
	}
	return appendMember(b, f.Verdict.JSONKey(), v), nil
}

// FleetOf is the coordinator's members of the JSON summary.
func FleetOf(c *fleet.Coordinator) *FleetMembers {
	agents := c.Agents()
	m := &FleetMembers{Agents: agents, Fleet: FleetFigures{Agents: len(agents), Lost: c.Lost(),
		ThreadsPerAgent: c.ThreadsPerAgent(), PartitionsDivided: c.Divided()}}
	if v, ok := c.Verdict(); ok {
		m.Fleet.Verdict = v
	}
	return m
}

// htmlAgents are the summary's agents for the page (nil without a
// fleet).
func (s *Summary) htmlAgents() []htmlreport.Agent {
	if s == nil || s.FleetMembers == nil {
		return nil
	}
	out := make([]htmlreport.Agent, 0, len(s.Agents))
	for _, a := range s.Agents {
		h := htmlreport.Agent{Name: a.Name, State: a.State, Reason: a.Reason, LostAtMs: a.LostAtMs, UpToLoss: a.UpToLoss}
		for _, p := range a.Phases {
			h.Phases = append(h.Phases, htmlreport.AgentPhase{Phase: string(p.Phase), RunTimeMs: p.RunTimeMs,
				Operations: p.Operations, Throughput: p.Throughput, Errors: p.Errors})
		}
		out = append(out, h)
	}
	return out
}

// WriteFleetText adds the fleet's lines after the merged report: the
// agents' operations per phase added up (lost agents' up to their loss:
// the merged figures include them), then one [AGENT name] block per
// agent, in YCSB's "[SECTION], metric, value" form.
func WriteFleetText(w io.Writer, c *fleet.Coordinator) {
	agents := c.Agents()
	fmt.Fprintf(w, "[FLEET], Agents, %d\n", len(agents))
	lost := 0
	for _, a := range agents {
		if a.State == fleet.StateLost {
			lost++
		}
	}
	fmt.Fprintf(w, "[FLEET], Lost, %d\n", lost)
	for _, t := range agentTotals(agents) {
		fmt.Fprintf(w, "[FLEET], %s Operations, %d\n", t.Phase, t.Operations)
	}
	for _, a := range agents {
		sec := "[AGENT " + a.Name + "]"
		fmt.Fprintf(w, "%s, State, %s\n", sec, a.State)
		if a.Reason != "" {
			fmt.Fprintf(w, "%s, Reason, %s\n", sec, a.Reason)
		}
		if a.UpToLoss {
			fmt.Fprintf(w, "%s, Figures, up to its loss at %.1f s (in the merged figures)\n", sec, float64(a.LostAtMs)/1e3)
		}
		for _, p := range a.Phases {
			fmt.Fprintf(w, "%s, %s Operations, %d\n", sec, p.Phase, p.Operations)
			fmt.Fprintf(w, "%s, %s Throughput(ops/sec), %.2f\n", sec, p.Phase, p.Throughput)
		}
		fmt.Fprintf(w, "%s, ClockOffset(ms), %.3f\n", sec, a.ClockOffset)
	}
}

// agentTotals are the agents' operations per phase added up, in the
// order the phases first appear.
func agentTotals(agents []fleet.AgentReport) []fleet.PhaseFigures {
	var out []fleet.PhaseFigures
	for _, a := range agents {
		for _, p := range a.Phases {
			i := slices.IndexFunc(out, func(t fleet.PhaseFigures) bool { return t.Phase == p.Phase })
			if i < 0 {
				out = append(out, fleet.PhaseFigures{Phase: p.Phase})
				i = len(out) - 1
			}
			out[i].Operations += p.Operations
			out[i].Errors += p.Errors
		}
	}
	return out
}

// WriteFleetVerdict writes the fleet's verdict on its ledgers (a shared
// stream's rows, every agent's ledger merged: the [STREAM-FLEET] lines);
// nothing without one.
func WriteFleetVerdict(w io.Writer, c *fleet.Coordinator) {
	if v, ok := c.Verdict(); ok {
		v.WriteText(w)
	}
}
