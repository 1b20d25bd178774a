package engine

import (
	"fmt"
	"time"

	"benchtop/engine/host"
)

// bottleneck is the client-bottleneck detector: it watches each interval
// for a target the client does not reach, a schedule lag that keeps
// growing, and a saturated client CPU, and says so while it lasts.
type bottleneck struct {
	underTarget int   // intervals in a row under 95 % of the target
	lagGrowing  int   // intervals in a row with a growing schedule lag
	lastLag     int64 // the previous interval's largest lag, ns
}

// interval is what the detector reads of one interval.
type interval struct {
	paused bool
	rate   float64 // achieved ops/s
	target float64 // 0 = unlimited
	maxLag int64   // largest schedule lag, ns
	host   host.Sample
}

// check updates the detector with one interval and returns the warnings in
// force.
func (b *bottleneck) check(iv interval) []string {
	if iv.paused {
		b.underTarget, b.lagGrowing = 0, 0
		return nil
	}
	var out []string
	if iv.target > 0 && iv.rate < 0.95*iv.target {
		b.underTarget++
	} else {
		b.underTarget = 0
	}
	if b.underTarget >= 3 {
		out = append(out, fmt.Sprintf("client bottleneck: %.0f of %.0f target ops/s for %d intervals (more threads?)", iv.rate, iv.target, b.underTarget))
	}
	if iv.target > 0 && iv.maxLag > b.lastLag && iv.maxLag > int64(10*time.Millisecond) {
		b.lagGrowing++
	} else if iv.maxLag <= b.lastLag {
		b.lagGrowing = 0
	}
	b.lastLag = iv.maxLag
	if b.lagGrowing >= 3 {
		out = append(out, fmt.Sprintf("client bottleneck: schedule lag growing (%v behind the target schedule)", time.Duration(iv.maxLag).Round(time.Millisecond)))
	}
	if iv.host.Cores > 0 && iv.host.CPUTotal > 90 {
		out = append(out, fmt.Sprintf("client bottleneck: client CPU at %.0f %%", iv.host.CPUTotal))
	}
	return out
}
