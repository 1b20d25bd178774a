package fleet

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"benchtop/adapters"
	"benchtop/workload"
)

// CheckSplit refuses, with one line, a run that cannot be split over n
// agents: an operation count smaller than the fleet (an agent with 0
// would run without a limit), and load.before.run (its key range would
// narrow the run phase's).
func CheckSplit(command string, props map[string]string, n int) error {
	r := adapters.NewReader(adapters.Properties(props))
	if v, ok := props["load.before.run"]; ok && strings.TrimSpace(strings.ToLower(v)) == "true" {
		return &adapters.ConfigError{Key: "load.before.run", Value: v, Allowed: "false with agents: load with `benchtop load ... --agents` first"}
	}
	if command == "run" {
		if oc := r.Int64("operationcount", 0, 0, math.MaxInt64); oc > 0 && oc < int64(n) {
			return &adapters.ConfigError{Key: "operationcount", Value: props["operationcount"], Allowed: fmt.Sprintf("0 or at least one per agent (%d)", n)}
		}
	}
	return nil
}

// DividesPartitions is the fleet's one decision about partitions: true
// when the partition count is divided among the agents (agent i of n gets
// Portion(P, i, n) partitions of a stream of its own, each partition
// produced and consumed by exactly one agent; a change is re-divided),
// false when every agent gets the whole count and a change goes to one
// agent only (a store that divides partitions among a group's consumers
// server-side declares adapters.Capabilities.SharedPartitions: Kafka with
// kafka.group). Only a workload whose Group is Partitioned (the stream)
// has partitions to divide.
func DividesPartitions(name string, caps adapters.Capabilities) bool {
	g := workload.GroupOf(name)
	return g != nil && g.Partitioned && !caps.SharedPartitions
}

// SplitProps returns agent i of n's properties and what they give it:
// threads per agent; the total target and operation count split; for a
// load of the core workload into a shared store, the key range split
// (insertstart/insertcount, YCSB's parallel-load recipe) so that the
// fleet loads every record exactly once. An in-process store
// (caps.StartsEmpty) is each agent's own: its load range is not split.
// When DividesPartitions, the partitions are divided (Share.Partitions;
// an agent whose portion is 0 is given 1 in its properties, so that it
// validates, and the coordinator refuses the run: see CheckPartitions).
func SplitProps(command, name string, base map[string]string, i, n int, caps adapters.Capabilities) (map[string]string, Share) {
	out := make(map[string]string, len(base)+3)
	for k, v := range base {
		out[k] = v
	}
	// The properties were validated (engine.NewConfig) before the split.
	p := adapters.NewReader(adapters.Properties(base))
	sh := Share{Threads: p.Int("threadcount", 1, 1, math.MaxInt32), InsertStart: -1, InsertCount: -1, Partitions: -1}
	if DividesPartitions(name, caps) {
		sh.Partitions = int(workload.Portion(int64(p.Int("partitions", 1, 1, math.MaxInt32)), i, n))
		out["partitions"] = strconv.Itoa(max(sh.Partitions, 1))
	}
	if t := p.Float("target", 0, 0, math.MaxFloat64); t > 0 {
		sh.Target = splitTarget(t, n)
		out["target"] = strconv.FormatFloat(sh.Target, 'f', -1, 64)
	}
	if oc := p.Int64("operationcount", 0, 0, math.MaxInt64); oc > 0 && command == "run" {
		sh.OperationCount = workload.Portion(oc, i, n)
		out["operationcount"] = strconv.FormatInt(sh.OperationCount, 10)
	}
	if g := workload.GroupOf(name); g != nil && g.AgentProps != nil {
		g.AgentProps(out, i) // the stream's origin
	}
	if g := workload.GroupOf(name); command == "load" && g != nil && g.SplitLoad != nil && !caps.StartsEmpty {
		sh.InsertStart, sh.InsertCount = g.SplitLoad(out, i, n) // the core workload's key range
	}
	return out, sh
}

// splitTarget is one agent's part of a total target (0 stays unlimited).
func splitTarget(total float64, n int) float64 {
	if total <= 0 || n <= 0 {
		return 0
	}
	return math.Max(total/float64(n), 0)
}

// CheckPartitions refuses, with one line, a divided partition count below
// the agent count (an agent would have none to produce or consume).
func CheckPartitions(total, agents int) error {
	if total < agents {
		return &adapters.ConfigError{Key: "partitions", Value: strconv.Itoa(total),
			Allowed: fmt.Sprintf("at least one per agent (%d): the fleet divides the stream's partitions among its agents", agents)}
	}
	return nil
}
