package engine

import (
	"runtime"
	"time"

	"benchtop/engine/host"
	"benchtop/workload"
)

// drain drains every recorder's Set and merges it into the assembler; with
// cutting, it also applies pending segment cuts. The recorders' Sets are
// gathered into one first, which the assembler adds once: each Add merges
// into three Sets (the interval, the phase, the segment).
func (p *phase) drain(cutting bool) {
	p.smu.Lock()
	defer p.smu.Unlock()
	for _, rec := range p.pool.recorders {
		rec.Drain(p.gather)
		// Yield between recorders, so that the workers queued behind the
		// sampler on its P wait for one recorder's merge at most (tens of
		// µs through measure's view; when merges walked every bucket, 64
		// busy recorders held a P for 30 ms).
		runtime.Gosched()
	}
	if !p.drained.Empty() {
		p.asm.Add(p.drained)
		p.drained.Reset()
	}
	if !cutting {
		return
	}
	for _, c := range p.cutReqs {
		p.asm.Cut(c.label, c.ctl, latestCPU(p.env.host))
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
	// outside any lock. The workload's figures too are read unlocked.
	hs := p.env.host.Fresh(p.env.cfg.StatusInterval)
	var ws workload.Sample
	if sm, ok := p.wl.(workload.Sampler); ok {
		ws = sm.Sample(now.Sub(p.lastSampled))
	}
	p.lastSampled = now

	opts := p.env.opts
	p.smu.Lock()
	if final && !p.endTime.IsZero() && p.endTime.Before(now) && p.endTime.After(p.asm.lastTick) {
		// The last interval ends where the run time ends: the deadline or
		// a stop, or the last operation in flight there that completed in
		// the grace after it (phase.drainWorkers), which counts with its
		// time. When a tick already passed the end, the last interval is
		// the rest up to now: dated at the end it would end where the
		// tick's did (two intervals of one end in the HDR log, two
		// samples of one timestamp in a metrics push).
		now = p.endTime
	}
	snap, data := p.asm.Snapshot(now, p.runTime(now), hs, ws, final, len(opts.OnIntervalData) > 0)
	for _, h := range opts.OnInterval {
		h(p.name, p.opNames, data.Start, snap.Time, data.Set)
	}
	if p.asm.Recycle(data) {
		data = nil
	}
	p.smu.Unlock()

	for _, h := range opts.OnIntervalData {
		h(snap, data)
	}
	for _, h := range opts.OnSnapshot {
		h(snap)
	}
	p.env.publish(snap)
	return snap
}
