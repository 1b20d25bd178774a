package stream

import (
	"io"

	"benchtop/engine/workload"
)

// A fleet (package fleet) runs the stream on many agents at once, each a
// stream of its own with its portion of the partitions. The functions
// here add the agents' figures into the fleet's: counts, rates and lag
// add up; end-to-end latency percentiles do not add, so the fleet's is
// the worst agent's (its count is the sum).

// MergeViews adds the agents' views of one interval into the fleet's
// view; nil views are skipped, and nil is returned when all are. The
// partitions are listed agent after agent, numbered on (agent 2's
// partition 0 follows agent 1's last).
func MergeViews(views []*workload.View) *workload.View {
	var out *workload.View
	var pv *View
	rate := &workload.Rate{}
	offset := 0
	for _, v := range views {
		if v == nil {
			continue
		}
		if out == nil {
			out = &workload.View{}
		}
		if r := v.Rate; r != nil {
			rate.Name, rate.Unit = r.Name, r.Unit
			rate.Value += r.Value
			rate.Mean += r.Mean
			rate.MBps += r.MBps
			out.Rate = rate
		}
		p := v.Partitions
		if p == nil {
			continue
		}
		if pv == nil {
			pv = &View{}
			out.Partitions = pv
		}
		addView(pv, p, offset)
		offset += max(p.Partitions, len(p.Parts))
	}
	if out == nil {
		return nil
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

// worstLatency is the larger of two summaries, percentile by percentile,
// with both counts.
func worstLatency(a, b Latency) Latency {
	return Latency{Count: a.Count + b.Count, P50: max(a.P50, b.P50), P95: max(a.P95, b.P95), P99: max(a.P99, b.P99), Max: max(a.Max, b.Max)}
}

// SumSummaries adds the agents' closing summaries into the fleet's: rows
// produced, consumed, lost, duplicated, out of order and the errors add
// up, and so do the rates (the agents ran at once), partitions, CPU and
// memory; drained only when every agent drained; the end-to-end latency
// is the worst agent's. Scenarios are added row by row when every agent
// held the same number of them (the fleet's changes reach every agent),
// else left out. Nil when parts is empty.
func SumSummaries(parts []*Summary) *Summary {
	if len(parts) == 0 {
		return nil
	}
	s := &Summary{Drained: true, RowSize: parts[0].RowSize, BatchSize: parts[0].BatchSize, Stream: parts[0].Stream, Scenarios: []Scenario{}}
	same := true
	for _, p := range parts {
		s.Produced += p.Produced
		s.Consumed += p.Consumed
		s.Distinct += p.Distinct
		s.Lost += p.Lost
		s.Duplicated += p.Duplicated
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
		s.PartitionsFinal += p.PartitionsFinal
		s.Epochs = max(s.Epochs, p.Epochs)
		same = same && len(p.Scenarios) == len(parts[0].Scenarios)
	}
	if len(parts) > 1 {
		s.Stream = ""
	}
	s.MsPer1000Rows = msPer1000(s.StableRowsPerSec)
	if !same {
		return s
	}
	for i := range parts[0].Scenarios {
		var row Scenario
		for _, p := range parts {
			sc := p.Scenarios[i]
			row.Partitions += sc.Partitions
			row.Threads += sc.Threads
			row.StartS = max(row.StartS, sc.StartS)
			row.DurationS = max(row.DurationS, sc.DurationS)
			row.Rows += sc.Rows
			row.StableRowsPerSec += sc.StableRowsPerSec
			row.PeakRowsPerSec += sc.PeakRowsPerSec
			row.StableMBPerSec += sc.StableMBPerSec
			row.CPUCores += sc.CPUCores
			row.RSS += sc.RSS
			row.MaxLag += sc.MaxLag
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
