package fleet

import (
	"encoding/json"
	"maps"
	"time"

	"benchtop/adapters"
	"benchtop/workload"
)

// A shared stream: the agents' adapters declare
// adapters.Capabilities.SharedPartitions (Kafka with kafka.group), so the
// server divides the stream's partitions among the agents' consumers, and
// moves them when partitions or agents change. Then:
//   - every agent works on one stream, under names the coordinator picks
//     once (SharedProps: the driver's Fleet hook), with every partition;
//   - each agent's rows carry its place in the fleet (stream.origin, set
//     by SplitProps), and each agent sends its ledger of the rows it
//     delivered and produced in its Done; the coordinator merges them
//     into the fleet's verdict (StreamVerdict);
//   - a partition change grows the stream once: the first agent grows it,
//     the others follow once it reports the new count
//     (setSharedPartitions), each switching its producers.

// SharedProps returns props with what the adapter's driver wants set once
// for the whole fleet (adapters.Driver.Fleet), for the coordinator to
// call before it validates the run; props itself is not changed.
func SharedProps(adapter string, props map[string]string) map[string]string {
	d, ok := adapters.Lookup(adapter)
	if !ok || d.Fleet == nil {
		return props
	}
	add := d.Fleet(adapters.Properties(props))
	if len(add) == 0 {
		return props
	}
	out := maps.Clone(props)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, add)
	return out
}

// sharedPartitions tells whether the agents share one stream whose
// partitions the server divides (their Ready says so).
func (c *Coordinator) sharedPartitions() bool {
	return len(c.agents) > 0 && c.agents[0].ready.Share.SharedPartitions
}

// followWait bounds how long the others wait for the first agent to grow
// the stream before they are sent the change anyway (then each grows it
// if it must: Kafka refuses a second growth to the same count, which the
// adapter takes as done).
const followWait = 30 * time.Second

// setSharedPartitions sends a partition change to the first live agent,
// which grows the stream, and to the others once it reports the new
// count: the stream grows once, and every agent's producers switch.
func (c *Coordinator) setSharedPartitions(n int) error {
	c.mu.Lock()
	live := c.live()
	c.mu.Unlock()
	if len(live) == 0 {
		return nil
	}
	ctl := Control{Op: "partitions", N: n}
	lead, rest := live[0], live[1:]
	_ = lead.conn.Send(TypeControl, ctl)
	if len(rest) == 0 {
		return nil
	}
	go func() {
		deadline := time.Now().Add(followWait)
		for int(lead.parts.Load()) != n && time.Now().Before(deadline) {
			select {
			case <-c.stopCh:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		for _, a := range rest {
			_ = a.conn.Send(TypeControl, ctl)
		}
	}()
	return nil
}

// Verdict merges the ledgers of the agents that sent one (a shared
// stream's run, after Run) by the workload's Group: the fleet's account
// of every row. ok is false when no agent sent a ledger (or one could not
// be read). The agents that were part of the run and sent none (lost
// ones) count as missing: their rows then show as unknown or lost, and
// the verdict is incomplete.
func (c *Coordinator) Verdict() (v workload.Verdict, ok bool) {
	g := c.group()
	c.mu.Lock()
	defer c.mu.Unlock()
	if g == nil || g.Merge == nil {
		return nil, false
	}
	var ls []json.RawMessage
	missing := 0
	for _, a := range c.agents {
		if a.done != nil && len(a.done.Rows) > 0 {
			ls = append(ls, a.done.Rows)
		} else {
			missing++
		}
	}
	if len(ls) == 0 {
		return nil, false
	}
	if c.verdict != nil && c.verdictOf == [2]int{len(ls), missing} {
		return c.verdict, true
	}
	v, err := g.Merge(ls, missing)
	if err != nil {
		return nil, false
	}
	c.verdict, c.verdictOf = v, [2]int{len(ls), missing}
	return v, true
}

// group is the run's workload's part in a fleet (nil: none).
func (c *Coordinator) group() *workload.Group {
	return workload.GroupOf(c.cfg.Config.Workload)
}

// mergeViews adds the agents' views of one interval into the fleet's:
// by the workload's Group, else their rates added up.
func (c *Coordinator) mergeViews(views []*workload.View) *workload.View {
	if g := c.group(); g != nil && g.MergeViews != nil {
		return g.MergeViews(views, c.sharedPartitions())
	}
	return workload.MergeRates(views)
}
