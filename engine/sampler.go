package engine

import (
	"time"

	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/engine/workload"
)

// drain swaps every recorder's Set and merges it into the interval,
// cumulative and segment sets; with cutting, it also applies pending
// segment cuts.
func (p *phase) drain(cutting bool) {
	p.smu.Lock()
	defer p.smu.Unlock()
	for _, rec := range p.pool.recorders {
		old := rec.Swap(p.spare)
		if old.Empty() {
			p.spare = old
			continue
		}
		p.interval.Merge(old)
		p.cumulative.Merge(old)
		p.segs.open.set.Merge(old)
		old.Reset()
		p.spare = old
	}
	if !cutting {
		return
	}
	for _, c := range p.cutReqs {
		p.segs.close(latestCPU(p.env.host))
		p.segs.begin(c.label, c.ctl)
	}
	p.cutReqs = p.cutReqs[:0]
}

// latestCPU is the host's latest CPU reading, -1 when there is none. It
// reads what the host sampler's goroutine measured; it never reads /proc.
func latestCPU(h *host.Sampler) float64 {
	if hs := h.Latest(); hs.Cores > 0 && !hs.Time.IsZero() {
		return hs.CPUTotal
	}
	return -1
}

// sample publishes one snapshot: the interval since the last one.
func (p *phase) sample(final bool) *Snapshot {
	p.drain(true)
	now := time.Now()
	// The host sampler's goroutine takes the readings; when it has not
	// reported in this interval yet (the first one), it is asked for one,
	// outside any lock.
	hs := p.env.host.Fresh(p.env.cfg.StatusInterval)
	var ws workload.Sample
	if sm, ok := p.wl.(workload.Sampler); ok {
		ws = sm.Sample(now.Sub(p.lastTickLocked()))
	}

	p.smu.Lock()
	snap := p.snapshot(now, hs, ws, final)
	p.smu.Unlock()

	for _, h := range p.env.opts.OnSnapshot {
		h(snap)
	}
	p.env.publish(snap)
	return snap
}

func (p *phase) lastTickLocked() time.Time {
	p.smu.Lock()
	defer p.smu.Unlock()
	return p.lastTick
}

// snapshot builds the snapshot of the interval ending now and starts the
// next interval. Caller holds smu.
func (p *phase) snapshot(now time.Time, hs host.Sample, ws workload.Sample, final bool) *Snapshot {
	ivl := now.Sub(p.lastTick)
	ivlStart := p.lastTick
	p.lastTick = now
	p.seq++
	cfg := p.env.cfg
	snap := &Snapshot{
		Seq:        p.seq,
		Time:       now,
		Elapsed:    now.Sub(p.env.runStart),
		Interval:   ivl,
		Phase:      p.name,
		OpsTotal:   p.opsTotal,
		Progress:   -1,
		Host:       hs,
		Done:       final && p.last,
		Threads:    p.ctl.Threads,
		Partitions: p.ctl.Partitions,
		Target:     p.ctl.Target,
		Paused:     p.ctl.Paused,
		Events:     p.events,
		Workload:   ws.View,
	}
	p.events = nil
	if hs.Cores > 0 && !p.ctl.Paused {
		p.segs.addCPU(hs.CPUTotal)
		p.cpuSum += hs.CPUTotal
		p.cpuN++
	}
	p.segs.addDelta(ws.Delta)
	intended := p.targetEver.Load() && cfg.MeasurementIntvl != "op"
	snap.Ops, snap.Total = buildOps(p.opNames, p.interval, p.cumulative, ivl, p.runTime(now), intended, cfg.Percentiles)
	snap.OpsDone = p.cumulative.Ops
	switch {
	case p.opsTotal > 0:
		snap.Progress = min(1, float64(snap.OpsDone)/float64(p.opsTotal))
	case cfg.MaxExecutionTime > 0 && p.name == PhaseRun:
		snap.Progress = min(1, float64(now.Sub(p.start))/float64(cfg.MaxExecutionTime))
	}
	if final && !snap.Done {
		snap.Progress = 1
	}
	snap.IntegrityErrors = p.cumulative.Integrity
	if final {
		p.segs.close(latestCPU(p.env.host))
	}
	snap.Segments = p.segs.table(snap.Elapsed, final)
	snap.Warnings = append(p.warn.check(interval{
		paused: p.ctl.Paused, rate: snap.Total.Interval.Rate, target: p.ctl.Target,
		maxLag: p.interval.MaxLag, host: hs,
	}), ws.Warnings...)
	p.lastSnap = snap
	for _, h := range p.env.opts.OnInterval {
		h(p.name, p.opNames, ivlStart, now, p.interval)
	}
	if p.env.opts.IntervalData {
		snap.Data = &IntervalData{Phase: p.name, OpNames: p.opNames, Start: ivlStart, End: now, Set: p.interval}
		p.interval = &measure.Set{}
	} else {
		p.interval.Reset()
	}
	return snap
}
