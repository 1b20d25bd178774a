package stream

import (
	"io"
	"slices"
	"sort"

	"benchtop/workload"
)

// A fleet (package fleet) runs the stream on many agents at once: each a
// stream of its own with its portion of the partitions (divided), or all
// of them one stream that a consumer group divides (shared: Kafka with
// kafka.group). The functions here add the agents' figures into the
// fleet's: counts, rates and lag add up; end-to-end latency percentiles
// do not add, so the fleet's is the worst agent's (its count is the sum).
// Partitions add up when divided; shared, the stream's count is the
// largest any agent runs (every agent has them all), and partition p of
// every agent is one partition.

// MergeViews adds the agents' views of one interval into the fleet's
// view; nil views are skipped, and nil is returned when all are. Divided,
// the partitions are listed agent after agent, numbered on (agent 2's
// partition 0 follows agent 1's last); shared, partition p's figures are
// the agents' sum, its lag the group's (the least of the agents'
// measures: its owner's).
func MergeViews(views []*workload.View, shared bool) *workload.View {
	out := workload.MergeRates(views)
	if out == nil {
		return nil
	}
	var pv *View
	offset := 0
	for _, v := range views {
		if v == nil || v.Partitions == nil {
			continue
		}
		p := v.Partitions
		if pv == nil {
			pv = &View{}
			out.Partitions = pv
		}
		if shared {
			addShared(pv, p)
			continue
		}
		addView(pv, p, offset)
		offset += max(p.Partitions, len(p.Parts))
	}
	if shared && pv != nil {
		pv.Lag, pv.LagSeconds = 0, 0
		for _, q := range pv.Parts {
			pv.Lag += q.Lag
			pv.LagSeconds = max(pv.LagSeconds, q.LagSeconds)
		}
	}
	if pv != nil {
		out.Line = line(pv)
	}
	return out
}

// addView adds one agent's partitions view into the fleet's, its
// partitions numbered from offset.
func addView(dst, v *View, offset int) {
	dst.Elapsed = max(dst.Elapsed, v.Elapsed)
	dst.Interval = max(dst.Interval, v.Interval)
	dst.Epoch = max(dst.Epoch, v.Epoch)
	dst.Partitions += v.Partitions
	dst.Consumers += v.Consumers
	// Held is a share of the interval: the fleet's is the producers'
	// mean, weighted by their count.
	if t := dst.Threads + v.Threads; t > 0 {
		dst.Held = (dst.Held*float64(dst.Threads) + v.Held*float64(v.Threads)) / float64(t)
	}
	dst.Threads += v.Threads
	dst.Produced += v.Produced
	dst.Consumed += v.Consumed
	dst.ProducedRate += v.ProducedRate
	dst.ConsumedRate += v.ConsumedRate
	dst.ProducedMBps += v.ProducedMBps
	dst.ConsumedMBps += v.ConsumedMBps
	dst.Lag += v.Lag
	dst.LagSeconds = max(dst.LagSeconds, v.LagSeconds)
	dst.E2E = worstLatency(dst.E2E, v.E2E)
	dst.OutOfOrder += v.OutOfOrder
	dst.Duplicated += v.Duplicated
	dst.Unknown += v.Unknown
	dst.FailedRows += v.FailedRows
	dst.ReadErrors += v.ReadErrors
	if v.LastError != "" {
		dst.LastError = v.LastError
	}
	dst.CPUCores += v.CPUCores
	dst.RSS += v.RSS
	for _, p := range v.Parts {
		p.Index += offset
		dst.Parts = append(dst.Parts, p)
	}
}

// addShared adds one agent's view of a shared stream into the fleet's:
// the totals as addView does, the partition count the largest, and each
// partition's figures into the fleet's partition of the same index.
func addShared(dst, v *View) {
	parts, cons := max(dst.Partitions, v.Partitions), max(dst.Consumers, v.Consumers)
	own := v.Parts
	v2 := *v
	v2.Parts = nil
	addView(dst, &v2, 0)
	dst.Partitions, dst.Consumers = parts, cons
	for _, p := range own {
		i := sort.Search(len(dst.Parts), func(i int) bool { return dst.Parts[i].Index >= p.Index })
		if i == len(dst.Parts) || dst.Parts[i].Index != p.Index {
			dst.Parts = slices.Insert(dst.Parts, i, PartitionView{Index: p.Index, Lag: p.Lag})
		}
		q := &dst.Parts[i]
		q.Active, q.Consuming, q.Held = q.Active || p.Active, q.Consuming || p.Consuming, q.Held || p.Held
		q.ProducedRate += p.ProducedRate
		q.Rate += p.Rate
		q.MBps += p.MBps
		q.Consumed += p.Consumed
		q.ProducedTotal += p.ProducedTotal
		q.Unknown += p.Unknown
		// The group's lag, as each agent measures it: the partition's
		// owner from what it delivered, the others from the commits (a
		// second behind at most); the owner's is the least.
		q.Lag = min(q.Lag, p.Lag)
		q.LagSeconds = max(q.LagSeconds, p.LagSeconds)
		q.P50, q.P95, q.P99, q.Max = max(q.P50, p.P50), max(q.P95, p.P95), max(q.P99, p.P99), max(q.Max, p.Max)
		q.LatencyCount += p.LatencyCount
	}
}

// worstLatency is the larger of two summaries, percentile by percentile,
// with both counts.
func worstLatency(a, b Latency) Latency {
	return Latency{Count: a.Count + b.Count, P50: max(a.P50, b.P50), P95: max(a.P95, b.P95), P99: max(a.P99, b.P99), Max: max(a.Max, b.Max)}
}

// SumSummaries adds the agents' closing summaries into the fleet's: rows
// produced, consumed, lost, duplicated, out of order and the errors add
// up, and so do the rates (the agents ran at once), CPU and memory;
// partitions add up when divided, and are the stream's (the largest
// agent's) when shared; threads add up, and each scenario says the
// agents and the threads per agent; drained only when every agent
// drained; the end-to-end latency is the worst agent's. Scenarios are
// added row by row when every agent held the same number of them (the
// fleet's changes reach every agent), else left out. Nil when parts is
// empty. A shared stream's row counts are the merged ledgers' verdict
// (Verdict.ApplyTo), not this sum.
func SumSummaries(parts []*Summary, shared bool) *Summary {
	if len(parts) == 0 {
		return nil
	}
	addParts := func(a, b int) int {
		if shared {
			return max(a, b)
		}
		return a + b
	}
	s := &Summary{Drained: true, RowSize: parts[0].RowSize, BatchSize: parts[0].BatchSize, Stream: parts[0].Stream, Scenarios: []Scenario{}}
	same := true
	for _, p := range parts {
		s.Produced += p.Produced
		s.Consumed += p.Consumed
		s.Distinct += p.Distinct
		s.Lost += p.Lost
		s.Duplicated += p.Duplicated
		s.Redelivered += p.Redelivered
		s.OutOfOrder += p.OutOfOrder
		s.Unknown += p.Unknown
		s.FailedWrites += p.FailedWrites
		s.FailedDelivered += p.FailedDelivered
		s.ReadErrors += p.ReadErrors
		s.Drained = s.Drained && p.Drained
		s.DrainMS = max(s.DrainMS, p.DrainMS)
		s.StableRowsPerSec += p.StableRowsPerSec
		s.PeakRowsPerSec += p.PeakRowsPerSec
		s.MeanRowsPerSec += p.MeanRowsPerSec
		s.StableMBPerSec += p.StableMBPerSec
		s.PeakMBPerSec += p.PeakMBPerSec
		s.CPUCores += p.CPUCores
		s.PeakRSS += p.PeakRSS
		s.E2E = worstE2E(s.E2E, p.E2E)
		s.PartitionsFinal = addParts(s.PartitionsFinal, p.PartitionsFinal)
		s.LogErrors += p.LogErrors
		s.Epochs = max(s.Epochs, p.Epochs)
		same = same && len(p.Scenarios) == len(parts[0].Scenarios)
	}
	if len(parts) > 1 && !shared {
		s.Stream = ""
	}
	s.MsPer1000Rows = msPer1000(s.StableRowsPerSec)
	if !same {
		return s
	}
	for i := range parts[0].Scenarios {
		row := Scenario{Agents: len(parts)}
		for j, p := range parts {
			sc := p.Scenarios[i]
			row.Partitions = addParts(row.Partitions, sc.Partitions)
			row.Threads += sc.Threads
			row.ThreadsPerAgent = max(row.ThreadsPerAgent, sc.Threads)
			row.StartS = max(row.StartS, sc.StartS)
			row.DurationS = max(row.DurationS, sc.DurationS)
			row.Rows += sc.Rows
			row.StableRowsPerSec += sc.StableRowsPerSec
			row.PeakRowsPerSec += sc.PeakRowsPerSec
			row.StableMBPerSec += sc.StableMBPerSec
			row.CPUCores += sc.CPUCores
			row.RSS += sc.RSS
			switch {
			case !shared:
				row.MaxLag += sc.MaxLag
			case j == 0:
				row.MaxLag = sc.MaxLag
			default:
				// The group's lag as each agent measured it: the least is
				// the nearest (each measures its own partitions exactly).
				row.MaxLag = min(row.MaxLag, sc.MaxLag)
			}
			row.E2E = worstE2E(row.E2E, sc.E2E)
			if p == parts[0] || sc.Intervals < row.Intervals {
				row.Intervals = sc.Intervals // the agent that held it least
			}
		}
		row.MsPer1000Rows = msPer1000(row.StableRowsPerSec)
		s.Scenarios = append(s.Scenarios, row)
	}
	s.BestNote = markScenarios(s.Scenarios)
	return s
}

func worstE2E(a, b E2EJSON) E2EJSON {
	return E2EJSON{Count: a.Count + b.Count, P50: max(a.P50, b.P50), P95: max(a.P95, b.P95), P99: max(a.P99, b.P99), Max: max(a.Max, b.Max)}
}

// FinalOf is the closing section of a summary made elsewhere (a fleet's
// sum): the text report's [STREAM] lines and table, and the JSON
// summary's "stream" member. Its Problems are left to the agents, which
// report their own.
func FinalOf(s *Summary) workload.Final {
	return workload.Final{Text: func(out io.Writer) { writeText(out, s) }, JSONKey: "stream", JSON: s}
}
